"""Explicit central differences, in physical or in modal coordinates.

Central differences (Code_Aster DIFF_CENTRE), leap-frog form, for M a = f_ext - f_int - f_damp - f_terms::

    a_n       = M^-1 (f_ext(t_n) - f_int(u_n) - f_damp(u_n, v_n) - f_terms(u_n, v_n, t_n))
    v_{n+1/2} = v_{n-1/2} + dt a_n            (v_{1/2} = v_0 + dt/2 a_0)
    u_{n+1}   = u_n + dt v_{n+1/2}
    v_{n+1}   = v_{n+1/2} + dt/2 a_{n+1}      (reported velocity)

Velocity-dependent forces use the reported velocity v_n (explicit in v). Stable for
dt < 2 / omega_max (without damping); the mass should be lumped (``Model(lumped_mass=True)``) for
a cheap solve, but any mass works (it is factorised once).

Modal coordinates (Code_Aster DYNA_VIBRA, BASE_CALCUL='GENE'): u = Phi q with the first modes
Phi (mass-normalised) of the model with its constraints; the same scheme advances q with
q'' = Phi^T (f_ext - f_terms(Phi q)) - omega^2 q, the nonlinear forces (shocks) evaluated on the
physical displacement, as Code_Aster does for DIS_CHOC on a modal basis.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator, Sequence

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla

from fem.time import progress
from fem.stage.energy import book_step, newmark_dissipation
from fem.model.assembly import Model
from fem.time.newton import make_context, term_books
from fem.stage.phase import Phase, SingularSystemError, State, StepResult


def _commit_terms(terms, u, v, t) -> None:
    for term in terms:
        term.commit(u, v, t)


def _term_forces(terms, u, v, t, n) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Sum of the terms' resisting forces (n,) and each term's."""
    each = tuple(term.evaluate(u, v, t, False).force for term in terms)
    return sum(each, np.zeros(n)), each


def central_differences(model: Model, phase: Phase, state: State, terms: Sequence = ()) -> Iterator[StepResult]:
    """Integrate a phase explicitly (the phase's scheme and Newton settings are ignored).

    Yields a :class:`StepResult` per step (iterations = 0), the first for the initial state.
    Energies are booked as in the implicit integrator (fem.stage.energy), the scheme's dissipation being
    Newmark's with beta = 0, gamma = 1/2: -dt^2/4 [a].M<a>.
    """
    if model.massless_dofs.size:
        raise ValueError(f"phase {phase.name!r}: central differences need a mass on every free dof: use a "
                         "consistent or lumped mass, not a redistributed one (its massless dofs are quasi-static)")
    ctx = make_context(model, phase, terms)
    free, cdofs = ctx.free, ctx.constraints.dofs
    for term in ctx.terms:
        term.set_phase(phase, state.u)
    try:
        solve = spla.factorized(model.mass[free][:, free].tocsc())
    except RuntimeError as exc:  # SuperLU: "Factor is exactly singular"
        raise SingularSystemError(f"phase {phase.name!r}: the mass matrix of the free dofs is singular ({exc}): "
                                  "a free node without mass") from None
    n = model.n_dofs

    def accelerations(u, v, t):
        forces = model.forces(u, v, tangent=False)
        f_terms, each = _term_forces(ctx.terms, u, v, t, n)
        f_ext = ctx.loads.at(t)
        a = np.zeros(n)
        a[free] = solve((f_ext - forces.internal - forces.damping - f_terms)[free])
        reactions = np.zeros(n)
        reactions[cdofs] = (model.mass @ a + forces.internal + forces.damping + f_terms - f_ext)[cdofs]
        return a, forces, f_terms, f_ext, reactions, each

    t, u, v = phase.t_start, state.u.copy(), state.v.copy()
    a, forces, f_terms, f_ext, reactions, each = accelerations(u, v, t)
    current = replace(state, t=t, a=a, f_int=forces.internal, f_damp=forces.damping, f_terms=f_terms,
                      f_ext=f_ext, reactions=reactions, term_forces=each)
    if state.f_int is None:
        current = replace(current, energies=replace(state.energies, initial=model.kinetic_energy(v)
                                                     + model.strain_energy(u)))
    yield StepResult(phase.name, current, 0, 0, True)
    times = phase.times()
    for k, t1 in enumerate(times):
        dt = t1 - current.t
        v_half = current.v + 0.5 * dt * current.a
        u1 = current.u + dt * v_half
        u1[cdofs] = ctx.constraints.at(t1)
        # velocity-dependent forces: predict v1 with the old acceleration, correct once
        a1, forces, f_terms, f_ext, reactions, each = accelerations(u1, v_half + 0.5 * dt * current.a, t1)
        v1 = v_half + 0.5 * dt * a1
        _commit_terms(ctx.terms, u1, v1, t1)
        du = u1 - current.u
        # central differences are Newmark's beta = 0, gamma = 1/2 with M a = F at every step
        F0 = current.f_ext + current.reactions - current.f_int - current.f_damp - current.f_terms
        F1 = f_ext + reactions - forces.internal - forces.damping - f_terms
        numerical = newmark_dissipation(model.mass, dt, 0.0, 0.5, du, current.a, a1, current.v, v1, F0, F1, F0, F1)
        energies = book_step(current.energies, du, (current.f_ext, f_ext), (current.reactions, reactions),
                             (current.f_damp, forces.damping), term_books(ctx, current.term_forces, each, du), numerical)
        current = State(t=float(t1), u=u1, v=v1, a=a1, f_int=forces.internal, f_damp=forces.damping,
                        f_terms=f_terms, f_ext=f_ext, reactions=reactions, energies=energies, term_forces=each)
        archived = (k + 1) % phase.archive_every == 0 or k == len(times) - 1
        yield from progress.deliver(StepResult(phase.name, current, 0, 1, archived), phase.name, current.t)


@dataclass(frozen=True)
class ModalBasis:
    """Mass-normalised modes of a constrained linear model.

    shapes : (n_dofs, n_modes) Phi, zero on constrained dofs; omega : (n_modes,) [rad/s].
    """

    shapes: np.ndarray
    omega: np.ndarray

    @property
    def frequencies(self) -> np.ndarray:
        """Natural frequencies [Hz]."""
        return self.omega / (2 * np.pi)


def modal_basis(model: Model, phase: Phase, n_modes: int, terms: Sequence = ()) -> ModalBasis:
    """The n_modes lowest modes of (K + linear term stiffness, M) with the phase's constraints
    (Code_Aster CALC_MODES). Linear ForceTerms (springs) contribute their stiffness."""
    ctx = make_context(model, phase, terms)
    free = ctx.free
    if not 1 <= n_modes <= free.size:
        raise ValueError(f"n_modes must lie in 1..{free.size}, got {n_modes}")
    K = model.stiffness()
    zero = np.zeros(model.n_dofs)
    for term in ctx.terms:
        tf = term.evaluate(zero, zero, phase.t_start, True)
        if tf.d_du is not None:
            K = K + tf.d_du
    Kf = K[free][:, free].toarray()
    Mf = model.mass[free][:, free].toarray()
    w2, vec = sla.eigh(Kf, Mf, subset_by_index=[0, n_modes - 1])
    shapes = np.zeros((model.n_dofs, n_modes))
    shapes[free] = vec
    return ModalBasis(shapes, np.sqrt(np.maximum(w2, 0.0)))


def modal_central_differences(model: Model, phase: Phase, state: State, basis: ModalBasis,
                              nonlinear_terms: Sequence = (), linear_terms: Sequence = ()) -> Iterator[StepResult]:
    """Central differences on the modal coordinates q (u = Phi q). The linear part (model and the
    springs already in the basis, ``linear_terms``) is omega^2 q; ``nonlinear_terms`` (shocks) act on
    u = Phi q and are projected. Initial q, q' are the mass projections of the state's u, v (Code_Aster
    projects the initial conditions the same way).

    The energy books are kept on the physical dofs as :func:`central_differences` keeps them: each
    term's work (the linear ones evaluated on u = Phi q for the books only), the reactions of the
    constrained dofs from M a + f - f_ext there, the scheme's dissipation Newmark's with beta = 0,
    gamma = 1/2. With every mode of the free dofs in the basis M a = f on them and the books close to
    round-off; a truncated basis leaves the work of the dropped modes' forces in the books' error."""
    ctx = make_context(model, phase, [*nonlinear_terms, *linear_terms])
    dynamic = len(nonlinear_terms)  # ctx.terms: the nonlinear terms, then the linear ones
    Phi, w2 = basis.shapes, basis.omega**2
    for term in ctx.terms:
        term.set_phase(phase, state.u)
    M = model.mass
    q = Phi.T @ (M @ state.u)
    qd = Phi.T @ (M @ state.v)
    n = model.n_dofs
    cdofs = ctx.constraints.dofs

    def qdd(q, qd, t):
        """q'' at (q, q', t), with the physical u, v, the nonlinear terms' forces and f_ext there."""
        u, v = Phi @ q, Phi @ qd
        f_terms, each = _term_forces(ctx.terms[:dynamic], u, v, t, n)
        f_ext = ctx.loads.at(t)
        return Phi.T @ (f_ext - f_terms) - w2 * q, u, v, each, f_ext

    def make_state(t, u, v, a_q, each_dynamic, f_ext, energies, before=None):
        """The physical state at t with its forces, reactions and books (``before``: the state at the
        step's start, None for the first)."""
        a = Phi @ a_q
        each = each_dynamic + tuple(term.evaluate(u, v, t, False).force for term in ctx.terms[dynamic:])
        f_terms = sum(each, np.zeros(n))
        forces = model.forces(u, v, tangent=False)
        reactions = np.zeros(n)
        reactions[cdofs] = (M @ a + forces.internal + forces.damping + f_terms - f_ext)[cdofs]
        s = State(t=t, u=u, v=v, a=a, f_int=forces.internal, f_damp=forces.damping, f_terms=f_terms, f_ext=f_ext,
                  reactions=reactions, energies=energies, term_forces=each)
        if before is None:
            return s
        dt, du = t - before.t, u - before.u
        F0 = before.f_ext + before.reactions - before.f_int - before.f_damp - before.f_terms
        F1 = f_ext + reactions - forces.internal - forces.damping - f_terms
        numerical = newmark_dissipation(M, dt, 0.0, 0.5, du, before.a, a, before.v, v, F0, F1, F0, F1)
        books = book_step(before.energies, du, (before.f_ext, f_ext), (before.reactions, reactions),
                          (before.f_damp, forces.damping), term_books(ctx, before.term_forces, each, du), numerical)
        return replace(s, energies=books)

    a, u, v, each, f_ext = qdd(q, qd, phase.t_start)
    energies = state.energies
    if state.f_int is None:  # a stage's start: the books open on the energy the state holds (as newton's start)
        energies = replace(energies, initial=model.kinetic_energy(v) + model.strain_energy(u))
    current = make_state(phase.t_start, u, v, a, each, f_ext, energies)
    yield StepResult(phase.name, current, 0, 0, True)
    times = phase.times()
    t = phase.t_start
    for k, t1 in enumerate(times):
        dt = t1 - t
        qd_half = qd + 0.5 * dt * a
        q = q + dt * qd_half
        a, _, _, each, f_ext = qdd(q, qd_half + 0.5 * dt * a, t1)
        qd = qd_half + 0.5 * dt * a
        t = float(t1)
        u, v = Phi @ q, Phi @ qd
        _commit_terms(ctx.terms, u, v, t)
        current = make_state(t, u, v, a, each, f_ext, None, before=current)
        archived = (k + 1) % phase.archive_every == 0 or k == len(times) - 1
        yield from progress.deliver(StepResult(phase.name, current, 0, 1, archived), phase.name, current.t)
