"""The public problem API (fem.problem, contact.laws; issue 28 item 1): a user's problem on their own
group names, run through its stages, watched and recorded.

Physics checked here:
* BodyRotation recovers a rigid rotation exactly (a rigid field is its own best fit).
* A rigid block on a rigid floor uplifts when the base's horizontal acceleration exceeds
  tan(alpha) (g + a_v): a vertical acceleration upward raises the threshold, downward lowers it
  (Housner 1963; Yim, Chopra and Penzien 1980). With b = 0.1, l = 0.2 (tan alpha = 1/2), a one-sine
  pulse A_h = 0.6 g: alone it lifts the block (0.6 > 0.5); with A_v = +0.3 g in phase the condition
  0.6 s > 0.5 (1 + 0.3 s) has no solution (s = sin(w t) <= 1): the block never lifts; with A_v = -0.3 g
  it lifts when 0.6 s > 0.5 (1 - 0.3 s), s > 2/3, earlier than alone (s > 5/6).
* The energy books close within 1 % of the input on a stack that rocks, slides and lands.
* A body that never left its base and ends at rest is decided "not overturned"; a run stopped early is
  undecided for the bodies that did not overturn.
"""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from contact.laws import Lagrange, Penalty
from contact.zone import RigidPlane
from fem.constants import GRAVITY
from fem.loads.base_motion import SinePulse, read_record
from fem.model.material import ElasticMaterial
from fem.problem import BaseMotion, Body, EventSteps, Pair, Preload, Problem, SelfWeight, Support, Uniform, simulate
from fem.problem.observe import BodyRotation
from fem.ranges import BadInput
from helpers import grid_mesh, rockfem_script

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
STONE = ElasticMaterial(young=3e10, poisson=0.2, density=2500.0, rayleigh_stiffness=1e-4)


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------------ observers
@pytest.mark.parametrize("theta, omega", [(0.0, 0.0), (0.3, 2.0), (-1.2, -0.7), (3.0, 5.0)])
def test_body_rotation_recovers_a_rigid_rotation(theta, omega):
    rng = np.random.default_rng(3)
    points = rng.uniform(-1, 1, size=(12, 2))
    nodes = np.arange(3, 12)
    c = points[nodes].mean(axis=0)
    R = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    shift = np.array([0.4, -2.0])
    x = (points - c) @ R.T + c + shift
    u = (x - points).ravel()
    v = (omega * np.column_stack([-(x - c - shift)[:, 1], (x - c - shift)[:, 0]]) + np.array([1.0, 3.0])).ravel()
    got_theta, got_omega = BodyRotation(points, nodes)(u, v)
    assert got_theta == pytest.approx(theta, abs=1e-12)
    assert got_omega == pytest.approx(omega, rel=1e-12, abs=1e-12)


# ------------------------------------------------------------------------------------------ one block
def _block_on_floor(law=None) -> Problem:
    mesh = grid_mesh(4, 8, width=0.2, height=0.4)
    return Problem(mesh, bodies=[Body("BLOCK", STONE)],
                   pairs=[Pair("BASE", RigidPlane((0.0, 0.0), (0.0, 1.0)), law or Lagrange(mu=0.9))],
                   mass="redistributed")


def _uplift(outcome) -> float | None:
    h = outcome.history
    lifted = np.flatnonzero(h["max_gap[BASE/plane]"] > 1e-6)
    return float(h["t"][lifted[0]]) if lifted.size else None


@pytest.fixture(scope="module")
def pulses():
    """The block under the horizontal pulse alone, with the vertical one up, and down."""
    w = 2.0
    out = {}
    for name, av in (("alone", None), ("up", 0.3), ("down", -0.3)):
        stage = BaseMotion(0.18, x=SinePulse(0.6 * GRAVITY, w),
                           y=None if av is None else SinePulse(av * GRAVITY, w))
        out[name] = simulate(_block_on_floor(), [Preload(), stage], steps=EventSteps(dt=1e-3, dt_fine=1e-4))
    return out


def test_a_vertical_acceleration_moves_the_uplift_threshold(pulses):
    """Uplift when A_h sin(wt) > tan(alpha) (g + A_v sin(wt)) (module docstring). The FE onset (a base
    node 1e-6 m off the floor) follows the rigid-block instant by the time the rocking takes to lift a
    corner that far from rest: theta grows as the cube of the time since the threshold,
    theta = (3 l / (4 R^2)) (dA/dt) tau^3 / 6 for a rectangle (I_O = 4 m R^2 / 3), so a 1e-6 m lift
    over the 0.2 m base takes tau of a few ms; the onset must lie in [t_u, t_u + 3 tau]."""
    w, b, l = 2 * math.pi * 2.0, 0.1, 0.2
    assert _uplift(pulses["up"]) is None
    assert pulses["up"].bodies["BLOCK"]["max_rotation"] < 1e-5  # elastic rocking on its base only
    for name, s in (("alone", 5.0 / 6.0), ("down", 2.0 / 3.0)):
        av = {"alone": 0.0, "down": -0.3}[name] * GRAVITY
        t_u = math.asin(s) / w
        rate = (0.6 * GRAVITY - 0.5 * av) * w * math.cos(w * t_u)  # d/dt of a_h - tan(alpha) a_v at t_u
        tau = (6 * 1e-6 / (2 * b) * 4 * (b * b + l * l) / (3 * l * rate)) ** (1 / 3)
        onset = _uplift(pulses[name])
        assert onset is not None and t_u <= onset <= t_u + 3 * tau, (name, t_u, tau, onset)
    assert _uplift(pulses["down"]) < _uplift(pulses["alone"])


def test_a_block_that_never_lifted_is_undecided_while_the_rest_of_its_pulse_would_lift_it(pulses):
    """The run stops at 0.18 s, inside the one-sine pulses (they last 0.5 s). Their negative half, a_h =
    -0.6 g with a_v = -0.3 g, lifts the block about its other corner (Housner: 0.6 g > tan(alpha) (g - 0.3 g)
    = 0.35 g): nothing proves it survives, so the verdict is undecided, never "no" (fem.problem.verdicts).
    The same block cut off once the pulses have ended, at rest: "no"."""
    up = pulses["up"]
    assert up.status == "complete" and up.t_reached == pytest.approx(0.18, abs=1e-12)
    assert up.bodies["BLOCK"]["uplift_time"] is None and up.impacts == []
    assert up.bodies["BLOCK"]["overturned"] is None
    assert "still moves" in up.bodies["BLOCK"]["overturn_verdict"]["reason"]
    small = simulate(_block_on_floor(), [Preload(), BaseMotion(0.06, x=SinePulse(0.2 * GRAVITY, 20.0))],
                     steps=EventSteps(dt=1e-3, dt_fine=1e-4))  # 0.2 g < g tan(alpha) = 0.5 g, ended at 0.05 s
    assert small.bodies["BLOCK"]["overturned"] is False and small.impacts == []
    for o in pulses.values():
        assert o.energy["relative_error"] <= 0.01
        assert o.checks and all(c["within_tolerance"] for c in o.checks)


def test_penalty_law_on_the_same_block_lifts_at_the_same_threshold():
    """The shock springs (stiff: 1e10 N/m a node) give the same threshold as Lagrange: no uplift with
    the vertical pulse up, uplift without it."""
    law = Penalty(normal_stiffness=1e10, tangential_stiffness=1e10, mu=0.9)
    steps = EventSteps(dt=1e-3, dt_fine=1e-4)
    up = simulate(_block_on_floor(law), [Preload(), BaseMotion(0.15, x=SinePulse(0.6 * GRAVITY, 2.0),
                                                                y=SinePulse(0.3 * GRAVITY, 2.0))], steps=steps)
    alone = simulate(_block_on_floor(law), [Preload(), BaseMotion(0.15, x=SinePulse(0.6 * GRAVITY, 2.0))],
                     steps=steps)
    assert _uplift(up) is None and _uplift(alone) is not None


# ------------------------------------------------------------------------------------------ refusals
@pytest.mark.parametrize("change, words", [
    (dict(bodies=[Body("BLOK", STONE)]), "bodies.BLOK.group: the mesh has no surface group 'BLOK'"),
    (dict(pairs=[Pair("BASSE", RigidPlane((0, 0), (0, 1)), Lagrange())]), "pairs.BASSE/plane.slave"),
    (dict(pairs=[Pair("BASE", "TOPP", Lagrange())]), "pairs.BASE/TOPP.master"),
    (dict(supports=[Support("BASE", ("z",))]), "supports: 'BASE': components"),
    (dict(mass="heavy"), "mass: 'heavy'"),
    (dict(gravity=-9.81), "gravity"),
    (dict(pairs=[Pair("BASE", RigidPlane((0, 0), (0, 1)), "lagrange")]), "pairs: a law must be one of contact.laws"),
])
def test_a_wrong_problem_is_refused_naming_the_key(change, words, tmp_path):
    mesh = grid_mesh(2, 2, width=0.2, height=0.4)
    args = dict(mesh=mesh, bodies=[Body("BLOCK", STONE)], pairs=[Pair("BASE", RigidPlane((0, 0), (0, 1)), Lagrange())])
    out = tmp_path / "out"
    with pytest.raises(BadInput, match=None) as err:
        simulate(Problem(**{**args, **change}), [Preload(), BaseMotion(0.01)], out=out, steps=Uniform(1e-3))
    assert words in str(err.value) and "\n" not in str(err.value)
    assert not out.exists()  # refused before anything was written


def test_a_missing_mesh_file_is_refused_naming_it(tmp_path):
    with pytest.raises(BadInput, match="mesh: no such file"):
        simulate(Problem(tmp_path / "nope.msh", bodies=[Body("B", STONE)]), [BaseMotion(0.01)])


# ------------------------------------------------------------------------------------------ the stack
def _short_record(path: Path) -> Path:
    """0.5 s of a two-component record: a one-sine pulse of 1.2 g at 2.5 Hz, horizontal, and 0.3 g at
    5 Hz, vertical, sampled every 5 ms (columns t, a_h, a_v [m/s^2])."""
    t = np.arange(0.0, 0.5 + 1e-9, 0.005)
    h = np.where(t <= 0.4, 1.2 * GRAVITY * np.sin(2 * np.pi * 2.5 * t), 0.0)
    v = np.where(t <= 0.2, 0.3 * GRAVITY * np.sin(2 * np.pi * 5.0 * t), 0.0)
    np.savetxt(path, np.column_stack([t, h, v]), delimiter=",", header="t,ah,av", comments="")
    return path


BRICKS = ["PLINTH", "BRICK_1", "BRICK_2", "BRICK_3"]

#: the same problem as test_three_bricks_on_a_plinth_under_a_two_component_record states in Python
BRICKS_TOML = """\
mesh = "bricks.msh"
mass = "redistributed"
bodies = [{ group = "FLOOR", material = "table" }, { group = "PLINTH", material = "stone" },
          { group = "BRICK_1", material = "stone" }, { group = "BRICK_2", material = "stone" },
          { group = "BRICK_3", material = "stone" }]
supports = [{ group = "FLOOR_BASE" }]
pairs = [{ slave = "PLINTH_BOTTOM", master = "FLOOR_TOP", law = "lagrange", mu = 0.7 },
         { slave = "BRICK_1_BOTTOM", master = "PLINTH_TOP", law = "lagrange", mu = 0.7 },
         { slave = "BRICK_2_BOTTOM", master = "BRICK_1_TOP", law = "lagrange", mu = 0.7 },
         { slave = "BRICK_3_BOTTOM", master = "BRICK_2_TOP", law = "lagrange", mu = 0.7 }]

[materials]
stone = { young = 3e10, poisson = 0.2, density = 2500.0, rayleigh_stiffness = 1e-4 }
table = { young = 3e12, poisson = 0.2, density = 2500.0, rayleigh_stiffness = 1e-4 }

[[stages]]
kind = "preload"

[[stages]]
kind = "base_motion"
duration = 0.5
x = { record = "record.csv", column = 1 }
y = { record = "record.csv", column = 2 }
"""


@pytest.fixture(scope="module")
def bricks(tmp_path_factory):
    """The three-brick stack stated in Python, run: (folder with the mesh and the record, outcome). A mesh
    of h = 0.2 m (the example's 0.1 m takes twice as long and rocks the same way: 17 impacts, not 15)."""
    folder = tmp_path_factory.mktemp("bricks")
    mesh = _module(EXAMPLES / "bricks_on_plinth_mesh.py").write_mesh(folder / "bricks.msh", h=0.2)
    record = _short_record(folder / "record.csv")
    problem = Problem(mesh, mass="redistributed",
                      bodies=[Body("FLOOR", ElasticMaterial(3e12, 0.2, 2500.0, 1e-4))] + [Body(g, STONE) for g in BRICKS],
                      supports=[Support("FLOOR_BASE")],
                      pairs=[Pair(f"{top}_BOTTOM", f"{below}_TOP", Lagrange(mu=0.7))
                             for top, below in zip(BRICKS, ["FLOOR"] + BRICKS[:-1])])
    stage = BaseMotion(0.5, x=read_record(record, column=1), y=read_record(record, column=2))
    return folder, simulate(problem, [Preload(), stage], out=folder / "python")


def test_three_bricks_on_a_plinth_under_a_two_component_record(bricks):
    """The user's geometry (examples/bricks_on_plinth_mesh.py, their group names), Lagrange contact with
    friction at every joint, horizontal and vertical records together, run to the record's end: impacts
    found, every body's rotation in the history, the energy books within 1 % of the input, a report."""
    folder, outcome = bricks
    out = folder / "python"
    assert outcome.status == "complete", outcome.message
    assert outcome.t_reached == pytest.approx(0.5, abs=1e-9)
    assert outcome.impacts and all(0 < i["time"] <= 0.5 for i in outcome.impacts)
    for body in ["FLOOR"] + BRICKS:
        assert np.all(np.isfinite(outcome.history[f"theta[{body}]"]))
    assert outcome.bodies["BRICK_3"]["max_rotation"] > 1e-3  # the top brick rocked
    assert outcome.energy["relative_error"] <= 0.01
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["checks_met"] == summary["checks_graded"]
    graded = {c["quantity"] for c in summary["checks"]}  # the books, each pair's penetration (every run's)
    assert {"energy books error / input"} | {f"penetration[{p}] / contact element size" for p in summary["pairs"]} <= graded
    assert sorted(summary["files"]) == sorted(p.name for p in out.iterdir() if p.name != ".rockfem.lock")
    report = (out / "report.md").read_text()
    assert all(b in report for b in BRICKS) and "Energy books" in report


def test_the_same_stack_in_toml_gives_the_same_run(bricks):
    """The problem as a TOML file of at most 40 lines, run by `rockfem run`: exit 0 and the very same
    history as the Python statement of it (the two fronts build one problem)."""
    import subprocess

    folder, _ = bricks
    assert len(BRICKS_TOML.splitlines()) <= 40
    (folder / "bricks.toml").write_text(BRICKS_TOML)
    proc = subprocess.run([rockfem_script(), "run", str(folder / "bricks.toml"), "--out", str(folder / "toml"), "--quiet"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert (folder / "toml" / "history.csv").read_text() == (folder / "python" / "history.csv").read_text()
    summary = json.loads((folder / "toml" / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["impacts"]


def test_the_python_example_is_short():
    """The README's Python example states the whole problem in at most 40 lines."""
    assert len((EXAMPLES / "bricks_on_plinth.py").read_text().splitlines()) <= 40


@pytest.mark.slow
def test_the_python_example_is_the_toml_example(tmp_path):
    """examples/bricks_on_plinth.py and examples/bricks_on_plinth.toml state one problem: their first 0.3 s
    (the shake cut short in both) give the same history to the byte. The TOML file's whole run is
    test_rockfem_runs_each_example_file's; the Python file's __main__ only adds its output folder and a line."""
    import dataclasses
    import subprocess

    example = _module(EXAMPLES / "bricks_on_plinth.py")
    shake = dataclasses.replace(example.shake, duration=0.3)
    outcome = simulate(example.problem, [Preload(), shake], out=tmp_path / "python", steps=example.steps)
    assert outcome.status == "complete", outcome.message
    proc = subprocess.run([rockfem_script(), "run", str(EXAMPLES / "bricks_on_plinth.toml"), "--out", str(tmp_path / "toml"),
                           "--set", "stages.shake.duration=0.3", "--quiet"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "toml" / "history.csv").read_text() == (tmp_path / "python" / "history.csv").read_text()


def test_a_failed_run_says_so_and_keeps_what_it_computed(tmp_path):
    """Newton held to an impossible tolerance in one iteration: the run fails at its first dynamic step
    (after the step cuts), its outcome and summary.json say "failed" with Newton's message, and the
    history written before the failure (the stage's initial state) is on disk and in the outcome."""
    from fem.stage.phase import NewtonSettings

    out = tmp_path / "out"
    outcome = simulate(_block_on_floor(), [Preload(), BaseMotion(0.05, x=SinePulse(0.6 * GRAVITY, 2.0))], out=out,
                       newton=NewtonSettings(rela=1e-30, maxi=1e-30, max_iterations=1), steps=Uniform(1e-3))
    assert outcome.status == "failed" and "Newton did not converge" in outcome.message
    assert outcome.stage == "base motion" and outcome.history["t"][0] == 0.0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed" and "Newton" in summary["message"]
    assert (out / "history.csv").read_text().count("\n") >= 2  # header and the initial state


def test_two_base_motion_stages_keep_both_histories(tmp_path):
    """A pulse, then the table still: the second stage continues the first (no release), and each stage
    has its own history file (history.csv, history_2.csv), neither overwritten."""
    out = tmp_path / "out"
    first, second = BaseMotion(0.05, x=SinePulse(0.3 * GRAVITY, 10.0), name="pulse"), BaseMotion(0.05, name="still")
    outcome = simulate(_block_on_floor(), [Preload(), first, second], out=out, steps=Uniform(1e-3))
    assert outcome.status == "complete" and outcome.t_reached == pytest.approx(0.1, abs=1e-12)
    for name, (t0, t1) in (("history.csv", (0.0, 0.05)), ("history_2.csv", (0.05, 0.1))):
        t = np.loadtxt(out / name, delimiter=",", skiprows=1, usecols=0)
        assert t[0] == pytest.approx(t0, abs=1e-12) and t[-1] == pytest.approx(t1, abs=1e-12)


def test_a_group_given_to_two_bodies_is_refused():
    mesh = grid_mesh(2, 2, width=0.2, height=0.4)
    with pytest.raises(BadInput, match="bodies: the group 'BLOCK' is given to two bodies"):
        Problem(mesh, bodies=[Body("BLOCK", STONE), Body("BLOCK", STONE, name="again")])


@pytest.mark.slow
@pytest.mark.parametrize("example", ["bricks_on_plinth.toml", "stack_of_two.toml", "two_masses_buckling.toml",
                                     "block_on_table_pulse.toml"])
def test_rockfem_runs_each_example_file(example, tmp_path):
    """`rockfem run examples/<file>` to its end: exit 0, complete, the books within 1 %, at most 40 lines."""
    import subprocess

    assert len((EXAMPLES / example).read_text().splitlines()) <= 40
    proc = subprocess.run([rockfem_script(), "run", str(EXAMPLES / example), "--out", str(tmp_path / "out"), "--quiet"],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["energy"]["relative_error"] <= 0.01


def test_a_wall_clock_monitor_stops_the_run_early_and_says_so(tmp_path):
    """A WallClock on a fake clock that passes its limit at the 20th step: the run stops there,
    "interrupted" with the limit as its message, its bodies undecided, everything before on disk."""
    from fem.problem.observe import WallClock

    ticks = iter(range(10**6))
    clock = WallClock(20.0, clock=lambda: float(next(ticks)))
    out = tmp_path / "out"
    outcome = simulate(_block_on_floor(), [Preload(), BaseMotion(0.1, x=SinePulse(0.3 * GRAVITY, 10.0))], out=out,
                       steps=Uniform(1e-3), monitors=(clock,))
    assert outcome.status == "interrupted" and outcome.message.startswith("wall-clock limit of 20 s reached")
    assert outcome.t_reached == pytest.approx(0.02, abs=1e-12)  # the clock's 20th reading after its start
    assert outcome.bodies["BLOCK"]["overturned"] is None
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["t_reached"] == pytest.approx(0.02, abs=1e-12)


def test_a_self_weight_stage_settles_the_block_on_its_weight():
    """SelfWeight: gravity ramped dynamically onto a block held on its base (DY) and at a corner (DX);
    held long after the ramp, with stiffness damping, the block is at rest: the base's reaction is its
    weight m g (static equilibrium, to 1e-8), and a stage that ends before its ramp is refused only if it
    ends before it starts."""
    from fem.stage.phase import NewtonSettings

    mesh = grid_mesh(2, 4, width=0.2, height=0.4)
    problem = Problem(mesh, bodies=[Body("BLOCK", STONE)], supports=[Support("BASE", ("y",)), Support("O", ("x",))])
    outcome = simulate(problem, [SelfWeight(-1.0, -0.8, 0.0)], steps=Uniform(5e-3), alpha=-0.3,
                       newton=NewtonSettings(rela=1e-10, maxi=None, max_iterations=40))
    assert outcome.status == "complete" and outcome.t_reached == pytest.approx(0.0, abs=1e-12)
    weight = 2500.0 * 0.2 * 0.4 * GRAVITY
    base = 2 * mesh.nodes("BASE") + 1
    assert float(outcome.state.reactions[base].sum()) == pytest.approx(weight, rel=1e-8)
    SelfWeight(-1.0, -0.5, -0.9)  # ends before its ramp: a short run, accepted
    with pytest.raises(BadInput, match="start before ramp_end and before end"):
        SelfWeight(-1.0, -0.5, -1.0)
