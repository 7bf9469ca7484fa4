"""Overturning spectrum of a rigid block under a one-sine pulse (Zhang and Makris 2001, "Rocking
response of free-standing blocks under cycloidal pulses", J. Eng. Mech. 127;
docs/references.md, "A rigid block rocking on a moving base").

The table acceleration is the one-sine pulse (sign of :mod:`contact.references.rocking_base`: a positive a_g
tips the block towards theta < 0, about corner A)::

    a_g(t) = a_p sin(omega_p t)   for 0 <= t <= T_p = 2 pi / omega_p,   a_g(t) = 0 after,

and the block is the exact rigid rocking model of :func:`contact.references.rocking_base.rock_under_base_motion`
(no sliding, no jumping, Housner's impact law ``omega+ = e omega-``, ``e = 1 - 3/2 sin^2 alpha``,
overturned when ``|theta|`` reaches ``min(2 alpha, pi/2)``). The spectrum's coordinates are
dimensionless:

* frequency ratio ``omega_p / p``, ``p = sqrt(3 g / (4 R))`` [1/s], ``R = sqrt(b^2 + l^2)``;
* amplitude ratio ``a_p / (g tan alpha)``, ``tan alpha = b / l``: the block lifts iff it exceeds 1
  in absolute value.

Each point falls in one of :data:`MODES`: the block survives, overturns after one or more impacts,
or overturns with no impact. Zhang and Makris find, at a fixed frequency ratio and for increasing
amplitude: survival, overturning after one impact, a band of survival, then overturning without
impact.

Deciding the outcome (``pulse_response``)
-----------------------------------------
The history is integrated over the pulse only, ``[0, T_p]``. After the pulse the table is still
(a_g = 0), so while the block rocks about a corner its mechanical energy (zero flat)::

    E = J_O phi'^2 / 2 + M g R (cos(alpha - phi) - cos alpha),     phi = |theta|,

is conserved, the potential peaks at the unstable equilibrium phi = alpha at the barrier
``E_b = M g R (1 - cos alpha)``, and each impact (at phi = 0, where E is all kinetic) multiplies E
by e^2 <= 1. Hence, from the state at T_p (``phi' > 0``: moving outward):

1. it overturns in the current flight iff ``phi' > 0 and (E > E_b or phi > alpha)``, or
   ``phi' <= 0, phi > alpha and E < E_b`` (beyond the top, too slow to come back over it);
2. otherwise the flight ends with an impact (E at impact), the next flight starts outward with
   ``e^2 E`` and overturns iff ``e^2 E > E_b``;
3. otherwise every later flight has ``E <= e^4 E < E_b``: it can never reach phi = alpha again, and
   the block survives. A block at rest at T_p survives (a_g = 0 never lifts it).

The equalities (E = E_b: an asymptotic approach to the unstable equilibrium) have measure zero and
are counted as survival. A block that overturns after T_p is integrated on, with a_g = 0, for an
upper bound of the time it needs (:func:`_free_time_bound`), and the integration must agree with
the energy rule (same outcome, same impact count); it decides alone only when ``|E - E_b|`` or
``|e^2 E - E_b|`` is below ``ENERGY_MARGIN E_b``, the integration's own energy error.

A block that never lifts (``|a_p| <= g tan alpha``) survives without integration.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from contact.references.rocking import RigidBlock
from contact.references.rocking_base import overturn_angle, rock_under_base_motion

log = logging.getLogger(__name__)

MODES = ("survive", "overturn after impacts", "overturn without impact")
SURVIVE, OVERTURN_AFTER_IMPACTS, OVERTURN_WITHOUT_IMPACT = MODES
STEPS_PER_PULSE = 20  # solver max_step = T_p / STEPS_PER_PULSE (see pulse_response)
ENERGY_MARGIN = 1e-8  # relative energy error of the integration (rtol 1e-10, a few flights)


@dataclass(frozen=True)
class OneSinePulse:
    """``a_g(t) = amplitude sin(omega t)`` on ``[0, 2 pi / omega]``, 0 after [m/s^2]; vectorised
    (an array of times in, the same shape out)."""

    amplitude: float  # a_p [m/s^2], positive tips the block towards theta < 0 (pivot A)
    omega: float  # omega_p [rad/s]

    @property
    def duration(self) -> float:
        """T_p = 2 pi / omega_p [s]."""
        return 2.0 * math.pi / self.omega

    def __call__(self, t):
        if isinstance(t, (float, int)):  # the solver's right-hand side: scalar arithmetic is faster
            return self.amplitude * math.sin(self.omega * t) if 0.0 <= t <= self.duration else 0.0
        t = np.asarray(t, float)
        inside = (t >= 0.0) & (t <= self.duration)
        return np.where(inside, self.amplitude * np.sin(self.omega * t), 0.0)


@dataclass(frozen=True)
class PulseResponse:
    """Decided outcome of one point of the spectrum."""

    frequency_ratio: float  # omega_p / p [-]
    amplitude_ratio: float  # a_p / (g tan alpha) [-]
    mode: str  # one of MODES
    impacts: int  # impacts before overturning, or during [0, t_decided] for a survivor
    overturn_time: float | None  # [s] from the pulse start, None for a survivor
    max_rotation: float  # max |theta| over the whole motion, later free flights included [rad]
    max_friction_ratio: float  # max |R_T| / R_N over the samples of [0, t_decided] [-]
    uplift: bool  # |a_p| > g tan alpha: the block leaves the rest
    t_decided: float  # [s] instant from which the outcome is known (0: never lifts, T_p, overturn)
    energy_ratio: float | None  # E / E_b at T_p (0 at rest), None if decided before T_p

    @property
    def mode_index(self) -> int:
        """Index of ``mode`` in MODES."""
        return MODES.index(self.mode)


@dataclass(frozen=True)
class Boundary:
    """A change of mode along the amplitude ratio at a fixed frequency ratio."""

    frequency_ratio: float  # omega_p / p [-]
    amplitude_ratio: float  # middle of the bisection bracket [-]
    below_mode: str  # mode just below amplitude_ratio
    above_mode: str  # mode just above
    bracket: tuple  # (lo, hi), hi - lo <= tol: below_mode at lo, above_mode at hi


# ------------------------------------------------------------------------------- free rocking
def _barrier(block: RigidBlock) -> float:
    """E_b / (M g R) = 1 - cos(alpha) [-]."""
    return 1.0 - math.cos(block.alpha)


def _energy(block: RigidBlock, phi: float, phidot: float) -> float:
    """E / (M g R) = phi'^2 / (2 p^2) + cos(alpha - phi) - cos(alpha)  (J_O p^2 = M g R) [-]."""
    return phidot**2 / (2.0 * block.p**2) + math.cos(block.alpha - phi) - math.cos(block.alpha)


def _apex(block: RigidBlock, energy: float) -> float:
    """Tilt [rad] where a free flight of energy ``energy / (M g R) <= 1 - cos alpha`` stops:
    ``cos(alpha - phi) = cos(alpha) + energy``, the root below alpha."""
    return block.alpha - math.acos(min(1.0, math.cos(block.alpha) + energy))


def _free_fate(block: RigidBlock, e: float, phi: float, phidot: float) -> tuple[bool, int]:
    """(overturns, impacts before it) of a free block (a_g = 0) from tilt ``phi >= 0`` and outward
    rate ``phidot`` (the rules 1-3 of the module docstring)."""
    energy, barrier = _energy(block, phi, phidot), _barrier(block)
    if (phidot > 0 and (energy > barrier or phi > block.alpha)) or (
            phidot <= 0 and phi > block.alpha and energy < barrier):
        return True, 0
    return e**2 * energy > barrier, 1


def _time_to_cover(distance: float, speed: float, acceleration: float) -> float:
    """Largest time [s] to cover ``distance`` [rad] starting at ``speed`` >= 0 [rad/s] with an
    acceleration along the motion of at least ``acceleration`` >= 0 [rad/s^2] throughout."""
    if acceleration > 0:
        return (math.sqrt(speed**2 + 2.0 * acceleration * distance) - speed) / acceleration
    return distance / speed if speed > 0 else math.inf


def _free_time_bound(block: RigidBlock, e: float, phi: float, phidot: float) -> float:
    """Upper bound [s] of the time a free block that :func:`_free_fate` says overturns needs to reach
    ``phi_over = overturn_angle(block)``. With ``V(phi) = cos(alpha - phi) - cos alpha <= V(alpha)``,
    a flight of energy E moves at ``|phi'| >= p sqrt(2 (E - E_b))`` everywhere, and beyond alpha the
    outward acceleration ``p^2 sin(phi - alpha)`` grows with phi:

    * outward, phi < alpha, E > E_b: ``(phi_over - phi) / (p sqrt(2 (E - E_b)))``;
    * phi >= alpha, outward: constant acceleration ``p^2 sin(phi - alpha)`` from ``phi'``
      (:func:`_time_to_cover`); inward with E < E_b: twice the time from rest at the turning
      tilt ``phi_t`` (``V(phi_t) = E``, phi_t > alpha) to phi_over (the way in is the way out reversed);
    * after one impact (E > e^2 E > E_b): ``phi / v + phi_over / (e v')`` with v, v' the lower speed
      bounds of the two flights.
    """
    p, alpha, phi_over = block.p, block.alpha, overturn_angle(block)
    energy, barrier = _energy(block, phi, phidot), _barrier(block)
    overturns, impacts = _free_fate(block, e, phi, phidot)
    assert overturns
    if impacts:
        return (phi / (p * math.sqrt(2.0 * (energy - barrier)))
                + phi_over / (p * math.sqrt(2.0 * (e**2 * energy - barrier))))
    if phi < alpha:
        return (phi_over - phi) / (p * math.sqrt(2.0 * (energy - barrier)))
    if phidot > 0:
        return _time_to_cover(phi_over - phi, phidot, p**2 * math.sin(phi - alpha))
    turn = alpha + math.acos(min(1.0, math.cos(alpha) + energy))
    return 2.0 * _time_to_cover(phi_over - turn, 0.0, p**2 * math.sin(turn - alpha))


def _zero(t):
    return np.zeros_like(np.asarray(t, float))


# ---------------------------------------------------------------------------------- one point
def pulse_response(b: float, l: float, frequency_ratio: float, amplitude_ratio: float,
                   g: float = 9.81, restitution: float | None = None) -> PulseResponse:
    """Decided response of the block (half width ``b``, half height ``l`` [m]) to the one-sine pulse
    ``omega_p = frequency_ratio p``, ``a_p = amplitude_ratio g tan(alpha)``.

    ``|amplitude_ratio| <= 1``: the block never lifts (survive, no integration). Otherwise
    :func:`contact.references.rocking_base.rock_under_base_motion` runs to ``T_p`` (``max_step = T_p / 20``: its
    rest scan samples a_g every ``min(1/p, T_p/20) / 200 <= T_p / 4000``, so an uplift window
    ``|a_g| > g tan alpha`` of width ``2 sqrt(2 (ratio - 1)) / omega_p`` (near the peak) is seen for
    every ratio above ``1 + 3e-7``; below, the block would lift by less than ~1e-13 rad), then the
    energy rule of the module docstring decides; an overturning after ``T_p`` is integrated to its
    end (``t_end`` from :func:`_free_time_bound`) for its time and impact count. For a survivor,
    ``max_rotation`` includes the apex of the free flight in progress at ``T_p`` (or of the next one,
    from ``e^2 E``), which the later flights never exceed.
    """
    for name, v in (("frequency_ratio", frequency_ratio), ("amplitude_ratio", amplitude_ratio)):
        if not (isinstance(v, (int, float, np.integer, np.floating)) and math.isfinite(v)):
            raise ValueError(f"{name} must be a finite number, got {v!r}")
    if not frequency_ratio > 0:
        raise ValueError(f"frequency_ratio must be positive, got {frequency_ratio!r}")
    block = RigidBlock(b, l, g=g)
    fr, ar = float(frequency_ratio), float(amplitude_ratio)
    if abs(ar) <= 1.0:
        return PulseResponse(fr, ar, SURVIVE, 0, None, 0.0, abs(ar) * b / l, False, 0.0, None)
    pulse = OneSinePulse(ar * g * b / l, fr * block.p)
    t_p = pulse.duration
    res = rock_under_base_motion(b, l, pulse, t_p, g=g, restitution=restitution,
                                 max_step=t_p / STEPS_PER_PULSE)
    e = res.restitution
    n_impacts = len(res.impact_times)
    if res.overturned:
        mode = OVERTURN_AFTER_IMPACTS if n_impacts else OVERTURN_WITHOUT_IMPACT
        return PulseResponse(fr, ar, mode, n_impacts, res.overturn_time, res.max_rotation,
                             res.max_friction_ratio, True, res.overturn_time, None)
    theta, omega = float(res.theta[-1]), float(res.omega[-1])
    if theta == 0.0 and omega == 0.0:  # at rest, and a_g = 0 from now on
        return PulseResponse(fr, ar, SURVIVE, n_impacts, None, res.max_rotation,
                             res.max_friction_ratio, True, t_p, 0.0)
    sign = (1 if theta > 0 else -1) if theta != 0.0 else (1 if omega > 0 else -1)
    phi, phidot = abs(theta), sign * omega
    energy, barrier = _energy(block, phi, phidot), _barrier(block)
    overturns, more = _free_fate(block, e, phi, phidot)
    if not overturns:
        apex = _apex(block, energy if phidot > 0 else e**2 * energy)
        return PulseResponse(fr, ar, SURVIVE, n_impacts, None, max(res.max_rotation, apex),
                             res.max_friction_ratio, True, t_p, energy / barrier)

    t_free = 1.05 * _free_time_bound(block, e, phi, phidot) + 1e-3 / block.p
    free = rock_under_base_motion(b, l, _zero, t_free, g=g, restitution=restitution,
                                  theta0=theta, omega0=omega)
    if not (free.overturned and len(free.impact_times) == more):
        margin = abs((e**2 if more else 1.0) * energy - barrier) / barrier
        if margin > ENERGY_MARGIN:
            raise RuntimeError(
                f"undecided: the energy rule (E/E_b = {energy / barrier:.12g} at T_p) says overturn "
                f"after {more} more impact(s), the free integration to {t_free:.6g} s gave "
                f"overturned={free.overturned} after {len(free.impact_times)}")
        log.warning("marginal point (%g, %g): |E - E_b|/E_b = %.2e, the integration decides",
                    fr, ar, margin)
        if not free.overturned:
            return PulseResponse(fr, ar, SURVIVE, n_impacts, None,
                                 max(res.max_rotation, free.max_rotation),
                                 max(res.max_friction_ratio, free.max_friction_ratio), True, t_p,
                                 energy / barrier)
    n_impacts += len(free.impact_times)
    t_over = t_p + free.overturn_time
    mode = OVERTURN_AFTER_IMPACTS if n_impacts else OVERTURN_WITHOUT_IMPACT
    return PulseResponse(fr, ar, mode, n_impacts, t_over, free.max_rotation,
                         max(res.max_friction_ratio, free.max_friction_ratio), True, t_over,
                         energy / barrier)


# ---------------------------------------------------------------------------------- spectrum
def spectrum(b: float, l: float, frequency_ratios: Sequence[float], amplitude_ratios: Sequence[float],
             g: float = 9.81, restitution: float | None = None) -> np.ndarray:
    """Mode indices (into MODES) on the grid, shape ``(n_amplitudes, n_frequencies)``: entry
    ``[i, j]`` is :func:`pulse_response` at ``(frequency_ratios[j], amplitude_ratios[i])``."""
    out = np.empty((len(amplitude_ratios), len(frequency_ratios)), dtype=int)
    for i, ar in enumerate(amplitude_ratios):
        for j, fr in enumerate(frequency_ratios):
            out[i, j] = pulse_response(b, l, fr, ar, g, restitution).mode_index
    return out


def boundaries(b: float, l: float, frequency_ratio: float, amplitude_range: tuple = (1.0, 12.0),
               scan: int = 45, tol: float = 1e-3, g: float = 9.81,
               restitution: float | None = None) -> tuple[Boundary, ...]:
    """Changes of mode along the amplitude ratio at ``frequency_ratio``, sorted by amplitude.

    The amplitude ratio is scanned on ``scan`` equally spaced points of ``amplitude_range``; between
    two neighbours of different modes the change is located by bisection until the bracket is
    ``<= tol`` wide (a third mode met at a midpoint splits the bracket in two, both located). A band
    narrower than the scan spacing ``(hi - lo) / (scan - 1)`` with the same mode on both sides is
    missed: these are the boundaries that this scan resolves, not necessarily all there are.
    Below an amplitude ratio of 1 the block never lifts, hence the default lower end.
    """
    lo, hi = (float(x) for x in amplitude_range)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"amplitude_range must be (lo, hi) with lo < hi, got {amplitude_range!r}")
    if not (isinstance(scan, (int, np.integer)) and scan >= 2):
        raise ValueError(f"scan must be an integer >= 2, got {scan!r}")
    if not (math.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be positive, got {tol!r}")

    def mode(ar: float) -> str:
        return pulse_response(b, l, frequency_ratio, ar, g, restitution).mode

    def locate(a0: float, m0: str, a1: float, m1: str) -> list:
        while a1 - a0 > tol:
            mid = 0.5 * (a0 + a1)
            m = mode(mid)
            if m == m0:
                a0 = mid
            elif m == m1:
                a1 = mid
            else:
                return locate(a0, m0, mid, m) + locate(mid, m, a1, m1)
        return [Boundary(float(frequency_ratio), 0.5 * (a0 + a1), m0, m1, (a0, a1))]

    grid = np.linspace(lo, hi, scan)
    modes = [mode(float(a)) for a in grid]
    found = []
    for k in range(scan - 1):
        if modes[k] != modes[k + 1]:
            found += locate(float(grid[k]), modes[k], float(grid[k + 1]), modes[k + 1])
    return tuple(found)


def mode_between(bounds: Sequence[Boundary], amplitude_ratio: float, tol: float) -> str | None:
    """The mode that the boundaries found at one frequency ratio (sorted, :func:`boundaries`) give
    ``amplitude_ratio``: the below mode of the first boundary, then the above mode of every boundary
    passed; None within ``tol`` of a boundary (its side is not known to better than the bisection's
    tolerance). Survive when there is no boundary."""
    mode = bounds[0].below_mode if bounds else SURVIVE
    for bd in bounds:
        if abs(amplitude_ratio - bd.amplitude_ratio) <= tol:
            return None
        if amplitude_ratio > bd.amplitude_ratio:
            mode = bd.above_mode
    return mode


def boundary_curves(b: float, l: float, frequency_ratios: Sequence[float],
                    amplitude_range: tuple = (1.0, 12.0), scan: int = 45, tol: float = 1e-3,
                    g: float = 9.81, restitution: float | None = None) -> dict:
    """Boundaries over several frequency ratios, ready to plot against ``frequency_ratios``
    (:func:`curves`). Each frequency ratio is scanned as in :func:`boundaries`, so a band narrower
    than the scan spacing is missed there."""
    return curves([boundaries(b, l, fr, amplitude_range, scan, tol, g, restitution) for fr in frequency_ratios])


def curves(found: Sequence[Sequence[Boundary]]) -> dict:
    """``found[j]``: the boundaries at the j-th frequency ratio -> ``{(below_mode, above_mode, k):
    amplitude ratios, shape (n_frequencies,)}``, where k counts the changes from below_mode to
    above_mode at one frequency ratio from the lowest amplitude (0 = first); NaN where a frequency
    ratio has no such k-th change."""
    n = len(found)
    out: dict = {}
    for j, bounds in enumerate(found):
        seen: dict = {}
        for bd in bounds:
            pair = (bd.below_mode, bd.above_mode)
            k = seen.get(pair, 0)
            seen[pair] = k + 1
            out.setdefault((*pair, k), np.full(n, np.nan))[j] = bd.amplitude_ratio
    return out


# ------------------------------------------------------------------------- any state, still table
@dataclass(frozen=True)
class StillTableOutcome:
    """The fate of a rigid block from a state on a table that no longer moves (a_g = 0 from then on).

    overturns : True / False, decided by the energy rule of the module docstring and confirmed by
        integrating the free rocking to overturning; None when the two disagree beyond the
        integration's energy error (undecided).
    impacts : impacts before overturning (or before the next flight's apex for a survivor).
    time_to_overturn : [s] from the state to |theta| = overturn angle, None for a survivor.
    energy_ratio : E / E_b at the state (0 at rest).
    """

    overturns: bool | None
    impacts: int
    time_to_overturn: float | None
    energy_ratio: float


def still_table_outcome(b: float, l: float, theta: float, omega: float, g: float = 9.81,
                        restitution: float | None = None) -> StillTableOutcome:
    """Overturn or survive, from rotation ``theta`` [rad] and rate ``omega`` [rad/s] (conventions of
    contact.references.rocking_base: theta > 0 about O) on a still table: :func:`pulse_response`'s rules 1-3
    after the pulse (a block at rest survives; E <= E_b after at most one impact: survives for
    good), an overturning integrated on with a_g = 0 for its time (bounded by
    :func:`_free_time_bound`)."""
    block = RigidBlock(b, l, g=g)
    phi_over = overturn_angle(block)
    if abs(theta) >= phi_over:
        return StillTableOutcome(True, 0, 0.0, math.inf)
    if theta == 0.0 and omega == 0.0:
        return StillTableOutcome(False, 0, None, 0.0)
    e = max(block.housner_r, 0.0) if restitution is None else float(restitution)
    sign = (1 if theta > 0 else -1) if theta != 0.0 else (1 if omega > 0 else -1)
    phi, phidot = abs(theta), sign * omega
    energy, barrier = _energy(block, phi, phidot), _barrier(block)
    overturns, more = _free_fate(block, e, phi, phidot)
    if not overturns:
        return StillTableOutcome(False, more, None, energy / barrier)
    t_free = 1.05 * _free_time_bound(block, e, phi, phidot) + 1e-3 / block.p
    free = rock_under_base_motion(b, l, _zero, t_free, g=g, restitution=restitution, theta0=theta, omega0=omega)
    if free.overturned and len(free.impact_times) == more:
        return StillTableOutcome(True, more, free.overturn_time, energy / barrier)
    return StillTableOutcome(None, more, None, energy / barrier)  # at the barrier within the integration's error
