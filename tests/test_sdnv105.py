"""SDNV105 end to end: each modeling runs once (module fixtures, 10-30 s each) and its numbers are
asserted against Code_Aster's tests (code_aster_tests.json, their own tolerances), the sharper
targets of the issue, the rigid-body reference, the energy balance and the ParaView output."""
import json
import sys
from pathlib import Path

import meshio
import numpy as np
import pytest

from contact import rocking
from contact.output import impulse
from fem.results import read_history, read_pvd

CASES = Path(__file__).resolve().parents[1] / "cases"
sys.path.insert(0, str(CASES))
import sdnv105_common  # noqa: E402

FIRST_IMPACT = 0.05440978  # s, the benchmark's rigid-body first collision (sdnv105.md §1.7)


def _run(modeling: str, out: Path, *args: str) -> dict:
    code = sdnv105_common.run_case(modeling, ["--out", str(out), *args])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    summary["history"] = read_history(out / "history.csv")
    return summary


@pytest.fixture(scope="module")
def run_a(tmp_path_factory):
    return _run("a", tmp_path_factory.mktemp("sdnv105a"))


@pytest.fixture(scope="module")
def run_b(tmp_path_factory):
    # --auto-steps: the benchmark's windows miss this run's second impact by 0.5 ms and sample the
    # penalty springs' post-impact oscillation at A with coarse steps (README, sdnv105b.py)
    return _run("b", tmp_path_factory.mktemp("sdnv105b"), "--auto-steps", "--no-paraview")


@pytest.fixture(scope="module")
def run_c(tmp_path_factory):
    return _run("c", tmp_path_factory.mktemp("sdnv105c"), "--no-paraview")


@pytest.fixture(scope="module")
def run_d(tmp_path_factory):
    return _run("d", tmp_path_factory.mktemp("sdnv105d"), "--no-paraview")


def _failing(summary, skip=()):
    return [(c["quantity"], c["window"], c["value"]) for c in summary["checks"]
            if not c["within_tolerance"] and (c["quantity"], c["window"]) not in skip]


def test_a_meets_every_code_aster_test(run_a):
    assert len(run_a["checks"]) == 22
    assert _failing(run_a) == []


def test_b_meets_every_code_aster_test(run_b):
    assert len(run_b["checks"]) == 16
    assert _failing(run_b) == []


@pytest.fixture(scope="module")
def run_b_benchmark(tmp_path_factory):
    """b as `python cases/sdnv105b.py` runs it: the benchmark's windows, no --auto-steps."""
    return _run("b", tmp_path_factory.mktemp("sdnv105b_benchmark"), "--no-paraview")


def test_b_benchmark_schedule_lists_its_automatic_refinements(run_b_benchmark):
    """The second impact comes before the benchmark's window 0.13375-0.145 s: it is caught, and every
    automatic refinement is reported in summary.json with its interval and its cause."""
    refinements = run_b_benchmark["run"]["automatic_refinements"]
    assert refinements
    for r in refinements:
        assert 0.0 <= r["from"] < r["to"] <= 0.285 + 1e-12
        assert "predicted_impact" in r or r.get("reason")
    impacts = [r["predicted_impact"] for r in refinements if "predicted_impact" in r]
    assert any(0.132 < t < 0.13375 for t in impacts)


@pytest.mark.xfail(strict=True, reason=(
    "sdnv105.md §3 item 19 not met yet: after the first impact A slides until ~0.059 s; the sticking "
    "spring (RIGI_TAN 3e10 N/m with AMOR_TAN 1e4 N s/m) rings when the slip stops, so RN(A) max in "
    "0.06-0.12 s is ~3840 N (coarse samples) or 3730-3860 N (resolved with fine steps) vs <= 3615.8 N"))
def test_b_benchmark_schedule_meets_every_code_aster_test(run_b_benchmark):
    assert len(run_b_benchmark["checks"]) == 16
    assert _failing(run_b_benchmark) == []


C_PERCUSSIONS = [("percussion IY(A)", "0.0544-0.0545"), ("percussion IX(A)", "0.0544-0.0545")]


def test_c_meets_the_code_aster_tests_but_the_percussions(run_c):
    assert len(run_c["checks"]) == 20
    assert _failing(run_c, skip=C_PERCUSSIONS) == []


@pytest.mark.xfail(strict=True, reason="the impulses over the 0.1 ms window 0.0544-0.0545 s are discretisation "
                   "quantities (the impact acts within one step): normal 39.2 N s at dt 1e-5 (39.3 at 5e-6, 51.4 at "
                   "2e-5) vs Code_Aster's 41.9, tangential 10.5 vs 11.3; the tests require >= 41.66 and >= 11.27")
@pytest.mark.parametrize("key", C_PERCUSSIONS)
def test_c_percussions(run_c, key):
    check = next(c for c in run_c["checks"] if (c["quantity"], c["window"]) == key)
    assert check["within_tolerance"]


@pytest.mark.parametrize("name", ["a", "b", "c", "d"])
def test_first_impact_and_reactions_before_it(name, request):
    """First impact (instant of the first kinetic-energy maximum) within 0.2 % of 0.05440978 s;
    before it, RN(O) max within 1 % of 3580 N and max |RT|/RN within 1 % of 0.3212; no slip at
    the pivot corner O (slip increment since the release < 1e-7 m)."""
    h = request.getfixturevalue(f"run_{name}")["history"]
    t = h["t"]
    first = t <= 0.06
    t_first = t[first][np.argmax(h["ke"][first])]
    assert t_first == pytest.approx(FIRST_IMPACT, rel=2e-3)
    window = (t > 0.01) & (t < 0.05)
    assert h["rn_O"][window].max() == pytest.approx(3580.0, rel=0.01)
    assert (np.abs(h["rt_O"][window]) / h["rn_O"][window]).max() == pytest.approx(0.3212, rel=0.01)
    before = t < t_first - 2e-4
    assert np.abs(h["slip_O"][before] - h["slip_O"][0]).max() < 1e-7


KE_WINDOWS = (0.1, 0.15, 0.22, 0.28)


def _ke_against_code_aster(summary, lo):
    ke = next(c for c in summary["checks"] if c["quantity"] == "KE max" and c["window"] == f"t > {lo}")
    tk = next(c for c in summary["checks"] if c["quantity"] == "t(KE max)" and c["window"] == f"t > {lo}")
    return ke["rel_error_code_aster"], tk["rel_error_code_aster"]


@pytest.mark.parametrize("lo", [None, 0.1, 0.15])
def test_a_kinetic_energy_maxima_close_to_code_aster(run_a, lo):
    """Within 3 % of Code_Aster's own values (value and instant), windows up to the third impact."""
    if lo is None:
        ke = next(c for c in run_a["checks"] if c["quantity"] == "KE max" and c["window"] == "all")
        assert ke["rel_error_code_aster"] < 0.03
        return
    err_ke, err_t = _ke_against_code_aster(run_a, lo)
    assert err_ke < 0.03 and err_t < 0.03


@pytest.mark.slow
def test_a_late_peaks_depend_on_the_fine_step(run_a, tmp_path):
    """Why the peaks after 0.22 s are not held to 3 % of Code_Aster's values (README): with
    position-level Lagrange contact and HHT, the energy an impact takes depends on the fine step.
    The peak after 0.15 s moves by more than 10 % between dt_fine 1e-5 (the benchmark's, ours
    within 1 % of Code_Aster's there) and 2e-5 (measured 2.84 J and 2.31 J)."""
    coarse = _run("a", tmp_path, "--dt-fine", "2e-5", "--t-end", "0.23", "--no-paraview")

    def peak(h):  # the peak before the third impact, read from the history of each run
        window = (h["t"] > 0.15) & (h["t"] <= 0.23)
        return float(h["ke"][window].max())

    ke_1e5, ke_2e5 = peak(run_a["history"]), peak(coarse["history"])
    assert abs(ke_2e5 - ke_1e5) > 0.10 * ke_1e5


def test_c_kinetic_energy_maxima_close_to_code_aster(run_c):
    for c in run_c["checks"]:
        if c["quantity"] in ("KE max", "t(KE max)"):
            assert c["rel_error_code_aster"] < 0.03, c


def test_d_impacts_follow_the_rigid_body_reference(run_d):
    """Theta-scheme, dt = 1e-4: the five impact instants within 1 % of the event-driven rigid
    block (exact rocking equation, the document's impact law), kinetic-energy peaks within 3 %."""
    rigid = rocking.rock(0.18, 0.40, 0.01, model="nonlinear", n_impacts=5)
    impacts = run_d["impacts"][:5]
    assert len(impacts) == 5
    for imp, t_ref, ke_ref in zip(impacts, rigid.impact_times, rigid.ke_before):
        assert imp["time"] == pytest.approx(t_ref, rel=0.01)
        assert imp["ke_before"] == pytest.approx(ke_ref, rel=0.03)
    assert [i["corner"] for i in impacts] == ["A", "O", "A", "O", "A"]


@pytest.mark.parametrize("name", ["a", "b", "c", "d"])
def test_energy_balance_closes(name, request):
    """KE + strain + gravity potential + Rayleigh damping + contact work + the scheme's numerical
    dissipation - support work is constant within 1 % of the potential-energy drop."""
    e = request.getfixturevalue(f"run_{name}")["energy"]
    assert e["relative_error"] < 0.01
    assert e["damping_dissipated"] >= 0 and e["numerical_dissipation"] >= -1e-6


@pytest.mark.parametrize("name", ["a", "b", "c", "d"])
def test_run_statistics_are_reported(name, request):
    run = request.getfixturevalue(f"run_{name}")["run"]
    assert run["steps"] > 0 and run["newton_iterations"] >= run["steps"] > 0 and run["wall_s"] > 0


def test_paraview_series_reads_back(run_a, tmp_path_factory):
    out = Path(run_a["config"]["out"])
    for name in ("solution", "contact", "selfweight", "tilt"):
        steps = read_pvd(out / f"{name}.pvd")
        times = np.array([t for t, _ in steps])
        assert np.all(np.diff(times) > 0)
        assert all(p.exists() for _, p in steps)
    steps = read_pvd(out / "solution.pvd")
    assert steps[0][0] == 0.0 and steps[-1][0] == pytest.approx(0.33)
    h = run_a["history"]
    last = meshio.read(steps[-1][1])
    u = last.point_data["displacement"]
    assert u.shape == (25, 3) and np.all(u[:, 2] == 0)
    # the archived field is the state of the history's last row
    node_a = 8  # A in the reference mesh (meshes/sdnv105_quad4.msh)
    assert u[node_a, 1] == pytest.approx(h["dy_A"][-1], abs=1e-15)
    assert {"stress_pk2", "stress_cauchy", "group"} <= set(last.cell_data)
    assert (out / "report.md").read_text().count("|") > 100
    for png in ("kinetic_energy.png", "uplift.png", "reactions.png"):
        assert (out / png).stat().st_size > 10_000


def test_percussion_is_the_benchmark_definition(run_a):
    h = run_a["history"]
    check = next(c for c in run_a["checks"] if c["quantity"] == "percussion RN(A)")
    assert check["value"] == pytest.approx(impulse(h["t"], h["rn_A"], 0.0544, 0.05449))


@pytest.mark.parametrize("argv, message", [
    (["--tilt-angle", "0.5"], "--tilt-angle must lie in"),
    (["--mu=-0.1"], "--mu must be >= 0"),
    (["--young=-6e11"], "Young's modulus must be > 0"),
    (["--dt", "0"], "--dt must be > 0"),
    (["--width", "0"], "--width must be > 0"),
])
def test_impossible_values_are_rejected(argv, message, tmp_path, capsys):
    assert sdnv105_common.run_case("a", [*argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_unknown_modeling(capsys):
    assert sdnv105_common.run_case("e", []) == 2
    assert "unknown modeling 'e'" in capsys.readouterr().err


@pytest.mark.parametrize("width, height, tilt", [(0.30, 0.90, 0.008), (0.40, 0.60, 0.02)])
def test_other_blocks_rock_like_the_rigid_reference(width, height, tilt, tmp_path):
    """Another block and tilt (modeling a, --auto-steps, to the first impact): the first impact and
    the kinetic energy before it follow the rigid-body reference of that geometry."""
    out = _run("a", tmp_path, "--width", str(width), "--height", str(height), "--tilt-angle", str(tilt),
               "--auto-steps", "--no-paraview", "--t-end", "0.12")
    rigid = rocking.rock(width / 2, height / 2, tilt, model="nonlinear", n_impacts=1)
    first = out["impacts"][0]
    assert first["corner"] == "A"
    assert first["time"] == pytest.approx(rigid.impact_times[0], rel=0.01)
    assert first["ke_before"] == pytest.approx(rigid.ke_before[0], rel=0.01)


@pytest.mark.parametrize("name", ["run_a", "run_b", "run_c", "run_d", "run_b_benchmark"])
def test_default_runs_are_benchmark_runs_graded_against_code_aster(name, request):
    """The scripts' defaults (time-step options apart) are the benchmark: configuration 'benchmark',
    every check with Code_Aster's value and a verdict (summary.json as fem.run writes it)."""
    s = request.getfixturevalue(name)
    assert s["status"] == "complete" and s["configuration"] == "benchmark" and s["departures"] == []
    assert {"command", "version", "parameters", "t_reached"} <= set(s)
    assert s["checks"] and all(c["code_aster"] is not None and c["within_tolerance"] is not None
                               for c in s["checks"])
