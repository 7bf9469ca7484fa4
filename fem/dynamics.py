"""Implicit dynamics: phases, Newton-Raphson, step subdivision, energy bookkeeping.

One time step reads as named phases: predict, then Newton iterations of
(assemble residual and tangent, check convergence, solve for the correction), then update and
record. A run is a list of :class:`Phase` objects, like the phase table of a Code_Aster study
(time window, time step, scheme, loads, constraints, friction); each phase starts from the state
where the previous one stopped, or from any state the caller gives (e.g. a release at rest).

The time loop is a generator yielding one :class:`StepResult` per step; the caller decides what to
record and write, so a run that fails has written everything up to the failure.

Residual at t_{n+1} (HHT weighting alpha_f, see :mod:`fem.schemes`)::

    R(u1) = M a1 + (1 + alpha_f) g1 - alpha_f g0,   g = f_int(u) + f_damp(u, v) + f_terms(u, v, t) - f_ext(t)

``f_terms`` are extra force terms (contact, discrete springs) implementing :class:`ForceTerm`.
The massless dofs of a redistributed mass (fem.mass) are quasi-static: their rows are g1 = 0 (no
inertia, no HHT weighting), their velocity [u]/dt.
Newton convergence follows Code_Aster: RESI_GLOB_RELA, ||R_free||_inf <= rela * ||L||_inf, where
L gathers the external forces, the support reactions, the internal, damping, term and inertia forces
(the forces in play, so that a free motion has a scale too); RESI_GLOB_MAXI,
||R_free||_inf <= maxi [N]. When both are given both must hold.
"""
from __future__ import annotations

import logging
import math
import warnings
from dataclasses import dataclass, field, replace
from typing import Iterator, Protocol, Sequence

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from . import progress
from .energy import Energies, StepWork, book_step, hht_scheme_force, newmark_dissipation, trapezoid
from .loads import (Gravity, ImposedDisplacement, InertialLoad, NodalForce, ResolvedConstraints, ResolvedLoads,
                    resolve_constraints, resolve_loads)
from .model import Model
from .schemes import HHT, Newmark, Static, Theta
from .newton_system import NewtonSystem
from .sparsity import SparseRows

logger = logging.getLogger(__name__)


# ------------------------------------------------------------------------------------ settings
@dataclass(frozen=True)
class NewtonSettings:
    """Newton-Raphson stopping criteria (Code_Aster CONVERGENCE).

    Attributes
    ----------
    rela : RESI_GLOB_RELA, relative residual tolerance (None: not used).
    maxi : RESI_GLOB_MAXI [N], absolute residual tolerance (None: not used).
    max_iterations : ITER_GLOB_MAXI.
    """

    rela: float | None = 1e-6
    maxi: float | None = None
    max_iterations: int = 20

    def __post_init__(self) -> None:
        if self.rela is None and self.maxi is None:
            raise ValueError("Newton needs RESI_GLOB_RELA (rela) or RESI_GLOB_MAXI (maxi)")
        for name in ("rela", "maxi"):
            v = getattr(self, name)
            if v is not None and not v > 0:
                raise ValueError(f"Newton tolerance {name} must be > 0, got {v}")
        if self.max_iterations < 1:
            raise ValueError(f"Newton max_iterations must be >= 1, got {self.max_iterations}")


@dataclass(frozen=True)
class Subdivision:
    """Automatic step subdivision on Newton failure (Code_Aster DEFI_LIST_INST SUBD_PAS / SUBD_NIVEAU).

    A failed step is cut into ``factor`` equal sub-steps, recursively, at most ``max_level`` times.
    """

    factor: int = 4
    max_level: int = 3

    def __post_init__(self) -> None:
        if self.factor < 2 or self.max_level < 0:
            raise ValueError(f"subdivision needs factor >= 2 and max_level >= 0, got {self.factor}, {self.max_level}")


@dataclass(frozen=True)
class Phase:
    """One row of a study's phase table.

    Attributes
    ----------
    name : label used in logs and errors.
    t_start, t_end : time window [s].
    dt : time step [s], > 0; the last step is shortened to end exactly at t_end.
    scheme : :class:`Newmark`, :class:`HHT` or :class:`Static`.
    gravity : gravity field (with its ramp), or None.
    forces : nodal forces.
    inertial : d'Alembert loads of a moving support, the run written in its frame (fem.loads.InertialLoad).
    constraints : imposed displacements (supports, imposed motions).
    friction : Coulomb coefficient for the contact terms during this phase (None: keep the law's).
    newton, subdivision : solver settings.
    archive_every : yield ``archived=True`` every this many steps (and at the phase end).
    """

    name: str
    t_start: float
    t_end: float
    dt: float
    scheme: Newmark | HHT | Static | Theta = field(default_factory=Newmark)
    gravity: Gravity | None = None
    forces: tuple[NodalForce, ...] = ()
    inertial: tuple[InertialLoad, ...] = ()
    constraints: tuple[ImposedDisplacement, ...] = ()
    friction: float | None = None
    newton: NewtonSettings = field(default_factory=NewtonSettings)
    subdivision: Subdivision = field(default_factory=Subdivision)
    archive_every: int = 1

    def __post_init__(self) -> None:
        if not (np.isfinite(self.dt) and self.dt > 0):
            raise ValueError(f"phase {self.name!r}: time step dt must be > 0 s, got {self.dt}")
        if not (np.isfinite(self.t_start) and np.isfinite(self.t_end) and self.t_end > self.t_start):
            raise ValueError(
                f"phase {self.name!r}: t_end ({self.t_end}) must be after t_start ({self.t_start})"
            )
        if self.friction is not None and not self.friction >= 0:
            raise ValueError(f"phase {self.name!r}: friction coefficient must be >= 0, got {self.friction}")
        if self.archive_every < 1:
            raise ValueError(f"phase {self.name!r}: archive_every must be >= 1")

    def times(self) -> np.ndarray:
        """Step end times (n_steps,) [s], uniform dt with a shorter last step if needed. A remainder
        shorter than 1e-6 dt (the round-off of a start time reached by adding thousands of steps)
        lengthens the last step instead of making a step of 1e-14 s, whose Newton matrix
        (M / (beta dt^2)) is out of the arithmetic's range."""
        span = self.t_end - self.t_start
        n = max(1, math.ceil(span / self.dt - 1e-6))
        t = self.t_start + self.dt * np.arange(1, n + 1)
        t[-1] = self.t_end
        return t


# ------------------------------------------------------------------------------------ terms
@dataclass(frozen=True)
class TermForces:
    """Contribution of an extra force term: force (n_dofs,) [N], d/du and d/dv (CSR or None)."""

    force: np.ndarray
    d_du: sp.spmatrix | None = None
    d_dv: sp.spmatrix | None = None


class ForceTerm(Protocol):
    """An extra force in the residual (contact, discrete springs, shock elements).

    ``evaluate`` is called at every Newton iteration with the trial state and must not change the
    term's committed internal variables (a failed step is retried from them); ``commit`` is called
    once the step has converged (update internal variables such as contact status or slip);
    ``set_phase`` when a phase starts, with the phase (its friction coefficient) and the
    displacement the phase starts from.
    """

    def evaluate(self, u: np.ndarray, v: np.ndarray, t: float, tangent: bool) -> TermForces: ...

    def commit(self, u: np.ndarray, v: np.ndarray, t: float) -> None: ...

    def set_phase(self, phase: Phase, u: np.ndarray) -> None: ...


@dataclass(frozen=True)
class MultiplierLinearization:
    """A multiplier term (Lagrange or augmented-Lagrangian contact) linearised at a trial (u, lam).

    The term's force on the body is ``force_rows^T lam``; its ``n_m`` equations C(u, lam) = 0
    (``residual``, in newtons so they share the momentum tolerance) have the derivatives ``d_du``
    (n_m, n_dofs) and ``d_dlam`` (n_m, n_m), block diagonal. ``force_rows`` and ``d_du`` are
    :class:`fem.sparsity.SparseRows` on the same columns (a contact row touches a slave node and its
    master segment); ``d_dlam`` is given by its diagonal blocks (n_m / b, b, b).
    """

    force_rows: SparseRows
    residual: np.ndarray
    d_du: SparseRows
    d_dlam: np.ndarray


class MultiplierTerm(Protocol):
    """Contact enforced with multipliers, unknowns of the Newton system beside the displacements.

    ``begin_step(u0)`` returns a trial object holding the multipliers ``lam`` and the statuses,
    started from the committed ones; at every Newton iteration ``update(trial, u, v)`` revises
    the statuses (returns the indices of the nodes whose status changed) and ``linearize(trial,
    u, v)`` gives the equations; the integrator adds the multiplier correction to ``trial.lam``.
    ``commit(trial, u, v, t)`` keeps a converged step; ``set_phase(phase, u)`` as for ForceTerm.
    """

    def begin_step(self, u0: np.ndarray): ...

    def update(self, trial, u: np.ndarray, v: np.ndarray) -> np.ndarray: ...

    def linearize(self, trial, u: np.ndarray, v: np.ndarray) -> MultiplierLinearization: ...

    def commit(self, trial, u: np.ndarray, v: np.ndarray, t: float) -> None: ...

    def set_phase(self, phase: Phase, u: np.ndarray) -> None: ...


def _is_multiplier_term(term) -> bool:
    return hasattr(term, "linearize") and hasattr(term, "begin_step")


# ------------------------------------------------------------------------------------ state
@dataclass(frozen=True)
class State:
    """Mechanical state at time t. Arrays have shape (n_dofs,).

    a = None means "not known": the next phase computes it from equilibrium (Code_Aster does the
    same when ETAT_INIT gives no acceleration). Force arrays are those of the phase that produced
    the state; they are recomputed when a phase starts.
    """

    t: float
    u: np.ndarray
    v: np.ndarray
    a: np.ndarray | None = None
    f_int: np.ndarray | None = None
    f_damp: np.ndarray | None = None
    f_terms: np.ndarray | None = None
    f_ext: np.ndarray | None = None
    reactions: np.ndarray | None = None
    energies: Energies = field(default_factory=Energies)
    f_mult: np.ndarray | None = None  # the part of f_terms from multiplier terms (contact), resisting sign
    f_scheme: np.ndarray | None = None  # the force the scheme equates with M a (fem.energy), Newmark/HHT
    term_forces: tuple | None = None  # each term's resisting force (force terms, then multiplier terms)

    @classmethod
    def at_rest(cls, n_dofs: int, t: float = 0.0, u: np.ndarray | None = None) -> "State":
        """Zero velocity, displacement u (default zero), acceleration to be computed."""
        u = np.zeros(n_dofs) if u is None else np.array(u, dtype=float)
        return cls(t=t, u=u, v=np.zeros(n_dofs))

    def released(self, t: float | None = None) -> "State":
        """Same displacement, velocity reset to zero, energies restarted (SDNV105 release)."""
        return State.at_rest(self.u.size, self.t if t is None else t, self.u)


@dataclass(frozen=True)
class StepResult:
    """What a step reports: the new state, Newton iterations, number of sub-steps used (1 if no
    subdivision), and whether the step is an archive step."""

    phase: str
    state: State
    iterations: int
    substeps: int
    archived: bool


class ConvergenceError(RuntimeError):
    """Newton failed and step subdivision is exhausted.

    Attributes: time [s], dt [s], residual [N], node, component, phase.
    """

    def __init__(self, phase: str, time: float, dt: float, residual: float, node: int, component: str,
                 coordinates: tuple[float, float], iterations: int, detail: str = "") -> None:
        self.phase, self.time, self.dt, self.residual = phase, time, dt, residual
        self.node, self.component = node, component
        msg = (
            f"Newton did not converge in phase {phase!r} for the step ending at t = {time:.9g} s "
            f"(dt = {dt:.3g} s, subdivision exhausted) after {iterations} iterations: largest residual "
            f"{residual:.3e} N on d{component} of node {node} at ({coordinates[0]:.6g}, {coordinates[1]:.6g})"
        )
        super().__init__(msg + (f"; {detail}" if detail else ""))


class _NewtonFailure(Exception):
    def __init__(self, residual: float, dof: int, iterations: int, detail: str = "") -> None:
        super().__init__()
        self.residual, self.dof, self.iterations, self.detail = residual, dof, iterations, detail


class _FrictionCreation(_NewtonFailure):
    """A converged step whose friction would give energy back (release rule "located" only): cut
    by subdivision like a Newton failure, accepted at the deepest level (see FRICTION_CREATION)."""


class SingularSystemError(ValueError):
    """A linear solve met a zero pivot (SuperLU's MatrixRankWarning) or gave a non-finite solution
    from finite data: the problem is ill-posed. Not retried by step subdivision: the run stops."""


def _listed(items, limit: int = 5) -> str:
    items = list(items)
    return ", ".join(map(str, items[:limit])) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _solve(A: sp.csc_matrix, b: np.ndarray, free: np.ndarray, where: str, J=None, links=None) -> np.ndarray:
    """spsolve(A, b) for the unknowns ``free`` (dofs) then any multipliers; SingularSystemError on a
    zero pivot or a non-finite solution of finite data, naming the unknowns with an all-zero row and
    column and, given the full matrix J (and multiplier rows ``links``), the nodes connected to no
    imposed dof. Non-finite data, and a singularity of the multiplier equations alone (the momentum
    block regular: nearly redundant contact equations, which a shorter step resolves), return a
    non-finite solution, i.e. the Newton failure path (step subdivision), as spsolve did."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", spla.MatrixRankWarning)
        try:
            x = spla.spsolve(A, b)
        except spla.MatrixRankWarning:
            x = None
    if x is not None and (np.isfinite(x).all() or not (np.isfinite(A.data).all() and np.isfinite(b).all())):
        return x
    if links is not None:
        n = free.size
        with warnings.catch_warnings():
            warnings.simplefilter("error", spla.MatrixRankWarning)
            try:
                regular = np.isfinite(spla.spsolve(A[:n, :n], b[:n])).all()
            except spla.MatrixRankWarning:
                regular = False
        if regular:
            logger.info("%s: the contact equations are singular (the momentum block is not): Newton failure",
                        where)
            return np.full(A.shape[0], np.nan)
    kind = "singular (zero pivot)" if x is None else "nearly singular (non-finite solution)"
    msg = f"{where}: the system matrix is {kind}: a floating part, unmerged duplicate nodes or a missing support"
    absA = abs(A)
    empty = np.flatnonzero((absA.sum(axis=0).A1 == 0) & (absA.sum(axis=1).A1 == 0))
    if empty.size:
        msg += "; unknowns with an all-zero row and column: " + _listed(
            f"d{'xy'[free[i] % 2]} of node {free[i] // 2}" if i < free.size else f"multiplier {i - free.size}"
            for i in empty)
    if J is not None:
        graph = abs(J) if links is None else abs(J) + abs(links).T @ abs(links)
        graph.eliminate_zeros()
        _, comp = connected_components(graph, directed=False)
        held = np.zeros(comp.max() + 1, dtype=bool)
        held[np.delete(comp, free)] = True
        loose = np.unique(free[~held[comp[free]]] // 2)
        if loose.size:
            msg += f"; nodes connected to no imposed displacement: {_listed(loose)}"
    raise SingularSystemError(msg)


#: a contact node whose status changes this many times within one step is oscillating
MAX_STATUS_CHANGES = 6


def _any_node(masks) -> bool:
    """Whether any per-term node mask (n_s,) bool, or None for a term without one, selects a node."""
    return any(m is not None and m.any() for m in masks)


def _oscillating_nodes(ctx: "_PhaseContext", trials) -> list[int]:
    """Mesh nodes whose contact status changed MAX_STATUS_CHANGES times in the current step."""
    nodes: list[int] = []
    for term, trial in zip(ctx.multipliers, trials):
        nodes.extend(int(n) for n in term.nodes[trial.changes >= MAX_STATUS_CHANGES])
    return nodes


# ------------------------------------------------------------------------------------ stepping
@dataclass
class _PhaseContext:
    """Everything a phase resolves once: constraints, loads, free dofs, terms."""

    model: Model
    phase: Phase
    constraints: ResolvedConstraints
    loads: ResolvedLoads
    free: np.ndarray
    terms: Sequence[ForceTerm]
    multipliers: Sequence[MultiplierTerm]
    massive: np.ndarray  # the free dofs with mass (all free dofs unless the mass is redistributed, fem.mass)
    force_scale: float = 0.0  # largest residual scale met in the phase (fallback in free flight)
    friction_guard: bool = True  # steps whose friction gives energy back are cut (FRICTION_CREATION)
    energy_scale: float = 0.0  # largest kinetic energy met in the phase [J] (FRICTION_CREATION)
    restarted: bool = False  # the phase starts from a state without forces (State.released, at_rest)
    system: NewtonSystem | None = None  # the phase's Newton system (patterns, gathers, solves)


def _make_context(model: Model, phase: Phase, terms: Sequence) -> _PhaseContext:
    constraints = resolve_constraints(model.mesh, phase.constraints, extra_fixed=model.unused_dofs)
    loads = resolve_loads(model, phase.gravity, phase.forces, phase.inertial)
    mask = np.ones(model.n_dofs, dtype=bool)
    mask[constraints.dofs] = False
    force_terms = [t for t in terms if not _is_multiplier_term(t)]
    multipliers = [t for t in terms if _is_multiplier_term(t)]
    free = np.flatnonzero(mask)
    massive = np.setdiff1d(free, model.massless_dofs, assume_unique=True) if model.massless_dofs.size else free
    return _PhaseContext(model, phase, constraints, loads, free, force_terms, multipliers, massive,
                         system=NewtonSystem(model, free))


def _multiplier_forces(ctx: _PhaseContext, trials, u, v, update: bool):
    """Statuses (optionally revised), linearisations, the resisting force -G^T lam (n_dofs,) and
    each term's part of it (list)."""
    lins, changed, each = [], [], []
    for term, trial in zip(ctx.multipliers, trials):
        changed.append(term.update(trial, u, v) if update else np.zeros(0, dtype=int))
        lin = term.linearize(trial, u, v)
        each.append(-lin.force_rows.transpose_times(trial.lam))
        lins.append(lin)
    return lins, changed, sum(each, np.zeros(ctx.model.n_dofs)), each


def _evaluate(ctx: _PhaseContext, u, v, t, tangent=True):
    """Internal, damping and term forces at a trial state: (forces, f_terms, term_tangents, each).
    forces is the model's fem.model.ForceEvaluation (its derivatives on demand), term_tangents the
    force terms' (d_du, d_dv) (sparse or None), each the force terms' forces (list)."""
    forces = ctx.model.evaluate(u, v)
    f_terms = np.zeros(ctx.model.n_dofs)
    each, tangents = [], []
    for term in ctx.terms:
        tf = term.evaluate(u, v, t, tangent)
        f_terms = f_terms + tf.force
        each.append(tf.force)
        tangents.append((tf.d_du, tf.d_dv) if tangent else (None, None))
    return forces, f_terms, tangents, each


def _stiffness(ctx: _PhaseContext, forces, tangents) -> sp.csr_matrix:
    """d(f_int + f_damp + f_terms)/du (n_dofs, n_dofs), CSR, of an evaluation (off the hot path)."""
    K = ctx.model.pattern.matrix(forces.tangent_data()[0])
    for d_du, _ in tangents:
        if d_du is not None:
            K = K + d_du
    return K


def term_books(ctx: _PhaseContext, term_forces0, term_forces1, du: np.ndarray) -> StepWork:
    """Energy the force and multiplier terms took over a committed step [J], each from its own law
    (the term's ``step_work()``, see fem.energy); a term without one is booked by the trapezoidal
    work of its force, <f>.[u], under ``other``."""
    contact = friction = other = 0.0
    terms = [*ctx.terms, *ctx.multipliers]
    if term_forces0 is None or len(term_forces0) != len(terms):
        term_forces0 = term_forces1
    for term, f0, f1 in zip(terms, term_forces0, term_forces1):
        own = getattr(term, "step_work", None)
        if own is None:
            other += trapezoid(f0, f1, du)
            continue
        w = own()
        contact, friction, other = contact + w.contact, friction + w.friction, other + w.other
    return StepWork(contact, friction, other)


def _residual_scale(*vectors: np.ndarray) -> float:
    return max(float(np.max(np.abs(v))) if v.size else 0.0 for v in vectors)


def _residuals(R: np.ndarray, free: np.ndarray, lins, iteration: int):
    """Free part of the momentum residual, the multiplier equations, and their largest values;
    _NewtonFailure on a non-finite residual."""
    R_free = R[free]
    c = np.concatenate([lin.residual for lin in lins]) if lins else np.zeros(0)
    res = float(np.max(np.abs(R_free))) if R_free.size else 0.0
    res_c = float(np.max(np.abs(c))) if c.size else 0.0
    if not np.isfinite(res + res_c):
        raise _NewtonFailure(res, int(free[0]) if free.size else 0, iteration)
    return R_free, c, res, res_c


#: the residual of a Newton iterate cannot be computed more precisely than the rounding of the
#: products J_ij u_j it sums (a QUA4 row has 18 of them): max_i sum_j |J_ij| |u_j| times this
ROUND_OFF = 16 * np.finfo(float).eps


def round_off_floor(J: sp.csr_matrix, u: np.ndarray) -> float:
    """Smallest residual [N] a Newton iterate at u can show with the Newton matrix J (n, n):
    ROUND_OFF max_i sum_j |J_ij| |u_j|. It matters on very short steps, where J ~ M / (beta dt^2)
    turns the rounding of u (1e-16 |u|) into forces above a relative tolerance of the loads."""
    if not J.nnz:
        return 0.0
    rows = np.add.reduceat(np.abs(J.data) * np.abs(u[J.indices]), J.indptr[:-1])
    rows[np.diff(J.indptr) == 0] = 0.0
    return ROUND_OFF * float(rows.max())


def newton_converged(ctx: "_PhaseContext", worst: float, scale: float, settled: bool, iteration: int,
                     momentum_rate: float = 0.0, floor: float = 0.0) -> bool:
    """Code_Aster-like stopping test on the largest residual ``worst`` [N].

    RESI_GLOB_RELA compares with the scale of the forces in play; when they all but vanish (free
    flight: only inertia, zero to round-off) the largest scale met earlier in the phase is used
    instead, as Code_Aster falls back to a reference when the load is zero, or, if the phase never
    met a force, ``momentum_rate`` = ||M v||_inf / dt (the force that would undo the motion in
    one step). RESI_GLOB_MAXI is
    absolute. Both must hold when both are given, unless the residual is down to ``floor``, the
    round-off level of its own evaluation (:func:`round_off_floor`; the Newmark/HHT step passes it
    once an iteration no longer halves the residual); statuses must have settled;
    at least one correction is made unless the residual is zero to round-off.
    """
    settings = ctx.phase.newton
    ctx.force_scale = max(ctx.force_scale, scale)
    reference = scale if scale > 1e-8 * ctx.force_scale else ctx.force_scale
    if reference <= 1e-8 * momentum_rate:
        reference = momentum_rate
    ok_rela = settings.rela is None or worst <= settings.rela * reference
    ok_maxi = settings.maxi is None or worst <= settings.maxi
    if iteration > 0 and worst <= floor:
        ok_rela = ok_maxi = True
    return ok_rela and ok_maxi and settled and (iteration > 0 or worst <= 1e-15 * max(reference, 1.0))


def start_phase(model: Model, phase: Phase, state: State, terms: Sequence[ForceTerm] = ()):
    """Resolve a phase and complete ``state`` for it (forces at t_start; acceleration from
    equilibrium M a = f_ext - f_int - f_damp - f_terms on free dofs if unknown)."""
    ctx = _make_context(model, phase, terms)
    ctx.restarted = state.f_int is None
    t0 = state.t
    if isinstance(phase.scheme, Static):
        state = replace(state, v=np.zeros(model.n_dofs), a=np.zeros(model.n_dofs))
    u = state.u.copy()  # imposed values apply from the first step on, as in Code_Aster restarts
    for term in terms:
        term.set_phase(phase, u)
    trials = [term.begin_step(u) for term in ctx.multipliers]
    f_ext = ctx.loads.at(t0)
    if model.massless_dofs.size and state.f_int is None and not isinstance(phase.scheme, Static):
        u = _quasi_static_start(ctx, u, state.v, t0, trials, f_ext)
    forces, f_terms, _, each = _evaluate(ctx, u, state.v, t0, tangent=False)
    _, _, f_mult, each_mult = _multiplier_forces(ctx, trials, u, state.v, update=False)
    f_terms = f_terms + f_mult
    a = state.a
    if a is None:
        a = np.zeros(model.n_dofs)
        massive = ctx.massive  # fem.mass: the quasi-static dofs are left out
        rhs = (f_ext - forces.internal - forces.damping - f_terms)[massive]
        M_ff = model.mass[massive][:, massive]
        a[massive] = _solve(M_ff.tocsc(), rhs, massive,
                            f"phase {phase.name!r} at t = {t0:.9g} s (initial acceleration)")
    g = forces.internal + forces.damping + f_terms - f_ext
    cdofs = ctx.constraints.dofs
    reactions = np.zeros(model.n_dofs)
    reactions[cdofs] = (model.mass @ a + g)[cdofs]
    energies = state.energies
    if state.f_int is None:  # bookkeeping starts here
        energies = replace(energies, initial=model.kinetic_energy(state.v) + model.strain_energy(u))
    # the force the scheme equates with M a0: the previous phase's, when it hands over its acceleration
    F0 = reactions - g
    f_scheme = F0.copy()
    if state.a is not None and state.f_scheme is not None:
        f_scheme[ctx.free] = state.f_scheme[ctx.free]
    new = replace(state, u=u, a=a, f_int=forces.internal, f_damp=forces.damping, f_terms=f_terms,
                  f_ext=f_ext, reactions=reactions, energies=energies, f_mult=f_mult, f_scheme=f_scheme,
                  term_forces=tuple(each + each_mult))
    return ctx, new


def _quasi_static_start(ctx: "_PhaseContext", u: np.ndarray, v: np.ndarray, t: float, trials,
                        f_ext: np.ndarray) -> np.ndarray:
    """Initial data of the massless (quasi-static) dofs (fem.mass): their displacement in static
    equilibrium with the massive dofs, f_int + f_damp + f_terms = f_ext on the free massless dofs, the
    multiplier forces held at their committed values; a state already in equilibrium is returned
    unchanged. Newton on those dofs alone (K_ss is regular: each massless node is held by its
    elements)."""
    dofs = np.intersect1d(ctx.free, ctx.model.massless_dofs, assume_unique=True)
    if not dofs.size:
        return u
    _, _, f_mult, _ = _multiplier_forces(ctx, trials, u, v, update=False)
    u = u.copy()
    for _ in range(ctx.phase.newton.max_iterations):
        forces, f_terms, tangents, _ = _evaluate(ctx, u, v, t, tangent=True)
        R = (forces.internal + forces.damping + f_terms + f_mult - f_ext)
        scale = _residual_scale(forces.internal, f_ext, f_terms + f_mult)
        if float(np.max(np.abs(R[dofs]))) <= 1e-12 * max(scale, 1e-300):
            break
        K = _stiffness(ctx, forces, tangents)
        u[dofs] -= _solve(K[dofs][:, dofs].tocsc(), R[dofs], dofs,
                          f"phase {ctx.phase.name!r} at t = {t:.9g} s (massless dofs' initial equilibrium)")
    return u


def solve_increment(system: NewtonSystem, J: np.ndarray, R_free: np.ndarray, lins, trials, c: np.ndarray,
                    force_weight, where: str = "Newton correction") -> np.ndarray:
    """Newton correction of the free unknowns, and of the multipliers (added to ``trial.lam``).

    Solves [[J_ff, -w G_f^T], [B_f, A]] [dx; dlam] = -[R_free; c] (fem.newton_system) with J the
    iteration matrix's data on the system's pattern, G the multiplier force rows, B and A the
    derivatives of the multiplier equations, w the weight of the multiplier forces in the residual
    (a number, or (n_dofs,) per dof). An equation acting (up to round-off) only on imposed dofs,
    e.g. sticking at a node whose dof is also imposed, is redundant with the support: its
    multiplier is set to zero.
    """
    pattern, data, columns, B, A_rows = system.assemble(J, lins, force_weight)
    if lins:
        absB = np.abs(B)
        redundant = np.flatnonzero(((absB * pattern.on_free).sum(axis=1) <= 1e-8 * absB.sum(axis=1))
                                   & (A_rows == 0))
        if redundant.size:
            lam_all = np.concatenate([trial.lam for trial in trials])
            data[pattern.a_diagonal[redundant]] += 1.0
            c = c.copy()
            c[redundant] = lam_all[redundant]
    b = -np.concatenate([R_free, c])
    sol = system.solve(pattern, data, b)
    if sol is None:  # a zero pivot or a non-finite solution: SuperLU's answer, and the diagnosis
        free, n = system.matrix.free, system.matrix.n
        links = None
        if lins:
            links = sp.csr_matrix((B.ravel(), (np.repeat(np.arange(B.shape[0]), B.shape[1]), columns.ravel())),
                                  shape=(B.shape[0], n))
        sol = _solve(pattern.sparse(data), b, free, where, system.matrix.matrix(J), links)
    if lins:
        n_lam = np.cumsum([trial.lam.size for trial in trials])[:-1]
        for trial, part in zip(trials, np.split(sol[R_free.size:], n_lam)):
            trial.lam = trial.lam + part
    return sol[:R_free.size]


def _newton_step(ctx: _PhaseContext, state: State, t1: float, hold=None, probe: bool = False,
                 locate: bool = True, kept_open=None, land: bool = True):
    """One time step from ``state`` to ``t1``; raises _NewtonFailure. Returns (state, iterations).

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
        quasi_static = model.massless_dofs  # fem.mass: no Newmark recursion, v = [u] / dt, a = 0

        def kinematics(u):
            a = ca * (u - u0 - dt * v0) - (0.5 / beta - 1.0) * a0
            v = v0 + dt * ((1.0 - gamma) * a0 + gamma * a)
            if quasi_static.size:
                a[quasi_static] = 0.0
                v[quasi_static] = (u[quasi_static] - u0[quasi_static]) / dt
            return a, v

        u = u0 + dt * v0 + 0.5 * dt * dt * a0  # predictor: constant acceleration
    g0 = state.f_int + state.f_damp + state.f_terms - state.f_ext
    cdofs, free = ctx.constraints.dofs, ctx.free
    M = model.mass
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
    Mv0 = M @ v0
    momentum_rate = _residual_scale(Mv0) / dt if not static else 0.0  # free-flight scale, per step
    ctx.energy_scale = max(ctx.energy_scale, 0.5 * float(v0 @ Mv0))
    it, previous, J, u_J = 0, np.inf, None, None
    while True:
        a, v = kinematics(u)
        forces, f_terms, tangents, each = _evaluate(ctx, u, v, t1, tangent=True)
        lins, changed, f_mult, each_mult = _multiplier_forces(ctx, trials, u, v, update=True)
        f_terms = f_terms + f_mult
        g = forces.internal + forces.damping + f_terms - f_ext
        Ma = M @ a
        R = Ma + w1 * g - w0 * g0
        R_free, c, res, res_c = _residuals(R, free, lins, it)
        reactions_c = (Ma + g)[cdofs]
        scale = _residual_scale(f_ext, reactions_c, forces.internal, forces.damping, f_terms, Ma)
        worst = max(res, res_c)
        # the round-off floor counts only once Newton stops gaining (computed then only: off the hot path)
        stalled = J is not None and worst > 0.5 * previous
        if newton_converged(ctx, worst, scale, not any(ch.size for ch in changed), it, momentum_rate,
                            round_off_floor(ctx.system.matrix.matrix(J), u_J) if stalled else 0.0):
            break
        previous = worst
        oscillating = _oscillating_nodes(ctx, trials)
        if it >= settings.max_iterations or oscillating:
            detail = f"contact statuses oscillated at nodes {oscillating}" if oscillating else ""
            raise _NewtonFailure(res, int(free[np.argmax(np.abs(R_free))]) if free.size else 0, it, detail)
        J = ctx.system.matrix.data(forces, tangents, ca, w1, 1.0, c_v)
        u_J = u
        du = solve_increment(ctx.system, J, R_free, lins, trials, c, w1,
                             f"phase {ctx.phase.name!r}, step ending at t = {t1:.9g} s")
        u = u.copy()
        u[free] += du
        it += 1

    if probe:
        return trials, it, u
    if locate:
        landed = [term.landed(trial) if land and getattr(term, "closing", "immediate") == "located" else None
                  for term, trial in zip(ctx.multipliers, trials)]
        if _any_node(landed):
            raise _LandingEvent(landed, it)
        opened = [term.opened_under_load(trial) if getattr(term, "release", "immediate") == "located" else None
                  for term, trial in zip(ctx.multipliers, trials)]
        if _any_node(opened):
            raise _ReleaseEvent(opened, it)
    du_step = u - u0
    if not static and ctx.friction_guard:
        created = -sum(term.trial_work(trial, u).friction for term, trial in zip(ctx.multipliers, trials)
                       if hasattr(term, "trial_work") and getattr(term, "release", None) == "located")
        # round-off floor: the work the step's largest force would do over its largest increment or
        # displacement (a block at rest on a moving table has no kinetic energy to compare with, and
        # the slips, differences of displacements, carry round-off relative to the displacements)
        reach = max(np.max(np.abs(du_step), initial=0.0), np.max(np.abs(u), initial=0.0))
        floor = ROUND_OFF_WORK * float(np.max(np.abs(f_ext), initial=0.0) * reach)
        if created > max(FRICTION_CREATION * ctx.energy_scale, floor):
            raise _FrictionCreation(created, 0, it, f"friction would give back {created:.3e} J")
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
        except _NewtonFailure:
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


def step_with_release(ctx: _PhaseContext, state: State, t1: float, land: bool = True) -> tuple[State, int, int]:
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
    (fem.mass), whose reactions follow the other nodes at once: when a corner lands, the opposite
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
        if not _any_node(early):
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
            if not _any_node(early):
                early = hold
        hold = [None if m is None else m & ~e for m, e in zip(hold, early)]
        if not _any_node(hold):  # all separate at the step start: the immediate rule
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
    new, it, n = _step_with_subdivision(ctx, middle, t1)
    return new, spent + it, 1 + n


#: a located landing accepts a landing instant where the landed nodes' gap lies in
#: [0, LANDING_TOLERANCE * g_n] (the node closes in the next step from at most 1 % of its gap)
LANDING_TOLERANCE = 1e-2
LANDING_PROBES = 8
#: a landing within this fraction of the step from either end is not located (its closing work is
#: at most this fraction of the immediate rule's), so no step is cut to a sliver
LANDING_MIN_STEP = 1e-3


def _step_after_landing(ctx: _PhaseContext, state: State, t1: float) -> tuple[State, int, int]:
    """:func:`step_with_release` with its nodes closing at the step's end (the rest of a step cut at
    a landing: locating the landing again would cut it without end)."""
    return step_with_release(ctx, state, t1, land=False)


def _step_to_landing(ctx: _PhaseContext, state: State, t1: float, landed, spent: int) -> tuple[State, int, int]:
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

    if not _any_node(landed):
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
    except _NewtonFailure:  # kept open, the nodes leave the body unsupported: close them at the end
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
    new, it, n = _step_with_subdivision(ctx, middle, t1, step=_step_after_landing)
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


def _step_with_subdivision(ctx: _PhaseContext, state: State, t1: float, level: int = 0, step=None):
    """Advance to t1 with ``step(ctx, state, t1) -> (state, iterations, substeps)`` (default: the
    Newmark/HHT Newton step with its contact releases located, :func:`step_with_release`), cutting
    the step on Newton failure, or on friction giving energy back (accepted at the deepest level).
    Returns (state, iterations, substeps)."""
    step = step_with_release if step is None else step
    try:
        return step(ctx, state, t1)
    except _NewtonFailure as failure:
        sub = ctx.phase.subdivision
        if isinstance(failure, _FrictionCreation) and level >= sub.max_level:
            logger.info("phase %s: step ending at t=%.9g (dt=%.3g) kept at the deepest subdivision: %s",
                        ctx.phase.name, t1, t1 - state.t, failure.detail)
            ctx.friction_guard = False
            try:
                return step(ctx, state, t1)
            finally:
                ctx.friction_guard = True
        if level >= sub.max_level:
            node, comp = divmod(failure.dof, 2)
            xy = ctx.model.mesh.points[node]
            raise ConvergenceError(ctx.phase.name, t1, t1 - state.t, failure.residual, int(node), "xy"[comp],
                                   (float(xy[0]), float(xy[1])), failure.iterations, failure.detail) from None
        logger.info("phase %s: Newton failed at t=%.9g (residual %.3e%s), cutting dt=%.3g by %d",
                    ctx.phase.name, t1, failure.residual, f"; {failure.detail}" if failure.detail else "",
                    t1 - state.t, sub.factor)
        total_it, total_sub = 0, 0
        times = np.linspace(state.t, t1, sub.factor + 1)[1:]
        for t in times:
            state, it, n = _step_with_subdivision(ctx, state, float(t), level + 1, step)
            total_it += it
            total_sub += n
        return state, total_it, total_sub


def integrate(model: Model, phase: Phase, state: State, terms: Sequence[ForceTerm] = ()) -> Iterator[StepResult]:
    """Integrate one phase from ``state`` (its time is the phase start). Yields one
    :class:`StepResult` per step; the first one is the (completed) initial state, with 0 iterations.
    A phase whose scheme is :class:`fem.schemes.Theta` runs the Moreau-Jean method (fem.theta)."""
    if not math.isclose(state.t, phase.t_start, rel_tol=0, abs_tol=1e-9 * max(1.0, abs(phase.t_start))):
        raise ValueError(f"phase {phase.name!r} starts at t = {phase.t_start} s but the state given is at "
                         f"t = {state.t} s (restart from the state at the phase start, or use State.released(t))")
    state = replace(state, t=phase.t_start)
    if isinstance(phase.scheme, Theta):
        from .theta import integrate_theta

        yield from integrate_theta(model, phase, state, terms)
        return
    ctx, state = start_phase(model, phase, state, terms)
    yield StepResult(phase.name, state, 0, 0, True)
    times = phase.times()
    for k, t1 in enumerate(times):
        state, it, n = _step_with_subdivision(ctx, state, float(t1))
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
    """Energy terms of a state [J] (fem.energy).

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
