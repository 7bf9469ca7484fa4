"""Nonlinear normal mode of a 1-dof oscillator on an elastic stop (SDND122), by shooting and continuation.

System (SI units: m [kg], k, K [N/m], gap g [m], x [m], t [s], E [J])::

    m x'' + k x + f_stop(x) = 0,      f_stop(x) = K (x - g)  if x > g,  0 otherwise

The stop law is the exact one-sided piecewise-linear law. (Code_Aster's MODE_NON_LINE regularises it
with PARA_REGUL = 5e-5; nothing is regularised here.) The energy is the total mechanical energy::

    E(x, v) = m v^2 / 2 + k x^2 / 2 + K max(x - g, 0)^2 / 2

The first contact (grazing) orbit has E0 = k g^2 / 2; below E0 the motion is linear, f0 = sqrt(k/m)/(2 pi).

Exact event-driven flow (why not a numerical integrator)
--------------------------------------------------------
In each regime the motion is harmonic about a centre c with circular frequency w:

* free (x <= g):    c = 0,                 w1 = sqrt(k / m)
* contact (x > g):  c = x_c = K g/(k+K),   w2 = sqrt((k + K) / m)

so with y = x - c, y(t) = y0 cos wt + (v0/w) sin wt. Writing y = R cos(theta), v = -R w sin(theta),
the regime is left when y reaches y_b = g - c: the free regime at theta = -alpha (moving up), the
contact regime at theta = +alpha (moving down), alpha = arccos(y_b / R). The switching instants, the
state and the state-transition matrix Phi(t) = dz(t)/dz(0) (z = (x, v)) are therefore available in
closed form, to round-off, with no step size and no event-location tolerance: this is why the flow is
evaluated this way rather than with solve_ivp (which the tests use only as an independent check).
Within a regime Phi = [[cos wt, sin(wt)/w], [-w sin wt, cos wt]]; at a switch the saltation matrix
S = I + (f+ - f-) n^T / (n . f-) is the identity because the stop force is continuous at x = g
(f+ - f- = 0): the monodromy is simply the product of the regime matrices.

Shooting and continuation
-------------------------
Every orbit is started at its lowest point, z0 = (x0, 0) with x0 = -sqrt(2 E / k) (always in the
free regime): the phase condition v(0) = 0 removes the time-shift invariance, and the energy fixes x0.
The shooting residual is the velocity after one period, r(E, T) = v(T; x0(E), 0) (the position
returns too, by energy conservation; it is checked). Its derivatives are exact:
dr/dT = a(T) = -(k x + f_stop(x))/m at z(T), dr/dE = Phi_21(T) dx0/dE with dx0/dE = 1 / (k x0).

* :func:`periodic_orbit` solves r(E, T) = 0 for T at fixed E (safeguarded Newton; the period lies
  in [pi/w1 + pi/w2, 2 pi/w1]).
* :func:`continue_branch` traces the frequency-energy branch from the grazing orbit (E0, T = 2 pi/w1)
  by pseudo-arclength continuation in scaled unknowns (e, tau) = (E/E0, T/T0), T0 = 2 pi/w1: predictor
  along the unit tangent t (null vector of [dr/de, dr/dtau]), corrector Newton on
  {r = 0, t . (y - y_prev) = ds}, adaptive ds. At grazing dr/de = 0 (Phi(T0) = I), so the branch
  leaves horizontally: f - f0 grows like (E - E0)^(3/2) since the force, hence the acceleration, is
  continuous at x = g.

Closed form (derived here; it corrects the one in Code_Aster's sdnd122a.comm)
----------------------------------------------------------------------------
With e~ = E / (k g^2), the free regime occupies T1 = (2/w1) arccos(-g/A), A = sqrt(2E/k), i.e.
tau1 = 2 arccos(-1/sqrt(2 e~)). The contact regime is entered at x = g with v_g^2 = (2E - k g^2)/m;
its amplitude about x_c is B^2 = (g - x_c)^2 + v_g^2/w2^2 = (2E(k+K) - k K g^2)/(k+K)^2 and it lasts
T2 = (2/w2) arccos((g - x_c)/B) = (2/w2) arccos(k g / sqrt(2E(k+K) - k K g^2)), i.e.::

    tau2 = 2 sqrt(k/(k+K)) arccos( sqrt( k / (2 e~ (k+K) - K) ) ),   T = sqrt(m/k) (tau1 + tau2)

(:func:`closed_form_frequency`). The Code_Aster test file (and the SDND122 document) write
2 e~ (k+K) instead of 2 e~ (k+K) - K under the square root, i.e. they drop the -k K g^2 term of B^2
(:func:`aster_formula_frequency`). At the tested energy 6.50108331626e-3 J that formula gives
0.646217 Hz where the exact value is 0.646631 Hz (6.4e-4 lower); a direct time integration
(tests/test_sdnd122.py) confirms the corrected value. Code_Aster's own harmonic-balance result
0.646694 Hz is 9.8e-5 above the exact value and 7.5e-4 above its flawed reference, inside the
test's 1e-3 PRECISION (the "TOLE_MACHINE to be explained, issue 24306" of the test file).

Floquet multipliers and what "stable" means here
------------------------------------------------
The monodromy M = Phi(T) of the orbit has det M = 1 (the flow preserves area) and M f(z0) = f(z0)
(the flow direction is carried onto itself: time-shift invariance of an autonomous system), so both
multipliers are exactly 1 -- the trivial pair of an autonomous conservative 1-dof system; the second
eigenvector does not exist (M is a Jordan block, the off-diagonal shear being the dependence of the
period on energy, dT/dE != 0). Numerically the pair is split by O(sqrt(round-off)) ~ 1e-8, hence the
test |mu| <= 1 + tol (tol = 1e-6 by default). "Stable" thus means spectrally (linearly) stable: no
multiplier outside the unit circle. For this system it is the orbital stability of a closed energy
level curve (neighbouring orbits stay on neighbouring closed curves, drifting in phase because the
period depends on E); no orbit of a 1-dof conservative oscillator can be unstable, so the whole
branch is stable. The SDND122 document's "stable" band 0.644-0.6475 Hz / 6.2e-3-6.9e-3 J is not a
stability boundary: it is the window where Code_Aster's CALC_STABILITE was run (FILTRE FREQ_MIN 0.64,
FREQ_MAX 0.65 in sdnd122a.comm); every point of it is stable here too.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np

log = logging.getLogger(__name__)

__all__ = [
    "StopOscillator", "PeriodicOrbit", "Branch", "floquet_multipliers", "periodic_orbit",
    "continue_branch", "closed_form_frequency", "aster_formula_frequency", "check_energy_range",
    "integrate_numerically",
]

_GRAZE_RTOL = 1e-12  # an amplitude within this of the gap only touches the stop (contact time ~ 1e-6 T)


@dataclass(frozen=True)
class StopOscillator:
    """Mass on a spring with a one-sided elastic stop beyond a gap (SDND122 defaults)."""

    mass: float = 1.0            # m [kg]
    stiffness: float = 10.0      # k [N/m], spring to the ground
    stop_stiffness: float = 50.0  # K [N/m], stop acting for x > gap
    gap: float = 0.01            # g [m], clearance between the rest position and the stop

    def __post_init__(self) -> None:
        for name, unit in (("mass", "kg"), ("stiffness", "N/m"), ("stop_stiffness", "N/m"), ("gap", "m")):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0 [{unit}], got {value!r}")

    # ---------------------------------------------------------------- regime constants
    @property
    def omega_free(self) -> float:
        """w1 = sqrt(k/m) [rad/s]."""
        return math.sqrt(self.stiffness / self.mass)

    @property
    def omega_contact(self) -> float:
        """w2 = sqrt((k + K)/m) [rad/s]."""
        return math.sqrt((self.stiffness + self.stop_stiffness) / self.mass)

    @property
    def contact_centre(self) -> float:
        """Equilibrium of the contact regime x_c = K g/(k + K) [m] (virtual: x_c < g)."""
        return self.stop_stiffness * self.gap / (self.stiffness + self.stop_stiffness)

    @property
    def first_contact_energy(self) -> float:
        """E0 = k g^2 / 2 [J]: the orbit of amplitude g grazes the stop."""
        return 0.5 * self.stiffness * self.gap**2

    @property
    def linear_frequency(self) -> float:
        """f0 = w1 / (2 pi) [Hz], the frequency of every orbit with E <= E0."""
        return self.omega_free / (2 * math.pi)

    @property
    def linear_period(self) -> float:
        """T0 = 2 pi / w1 [s]."""
        return 2 * math.pi / self.omega_free

    @property
    def high_energy_period(self) -> float:
        """Limit E -> infinity (gap negligible): pi/w1 + pi/w2 [s]; every period lies in [this, T0]."""
        return math.pi / self.omega_free + math.pi / self.omega_contact

    # ---------------------------------------------------------------- state functions
    def restoring_force(self, x):
        """k x + f_stop(x) [N]; the equation of motion is m x'' = -restoring_force(x)."""
        x = np.asarray(x, dtype=float)
        return self.stiffness * x + self.stop_stiffness * np.maximum(x - self.gap, 0.0)

    def energy(self, x, v):
        """Total mechanical energy m v^2/2 + k x^2/2 + K max(x - g, 0)^2/2 [J]."""
        x, v = np.asarray(x, dtype=float), np.asarray(v, dtype=float)
        return 0.5 * (self.mass * v**2 + self.stiffness * x**2
                      + self.stop_stiffness * np.maximum(x - self.gap, 0.0) ** 2)

    def rhs(self, t: float, z) -> np.ndarray:
        """dz/dt = (v, -(k x + f_stop(x))/m) for z = (x, v) (signature of scipy's solve_ivp)."""
        return np.array([z[1], -float(self.restoring_force(z[0])) / self.mass])

    def max_displacement(self, energy: float) -> float:
        """Largest x of the orbit of energy E [m] (positive root of the energy equation)."""
        k, K, g = self.stiffness, self.stop_stiffness, self.gap
        if energy <= self.first_contact_energy:
            return math.sqrt(2 * energy / k)
        return (K * g + math.sqrt((K * g) ** 2 - (k + K) * (K * g**2 - 2 * energy))) / (k + K)

    # ---------------------------------------------------------------- exact flow
    def _in_contact(self, x: float, v: float) -> bool:
        # on the stop surface the side is decided by the velocity; at rest on it the acceleration
        # -k g/m < 0 takes the mass into the free regime
        return x > self.gap or (x == self.gap and v > 0)

    def flow(self, state, t: float) -> tuple[np.ndarray, np.ndarray, float]:
        """Exact flow over a time t >= 0 from z = (x [m], v [m/s]).

        Returns
        -------
        z : (2,) state at time t.
        phi : (2, 2) state-transition matrix dz(t)/dz(0) (product of the regime matrices; the saltation
            matrices are identities because the force is continuous at x = g).
        contact_time : time spent in contact (x > g) [s].
        """
        x, v = float(state[0]), float(state[1])
        if not (t >= 0 and math.isfinite(t)):
            raise ValueError(f"flow time must be finite and >= 0 [s], got {t!r}")
        phi = np.eye(2)
        remaining, contact_time = float(t), 0.0
        contact = self._in_contact(x, v)
        entered = x == self.gap  # on the switching surface: the phase is the entry phase exactly
        n_switch_max = 4 * int(t / self.high_energy_period) + 8
        for _ in range(n_switch_max):
            w, c = (self.omega_contact, self.contact_centre) if contact else (self.omega_free, 0.0)
            y, yb = x - c, self.gap - c
            r = math.hypot(y, v / w)
            if not contact and r <= self.gap * (1 + _GRAZE_RTOL):
                duration = math.inf  # never reaches the stop (or only grazes it)
            else:
                alpha = math.acos(min(1.0, yb / r))
                if entered:
                    duration = 2 * alpha / w if contact else (2 * math.pi - 2 * alpha) / w
                else:
                    theta0 = math.atan2(-v / w, y)
                    target = alpha if contact else -alpha
                    duration = ((target - theta0) % (2 * math.pi)) / w
            step = min(duration, remaining)
            cs, sn = math.cos(w * step), math.sin(w * step)
            y, v = y * cs + v / w * sn, -y * w * sn + v * cs
            x = y + c
            phi = np.array([[cs, sn / w], [-w * sn, cs]]) @ phi
            if contact:
                contact_time += step
            remaining -= step
            if remaining <= 0.0:
                return np.array([x, v]), phi, contact_time
            x = self.gap  # snap onto the switching surface (removes the round-off of y + c)
            contact, entered = not contact, True
        raise RuntimeError(f"flow: more than {n_switch_max} regime switches over {t} s")  # pragma: no cover


# -------------------------------------------------------------------------------------------- Floquet
def floquet_multipliers(monodromy: np.ndarray, tol: float = 1e-6) -> tuple[np.ndarray, bool]:
    """Eigenvalues of the monodromy matrix and the stability flag max |mu| <= 1 + tol.

    For this conservative autonomous system both multipliers are 1 in exact arithmetic (see the module
    docstring); the Jordan structure splits them by ~sqrt(round-off), which tol absorbs.
    """
    mu = np.linalg.eigvals(np.asarray(monodromy, dtype=float))
    return mu, bool(np.max(np.abs(mu)) <= 1 + tol)


# -------------------------------------------------------------------------------------------- orbits
@dataclass(frozen=True)
class PeriodicOrbit:
    """Periodic orbit (nonlinear normal mode point) of energy E."""

    energy: float                 # E [J]
    period: float                 # T [s]
    initial_state: np.ndarray     # z0 = (x0, 0), x0 = -sqrt(2E/k) the lowest point [m, m/s]
    monodromy: np.ndarray         # Phi(T), (2, 2)
    multipliers: np.ndarray       # Floquet multipliers, (2,) complex
    stable: bool                  # max |mu| <= 1 + tol
    contact_time: float           # time per period with x > g [s]
    return_error: float           # |z(T) - z0| / (|x0| + |x0| w1), dimensionless
    iterations: int               # Newton iterations of the shooting

    @property
    def frequency(self) -> float:
        """f = 1/T [Hz]."""
        return 1.0 / self.period


def _check_energy(osc: StopOscillator, energy: float) -> None:
    e0 = osc.first_contact_energy
    if not (isinstance(energy, (int, float)) and math.isfinite(energy)):
        raise ValueError(f"energy must be a finite number [J], got {energy!r}")
    if energy < e0 * (1 - 1e-14):
        raise ValueError(f"energy {energy:.6g} J is below first contact E0 = k gap^2/2 = {e0:.6g} J: "
                         f"the orbit does not reach the stop (linear mode, f = {osc.linear_frequency:.6g} Hz)")


def check_energy_range(osc: StopOscillator, energy: float, e_max: float) -> None:
    """Raise ValueError unless E0 <= energy < e_max (the continued branch must contain energy)."""
    _check_energy(osc, energy)
    if not (isinstance(e_max, (int, float)) and math.isfinite(e_max)):
        raise ValueError(f"e_max must be a finite number [J], got {e_max!r}")
    if e_max <= energy:
        raise ValueError(f"e_max = {e_max:.6g} J must be > energy = {energy:.6g} J (end of the continued branch)")


def _shoot(osc: StopOscillator, energy: float, period: float):
    """Residual r = v(T) and its derivatives (dr/dE, dr/dT) for the orbit started at (x0(E), 0)."""
    x0 = -math.sqrt(2 * energy / osc.stiffness)
    z, phi, tc = osc.flow((x0, 0.0), period)
    acc = -float(osc.restoring_force(z[0])) / osc.mass
    dr_dE = phi[1, 0] / (osc.stiffness * x0)
    return z[1], dr_dE, acc, z, phi, tc, x0


def _orbit(osc: StopOscillator, energy: float, period: float, iterations: int, tol: float) -> PeriodicOrbit:
    _, _, _, z, phi, tc, x0 = _shoot(osc, energy, period)
    z0 = np.array([x0, 0.0])
    scale = abs(x0) * (1 + osc.omega_free)
    mu, stable = floquet_multipliers(phi, tol)
    return PeriodicOrbit(energy, period, z0, phi, mu, stable, tc,
                         float(np.linalg.norm(z - z0) / scale), iterations)


def periodic_orbit(osc: StopOscillator, energy: float, period_guess: float | None = None,
                   rtol: float = 1e-14, max_iterations: int = 50, stability_tol: float = 1e-6) -> PeriodicOrbit:
    """Shoot the periodic orbit of energy E [J] (E >= E0): solve v(T; x0(E), 0) = 0 for the period T.

    Safeguarded Newton on T inside the bracket [pi/w1 + pi/w2, 2 pi/w1] (slightly widened), where the
    velocity at the lowest point changes sign exactly once (from < 0 to > 0); dv/dT = a(T) exactly.
    Converged when |v(T)| <= rtol * w1 |x0|.
    """
    _check_energy(osc, energy)
    energy = max(float(energy), osc.first_contact_energy)
    lo, hi = osc.high_energy_period * (1 - 1e-9), osc.linear_period * (1 + 1e-9)
    period = min(max(period_guess if period_guess is not None else 0.5 * (lo + hi), lo), hi)
    vscale = osc.omega_free * math.sqrt(2 * energy / osc.stiffness)
    for it in range(1, max_iterations + 1):
        r, _, drdT, *_ = _shoot(osc, energy, period)
        if abs(r) <= rtol * vscale:
            return _orbit(osc, energy, period, it - 1, stability_tol)
        if r < 0:
            lo = period
        else:
            hi = period
        step = period - r / drdT if drdT > 0 else math.nan
        period = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo <= 4 * np.spacing(hi):
            return _orbit(osc, energy, period, it, stability_tol)
    raise RuntimeError(f"shooting did not converge at E = {energy:.6g} J after {max_iterations} iterations "
                       f"(|v(T)| = {abs(r):.3e} m/s)")


# -------------------------------------------------------------------------------------------- branch
@dataclass(frozen=True)
class Branch:
    """Frequency-energy branch of the nonlinear mode, one row per continuation point."""

    energy: np.ndarray        # E [J], (n,)
    period: np.ndarray        # T [s], (n,)
    multipliers: np.ndarray   # Floquet multipliers, (n, 2) complex
    stable: np.ndarray        # (n,) bool
    return_error: np.ndarray  # (n,) dimensionless
    iterations: np.ndarray    # corrector Newton iterations per point, (n,)
    rejected_steps: int = 0   # continuation steps retried with a smaller ds
    orbits: list = field(default_factory=list, repr=False)  # PeriodicOrbit per point

    @property
    def frequency(self) -> np.ndarray:
        """f = 1/T [Hz], (n,)."""
        return 1.0 / self.period


def continue_branch(osc: StopOscillator, e_max: float, ds: float = 0.02, ds_min: float = 1e-6,
                    ds_max: float = 0.25, rtol: float = 1e-13, max_corrector: int = 12,
                    stability_tol: float = 1e-6, max_points: int = 100000) -> Branch:
    """Pseudo-arclength continuation of the NNM branch from first contact E0 to e_max [J].

    Unknowns y = (E/E0, T/T0), residual r(y) = v(T; x0(E), 0) / (w1 g). Predictor y + ds t (t the unit
    tangent, oriented towards increasing energy); corrector Newton on [r(y); t.(y - y_prev) - ds]; ds
    grows x1.5 after a corrector of <= 3 iterations, is halved on failure (down to ds_min). The last
    point is solved at exactly e_max by :func:`periodic_orbit`. ds, ds_min, ds_max are dimensionless
    arclengths in the (E/E0, T/T0) plane.
    """
    e0, t0 = osc.first_contact_energy, osc.linear_period
    if not (isinstance(e_max, (int, float)) and math.isfinite(e_max)):
        raise ValueError(f"e_max must be a finite number [J], got {e_max!r}")
    if e_max <= e0:
        raise ValueError(f"e_max = {e_max:.6g} J must be > first contact E0 = k gap^2/2 = {e0:.6g} J")
    vref = osc.omega_free * osc.gap

    def residual(y):
        r, dr_dE, dr_dT, *_ = _shoot(osc, y[0] * e0, y[1] * t0)
        return r / vref, np.array([dr_dE * e0, dr_dT * t0]) / vref

    def tangent(jac, previous):
        t = np.array([jac[1], -jac[0]])
        t /= np.linalg.norm(t)
        return -t if t @ previous < 0 else t

    y = np.array([1.0, 1.0])  # grazing orbit: E = E0, T = T0 exactly
    points = [(y.copy(), 0)]
    _, jac = residual(y)
    tan = tangent(jac, np.array([1.0, 0.0]))
    rejected = 0
    e_end = e_max / e0
    while y[0] < e_end and len(points) < max_points:
        y_new, its = None, 0
        yp = y + ds * tan
        if yp[0] < e_end:
            yc = yp.copy()
            for its in range(1, max_corrector + 1):
                r, jac = residual(yc)
                g = np.array([r, tan @ (yc - y) - ds])
                if abs(r) <= rtol and abs(g[1]) <= 1e-12:
                    y_new = yc
                    break
                dy = np.linalg.solve(np.vstack([jac, tan]), -g)
                yc = yc + dy
                if not np.all(np.isfinite(yc)) or yc[0] < 1.0 or not (0.4 < yc[1] < 1.0 + 1e-9):
                    break
            if y_new is None or y_new[0] <= y[0]:
                rejected += 1
                ds *= 0.5
                if ds < ds_min:
                    raise RuntimeError(f"continuation stalled at E = {y[0] * e0:.6g} J (ds < {ds_min})")
                continue
        else:  # the predictor passes e_max: land exactly on it
            orbit = periodic_orbit(osc, e_max, period_guess=yp[1] * t0, stability_tol=stability_tol)
            y_new, its = np.array([e_end, orbit.period / t0]), orbit.iterations
        _, jac = residual(y_new)
        tan = tangent(jac, tan)
        y = y_new
        points.append((y.copy(), its))
        if its <= 3:
            ds = min(ds * 1.5, ds_max)
        elif its > 6:
            ds *= 0.5
    orbits = [_orbit(osc, p[0] * e0, p[1] * t0, its, stability_tol) for p, its in points]
    log.info("branch E0 -> %.4g J: %d points, %d rejected steps", e_max, len(orbits), rejected)
    return Branch(
        energy=np.array([o.energy for o in orbits]),
        period=np.array([o.period for o in orbits]),
        multipliers=np.array([o.multipliers for o in orbits]),
        stable=np.array([o.stable for o in orbits]),
        return_error=np.array([o.return_error for o in orbits]),
        iterations=np.array([its for _, its in points]),
        rejected_steps=rejected,
        orbits=orbits,
    )


# -------------------------------------------------------------------------------------------- closed forms
def _taus(osc: StopOscillator, energy, corrected: bool):
    k, K, m = osc.stiffness, osc.stop_stiffness, osc.mass
    et = np.asarray(energy, dtype=float) / (k * osc.gap**2)
    if np.any(et < 0.5 * (1 - 1e-14)):
        raise ValueError(f"energy below first contact E0 = k gap^2/2 = {osc.first_contact_energy:.6g} J")
    et = np.maximum(et, 0.5)
    tau1 = 2 * np.arccos(np.maximum(-1 / np.sqrt(2 * et), -1.0))
    denom = 2 * et * (k + K) - (K if corrected else 0.0)
    tau2 = 2 * np.sqrt(k / (k + K)) * np.arccos(np.minimum(np.sqrt(k / denom), 1.0))
    return 1.0 / (np.sqrt(m / k) * (tau1 + tau2))


def closed_form_frequency(osc: StopOscillator, energy):
    """Exact frequency of the orbit of energy E >= E0 [Hz] (module docstring)::

        e~ = E/(k g^2),  tau1 = 2 arccos(-1/sqrt(2 e~)),
        tau2 = 2 sqrt(k/(k+K)) arccos(sqrt(k / (2 e~ (k+K) - K))),  f = 1 / (sqrt(m/k) (tau1 + tau2))
    """
    return _taus(osc, energy, corrected=True)


def aster_formula_frequency(osc: StopOscillator, energy):
    """The reference formula of Code_Aster's sdnd122a-c.comm [Hz] (drops the -K term: see module docstring)::

        tau2 = 2 sqrt(k/(k+K)) arccos(sqrt(k / (2 e~ (k+K))))
    """
    return _taus(osc, energy, corrected=False)


# -------------------------------------------------------------------------------------------- independent check
def integrate_numerically(osc: StopOscillator, state, t: float, rtol: float = 1e-12) -> np.ndarray:
    """State after time t [s] by scipy's solve_ivp (DOP853), independent of the closed-form flow.

    Each smooth piece is integrated separately: a terminal event at x = g stops the integration at
    every switch, so that the kink of the force never sits inside a step (which would cap the order of
    the method). Absolute tolerance rtol * (|x0| + g) on x, rtol * w1 (|x0| + g) on v.
    """
    from scipy.integrate import solve_ivp

    z = np.asarray(state, dtype=float).copy()
    scale = abs(z[0]) + abs(z[1]) / osc.omega_free + osc.gap
    atol = rtol * scale * np.array([1.0, osc.omega_free])

    t_now = 0.0
    while t_now < t:
        # the regime is left through x = g upwards (free) or downwards (contact); a directed event
        # does not fire at a start on the surface itself
        def hit(_t, y):
            return y[0] - osc.gap

        hit.terminal = True
        hit.direction = -1.0 if osc._in_contact(z[0], z[1]) else 1.0
        sol = solve_ivp(osc.rhs, (t_now, t), z, method="DOP853", rtol=rtol, atol=atol, events=hit)
        if sol.status == -1:  # pragma: no cover
            raise RuntimeError(f"solve_ivp failed: {sol.message}")
        z, t_now = sol.y[:, -1].copy(), sol.t[-1]
        if sol.status == 1:
            z[0] = osc.gap  # on the surface; _in_contact picks the new regime from the velocity sign
    return z
