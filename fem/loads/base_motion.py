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

The shared machinery (the protocol, the base class, the piecewise-polynomial integration) is in
:mod:`fem.loads.history`, the records (reading, baseline correction, scaling to a peak) in
:mod:`fem.loads.records`; both are re-exported here.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from fem import ranges
from fem.loads.applied import ImposedDisplacement, InertialLoad
from fem.loads.history import History, MotionHistory, PiecewisePolynomial, checked_finite, checked_positive
from fem.loads.records import (STANDARD_GRAVITY, Record, baseline_corrected, check_scaled_peak,  # noqa: F401 (re-exported)
                               read_record)


# ---------------------------------------------------------------------------------------------
# the closed forms' shared machinery


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


def _sines_acceleration(t: np.ndarray, terms) -> np.ndarray:
    """The a of :func:`_sines` alone (the same operations)."""
    a = np.zeros_like(t)
    for c, w in terms:
        a = a + c * np.sin(w * t)
    return a


def _kept(history, name: str, compute: Callable):
    """``compute()`` once per history, kept in its ``__dict__`` under ``name`` (a cache, not a field:
    equality, ``replace`` and the fields are those of the parameters): the constants of a closed form
    (the shifts at the ramp's end, the velocity at the motion's end), which a time step would
    otherwise compute again at every instant it asks for."""
    value = history.__dict__.get(name)
    if value is None:
        value = compute()
        object.__setattr__(history, name, value)  # the frozen dataclasses' way round
    return value


def _truncated_acceleration(unbounded_acceleration: Callable, t: np.ndarray, t_end: float) -> np.ndarray:
    """The a of :func:`_truncated` alone (the same operations), from the a of ``unbounded``."""
    a = unbounded_acceleration(np.clip(t, 0.0, t_end))
    return np.where((t >= 0.0) & (t <= t_end), a, 0.0)


def _truncated(unbounded: Callable, t: np.ndarray, t_end: float, owner=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """State of a motion that follows ``unbounded`` (a from rest, valid for t >= 0) on [0, t_end]
    and has a = 0 outside: v = 0, d = 0 before 0; v = v(t_end), d = d(t_end) + v(t_end) (t - t_end) after.
    v(t_end) is kept by the history ``owner`` (:func:`_kept`) when one is given."""
    a, v, d = unbounded(np.clip(t, 0.0, t_end))
    a = np.where((t >= 0.0) & (t <= t_end), a, 0.0)
    if math.isfinite(t_end):
        def end_velocity():
            return unbounded(np.asarray(t_end))[1]

        v_end = end_velocity() if owner is None else _kept(owner, "_end_velocity", end_velocity)
        d = d + v_end * np.maximum(t - t_end, 0.0)
    return a, v, d


#: a closed form's amplitude, in g: a table acceleration (fem.ranges.TABLE_ACCELERATION), or 0 (a
#: component at rest)
AMPLITUDE = replace(ranges.TABLE_ACCELERATION, zero=True)


def check_amplitude(owner: str, amplitude: float, key: str = "amplitude") -> None:
    """Refuse a closed form's ``amplitude`` [m/s^2] whose magnitude in g lies outside :data:`AMPLITUDE`
    (BadInput naming ``owner`` and ``key``)."""
    in_g = abs(amplitude) / STANDARD_GRAVITY
    if in_g not in AMPLITUDE:
        kind = AMPLITUDE
        raise ranges.BadInput(f"{owner}: {key} {ranges.number(amplitude)} m/s^2: its magnitude, {ranges.short(in_g)} g, is "
                              f"outside the physical range {kind.interval()} of a {kind.name}: {kind.why}")


def check_ranges(owner: str, items) -> None:
    """``(name, value, kind)``: each value within its physical range (fem.ranges), None and inf skipped
    (no number of cycles, a ramp held for ever): BadInput ``Owner: name VALUE UNIT is outside ...``."""
    ranges.check_all((f"{owner}: {name}", value, kind) for name, value, kind in items
                     if value is None or not math.isinf(value))


def peak_acceleration(history) -> float | None:
    """max |a| [m/s^2] of a history: a record's largest sample, a closed form's |amplitude| (a harmonic,
    a pulse, a ramp never exceed it), a scaled one's |factor| times its history's; None when not known
    (a history of the caller's own)."""
    peak = getattr(history, "peak_acceleration", None)
    if peak is None and isinstance(getattr(history, "amplitude", None), (int, float)):
        peak = abs(history.amplitude)
    return None if peak is None else float(peak)


# ---------------------------------------------------------------------------------------------
# analytic histories


class _FromRest(History):
    """A closed form that follows ``_unbounded(t) -> (a, v, d)`` (from rest, valid for t >= 0) on
    [0, duration] and has a = 0 outside (:func:`_truncated`); ``_unbounded_acceleration(t)`` its a alone."""

    def _state(self, t):
        return _truncated(self._unbounded, t, self.duration, self)

    def _acceleration(self, t):
        return _truncated_acceleration(self._unbounded_acceleration, t, self.duration)


@dataclass(frozen=True)
class Harmonic(_FromRest):
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
        object.__setattr__(self, "amplitude", checked_finite("Harmonic", "amplitude", self.amplitude))
        object.__setattr__(self, "frequency", checked_positive("Harmonic", "frequency", self.frequency))
        if self.cycles is not None:
            object.__setattr__(self, "cycles", checked_positive("Harmonic", "cycles", self.cycles, allow_inf=True))
        smooth = float(self.smooth_start)
        if not (smooth >= 0.0 and math.isfinite(smooth)):
            raise ValueError(f"Harmonic: smooth_start must be >= 0 and finite, got {smooth}")
        object.__setattr__(self, "smooth_start", smooth)
        check_amplitude("Harmonic", self.amplitude)
        check_ranges("Harmonic", (("frequency", self.frequency, ranges.FREQUENCY), ("cycles", self.cycles, ranges.CYCLES),
                                  ("smooth_start", smooth, ranges.DURATION_OR_ZERO)))

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
        def shifts():  # the constants that make v and d continuous at T_s
            at_Ts = np.asarray(Ts)
            return (_sines(at_Ts, ramped_terms)[1] - _sines(at_Ts, ((A, w),))[1],
                    _sines(at_Ts, ramped_terms)[2] - _sines(at_Ts, ((A, w),))[2])

        dv, dd = _kept(self, "_ramp_shifts", shifts)
        late = t > Ts
        return (np.where(late, plain[0], ramped[0]),
                np.where(late, plain[1] + dv, ramped[1]),
                np.where(late, plain[2] + dd + dv * (t - Ts), ramped[2]))

    def _unbounded_acceleration(self, t: np.ndarray):
        A, w = self.amplitude, self.omega
        plain = _sines_acceleration(t, ((A, w),))
        Ts = self.smooth_start
        if Ts == 0.0:
            return plain
        p = math.pi / Ts
        ramped = _sines_acceleration(np.minimum(t, Ts), ((0.5 * A, w), (-0.25 * A, w + p), (-0.25 * A, w - p)))
        return np.where(t > Ts, plain, ramped)


@dataclass(frozen=True)
class _OneCyclePulse(_FromRest):
    """One full cycle T = 1/f of ``_unbounded`` (a, v, d of the infinite signal from rest), 0 after.

    Attributes
    ----------
    amplitude : A [m/s^2].  frequency : f [Hz].
    """

    amplitude: float
    frequency: float

    def __post_init__(self) -> None:
        name = type(self).__name__
        object.__setattr__(self, "amplitude", checked_finite(name, "amplitude", self.amplitude))
        object.__setattr__(self, "frequency", checked_positive(name, "frequency", self.frequency))
        check_amplitude(name, self.amplitude)
        check_ranges(name, (("frequency", self.frequency, ranges.FREQUENCY),))

    @property
    def duration(self) -> float:
        """T = 1/f [s]."""
        return 1.0 / self.frequency

    def _unbounded(self, t):
        raise NotImplementedError

    def _unbounded_acceleration(self, t):
        raise NotImplementedError


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

    def _unbounded_acceleration(self, t):
        return _sines_acceleration(t, ((self.amplitude, 2.0 * math.pi * self.frequency),))


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

    def _unbounded_acceleration(self, t):
        return self.amplitude * np.cos(2.0 * math.pi * self.frequency * t)


@dataclass(frozen=True)
class Ramp(History):
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
    _motion: PiecewisePolynomial = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        A = checked_finite("Ramp", "amplitude", self.amplitude)
        Tr = checked_positive("Ramp", "ramp_time", self.ramp_time)
        Th = float(self.hold_time)
        if not Th >= 0.0:
            raise ValueError(f"Ramp: hold_time must be >= 0, got {Th}")
        check_amplitude("Ramp", A)
        check_ranges("Ramp", (("ramp_time", Tr, ranges.DURATION), ("hold_time", Th, ranges.DURATION_OR_ZERO)))
        object.__setattr__(self, "amplitude", A)
        object.__setattr__(self, "ramp_time", Tr)
        object.__setattr__(self, "hold_time", Th)
        up = [0.0, 0.0, 3.0 * A / Tr**2, -2.0 * A / Tr**3]
        down = [A, 0.0, -3.0 * A / Tr**2, 2.0 * A / Tr**3]
        if math.isinf(Th):
            motion = PiecewisePolynomial(np.array([0.0, Tr]), np.array([up]), tail=A)
        elif Th == 0.0:
            motion = PiecewisePolynomial(np.array([0.0, Tr, 2.0 * Tr]), np.array([up, down]))
        else:
            motion = PiecewisePolynomial(np.array([0.0, Tr, Tr + Th, 2.0 * Tr + Th]),
                                          np.array([up, [A, 0.0, 0.0, 0.0], down]))
        object.__setattr__(self, "_motion", motion)

    @property
    def duration(self) -> float:
        """2 T_r + T_h [s] (inf when held for ever)."""
        return 2.0 * self.ramp_time + self.hold_time

    def _state(self, t):
        return self._motion.state(t)


# ---------------------------------------------------------------------------------------------
# scaling, plugging into the model, command line


@dataclass(frozen=True)
class Scaled(History):
    """factor * history: a, v and d all multiplied by ``factor`` (dimensionless).

    The factor is refused (BadInput naming it) unless finite with its magnitude in fem.ranges.SCALE, and
    when the scaled peak acceleration (:func:`peak_acceleration`, when known) exceeds the 100 g a record's
    sample may reach (fem.ranges.RECORD_SAMPLE, :func:`check_scaled_peak`)."""

    history: MotionHistory
    factor: float

    def __post_init__(self) -> None:
        factor = checked_finite("scaled", "factor", self.factor)
        object.__setattr__(self, "factor", factor)
        if (what := ranges.SCALE.outside(factor, signed=True)) is not None:
            raise ranges.BadInput(f"scaled: factor {what}")
        check_scaled_peak("scaled: factor", factor, peak_acceleration(self.history))

    @property
    def duration(self) -> float:
        return self.history.duration

    @property
    def peak_acceleration(self) -> float | None:
        """|factor| times the history's peak [m/s^2] (None when not known)."""
        peak = peak_acceleration(self.history)
        return None if peak is None else abs(self.factor) * peak

    def _state(self, t):
        h = self.history
        return (self.factor * np.asarray(h.acceleration(t)), self.factor * np.asarray(h.velocity(t)),
                self.factor * np.asarray(h.displacement(t)))


def scaled(history: MotionHistory, factor: float) -> Scaled:
    """The same motion multiplied by ``factor`` (the integrals are linear, so v and d scale too)."""
    return Scaled(history, checked_finite("scaled", "factor", factor))



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
