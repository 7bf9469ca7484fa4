"""A problem stated in a TOML file (cases/problem_file/__init__.py) and the ``rockfem`` command (cases/problem_file/cli.py).

The problem: a brick on a plinth (the mesh of examples/bricks_on_plinth_mesh.py at h = 0.1 m, 120 QUAD4
of the five bodies, two of them used), its plinth held at its base, shaken 0.2 s by a small record and a
vertical sine pulse, with coarse steps (10 ms, 1 ms through events): a run takes about 0.1 s.

* load: a file gives the Problem, stages, steps and settings it states (two layouts: tables and arrays
  of tables, arrays of inline tables); each override form changes that value and nothing else;
* mistakes: each refused with one line naming the file, the key and its line (the library's own
  refusals too, and the overrides' naming the override); as ``rockfem run`` subprocesses, exit 2 with
  that line on stderr and no output folder;
* a self-weight stage (fem.problem.SelfWeight): read with its hold, its mistakes refused the same way, and a
  file of one held self-weight run by fem.simulate to the bodies at rest: the base's reaction is their weight;
* ``rockfem run`` of the good file: exit 0, summary.json complete, report.md, history.csv;
  ``rockfem sweep`` over two values of a key: two complete rows holding the two values.
"""
from __future__ import annotations

import copy
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from contact.laws import Augmented, Buckling, Lagrange, Penalty
from contact.zone import BiPlane, RigidPlane
from fem.constants import GRAVITY
from fem.loads import base_motion as bm
from fem.model.material import ElasticMaterial
from fem.problem import (CentralDifferences, EventSteps, Outcome, Pair, Release, SelfWeight, Spring, Support, Uniform,
                         simulate)
from fem.problem.definition import load_mesh
from fem.problem.simulate import ALPHA, ALPHA_FINE
from fem.ranges import BadInput
from fem.studies import sweep
from cases import problem_file
from cases.problem_file import cli
from fem.problem import command
from cases.problem_file import load
from helpers import refusal, rockfem_script

ROOT = Path(__file__).resolve().parents[1]
ROCKFEM = rockfem_script()
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}

GOOD = """\
# a brick on a plinth held at its base (the mesh of examples/bricks_on_plinth_mesh.py)
mesh = "bricks.msh"
mass = "redistributed"
gravity = 9.81

[materials.stone]
young = 3e10
poisson = 0.2
density = 2500.0
rayleigh_stiffness = 1e-4

[materials.granite]
young = 5e10
poisson = 0.25
density = 2700.0

[[bodies]]
group = "PLINTH"
material = "stone"

[[bodies]]
group = "BRICK_1"
material = "stone"
name = "brick"

[[supports]]
group = "PLINTH_BOTTOM"

[[pairs]]
slave = "BRICK_1_BOTTOM"
master = "PLINTH_TOP"
law = "lagrange"
mu = 0.7

[[stages]]
kind = "preload"
steps = 4

[[stages]]
kind = "base_motion"
name = "shake"
duration = 0.2
x = { record = "records/hv.csv", column = 1, units = "m/s2", scale = 1.5 }
y = { kind = "sine-pulse", amplitude_g = 0.05, frequency = 5.0 }

[steps]
kind = "events"
dt = 1e-2
dt_fine = 1e-3
tolerance = 1e-6
"""

#: the same kind of problem written as the examples are (arrays of inline tables), other laws and settings
INLINE = """\
mesh = "bricks.msh"
bodies = [{ group = "PLINTH", material = "stone" },
          { group = "BRICK_1", material = "stone", overturn_angle = 0.5 }]
supports = [{ group = "PLINTH_BOTTOM", components = ["x", "y"] }]
pairs = [
  { slave = "BRICK_1_BOTTOM", master = "PLINTH_TOP", law = "penalty", mu = 0.6, normal_stiffness = 1e10 },
  { slave = "PLINTH_BOTTOM", plane = { point = [0, 0], normal = [0, 1] }, law = "augmented", mu = 0.5, coef_cont = 2.0 },
]

[materials]
stone = { young = 3e10, poisson = 0.2, density = 2500.0 }

[[stages]]
kind = "base_motion"
duration = 0.1
x = { kind = "harmonic", amplitude = 1.0, frequency = 4.0, cycles = 2, scale = 2.0 }

[steps]
kind = "uniform"
dt = 2e-3
archive_every = 5

[scheme]
alpha = -0.1
theta = 0.6

[output]
out = "elsewhere/run1"
paraview = true
"""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """The mesh (gmsh, h = 0.1 m) and a record of two components (t, a_h, a_v [m/s^2], 0 to 0.3 s)."""
    folder = tmp_path_factory.mktemp("inputs")
    spec = importlib.util.spec_from_file_location("bricks_on_plinth_mesh", ROOT / "examples" / "bricks_on_plinth_mesh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_mesh(folder / "bricks.msh", h=0.1)
    t = np.arange(31) * 0.01
    (folder / "records").mkdir()
    rows = [f"{x:.2f},{2.0 * math.sin(2 * math.pi * 5 * x):.6e},{0.5 * math.sin(2 * math.pi * 3 * x):.6e}" for x in t]
    (folder / "records" / "hv.csv").write_text("time_s,acc_h,acc_v\n" + "\n".join(rows) + "\n")
    return folder


def write(folder: Path, inputs: Path, text: str = GOOD, name: str = "stack.toml") -> Path:
    """``text`` as ``folder/name`` beside a copy of the mesh and the record."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(inputs / "bricks.msh", folder / "bricks.msh")
    shutil.copytree(inputs / "records", folder / "records", dirs_exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def edited(text: str, *edits: tuple[str, str]) -> str:
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def line_of(text: str, marker: str) -> int:
    """The line (from 1) of the first line of ``text`` holding ``marker``."""
    return next(k for k, line in enumerate(text.splitlines(), start=1) if marker in line)


def rockfem(*args, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    assert ROCKFEM is not None, "the rockfem console script is not installed (pip install -e .)"
    return subprocess.run([ROCKFEM, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=ENV,
                          timeout=timeout)


# ----------------------------------------------------------------------------------- a file loads
def test_a_file_of_tables_loads_into_the_problem_it_states(tmp_path, inputs):
    path = write(tmp_path, inputs)
    pf = load(path)
    stone = ElasticMaterial(3e10, 0.2, 2500.0, rayleigh_stiffness=1e-4)
    p = pf.problem
    assert p.mesh == tmp_path / "bricks.msh"
    assert (p.mass, p.gravity, p.thickness, dict(p.point_masses)) == ("redistributed", 9.81, 1.0, {})
    assert [(b.group, b.material, b.overturn_angle, b.name) for b in p.bodies] == [
        ("PLINTH", stone, None, None), ("BRICK_1", stone, None, "brick")]
    assert [(s.group, s.components) for s in p.supports] == [("PLINTH_BOTTOM", ("x", "y"))]
    assert [(q.slave, q.master, q.law, q.name) for q in p.pairs] == [("BRICK_1_BOTTOM", "PLINTH_TOP", Lagrange(0.7), None)]
    preload, shake = pf.stages
    assert (preload.steps, preload.friction, preload.duration, preload.hold, preload.name) == (4, None, 1.0, (), "preload")
    assert (shake.duration, shake.name) == (0.2, "shake")
    assert shake.x == bm.read_record(tmp_path / "records" / "hv.csv", units="m/s2", column=1, scale=1.5)
    assert shake.y == bm.SinePulse(0.05 * bm.STANDARD_GRAVITY, 5.0)
    assert pf.steps == EventSteps(dt=1e-2, dt_fine=1e-3, tolerance=1e-6)
    assert (pf.alpha, pf.theta, pf.out, pf.paraview) == (ALPHA, 0.55, Path("results") / "stack", False)
    assert pf.alpha_fine == ALPHA_FINE  # the simulation's default scheme (HHT -0.1, -0.2 on the fine steps)
    assert pf.data == tomllib.loads(GOOD) and json.loads(json.dumps(pf.data)) == pf.data  # JSON-able


def test_a_file_of_inline_tables_loads_into_the_problem_it_states(tmp_path, inputs):
    pf = load(write(tmp_path, inputs, INLINE))
    p = pf.problem
    stone = ElasticMaterial(3e10, 0.2, 2500.0)
    assert (p.mass, p.gravity, p.thickness) == ("consistent", GRAVITY, 1.0)
    assert [(b.group, b.material, b.overturn_angle) for b in p.bodies] == [("PLINTH", stone, None), ("BRICK_1", stone, 0.5)]
    assert [(q.slave, q.master, q.law) for q in p.pairs] == [
        ("BRICK_1_BOTTOM", "PLINTH_TOP", Penalty(normal_stiffness=1e10, mu=0.6)),
        ("PLINTH_BOTTOM", RigidPlane((0.0, 0.0), (0.0, 1.0)), Augmented(mu=0.5, coef_cont=2.0))]
    (stage,) = pf.stages
    assert (stage.duration, stage.name, stage.y) == (0.1, "base motion", None)
    assert stage.x == bm.scaled(bm.Harmonic(1.0, 4.0, cycles=2), 2.0)
    assert stage.acceleration(0.0625) == pytest.approx((2.0, 0.0), abs=1e-12)  # 2 x sin(2 pi 4 t) at its peak
    assert pf.steps == Uniform(2e-3, archive_every=5)
    assert (pf.alpha, pf.theta, pf.out, pf.paraview) == (-0.1, 0.6, Path("elsewhere/run1"), True)


def test_the_line_of_each_key_in_both_layouts():
    lines = problem_file.key_lines(GOOD)
    for path, marker in ((("mesh",), "mesh ="), (("materials", "granite", "poisson"), "poisson = 0.25"),
                         (("bodies", 1), "[[bodies]]"), (("pairs", 0, "mu"), "mu = 0.7"),
                         (("stages", 1, "x", "scale"), "scale = 1.5"), (("steps", "tolerance"), "tolerance")):
        expected = line_of(GOOD, marker) if path != ("bodies", 1) else [k for k, line in enumerate(
            GOOD.splitlines(), start=1) if line == "[[bodies]]"][1]
        assert lines[path] == expected, path
    lines = problem_file.key_lines(INLINE)
    assert lines[("bodies", 1, "overturn_angle")] == line_of(INLINE, "overturn_angle")
    assert lines[("pairs", 1, "plane", "normal")] == line_of(INLINE, "plane =")
    assert lines[("pairs", 1, "coef_cont")] == line_of(INLINE, "coef_cont")
    assert lines[("materials", "stone", "density")] == line_of(INLINE, "stone =")
    assert lines[("stages", 0, "x", "cycles")] == line_of(INLINE, "cycles")
    tricky = 'a = """\n[not.a.table]\nb = 1"""\nc = [1,  # ]\n  { d = "}" }]\n[e."f.g"]\nh.i = 2\n'
    assert problem_file.key_lines(tricky) == {("a",): 1, ("c",): 4, ("c", 0): 4, ("c", 1): 5, ("c", 1, "d"): 5,
                                               ("e",): 6, ("e", "f.g"): 6, ("e", "f.g", "h"): 7, ("e", "f.g", "h", "i"): 7}


# ----------------------------------------------------------------------------------- overrides
def _parts(pf) -> dict:
    p = pf.problem
    return {"mesh": p.mesh, "mass": p.mass, "bodies": p.bodies, "supports": p.supports, "pairs": p.pairs,
            "stages": pf.stages, "steps": pf.steps, "scheme": (pf.alpha, pf.theta),
            "output": (pf.out, pf.paraview, pf.output_format)}


@pytest.mark.parametrize("key, value, path, expected, changed, check", [
    ("stages.shake.x.scale", "0.5", ("stages", 1, "x", "scale"), 0.5, {"stages"},
     lambda pf, d: pf.stages[1].x == bm.read_record(d / "records" / "hv.csv", units="m/s2", column=1, scale=0.5)),
    ("stages.1.duration", "0.1", ("stages", 1, "duration"), 0.1, {"stages"}, lambda pf, d: pf.stages[1].duration == 0.1),
    ("stages.preload.steps", "3", ("stages", 0, "steps"), 3, {"stages"}, lambda pf, d: pf.stages[0].steps == 3),
    ("stages.shake.y.amplitude_g", "0.1", ("stages", 1, "y", "amplitude_g"), 0.1, {"stages"},
     lambda pf, d: pf.stages[1].y == bm.SinePulse(0.1 * bm.STANDARD_GRAVITY, 5.0)),
    ("pairs.BRICK_1_BOTTOM.mu", "0.3", ("pairs", 0, "mu"), 0.3, {"pairs"},
     lambda pf, d: pf.problem.pairs[0].law == Lagrange(0.3)),
    ("pairs.0.law", '"augmented"', ("pairs", 0, "law"), "augmented", {"pairs"},
     lambda pf, d: pf.problem.pairs[0].law == Augmented(mu=0.7)),
    ("bodies.brick.material", '"granite"', ("bodies", 1, "material"), "granite", {"bodies"},
     lambda pf, d: pf.problem.bodies[1].material == ElasticMaterial(5e10, 0.25, 2700.0)),
    ("bodies.PLINTH.overturn_angle", "0.5", ("bodies", 0, "overturn_angle"), 0.5, {"bodies"},
     lambda pf, d: pf.problem.bodies[0].overturn_angle == 0.5),
    ("bodies.1.name", "block", ("bodies", 1, "name"), "block", {"bodies"},  # a bare word: a string
     lambda pf, d: pf.problem.bodies[1].label == "block"),
    ("materials.stone.young", "2e10", ("materials", "stone", "young"), 2e10, {"bodies"},
     lambda pf, d: [b.material.young for b in pf.problem.bodies] == [2e10, 2e10]),
    ("steps.dt", "5e-3", ("steps", "dt"), 5e-3, {"steps"},
     lambda pf, d: pf.steps == EventSteps(dt=5e-3, dt_fine=1e-3, tolerance=1e-6)),
    ("steps", '{ kind = "uniform", dt = 1e-3 }', ("steps",), {"kind": "uniform", "dt": 1e-3}, {"steps"},
     lambda pf, d: pf.steps == Uniform(1e-3)),
    ("mass", '"lumped"', ("mass",), "lumped", {"mass"}, lambda pf, d: pf.problem.mass == "lumped"),
    ("scheme.alpha", "-0.05", ("scheme", "alpha"), -0.05, {"scheme"}, lambda pf, d: pf.alpha == -0.05),
    ("output.paraview", "true", ("output", "paraview"), True, {"output"}, lambda pf, d: pf.paraview is True),
    ("output.format", '"pvd"', ("output", "format"), "pvd", {"output"}, lambda pf, d: pf.output_format == "pvd"),
])
def test_each_override_form_changes_that_value_only(tmp_path, inputs, key, value, path, expected, changed, check):
    file = write(tmp_path, inputs)
    base = load(file)
    pf = load(file, [(key, value)])
    data = copy.deepcopy(base.data)
    node = data
    for seg in path[:-1]:
        node = node[seg] if isinstance(seg, int) else node.setdefault(seg, {})
    node[path[-1]] = expected
    assert pf.data == data
    assert check(pf, tmp_path)
    differ = {k for k, v in _parts(pf).items() if v != _parts(base)[k]}
    assert differ == changed


def test_overrides_apply_in_order_and_a_missing_entry_or_key_is_refused_naming_the_override(tmp_path, inputs):
    file = write(tmp_path, inputs)
    assert load(file, [("pairs.0.mu", "0.2"), ("pairs.BRICK_1_BOTTOM.mu", "0.4")]).problem.pairs[0].law == Lagrange(0.4)
    name = str(file)
    cases = [
        ([("pairs.BRICK_9.mu", "0.5")], f"{name}: --set pairs.BRICK_9.mu=0.5: pairs has no entry 'BRICK_9' (by name or "
                                        f"slave: BRICK_1_BOTTOM; or an index from 0 to 0)"),
        ([("pairs.0.muu", "0.5")], f"{name}: pairs[0].muu (--set pairs.0.muu=0.5): unknown key (known: slave, master, "
                                   f"plane, biplane, law, mu, name, clearance)"),
        ([("pairs.BRICK_1_BOTTOM.mu", "high")], f'{name}: pairs[0].mu (--set pairs.BRICK_1_BOTTOM.mu=high): expected '
                                                f'a number >= 0, got "high"'),
        ([("stages.7.duration", "1")], f"{name}: --set stages.7.duration=1: stages has no entry '7' (by name: shake; "
                                       f"or an index from 0 to 1)"),
        ([("steps.dt.x", "1")], f"{name}: --set steps.dt.x=1: steps.dt is 0.01, it has no key 'x'"),
        ([("supports.0.group", "1", "--grid")], f"{name}: supports[0].group (--grid supports.0.group=1): expected a "
                                                 f"string, got 1"),
        ([("a..b", "1")], f"{name}: --set a..b=1: expected KEY.PATH=VALUE, KEY.PATH dotted names (e.g. pairs.0.mu=0.6)"),
    ]
    for overrides, message in cases:
        assert refusal(file, overrides) == message


# ----------------------------------------------------------------------------------- mistakes
PRELOAD = '[[stages]]\nkind = "preload"\nsteps = 4\n\n'
#: a self-weight stage in place of the preload, held in x on the plinth's base (fem.problem.SelfWeight)
SELF_WEIGHT = ('[[stages]]\nkind = "self_weight"\nstart = -1.0\nramp_end = -0.8\nend = 0\n'
               'hold = [{ group = "PLINTH_BOTTOM", components = ["x"] }]\n\n')
MISTAKES = [  # id, edits of GOOD, the key, a marker of its line (None: no line), words
    ("unknown key", [("mu = 0.7", "muu = 0.7")], "pairs[0].muu", "muu",
     "unknown key (known: slave, master, plane, biplane, law, mu, name, clearance)"),
    ("wrong type", [("mu = 0.7", 'mu = "high"')], "pairs[0].mu", "high", 'expected a number >= 0, got "high"'),
    ("no such material", [('material = "stone"\nname', 'material = "granit"\nname')], "bodies[1].material", '"granit"',
     "no material 'granit' (defined: stone, granite)"),
    ("missing key", [('slave = "BRICK_1_BOTTOM"\n', "")], "pairs[0].slave", "[[pairs]]", "missing (expected a string)"),
    ("missing mesh file", [('"bricks.msh"', '"nope.msh"')], "mesh", "nope", "no such file '{folder}/nope.msh'"),
    ("missing record file", [("records/hv.csv", "records/nope.csv")], "stages[1].x.record", "nope",
     "no such record file '{folder}/records/nope.csv'"),
    ("unknown top-level key", [("gravity = 9.81", "grvity = 9.81")], "grvity", "grvity", "unknown key (known: mesh, "),
    ("out of range", [("poisson = 0.2", "poisson = 0.7")], "materials.stone.poisson", "poisson = 0.7",
     "expected a number in (-1, 0.5), got 0.7"),
    ("not a choice", [('law = "lagrange"', 'law = "glue"')], "pairs[0].law", "glue",
     'expected one of "lagrange", "augmented", "penalty", "moreau_jean", "buckling", got "glue"'),
    ("not an integer", [("steps = 4", "steps = 2.5")], "stages[0].steps", "steps = 2.5",
     "expected an integer in [1, 1000], got 2.5"),
    ("another law's key", [("mu = 0.7", "mu = 0.7\nnormal_stiffness = 1e9")], "pairs[0].normal_stiffness",
     "normal_stiffness", 'only for law "penalty" (this pair\'s law is "lagrange")'),
    ("a law's required key", [('law = "lagrange"', 'law = "penalty"')], "pairs[0].normal_stiffness", "[[pairs]]",
     "missing (expected a number > 0)"),
    ("record column (read_record)", [("column = 1", "column = 3")], "stages[1].x.column", "column = 3",
     "column 3 asked, the file has 2 acceleration column(s)"),
    ("closed form (base_motion)", [("frequency = 5.0", "frequency = -5.0")], "stages[1].y.frequency", "frequency",
     "SinePulse: frequency must be positive"),
    ("steps (EventSteps)", [("dt_fine = 1e-3", "dt_fine = 1e-1")], "steps.dt_fine", "dt_fine",
     "EventSteps: dt_fine must lie in (0, dt = 0.01] s, got 0.1"),
    ("preload not first", [(PRELOAD, ""), ("tolerance = 1e-6", "tolerance = 1e-6\n\n" + PRELOAD)], "stages[1].kind",
     '"preload"', "a preload comes first"),
    ("master and plane", [('master = "PLINTH_TOP"', 'master = "PLINTH_TOP"\nplane = { point = [0, 0], normal = [0, 1] }')],
     "pairs[0].master", "master", "not both"),
    ("zero normal", [('master = "PLINTH_TOP"', "plane = { point = [0, 0], normal = [0, 0] }")], "pairs[0].plane.normal",
     "plane", "the normal must not be [0, 0]"),
    ("laws of two schemes", [(PRELOAD, '[[pairs]]\nslave = "PLINTH_BOTTOM"\nplane = { point = [0, 0], normal = [0, 1] }\n'
                                       'law = "moreau_jean"\nmu = 0.5\n\n' + PRELOAD)],
     "pairs[1].law", "moreau_jean", '"moreau_jean" cannot be mixed with the law of pairs[0]'),
    ("one group two bodies", [('group = "BRICK_1"', 'group  = "PLINTH"')], "bodies[1].group", 'group  = "PLINTH"',
     "'PLINTH' is also bodies[0]'s group"),
    ("not a table", [('y = { kind = "sine-pulse", amplitude_g = 0.05, frequency = 5.0 }', "y = 3")], "stages[1].y", "y = 3",
     "expected a table"),
    ("no stages", [(PRELOAD, ""), ("[[stages]]", "[[stagez]]")], "stagez", "stagez", "unknown key"),
    ("TOML syntax", [("mu = 0.7", "mu = 0.7 0.8")], None, "mu = 0.7 0.8", "not valid TOML: "),
    ("self-weight unknown key", [(PRELOAD, SELF_WEIGHT), ("end = 0\n", "end = 0\nduration = 1.0\n")],
     "stages[0].duration", "duration", "unknown key (known: kind, name, start, ramp_end, end, hold, friction, contact_events, newton)"),
    ("self-weight end a string", [(PRELOAD, SELF_WEIGHT), ("end = 0\n", 'end = "soon"\n')], "stages[0].end", "soon",
     'expected a number, got "soon"'),
    ("self-weight end missing", [(PRELOAD, SELF_WEIGHT), ("end = 0\n", "")], "stages[0].end", "[[stages]]",
     "missing (expected a number)"),
    ("self-weight start not before ramp_end (SelfWeight)", [(PRELOAD, SELF_WEIGHT), ("start = -1.0", "start = -0.5")],
     "stages[0].ramp_end", "ramp_end =",
     "start before ramp_end and before end [s] needed, got start -0.5, ramp_end -0.8, end 0.0"),
    ("self-weight ends before it starts (SelfWeight)", [(PRELOAD, SELF_WEIGHT), ("end = 0\n", "end = -2\n")],
     "stages[0].end", "end = -2", "needed, got start -1.0, ramp_end -0.8, end -2.0"),
    ("self-weight hold component", [(PRELOAD, SELF_WEIGHT), ('components = ["x"]', 'components = ["z"]')],
     "stages[0].hold[0].components", "hold =", 'expected ["x"], ["y"] or ["x", "y"], got ["z"]'),
    ("self-weight hold key", [(PRELOAD, SELF_WEIGHT), ('group = "PLINTH_BOTTOM", ', 'grp = "PLINTH_BOTTOM", ')],
     "stages[0].hold[0].grp", "hold =", "unknown key (known: group, components)"),
    ("output format", [("tolerance = 1e-6\n", 'tolerance = 1e-6\n\n[output]\nformat = "vtk"\n')], "output.format",
     'format = "vtk"',
     'expected one of "xdmf", "pvd", got "vtk"'),
    ("stage kind", [('kind = "preload"', 'kind = "self-weight"')], "stages[0].kind", "self-weight",
     'expected one of "preload", "self_weight", "base_motion", "tilt", "imposed_motion", "release", got "self-weight"'),
]


@pytest.mark.parametrize("edits, key, marker, words", [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_each_mistake_is_one_line_naming_the_file_the_key_and_its_line(tmp_path, inputs, edits, key, marker, words):
    text = edited(GOOD, *edits)
    path = write(tmp_path, inputs, text)
    message = refusal(path)
    where = f"{path}: line {line_of(text, marker)}: "
    assert message.startswith(where + (f"{key}: " if key else "")), message
    assert words.format(folder=tmp_path) in message


def test_the_librarys_refusals_come_out_in_the_files_terms(tmp_path, inputs):
    """A group the mesh does not have (fem.problem.assemble), a mesh folder refused (simulate's claim)."""
    text = edited(INLINE, ('master = "PLINTH_TOP"', 'master = "PLINTH_TOPP"'))
    path = write(tmp_path, inputs, text)
    pf = load(path)
    with pytest.raises(BadInput) as caught:
        pf.assemble()
    assert str(caught.value).startswith(f"{path}: line {line_of(text, 'PLINTH_TOPP')}: pairs[0].master: the mesh has "
                                        f"no line group 'PLINTH_TOPP'; it has: ")
    pf = load(write(tmp_path, inputs), [("bodies.brick.group", '"BRICK_9"')])
    with pytest.raises(BadInput, match=r"stack.toml: bodies\[1\].group \(--set bodies.brick.group=\"BRICK_9\"\): the "
                                       r"mesh has no surface group 'BRICK_9'"):
        pf.assemble()
    assert str(pf.refusal(BadInput("out x/y: exists and is not a folder"))) == \
        f"{pf.path}: output.out: x/y: exists and is not a folder"
    assert str(pf.refusal(BadInput("out x/y: exists"), out_given=True)) == "--out x/y: exists"
    assert str(pf.refusal(BadInput("mesh m.msh: no cells"))) == f"{pf.path}: line 2: mesh: m.msh: no cells"
    assert str(pf.refusal(BadInput("supports.PLINTH_BOTTOM: no"))) == \
        f"{pf.path}: line {line_of(GOOD, 'PLINTH_BOTTOM')}: supports[0].group: no"


@pytest.mark.parametrize("name, args, edits, words", [
    ("unknown key", [], [("mu = 0.7", "muu = 0.7")], "line {line}: pairs[0].muu: unknown key"),
    ("no such group (assemble)", [], [('group = "BRICK_1"', 'group = "BRICK_9"')],
     "line {line}: bodies[1].group: the mesh has no surface group 'BRICK_9'"),
    ("bad --set", ["--set", "pairs.0.mu=-1"], [], "pairs[0].mu (--set pairs.0.mu=-1): expected a number >= 0, got -1"),
    ("missing record", [], [("records/hv.csv", "records/nope.csv")], "line {line}: stages[1].x.record: no such record"),
])
def test_rockfem_run_refuses_a_bad_file_with_exit_2_one_line_and_no_folder(tmp_path, inputs, name, args, edits, words):
    text = edited(GOOD, *edits)
    write(tmp_path, inputs, text, "bad.toml")
    line = line_of(text, edits[0][1].split("\n")[0]) if edits else None
    done = rockfem("run", "bad.toml", *args, cwd=tmp_path)  # the default folder results/bad, from here
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [done.stderr.strip()] and done.stderr.startswith("error: bad.toml: ")
    assert words.format(line=line) in done.stderr
    assert not (tmp_path / "results").exists()
    out = tmp_path / "elsewhere" / "out"
    done = rockfem("run", "bad.toml", *args, "--out", out, cwd=tmp_path)
    assert done.returncode == 2 and words.format(line=line) in done.stderr
    assert not (tmp_path / "elsewhere").exists()


# ----------------------------------------------------------------------------------- a self-weight stage
def test_a_self_weight_stage_loads_into_the_self_weight_it_states(tmp_path, inputs):
    text = edited(GOOD, (PRELOAD, SELF_WEIGHT))
    path = write(tmp_path, inputs, text)
    pf = load(path)
    settle, shake = pf.stages
    assert settle == SelfWeight(-1.0, -0.8, 0.0, hold=(Support("PLINTH_BOTTOM", ("x",)),), name="self-weight")
    assert (type(settle.end), settle.duration, shake.name) == (float, 1.0, "shake")
    assert load(path, [("stages.self_weight.ramp_end", "-0.5")]).stages[0].ramp_end == -0.5  # an unnamed stage by kind
    needed = "start before ramp_end and before end [s] needed, got start"
    assert refusal(path, [("stages.0.ramp_end", "-1")]) == \
        f"{path}: stages[0].ramp_end (--set stages.0.ramp_end=-1): {needed} -1.0, ramp_end -1.0, end 0.0"
    assert refusal(path, [("stages.self_weight.start", "0")]) == \
        f"{path}: stages[0].start (--set stages.self_weight.start=0): {needed} 0.0, ramp_end -0.8, end 0.0"
    assert str(pf.refusal(BadInput("stages.self-weight.hold: no"))) == \
        f"{path}: line {line_of(text, 'hold =')}: stages[0].hold: no"  # the library's name of an unnamed one
    named = load(write(tmp_path, inputs, edited(text, ("end = 0\n", 'end = 0.5\nname = "settle"\n'))))
    assert named.stages[0] == SelfWeight(-1.0, -0.8, 0.5, (Support("PLINTH_BOTTOM", ("x",)),), "settle")


#: a brick on a plinth, the plinth on its base in y only, held in x by the stage; gravity ramped over 0.2 s and held
#: 0.8 s, with stiffness damping and HHT's (as tests/test_problem_api.py's self-weight test of the Python API)
SETTLE = """\
mesh = "bricks.msh"
bodies = [{ group = "PLINTH", material = "stone" }, { group = "BRICK_1", material = "stone" }]
supports = [{ group = "PLINTH_BOTTOM", components = ["y"] }]
pairs = [{ slave = "BRICK_1_BOTTOM", master = "PLINTH_TOP", mu = 0.7 }]
materials.stone = { young = 3e10, poisson = 0.2, density = 2500.0, rayleigh_stiffness = 1e-4 }
steps = { kind = "uniform", dt = 5e-3 }
scheme.alpha = -0.3

""" + SELF_WEIGHT


def test_a_held_self_weight_file_runs_to_the_bodies_at_rest_on_their_weight(tmp_path, inputs):
    """load + fem.simulate: at the end of the held self-weight the base's reaction is the bodies' weight m g."""
    pf = load(write(tmp_path, inputs, SETTLE))
    outcome = simulate(pf.problem, pf.stages, steps=pf.steps, alpha=pf.alpha, theta=pf.theta)
    assert outcome.status == "complete" and outcome.t_reached == pytest.approx(0.0, abs=1e-12)
    weight = 2500.0 * (0.8 * 0.2 + 0.6 * 0.3) * 1.0 * GRAVITY  # PLINTH 0.8 x 0.2, BRICK_1 0.6 x 0.3 [m], 1 m thick
    base = 2 * load_mesh(pf.problem.mesh).nodes("PLINTH_BOTTOM") + 1
    assert float(outcome.state.reactions[base].sum()) == pytest.approx(weight, rel=1e-6)


# ----------------------------------------------------------------------------------- rockfem
def test_rockfem_run_of_a_good_file_completes_and_writes_its_results(tmp_path, inputs):
    write(tmp_path, inputs)
    done = rockfem("run", "stack.toml", "--set", "stages.shake.x.scale=2.0", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "results" / "stack"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["case"] == "stack"
    assert summary["command"] == "rockfem run stack.toml --set stages.shake.x.scale=2.0 --quiet"
    assert summary["parameters"] == load(tmp_path / "stack.toml", [("stages.shake.x.scale", "2.0")]).data
    assert summary["t_reached"] == pytest.approx(0.2) and set(summary["bodies"]) == {"PLINTH", "brick"}
    # the energy books, the preload's end state of each body, each pair's penetration and reaction alternation:
    # every run's checks
    assert summary["checks_met"] == summary["checks_graded"] == 1 + len(summary["bodies"]) + 2 * len(summary["pairs"])
    assert {"summary.json", "report.md", "history.csv", "preload_history.csv"} <= set(os.listdir(out))
    assert "# stack: complete" in (out / "report.md").read_text()
    history = np.genfromtxt(out / "history.csv", delimiter=",", names=True)
    assert history["t"][-1] == pytest.approx(0.2) and "base_ax" in history.dtype.names
    assert max(abs(history["base_ax"])) > 1.0  # the record, scaled by 2 (peak 4 m/s^2 before its baseline)
    assert "status: complete" in done.stdout and "body brick: not overturned" in done.stdout
    assert f"results: {Path('results') / 'stack'}" in done.stdout


def test_rockfem_and_python_m_cases_cli_help(tmp_path):
    for args in ([], ["run"], ["sweep"]):
        done = rockfem(*args, "--help", cwd=tmp_path)
        assert done.returncode == 0 and done.stderr == "" and done.stdout.startswith("usage: rockfem")
        same = subprocess.run([sys.executable, "-m", "cases.problem_file.cli", *args, "--help"], cwd=tmp_path, capture_output=True,
                              text=True, env=ENV, timeout=120)
        assert (same.returncode, same.stdout) == (0, done.stdout)
    assert "--set KEY.PATH=VALUE" in rockfem("run", "--help", cwd=tmp_path).stdout
    assert list(tmp_path.iterdir()) == []


def test_a_failed_run_exits_1_with_one_line(tmp_path, inputs, monkeypatch, capsys):
    """The exit code follows the outcome's status (a Newton failure is ``failed``: exit 1)."""
    write(tmp_path, inputs)
    failed = Outcome("failed", "Newton did not converge at t = 0.05 s", 0.05, out=tmp_path / "o")
    monkeypatch.setattr(command, "simulate", lambda *a, **k: failed)
    assert cli.main(["run", str(tmp_path / "stack.toml"), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"error: the run failed: Newton did not converge at t = 0.05 s; results up to t = 0.05 s are in "
                   f"{tmp_path / 'o'} (status: failed)"]


def test_rockfem_sweep_runs_each_value_of_a_key(tmp_path, inputs):
    write(tmp_path, inputs)
    done = rockfem("sweep", "stack.toml", "--grid", "pairs.BRICK_1_BOTTOM.mu=0.3,0.7", "--set", "stages.shake.duration=0.1",
                   "--out", "study", "--workers", "2", "--quiet", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = sweep.read_results(tmp_path / "study" / "results.csv")
    assert [(r["pairs.BRICK_1_BOTTOM.mu"], r["status"]) for r in rows] == [("0.3", "complete"), ("0.7", "complete")]
    for r in rows:
        point = json.loads((Path(tmp_path / r["folder"]) / "summary.json").read_text())
        assert point["parameters"]["pairs"][0]["mu"] == float(r["pairs.BRICK_1_BOTTOM.mu"])
        assert point["parameters"]["stages"][1]["duration"] == 0.1 and point["t_reached"] == pytest.approx(0.1)
        assert point["command"].endswith(f"--set pairs.BRICK_1_BOTTOM.mu={r['pairs.BRICK_1_BOTTOM.mu']} --set "
                                         f"stages.shake.duration=0.1 --out {r['folder']} --quiet")
    assert json.loads((tmp_path / "study" / "summary.json").read_text())["status"] == "complete"


def test_rockfem_sweep_refuses_a_wrong_key_before_anything_runs(tmp_path, inputs):
    write(tmp_path, inputs)
    for grid, words in (("pairs.0.muu=0.3,0.7", "stack.toml: pairs[0].muu (--grid pairs.0.muu=0.3): unknown key"),
                        ("pairs.0.mu=0.3,high", 'stack.toml: pairs[0].mu (--grid pairs.0.mu=high): expected a number'),
                        ("bodies.0.group=NOPE,PLINTH", "bodies[0].group (--grid bodies.0.group=NOPE): the mesh has no"),
                        ("pairs.PLINTH.mu=0.3", "--grid pairs.PLINTH.mu=0.3: pairs has no entry 'PLINTH'")):
        done = rockfem("sweep", "stack.toml", "--grid", grid, "--out", "study", cwd=tmp_path)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr.splitlines() == [done.stderr.strip()] and words in done.stderr, done.stderr
        assert not (tmp_path / "study").exists()


def test_a_sweep_point_is_given_as_set_key_value_after_the_command_and_its_file(tmp_path):
    """fem.studies.sweep: a point's values through an option (``--set KEY=VALUE``) after leading arguments,
    dotted keys on the grid and in a points file's header; a case's flags unchanged."""
    point = sweep.grid([sweep.parse_axis("pairs.BRICK_1_BOTTOM.mu=0.3,0.7"), sweep.parse_axis("steps.dt=1e-3")])[1]
    assert point.flags() == ["--pairs.BRICK_1_BOTTOM.mu", "0.7", "--steps.dt", "1e-3"]
    assert point.flags("--set") == ["--set", "pairs.BRICK_1_BOTTOM.mu=0.7", "--set", "steps.dt=1e-3"]
    task = sweep.CaseCommand("/x/cases/problem_file/cli.py", ("--set", "mass=lumped"), 10.0, leading=("run", "/x/a.toml"),
                             option="--set")
    assert task.arguments(point, "F") == ["run", "/x/a.toml", "--set", "pairs.BRICK_1_BOTTOM.mu=0.7", "--set",
                                          "steps.dt=1e-3", "--set", "mass=lumped", "--out", "F", "--quiet"]
    assert task.identity(point) == ["cases/problem_file/cli.py", "run", "/x/a.toml", *point.flags("--set"), "--set", "mass=lumped"]
    case = sweep.CaseCommand("/x/cases/sdnd101.py", ("--dt", "1e-3"))
    assert case.arguments(point, "F") == [*point.flags(), "--dt", "1e-3", "--out", "F", "--quiet"]
    (tmp_path / "points.csv").write_text("pairs.0.mu,stages.shake.x.scale\n0.3,0.5\n0.7,\n")
    assert [p.values for p in sweep.read_points(tmp_path / "points.csv")] == [
        (("pairs.0.mu", "0.3"), ("stages.shake.x.scale", "0.5")), (("pairs.0.mu", "0.7"),)]
    for bad in ("pairs..mu=1", "pairs.mu.=1", ".mu=1"):
        with pytest.raises(BadInput, match="NAME="):
            sweep.parse_axis(bad)


# ----------------------------------------------------------------------------------- one-dof problems
#: two nodes, NO1 (the mass, at the origin) and NO2 (held, 1 m behind it), and a line SPRING between them: a gmsh
#: file needs a line or surface group, nothing is stated on it
ONE_DOF_MESH = """\
$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
3
0 1 "NO1"
0 2 "NO2"
1 3 "SPRING"
$EndPhysicalNames
$Nodes
2
1 0 0 0
2 -1 0 0
$EndNodes
$Elements
3
1 15 2 1 1 1
2 15 2 2 2 2
3 1 2 3 1 1 2
$EndElements
"""
#: SDND101: a 100 kg mass on a spring of 1e4 N/m launched at 1 m/s against a shock of 1e6 N/m on a rigid plane
#: through its start, on the modal basis of the mass on its spring (Code_Aster DYNA_VIBRA, dt 5e-4 s to 0.1 s)
SDND101 = """\
mesh = "one_dof.msh"
gravity = 0.0
point_masses = { NO1 = 100.0 }
supports = [{ group = "NO1", components = ["y"] }, { group = "NO2" }]

[[springs]]
group = "NO1"
other = "NO2"
stiffness = [1e4, 1e4]

[[pairs]]
slave = "NO1"
plane = { point = [0.0, 0.0], normal = [-1.0, 0.0] }
law = "penalty"
mu = 0.0
normal_stiffness = 1e6

[[stages]]
kind = "release"
start = 0.0
end = 0.1
velocity = { NO1 = [1.0, 0.0] }

[steps]
kind = "central_differences"
dt = 5e-4
modes = 1
"""
TWO_MASSES = ROOT / "examples" / "two_masses_buckling.toml"
#: SDND105 d's law (LARG_PLAT, ENFO_FL, the post-buckling tables, the dampings) on the example's pair
FULL_BUCKLING = ("post_force = 0.5", "post_force = 0.5\nplateau = 1.0\nfall = 1.0\n"
                 "post_displacements = [2.0, 3.0, 4.0, 5.0]\npost_stiffnesses = [0.2, 0.15, 0.125, 0.1]\n"
                 "damping = 10.0\nfall_damping = 5.0\npost_dampings = [5.0, 5.0, 5.0, 5.0]\ncriterion = \"EXCLUS\"")


def write_one_dof(folder: Path, text: str) -> Path:
    """``text`` (SDND101's or the two masses' file) beside its mesh."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "one_dof.msh").write_text(ONE_DOF_MESH)
    shutil.copy(TWO_MASSES.with_suffix(".msh"), folder / TWO_MASSES.with_suffix(".msh").name)
    path = folder / "one_dof.toml"
    path.write_text(text)
    return path


def test_a_file_states_point_masses_springs_obstacles_the_buckling_law_and_central_differences(tmp_path):
    pf = load(TWO_MASSES)
    p = pf.problem
    assert (p.bodies, dict(p.point_masses), p.gravity, p.springs) == ((), {"N02": 1.0, "N03": 1.0}, 0.0, ())
    assert p.supports == (Support("N02", ("y",)), Support("N03", ("y",)))
    assert p.pairs == (Pair("N02", BiPlane("N03", (1.0, 0.0), dist_1=5.0, dist_2=5.0), Buckling(0.5, 1.0, 0.5)),)
    assert pf.stages == (Release(12.0, velocity={"N02": (2.0, 0.0), "N03": (-2.0, 0.0)}, start=0.0),)
    assert pf.steps == Uniform(2e-3, archive_every=5)
    full = load(write_one_dof(tmp_path, edited(TWO_MASSES.read_text(), FULL_BUCKLING)),
                [("pairs.N02.clearance", "-0.25"), ("pairs.0.biplane.direction", "[2, 0]")])
    assert full.problem.pairs == (Pair("N02", BiPlane("N03", (2.0, 0.0), 5.0, 5.0), Buckling(
        0.5, 1.0, 0.5, plateau=1.0, fall=1.0, post_displacements=(2.0, 3.0, 4.0, 5.0),
        post_stiffnesses=(0.2, 0.15, 0.125, 0.1), damping=10.0, fall_damping=5.0, post_dampings=(5.0,) * 4,
        criterion="EXCLUS"), clearance=-0.25),)
    pf = load(write_one_dof(tmp_path, SDND101))
    p = pf.problem
    assert (p.bodies, dict(p.point_masses)) == ((), {"NO1": 100.0})
    assert p.springs == (Spring("NO1", (1e4, 1e4), other="NO2"),)
    assert p.pairs == (Pair("NO1", RigidPlane((0.0, 0.0), (-1.0, 0.0)), Penalty(1e6, mu=0.0)),)
    assert pf.steps == CentralDifferences(5e-4, modes=1)
    # each by --set: a spring by its group, a penalty's tension, the physical dofs, a stage's own steps
    pf = load(pf.path, [("springs.NO1.damping", "[2, 3]"), ("pairs.0.tension_allowed", "true"), ("pairs.0.clearance", "1e-3"),
                        ("steps", '{ release = { kind = "central_differences", dt = 1e-4, archive_every = 2 } }')])
    assert pf.problem.springs == (Spring("NO1", (1e4, 1e4), (2.0, 3.0), "NO2"),)
    assert pf.problem.pairs[0].law == Penalty(1e6, tension_allowed=True) and pf.problem.pairs[0].clearance == 1e-3
    assert pf.steps == {"release": CentralDifferences(1e-4, archive_every=2)}


ONE_DOF_MISTAKES = [  # id, the file (two masses or SDND101), its edits, the key, a marker of its line, words
    ("biplane unknown key", "two", [("dist_2 = 5.0", "dist2 = 5.0")], "pairs[0].biplane.dist2", "biplane =",
     "unknown key (known: other, direction, dist_1, dist_2)"),
    ("biplane and plane", "two", [("biplane =", 'plane = { point = [0, 0], normal = [1, 0] }\nbiplane =')],
     "pairs[0].plane", "plane = {", 'give one of master (a line group), plane = { point = [x, y], normal = [nx, ny] } '
     'or biplane = { other = "GROUP" }, not both plane and biplane'),
    ("biplane other missing", "two", [('other = "N03", ', "")], "pairs[0].biplane.other", "biplane =",
     "missing (expected a string)"),
    ("biplane direction zero", "two", [("direction = [1.0, 0.0]", "direction = [0, 0]")], "pairs[0].biplane.direction",
     "biplane =", "the direction must not be [0, 0]: the obstacle's normal (NORM_OBST)"),
    ("biplane negative thickness", "two", [("dist_1 = 5.0", "dist_1 = -5.0")], "pairs[0].biplane.dist_1", "biplane =",
     "expected a number >= 0, got -5"),
    ("clearance a string", "two", [('law = "buckling"', 'clearance = "1 mm"\nlaw = "buckling"')], "pairs[0].clearance",
     "clearance", 'expected a number, got "1 mm"'),
    ("clearance infinite", "sdnd", [("mu = 0.0", "mu = 0.0\nclearance = inf")], "pairs[0].clearance", "clearance",
     "expected a finite number, got inf"),
    ("buckling negative critical force", "two", [("critical_force = 1.0", "critical_force = -1.0")],
     "pairs[0].critical_force", "critical_force", "expected a number > 0, got -1"),
    ("buckling critical force missing", "two", [("critical_force = 1.0 ", "# critical_force = 1.0")],
     "pairs[0].critical_force", "[[pairs]]", "missing (expected a number > 0)"),
    ("buckling post force above the critical (Buckling)", "two", [("post_force = 0.5", "post_force = 2.0")],
     "pairs[0].post_force", "post_force", "FNOR_POST_FL (post-buckling force, 2 N) must not exceed FNOR_CRIT "
     "(critical force, 1 N)"),
    ("buckling tables of two lengths (Buckling)", "two", [FULL_BUCKLING, ("[0.2, 0.15, 0.125, 0.1]", "[0.2]")],
     "pairs[0].post_displacements", "post_displacements", "DEPL_POST_FL (4 values) and RIGI_POST_FL (1 values) must "
     "have the same length"),
    ("buckling table not numbers", "two", [FULL_BUCKLING, ("[2.0, 3.0, 4.0, 5.0]", '[2.0, "3"]')],
     "pairs[0].post_displacements", "post_displacements", 'expected a list of finite numbers, got [2, "3"]'),
    ("buckling criterion", "two", [FULL_BUCKLING, ('"EXCLUS"', '"exclus"')], "pairs[0].criterion", "criterion",
     'expected one of "INCLUS", "EXCLUS", got "exclus"'),
    ("buckling has no mu", "two", [('law = "buckling"', 'law = "buckling"\nmu = 0.3')], "pairs[0].mu", "mu = 0.3",
     'only for law "lagrange" or "augmented" or "penalty" or "moreau_jean" (this pair\'s law is "buckling")'),
    ("buckling unknown key", "two", [("post_force = 0.5", "post_force = 0.5\nfnor_crit = 1.0")], "pairs[0].fnor_crit",
     "fnor_crit", "unknown key (known: slave, master, plane, biplane, law, name, clearance, stiffness, critical_force, "
     "post_force, plateau, fall, post_displacements, post_stiffnesses, damping, fall_damping, post_dampings, "
     "criterion)"),
    ("penalty tension not a flag", "sdnd", [("normal_stiffness = 1e6", "normal_stiffness = 1e6\ntension_allowed = 1")],
     "pairs[0].tension_allowed", "tension_allowed", "expected true or false, got 1"),
    ("central differences modes 0", "sdnd", [("modes = 1", "modes = 0")], "steps.modes", "modes",
     "expected an integer >= 1, got 0"),
    ("central differences modes not an integer", "sdnd", [("modes = 1", "modes = 1.5")], "steps.modes", "modes",
     "expected an integer >= 1, got 1.5"),
    ("central differences unknown key", "sdnd", [("modes = 1", "modes = 1\ntheta = 0.6")], "steps.theta", "theta",
     "unknown key (known: kind, dt, modes, archive_every)"),
    ("central differences dt missing", "sdnd", [("dt = 5e-4\n", "")], "steps.dt", "[steps]",
     "missing (expected a number > 0)"),
    ("a stage's central differences", "sdnd", [("[steps]", "[steps.release]"), ("dt = 5e-4", "dt = -5e-4")],
     "steps.release.dt", "dt =", "expected a number > 0, got -5e-4"),
    ("spring unknown key", "sdnd", [("stiffness = [1e4, 1e4]", "stifness = [1e4, 1e4]")], "springs[0].stifness",
     "stifness", "unknown key (known: group, stiffness, damping, other, name)"),
    ("spring stiffness negative", "sdnd", [("stiffness = [1e4, 1e4]", "stiffness = [1e4, -1e4]")],
     "springs[0].stiffness", "stiffness", "expected two finite numbers [x, y] >= 0, got [1e4, -1e4]"),
    ("spring group missing", "sdnd", [('group = "NO1"\nother', "other")], "springs[0].group", "[[springs]]",
     "missing (expected a string)"),
    ("point mass negative", "sdnd", [("NO1 = 100.0", "NO1 = -100.0")], "point_masses.NO1", "point_masses",
     "expected a number >= 0, got -100"),
    ("neither bodies nor point masses", "sdnd", [("point_masses = { NO1 = 100.0 }\n", "")], "materials", None,
     "missing (expected at least one [materials.NAME] table, or point_masses = { GROUP = kg } without bodies)"),
]


@pytest.mark.parametrize("base, edits, key, marker, words", [m[1:] for m in ONE_DOF_MISTAKES],
                         ids=[m[0] for m in ONE_DOF_MISTAKES])
def test_each_mistake_of_a_one_dof_file_is_one_line_naming_the_key_and_its_line(tmp_path, base, edits, key, marker,
                                                                                 words):
    text = edited(TWO_MASSES.read_text() if base == "two" else SDND101, *edits)
    path = write_one_dof(tmp_path, text)
    where = f"line {line_of(text, marker)}: " if marker else ""
    assert refusal(path) == f"{path}: {where}{key}: {words}"


def test_the_librarys_refusals_of_one_dof_pieces_come_out_in_the_files_terms(tmp_path):
    """A biplane, a spring naming a group the mesh lacks (fem.problem.assemble), more modes than the model has
    (the modal basis): each one line naming the key and its line; ``rockfem run``: exit 2, no folder."""
    text = edited(TWO_MASSES.read_text(), ('other = "N03"', 'other = "N09"'))
    pf = load(write_one_dof(tmp_path, text))
    with pytest.raises(BadInput) as caught:
        pf.assemble()
    assert str(caught.value) == (f"{pf.path}: line {line_of(text, 'biplane =')}: pairs[0].biplane.other: the mesh has "
                                 f"no line or node group 'N09'; it has: AXIS, N02, N03")
    done = rockfem("run", "one_dof.toml", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "" and not (tmp_path / "results").exists()
    assert done.stderr == f"error: one_dof.toml: line {line_of(text, 'biplane =')}: pairs[0].biplane.other: the " \
                          f"mesh has no line or node group 'N09'; it has: AXIS, N02, N03\n"
    text = edited(SDND101, ('other = "NO2"', 'other = "NO3"'))
    with pytest.raises(BadInput) as caught:
        load(write_one_dof(tmp_path, text)).assemble()
    assert str(caught.value).startswith(f"{tmp_path / 'one_dof.toml'}: line {line_of(text, 'NO3')}: springs[0].other: "
                                        f"the mesh has no line or node group 'NO3'")
    pf = load(write_one_dof(tmp_path, SDND101), [("steps.modes", "2")])
    with pytest.raises(BadInput) as caught, pf.refusals():
        simulate(pf.problem, pf.stages, steps=pf.steps)
    assert str(caught.value) == f"{pf.path}: steps.modes (--set steps.modes=2): n_modes must lie in 1..1, got 2"


def test_rockfem_run_of_sdnd101_gives_its_shock(tmp_path):
    """The mass on its spring against the shock, on the modal basis: the first contact lasts pi / omega_c (omega_c
    = sqrt((k + K) / m) = 100.499 rad/s, 0.031260 s) within 2 dt and peaks at K v0 / omega_c = 9950.4 N within
    1e-3 (sampled: (omega_c dt)^2 / 8 = 3e-4 at most)."""
    write_one_dof(tmp_path, SDND101)
    done = rockfem("run", "one_dof.toml", "--out", "out", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["t_reached"] == pytest.approx(0.1)
    h = np.genfromtxt(tmp_path / "out" / "history.csv", delimiter=",", names=True)
    t, rn = h["t"], h["rnNO1plane"]
    first = np.flatnonzero(rn > 0)
    first = first[:np.argmax(np.diff(first) > 1) + 1] if np.any(np.diff(first) > 1) else first  # the first contact
    m, k, K, v0, dt = 100.0, 1e4, 1e6, 1.0, 5e-4
    omega_c = math.sqrt((k + K) / m)
    assert t[first[-1]] - t[first[0]] == pytest.approx(math.pi / omega_c, abs=2 * dt)
    assert rn[first].max() == pytest.approx(K * v0 / omega_c, rel=1e-3)


def test_rockfem_runs_the_two_masses_example_to_the_buckling_elements_unloading_triangle(tmp_path):
    """examples/two_masses_buckling.toml (SDND105 b): exit 0, the books within 1 % (as every example); the element
    buckles at pi/6 s (its force reaches F_c = 1 N), the masses part with the unloading triangle's 0.5 J (m v^2 / 2
    each at v = 1/sqrt(2) m/s) after 3.5 J spent, leaving a crush of 6 m where the element lets go."""
    out = tmp_path / "out"
    done = rockfem("run", TWO_MASSES, "--out", out, "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["energy"]["relative_error"] <= 0.01
    assert len(TWO_MASSES.read_text().splitlines()) <= 40
    h = np.genfromtxt(out / "history.csv", delimiter=",", names=True)
    assert h["t"][np.argmax(h["rnN02N03"])] == pytest.approx(math.pi / 6, abs=5 * 2e-3)  # archived every 5th step
    assert h["rnN02N03"].max() == pytest.approx(1.0, rel=5e-3)
    assert (h["ke"][0], h["ke"][-1], h["term_work"][-1]) == pytest.approx((4.0, 0.5, 3.5), rel=1e-3)
    assert -h["max_gapN02N03"].min() == pytest.approx(6.0, rel=1e-3)
