"""SDND108 case (cases/sdnd108.py): a mass bouncing on an elastic (a) / absorbing (b) ground.

Reference: ../shared/reference/one_dof_impacts.md §4 (m 1 kg, g 10, h 2 m, V0 -1 m/s, K 100 N/m,
C 0 (a) / 5 N s/m (b)); Code_Aster sdnd108a/b.comm TEST_RESU on DZ(NO1).

What each test checks, and why its tolerance
---------------------------------------------
1. Closed form (cases/sdnd108.py Bounce) against the Code_Aster file's instants and references:
   fall time 0.54031242374329 s (1e-12), detachment at zero penetration 0.88545615307643 s (a) and
   0.92403882542 s (b) and every DZ reference (1e-9: the file gives 11-13 digits); the zero-force
   detachment of b at 0.86570 s and 2.836 m/s (the document's rounding).
2. The case end to end with the reference integrator (HHT alpha = -0.1, MODI_EQUI 'NON', Code_Aster's
   default since 2020) and the reference time list (100 / 200 or 500 / 25 or 20 / 20 steps): exit 0,
   files written, every check passed; fall 0.540312 s and detachment 0.885456 s (a), 0.924039 s (b)
   within 1e-3 relative (measured: fall 1e-14, detachment 7e-5 (a), 6e-5 (b)); DZ at the fall time
   (1e-6), the detachment time (1e-2), 1.0 s (1e-2) and 1.1 s (2e-2 a, 1e-2 b) within the TEST_RESU
   tolerances. Modeling a reproduces Code_Aster's own computed values (VALE_CALC) to 1e-9: same
   scheme, same steps, same piecewise-linear law entered exactly at a step. Modeling b does not:
   Code_Aster's values (-2.00635, -1.88814, -1.82055) lie 0.3 % below ours (-2.00011, -1.88321,
   -1.81733) and below the closed form (ours are 6e-4 from it); the offset does not come from alpha
   (alpha -0.3 moves both codes by the same 4.4e-4 at 1.0 s), nor from using v_{n}, v_{n+1} or
   (u_{n+1} - u_n)/dt in the damper, nor from a zero-force or compression-only damper (checked in
   a scratch study); unexplained, inside the 1e-2 tolerance. Checked: ours within 0.5 % of Code_Aster.
3. alpha = -0.3 (Code_Aster's default when the test was created) reproduces the values stored before
   2020-03-19 (a: -2.001036612021182 at the detachment time, -0.8706794915515317 at 1.1 s) to 1e-9:
   the reference integrator and alpha are identified. The stored 1.0 s value (-1.340273870505455)
   is 6.4e-7 from ours (-1.3402730099), checked at 1e-6: the trajectory agrees to 1e-12 just
   before and after, so that stored value looks archived at a slightly different instant.
4. Average acceleration, modeling a: no numerical damping, the rebound speed is the impact speed
   sqrt(41) within 1e-3 (measured 5e-8); the mechanical energy at 1.1 s equals the initial one
   within 1e-5 of the impact kinetic energy (the exit step crosses the kink of the force).
   HHT alpha -0.1 damps it: 0.3 % lower (first-order numerical damping ~ 0.1 omega dt/2 per radian
   over the half period of contact), inside the case's 1e-2 for HHT.
5. --zero-force-detachment (ShockLaw(tension_allowed=False)), b: detachment at 0.86570 s within 1e-3
   (measured 5e-5) at 2.836 m/s (1e-2). The run is a custom configuration: DZ at 1.0 and 1.1 s lies
   outside the Code_Aster tolerances (its references assume detachment at zero penetration), so
   those are not graded; DZ is checked against the zero-force closed form with the same tolerances.
6. Uniform --dt 1e-3 (b): detachment within 1e-3 (measured 2e-4, first order: the damper force
   jumps by C v = 32 N inside the impact step), DZ at 1.0 and 1.1 s within the TEST_RESU
   tolerances; the run is broken at 1.0 and 1.1 s so DZ there is a step value.
7. Bad input: exit code 2, one line naming the flag, nothing written; an overdamped ground with the
   reference time list (no detachment) asks for --dt. HHT alpha below -1/3 runs with one warning line.
"""
import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from fem.results import read_history

from helpers import load_case

CASES = Path(__file__).resolve().parents[1] / "cases"


case = load_case("sdnd108")
FALL = 0.54031242374329
DETACH = {"a": 0.88545615307643, "b": 0.92403882542}
DZ_REF = {"a": {"1.0": (-1.332162981855, 1e-2), "1.1": (-0.856394405035, 2e-2)},
          "b": {"1.0": (-1.88214079833, 1e-2), "1.1": (-1.81496422497, 1e-2)}}
ASTER_CALC = {"a": (-2.0003798910306614, -1.334898142185521, -0.8611856407223184),
              "b": (-2.006350261330867, -1.888144497885116, -1.820548635131636)}


@functools.lru_cache(maxsize=None)
def _run(modeling: str, scheme: str = "hht", alpha: float = -0.1, zero_force: bool = False):
    p = case.BENCHMARK[modeling]
    cf = case.Bounce(**p, zero_force=zero_force)
    run = case.simulate(**p, schedule=case.reference_schedule(cf, modeling, 1.1), scheme=scheme, alpha=alpha,
                        zero_force=zero_force)
    return run, case.measure(run, p["height"], p["g"], p["k"], p["c"], zero_force), cf


def test_closed_form_reproduces_the_code_aster_references():
    for modeling in ("a", "b"):
        cf = case.Bounce(**case.BENCHMARK[modeling])
        assert cf.fall_time == pytest.approx(FALL, rel=1e-12)
        assert cf.detach_time == pytest.approx(DETACH[modeling], rel=1e-9)
        assert cf.position(cf.detach_time) == pytest.approx(-2.0, rel=1e-12)
        for key, (ref, _) in DZ_REF[modeling].items():  # sdnd108b.comm gives its instants to 11 digits
            assert cf.position(float(key)) == pytest.approx(ref, rel=1e-9 if modeling == "a" else 1e-8)
    assert case.Bounce(**case.BENCHMARK["a"]).rebound_velocity == pytest.approx(math.sqrt(41), rel=1e-12)
    assert case.Bounce(**case.BENCHMARK["b"]).rebound_velocity == pytest.approx(1.931377, rel=1e-6)
    zf = case.Bounce(**case.BENCHMARK["b"], zero_force=True)
    assert zf.detach_time == pytest.approx(0.86570, rel=1e-5)
    assert zf.rebound_velocity == pytest.approx(2.836, rel=1e-3)


@pytest.mark.parametrize("modeling, steps", [("a", [100, 200, 25, 20]), ("b", [100, 500, 20, 20])])
def test_case_meets_the_references(tmp_path, modeling, steps):
    assert case.main(["--modeling", modeling, "--out", str(tmp_path)]) == 0
    for name in ("summary.json", "history.csv", "sdnd108.png"):
        assert (tmp_path / name).stat().st_size > 0
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["all_passed"] and s["benchmark_parameters"]
    assert s["scheme"]["name"] == "HHT" and s["scheme"]["alpha"] == -0.1 and not s["scheme"]["modified_equilibrium"]
    assert [p["steps"] for p in s["schedule"]] == steps
    assert s["fall_time"] == pytest.approx(FALL, rel=1e-3)
    assert s["detach_time"] == pytest.approx(DETACH[modeling], rel=1e-3)
    assert s["u_at_reference_instants"]["fall"] == pytest.approx(-2.0, rel=1e-6)
    assert s["u_at_reference_instants"]["detach"] == pytest.approx(-2.0, rel=1e-2)
    for key, (ref, tol) in DZ_REF[modeling].items():
        assert s["u_at"][key] == pytest.approx(ref, rel=tol)
    assert len(s["checks"]) == 7 and all(c["passed"] for c in s["checks"])
    h = read_history(tmp_path / "history.csv")
    assert h["t"].size == sum(steps) + 1 and h["t"][-1] == pytest.approx(1.1)
    ours = (s["u_at_reference_instants"]["detach"], s["u_at"]["1.0"], s["u_at"]["1.1"])
    if modeling == "a":  # Code_Aster's own numbers, to round-off
        np.testing.assert_allclose(ours, ASTER_CALC["a"], rtol=1e-9)
    else:  # 0.3 % apart, unexplained (see the module docstring)
        np.testing.assert_allclose(ours, ASTER_CALC["b"], rtol=5e-3)


def test_alpha_minus_0_3_gives_the_values_stored_before_2020():
    run, _, cf = _run("a", "hht", -0.3)
    values = [case.value_at(run, t) for t in (DETACH["a"], 1.0, 1.1)]
    # detachment and 1.1 s agree to 1e-12; the stored 1.0 s value is 6.4e-7 off (as if archived
    # 1.6e-7 s later: the mass rises at 5.3 m/s), while the trajectory around it is the same
    assert values[0] == pytest.approx(-2.001036612021182, rel=1e-9)
    assert values[1] == pytest.approx(-1.340273870505455, rel=1e-6)
    assert values[2] == pytest.approx(-0.8706794915515317, rel=1e-9)


def test_average_acceleration_returns_the_impact_speed():
    run, m, cf = _run("a", "average")
    assert m["rebound_velocity"] == pytest.approx(math.sqrt(41), rel=1e-3)
    assert m["rebound_velocity"] == pytest.approx(math.sqrt(41), rel=1e-6)  # what is obtained
    assert m["detach_time"] == pytest.approx(DETACH["a"], rel=1e-4)
    impact_energy = 0.5 * 41.0
    assert abs(run.energy[-1] - run.energy[0]) < 1e-5 * impact_energy
    _, m_hht, _ = _run("a")
    assert 0.995 < m_hht["rebound_velocity"] / math.sqrt(41) < 0.999  # HHT's numerical damping


def test_zero_force_detachment_is_a_custom_run_against_its_own_closed_form(tmp_path):
    assert case.main(["--modeling", "b", "--zero-force-detachment", "--out", str(tmp_path)]) == 0
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["configuration"] == "custom" and s["departures"] == ["--zero-force-detachment"]
    assert s["parameters"]["detachment"] == "zero force"
    assert s["detach_time"] == pytest.approx(0.86570, rel=1e-3)
    assert s["rebound_velocity"] == pytest.approx(2.836, rel=1e-2)
    checks = {c["quantity"]: c for c in s["checks"]}
    assert checks["detachment time [s]"]["passed"] and checks["rebound velocity [m/s]"]["passed"]
    # Code_Aster's references assume detachment at zero penetration: this run is outside their
    # tolerances, so they are not graded; DZ is checked against the zero-force closed form instead
    for key, (ref, tol) in DZ_REF["b"].items():
        assert abs(s["u_at"][key] / ref - 1) > tol
    assert not any("aster_value" in c or "TEST_RESU" in c["source"] for c in s["checks"])
    assert checks["DZ at 1.0 s [m]"]["passed"] and checks["DZ at 1.1 s [m]"]["passed"]
    assert "zero force" in checks["DZ at 1.1 s [m]"]["source"]
    assert s["all_passed"]


def test_uniform_time_step(tmp_path):
    assert case.main(["--modeling", "b", "--dt", "1e-3", "--out", str(tmp_path)]) == 0
    s = json.loads((tmp_path / "summary.json").read_text())
    assert [(p["t_start"], p["t_end"]) for p in s["schedule"]] == [(0.0, 1.0), (1.0, 1.1)]
    assert s["fall_time"] == pytest.approx(FALL, rel=1e-9)  # free flight is exact, steps or not
    assert s["detach_time"] == pytest.approx(DETACH["b"], rel=1e-3)
    for key, (ref, tol) in DZ_REF["b"].items():
        assert s["u_at"][key] == pytest.approx(ref, rel=tol)
    assert s["all_passed"]


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
    (["--t-end", "1e6"], "--t-end 1e+06 s"),  # 2e8 steps of Code_Aster's list: beyond the step limit
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
