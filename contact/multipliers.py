"""Frictional contact with multipliers: Lagrange (Code_Aster DISCRETE / LAGRANGIEN) and augmented
Lagrangian (Code_Aster CONTINUE, Alart-Curnier), in one mixed Newton system.

Unknowns per slave node: the normal reaction R_N (>= 0 in compression) and the tangential reaction
R_T along the master tangent t. Their force on the body is G^T lam with G = [dg/du; d(ds)/du]
(rows from :class:`contact.zone.ContactGeometry`). Each node has a status, revised at every
Newton iteration, that selects its two equations (all in newtons):

=========  =====================================  ==============================================
status     normal equation                        tangential equation
=========  =====================================  ==============================================
open       R_N = 0                                R_T = 0
stick      rho_n g = 0                            rho_t ds = 0
slip       rho_n g = 0                            R_T - mu f (R_N - rho_n g) = 0, f = +-1
=========  =====================================  ==============================================

g is the gap, ds the tangential slip increment of the step, f the direction of the friction force
(opposite to the slip). The methods differ in how the status is chosen:

* ``"lagrange"`` (active set, Code_Aster LAGRANGIEN): an open node closes when it penetrates
  (g < -gap_tolerance); a closed node opens when its normal reaction turns to traction (R_N < 0);
  a sticking node slips when |R_T| > mu R_N; a slipping node sticks again when its slip reverses.
  rho_n, rho_t only scale the equations (the solution does not depend on them).
* ``"augmented"`` (semi-smooth Newton on the Alart-Curnier functions, Code_Aster CONTINUE with
  COEF_CONT): with the augmented multipliers R~_N = R_N - rho_n g and R~_T = R_T - rho_t ds, a
  node is closed when R~_N > 0, sticks when |R~_T| <= mu R~_N, slips otherwise with
  f = sign(R~_T). The converged solution satisfies the same Signorini-Coulomb conditions; rho
  (``coef_cont`` times a stiffness scale of the slave nodes) steers the iterations only.

With mu = 0 a closed node is in the slip status with R_T = 0 (frictionless contact).

Release rule (when a closed contact may open)
---------------------------------------------
With Newmark's trapezoidal rule (beta = 1/4, gamma = 1/2) the energy of the structure changes over
a step by exactly the trapezoidal work of the contact reactions (fem.stage.energy)::

    [E] = <R_N> [g] = 1/2 (R_N,n g_{n+1} - R_N,{n+1} g_n)        (R_N g = 0 at both ends)

A closing step (R_N,n = 0) takes energy; a step in which a node opens (g_{n+1} > 0) while its
reaction at the step start was compressive (R_N,n > 0) gives back energy that the structure never
stored: the contact creates energy, about 1/2 R_N,n v dt per opening (O(dt); large with a
consistent mass, whose contact reactions ring; small with a redistributed one, fem.model.mass).

* ``release="immediate"`` (Code_Aster's rule, the default): a node opens in the step in which its
  reaction would turn to traction, and creates that energy.
* ``release="located"``: the integrator cuts such a step at the separation instant t*, where the
  reaction of the node, held closed, vanishes (fem.time.dynamics.step_with_release: regula falsi, the
  reaction at t* tensile by at most 1 % of its swing over the step, never compressive; a t* within
  1e-3 of the step's end is moved to its end); the node opens after t* from a zero or tensile
  reaction, so every step it handles has [E] <= 0 (the identity above, term by term). Not located:
  an opening in the first step of a phase (the reactions of the previous phase may jump), and one
  within 1e-3 of the step's start, which opens there and gives back 1/2 R_N,n g_{n+1} with R_N,n
  at most about 1e-3 of the swing (a massless corner unloaded by the other corner's landing). Measured:
  no creation with a redistributed mass (bar, 1 + 6e-14); with a consistent mass, whose reactions
  ring, 2.8e-4 of the energy created on the SDNV100 bar (nx 20), so the rule is meant for the
  former. The same applies to "augmented". ``held`` nodes of a trial (set by the integrator) stay
  closed whatever their reaction.
* ``release="delayed"``: the crude form of the same idea, without cutting the step: a node closed
  under a compressive reaction at the step start stays closed through the step (its reaction at
  the step's end may be tensile, by as much as the dynamics asks) and opens in the next one. It
  never creates energy either, costs nothing, and suits a body without damping whose contact
  reactions vary smoothly (the bar of cases/bar_impact.py); on a stiff damped block it glues the
  corner for a step and the damping then takes most of the rocking energy (SDNV105 A: the block
  stops after its first impact).

Closing rule (when an open contact may close)
---------------------------------------------
By the same identity a step that closes a node (R_N,n = 0, g_{n+1} = 0) takes 1/2 R_N,{n+1} g_n:
the node lands somewhere inside the step, at the fraction s = g_n / (v dt) of it, and the
position-level constraint stops it at the step's end. On a massless node (fem.model.mass) whose
reaction jumps to the force F that stops it (for a Kelvin-Voigt damped block, about C v), R_N,{n+1}
is about (1 - s) F, so the step takes 1/2 F v dt s (1 - s): first order in dt, and erratic as dt
shrinks, since s follows where the impact falls in the step (SDNV105 A with a redistributed mass:
0.20 and 0.18 J of the 7.29 J at the first impact, for dt = 1.25e-5 and 6.25e-6 s).

* ``closing="immediate"`` (Code_Aster's rule, the default): a node closes at the end of the step
  in which it penetrates.
* ``closing="located"``: the integrator cuts such a step at the landing instant t*, where the
  gap of the node, kept open, vanishes (fem.time.dynamics.step_with_release: regula falsi, the gap at
  t* in [0, LANDING_TOLERANCE g_n]); the node closes after t* from a gap of at most 1 % of the one
  the immediate rule closes, so the landing takes at most 1 % of what it takes there. Meant for
  massless contact nodes: a node with mass loses 1/2 m v^2 when it is stopped, wherever the step
  is cut. ``free`` nodes of a trial (set by the integrator) stay open whatever their gap.

Compiled loops
--------------
The status revision (revise_statuses) and the equations (linearize_equations) are plain Python loops over
the slave nodes in :mod:`contact.equations`, compiled by ``numba.njit(cache=True)`` on first use
(fem.compiled), as are the geometry and rows of :mod:`contact.zone`; a Newmark/HHT step runs them from one
compiled Newton loop (contact.newton_loop, :meth:`MultiplierContact.compiled_iterations`); geometries are
cached per u (the last committed one and the last ROWS_KEPT iterates, compared value by value). On the
small models users run most numpy's per-call overhead cost more than the arithmetic. The same code runs as Python under
``NUMBA_DISABLE_JIT=1``; tests/test_contact_compiled.py checks both against the vectorised numpy forms.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from fem import compiled
from fem.stage.phase import MultiplierLinearization
from fem.stage.energy import StepWork, law_work
from fem.model.assembly import Model
from fem.model.sparsity import SparseRows

from contact import equations
from contact.equations import NO_MASK, NO_PLANE, NO_SEGMENTS
from contact.state import OPEN, SLIP, STATUS_NAMES, STICK, ContactState
from contact.zone import ContactError, ContactGeometry, ContactZone

logger = logging.getLogger(__name__)

METHODS = ("lagrange", "augmented")
RELEASES = ("immediate", "located", "delayed")
CLOSINGS = ("immediate", "located")
#: geometries kept by MultiplierContact.rows besides the last committed state's: the last iterates
ROWS_KEPT = 3


@dataclass
class TrialContact:
    """Multipliers and statuses during one step (mutable, owned by the Newton loop).

    lam : (2 n_s,) interleaved (R_N, R_T) per node [N]; status : (n_s,) OPEN/STICK/SLIP;
    direction : (n_s,) friction-force direction f (+-1) of slipping nodes; changes : (n_s,)
    status changes so far in the step; u0 : displacement at the start of the step; held : nodes
    that cannot open in this step (set by the integrator, release="located"; from the step start,
    release="delayed"); free : nodes that cannot close in this step (set by the integrator,
    closing="located"); work : the energy the step would book, kept by :meth:`trial_work` for
    :meth:`commit` at the same u.
    """

    lam: np.ndarray
    status: np.ndarray
    direction: np.ndarray
    changes: np.ndarray
    u0: np.ndarray
    held: np.ndarray | None = None  # (n_s,) nodes kept closed through the step ("located", "delayed")
    free: np.ndarray | None = None  # (n_s,) nodes kept open through the step (closing "located")
    work: tuple | None = None  # (u, StepWork, slip) of trial_work, reused by commit at the same u


class MultiplierContact:
    """Contact of a zone enforced with multipliers (a :class:`fem.time.dynamics.MultiplierTerm`).

    Parameters
    ----------
    model : the model (its mesh points and stiffness set the equation scale).
    zone : :class:`contact.zone.ContactZone`.
    friction : Coulomb coefficient mu >= 0 (a phase's ``friction`` overrides it).
    method : "lagrange" or "augmented".
    coef_cont, coef_frot : augmentation coefficients (dimensionless, > 0): rho_n = coef_cont k,
        rho_t = coef_frot k with k the mean diagonal stiffness of the slave dofs [N/m].
    gap_tolerance : penetration [m] beyond which an open node closes ("lagrange").
    release : "immediate" (Code_Aster), "located" or "delayed" (never create energy; module docstring).
    closing : "immediate" (Code_Aster) or "located" (a landing cut at its instant; module docstring).
    """

    impulsive = False  # multipliers are forces at the step's ends (True: the step's mean force)

    def __init__(self, model: Model, zone: ContactZone, friction: float = 0.0, method: str = "lagrange",
                 coef_cont: float = 1.0, coef_frot: float = 1.0, gap_tolerance: float = 1e-14,
                 release: str = "immediate", closing: str = "immediate") -> None:
        if method not in METHODS:
            raise ContactError(f"unknown contact method {method!r}; choose one of {METHODS}")
        if release not in RELEASES:
            raise ContactError(f"unknown release rule {release!r}; choose one of {RELEASES}")
        if closing not in CLOSINGS:
            raise ContactError(f"unknown closing rule {closing!r}; choose one of {CLOSINGS}")
        self.release, self.closing = release, closing
        if not (np.isfinite(friction) and friction >= 0):
            raise ContactError(f"friction coefficient must be >= 0, got {friction}")
        for name, value in (("coef_cont", coef_cont), ("coef_frot", coef_frot)):
            if not (np.isfinite(value) and value > 0):
                raise ContactError(f"augmentation coefficient {name} must be > 0, got {value}")
        if not gap_tolerance >= 0:
            raise ContactError(f"gap tolerance must be >= 0 m, got {gap_tolerance}")
        self.model, self.zone, self.method = model, zone, method
        self.friction = float(friction)
        self._default_friction = float(friction)
        self.gap_tolerance = float(gap_tolerance)
        self.nodes = zone.slave
        self.points = model.mesh.points
        dofs = (2 * zone.slave[:, None] + np.arange(2)).ravel()
        k = float(np.mean(np.abs(model.stiffness().diagonal()[dofs]))) if model.sets else 1.0
        self.rho_n, self.rho_t = coef_cont * k, coef_frot * k
        n = zone.size
        self._lam = np.zeros(2 * n)
        self._status = np.full(n, OPEN)
        self._direction = np.zeros(n)
        self._slip = np.zeros(n)
        self._state: ContactState | None = None
        self._time = np.nan
        self._rows_cache: list = []
        self._fused = False  # what zone_rows needs of the zone, made at the first geometry (_fused_zone)
        self._committed: tuple | None = None  # (u, rows) of the last committed state
        self._work = StepWork()

    # ------------------------------------------------------------------ kinematic measures
    def rows(self, u: np.ndarray):
        """Geometry and its rows (normal, tangent; :class:`fem.model.sparsity.SparseRows`) at u. Newton
        evaluates statuses and equations at the same u, and the step's energy needs the geometry at
        its start: the last committed one and the last ROWS_KEPT results are kept and reused for an
        equal u."""
        return self._rows_entry(u)[:3]

    def _rows_entry(self, u: np.ndarray):
        """(geometry, normal rows, tangent rows, (interleaved rows, gap with +inf where not finite))
        at u, cached (the newest first; an equal u gives the same entry whichever matches)."""
        for cached_u, cached in self._rows_cache:
            if cached_u.shape == u.shape and equations.same_vector(cached_u, u):
                return cached
        committed = self._committed
        if committed is not None and committed[0].shape == u.shape and equations.same_vector(committed[0], u):
            return committed[1]
        zone, n = self.zone, u.size
        fused = self._fused_zone()
        if fused is None or u.shape != (self.points.size,) or u.dtype != np.float64:
            # node pairs (a geometry in numpy), and what ContactZone.geometry refuses with its message
            geo = zone.geometry(self.points, u)
            dofs, wn, wt = geo.local_rows()
            ns, m = wn.shape
            dofs2, G, gap = np.empty((2 * ns, m), dtype=np.int64), np.empty((2 * ns, m)), np.empty(ns)
            equations.interleave_rows(dofs, wn, wt, geo.gap, dofs2, G, gap)  # (normal, tangent) rows per node
        else:  # a rigid plane or master segments: the geometry and its rows in one compiled call
            segments, plane, m = fused
            ns = zone.size
            gap, normal, tangent, xi = np.empty(ns), np.empty((ns, 2)), np.empty((ns, 2)), np.empty(ns)
            master, dofs, wn, wt = np.empty((ns, 2), dtype=np.int64), np.empty((ns, m), dtype=np.int64), \
                np.empty((ns, m)), np.empty((ns, m))
            dofs2, G, gap_inf = np.empty((2 * ns, m), dtype=np.int64), np.empty((2 * ns, m)), np.empty(ns)
            equations.zone_rows(self.points, u, zone.slave, segments, plane, zone.extension, zone.clearance, gap,
                                normal, tangent, master, xi, dofs, wn, wt, dofs2, G, gap_inf)
            return self.keep_rows(u, (gap, normal, tangent, master, xi, dofs, wn, wt, dofs2, G, gap_inf))
        rows = (SparseRows(dofs2, G, n), gap)
        return self._keep_entry(u, (geo, SparseRows(dofs, wn, n), SparseRows(dofs, wt, n), rows))

    def keep_rows(self, u: np.ndarray, arrays):
        """Keep, as the geometry and rows at u, the arrays :func:`zone_rows` filled there (gap, normal,
        tangent, master, xi, dofs, wn, wt, dofs2, G, gap_inf, in its order; a compiled Newton loop's last
        iterate, contact.newton_loop); returns the entry :meth:`_rows_entry` gives."""
        gap, normal, tangent, master, xi, dofs, wn, wt, dofs2, G, gap_inf = arrays
        n = u.size
        geo = ContactGeometry(self.zone.slave, gap, normal, tangent, master, xi)
        rows = (SparseRows(dofs2, G, n), gap_inf)
        return self._keep_entry(u, (geo, SparseRows(dofs, wn, n), SparseRows(dofs, wt, n), rows))

    def _keep_entry(self, u: np.ndarray, entry):
        self._rows_cache = [(u.copy(), entry)] + self._rows_cache[:ROWS_KEPT - 1]
        return entry

    def _fused_zone(self):
        """(segments, plane, row width) for :func:`zone_rows` when the zone is a rigid plane or master
        segments on float64 points, else None (node pairs, whose geometry is numpy's; a zone without
        segments, which ContactZone.geometry refuses with its message). Made once per term."""
        if self._fused is False:
            zone = self.zone
            fused = None
            if self.points.dtype == np.float64 and self.points.ndim == 2 and self.points.shape[1] == 2:
                if zone.plane is not None:
                    fused = (NO_SEGMENTS, np.array([*zone.plane.point, *zone.plane.normal]), 2)
                elif zone.segments is not None and zone.segments.shape[0] and zone.candidates is None:
                    fused = (zone.segments, NO_PLANE, 6)  # (an interface zone's candidates: numpy's geometry)
            self._fused = fused
        return self._fused

    def measures(self, trial: TrialContact, u: np.ndarray, v: np.ndarray):
        """Geometry, the normal measure (gap g [m], +inf when unpaired), the tangential measure
        (slip increment ds [m]), the rows (normal, tangent) and the factor of the derivative rows
        with respect to the unknown of the Newton system (1: the unknown is u). Subclasses change
        the level."""
        geo, Gn, Gt, (_, gap) = self._rows_entry(u)
        ds = np.empty(gap.size)
        equations.row_increments(Gt.columns, Gt.values, u, trial.u0, ds)
        return geo, gap.copy(), ds, (Gn, Gt), 1.0

    # ------------------------------------------------------------------ MultiplierTerm protocol
    def compiled_iterations(self):
        """The module that runs the Newton iterations of a Newmark/HHT step with this term in one compiled
        call (contact.newton_loop; the optional part of fem.stage.phase.MultiplierTerm), or None for a
        subclass (a user's own law, whose measures or equations the loop does not know)."""
        if type(self) is not MultiplierContact:
            return None
        from contact import newton_loop

        return newton_loop

    @property
    def size(self) -> int:
        return 2 * self.zone.size

    def set_phase(self, phase, u: np.ndarray) -> None:
        """Friction coefficient of the phase and its contact events (``closing`` and ``release``, when
        the phase states them); at the very first phase, the initial statuses: nodes whose gap is zero
        or negative start closed (Code_Aster CONTACT_INIT='INTERPENETRE'), so a body resting on another
        is supported from the first iteration."""
        self.friction = self._default_friction if phase.friction is None else float(phase.friction)
        events = getattr(phase, "contact_events", None)
        if events is not None:
            self.closing = self.release = events
        if self._state is None:
            gap = self.zone.geometry(self.points, u).gap
            closed = gap <= self.gap_tolerance
            self._status = np.where(closed, STICK if self.friction > 0 else SLIP, OPEN)
            self._record(u, self._lam, self._status, np.zeros(self.zone.size))

    def begin_step(self, u0: np.ndarray) -> TrialContact:
        held = (self._status != OPEN) & (self._lam[0::2] >= 0) if self.release == "delayed" else None
        return TrialContact(self._lam.copy(), self._status.copy(), self._direction.copy(),
                            np.zeros(self.zone.size, dtype=int), u0, held)

    def opened_under_load(self, trial: TrialContact) -> np.ndarray:
        """(n_s,) bool: nodes the trial opens that were closed under a compressive reaction at the
        step start (release="located": the step is cut where their reaction vanishes)."""
        return (self._status != OPEN) & (self._lam[0::2] > 0) & (trial.status == OPEN)

    def landed(self, trial: TrialContact) -> np.ndarray:
        """(n_s,) bool: nodes open at the step start that the trial closes (closing="located": the
        step is cut where their gap vanishes)."""
        return (self._status == OPEN) & (trial.status != OPEN)

    def gaps(self, u: np.ndarray) -> np.ndarray:
        """Gap (n_s,) [m] of each slave node at u (+inf when unpaired)."""
        gap = self.zone.geometry(self.points, u).gap
        return np.where(np.isfinite(gap), gap, np.inf)

    def committed_normal_reactions(self) -> np.ndarray:
        """R_N (n_s,) [N] of the last committed step."""
        return self._lam[0::2].copy()

    def update(self, trial: TrialContact, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Revise the statuses at the trial state; returns the indices of nodes that changed.

        Normal status: "augmented", closed when R_N - rho_n g > 0; "lagrange", an open node closes
        when g < -gap_tolerance, a closed node opens when R_N < 0.
        Friction status (both methods) from the trial tangential force R~_T against the cap
        mu R~_N, with R~ the augmented multipliers ("augmented") or, for "lagrange", the
        multipliers themselves and, for a node closing in this iteration (no multiplier yet),
        the trial forces -rho_n g and -rho_t ds. A sticking node slips when |R~_T| exceeds the
        cap; a slipping node sticks again when its slip reverses (ds along the friction force, or
        for "augmented" R~_T changing sign): the tangential velocity went through zero, so the node
        sticks. This memory keeps the slip direction from flip-flopping between iterations.
        """
        geo, gap, ds, _, _ = self.measures(trial, u, v)
        n = gap.size
        new, direction, changed = np.empty(n, dtype=np.int64), np.empty(n), np.empty(n, dtype=np.int64)
        count = equations.revise_statuses(trial.status, trial.direction, trial.lam, gap, ds, _mask(trial.held),
                                          trial.held is not None, _mask(trial.free), trial.free is not None,
                                          self.friction, self.rho_n, self.rho_t, self.gap_tolerance,
                                          self.method == "augmented", trial.changes, new, direction,
                                          changed)  # the rules above, node by node
        trial.status, trial.direction = new, direction
        return changed[:count]

    def linearize(self, trial: TrialContact, u: np.ndarray, v: np.ndarray) -> MultiplierLinearization:
        """The equations of the statuses (module docstring's table; g = 0 where not finite) at the
        trial: residuals, their derivatives d/d(unknown) = rows of Gn (closed, rho_n), Gt (stick,
        rho_t) and mu f rho_n Gn (slip, tangent equation) times the row factor, and 2 x 2 blocks
        d/dlam. The slip cap mu (R_N - rho_n g) is never negative: a node held closed under traction
        (release "located" or "delayed") has no friction force (:func:`linearize_equations`)."""
        geo, gap, ds, (Gn, Gt), row_factor = self.measures(trial, u, v)
        G = self._rows_entry(u)[3][0]
        residual, Du, Dl = np.empty(G.values.shape[0]), np.empty(G.values.shape), np.empty((gap.size, 2, 2))
        equations.linearize_equations(trial.status, trial.direction, trial.lam, gap, ds, _mask(trial.held),
                                      trial.held is not None, self.friction, self.rho_n, self.rho_t,
                                      float(row_factor), G.values, residual, Du, Dl)
        return MultiplierLinearization(G, residual, G.with_values(Du), Dl)

    def iterate(self, trial: TrialContact, u: np.ndarray, v: np.ndarray, update: bool = True):
        """One Newton iterate of the term in one compiled pass (:func:`iterate_equations`): the statuses
        revised when ``update`` (:meth:`update`'s rules), the equations linearised at them
        (:meth:`linearize`) and the term's resisting force -G^T lam (n_dofs,) [N]. Returns
        (linearisation, indices (k,) of the nodes whose status changed, force); the same values as
        update, linearize and -force_rows^T lam called one after the other."""
        geo, gap, ds, _, row_factor = self.measures(trial, u, v)
        G = self._rows_entry(u)[3][0]
        ns = gap.size
        new, direction, changed = np.empty(ns, dtype=np.int64), np.empty(ns), np.empty(ns, dtype=np.int64)
        residual, Du, Dl = np.empty(G.values.shape[0]), np.empty(G.values.shape), np.empty((ns, 2, 2))
        force = np.empty(u.size)
        count = equations.iterate_equations(update, trial.status, trial.direction, trial.lam, gap, ds,
                                            _mask(trial.held), trial.held is not None, _mask(trial.free),
                                            trial.free is not None, self.friction, self.rho_n, self.rho_t,
                                            self.gap_tolerance, self.method == "augmented", float(row_factor),
                                            G.columns, G.values, trial.changes, new, direction, changed, residual, Du,
                                            Dl, force)
        trial.status, trial.direction = new, direction
        return MultiplierLinearization(G, residual, G.with_values(Du), Dl), changed[:count], force

    def trial_work(self, trial: TrialContact, u: np.ndarray) -> StepWork:
        """Energy the contact would take over the step if the trial at u were committed [J] (what
        :meth:`step_work` reports after :meth:`commit`)."""
        return self._trial_work(trial, u)[0]

    def _trial_work(self, trial: TrialContact, u: np.ndarray):
        if trial.work is not None and trial.work[0] is u:  # the integrator's check, then commit
            return trial.work[1:]
        gap0 = self.rows(trial.u0)[0].gap
        geo, _, Gt = self.rows(u)
        ds = Gt @ (u - trial.u0)  # slip over the step, whatever the level
        w0 = 0.0 if self.impulsive else 0.5
        with np.errstate(invalid="ignore"):  # a node off its master (inf - inf): law_work leaves it out
            jump = geo.gap - gap0
        work = StepWork(contact=law_work(self._lam[0::2], trial.lam[0::2], jump, w0),
                        friction=law_work(self._lam[1::2], trial.lam[1::2], ds, w0))
        trial.work = (u, work, ds)
        return work, ds

    def commit(self, trial: TrialContact, u: np.ndarray, v: np.ndarray, t: float) -> None:
        self._work, ds = self._trial_work(trial, u)
        moved = np.where(trial.status == SLIP, ds, 0.0)
        turned = trial.status != self._status
        if turned.any():
            for node, old, new in zip(self.nodes[turned], self._status[turned], trial.status[turned]):
                logger.info("t = %.9g s: contact node %d %s -> %s", t, node, STATUS_NAMES[old], STATUS_NAMES[new])
        self._lam, self._status, self._direction = trial.lam.copy(), trial.status.copy(), trial.direction.copy()
        self._slip = self._slip + moved
        self._time = t
        self._record(u, self._lam, self._status, self._slip)

    def step_work(self) -> StepWork:
        """Energy the contact took over the last committed step [J] (fem.stage.energy): normal
        -sum <R_N> [g], tangential -sum <R_T> ds, with <R> the trapezoidal mean of the
        multipliers (``impulsive``: the step's mean force, theta-method)."""
        return self._work

    # ------------------------------------------------------------------ outputs
    def _record(self, u, lam, status, slip) -> None:
        self._committed = (u.copy(), self._rows_entry(u))  # the next step's start
        geo = self._committed[1][0]
        self._state = ContactState(self.nodes.copy(), status.copy(), geo.gap, lam[0::2].copy(), lam[1::2].copy(),
                                   np.asarray(slip, dtype=float).copy(), geo.normal, geo.tangent)

    def state(self) -> ContactState:
        """Contact quantities of the last converged step (or of the phase start)."""
        if self._state is None:
            raise RuntimeError("contact state is not available before the first phase starts")
        return self._state


def _mask(mask) -> np.ndarray:
    """A trial's node mask (held, free) as the compiled loops take it: bool, NO_MASK when absent."""
    if mask is None:
        return NO_MASK
    return mask if mask.dtype == np.bool_ else np.asarray(mask, dtype=np.bool_)
