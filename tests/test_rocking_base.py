"""Rigid block rocking on a moving table (contact/references/rocking_base.py): Housner / Zhang and Makris 2001.

Blocks: SDNV105 (b = 0.18, l = 0.40, tan alpha = 0.45, p = 4.0956 1/s), a second one (b = 0.25,
l = 1.0) and a slender one (b/l = 0.05). Sign: a_g > 0 tips the block towards theta < 0 (pivot A)."""
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from contact.references import rocking as rk
from contact.references import rocking_base as rb

G = 9.81
B, L = 0.18, 0.40
BLOCK = rk.RigidBlock(B, L)
THR = rb.uplift_acceleration(BLOCK)  # g tan(alpha) = 4.4145 m/s^2


def zero(_t):
    return 0.0


def smoothstep(u):
    """C1 ramp 0 -> 1 on [0, 1]: 3u^2 - 2u^3."""
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


def one_sine(amplitude, omega, start=0.0):
    """a_p sin(omega (t - start)) on [start, start + 2 pi/omega], zero elsewhere."""
    end = start + 2.0 * math.pi / omega
    return lambda t: amplitude * math.sin(omega * (t - start)) if start <= t <= end else 0.0


def pieces_between_duplicates(res):
    """Index ranges of res.t between repeated instants (impacts, and the apex joint of a flight)."""
    cuts = [0, *(np.flatnonzero(np.diff(res.t) == 0.0) + 1), res.t.size]
    return [(i, j) for i, j in zip(cuts[:-1], cuts[1:]) if j - i > 1]


# ------------------------------------------------------------------------------------- free rocking
def test_free_rocking_matches_the_free_reference():
    """a_g = 0 from theta0 = 0.01: the same equation as rock(model="nonlinear"); rock integrates with
    DOP853, this reference with its fixed-step RK4 flights, both at rtol = 1e-12, and both locate the
    events by root finding, so 1e-8 relative leaves four decades of margin (observed ~3e-13). The friction demand approaches the zero-speed limit 3bl/(4R^2 - 3b^2) = 0.3212
    from below as the speeds decay, so it lies between rock's maximum over 5 flights and that limit."""
    ref = rk.rock(B, L, 0.01, model="nonlinear")
    res = rb.rock_under_base_motion(B, L, zero, 0.3, theta0=0.01, rtol=1e-12)
    n = len(ref.impact_times)
    assert len(res.impact_times) >= n
    assert res.uplift_time is None  # it started rocking; it never lifted from rest
    np.testing.assert_allclose(res.impact_times[:n], ref.impact_times, rtol=1e-8)
    np.testing.assert_allclose(res.omega_before[:n], ref.omega_before, rtol=1e-8)
    np.testing.assert_allclose(res.omega_after[:n], ref.omega_after, rtol=1e-8)
    assert res.impact_corner[:n] == ref.impact_corner
    assert res.restitution == BLOCK.housner_r
    limit = rk.first_order_reactions(BLOCK)["ratio"]
    assert max(ref.rt_over_rn_max) <= res.max_friction_ratio <= limit


def test_reactions_match_the_free_reference_and_rest():
    """pivot_reactions with a_g = 0 against RigidBlock.pivot_reactions (an independent formula in the
    pivot frame, R_T global = sign * R_T pivot frame): same algebra, 1e-12. At the uplift threshold
    (phi = phi' = 0, |a_g| = g tan alpha) the rocking reactions equal the rest ones, R_N = M g,
    R_T = -M a_g: the sign of R_T fails this if the inertial force had the wrong sign."""
    phi = np.linspace(0.0, 0.4, 9)
    phidot = np.linspace(-2.0, 2.0, 9)
    rn_ref, rt_ref = BLOCK.pivot_reactions(phi, phidot, "nonlinear")
    for sign in (1, -1):
        rn, rt = rb.pivot_reactions(BLOCK, phi, phidot, 0.0, sign)
        np.testing.assert_allclose(rn, rn_ref, rtol=1e-12)
        np.testing.assert_allclose(rt, sign * rt_ref, rtol=1e-12, atol=1e-9)
    for a_g in (THR, -THR):
        rn, rt = rb.pivot_reactions(BLOCK, 0.0, 0.0, a_g, -int(np.sign(a_g)))
        assert rn == pytest.approx(BLOCK.weight, rel=1e-12)
        assert rt == pytest.approx(-BLOCK.mass * a_g, rel=1e-12)


# ------------------------------------------------------------------------------------------ uplift
@pytest.mark.parametrize("b, l", [(0.18, 0.40), (0.25, 1.0)])
def test_uplift_threshold_under_a_smooth_ramp(b, l):
    """a_g = A smoothstep(t / 0.05), held to 0.25 s. A = 0.97 g tan(alpha): no uplift, theta = 0
    everywhere, friction demand exactly 0.97 tan(alpha) (rest: |a_g|/g, the hold is sampled). A = +-1.03
    g tan(alpha): uplift where smoothstep(u) = 1/1.03 (independent brentq, 1e-12 relative; the code
    locates the root to ~1e-15), tilting towards theta < 0 for A > 0 and theta > 0 for A < 0. The
    friction demand is tan(alpha) at uplift (continuous with the rest value) and, once rocking, stays
    below the 1.03 tan(alpha) the block would need at rest (observed 1.0075 tan(alpha))."""
    block = rk.RigidBlock(b, l)
    thr = rb.uplift_acceleration(block)
    assert thr == pytest.approx(G * math.tan(block.alpha), rel=1e-14)
    below = rb.rock_under_base_motion(b, l, lambda t: 0.97 * thr * smoothstep(t / 0.05), 0.25)
    assert below.uplift_time is None and below.max_rotation == 0.0
    assert not np.any(below.theta) and not np.any(below.omega)
    assert below.max_friction_ratio == pytest.approx(0.97 * b / l, rel=1e-12)
    u = brentq(lambda u: smoothstep(u) - 1.0 / 1.03, 0.0, 1.0, xtol=1e-16, rtol=1e-15)
    for direction in (1.0, -1.0):
        res = rb.rock_under_base_motion(b, l, lambda t: direction * 1.03 * thr * smoothstep(t / 0.05), 0.25)
        assert res.uplift_time == pytest.approx(0.05 * u, rel=1e-12)
        assert res.max_rotation > 1e-4
        assert np.all(direction * res.theta <= 0.0) and np.sign(res.theta[-1]) == -direction
        assert b / l * (1 - 1e-12) <= res.max_friction_ratio < 1.03 * b / l  # tan(alpha) at uplift


@pytest.mark.parametrize("ratio, omega", [(2.0, 4.0 * math.pi), (5.0, math.pi)])
def test_uplift_time_under_harmonic_motion(ratio, omega):
    """a sin(omega t) from rest lifts at arcsin(g tan(alpha)/a)/omega (§4), tipping onto A (a > 0
    first): 1e-9 relative as asked (the root is located to ~1e-15)."""
    a = ratio * THR
    res = rb.rock_under_base_motion(B, L, lambda t: a * np.sin(omega * t), 0.5 * math.pi / omega + 0.05)
    assert res.uplift_time == pytest.approx(math.asin(THR / a) / omega, rel=1e-9)
    assert res.theta.min() < 0.0 == res.theta.max()


def test_short_pulse_is_caught_with_max_step():
    """A triangular pulse 0.8 ms wide, peak 2 g tan(alpha), is above the threshold for 0.4 ms only,
    less than the default scan step (1/p)/200 = 1.2 ms. With max_step = 1 ms (scan step 5 us) the uplift
    is found at tc - w/2 (1e-12 relative: a linear crossing, located by brentq); the tiny flight ends
    in impacts that decay to rest (the rest rule, not the event bound, stops it)."""
    w, tc = 0.4e-3, 0.1003
    acc = lambda t: 2.0 * THR * max(0.0, 1.0 - abs(t - tc) / w)  # noqa: E731
    res = rb.rock_under_base_motion(B, L, acc, 0.2, max_step=1e-3)
    assert res.uplift_time == pytest.approx(tc - w / 2, rel=1e-12)
    assert 0.0 < res.max_rotation < 1e-5
    assert len(res.rest_times) == 1 and res.theta[-1] == 0.0


# ------------------------------------------------------------------------------- rocking equation
def test_constant_step_on_a_slender_block_follows_the_linearized_solution():
    """b/l = 0.05 (alpha = 0.04996), a_g = A = 3 g tan(alpha) from t = 0: uplift at 0 about A, and
    for theta < 0, with sin x ~ x, cos x ~ 1 (x = alpha - phi, phi = -theta):
    phi'' = p^2 (A/g - alpha + phi)  =>  theta(t) = (alpha - A/g)(cosh(p t) - 1).
    Bound: the neglected terms |(A/g)(cos x - 1) - (sin x - x)| <= delta = (A/g) alpha^2/2 + alpha^3/6
    for |x| <= alpha, and e'' = p^2 e + p^2 eps, |eps| <= delta, e(0) = e'(0) = 0 gives
    |e| <= delta (cosh(p t) - 1), i.e. a relative error <= delta / (A/g - alpha) = 2.1e-3 over 0.2 s
    (|theta| < 0.31 alpha there). The exact equation is checked by its first integral under constant
    a_g, phi'^2/2 + p^2 [cos(alpha - phi) - s (A/g) sin(alpha - phi)] (s = -1), to 1e-9 (rtol 1e-10)."""
    b, l = 0.05, 1.0
    block = rk.RigidBlock(b, l)
    alpha, p = block.alpha, block.p
    a_over_g = 3.0 * math.tan(alpha)
    res = rb.rock_under_base_motion(b, l, lambda t: a_over_g * G, 0.2, n_samples_per_flight=401)
    assert res.uplift_time == 0.0 and not res.impact_times and not res.overturned
    linear = (alpha - a_over_g) * (np.cosh(p * res.t) - 1.0)
    moving = res.t > 0.0
    assert np.all(res.theta[moving] < 0.0) and moving.sum() == 400 and res.t[0] == 0.0
    bound = (a_over_g * alpha**2 / 2 + alpha**3 / 6) / (a_over_g - alpha)
    rel = np.abs(res.theta[moving] / linear[moving] - 1.0)
    assert rel.max() <= bound
    assert np.max(np.abs(res.theta)) < 0.31 * alpha
    phi, phidot = -res.theta, -res.omega
    first_integral = phidot**2 / 2 + p**2 * (np.cos(alpha - phi) + a_over_g * np.sin(alpha - phi))
    assert np.ptp(first_integral) / first_integral[0] < 1e-9


def test_energy_between_impacts_and_housner_loss():
    """a_g = 0, theta0 = 0.1: J_O omega^2/2 + M g R (cos(alpha - |theta|) - cos alpha) is constant
    on each flight to 1e-9 relative (the RK4 flights at rtol 1e-10 keep it to ~1e-12); each impact multiplies
    the kinetic energy by r^2 = (1 - 3/2 sin^2 alpha)^2 = 0.5586 (exact in the impact law, 1e-12), and
    a flight returns its post-impact energy to the next impact (1e-9)."""
    res = rb.rock_under_base_motion(B, L, zero, 1.0, theta0=0.1)
    assert len(res.impact_times) >= 4
    energy = res.kinetic_energy() + res.potential_energy()
    for i, j in pieces_between_duplicates(res):
        e = energy[i:j]
        assert np.ptp(e) / e.max() < 1e-9
    r2 = BLOCK.housner_r**2
    assert r2 == pytest.approx(0.5586086, abs=1e-7)
    np.testing.assert_allclose(np.array(res.ke_after) / res.ke_before, r2, rtol=1e-12)
    np.testing.assert_allclose(res.ke_before[1:], res.ke_after[:-1], rtol=1e-9)
    released = BLOCK.weight * BLOCK.R * (math.cos(BLOCK.alpha - 0.1) - math.cos(BLOCK.alpha))
    assert energy[0] == pytest.approx(released, rel=1e-14)


# ---------------------------------------------------------------------------------- rest and Zeno
def test_free_rocking_comes_to_rest_by_the_speed_rule():
    """a_g = 0: |omega-| is the same at consecutive impacts (a conservative flight), so omega+ after
    impact k is |omega_1-| r^k; the block is set at rest at the first impact with omega+ <= rest_omega
    = p sqrt(2 sin(alpha) 1e-9) (a free flight lower than 1e-9 rad). The count is exact; afterwards
    theta = omega = 0 to t_end and the rest friction demand is |a_g|/g = 0."""
    res = rb.rock_under_base_motion(B, L, zero, 2.0, theta0=0.01)
    assert res.rest_omega == pytest.approx(BLOCK.p * math.sqrt(2 * math.sin(BLOCK.alpha) * 1e-9), rel=1e-14)
    w1 = abs(res.omega_before[0])
    expected = math.ceil(math.log(res.rest_omega / w1) / math.log(BLOCK.housner_r))
    assert len(res.impact_times) == expected
    assert res.rest_times == (res.impact_times[-1],)
    assert abs(res.omega_after[-1]) <= res.rest_omega < abs(res.omega_after[-2])
    after = res.t > res.rest_times[0]
    assert after.sum() > 100 and not np.any(res.theta[after]) and not np.any(res.omega[after])
    assert res.t[-1] == 2.0


def test_zeno_rule_ends_accumulating_impacts():
    """With rest_omega = 0 only the accumulation rule can stop the geometric impact sequence: rest at
    the first impact closer than 1e-6/p to the previous one (intervals shrink by r = 0.747 per impact,
    from 0.08 s to below 2.4e-7 s in ~45 impacts, far below max_events)."""
    res = rb.rock_under_base_motion(B, L, zero, 1.0, theta0=0.01, rest_omega=0.0)
    dt = np.diff(res.impact_times)
    zeno = rb.ZENO_FRACTION / BLOCK.p
    assert dt[-1] < zeno <= dt[-2]
    assert res.rest_times == (res.impact_times[-1],) and 30 < len(res.impact_times) < 60
    assert res.theta[-1] == 0.0 and res.omega[-1] == 0.0


def test_impact_on_a_corner_pressed_down_bounces_back():
    """Rocking about A back towards theta = 0 under a_g = 1.5 g tan(alpha) (which tips onto A): the
    impact is on O, which the table acceleration presses down, so the block bounces back to A with the
    same |omega| (conservative flight under constant a_g, 1e-8) and rocks on about A."""
    res = rb.rock_under_base_motion(B, L, lambda t: 1.5 * THR, 0.3, theta0=-0.05, omega0=1.0)
    assert res.impact_corner[:2] == ("O", "A")
    assert res.omega_before[1] == pytest.approx(-res.omega_after[0], rel=1e-8)
    assert res.omega_after[1] == pytest.approx(BLOCK.housner_r * res.omega_before[1], rel=1e-14)
    assert res.theta[-1] < 0.0 and not res.rest_times


def test_rest_then_lift_again_under_a_second_pulse():
    """Two one-sine pulses a_p = 2 g tan(alpha), omega_p = 4p, the second at 3.5 s: the block rocks,
    comes to rest, stays at rest (theta = 0, friction demand |a_g|/g <= tan alpha), and lifts again at
    3.5 + arcsin(1/2)/omega_p (1e-9 relative, as the harmonic uplift)."""
    wp, ap, t2 = 4.0 * BLOCK.p, 2.0 * THR, 3.5
    first, second = one_sine(ap, wp), one_sine(ap, wp, start=t2)
    res = rb.rock_under_base_motion(B, L, lambda t: first(t) + second(t), 3.8)
    lift = math.asin(0.5) / wp
    assert res.uplift_times == pytest.approx((lift, t2 + lift), rel=1e-9)
    assert len(res.rest_times) == 1 and res.impact_times[-1] == res.rest_times[0] < t2
    resting = (res.t > res.rest_times[0]) & (res.t < res.uplift_times[1])
    assert not np.any(res.theta[resting])
    assert res.friction_ratio[resting].max() <= B / L


# ------------------------------------------------------------------------------- one-sine pulses
def test_one_sine_pulse_survival_and_two_overturning_modes():
    """Zhang and Makris 2001: one-sine pulse on SDNV105 at omega_p / p = 4, a_p in units of
    g tan(alpha). A scan from 1 to 15 by 0.25 gives: survival up to 3.0, overturning after one impact
    3.25-4.0, survival 4.25-5.25, overturning with no impact from 5.5 on. The amplitudes below sit
    mid-band (>= 0.25 away from a transition). Survival is decided at t_end = 10/p = 2.44 s: after the
    pulse (a_g = 0) a block whose energy is below the barrier M g R (1 - cos alpha) can never overturn
    (energy only decreases), and the survivors' final energy is below half of it. The friction demand
    grows with the amplitude; from ~6.5 the rigid block would even jump (R_N < 0, ratio inf)."""
    wp = 4.0 * BLOCK.p
    outcome = {}
    for k in (2.0, 3.5, 4.75, 6.0, 15.0):
        res = rb.rock_under_base_motion(B, L, one_sine(k * THR, wp), 10.0 / BLOCK.p)
        outcome[k] = res
        assert res.uplift_time == pytest.approx(math.asin(1.0 / k) / wp, rel=1e-9)
    survive = [k for k, r in outcome.items() if not r.overturned]
    one_impact = [k for k, r in outcome.items() if r.overturned and len(r.impact_times) == 1]
    no_impact = [k for k, r in outcome.items() if r.overturned and not r.impact_times]
    assert survive == [2.0, 4.75] and one_impact == [3.5] and no_impact == [6.0, 15.0]
    assert max(outcome) in no_impact
    assert any(o < s < n for o in one_impact for s in survive for n in no_impact)  # the survival band
    barrier = BLOCK.weight * BLOCK.R * (1.0 - math.cos(BLOCK.alpha))
    for k in survive:
        r = outcome[k]
        final = r.kinetic_energy()[-1] + r.potential_energy()[-1]
        assert final < 0.5 * barrier and r.max_rotation < rb.overturn_angle(BLOCK)
    for k in one_impact + no_impact:
        r = outcome[k]
        assert r.max_rotation == rb.overturn_angle(BLOCK) == 2 * BLOCK.alpha
        assert abs(r.theta[-1]) == pytest.approx(2 * BLOCK.alpha, rel=1e-9) and r.t[-1] == r.overturn_time
    demand = [outcome[k].max_friction_ratio for k in sorted(outcome)]
    assert all(x < y for x, y in zip(demand[:-1], demand[1:]))
    assert outcome[15.0].min_normal_reaction < 0.0 < outcome[2.0].min_normal_reaction


# ---------------------------------------------------------------------------------------- inputs
@pytest.mark.parametrize("kwargs, name", [
    (dict(b=-0.1), "b"), (dict(b=float("nan")), "b"), (dict(l=0.0), "l"), (dict(l=float("inf")), "l"),
    (dict(t_end=0.0), "t_end"), (dict(t_end=float("nan")), "t_end"),
    (dict(restitution=1.5), "restitution"), (dict(restitution=-0.1), "restitution"),
    (dict(theta0=0.9), "theta0"), (dict(theta0=-0.9), "theta0"),
    (dict(acceleration=3.0), "acceleration"), (dict(acceleration=lambda t: float("nan")), "acceleration"),
    (dict(max_events=0), "max_events"), (dict(n_samples_per_flight=1), "n_samples_per_flight"),
    (dict(rtol=0.1), "rtol"), (dict(max_step=-1.0), "max_step"), (dict(rest_omega=-1.0), "rest_omega"),
])
def test_bad_input_names_the_argument(kwargs, name):
    """theta0 = +-0.9 rad is beyond 2 alpha = 0.8457 rad for SDNV105."""
    args = dict(b=B, l=L, acceleration=zero, t_end=1.0) | kwargs
    with pytest.raises(ValueError, match=name):
        rb.rock_under_base_motion(**args)


def test_event_bound_raises():
    """Free rocking needs ~28 impacts to come to rest: max_events = 5 must stop it with a ValueError."""
    with pytest.raises(ValueError, match="max_events"):
        rb.rock_under_base_motion(B, L, zero, 2.0, theta0=0.01, max_events=5)
