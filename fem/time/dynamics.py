"""Implicit dynamics with Newmark/HHT: the step, its contact events located, the phase loop.

One time step reads as named phases: predict, then Newton iterations of
(assemble residual and tangent, check convergence, solve for the correction), then update and
record. A run is a list of :class:`Phase` objects, like the phase table of a Code_Aster study
(time window, time step, scheme, loads, constraints, friction); each phase starts from the state
where the previous one stopped, or from any state the caller gives (e.g. a release at rest).

The time loop is a generator yielding one :class:`StepResult` per step; the caller decides what to
record and write, so a run that fails has written everything up to the failure.

Residual at t_{n+1} (HHT weighting alpha_f, see :mod:`fem.stage.schemes`)::

    R(u1) = M a1 + (1 + alpha_f) g1 - alpha_f g0,   g = f_int(u) + f_damp(u, v) + f_terms(u, v, t) - f_ext(t)

``f_terms`` are extra force terms (contact, discrete springs) implementing :class:`ForceTerm`.
The massless dofs of a redistributed mass (fem.model.mass) are quasi-static: their rows are g1 = 0 (no
inertia, no HHT weighting), their velocity [u]/dt.

The phase table's types are in fem.stage.phase, the Newton core this step shares with the theta-method
(fem.time.theta) in fem.time.newton (Code_Aster's convergence test, the correction with the multipliers, the
step subdivision); this module re-exports their public names.
"""
from __future__ import annotations

import logging
import math
from dataclasses import replace
from typing import Iterator, Sequence

import numpy as np

from fem.time import progress
from fem.time import newmark, newton
from fem.stage.energy import book_step, hht_scheme_force, newmark_dissipation
from fem.model.assembly import Model
from fem.time.newton import (ROUND_OFF, FrictionCreation, NewtonFailure, PhaseContext, any_node, csr_round_off_floor,
                     evaluate_forces, make_context, multiplier_forces, newton_converged, oscillating_nodes,
                     residual_scale, round_off_floor, solve_increment, start_phase, step_with_subdivision, term_books)
from fem.stage.phase import (ConvergenceError, ForceTerm, MultiplierLinearization, MultiplierTerm, NewtonSettings, Phase,
                    SingularSystemError, State, StepResult, Subdivision, TermForces)
from fem.stage.schemes import Static, Theta
from fem.time.theta import integrate_theta

__all__ = ["ConvergenceError", "ForceTerm", "MultiplierLinearization", "MultiplierTerm", "NewtonSettings", "Phase",
           "SingularSystemError", "State", "StepResult", "Subdivision", "TermForces", "ROUND_OFF", "energy_report",
           "integrate", "make_context", "round_off_floor", "run_phases", "solve_increment", "start_phase",
           "step_with_release"]

logger = logging.getLogger(__name__)


def _newton_step(ctx: PhaseContext, state: State, t1: float, hold=None, probe: bool = False,
                 locate: bool = True, kept_open=None, land: bool = True):
    """One time step from ``state`` to ``t1``; raises NewtonFailure. Returns (state, iterations).

    hold : per multiplier term, a mask (n_s,) of nodes kept closed through the step, or None.
    kept_open : per multiplier term, a mask (n_s,) of nodes kept open through the step, or None.
    probe : solve only and return (trials, iterations, u): the multipliers and displacement at t1,
        committing nothing.
    locate : raise, before committing anything, _LandingEvent when a term whose closing rule is
        "located" closes a node that was open (unless ``land`` is False), else _ReleaseEvent when a
        term whose release rule is "located" opens a node that was closed under a compressive
        reaction (see step_with_release). A landing comes first: it is what unloads the other nodes.
    """
    model, scheme, settings = ctx.model, ctx.phase.scheme, ctx.phase.newton
    dt = t1 - state.t
    static = isinstance(scheme, Static)
    u0, v0, a0 = state.u, state.v, state.a
    quasi_static = np.zeros(0, dtype=np.int64)
    if static:
        ca = cv = af = 0.0
        zero = np.zeros_like(u0)

        def kinematics(u):
            return zero, zero

        u = u0.copy()
    else:
        beta, gamma, af = scheme.beta, scheme.gamma, scheme.alpha_f
        ca, cv = 1.0 / (beta * dt * dt), gamma / (beta * dt)
        quasi_static = model.massless_dofs  # fem.model.mass: no Newmark recursion, v = [u] / dt, a = 0

        def kinematics(u):
            return newmark.newmark_kinematics(u, u0, v0, a0, ca, dt, beta, gamma, quasi_static)

        predictor = settings.predictor  # the first iterate (NewtonSettings.predictor)
        if predictor == "constant_acceleration":
            u = u0 + dt * v0 + 0.5 * dt * dt * a0
        elif predictor == "constant_velocity":
            u = u0 + dt * v0
            u[quasi_static] = u0[quasi_static]
        else:
            u = u0.copy()
    g0 = state.f_int + state.f_damp + state.f_terms - state.f_ext
    cdofs, free = ctx.constraints.dofs, ctx.free
    M = model.mass if model.mass.format == "csr" else model.mass.tocsr()  # hht_residual reads its CSR arrays
    # HHT weights of g1 and g0 per dof: the massless dofs' equations are static at t1, unweighted
    # (a weighted statics (1 + af) g1 = af g0 would be a recursion, unstable for af < -1/2)
    w1, w0 = 1.0 + af, af
    if quasi_static.size and af != 0.0:
        w1, w0 = np.full(model.n_dofs, 1.0 + af), np.full(model.n_dofs, af)
        w1[quasi_static], w0[quasi_static] = 1.0, 0.0

    u[cdofs] = ctx.constraints.at(t1)
    f_ext = ctx.loads.at(t1)
    trials = [term.begin_step(u0) for term in ctx.multipliers]
    if hold is not None:
        for trial, mask in zip(trials, hold):
            if mask is not None:
                trial.held = mask if trial.held is None else (trial.held | mask)
    if kept_open is not None:
        for trial, mask in zip(trials, kept_open):
            if mask is not None:
                trial.free = mask
    # d(velocity)/du per dof: gamma / (beta dt), 1 / dt on the quasi-static dofs (v = [u] / dt)
    c_v = cv
    if quasi_static.size and not static:
        c_v = np.full(model.n_dofs, cv)
        c_v[quasi_static] = 1.0 / dt
    Mv0 = newmark.mass_times(M.indptr, M.indices, M.data, v0)  # M @ v0
    momentum_rate = residual_scale(Mv0) / dt if not static else 0.0  # free-flight scale, per step
    ctx.energy_scale = max(ctx.energy_scale, 0.5 * float(v0 @ Mv0))
    weights1, weights0 = np.asarray(w1, dtype=float).reshape(-1), np.asarray(w0, dtype=float).reshape(-1)
    done, it = None, 0
    if ctx.step_loop is not None:  # the iterations below in one compiled call (e.g. contact.newton_loop)
        loop, data = ctx.step_loop
        done = loop.iterate(data, ctx, trials, u, u0, v0, a0, ca, dt, beta, gamma, quasi_static, f_ext, M, weights1,
                            weights0, g0, np.asarray(c_v, dtype=float).reshape(-1), momentum_rate,
                            newton.MAX_STATUS_CHANGES)
        if done.code == loop.FALLBACK:  # a dense LU not trusted: the loop below (SuperLU decides)
            done = None
    if done is not None:
        it, u, a, v, R_free, reactions_c = done.iterations, done.u, done.a, done.v, done.R_free, done.reactions_c
        res = float(done.norms[0])
        if done.code == loop.NON_FINITE:
            raise NewtonFailure(res, int(free[0]) if free.size else 0, it)
        if done.code == loop.NOT_CONVERGED:
            oscillating = [int(node) for term, changes in zip(ctx.multipliers, done.changes)
                           for node in term.nodes[changes >= newton.MAX_STATUS_CHANGES]]
            detail = f"contact statuses oscillated at nodes {oscillating}" if oscillating else ""
            raise NewtonFailure(res, int(free[np.argmax(np.abs(R_free))]) if free.size else 0, it, detail)
        forces = model.evaluated(u, v, done.f_int, done.f_damp, float(done.norms[3]), float(done.norms[4]))
        each, each_mult = [], list(done.f_each.copy())
        f_mult, f_terms = sum(each_mult, np.zeros(model.n_dofs)), done.f_terms
    previous, J, u_J = np.inf, None, None
    cycles = None if ctx.multipliers else newton.CycleGuard()
    while done is None:
        a, v = kinematics(u)
        forces, f_terms, tangents, each = evaluate_forces(ctx, u, v, t1, tangent=True)
        lins, changed, f_mult, each_mult = multiplier_forces(ctx, trials, u, v, update=True)
        f_terms = f_terms + f_mult
        g, Ma, R = newmark.hht_residual(forces.internal, forces.damping, f_terms, f_ext, M.indptr, M.indices, M.data,
                                        a, weights1, weights0, g0)
        c = (lins[0].residual if len(lins) == 1 else np.concatenate([lin.residual for lin in lins])) if lins \
            else _NO_EQUATIONS
        R_free, reactions_c, norms = np.empty(free.size), np.empty(cdofs.size), np.empty(3)
        newton.momentum_norms(R, free, c, Ma, g, cdofs, f_ext, forces.internal, forces.damping, f_terms, R_free,
                              reactions_c, norms)
        res, res_c, scale = float(norms[0]), float(norms[1]), float(norms[2])
        if not np.isfinite(res + res_c):
            raise NewtonFailure(res, int(free[0]) if free.size else 0, it)
        worst = max(res, res_c)
        # the round-off floor counts only once Newton stops gaining (computed then only: off the hot path)
        stalled = J is not None and worst > 0.5 * previous
        if newton_converged(ctx, worst, scale, not any(ch.size for ch in changed), it, momentum_rate,
                            csr_round_off_floor(J, ctx.system.matrix.col, ctx.system.matrix.indptr, u_J)
                            if stalled else 0.0):
            break
        previous = worst
        oscillating = oscillating_nodes(ctx, trials)
        if it >= settings.max_iterations or oscillating:
            detail = f"contact statuses oscillated at nodes {oscillating}" if oscillating else ""
            raise NewtonFailure(res, int(free[np.argmax(np.abs(R_free))]) if free.size else 0, it, detail)
        J = ctx.system.matrix.data(forces, tangents, ca, w1, 1.0, c_v)
        u_J = u
        du = solve_increment(ctx.system, J, R_free, lins, trials, c, w1,
                             f"phase {ctx.phase.name!r}, step ending at t = {t1:.9g} s")
        if cycles is not None:
            du = cycles.correction(u[free], du)
            if du is None:
                raise NewtonFailure(res, int(free[np.argmax(np.abs(R_free))]) if free.size else 0, it,
                                    "the Newton iterates repeat (a cycle)")
        u = u.copy()
        u[free] += du
        it += 1

    if probe:
        return trials, it, u
    if locate:
        landed = [term.landed(trial) if land and getattr(term, "closing", "immediate") == "located" else None
                  for term, trial in zip(ctx.multipliers, trials)]
        if any_node(landed):
            raise _LandingEvent(landed, it)
        opened = [term.opened_under_load(trial) if getattr(term, "release", "immediate") == "located" else None
                  for term, trial in zip(ctx.multipliers, trials)]
        if any_node(opened):
            raise _ReleaseEvent(opened, it)
    jacobian = forces.smallest_jacobian()
    if jacobian <= 0.0:  # converged on an element turned inside out: refused, the step is cut
        raise NewtonFailure(res, int(free[np.argmax(np.abs(R_free))]) if free.size else 0, it,
                            f"an element turned inside out (det F = {jacobian:.3g})")
    du_step = u - u0
    if not static and ctx.friction_guard:
        created = -sum(term.trial_work(trial, u).friction for term, trial in zip(ctx.multipliers, trials)
                       if hasattr(term, "trial_work") and getattr(term, "release", None) == "located")
        # round-off floor: the work the step's largest force would do over its largest increment or
        # displacement (a block at rest on a moving table has no kinetic energy to compare with, and
        # the slips, differences of displacements, carry round-off relative to the displacements)
        reach = residual_scale(du_step, u)  # max |.| over both (0 for none): np.max(np.abs(.), initial=0.0)'s
        floor = ROUND_OFF_WORK * float(residual_scale(f_ext) * reach)
        if created > max(FRICTION_CREATION * ctx.energy_scale, floor):
            raise FrictionCreation(created, 0, it, f"friction would give back {created:.3e} J")
    reactions = np.zeros(model.n_dofs)
    reactions[cdofs] = reactions_c
    # the books' forces, from the states' own fields (not from the residual's g0, g)
    F0 = state.f_ext + state.reactions - state.f_int - state.f_damp - state.f_terms
    F1 = f_ext + reactions - forces.internal - forces.damping - f_terms
    f_scheme = hht_scheme_force(af, F0, F1, ctx.massive)
    numerical = 0.0
    if not static:
        numerical = newmark_dissipation(M, dt, beta, gamma, du_step, a0, a, v0, v, state.f_scheme, f_scheme, F0, F1)
    for term in ctx.terms:
        term.commit(u, v, t1)
    for term, trial in zip(ctx.multipliers, trials):
        term.commit(trial, u, v, t1)
    term_forces = tuple(each + each_mult)
    energies = book_step(state.energies, du_step, (state.f_ext, f_ext), (state.reactions, reactions),
                         (state.f_damp, forces.damping), term_books(ctx, state.term_forces, term_forces, du_step),
                         numerical)
    new = State(t=t1, u=u, v=v, a=a, f_int=forces.internal, f_damp=forces.damping, f_terms=f_terms,
                f_ext=f_ext, reactions=reactions, energies=energies, f_mult=f_mult, f_scheme=f_scheme,
                term_forces=term_forces)
    return new, it


def _illinois(f, ta: float, fa: float, tb: float, fb: float, done, probes: int, zero_above: bool):
    """Regula falsi with the Illinois modification on a bracket [ta, tb] of an event function with
    f(ta) above zero and f(tb) below it (f = 0 counts as above when ``zero_above``). Stops when
    ``done(f(ta), f(tb))``, after ``probes`` evaluations, when f fails to converge, or when the
    bracket can no longer be split (the bracket found so far is kept). Returns (ta, f(ta), tb,
    f(tb)), the values true, not the halved weights."""
    side, fa_true, fb_true = 0, fa, fb
    for _ in range(probes):
        if done(fa_true, fb_true):
            break
        tc = tb - fb * (tb - ta) / (fb - fa)
        if not ta < tc < tb:
            tc = 0.5 * (ta + tb)
            if not ta < tc < tb:  # the bracket is down to the spacing of the floats
                break
        try:
            fc = f(tc)
        except NewtonFailure:
            break
        if fc > 0 or (zero_above and fc == 0):
            ta, fa, fa_true = tc, fc, fc
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            tb, fb, fb_true = tc, fc, fc
            if side == 1:
                fa *= 0.5
            side = 1
    return ta, fa_true, tb, fb_true


#: the multiplier equations of a step without multiplier terms
_NO_EQUATIONS = np.zeros(0)


class _ReleaseEvent(Exception):
    """A step opened contact nodes that were closed under a compressive reaction (per multiplier
    term: mask (n_s,) or None); iterations spent."""

    def __init__(self, opened, iterations: int) -> None:
        super().__init__()
        self.opened, self.iterations = opened, iterations


class _LandingEvent(Exception):
    """A step closed contact nodes that were open at its start (per multiplier term: mask (n_s,) or
    None); iterations spent."""

    def __init__(self, landed, iterations: int) -> None:
        super().__init__()
        self.landed, self.iterations = landed, iterations


#: a located release accepts a separation instant where the held nodes' reaction lies in
#: [-RELEASE_TOLERANCE * S, 0], S the node's reaction swing over the step, max(R_N,n, -R_N(t1) held)
#: (tensile at most by this fraction of it: a tolerance on R_N,n alone cannot be met when a node
#: that carries almost nothing at the step start is pulled hard by its end)
RELEASE_TOLERANCE = 1e-2
RELEASE_PROBES = 8
#: a separation within this fraction of the step from its start opens the nodes at the start (the
#: immediate rule, which gives back 1/2 R_N,n g_{n+1} with R_N,n at most about this fraction of the
#: swing); within it from the step's end, the nodes are held to the end (tensile by at most about
#: this fraction of the swing). Either way no step is cut to a sliver whose Newton matrix, with
#: forces of order 1/dt^2, may not converge
RELEASE_MIN_STEP = 1e-3


def step_with_release(ctx: PhaseContext, state: State, t1: float, land: bool = True) -> tuple[State, int, int]:
    """A Newmark/HHT step whose contacts open at the instant their reaction vanishes (release rule
    "located", contact.multipliers). Returns (state, iterations, substeps).

    When the step opens a node that was closed under a compressive reaction R_N,n > 0, the step is
    cut at the separation instant t*: the nodes are held closed over [t_n, t], and t is found by
    regula falsi (Illinois) on f(t) = min over those nodes of R_N(t) / S, S = max(R_N,n, -R_N(t1))
    the node's reaction swing over the step held through it, from f(t_n) > 0 and f(t1) < 0, until
    f(t*) lies in [-RELEASE_TOLERANCE, 0] (at most RELEASE_PROBES probes; the last bracket end with
    f <= 0 otherwise). The step to t* (nodes held) is committed, and the rest of the step, to t1,
    starts from a reaction that is zero or tensile: with the trapezoidal rule no such step gives
    energy back ([E] = 1/2 (R_n g_{n+1} - R_{n+1} g_n) <= 0, contact.multipliers).

    Not cut to a sliver: a separation within RELEASE_MIN_STEP of the step's end holds the nodes to
    the end; a node whose own separation lies within RELEASE_MIN_STEP of the start (by the linear
    estimate R_N,n / (R_N,n - R_N(t1))) opens at the start, the immediate rule, whose 1/2 R_N,n
    g_{n+1} is then small: R_N,n is at most about RELEASE_MIN_STEP of the swing. So does a node
    still tensile at a separation instant located within RELEASE_MIN_STEP of the start: its held
    reaction jumps at the step start, as when the nodes of a landing close there (SDNV105 C,
    dt = 5e-5 s: 1832 N at t_n, -550 kN an instant later). The other nodes stay held and are located
    as above, from their reactions with those nodes free. That is the common case on a massless base
    (fem.model.mass), whose reactions follow the other nodes at once: when a corner lands, the opposite
    corner's reaction drops from hundreds of newtons to meganewtons of traction within the step.
    In the first step of a phase that restarts from a state without forces (State.released) the
    opening is not located (the reactions of the previous phase may jump); a phase continuing the
    previous one's state (SDNV105's windows) locates it as any step (before, such a step gave back
    1/2 R_N,n g_{n+1}: 4.5e-5 J at a window boundary of SDNV105 C, dt = 5e-5 s).
    """
    try:
        new, it = _newton_step(ctx, state, t1, land=land)
        return new, it, 1
    except _LandingEvent as event:
        return _step_to_landing(ctx, state, t1, event.landed, event.iterations)
    except _ReleaseEvent as event:
        spent, hold = event.iterations, event.opened
    start = [term.committed_normal_reactions() for term in ctx.multipliers]
    if ctx.restarted and math.isclose(state.t, ctx.phase.t_start, rel_tol=0.0, abs_tol=1e-9 * (t1 - state.t)):
        # a restart (State.released): the reactions of the step start belong to the previous phase
        # (its supports and loads, e.g. a held block just released) and may jump: no separation
        # instant to locate. A phase that continues the previous one's state locates as any step
        logger.info("phase %s starts with a contact opening under load at t = %.9g s: release not located",
                    ctx.phase.name, state.t)
        new, it = _newton_step(ctx, state, t1, locate=False)
        return new, spent + it, 1

    def held_reactions(t, hold):
        """R_N (n_s,) per multiplier term at t with the ``hold`` nodes held closed."""
        nonlocal spent
        trials, it, _ = _newton_step(ctx, state, t, hold=hold, probe=True)
        spent += it
        return [trial.lam[0::2] for trial in trials]

    def ratio(reactions):
        """min over the held nodes of R_N / S (S: their swing, set below for the current hold)."""
        return min(float(np.min(r / s)) for r, s in zip(reactions, swing))

    def f(t):
        return ratio([r[m] for r, m in zip(held_reactions(t, hold), hold) if m is not None and m.any()])

    # a node separating within RELEASE_MIN_STEP of the start opens there; the others stay held, and
    # their reactions are taken again. Such a node is found by its linear estimate
    # R_N,n / (R_N,n - R_N(t1)) < RELEASE_MIN_STEP, or, when the held reactions jump at the step
    # start (nodes closing there: a massless base follows them at once), by a separation instant
    # located within RELEASE_MIN_STEP of the start: the nodes tensile there open at the start
    dt = t1 - state.t
    while True:
        r1 = held_reactions(t1, hold)
        early = [None if m is None else m & (r < 0) & (r0 < RELEASE_MIN_STEP * (r0 - r))
                 for m, r0, r in zip(hold, start, r1)]
        if not any_node(early):
            held = [(r0[m], r[m]) for m, r0, r in zip(hold, start, r1) if m is not None and m.any()]
            swing = [np.maximum(r0, -r) for r0, r in held]  # > 0: the nodes start compressed
            fa, fb = ratio([r0 for r0, _ in held]), ratio([r for _, r in held])
            if fb > 0:  # held through the whole step the reaction stays compressive: Newton's noise
                new, it = _newton_step(ctx, state, t1, hold=hold, locate=False)
                return new, spent + it, 1
            # the bracket end kept is tb, whose reaction is not compressive
            _, _, tb, _ = _illinois(f, state.t, fa, t1, fb, lambda fa_, fb_: fb_ >= -RELEASE_TOLERANCE,
                                    RELEASE_PROBES, zero_above=False)
            if tb - state.t >= RELEASE_MIN_STEP * dt:
                break
            rb = held_reactions(tb, hold)
            early = [None if m is None else m & (r < 0) for m, r in zip(hold, rb)]
            if not any_node(early):
                early = hold
        hold = [None if m is None else m & ~e for m, e in zip(hold, early)]
        if not any_node(hold):  # all separate at the step start: the immediate rule
            new, it = _newton_step(ctx, state, t1, locate=False)
            return new, spent + it, 1

    if t1 - tb < RELEASE_MIN_STEP * dt:
        tb = t1  # a separation at the step's end: held to it (reaction tensile, small)
    middle, it = _newton_step(ctx, state, tb, hold=hold, locate=False)
    spent += it
    if tb >= t1:
        return middle, spent, 1
    # the step to t* is committed (the terms' variables with it): a failure of the rest must be
    # resolved from t*, by its own subdivision, not by retrying the whole step from t_n
    new, it, n = step_with_subdivision(ctx, middle, t1, step_with_release)
    return new, spent + it, 1 + n


#: a located landing accepts a landing instant where the landed nodes' gap lies in
#: [0, LANDING_TOLERANCE * g_n] (the node closes in the next step from at most 1 % of its gap)
LANDING_TOLERANCE = 1e-2
LANDING_PROBES = 8
#: a landing within this fraction of the step from either end is not located (its closing work is
#: at most this fraction of the immediate rule's), so no step is cut to a sliver
LANDING_MIN_STEP = 1e-3


def _step_after_landing(ctx: PhaseContext, state: State, t1: float) -> tuple[State, int, int]:
    """:func:`step_with_release` with its nodes closing at the step's end (the rest of a step cut at
    a landing: locating the landing again would cut it without end)."""
    return step_with_release(ctx, state, t1, land=False)


def _step_to_landing(ctx: PhaseContext, state: State, t1: float, landed, spent: int) -> tuple[State, int, int]:
    """The step from ``state`` to ``t1`` of :func:`step_with_release` in which contact nodes open at
    its start land (closing rule "located", contact.multipliers). Returns (state, iterations, substeps).

    The landed nodes are kept open (``kept_open``) and the landing instant t* is found by regula falsi
    (Illinois) on f(t) = min over them of g(t) / g_n, from f(t_n) = 1 and f(t1) < 0, until f(t*)
    lies in [0, LANDING_TOLERANCE] (at most LANDING_PROBES probes). The step to t* is committed with
    the nodes still open (gap >= 0, no reaction, no contact work), and the rest of the step, to t1,
    closes them from that gap with the immediate rule: the landing takes 1/2 R_N g(t*), at most
    LANDING_TOLERANCE of the 1/2 R_N g_n the immediate rule takes. Nodes touching at the step start
    (g_n <= 0), a landing within LANDING_MIN_STEP of either end of the step, or a free trajectory
    that does not penetrate by t1 are not located.
    """
    terms = ctx.multipliers
    start = [term.gaps(state.u) if m is not None else None for term, m in zip(terms, landed)]
    landed = [None if m is None else (m & (g0 > 0)) for m, g0 in zip(landed, start)]

    def whole_step(kept_open=None):
        """The step to t1 not cut: the nodes close at its end (kept_open None) or stay open."""
        new, it = _newton_step(ctx, state, t1, kept_open=kept_open, locate=False)
        return new, spent + it, 1

    if not any_node(landed):
        return whole_step()

    def f(t):
        nonlocal spent
        _, it, u = _newton_step(ctx, state, t, kept_open=landed, probe=True)
        spent += it
        return min(float(np.min(term.gaps(u)[m] / g0[m])) for term, m, g0 in zip(terms, landed, start)
                   if m is not None and m.any())

    dt = t1 - state.t
    try:
        fb = f(t1)
    except NewtonFailure:  # kept open, the nodes leave the body unsupported: close them at the end
        return whole_step()
    ta, fa, tb = state.t, 1.0, t1
    if fb >= 0:  # kept open through the step, the nodes do not reach the table: Newton's noise
        return whole_step(kept_open=landed)
    t_lin = ta + fa * (tb - ta) / (fa - fb)
    if t_lin - ta < LANDING_MIN_STEP * dt:  # landed at the step start: the closing work is negligible
        return whole_step()
    if tb - t_lin < LANDING_MIN_STEP * dt:  # at its end: open to t1, a penetration of < 1e-3 of the step's travel
        return whole_step(kept_open=landed)
    # the bracket end kept is ta, where the nodes have not reached the table
    ta, _, _, _ = _illinois(f, ta, fa, tb, fb, lambda fa_, fb_: fa_ <= LANDING_TOLERANCE, LANDING_PROBES,
                            zero_above=True)
    if ta <= state.t:  # no probe landed short of the table: close at the step's end
        return whole_step()
    middle, it = _newton_step(ctx, state, ta, kept_open=landed, locate=False)
    spent += it
    # the rest closes the nodes from gap(t*) with the immediate rule, and locates the releases the
    # landing causes; its own failures are resolved from t* by subdivision
    new, it, n = step_with_subdivision(ctx, middle, t1, _step_after_landing)
    return new, spent + it, 1 + n


#: a Newmark/HHT step under the release rule "located" whose friction gives back more than this
#: fraction of the largest kinetic energy met in the phase is cut by the step subdivision and
#: accepted as it is at the deepest level. The trapezoidal work -<R_T>.[s] of a step gives energy
#: back when the tangential reaction reverses inside it: a corner stuck under a large tangential
#: impact force that slides the other way as its normal reaction vanishes (SDNV105 A, dt = 5e-5 s:
#: 0.11 J in one step after the fourth impact). Shorter steps follow the reversal.
FRICTION_CREATION = 1e-6
#: below this fraction of (largest force x largest increment or displacement) of a step, friction
#: work is round-off
ROUND_OFF_WORK = 1e-9


def integrate(model: Model, phase: Phase, state: State, terms: Sequence[ForceTerm] = ()) -> Iterator[StepResult]:
    """Integrate one phase from ``state`` (its time is the phase start). Yields one
    :class:`StepResult` per step; the first one is the (completed) initial state, with 0 iterations.
    A phase whose scheme is :class:`fem.stage.schemes.Theta` runs the Moreau-Jean method (fem.time.theta)."""
    if not math.isclose(state.t, phase.t_start, rel_tol=0, abs_tol=1e-9 * max(1.0, abs(phase.t_start))):
        raise ValueError(f"phase {phase.name!r} starts at t = {phase.t_start} s but the state given is at "
                         f"t = {state.t} s (restart from the state at the phase start, or use State.released(t))")
    state = replace(state, t=phase.t_start)
    if isinstance(phase.scheme, Theta):
        yield from integrate_theta(model, phase, state, terms)
        return
    ctx, state = start_phase(model, phase, state, terms)
    yield StepResult(phase.name, state, 0, 0, True)
    times = phase.times()
    for k, t1 in enumerate(times):
        state, it, n = step_with_subdivision(ctx, state, float(t1), step_with_release)
        archived = (k + 1) % phase.archive_every == 0 or k == len(times) - 1
        yield from progress.deliver(StepResult(phase.name, state, it, n, archived), phase.name, state.t)


def run_phases(model: Model, phases: Sequence[Phase], state: State, terms: Sequence[ForceTerm] = ()
               ) -> Iterator[StepResult]:
    """Chain phases: each starts from the last state of the previous one. The initial state of
    every phase after the first is not yielded again."""
    for i, phase in enumerate(phases):
        for k, result in enumerate(integrate(model, phase, state, terms)):
            if k == 0 and i > 0:
                continue
            state = result.state
            yield result


def energy_report(model: Model, state: State, gravity_vector: np.ndarray | None = None) -> dict[str, float]:
    """Energy terms of a state [J] (fem.stage.energy).

    balance_error = kinetic + strain + damping dissipation + contact work + friction work + other
    term work + numerical dissipation - external work - reaction work - initial. Every term is
    computed on its own (the scheme's dissipation from its energy identity), so the error measures
    how well the equations the integrator solved hold with the forces the books know: the Newton
    residual, the trapezoidal work of a nonlinear internal force against the exact strain energy,
    the laws' energies against the work of their forces, round-off.
    """
    ke = model.kinetic_energy(state.v)
    se = model.strain_energy(state.u)
    e = state.energies
    out = {
        "kinetic": ke,
        "strain": se,
        "external_work": e.external_work,
        "reaction_work": e.reaction_work,
        "damping_dissipation": e.damping_dissipation,
        "contact_work": e.contact_work,
        "friction_work": e.friction_work,
        "other_work": e.other_work,
        "term_work": e.term_work,
        "numerical_dissipation": e.numerical_dissipation,
        "balance_error": (ke + se + e.damping_dissipation + e.term_work + e.numerical_dissipation
                          - e.external_work - e.reaction_work - e.initial),
    }
    if gravity_vector is not None:
        out["gravity_potential"] = -float(gravity_vector @ state.u)
    return out
