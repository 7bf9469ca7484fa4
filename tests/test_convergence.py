"""cases/convergence.py: the convergence command of the SDNV105 modelings (time step, mesh).

* The computing functions, on synthetic sequences P(h) = P* + C h^p: observed order (p = 1, 2,
  refinement ratio 2 and 3, unequal ratios), Richardson's estimate of P*, the issue's criterion
  (contracting, growing, the absolute-threshold branch, a missing value), the same-impacts check
  (a missing bounce, an extra one, another corner), energy creation.
* Bad input: every refusal exits 2 with one ``error:`` line naming the flag, nothing on stdout,
  nothing created, no traceback (in this process; two as real processes).
* The plan of a study without running it: levels from the coarsest, the arguments of each level
  (a, b, c: --dt X --dt-fine X; d: --dt X), the pass-through flags unchanged, the generated meshes
  (QUA4 with the table for a, c, d; TRIA6 without it for b; --width, --height) and the tilt rule
  given to the mesh levels.
* The whole command with a stand-in for the case script (a few lines that write what a case writes,
  from a known P(dt)): tables, verdicts, exit codes (a failed level: 1; not converged: 0), energy
  creation, --reuse, --jobs, and a SIGINT forwarded to the running levels (130, status interrupted).
* One real study of modeling D (Moreau-Jean, the fastest) to just past the first impact, with the
  mesh study ``--meshes reference 8x16``: about 20 s (measured on this 2-core machine).

The contract of tests/test_contract.py (every script of cases/) applies to convergence.py too; its
tables need rows for it: :data:`CONTRACT_SHORT`, :data:`CONTRACT_IMPOSSIBLE` and
:data:`CONTRACT_FLAG_RUNS` are those rows (see their comment), checked here by a slow test.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from fem.mesh.read import read_mesh
from helpers import load_case

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
conv = load_case("convergence")

# the rigid block of the benchmark (contact/references/rocking.py; README "SDNV105 results")
RIGID_TIMES = [0.05441, 0.13520, 0.19536, 0.24024, 0.27374]
RIGID_KE = [7.2919, 4.0733, 2.2754, 1.2711, 0.7103]


def run(argv, cwd: Path) -> tuple[int, str, str]:
    """``python cases/convergence.py argv`` in this process, from ``cwd``: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    saved = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = conv.main([str(a) for a in argv])
    finally:
        os.chdir(saved)
    return code, out.getvalue(), err.getvalue()


def strict_json(path: Path) -> dict:
    """summary.json as strict JSON: NaN or Infinity in it fails."""
    def refuse(name):
        raise AssertionError(f"{path}: {name} in the JSON")

    return json.loads(path.read_text(), parse_constant=refuse)


# =============================================================================== computing functions
@pytest.mark.parametrize("p", [1.0, 2.0])
@pytest.mark.parametrize("ratio", [2.0, 3.0])
@pytest.mark.parametrize("c", [0.7, -40.0])
def test_observed_order_and_richardson_of_a_synthetic_sequence(p, ratio, c):
    h = 1e-2 / ratio ** np.arange(4)  # differences far above round-off even at second order
    exact = 0.1352
    values = exact + c * h**p
    np.testing.assert_allclose(conv.observed_orders(values, h), p, rtol=1e-7)
    np.testing.assert_allclose(conv.difference_ratios(values), ratio**-p, rtol=1e-7)
    np.testing.assert_allclose(conv.differences(values), np.diff(values), rtol=0, atol=0)
    # Richardson removes the C h^p term: the exact value to round-off of the differences
    np.testing.assert_allclose(conv.richardson(values, h), exact, rtol=0, atol=1e-12 * max(1.0, abs(c)))


def test_observed_order_with_unequal_refinement_ratios():
    """4e-4 -> 2e-4 -> 5e-5 (ratios 2 and 4): the formula with one ratio would give a wrong order; the
    order solving (h0^p - h1^p) / (h1^p - h2^p) = |d0| / |d1| is exact for P = P* + C h^p."""
    h = np.array([0.4, 0.2, 0.05])  # a size of the order of 1: differences far above round-off
    for p in (0.5, 1.0, 1.5, 3.0):
        values = 2.0 + 5.0 * h**p
        (order,) = conv.observed_orders(values, h)
        assert order == pytest.approx(p, rel=1e-9)
        assert conv.richardson(values, h)[0] == pytest.approx(2.0, abs=1e-12)
        naive = math.log(abs(values[1] - values[0]) / abs(values[2] - values[1])) / math.log(2.0)
        assert abs(naive - p) > 0.1  # what log2 of the last ratio alone would have said (0.17 to 0.77 off)


def test_orders_without_a_meaning_are_missing_and_richardson_needs_a_positive_order():
    h = [4e-4, 2e-4, 1e-4]
    # diverging (differences grow 2x): order -1, no Richardson value
    assert conv.observed_orders([1.0, 1.1, 1.3], h)[0] == pytest.approx(-1.0)
    assert np.isnan(conv.richardson([1.0, 1.1, 1.3], h)[0])
    # oscillating: an order from the magnitudes, but not the P* + C h^p regime: no estimate
    assert conv.observed_orders([1.0, 1.1, 1.05], h)[0] == pytest.approx(1.0)
    assert np.isnan(conv.richardson([1.0, 1.1, 1.05], h)[0])
    # a value missing, two equal values, h not decreasing: no order
    assert np.isnan(conv.observed_orders([1.0, None, 1.05], h)[0])
    assert np.isnan(conv.observed_orders([1.0, 1.0, 1.0], h)[0])
    assert np.isnan(conv.observed_orders([1.0, 1.1, 1.15], [1e-4, 2e-4, 4e-4])[0])
    # the sequence stopped moving: infinite order, the last value is the estimate
    assert conv.observed_orders([1.0, 1.1, 1.1], h)[0] == math.inf
    assert conv.richardson([1.0, 1.1, 1.1], h)[0] == 1.1
    assert conv.observed_orders([1.0], [1e-4]).size == 0


def test_criterion_accepts_a_contracting_sequence_and_rejects_a_growing_one():
    tol = 1e-6  # far below the differences: only the contraction decides
    ok = conv.criterion([0.2743, 0.2731, 0.2725], tol)  # differences -1.2e-3, -0.6e-3: ratio 0.5
    assert ok["converged"] is True and ok["contracting"] and ok["ratio"] == pytest.approx(0.5)
    assert conv.criterion([0.2743, 0.2731, 0.2724], tol)["converged"] is True  # ratio 0.583
    assert conv.criterion([0.2743, 0.2731, 0.2723], tol)["converged"] is False  # ratio 0.667 > 0.6
    # README, modeling A redistributed: fifth impact 0.2743 -> 0.2731 -> 0.2761 s (grows 2.5x): fails
    grown = conv.criterion([0.2743, 0.2731, 0.2761], conv.INSTANT_TOLERANCE)
    assert grown["converged"] is False and grown["ratio"] == pytest.approx(2.5)
    assert "> 0.6 |d_prev|" in grown["reason"]
    # only the three finest levels count
    assert conv.criterion([0.30, 0.2743, 0.2731, 0.2725], tol)["converged"] is True


def test_criterion_absolute_branch():
    # growing differences, both below 0.3 ms: converged (the instant is known to a step)
    small = conv.criterion([0.0548, 0.0547, 0.0545], conv.INSTANT_TOLERANCE)
    assert small["converged"] is True and not small["contracting"] and small["below_tolerance"]
    # one of them at 0.3 ms or more: not
    assert conv.criterion([0.0548, 0.0547, 0.0544], conv.INSTANT_TOLERANCE)["converged"] is False
    assert conv.criterion([0.0548, 0.0544, 0.0543], conv.INSTANT_TOLERANCE)["converged"] is True  # contracting
    # kinetic energy: 2 % of the finest level's value
    ke = [0.712, 0.700, 0.7138]  # differences -0.012, +0.0138 (growing): both below 0.02 * 0.7138 = 0.0143
    assert conv.tolerance_of("ke_before", ke) == pytest.approx(0.02 * 0.7138)
    assert conv.criterion(ke, conv.tolerance_of("ke_before", ke))["converged"] is True
    ke = [0.716, 0.700, 0.738]  # README: the last difference, 0.038 J, is 5 % of 0.738 J
    assert conv.criterion(ke, conv.tolerance_of("ke_before", ke))["converged"] is False
    assert conv.tolerance_of("instant", ke) == 3e-4


def test_criterion_without_three_values():
    missing = conv.criterion([0.0545, None, 0.0544], conv.INSTANT_TOLERANCE)
    assert missing["converged"] is False and "missing" in missing["reason"]
    assert conv.criterion([0.0545, 0.0544], conv.INSTANT_TOLERANCE)["converged"] is None


def test_same_impacts():
    finest = [(0.0544, "A"), (0.1352, "O"), (0.1954, "A")]
    same = conv.same_impacts([finest, [(t + 2e-4, c) for t, c in finest], finest], ["c1", "c2", "f"])
    assert same["same"] is True and same["counts"] == [3, 3, 3] and same["corners"] == ["AOA"] * 3
    assert same["differences"] == []
    # a bounce missing at the coarsest level
    missing = conv.same_impacts([finest[:1] + finest[2:], finest], ["coarse", "fine"])
    assert missing["same"] is False and missing["counts"] == [2, 3]
    assert missing["differences"] == ["coarse: no impact near 0.13520 s, where fine has one on O"]
    # an extra bounce (chatter on A) at the coarse level
    extra = conv.same_impacts([finest[:1] + [(0.0712, "A")] + finest[1:], finest], ["coarse", "fine"])
    assert extra["same"] is False
    assert extra["differences"] == ["coarse: an impact at 0.07120 s on A that fine does not make"]
    # the same instants, another corner
    corner = conv.same_impacts([[(0.0544, "A"), (0.1352, "A"), (0.1954, "A")], finest], ["coarse", "fine"])
    assert corner["same"] is False and corner["corners"] == ["AAA", "AOA"]
    assert corner["differences"] == ["coarse: the impact at 0.13520 s is on A, on O at fine (0.13520 s)"]
    # an impact within 10 ms of the end time may fall after it at another level: left out
    end = conv.same_impacts([finest, finest[:2]], ["coarse", "fine"], t_end=0.2)
    assert end["same"] is True and end["counts"] == [2, 2]
    assert conv.same_impacts([finest, finest[:2]], ["coarse", "fine"], t_end=0.3)["same"] is False


def test_energy_creation():
    assert conv.energy_creation(7.25, 7.29, 0.9) == {"created": False, "reasons": []}
    made = conv.energy_creation(7.40, 7.29, 0.9)
    assert made["created"] is True and "kinetic energy 7.4 J > potential-energy drop 7.29 J" in made["reasons"][0]
    made = conv.energy_creation(7.25, 7.29, -0.89)  # README: A's position-level contact gives back 0.89 J
    assert made["created"] is True and "contact work -0.89 J" in made["reasons"][0]
    assert conv.energy_creation(7.25, 7.29, -1e-9)["created"] is False  # round-off
    assert conv.energy_creation(7.29 * (1 + 1e-7), 7.29, 0.0)["created"] is False
    assert conv.energy_creation(None, None, None)["created"] is None
    # friction and the time scheme are books of energy taken too (SDNV105 A at 5e-5 s, before the
    # friction guard of fem.time.dynamics: friction gave back 0.127 J)
    made = conv.energy_creation(7.25, 7.29, 0.03, friction_work=-0.127)
    assert made["created"] is True and "friction work" in made["reasons"][0]
    made = conv.energy_creation(7.25, 7.29, 0.03, numerical_dissipation=-0.16)
    assert made["created"] is True and "time scheme" in made["reasons"][0]
    assert conv.energy_creation(7.25, 7.29, 0.03, friction_work=-1e-9, numerical_dissipation=-1e-12)["created"] is False
    # a dissipative scheme's book is judged with the damping's: HHT -0.1 on SDNV105 A (redistributed mass,
    # 1.25e-5 s) books -0.189 J for the scheme and 7.148 J for the damping: the two together take 6.96 J
    assert conv.energy_creation(7.289, 7.289, 0.03, numerical_dissipation=-0.189, damping=7.148)["created"] is False
    made = conv.energy_creation(7.25, 7.29, 0.03, numerical_dissipation=-0.3, damping=0.1)
    assert made["created"] is True and "together -0.2 J" in made["reasons"][0]


# =============================================================================== bad input
D = ["sdnv105d", "--dt", "2e-4", "1e-4"]
A = ["sdnv105a", "--dt", "2e-4", "1e-4"]
BAD_INPUT = [
    ([], ("CASE",)),
    (["--no-such-flag", "3"], ("--no-such-flag", "CASE must be the first argument")),
    (["sdnv105e", "--dt", "2e-4", "1e-4"], ("CASE 'sdnv105e'", "sdnv105a, sdnv105b, sdnv105c, sdnv105d")),
    (["sdnv105d"], ("--dt",)),
    (["sdnv105d", "--dt", "1e-4"], ("--dt needs at least 2",)),
    (["sdnv105d", "--dt", "1e-4", "-1e-4"], ("--dt must be > 0 s, got -0.0001",)),
    (["sdnv105d", "--dt", "0", "1e-4"], ("--dt must be > 0 s, got 0",)),
    (["sdnv105d", "--dt", "1e-4", "inf"], ("argument --dt: must be a finite number",)),
    (["sdnv105d", "--dt", "nan", "1e-4"], ("argument --dt: must be a finite number",)),
    (["sdnv105d", "--dt", "1e-4", "2e-4", "1.0e-4"], ("--dt: 0.0001 s is given twice",)),
    (["sdnv105d", "--dt", "1e-4", "sdnv105a"], ("argument --dt", "CASE comes first")),
    (A + ["--dt-fine", "1e-5"], ("--dt-fine: set by convergence.py",)),
    (["sdnv105b", "--dt", "2e-4", "1e-4", "--dt-fine=1e-5"], ("--dt-fine: set by convergence.py",)),
    (D + ["--dt-fine", "1e-5"], ("--dt-fine: set by convergence.py",)),  # d has none: refused all the same
    (["sdnv105c", "--dt", "2e-4", "1e-4", "--no-paraview"], ("--no-paraview: set by convergence.py",)),
    (A + ["--auto-steps"], ("--auto-steps: set by convergence.py",)),
    (A + ["--auto"], ("--auto-steps: set by convergence.py",)),  # the case's parser would expand it
    (D + ["--meshes", "reference", "8x16", "--mesh", "x.msh"], ("--mesh: set by convergence.py",)),
    (D + ["--meshes", "reference", "8x16", "--nx", "4", "--ny", "8"], ("--nx: set by convergence.py",)),
    (D + ["--meshes", "reference", "7x16"], ("--meshes 7x16", "even")),
    (D + ["--meshes", "reference", "fine"], ("--meshes: 'fine'",)),
    (D + ["--meshes", "8x16", "8x16"], ("--meshes: 8x16 is given twice",)),
    (D + ["--meshes", "reference"], ("--meshes needs at least 2",)),
    (D + ["--impacts", "0"], ("--impacts must be >= 1",)),
    (D + ["--jobs", "0"], ("--jobs must be >= 1",)),
    (D + ["--tilt-angle", "0.5"], ("--tilt-angle", "topples", "sdnv105d")),  # the case's own check
    (D + ["--mass", "redistributed"], ("unrecognized arguments: --mass redistributed", "sdnv105d")),
    (D + ["--mesh", "missing.msh"], ("--mesh missing.msh",)),
    (["sdnv105d", "--dt", "1e-9", "5e-10"], ("needs", "time steps", "--force")),
]


@pytest.mark.parametrize("argv, words", BAD_INPUT, ids=[" ".join(a) or "nothing" for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_exit_2_naming_the_flag(argv, words, tmp_path):
    code, out, err = run([*argv, "--out", "study"], tmp_path)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and err.endswith("\n") and lines[0].startswith("error: "), err
    assert all(w in lines[0] for w in words), lines[0]
    assert out == "" and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # nothing created: neither --out nor a mesh


def test_bad_input_as_processes(tmp_path):
    """The exit status the shell sees and a fresh interpreter's stderr, from another folder."""
    commands = {"controlled": ["sdnv105a", "--dt", "2e-4", "1e-4", "--no-paraview", "--out", "x"],
                "one dt": ["sdnv105d", "--dt", "1e-4"], "help": ["--help"]}
    procs = {k: subprocess.Popen([sys.executable, str(CASES / "convergence.py"), *a], cwd=tmp_path,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k, a in commands.items()}
    done = {k: (p.wait(timeout=120), *p.communicate()) for k, p in procs.items()}
    for key, flag in (("controlled", "error: --no-paraview: set by convergence.py"),
                      ("one dt", "error: --dt needs at least 2 time steps")):
        code, out, err = done[key]
        assert code == 2 and out == "" and err.startswith(flag) and err.count("\n") == 1, err
    code, out, err = done["help"]
    assert code == 0 and err == "" and out.startswith("usage: convergence.py CASE --dt X")
    for flag in ("--dt", "--meshes", "--impacts", "--out", "--reuse", "--jobs", "--quiet", "--force"):
        assert f"\n  {flag}" in out
    assert list(tmp_path.iterdir()) == []


# =============================================================================== the plan (nothing run)
def test_levels_from_the_coarsest_and_their_arguments(tmp_path):
    plan = conv.plan_study(["sdnv105a", "--mass", "redistributed", "--dt", "1.25e-5", "5e-5", "2.5e-5",
                            "--tilt-angle", "0.02", "--out", str(tmp_path / "s")])
    assert [lv.dt for lv in plan.levels] == [5e-5, 2.5e-5, 1.25e-5]
    assert [lv.name for lv in plan.levels] == ["dt_5e-05", "dt_2.5e-05", "dt_1.25e-05"]
    first = plan.levels[0]
    assert first.args == ["--mass", "redistributed", "--tilt-angle", "0.02", "--dt", "5e-05", "--dt-fine", "5e-05",
                          "--no-paraview", "--quiet", "--out", str(tmp_path / "s" / "dt_5e-05")]
    assert first.command == shlex.join(["python", "cases/sdnv105a.py", *first.args])
    assert plan.configuration == "custom" and plan.departures == ["--tilt-angle"] and plan.tilt_rule == "exact"
    # d: uniform steps of --dt, no --dt-fine; --force reaches every level; the pass-through order is kept
    plan = conv.plan_study(["sdnv105d", "--dt", "1e-4", "3e-4", "--theta", "0.6", "--t-end", "0.2", "--force"])
    assert [lv.dt for lv in plan.levels] == [3e-4, 1e-4] and plan.out == Path("results/convergence_sdnv105d")
    assert plan.levels[1].args == ["--theta", "0.6", "--t-end", "0.2", "--dt", "0.0001", "--no-paraview", "--quiet",
                                   "--out", "results/convergence_sdnv105d/dt_0.0001", "--force"]
    assert plan.configuration == "benchmark" and plan.departures == [] and plan.t_end == 0.2


@pytest.mark.parametrize("case, element, table, extra, rule", [
    ("sdnv105a", "quad", True, [], "code_aster"),
    ("sdnv105b", "triangle6", False, ["--width", "0.3", "--height", "0.9"], "exact"),
    ("sdnv105d", "quad", True, ["--tilt-rule", "exact"], None),
])
def test_mesh_levels(case, element, table, extra, rule, tmp_path):
    """NXxNY: a uniform block of NX x NY cells (QUA4 and the table for a, c, d; TRIA6, no table, for b)
    of the case's width and height; every mesh level gets the tilt rule the time levels resolve to
    (benchmark block: code_aster; another block: exact), unless --tilt-rule is passed through."""
    out = tmp_path / "s"
    plan = conv.plan_study([case, "--dt", "1e-4", "2e-4", *extra, "--meshes", "8x16", "reference", "4x4",
                            "--out", str(out)])
    assert not out.exists()
    conv.plan_meshes(plan, tmp_path / "gen")
    assert [lv.name for lv in plan.mesh_levels] == ["reference", "mesh_4x4", "mesh_8x16"]
    ref, coarse, fine = plan.mesh_levels
    assert ref.same_as is plan.levels[-1] and ref.out == plan.levels[-1].out and ref.h is None
    assert coarse.h == pytest.approx(1 / 4) and fine.h == pytest.approx(1 / math.sqrt(128))
    assert fine.dt == 1e-4 and fine.out == out / "mesh_8x16"
    i = fine.args.index("--mesh")
    assert fine.args[i + 1] == str(out / "meshes" / "8x16.msh")
    assert fine.args[:len(extra)] == extra and "--dt" in fine.args
    if rule is None:
        assert fine.args.count("--tilt-rule") == 1
    else:
        assert fine.args[fine.args.index("--tilt-rule") + 1] == rule
    mesh = read_mesh(tmp_path / "gen" / "8x16.msh")
    block = mesh.cell_groups["BLOCK"]
    assert block.cell_type == element and len(block.connectivity) == 8 * 16 * (1 if element == "quad" else 2)
    assert ("GROUN" in mesh.cell_groups) is table
    width, height = (0.3, 0.9) if extra[:1] == ["--width"] else (0.36, 0.80)
    np.testing.assert_allclose(np.ptp(mesh.points[mesh.nodes("BLOCK")], axis=0), [width, height], rtol=1e-12)
    for group in ("O", "A", "O1", "C1", "CONHAUT"):
        assert mesh.nodes(group).size >= 1


# =============================================================================== the command, with a stand-in case
FAKE_CASE = r'''
"""Stand-in for cases/sdnv105X.py: writes what a case writes (summary.json with impacts, energy,
rigid_body, run; history.csv with ke), from P(dt) given by FAKE_CONVERGENCE (JSON)."""
import json, os, shlex, signal, sys, time
from pathlib import Path

args = sys.argv[1:]
spec = json.loads(os.environ["FAKE_CONVERGENCE"])
out = Path(args[args.index("--out") + 1])
dt = float(args[args.index("--dt") + 1])
key = repr(dt)
out.mkdir(parents=True, exist_ok=True)
summary = {"case": spec["case"], "status": "running",
           "command": shlex.join(["python", "cases/" + spec["case"] + ".py", *args])}

def write():
    (out / "summary.json").write_text(json.dumps(summary))

def stop(signum, frame):
    summary["status"] = "interrupted"
    write()
    print("interrupted by " + signal.Signals(signum).name + " (status: interrupted)", file=sys.stderr)
    sys.exit(128 + signum)

signal.signal(signal.SIGINT, stop)
signal.signal(signal.SIGTERM, stop)
write()
with open(Path(spec["trace"]) / (key + ".start"), "w") as f:
    f.write(repr(time.time()))
time.sleep(spec.get("sleep", 0.0))
if key in spec.get("fail", []):
    summary.update(status="failed", message="Newton did not converge")
    write()
    print("error: the run failed: Newton did not converge (status: failed)", file=sys.stderr)
    sys.exit(1)
times, kes, corners = spec["times"], spec["kes"], "AOAOA"
impacts = [{"time": t + spec["ct"] * dt ** spec["p"] + spec.get("grow", 0.0) / dt, "corner": corners[k],
            "ke_before": e * (1 - spec["ce"] * dt ** spec["p"]), "ke_after": 0.5 * e}
           for k, (t, e) in enumerate(zip(times, kes)) if k not in spec.get("drop", {}).get(key, [])]
drop = 7.3
ke_max = drop * 1.01 if key in spec.get("create", []) else 7.28
summary.update(status="complete", impacts=impacts, configuration="benchmark",
               energy={"potential_drop": drop, "damping_dissipated": 0.1, "contact_work": 1.0,
                       "friction_work": 0.0, "numerical_dissipation": 0.3, "relative_error": 1e-6},
               rigid_body={"model": "rigid", "impact_times": times, "ke_before": kes,
                           "impact_corner": list(corners), "friction_demand": 0.32},
               run={"steps": int(0.33 / dt), "wall_s": 0.01, "newton_iterations": 1})
(out / "history.csv").write_text("t,ke\n0,0\n0.05," + repr(ke_max) + "\n0.1,1\n")
write()
print("SDNV105 stand-in done")
'''


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Make the command run the stand-in instead of the case: returns a function setting its
    behaviour (FAKE_CONVERGENCE) and the folder where it notes each level's start time."""
    script = tmp_path / "fake_case.py"
    script.write_text(FAKE_CASE)
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setattr(conv.LevelRunner, "script", lambda self, level: script)

    def configure(**spec):
        base = {"case": "sdnv105d", "times": RIGID_TIMES, "kes": RIGID_KE, "p": 1.0, "ct": 2.0, "ce": 50.0,
                "trace": str(trace)}
        monkeypatch.setenv("FAKE_CONVERGENCE", json.dumps({**base, **spec}))
        return trace

    return configure


def test_a_converging_study(fake, tmp_path):
    """instant t_k + 2 dt, KE_k (1 - 50 dt) at every level: first order, differences halve, the
    Richardson estimate is exact; the levels run from the coarsest whatever the order given."""
    fake()
    argv = ["sdnv105d", "--dt", "1e-4", "4e-4", "2e-4", "--t-end", "0.3", "--out", "study"]
    code, out, err = run(argv, tmp_path)
    assert code == 0, err
    folder = tmp_path / "study"
    s = strict_json(folder / "summary.json")
    assert s["status"] == "complete" and s["message"] is None and s["case"] == "convergence_sdnv105d"
    assert s["study_of"] == "sdnv105d" and s["command"] == shlex.join(["python", "cases/convergence.py", *argv])
    assert [lv["dt"] for lv in s["levels"]] == [4e-4, 2e-4, 1e-4]
    assert [lv["status"] for lv in s["levels"]] == ["complete"] * 3 and s["mesh"] is None
    assert s["levels"][0]["command"] == ("python cases/sdnv105d.py --t-end 0.3 --dt 0.0004 --no-paraview --quiet "
                                         "--out study/dt_0.0004")
    assert s["converged"] is True and s["same_impacts"] is True and s["energy_created"] == []
    assert len(s["time"]["impacts"]) == 5 and s["pass_through"] == ["--t-end", "0.3"]
    for k, row in enumerate(s["time"]["impacts"]):
        t = row["instant"]
        np.testing.assert_allclose(t["differences"], [-4e-4, -2e-4], rtol=1e-9)
        np.testing.assert_allclose(t["ratios"], [0.5], rtol=1e-9)
        np.testing.assert_allclose(t["orders"], [1.0], rtol=1e-7)
        assert t["richardson"][0] == pytest.approx(RIGID_TIMES[k], abs=1e-12)
        assert t["criterion"]["converged"] and row["ke_before"]["criterion"]["converged"]
        assert row["ke_before"]["richardson"][0] == pytest.approx(RIGID_KE[k], rel=1e-10)
    assert s["rigid_body"]["impact_times"] == RIGID_TIMES
    rows = {c["quantity"]: c for c in s["checks"]}
    assert rows["t(impact 5)"]["value"] == pytest.approx(RIGID_TIMES[4] + 2e-4)
    assert rows["t(impact 5)"]["rel_error"] == pytest.approx(2e-4 / RIGID_TIMES[4])
    assert all(c["passed"] for c in s["checks"]) and len(s["checks"]) == 10
    md = (folder / "convergence.md").read_text()
    assert "| level | dt [s] | mesh | status | t1 [s] | KE1 [J] |" in md and "| rigid block |" in md
    assert "**Verdict: converged" in md and s["command"] in md
    assert "python cases/sdnv105d.py --t-end 0.3 --dt 0.0001 --no-paraview --quiet --out study/dt_0.0001" in md
    assert md.strip() in out  # the same tables on stdout
    assert (folder / "convergence.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "dt_0.0004" in err and "complete, exit 0" in err  # a line per level without --quiet
    # --quiet: nothing on stderr
    code, out, err = run([*argv, "--quiet", "--reuse"], tmp_path)
    assert code == 0 and err == ""


def test_not_converged_is_a_result_and_a_missing_bounce_is_named(fake, tmp_path):
    """Differences that grow (t_k + 2e-7/dt: 0.5, 1, 2 ms) fail the criterion; the finest level
    misses the fourth impact: the same-impacts check names it. Exit 0: the verdict is a result."""
    fake(ct=0.0, grow=2e-7, drop={"0.0001": [3]})
    code, out, err = run(["sdnv105d", "--dt", "4e-4", "2e-4", "1e-4", "--out", "study", "--quiet"], tmp_path)
    assert code == 0 and err == ""
    s = strict_json(tmp_path / "study" / "summary.json")
    assert s["status"] == "complete" and s["converged"] is False and s["same_impacts"] is False
    first = s["time"]["impacts"][0]["instant"]
    np.testing.assert_allclose(first["differences"], [5e-4, 1e-3], rtol=1e-9)
    assert first["orders"] == [pytest.approx(-1.0)] and first["richardson"] == [None]
    assert first["criterion"]["converged"] is False
    # impact k is the k-th of each level: the finest level's fourth is the others' fifth (the rows
    # compare other events, which is what the same-impacts check says), and it has no fifth
    fourth, fifth = s["time"]["impacts"][3:]
    assert fourth["instant"]["values"][2] == pytest.approx(RIGID_TIMES[4] + 2e-3)
    assert fifth["instant"]["values"][2] is None and fifth["instant"]["criterion"]["converged"] is False
    assert "missing" in fifth["instant"]["criterion"]["reason"]
    diff = s["time"]["same_impacts"]["differences"]
    assert s["time"]["same_impacts"]["counts"] == [5, 5, 4]
    assert "dt_0.0004: an impact at 0.24074 s on O that dt_0.0001 does not make" in diff
    assert "dt_0.0002: an impact at 0.24124 s on O that dt_0.0001 does not make" in diff
    assert "NOT converged" in s["verdict"] and "not the same impacts" in s["verdict"]
    assert "**Verdict: NOT converged" in out and "Same impacts: **no**" in out


def test_a_failed_level_is_exit_1_and_the_others_still_run(fake, tmp_path):
    fake(fail=["0.0002"], create=["0.0001"])
    code, out, err = run(["sdnv105d", "--dt", "4e-4", "2e-4", "1e-4", "--out", "study", "--quiet"], tmp_path)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: level(s) failed: dt_0.0002 (exit 1, failed)")
    s = strict_json(tmp_path / "study" / "summary.json")
    assert s["status"] == "failed" and "dt_0.0002" in s["message"] and s["failed_levels"] == ["dt_0.0002"]
    assert [(lv["status"], lv["exit_code"]) for lv in s["levels"]] == [("complete", 0), ("failed", 1),
                                                                       ("complete", 0)]
    assert s["levels"][1]["message"] == "error: the run failed: Newton did not converge (status: failed)"
    assert "did not complete: dt_0.0002" in s["verdict"]
    # energy creation at the finest level: its kinetic energy exceeds the potential-energy drop
    assert s["energy_created"] == ["dt_0.0001"]
    assert s["levels"][2]["energy_creation"]["created"] is True and s["levels"][2]["ke_max"] == pytest.approx(7.373)
    assert "energy created at dt_0.0001" in s["verdict"]
    assert (tmp_path / "study" / "convergence.md").exists()


def test_reuse_and_jobs(fake, tmp_path):
    """--reuse: levels whose folder holds a complete summary of the same command are not run again;
    another command (here another --t-end) is. --jobs 2: two levels at once (the stand-in sleeps, it
    takes no processor), --jobs 1: one after the other."""
    trace = fake(sleep=0.5)
    argv = ["sdnv105d", "--dt", "4e-4", "2e-4", "--out", "study", "--quiet"]
    assert run([*argv, "--jobs", "2"], tmp_path)[0] == 0
    s = strict_json(tmp_path / "study" / "summary.json")
    (a, b) = s["levels"]
    assert a["started"] < b["finished"] and b["started"] < a["finished"]  # overlapping
    assert not a["reused"] and not b["reused"]
    for f in trace.iterdir():
        f.unlink()
    assert run([*argv, "--reuse", "--jobs", "1"], tmp_path)[0] == 0
    s = strict_json(tmp_path / "study" / "summary.json")
    assert all(lv["reused"] for lv in s["levels"]) and list(trace.iterdir()) == []  # nothing ran
    assert s["converged"] is None and "three levels" in s["verdict"]
    # another command: run again, one after the other
    assert run([*argv, "--reuse", "--jobs", "1", "--t-end", "0.3"], tmp_path)[0] == 0
    s = strict_json(tmp_path / "study" / "summary.json")
    (a, b) = s["levels"]
    assert not a["reused"] and not b["reused"] and a["finished"] <= b["started"]
    assert len(list(trace.iterdir())) == 2


def test_sigint_stops_the_running_levels_and_writes_what_was_computed(fake, tmp_path):
    """SIGINT while the second level runs (the first one is done): the level is sent SIGINT, records
    'interrupted' and ends; the study writes its summary (status interrupted) and exits 130."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    fake(sleep=0.0)
    argv = ["sdnv105d", "--dt", "4e-4", "2e-4", "--out", "study", "--quiet"]
    # the first level completes at once, the second sleeps until interrupted (FAKE per-level sleep
    # through another run: first make the first level's folder, then rerun with --reuse and a sleep)
    assert run(argv, tmp_path)[0] == 0
    fake(sleep=60.0)
    (tmp_path / "study" / "dt_0.0002" / "summary.json").unlink()
    timer = threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    start = time.monotonic()
    try:
        code, out, err = run([*argv, "--reuse"], tmp_path)
    finally:
        timer.cancel()
        timer.join()
    assert code == 130 and time.monotonic() - start < 30
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "interrupted by SIGINT" in lines[0] and "(status: interrupted)" in lines[0]
    s = strict_json(tmp_path / "study" / "summary.json")
    assert s["status"] == "interrupted" and "interrupted by SIGINT" in s["message"]
    first, second = s["levels"]
    assert first["reused"] and first["status"] == "complete"
    assert second["status"] == "interrupted" and second["exit_code"] == 130
    assert json.loads((tmp_path / "study" / "dt_0.0002" / "summary.json").read_text())["status"] == "interrupted"
    assert (tmp_path / "study" / "convergence.md").exists() and "Status: **interrupted**" in out


# =============================================================================== a real study (modeling D)
# python cases/convergence.py sdnv105d --t-end 0.07 --dt 1e-4 4e-4 2e-4 --impacts 1 --meshes reference 8x16
# measured (this machine, HEAD of 2024-11): first impact 0.0548 / 0.0546 / 0.0545 s on A (rigid 0.054411 s),
# KE before it 7.28923 / 7.28911 / 7.28905 J (rigid 7.29193 J), ratios 0.50 / 0.496, orders 1.00 / 1.01;
# mesh 8x16 at 1e-4: 0.0545 s, 7.28905 J (+3e-6 J); 4 levels, 21 s. No event before 0.01 s at any level
# (modeling d does not have the pivot's re-closing right after the release).
REAL = ["sdnv105d", "--t-end", "0.07", "--dt", "1e-4", "4e-4", "2e-4", "--impacts", "1", "--meshes", "reference",
        "8x16", "--quiet"]


@pytest.fixture(scope="module")
def real_study(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("real")
    start = time.monotonic()
    code, out, err = run([*REAL, "--out", "study"], cwd)
    return code, out, err, cwd / "study", time.monotonic() - start


def test_real_study_of_modeling_d(real_study):
    code, out, err, folder, seconds = real_study
    assert code == 0 and err == "", err
    s = strict_json(folder / "summary.json")
    assert s["status"] == "complete" and s["configuration"] == "benchmark" and s["study_of"] == "sdnv105d"
    assert [lv["name"] for lv in s["levels"]] == ["dt_0.0004", "dt_0.0002", "dt_0.0001"]
    assert all(lv["status"] == "complete" and lv["exit_code"] == 0 for lv in s["levels"] + s["mesh_levels"])
    for lv in s["levels"]:  # the level ran what its command says: uniform steps of its dt
        level = json.loads(Path(folder.parent / lv["out"]).joinpath("summary.json").read_text())
        assert level["parameters"]["dt"] == lv["dt"] and level["parameters"]["t_end"] == 0.07
        assert level["command"] == lv["command"] and lv["run"]["steps"] > 0
        assert all(i["time"] > 0.01 for i in lv["impacts"])  # see REAL: no early event at any level
        assert lv["energy"]["potential_drop"] > 7 and lv["energy"]["contact_work"] > 0
    assert s["same_impacts"] is True and s["time"]["same_impacts"]["corners"] == ["A"] * 3
    (row,) = s["time"]["impacts"]
    t, ke = row["instant"], row["ke_before"]
    # modeling d's impact is read at the step where the corner closes, the first step past the
    # event: the instant is the event rounded up to the step, so it moves by about a step between
    # levels, halving with dt (measured 0.2 ms then 0.1 ms: ratio 0.5). The KE before the impact,
    # the largest over the approach, is sampled on the steps too: first order (measured 0.496).
    # 0.75 leaves room for a difference that moves by part of a step while being far from 1 (no
    # convergence) and from the criterion's 0.6 by its own margin.
    assert t["ratios"][0] < 0.75 and ke["ratios"][0] < 0.75
    assert all(d < 0 for d in t["differences"])  # later at coarser steps: rounded up to the step
    assert 0.7 < ke["orders"][0] < 1.3
    assert t["criterion"]["converged"] and ke["criterion"]["converged"] and s["converged"] is True
    # within 0.5 % of the rigid block at the finest level (measured 0.16 % and 0.04 %: README, d
    # follows the rigid block within 0.2 %)
    rigid_t, rigid_ke = s["rigid_body"]["impact_times"][0], s["rigid_body"]["ke_before"][0]
    assert abs(t["values"][-1] / rigid_t - 1) < 5e-3 and abs(ke["values"][-1] / rigid_ke - 1) < 5e-3
    assert s["energy_created"] == [] and not any(lv["energy_creation"]["created"] for lv in s["levels"])
    for lv in s["levels"]:  # the kinetic energy never exceeds the potential-energy drop
        assert lv["ke_max"] < lv["energy"]["potential_drop"]
    md = (folder / "convergence.md").read_text()
    assert "| dt_0.0001 | 0.0001 | reference | complete | 0.0545" in md and s["command"] in md
    assert (folder / "convergence.png").stat().st_size > 10_000


def test_real_mesh_study_of_modeling_d(real_study):
    """--meshes reference 8x16 at the finest dt: the reference is the finest time level (not run
    again), 8x16 is a generated QUA4 block on its table, run with the benchmark's tilt rule (that of
    the reference mesh's run; a --mesh run would tilt by the exact rule otherwise). Measured: the same
    instant (a step), KE +3e-6 J."""
    code, out, err, folder, seconds = real_study
    s = strict_json(folder / "summary.json")
    ref, fine = s["mesh_levels"]
    assert ref["name"] == "reference" and ref["same_as"] == "dt_0.0001" and ref["out"] == s["levels"][-1]["out"]
    assert fine["name"] == "mesh_8x16" and fine["dt"] == 1e-4
    mesh = read_mesh(folder / "meshes" / "8x16.msh")
    assert mesh.cell_groups["BLOCK"].cell_type == "quad" and len(mesh.cell_groups["BLOCK"].connectivity) == 128
    level = json.loads((folder / "mesh_8x16" / "summary.json").read_text())
    assert (folder.parent / level["parameters"]["mesh"]).resolve() == (folder / "meshes" / "8x16.msh").resolve()
    assert level["parameters"]["tilt_rule"] == "code_aster" and level["tilt"]["passed"]
    m = s["mesh"]
    assert m["levels"] == ["reference", "mesh_8x16"] and m["converged"] is None  # two meshes: no verdict
    (row,) = m["impacts"]
    assert abs(row["instant"]["differences"][0]) <= 1e-4 + 1e-12  # a step at most
    assert abs(row["ke_before"]["differences"][0]) < 1e-3 * row["ke_before"]["values"][0]
    assert row["instant"]["orders"] == [] and m["h"][0] is None  # the reference layout has no h
    assert m["same_impacts"]["same"] is True and m["energy_created_levels"] == []
    assert "## Mesh, at dt = 0.0001 s" in (folder / "convergence.md").read_text()
    assert (folder / "convergence_mesh.png").exists()


def test_real_study_reuse(real_study):
    """--reuse runs no level again (its speed is a benchmark's business, not a timed assertion)."""
    code, out, err, folder, seconds = real_study
    before = strict_json(folder / "summary.json")
    code, out, err = run([*REAL, "--out", "study", "--reuse"], folder.parent)
    assert code == 0
    after = strict_json(folder / "summary.json")
    assert all(lv["reused"] for lv in after["levels"] + after["mesh_levels"])
    assert after["time"]["impacts"] == before["time"]["impacts"] and after["mesh"]["impacts"] == before["mesh"]["impacts"]


# =============================================================================== rows for tests/test_contract.py
# tests/test_contract.py finds every script of cases/ (cases/*.py but *_common.py), so it finds
# convergence.py, and its tables need a row for it (it fails at collection without: IMPOSSIBLE[s]
# raises KeyError). These are the rows; test_contract.py can take them with
#
#     from test_convergence import CONTRACT_FLAG_RUNS, CONTRACT_IMPOSSIBLE, CONTRACT_SHORT
#     SHORT["convergence"] = CONTRACT_SHORT
#     IMPOSSIBLE["convergence"] = CONTRACT_IMPOSSIBLE
#     FLAG_RUNS += [FlagRun("convergence", name, argv, check) for name, argv, check in CONTRACT_FLAG_RUNS]
#
# The run uses convergence.py's own flags only: the meta-test counts every "--" token of a run as a
# flag of the script (a pass-through --t-end would be "a flag the script does not have"), so the
# levels run d to its default end, 0.33 s, with coarse steps (4 ms, 2 ms: 12 s for the three levels);
# the steps are far too coarse for physics worth grading: the run is there for its flags.
CONTRACT_SHORT = (["sdnv105d", "--dt", "4e-3", "2e-3", "--meshes", "reference", "4x8", "--impacts", "2", "--reuse",
                   "--jobs", "1", "--quiet", "--force"], "benchmark")
CONTRACT_IMPOSSIBLE = [
    (["sdnv105d", "--dt", "1e-4"], ("--dt", "at least 2")),
    (["sdnv105d", "--dt", "1e-4", "-1e-4"], ("--dt", "must be > 0")),
    (["sdnv105d", "--dt", "1e-4", "inf"], ("argument --dt", "must be a finite number")),
    (["sdnv105d", "--dt", "1e-4", "1e-4"], ("--dt", "twice")),
    (["sdnv105e", "--dt", "2e-4", "1e-4"], ("CASE", "sdnv105e")),
    (["sdnv105a", "--dt", "2e-4", "1e-4", "--dt-fine", "1e-5"], ("--dt-fine",)),
    (["sdnv105a", "--dt", "2e-4", "1e-4", "--no-paraview"], ("--no-paraview",)),
    (["sdnv105a", "--dt", "2e-4", "1e-4", "--auto-steps"], ("--auto-steps",)),
    (["sdnv105d", "--dt", "2e-4", "1e-4", "--meshes", "reference", "8x16", "--mesh", "x.msh"], ("--mesh",)),
    (["sdnv105d", "--dt", "2e-4", "1e-4", "--meshes", "reference", "7x16"], ("--meshes", "even")),
    (["sdnv105d", "--dt", "2e-4", "1e-4", "--impacts", "0"], ("--impacts",)),
    (["sdnv105d", "--dt", "2e-4", "1e-4", "--jobs", "0"], ("--jobs",)),
    (["sdnv105d", "--dt", "2e-4", "1e-4", "--tilt-angle", "0.5"], ("--tilt-angle", "topples")),
]


def check_contract_run(result) -> None:
    """The contract's run of every flag (``result``: tests/test_contract.py's Result): --dt (the
    levels, coarsest first, each with uniform steps of its dt), --impacts 2 (two rows, a level that
    finds more), --meshes reference 4x8 (the generated 32-cell mesh run at the finest dt), --reuse
    (nothing to reuse in a fresh folder; run again, every level is reused), --jobs 1 (one level
    after the other), --quiet (nothing on stderr), --force (given to every level)."""
    assert result.code == 0 and result.err == "", result.err
    s = result.summary()
    assert s["status"] == "complete" and s["case"] == "convergence_sdnv105d"
    assert s["parameters"]["dt"] == [4e-3, 2e-3] and s["parameters"]["force"] is True
    assert [lv["dt"] for lv in s["levels"]] == [4e-3, 2e-3]
    for lv in s["levels"] + s["mesh_levels"]:
        assert lv["status"] == "complete" and lv["command"].endswith("--force") and not lv["reused"]
    for lv in s["levels"]:
        steps = np.diff(np.loadtxt(Path(lv["out"]) / "history.csv", delimiter=",", skiprows=1, usecols=0))
        np.testing.assert_allclose(steps[:-1], lv["dt"], rtol=1e-9)  # d: uniform steps of --dt
        assert 0 < steps[-1] <= lv["dt"] * (1 + 1e-9)  # the last one ends at 0.33 s
    assert len(s["time"]["impacts"]) == len(s["mesh"]["impacts"]) == 2
    assert [c["study"] for c in s["checks"]] == ["time step"] * 4 + ["mesh"] * 4
    assert max(lv["impacts_found"] for lv in s["levels"]) > 2 and all(len(lv["impacts"]) <= 2 for lv in s["levels"])
    ref, mesh = s["mesh_levels"]
    assert ref["same_as"] == "dt_0.002" and mesh["name"] == "mesh_4x8" and mesh["dt"] == 2e-3
    cells = read_mesh(result.folder / "meshes" / "4x8.msh").cell_groups["BLOCK"].connectivity
    assert len(cells) == 32 and s["mesh"]["levels"] == ["reference", "mesh_4x8"]
    windows = sorted((lv["started"], lv["finished"]) for lv in s["levels"] + [mesh])
    assert all(a[1] <= b[0] for a, b in zip(windows, windows[1:]))  # --jobs 1: never two at once
    code, out, err = run(result.argv, result.cwd)  # --reuse: the same command again
    assert code == 0 and err == ""
    again = result.summary()
    assert all(lv["reused"] for lv in again["levels"] + again["mesh_levels"])


CONTRACT_FLAG_RUNS = [("every-flag", tuple(CONTRACT_SHORT[0]), check_contract_run)]


@pytest.mark.slow
def test_contract_rows(tmp_path):
    """The rows above, run as tests/test_contract.py runs them (the folder holding an earlier run's
    files and a user's file; --out added; the memory check made to fail: the run goes on only
    because of --force)."""
    from fem.run import lifecycle as fem_run

    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "summary.json").write_text('{"status": "complete", "files": ["summary.json", "report.md"]}')
    (folder / "report.md").write_text("OLD")
    (folder / "notes.txt").write_text("mine")
    argv = [*CONTRACT_SHORT[0], "--out", str(folder)]
    saved = fem_run.available_memory
    fem_run.available_memory = lambda: 1
    try:
        code, out, err = run(argv, tmp_path)
        refused = run([a for a in argv if a != "--force"], tmp_path / "out")
    finally:
        fem_run.available_memory = saved
    assert refused[0] == 2 and "of memory available" in refused[2] and "--force" in refused[2]

    class Result:
        pass

    result = Result()
    result.code, result.out, result.err, result.folder, result.cwd, result.argv = code, out, err, folder, tmp_path, argv
    result.summary = lambda: json.loads((folder / "summary.json").read_text())
    check_contract_run(result)
    s = result.summary()
    assert s["command"] == shlex.join(["python", "cases/convergence.py", *argv]) and s["message"] is None
    assert s["configuration"] == CONTRACT_SHORT[1] and s["departures"] == []
    assert (folder / "notes.txt").read_text() == "mine" and (folder / "report.md").exists() is False
    for row in s["checks"]:
        assert {"quantity", "value", "rel_error", "reference_rigid"} <= set(row)
    for flags, words in CONTRACT_IMPOSSIBLE:
        code, out, err = run([*flags, "--out", "out2"], tmp_path)
        assert code == 2 and all(w in err for w in words) and err.count("\n") == 1, err
    assert not (tmp_path / "out2").exists()
