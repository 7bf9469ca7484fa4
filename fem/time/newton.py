"""The core every implicit step shares (Newmark/HHT in fem.time.dynamics, Moreau-Jean theta in
fem.time.theta): a phase resolved once (:class:`PhaseContext`, :func:`start_phase`), the forces of a
trial state (:func:`evaluate_forces`, :func:`multiplier_forces`), the residuals and Code_Aster's
stopping test (:func:`residuals`, :func:`newton_converged`), the Newton correction with the
multipliers (:func:`solve_increment`, on fem.time.newton_system) and the step subdivision on failure
(:func:`step_with_subdivision`).

Newton convergence follows Code_Aster: RESI_GLOB_RELA, ||R_free||_inf <= rela * ||L||_inf, where
L gathers the external forces, the support reactions, the internal, damping, term and inertia forces
(the forces in play, so that a free motion has a scale too); RESI_GLOB_MAXI,
||R_free||_inf <= maxi [N]. When both are given both must hold.
"""
from __future__ import annotations

import logging
import warnings
import weakref
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from fem import compiled
from fem.stage.energy import StepWork, trapezoid
from fem.loads.applied import ResolvedConstraints, ResolvedLoads, resolve_constraints, resolve_loads
from fem.time.memory import keep_freed_memory
from fem.model.assembly import Model
from fem.time.newton_system import REDUNDANT, NewtonSystem, redundant_equations  # noqa: F401 (re-exported)
from fem.stage.phase import (ConvergenceError, ForceTerm, MultiplierTerm, Phase, SingularSystemError, State,
                    is_multiplier_term)
from fem.stage.schemes import Static
from fem.model.sparsity import SparseRows

logger = logging.getLogger(__name__)


class NewtonFailure(Exception):
    def __init__(self, residual: float, dof: int, iterations: int, detail: str = "") -> None:
        super().__init__()
        self.residual, self.dof, self.iterations, self.detail = residual, dof, iterations, detail


class FrictionCreation(NewtonFailure):
    """A converged step whose friction would give energy back (release rule "located" only): cut
    by subdivision like a Newton failure, accepted at the deepest level (see fem.time.dynamics.FRICTION_CREATION)."""


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


def any_node(masks) -> bool:
    """Whether any per-term node mask (n_s,) bool, or None for a term without one, selects a node."""
    return any(m is not None and m.any() for m in masks)


def oscillating_nodes(ctx: "PhaseContext", trials) -> list[int]:
    """Mesh nodes whose contact status changed MAX_STATUS_CHANGES times in the current step."""
    nodes: list[int] = []
    for term, trial in zip(ctx.multipliers, trials):
        nodes.extend(int(n) for n in term.nodes[trial.changes >= MAX_STATUS_CHANGES])
    return nodes


#: a Newton iterate repeats an earlier one of its step when it lies within this fraction of its
#: correction's size (max norms) of one of the CYCLE_MEMORY iterates before it (the wall's cycles have
#: periods 2 to 8)
CYCLE_TOLERANCE = 1e-6
CYCLE_MEMORY = 8
#: a step's corrections that may be relaxed, each to RELAXATION of itself, before a repeat fails it.
#: The 205-brick wall's first 4 s of record (python benchmarks/wall_scaling.py --sizes 10x20 --t-end 4,
#: then with --cycle-memory 4 --cycle-relaxations 3): 6.89 Newton solves and 105 ms a step with one
#: relaxation and 8 iterates remembered, 8.01 and 119 ms with three and 4; without the guard the cycles
#: run to the iteration limit (40)
CYCLE_RELAXATIONS = 1
RELAXATION = 0.5


class CycleGuard:
    """Newton iterates that repeat, in a step without multiplier terms.

    Newton's method on a piecewise smooth residual (a penalty law's stick-slip return, a gap's kink)
    can fall into a cycle: the wall of examples/masonry_wall.py has steps whose corrections alternate,
    du_k = -du_(k-1) to 1e-9 of their size, the largest residual 28.7, 25.4, 28.7, 25.4 N ... to the
    iteration limit, after which the step is cut, and others that cycle through 8 iterates. An iterate
    x_k + dx that lies within CYCLE_TOLERANCE of |dx| of one of the last CYCLE_MEMORY iterates is a
    repeat: the correction is relaxed to RELAXATION dx (the point between the two kinks' sides, from
    which the iteration starts anew), at most CYCLE_RELAXATIONS times a step; a further repeat fails
    the step at once (the caller's NewtonFailure: the step is cut) instead of at the iteration limit.
    Iterations that never repeat are untouched, bit for bit."""

    def __init__(self) -> None:
        self.recent: list[np.ndarray] = []
        self.relaxed = 0

    def correction(self, x: np.ndarray, dx: np.ndarray) -> np.ndarray | None:
        """The correction to take from the iterate ``x`` (n,) given Newton's ``dx`` (n,): dx, or
        RELAXATION dx at a repeat, or None when the step has repeated once too often."""
        self.recent.append(x.copy())
        del self.recent[:-CYCLE_MEMORY]
        size = float(np.max(np.abs(dx), initial=0.0))
        if size == 0.0:
            return dx
        target = x + dx
        if not any(float(np.max(np.abs(target - old))) <= CYCLE_TOLERANCE * size for old in self.recent):
            return dx
        if self.relaxed >= CYCLE_RELAXATIONS:
            return None
        self.relaxed += 1
        self.recent.clear()
        return RELAXATION * dx


@dataclass
class PhaseContext:
    """Everything a phase resolves once: constraints, loads, free dofs, terms."""

    model: Model
    phase: Phase
    constraints: ResolvedConstraints
    loads: ResolvedLoads
    free: np.ndarray
    terms: Sequence[ForceTerm]
    multipliers: Sequence[MultiplierTerm]
    massive: np.ndarray  # the free dofs with mass (all free dofs unless the mass is redistributed, fem.model.mass)
    force_scale: float = 0.0  # largest residual scale met in the phase (fallback in free flight)
    friction_guard: bool = True  # steps whose friction gives energy back are cut (fem.time.dynamics.FRICTION_CREATION)
    energy_scale: float = 0.0  # largest kinetic energy met in the phase [J] (fem.time.dynamics.FRICTION_CREATION)
    restarted: bool = False  # the phase starts from a state without forces (State.released, at_rest)
    _step_loop: object = False  # (module, data) of the compiled iterations, None, or False before the first step

    @property
    def step_loop(self):
        """(module, its data) of the compiled Newton iterations of the phase's steps, or None when they run
        the Python loop of fem.time.dynamics; made at the first step. The module comes from the multiplier
        terms (``compiled_iterations()``, the same for every term: contact.newton_loop for the contact
        laws the project ships); its ``step_data(ctx)`` says whether it runs the phase."""
        if self._step_loop is False:
            self._step_loop = None
            loops = {getattr(term, "compiled_iterations", lambda: None)() for term in self.multipliers}
            if len(loops) == 1 and None not in loops:
                loop = loops.pop()
                data = loop.step_data(self)
                if data is not None:
                    self._step_loop = (loop, data)
        return self._step_loop

    @property
    def system(self) -> NewtonSystem:
        """The Newton system of the phase's model and free dofs (patterns, gathers, solves), built at
        its first use and shared by every phase with the same model, mass and free dofs: a run of
        windows (SDNV105 A: 125 phases) builds it once, not once a phase (0.2 s on a 64 x 128 block)."""
        return newton_system(self.model, self.free)


#: Newton systems per model, then per set of free dofs (fem.time.newton_system); dropped with the model
_SYSTEMS: "weakref.WeakKeyDictionary[Model, dict]" = weakref.WeakKeyDictionary()


def newton_system(model: Model, free: np.ndarray) -> NewtonSystem:
    """The :class:`fem.time.newton_system.NewtonSystem` of ``model`` on the dofs ``free``, kept for later
    phases; built again when the model's mass or mass-proportional damping matrix was replaced."""
    systems = _SYSTEMS.setdefault(model, {})
    key = free.tobytes()
    system = systems.get(key)
    if system is None or not system.matrix.built_for(model):
        system = systems[key] = NewtonSystem(model, free)
    return system


def make_context(model: Model, phase: Phase, terms: Sequence) -> PhaseContext:
    constraints = resolve_constraints(model.mesh, phase.constraints, extra_fixed=model.unused_dofs)
    loads = resolve_loads(model, phase.gravity, phase.forces, phase.inertial)
    mask = np.ones(model.n_dofs, dtype=bool)
    mask[constraints.dofs] = False
    force_terms = [t for t in terms if not is_multiplier_term(t)]
    multipliers = [t for t in terms if is_multiplier_term(t)]
    free = np.flatnonzero(mask)
    massive = np.setdiff1d(free, model.massless_dofs, assume_unique=True) if model.massless_dofs.size else free
    return PhaseContext(model, phase, constraints, loads, free, force_terms, multipliers, massive)


def multiplier_forces(ctx: PhaseContext, trials, u, v, update: bool):
    """Statuses (optionally revised), linearisations, the resisting force -G^T lam (n_dofs,) and
    each term's part of it (list)."""
    lins, changed, each = [], [], []
    for term, trial in zip(ctx.multipliers, trials):
        lin, moved, force = term.iterate(trial, u, v, update)
        changed.append(moved)
        each.append(force)
        lins.append(lin)
    return lins, changed, sum(each, np.zeros(ctx.model.n_dofs)), each


def evaluate_forces(ctx: PhaseContext, u, v, t, tangent=True):
    """Internal, damping and term forces at a trial state: (forces, f_terms, term_tangents, each).
    forces is the model's fem.model.assembly.ForceEvaluation (its derivatives on demand), term_tangents the
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


def stiffness_matrix(ctx: PhaseContext, forces, tangents) -> sp.csr_matrix:
    """d(f_int + f_damp + f_terms)/du (n_dofs, n_dofs), CSR, of an evaluation (off the hot path)."""
    K = ctx.model.pattern.matrix(forces.tangent_data()[0])
    for d_du, _ in tangents:
        if d_du is not None:
            K = K + d_du
    return K


def term_books(ctx: PhaseContext, term_forces0, term_forces1, du: np.ndarray) -> StepWork:
    """Energy the force and multiplier terms took over a committed step [J], each from its own law
    (the term's ``step_work()``, see fem.stage.energy); a term without one is booked by the trapezoidal
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


def residual_scale(*vectors: np.ndarray) -> float:
    """Largest |entry| of the vectors (0 when all are empty)."""
    return max((largest_abs(v) for v in vectors if v.size), default=0.0)


@compiled.loop(cache=True, error_model="numpy")
def largest_abs(v) -> float:
    """max |v_i| of a non-empty vector, NaN if one is NaN (numpy's max of np.abs(v))."""
    out = abs(v[0])
    for i in range(1, v.size):
        x = abs(v[i])
        if x > out or x != x:
            out = x
            if x != x:
                break
    return out


@compiled.loop(cache=True, error_model="numpy")
def momentum_norms(R, free, c, Ma, g, cdofs, f_ext, internal, damping, f_terms, R_free, reactions_c, norms):
    """The Newmark/HHT iterate's residuals and their scale in one pass (fem.time.dynamics): fills
    R_free = R[free] (n_f,), reactions_c = (M a + g)[cdofs] and norms (3,) = (||R_free||_inf,
    ||c||_inf (0 when empty), the scale of :func:`residual_scale` over f_ext, reactions_c, the internal,
    damping and term forces and M a): the values of :func:`residuals` and :func:`residual_scale`, NaN
    included (the largest of the scales taken as Python's max takes it)."""
    for i in range(free.size):
        R_free[i] = R[free[i]]
    for i in range(cdofs.size):
        reactions_c[i] = Ma[cdofs[i]] + g[cdofs[i]]
    norms[0] = largest_abs(R_free) if R_free.size else 0.0
    norms[1] = largest_abs(c) if c.size else 0.0
    scale, first = 0.0, True
    for v in (f_ext, reactions_c, internal, damping, f_terms, Ma):
        if v.size:
            x = largest_abs(v)
            if first or x > scale:
                scale, first = x, False
    norms[2] = scale


@compiled.warm_up
def _load_compiled_loops() -> None:
    """Call each loop once in the types of a run, when a run starts (fem.compiled.load): numba loads
    them from its cache before the run reports "running", not at its first step."""
    largest_abs(np.ones(2))
    x, at = np.ones(2), np.arange(2, dtype=np.int64)
    momentum_norms(x, at, x, x, x, at, x, x, x, x, np.empty(2), np.empty(2), np.empty(3))
    momentum_norms(x, at, np.zeros(0), x, x, at, x, x, x, x, np.empty(2), np.empty(2), np.empty(3))
    csr_round_off_floor(x, at, np.array([0, 1, 2]), x)
    stopping_test(1.0, 1.0, np.zeros(1), True, 1, 0.0, 0.0, 1e-6, True, 0.0, False)


def residuals(R: np.ndarray, free: np.ndarray, lins, iteration: int):
    """Free part of the momentum residual, the multiplier equations, and their largest values;
    NewtonFailure on a non-finite residual."""
    R_free = R[free]
    c = np.concatenate([lin.residual for lin in lins]) if lins else np.zeros(0)
    res = largest_abs(R_free) if R_free.size else 0.0
    res_c = largest_abs(c) if c.size else 0.0
    if not np.isfinite(res + res_c):
        raise NewtonFailure(res, int(free[0]) if free.size else 0, iteration)
    return R_free, c, res, res_c


#: the residual of a Newton iterate cannot be computed more precisely than the rounding of the
#: products J_ij u_j it sums (a QUA4 row has 18 of them): max_i sum_j |J_ij| |u_j| times this
ROUND_OFF = 16 * np.finfo(float).eps


def round_off_floor(J: sp.csr_matrix, u: np.ndarray) -> float:
    """Smallest residual [N] a Newton iterate at u can show with the Newton matrix J (n, n):
    ROUND_OFF max_i sum_j |J_ij| |u_j|. It matters on very short steps, where J ~ M / (beta dt^2)
    turns the rounding of u (1e-16 |u|) into forces above a relative tolerance of the loads."""
    return csr_round_off_floor(J.data, J.indices, J.indptr, u)


@compiled.loop(cache=True, error_model="numpy")
def _pairwise_sum(x, start, n):
    """numpy's pairwise sum of x[start:start + n] (its add.reduce of a contiguous run: n < 8 in order,
    else eight running sums combined as ((0+1)+(2+3))+((4+5)+(6+7)) and the rest after; halves beyond 128)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += x[start + i]
        return res
    if n <= 128:
        r = np.empty(8)
        for j in range(8):
            r[j] = x[start + j]
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                r[j] += x[start + i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += x[start + i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum(x, start, n2) + _pairwise_sum(x, start + n2, n - n2)


@compiled.loop(cache=True, error_model="numpy")
def csr_round_off_floor(data, indices, indptr, u):
    """:func:`round_off_floor` of the CSR arrays of J (no matrix object made: the Newton loops' call):
    ROUND_OFF max_i sum_j |J_ij| |u_j|, each row summed as numpy's ``add.reduceat`` sums it (its first
    entry plus the pairwise sum of the others: the same bits), an empty row 0, NaN when a row is."""
    if data.size == 0:
        return 0.0
    x = np.empty(data.size)
    for p in range(data.size):
        x[p] = abs(data[p]) * abs(u[indices[p]])
    largest = 0.0
    for i in range(indptr.size - 1):
        s, e = indptr[i], indptr[i + 1]
        value = 0.0 if e == s else x[s] + _pairwise_sum(x, s + 1, e - s - 1)
        if i == 0 or value > largest or value != value:
            largest = value
            if value != value:
                break
    return ROUND_OFF * largest


@compiled.loop(cache=True, error_model="numpy")
def stopping_test(worst, scale, force_scale, settled, iteration, momentum_rate, floor, rela, use_rela, maxi,
                  use_maxi):
    """The test of :func:`newton_converged` on numbers, for the Python loops and the compiled one
    (contact.newton_loop): ``force_scale`` (1,) the phase's largest scale, raised to ``scale``; rela,
    maxi used when use_rela, use_maxi. Returns whether the iterate has converged."""
    if scale > force_scale[0]:  # Python's max(force_scale, scale)
        force_scale[0] = scale
    reference = scale if scale > 1e-8 * force_scale[0] else force_scale[0]
    if reference <= 1e-8 * momentum_rate:
        reference = momentum_rate
    ok_rela = (not use_rela) or worst <= rela * reference
    ok_maxi = (not use_maxi) or worst <= maxi
    if iteration > 0 and worst <= floor:
        ok_rela = ok_maxi = True
    one = 1.0 if 1.0 > reference else reference  # Python's max(reference, 1.0)
    return ok_rela and ok_maxi and settled and (iteration > 0 or worst <= 1e-15 * one)


def newton_converged(ctx: "PhaseContext", worst: float, scale: float, settled: bool, iteration: int,
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
    force_scale = np.array([ctx.force_scale])
    converged = stopping_test(worst, scale, force_scale, settled, iteration, momentum_rate, floor,
                              0.0 if settings.rela is None else settings.rela, settings.rela is not None,
                              0.0 if settings.maxi is None else settings.maxi, settings.maxi is not None)
    ctx.force_scale = float(force_scale[0])
    return bool(converged)


def start_phase(model: Model, phase: Phase, state: State, terms: Sequence[ForceTerm] = ()):
    """Resolve a phase and complete ``state`` for it (forces at t_start; acceleration from
    equilibrium M a = f_ext - f_int - f_damp - f_terms on free dofs if unknown)."""
    keep_freed_memory()  # fem.time.memory: no page faults on the steps' temporaries
    ctx = make_context(model, phase, terms)
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
    forces, f_terms, _, each = evaluate_forces(ctx, u, state.v, t0, tangent=False)
    _, _, f_mult, each_mult = multiplier_forces(ctx, trials, u, state.v, update=False)
    f_terms = f_terms + f_mult
    a = state.a
    if a is None:
        a = np.zeros(model.n_dofs)
        massive = ctx.massive  # fem.model.mass: the quasi-static dofs are left out
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


def _quasi_static_start(ctx: "PhaseContext", u: np.ndarray, v: np.ndarray, t: float, trials,
                        f_ext: np.ndarray) -> np.ndarray:
    """Initial data of the massless (quasi-static) dofs (fem.model.mass): their displacement in static
    equilibrium with the massive dofs, f_int + f_damp + f_terms = f_ext on the free massless dofs, the
    multiplier forces held at their committed values; a state already in equilibrium is returned
    unchanged. Newton on those dofs alone (K_ss is regular: each massless node is held by its
    elements)."""
    dofs = np.intersect1d(ctx.free, ctx.model.massless_dofs, assume_unique=True)
    if not dofs.size:
        return u
    _, _, f_mult, _ = multiplier_forces(ctx, trials, u, v, update=False)
    u = u.copy()
    for _ in range(ctx.phase.newton.max_iterations):
        forces, f_terms, tangents, _ = evaluate_forces(ctx, u, v, t, tangent=True)
        R = (forces.internal + forces.damping + f_terms + f_mult - f_ext)
        scale = residual_scale(forces.internal, f_ext, f_terms + f_mult)
        if float(np.max(np.abs(R[dofs]))) <= 1e-12 * max(scale, 1e-300):
            break
        K = stiffness_matrix(ctx, forces, tangents)
        u[dofs] -= _solve(K[dofs][:, dofs].tocsc(), R[dofs], dofs,
                          f"phase {ctx.phase.name!r} at t = {t:.9g} s (massless dofs' initial equilibrium)")
    return u


_NO_MULTIPLIERS = np.zeros(0)


def solve_increment(system: NewtonSystem, J: np.ndarray, R_free: np.ndarray, lins, trials, c: np.ndarray,
                    force_weight, where: str = "Newton correction") -> np.ndarray:
    """Newton correction of the free unknowns, and of the multipliers (added to ``trial.lam``).

    Solves [[J_ff, -w G_f^T], [B_f, A]] [dx; dlam] = -[R_free; c] (fem.time.newton_system) with J the
    iteration matrix's data on the system's pattern, G the multiplier force rows, B and A the
    derivatives of the multiplier equations, w the weight of the multiplier forces in the residual
    (a number, or (n_dofs,) per dof). An equation that adds nothing on the free dofs (up to
    round-off; :func:`redundant_equations`), e.g. sticking at a node whose tangential dofs are
    imposed, is redundant with the support: its multiplier is set to zero.
    """
    lam = (trials[0].lam if len(trials) == 1 else np.concatenate([trial.lam for trial in trials])) if trials \
        else _NO_MULTIPLIERS
    sol, pattern, data, b, columns, B = system.correction(J, lins, force_weight, R_free, c, lam)
    if sol is None:  # a zero pivot or a non-finite solution: SuperLU's answer, and the diagnosis
        free, n = system.matrix.free, system.matrix.n
        links = None
        if lins:
            links = SparseRows(columns, B, n).tocsr()
        sol = _solve(pattern.sparse(data), b, free, where, system.matrix.matrix(J), links)
    start = R_free.size
    for trial in trials:  # each term's multipliers, in the order of lins
        end = start + trial.lam.size
        trial.lam = trial.lam + sol[start:end]
        start = end
    return sol[:R_free.size]


def step_with_subdivision(ctx: PhaseContext, state: State, t1: float, step, level: int = 0):
    """Advance to t1 with ``step(ctx, state, t1) -> (state, iterations, substeps)`` (the Newmark/HHT
    step with its contact events located, fem.time.dynamics.step_with_release, or the theta step),
    cutting the step on Newton failure (Code_Aster SUBD_PAS / SUBD_NIVEAU), or on friction giving
    energy back (FrictionCreation, accepted at the deepest level). Returns (state, iterations,
    substeps)."""
    try:
        return step(ctx, state, t1)
    except NewtonFailure as failure:
        sub = ctx.phase.subdivision
        if isinstance(failure, FrictionCreation) and level >= sub.max_level:
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
            state, it, n = step_with_subdivision(ctx, state, float(t), step, level + 1)
            total_it += it
            total_sub += n
        return state, total_it, total_sub
