"""Moreau-Jean theta-method for non-smooth contact dynamics (SDNV105 modeling D).

One step from (u0, v0) to t1 = t0 + dt, unknown v1 (and the contact impulses)::

    R(v1) = M (v1 - v0) / dt - (1 - theta) F0 - theta F1(u1, v1) - G^T lam = 0
    u1    = u0 + dt ((1 - theta) v0 + theta v1)

F = f_ext - f_int - f_damp - f_terms are the smooth forces; lam are the multiplier terms' mean
forces over the step (impulse / dt), from velocity-level contact laws (contact.impacts); they are
not theta-weighted: an impulse belongs to the whole step. Newton on v1 with the tangent
dR/dv1 = M / dt + theta (theta dt K + C) (fem.time.newton_system); the multiplier equations and their solve are those of
the Newmark path (fem.time.newton.solve_increment). Imposed displacements fix the velocity of their
dofs through the u1 formula. Reaction and statistics bookkeeping as for Newmark; energy books as
in fem.stage.energy: the works of the smooth forces by the trapezoidal rule, the contact laws' work
from their mean forces over the step and the gap and slip changes, and the scheme's dissipation
(theta - 1/2)([v].M[v] - [u].[F]) from its own identity (zero for theta = 1/2).

The phase's scheme must be :class:`fem.stage.schemes.Theta`; :func:`fem.time.dynamics.integrate` dispatches
here; both steps share fem.time.newton.
"""
from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from fem.time import progress
from fem.time.newton import (NewtonFailure, evaluate_forces, multiplier_forces, newton_converged, oscillating_nodes,
                     residual_scale, residuals, solve_increment, start_phase, step_with_subdivision, term_books)
from fem.stage.phase import Phase, State, StepResult
from fem.stage.energy import book_step, theta_dissipation
from fem.model.assembly import Model


def _theta_step(ctx, state: State, t1: float, theta: float) -> tuple[State, int]:
    model, settings = ctx.model, ctx.phase.newton
    dt = t1 - state.t
    u0, v0 = state.u, state.v
    M = model.mass
    cdofs, free = ctx.constraints.dofs, ctx.free
    F0 = state.f_ext - state.f_int - state.f_damp - (state.f_terms - state.f_mult)
    for term in ctx.multipliers:
        if hasattr(term, "prepare_step"):
            term.prepare_step(dt, u0, v0)
    v = v0.copy()
    v[cdofs] = (ctx.constraints.at(t1) - u0[cdofs] - dt * (1 - theta) * v0[cdofs]) / (dt * theta)
    f_ext = ctx.loads.at(t1)
    trials = [term.begin_step(u0) for term in ctx.multipliers]
    momentum_rate = residual_scale(M @ v0) / dt  # free-flight scale, per step
    it = 0
    while True:
        u = u0 + dt * ((1 - theta) * v0 + theta * v)
        forces, f_terms, tangents, each = evaluate_forces(ctx, u, v, t1, tangent=True)
        lins, changed, f_mult, each_mult = multiplier_forces(ctx, trials, u, v, update=True)
        F1 = f_ext - forces.internal - forces.damping - f_terms
        Mdv = M @ (v - v0) / dt
        R = Mdv - (1 - theta) * F0 - theta * F1 + f_mult
        R_free, c, res, res_c = residuals(R, free, lins, it)
        scale = residual_scale(f_ext, R[cdofs], forces.internal, forces.damping, f_terms, f_mult, Mdv)
        if newton_converged(ctx, max(res, res_c), scale, not any(ch.size for ch in changed), it, momentum_rate):
            break
        oscillating = oscillating_nodes(ctx, trials)
        if it >= settings.max_iterations or oscillating:
            detail = f"contact statuses oscillated at nodes {oscillating}" if oscillating else ""
            raise NewtonFailure(res, int(free[np.argmax(np.abs(R_free))]) if free.size else 0, it, detail)
        J = ctx.system.matrix.data(forces, tangents, 1.0 / dt, theta, theta * dt, 1.0)
        dv = solve_increment(ctx.system, J, R_free, lins, trials, c, 1.0,
                             f"phase {ctx.phase.name!r}, step ending at t = {t1:.9g} s")
        v = v.copy()
        v[free] += dv
        it += 1
    # reactions at t1: what the supports add to the step's momentum balance, as a force
    reactions = np.zeros(model.n_dofs)
    reactions[cdofs] = (R[cdofs] - (1 - theta) * state.reactions[cdofs]) / theta
    du = u - u0
    F0_all = F0 + state.reactions  # smooth forces with the supports' reactions
    F1_all = F1 + reactions
    numerical = theta_dissipation(M, theta, v - v0, du, F1_all - F0_all)
    for term in ctx.terms:
        term.commit(u, v, t1)
    for term, trial in zip(ctx.multipliers, trials):
        term.commit(trial, u, v, t1)
    term_forces = tuple(each + each_mult)
    energies = book_step(state.energies, du, (state.f_ext, f_ext), (state.reactions, reactions),
                         (state.f_damp, forces.damping), term_books(ctx, state.term_forces, term_forces, du), numerical)
    a = (v - v0) / dt
    new = State(t=t1, u=u, v=v, a=a, f_int=forces.internal, f_damp=forces.damping, f_terms=f_terms + f_mult,
                f_ext=f_ext, reactions=reactions, energies=energies, f_mult=f_mult, term_forces=term_forces)
    return new, it


def theta_step(ctx, state: State, t1: float) -> tuple[State, int, int]:
    """One Moreau-Jean step of the context's phase (its scheme's theta) from ``state`` to ``t1``:
    (state, iterations, 1), the step function of fem.time.newton.step_with_subdivision."""
    return (*_theta_step(ctx, state, t1, ctx.phase.scheme.theta), 1)


def integrate_theta(model: Model, phase: Phase, state: State, terms: Sequence = ()) -> Iterator[StepResult]:
    """Integrate one phase with the Moreau-Jean theta-method (see the module docstring)."""
    if model.massless_dofs.size:
        raise ValueError(f"phase {phase.name!r}: the Moreau-Jean theta-method needs a mass on every free dof "
                         "(its velocity is a state variable): use a consistent or lumped mass, not a redistributed one")
    ctx, state = start_phase(model, phase, state, terms)
    yield StepResult(phase.name, state, 0, 0, True)
    times = phase.times()
    for k, t1 in enumerate(times):
        state, it, n = step_with_subdivision(ctx, state, float(t1), theta_step)
        archived = (k + 1) % phase.archive_every == 0 or k == len(times) - 1
        yield from progress.deliver(StepResult(phase.name, state, it, n, archived), phase.name, state.t)
