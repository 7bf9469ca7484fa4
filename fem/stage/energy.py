"""Energy books of a time integration, each term computed on its own.

The books of a run from its start (cumulated, [J])::

    KE + SE + D_damp + W_contact + W_friction + W_terms + D_num - W_ext - W_reac - E_0 = balance error

* KE = 1/2 v.M v and SE (strain energy) from the state (:class:`fem.model.assembly.Model`);
* W_ext = sum <f_ext>.[u], W_reac = sum <r>.[u] (supports and imposed motions), trapezoidal;
* D_damp = sum <f_damp>.[u], from the Rayleigh damping force;
* W_contact, W_friction: energy taken by the contact laws, from the laws' own variables (normal
  reaction R_N >= 0 and gap g, tangential reaction R_T and tangential relative displacement s),
  W_contact = -sum <R_N> [g], W_friction = -sum <R_T> [s] (see the terms' ``step_work``);
* W_terms: other force terms (discrete springs, buckling elements) from their own laws;
* D_num: the time scheme's algorithmic dissipation, from the scheme's own energy identity
  (below), not from what the other terms leave.

Notation: [x] = x1 - x0, <x> = (x0 + x1)/2 over a step, F = f_ext + r - f_int - f_damp - f_terms
the sum of all forces but inertia (reactions r on the constrained dofs).

Newmark / HHT (Krenk, "Energy conservation in Newmark based time integration algorithms",
CMAME 195 (2006) 6110-6124; Hughes, "The Finite Element Method", 1987, §9.3). Newmark's
kinematics give, exactly, [u] = dt <v> + dt^2 (beta - gamma/2) [a] and [v] = dt <a> + dt (gamma - 1/2) [a], so::

    [KE] = [u].M<a> - dt^2 (beta - gamma/2) [a].M<a> + dt (gamma - 1/2) <v>.M[a]

The scheme equates the inertia with a force f_s: M a_{n+1} = f_s,{n+1}. For Newmark and HHT with
MODI_EQUI='NON', f_s = F (equilibrium at t_{n+1}); for HHT 'OUI', on the free dofs,
f_s,{n+1} = (1 + alpha) F_{n+1} - alpha F_n (and f_s = F on constrained dofs, where the reactions
are defined by the unweighted equation). Then [KE] = [u].<F> + [u].(<f_s> - <F>) - X and the
scheme's dissipation is::

    D_num = X - [u].(<f_s> - <F>),     X = dt^2 (beta - gamma/2) [a].M<a> - dt (gamma - 1/2) <v>.M[a]

(zero for the trapezoidal rule, beta = 1/4, gamma = 1/2, alpha = 0). With D_num so defined the
balance error is sum [u].(M<a> - <f_s>) (the scheme's equilibrium, with the forces the books
know) + sum ([SE] - [u].<f_int>) (trapezoidal work of a nonlinear internal force; zero for small
strain) + sum (W_laws - [u].<f_terms>) (the laws' energies against the work of the forces they
put in the equations): it vanishes only when the residual the integrator solved contains exactly
the forces the books hold. Dropping a force, or the HHT term -alpha g_n, from the residual shows.

Moreau-Jean theta-method (Jean, "The non-smooth contact dynamics method", CMAME 177 (1999) 235-257;
Acary, "Energy conservation and dissipation properties of time-integration methods for nonsmooth
elastodynamics with contact", ZAMM 96 (2016) 585-603): M [v] = dt ((1 - theta) F_0 + theta F_1)
+ P with P = dt G^T R the contact impulse, [u] = dt ((1 - theta) v_0 + theta v_1), so
dt <v> = [u] - dt (theta - 1/2) [v] and::

    [KE] = [u].<F> + [u].G^T R - D_num,     D_num = (theta - 1/2) ([v].M[v] - [u].[F])

(for a linear spring F = -K u: (theta - 1/2)([v].M[v] + [u].K[u]) >= 0; zero for theta = 1/2).
The impulse's work [u].G^T R = R.[g] (exact for a gap linear in u) goes to W_contact / W_friction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Energies:
    """Cumulated energy terms since the start of the bookkeeping [J] (see the module docstring).

    external_work : sum <f_ext>.[u] (gravity and nodal forces).
    reaction_work : sum <r>.[u] at constrained dofs (work of imposed motions and supports).
    damping_dissipation : sum <f_damp>.[u] (Rayleigh).
    contact_work : energy taken by the normal contact laws, -sum <R_N> [g] (penalty: stored in the
        springs plus dissipated by their dashpots; Lagrange: taken at impacts).
    friction_work : energy taken by the tangential laws, -sum <R_T> [s] (Coulomb dissipation, plus
        what the tangential springs of a penalty law store).
    other_work : energy taken by the other force terms (discrete springs, buckling elements),
        from their own laws.
    numerical_dissipation : D_num, from the scheme's energy identity.
    initial : kinetic + strain energy when the bookkeeping started.
    """

    external_work: float = 0.0
    reaction_work: float = 0.0
    damping_dissipation: float = 0.0
    contact_work: float = 0.0
    friction_work: float = 0.0
    other_work: float = 0.0
    numerical_dissipation: float = 0.0
    initial: float = 0.0

    @property
    def term_work(self) -> float:
        """Energy taken by every force term: contact + friction + other [J]."""
        return self.contact_work + self.friction_work + self.other_work


@dataclass(frozen=True)
class StepWork:
    """Energy a force term took from the structure over one step [J]: ``contact`` (normal law),
    ``friction`` (tangential law), ``other`` (any other law)."""

    contact: float = 0.0
    friction: float = 0.0
    other: float = 0.0


def trapezoid(f0: np.ndarray, f1: np.ndarray, du: np.ndarray) -> float:
    """<f>.[u] = (f0 + f1)/2 . (u1 - u0) [J]."""
    return 0.5 * float((f0 + f1) @ du)


def law_work(r0: np.ndarray, r1: np.ndarray, jump: np.ndarray, weight0: float = 0.5) -> float:
    """Energy taken by a law with reaction r >= 0 resisting its measure (gap, slip) [J]:
    -sum (w0 r0 + (1 - w0) r1) [measure], terms with a non-finite measure left out (an unpaired
    node carries no force). ``weight0`` = 1/2: trapezoidal (position-level laws); 0: the step's
    mean force r1 (impulse laws of the theta-method)."""
    r = weight0 * r0 + (1.0 - weight0) * r1
    ok = np.isfinite(jump) & np.isfinite(r)
    return -float(np.sum(np.where(ok, r, 0.0) * np.where(ok, jump, 0.0)))


def newmark_dissipation(M: sp.spmatrix, dt: float, beta: float, gamma: float, du: np.ndarray,
                        a0: np.ndarray, a1: np.ndarray, v0: np.ndarray, v1: np.ndarray,
                        f_scheme0: np.ndarray, f_scheme1: np.ndarray, F0: np.ndarray, F1: np.ndarray) -> float:
    """D_num of one Newmark / HHT step [J] (module docstring)::

        D_num = dt^2 (beta - gamma/2) [a].M<a> - dt (gamma - 1/2) <v>.M[a] - [u].(<f_s> - <F>)

    Shapes (n_dofs,); M (n_dofs, n_dofs)."""
    Ma_jump = M @ (a1 - a0)
    x = dt * dt * (beta - 0.5 * gamma) * float(0.5 * (a0 + a1) @ Ma_jump) \
        - dt * (gamma - 0.5) * float(0.5 * (v0 + v1) @ Ma_jump)
    return x - 0.5 * float(du @ (f_scheme0 + f_scheme1 - F0 - F1))


def hht_scheme_force(alpha_f: float, F0: np.ndarray, F1: np.ndarray, free: np.ndarray) -> np.ndarray:
    """f_s,{n+1}: the force HHT equates with M a_{n+1}: (1 + alpha_f) F1 - alpha_f F0 on the free
    dofs, F1 on the others (their reactions come from the unweighted equation). (n_dofs,) [N]."""
    f = F1.copy()
    if alpha_f != 0.0:
        f[free] = (1.0 + alpha_f) * F1[free] - alpha_f * F0[free]
    return f


def theta_dissipation(M: sp.spmatrix, theta: float, dv: np.ndarray, du: np.ndarray, dF: np.ndarray) -> float:
    """D_num of one Moreau-Jean step [J]: (theta - 1/2) ([v].M[v] - [u].[F]) (module docstring)."""
    return (theta - 0.5) * (float(dv @ (M @ dv)) - float(du @ dF))


def book_step(e: Energies, du: np.ndarray, f_ext: tuple[np.ndarray, np.ndarray],
              reactions: tuple[np.ndarray, np.ndarray], f_damp: tuple[np.ndarray, np.ndarray], terms: StepWork,
              numerical: float) -> Energies:
    """The books after one step: trapezoidal works <f>.[u] of the external forces, the reactions
    and the damping force (each given at the step's start and end, (n_dofs,) [N]), the terms' own
    works and the scheme's dissipation [J]."""
    return replace(
        e,
        external_work=e.external_work + trapezoid(*f_ext, du),
        reaction_work=e.reaction_work + trapezoid(*reactions, du),
        damping_dissipation=e.damping_dissipation + trapezoid(*f_damp, du),
        contact_work=e.contact_work + terms.contact,
        friction_work=e.friction_work + terms.friction,
        other_work=e.other_work + terms.other,
        numerical_dissipation=e.numerical_dissipation + numerical,
    )


# ------------------------------------------------------------------------------ energy creation
#: contact events closer than this [s] are one event (SDNV105: a corner's chatter within one impact,
#: as cases/sdnv105/case.detect_impacts and cases/convergence.MATCH_WINDOW group them)
EVENT_MERGE = 0.01


@dataclass(frozen=True)
class Creation:
    """Energy the contact laws gave back over a contact event, beyond what they took in it [J].

    t_start : the start of the event (the step before its first contact status change) [s].
    t : the step at which the creation was measured (its largest, or where it crossed the limit) [s].
    created : energy given back net since t_start [J] (> 0: created).
    scale : the run's energy scale [J]; ``fraction`` = created / scale.
    node : the contact node (index in the contact's slave arrays) that gave back the most normal
        work in the step ending at t (else since t_start), or None when none gave any back.
    """

    t_start: float
    t: float
    created: float
    scale: float
    node: int | None

    @property
    def fraction(self) -> float:
        return self.created / self.scale


class EnergyCreated(Exception):
    """A contact event created energy beyond the limit (:class:`CreationWatch`)."""

    def __init__(self, creation: Creation, limit: float, where: str, remedy: str = "") -> None:
        self.creation, self.limit, self.where = creation, limit, where
        c = creation
        super().__init__(f"energy created at a contact event: {c.created:.4g} J given back by the contact at "
                         f"t = {c.t:.9g} s (event from {c.t_start:.9g} s), node {where}, "
                         f"{100 * c.fraction:.3g} % of the energy scale {c.scale:.4g} J (limit {100 * limit:g} %)"
                         f"{': ' + remedy if remedy else ''}")


class CreationWatch:
    """Watches a run for energy created at contact events.

    A contact law that stores no energy (Lagrange or augmented multipliers, Coulomb friction, the
    theta-method's impulses) can only take energy: over any stretch of steps the work it books,
    W = W_contact + W_friction (fem.stage.energy's books: energy taken, from the laws' own reactions and
    gap / slip changes), can only grow. By the books' identity its decrease over the stretch is

        created = -[W] = [KE + SE] - W_ext - W_reac + [D_damp] + [D_num]  (+ the books' error),

    the mechanical energy gained beyond the work put in and the energy the damping and the time
    scheme removed. A law that stores energy (penalty springs) passes it as ``stored``: what it
    takes is then W - stored, its dashpots' and Coulomb's dissipation, which can only grow too.

    A position-level law with Code_Aster's "immediate" rules takes energy in the step that closes a
    node and gives some back in the step that opens it (contact.multipliers), so W is measured over
    a whole **contact event**: from the step before a contact status changes
    until ``merge`` [s] after the last change (a corner's chatter is one event). ``observe`` after
    each step returns a :class:`Creation` once the event's creation since its start exceeds
    ``limit * scale`` (None otherwise); ``largest`` holds the largest creation met (reported
    whether or not it is beyond the limit). Outside events each step is checked alone.
    """

    def __init__(self, scale: float, limit: float, merge: float = EVENT_MERGE) -> None:
        if not (scale > 0 and math.isfinite(scale)):
            raise ValueError(f"CreationWatch: the energy scale must be > 0 J, got {scale}")
        self.scale, self.limit, self.merge = float(scale), float(limit), float(merge)
        self.largest: Creation | None = None
        self.events = 0
        self._last = None  # (t, W, closed, rn, gap) of the last step
        self._start = None  # (t_start, W_start) of the event running
        self._last_change = -math.inf
        self._node_work = None  # normal work taken per node since the event's start [J]

    def observe(self, t: float, taken: float, closed: np.ndarray, rn: np.ndarray, gap: np.ndarray,
                impulsive: bool = False, stored: float = 0.0) -> Creation | None:
        """After the step ending at ``t`` [s]: ``taken`` the books' cumulated W_contact + W_friction
        [J], ``stored`` the energy the laws store elastically at t [J] (0 for multipliers); per
        contact node (n_s,): ``closed`` flags, normal reaction ``rn`` [N] and gap [m]
        (``impulsive``: rn is the step's mean force, the theta-method's). The first call is the
        state the run starts from."""
        taken = float(taken) - float(stored)
        closed = np.asarray(closed, dtype=bool)
        rn, gap = np.asarray(rn, dtype=float), np.asarray(gap, dtype=float)
        last, self._last = self._last, (t, float(taken), closed.copy(), rn.copy(), gap.copy())
        if last is None or last[2].shape != closed.shape:
            return None
        t0, w0, closed0, rn0, gap0 = last
        # normal work taken per node over the step: -<R_N> [g] (trapezoidal; impulsive: R_1 [g])
        r = rn if impulsive else 0.5 * (rn0 + rn)
        jump = gap - gap0
        ok = np.isfinite(jump) & np.isfinite(r)
        per_node = -np.where(ok, r, 0.0) * np.where(ok, jump, 0.0)
        changed = bool(np.any(closed != closed0))
        if changed:
            if self._start is None or t0 - self._last_change > self.merge:
                self._start = (t0, w0)
                self._node_work = np.zeros_like(per_node)
                self.events += 1
            self._last_change = t
        elif self._start is not None and t - self._last_change > self.merge:
            self._start = self._node_work = None
        if self._start is None:  # a step outside events stands alone
            start, work = (t0, w0), per_node
        else:
            self._node_work = self._node_work + per_node
            start, work = self._start, self._node_work
        created = start[1] - float(taken)
        if created <= 0.0:
            return None
        pick = per_node if per_node.size and np.min(per_node) < 0.0 else work
        node = int(np.argmin(pick)) if pick.size and np.min(pick) < 0.0 else None
        creation = Creation(start[0], t, created, self.scale, node)
        if self.largest is None or created > self.largest.created:
            self.largest = creation
        return creation if created > self.limit * self.scale else None
