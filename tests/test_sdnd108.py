"""SDND108 case (cases/sdnd108.py): a mass bouncing on an elastic (a) / absorbing (b) ground.

Reference: docs/references.md, Code_Aster SDND108 (m 1 kg, g 10, h 2 m, V0 -1 m/s, K 100 N/m,
C 0 (a) / 5 N s/m (b)); Code_Aster sdnd108a/b.comm TEST_RESU on DZ(NO1).

What each test checks, and why its tolerance
---------------------------------------------
1. Closed form (contact/references/bounce.py Bounce) against the Code_Aster file's instants and references:
   fall time 0.54031242374329 s (1e-12), detachment at zero penetration 0.88545615307643 s (a) and
   0.92403882542 s (b) and every DZ reference (1e-9: the file gives 11-13 digits); the zero-force
   detachment of b at 0.86570 s and 2.836 m/s (the document's rounding).
2. The case end to end with the reference integrator (HHT alpha = -0.1, MODI_EQUI 'NON', Code_Aster's
   default since 2020) and the reference time list (100 / 200 or 500 / 25 or 20 / 20 steps): exit 0,
   files written, every check passed, DZ within the TEST_RESU tolerances. The headline figures are
   re-derived from history.csv by a separate extraction (:func:`bounce_from_history`: landing and
   detachment where the penetration crosses 0, linear between samples; the rebound velocity there;
   the largest ground force and penetration, the contact duration): they equal the summary's to
   1e-12 (same definitions), the fall is exact (free flight: every Newmark scheme integrates a
   parabola exactly), and they meet the closed form within the bounds derived in 3 and 4.
   Modeling a reproduces Code_Aster's own computed values (VALE_CALC) to 1e-9: same scheme, same
   steps, same piecewise-linear law entered exactly at a step.
3. HHT 'NON' is first order: its numerical damping ratio is (gamma - 1/2) omega dt / 2
   = -alpha omega dt / 2 (8.6e-4 at a's contact steps), so the rebound speed is short by about that
   times omega T_contact (3.45 rad): 3.0e-3 predicted, 3.3e-3 measured, halved when the steps are
   halved (order 1.0); the detachment instant carries the second-order period error.
4. Modeling b is 6e-4 from the closed form after the detachment, and that is the scheme at the
   detachment, not the physics: with tension allowed the damper pulls with C p' = -9.6 N at the
   last contact step and nothing after it; the first free-flight step (3.8 ms, the time list's
   next interval) still averages that acceleration into its velocity, (1 - gamma) dt (a_n + g)
   = -14.6 mm/s, which the exact free flight after it carries to 1.0 and 1.1 s. Checked as an
   identity of the scheme on the history, and as the explanation of the offset from the closed
   form (98 % of it at 1.0 s, 92 % at 1.1 s: the contact phase's own error is the rest).
   Code_Aster's b values (-2.00635, -1.88814, -1.82055) lie a further 3e-3 below ours. What is
   known of that gap (tested as regression facts about Code_Aster's numbers): the three values lie
   on one free-flight parabola (g = 10) to 1e-4 m, whose state at the detachment instant is
   6.35 mm *below* the ground moving at 1.936 m/s -- Code_Aster's contact phase ends deeper (about
   3.3 ms later at the rebound speed) -- and moving alpha from -0.3 to -0.1 changes Code_Aster's
   values by what it changes ours (to 2e-5 m): not the integrator. An independent 1-dof replica of
   the scheme (which gives our values to 1e-8) does not reproduce Code_Aster's with the damper's
   velocity taken at t_n, as (u_{n+1} - u_n)/dt or as a midpoint, with an explicit contact status,
   a damper acting only in compression, only while loading or only while unloading, HHT weighting
   of the damper, or C changed by up to 2 %: the gap is in Code_Aster's damped contact phase,
   and unexplained. Ours are within the TEST_RESU tolerance (1e-2) of the closed form, as
   Code_Aster's are.
5. Average acceleration, modeling a: no numerical damping, the rebound speed is the impact speed
   sqrt(41): the trapezoidal rule conserves the energy of each linear piece exactly; the step where
   the mass leaves the ground straddles the kink of the force and loses at most
   K (v dt)^2 / 8 / (m v^2 / 2) = K dt^2 / 4m = 7.4e-5 of the energy (dt = 1.73 ms): 1e-4 on the
   energy, on the speed too.
6. Uniform --dt (b, 4e-3 and 2e-3 s): contact is entered and left inside steps, where the damper
   force jumps by C v = 32 N; the detachment is within the case's 1e-3 and its error decreases
   with the step (measured 4.8e-4, 2.9e-4, 2.0e-4 at 4e-3, 2e-3, 1e-3), DZ at 1.0 and 1.1 s within
   the TEST_RESU tolerances.
7. Bad input: exit code 2, one line naming the flag, nothing written; an overdamped ground with the
   reference time list (no detachment) asks for --dt. HHT alpha below -1/3 runs with one warning line.
The flags (--alpha -0.3 reproduces the values Code_Aster stored before 2020; --zero-force-detachment;
--scheme; custom parameters) are exercised in tests/test_contract.py.
"""
import contextlib
import functools
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from contact.references.bounce import Bounce
from fem.io.results import read_history

from helpers import load_case

CASES = Path(__file__).resolve().parents[1] / "cases"


case = load_case("sdnd108")
FALL = 0.54031242374329
DETACH = {"a": 0.88545615307643, "b": 0.92403882542}
CONTACT = {"a": 0.3451437, "b": 0.3837264}  # docs/references.md, "SDND108", derived
REBOUND = {"a": math.sqrt(41.0), "b": 1.931377}
DZ_REF = {"a": {"1.0": (-1.332162981855, 1e-2), "1.1": (-0.856394405035, 2e-2)},
          "b": {"1.0": (-1.88214079833, 1e-2), "1.1": (-1.81496422497, 1e-2)}}
ASTER_CALC = {"a": (-2.0003798910306614, -1.334898142185521, -0.8611856407223184),
              "b": (-2.006350261330867, -1.888144497885116, -1.820548635131636)}
ASTER_CALC_ALPHA_03 = {"b": (-2.007082324946824, -1.888591767013247, -1.820606131860898)}
ALPHA = -0.1
GAMMA = 0.5 - ALPHA


@functools.lru_cache(maxsize=None)
def _run(modeling: str, scheme: str = "hht", alpha: float = ALPHA, refine: int = 1):
    """The reference time list (each interval's steps multiplied by ``refine``)."""
    p = case.BENCHMARK[modeling]
    cf = Bounce(**p)
    schedule = [(a, b, dt / refine) for a, b, dt in case.reference_schedule(cf, modeling, 1.1)]
    run = case.simulate(**p, schedule=schedule, scheme=scheme, alpha=alpha)
    return run, case.measure(run, p["height"], p["g"], p["k"], p["c"], False), cf


def test_closed_form_reproduces_the_code_aster_references():
    for modeling in ("a", "b"):
        cf = Bounce(**case.BENCHMARK[modeling])
        assert cf.fall_time == pytest.approx(FALL, rel=1e-12)
        assert cf.detach_time == pytest.approx(DETACH[modeling], rel=1e-9)
        assert cf.contact_duration == pytest.approx(CONTACT[modeling], rel=1e-6)  # 7 digits given
        assert cf.position(cf.detach_time) == pytest.approx(-2.0, rel=1e-12)
        for key, (ref, _) in DZ_REF[modeling].items():  # sdnd108b.comm gives its instants to 11 digits
            assert cf.position(float(key)) == pytest.approx(ref, rel=1e-9 if modeling == "a" else 1e-8)
    assert Bounce(**case.BENCHMARK["a"]).rebound_velocity == pytest.approx(REBOUND["a"], rel=1e-12)
    assert Bounce(**case.BENCHMARK["b"]).rebound_velocity == pytest.approx(REBOUND["b"], rel=1e-6)
    zf = Bounce(**case.BENCHMARK["b"], zero_force=True)
    assert zf.detach_time == pytest.approx(0.86570, rel=1e-5)
    assert zf.rebound_velocity == pytest.approx(2.836, rel=1e-3)


def bounce_from_history(h: dict, height: float) -> dict:
    """The first bounce of a history (t, u = DZ, v, penetration p, force), extracted here
    independently of the case: landing and detachment where p crosses 0 (linear between samples),
    the upward velocity at the detachment (linear), the contact duration, the largest penetration
    and ground force and the instant of the latter."""
    t, p, v, f = h["t"], h["penetration"], h["v"], h["force"]

    def cross(i):  # p changes sign between samples i and i + 1
        return t[i] + (0.0 - p[i]) * (t[i + 1] - t[i]) / (p[i + 1] - p[i])

    i_land = int(np.flatnonzero((p[:-1] < 0) & (p[1:] >= 0))[0])
    i_leave = int(np.flatnonzero((p[:-1] > 0) & (p[1:] <= 0))[0])
    t_land, t_leave = cross(i_land), cross(i_leave)
    k = int(np.argmax(f))
    return {"fall_time": t_land, "detach_time": t_leave, "contact_duration": t_leave - t_land,
            "rebound_velocity": float(np.interp(t_leave, t[i_leave:i_leave + 2], v[i_leave:i_leave + 2])),
            "max_penetration": float(p.max()), "max_force": float(f[k]), "t_max_force": float(t[k])}


def closed_form_peak(cf) -> tuple[float, float]:
    """(largest penetration, its time after the landing) of the closed-form contact phase, on a fine
    grid (the damped oscillator's maximum; 1e-7 s spacing)."""
    tau = np.linspace(0.0, cf.contact_duration, 400001)
    p = np.array([cf.penetration(x)[0] for x in tau[::100]])
    j = int(np.argmax(p)) * 100
    fine = tau[max(j - 100, 0):j + 101]
    pf = np.array([cf.penetration(x)[0] for x in fine])
    return float(pf.max()), float(fine[int(np.argmax(pf))])


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    """``python cases/sdnd108.py --modeling a|b`` (in this process), each run once:
    modeling -> (exit code, folder)."""
    runs = {}
    for modeling in ("a", "b"):
        out = tmp_path_factory.mktemp(f"sdnd108{modeling}")
        with contextlib.redirect_stdout(io.StringIO()):
            runs[modeling] = (case.main(["--modeling", modeling, "--out", str(out), "--quiet"]), out)
    return runs


@pytest.mark.parametrize("modeling, steps", [("a", [100, 200, 25, 20]), ("b", [100, 500, 20, 20])])
def test_case_meets_the_references(scripted, modeling, steps):
    code, tmp_path = scripted[modeling]
    assert code == 0
    for name in ("summary.json", "history.csv", "sdnd108.png"):
        assert (tmp_path / name).stat().st_size > 0
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["all_passed"] and s["benchmark_parameters"]
    assert s["scheme"]["name"] == "HHT" and s["scheme"]["alpha"] == ALPHA and not s["scheme"]["modified_equilibrium"]
    assert [p["steps"] for p in s["schedule"]] == steps
    assert s["u_at_reference_instants"]["fall"] == pytest.approx(-2.0, rel=1e-6)
    assert s["u_at_reference_instants"]["detach"] == pytest.approx(-2.0, rel=1e-2)
    for key, (ref, tol) in DZ_REF[modeling].items():
        assert s["u_at"][key] == pytest.approx(ref, rel=tol)
    assert len(s["checks"]) == 7 and all(c["passed"] for c in s["checks"])
    h = read_history(tmp_path / "history.csv")
    assert h["t"].size == sum(steps) + 1 and h["t"][-1] == pytest.approx(1.1)

    # the headline figures from history.csv, extracted here
    mine = bounce_from_history(h, 2.0)
    for key in ("fall_time", "detach_time", "rebound_velocity"):  # the summary's (same definitions)
        assert mine[key] == pytest.approx(s[key], rel=1e-12), key
    cf = Bounce(**case.BENCHMARK[modeling])
    # the fall is exact (a parabola; the time list lands on it): round-off
    assert mine["fall_time"] == pytest.approx(FALL, rel=1e-12)
    # the contact phase: HHT 'NON' has a second-order period error, (beta/2 - 1/24) (omega dt)^2 =
    # 3.3e-5 for a's 1.73 ms steps (beta = 0.3025), and first-order numerical damping (3: 3.3e-3 of
    # a's amplitude over the contact), which moves the return to p = 0, ps = m g / k below the
    # swing's centre, by about 3.3e-3 ps / (A omega) = 5e-5 s (A = 0.65 m the swing's amplitude);
    # the exit's linear interpolation adds p'' dt^2 / (8 v) = 6e-7 s. The contact duration within
    # 1e-3 (measured 1.7e-4 a, 1.5e-4 b), the case's tolerance on the instants;
    # the peak penetration, reached after half the contact, within 5e-3 (half of HHT's 3.3e-3 and
    # the sampling, (omega dt)^2 / 8: measured -1.4e-3 a, +1.1e-3 b); the rebound within the case's
    # 1e-2 for HHT (measured -3.3e-3 a, +4.5e-4 b)
    assert mine["detach_time"] == pytest.approx(DETACH[modeling], rel=1e-3)
    assert mine["contact_duration"] == pytest.approx(CONTACT[modeling], rel=1e-3)
    p_max, tau_max = closed_form_peak(cf)
    assert mine["max_penetration"] == pytest.approx(p_max, rel=5e-3)
    assert mine["rebound_velocity"] == pytest.approx(REBOUND[modeling], rel=1e-2)
    ours = (s["u_at_reference_instants"]["detach"], s["u_at"]["1.0"], s["u_at"]["1.1"])
    if modeling == "a":  # Code_Aster's own numbers, to round-off (same scheme, same steps)
        np.testing.assert_allclose(ours, ASTER_CALC["a"], rtol=1e-9)
        # a's ground force is the spring's, K p: the peak where the penetration peaks
        assert mine["max_force"] == pytest.approx(100.0 * mine["max_penetration"], rel=1e-12)
        assert mine["t_max_force"] - FALL == pytest.approx(tau_max, abs=2 * 0.3451437 / 200)  # within 2 steps
    else:  # within the TEST_RESU tolerance of Code_Aster's (and of the closed form): test 4
        np.testing.assert_allclose(ours, ASTER_CALC["b"], rtol=1e-2)


def test_hht_is_first_order_and_damps_the_rebound(scripted):
    """3: the rebound speed of a with the reference time list (the script's run) and with every
    interval's steps halved: short by HHT's numerical damping, -alpha omega dt / 2 per radian over
    omega T_contact (20 %: the static sag and the first/last partial effects), halved with the steps."""
    errors = []
    for refine in (1, 2):
        if refine == 1:
            rebound = json.loads((scripted["a"][1] / "summary.json").read_text())["rebound_velocity"]
        else:
            rebound = _run("a", refine=refine)[1]["rebound_velocity"]
        dt = (DETACH["a"] - FALL) / (200 * refine)
        predicted = -ALPHA * 10.0 * dt / 2 * (10.0 * CONTACT["a"])
        error = 1 - rebound / REBOUND["a"]
        assert error == pytest.approx(predicted, rel=0.2)
        errors.append(error)
    assert math.log2(errors[0] / errors[1]) == pytest.approx(1.0, abs=0.15)


def test_b_departs_from_the_closed_form_in_its_first_free_step(scripted):
    """4: the first free-flight step after b's detachment carries the damper's pull of the last
    contact step; that is most of b's departure from the closed form at 1.0 and 1.1 s. Read from
    the script's history.csv."""
    h = read_history(scripted["b"][1] / "history.csv")
    cf = Bounce(**case.BENCHMARK["b"])
    t, u, v, a, p = h["t"], h["u"], h["v"], h["a"], h["penetration"]
    i = int(np.argmin(np.abs(t - DETACH["b"])))  # the time list lands on the detachment instant (closed form)
    assert t[i] == pytest.approx(DETACH["b"], abs=1e-9) and p[i] > 0 > p[i + 1]
    dt1 = t[i + 1] - t[i]
    assert dt1 == pytest.approx((1.0 - DETACH["b"]) / 20, rel=1e-7)
    # the damper's pull at the last contact step: a_n = -g + (K p + C p') / m with p' = -v
    assert a[i] == pytest.approx(-10.0 + 100.0 * p[i] - 5.0 * v[i], rel=1e-9)
    assert a[i] + 10.0 == pytest.approx(-9.6, rel=0.01)
    # Newmark with a_{n+1} = -g: the velocity keeps (1 - gamma) dt (a_n + g) of it (an identity)
    kick = (1 - GAMMA) * dt1 * (a[i] + 10.0)
    assert v[i + 1] - (v[i] - 10.0 * dt1) == pytest.approx(kick, rel=1e-9)
    assert kick == pytest.approx(-14.6e-3, rel=0.01)
    # then the flight is exact: DZ at 1.0 and 1.1 s (steps end there) is the parabola from the
    # first free sample
    dz = {when: float(u[int(np.argmin(np.abs(t - when)))]) for when in (1.0, 1.1)}
    for when in (1.0, 1.1):
        s = when - t[i + 1]
        assert dz[when] == pytest.approx(u[i + 1] + v[i + 1] * s - 5.0 * s * s, abs=1e-12)
    # the offset from the closed form at 1.0 and 1.1 s: the kick carried by the flight, plus the
    # contact phase's own (smaller) error
    for when in (1.0, 1.1):
        offset = dz[when] - cf.position(when)
        carried = kick * (when - t[i + 1]) + (0.5 - (1 - ALPHA) ** 2 / 4) * dt1**2 * (a[i] + 10.0)
        assert abs(offset - carried) < 0.2 * abs(offset), when


def test_code_aster_b_gap_is_in_its_contact_phase(scripted):
    """4 (regression facts about Code_Aster's b values, sdnd108b.comm VALE_CALC): they lie on one
    free-flight parabola (g = 10) to 1e-4 m (their first free step carries the same kind of
    3e-5 m kick as ours), which at the detachment instant is 6.35 mm below the ground: Code_Aster's
    contact phase ends deeper. Its sensitivity to alpha is ours (the stored alpha = -0.3 values):
    not the integrator."""
    t = np.array([DETACH["b"], 1.0, 1.1])
    z = np.array(ASTER_CALC["b"])
    # the parabola z = Y - 5 (t - T)^2 through the values at 1.0 and 1.1 s
    T = 0.5 * (1.0 + 1.1) + (z[2] - z[1]) / (2 * 5.0 * 0.1)
    Y = z[1] + 5.0 * (1.0 - T) ** 2
    assert z[0] == pytest.approx(Y - 5.0 * (t[0] - T) ** 2, abs=1e-4)
    depth = -2.0 - (Y - 5.0 * (t[0] - T) ** 2)
    assert depth == pytest.approx(6.35e-3, rel=0.01)  # regression value (Code_Aster's numbers)
    assert 10.0 * (T - t[0]) == pytest.approx(1.936, rel=1e-3)  # its speed there; the closed form 1.9314
    summary = json.loads((scripted["b"][1] / "summary.json").read_text())
    ours = np.array([summary["u_at_reference_instants"]["detach"], summary["u_at"]["1.0"], summary["u_at"]["1.1"]])
    ours_03 = np.array([case.value_at(_run("b", alpha=-0.3)[0], x) for x in t])
    aster_shift = np.array(ASTER_CALC_ALPHA_03["b"]) - z
    np.testing.assert_allclose(ours_03 - ours, aster_shift, rtol=0, atol=2e-5)
    assert np.abs(aster_shift).max() > 5e-4  # the shift itself is 25 times that
    # the gap: Code_Aster 6.2 / 4.9 / 3.2 mm below us (regression values), inside the TEST_RESU 1e-2
    np.testing.assert_allclose(z - ours, [-6.24e-3, -4.94e-3, -3.21e-3], rtol=0, atol=2e-5)
    for key, (ref, tol) in DZ_REF["b"].items():
        assert ours[1 if key == "1.0" else 2] == pytest.approx(ref, rel=tol)


def test_average_acceleration_returns_the_impact_speed():
    """5: the trapezoidal rule's only energy error is the exit step across the force's kink,
    K dt^2 / 4m = 7.4e-5 of the energy at most."""
    run, m, cf = _run("a", "average")
    dt = (DETACH["a"] - FALL) / 200
    bound = 100.0 * dt**2 / 4
    assert bound == pytest.approx(7.4e-5, rel=0.01) and bound < 1e-4
    assert m["rebound_velocity"] == pytest.approx(math.sqrt(41), rel=1e-4)
    assert abs(run.energy[-1] - run.energy[0]) < 1e-4 * 0.5 * 41.0
    # the period of the trapezoidal rule is second order: the detachment within 1e-4
    assert m["detach_time"] == pytest.approx(DETACH["a"], rel=1e-4)


@pytest.mark.parametrize("dt", [4e-3, 2e-3])
def test_uniform_time_step(dt):
    """6: uniform steps, the run broken at 1.0 and 1.1 s (DZ there is a step value)."""
    p = case.BENCHMARK["b"]
    run = case.simulate(**p, schedule=case.uniform_schedule(dt, 1.1))
    m = case.measure(run, p["height"], p["g"], p["k"], p["c"], False)
    assert m["fall_time"] == pytest.approx(FALL, rel=1e-9)  # free flight is exact, steps or not
    error = abs(m["detach_time"] / DETACH["b"] - 1)
    assert error < {4e-3: 6e-4, 2e-3: 4e-4}[dt]  # decreasing with dt (measured 4.8e-4, 2.9e-4), below 1e-3
    for key, (ref, tol) in DZ_REF["b"].items():
        assert case.value_at(run, float(key)) == pytest.approx(ref, rel=tol)


@pytest.mark.parametrize("argv, flag", [
    (["--mass", "-1"], "--mass"),
    (["--mass", "x"], "--mass"),
    (["--k", "-100"], "--k"),
    (["--k", "0"], "--k"),
    (["--c", "-5"], "--c"),
    (["--height", "-2"], "--height"),
    (["--g", "0"], "--g"),
    (["--v0", "nan"], "--v0"),
    (["--dt", "0"], "--dt"),
    (["--dt", "2", "--t-end", "1.1"], "--dt"),
    (["--t-end", "-1"], "--t-end"),
    (["--alpha", "0.1"], "--alpha"),
    (["--scheme", "euler"], "--scheme"),
    (["--modeling", "c"], "--modeling"),
    (["--c", "30"], "--dt"),  # overdamped ground: never detaches, the reference time list cannot be built
    (["--dt", "-1e-3"], "--dt"),
    (["--t-end", "inf"], "--t-end"),
    (["--t-end", "1e5"], "--t-end 100000 s"),  # 2e7 steps of Code_Aster's list: beyond the step limit
    (["--t-end", "1e6"], "--t-end 1e6 s is outside the physical range [1e-12, 1e5] s"),  # fem.ranges.DURATION
])
def test_bad_input_exits_2_naming_the_flag(tmp_path, capsys, argv, flag):
    out = tmp_path / "out"
    assert case.main(["--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert flag in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_alpha_outside_the_second_order_range_warns(tmp_path, capsys):
    """HHT alpha in (-1, -1/3): first order, strong damping; the library logs it at INFO level only,
    the case prints one warning line and records it."""
    assert case.main(["--alpha", "-0.5", "--t-end", "0.1", "--out", str(tmp_path), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "--alpha -0.5 is outside [-1/3, 0]" in err
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["warnings"] and s["configuration"] == "benchmark"
