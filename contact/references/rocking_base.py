"""Event-driven rigid-body reference for a rectangular block rocking on a table under a horizontal
table acceleration (Housner 1963; Zhang and Makris 2001, "Rocking response of free-standing blocks
under cycloidal pulses", J. Eng. Mech. 127; docs/references.md,
"A rigid block rocking on a moving base").

The block is :class:`contact.references.rocking.RigidBlock` (half width ``b``, half height ``l``) with the
conventions of :mod:`contact.references.rocking`: corner ``O`` bottom-left at x = 0, ``A`` bottom-right at
x = 2b, ``theta`` counter-clockwise positive, ``theta > 0`` = rocking about O (A lifted),
``theta < 0`` = rocking about A (O lifted). ``alpha = atan(b/l)``, ``R = sqrt(b^2 + l^2)``,
``p^2 = M g R / J_O = 3 g / (4 R)``.

**Sliding is not modelled** (nor is jumping: the pivot never leaves the table). The friction the
no-slip assumption needs is reported instead (``max_friction_ratio``, below); rocking without sliding
needs at least ``mu > tan(alpha)``.

Sign of the table acceleration
------------------------------
``a_g(t)`` [m/s^2] follows Zhang and Makris: **a positive a_g tips the block towards theta < 0
(pivot A)**. In the x axis of :mod:`contact.references.rocking` (from O to A) this is a table acceleration
``-a_g`` along x, i.e. ``a_g`` is the table acceleration counted positive from A towards O, and the
inertial (d'Alembert) force on the block in the table frame is ``+M a_g`` along x. A table that
accelerates along +x (towards A) with ``xdd(t)`` throws the block onto O: pass ``-xdd(t)``.

Phases and equations (``s = sgn(theta)`` the pivot, ``phi = |theta| = s theta`` the tilt)
----------------------------------------------------------------------------------------
* **Rest** (theta = omega = 0) while ``|a_g(t)| <= g tan(alpha)``. Uplift when ``|a_g|`` first
  exceeds ``g tan(alpha)``: a sampled scan of ``|a_g|`` (step ``min(1/p, t_end, max_step)/200``)
  brackets the crossing, ``brentq`` locates it to ~1e-15 relative. The new pivot is
  ``s = -sgn(a_g)``.
* **Rocking** about the pivot ``s`` (exact nonlinear rigid rotation)::

      theta'' = -p^2 [sin(alpha s - theta) + (a_g/g) cos(alpha s - theta)]
      phi''   = -p^2 [sin(alpha - phi) + s (a_g/g) cos(alpha - phi)]

  integrated by :mod:`contact.references.flight` (a loop compiled with numba): classical RK4 with
  fixed steps of ``STEP_P (rtol / 1e-10)^(1/4) / (2 p)`` (at most ``max_step / 2``; after an impact,
  at most 1/16 of the free flight that its speed would give), a_g sampled on the steps by one
  vectorised call per chunk of steps, the steps halved where a_g is rough on their scale (a fast
  motion, a record's kinks, a pulse's end). The impact ``phi = 0``, the overturning and the apex
  ``phi' = 0`` are located on each step's quintic Hermite polynomial. Against ``solve_ivp`` (DOP853)
  at rtol 1e-12 to 1e-13 on harmonic, pulse, ramp and record motions and slender to squat blocks, the
  impact times agree to ~1e-11 relative at the default rtol (7e-11 under a record with a kink every
  10 ms; tests/test_rocking_flight.py); a free flight keeps its energy to ~1e-12. The output has
  ``n_samples_per_flight`` samples per piece of a flight: up to the apex, then down to the impact.
* **Overturning**: ``|theta|`` reaches ``theta_over = min(2 alpha, pi/2)`` (the block then lies
  beyond its unstable equilibrium by alpha, or on its side); the run stops there.
* **Impact** at ``theta = 0``: ``omega+ = e omega-`` (same sense of rotation, the pivot swaps),
  ``e = RigidBlock.housner_r = 1 - 3/2 sin^2(alpha)`` (angular momentum about the new corner) or the
  user's ``restitution``; a squat block with ``housner_r <= 0`` (b/l >= sqrt 2) gets ``e = 0``.
* **Back to rest** after an impact when ``|omega+| <= rest_omega`` (default: the speed whose free
  flight, a_g = 0, would lift the pivot tilt to ``REST_TILT = 1e-9`` rad:
  ``rest_omega = p sqrt(2 sin(alpha) REST_TILT)``, 1.2e-4 rad/s for SDNV105) or when two impacts are
  closer than ``zeno_interval = ZENO_FRACTION / p = 1e-6 / p`` (a safety net: with the default
  ``rest_omega`` the speed rule fires first, the intervals shrinking with omega+ in the free and
  pressed cases). The rest rule then applies again from that instant: if ``|a_g|`` is above the
  threshold there, the block lifts at once about the corner the acceleration tips it onto. An impact
  on a corner that the table acceleration presses down (``phi''(0) < 0`` about the new pivot) is an
  ordinary short flight back to the other corner, a decaying bounce that ends by these rules. Every
  loop is bounded by ``max_events`` (one pass per rest stretch and per flight) and raises ValueError
  beyond it.

Reactions and friction demand
-----------------------------
Newton's law for the centre of mass G in the table frame (inertial force ``+M a_g`` along x, the
pivot fixed), ``R_T`` the horizontal force of the table on the block along +x, ``R_N`` the
vertical one (> 0 in compression)::

    M xdd_G = R_T + M a_g,   M ydd_G = R_N - M g   =>   R_T = M (xdd_G - a_g),  R_N = M (g + ydd_G)
    G - pivot = (s R sin(alpha - phi), R cos(alpha - phi))
    xdd_G = -s R [cos(alpha - phi) phi'' + sin(alpha - phi) phi'^2]
    ydd_G =    R [sin(alpha - phi) phi'' - cos(alpha - phi) phi'^2]

At rest ``R_N = M g``, ``R_T = -M a_g``, so ``|R_T|/R_N = |a_g|/g`` (continuous at uplift, where
``phi'' = 0``). ``max_friction_ratio`` is the maximum of ``|R_T|/R_N`` over the output samples of the
rest and rocking phases (impulsive impact forces excluded; ``inf`` where ``R_N <= 0``, i.e. where the
rigid block would jump; ``min_normal_reaction`` tells).
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from contact.references.rocking import RigidBlock

log = logging.getLogger(__name__)

REST_TILT = 1e-9  # rad: a post-impact free flight lower than this counts as rest
ZENO_FRACTION = 1e-6  # impacts closer than ZENO_FRACTION / p [s] count as accumulated (rest)
SCAN_POINTS = 200  # rest scan: points per min(1/p, t_end, max_step)
_SCAN_CHUNK = 4096
STEP_P = 0.005  # flight cell width x p at rtol = 1e-10 (scaled by (rtol / 1e-10)^(1/4)): two RK4 steps
FORCING_RATE = 1e-4  # velocity error from a_g's roughness per time 1/p, and per cell at a kink, / (rtol p alpha)
FIRST_CHUNK = 0.5  # a flight's first chunk of cells covers FIRST_CHUNK / p, the next ones double
MAX_CHUNK = 4096  # cells sampled in one call at most
CELLS_PER_FLIGHT = 8  # cells at least in the free flight after an impact (accuracy of low flights)


# ------------------------------------------------------------------------------- block mechanics
def uplift_acceleration(block: RigidBlock) -> float:
    """Table acceleration at which the block lifts off, ``g tan(alpha) = g b / l`` [m/s^2]."""
    return block.g * block.b / block.l


def overturn_angle(block: RigidBlock) -> float:
    """Tilt ``min(2 alpha, pi/2)`` [rad] at which the block counts as overturned."""
    return min(2.0 * block.alpha, 0.5 * math.pi)


def rocking_acceleration(block: RigidBlock, phi, a_g, sign: int):
    """Tilt acceleration about the pivot ``sign`` (+1: O, -1: A), arrays broadcast [rad/s^2]:
    ``phi'' = -p^2 [sin(alpha - phi) + sign (a_g/g) cos(alpha - phi)]``, ``phi = |theta|``."""
    x = block.alpha - np.asarray(phi, float)
    return -block.p**2 * (np.sin(x) + sign * np.asarray(a_g, float) / block.g * np.cos(x))


def pivot_reactions(block: RigidBlock, phi, phidot, a_g, sign: int):
    """(R_N, R_T) [N] at the pivot while rocking, arrays broadcast: force of the table on the block,
    R_N vertical (> 0 in compression), R_T along +x (O -> A); see the module docstring."""
    phi = np.asarray(phi, float)
    phidot = np.asarray(phidot, float)
    a_g = np.asarray(a_g, float)
    phidd = rocking_acceleration(block, phi, a_g, sign)
    x = block.alpha - phi
    xdd = -sign * block.R * (np.cos(x) * phidd + np.sin(x) * phidot**2)
    ydd = block.R * (np.sin(x) * phidd - np.cos(x) * phidot**2)
    return block.mass * (block.g + ydd), block.mass * (xdd - a_g)


def _friction_ratio(r_n, r_t):
    """|R_T| / R_N, inf where R_N <= 0."""
    r_n = np.asarray(r_n, float)
    out = np.full(r_n.shape, np.inf)
    ok = r_n > 0
    out[ok] = np.abs(np.asarray(r_t, float)[ok]) / r_n[ok]
    return out


# ----------------------------------------------------------------------------------- the result
@dataclass(frozen=True, eq=False)
class BaseRockingResult:
    """History of a block rocking on a moving table. Samples are right-continuous: an impact instant
    appears twice in ``t`` (pre- then post-impact omega). Index k of the impact tuples = impact k+1."""

    block: RigidBlock
    restitution: float  # coefficient e applied at impacts, omega+ = e omega- [-]
    rest_omega: float  # post-impact |omega| below which the block is set at rest [rad/s]
    t: np.ndarray  # (n,) sample times [s], non-decreasing
    theta: np.ndarray  # (n,) rotation [rad], > 0 about O
    omega: np.ndarray  # (n,) theta' [rad/s]
    friction_ratio: np.ndarray  # (n,) |R_T| / R_N at the samples [-]
    uplift_time: float | None  # first uplift [s], None if the block never lifts
    uplift_times: tuple  # every uplift from rest [s]
    rest_times: tuple  # instants the block came back to rest after an impact [s]
    impact_times: tuple  # [s]
    impact_corner: tuple  # "A" or "O": the corner that hits the table
    omega_before: tuple  # signed theta' just before impact [rad/s]
    omega_after: tuple  # e * omega_before [rad/s] (the block is then at rest if in rest_times)
    max_rotation: float  # max |theta| [rad]
    overturned: bool
    overturn_time: float | None  # [s], time |theta| reached overturn_angle(block)
    max_friction_ratio: float  # max |R_T| / R_N over the samples [-]
    min_normal_reaction: float  # min R_N over the samples [N]

    def kinetic_energy(self) -> np.ndarray:
        """``J_O omega^2 / 2`` [J] at the samples, shape (n,)."""
        return 0.5 * self.block.J_O * self.omega**2

    def potential_energy(self) -> np.ndarray:
        """``M g R (cos(alpha - |theta|) - cos(alpha))`` [J] (zero flat), shape (n,), written
        ``2 M g R sin(alpha - |theta|/2) sin(|theta|/2)`` (no cancellation at small tilts)."""
        b = self.block
        half = 0.5 * np.abs(self.theta)
        return 2.0 * b.weight * b.R * np.sin(b.alpha - half) * np.sin(half)

    @property
    def ke_before(self) -> tuple:
        """Kinetic energy just before each impact [J]."""
        return tuple(0.5 * self.block.J_O * w**2 for w in self.omega_before)

    @property
    def ke_after(self) -> tuple:
        """Kinetic energy just after each impact, from the impact law [J]."""
        return tuple(0.5 * self.block.J_O * w**2 for w in self.omega_after)


# ------------------------------------------------------------------------------- input helpers
def _is_number(v) -> bool:
    numeric = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    return numeric and math.isfinite(v)


def _is_count(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _scalar_acceleration(acceleration: Callable) -> Callable[[float], float]:
    return lambda t: float(acceleration(t))


def _array_acceleration(acceleration: Callable, probe: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """a_g over an array of times: the callable itself if it maps arrays consistently, else a loop."""
    try:
        v = np.asarray(acceleration(probe), float)
        vectorised = v.shape == probe.shape and np.allclose(
            v, [float(acceleration(float(t))) for t in probe], rtol=1e-12, atol=0.0)
    except Exception:  # noqa: BLE001 - any failure means "not vectorised", the loop then decides
        vectorised = False
    if vectorised:
        return lambda t: np.asarray(acceleration(t), float)
    return lambda t: np.array([float(acceleration(float(x))) for x in t])


# ------------------------------------------------------------------------------------ rest phase
@dataclass(frozen=True)
class _Rest:
    t: np.ndarray  # scanned instants while at rest
    a_g: np.ndarray  # a_g there
    uplift: float | None  # uplift instant (last entry of t), None if rest lasts to t_end


def _lifts(block: RigidBlock, a: float) -> bool:
    """phi''(0) > 0 about the corner a tips the block onto: |a| cos(alpha) > g sin(alpha)."""
    return abs(a) * math.cos(block.alpha) > block.g * math.sin(block.alpha)


def _rest_until_uplift(block, acc, acc_array, t_from, t_end, step, strict) -> _Rest:
    """Scan |a_g| on t_from + k step (and t_end) for the first value above g tan(alpha); bracket and
    locate the crossing with brentq, then move to the first float instant where the block really
    lifts (phi'' > 0). ``strict``: the block just failed to lift at t_from; the uplift must be later."""
    thr = uplift_acceleration(block)
    ts, avals = [], []
    start = t_from
    first = True
    while True:
        grid = start + step * np.arange(_SCAN_CHUNK + 1)
        grid = grid[grid < t_end]
        grid = np.append(grid, t_end) if grid.size < _SCAN_CHUNK + 1 else grid
        a = acc_array(grid)
        above = np.abs(a) > thr
        if first and strict:
            above[0] = False
        hit = np.flatnonzero(above)
        if hit.size == 0:
            ts.append(grid if first else grid[1:])
            avals.append(a if first else a[1:])
            if grid[-1] >= t_end:
                return _Rest(np.concatenate(ts), np.concatenate(avals), None)
            start, first = grid[-1], False
            continue
        i = hit[0]
        if i == 0:
            t_up = grid[0]
        elif abs(a[i - 1]) > thr:  # strict restart above the threshold: lift at the next sample
            t_up = grid[i]
        else:
            from scipy.optimize import brentq  # imported on use (issue 40: start-up)

            t_up = brentq(lambda t: abs(acc(t)) - thr, grid[i - 1], grid[i], xtol=1e-12 * step, rtol=1e-15)
            t_up = _first_lifting_instant(block, acc, t_up, grid[i])
        keep = grid[:i] < t_up
        lo = 0 if first else 1
        ts.append(np.append(grid[lo:i][keep[lo:]], t_up))
        avals.append(np.append(a[lo:i][keep[lo:]], acc(t_up)))
        return _Rest(np.concatenate(ts), np.concatenate(avals), float(t_up))


def _first_lifting_instant(block, acc, t_root, t_above) -> float:
    """Smallest of t_root + 2^k ulp-steps (bounded by t_above) where phi''(0) > 0 in floating point."""
    t = t_root
    delta = math.ulp(max(abs(t_root), 1e-300))
    while not _lifts(block, acc(t)):
        t = t_root + delta
        delta *= 2.0
        if t >= t_above:
            return t_above
    return t


# ---------------------------------------------------------------------------------- flight phase
@dataclass(frozen=True)
class _Flight:
    end: str  # "impact", "overturn", "end" (t_end), "settle" (never lifted measurably)
    t: np.ndarray  # samples, the last one the end state
    phi: np.ndarray
    phidot: np.ndarray
    phi_max: float  # largest tilt reached (apex events and samples)


def _fly(block, acc_array, sign, t0, phi0, phidot0, t_end, rtol, max_step, n_samples) -> _Flight:
    """Rock about the pivot ``sign`` from (t0, phi0 >= 0, phidot0) until impact, overturn or t_end:
    fixed-step RK4 on cells sampled in chunks (:mod:`contact.references.flight`), the events located
    on the steps' quintic Hermite polynomials, ``n_samples`` output samples per piece (rise to the
    apex, fall from it)."""
    from contact.references import flight  # imported on use: it loads numba

    phi_over = overturn_angle(block)
    if t0 >= t_end:
        return _Flight("end", np.array([t0]), np.array([phi0]), np.array([phidot0]), phi0)
    alpha, p = block.alpha, block.p
    width = min(STEP_P * (rtol / 1e-10) ** 0.25 / p, max_step)  # a cell: two RK4 steps
    span = FIRST_CHUNK / p  # time the first chunk covers
    if phi0 == 0.0 and phidot0 > 0:  # after an impact: a free flight would last 2 phi'/(p^2 sin alpha)
        duration = 2.0 * phidot0 / (p * p * math.sin(alpha))
        width, span = min(width, duration / CELLS_PER_FLIGHT), min(span, 1.5 * duration)
    width = max(width, 64.0 * math.ulp(t_end))
    tol_rate = 180.0 * FORCING_RATE * rtol * block.g * alpha  # flight.sample_cells: error (p^2/g) w |d4| / 180
    n_cells = int(min(max(math.ceil(span / width), 8), MAX_CHUNK))
    parts, status, t, y, v = [], 0, t0, float(phi0), float(phidot0)
    while True:
        tn, an, am = flight.sample_cells(acc_array, t, t_end, width, n_cells, tol_rate, tol_rate / p)
        ph, dph, ddph = np.empty(tn.size), np.empty(tn.size), np.empty(tn.size)
        status, k = flight.rk4_flight(tn, an, am, y, v, alpha, p * p, sign / block.g, phi_over, ph, dph, ddph)
        used = k + 2 if status else tn.size
        lo = 1 if parts else 0
        parts.append((tn[lo:used], ph[lo:used], dph[lo:used], ddph[lo:used]))
        if status or tn[-1] >= t_end:
            break
        t, y, v = float(tn[-1]), float(ph[-1]), float(dph[-1])
        n_cells = min(2 * n_cells, MAX_CHUNK)
    nodes = tuple(np.concatenate([q[i] for q in parts]) for i in range(4))
    end, final, apex = _events(nodes, status, phi0 == 0.0 or phidot0 > 0, phi_over)
    pieces = [(t0, float(phi0), float(phidot0))]
    if apex is not None:
        pieces.append(apex)
        if apex[1] <= 0.0:  # never lifted measurably: at rest
            ts, ys, vs = _samples(nodes, pieces, n_samples)
            return _Flight("settle", ts, ys, vs, float(max(phi0, ys.max())))
    pieces.append(final)
    ts, ys, vs = _samples(nodes, pieces, n_samples)
    return _Flight(end, ts, ys, vs, phi_over if end == "overturn" else float(max(phi0, ys.max())))


def _events(nodes, status, rising, phi_over):
    """(end, (t, phi, phi') at the end, apex (t, phi, phi') or None) of a flight integrated on
    ``nodes = (t, phi, phi', phi'')`` by flight.rk4_flight with ``status`` (1 impact, 2 overturning in
    the last step); the apex (first phi' = 0 going down) is looked for if the flight starts ``rising``."""
    from contact.references import flight  # imported on use (see _fly)

    tn, ph, dph, ddph = nodes
    last = tn.size - 2

    def polynomial(j):
        h = tn[j + 1] - tn[j]
        return h, flight.quintic(h, ph[j], dph[j], ddph[j], ph[j + 1], dph[j + 1], ddph[j + 1])

    end, final, u_event = "end", (float(tn[-1]), float(ph[-1]), float(dph[-1])), 1.0
    if status:
        h, c = polynomial(last)
        u_event = flight.crossing(c, 0.0 if status == 1 else phi_over, False, status == 1, 0.0, 1.0)
        end = "impact" if status == 1 else "overturn"
        final = (min(tn[last] + u_event * h, float(tn[-1])), 0.0 if status == 1 else phi_over,
                 flight.quintic_at(c, u_event)[1] / h)
    if not rising:
        return end, final, None
    down = np.flatnonzero(dph[1:] <= 0.0)
    if not (down.size or status == 1):
        return end, final, None
    j = int(down[0]) if down.size else last  # the apex's step (an impact's step: phi' < 0 inside)
    h, c = polynomial(j)
    u = flight.crossing(c, 0.0, True, True, 0.0, u_event if (status == 1 and j == last) else 1.0)
    t_apex = min(tn[j] + u * h, float(tn[j + 1]))
    if status == 2 and t_apex > final[0]:
        return end, final, None
    y_apex, d = flight.quintic_at(c, u)
    return end, final, (float(t_apex), float(y_apex), float(d / h))


def _samples(nodes, pieces, n_samples):
    """n_samples per piece between consecutive (t, phi, phi') of ``pieces``, their ends exact, the
    inside from the steps' quintic polynomials; a joint appears twice (end of one, start of the next)."""
    from contact.references import flight  # imported on use (see _fly)

    ts = np.concatenate([np.linspace(a[0], b[0], n_samples) for a, b in zip(pieces[:-1], pieces[1:])])
    ys, vs = np.empty(ts.size), np.empty(ts.size)
    flight.hermite_samples(*nodes, ts, ys, vs)
    for i, (a, b) in enumerate(zip(pieces[:-1], pieces[1:])):
        ys[i * n_samples], vs[i * n_samples] = a[1], a[2]
        ys[(i + 1) * n_samples - 1], vs[(i + 1) * n_samples - 1] = b[1], b[2]
    return ts, ys, vs


# ---------------------------------------------------------------------------------------- driver
def rock_under_base_motion(b: float, l: float, acceleration: Callable, t_end: float, g: float = 9.81,
                           rho: float = 1450.0, thickness: float = 1.0, restitution: float | None = None,
                           theta0: float = 0.0, omega0: float = 0.0, rtol: float = 1e-10,
                           max_step: float | None = None, n_samples_per_flight: int = 201,
                           max_events: int = 10000, rest_omega: float | None = None) -> BaseRockingResult:
    """Rock a rigid block (half width ``b``, half height ``l`` [m]) on a table with acceleration
    ``a_g(t)`` [m/s^2] (positive tips towards theta < 0, about A) from ``(theta0, omega0)`` at t = 0
    to ``t_end`` [s] or overturning.

    Parameters
    ----------
    acceleration : callable ``a_g(t)`` of a scalar t [s]; vectorised callables (numpy arrays in,
        same-shape arrays out) make the rest scans faster.
    restitution : None (Housner, ``1 - 3/2 sin^2 alpha``) or e in [0, 1] on omega.
    theta0, omega0 : initial rotation [rad], in (-theta_over, theta_over), and rate [rad/s]; both
        zero = at rest (the uplift rule applies from t = 0).
    rtol : accuracy of the flights: their step scales as ``rtol^(1/4)``, the error they may take from
        a_g's roughness as ``rtol`` (module docstring; 1e-10: ~1e-11 relative on impact times).
    max_step : largest flight cell (two RK4 steps) and scan interval [s]; the rest scan samples a_g
        every ``min(1/p, t_end, max_step) / 200``: pass max_step below the shortest feature of a_g.
    n_samples_per_flight : output samples per flight piece (rise, fall).
    max_events : bound on the loop passes (one per rest stretch, one per flight, so about the number of
        uplifts + impacts); exceeding it raises ValueError.
    rest_omega : post-impact |omega| [rad/s] below which the block is at rest (default
        ``p sqrt(2 sin(alpha) REST_TILT)``).
    """
    block = RigidBlock(b, l, rho, thickness, g)
    if not callable(acceleration):
        raise ValueError(f"acceleration must be a callable a_g(t) in m/s^2, got {acceleration!r}")
    if not (_is_number(t_end) and t_end > 0):
        raise ValueError(f"t_end must be a finite positive time, got {t_end!r}")
    try:
        a0 = float(acceleration(0.0))
    except Exception as exc:  # noqa: BLE001
        raise ValueError(f"acceleration(0.0) must return a number, got {exc!r}") from exc
    if not math.isfinite(a0):
        raise ValueError(f"acceleration(0.0) must be finite, got {a0!r}")
    if restitution is None:
        e = max(block.housner_r, 0.0)
    elif _is_number(restitution) and 0.0 <= restitution <= 1.0:
        e = float(restitution)
    else:
        raise ValueError(f"restitution must be None or lie in [0, 1], got {restitution!r}")
    phi_over = overturn_angle(block)
    if not (_is_number(theta0) and abs(theta0) < phi_over):
        raise ValueError(f"theta0 must lie in (-{phi_over:.6g}, {phi_over:.6g}) rad "
                         f"(min(2 alpha, pi/2)), got {theta0!r}")
    if not _is_number(omega0):
        raise ValueError(f"omega0 must be a finite number, got {omega0!r}")
    if not (_is_number(rtol) and 0 < rtol < 1e-3):
        raise ValueError(f"rtol must lie in (0, 1e-3), got {rtol!r}")
    if max_step is not None and not (_is_number(max_step) and max_step > 0):
        raise ValueError(f"max_step must be None or a finite positive time, got {max_step!r}")
    if not (_is_count(n_samples_per_flight) and n_samples_per_flight >= 2):
        raise ValueError(f"n_samples_per_flight must be an integer >= 2, got {n_samples_per_flight!r}")
    if not (_is_count(max_events) and max_events >= 1):
        raise ValueError(f"max_events must be an integer >= 1, got {max_events!r}")
    if rest_omega is None:
        rest_omega = block.p * math.sqrt(2.0 * math.sin(block.alpha) * REST_TILT)
    elif not (_is_number(rest_omega) and rest_omega >= 0):
        raise ValueError(f"rest_omega must be None or a finite number >= 0, got {rest_omega!r}")

    acc = _scalar_acceleration(acceleration)
    acc_array = _array_acceleration(acceleration, np.array([0.0, 0.5 * t_end, t_end]))
    scan_step = min(1.0 / block.p, t_end, max_step or math.inf) / SCAN_POINTS
    zeno_interval = ZENO_FRACTION / block.p
    solver_step = math.inf if max_step is None else float(max_step)

    T, TH, OM, FR, RN = [], [], [], [], []
    uplifts, rests, impacts, corners, w_before, w_after = [], [], [], [], [], []
    max_rot, overturn_time = abs(float(theta0)), None

    def record_rest(rest: _Rest):
        # the uplift instant belongs to the flight: a step in a_g there is not a rest demand
        n = rest.t.size - (rest.uplift is not None)
        T.append(rest.t[:n]), TH.append(np.zeros(n)), OM.append(np.zeros(n))
        FR.append(np.abs(rest.a_g[:n]) / block.g), RN.append(np.full(n, block.weight))

    def record_flight(sign: int, fl: _Flight):
        a = acc_array(fl.t)
        r_n, r_t = pivot_reactions(block, fl.phi, fl.phidot, a, sign)
        T.append(fl.t), TH.append(sign * fl.phi), OM.append(sign * fl.phidot)
        FR.append(_friction_ratio(r_n, r_t)), RN.append(r_n)

    # state: rest at time t (sign 0) or flight about `sign` from (t, phi, phidot)
    t = 0.0
    if theta0 != 0.0:
        sign, phi, phidot = int(np.sign(theta0)), abs(float(theta0)), float(np.sign(theta0) * omega0)
    elif omega0 != 0.0:
        sign, phi, phidot = int(np.sign(omega0)), 0.0, abs(float(omega0))
    else:
        sign, phi, phidot = 0, 0.0, 0.0
    strict, last_impact, n_events = False, -math.inf, 0
    while t < t_end:
        n_events += 1
        if n_events > max_events:
            raise ValueError(f"max_events = {max_events} exceeded at t = {t:.9g} s "
                             f"({len(impacts)} impacts, {len(uplifts)} uplifts): raise max_events")
        if sign == 0:
            rest = _rest_until_uplift(block, acc, acc_array, t, t_end, scan_step, strict)
            record_rest(rest)
            if rest.uplift is None:
                break
            t, strict = rest.uplift, False
            uplifts.append(t)
            sign, phi, phidot = -int(np.sign(acc(t))), 0.0, 0.0
            log.debug("uplift at t = %.9g s about %s", t, "O" if sign > 0 else "A")
            continue
        fl = _fly(block, acc_array, sign, t, phi, phidot, t_end, rtol, solver_step, n_samples_per_flight)
        record_flight(sign, fl)
        max_rot = max(max_rot, fl.phi_max)
        t = float(fl.t[-1])
        if fl.end == "end":
            break
        if fl.end == "overturn":
            overturn_time = t
            break
        if fl.end == "settle":  # lifted by less than a float: at rest, the uplift must come later
            strict, sign = fl.t[-1] == fl.t[0], 0
            continue
        omega_minus = sign * float(fl.phidot[-1])
        omega_plus = e * omega_minus
        impacts.append(t), corners.append("A" if sign > 0 else "O")
        w_before.append(omega_minus), w_after.append(omega_plus)
        zeno = t - last_impact < zeno_interval
        last_impact = t
        if abs(omega_plus) <= rest_omega or zeno:
            rests.append(t)
            sign = 0
            log.debug("rest at t = %.9g s (omega+ = %.3g rad/s, zeno = %s)", t, omega_plus, zeno)
        else:
            sign, phi, phidot = -sign, 0.0, abs(omega_plus)

    t_all = np.concatenate(T)
    fr, rn = np.concatenate(FR), np.concatenate(RN)
    return BaseRockingResult(
        block=block, restitution=e, rest_omega=float(rest_omega), t=t_all, theta=np.concatenate(TH),
        omega=np.concatenate(OM), friction_ratio=fr,
        uplift_time=uplifts[0] if uplifts else None, uplift_times=tuple(uplifts), rest_times=tuple(rests),
        impact_times=tuple(impacts), impact_corner=tuple(corners), omega_before=tuple(w_before),
        omega_after=tuple(w_after), max_rotation=float(max_rot), overturned=overturn_time is not None,
        overturn_time=overturn_time, max_friction_ratio=float(np.max(fr)),
        min_normal_reaction=float(np.min(rn)),
    )


def lift_time(result: BaseRockingResult, lift: float = 1e-6) -> float | None:
    """First time [s] a base corner is ``lift`` [m] above the table: the lifted corner of a block
    turned by theta about the other one is at height ``2 b sin|theta|``, so the instant is where
    ``|theta|`` first reaches ``asin(lift / (2 b))`` (linear interpolation between the samples;
    pass ``n_samples_per_flight`` large enough for the accuracy you need). None if never."""
    target = math.asin(min(1.0, lift / (2.0 * result.block.b)))
    above = np.flatnonzero(np.abs(result.theta) >= target)
    if above.size == 0:
        return None
    k = int(above[0])
    if k == 0:
        return float(result.t[0])
    t0, t1 = result.t[k - 1], result.t[k]
    y0, y1 = abs(result.theta[k - 1]), abs(result.theta[k])
    return float(t0 + (target - y0) * (t1 - t0) / (y1 - y0)) if y1 > y0 else float(t1)
