"""Prescribed motion of a shaking table (the support): acceleration a(t) [m/s^2] with its
consistent velocity v(t) [m/s] and displacement d(t) [m].

Every history starts from rest: a = v = d = 0 for t <= 0 (the gravity preload before t = 0 is
the caller's business), and v, d are the exact integrals of a,

    v(t) = int_0^t a(s) ds,        d(t) = int_0^t v(s) ds,

in closed form (sines and polynomials) or, for a sampled record, exact for the piecewise-linear
acceleration. Each history offers ``acceleration(t)``, ``velocity(t)``, ``displacement(t)``
(float for a scalar t, array of t's shape otherwise) and ``duration`` [s], the time after which
a = 0 (``math.inf`` if never); after it v stays at v(duration) and d grows linearly with it.

Plugging into the model, in the table's frame (:func:`table_frame_load`, Code_Aster's
CALC_CHAR_SEISME MONO_APPUI): the supports stay fixed and every mass gets the d'Alembert force
-M e a(t); displacements are relative to the table. Or in absolute coordinates: time functions in :mod:`fem.loads.functions` / :mod:`fem.loads.applied` are plain
callables ``f(t) -> float``, and an imposed displacement is ``value * function(t)``. Wrap a history
in :class:`SupportDisplacement` (or use :func:`support_motion`) to impose d(t) on a node group::

    table = Harmonic(amplitude=2.0, frequency=3.0, cycles=5, smooth_start=0.2)
    constraints = (support_motion("CTGROUND", table, "x"), ImposedDisplacement("CTGROUND", "y"))
"""
from __future__ import annotations

import inspect
import logging
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

import numpy as np

from fem.constants import GRAVITY
from fem.loads.applied import ImposedDisplacement, InertialLoad
from fem.ranges import INSTANT, RECORD_SAMPLE
from fem.ranges import number as number_text

log = logging.getLogger(__name__)

STANDARD_GRAVITY = GRAVITY  # [m/s^2], the g used to convert records given in g (fem.constants)


class MotionHistory(Protocol):
    """What the model needs from a support motion."""

    @property
    def duration(self) -> float: ...

    def acceleration(self, t): ...

    def velocity(self, t): ...

    def displacement(self, t): ...


# ---------------------------------------------------------------------------------------------
# shared machinery


def _times(t) -> np.ndarray:
    return np.asarray(t, dtype=float)


def _shaped(t, values: np.ndarray):
    """A float for a scalar t, an array of t's shape otherwise."""
    return float(values) if np.ndim(t) == 0 else values


class _History:
    """acceleration / velocity / displacement from one ``_state(t) -> (a, v, d)`` method."""

    def _state(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def acceleration(self, t):
        """a(t) [m/s^2]."""
        return _shaped(t, self._state(_times(t))[0])

    def velocity(self, t):
        """v(t) = int_0^t a [m/s]."""
        return _shaped(t, self._state(_times(t))[1])

    def displacement(self, t):
        """d(t) = int_0^t v [m]."""
        return _shaped(t, self._state(_times(t))[2])


def _positive(owner: str, name: str, value, allow_inf: bool = False) -> float:
    value = float(value)
    if not (value > 0.0 and (allow_inf or math.isfinite(value))):
        raise ValueError(f"{owner}: {name} must be positive{'' if allow_inf else ' and finite'}, got {value}")
    return value


def _finite(owner: str, name: str, value) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be finite, got {value}")
    return value


def _one_minus_cos_over(w: float, t: np.ndarray, power: int) -> np.ndarray:
    """(1 - cos w t) / w**power without cancellation: (w t)^2 / 2 sinc^2(w t / 2 pi) / w**power."""
    return 0.5 * w ** (2 - power) * t**2 * np.sinc(w * t / (2.0 * np.pi)) ** 2


def _sin_over(w: float, t: np.ndarray) -> np.ndarray:
    """sin(w t) / w, = t at w = 0."""
    return t * np.sinc(w * t / np.pi)


def _t_minus_sin_over_w2(w: float, t: np.ndarray) -> np.ndarray:
    """(w t - sin w t) / w^2 = t^2 (x - sin x) / x^2, x = w t; a Taylor series for |x| < 0.1
    (truncation below 1e-15 relative), the direct form above (cancellation below 2e-13)."""
    x = w * t
    small = np.abs(x) < 0.1
    xs = np.where(small, x, 0.0)
    series = xs / 6.0 - xs**3 / 120.0 + xs**5 / 5040.0 - xs**7 / 362880.0
    xl = np.where(small, 1.0, x)
    direct = (xl - np.sin(xl)) / xl**2
    return t**2 * np.where(small, series, direct)


def _sines(t: np.ndarray, terms) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a = sum_i c_i sin(w_i t) from rest at t = 0:
    v = sum_i c_i (1 - cos w_i t) / w_i,  d = sum_i c_i (w_i t - sin w_i t) / w_i^2  (0 for w_i = 0)."""
    a = np.zeros_like(t)
    v = np.zeros_like(t)
    d = np.zeros_like(t)
    for c, w in terms:
        a = a + c * np.sin(w * t)
        v = v + c * _one_minus_cos_over(w, t, 1)
        d = d + c * _t_minus_sin_over_w2(w, t)
    return a, v, d


def _truncated(unbounded: Callable, t: np.ndarray, t_end: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """State of a motion that follows ``unbounded`` (a from rest, valid for t >= 0) on [0, t_end]
    and has a = 0 outside: v = 0, d = 0 before 0; v = v(t_end), d = d(t_end) + v(t_end) (t - t_end) after."""
    a, v, d = unbounded(np.clip(t, 0.0, t_end))
    a = np.where((t >= 0.0) & (t <= t_end), a, 0.0)
    if math.isfinite(t_end):
        v_end = unbounded(np.asarray(t_end))[1]
        d = d + v_end * np.maximum(t - t_end, 0.0)
    return a, v, d


@dataclass(frozen=True, eq=False)
class _PiecewisePolynomial:
    """a(t) = sum_j c[k, j] (t - t_k)^j on [t_k, t_{k+1}], a constant ``tail`` after the last
    breakpoint, 0 before the first; v and d integrated exactly segment by segment:

        v(t) = v_k + sum_j c_kj tau^(j+1) / (j+1),   d(t) = d_k + v_k tau + sum_j c_kj tau^(j+2) / ((j+1)(j+2)).

    breakpoints : (n+1,) non-decreasing [s]; coefficients : (n, m+1) [m/s^2 / s^j].
    """

    breakpoints: np.ndarray
    coefficients: np.ndarray
    tail: float = 0.0
    velocities: np.ndarray = field(init=False)  # (n+1,) v at the breakpoints [m/s]
    displacements: np.ndarray = field(init=False)  # (n+1,) d at the breakpoints [m]

    def __post_init__(self) -> None:
        h = np.diff(self.breakpoints)[:, None]
        j = np.arange(self.coefficients.shape[1])
        dv = np.sum(self.coefficients * h ** (j + 1) / (j + 1), axis=1)
        dd_own = np.sum(self.coefficients * h ** (j + 2) / ((j + 1) * (j + 2)), axis=1)
        v = np.concatenate([[0.0], np.cumsum(dv)])
        d = np.concatenate([[0.0], np.cumsum(v[:-1] * h[:, 0] + dd_own)])
        object.__setattr__(self, "velocities", v)
        object.__setattr__(self, "displacements", d)

    def state(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        tk = self.breakpoints
        n = tk.size - 1
        k = np.clip(np.searchsorted(tk, t, side="right") - 1, 0, n - 1)
        tau = np.clip(t, tk[0], tk[-1]) - tk[k]
        c = self.coefficients[k]
        a = np.zeros_like(tau)
        v = self.velocities[k].copy()
        d = self.displacements[k] + self.velocities[k] * tau
        for j in range(c.shape[-1]):
            a += c[..., j] * tau**j
            v += c[..., j] * tau ** (j + 1) / (j + 1)
            d += c[..., j] * tau ** (j + 2) / ((j + 1) * (j + 2))
        late = np.maximum(t - tk[-1], 0.0)
        v_end, d_end = self.velocities[-1], self.displacements[-1]
        before, after = t < tk[0], t > tk[-1]
        a = np.where(before, 0.0, np.where(after, self.tail, a))
        v = np.where(before, 0.0, np.where(after, v_end + self.tail * late, v))
        d = np.where(before, 0.0, np.where(after, d_end + v_end * late + 0.5 * self.tail * late**2, d))
        return a, v, d


# ---------------------------------------------------------------------------------------------
# analytic histories


@dataclass(frozen=True)
class Harmonic(_History):
    """a(t) = A r(t) sin(w t) on [0, N/f], 0 after; w = 2 pi f, N = ``cycles`` (None: for ever).

    Without smooth start (r = 1) the exact integrals from rest are

        v(t) = A/w (1 - cos w t),        d(t) = A/w t - A/w^2 sin w t.

    The velocity has the mean A/w and the displacement drifts at that rate: this is the true
    integral of A sin from rest, kept as is (no mean is removed). After N whole cycles v = 0 and
    d = N 2 pi A / w^2 stays constant; a fractional N leaves v(N/f) and d then grows linearly.

    With ``smooth_start`` T_s > 0 the acceleration is multiplied on [0, T_s] by the raised-cosine
    ramp r(t) = (1 - cos(pi t / T_s)) / 2 (r = 1 after), so a(t) and a'(t) are continuous
    (C1, not C2: r'' jumps at 0 and T_s). Since sin(w t) cos(p t) = [sin((w+p)t) + sin((w-p)t)]/2,
    p = pi / T_s, the ramped part is a sum of three sines and v, d stay in closed form (round-off
    accurate, no quadrature); after T_s they are the unramped forms shifted by the constants that
    make v and d continuous at T_s. The ramp changes the velocity budget: after N whole cycles v is
    then in general not 0 (it is 0 for the sharp start), so d keeps drifting after the motion.

    Attributes
    ----------
    amplitude : A [m/s^2].
    frequency : f [Hz].
    cycles : N, number of periods before a returns to 0 (may be fractional); None = for ever.
    smooth_start : T_s [s], length of the ramp-in; 0 = sharp start (a' jumps to A w at t = 0).
    """

    amplitude: float
    frequency: float
    cycles: float | None = None
    smooth_start: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "amplitude", _finite("Harmonic", "amplitude", self.amplitude))
        object.__setattr__(self, "frequency", _positive("Harmonic", "frequency", self.frequency))
        if self.cycles is not None:
            object.__setattr__(self, "cycles", _positive("Harmonic", "cycles", self.cycles, allow_inf=True))
        smooth = float(self.smooth_start)
        if not (smooth >= 0.0 and math.isfinite(smooth)):
            raise ValueError(f"Harmonic: smooth_start must be >= 0 and finite, got {smooth}")
        object.__setattr__(self, "smooth_start", smooth)

    @property
    def omega(self) -> float:
        """w = 2 pi f [rad/s]."""
        return 2.0 * math.pi * self.frequency

    @property
    def duration(self) -> float:
        """N / f [s], inf without a number of cycles."""
        return math.inf if self.cycles is None else self.cycles / self.frequency

    def _unbounded(self, t: np.ndarray):
        A, w = self.amplitude, self.omega
        plain = _sines(t, ((A, w),))
        Ts = self.smooth_start
        if Ts == 0.0:
            return plain
        p = math.pi / Ts
        ramped_terms = ((0.5 * A, w), (-0.25 * A, w + p), (-0.25 * A, w - p))
        ramped = _sines(np.minimum(t, Ts), ramped_terms)
        at_Ts = np.asarray(Ts)
        dv = _sines(at_Ts, ramped_terms)[1] - _sines(at_Ts, ((A, w),))[1]
        dd = _sines(at_Ts, ramped_terms)[2] - _sines(at_Ts, ((A, w),))[2]
        late = t > Ts
        return (np.where(late, plain[0], ramped[0]),
                np.where(late, plain[1] + dv, ramped[1]),
                np.where(late, plain[2] + dd + dv * (t - Ts), ramped[2]))

    def _state(self, t):
        return _truncated(self._unbounded, t, self.duration)


@dataclass(frozen=True)
class _OneCyclePulse(_History):
    """One full cycle T = 1/f of ``_unbounded`` (a, v, d of the infinite signal from rest), 0 after.

    Attributes
    ----------
    amplitude : A [m/s^2].  frequency : f [Hz].
    """

    amplitude: float
    frequency: float

    def __post_init__(self) -> None:
        name = type(self).__name__
        object.__setattr__(self, "amplitude", _finite(name, "amplitude", self.amplitude))
        object.__setattr__(self, "frequency", _positive(name, "frequency", self.frequency))

    @property
    def duration(self) -> float:
        """T = 1/f [s]."""
        return 1.0 / self.frequency

    def _unbounded(self, t):
        raise NotImplementedError

    def _state(self, t):
        return _truncated(self._unbounded, t, self.duration)


@dataclass(frozen=True)
class SinePulse(_OneCyclePulse):
    """One full sine, a(t) = A sin(w t) on [0, T], T = 1/f, w = 2 pi f; 0 after.

        v(t) = A/w (1 - cos w t),   d(t) = A/w t - A/w^2 sin w t      on [0, T],
        v(T) = 0,                   d(T) = A T / w = 2 pi A / w^2 = A / (2 pi f^2),

    and for t > T, v = 0 and d = A / (2 pi f^2) for ever: the table ends displaced, at rest.
    a is continuous (0 at both ends); a' jumps by A w at 0 and T. Peak velocity 2 A / w at T/2.

    Attributes
    ----------
    amplitude : A [m/s^2].  frequency : f [Hz].
    """

    def _unbounded(self, t):
        return _sines(t, ((self.amplitude, 2.0 * math.pi * self.frequency),))


@dataclass(frozen=True)
class CosinePulse(_OneCyclePulse):
    """One full cosine, a(t) = A cos(w t) on [0, T], T = 1/f, w = 2 pi f; 0 after.

        v(t) = A/w sin w t,         d(t) = A/w^2 (1 - cos w t)        on [0, T],
        v(T) = 0,                   d(T) = 0,

    so the table comes back to its start and stays there at rest (no residual velocity, no
    residual displacement); peak displacement 2 A / w^2 at T/2. a jumps from 0 to A at t = 0 and
    from A to 0 at T (a(T) = A is taken on the closed interval); v and d are continuous.

    Attributes
    ----------
    amplitude : A [m/s^2].  frequency : f [Hz].
    """

    def _unbounded(self, t):
        A, w = self.amplitude, 2.0 * math.pi * self.frequency
        return A * np.cos(w * t), A * _sin_over(w, t), A * _one_minus_cos_over(w, t, 2)


@dataclass(frozen=True)
class Ramp(_History):
    """Smooth step of the acceleration to A, hold, smooth step back to 0.

    With S(s) = 3 s^2 - 2 s^3 (S(0) = 0, S(1) = 1, S'(0) = S'(1) = 0, so a is C1), T_r the ramp
    time and T_h the hold time:

        [0, T_r]               a = A S(s),      s = t / T_r
                               v = A T_r (s^3 - s^4/2),           d = A T_r^2 (s^4/4 - s^5/10)
        [T_r, T_r + T_h]       a = A,           tau = t - T_r
                               v = A T_r / 2 + A tau,             d = 0.15 A T_r^2 + A T_r/2 tau + A tau^2/2
        [T_r + T_h, 2T_r + T_h]  a = A (1 - S(s)), s = tau / T_r, tau from the start of the ramp down
                               v = v_2 + A T_r (s - s^3 + s^4/2),  d = d_2 + v_2 tau + A T_r^2 (s^2/2 - s^4/4 + s^5/10)
        after                  a = 0,           v = A (T_r + T_h),  d grows linearly at that speed.

    End choice: the acceleration is released to 0 with the same smooth ramp (a finite table
    stroke cannot accelerate for ever), so the table ends at the constant velocity A (T_r + T_h).
    ``hold_time = inf`` holds A for ever instead (v = A T_r/2 + A (t - T_r)).

    Attributes
    ----------
    amplitude : A [m/s^2].  ramp_time : T_r > 0 [s].  hold_time : T_h >= 0 [s] (inf allowed).
    """

    amplitude: float
    ramp_time: float
    hold_time: float = 0.0
    _motion: _PiecewisePolynomial = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        A = _finite("Ramp", "amplitude", self.amplitude)
        Tr = _positive("Ramp", "ramp_time", self.ramp_time)
        Th = float(self.hold_time)
        if not Th >= 0.0:
            raise ValueError(f"Ramp: hold_time must be >= 0, got {Th}")
        object.__setattr__(self, "amplitude", A)
        object.__setattr__(self, "ramp_time", Tr)
        object.__setattr__(self, "hold_time", Th)
        up = [0.0, 0.0, 3.0 * A / Tr**2, -2.0 * A / Tr**3]
        down = [A, 0.0, -3.0 * A / Tr**2, 2.0 * A / Tr**3]
        if math.isinf(Th):
            motion = _PiecewisePolynomial(np.array([0.0, Tr]), np.array([up]), tail=A)
        elif Th == 0.0:
            motion = _PiecewisePolynomial(np.array([0.0, Tr, 2.0 * Tr]), np.array([up, down]))
        else:
            motion = _PiecewisePolynomial(np.array([0.0, Tr, Tr + Th, 2.0 * Tr + Th]),
                                          np.array([up, [A, 0.0, 0.0, 0.0], down]))
        object.__setattr__(self, "_motion", motion)

    @property
    def duration(self) -> float:
        """2 T_r + T_h [s] (inf when held for ever)."""
        return 2.0 * self.ramp_time + self.hold_time

    def _state(self, t):
        return self._motion.state(t)


# ---------------------------------------------------------------------------------------------
# records


@dataclass(frozen=True)
class Record(_History):
    """Sampled acceleration, linear between samples, 0 before the first and after the last.

    With h = t_{k+1} - t_k, the exact integrals of the piecewise-linear a are

        v_{k+1} = v_k + h (a_k + a_{k+1}) / 2                       (trapezoid, exact),
        d_{k+1} = d_k + v_k h + h^2 (2 a_k + a_{k+1}) / 6           (exact cubic),

    with v = d = 0 up to the first sample, and v(t_last), linear d, after the last one. Samples
    are stored as tuples so that records compare by value (as :mod:`fem.loads.applied` does with time
    functions). Non-uniform steps are allowed.

    Attributes
    ----------
    times : strictly increasing sample times [s], the first >= 0.
    accelerations : samples [m/s^2].
    source : where the samples came from (file name), used in messages only.
    baseline : the baseline correction applied to the samples, in words ("none" for raw samples;
        :func:`baseline_corrected` says which polynomial it removed, and why when it could not
        fit the degree asked).
    """

    times: tuple[float, ...]
    accelerations: tuple[float, ...]
    source: str = field(default="", compare=False)
    baseline: str = field(default="none", compare=False)
    _motion: _PiecewisePolynomial = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"{self.source}: " if self.source else "Record: "
        t = np.asarray(self.times, dtype=float)
        a = np.asarray(self.accelerations, dtype=float)
        if t.ndim != 1 or t.shape != a.shape:
            raise ValueError(f"{where}needs as many times as accelerations (got {t.size} and {a.size})")
        if t.size < 2:
            raise ValueError(f"{where}needs at least 2 samples, got {t.size}")
        if not np.all(np.isfinite(t)):
            raise ValueError(f"{where}time {int(np.flatnonzero(~np.isfinite(t))[0])} is not a finite number")
        if not np.all(np.isfinite(a)):
            k = int(np.flatnonzero(~np.isfinite(a))[0])
            raise ValueError(f"{where}acceleration {k} (t = {t[k]}) is not a finite number (NaN?)")
        steps = np.diff(t)
        if np.any(steps <= 0.0):
            k = int(np.flatnonzero(steps <= 0.0)[0])
            raise ValueError(f"{where}times must increase strictly; t[{k + 1}] = {t[k + 1]} after t[{k}] = {t[k]}")
        if t[0] < 0.0:
            raise ValueError(f"{where}first time {t[0]} is negative; the motion starts from rest at t >= 0")
        object.__setattr__(self, "times", tuple(t.tolist()))
        object.__setattr__(self, "accelerations", tuple(a.tolist()))
        slopes = np.diff(a) / steps
        object.__setattr__(self, "_motion", _PiecewisePolynomial(t, np.column_stack([a[:-1], slopes])))

    @property
    def duration(self) -> float:
        """Time of the last sample [s]."""
        return self.times[-1]

    @property
    def peak_acceleration(self) -> float:
        """max |a_k| [m/s^2]."""
        return float(np.max(np.abs(self.accelerations)))

    def _state(self, t):
        return self._motion.state(t)


def baseline_corrected(record: Record, degree: int = 2) -> Record:
    """Record with a polynomial velocity trend removed (baseline correction).

    The usual least-squares fit of a low-order polynomial to the velocity (the quadratic-to-velocity
    correction discussed e.g. by Boore, 2001, Bull. Seism. Soc. Am. 91(5)), with the end condition
    imposed exactly. With s = (t - t_0) / T in [0, 1], T the record length and v_k the exact
    velocities at the samples, the trend is

        p(s) = v_end s + sum_{j=2}^{degree} c_j (s^j - s),

    so p(0) = 0 and p(1) = v_end; the c_j minimise sum_k (v_k - p(s_k))^2 (none for degree 1, which
    is the straight line to the end velocity). Its derivative dp/dt, of degree <= 1 and hence
    represented exactly by the piecewise-linear samples, is subtracted from the acceleration:

        a_corr = a - dp/dt,   v_corr = v - p,   v_corr(end) = 0  (to round-off),

    which removes the linear velocity drift (and the quadratic displacement drift) that a small
    acceleration offset produces, and leaves the corrected displacement constant after the record.

    A record of two samples has no sample inside the record (s = 0 and 1 only, where s^2 - s
    vanishes): there is nothing for the degree-2 term to fit (0 / 0), so it falls back to degree 1,
    the straight line to the end velocity, which it determines exactly; the returned record's
    ``baseline`` says so (and :mod:`cases.shaking_table` writes it into summary.json).

    Parameters
    ----------
    degree : 1 or 2, degree of the velocity polynomial.
    """
    if degree not in (1, 2):
        raise ValueError(f"baseline correction: degree must be 1 or 2, got {degree!r}")
    t = np.asarray(record.times)
    a = np.asarray(record.accelerations)
    T = t[-1] - t[0]
    s = (t - t[0]) / T
    v = record.velocity(t)
    v_end = v[-1]
    trend_rate = np.full_like(s, v_end / T)  # dp/dt [m/s^2]
    basis = s**2 - s
    norm = float(np.dot(basis, basis))
    if degree == 2 and norm > 0.0:
        c2 = float(np.dot(basis, v - v_end * s) / norm)
        trend_rate += c2 * (2.0 * s - 1.0) / T
        described = "polynomial of degree 2 (least squares, end velocity 0)"
    elif degree == 2:
        described = (f"polynomial of degree 1 (the straight line to the end velocity): a record of {t.size} "
                     f"samples has none inside it to fit the degree-2 term to")
    else:
        described = "polynomial of degree 1 (the straight line to the end velocity)"
    log.debug("%s: baseline correction removes a mean acceleration of %.3g m/s^2",
              record.source or "record", float(np.mean(trend_rate)))
    return Record(tuple(t.tolist()), tuple((a - trend_rate).tolist()), record.source, described)


_FLOAT = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eEdD][-+]?\d+)?"
_AT2_NEW = re.compile(rf"NPTS\s*=\s*(\d+)\s*,?\s*DT\s*=\s*({_FLOAT})", re.IGNORECASE)
_AT2_OLD = re.compile(rf"^\s*(\d+)\s+({_FLOAT})\s+NPTS\s*,\s*DT", re.IGNORECASE)
_SEPARATOR = re.compile(r"[,;\s]+")


def _parse_columns(text: str, name: str, column: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns t, a_1, a_2, ... (comma or whitespace separated; every line as many); ``column`` k
    picks a_k (1: the first acceleration, e.g. the horizontal one of a record that also holds its
    vertical one). '#' comments, blank lines and one non-numeric header line (the first) are
    skipped. Returns t, a_k and the file's line number of each sample (for messages). Sample::

        time_s,acc_h_m_s2,acc_v_m_s2
        0.000,1.962e-02,-3.1e-03
        0.010,2.513e-02,1.2e-03
    """
    rows, lines = [], []
    width = None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f for f in _SEPARATOR.split(line) if f]
        try:
            values = [float(f) for f in fields]
        except ValueError:
            if not rows and number == _first_content_line(text):
                continue  # header
            raise ValueError(f"{name}: line {number} is not numbers: {line!r}") from None
        if width is None:
            width = len(values)
            if width < 2:
                raise ValueError(f"{name}: line {number} has {width} column, expected t and at least one a")
            if not 1 <= column < width:
                raise ValueError(f"{name}: column {column} asked, the file has {width - 1} acceleration "
                                 f"column(s) after t (1 to {width - 1})")
        elif len(values) != width:
            raise ValueError(f"{name}: line {number} has {len(values)} columns, the first sample has {width}")
        rows.append((values[0], values[column]))
        lines.append(number)
    if not rows:
        raise ValueError(f"{name}: no samples (expected columns t, a)")
    data = np.array(rows)
    return data[:, 0], data[:, 1], np.array(lines)


def _first_content_line(text: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.split("#", 1)[0].strip():
            return number
    return 0


def _parse_at2(text: str, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PEER NGA .AT2: 4 header lines, the 4th giving NPTS and DT, then NPTS accelerations in g,
    several per line; sample t_k = k DT, k = 0 .. NPTS-1. Returns t, a and the file's line
    number of each sample (for messages). Sample::

        PEER NGA STRONG MOTION DATABASE RECORD
        SOME EARTHQUAKE 1/1/2000, STATION, 090
        ACCELERATION TIME SERIES IN UNITS OF G
        NPTS=  5000, DT=   .0050 SEC          (or the older:  5000   0.0050   NPTS, DT)
          .12345E-02  .23456E-02 -.34567E-02  ...
    """
    lines = text.splitlines()
    if len(lines) < 4:
        raise ValueError(f"{name}: AT2 file needs 4 header lines, has {len(lines)} lines")
    match = _AT2_NEW.search(lines[3]) or _AT2_OLD.search(lines[3])
    if match is None:
        raise ValueError(f"{name}: AT2 line 4 should give NPTS and DT (e.g. 'NPTS=  5000, DT=   .0050 SEC'), "
                         f"got {lines[3].strip()!r}")
    npts, dt = int(match.group(1)), float(match.group(2).replace("D", "E").replace("d", "e"))
    if not (dt > 0.0 and math.isfinite(dt)):
        raise ValueError(f"{name}: AT2 time step DT must be positive, got {dt}")
    tokens, where = [], []
    for number, line in enumerate(lines[4:], start=5):
        found = line.replace(",", " ").split()
        tokens += found
        where += [number] * len(found)
    try:
        values = np.array([float(x.replace("D", "E").replace("d", "e")) for x in tokens])
    except ValueError as error:
        raise ValueError(f"{name}: AT2 acceleration is not a number ({error})") from None
    if values.size != npts:
        raise ValueError(f"{name}: AT2 header gives NPTS = {npts} but the file has {values.size} values")
    if npts and not (dt * (npts - 1) <= INSTANT.high):
        raise ValueError(f"{name}: line 4: NPTS = {npts} samples of DT = {dt:g} s last {dt * (npts - 1):.4g} s, "
                         f"longer than any record (at most {number_text(INSTANT.high)} s)")
    return dt * np.arange(npts), values, np.array(where, dtype=int)


_FORMATS = {".csv": "columns", ".txt": "columns", ".dat": "columns", ".at2": "at2"}
_UNITS = ("m/s2", "g")


def read_record(path, units: str | None = None, g: float = STANDARD_GRAVITY, baseline: str = "polynomial",
                degree: int = 2, peak_g: float | None = None, file_format: str | None = None,
                column: int = 1, scale: float | None = None) -> Record:
    """Read an acceleration record, convert it to m/s^2, baseline-correct and scale it.

    Parameters
    ----------
    path : .csv / .txt / .dat (two columns t [s], a; header optional) or .AT2 (PEER NGA).
    units : "m/s2" or "g"; default "m/s2" for columns and "g" for AT2 (the PEER convention).
    g : [m/s^2] used to convert from g.
    baseline : "polynomial" (:func:`baseline_corrected` with ``degree``) or "none".
    peak_g : if given, the (corrected) record is scaled so that max |a| = peak_g * g.
    file_format : "columns" or "at2" to override the guess from the file extension.
    column : which acceleration column of a columns file (1: the first after t; a record with its
        horizontal and vertical components in columns 1 and 2 is read once per component).
    scale : if given, the (corrected) record multiplied by it (after ``peak_g``: a study's scale factor).

    Every problem with the file raises a one-line ValueError naming it.
    """
    path = Path(path)
    name = str(path)
    fmt = file_format if file_format is not None else _FORMATS.get(path.suffix.lower())
    if fmt not in ("columns", "at2"):
        raise ValueError(f"{name}: unknown record format {path.suffix or file_format!r}; "
                         f"use .csv/.txt/.dat (two columns t, a) or .AT2 (PEER NGA)")
    if baseline not in ("polynomial", "none"):
        raise ValueError(f"{name}: baseline must be 'polynomial' or 'none', got {baseline!r}")
    units = units if units is not None else ("g" if fmt == "at2" else "m/s2")
    if units not in _UNITS:
        raise ValueError(f"{name}: units must be 'm/s2' or 'g', got {units!r}")
    if not path.is_file():
        raise ValueError(f"{name}: no such record file")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{name}: cannot be read as text ({error})") from None
    if isinstance(column, bool) or not isinstance(column, int) or column < 1:
        raise ValueError(f"{name}: column must be an integer >= 1, got {column!r}")
    if fmt == "at2" and column != 1:
        raise ValueError(f"{name}: a PEER .AT2 file holds one component (column 1), got column {column}")
    if fmt == "at2":
        times, accelerations, lines = _parse_at2(text, name)
    else:
        times, accelerations, lines = _parse_columns(text, name, column)
    _check_samples(times, accelerations, lines, units, name)
    if units == "g":
        accelerations = accelerations * float(g)
    record = Record(tuple(times.tolist()), tuple(accelerations.tolist()), name)
    if baseline == "polynomial":
        record = baseline_corrected(record, degree)
    if peak_g is not None:
        target = _positive(name, "peak_g", peak_g) * float(g)
        if record.peak_acceleration == 0.0:
            raise ValueError(f"{name}: cannot scale an all-zero record to peak_g = {peak_g}")
        factor = target / record.peak_acceleration
        if not math.isfinite(factor):
            raise ValueError(f"{name}: its peak, {record.peak_acceleration:.3g} m/s^2, is too small to be scaled to "
                             f"peak_g = {peak_g} in double precision")
        record = Record(record.times, tuple(factor * x for x in record.accelerations), name, record.baseline)
    if scale is not None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale):
            raise ValueError(f"{name}: scale must be a finite number, got {scale!r}")
        record = Record(record.times, tuple(float(scale) * x for x in record.accelerations), name, record.baseline)
    return record


def _check_samples(times: np.ndarray, accelerations: np.ndarray, lines: np.ndarray, units: str, name: str) -> None:
    """ValueError naming the file, the line and the sample of the first time or acceleration that
    is not a finite number, or beyond the physical range: a time outside +-1e5 s
    (:data:`fem.ranges.INSTANT`), an acceleration beyond 100 g (:data:`fem.ranges.RECORD_SAMPLE`:
    a unit mistake, no ground motion)."""
    in_g = accelerations if units == "g" else accelerations / STANDARD_GRAVITY
    with np.errstate(invalid="ignore"):
        bad_t = ~np.isfinite(times) | (np.abs(times) > INSTANT.high)
        bad_a = ~np.isfinite(in_g) | (in_g < RECORD_SAMPLE.low) | (in_g > RECORD_SAMPLE.high)
    unit = "g" if units == "g" else "m/s^2"
    for k in np.flatnonzero(bad_t | bad_a)[:1]:
        where = f"{name}: line {int(lines[k])} (sample {k}"
        if bad_t[k]:
            what = ("is not a finite number" if not math.isfinite(times[k]) else
                    f"is beyond {number_text(INSTANT.high)} s: longer than any record")
            raise ValueError(f"{where}): time {number_text(times[k])} s {what}")
        value = number_text(accelerations[k])
        if not math.isfinite(in_g[k]):
            raise ValueError(f"{where}, t = {number_text(times[k])} s): acceleration {value} {unit} is not a finite "
                             f"number")
        in_g_text = "" if units == "g" else f" ({in_g[k]:.4g} g)"
        raise ValueError(f"{where}, t = {number_text(times[k])} s): acceleration {value} {unit}{in_g_text} "
                         f"is outside {RECORD_SAMPLE.interval()}: {RECORD_SAMPLE.why}")


# ---------------------------------------------------------------------------------------------
# scaling, plugging into the model, command line


@dataclass(frozen=True)
class Scaled(_History):
    """factor * history: a, v and d all multiplied by ``factor`` (dimensionless)."""

    history: MotionHistory
    factor: float

    @property
    def duration(self) -> float:
        return self.history.duration

    def _state(self, t):
        h = self.history
        return (self.factor * np.asarray(h.acceleration(t)), self.factor * np.asarray(h.velocity(t)),
                self.factor * np.asarray(h.displacement(t)))


def scaled(history: MotionHistory, factor: float) -> Scaled:
    """The same motion multiplied by ``factor`` (the integrals are linear, so v and d scale too)."""
    return Scaled(history, _finite("scaled", "factor", factor))


@dataclass(frozen=True)
class SupportDisplacement:
    """d(t - start) [m] as a time function ``f(t) -> float`` of :mod:`fem.loads.functions` style, for
    ``ImposedDisplacement(group, component, 1.0, SupportDisplacement(history))``.

    start : [s] time at which the history's t = 0 falls in the run (0 when the run's excitation
    starts at t = 0 after the preload); before it the support is at rest at 0.
    """

    history: MotionHistory
    start: float = 0.0

    def __call__(self, t: float) -> float:
        return float(self.history.displacement(t - self.start))


def support_motion(group: str, history: MotionHistory, component: str = "x", start: float = 0.0
                   ) -> ImposedDisplacement:
    """Impose the table displacement d(t - start) on ``component`` of the nodes of ``group``."""
    return ImposedDisplacement(group, component, 1.0, SupportDisplacement(history, start))


@dataclass(frozen=True)
class SupportAcceleration:
    """a(t - start) [m/s^2] of a history as a time function ``f(t) -> float`` (0 before ``start``)."""

    history: MotionHistory
    start: float = 0.0

    def __call__(self, t: float) -> float:
        return float(self.history.acceleration(t - self.start))


def table_frame_load(history: MotionHistory, component: str = "x", start: float = 0.0) -> InertialLoad:
    """The d'Alembert load -M e a(t - start) of a table moving rigidly with ``history`` along
    ``component``, for a run written in the table's frame (:class:`fem.loads.applied.InertialLoad`): the
    supports stay fixed, displacements are relative to the table, and the table's absolute motion
    is u + e d(t). The alternative, :func:`support_motion`, moves the supports themselves."""
    return InertialLoad(component, SupportAcceleration(history, start))


_NUMBERS = {"amplitude", "frequency", "cycles", "smooth_start", "ramp_time", "hold_time", "g", "peak_g"}


def _number(kind: str, name: str, value):
    if name not in _NUMBERS | {"degree"}:
        return value
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "")):
        return None
    if name == "degree":
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{kind}: parameter 'degree' must be an integer, got {value!r}") from None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{kind}: parameter {name!r} must be a number, got {value!r}") from None


def base_motion(kind: str, **params) -> MotionHistory:
    """Build a support motion from a kind and keyword parameters (strings are converted), e.g.
    ``base_motion("harmonic", amplitude="2", frequency="3", cycles="5")``.

    kind : "harmonic" (:class:`Harmonic`), "sine-pulse" (:class:`SinePulse`), "cosine-pulse"
    (:class:`CosinePulse`), "ramp" (:class:`Ramp`) or "record" (:func:`read_record`).
    A bad kind, an unknown or missing parameter, or a bad value raises ValueError naming it.
    """
    if kind == "harmonic":
        build = Harmonic
    elif kind == "sine-pulse":
        build = SinePulse
    elif kind == "cosine-pulse":
        build = CosinePulse
    elif kind == "ramp":
        build = Ramp
    elif kind == "record":
        build = read_record
    else:
        raise ValueError(f"unknown base motion kind {kind!r}; use harmonic, sine-pulse, cosine-pulse, ramp or record")
    accepted = {name: p for name, p in inspect.signature(build).parameters.items() if not name.startswith("_")}
    for name in params:
        if name not in accepted:
            raise ValueError(f"{kind}: unknown parameter {name!r}; accepted: {', '.join(accepted)}")
    for name, p in accepted.items():
        if p.default is inspect.Parameter.empty and name not in params:
            raise ValueError(f"{kind}: missing parameter {name!r}")
    return build(**{name: _number(kind, name, value) for name, value in params.items()})
