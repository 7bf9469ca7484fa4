"""Support (shaking-table) motions of fem.loads.base_motion: closed forms against quadrature, specific
values, record readers, baseline correction, file errors, the command-line factory, and the
hook into fem.loads.applied.

Data files (tests/data):

- ``record_small.AT2``: 24 samples at DT = 0.01 s in PEER NGA format, values written by hand
  (the list ``AT2_SAMPLES_G`` below); its 2nd header line says it is synthetic.
- ``record_filtered_noise.csv``: 10 s at 0.01 s of band-limited noise made by
  :func:`filtered_noise_record`: seeded white noise through a 4th-order Butterworth band-pass
  0.5-10 Hz (forward and backward), 20 % Tukey taper, taken as a displacement d_k; the clean
  acceleration is its second difference (d_{k+1} - 2 d_k + d_{k-1}) / dt^2 (d = 0 outside), so it
  starts and ends at rest at 0 (final velocity ~1e-5 m/s); scaled to a 0.3 g peak. Then a
  deliberate constant offset of 0.002 g is added, so that the uncorrected velocity drifts by
  0.196 m/s over the record and the displacement by ~1 m.
  Regenerate with ``python tests/test_base_motion.py``; ``test_noise_record_is_what_the_script_makes``
  checks that the file matches the script.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import signal

from fem.loads.base_motion import (CosinePulse, Harmonic, Ramp, Record, SinePulse, SupportDisplacement,
                             base_motion, baseline_corrected, read_record, scaled, support_motion)
from fem.loads import base_motion as bm
from fem.loads.applied import ImposedDisplacement, resolve_constraints
from helpers import grid_mesh

DATA = Path(__file__).resolve().parent / "data"
NOISE_CSV = DATA / "record_filtered_noise.csv"
SMALL_AT2 = DATA / "record_small.AT2"
G = 9.81

AT2_SAMPLES_G = [0.0, 0.0123, 0.0251, 0.0318, 0.0207, -0.0045, -0.0312, -0.0476, -0.0398, -0.0121,
                 0.0214, 0.0503, 0.0612, 0.0455, 0.0102, -0.0287, -0.0541, -0.0498, -0.0203, 0.0088,
                 0.0251, 0.0197, 0.0064, 0.0]
NOISE_OFFSET_G = 0.002


def filtered_noise_record(seed: int = 20240611, dt: float = 0.01, duration: float = 10.0,
                          peak_g: float = 0.3, offset_g: float = NOISE_OFFSET_G) -> tuple[np.ndarray, np.ndarray]:
    """(t [s], a [m/s^2]) of the filtered-noise test record (see the module docstring); with
    ``offset_g = 0`` the clean record, which starts and ends at rest."""
    n = int(round(duration / dt)) + 1
    t = dt * np.arange(n)
    white = np.random.default_rng(seed).standard_normal(n)
    sos = signal.butter(4, [0.5, 10.0], btype="bandpass", fs=1.0 / dt, output="sos")
    d = np.concatenate([[0.0], signal.sosfiltfilt(sos, white) * signal.windows.tukey(n, 0.2), [0.0]])
    a = (d[2:] - 2.0 * d[1:-1] + d[:-2]) / dt**2
    a *= peak_g * G / np.max(np.abs(a))
    return t, a + offset_g * G


def write_noise_csv(path: Path = NOISE_CSV) -> None:
    t, a = filtered_noise_record()
    with open(path, "w") as f:
        f.write("# synthetic band-limited noise + 0.002 g offset, made by tests/test_base_motion.py\n")
        f.write("time_s,acceleration_m_s2\n")
        for ti, ai in zip(t, a):
            f.write(f"{ti:.2f},{ai:.9e}\n")


# ---------------------------------------------------------------------------------------------
# analytic histories: closed forms against quadrature

A = 2.0  # [m/s^2]
F = 3.0  # [Hz]
W = 2.0 * math.pi * F

ANALYTIC = {
    "harmonic": Harmonic(A, F),
    "harmonic-2.5-cycles": Harmonic(A, F, cycles=2.5),
    "harmonic-smooth": Harmonic(A, F, cycles=4, smooth_start=0.4),
    # p = pi / T_s = w: the (w - p) sine of the smooth start has zero frequency
    "harmonic-smooth-p-equals-w": Harmonic(A, F, cycles=3, smooth_start=1.0 / (2.0 * F)),
    "sine-pulse": SinePulse(A, F),
    "cosine-pulse": CosinePulse(A, F),
    "ramp": Ramp(A, 0.3, 0.5),
    "ramp-no-hold": Ramp(A, 0.3, 0.0),
    "ramp-held-for-ever": Ramp(A, 0.3, math.inf),
    "scaled-smooth-harmonic": scaled(Harmonic(A, F, smooth_start=0.25), -1.5),
}
TIMES = np.array([0.013, 0.1, 0.2, 0.33, 0.41, 0.6, 0.95, 1.1, 1.37, 1.9])


def _breaks(history) -> list[float]:
    """Kinks and jumps of a, so that quad integrates each smooth piece separately."""
    h = history.history if hasattr(history, "history") else history
    if isinstance(h, Harmonic):
        return [h.smooth_start, h.duration]
    if isinstance(h, (SinePulse, CosinePulse)):
        return [h.duration]
    if isinstance(h, Ramp):
        return [h.ramp_time, h.ramp_time + h.hold_time, h.duration]
    return []


GAUSS_NODES, GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(10)


def _integral(f, t: float, breaks, panel: float = 0.01) -> float:
    """int_0^t f by 10-point Gauss-Legendre on panels <= 0.01 s that do not straddle a break."""
    edges = sorted({0.0, t} | {b for b in breaks if 0.0 < b < t})
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        cuts = np.linspace(lo, hi, max(1, math.ceil((hi - lo) / panel)) + 1)
        half = 0.5 * np.diff(cuts)[:, None]
        nodes = 0.5 * (cuts[:-1] + cuts[1:])[:, None] + half * GAUSS_NODES
        total += float(np.sum(half * GAUSS_WEIGHTS * f(nodes)))
    return total


@pytest.mark.parametrize("name", ANALYTIC)
def test_velocity_is_integral_of_acceleration(name):
    """v(t) = int_0^t a by 10-point Gauss-Legendre (exact to degree 19) on 0.01 s panels that stop
    at every kink or jump of a; between them a is analytic with frequencies w + pi/T_s < 30 rad/s,
    so the rule's error per panel is ~ (0.15)^20 / 20! and only round-off (~1e-15) is left.
    1e-9 of the peak |v| is thus generous, yet a wrong coefficient, a missing integration constant
    or a wrong continuation after a break is off by O(1)."""
    h = ANALYTIC[name]
    v = h.velocity(TIMES)
    quad = np.array([_integral(h.acceleration, t, _breaks(h)) for t in TIMES])
    np.testing.assert_allclose(v, quad, rtol=0, atol=1e-9 * np.max(np.abs(v)))


@pytest.mark.parametrize("name", ANALYTIC)
def test_displacement_is_integral_of_velocity(name):
    """d(t) = int_0^t v, same rule and tolerance (v is continuous, smooth between the breaks)."""
    h = ANALYTIC[name]
    d = h.displacement(TIMES)
    quad = np.array([_integral(h.velocity, t, _breaks(h)) for t in TIMES])
    np.testing.assert_allclose(d, quad, rtol=0, atol=1e-9 * np.max(np.abs(d)))


@pytest.mark.parametrize("name", [*ANALYTIC, "record"])
def test_one_instant_at_a_time_gives_the_values_of_the_whole_series(name):
    """fem.loads.history.History keeps the state of the last scalar instant: a, v and d asked at
    instants in a shuffled order, each repeated and interleaved with the others, are exactly the
    values of one call on the whole series, to the rounding of a 0-d against a vector evaluation
    (1 ulp measured; a stale state or a wrong component differs by O(1))."""
    h = ANALYTIC[name] if name != "record" else read_record(NOISE_CSV)
    times = np.random.default_rng(7).permutation(np.repeat(TIMES, 2))
    series = {k: getattr(h, k)(TIMES) for k in ("acceleration", "velocity", "displacement")}
    where = {float(t): i for i, t in enumerate(TIMES)}
    for t in times:
        for k in ("displacement", "acceleration", "velocity", "acceleration"):
            value = getattr(h, k)(float(t))
            scale = float(np.max(np.abs(series[k])))
            assert isinstance(value, float)
            assert value == pytest.approx(series[k][where[float(t)]], rel=1e-14, abs=1e-15 * scale), (k, t)


@pytest.mark.parametrize("name", ANALYTIC)
def test_the_acceleration_alone_is_the_states_bit_for_bit(name):
    """The acceleration asked alone at an instant (History._acceleration where a closed form has one:
    the table-frame load of every step) is bit for bit the a of the whole state, inside and after a
    smooth start, at the motion's ends, before 0 and long after; and asking v or d afterwards at the
    same instant gives the whole state's values (a stale acceleration-only cache would not)."""
    h = ANALYTIC[name]
    times = np.concatenate([np.random.default_rng(3).uniform(-1.0, 8.0, 400), [0.0, -0.0, 0.4, 1.0 / F, 2.5 / F]])
    for t in times:
        t = float(t)
        whole = tuple(float(x) for x in h._state(np.asarray(t)))
        a = h.acceleration(t)
        assert a == whole[0] or (math.isnan(a) and math.isnan(whole[0])), t
        assert (h.velocity(t), h.displacement(t), h.acceleration(t)) == (whole[1], whole[2], whole[0]), t


@pytest.mark.parametrize("smooth_start", (0.0, 0.3))
def test_the_constants_a_history_keeps_are_its_own(smooth_start):
    """A closed form keeps its constants (the shifts at the ramp's end, the velocity at the motion's
    end) after its first instant: later instants give bit for bit what a fresh history of the same
    parameters gives, and a history made from it with another amplitude (dataclasses.replace) computes
    its own: twice the amplitude is exactly twice every value (a power of two scales each term of the
    closed form exactly), not the first one's constants."""
    from dataclasses import replace

    used = Harmonic(2.5, 1.7, cycles=3.4, smooth_start=smooth_start)
    times = (0.05, 0.31, 1.2, 1.999, 2.5, 3.7)  # inside the ramp, after it, after the motion's end (2 s)
    for t in times:
        used.displacement(t)
    doubled = replace(used, amplitude=5.0)
    for t in times:
        fresh = Harmonic(2.5, 1.7, cycles=3.4, smooth_start=smooth_start)
        for k in ("acceleration", "velocity", "displacement"):
            assert getattr(used, k)(t) == getattr(fresh, k)(t), (k, t)
            assert getattr(doubled, k)(t) == 2.0 * getattr(fresh, k)(t), (k, t)
    assert used.velocity(3.7) != 0.0 and used.displacement(3.7) != used.displacement(2.5)  # the end's constants act


@pytest.mark.parametrize("name", ANALYTIC)
def test_at_rest_at_and_before_the_start(name):
    """a (except the cosine pulse's a(0) = A), v and d are exactly 0 at t <= 0: the motion starts
    from rest after the preload; exact zeros, since the closed forms vanish identically there."""
    h = ANALYTIC[name]
    t = np.array([-5.0, -1e-3, 0.0])
    assert np.all(h.velocity(t) == 0.0) and np.all(h.displacement(t) == 0.0)
    assert np.all(h.acceleration(t[:2]) == 0.0)


def _jump(f, x, e=1e-9):
    return f(x + e) - f(x - e)


def _slope_jump(f, x, e=1e-6):
    return (f(x + 2 * e) - f(x + e)) / e - (f(x - e) - f(x - 2 * e)) / e


@pytest.mark.parametrize("name, joints", [
    ("harmonic-smooth", [0.0, 0.4]),
    ("harmonic-smooth-p-equals-w", [0.0, 1.0 / (2.0 * F)]),
    ("ramp", [0.0, 0.3, 0.8, 1.1]),
    ("ramp-no-hold", [0.0, 0.3, 0.6]),
])
def test_acceleration_is_c1_where_stated(name, joints):
    """a and a' continuous at the smooth-start and ramp joints. One-sided differences with
    e = 1e-6 s: their truncation error is e |a''| <= 1e-6 * A w^2 ~ 1e-3 A/s, round-off 1e-16 A / e;
    a kink would show a slope jump of order A w ~ 38 A/s (see the sharp-start check below),
    so the bar 1e-2 A w separates them."""
    h = ANALYTIC[name]
    for x in joints:
        assert abs(_jump(h.acceleration, x)) < 1e-6 * A
        assert abs(_slope_jump(h.acceleration, x)) < 1e-2 * A * W


def test_smooth_start_is_the_raised_cosine_ramp():
    """a(t) = A (1 - cos(pi t / T_s)) / 2 sin(w t) on [0, T_s], A sin(w t) after: the three-sine
    form equals the stated product (round-off bar 1e-13 A)."""
    Ts = 0.4
    h = Harmonic(A, F, smooth_start=Ts)
    t = np.linspace(0.0, 1.0, 101)
    ramp = np.where(t < Ts, 0.5 * (1.0 - np.cos(np.pi * np.minimum(t, Ts) / Ts)), 1.0)
    np.testing.assert_allclose(h.acceleration(t), A * ramp * np.sin(W * t), rtol=0, atol=1e-13 * A)


def test_sharp_start_and_pulses_have_the_documented_jumps():
    """The same slope probe sees the sharp harmonic start (a' jumps by A w) -- so the C1 test
    above can fail -- and the cosine pulse's acceleration jumps of A at 0 and T."""
    assert _slope_jump(ANALYTIC["harmonic"].acceleration, 0.0) == pytest.approx(A * W, rel=1e-3)
    cosine = ANALYTIC["cosine-pulse"]
    assert _jump(cosine.acceleration, 0.0) == pytest.approx(A, rel=1e-9)
    assert _jump(cosine.acceleration, 1.0 / F) == pytest.approx(-A, rel=1e-9)
    assert abs(_jump(ANALYTIC["sine-pulse"].acceleration, 1.0 / F)) < 1e-6 * A


# ---------------------------------------------------------------------------------------------
# specific values


def test_harmonic_after_one_period():
    """Closed forms at t = 2 pi / w: v = 0 (to round-off of A/w), d = 2 pi A / w^2, i.e. the
    velocity mean over a period is A/w (kept, not removed)."""
    h = Harmonic(A, F)
    T = 2.0 * math.pi / W
    assert abs(h.velocity(T)) < 1e-14 * A / W
    assert h.displacement(T) == pytest.approx(2.0 * math.pi * A / W**2, rel=1e-13)
    assert h.displacement(T) / T == pytest.approx(A / W, rel=1e-13)


def test_harmonic_stops_after_its_cycles():
    """3 whole cycles: a = 0 and v = 0 after, d frozen at 3 * 2 pi A / w^2 (round-off bars)."""
    h = Harmonic(A, F, cycles=3)
    assert h.duration == pytest.approx(1.0)
    late = np.array([1.0 + 1e-9, 2.0, 50.0])
    assert np.all(h.acceleration(late) == 0.0)
    assert np.all(np.abs(h.velocity(late)) < 1e-13 * A / W)
    np.testing.assert_allclose(h.displacement(late), 3 * 2 * math.pi * A / W**2, rtol=1e-12)


def test_sine_pulse_end_values():
    """v(T) = 0, d(T) = A T / w = A / (2 pi f^2) and both frozen afterwards; peak v = 2A/w at T/2.
    Round-off bars (at t = 100 s the round-off v(T) ~ 1e-17 m/s has moved d by ~1e-15, 1e-13 of d)."""
    p = SinePulse(A, F)
    T = 1.0 / F
    for t in (T, T + 0.5, 100.0):
        assert abs(p.velocity(t)) < 1e-14 * A / W
        assert p.displacement(t) == pytest.approx(A / (2 * math.pi * F**2), rel=1e-13)
    assert p.velocity(T / 2) == pytest.approx(2 * A / W, rel=1e-14)


def test_cosine_pulse_end_values():
    """v(T) = d(T) = 0 and after; d(T/2) = 2 A / w^2. Round-off bars: 1e-14 A/w on v, and on d
    1e-14 A/w^2 plus the drift 1e-14 A/w * t that the round-off velocity v(T) ~ 1e-17 m/s makes."""
    p = CosinePulse(A, F)
    T = 1.0 / F
    for t in (T, T + 0.5, 100.0):
        assert abs(p.velocity(t)) < 1e-14 * A / W
        assert abs(p.displacement(t)) < 1e-14 * A / W**2 + 1e-14 * A / W * t
    assert p.displacement(T / 2) == pytest.approx(2 * A / W**2, rel=1e-14)


def test_ramp_values():
    """End of ramp: v = A T_r/2, d = 0.15 A T_r^2; on the plateau v grows by A per second; after
    the release a = 0 and v = A (T_r + T_h); held for ever, a stays A. Round-off bars."""
    Tr, Th = 0.3, 0.5
    r = Ramp(A, Tr, Th)
    assert r.velocity(Tr) == pytest.approx(A * Tr / 2, rel=1e-13)
    assert r.displacement(Tr) == pytest.approx(0.15 * A * Tr**2, rel=1e-13)
    tau = np.array([0.1, 0.25, 0.5])
    np.testing.assert_allclose(r.velocity(Tr + tau) - r.velocity(Tr), A * tau, rtol=1e-13)
    assert r.acceleration(2 * Tr + Th + 1e-9) == 0.0
    assert r.velocity(7.0) == pytest.approx(A * (Tr + Th), rel=1e-13)
    held = Ramp(A, Tr, math.inf)
    assert held.duration == math.inf and held.acceleration(100.0) == A
    assert held.velocity(100.0) == pytest.approx(A * Tr / 2 + A * (100.0 - Tr), rel=1e-13)


def test_scalar_in_float_out_and_array_shape_kept():
    h = Harmonic(A, F, smooth_start=0.2)
    assert isinstance(h.displacement(0.3), float)
    t = np.linspace(0.0, 1.0, 6).reshape(2, 3)
    assert h.velocity(t).shape == (2, 3)
    assert scaled(h, 2.0).velocity(0.7) == pytest.approx(2.0 * h.velocity(0.7), rel=1e-15)


@pytest.mark.parametrize("build, name", [
    (lambda: Harmonic(A, 0.0), "frequency"),
    (lambda: Harmonic(A, F, cycles=-1), "cycles"),
    (lambda: Harmonic(A, F, smooth_start=-0.1), "smooth_start"),
    (lambda: SinePulse(math.nan, F), "amplitude"),
    (lambda: Ramp(A, 0.0), "ramp_time"),
    (lambda: Ramp(A, 0.1, -1.0), "hold_time"),
])
def test_bad_parameters_are_named(build, name):
    with pytest.raises(ValueError, match=name):
        build()


# ---------------------------------------------------------------------------------------------
# records


def test_record_three_samples_by_hand():
    """t = (0, 1, 3), a = (0, 2, -1). By hand: segment 1: v(1) = 1, d(1) = 1^2 (2*0 + 2)/6 = 1/3;
    segment 2 (a = 2 - 1.5 tau): v = 1 + 2 tau - 0.75 tau^2, d = 1/3 + tau + tau^2 - tau^3/4, so
    v(2) = 9/4, d(2) = 25/12, v(3) = 2, d(3) = 13/3; then v = 2, d = 13/3 + 2 (t - 3).
    Exact arithmetic up to round-off."""
    r = Record((0.0, 1.0, 3.0), (0.0, 2.0, -1.0))
    t = np.array([0.5, 1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(r.acceleration(t), [1.0, 2.0, 0.5, -1.0, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(r.velocity(t), [0.25, 1.0, 9 / 4, 2.0, 2.0], rtol=1e-15)
    np.testing.assert_allclose(r.displacement(t), [1 / 24, 1 / 3, 25 / 12, 13 / 3, 19 / 3], rtol=1e-15)


def test_record_linear_acceleration_is_integrated_exactly():
    """A record sampled (at uneven steps) from a = alpha + beta t must give v = alpha t + beta t^2/2
    and d = alpha t^2/2 + beta t^3/6 exactly (round-off only): the cubic d is exact, not O(h^2)."""
    alpha, beta = 0.7, -1.3
    ts = np.array([0.0, 0.05, 0.2, 0.21, 0.6, 1.0])
    r = Record(tuple(ts), tuple(alpha + beta * ts))
    t = np.linspace(0.0, 1.0, 37)
    np.testing.assert_allclose(r.velocity(t), alpha * t + beta * t**2 / 2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(r.displacement(t), alpha * t**2 / 2 + beta * t**3 / 6, rtol=0, atol=1e-15)


def test_csv_reader_gives_the_samples_as_written(tmp_path):
    """Comma with header and comments, whitespace without header, and units g: same samples."""
    t, a = [0.0, 0.02, 0.05, 0.07], [0.1, -0.25, 0.5, 0.0]
    comma = tmp_path / "comma.csv"
    comma.write_text("# a comment\ntime,acc\n" + "".join(f"{x},{y}\n" for x, y in zip(t, a)))
    spaces = tmp_path / "spaces.txt"
    spaces.write_text("".join(f"  {x}   {y}\n" for x, y in zip(t, a)) + "\n")
    for path in (comma, spaces):
        r = read_record(path, baseline="none")
        assert r.times == tuple(t) and r.accelerations == tuple(a)
    in_g = read_record(comma, units="g", baseline="none")
    assert in_g.accelerations == tuple(G * x for x in a)


def test_at2_reader_converts_g(tmp_path):
    """record_small.AT2: t_k = k DT, a in g converted with g = 9.81; the older 'NPTS, DT' header
    line and a CSV of the same samples in g give the same record."""
    r = read_record(SMALL_AT2, baseline="none")
    assert r.times == pytest.approx([0.01 * k for k in range(24)], abs=1e-15)
    assert r.accelerations == tuple(G * x for x in AT2_SAMPLES_G)
    lines = SMALL_AT2.read_text().splitlines()
    old = tmp_path / "old.at2"
    old.write_text("\n".join(lines[:3] + ["   24   0.0100   NPTS, DT"] + lines[4:]) + "\n")
    assert read_record(old, baseline="none") == r
    csv = tmp_path / "same.csv"
    csv.write_text("".join(f"{0.01 * k!r},{x!r}\n" for k, x in enumerate(AT2_SAMPLES_G)))
    assert read_record(csv, units="g", baseline="none") == r


def test_noise_record_is_what_the_script_makes():
    """The CSV holds filtered_noise_record() to the 10 digits written (1e-9 relative of the peak);
    peak around 0.3 g."""
    t, a = filtered_noise_record()
    r = read_record(NOISE_CSV, baseline="none")
    np.testing.assert_allclose(r.times, t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.accelerations, a, rtol=0, atol=1e-9 * np.max(np.abs(a)))
    assert 0.29 * G < r.peak_acceleration < 0.31 * G and len(r.times) == 1001


def _end_and_peak_velocity(record: Record) -> tuple[float, float]:
    v = record.velocity(np.asarray(record.times))
    return abs(v[-1]), np.max(np.abs(v))


def test_baseline_correction_removes_the_drift():
    """Uncorrected, the 0.002 g offset leaves a final velocity of 0.196 m/s, most of the peak
    (> 50 %, against < 1 %); corrected, the final velocity is below 1 % of the peak (0 to round-off
    by construction) and the displacement stops drifting: constant after the record (to 1e-12 m,
    round-off of v_end ~ 1e-16 m/s times 20 s) and, during it, the clean record's displacement
    within 10 % of its ~2 mm peak (measured 5 %: the fitted quadratic also takes the clean
    velocity's small trend), while the uncorrected one ends ~1 m away."""
    raw = read_record(NOISE_CSV, baseline="none")
    corrected = read_record(NOISE_CSV)
    end, peak = _end_and_peak_velocity(raw)
    assert end > 0.5 * peak
    end, peak = _end_and_peak_velocity(corrected)
    assert end < 0.01 * peak
    T = corrected.duration
    assert corrected.displacement(T + 20.0) == pytest.approx(corrected.displacement(T), abs=1e-12)
    t, a_clean = filtered_noise_record(offset_g=0.0)
    d_clean = Record(tuple(t), tuple(a_clean)).displacement(t)
    d_peak = np.max(np.abs(d_clean))
    assert np.max(np.abs(corrected.displacement(t) - d_clean)) < 0.1 * d_peak
    assert abs(raw.displacement(T) - d_clean[-1]) > 100 * d_peak


def test_baseline_correction_finds_the_offset():
    """The removed acceleration averages to the deliberate 0.002 g offset within 1 %: the clean
    record ends at rest (v ~ 1e-5 m/s against the offset's 0.196 m/s), so the fitted trend is the
    offset's to ~1e-4 (measured 6e-5)."""
    raw = read_record(NOISE_CSV, baseline="none")
    removed = np.asarray(raw.accelerations) - np.asarray(baseline_corrected(raw).accelerations)
    assert np.mean(removed) == pytest.approx(NOISE_OFFSET_G * G, rel=0.01)


def test_baseline_degree_two_is_the_least_squares_fit():
    """Degree 2: the corrected velocity at the samples is orthogonal to the free basis function
    s^2 - s (the normal equation of the least-squares fit), to round-off relative to the sizes of
    the two vectors (measured 1e-15), while the degree-1 correction leaves a component the test
    can see (measured 1.8e-4: the clean velocity is nearly orthogonal already, bar 1e-5)."""
    raw = read_record(NOISE_CSV, baseline="none")
    t = np.asarray(raw.times)
    s = t / t[-1]
    basis = s**2 - s
    for degree, small in ((2, True), (1, False)):
        v = baseline_corrected(raw, degree).velocity(t)
        cosine = abs(np.dot(v, basis)) / (np.linalg.norm(v) * np.linalg.norm(basis))
        assert (cosine < 1e-12) if small else (cosine > 1e-5)


def test_baseline_degree_one_is_the_line_to_the_end_velocity():
    """Degree 1 removes exactly v_end / T from every sample (round-off)."""
    raw = read_record(NOISE_CSV, baseline="none")
    removed = np.asarray(raw.accelerations) - np.asarray(read_record(NOISE_CSV, degree=1).accelerations)
    v_end = raw.velocity(raw.duration)
    np.testing.assert_allclose(removed, v_end / raw.duration, rtol=1e-10)


def test_scaling_to_a_peak_in_g():
    r = read_record(NOISE_CSV, peak_g=0.5)
    assert r.peak_acceleration == pytest.approx(0.5 * G, rel=1e-14)
    base = read_record(NOISE_CSV)
    factor = 0.5 * G / base.peak_acceleration
    assert r.displacement(4.0) == pytest.approx(factor * base.displacement(4.0), rel=1e-12)


BAD_FILES = {
    "missing.csv": (None, "no such"),
    "backwards.csv": ("0,0\n0.1,1\n0.05,2\n", "increase"),
    "nan.csv": ("0,0\n0.1,nan\n0.2,1\n", "finite"),
    "single.csv": ("t,a\n0,1\n", "at least 2"),
    "empty.csv": ("# nothing\n", "no samples"),
    "ragged_columns.csv": ("0,1,2\n0.1,1\n", "columns"),
    "one_column.csv": ("0\n0.1\n", "at least one a"),
    "words.csv": ("0,1\n0.1,oops\n", "line 2"),
    "negative_start.csv": ("-0.1,0\n0,1\n", "negative"),
    "record.xyz": ("0,0\n1,1\n", "unknown record format"),
    "bad_header.AT2": ("a\nb\nc\nno step here\n0.1 0.2\n", "NPTS"),
    "negative_dt.AT2": ("a\nb\nc\nNPTS=  2, DT= -.0100 SEC\n0.1 0.2\n", "DT"),
    "short.AT2": ("a\nb\nc\nNPTS=  3, DT= .0100 SEC\n0.1 0.2\n", "NPTS = 3"),
    "nan.AT2": ("a\nb\nc\nNPTS=  2, DT= .0100 SEC\n0.1 nan\n", "finite"),
    "too_short.AT2": ("a\nb\n", "header"),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_bad_record_files_name_the_file(tmp_path, name):
    content, problem = BAD_FILES[name]
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError) as error:
        read_record(path)
    message = str(error.value)
    assert str(path) in message and problem in message and "\n" not in message


# ---------------------------------------------------------------------------------------------
# factory and plugging into the model


def test_factory_builds_from_command_line_strings():
    assert base_motion("harmonic", amplitude="2", frequency="3", cycles="none") == Harmonic(2.0, 3.0)
    assert base_motion("sine-pulse", amplitude=1, frequency=2) == SinePulse(1.0, 2.0)
    assert base_motion("cosine-pulse", amplitude=1, frequency=2) == CosinePulse(1.0, 2.0)
    assert base_motion("ramp", amplitude="1", ramp_time="0.2", hold_time="inf") == Ramp(1.0, 0.2, math.inf)
    rec = base_motion("record", path=str(SMALL_AT2), baseline="none", peak_g="0.1")
    assert rec.peak_acceleration == pytest.approx(0.1 * G)


@pytest.mark.parametrize("kind, params, named", [
    ("earthquake", {}, "earthquake"),
    ("harmonic", {"amplitude": 1}, "frequency"),
    ("harmonic", {"amplitude": 1, "frequency": 2, "phase": 0}, "phase"),
    ("harmonic", {"amplitude": "two", "frequency": 2}, "amplitude"),
    ("ramp", {"amplitude": 1, "ramp_time": "-1"}, "ramp_time"),
    ("record", {"path": str(SMALL_AT2), "degree": "x"}, "degree"),
    ("record", {"path": str(SMALL_AT2), "baseline": "spline"}, "baseline"),
])
def test_factory_names_the_bad_parameter(kind, params, named):
    with pytest.raises(ValueError, match=named):
        base_motion(kind, **params)


def test_imposed_on_support_nodes_through_fem_loads():
    """support_motion plugs d(t - start) into ImposedDisplacement; resolve_constraints accepts the
    same record twice on overlapping groups (BASE and O) because records compare by value."""
    mesh = grid_mesh(2, 2)
    record = read_record(SMALL_AT2)
    again = read_record(SMALL_AT2)
    assert record == again and record is not again
    constraints = resolve_constraints(mesh, [support_motion("BASE", record, "x", start=0.5),
                                             ImposedDisplacement("O", "x", 1.0, SupportDisplacement(again, 0.5)),
                                             ImposedDisplacement("BASE", "y")])
    x_dofs = np.isin(constraints.dofs, 2 * mesh.nodes("BASE"))
    for t in (0.0, 0.5, 0.62, 3.0):
        u = constraints.at(t)
        np.testing.assert_array_equal(u[x_dofs], record.displacement(t - 0.5))
        np.testing.assert_array_equal(u[~x_dofs], 0.0)
    assert constraints.at(0.62)[x_dofs][0] != 0.0


if __name__ == "__main__":
    write_noise_csv()
    print(f"wrote {NOISE_CSV}")


def test_a_record_with_its_components_in_columns_reads_each_one(tmp_path):
    """t, a_h, a_v in one file: column 1 is the horizontal record, column 2 the vertical one, each the
    same as read from a file of its own (samples, baseline correction); column 3 names what there is."""
    t = np.linspace(0.0, 2.0, 201)
    h, v = 0.3 * np.sin(7.0 * t) * np.exp(-t), -0.1 * np.sin(11.0 * t)
    np.savetxt(tmp_path / "both.csv", np.column_stack([t, h, v]), delimiter=",", header="t,ah,av")
    np.savetxt(tmp_path / "h.csv", np.column_stack([t, h]), delimiter=",")
    np.savetxt(tmp_path / "v.csv", np.column_stack([t, v]), delimiter=",")
    for column, alone in ((1, "h.csv"), (2, "v.csv")):
        a = bm.read_record(tmp_path / "both.csv", column=column)
        b = bm.read_record(tmp_path / alone)
        assert a.times == b.times and a.accelerations == b.accelerations
    with pytest.raises(ValueError, match="column 3 asked, the file has 2 acceleration column"):
        bm.read_record(tmp_path / "both.csv", column=3)
    scaled = bm.read_record(tmp_path / "both.csv", column=2, scale=-2.5)
    assert np.allclose(scaled.accelerations, -2.5 * np.array(bm.read_record(tmp_path / "v.csv").accelerations),
                       rtol=0, atol=1e-15)
