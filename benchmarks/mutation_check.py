"""Mutation check: do the tests fail when the physics is wrong?

Each mutation below changes one line of the physics (a force left out of a residual, a sign, a
Gauss rule, a scheme's coefficient, a law's parameter) in a scratch copy of the repository, then
runs there the tests named for it: the fastest ones known to catch it, not the whole suite. A
mutation is *caught* when at least one of them fails by an assertion (an ``AssertionError``: a
statement about the physics), not merely by an exception such as a Newton failure or a math
domain error; otherwise it *SURVIVED*. A mutation whose text no longer occurs exactly once in its
file is *STALE*: the code moved, update the mutation to the code as it is now (and move it with a
line that moved to another module). One line per mutation::

    caught   <name>  by tests/...::test: <message>  (<seconds> s)
    SURVIVED <name>  only by tests/...::test (ValueError)
    STALE    <name>  the text to mutate occurs 0 times in fem/...

The tests named for a mutation assert the physics it breaks: a test that asserts a script's exit
code (``assert 1 == 0`` after a crash) would pass for an assertion here, so such tests are not
named. A mutation whose tests run over TIMEOUT seconds (a hang) is not caught.

Before the mutations the named tests run once, unmutated, in the scratch copy (the baseline): a
test that fails there would "catch" every mutation naming it, so a failing baseline stops the
check (``--no-baseline`` skips it).

Run:  python benchmarks/mutation_check.py [--only SUBSTRING] [--keep DIR] [--jobs N] [--no-baseline] [--list]

Exit code 0 when every mutation is caught; 1 when any survives or is stale; 2 on bad arguments or a
failing baseline.

In CI: ``tests/test_mutation_check.py`` checks in the default suite that every mutation still
applies (its text occurs exactly once), and its slow test (``.ci/run``'s ``pytest -m slow``) runs
this check with ``--jobs 2`` and asserts that every mutation is caught and none is stale. Measured
with ``time python benchmarks/mutation_check.py --jobs 2`` on a two-core machine shared with other
jobs (load 2-4), at 57 mutations: 57 of 57 caught in 170-240 s of wall time, 160-170 s of CPU (the baseline 30-40 s
of the wall time); on two idle cores about half the CPU time. At 102 mutations, the scratch copies taking
numba's cached loops with them and getting them back after each mutation (:func:`_restore_caches`): 102 of
102 caught in 309 s of wall time, 9.6 min of CPU (load about 1; the baseline 37 s); the five mutations of
contact/newton_loop.py alone 49 s against 96 s before (each mutated run still compiles the Newton loop
again, about 12 s).
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: seconds one mutation's tests may take before it counts as not caught (a mutation that hangs a run)
TIMEOUT = 600


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository
    old: str  # must occur exactly once in the file
    new: str
    tests: tuple[str, ...]  # pytest node ids or files, relative to the repository


def _m(name, file, old, new, *tests) -> Mutation:
    return Mutation(name, file, old, new, tuple(tests))


ENERGY_BOOKS = "tests/test_energy_balance.py::test_books_close_on_every_scheme_and_contact_method"
HHT_FORCED = "tests/test_hht_forced.py::test_hht_oui_converges_at_second_order_to_the_forced_response"

MUTATIONS = (
    # ---- fem/model/continuum.py: element kernels (tests/test_elements.py, tests/test_model.py, tests/test_damping.py)
    _m("total-Lagrangian tangent: initial-stress term dropped", "fem/model/continuum.py",
       "_matrices(k, state, 1.0, 0.0, c_g=1.0,", "_matrices(k, state, 1.0, 0.0, c_g=0.0,",
       "tests/test_elements.py::test_tangent_matches_central_differences_at_large_deformation[quad]"),
    _m("total-Lagrangian tangent: the damping stress's u-derivative dropped", "fem/model/continuum.py",
       "rate = c_k * alpha_e if large and moving else 0.0", "rate = 0.0",
       "tests/test_elements.py::test_tangent_matches_central_differences_at_large_deformation[quad]"),
    _m("Newton matrix (combined tangent): initial-stress term dropped", "fem/model/continuum.py",
       "_matrices(k, state, c_k, c_v, c_g=c_k,", "_matrices(k, state, c_k, c_v, c_g=0.0,",
       "tests/test_model.py::test_regions_fused_into_one_kernel_give_each_its_own_material[total_lagrangian]"),
    _m("AMOR_ALPHA x 1.5", "fem/model/continuum.py",
       "alpha = cells([mat.rayleigh_stiffness for mat in mats])",
       "alpha = cells([1.5 * mat.rayleigh_stiffness for mat in mats])",
       "tests/test_damping.py::test_rayleigh_damped_mode_matches_closed_form[stiffness-average-acceleration]"),
    _m("plane strain instead of plane stress (lambda* = E nu / ((1 + nu)(1 - 2 nu)))", "fem/model/continuum.py",
       "lam=cells([mat.young * mat.poisson / (1.0 - mat.poisson ** 2) for mat in mats]),",
       "lam=cells([mat.young * mat.poisson / ((1.0 + mat.poisson) * (1.0 - 2.0 * mat.poisson)) for mat in mats]),",
       "tests/test_elements.py::test_patch_test_distorted_small_strain[quad]"),
    _m("Green-Lagrange strain without its quadratic term H^T H", "fem/model/continuum.py",
       "quadratic = _transposed_product(H, H) if large else _ZERO", "quadratic = _ZERO",
       "tests/test_model.py::test_rigid_rotation_gives_no_force_total_lagrangian"),
    # ---- fem/model/elements.py: quadrature (tests/test_elements.py)
    _m("QUA8 stiffness rule 3x3 -> 2x2 Gauss points", "fem/model/elements.py",
       "_q8_grad, _gauss_square(3), _gauss_square(3)", "_q8_grad, _gauss_square(2), _gauss_square(3)",
       "tests/test_elements.py::test_stiffness_matches_a_fine_rule_on_affine_cells"),
    _m("a Gauss weight altered: Dunavant's w_a of the TRIA6 mass rule", "fem/model/elements.py",
       "a, wa = 0.445948490915965, 0.223381589678011", "a, wa = 0.445948490915965, 0.233381589678011",
       "tests/test_elements.py::test_mass_rule_integrates_shape_products_exactly"),
    _m("a Gauss weight altered: the first weight of the square rules x 1.01", "fem/model/elements.py",
       "    W = np.outer(w, w)\n", "    W = np.outer(w, w)\n    W[0, 0] *= 1.01\n",
       "tests/test_elements.py::test_mass_rule_integrates_shape_products_exactly"),
    # ---- fem/model/assembly.py: mass, damping, stresses
    _m("HRZ lumping without the scaling to the element's mass", "fem/model/assembly.py",
       "diag * (total / diag.sum(axis=1))[:, None]", "diag",
       "tests/test_elements.py::test_total_mass"),
    _m("AMOR_BETA: mass-proportional damping force halved", "fem/model/assembly.py",
       "f_damp += self.mass_damping @ v", "f_damp += 0.5 * (self.mass_damping @ v)",
       "tests/test_damping.py::test_rayleigh_damped_mode_matches_closed_form[mass-average-acceleration]"),
    _m("Cauchy stress without the division by det F", "fem/model/assembly.py",
       'sigma = np.einsum("iIqe,IJqe,jJqe->ijqe", F, state.S, F) / jacobian(F)',
       'sigma = np.einsum("iIqe,IJqe,jJqe->ijqe", F, state.S, F)',
       "tests/test_paraview_fields.py::test_stress_cauchy_is_f_s_ft_over_det_f_of_the_written_displacement"),
    # ---- fem/time/dynamics.py: Newmark/HHT step
    _m("HHT: the -alpha g_n term dropped from the residual", "fem/time/newmark.py",
       "- (w0[i] if w0.size > 1 else w0[0]) * g0[i]", "- 0.0 * g0[i]",
       HHT_FORCED, ENERGY_BOOKS + "[hht-oui-lagrange]"),
    _m("HHT 'OUI': the Rayleigh damping force dropped from g_n (closed-form damped mode)", "fem/time/dynamics.py",
       "g0 = state.f_int + state.f_damp + state.f_terms - state.f_ext",
       "g0 = state.f_int + state.f_terms - state.f_ext",
       "tests/test_damping.py::test_rayleigh_damped_mode_matches_closed_form[mass-hht-oui]"),
    _m("HHT 'OUI': the Rayleigh damping force dropped from g_n (energy books)", "fem/time/dynamics.py",
       "g0 = state.f_int + state.f_damp + state.f_terms - state.f_ext",
       "g0 = state.f_int + state.f_terms - state.f_ext",
       ENERGY_BOOKS + "[hht-oui-lagrange]"),
    _m("HHT 'OUI': the external force dropped from g_n", "fem/time/dynamics.py",
       "g0 = state.f_int + state.f_damp + state.f_terms - state.f_ext",
       "g0 = state.f_int + state.f_damp + state.f_terms",
       HHT_FORCED),
    _m("HHT 'OUI': the external force of g_n taken at t_n+1 (mis-timed)", "fem/time/dynamics.py",
       "g0 = state.f_int + state.f_damp + state.f_terms - state.f_ext",
       "g0 = state.f_int + state.f_damp + state.f_terms - ctx.loads.at(t1)",
       HHT_FORCED),
    _m("damping force halved in the residual (books keep the model's)", "fem/time/newmark.py",
       "g[i] = internal[i] + damping[i] + f_terms[i] - f_ext[i]",
       "g[i] = internal[i] + 0.5 * damping[i] + f_terms[i] - f_ext[i]",
       ENERGY_BOOKS + "[newmark-lagrange]"),
    _m("Newmark velocity update with 1 - gamma and gamma swapped", "fem/time/newmark.py",
       "v[i] = v0[i] + dt * (old * a0[i] + gamma * a[i])", "v[i] = v0[i] + dt * (gamma * a0[i] + old * a[i])",
       "tests/test_schemes.py::test_one_dof_amplification_matches_theory[-0.05-OUI]"),
    _m("support reactions computed with the wrong sign", "fem/time/dynamics.py",
       "    reactions[cdofs] = reactions_c\n", "    reactions[cdofs] = -reactions_c\n",
       "tests/test_paraview_fields.py::test_reactions_and_contact_forces_balance_the_momentum"),
    # ---- fem/time/newton_system.py: the redundancy of a multiplier equation with the supports
    _m("redundant equations: the stick row's projection on its normal row dropped", "fem/time/newton_system.py",
       "along = nt / nn if nn > 0 else 0.0", "along = 0.0",
       "tests/test_sdnv105_tilt.py", "tests/test_newton_system.py::test_the_redundancy_loop_decides_as_its_vectorised_definition"),
    # ---- fem/time/newton_system.py: the compiled fills of the Newton matrix and the mixed matrix
    _m("Newton matrix (c_v per dof): the damping matrix scaled by c_v of the row, not of the column",
       "fem/time/newton_system.py", "tangent = c_k * K[p] + C[p] * c_v[col[p]]", "tangent = c_k * K[p] + C[p] * c_v[row[p]]",
       "tests/test_weak_spots.py::test_the_newton_iterations_of_a_reference_run_stay_at_their_count"),
    _m("mixed matrix: the reaction columns -w G^T with the wrong sign", "fem/time/newton_system.py",
       "else -weight * G[i, j]", "else weight * G[i, j]",
       "tests/test_weak_spots.py::test_the_newton_iterations_of_a_reference_run_stay_at_their_count"),
    _m("mixed matrix: the equations' rows B_f dropped but their last entry", "fem/time/newton_system.py",
       "                data[slot[p]] += B[i, j]\n", "                data[slot[p]] += B[i, j] if j == k - 1 else 0.0\n",
       "tests/test_weak_spots.py::test_the_newton_iterations_of_a_reference_run_stay_at_their_count"),
    # ---- fem/time/newton_system.py: SuperLU's symmetric mode for the systems without multipliers
    _m("symmetric mode: the rows left unpermuted (P A, not P A P^T, factorised for the right-hand side P b)",
       "fem/time/newton_system.py", "            rows = np.asarray(perm_c)[rows]\n", "",
       "tests/test_newton_system.py::test_a_system_without_multipliers_is_solved_in_superlus_symmetric_mode"),
    _m("symmetric mode: the right-hand side not permuted with the rows", "fem/time/newton_system.py",
       "lu.solve(b[columns] if pattern.symmetric else b)", "lu.solve(b)",
       "tests/test_newton_system.py::test_a_system_without_multipliers_is_solved_in_superlus_symmetric_mode"),
    # ---- fem/time/dense_lu.py: the mixed systems' dense LU (LAPACK by symbol name)
    _m("dense LU: the transposed system solved (dgetrs 'T')", "fem/time/dense_lu.py",
       'chars[0], chars[1] = 78, 49  # "N"', 'chars[0], chars[1] = 84, 49  # "N"',
       ENERGY_BOOKS + "[newmark-lagrange]"),
    _m("dense LU: a matrix singular to working precision trusted (no condition test)", "fem/time/dense_lu.py",
       "    if not reals[1] >= rcond_min:\n        return x, SINGULAR\n", "",
       "tests/test_dense_lu.py::test_a_round_off_repeated_row_is_singular_and_a_nan_fails"),
    # ---- contact/newton_loop.py: a Newmark/HHT step's Newton iterations in one compiled call
    _m("compiled Newton loop: a law parameter read from the wrong column (mu from the gap tolerance's)",
       "contact/newton_loop.py", "parameters[t, 2], parameters[t, 3], parameters[t, 4],",
       "parameters[t, 5], parameters[t, 3], parameters[t, 4],", ENERGY_BOOKS + "[hht-oui-lagrange]"),
    _m("compiled Newton loop: a term's held nodes ignored (release located: the probes let them open)",
       "contact/newton_loop.py", "held[s0:s1], has_held[t],", "held[s0:s1], False,",
       "tests/test_mass.py::test_located_release_never_gives_energy_back_at_a_step_immediate_does"),
    _m("compiled Newton loop: a term's kept-open nodes ignored (closing located: the probes let them close)",
       "contact/newton_loop.py", "free_mask[s0:s1], has_free[t],", "free_mask[s0:s1], False,",
       "tests/test_contact_landing.py::test_the_located_closing_takes_at_most_its_tolerance_and_creates_nothing"),
    # (a fill that leaves the mixed matrix singular, B_f or A dropped, is not run by the loop: its dense LU
    # refuses the step and the Python loop runs it again, FALLBACK; a wrong one that is regular is)
    _m("compiled Newton loop: the reaction columns -w G^T filled with the wrong sign",
       "contact/newton_loop.py", "weight = w1[columns[r, j]] if w_rows else w1[0]",
       "weight = -(w1[columns[r, j]] if w_rows else w1[0])",
       "tests/test_weak_spots.py::test_the_newton_iterations_of_a_reference_run_stay_at_their_count"),
    _m("compiled Newton loop: the iterate's kinematics with gamma = 1/2 whatever the scheme",
       "contact/newton_loop.py", "newmark.newmark_kinematics(u, u0, v0, a0, ca, dt, beta, gamma, quasi_static)",
       "newmark.newmark_kinematics(u, u0, v0, a0, ca, dt, beta, 0.5, quasi_static)", ENERGY_BOOKS + "[hht-oui-lagrange]"),
    # ---- fem/time/newton.py: forces shared by every implicit step
    _m("initial acceleration without the external force", "fem/time/newton.py",
       "rhs = (f_ext - forces.internal - forces.damping - f_terms)[massive]",
       "rhs = (-forces.internal - forces.damping - f_terms)[massive]",
       "tests/test_dynamics.py::test_release_computes_acceleration_from_equilibrium"),
    # ---- fem/time/newton.py: Newton iterates that repeat
    _m("cycle guard: a repeat's correction taken whole (not relaxed)", "fem/time/newton.py",
       "        return RELAXATION * dx\n", "        return dx\n",
       "tests/test_newton_cycles.py::test_the_textbook_cycle_is_relaxed_and_newton_converges"),
    _m("cycle guard: a repeat sought among the iterates since the correction's own start only", "fem/time/newton.py",
       "        del self.recent[:-CYCLE_MEMORY]\n", "        del self.recent[:]\n",
       "tests/test_newton_cycles.py::test_the_textbook_cycle_is_relaxed_and_newton_converges"),
    # ---- fem/time/theta.py: Moreau-Jean
    _m("theta-method: the theta weighting of the new forces set to 1/2 in the residual only",
       "fem/time/theta.py", "R = Mdv - (1 - theta) * F0 - theta * F1 + f_mult",
       "R = Mdv - 0.5 * F0 - 0.5 * F1 + f_mult",
       ENERGY_BOOKS + "[theta0.55-lagrange]"),
    _m("theta-method: displacement updated with the new velocity only", "fem/time/theta.py",
       "u = u0 + dt * ((1 - theta) * v0 + theta * v)", "u = u0 + dt * v",
       "tests/test_dynamics.py::test_theta_one_half_is_average_acceleration"),
    # ---- fem/model/mass.py: mass redistribution
    _m("redistributed mass: transfer weights that do not reproduce affine fields", "fem/model/mass.py",
       "np.array([1.0, 0.0, 0.0])", "np.array([1.0, 0.1, 0.0])",
       "tests/test_mass.py::test_redistribution_keeps_mass_centre_and_inertia_of_each_body"),
    # ---- fem/stage/energy.py: the books' own terms
    _m("Newmark dissipation: the (gamma - 1/2) term with the wrong sign", "fem/stage/energy.py",
       "- dt * (gamma - 0.5) * float(0.5 * (v0 + v1) @ Ma_jump)",
       "+ dt * (gamma - 0.5) * float(0.5 * (v0 + v1) @ Ma_jump)",
       ENERGY_BOOKS + "[newmark-gamma0.6-lagrange]"),
    _m("theta dissipation without the work of the force jump", "fem/stage/energy.py",
       "return (theta - 0.5) * (float(dv @ (M @ dv)) - float(du @ dF))",
       "return (theta - 0.5) * float(dv @ (M @ dv))",
       ENERGY_BOOKS + "[theta0.55-lagrange]"),
    # ---- fem/time/stepping.py: event-driven steps
    _m("fine steps start only one coarse step before a predicted impact (lookahead ignored)", "fem/time/stepping.py",
       "if closing_in < steps.lookahead * coarse:", "if closing_in < coarse:",
       "tests/test_stepping_lookahead.py"),
    _m("error indicator with |beta - 1/12| instead of |beta - 1/6|", "fem/time/stepping.py",
       "abs(beta - 1.0 / 6.0)", "abs(beta - 1.0 / 12.0)",
       "tests/test_stepping.py::test_the_error_indicator_reads_the_rigid_motion_and_not_the_ringing"),
    # ---- fem/time/march.py, fem/time/windows.py: a stage marched by a step controller
    _m("march: every step taken with the first step's scheme", "fem/time/march.py",
       "if step.scheme != ctx.phase.scheme:", "if False:",
       "tests/test_march.py::test_a_scheme_that_changes_every_step_keeps_the_energy_books_closed"),
    _m("windows: a refinement ends at the predicted impact, not after it", "fem/time/windows.py",
       "t1 = min(state.t + t_hit + self.refine.after, w.t_end)", "t1 = min(state.t + t_hit, w.t_end)",
       "tests/test_march.py::test_a_coarse_window_refines_from_the_step_where_the_impact_is_predicted"),
    _m("windows: a fine window never extended while statuses change", "fem/time/windows.py",
       "            if self._settled(state.t):\n                break",
       "            if True:\n                break",
       "tests/test_march.py::test_a_fine_window_is_extended_while_the_node_status_changes"),
    _m("stages: a restart continues from the end of the stage before, not from its state at the start time",
       "fem/problem/simulate.py", "                state, terms = snapshot", "                _, terms = snapshot",
       "tests/test_problem_stages.py::test_a_block_tilted_and_released_rocks_as_the_rigid_block"),
    _m("problem: the springs left out of the terms a stage integrates", "fem/problem/simulate.py",
       "marched = settings.march(model, phase, state, assembled.all_terms(), steps, stop=stop)",
       "marched = settings.march(model, phase, state, assembled.terms, steps, stop=stop)",
       "tests/test_problem_discrete.py::test_a_mass_on_a_spring_loaded_at_once_swings_to_twice_its_static_deflection"),
    _m("problem: a stage's gravity vector ignored", "fem/problem/physics.py",
       "    g = stage_gravity(assembled, stage)\n", "    g = (0.0, -problem.gravity)\n",
       "tests/test_problem_discrete.py::test_a_stages_gravity_vector_is_the_one_the_mass_falls_with"),
    _m("problem: a body's own lumped mass ignored", "fem/model/assembly.py",
       "if self.lumped_mass or s.group in self.lumped_regions:", "if self.lumped_mass:",
       "tests/test_problem_mass.py::test_each_body_keeps_its_rigid_inertia_whatever_its_mass_kind"),
    _m("problem: a release at rest always from equilibrium", "fem/problem/physics.py",
       'a = np.zeros(n) if stage.acceleration == "zero" else None', "a = None",
       "tests/test_problem_stages.py::test_a_block_let_go_on_a_slope_its_friction_holds_starts_at_zero_acceleration"),
    _m("problem: a release's velocity ignored", "fem/problem/physics.py",
       "v[2 * nodes], v[2 * nodes + 1] = vx, vy", "v[2 * nodes], v[2 * nodes + 1] = 0.0, 0.0",
       "tests/test_problem_discrete.py::test_a_mass_launched_on_a_spring_swings_to_v0_over_omega"),
    # ---- fem/loads/base_motion.py: table motions
    _m("one-cosine pulse: displacement (1 - cos w t) / w instead of / w^2", "fem/loads/base_motion.py",
       "A * _one_minus_cos_over(w, t, 2)", "A * _one_minus_cos_over(w, t, 1)",
       "tests/test_base_motion.py::test_displacement_is_integral_of_velocity"),
    _m("table displacement after the motion: the residual velocity's drift dropped", "fem/loads/base_motion.py",
       "d = d + v_end * np.maximum(t - t_end, 0.0)", "d = d + 0.0 * np.maximum(t - t_end, 0.0)",
       "tests/test_base_motion.py::test_displacement_is_integral_of_velocity"),
    _m("a motion's last instant kept whatever instant is asked for", "fem/loads/history.py",
       "if last is None or last[0] != t:", "if last is None:",
       "tests/test_base_motion.py::test_one_instant_at_a_time_gives_the_values_of_the_whole_series"),
    _m("a table motion's acceleration asked alone kept from an earlier instant", "fem/loads/history.py",
       "if alone is None or alone[0] != t:", "if alone is None:",
       "tests/test_base_motion.py::test_the_acceleration_alone_is_the_states_bit_for_bit"),
    _m("a converged step with an element turned inside out accepted", "fem/time/dynamics.py",
       "    if jacobian <= 0.0:", "    if jacobian < -1e300:",
       "tests/test_model.py::test_a_step_converged_on_a_body_turned_inside_out_is_refused"),
    _m("the smallest det F never taken (an element turned inside out not seen)", "fem/model/continuum.py",
       "            if J < out or J != J:", "            if J > out or J != J:",
       "tests/test_model.py::test_smallest_jacobian_finds_an_element_turned_inside_out"),
    _m("Newton predictor: 'none' extrapolating the acceleration as constant_acceleration does", "fem/time/dynamics.py",
       "        else:\n            u = u0.copy()\n    g0 =",
       "        else:\n            u = u0 + dt * v0 + 0.5 * dt * dt * a0\n    g0 =",
       "tests/test_newton_predictor.py::test_every_predictor_converges_to_the_same_bounce"),
    _m("Newton predictor: the default extrapolated velocity with its sign flipped (u0 - dt v0)", "fem/time/dynamics.py",
       "            u = u0 + dt * v0\n            u[quasi_static] = u0[quasi_static]",
       "            u = u0 - dt * v0\n            u[quasi_static] = u0[quasi_static]",
       "tests/test_weak_spots.py::test_the_newton_iterations_of_a_reference_run_stay_at_their_count"),
    # ---- fem/time/explicit.py: central differences
    _m("modal central differences: the scheme's dissipation left out of the books", "fem/time/explicit.py",
       "numerical = newmark_dissipation(M, dt, 0.0, 0.5, du, before.a, a, before.v, v, F0, F1, F0, F1)",
       "numerical = 0.0",
       "tests/test_problem_obstacles.py::test_modal_central_differences_give_sdnd101s_shock"),
    _m("central differences: first half-step velocity v0 + dt a0", "fem/time/explicit.py",
       "v_half = current.v + 0.5 * dt * current.a", "v_half = current.v + dt * current.a",
       "tests/test_explicit.py::test_central_differences_has_its_discrete_frequency"),
    # ---- contact/penalty.py: DIS_CHOC
    _m("penalty contact: normal force on the body 10 % too large", "contact/penalty.py",
       "local = -(tr.rn[:, None] * tr.wn + tr.rt[:, None] * tr.wt)",
       "local = -(1.1 * tr.rn[:, None] * tr.wn + tr.rt[:, None] * tr.wt)",
       ENERGY_BOOKS + "[newmark-penalty]"),
    _m("penalty contact: friction force on the body halved", "contact/penalty.py",
       "local = -(tr.rn[:, None] * tr.wn + tr.rt[:, None] * tr.wt)",
       "local = -(tr.rn[:, None] * tr.wn + 0.5 * tr.rt[:, None] * tr.wt)",
       ENERGY_BOOKS + "[newmark-penalty]"),
    _m("penalty: Coulomb cap sign flipped", "contact/penalty.py",
       "np.where(slip, cap * sign, 0.0)", "np.where(slip, -cap * sign, 0.0)",
       "tests/test_friction.py::test_stick_slip_reversal_matches_rigid_block[penalty-stick-slip]"),
    _m("penalty: AMOR_NOR dashpot pushing with the penetration rate's opposite sign", "contact/penalty.py",
       "rn_tr = np.where(paired, Kn * p_f + Cn * pdot, 0.0)", "rn_tr = np.where(paired, Kn * p_f - Cn * pdot, 0.0)",
       "tests/test_penalty.py::test_sdnd108_damped_bounce_detachment"),
    # ---- contact/equations.py: Lagrange / augmented Lagrangian (the node loops of contact.multipliers)
    _m("Lagrange/augmented: no slip -> stick switch on slip reversal", "contact/equations.py",
       "reverses = s * f_old[i] > 0", "reverses = False",
       "tests/test_friction.py::test_stick_slip_reversal_matches_rigid_block[lagrange-stick-slip]"),
    _m("Lagrange/augmented: friction sign flipped in the slip equation", "contact/equations.py",
       "residual[2 * i + 1] = rt - mu * f[i] * (rn - rho_n * g)",
       "residual[2 * i + 1] = rt + mu * f[i] * (rn - rho_n * g)",
       "tests/test_friction.py::test_stick_slip_reversal_matches_rigid_block[lagrange-stick-slip]"),
    _m("multiplier contact: force rows of the normal reactions 10 % too large", "contact/equations.py",
       "force[columns[r, k]] += G[r, k] * lam[r]",
       "force[columns[r, k]] += G[r, k] * lam[r] * (1.1 if r % 2 == 0 else 1.0)",
       ENERGY_BOOKS + "[newmark-lagrange]"),
    _m("multiplier contact: friction force on the body halved", "contact/equations.py",
       "force[columns[r, k]] += G[r, k] * lam[r]",
       "force[columns[r, k]] += G[r, k] * lam[r] * (0.5 if r % 2 == 1 else 1.0)",
       ENERGY_BOOKS + "[newmark-lagrange]"),
    _m("Lagrange/augmented: the friction force on the body from the normal multiplier", "contact/equations.py",
       "force[columns[r, k]] += G[r, k] * lam[r]", "force[columns[r, k]] += G[r, k] * lam[r - r % 2]",
       "tests/test_friction.py::test_stick_slip_reversal_matches_rigid_block[lagrange-stick-slip]"),
    # ---- contact/multipliers.py: the contact term's books
    _m("multiplier contact: the friction work booked with the slip's sign flipped", "contact/multipliers.py",
       "friction=law_work(self._lam[1::2], trial.lam[1::2], ds, w0))",
       "friction=law_work(self._lam[1::2], trial.lam[1::2], -ds, w0))", ENERGY_BOOKS + "[newmark-lagrange]"),
    # ---- contact/zone.py: gaps and rows
    _m("node-to-segment rows: the two master weights swapped", "contact/zone.py",
       "w_slave, w_first, w_second = 1.0, xi[i] - 1.0, -xi[i]",
       "w_slave, w_first, w_second = 1.0, -xi[i], xi[i] - 1.0",
       "tests/test_node_to_segment_rows.py"),
    _m("rigid plane: clearance (JEU) subtracted from the gap", "contact/zone.py",
       "gap[i] = ((x - px) * nx + (y - py) * ny) + clearance",
       "gap[i] = ((x - px) * nx + (y - py) * ny) - clearance",
       "tests/test_contact.py::test_rigid_plane_and_node_zone"),
    _m("a BiPlane pair's clearance dropped", "contact/zone.py",
       "return pairs if clearance == 0.0 else replace(pairs, clearance=pairs.clearance + float(clearance))",
       "return pairs",
       "tests/test_problem_obstacles.py::test_two_masses_crushing_a_buckling_element_spend_its_envelope_work"),
    _m("a pair's clearance not given to its law", "fem/problem/definition.py",
       "clearance=float(p.clearance)))", "clearance=0.0))",
       "tests/test_problem_obstacles.py::test_a_mass_held_above_its_shock_by_a_clearance_falls_that_far_first"),
    _m("explicit steps: the modal basis without the springs", "fem/problem/steps.py",
       "basis = modal_basis(model, phase, self.modes, assembled.springs)",
       "basis = modal_basis(model, phase, self.modes, ())",
       "tests/test_problem_obstacles.py::test_modal_central_differences_give_sdnd101s_shock"),
    # ---- contact/impacts.py: velocity-level contact (theta-method)
    _m("theta-method: index set from the gap at the step start, not the midpoint", "contact/impacts.py",
       "predicted = self.zone.geometry(self.points, u0 + 0.5 * dt * v0).gap",
       "predicted = self.zone.geometry(self.points, u0).gap",
       "tests/test_theta_index_set.py"),
    # ---- contact/shocks.py: POST_DYNA_MODA_T
    _m("shock detection: samples at the threshold counted as in contact", "contact/shocks.py",
       "on = f > threshold", "on = f >= threshold",
       "tests/test_explicit.py::test_detect_shocks_on_half_sines"),
    # ---- contact/buckling.py: FLAMBAGE law and its rows
    _m("buckling: total crushes of the post-buckling table with F_c instead of F_p", "contact/buckling.py",
       "tot = res + Fp / k_all", "tot = res + Fc / k_all",
       "tests/test_sdnd105.py::test_post_buckling_table_as_derived_in_the_reference"),
    _m("buckling element on a master segment: the two master weights swapped", "contact/buckling.py",
       "weight = np.stack([np.ones_like(geo.xi), -(1.0 - geo.xi), -geo.xi], axis=1)",
       "weight = np.stack([np.ones_like(geo.xi), -geo.xi, -(1.0 - geo.xi)], axis=1)",
       "tests/test_node_to_segment_rows.py::test_penalty_and_buckling_forces_are_the_gradient_of_the_spring_energy"),
    # ---- contact/references/rocking.py: rigid block reference
    _m("rigid block: Housner's restitution with sin alpha instead of sin^2 alpha", "contact/references/rocking.py",
       "return 1.0 - 1.5 * self.b**2 / self.R**2", "return 1.0 - 1.5 * self.b / self.R",
       "tests/test_rocking.py::test_block_data"),
    # ---- contact/references/rocking_base.py, flight.py: rigid block on a moving table
    _m("rocking on a table: table acceleration with the wrong sign in the flight", "contact/references/flight.py",
       "return -p2 * (math.sin(alpha - phi) + c * a * math.cos(alpha - phi))",
       "return -p2 * (math.sin(alpha - phi) - c * a * math.cos(alpha - phi))",
       "tests/test_rocking_base.py::test_uplift_threshold_under_a_smooth_ramp"),
    _m("rocking on a table: RK4 velocity update with the weights of k3 and k4 swapped", "contact/references/flight.py",
       "v = v + h / 6.0 * (f + 2.0 * k2v + 2.0 * k3v + k4v)", "v = v + h / 6.0 * (f + 2.0 * k2v + k3v + 2.0 * k4v)",
       "tests/test_rocking_flight.py::test_zero_motion_from_a_tilt_matches_the_closed_form"),
    _m("rocking on a table: event polynomial with a wrong curvature term", "contact/references/flight.py",
       "c4 = -15.0 * dy + 8.0 * s0 + 7.0 * s1 + 1.5 * q0 - q1", "c4 = -15.0 * dy + 8.0 * s0 + 7.0 * s1 + 1.5 * q0 - 0.5 * q1",
       "tests/test_rocking_flight.py::test_the_quintic_interpolates_value_slope_and_curvature"),
    _m("rocking on a table: no step splitting where the table acceleration is rough", "contact/references/flight.py",
       "split = candidate & (w * np.abs(d4) > tol_rate * w + tol_abs) & (w > w_min)",
       "split = candidate & (w * np.abs(d4) > 1e6 * (tol_rate * w + tol_abs)) & (w > w_min)",
       "tests/test_rocking_flight.py::test_base_motion_agrees_with_dop853"),
    _m("rocking on a table: pivot friction force without the table's inertial force", "contact/references/rocking_base.py",
       "return block.mass * (block.g + ydd), block.mass * (xdd - a_g)",
       "return block.mass * (block.g + ydd), block.mass * xdd",
       "tests/test_rocking_base.py::test_reactions_match_the_free_reference_and_rest"),
    # ---- contact/references/overturning.py: the energy decision after a pulse
    _m("overturning: e E instead of e^2 E after an impact", "contact/references/overturning.py",
       "return e**2 * energy > barrier, 1", "return e * energy > barrier, 1",
       "tests/test_overturning_decision.py"),
    _m("overturning: beyond the top, inward, overturns when E > E_b instead of E < E_b", "contact/references/overturning.py",
       "phidot <= 0 and phi > block.alpha and energy < barrier",
       "phidot <= 0 and phi > block.alpha and energy > barrier",
       "tests/test_overturning_decision.py"),
    # ---- contact/references/nnm.py: SDND122 stop oscillator
    _m("stop oscillator: centre of the contact regime k g / (k + K)", "contact/references/nnm.py",
       "return self.stop_stiffness * self.gap / (self.stiffness + self.stop_stiffness)",
       "return self.stiffness * self.gap / (self.stiffness + self.stop_stiffness)",
       "tests/test_sdnd122.py::test_flow_jacobian_against_finite_differences",
       "tests/test_sdnd122.py::test_flow_against_solve_ivp"),
    # ---- outputs (tests/test_paraview_fields.py) and reports from raw histories (tests/test_sdnv105.py)
    _m("ParaView stress_cauchy written as the second Piola-Kirchhoff stress", "fem/io/recorder.py",
       '"stress_cauchy": stresses["cauchy"]', '"stress_cauchy": stresses["pk2"]',
       "tests/test_paraview_fields.py::test_stress_cauchy_is_f_s_ft_over_det_f_of_the_written_displacement"),
    _m("ParaView velocity written as the displacement", "fem/io/recorder.py",
       '"velocity": state.v.reshape(n, 2)', '"velocity": state.u.reshape(n, 2)',
       "tests/test_paraview_fields.py::test_displacement_velocity_acceleration_and_reactions_are_the_state"),
    _m("contact.pvd: RN and RT swapped", "contact/output.py",
       '"rn": state.rn, "rt": state.rt,', '"rn": state.rt, "rt": state.rn,',
       "tests/test_paraview_fields.py::test_reactions_and_contact_forces_balance_the_momentum"),
    _m("limit analysis: the joints take tension (no-tension bound dropped)", "contact/references/limit_analysis.py",
       "bounds += [(0.0, None), shear, (0.0, None), shear]", "bounds += [(None, None), shear, (None, None), shear]",
       "tests/test_limit_analysis.py::test_one_block_overturns_or_slides"),
    _m("assemblies: the upper block's face taken as the master", "meshes/assemblies.py",
       "up = n[1] > VERTICAL or (abs(n[1]) <= VERTICAL and n[0] > 0.0)",
       "up = n[1] < -VERTICAL or (abs(n[1]) <= VERTICAL and n[0] > 0.0)",
       "tests/test_assemblies.py"),
    _m("contacts found: faces on one line joined where they do not overlap", "fem/problem/interfaces.py",
       "keep = on_line & opposite & (hi - lo > tolerance)", "keep = on_line & opposite",
       "tests/test_auto_contact.py::test_blocks_touching_at_a_corner_only_are_not_joined"),
    _m("contacts found: the upper body's face taken as the master", "fem/problem/interfaces.py",
       "a_is_master = normal[1] > VERTICAL * scale or", "a_is_master = normal[1] < -VERTICAL * scale or",
       "tests/test_auto_contact.py::test_the_stack_found_from_the_mesh_runs_as_its_stated_pairs"),
    _m("shock table: F_MAX the largest sample, not the parabola's vertex", "fem/problem/shocks.py",
       "if a < 0 and tau[0] <= -b / (2 * a) <= tau[2]:", "if False:",
       "tests/test_one_dof_problem_files.py::test_a_half_sine_shock_converges_to_its_closed_form_at_second_order"),
    _m("shock table: V_IMPACT with its sign turned", "fem/problem/shocks.py",
       '"velocity": None if first else float((gap[k0] - gap[k0 - 1])', '"velocity": None if first else float((gap[k0 - 1] - gap[k0])',
       "tests/test_one_dof_problem_files.py::test_sdnd101_as_a_file_is_the_case_and_code_asters_table"),
    _m("collapse: the onset taken at the first crossing, not back-extrapolated", "fem/problem/collapse.py",
       "tc = max(2.0 * self.t1 - self.t2, self.t_start)", "tc = max(self.t1, self.t_start)",
       "tests/test_collapse.py::test_the_onset_is_back_extrapolated_from_a_cubic_motion"),
    _m("collapse: a joint open by its elastic micrometre counted as a hinge", "fem/problem/collapse.py",
       "gaping = (status[at] == 0) & (gap[at] > wide)", "gaping = status[at] == 0",
       "tests/test_collapse.py::test_hinges_are_joints_gaping_at_one_end_and_closed_at_the_other"),
    _m("collapse mechanism: the fitted rotation's cross and dot sums swapped", "fem/problem/observe.py",
       "    return math.atan2(cross, dot)\n", "    return math.atan2(dot, cross)\n",
       "tests/test_collapse.py::test_the_mechanism_is_the_collapsed_blocks_rigid_motion"),
    _m("collapse mechanism: the rotation compared with the travel without the block's size", "fem/problem/collapse.py",
       "abs(theta) * self.size[k] >= travel", "abs(theta) >= travel",
       "tests/test_collapse.py::test_the_mechanism_is_the_collapsed_blocks_rigid_motion"),
    _m("limit analysis of an assembly: a held body left free", "contact/references/limit_analysis.py",
       "ground = {b.name for b in assembly.bodies if any(g.startswith(b.name + \"_\") for g in held)}",
       "ground = {b.name for b in assembly.bodies if b.name == \"BASE\"}",
       "tests/test_limit_analysis.py::test_an_assembly_of_polygons_is_its_own_limit_analysis"),
    _m("merged contact: each slave point pairs among every joint's master", "contact/zone.py",
       "np.concatenate(ranges).astype(np.int64) if ranges else np.zeros((0, 2), dtype=np.int64),",
       "None,",
       "tests/test_auto_contact.py::test_a_merged_wall_presses_each_corner_on_its_own_joints"),
    _m("merged contact: the hinges read over the whole contact, not joint by joint", "fem/problem/collapse.py",
       "joints = [(w.label, slice(None))] if not labels or owner is None else",
       "joints = [(w.label, slice(None))] if True else",
       "tests/test_auto_contact.py::test_a_merged_contact_runs_as_its_pairs"),
    _m("SDNV105 summary: a spring's force read on the block left in its sign (b's VY force)", "cases/sdnv105/checks.py",
       'turned = record["reference"] != 0 and first["reference"] == -record["reference"]',
       'turned = False',
       "tests/test_sdnv105.py::test_summary_and_report_are_the_values_derived_from_the_histories[run_b-b]"),
    _m("SDNV105 A's file: percussion integrates RN(O) instead of RN(A)", "cases/sdnv105a.toml",
       'name = "percussion RN(A), 0.0544-0.05449"\nquantity = "reaction"\nof = "base"\nnode = "A"',
       'name = "percussion RN(A), 0.0544-0.05449"\nquantity = "reaction"\nof = "base"\nnode = "O"',
       "tests/test_sdnv105.py::test_summary_and_report_are_the_values_derived_from_the_histories[run_a-a]"),
    _m("SDNV105 d at dt = 2e-4 s instead of the benchmark's 1e-4 s", "cases/sdnv105/config.py",
       '"d": Modeling("d", "theta", "sdnv105_quad4", True, 0.33, 1e-4, 1e-4,',
       '"d": Modeling("d", "theta", "sdnv105_quad4", True, 0.33, 2e-4, 2e-4,',
       "tests/test_sdnv105.py::test_d_impacts_follow_the_rigid_body_reference"),
    # ---- a stage's contact events and the energy-creation watch (tests/test_contact_events.py), the strain
    # energy a check reads (tests/test_checks.py)
    _m("a stage's contact events ignored by the multiplier contact", "contact/multipliers.py",
       "            self.closing = self.release = events", "            pass",
       "tests/test_contact_events.py::test_immediate_events_stated_on_the_stage_give_energy_back"),
    _m("energy-creation watch: the stages named are the ones left out", "fem/problem/observe.py",
       "if self.statement.stages is not None and stage not in self.statement.stages:",
       "if self.statement.stages is not None and stage in self.statement.stages:",
       "tests/test_contact_events.py::test_a_problem_file_states_the_watch"),
    _m("check strain_energy reads the kinetic energy", "fem/problem/checks.py",
       '"strain_energy": "strain_energy"}.get(self.quantity)', '"strain_energy": "ke"}.get(self.quantity)',
       "tests/test_checks.py::test_the_strain_energy_a_column_stores_under_its_weight_is_the_closed_form"),
    _m("round-off ensemble: the spread over the largest value, not the median", "fem/studies/round_off.py",
       '"spread": (float(got.max() - got.min()) / abs(median)) if median else None,',
       '"spread": (float(got.max() - got.min()) / abs(float(got.max()))) if median else None,',
       "tests/test_round_off_problem.py::test_an_ensembles_statistics_are_its_values"),
    _m("a contact node's x and y forces swapped in its history columns", "fem/problem/observe.py",
       'row[f"rx[{self.label}@{name}]"], row[f"ry[{self.label}@{name}]"] = fx, fy',
       'row[f"rx[{self.label}@{name}]"], row[f"ry[{self.label}@{name}]"] = fy, fx',
       "tests/test_checks.py::test_a_reactions_components_at_its_nodes_balance_the_weight_they_carry"),
    # ---- fem/problem: a user's problem (tests/test_problem_api.py)
    _m("body rotation: positions not taken about the current centroid", "fem/problem/observe.py",
       "x = self.X + d - d.mean(axis=0)", "x = self.X + d",
       "tests/test_problem_api.py::test_body_rotation_recovers_a_rigid_rotation"),
    _m("problem energy books: the last error taken for the largest over the run", "fem/problem/observe.py",
       '"relative_error": float(np.max(np.abs(error)) / scale)', '"relative_error": float(abs(error[-1]) / scale)',
       "tests/test_weak_spots.py::test_the_energy_books_error_is_the_largest_over_the_run_of_the_history"),
    _m("base motion: the vertical component left out of the table-frame load", "fem/problem/physics.py",
       "inertial = (tuple(table_frame_load(h, c, start=t_start) for c, h in stage.components())",
       "inertial = (tuple(table_frame_load(h, c, start=t_start) for c, h in stage.components() if c == 'x')",
       "tests/test_problem_api.py::test_a_vertical_acceleration_moves_the_uplift_threshold"),
    # ---- fem/problem: the checks of a run (tests/test_checks.py, tests/test_physical_checks.py)
    _m("impacts: a landing after any lift counted (the pair's lift threshold ignored)", "fem/problem/observe.py",
       "if closed[i] and not was[i] and lifted[i] > lift:", "if closed[i] and not was[i] and lifted[i] >= 0.0:",
       "tests/test_pair_watch.py"),
    _m("checks: a stated check's tolerance ignored", "fem/problem/checks.py",
       "met = bool(abs(value - ref) <= bound)", "met = True",
       "tests/test_checks.py::test_a_check_is_graded_as_test_resu"),
    _m("checks: a pair's penetration measured on the wrong side of its master", "fem/problem/observe.py",
       "        sunk = -smallest\n", "        sunk = smallest\n",
       "tests/test_physical_checks.py::test_a_penalty_contact_is_graded_by_its_penetration"),
    _m("checks: a window's open start taken in (Code_Aster's INST > t0 read as >=)", "fem/problem/checks.py",
       'after = t > lo if c.ends[0] == "open" else t >= lo', "after = t >= lo",
       "tests/test_checks.py::test_a_windows_open_ends_leave_out_the_steps_on_them"),
    _m("checks: a body's kinetic energy read over the whole model", "fem/problem/observe.py",
       "self.model.kinetic_energy(result.state.v, self.group)", "self.model.kinetic_energy(result.state.v)",
       "tests/test_checks.py::test_a_launched_bodys_kinetic_energy_is_its_own_half_m_v_squared"),
    # ---- the default scheme and the reactions' alternation (tests/test_reaction_alternation.py)
    _m("scheme: the default HHT alpha back to Newmark's undamped 0", "fem/problem/simulate.py",
       "ALPHA = -0.1", "ALPHA = 0.0",
       "tests/test_reaction_alternation.py::test_the_default_scheme_damps_the_highest_frequencies"),
    _m("alternation: a turn counted where the reaction keeps its way", "fem/problem/observe.py",
       "(d * self._d < 0)", "(d * self._d > 0)",
       "tests/test_reaction_alternation.py::test_a_period_two_reaction_counts_every_step_in_turn"),
)


def _copy(dest: Path) -> None:
    """The repository in ``dest``, numba's cached loops and Python's bytecode included (``__pycache__``,
    modification times kept by copytree: numba's cache and a ``.pyc`` are valid while their source's stamp
    (mtime, size) is unchanged), so that a scratch copy neither compiles every loop again nor every module
    (about 0.8 s a mutation's pytest; :func:`check` sets the mutated module's own ``.pyc`` aside)."""
    ignore = shutil.ignore_patterns(".git", "results", "*.egg-info", ".pytest_cache")
    shutil.copytree(ROOT, dest, ignore=ignore, dirs_exist_ok=True)
    for package in ("fem", "contact", "meshes", "cases", "tests"):  # bytecode even where none is written
        compileall.compile_dir(dest / package, quiet=1)                # (PYTHONDONTWRITEBYTECODE): once a copy


def _numba_caches(root: Path) -> dict[Path, tuple[int, bytes]]:
    """numba's cache files under ``root`` (index .nbi, data .nbc): {path: (mtime in ns, bytes)}."""
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in root.rglob("__pycache__/*.nb[ic]")}


def _restore_caches(root: Path, kept: dict[Path, tuple[int, bytes]]) -> None:
    """Put numba's cache files under ``root`` back as ``kept`` (:func:`_numba_caches`): a mutated run
    compiles the loops of the mutated module (and of their callers) again and overwrites their cache; with
    the original source back under its original stamp, the original cache is valid again."""
    for p in list(root.rglob("__pycache__/*.nb[ic]")):
        if p not in kept:
            p.unlink(missing_ok=True)
        elif p.stat().st_mtime_ns != kept[p][0]:
            p.write_bytes(kept[p][1])
            os.utime(p, ns=(kept[p][0], kept[p][0]))
    for p, (mtime, data) in kept.items():
        if not p.exists():
            p.write_bytes(data)
            os.utime(p, ns=(mtime, mtime))


_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)(?: - (.*))?$", re.M)


def _kind(message: str) -> str:
    """'AssertionError' for a failed assertion (pytest shows ``assert ...``, ``AssertionError: ...``
    or ``Failed: ...`` from pytest.raises / pytest.fail), else the exception's name."""
    message = (message or "").strip()
    if message.startswith(("assert", "AssertionError", "Failed:")):
        return "AssertionError"
    head = message.split(":", 1)[0]
    return head.rsplit(".", 1)[-1] if head else "error"


def _pytest(scratch: Path, tests, jobs: int = 0, timeout: float = TIMEOUT, stop_first: bool = True):
    """Run ``tests`` (not the slow ones) in ``scratch`` with its own sources first on the path."""
    env = dict(os.environ, PYTHONPATH=str(scratch), PYTHONDONTWRITEBYTECODE="1", COLUMNS="1000")
    cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "-p", "no:benchmark", "-n", str(jobs),
           "-m", "not slow", *(["-x"] if stop_first else []), *tests]
    return subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout)


def applies(m: Mutation, root: Path = ROOT) -> str:
    """'' when ``m`` applies to the sources under ``root`` (its text occurs exactly once in its
    file), else why not."""
    path = root / m.file
    if not path.is_file():
        return f"no file {m.file}"
    count = path.read_text().count(m.old)
    return "" if count == 1 else f"the text to mutate occurs {count} times in {m.file}"


def check(m: Mutation, scratch: Path) -> tuple[str, str]:
    """Apply ``m`` in ``scratch``, run its tests, restore. Returns (verdict, detail)."""
    why = applies(m, scratch)
    if why:
        return "STALE", why
    path = scratch / m.file
    original, stamp = path.read_text(), path.stat()
    caches = _numba_caches(scratch)
    # the mutated module compiled from its mutated source: never its original bytecode (set aside, put back)
    pyc = Path(importlib.util.cache_from_source(str(path))) if path.suffix == ".py" else None
    bytecode = pyc.read_bytes() if pyc is not None and pyc.is_file() else None
    if bytecode is not None:
        pyc.unlink()
    path.write_text(original.replace(m.old, m.new))
    try:
        p = _pytest(scratch, m.tests)
    except subprocess.TimeoutExpired:
        return "SURVIVED", f"its tests ran over {TIMEOUT} s"
    finally:  # the original source under its original stamp, and the loops numba had cached for it
        path.write_text(original)
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        _restore_caches(scratch, caches)
        if bytecode is not None:
            pyc.write_bytes(bytecode)
    if p.returncode == 0:
        return "SURVIVED", ""
    found = _FAILED.findall(p.stdout)
    failures = [(node, _kind(message)) for node, message in found]
    physics = [(node, message) for node, message in found if _kind(message) == "AssertionError"]
    if physics:
        node, message = physics[0]
        return "caught", f"by {node}: {' '.join(message.split())[:90]}"
    if failures:
        return "SURVIVED", "only by " + ", ".join(f"{n} ({k or 'error'})" for n, k in failures[:2])
    return "SURVIVED", f"pytest exit {p.returncode}: " + (p.stdout.strip().splitlines() or ["?"])[-1]


def _union(todo) -> list[str]:
    """The tests named by the mutations ``todo``, once each (a node inside a named file dropped)."""
    names = list(dict.fromkeys(t for m in todo for t in m.tests))
    files = {t for t in names if "::" not in t}
    return [t for t in names if "::" not in t or t.split("::", 1)[0] not in files]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run the mutations whose name contains this text")
    parser.add_argument("--keep", default=None, help="scratch folder to use (kept); default a temporary one")
    parser.add_argument("--jobs", type=int, default=1, help="mutations run at once (one scratch copy each)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of the named tests")
    parser.add_argument("--list", action="store_true", help="list the mutations (name, file, tests) and exit")
    args = parser.parse_args(argv)
    todo = [m for m in MUTATIONS if args.only.lower() in m.name.lower()]
    if not todo:
        print(f"error: --only {args.only!r} matches no mutation", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"error: --jobs must be >= 1, got {args.jobs}", file=sys.stderr)
        return 2
    if args.list:
        for m in todo:
            print(f"{m.name}\n    {m.file}\n    " + "\n    ".join(m.tests))
        return 0
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="rockfem-mutations-"))
    scratches = [base / f"copy{j}" for j in range(args.jobs)]
    try:
        for s in scratches:
            _copy(s)
        start = time.perf_counter()
        if not args.no_baseline:
            tests = _union(todo)
            p = _pytest(scratches[0], tests, jobs=args.jobs if args.jobs > 1 else 0, stop_first=False)
            if p.returncode != 0:
                print(f"error: the named tests fail without any mutation (pytest exit {p.returncode}); fix them "
                      "first, a failing test would catch every mutation:", file=sys.stderr)
                print("\n".join(p.stdout.strip().splitlines()[-15:]), file=sys.stderr)
                return 2
            print(f"baseline: {len(tests)} test selections pass unmutated in {time.perf_counter() - start:.0f} s",
                  flush=True)
        free = list(scratches)

        def one(m: Mutation):
            scratch = free.pop()
            t0 = time.perf_counter()
            try:
                return m, *check(m, scratch), time.perf_counter() - t0
            finally:
                free.append(scratch)

        bad = 0
        width = max(len(m.name) for m in todo)
        with ThreadPoolExecutor(len(scratches)) as pool:
            for m, verdict, detail, seconds in pool.map(one, todo):
                bad += verdict != "caught"
                print(f"{verdict:8s} {m.name:{width}s}  {detail}  ({seconds:.1f} s)", flush=True)
        print(f"{len(todo) - bad} of {len(todo)} mutations caught in {time.perf_counter() - start:.0f} s")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
