"""What a run is made of: the phase table's rows (:class:`Phase` with its Newton and subdivision
settings), the state a step goes from and to (:class:`State`, :class:`StepResult`), the protocols
of the extra force terms (:class:`ForceTerm`) and of the multiplier terms (:class:`MultiplierTerm`),
and the errors a run reports. Shared by the integrators (fem.time.dynamics, fem.time.theta, fem.time.explicit);
fem.time.dynamics re-exports every name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import scipy.sparse as sp

from fem.stage.energy import Energies
from fem.loads.applied import Gravity, ImposedDisplacement, InertialLoad, NodalForce
from fem.stage.schemes import HHT, Newmark, Static, Theta
from fem.model.sparsity import SparseRows


# ------------------------------------------------------------------------------------ settings
#: the first iterates a Newmark/HHT step may start from (NewtonSettings.predictor)
PREDICTORS = ("constant_acceleration", "constant_velocity", "none")


@dataclass(frozen=True)
class NewtonSettings:
    """Newton-Raphson stopping criteria (Code_Aster CONVERGENCE).

    Attributes
    ----------
    rela : RESI_GLOB_RELA, relative residual tolerance (None: not used).
    maxi : RESI_GLOB_MAXI [N], absolute residual tolerance (None: not used).
    max_iterations : ITER_GLOB_MAXI.
    predictor : the first iterate of a Newmark/HHT step (fem.time.dynamics), one of PREDICTORS:
        "constant_velocity" u0 + dt v0 on the dofs with mass, the massless (quasi-static) ones at u0
        (the default); "constant_acceleration" u0 + dt v0 + dt^2/2 a0 on every dof; "none" u0. The
        converged step does not depend on it beyond the tolerances; the Newton path, hence the
        iterations and the steps cut, does. Extrapolating the acceleration pays where the step
        resolves the motion (SDNV105 A, dt = 1e-5 s: 1.05 iterations a step, 1.08 from the
        extrapolated velocity) and costs where it does not: a stiff block (E = 6e11 Pa) stepped by
        1 ms keeps, in a0, the ringing of its elastic modes, which the step cannot follow, and
        dt^2/2 a0 sends the first iterate far off (its residual 2.6e11 N, the forces in play
        1.8e5 N at convergence); the pivot's stick/slip status then flips for several iterations
        (README, "Newton's first iterate").
    """

    rela: float | None = 1e-6
    maxi: float | None = None
    max_iterations: int = 20
    predictor: str = "constant_velocity"

    def __post_init__(self) -> None:
        if self.predictor not in PREDICTORS:
            raise ValueError(f"Newton predictor must be one of {', '.join(PREDICTORS)}, got {self.predictor!r}")
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
    inertial : d'Alembert loads of a moving support, the run written in its frame (fem.loads.applied.InertialLoad).
    constraints : imposed displacements (supports, imposed motions).
    friction : Coulomb coefficient for the contact terms during this phase (None: keep the law's).
    contact_events : "immediate" or "located": when the multiplier contacts close and open from this
        phase on (contact.multipliers); None: as they are.
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
    contact_events: str | None = None
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
        if self.contact_events not in (None, "immediate", "located"):
            raise ValueError(f"phase {self.name!r}: contact events 'immediate' or 'located', got {self.contact_events!r}")
        if self.archive_every < 1:
            raise ValueError(f"phase {self.name!r}: archive_every must be >= 1")

    def times(self) -> np.ndarray:
        """Step end times (n_steps,) [s]: :func:`uniform_times` of the phase's window and dt."""
        return uniform_times(self.t_start, self.t_end, self.dt)


def uniform_times(t_start: float, t_end: float, dt: float) -> np.ndarray:
    """Step end times (n,) [s] of uniform steps ``dt`` from t_start to t_end, the last one shortened
    to end at t_end. A remainder shorter than 1e-6 dt (the round-off of a start time reached by adding
    thousands of steps) lengthens the last step instead of making a step of 1e-14 s, whose Newton
    matrix (M / (beta dt^2)) is out of the arithmetic's range."""
    n = max(1, math.ceil((t_end - t_start) / dt - 1e-6))
    t = t_start + dt * np.arange(1, n + 1)
    t[-1] = t_end
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
    :class:`fem.model.sparsity.SparseRows` on the same columns (a contact row touches a slave node and its
    master segment); ``d_dlam`` is given by its diagonal blocks (n_m / b, b, b).
    """

    force_rows: SparseRows
    residual: np.ndarray
    d_du: SparseRows
    d_dlam: np.ndarray


class MultiplierTerm(Protocol):
    """Contact enforced with multipliers, unknowns of the Newton system beside the displacements.

    ``begin_step(u0)`` returns a trial object holding the multipliers ``lam`` and the statuses,
    started from the committed ones; at every Newton iteration ``iterate(trial, u, v, update)``
    revises the statuses when ``update`` and linearises the equations, returning
    (:class:`MultiplierLinearization`, the indices of the nodes whose status changed, the term's
    resisting force -force_rows^T lam (n_dofs,)); the integrator adds the multiplier correction to
    ``trial.lam``. ``commit(trial, u, v, t)`` keeps a converged step; ``set_phase(phase, u)`` as for
    ForceTerm. The project's contact terms do it in one compiled call (contact.multipliers); a term
    written in Python runs as Python, once per Newton iterate.

    Optional: ``compiled_iterations()`` returns a module that runs a whole Newmark/HHT step's Newton
    iterations in one compiled call for the phases its ``step_data(ctx)`` accepts (contact.newton_loop,
    the project's MultiplierContact); a phase whose terms offer none, or different ones, runs the
    Python loop of fem.time.dynamics, as a user's own term does.
    """

    def begin_step(self, u0: np.ndarray): ...

    def iterate(self, trial, u: np.ndarray, v: np.ndarray,
                update: bool) -> tuple[MultiplierLinearization, np.ndarray, np.ndarray]: ...

    def commit(self, trial, u: np.ndarray, v: np.ndarray, t: float) -> None: ...

    def set_phase(self, phase: Phase, u: np.ndarray) -> None: ...


def is_multiplier_term(term) -> bool:
    return hasattr(term, "iterate") and hasattr(term, "begin_step")


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
    f_scheme: np.ndarray | None = None  # the force the scheme equates with M a (fem.stage.energy), Newmark/HHT
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


class SingularSystemError(ValueError):
    """A linear solve met a zero pivot (SuperLU's MatrixRankWarning) or gave a non-finite solution
    from finite data: the problem is ill-posed. Not retried by step subdivision: the run stops."""
