"""Event-driven rigid-body rocking reference (contact/references/rocking.py) against the SDNV105 document §2."""
import json
import math

import numpy as np
import pytest

from contact.references import rocking as rk

from helpers import load_case

B, L, TH = 0.18, 0.40, 0.01
BLOCK = rk.RigidBlock(B, L)
W = BLOCK.weight  # 4096.656 N
R_H = BLOCK.housner_r  # 0.7474


@pytest.fixture(scope="module")
def runs():
    return {m: rk.rock(B, L, TH, model=m) for m in rk.MODELS}


def test_block_data():
    assert BLOCK.mass == pytest.approx(417.6, rel=1e-12)
    assert BLOCK.J_O == pytest.approx(4.0 / 3.0 * BLOCK.mass * BLOCK.R**2, rel=1e-14)
    assert BLOCK.alpha == pytest.approx(math.atan(B / L), rel=1e-14)
    # document: omega_rO = sqrt(3 g / 4 R) = 4.0956 1/s; r = (2R^2 - 3b^2)/(2R^2) = 0.7474 = 1 - 3/2 sin^2 alpha
    assert BLOCK.p == pytest.approx(4.0956, abs=1e-4)
    assert R_H == pytest.approx(0.7474, abs=1e-4)
    assert R_H == pytest.approx(1 - 1.5 * math.sin(BLOCK.alpha) ** 2, rel=1e-14)
    assert R_H**2 == pytest.approx(0.5586086, abs=1e-7)


def test_first_impact_is_the_linear_in_angle_equation(runs):
    # the document's 0.05440978 s: J_O phi'' = -M g (b - l phi), cosh(lambda t1) = (b/l)/(b/l - theta_in)
    t1 = runs["linear"].impact_times[0]
    assert t1 == pytest.approx(rk.DOC_T1, abs=1e-6)
    assert abs(t1 - rk.DOC_T1) < 1e-8
    assert t1 == pytest.approx(rk.linear_first_impact(B, L, TH), abs=1e-12)  # event vs closed form
    # the exact equation is 1.0 us later, the constant-torque model 0.5 ms earlier (comment set 1)
    assert runs["nonlinear"].impact_times[0] - t1 == pytest.approx(1.0e-6, abs=0.05e-6)
    assert runs["constant"].impact_times[0] == pytest.approx(0.0539034, abs=1e-7)
    assert runs["constant"].impact_times[0] == pytest.approx(math.sqrt(2 * TH * BLOCK.J_O / (W * B)), rel=1e-11)


def test_kinetic_energy_before_first_impact(runs):
    # document's 7.37398 J = M g b theta_in: the constant-torque (first-order) energy
    assert runs["constant"].ke_before[0] == pytest.approx(W * B * TH, abs=1e-6)
    assert runs["constant"].ke_before[0] == pytest.approx(7.373981, abs=1e-6)
    # exact rigid rotation: M g (b sin th + l cos th - l) = 7.2919 J
    exact = W * (B * math.sin(TH) + L * math.cos(TH) - L)
    assert runs["nonlinear"].ke_before[0] == pytest.approx(exact, abs=1e-6)
    assert exact == pytest.approx(7.292, abs=1e-3)
    # linear-in-angle model: M g (b th - l th^2/2), so the document's (t1, KE) pair mixes two models
    assert runs["linear"].ke_before[0] == pytest.approx(W * (B * TH - L * TH**2 / 2), abs=1e-6)
    assert runs["linear"].ke_before[0] < 7.2921
    # the KE maxima are the pre-impact values, at the impact instants
    assert runs["nonlinear"].ke_max == runs["nonlinear"].ke_before
    assert runs["nonlinear"].ke_max_times == runs["nonlinear"].impact_times


@pytest.mark.parametrize("model", rk.MODELS)
def test_energy_conserved_between_impacts(runs, model):
    res = runs[model]
    for f in res.flights:
        t = np.linspace(f.t0, f.t1, 301)[:-1]  # at t1 itself the history gives the post-impact state
        t = np.append(t, np.nextafter(f.t1, 0.0))
        ke, pe = res.energies(t)
        e = ke + pe
        assert np.max(np.abs(e - e[0])) / e[0] < 1e-9
    # and the flight energies chain through the impacts
    for k in range(len(res.impact_times)):
        ke, pe = res.energies(np.array([res.flights[k].t0]))
        assert ke[0] + pe[0] == pytest.approx(res.ke_before[k], rel=1e-9)


@pytest.mark.parametrize("e", [None, 0.79, 0.5])
def test_energy_ratio_per_impact(e):
    res = rk.rock(B, L, TH, restitution=e)
    expected = (R_H if e is None else e) ** 2
    assert np.allclose(res.energy_ratio, expected, rtol=1e-12)
    assert np.allclose(np.array(res.omega_after) / np.array(res.omega_before), R_H if e is None else e, rtol=1e-12)
    # alternating pivots and corners; theta' keeps its sign through an impact
    assert res.impact_corner[:3] == ("A", "O", "A") and res.pivot[:3] == ("O", "A", "O")
    assert all(np.sign(res.omega_before) == np.sign(res.omega_after))


def test_intervals_shrink(runs):
    # constant-torque model: Delta t_{k->k+1} = 2 t1 r^k exactly
    c = runs["constant"]
    assert np.allclose(np.array(c.intervals[1:]) / np.array(c.intervals[:-1]), R_H, rtol=1e-10)
    assert c.intervals[0] == pytest.approx(2 * R_H * c.impact_times[0], rel=1e-10)
    # exact model: intervals shrink, their ratio grows towards r as the amplitude decreases
    n = runs["nonlinear"]
    ratios = np.array(n.intervals[1:]) / np.array(n.intervals[:-1])
    assert np.all(np.diff(n.intervals) < 0)
    assert np.all(np.diff(ratios) > 0) and np.all(ratios < R_H) and np.all(ratios > R_H - 3e-3)


def test_document_later_instants_not_reproduced_by_its_law(runs):
    nl, lin = runs["nonlinear"], runs["linear"]
    # exact rigid-body instants with the stated law omega+ = 0.7474 omega-: 0.5 to 2.2 ms earlier
    gaps_ms = (np.array(nl.impact_times) - rk.DOC_RIGID_TIMES) * 1e3
    assert gaps_ms == pytest.approx([0.001, -0.538, -1.165, -1.723, -2.181], abs=2e-3)
    assert np.allclose(lin.impact_times[1:], nl.impact_times[1:], atol=2e-6)  # linearisation is not the cause
    # the document's instants are its recurrence t_{k+1} = t_k + 2 t1 r^k (constant-torque intervals
    # started from the linear-model t1), printed to 5-6 digits
    times, kes = rk.document_recurrence(rk.linear_first_impact(B, L, TH), W * B * TH, R_H, R_H)
    assert times == pytest.approx(rk.DOC_RIGID_TIMES, abs=5e-6)
    assert kes == pytest.approx(rk.DOC_RIGID_KE, abs=1e-6)
    # the comment set 1 of sdnv105a and the energies are the constant-torque model, consistently
    c = runs["constant"]
    assert c.impact_times == pytest.approx(rk.DOC_COMMENT_SET_1, abs=1e-6)
    assert c.ke_before == pytest.approx(rk.DOC_RIGID_KE, abs=1e-6)
    assert c.corner_velocity_before == pytest.approx((-0.133572, -0.099832, -0.074615, -0.055767, -0.04168), abs=1e-6)
    assert c.uplift[1] == pytest.approx(2.011e-3, abs=1e-6)  # DY(O) max, rigid reference


def test_restitution_set_needs_two_coefficients():
    # Table 2.3: energies/velocities with e = 0.79, intervals with ratio 0.77
    times, kes = rk.document_recurrence(rk.linear_first_impact(B, L, TH), W * B * TH, 0.77, 0.79)
    assert times == pytest.approx(rk.DOC_RESTIT_TIMES, abs=5e-6)
    assert kes == pytest.approx(rk.DOC_RESTIT_KE, abs=1e-4)
    c79 = rk.rock(B, L, TH, restitution=0.79, model="constant")
    assert c79.ke_before == pytest.approx(rk.DOC_RESTIT_KE, abs=1e-4)
    assert c79.corner_velocity_before == pytest.approx(
        (-0.13357229, -0.1055221, -0.083362, -0.065856, -0.052026), abs=2e-6)
    assert c79.uplift[1] == pytest.approx(2.247e-3, abs=1e-6)  # DY(O) max, restitution reference
    # in the exact model one e cannot place all four later instants: fits drift 0.7747 -> 0.7733,
    # and e = 0.79 puts impact 5 11 ms after the document
    fits = [rk.fit_restitution(rk.DOC_RESTIT_TIMES[k - 1], B, L, TH, impact=k) for k in (2, 3, 4, 5)]
    assert fits == pytest.approx([0.77466, 0.77409, 0.77366, 0.77332], abs=2e-5)
    nl79 = rk.rock(B, L, TH, restitution=0.79)
    assert nl79.impact_times[4] - rk.DOC_RESTIT_TIMES[4] == pytest.approx(0.01143, abs=1e-4)


def test_reactions(runs):
    fo = rk.first_order_reactions(BLOCK)
    assert fo["R_N"] == pytest.approx(3579.25, abs=0.01)
    assert fo["R_N"] == pytest.approx(rk.DOC_RN, rel=1e-3)
    assert fo["R_T_abs"] == pytest.approx(1149.79, abs=0.01)
    assert fo["ratio"] == pytest.approx(rk.DOC_RT_OVER_RN, abs=1e-4)
    # constant-torque model: constant reactions = the document's values
    c = runs["constant"]
    assert np.allclose(np.array(c.rn_max) + c.rn_min, 2 * fo["R_N"], rtol=1e-12)
    assert np.allclose(c.rt_over_rn_max, fo["ratio"], rtol=1e-12)
    # exact model: R_N falls from 3602 N (release) to 3557 N (impact); the windowed max of
    # Code_Aster (0.01 < t < 0.05, pivot O) is at t = 0.01: 3600.5 N, vs 3599.52 N (sdnv105a)
    nl = runs["nonlinear"]
    assert nl.rn_max[0] == pytest.approx(W * (1 - BLOCK.mass * (B * math.cos(TH) - L * math.sin(TH)) ** 2
                                              / BLOCK.J_O), rel=1e-12)
    w1 = nl.window_extremes(0.01, 0.05)
    assert w1["t_R_N_max"] == pytest.approx(0.01)
    assert w1["R_N_max"] == pytest.approx(rk.DOC_RN, rel=0.01)  # the test's tolerance
    assert w1["R_N_max"] == pytest.approx(3599.52291, rel=5e-4)
    assert w1["R_T_max"] == pytest.approx(1137.17, rel=1e-3)  # Aster c RX(O) min -1137.17 (opposite sign)
    assert 0.3190 < w1["R_T_over_R_N_max"] < fo["ratio"]
    w2 = nl.window_extremes(0.06, 0.12)  # pivot A: horizontal reaction along -x
    assert w2["R_T_max"] < 0 and w2["R_N_max"] == pytest.approx(rk.DOC_RN, rel=0.01)
    # reaction ratio tends to 0.3212 as the amplitude decreases
    assert np.all(np.diff(nl.rt_over_rn_max) > 0) and nl.rt_over_rn_max[-1] < fo["ratio"]
    with pytest.raises(ValueError):
        nl.reactions(nl.impact_times[-1] + 0.01)


def test_percussions(runs):
    c, nl = runs["constant"], runs["nonlinear"]
    assert c.percussion_normal[0] == pytest.approx(rk.DOC_PERCUSSION_1, abs=0.01)
    assert abs(c.percussion_tangential[0]) == pytest.approx(15.65, abs=0.01)
    w = abs(nl.omega_before[0])
    assert nl.percussion_normal[0] == pytest.approx((4 * BLOCK.R**2 - 3 * B**2) / (2 * BLOCK.R**2)
                                                    * BLOCK.mass * B * w, rel=1e-12)
    assert nl.percussion_normal[0] == pytest.approx(48.463, abs=1e-3)
    for res in runs.values():
        assert np.allclose(np.abs(res.percussion_tangential) / np.array(res.percussion_normal),
                           rk.DOC_RT_OVER_RN, atol=1e-4)
        assert np.allclose(res.percussion_lift, 0.0, atol=1e-12)  # Housner: no impulse at the lifting corner
    # Table 2.2: percussions scale with r (48.73, 36.42, 27.22, 20.35)
    assert c.percussion_normal[:4] == pytest.approx((48.73, 36.42, 27.22, 20.35), abs=0.01)
    # e > r needs a compressive impulse at the corner that lifts off; impulses balance momentum
    res = rk.rock(B, L, TH, restitution=0.79)
    wm, wp = abs(res.omega_before[0]), abs(res.omega_after[0])
    assert res.percussion_lift[0] > 0
    assert res.percussion_normal[0] + res.percussion_lift[0] == pytest.approx(BLOCK.mass * B * (wm + wp), rel=1e-12)


def test_amplitudes_and_uplifts(runs):
    for res in runs.values():
        assert res.uplift[0] == pytest.approx(2 * B * math.sin(TH), rel=1e-14)  # DY(A) max 3.6e-3
        for k in (1, 2):
            f = res.flights[k]
            theta, _ = res.state(np.linspace(f.t0, f.t1, 20001))
            assert np.max(np.abs(theta)) == pytest.approx(res.theta_max[k], rel=1e-6)
            assert np.all(np.sign(theta[1:-1]) == f.sign)
    assert runs["nonlinear"].uplift[1] == pytest.approx(2.0010e-3, abs=1e-7)


@pytest.mark.parametrize("b,l,th", [(0.18, 0.40, 0.01), (0.10, 0.50, 0.05), (0.30, 0.35, 0.2), (0.05, 1.0, 0.04)])
@pytest.mark.parametrize("model", ["nonlinear", "linear"])
def test_scaling(b, l, th, model):
    base = rk.rock(b, l, th, model=model, n_impacts=3)
    for s in (0.25, 4.0):  # similar shapes: times ~ sqrt(l), energies ~ size^3
        big = rk.rock(s * b, s * l, th, model=model, n_impacts=3)
        assert np.allclose(big.impact_times, np.sqrt(s) * np.array(base.impact_times), rtol=1e-9)
        assert np.allclose(big.ke_before, s**3 * np.array(base.ke_before), rtol=1e-9)
    moon = rk.rock(b, l, th, model=model, n_impacts=3, g=1.62)  # times ~ 1/sqrt(g)
    assert np.allclose(moon.impact_times, math.sqrt(9.81 / 1.62) * np.array(base.impact_times), rtol=1e-9)
    heavy = rk.rock(b, l, th, model=model, n_impacts=3, rho=2500, thickness=0.3)  # kinematics independent of M
    assert np.allclose(heavy.impact_times, base.impact_times, rtol=1e-10)
    assert np.allclose(heavy.ke_before, 2500 * 0.3 / 1450 * np.array(base.ke_before), rtol=1e-10)
    if model == "linear":
        assert base.impact_times[0] == pytest.approx(rk.linear_first_impact(b, l, th), rel=1e-10)


def test_small_tilt_limit():
    # for theta_in -> 0 the three models agree (relative differences O(theta_in))
    a = [rk.rock(B, L, 1e-4, model=m, n_impacts=3).impact_times for m in rk.MODELS]
    assert np.allclose(a[0], a[2], rtol=2e-4) and np.allclose(a[1], a[2], rtol=2e-4)


def test_zero_restitution_and_squat_block():
    res = rk.rock(B, L, TH, restitution=0.0)
    assert len(res.impact_times) == 1 and res.ke_after == (0.0,)
    with pytest.raises(ValueError, match="squat"):
        rk.rock(0.5, 0.3, 0.01)  # b/l > sqrt(2): Housner's r < 0
    assert len(rk.rock(0.5, 0.3, 0.01, restitution=0.0).impact_times) == 1


@pytest.mark.parametrize("kw", [
    dict(b=0.0), dict(b=-1.0), dict(l=0.0), dict(l=float("nan")), dict(theta_in=0.0), dict(theta_in=-0.01),
    dict(theta_in=BLOCK.alpha), dict(theta_in=1.0), dict(rho=0.0), dict(thickness=-1.0), dict(g=0.0),
    dict(n_impacts=0), dict(n_impacts=2.5), dict(n_impacts=True), dict(restitution=-0.1),
    dict(restitution=1.1), dict(restitution=float("nan")), dict(model="elastic"),
])
def test_bad_input(kw):
    args = dict(b=B, l=L, theta_in=TH) | kw
    with pytest.raises(ValueError):
        rk.rock(**args)


def test_case_script(tmp_path):
    case = load_case("rigid_rocking")
    assert case.main(["--out", str(tmp_path)]) == 0
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["linear_first_impact"] == pytest.approx(rk.DOC_T1, abs=1e-8)
    assert s["result"]["model"] == "nonlinear" and len(s["result"]["impact_times"]) == 5
    assert s["sdnv105"]["nonlinear_minus_document_rigid_times"][4] == pytest.approx(-2.181e-3, abs=2e-6)
    assert s["sdnv105"]["restitution_fit_nonlinear_t2"] == pytest.approx(0.77466, abs=2e-5)
    assert s["document_recurrence_restitution"]["impact_times"] == pytest.approx(rk.DOC_RESTIT_TIMES, abs=5e-6)
    out2 = tmp_path / "other"
    assert case.main(["--out", str(out2), "--model", "constant", "--restitution", "0.79", "--impacts", "3",
                      "--half-width", "0.2"]) == 0
    assert len(json.loads((out2 / "summary.json").read_text())["result"]["impact_times"]) == 3
    assert s["configuration"] == "benchmark" and s["status"] == "complete"
    assert len(s["checks"]) == 10 and all(c["within_tolerance"] for c in s["checks"])
    assert case.main(["--out", str(tmp_path / "bad"), "--theta", "0.5"]) == 2
    assert case.main(["--out", str(tmp_path / "bad"), "--restitution", "1.5"]) == 2


@pytest.mark.parametrize("flags, message", [
    (["--theta", "0.5"], "--theta must lie in (0, atan(half-width / half-height) = 0.422854) rad"),
    (["--theta", "1e-9"], "--theta must be at least 1e-08 rad"),
    (["--restitution", "1.5"], "--restitution must lie in [0, 1], got 1.5"),
    (["--half-height", "0"], "--half-height must be > 0 m, got 0"),
    (["--rho", "1e12"], "--rho 1e12 kg/m^3 is outside the physical range [1e-3, 1e6] kg/m^3 of a density"),
    (["--half-width", "0.5", "--half-height", "0.3"], "--half-width 0.5 / --half-height 0.3 = 1.667 >= sqrt(2)"),
    (["--impacts", "30"], "--impacts 30: with the document's impact law"),
    (["--impacts", "3", "--restitution", "1e-6"], "--impacts 3: with --restitution (e = 1e-06"),
])
def test_case_script_bad_input(tmp_path, capsys, flags, message):
    """Refusals in the flags' names (never contact.references.rocking's b, l, theta_in), before anything is written."""
    case = load_case("rigid_rocking")
    assert case.main(["--out", str(tmp_path / "out"), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert "theta_in" not in err and "b/l" not in err
    assert not (tmp_path / "out").exists()


def test_case_script_squat_block_with_restitution(tmp_path):
    """A block too squat for the document's law rocks with the given restitution (the three models
    too); there is no document recurrence for it."""
    case = load_case("rigid_rocking")
    assert case.main(["--out", str(tmp_path), "--half-width", "0.5", "--half-height", "0.3", "--restitution", "0",
                      "--impacts", "2", "--quiet"]) == 0
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["configuration"] == "custom" and s["document_recurrence_rigid"] is None
    assert len(s["result"]["impact_times"]) == 1 and s["models_impact_law"] == "user: omega+ = e omega-"
