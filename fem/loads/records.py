"""Recorded support motions: a sampled acceleration (:class:`Record`, linear between samples, its
velocity and displacement integrated exactly), read from a file (:func:`read_record`: columns t, a_1,
a_2, ... or a PEER NGA .AT2), converted to m/s^2, baseline-corrected (:func:`baseline_corrected`) and
scaled. :mod:`fem.loads.base_motion` re-exports these names."""
from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fem.constants import GRAVITY
from fem.loads.history import History, PiecewisePolynomial, checked_positive
from fem.ranges import INSTANT, RECORD_SAMPLE, SCALE, TABLE_ACCELERATION, BadInput, short
from fem.ranges import number as number_text

log = logging.getLogger(__name__)

STANDARD_GRAVITY = GRAVITY  # [m/s^2], the g used to convert records given in g (fem.constants)


@dataclass(frozen=True)
class Record(History):
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
    _motion: PiecewisePolynomial = field(init=False, repr=False, compare=False)

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
        object.__setattr__(self, "_motion", PiecewisePolynomial(t, np.column_stack([a[:-1], slopes])))

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
    scale : if given, the (corrected) record multiplied by it (after ``peak_g``: a study's scale factor);
        its magnitude within fem.ranges.SCALE, and the scaled samples within the 100 g the samples are
        read against (:func:`check_scaled_peak`).

    Every problem with the file raises a one-line ValueError naming it (a BadInput for a peak_g or a
    scale outside its physical range).
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
        target = checked_positive(name, "peak_g", peak_g) * float(g)
        if (what := TABLE_ACCELERATION.outside(peak_g)) is not None:
            raise BadInput(f"{name}: peak_g {what}")
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
        if (what := SCALE.outside(scale, signed=True)) is not None:
            raise BadInput(f"{name}: scale {what}")
        check_scaled_peak(f"{name}: scale", scale, record.peak_acceleration)  # the 100 g of its samples, scaled
        record = Record(record.times, tuple(float(scale) * x for x in record.accelerations), name, record.baseline)
    return record


def check_scaled_peak(key: str, factor: float, peak: float | None) -> None:
    """Refuse (BadInput naming ``key``: ``scaled: factor``, ``FILE: scale``) a ``factor`` that takes a
    motion of peak acceleration ``peak`` [m/s^2] (None: not known) beyond the 100 g of
    :data:`fem.ranges.RECORD_SAMPLE`, the bound a record's samples are read against before scaling."""
    if peak is None:
        return
    peak_g = abs(factor) * peak / STANDARD_GRAVITY
    if not peak_g <= RECORD_SAMPLE.high:
        raise BadInput(f"{key} {number_text(factor)} takes the peak acceleration {short(peak / STANDARD_GRAVITY)} g to "
                       f"{short(peak_g)} g, outside the physical range {RECORD_SAMPLE.interval()} of a "
                       f"{RECORD_SAMPLE.name}: no ground motion reaches it")


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
