"""Penalty shock element: Code_Aster DIS_CHOC with material DIS_CONTACT, as a :class:`ForceTerm`.

One shock element sits at every slave node of a :class:`~contact.zone.ContactZone` and acts against
the zone's master (rigid plane, or master segments node-to-segment). The geometry (gap, normal,
tangent, pairing) is measured with ``zone.geometry(points, u)`` at every evaluation; its
linearisation holds the master normal and the projection parameter fixed (the rows of
:class:`~contact.zone.ContactGeometry`).

Normal law
----------
Penetration p = -g (g includes the clearance JEU), rate dp/dt = -(normal_rows @ v)::

    R_N = K_n p + C_n dp/dt        while p > 0        (RIGI_NOR, AMOR_NOR)

``tension_allowed=True`` (default, the SDND108 reference): contact lasts while the penetration is
positive and the damper may pull (R_N < 0). ``tension_allowed=False``: R_N = max(0, K_n p + C_n dp/dt)
(the element detaches when the force vanishes). No force when p <= 0.

Tangential law (only while in contact)
--------------------------------------
Internal variable: the elongation e of the tangential spring (committed e_n; reset to 0 whenever the
node is open, so that a new contact starts with a relaxed spring). Over a step, ds = tangent_rows @
(u - u_n) with u_n the displacement at the last commit (or at set_phase), ds/dt = tangent_rows @ v::

    e_tr = e_n + ds,  R_T,tr = -(K_t e_tr + C_t ds/dt)                    (RIGI_TAN, AMOR_TAN)
    |R_T,tr| <= mu max(R_N, 0):  stick,  R_T = R_T,tr,             e = e_tr
    otherwise:                   slip,   R_T = mu max(R_N, 0) s,   e = -(R_T + C_t ds/dt) / K_t

with s = sign(R_T,tr) (e = 0 when K_t = 0). The cap uses max(R_N, 0): a pulling damper gives no
friction. Cumulated slip adds the plastic part of ds, e_tr - e (zero in stick). mu is COULOMB,
overridden by ``Phase.friction`` when the phase gives one.

Returned (resisting) force and consistent tangent
--------------------------------------------------
With N = normal_rows, T = tangent_rows (n_s, n_dofs), the force on the slave node is R_N n + R_T t and
the master nodes receive -(1 - xi), -xi times it, so the term returns f = -(N^T R_N + T^T R_T) and::

    df/du = N^T diag(kn) N + T^T diag(kt) T + T^T diag(mu s kn_slip) N
    df/dv = N^T diag(cn) N + T^T diag(ct) T + T^T diag(mu s cn_slip) N

where kn = K_n, cn = C_n at nodes whose normal law is active (0 elsewhere, and 0 when tension is not
allowed and the trial normal force is negative); kt = K_t, ct = C_t at sticking nodes; kn_slip =
K_n, cn_slip = C_n at slipping nodes with R_N >= 0 (0 otherwise). The slip block comes from
R_T = mu R_N s: R_N depends on u through p (dp/du = -N) and on v through dp/dt (d(dp/dt)/dv = -N);
it makes the tangent unsymmetric. Exact for rigid planes; for deformable masters the geometric
terms (R_N dn/du, dxi/du) are neglected, as in the zone's rows.

At p = 0 (a node touching, e.g. a body laid on a table at zero gap, or a time step ending exactly
at an impact) the force is zero, as specified, but the tangent is the right limit p -> 0+ (normal
and stick stiffness), so that Newton can leave such a state instead of meeting a singular matrix.
"p = 0" means zero to the round-off of the computed gap, |p| <= 64 ulp of the coordinates,
displacements and clearance summed into it (about 1e-14 m for metre-sized models): a step that
lands on the impact instant otherwise ends 1e-15 m inside or outside the obstacle at random, and a
damped element (force jump C_n dp/dt at impact) makes Newton chatter across the jump.

Implementation: the rows of every element are handled as small dense blocks (2 dofs for a rigid
plane, 6 for a master segment), vectorised over the slave nodes; the derivatives are assembled
directly in CSR form (None when no element is active).

``evaluate`` never changes the committed variables; ``commit`` stores e, u_n, the cumulated slip,
statuses (OPEN / STICK / SLIP, changes logged at INFO) and the last gap, R_N, R_T
(:meth:`ShockSprings.state`). Statuses and e carry over from one phase to the next.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fem.stage.phase import TermForces
from fem.stage.energy import StepWork, law_work

from contact.state import OPEN, SLIP, STATUS_NAMES, STICK, ContactState
from contact.zone import ContactGeometry, ContactZone, node_coordinates

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ShockLaw:
    """DIS_CONTACT material of a DIS_CHOC element.

    Attributes
    ----------
    normal_stiffness : RIGI_NOR [N/m], > 0.
    normal_damping : AMOR_NOR [N s/m], >= 0.
    tangential_stiffness : RIGI_TAN [N/m], >= 0.
    tangential_damping : AMOR_TAN [N s/m], >= 0.
    friction : COULOMB, >= 0.
    tension_allowed : True: contact while the penetration is positive (the damper may pull);
        False: R_N = max(0, ...), detachment when the force vanishes.
    """

    normal_stiffness: float
    normal_damping: float = 0.0
    tangential_stiffness: float = 0.0
    tangential_damping: float = 0.0
    friction: float = 0.0
    tension_allowed: bool = True

    def __post_init__(self) -> None:
        checks = (
            ("RIGI_NOR (normal stiffness)", self.normal_stiffness, "N/m", True),
            ("AMOR_NOR (normal damping)", self.normal_damping, "N s/m", False),
            ("RIGI_TAN (tangential stiffness)", self.tangential_stiffness, "N/m", False),
            ("AMOR_TAN (tangential damping)", self.tangential_damping, "N s/m", False),
        )
        for name, value, unit, strict in checks:
            ok = np.isfinite(value) and (value > 0 if strict else value >= 0)
            if not ok:
                raise ValueError(f"{name} must be {'>' if strict else '>='} 0 {unit}, got {value:g}")
        if not (np.isfinite(self.friction) and self.friction >= 0):
            raise ValueError(f"friction coefficient (COULOMB) must be >= 0, got {self.friction:g}")
        if not isinstance(self.tension_allowed, (bool, np.bool_)):
            raise ValueError(f"tension_allowed must be True or False, got {self.tension_allowed!r}")


@dataclass(frozen=True)
class _Trial:
    """Everything the law computes at one trial state (arrays over slave nodes)."""

    geometry: ContactGeometry
    dofs: np.ndarray  # (n_s, m) dofs of each element's rows (slave, then master nodes)
    wn: np.ndarray  # (n_s, m) values of normal_rows / tangent_rows on those dofs
    wt: np.ndarray
    on: np.ndarray  # law active from the closed side (p >= 0; tangent)
    loaded: np.ndarray  # force carried (p > 0 and, without tension, R_N > 0)
    stick: np.ndarray  # tangential status among loaded nodes
    slip: np.ndarray
    rn: np.ndarray
    rt: np.ndarray
    e: np.ndarray  # elongation after the return mapping (0 where not loaded)
    slip_increment: np.ndarray  # plastic part of ds (0 where not loaded)
    kn: np.ndarray  # tangent coefficients, see the module docstring
    cn: np.ndarray
    kt: np.ndarray
    ct: np.ndarray
    ks: np.ndarray  # mu s kn_slip
    cs: np.ndarray  # mu s cn_slip


class ShockSprings:
    """DIS_CHOC shock elements at the slave nodes of ``zone`` (a :class:`fem.time.dynamics.ForceTerm`).

    Parameters
    ----------
    model_or_mesh_points : :class:`fem.model.assembly.Model`, :class:`fem.mesh.mesh.Mesh` or node coordinates (n, 2).
    zone : contact zone (:func:`contact.zone.contact_zone` or :func:`contact.zone.node_zone`).
    law : :class:`ShockLaw`.
    """

    def __init__(self, model_or_mesh_points, zone: ContactZone, law: ShockLaw) -> None:
        self.points = node_coordinates(model_or_mesh_points, "ShockSprings")
        self.n_dofs = 2 * self.points.shape[0]
        if zone.size and int(zone.slave.max()) >= self.points.shape[0]:
            raise ValueError(f"contact zone {zone.slave_group!r} has node {int(zone.slave.max())} but the mesh "
                             f"has only {self.points.shape[0]} nodes")
        self.zone = zone
        self.law = law
        self.friction = float(law.friction)  # current Coulomb coefficient (phase override)
        ns = zone.size
        self._u_n = np.zeros(self.n_dofs)
        self._e = np.zeros(ns)
        self._slip = np.zeros(ns)
        self._status = np.full(ns, OPEN, dtype=np.int64)
        self._work = StepWork()
        geo = zone.geometry(self.points, self._u_n)
        self._state = ContactState(zone.slave.copy(), self._status.copy(), geo.gap.copy(), np.zeros(ns),
                                   np.zeros(ns), np.zeros(ns), geo.normal.copy(), geo.tangent.copy())

    # ------------------------------------------------------------------------------ the law
    def _gap_roundoff(self, geo: ContactGeometry, u: np.ndarray) -> np.ndarray:
        """Round-off of the computed gap (n_s,) [m]: 64 ulp of the largest term summed into it
        (coordinates and displacements of the slave and master points, clearance)."""
        x = np.abs(self.points[geo.slave]).sum(axis=1) + np.abs(u.reshape(-1, 2)[geo.slave]).sum(axis=1)
        if self.zone.plane is not None:
            x = x + float(np.abs(self.zone.plane.point).sum())
        else:
            m = geo.master
            for k in (0, 1):
                x = x + np.abs(self.points[m[:, k]]).sum(axis=1) + np.abs(u.reshape(-1, 2)[m[:, k]]).sum(axis=1)
        return 64.0 * np.finfo(float).eps * (x + abs(self.zone.clearance))

    def _trial(self, u: np.ndarray, v: np.ndarray) -> _Trial:
        law, mu = self.law, self.friction
        Kn, Cn = law.normal_stiffness, law.normal_damping
        Kt, Ct = law.tangential_stiffness, law.tangential_damping
        geo = self.zone.geometry(self.points, u)
        dofs, wn, wt = geo.local_rows()
        v_loc = v[dofs]
        p = -geo.gap  # -inf for unpaired nodes
        paired = np.isfinite(p)
        p_f = np.where(paired, p, 0.0)
        pdot = -np.einsum("sm,sm->s", wn, v_loc)
        rn_tr = np.where(paired, Kn * p_f + Cn * pdot, 0.0)
        # 'on': the law is active from the closed side (p >= 0, right-limit tangent at p = 0);
        # 'loaded': the element carries force (p > 0). "0" means zero to the round-off of the gap.
        tol = self._gap_roundoff(geo, u)
        if law.tension_allowed:
            on = p >= -tol
            loaded = p > tol
        else:
            on = (p >= -tol) & (rn_tr >= 0.0)
            loaded = (p > tol) & (rn_tr > 0.0)
        rn_on = np.where(on, rn_tr, 0.0)

        ds = np.einsum("sm,sm->s", wt, (u - self._u_n)[dofs])
        sdot = np.einsum("sm,sm->s", wt, v_loc)
        e_tr = np.where(on, self._e + ds, 0.0)
        rt_tr = -(Kt * e_tr + Ct * sdot)
        cap = mu * np.maximum(rn_on, 0.0)
        stick = on & (np.abs(rt_tr) <= cap)
        slip = on & ~stick
        sign = np.sign(rt_tr)
        rt_on = np.where(stick, rt_tr, np.where(slip, cap * sign, 0.0))

        if Kt > 0:
            e = np.where(stick, e_tr, np.where(slip, -(rt_on + Ct * sdot) / Kt, 0.0))
        else:
            e = np.zeros_like(e_tr)  # no spring: every tangential motion in contact is slip
        e = np.where(loaded, e, 0.0)
        slip_increment = np.where(loaded, e_tr - e, 0.0)
        if Kt > 0:
            slip_increment = np.where(stick, 0.0, slip_increment)  # exactly zero in stick

        on_f = on.astype(float)
        stick_f = stick.astype(float)
        slip_f = (slip & (rn_on >= 0.0)).astype(float) * mu * sign
        return _Trial(
            geometry=geo, dofs=dofs, wn=wn, wt=wt, on=on, loaded=loaded, stick=stick & loaded,
            slip=slip & loaded, rn=np.where(loaded, rn_on, 0.0), rt=np.where(loaded, rt_on, 0.0), e=e,
            slip_increment=slip_increment, kn=Kn * on_f, cn=Cn * on_f, kt=Kt * stick_f, ct=Ct * stick_f,
            ks=Kn * slip_f, cs=Cn * slip_f,
        )

    # ------------------------------------------------------------------------------ ForceTerm
    def evaluate(self, u: np.ndarray, v: np.ndarray, t: float, tangent: bool) -> TermForces:
        """Resisting force -(N^T R_N + T^T R_T) and its derivatives at the trial state (pure).

        The derivatives are None when no element is active (every node open)."""
        tr = self._trial(u, v)
        local = -(tr.rn[:, None] * tr.wn + tr.rt[:, None] * tr.wt)
        force = np.bincount(tr.dofs.ravel(), weights=local.ravel(), minlength=self.n_dofs)
        if not tangent or not tr.on.any():
            return TermForces(force)
        idx = np.flatnonzero(tr.on)
        dofs, wn, wt = tr.dofs[idx], tr.wn[idx], tr.wt[idx]
        m = dofs.shape[1]
        # CSR structure of the element blocks, shared by d_du and d_dv (duplicates of shared master
        # dofs are kept; scipy sums them in every operation)
        rows = np.broadcast_to(dofs[:, :, None], (idx.size, m, m)).ravel()
        cols = np.broadcast_to(dofs[:, None, :], (idx.size, m, m)).ravel()
        order = np.lexsort((cols, rows))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=self.n_dofs))])
        indices = cols[order]
        nn = np.einsum("si,sj->sij", wn, wn)
        tt = np.einsum("si,sj->sij", wt, wt)
        tn = np.einsum("si,sj->sij", wt, wn)

        def assemble(a, b, c):
            blocks = a[idx, None, None] * nn + b[idx, None, None] * tt + c[idx, None, None] * tn
            return sp.csr_matrix((blocks.ravel()[order], indices, indptr), shape=(self.n_dofs, self.n_dofs))

        return TermForces(force, assemble(tr.kn, tr.kt, tr.ks), assemble(tr.cn, tr.ct, tr.cs))

    def commit(self, u: np.ndarray, v: np.ndarray, t: float) -> None:
        """Store the converged step: elongation, u_n, cumulated slip, statuses, gap, R_N, R_T."""
        tr = self._trial(u, v)
        gap0 = self.zone.geometry(self.points, self._u_n).gap
        ds = np.einsum("sm,sm->s", tr.wt, (u - self._u_n)[tr.dofs])
        self._work = StepWork(contact=law_work(self._state.rn, tr.rn, tr.geometry.gap - gap0),
                              friction=law_work(self._state.rt, tr.rt, ds))
        status = np.full(self.zone.size, OPEN, dtype=np.int64)
        status[tr.stick] = STICK
        status[tr.slip] = SLIP
        changed = np.flatnonzero(status != self._status)
        if changed.size and logger.isEnabledFor(logging.INFO):
            for i in changed.tolist():
                logger.info("shock %s: node %d %s -> %s at t = %.9g s", self.zone.slave_group, int(self.zone.slave[i]),
                            STATUS_NAMES[self._status[i]], STATUS_NAMES[status[i]], t)
        self._status = status
        self._e = tr.e
        self._slip = self._slip + tr.slip_increment
        self._u_n = np.array(u, dtype=float, copy=True)
        geo = tr.geometry
        self._state = ContactState(self.zone.slave.copy(), status.copy(), geo.gap.copy(), tr.rn.copy(),
                                   tr.rt.copy(), self._slip.copy(), geo.normal.copy(), geo.tangent.copy())

    def set_phase(self, phase, u: np.ndarray) -> None:
        """Start a phase from displacement u: slip increments restart from u; the phase's friction
        (when given) replaces COULOMB, else the law's applies. Elongations and statuses are kept."""
        self._u_n = np.array(u, dtype=float, copy=True)
        friction = getattr(phase, "friction", None)
        self.friction = float(self.law.friction if friction is None else friction)

    def step_work(self) -> StepWork:
        """Energy the shock elements took over the last committed step [J] (fem.stage.energy), from the
        law's own variables: normal -sum <R_N> [g] (stored in the springs plus dissipated by the
        dashpots), tangential -sum <R_T> ds (Coulomb dissipation plus what the tangential springs
        store), trapezoidal means."""
        return self._work

    # ------------------------------------------------------------------------------ output
    def state(self) -> ContactState:
        """Contact state of the last commit (before any commit: open, geometry at u = 0)."""
        return self._state

    def stored_energy(self) -> float:
        """Energy [J] the springs store elastically at the last commit: 1/2 RIGI_NOR p^2 for each penetration
        p > 0 plus 1/2 RIGI_TAN e^2 for each tangential spring's elongation e (what they may give back
        without creating any: fem.stage.energy.CreationWatch)."""
        p = np.maximum(-np.asarray(self.state().gap, dtype=float), 0.0)
        p = np.where(np.isfinite(p), p, 0.0)
        return float(0.5 * self.law.normal_stiffness * np.sum(p * p)
                     + 0.5 * self.law.tangential_stiffness * np.sum(self.elongation ** 2))

    @property
    def elongation(self) -> np.ndarray:
        """Committed tangential spring elongations e (n_s,) [m] (a copy)."""
        return self._e.copy()
