"""Event-driven rigid-body reference for the rocking block of SDNV105 (document §2.1.1).

A rigid rectangular block, half width ``b``, half height ``l``, rests on a rigid floor. It is
released at rest from a tilt ``theta_in`` about one bottom corner, rocks back, hits the floor with
the other corner, rocks about that corner, and so on. No sliding, no bouncing: between impacts the
block turns about one corner; an impact is instantaneous and swaps the pivot.

Conventions
-----------
* Corner ``O`` is the bottom-left corner, ``A`` the bottom-right one (SDNV105: O = (0, 0),
  A = (2b, 0)). ``theta`` is the rotation of the block, counter-clockwise positive:
  ``theta > 0`` = rocking about O (A lifted), ``theta < 0`` = rocking about A (O lifted).
  The release (SDNV105: DX(C1) = -0.008 m) is ``theta = +theta_in`` about O; the first impact is
  on A, the second on O, ...
* ``alpha = atan(b/l)`` is the slenderness angle, ``R = sqrt(b^2 + l^2)`` the corner-to-centre
  distance, ``M = 4 rho b l e``, ``J_G = M R^2 / 3``, ``J_O = J_G + M R^2 = 4 M R^2 / 3``.
* ``omega = theta'``; the lifted corner of a block rocking with ``|theta|`` is at height
  ``2 b sin|theta|`` (exact for a rigid rotation about the pivot).
* Reactions are the forces of the floor **on the block** at the pivot: ``R_N`` vertical (> 0 in
  compression), ``R_T`` horizontal, positive along +x. The document writes the horizontal
  reaction at O as ``H_O = M l theta'' < 0``: same magnitude, opposite sign convention (Code_Aster's
  RX is along the master line CONBAS, which runs right to left).

Equations of motion (``phi = |theta|`` >= 0 is the tilt about the current pivot)
-------------------------------------------------------------------------------
``model="nonlinear"`` (exact rigid rocking, document §2.1 with zero table acceleration)::

    J_O theta'' = -sgn(theta) M g R sin(alpha - |theta|)   i.e.  J_O phi'' = -M g R sin(alpha - phi)

``model="linear"`` (linear in the angle, exact corner geometry: sin(alpha - phi) ~ (b - l phi)/R)::

    J_O phi'' = -M g (b - l phi)
    phi(t) = b/l - (b/l - theta_in) cosh(lambda t),   lambda^2 = M g l / J_O = 3 g l / (4 R^2)

  **This is the equation that gives the document's first impact instant**:
  ``cosh(lambda t1) = (b/l) / (b/l - theta_in)`` -> t1 = 0.0544097764 s for SDNV105 (document:
  0.05440978 s). The exact nonlinear equation gives 0.0544108 s; the constant-torque model below
  0.0539034 s.

``model="constant"`` (order zero in the angle: constant restoring torque, the document's
"first order" formulas ``t_coll``-intervals, ``theta'(t_coll) ~ 3 b g t_coll / (4 R^2)``,
``E_kin = M g b theta_in``)::

    J_O phi'' = -M g b

  With Housner's law it reproduces exactly the *first comment set* of the sdnv105a file
  (0.0539034, 0.134478, 0.194700, 0.23971, 0.27335 s) and the document's kinetic energies
  7.37398, 4.1192, 2.3010, 1.2854, 0.7180 J and percussion 48.73 N s.

Impact law (document §2.1.1, Housner's law)::

    omega+ = r omega-,   r = (2 R^2 - 3 b^2) / (2 R^2) = 1 - 3/2 sin^2(alpha) = 0.747401 (SDNV105)

which is the conservation of the angular momentum about the impacting corner, with an impulse at
that corner only. ``restitution=e`` replaces ``r`` by a user coefficient on the angular velocity;
for ``e != r`` the angular-momentum balance then needs a vertical impulse at the corner that lifts
off, ``P_lift = J_O (e - r) |omega-| / (2 b)`` (> 0, i.e. compressive, for ``e > r``), reported.

Energies: kinetic ``J_O omega^2 / 2``; potential (relative to the flat position)
``M g (R cos(alpha - phi) - l)`` (nonlinear), ``M g (b phi - l phi^2 / 2)`` (linear),
``M g b phi`` (constant). The total is conserved between impacts; each impact multiplies the
kinetic energy by ``e^2`` (0.5586086 for SDNV105 with Housner's law).

Reactions at the pivot (Newton's law for the centre of mass, pivot frame)::

    x_G = b cos(phi) - l sin(phi),  y_G = b sin(phi) + l cos(phi)
    R_N = M (g + phi'' x_G - phi'^2 y_G),   R_T(pivot frame) = M (-phi'' y_G - phi'^2 x_G)

(``model="constant"`` uses the matching order-zero kinematics x_G = b, y_G = l, no centripetal
term, which gives the document's constant values). The document's ``F_O = M g (1 - 3 b^2/(4 R^2))
= 3579.25 N`` and ``|H_O| = 3 M g b l / (4 R^2) = 1149.79 N`` (ratio ``3 b l / (4 R^2 - 3 b^2) =
0.3212``) are these reactions in the limit ``phi -> 0, phi' -> 0`` (infinitesimal tilt); see
:func:`first_order_reactions`. The exact rigid-body ``R_N`` decreases during a flight from
``M g (1 - M x_G(theta_in)^2 / J_O) ~ 3602 N`` at release to ``~ 3556 N`` just before impact.

Percussions (impulse-momentum balance over the instantaneous impact, pivot frame, impacting corner
``C``): ``I_y = M b (|omega+| + |omega-|)`` (total vertical impulse = ``(4R^2 - 3b^2)/(2R^2) M b
|omega-|`` for Housner), ``I_x = M l (|omega+| - |omega-|)``, ``|I_x| / I_y = 0.3212`` for Housner.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

MODELS = ("nonlinear", "linear", "constant")

# docs/references.md, "SDNV105: the post-processed quantities and the test values",
# and the benchmark document, Tables 2.1 and 2.3
DOC_T1 = 0.05440978
DOC_RIGID_TIMES = (0.05440978, 0.13574, 0.196529, 0.241961, 0.27592)
DOC_RIGID_KE = (7.373981, 4.119169, 2.301003, 1.28536, 0.718013)
DOC_RESTIT_TIMES = (0.05440978, 0.138201, 0.202720, 0.252400, 0.29065)
DOC_RESTIT_KE = (7.373981, 4.6021, 2.8722, 1.7925, 1.1187)
DOC_COMMENT_SET_1 = (0.0539034, 0.134478, 0.194700, 0.23971, 0.27335)
DOC_COMMENT_SET_2 = (0.05565, 0.1403, 0.20956, 0.2639, 0.3081)
DOC_RN = 3580.0
DOC_RT = 1150.0
DOC_RT_OVER_RN = 0.3212
DOC_PERCUSSION_1 = 48.73
DOC_RESTIT_ENERGY = 0.79  # document §2.1.2: mean sqrt(KE+/KE-) over 5 impacts of Code_Aster
DOC_RESTIT_TIME = 0.77  # document §2.1.2: mean ratio of successive time intervals


@dataclass(frozen=True)
class RigidBlock:
    """Geometry, mass and inertia of the block (per unit of ``thickness``)."""

    b: float
    l: float
    rho: float = 1450.0
    thickness: float = 1.0
    g: float = 9.81

    def __post_init__(self):
        for name in ("b", "l", "rho", "thickness", "g"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float, np.floating, np.integer)) and math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a finite positive number, got {v!r}")

    @property
    def mass(self) -> float:
        return 4.0 * self.rho * self.b * self.l * self.thickness

    @property
    def weight(self) -> float:
        return self.mass * self.g

    @property
    def R(self) -> float:
        return math.hypot(self.b, self.l)

    @property
    def alpha(self) -> float:
        """Slenderness angle atan(b/l): the block overturns beyond this tilt."""
        return math.atan2(self.b, self.l)

    @property
    def J_G(self) -> float:
        return self.mass * (self.b**2 + self.l**2) / 3.0

    @property
    def J_O(self) -> float:
        return self.J_G + self.mass * self.R**2

    @property
    def housner_r(self) -> float:
        """Document's impact law omega+/omega- = (2R^2 - 3b^2)/(2R^2) = 1 - 3/2 sin^2(alpha)."""
        return 1.0 - 1.5 * self.b**2 / self.R**2

    @property
    def p(self) -> float:
        """Rocking frequency parameter sqrt(M g R / J_O) = sqrt(3 g / (4 R)) (document: 4.0956 1/s)."""
        return math.sqrt(self.weight * self.R / self.J_O)

    @property
    def lam(self) -> float:
        """lambda = sqrt(M g l / J_O) of the linear-in-angle equation."""
        return math.sqrt(self.weight * self.l / self.J_O)

    # --- model pieces (phi = |theta| >= 0) -------------------------------------------------
    def phi_ddot(self, phi, model: str):
        if model == "nonlinear":
            return -self.weight * self.R * np.sin(self.alpha - phi) / self.J_O
        if model == "linear":
            return -self.weight * (self.b - self.l * phi) / self.J_O
        if model == "constant":
            return -self.weight * self.b / self.J_O + 0.0 * phi
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")

    def potential(self, phi, model: str):
        """Potential energy relative to the flat position."""
        if model == "nonlinear":
            return self.weight * (self.R * np.cos(self.alpha - phi) - self.l)
        if model == "linear":
            return self.weight * (self.b * phi - 0.5 * self.l * phi**2)
        if model == "constant":
            return self.weight * self.b * phi
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")

    def phi_max(self, energy: float, model: str) -> float:
        """Tilt where the potential energy equals ``energy`` (apex of a flight)."""
        if energy <= 0:
            return 0.0
        if model == "nonlinear":
            return self.alpha - math.acos((self.l + energy / self.weight) / self.R)
        if model == "linear":
            return (self.b - math.sqrt(self.b**2 - 2.0 * self.l * energy / self.weight)) / self.l
        return energy / (self.weight * self.b)

    def pivot_reactions(self, phi, phidot, model: str):
        """(R_N, R_T in the pivot frame) for tilt phi >= 0, rate phidot about the pivot.

        The pivot frame has x pointing from the pivot towards the block (+x at O, -x at A)."""
        phi = np.asarray(phi, float)
        phidot = np.asarray(phidot, float)
        acc = self.phi_ddot(phi, model)
        if model == "constant":  # order-zero kinematics, consistent with the constant torque
            xg, yg, w2 = self.b, self.l, 0.0
        else:
            xg = self.b * np.cos(phi) - self.l * np.sin(phi)
            yg = self.b * np.sin(phi) + self.l * np.cos(phi)
            w2 = phidot**2
        rn = self.mass * (self.g + acc * xg - w2 * yg)
        rt = self.mass * (-acc * yg - w2 * xg)
        return rn, rt


def first_order_reactions(block: RigidBlock) -> dict:
    """The document's reactions: the rigid-body pivot reactions at phi = 0, phi' = 0.

    F = M g (1 - 3 b^2 / (4 R^2)) (3579.25 N), |H| = 3 M g b l / (4 R^2) (1149.79 N),
    |H| / F = 3 b l / (4 R^2 - 3 b^2) (0.3212)."""
    R2 = block.R**2
    rn = block.weight * (1.0 - 0.75 * block.b**2 / R2)
    rt = 0.75 * block.weight * block.b * block.l / R2
    return {"R_N": rn, "R_T_abs": rt, "ratio": rt / rn}


def linear_first_impact(b: float, l: float, theta_in: float, g: float = 9.81) -> float:
    """Closed form of the document's first impact instant (linear-in-angle equation):
    t1 = acosh((b/l) / (b/l - theta_in)) / lambda, lambda^2 = 3 g l / (4 R^2)."""
    lam = math.sqrt(3.0 * g * l / (4.0 * (b * b + l * l)))
    return math.acosh((b / l) / (b / l - theta_in)) / lam


def document_recurrence(t1: float, ke1: float, time_ratio: float, energy_ratio: float, n: int = 5):
    """The document's reconstruction of later impacts (§2.1.1-2.1.2), exactly:
    Delta t_{k -> k+1} = 2 t1 time_ratio^k and E_k = ke1 energy_ratio^(2(k-1)).

    * Rigid set (Table 2.1): t1 = linear-model instant 0.05440978, time_ratio = energy_ratio = r
      (Housner 0.7474) -> 0.05440978, 0.13574, 0.196529, 0.241961, 0.27592 s.
    * "Restitution" set (Table 2.3): time_ratio = 0.77, energy_ratio = 0.79 (two different
      coefficients, both quoted in §2.1.2) -> 0.138201, 0.202720, 0.252400, 0.29065 s.
    The interval 2 t1 r^k is the constant-torque flight time 8 R^2 omega+_k / (3 b g) with
    omega-_1 = 3 b g t1 / (4 R^2), evaluated with the *linear-model* t1 - a hybrid of two models."""
    times = [t1]
    for k in range(1, n):
        times.append(times[-1] + 2.0 * t1 * time_ratio**k)
    kes = [ke1 * energy_ratio ** (2 * k) for k in range(n)]
    return tuple(times), tuple(kes)


@dataclass(frozen=True)
class _Flight:
    t0: float
    t1: float
    sign: int  # +1: rocking about O (theta = +phi), -1: about A (theta = -phi)
    sol: object = field(repr=False, compare=False)


@dataclass(frozen=True)
class RockingResult:
    """Event-driven rigid-body rocking history. Index k = 0 .. n-1 refers to impact k + 1;
    flight k (0 .. n-1) is the free rocking that ends with impact k + 1 (flight 0 = from release)."""

    block: RigidBlock
    theta_in: float
    model: str
    restitution: float  # coefficient used on omega (Housner's r if restitution=None)
    restitution_law: str
    impact_times: tuple
    impact_corner: tuple  # "A" or "O": the corner that hits the floor
    pivot: tuple  # pivot during flight k
    omega_before: tuple  # signed theta' just before impact k
    omega_after: tuple
    ke_before: tuple
    ke_after: tuple
    energy_ratio: tuple  # ke_after / ke_before
    theta_max: tuple  # amplitude |theta| of flight k (flight 0: theta_in)
    uplift: tuple  # max vertical displacement of the lifted corner in flight k: 2 b sin(theta_max)
    corner_velocity_before: tuple  # vertical velocity of the impacting corner just before impact
    percussion_normal: tuple  # vertical impulse at the impacting corner [N s]
    percussion_lift: tuple  # vertical impulse at the corner that lifts off (0 for Housner's law)
    percussion_tangential: tuple  # total horizontal impulse on the block, global +x [N s]
    rn_max: tuple  # per flight: extremes of the pivot reactions
    rn_min: tuple
    rt_abs_max: tuple
    rt_over_rn_max: tuple
    flights: tuple = field(repr=False, compare=False)

    # --- derived views -------------------------------------------------------------------
    @property
    def ke_max(self) -> tuple:
        """Kinetic-energy maxima: the kinetic energy peaks just before each impact."""
        return self.ke_before

    @property
    def ke_max_times(self) -> tuple:
        return self.impact_times

    @property
    def intervals(self) -> tuple:
        t = self.impact_times
        return tuple(t[k + 1] - t[k] for k in range(len(t) - 1))

    @property
    def mass(self) -> float:
        return self.block.mass

    # --- evaluation along the history ------------------------------------------------------
    def _locate(self, t):
        t = np.atleast_1d(np.asarray(t, float))
        t_end = self.flights[-1].t1
        if np.any(t < 0) or np.any(t > t_end * (1 + 1e-12)):
            raise ValueError(f"t must lie in [0, {t_end:.9g}] (release to last computed impact)")
        starts = np.array([f.t0 for f in self.flights])
        idx = np.clip(np.searchsorted(starts, t, side="right") - 1, 0, len(self.flights) - 1)
        return t, idx

    def state(self, t):
        """(theta, omega) at times t (arrays), theta signed (> 0 about O).

        At an impact instant the post-impact state is returned (the history is right-continuous)."""
        return self._per_flight(t, lambda f, y: (f.sign * y[0], f.sign * y[1]))

    def _per_flight(self, t, fn):
        """Evaluate fn(flight, y) -> (a, b) on the flight of each instant, y = (phi, phi') from the
        flight's dense output; returns the arrays (a, b) over t."""
        t, idx = self._locate(t)
        a, b = np.empty_like(t), np.empty_like(t)
        for k, f in enumerate(self.flights):
            m = idx == k
            if np.any(m):
                a[m], b[m] = fn(f, f.sol(t[m]))
        return a, b

    def energies(self, t):
        """(kinetic, potential) energies at times t."""
        theta, omega = self.state(t)
        return 0.5 * self.block.J_O * omega**2, self.block.potential(np.abs(theta), self.model)

    def reactions(self, t):
        """(R_N, R_T) at the pivot at times t: force of the floor on the block, R_T along +x."""
        def pivot(f, y):
            rn, rt_local = self.block.pivot_reactions(y[0], y[1], self.model)
            return rn, f.sign * rt_local

        return self._per_flight(t, pivot)

    def window_extremes(self, t0: float, t1: float, n: int = 4001) -> dict:
        """Extremes of the pivot reactions over t0 <= t <= t1 (like Code_Aster's windowed MAX/MIN).

        The window should not contain an impact (the reactions are impulsive there)."""
        if not 0 <= t0 < t1:
            raise ValueError("need 0 <= t0 < t1")
        t = np.linspace(t0, t1, n)
        rn, rt = self.reactions(t)
        return {
            "t0": t0, "t1": t1,
            "R_N_max": float(rn.max()), "t_R_N_max": float(t[rn.argmax()]),
            "R_N_min": float(rn.min()), "t_R_N_min": float(t[rn.argmin()]),
            "R_T_max": float(rt.max()), "R_T_min": float(rt.min()),
            "R_T_over_R_N_max": float(np.max(np.abs(rt) / rn)),
        }

    def summary(self) -> dict:
        keys = ("impact_times", "impact_corner", "pivot", "omega_before", "omega_after", "ke_before",
                "ke_after", "energy_ratio", "theta_max", "uplift", "corner_velocity_before",
                "percussion_normal", "percussion_lift", "percussion_tangential", "rn_max", "rn_min",
                "rt_abs_max", "rt_over_rn_max")
        out = {"model": self.model, "theta_in": self.theta_in, "restitution": self.restitution,
               "restitution_law": self.restitution_law, "mass": self.block.mass, "R": self.block.R,
               "alpha": self.block.alpha, "J_G": self.block.J_G, "J_O": self.block.J_O}
        out.update({k: list(getattr(self, k)) for k in keys})
        return out


def rock(b: float, l: float, theta_in: float, g: float = 9.81, rho: float = 1450.0,
         thickness: float = 1.0, n_impacts: int = 5, restitution: float | None = None,
         model: str = "nonlinear", rtol: float = 1e-12, n_samples: int = 801) -> RockingResult:
    """Rock a rigid block released at rest from ``theta_in`` about corner O; stop at impact ``n_impacts``.

    ``restitution=None`` applies the document's (Housner's) law omega+ = (1 - 3 b^2/(2 R^2)) omega-;
    a number e in [0, 1] applies omega+ = e omega- (e = 0: the block stops at the first impact).
    ``n_samples`` points per flight are used for the reaction extremes of each flight."""
    block = RigidBlock(b, l, rho, thickness, g)
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if not (isinstance(theta_in, (int, float, np.floating)) and math.isfinite(theta_in)
            and 0.0 < theta_in < block.alpha):
        raise ValueError(f"theta_in must lie in (0, alpha = atan(b/l) = {block.alpha:.6g}) rad "
                         f"(beyond alpha the block overturns), got {theta_in!r}")
    if isinstance(n_impacts, bool) or not isinstance(n_impacts, (int, np.integer)) or n_impacts < 1:
        raise ValueError(f"n_impacts must be an integer >= 1, got {n_impacts!r}")
    if restitution is None:
        e = block.housner_r
        law = "document (Housner): omega+ = (1 - 3 b^2 / (2 R^2)) omega-"
        if e <= 0:
            raise ValueError(f"the document's impact law gives r = 1 - 3 b^2/(2 R^2) = {e:.4g} <= 0 for "
                             f"b/l = {b / l:.4g} >= sqrt(2): a block this squat does not rock onto the other "
                             "corner; pass restitution=0 to stop it at the first impact")
    else:
        if not (isinstance(restitution, (int, float, np.floating)) and math.isfinite(restitution)
                and 0.0 <= restitution <= 1.0):
            raise ValueError(f"restitution must lie in [0, 1], got {restitution!r}")
        e = float(restitution)
        law = "user: omega+ = e omega-"
    if not 0 < rtol < 1e-3:
        raise ValueError("rtol must lie in (0, 1e-3)")

    def rhs(_t, y):
        return (y[1], block.phi_ddot(y[0], model))

    def hit(_t, y):
        return y[0]

    hit.terminal = True
    hit.direction = -1

    rec = {k: [] for k in ("t", "corner", "pivot", "wm", "wp", "kem", "kep", "amp", "up", "vc", "pn",
                           "pl", "pt", "rnmax", "rnmin", "rtmax", "ratio")}
    flights = []
    t0, phi0, w0, sign = 0.0, float(theta_in), 0.0, +1
    J, M = block.J_O, block.mass
    a0 = block.weight * block.b / J  # constant-model deceleration, for the time-bound estimate
    for _k in range(n_impacts):
        amp = phi0 if w0 == 0.0 else block.phi_max(0.5 * J * w0**2, model)
        t_bound = 50.0 * (math.sqrt(2.0 * amp / a0) + 2.0 * w0 / a0) + 10.0
        from scipy.integrate import solve_ivp  # imported on use (issue 40: start-up)

        sol = solve_ivp(rhs, (t0, t0 + t_bound), (phi0, w0), method="DOP853", rtol=rtol,
                        atol=1e-14 * max(1.0, amp), events=hit, dense_output=True)
        if sol.status != 1 or len(sol.t_events[0]) == 0:
            raise RuntimeError(f"no impact found within {t_bound:.3g} s of t = {t0:.6g} s ({sol.message})")
        t_imp = float(sol.t_events[0][0])
        wm = float(sol.y_events[0][0][1])  # phi' < 0 just before impact
        flights.append(_Flight(t0, t_imp, sign, sol.sol))
        # reaction extremes over the flight
        ts = np.linspace(t0, t_imp, n_samples)
        y = sol.sol(ts)
        rn, rt = block.pivot_reactions(np.maximum(y[0], 0.0), y[1], model)
        rec["rnmax"].append(float(rn.max()))
        rec["rnmin"].append(float(rn.min()))
        rec["rtmax"].append(float(np.abs(rt).max()))
        rec["ratio"].append(float(np.max(np.abs(rt) / rn)))
        rec["amp"].append(amp)
        rec["up"].append(2.0 * block.b * math.sin(amp))
        # impact on the other corner
        wminus = -wm  # |omega-| > 0
        wplus = e * wminus
        rec["t"].append(t_imp)
        rec["pivot"].append("O" if sign > 0 else "A")
        rec["corner"].append("A" if sign > 0 else "O")
        rec["wm"].append(sign * wm)  # theta' = sign * phi'
        rec["wp"].append(sign * wm * e)  # same sense of rotation, continues about the new corner
        rec["kem"].append(0.5 * J * wminus**2)
        rec["kep"].append(0.5 * J * wplus**2)
        rec["vc"].append(-2.0 * block.b * wminus)
        iy = M * block.b * (wplus + wminus)  # total vertical impulse
        p_lift = J * (e - block.housner_r) * wminus / (2.0 * block.b)
        rec["pn"].append(iy - p_lift)
        rec["pl"].append(p_lift)
        rec["pt"].append(sign * M * block.l * (wplus - wminus))  # pivot-frame x -> global x
        if wplus == 0.0:
            break
        t0, phi0, w0, sign = t_imp, 0.0, wplus, -sign

    return RockingResult(
        block=block, theta_in=float(theta_in), model=model, restitution=e, restitution_law=law,
        impact_times=tuple(rec["t"]), impact_corner=tuple(rec["corner"]), pivot=tuple(rec["pivot"]),
        omega_before=tuple(rec["wm"]), omega_after=tuple(rec["wp"]), ke_before=tuple(rec["kem"]),
        ke_after=tuple(rec["kep"]),
        energy_ratio=tuple(p / m for p, m in zip(rec["kep"], rec["kem"])),
        theta_max=tuple(rec["amp"]), uplift=tuple(rec["up"]), corner_velocity_before=tuple(rec["vc"]),
        percussion_normal=tuple(rec["pn"]), percussion_lift=tuple(rec["pl"]),
        percussion_tangential=tuple(rec["pt"]), rn_max=tuple(rec["rnmax"]), rn_min=tuple(rec["rnmin"]),
        rt_abs_max=tuple(rec["rtmax"]), rt_over_rn_max=tuple(rec["ratio"]), flights=tuple(flights),
    )


def fit_restitution(target_time: float, b: float, l: float, theta_in: float, impact: int = 2,
                    model: str = "nonlinear", **kw) -> float:
    """Restitution e (on omega) for which impact number ``impact`` occurs at ``target_time``."""
    from scipy.optimize import brentq

    def f(e):
        return rock(b, l, theta_in, n_impacts=impact, restitution=e, model=model, **kw).impact_times[-1] - target_time

    return brentq(f, 0.05, 1.0, xtol=1e-13)
