"""The fixed-step flights of the rigid block on a moving table (contact/references/flight.py, behind
contact/references/rocking_base.py): against the closed form of a free flight, the free-rocking
reference of SDNV105 and an independent DOP853 integration (scipy's solve_ivp at rtol 1e-12).

Blocks: SDNV105 (b = 0.18, l = 0.40), a slender one (b/l = 0.1) and a squat one (b/l = 0.8).
Sign: a_g > 0 tips the block towards theta < 0 (pivot A)."""
import math

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp

from contact.references import flight
from contact.references import rocking as rk
from contact.references import rocking_base as rb

G = 9.81
BLOCKS = {"sdnv105": (0.18, 0.40), "slender": (0.05, 0.5), "squat": (0.4, 0.5)}


def zero(t):
    return np.zeros_like(np.asarray(t, float))


def flight_energy(res):
    """E / (M g R) = omega^2 / (2 p^2) + cos(alpha - phi) - cos(alpha), written without cancellation."""
    blk, phi = res.block, np.abs(res.theta)
    return res.omega**2 / (2 * blk.p**2) + 2 * np.sin(blk.alpha - phi / 2) * np.sin(phi / 2)


def pieces(res):
    """Index ranges of res.t between repeated instants (impacts, and the apex joint of a flight)."""
    cuts = [0, *(np.flatnonzero(np.diff(res.t) == 0.0) + 1), res.t.size]
    return [(i, j) for i, j in zip(cuts[:-1], cuts[1:]) if j - i > 1]


# ------------------------------------------------------------------------------------ the kernels
def test_the_quintic_interpolates_value_slope_and_curvature():
    """quintic(h, ...) of a quintic polynomial's (y, y', y'') at 0 and h is that polynomial (1e-13),
    and crossing locates its root, its level crossing and its maximum to the last bits."""
    h = 0.8
    coef = np.array([0.3, 1.7, -4.1, 0.2, 0.3, -0.1])  # P(tau) = sum coef_k tau^k: up, then below 0
    d1, d2 = np.polyder(coef[::-1]), np.polyder(coef[::-1], 2)
    at = lambda poly, x: float(np.polyval(poly, x))  # noqa: E731
    c = flight.quintic(h, at(coef[::-1], 0), at(d1, 0), at(d2, 0), at(coef[::-1], h), at(d1, h), at(d2, h))
    np.testing.assert_allclose(c, coef * h ** np.arange(6), rtol=1e-13, atol=1e-15)
    for u in (0.0, 0.3, 0.71, 1.0):
        p, d = flight.quintic_at(c, u)
        assert p == pytest.approx(at(coef[::-1], u * h), rel=1e-13)
        assert d / h == pytest.approx(at(d1, u * h), rel=1e-13)
    roots = np.roots(coef[::-1])
    real = sorted(r.real for r in roots if abs(r.imag) < 1e-12 and 0 < r.real < h)
    top = sorted(r.real for r in np.roots(d1) if abs(r.imag) < 1e-12 and 0 < r.real < h)
    assert len(real) == 1 and len(top) == 1
    assert flight.crossing(c, 0.0, False, True, top[0] / h, 1.0) * h == pytest.approx(real[0], rel=1e-14)
    assert flight.crossing(c, 0.0, True, True, 0.0, 1.0) * h == pytest.approx(top[0], rel=1e-14)
    level = at(coef[::-1], 0.5 * top[0])  # on the way up
    assert flight.crossing(c, level, False, False, 0.0, top[0] / h) * h == pytest.approx(0.5 * top[0], rel=1e-14)


@pytest.mark.skipif(not hasattr(flight.rk4_flight, "py_func"), reason="NUMBA_DISABLE_JIT: one code path")
def test_the_compiled_loop_is_the_python_loop():
    """The compiled RK4 loop and its Python source (what NUMBA_DISABLE_JIT=1 runs) give the same
    flight to rounding (1e-13), with the same event step."""
    blk = rk.RigidBlock(0.18, 0.40)
    t = np.linspace(2.0, 2.3, 301)
    a_node = 2.0 * G * np.tan(blk.alpha) * np.sin(4 * np.pi * t)
    a_mid = 2.0 * G * np.tan(blk.alpha) * np.sin(4 * np.pi * 0.5 * (t[1:] + t[:-1]))
    out = []
    for kernel in (flight.rk4_flight, flight.rk4_flight.py_func):
        arrays = np.empty(t.size), np.empty(t.size), np.empty(t.size)
        status, k = kernel(t, a_node, a_mid, 0.0, 0.5, blk.alpha, blk.p**2, 1.0 / G, rb.overturn_angle(blk), *arrays)
        out.append((status, k, arrays))
    assert out[0][:2] == out[1][:2] and out[0][0] == 1
    n = out[0][1] + 2
    for x, y in zip(out[0][2], out[1][2]):
        np.testing.assert_allclose(x[:n], y[:n], rtol=1e-13, atol=1e-15)


# --------------------------------------------------------------------------------- free rocking
@pytest.mark.parametrize("name, theta0", [("sdnv105", 0.1), ("sdnv105", 0.01), ("slender", 0.09), ("squat", 0.3)])
def test_free_flights_keep_their_energy(name, theta0):
    """a_g = 0 from a tilt: E = J_O omega^2 / 2 + M g R (cos(alpha - phi) - cos alpha) is constant on
    every flight, down to the last low ones before rest, to 1e-10 relative (observed ~1e-12 at the
    default rtol 1e-10); a flight brings to the next impact the energy the last impact left
    (1e-10), and an impact multiplies the kinetic energy by e^2 (the law, 1e-12)."""
    b, l = BLOCKS[name]
    res = rb.rock_under_base_motion(b, l, zero, 2.0, theta0=theta0)
    energy = flight_energy(res)
    checked = 0
    for i, j in pieces(res):
        e = energy[i:j]
        if e.max() > 0:
            assert np.ptp(e) <= 1e-10 * e.max()
            checked += 1
    assert checked >= 2 * len(res.impact_times) - 1 >= 3  # the first flight has no apex joint
    np.testing.assert_allclose(res.ke_before[1:], res.ke_after[:-1], rtol=1e-10)
    np.testing.assert_allclose(np.array(res.ke_after) / res.ke_before, res.restitution**2, rtol=1e-12)


def free_impacts(b, l, theta0, n):
    """Impact times and omega- of free rocking from rest at theta0 > 0, in closed form: a flight from
    tilt phi to the floor takes T(phi) = (1/p) int_0^phi dphi' / sqrt(2 (cos(alpha - phi) -
    cos(alpha - phi'))) (the energy integral; phi' = phi - u^2 removes the square-root end, the
    difference of cosines written as a product avoids cancellation), it ends
    at |omega| = p sqrt(2 (cos(alpha - phi) - cos alpha)), and omega+ = e omega- starts the next one,
    up to the tilt where cos(alpha - phi) = cos(alpha) + omega+^2 / (2 p^2), and back (2 T)."""
    blk = rk.RigidBlock(b, l)
    p, alpha, e = blk.p, blk.alpha, blk.housner_r

    def fall_time(phi):  # cos(x) - cos(x + u^2) = 2 sin(x + u^2/2) sin(u^2/2), x = alpha - phi
        f = lambda u: u / math.sqrt(math.sin(alpha - phi + u * u / 2) * math.sin(u * u / 2))  # noqa: E731
        value, _ = quad(f, 0.0, math.sqrt(phi), epsabs=0.0, epsrel=1e-13, limit=200)
        return value / p

    times, omegas, t, phi, sign = [], [], 0.0, theta0, 1
    for k in range(n):
        t += fall_time(phi) * (1 if k == 0 else 2)
        w = p * math.sqrt(2 * (math.cos(alpha - phi) - math.cos(alpha)))
        times.append(t), omegas.append(-sign * w)
        phi = alpha - math.acos(math.cos(alpha) + (e * w) ** 2 / (2 * p * p))
        sign = -sign
    return np.array(times), np.array(omegas)


@pytest.mark.parametrize("name, theta0", [("sdnv105", 0.1), ("sdnv105", 0.008 / 0.80), ("slender", 0.09),
                                          ("squat", 0.3)])
def test_zero_motion_from_a_tilt_matches_the_closed_form(name, theta0):
    """The impact times and speeds of the base-motion reference under a_g = 0 from theta0 are those of
    the energy integral (free_impacts) to 1e-10 relative (observed <= 4e-12 on the times, 1e-11 on the
    speeds), over the first 8 impacts;
    and those of the free-rocking reference of SDNV105 (contact.references.rocking.rock, nonlinear,
    DOP853 at rtol 1e-12) to 1e-10."""
    b, l = BLOCKS[name]
    res = rb.rock_under_base_motion(b, l, zero, 3.0, theta0=theta0)
    n = min(8, len(res.impact_times))
    assert n >= 2
    times, omegas = free_impacts(b, l, theta0, n)
    np.testing.assert_allclose(res.impact_times[:n], times, rtol=1e-10)
    np.testing.assert_allclose(res.omega_before[:n], omegas, rtol=1e-10)
    ref = rk.rock(b, l, theta0, model="nonlinear")
    m = min(n, len(ref.impact_times))
    np.testing.assert_allclose(res.impact_times[:m], ref.impact_times[:m], rtol=1e-10)
    np.testing.assert_allclose(res.omega_before[:m], ref.omega_before[:m], rtol=1e-10)
    assert res.impact_corner[:m] == ref.impact_corner[:m]


# ------------------------------------------------------------------------------ base motion
def dop853_rocking(b, l, acc, t_end, theta0, n_impacts, breaks=()):
    """An independent event-driven integration (solve_ivp DOP853, rtol 1e-12, restarted at the kinks
    ``breaks`` of a_g) of the same rocking law from rest at theta0: (impact times, omega-, max |theta|,
    overturned), up to n_impacts or t_end."""
    blk = rk.RigidBlock(b, l)
    p2, alpha, e, over = blk.p**2, blk.alpha, blk.housner_r, rb.overturn_angle(blk)
    breaks = np.asarray(breaks, float)
    sign, y, t = (1 if theta0 > 0 else -1), [abs(theta0), 0.0], 0.0
    times, omegas, top = [], [], abs(theta0)
    while len(times) < n_impacts and t < t_end:
        def rhs(s, z, sign=sign):
            return [z[1], -p2 * (math.sin(alpha - z[0]) + sign * float(acc(s)) / G * math.cos(alpha - z[0]))]

        def landing(_s, z):
            return z[0]

        def apex(_s, z):
            return z[1]

        def overturn(_s, z):
            return z[0] - over

        landing.terminal = overturn.terminal = True
        landing.direction = apex.direction = -1
        later = breaks[breaks > t]
        t_stop = min(float(later[0]) if later.size else t_end, t_end)
        sol = solve_ivp(rhs, (t, t_stop), y, method="DOP853", rtol=1e-12, atol=1e-15,
                        events=(landing, apex, overturn))
        top = max([top, *(z[0] for z in sol.y_events[1]), sol.y[0, -1]])
        if sol.t_events[2].size:
            return np.array(times), np.array(omegas), over, True
        if sol.t_events[0].size:
            t, w = float(sol.t_events[0][0]), float(sol.y_events[0][0][1])
            times.append(t), omegas.append(sign * w)
            sign, y = -sign, [0.0, e * abs(w)]
        else:
            t, y = t_stop, list(sol.y[:, -1])
    return np.array(times), np.array(omegas), top, False


def piecewise_linear_record(dt=0.01, duration=4.0, peak=2.2, seed=7):
    """A record-like a_g: linear between random samples every dt (a kink at each), peak ``peak`` g
    tan(alpha) of SDNV105, zero after ``duration``; and its sample times."""
    rng = np.random.default_rng(seed)
    ts = np.arange(0.0, duration + dt / 2, dt)
    values = np.convolve(rng.standard_normal(ts.size), np.ones(8) / 8, mode="same")
    values[0] = values[-1] = 0.0
    values *= peak * G * 0.45 / np.abs(values).max()
    return (lambda t: np.interp(t, ts, values, left=0.0, right=0.0)), ts


def one_sine(t, amplitude=2.5 * G * 0.45, omega=4 * np.pi):
    t = np.asarray(t, float)
    return np.where((t >= 0) & (t <= 2 * np.pi / omega), amplitude * np.sin(omega * t), 0.0)


RECORD, RECORD_TIMES = piecewise_linear_record()
MOTIONS = {  # a_g, kinks, theta0
    "harmonic-2Hz": (lambda t: 1.6 * G * 0.45 * np.sin(4 * np.pi * np.asarray(t, float)), (), 0.02),
    "one-sine-pulse-ending-mid-flight": (one_sine, (0.5,), 0.03),
    "record-kinks-every-10ms": (RECORD, RECORD_TIMES, 0.02),
}


@pytest.mark.parametrize("motion", sorted(MOTIONS))
@pytest.mark.parametrize("name", ["sdnv105", "squat"])
def test_base_motion_agrees_with_dop853(motion, name):
    """From rest at a tilt under a harmonic, a pulse whose end (a kink of a_g) falls inside a flight,
    and a record with a kink every 10 ms: the first 6 impact times agree with an independent DOP853
    integration at rtol 1e-12 (restarted at the kinks) to 1e-10 relative, their speeds and the largest
    tilt to 1e-9 (observed up to 7e-11 on the times, 3e-10 on the speeds; without the step splitting
    where a_g is rough, errors of 1e-7 to 1e-6, and an impact lost after the pulse)."""
    b, l = BLOCKS[name]
    acc, kinks, theta0 = MOTIONS[motion]
    times, omegas, top, over = dop853_rocking(b, l, acc, 3.0, theta0, 6, kinks)
    assert len(times) >= 3 and not over
    res = rb.rock_under_base_motion(b, l, acc, float(times[-1]) + 1e-9, theta0=theta0)
    assert len(res.impact_times) == len(times) and not res.overturned
    np.testing.assert_allclose(res.impact_times, times, rtol=1e-10)
    np.testing.assert_allclose(res.omega_before, omegas, rtol=1e-9)
    assert res.max_rotation == pytest.approx(top, rel=1e-9)
