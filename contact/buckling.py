"""Buckling shock element: Code_Aster DIS_CHOC with RELATION='FLAMBAGE', as a :class:`ForceTerm`.

A buckling element sits at every slave node of a zone (:func:`contact.zone.node_zone` against a
:class:`~contact.zone.RigidPlane` or master segments, or :func:`contact.zone.node_pairs` for Code_Aster's
``BI_PLAN`` between two nodes) and carries a normal force only. The gap g (JEU included) and its
rows N = dg/du come from ``zone.geometry(points, u)``; penetration p = -g, rate dp/dt = -N v.

Normal law (undamped part)
--------------------------
Parameters (Code_Aster keywords): K = RIGI_NOR, F_c = FNOR_CRIT, F_p = FNOR_POST_FL, L = LARG_PLAT,
E = ENFO_FL, tables D_j = DEPL_POST_FL, k_j = RIGI_POST_FL (same length, possibly empty).
Characteristic penetrations::

    p1 = F_c / K          elastic limit (buckling)
    d0 = p1 + L           end of the plateau at F_c
    d1 = d0 + E           end of the linear fall from F_c to F_p

Envelope (first loading) F_env(p) = K p (p < p1), F_c (p1 <= p < d0), F_c + (F_p - F_c)(p - d0)/E
(d0 <= p < d1), F_p (p >= d1). With L = E = 0 (SDND105 a) the force drops from F_c to F_p at p1.

Internal variable: the maximum crush reached, p_max (Code_Aster's DEFMAX). It fixes the residual
(plastic) crush r(p_max) (Code_Aster's DEFPLA, ECRAS_RESI) and the unloading / reloading line, the
straight line from (r, 0) to (p_max, F_env(p_max)), of slope k_u = F_env(p_max) / (p_max - r)::

    r(p_max) = 0                  p_max <= p1   (elastic: k_u = K)
             = p_max - p1         p1 < p_max <= d0   (plateau: k_u = K)
             = L                  d0 < p_max <= d1   (fall)
             = interp(p_max, T, R)                    (post-buckling table)
             = R_last + (p_max - T_last)             beyond the table (Code_Aster alarm ALGORITH5_86)

The post-buckling table (Code_Aster dtmprep_noli_flam / mdflam) is R = [L, D_1, ..., D_n] (residual
crushes) against the *total* crushes T_j = R_j + F_p / k_j with k_0 = F_p / (d1 - L) (so T_0 = d1):
each DEPL_POST_FL value is a residual crush, reached when the element is unloaded (with stiffness
RIGI_POST_FL) from the total crush D_j + F_p / k_j. For SDND105 c (K = F_c = 1, F_p = 0.5, L = E = 1,
D = [2, 3, 4, 5], k = [0.2, 0.15, 0.125, 0.1]): T = [3, 4.5, 6.333, 8, 10]; at p_max = 6.5 the
weight between 6.333 and 8 is 0.1, so r = 3.1 and k_u = 0.5 / 3.4 (= 1 / interp of 1 / k).
With no table (SDND105 a: L = E = 0), k_0 = F_p / p1 = 0.5: from p_max = 4 the residual is 3.

Force: F_el(p) = k_u (p - r) for r <= p <= p_max, with p_max = max(committed p_max, p) (loading
beyond the committed maximum follows the envelope, whatever the sign of the velocity); 0 for
p < r (separated; no tension).

Damping (AMOR_NOR, AMOR_FL, AMOR_POST_FL, CRIT_AMOR)
------------------------------------------------------
Read from Code_Aster's source (mdflam.F90, 2022) and restated in terms of p_max: the damping
coefficient c(p_max) is AMOR_NOR up to the end of the plateau, goes linearly from AMOR_NOR to
AMOR_FL over the fall, then is interpolated in [AMOR_FL, AMOR_POST_FL...] at the total crushes T
(constant beyond). AMOR_FL defaults to AMOR_NOR, AMOR_POST_FL to AMOR_FL. Then::

    EXCLUS:  F = max(0, F_el + c dp/dt)                     (buckling criterion on the elastic force)
    INCLUS:  F = max(0, min(F_el + c dp/dt, F_cap(p)))      (damping counted in the criterion)

with F_cap(p) = F_c for p < d0 (before buckling too), the fall line for d0 <= p < d1, F_p beyond:
with INCLUS the total force never exceeds the envelope, buckling starts as soon as K p + c dp/dt
reaches F_c, and a loading beyond p_max (dp/dt > 0) carries no viscous force. Differences with Code_Aster's
explicit-step implementation: Code_Aster decides loading versus unloading from the velocity sign
and updates DEFPLA only on loading steps; here the state is a function of p_max alone (rate
independent), which is what the analytic solutions assume.

Returned (resisting) force and consistent tangent
--------------------------------------------------
f = -N^T F, df/du = N^T diag(dF/dp) N, df/dv = N^T diag(dF/d(dp/dt)) N, with on the loading branch
(p > committed p_max) dF/dp = F_env'(p) + c'(p) dp/dt (F_env' = K, 0, (F_p - F_c)/E, 0: negative on
the fall), on the unloading line dF/dp = k_u; dF/d(dp/dt) = c. Where the INCLUS cap acts,
dF/dp = F_cap'(p) and dF/d(dp/dt) = 0; where the force is cut at 0, both vanish. At p = r to
round-off the force is zero but the tangent is the right limit, as in :mod:`contact.penalty`.
With L = E = 0 the force jumps at p1: the implicit step that contains the jump averages it (an
energy error up to (F_c - F_p) |dp/dt| dt / 2), so a finer step around buckling pays off.

``evaluate`` never changes committed variables; ``commit`` stores p_max, the buckled flag and the
buckling instant (the first time K p + c_incl dp/dt reaches F_c, c_incl = AMOR_NOR with INCLUS and 0
with EXCLUS, located inside the step on the cubic Hermite interpolant of p), the force and the gap.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from fem.stage.phase import TermForces

from contact.state import OPEN, STICK, ContactState
from contact.zone import node_coordinates, zone_of

logger = logging.getLogger(__name__)

CRITERIA = ("INCLUS", "EXCLUS")

# branch codes (BucklingState.branch)
SEPARATED, ELASTIC, PLATEAU, FALL, POST, UNLOADING = range(6)
BRANCH_NAMES = ("separated", "elastic", "plateau", "fall", "post-buckling", "unloading")


def _as_tuple(values, name: str) -> tuple[float, ...]:
    try:
        out = tuple(float(x) for x in np.atleast_1d(np.asarray(values, dtype=float)))
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a list of numbers, got {values!r}") from None
    return out


@dataclass(frozen=True)
class BucklingLaw:
    """Parameters of the FLAMBAGE law (Code_Aster keywords in capitals).

    Attributes
    ----------
    stiffness : RIGI_NOR [N/m], > 0.
    critical_force : FNOR_CRIT [N], > 0.
    post_force : FNOR_POST_FL [N], 0 < F_p <= F_c.
    plateau : LARG_PLAT [m], >= 0.
    fall : ENFO_FL [m], >= 0.
    post_displacements : DEPL_POST_FL [m], residual crushes, non-decreasing, >= LARG_PLAT.
    post_stiffnesses : RIGI_POST_FL [N/m], > 0, same length; the total crushes
        DEPL_POST_FL + F_p / RIGI_POST_FL must increase (after d1).
    damping : AMOR_NOR [N s/m], >= 0.
    fall_damping : AMOR_FL [N s/m], >= 0 (None: AMOR_NOR).
    post_dampings : AMOR_POST_FL [N s/m], >= 0, same length as the tables (None: AMOR_FL each).
    criterion : CRIT_AMOR, 'INCLUS' (damping counted in the buckling criterion) or 'EXCLUS'.

    As a pair's law (:mod:`contact.laws`, ``Buckling``): :meth:`build` makes the elements of a pair.
    """

    scheme = "newmark"  # a position-level law: Newmark/HHT steps

    stiffness: float
    critical_force: float
    post_force: float
    plateau: float = 0.0
    fall: float = 0.0
    post_displacements: tuple[float, ...] = ()
    post_stiffnesses: tuple[float, ...] = ()
    damping: float = 0.0
    fall_damping: float | None = None
    post_dampings: tuple[float, ...] | None = None
    criterion: str = "INCLUS"
    # derived tables, computed once
    _res: np.ndarray = field(init=False, repr=False, compare=False)
    _tot: np.ndarray = field(init=False, repr=False, compare=False)
    _amor: np.ndarray = field(init=False, repr=False, compare=False)
    _points: tuple[float, float, float] = field(init=False, repr=False, compare=False)

    def build(self, model, slave: str, master, located: bool = False, clearance: float = 0.0) -> "BucklingShocks":
        """The buckling elements of a pair: at the nodes of ``slave`` against a rigid plane, a master
        line group or the nodes of a :class:`contact.zone.BiPlane` (contact.zone.zone_of), JEU
        ``clearance`` [m]. ``located`` is not used (the element locates its buckling instant itself)."""
        return BucklingShocks(model, zone_of(model.mesh, slave, master, clearance), self)

    def __post_init__(self) -> None:
        def positive(name, value, unit, strict):
            v = float(value)
            if not (np.isfinite(v) and (v > 0 if strict else v >= 0)):
                raise ValueError(f"{name} must be {'>' if strict else '>='} 0 {unit}, got {value!r}")
            return v

        K = positive("RIGI_NOR (normal stiffness)", self.stiffness, "N/m", True)
        Fc = positive("FNOR_CRIT (critical force)", self.critical_force, "N", True)
        Fp = positive("FNOR_POST_FL (post-buckling force)", self.post_force, "N", True)
        if Fp > Fc:
            raise ValueError(f"FNOR_POST_FL (post-buckling force, {Fp:g} N) must not exceed FNOR_CRIT "
                             f"(critical force, {Fc:g} N)")
        L = positive("LARG_PLAT (plateau width)", self.plateau, "m", False)
        E = positive("ENFO_FL (fall depth)", self.fall, "m", False)
        D = _as_tuple(self.post_displacements, "DEPL_POST_FL")
        k = _as_tuple(self.post_stiffnesses, "RIGI_POST_FL")
        if len(D) != len(k):
            raise ValueError(f"DEPL_POST_FL ({len(D)} values) and RIGI_POST_FL ({len(k)} values) must have the "
                             "same length")
        for x in D:
            positive("DEPL_POST_FL (post-buckling residual crushes)", x, "m", False)
        for x in k:
            positive("RIGI_POST_FL (post-buckling stiffnesses)", x, "N/m", True)
        C = positive("AMOR_NOR (normal damping)", self.damping, "N s/m", False)
        Cf = C if self.fall_damping is None else positive("AMOR_FL (fall damping)", self.fall_damping, "N s/m", False)
        if self.post_dampings is None:
            Cp = (Cf,) * len(D)
        else:
            Cp = _as_tuple(self.post_dampings, "AMOR_POST_FL")
            if len(Cp) != len(D):
                raise ValueError(f"AMOR_POST_FL ({len(Cp)} values) must have the length of DEPL_POST_FL and "
                                 f"RIGI_POST_FL ({len(D)})")
            for x in Cp:
                positive("AMOR_POST_FL (post-buckling damping)", x, "N s/m", False)
        if self.criterion not in CRITERIA:
            raise ValueError(f"CRIT_AMOR must be 'INCLUS' or 'EXCLUS', got {self.criterion!r}")
        res = np.array((L, *D))
        if np.any(np.diff(res) < 0):
            raise ValueError(f"DEPL_POST_FL must be increasing and not below LARG_PLAT ({L:g} m): got {list(D)}")
        d1 = Fc / K + L + E
        k_all = np.array((Fp / (d1 - L), *k))
        tot = res + Fp / k_all
        if np.any(np.diff(tot) <= 0):
            raise ValueError(
                "the post-buckling table is not increasing: the total crushes DEPL_POST_FL + FNOR_POST_FL / "
                f"RIGI_POST_FL, after the end of the fall at {d1:g} m, must increase; got {tot.tolist()}")
        for name, value in (("stiffness", K), ("critical_force", Fc), ("post_force", Fp), ("plateau", L),
                            ("fall", E), ("post_displacements", D), ("post_stiffnesses", k), ("damping", C),
                            ("post_dampings", None if self.post_dampings is None else Cp)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_res", res)
        object.__setattr__(self, "_tot", tot)
        object.__setattr__(self, "_amor", np.array((Cf, *Cp)))
        object.__setattr__(self, "_points", (Fc / K, Fc / K + L, d1))

    # ---------------------------------------------------------------------------- characteristic points
    @property
    def p1(self) -> float:
        """Elastic limit F_c / K [m]."""
        return self._points[0]

    @property
    def d0(self) -> float:
        """End of the plateau [m]."""
        return self._points[1]

    @property
    def d1(self) -> float:
        """End of the fall [m]."""
        return self._points[2]

    @property
    def total_crushes(self) -> np.ndarray:
        """Abscissae T of the post-buckling table (total crushes) [m], starting at d1."""
        return self._tot.copy()

    @property
    def residual_crushes(self) -> np.ndarray:
        """Ordinates R of the post-buckling table (residual crushes) [m], starting at LARG_PLAT."""
        return self._res.copy()

    @property
    def damping_in_criterion(self) -> bool:
        return self.criterion == "INCLUS"

    @property
    def damping_table(self) -> np.ndarray:
        """Damping at the total crushes T: [AMOR_FL, AMOR_POST_FL...] with the defaults resolved."""
        return self._amor.copy()

    # ---------------------------------------------------------------------------- law functions
    # (np.where chains rather than np.select: the arrays are small and this runs at every iteration)
    def _fall_slope(self) -> float:
        return (self.post_force - self.critical_force) / self.fall if self.fall > 0 else 0.0

    def envelope(self, p):
        """First-loading force F_env(p) [N] and its derivative, arrays like p (0 for p <= 0)."""
        p = np.asarray(p, dtype=float)
        K, Fc, Fp, s = self.stiffness, self.critical_force, self.post_force, self._fall_slope()
        f = np.where(p < self.d1, np.where(p < self.d0, np.where(p < self.p1, K * np.maximum(p, 0.0), Fc),
                                           Fc + s * (p - self.d0)), Fp)
        df = np.where(p < self.d1, np.where(p < self.d0, np.where(p < self.p1, np.where(p < 0, 0.0, K), 0.0), s), 0.0)
        return f, df

    def cap(self, p):
        """INCLUS bound on the total force F_cap(p) [N] and its derivative."""
        p = np.asarray(p, dtype=float)
        Fc, Fp, s = self.critical_force, self.post_force, self._fall_slope()
        f = np.where(p < self.d1, np.where(p < self.d0, Fc, Fc + s * (p - self.d0)), Fp)
        df = np.where(p < self.d1, np.where(p < self.d0, 0.0, s), 0.0)
        return f, df

    def _table(self, pm, values):
        """Linear interpolation of ``values`` at the total crushes T, and its slope (0 outside)."""
        tot = self._tot
        v = np.interp(pm, tot, values)
        if tot.size < 2:
            return v, np.zeros_like(pm)
        j = np.clip(np.searchsorted(tot, pm, side="right") - 1, 0, tot.size - 2)
        slope = np.diff(values)[j] / np.diff(tot)[j]
        return v, np.where((pm > tot[0]) & (pm < tot[-1]), slope, 0.0)

    def residual(self, p_max):
        """Residual crush r(p_max) [m] and dr/dp_max."""
        pm = np.asarray(p_max, dtype=float)
        tot, res = self._tot, self._res
        r_tab, s_tab = self._table(pm, res)
        beyond = pm > tot[-1]
        r = np.where(pm <= self.d1, np.where(pm <= self.d0, np.maximum(pm - self.p1, 0.0), self.plateau),
                     np.where(beyond, res[-1] + (pm - tot[-1]), r_tab))
        dr = np.where(pm <= self.d1, np.where(pm <= self.d0, np.where(pm <= self.p1, 0.0, 1.0), 0.0),
                      np.where(beyond, 1.0, s_tab))
        return r, dr

    def unloading_stiffness(self, p_max):
        """Slope k_u(p_max) [N/m] of the unloading / reloading line."""
        pm = np.asarray(p_max, dtype=float)
        f, _ = self.envelope(pm)
        r, _ = self.residual(pm)
        return np.where(pm > self.p1, f / np.where(pm > self.p1, pm - r, 1.0), self.stiffness)

    def damping_coefficient(self, p_max):
        """Damping c(p_max) [N s/m] and dc/dp_max."""
        pm = np.asarray(p_max, dtype=float)
        C, Cf = self.damping, self._amor[0]
        s = (Cf - C) / self.fall if self.fall > 0 else 0.0
        c_tab, s_tab = self._table(pm, self._amor)
        c = np.where(pm <= self.d0, C, np.where(pm < self.d1, C + s * (pm - self.d0), c_tab))
        dc = np.where(pm <= self.d0, 0.0, np.where(pm < self.d1, s, s_tab))
        return c, dc

    def envelope_work(self, p):
        """Work int_0^p F_env dq [J] of a monotonic loading to p (area under the envelope)."""
        p = np.asarray(p, dtype=float)
        K, Fc, Fp = self.stiffness, self.critical_force, self.post_force
        p1, d0, d1 = self.p1, self.d0, self.d1
        q = np.clip(p, 0.0, p1)
        w = 0.5 * K * q * q
        w = w + Fc * np.clip(p - p1, 0.0, d0 - p1)
        q = np.clip(p - d0, 0.0, d1 - d0)
        w = w + Fc * q + 0.5 * self._fall_slope() * q * q
        return w + Fp * np.maximum(p - d1, 0.0)

    def released_energy(self, p_max):
        """Elastic energy given back by a full unloading from p_max [J] (the unloading triangle)."""
        f, _ = self.envelope(p_max)
        r, _ = self.residual(p_max)
        return 0.5 * f * (np.asarray(p_max, dtype=float) - r)

    def force(self, p, pdot, p_max_committed):
        """The law at trial (p, dp/dt) from committed p_max (arrays of the same shape).

        Returns (F, dF/dp, dF/d(dp/dt), p_max, branch), F >= 0 [N]. ``p`` may be -inf (unpaired).
        """
        p = np.asarray(p, dtype=float)
        pdot = np.asarray(pdot, dtype=float)
        pm_c = np.asarray(p_max_committed, dtype=float)
        finite = np.isfinite(p)
        pf = np.where(finite, p, 0.0)
        loading = finite & (pf > pm_c)
        pm = np.where(loading, pf, pm_c)
        r, _ = self.residual(pm)
        f_env_pm, _ = self.envelope(pm)
        k_u = np.where(pm > self.p1, f_env_pm / np.where(pm > self.p1, pm - r, 1.0), self.stiffness)
        f_env, df_env = self.envelope(pf)
        f_el = np.where(loading, f_env, k_u * (pf - r))
        df_el = np.where(loading, df_env, k_u)
        if self.damping > 0 or np.any(self._amor > 0):
            c, dc = self.damping_coefficient(pm)
            fv = f_el + c * pdot
            dfv_dp = df_el + np.where(loading, dc * pdot, 0.0)
            dfv_dv = c
        else:
            fv, dfv_dp, dfv_dv = f_el, df_el, np.zeros_like(pf)
        if self.damping_in_criterion:
            f_cap, df_cap = self.cap(pf)
            capped = fv > f_cap
            fv = np.where(capped, f_cap, fv)
            dfv_dp = np.where(capped, df_cap, dfv_dp)
            dfv_dv = np.where(capped, 0.0, dfv_dv)
        # active from the closed side (p >= r to round-off): right-limit tangent at p = r
        tol = 64.0 * np.finfo(float).eps * (np.abs(pf) + np.abs(r) + self.d1)
        on = finite & (pf >= r - tol)
        live = on & (fv >= 0.0)  # a negative total force is cut to 0 (no tension)
        F = np.where(live, np.maximum(fv, 0.0), 0.0)
        dF_dp = np.where(live, dfv_dp, 0.0)
        dF_dv = np.where(live, dfv_dv, 0.0)
        branch = np.where(~on | ((F <= 0.0) & (pf <= r)), SEPARATED,
                          np.where(~loading, UNLOADING,
                                   np.where(pf < self.p1, ELASTIC,
                                            np.where(pf < self.d0, PLATEAU, np.where(pf < self.d1, FALL, POST)))))
        return F, dF_dp, dF_dv, pm, branch


# ------------------------------------------------------------------------------------ the element
@dataclass(frozen=True)
class BucklingState:
    """Per element (arrays (n_s,)), after the last commit.

    nodes : slave nodes. gap [m] (JEU included), penetration p = -gap [m], rate dp/dt [m/s],
    force F [N] (>= 0, compression), max_crush p_max [m], residual_crush r(p_max) [m] (ECRAS_RESI),
    unloading_stiffness k_u [N/m], buckled (bool), t_buckle [s] (INST_FLAMB, NaN if not buckled),
    branch (SEPARATED, ELASTIC, PLATEAU, FALL, POST, UNLOADING; see BRANCH_NAMES).
    """

    nodes: np.ndarray
    gap: np.ndarray
    penetration: np.ndarray
    rate: np.ndarray
    force: np.ndarray
    max_crush: np.ndarray
    residual_crush: np.ndarray
    unloading_stiffness: np.ndarray
    buckled: np.ndarray
    t_buckle: np.ndarray
    branch: np.ndarray


def _hermite(s, p0, v0, p1, v1, h):
    """Cubic Hermite interpolant of p and its derivative at s in [0, 1] over a step of length h."""
    h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
    d00, d10, d01, d11 = 6 * s**2 - 6 * s, 3 * s**2 - 4 * s + 1, -6 * s**2 + 6 * s, 3 * s**2 - 2 * s
    p = h00 * p0 + h10 * h * v0 + h01 * p1 + h11 * h * v1
    v = (d00 * p0 + d01 * p1) / h + d10 * v0 + d11 * v1
    return p, v


class BucklingShocks:
    """FLAMBAGE shock elements at the slave nodes of ``zone`` (a :class:`fem.time.dynamics.ForceTerm`).

    Parameters
    ----------
    model_or_mesh_points : :class:`fem.model.assembly.Model`, :class:`fem.mesh.mesh.Mesh` or node coordinates (n, 2).
    zone : :func:`contact.zone.node_zone` (rigid plane or master segments) or :func:`node_pairs`.
    law : :class:`BucklingLaw`.
    """

    def __init__(self, model_or_mesh_points, zone, law: BucklingLaw) -> None:
        if not isinstance(law, BucklingLaw):
            raise TypeError(f"law must be a BucklingLaw, got {type(law).__name__}")
        self.points = node_coordinates(model_or_mesh_points, "BucklingShocks")
        self.n_dofs = 2 * self.points.shape[0]
        if zone.size and int(zone.slave.max()) >= self.points.shape[0]:
            raise ValueError(f"zone {zone.slave_group!r} has node {int(zone.slave.max())} but the mesh has only "
                             f"{self.points.shape[0]} nodes")
        self.zone = zone
        self.law = law
        ns = zone.size
        self._pm = np.zeros(ns)
        self._buckled = np.zeros(ns, dtype=bool)
        self._t_buckle = np.full(ns, np.nan)
        self._beyond_table = np.zeros(ns, dtype=bool)
        self._prev: tuple[float, np.ndarray, np.ndarray | None] | None = None  # (t, p, dp/dt) last commit
        geo = zone.geometry(self.points, np.zeros(self.n_dofs))
        zeros = np.zeros(ns)
        self._state = BucklingState(zone.slave.copy(), geo.gap.copy(), -geo.gap, zeros.copy(), zeros.copy(),
                                    zeros.copy(), zeros.copy(), np.full(ns, law.stiffness), self._buckled.copy(),
                                    self._t_buckle.copy(), np.full(ns, SEPARATED))
        self._normal = geo.normal.copy()
        self._tangent = geo.tangent.copy()

    # ------------------------------------------------------------------------------ kinematics
    def _kinematics(self, u: np.ndarray, v: np.ndarray):
        """Geometry, local rows (dofs (n_s, m), values w (n_s, m) of N = dg/du), p and dp/dt."""
        geo = self.zone.geometry(self.points, u)
        s = geo.slave
        xy = np.arange(2)
        if np.all(geo.master[:, 0] < 0):  # rigid plane: the slave node only
            dofs = 2 * s[:, None] + xy
            w = geo.normal
        else:  # master segment (or the other node of a pair): slave, first and second master node
            m = np.where(geo.master < 0, 0, geo.master)
            dofs = np.concatenate([2 * s[:, None] + xy, 2 * m[:, :1] + xy, 2 * m[:, 1:] + xy], axis=1)
            weight = np.stack([np.ones_like(geo.xi), -(1.0 - geo.xi), -geo.xi], axis=1)
            weight[geo.master[:, 0] < 0, 1:] = 0.0
            w = (weight[:, :, None] * geo.normal[:, None, :]).reshape(-1, 6)
        p = -geo.gap
        pdot = -np.einsum("sm,sm->s", w, v[dofs])
        return geo, dofs, w, p, pdot

    def _matrix(self, dofs: np.ndarray, w: np.ndarray, coef: np.ndarray) -> sp.csr_matrix:
        """sum_s coef_s w_s w_s^T on the element dofs, as CSR (n_dofs, n_dofs)."""
        idx = np.flatnonzero(coef)
        d, ww = dofs[idx], w[idx]
        m = d.shape[1]
        rows = np.broadcast_to(d[:, :, None], (idx.size, m, m)).ravel()
        cols = np.broadcast_to(d[:, None, :], (idx.size, m, m)).ravel()
        vals = (coef[idx, None, None] * ww[:, :, None] * ww[:, None, :]).ravel()
        order = np.lexsort((cols, rows))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=self.n_dofs))])
        return sp.csr_matrix((vals[order], cols[order], indptr), shape=(self.n_dofs, self.n_dofs))

    # ------------------------------------------------------------------------------ ForceTerm
    def evaluate(self, u: np.ndarray, v: np.ndarray, t: float, tangent: bool) -> TermForces:
        """Resisting force -N^T F and its derivatives at the trial state (pure)."""
        _, dofs, w, p, pdot = self._kinematics(u, v)
        F, dF_dp, dF_dv, _, _ = self.law.force(p, pdot, self._pm)
        force = np.bincount(dofs.ravel(), weights=(-F[:, None] * w).ravel(), minlength=self.n_dofs)
        if not tangent:
            return TermForces(force)
        d_du = self._matrix(dofs, w, dF_dp) if np.any(dF_dp) else None
        d_dv = self._matrix(dofs, w, dF_dv) if np.any(dF_dv) else None
        return TermForces(force, d_du, d_dv)

    def commit(self, u: np.ndarray, v: np.ndarray, t: float) -> None:
        """Store the converged step: p_max, buckled flag and instant, force, gap."""
        law = self.law
        geo, _, _, p, pdot = self._kinematics(u, v)
        F, _, _, pm, branch = law.force(p, pdot, self._pm)
        c_incl = law.damping if law.damping_in_criterion else 0.0
        finite = np.isfinite(p)
        criterion = np.where(finite, law.stiffness * np.where(finite, p, 0.0) + c_incl * pdot, -np.inf)
        newly = ~self._buckled & ((pm >= law.p1) | ((p >= 0) & (criterion >= law.critical_force)))
        for i in np.flatnonzero(newly):
            self._t_buckle[i] = self._buckling_instant(i, t, p[i], pdot[i], c_incl)
            logger.info("buckling element %s: node %d buckles at t = %.9g s", self.zone.slave_group,
                        int(self.zone.slave[i]), self._t_buckle[i])
        self._buckled = self._buckled | newly
        beyond = (pm > law._tot[-1]) & (len(law.post_displacements) > 0)  # no table: F_p with k_0, no alarm
        for i in np.flatnonzero(beyond & ~self._beyond_table):
            logger.warning("buckling element %s: node %d crushed to %.6g m, beyond the post-buckling table "
                           "(last total crush %.6g m): residual crush extrapolated with slope 1 (Code_Aster "
                           "ALGORITH5_86)", self.zone.slave_group, int(self.zone.slave[i]), pm[i], law._tot[-1])
        self._beyond_table |= beyond
        self._pm = pm
        r, _ = law.residual(pm)
        self._state = BucklingState(self.zone.slave.copy(), geo.gap.copy(), p.copy(), pdot.copy(), F.copy(),
                                    pm.copy(), r, law.unloading_stiffness(pm), self._buckled.copy(),
                                    self._t_buckle.copy(), branch)
        self._normal, self._tangent = geo.normal.copy(), geo.tangent.copy()
        self._prev = (float(t), p.copy(), pdot.copy())

    def _buckling_instant(self, i: int, t1: float, p1: float, v1: float, c_incl: float) -> float:
        """First instant in the last step where K p + c_incl dp/dt reaches F_c (or p reaches p1)."""
        law = self.law
        if self._prev is None:
            return t1
        t0, p_prev, v_prev = self._prev
        p0 = p_prev[i]
        v0 = v_prev[i] if v_prev is not None else (p1 - p0) / max(t1 - t0, 1e-300)
        h = t1 - t0
        if not (np.isfinite(p0) and h > 0):
            return t1

        def phi(s):
            p, v = _hermite(s, p0, v0, p1, v1, h)
            if c_incl > 0:
                return law.stiffness * p + c_incl * v - law.critical_force
            return p - law.p1

        f0, f1 = phi(0.0), phi(1.0)
        if f0 >= 0.0:
            return t0
        if f1 < 0.0:  # reached through p_max >= p1 only on the interpolant's round-off
            return t1
        from scipy.optimize import brentq  # imported on use (issue 40: start-up)

        return t0 + h * brentq(phi, 0.0, 1.0, xtol=1e-14, rtol=1e-14)

    def set_phase(self, phase, u: np.ndarray) -> None:
        """Start a phase from displacement u. Internal variables are kept. The buckling instant of
        the first step is located from the last commit when the phase continues from it (chained
        phases), else from u with the velocity unknown (linear interpolation in that step)."""
        p = -self.zone.geometry(self.points, np.asarray(u, dtype=float)).gap
        t = float(getattr(phase, "t_start", 0.0))
        if self._prev is not None and np.array_equal(self._prev[1], p) and self._prev[0] == t:
            return
        self._prev = (t, p, None)

    # ------------------------------------------------------------------------------ output
    def buckling_state(self) -> BucklingState:
        """State of the last commit."""
        return self._state

    def state(self) -> ContactState:
        """The common contact state (status STICK while the element carries force, OPEN otherwise;
        rn = F; no tangential force) for :mod:`contact.output`."""
        s = self._state
        ns = s.nodes.size
        status = np.where(s.force > 0, STICK, OPEN).astype(np.int64)
        return ContactState(s.nodes.copy(), status, s.gap.copy(), s.force.copy(), np.zeros(ns), np.zeros(ns),
                            self._normal.copy(), self._tangent.copy())

    @property
    def max_crush(self) -> np.ndarray:
        """Committed p_max (n_s,) [m] (a copy)."""
        return self._pm.copy()
