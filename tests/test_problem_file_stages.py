"""The stages of a problem file in time (cases/problem_file/__init__.py): tilt, imposed_motion, release and the
self-weight's friction and newton, read into fem.problem's Tilt, ImposedMotion, Release, SelfWeight; the
steps of each stage its own ([steps.<stage name>]: events, uniform with its alpha and theta, windows);
``[scheme] alpha_fine``. The scene is SDNV105's (examples/sdnv105_block.toml, on the checked-in mesh).

* reading: each stage kind and steps kind into its dataclass with every field the file states;
  ``rockfem``'s estimate counts each stage's steps with its own spec;
* refusals: each mistake one line naming the file, the line and the dotted key (the library's
  refusals of the new stages too);
* ``rockfem run examples/sdnv105_block.toml``: exit 0, and the block released from a 0.05 rad tilt lands
  within 0.5 % of the rigid block's first impact (contact.references.rocking), the tolerance of
  tests/test_problem_stages.py's test of the same run stated in Python.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cases.problem_file import load
from contact.laws import Lagrange
from contact.references import rocking
from fem.loads.applied import ImposedDisplacement
from fem.loads.functions import PiecewiseLinear
from fem.model.material import ElasticMaterial
from fem.problem import (Body, EventSteps, ImposedMotion, Pair, Release, SelfWeight, Support, Tilt, Uniform, Windows,
                         simulate)
from fem.problem.definition import load_mesh
from fem.problem.simulate import ALPHA, ALPHA_FINE
from fem.ranges import BadInput
from fem.stage.phase import NewtonSettings
from meshes.generate import reference_mesh_path
from test_problem_file import ENV, ROCKFEM, edited, line_of, refusal  # the file's helpers: one line a refusal

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "sdnv105_block.toml"
B, L, RHO, G = 0.18, 0.40, 1450.0, 9.81  # the block's half width, half height [m], density, gravity

#: the example's problem and stages written in tmp_path beside a copy of the mesh (the stages' lines kept apart)
HEAD = EXAMPLE.read_text().split("[[stages]]", 1)[0].replace("../meshes/sdnv105_quad4.msh", "block.msh")
SELF_WEIGHT = """\
[[stages]]  # self-weight
kind = "self_weight"
start = -1.95
ramp_end = -1.65
end = -0.825
hold = [{ group = "O1", components = ["x"] }]
friction = 0.0
newton = { rela = 1e-6, maxi = 2e-3, max_iterations = 40 }

"""
TILT = """\
[[stages]]  # tilt
kind = "tilt"
start = -1.05
end = 0.0
angle = 0.05
nodes = ["C1", "O1"]
pivot = "O"
ramp = { times = [-1.05, -0.5], values = [0.0, 1.0] }
newton = { rela = 1e-5, max_iterations = 30 }

"""
PUSH = """\
[[stages]]  # push
kind = "imposed_motion"
name = "push"
start = -1.05
end = 0.0
motions = [{ group = "C1", component = "x", value = -0.008, ramp = { times = [-1.05, -0.5], values = [0, 1] } },
           { group = "C1", component = "y", value = 0.0 }]
hold = [{ group = "O", components = ["x", "y"] }]
friction = 0.5
newton = { maxi = 1e-4 }

"""
RELEASE = """\
[[stages]]  # release
kind = "release"
end = 0.2
friction = 0.8
newton = { rela = 1e-6, maxi = 1e-4, max_iterations = 40 }

"""
STEPS = """\
[steps.self-weight]
kind = "uniform"
dt = 0.0075
alpha = -0.3

[steps.tilt]
kind = "uniform"
dt = 0.0075
alpha = -0.6
theta = 0.6

[steps.release]
kind = "windows"
rows = [[0.0, 0.0025, 2.5e-5, -0.1, true],
        [0.0025, 1.0, 1.25e-3, 0.0, false, true]]
refine_dt = 2.5e-5
watch = ["O", "A"]
settle = false
archive_every = 5

[scheme]
alpha_fine = -0.2
"""
BLOCK = HEAD + SELF_WEIGHT + TILT + RELEASE + STEPS


def write(folder: Path, text: str = BLOCK) -> Path:
    shutil.copy(reference_mesh_path("sdnv105_quad4"), folder / "block.msh")
    path = folder / "block.toml"
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------------- reading
def test_the_example_states_sdnv105_modeling_a_in_at_most_60_lines():
    """examples/sdnv105_block.toml gives the problem and stages of tests/test_problem_stages.py (tilt 0.05 rad,
    released to 0.2 s), its steps and alpha_fine."""
    assert len(EXAMPLE.read_text().splitlines()) <= 60
    pf = load(EXAMPLE)
    p = pf.problem
    assert p.mesh.resolve() == reference_mesh_path("sdnv105_quad4").resolve() and p.gravity == G
    assert p.bodies == (Body("BLOCK", ElasticMaterial(6e11, 0.2, RHO, rayleigh_stiffness=1e-4)),
                        Body("GROUN", ElasticMaterial(1e14, 0.3, 2500.0, rayleigh_stiffness=1.6e-3)))
    assert p.supports == (Support("CTGROUND", ("y",)), Support("S1", ("x",)))
    assert p.pairs == (Pair("CONHAUT", "CONBAS", Lagrange(mu=0.9), name="base"),)
    assert pf.stages == (
        SelfWeight(-1.95, -1.65, -0.825, hold=[Support("O1", ("x",))], friction=0.0,
                   newton=NewtonSettings(rela=1e-6, maxi=2e-3, max_iterations=40)),
        Tilt(0.0, 0.05, nodes=("C1", "O1"), pivot="O", ramp=PiecewiseLinear((-1.05, -0.5), (0.0, 1.0)), start=-1.05,
             newton=NewtonSettings(rela=1e-5, max_iterations=30)),
        Release(0.2, newton=NewtonSettings(rela=1e-6, maxi=1e-4, max_iterations=40)))
    assert pf.steps == {"self-weight": Uniform(0.0075, alpha=-0.3), "tilt": Uniform(0.0075, alpha=-0.6),
                        "release": EventSteps(dt=1e-3, dt_fine=1e-4)}
    assert (pf.alpha, pf.alpha_fine, pf.theta) == (ALPHA, -0.2, 0.55)


def test_each_stage_kind_and_steps_kind_reads_into_its_dataclass(tmp_path):
    pf = load(write(tmp_path, HEAD + SELF_WEIGHT + PUSH + RELEASE + STEPS.replace("[steps.tilt]", "[steps.push]")))
    push, release = pf.stages[1:]
    assert push == ImposedMotion(0.0, motions=(
        ImposedDisplacement("C1", "x", -0.008, PiecewiseLinear((-1.05, -0.5), (0.0, 1.0))),
        ImposedDisplacement("C1", "y", 0.0)), start=-1.05, hold=(Support("O", ("x", "y")),), friction=0.5,
        newton=NewtonSettings(maxi=1e-4), name="push")
    assert push.motions[1].function(0.3) == 1.0  # no ramp: constant
    assert release == Release(0.2, friction=0.8, newton=NewtonSettings(rela=1e-6, maxi=1e-4, max_iterations=40))
    assert pf.steps == {
        "self-weight": Uniform(0.0075, alpha=-0.3), "push": Uniform(0.0075, alpha=-0.6, theta=0.6),
        "release": Windows([(0.0, 0.0025, 2.5e-5, -0.1, True), (0.0025, 1.0, 1.25e-3, 0.0, False, True)],
                           refine_dt=2.5e-5, watch=("O", "A"), settle=False, archive_every=5)}
    # a stage named in the file, a stage's steps and a stage picked by its kind, all by --set
    named = load(write(tmp_path, edited(BLOCK, ('kind = "tilt"', 'kind = "tilt"\nname = "turn"'),
                                        ("[steps.tilt]", "[steps.turn]"))),
                 [("stages.release.end", "0.14"), ("steps.turn.dt", "5e-3"), ("stages.turn.angle", "0.1")])
    assert [s.name for s in named.stages] == ["self-weight", "turn", "release"]
    assert (named.stages[1].angle, named.stages[2].end) == (0.1, 0.14)
    assert named.steps["turn"] == Uniform(5e-3, alpha=-0.6, theta=0.6)
    # one [steps] table for every stage, as before
    single = load(write(tmp_path, HEAD + SELF_WEIGHT + TILT + RELEASE + '[steps]\nkind = "uniform"\ndt = 1e-3\n'))
    assert single.steps == Uniform(1e-3) and single.alpha_fine == ALPHA_FINE


def test_the_estimate_counts_each_stage_with_its_own_steps(tmp_path):
    """The self-weight's 1.125 s and the tilt's 1.05 s (from its own start) in steps of 7.5 ms; the release's
    0.2 s in steps of 1 ms, or in its windows: 2.5 ms of 25 us, 197.5 ms of 1.25 ms."""
    pf = load(EXAMPLE)
    mesh = load_mesh(pf.problem.mesh)
    assert pf.estimate(mesh).steps == 150 + 140 + 200
    assert load(write(tmp_path)).estimate(mesh).steps == 150 + 140 + 100 + 158


# ----------------------------------------------------------------------------------- refusals
MISTAKES = [  # id, edits of BLOCK, the key, a marker of its line, words
    ("tilt unknown key", [("angle = 0.05", "angle = 0.05\nangel = 0.05")], "stages[1].angel", "angel",
     "unknown key (known: kind, name, start, end, angle, nodes, pivot, ramp, hold, friction, contact_events, newton)"),
    ("tilt nodes a string", [('nodes = ["C1", "O1"]', 'nodes = "C1"')], "stages[1].nodes", "nodes =",
     'expected a list of node group names (e.g. ["C1", "O1"]), got "C1"'),
    ("tilt nodes not strings", [('nodes = ["C1", "O1"]', 'nodes = ["C1", 2]')], "stages[1].nodes", "nodes =",
     'expected a list of node group names (e.g. ["C1", "O1"]), got ["C1", 2]'),
    ("tilt angle (Tilt)", [("angle = 0.05", "angle = 2.0")], "stages[1].angle", "angle =",
     "a number of radians in (-pi/2, pi/2), got 2.0"),
    ("tilt ramp times", [("times = [-1.05, -0.5]", "times = [-0.5, -1.05]")], "stages[1].ramp.times", "ramp =",
     "expected strictly increasing times [s], got [-0.5, -1.05]"),
    ("tilt ramp missing", [("ramp = { times = [-1.05, -0.5], values = [0.0, 1.0] }\n", "")], "stages[1].ramp",
     "]  # tilt", "missing (expected { times = [t0, t1, ...], values = [v0, v1, ...] })"),
    ("tilt newton key", [("max_iterations = 30", "iterations = 30")], "stages[1].newton.iterations", "iterations = 30",
     "unknown key (known: rela, maxi, max_iterations, predictor)"),
    ("tilt newton predictor", [("max_iterations = 30", 'max_iterations = 30, predictor = "linear"')],
     "stages[1].newton.predictor", "predictor =",
     'expected one of "constant_acceleration", "constant_velocity", "none", got "linear"'),
    ("tilt start outside the self-weight (check_stages)", [("start = -1.05", "start = -2.0")], "stages[1].start",
     "start = -2.0", "-2.0 s is not inside the stage before it (-1.95 to -0.825 s)"),
    ("tilt ends before it starts (Tilt)", [("end = 0.0", "end = -1.5")], "stages[1].end", "end = -1.5",
     "start before end [s] needed, got start -1.05, end -1.5"),
    ("imposed motion component z", [(TILT, PUSH), ('component = "x"', 'component = "z"')],
     "stages[1].motions[0].component", "motions =", 'expected one of "x", "y", got "z"'),
    ("imposed motion value missing", [(TILT, PUSH), (", value = 0.0 }", " }")], "stages[1].motions[1].value",
     'component = "y"', "missing (expected a number)"),
    ("self-weight friction", [("friction = 0.0", "friction = -0.1")], "stages[0].friction", "friction = -0.1",
     "expected a number >= 0, got -0.1"),
    ("release unknown key", [("end = 0.2", "end = 0.2\nramp_end = 0.0")], "stages[2].ramp_end", "ramp_end = 0.0",
     "unknown key (known: kind, name, start, end, velocity, acceleration, friction, contact_events, newton)"),
    ("release first (check_stages)", [(SELF_WEIGHT + TILT, "")], "stages[0]", "]  # release",
     "the first stage must say when it starts (a Release continues the stage before it)"),
    ("windows row of 4 numbers", [("0.0, false, true]", "0.0]")], "steps.release.rows[1]", "[0.0025, 1.0",
     "expected [t_start, t_end, dt, alpha, fine] or [t_start, t_end, dt, alpha, fine, modified] (numbers [s], then "
     "true or false), got [2.5e-3, 1, 1.25e-3, 0]"),
    ("windows row ends before it starts (Windows)", [("[0.0, 0.0025,", "[0.0, -0.0025,")], "steps.release.rows[0]",
     "rows =", "t_start before t_end, got 0.0, -0.0025"),
    ("windows watch group", [('watch = ["O", "A"]', 'watch = ["O", "Z"]')], "steps.release.watch[1]", "watch =",
     "the mesh has no node group 'Z'"),
    ("steps table naming no stage", [("[steps.tilt]", "[steps.tilted]")], "steps.tilted", "[steps.tilted]",
     'names no stage; the stages are "self-weight", "tilt", "release"'),
    ("steps kind beside stage tables", [("[steps.self-weight]", '[steps]\nkind = "events"\n\n[steps.self-weight]')],
     "steps.kind", 'kind = "events"', "beside the table steps.self-weight of a stage: give [steps] one spec for "
     "every stage (kind and its keys) or a [steps.STAGE] table per stage, not both"),
    ("uniform alpha", [("alpha = -0.6", "alpha = 0.5")], "steps.tilt.alpha", "alpha = 0.5",
     "expected a number in (-1, 0], got 0.5"),
    ("steps kind", [('kind = "windows"', 'kind = "window"')], "steps.release.kind", '"window"',
     'expected one of "events", "uniform", "windows", "central_differences", got "window"'),
    ("alpha_fine", [("alpha_fine = -0.2", "alpha_fine = -0.5")], "scheme.alpha_fine", "alpha_fine",
     "expected a number in [-0.3333333333, 0], got -0.5"),
]


@pytest.mark.parametrize("edits, key, marker, words", [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_each_mistake_is_one_line_naming_the_file_the_line_and_the_key(tmp_path, edits, key, marker, words):
    text = edited(BLOCK, *edits)
    path = write(tmp_path, text)
    message = refusal(path)
    assert message == f"{path}: line {line_of(text, marker)}: {key}: {words}"


def test_a_steps_table_of_the_preload_and_the_librarys_refusals_of_a_tilt(tmp_path):
    preload = '[[stages]]\nkind = "preload"\n\n'
    text = edited(BLOCK, (SELF_WEIGHT, preload + SELF_WEIGHT), ("[steps.tilt]", "[steps.preload]"))
    path = write(tmp_path, text)
    assert refusal(path) == (f"{path}: line {line_of(text, '[steps.preload]')}: steps.preload: a preload has no time "
                             f"steps (its own steps: static increments)")
    text = edited(BLOCK, ('nodes = ["C1", "O1"]', 'nodes = ["C1", "CONHAUT"]'))
    pf = load(write(tmp_path, text))
    with pytest.raises(BadInput) as caught, pf.refusals():
        simulate(pf.problem, pf.stages, steps=pf.steps)  # fem.problem.physics.check_groups, before any step
    assert str(caught.value) == (f"{pf.path}: line {line_of(text, 'nodes =')}: stages[1].nodes: 'CONHAUT' must be a "
                                 f"group of one node, it has 5")
    assert str(pf.refusal(BadInput("steps['release']: an HHT stage after a Moreau-Jean one"))) == \
        f"{pf.path}: line {line_of(text, '[steps.release]')}: steps.release: an HHT stage after a Moreau-Jean one"


# ----------------------------------------------------------------------------------- rockfem run
def test_rockfem_runs_the_example_and_the_block_lands_as_the_rigid_block(tmp_path):
    """Exit 0, complete; the first impact after the release (the impacts of summary.json; the one at -1.02 s,
    O landing again during the tilt, is not the rocking's) within 0.5 % of the rigid block's, as
    tests/test_problem_stages.py holds the Python statement of this run."""
    assert ROCKFEM is not None, "the rockfem console script is not installed (pip install -e .)"
    out = tmp_path / "out"
    done = subprocess.run([ROCKFEM, "run", str(EXAMPLE), "--out", str(out), "--quiet"], capture_output=True,
                          text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["t_reached"] == pytest.approx(0.2)
    reference = rocking.rock(B, L, 0.05, g=G, rho=RHO, n_impacts=1, model="nonlinear")
    first = next(i for i in summary["impacts"] if i["time"] > 0)
    assert first["time"] == pytest.approx(reference.impact_times[0], rel=5e-3)


def test_a_release_states_its_start_velocities_and_acceleration(tmp_path):
    """kind = "release" with start, velocity = { GROUP = [vx, vy] } and acceleration: read into the
    Release they state; a velocity that is not a table or a pair, or an unknown acceleration, refused
    on one line naming the key."""
    mesh = Path(__file__).resolve().parents[1] / "examples" / "stack_of_two.msh"
    text = (f'mesh = "{mesh}"\nbodies = [{{ group = "BLOCK_1", material = "g" }}]\n[materials]\n'
            'g = { young = 6e11, poisson = 0.2, density = 1450.0 }\n[[stages]]\nkind = "release"\nstart = 0.0\n'
            'end = 0.01\nvelocity = { BLOCK_1 = [0.5, -0.25] }\nacceleration = "zero"\n')
    path = tmp_path / "launch.toml"
    path.write_text(text)
    (stage,) = load(path).stages
    assert (stage.start, stage.end, dict(stage.velocity), stage.acceleration) == \
        (0.0, 0.01, {"BLOCK_1": (0.5, -0.25)}, "zero")
    for key, value, said in [("stages.0.velocity", "3", "expected a table { GROUP = [vx, vy] } [m/s], got 3"),
                             ("stages.0.acceleration", "none", 'expected one of "equilibrium", "zero", got "none"')]:
        with pytest.raises(BadInput) as err:
            load(path, [(key, value)])
        assert str(err.value).endswith(said) and f"stages[0].{key.split('.')[-1]}" in str(err.value)
    path.write_text(text.replace("[0.5, -0.25]", "[0.5]"))
    with pytest.raises(BadInput, match=r"line 9: stages\[0\]\.velocity: group -> \(vx, vy\) in m/s"):
        load(path)
