"""Absurd numbers in a problem file or the Python API are refused before anything is written (fem/ranges.py).

* Every number of a problem file against its physical range (fem.ranges): materials, gravity, thickness,
  point masses, springs, laws, clearances, stages (durations, times, velocities, Newton settings), closed
  forms, records, steps; one line ``file: line N: key: VALUE UNIT is outside the physical range ... of a
  KIND: why`` (``file: key (--set K=V): ...`` for an override), in the examples copied to tmp_path.
* Derived quantities: a record or a closed form scaled beyond the 100 g of a record's samples (named by its
  ``scale``), a tilt's angle times its ramp, an imposed value times its ramp.
* A step longer than the stage it cuts (or a trillionth of it), in a file and through simulate().
* ``rockfem run`` (cases.problem_file.cli.main): exit 2, one ``error:`` line, the --out folder not created.
* The Python API: a body's material, the laws, the closed forms, scaled motions and records, a base motion
  of a record built by hand, the steps, simulate() of a stage alone.

Every refusal here comes before any solve: the whole file runs in a few seconds.
"""
from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from cases.problem_file import cli
from cases.problem_file import load
from contact.laws import Augmented, Buckling, Lagrange, MoreauJean, Penalty
from fem.loads import base_motion as bm
from fem.loads.functions import PiecewiseLinear
from fem.model.material import ElasticMaterial
from fem.problem import (BaseMotion, Body, CentralDifferences, EventSteps, ImposedMotion, Pair, Preload, Problem,
                         Release, Support, Tilt, Uniform, Windows, simulate)
from fem.loads.applied import ImposedDisplacement
from fem.ranges import BadInput
from helpers import refusal

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
MESH = ROOT / "meshes" / "sdnv105_quad4.msh"
PULSE, STACK, TWO, BLOCK = "block_on_table_pulse.toml", "stack_of_two.toml", "two_masses_buckling.toml", \
    "sdnv105_block.toml"
OUTSIDE = "is outside the physical range"


def copy_example(folder: Path, name: str, *edits: tuple[str, str]) -> Path:
    """examples/``name`` in ``folder`` beside what it reads (its mesh, records), ``edits`` applied to its text."""
    text = (EXAMPLES / name).read_text().replace('"../meshes/sdnv105_quad4.msh"', f'"{MESH}"')
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    for msh in EXAMPLES.glob("*.msh"):
        shutil.copy(msh, folder / msh.name)
    shutil.copytree(EXAMPLES / "records", folder / "records", dirs_exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def line_of(path: Path, marker: str) -> int:
    return next(k for k, line in enumerate(path.read_text().splitlines(), start=1) if marker in line)


def test_the_examples_load_as_they_are(tmp_path):
    for name in (PULSE, STACK, TWO, BLOCK):
        load(copy_example(tmp_path, name))


# ------------------------------------------------------------------------------------ overrides, one per key
#: (example, --set key, value, the file's key in the message, what the message says after it)
OVERRIDES = [
    (PULSE, "materials.graphite.young", "1e-300", "materials.graphite.young",
     "1e-300 Pa is outside the physical range [1, 1e16] Pa of a material's Young's modulus: "),
    (PULSE, "materials.table.young", "1e17", "materials.table.young", "1e17 Pa is outside the physical range [1, 1e16] Pa"),
    (PULSE, "materials.graphite.density", "1e299", "materials.graphite.density",
     "1e299 kg/m^3 is outside the physical range [1e-3, 1e6] kg/m^3 of a density: "),
    (PULSE, "materials.graphite.density", "1e-9", "materials.graphite.density", "1e-9 kg/m^3 " + OUTSIDE),
    (PULSE, "materials.table.rayleigh_stiffness", "10", "materials.table.rayleigh_stiffness",
     "10 s is outside the physical range [0, 1] s of a stiffness-proportional damping AMOR_ALPHA"),
    (PULSE, "materials.table.rayleigh_mass", "1e300", "materials.table.rayleigh_mass",
     "1e300 1/s is outside the physical range [0, 1e4] 1/s of a mass-proportional damping AMOR_BETA"),
    (PULSE, "gravity", "1e5", "gravity", "1e5 m/s^2 is outside the physical range 0 or [1e-3, 1000] m/s^2 of a gravity"),
    (PULSE, "gravity", "1e-300", "gravity", "1e-300 m/s^2 " + OUTSIDE),
    (PULSE, "thickness", "1e-300", "thickness", "1e-300 m is outside the physical range [1e-6, 1e4] m of a length"),
    (PULSE, "thickness", "1e300", "thickness", "1e300 m " + OUTSIDE),
    (PULSE, "pairs.base.mu", "50", "pairs[0].mu", "50 is outside the physical range [0, 10] of a friction coefficient"),
    (PULSE, "pairs.base.clearance", "-1e9", "pairs[0].clearance",
     "|-1e9| m is outside the physical range [0, 1000] m of a gap"),
    (PULSE, "stages.preload.duration", "1e300", "stages[0].duration",
     "1e300 s is outside the physical range [1e-12, 1e5] s of a duration"),
    (PULSE, "stages.preload.friction", "1e6", "stages[0].friction", "1e6 " + OUTSIDE),
    (PULSE, "stages.shake.duration", "1e9", "stages[1].duration", "1e9 s " + OUTSIDE),
    (PULSE, "stages.shake.duration", "1e-300", "stages[1].duration", "1e-300 s " + OUTSIDE),
    (PULSE, "stages.shake.x.amplitude_g", "1e6", "stages[1].x.amplitude_g",
     "1e6 g is outside the physical range 0 or [1e-6, 20] g of a table acceleration"),
    (PULSE, "stages.shake.x.amplitude_g", "-1e6", "stages[1].x.amplitude_g", "|-1e6| g " + OUTSIDE),
    (PULSE, "stages.shake.x.amplitude_g", "1e-300", "stages[1].x.amplitude_g", "1e-300 g " + OUTSIDE),
    (PULSE, "stages.shake.x.frequency", "1e6", "stages[1].x.frequency",
     "1e6 Hz is outside the physical range [1e-3, 1000] Hz of a frequency"),
    (PULSE, "stages.shake.x.frequency", "1e-300", "stages[1].x.frequency", "1e-300 Hz " + OUTSIDE),
    (PULSE, "stages.shake.x.scale", "1e300", "stages[1].x.scale",
     "1e300 is outside the physical range 0 or [1e-8, 1e8] of a scale factor"),
    (PULSE, "stages.shake.x.scale", "1e3", "stages[1].x.scale",  # 0.6 g x 1000: beyond a record's 100 g
     "1000 takes the peak acceleration 0.6 g to 600 g, outside the physical range [-100, 100] g of a record sample"),
    (PULSE, "steps.dt", "1e-300", "steps.dt", "1e-300 s is outside the physical range [1e-15, 1e5] s of a time step"),
    (PULSE, "steps.dt_fine", "1e-20", "steps.dt_fine", "1e-20 s " + OUTSIDE),
    (PULSE, "steps.tolerance", "1", "steps.tolerance", "1 m is outside the physical range [1e-12, 0.01] m"),
    (PULSE, "steps.growth", "1e9", "steps.growth", "1e9 is outside the physical range (1, 100] of a step growth ratio"),
    (PULSE, "steps.lookahead", "1e300", "steps.lookahead", "1e300 coarse steps " + OUTSIDE),
    (PULSE, "steps.archive_every", "10000000000000", "steps.archive_every", "1e13 steps " + OUTSIDE),
    (STACK, "stages.shake.x.scale", "1e300", "stages[1].x.scale", "1e300 is outside the physical range 0 or [1e-8, 1e8]"),
    (STACK, "stages.shake.y.scale", "-1e-300", "stages[1].y.scale", "|-1e-300| " + OUTSIDE),
    (STACK, "stages.shake.x.scale", "500", "stages[1].x.scale",  # the record's 0.34 g, scaled: its 100 g too
     "500 takes the peak acceleration 0.3438 g to 171.9 g, outside the physical range [-100, 100] g of a record sample"),
    (STACK, "stages.shake.x.peak_g", "1e3", "stages[1].x.peak_g",
     "1000 g is outside the physical range [1e-6, 20] g of a table acceleration"),
    (STACK, "steps", '{ kind = "uniform", dt = 1e300 }', "steps.dt", "1e300 s " + OUTSIDE),
    (STACK, "steps", '{ kind = "windows", rows = [[0, 1e9, 1e-3, 0, true]] }', "steps.rows[0].t_end",
     "1e9 s is outside the physical range [-1e5, 1e5] s of a time"),
    (TWO, "point_masses.N02", "1e300", "point_masses.N02", "1e300 kg is outside the physical range 0 or [1e-6, 1e9] kg"),
    (TWO, "pairs.0.stiffness", "1e300", "pairs[0].stiffness",
     "1e300 N/m is outside the physical range [1e-6, 1e16] N/m of a stiffness"),
    (TWO, "pairs.0.critical_force", "1e300", "pairs[0].critical_force", "1e300 N is outside the physical range"),
    (TWO, "pairs.0.plateau", "1e300", "pairs[0].plateau", "1e300 m is outside the physical range 0 or [1e-6, 1e4] m"),
    (TWO, "pairs.0.post_displacements", "[2.0, 1e300]", "pairs[0].post_displacements[1]", "1e300 m " + OUTSIDE),
    (TWO, "pairs.0.biplane.dist_1", "1e9", "pairs[0].biplane.dist_1", "1e9 m is outside the physical range [0, 1000] m"),
    (TWO, "stages.release.end", "1e9", "stages[0].end", "1e9 s is outside the physical range [-1e5, 1e5] s of a time"),
    (TWO, "stages.release.velocity.N02", "[1e300, 0.0]", "stages[0].velocity.N02[0]",
     "1e300 m/s is outside the physical range [-1e4, 1e4] m/s of a velocity"),
    (TWO, "steps.dt", "1e-300", "steps.dt", "1e-300 s " + OUTSIDE),
    (BLOCK, "stages.self_weight.newton.rela", "1e-300", "stages[0].newton.rela",
     "1e-300 is outside the physical range [1e-15, 1] of a relative residual tolerance"),
    (BLOCK, "stages.self_weight.newton.maxi", "1e300", "stages[0].newton.maxi", "1e300 N " + OUTSIDE),
    (BLOCK, "stages.release.newton.max_iterations", "1000000", "stages[2].newton.max_iterations",
     "1e6 is outside the physical range [1, 1000] of a number of Newton iterations"),
    (BLOCK, "stages.self_weight.start", "-1e300", "stages[0].start", "-1e300 s " + OUTSIDE),
    (BLOCK, "stages.tilt.ramp.times", "[-1e300, -0.5]", "stages[1].ramp.times[0]", "-1e300 s " + OUTSIDE),
    (BLOCK, "stages.tilt.ramp.values", "[0.0, 1e6]", "stages[1].ramp.values",  # derived: the angle times the ramp
     "its largest value 1e6 turns the angle 0.05 rad to 5e4 rad, outside the physical range [0, 1.5708] rad"),
]


@pytest.mark.parametrize("example, key, value, named, says", [c for c in OVERRIDES],
                         ids=[f"{c[0].split('.')[0]}:{c[1]}={c[2]}" for c in OVERRIDES])
def test_a_number_outside_its_physical_range_is_refused_naming_the_override(tmp_path, example, key, value, named,
                                                                           says):
    path = copy_example(tmp_path, example)
    message = refusal(path, [(key, value)])
    assert message.startswith(f"{path}: {named} (--set {key}={value}): "), message
    assert says in message, message


# ------------------------------------------------------------------------------------ in the file: its line
#: (example, edit of its text, the key, a marker of the key's line, what the message says)
EDITS = [
    (STACK, ("young = 6e11", "young = 1e-300"), "materials.graphite.young", "graphite =",
     "1e-300 Pa is outside the physical range [1, 1e16] Pa of a material's Young's modulus: from softer than any "
     "foam to a rigid support's proxy (the benchmark's table has 1e14 Pa)"),
    (STACK, ("density = 1450.0, rayleigh_stiffness = 1.6e-3", "density = 1e299, rayleigh_stiffness = 1.6e-3"),
     "materials.table.density", "table =", "1e299 kg/m^3 " + OUTSIDE),
    (STACK, ("mu = 0.6", "mu = 1e6"), "pairs[1].mu", "JOINT_1_ESCL", "1e6 " + OUTSIDE),
    (STACK, ("column = 1, scale = 2.5", "column = 1, scale = 1e300"), "stages[1].x.scale", "x = { record",
     "1e300 " + OUTSIDE),
    (PULSE, ("amplitude_g = 0.6", "amplitude_g = 1e6"), "stages[1].x.amplitude_g", "x = { kind",
     "1e6 g " + OUTSIDE),
    (PULSE, ("amplitude_g = 0.6", "amplitude = 1e9"), "stages[1].x.amplitude", "x = { kind",
     "1e9 m/s^2: its magnitude, 1.019e8 g, is outside the physical range 0 or [1e-6, 20] g of a table acceleration"),
    (PULSE, ("frequency = 2.0 }", "frequency = 2.0, scale = 1e3 }"), "stages[1].x.scale", "x = { kind",
     "1000 takes the peak acceleration 0.6 g to 600 g"),
    (PULSE, ("dt = 1e-3", "dt = 1e-3\ntolerance = 1e300"), "steps.tolerance", "tolerance", "1e300 m " + OUTSIDE),
    (TWO, ("stiffness = 0.5 ", "stiffness = 1e300 "), "pairs[0].stiffness", "stiffness", "1e300 N/m " + OUTSIDE),
]


@pytest.mark.parametrize("example, edit, key, marker, says", EDITS, ids=[f"{e[0].split('.')[0]}:{e[2]}" for e in EDITS])
def test_a_number_outside_its_physical_range_is_refused_at_its_line(tmp_path, example, edit, key, marker, says):
    path = copy_example(tmp_path, example, edit)
    message = refusal(path)
    assert message.startswith(f"{path}: line {line_of(path, marker)}: {key}: "), message
    assert says in message, message


# ------------------------------------------------------------------------------------ a step against its stage
@pytest.mark.parametrize("example, overrides, says", [
    (PULSE, [("steps.dt", "1.0"), ("stages.shake.duration", "0.1")],
     "steps.dt (--set steps.dt=1.0): 1 s is longer than the stage 'shake' it cuts (its duration, 0.1 s): a step must "
     "not exceed its stage"),
    (PULSE, [("steps", '{ kind = "uniform", dt = 1.0 }'), ("stages.shake.duration", "0.1")],
     "steps.dt (--set steps={ kind = \"uniform\", dt = 1.0 }): 1 s is longer than the stage 'shake' it cuts"),
    (PULSE, [("steps", '{ kind = "uniform", dt = 1e-15 }'), ("stages.shake.duration", "1e4")],
     "1e-15 s is shorter than 1e-12 of the stage 'shake' it cuts (its duration, 1e4 s): more than a trillion steps"),
    (BLOCK, [("steps.release.dt", "0.5"), ("steps.release.dt_fine", "1e-4")],
     "steps.release.dt (--set steps.release.dt=0.5): 0.5 s is longer than the stage 'release' it cuts (0.2 s, from 0 "
     "to 0.2 s)"),
    (TWO, [("steps.dt", "20")], "steps.dt (--set steps.dt=20): 20 s is longer than the stage 'release' it cuts "
                                "(12 s, from 0 to 12 s)"),
])
def test_a_step_longer_than_its_stage_is_refused(tmp_path, example, overrides, says):
    path = copy_example(tmp_path, example)
    message = refusal(path, overrides)
    assert message.startswith(f"{path}: steps"), message
    assert says in message, message


def test_a_steps_table_of_the_stages_own_is_refused_at_its_line(tmp_path):
    path = copy_example(tmp_path, BLOCK, ("[steps.release]           # fine steps of 0.1 ms around impacts, coarse "
                                          "ones of 1 ms between\nkind = \"events\"\ndt = 1e-3",
                                          "[steps.release]\nkind = \"events\"\ndt = 0.5"))
    assert refusal(path) == (f"{path}: line {line_of(path, 'dt = 0.5')}: steps.release.dt: 0.5 s is longer than the "
                             f"stage 'release' it cuts (0.2 s, from 0 to 0.2 s): a step must not exceed its stage")


# ------------------------------------------------------------------------------------ stages that are no list
def test_stages_given_as_a_string_or_a_table_are_refused_naming_stages(tmp_path):
    path = copy_example(tmp_path, PULSE)
    assert refusal(path, [("stages", '"preload"')]) == \
        f'{path}: stages (--set stages="preload"): expected an array of tables ([[stages]] entries), got "preload"'
    table = copy_example(tmp_path, PULSE, ('[[stages]]\nkind = "preload"\n\n[[stages]]', "[stages]"))
    message = refusal(table)
    assert message.startswith(f"{table}: line {line_of(table, '[stages]')}: stages: expected an array of tables "
                              f"([[stages]] entries), got {{ kind = "), message


def test_simulate_refuses_a_stage_alone_before_anything_is_written(tmp_path):
    problem = Problem(MESH, [Body("BLOCK", ElasticMaterial(6e11, 0.2, 1450.0))], [Support("CTGROUND")])
    out = tmp_path / "out"
    for stages, got in ((Preload(), "Preload"), ("preload", "str"), (BaseMotion(0.1), "BaseMotion"), (3, "int")):
        with pytest.raises(BadInput) as caught:
            simulate(problem, stages, out=out)
        assert str(caught.value) == (f"stages: expected a list of stages (e.g. [Preload(), BaseMotion(...)]), got "
                                     f"{got}")
    assert not out.exists()


# ------------------------------------------------------------------------------------ rockfem run: exit 2
@pytest.mark.parametrize("example, key, value, says", [
    (PULSE, "materials.graphite.young", "1e-300", "materials.graphite.young (--set materials.graphite.young=1e-300): "
                                                  "1e-300 Pa is outside the physical range [1, 1e16] Pa"),
    (PULSE, "stages.shake.x.amplitude_g", "1e6", "stages[1].x.amplitude_g (--set stages.shake.x.amplitude_g=1e6): 1e6 g "
                                                 "is outside the physical range"),
    (STACK, "stages.shake.x.scale", "1e3", "stages[1].x.scale (--set stages.shake.x.scale=1e3): 1000 takes the peak "
                                           "acceleration 0.3438 g to 343.8 g"),
    (PULSE, "materials.graphite.density", "1e299", "materials.graphite.density (--set "
                                                   "materials.graphite.density=1e299): 1e299 kg/m^3 is outside"),
    (PULSE, "steps.dt", "5", "steps.dt (--set steps.dt=5): 5 s is longer than the stage 'shake' it cuts"),
])
def test_rockfem_run_refuses_with_exit_2_one_line_and_no_folder(tmp_path, capsys, example, key, value, says):
    path = copy_example(tmp_path, example)
    out = tmp_path / "out"
    code = cli.main(["run", str(path), "--set", f"{key}={value}", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {path}: {says}"), err
    assert not out.exists()


# ------------------------------------------------------------------------------------ the Python API
GRAPHITE = dict(young=6e11, poisson=0.2, density=1450.0)


@pytest.mark.parametrize("field, value, says", [
    ("young", 1e-300, "bodies.BLOCK.material.young: 1e-300 Pa is outside the physical range [1, 1e16] Pa"),
    ("young", 1e17, "bodies.BLOCK.material.young: 1e17 Pa " + OUTSIDE),
    ("density", 1e299, "bodies.BLOCK.material.density: 1e299 kg/m^3 " + OUTSIDE),
    ("density", 5e-324, "bodies.BLOCK.material.density: 5e-324 kg/m^3 " + OUTSIDE),
    ("rayleigh_stiffness", 1e3, "bodies.BLOCK.material.rayleigh_stiffness: 1000 s " + OUTSIDE),
    ("rayleigh_mass", 1e300, "bodies.BLOCK.material.rayleigh_mass: 1e300 1/s " + OUTSIDE),
])
def test_a_bodys_material_outside_its_range_is_refused_naming_its_field(field, value, says):
    material = ElasticMaterial(**{**GRAPHITE, field: value})  # its signs are right: the range is the body's check
    with pytest.raises(BadInput) as caught:
        Body("BLOCK", material)
    assert str(caught.value).startswith(says), caught.value


@pytest.mark.parametrize("build, says", [
    (lambda: Lagrange(mu=50.0), "Lagrange: mu 50 is outside the physical range [0, 10] of a friction coefficient"),
    (lambda: MoreauJean(mu=1e300), "MoreauJean: mu 1e300 " + OUTSIDE),
    (lambda: Augmented(0.5, coef_cont=1e300), "Augmented: coef_cont 1e300 is outside the physical range [1e-6, 1e6]"),
    (lambda: Augmented(0.5, coef_frot=1e-300), "Augmented: coef_frot 1e-300 " + OUTSIDE),
    (lambda: Penalty(1e300), "Penalty: normal_stiffness 1e300 N/m is outside the physical range [1e-6, 1e16] N/m"),
    (lambda: Penalty(1e-300), "Penalty: normal_stiffness 1e-300 N/m " + OUTSIDE),
    (lambda: Penalty(1e10, normal_damping=1e300), "Penalty: normal_damping 1e300 N s/m " + OUTSIDE),
    (lambda: Penalty(1e10, tangential_stiffness=1e300), "Penalty: tangential_stiffness 1e300 N/m " + OUTSIDE),
    (lambda: Buckling(1e300, 1.0, 0.5), "Buckling: stiffness 1e300 N/m " + OUTSIDE),
    (lambda: Buckling(1.0, 1e300, 0.5), "Buckling: critical_force 1e300 N " + OUTSIDE),
    (lambda: Buckling(1.0, 1.0, 0.5, plateau=1e300), "Buckling: plateau 1e300 m " + OUTSIDE),
])
def test_a_laws_number_outside_its_range_is_refused_naming_its_field(build, says):
    with pytest.raises(BadInput) as caught:
        build()
    assert str(caught.value).startswith(says), caught.value


G = bm.STANDARD_GRAVITY


@pytest.mark.parametrize("build, says", [
    (lambda: bm.SinePulse(1e6 * G, 2.0), "SinePulse: amplitude 9.81e6 m/s^2: its magnitude, 1e6 g, is outside the "
                                         "physical range 0 or [1e-6, 20] g of a table acceleration"),
    (lambda: bm.CosinePulse(-1e300, 2.0), "CosinePulse: amplitude -1e300 m/s^2: its magnitude"),
    (lambda: bm.Harmonic(1.0, 1e6), "Harmonic: frequency 1e6 Hz is outside the physical range [1e-3, 1000] Hz"),
    (lambda: bm.Harmonic(1.0, 2.0, cycles=1e300), "Harmonic: cycles 1e300 " + OUTSIDE),
    (lambda: bm.Harmonic(1.0, 2.0, smooth_start=1e300), "Harmonic: smooth_start 1e300 s " + OUTSIDE),
    (lambda: bm.Ramp(1.0, 1e-300), "Ramp: ramp_time 1e-300 s " + OUTSIDE),
    (lambda: bm.Ramp(1.0, 0.1, 1e300), "Ramp: hold_time 1e300 s " + OUTSIDE),
    (lambda: bm.scaled(bm.SinePulse(0.6 * G, 2.0), 1e300), "scaled: factor 1e300 is outside the physical range 0 or "
                                                           "[1e-8, 1e8] of a scale factor"),
    (lambda: bm.scaled(bm.SinePulse(0.6 * G, 2.0), -1e3), "scaled: factor -1000 takes the peak acceleration 0.6 g to "
                                                          "600 g, outside the physical range [-100, 100] g"),
    (lambda: bm.Scaled(bm.scaled(bm.SinePulse(10 * G, 2.0), 5.0), 5.0), "scaled: factor 5 takes the peak acceleration "
                                                                        "50 g to 250 g"),
    (lambda: bm.read_record(EXAMPLES / "records" / "synthetic_h_v.csv", scale=500.0),
     "synthetic_h_v.csv: scale 500 takes the peak acceleration 0.3438 g to 171.9 g, outside the physical range "
     "[-100, 100] g of a record sample"),
    (lambda: bm.read_record(EXAMPLES / "records" / "synthetic_h_v.csv", scale=1e300), "synthetic_h_v.csv: scale 1e300 "
                                                                                      + OUTSIDE),
    (lambda: bm.read_record(EXAMPLES / "records" / "synthetic_h_v.csv", peak_g=1e3), "synthetic_h_v.csv: peak_g 1000 g "
                                                                                     + OUTSIDE),
    (lambda: bm.scaled(bm.read_record(EXAMPLES / "records" / "synthetic_h_v.csv"), 500.0),
     "scaled: factor 500 takes the peak acceleration 0.3438 g to 171.9 g"),
])
def test_a_motion_outside_its_range_or_scaled_beyond_100_g_is_refused(build, says):
    with pytest.raises(BadInput) as caught:
        build()
    assert says in str(caught.value), caught.value


def test_the_motions_at_the_edges_of_their_ranges_are_accepted():
    assert bm.scaled(bm.SinePulse(20 * G, 2.0), 5.0).peak_acceleration == pytest.approx(100 * G)
    assert bm.scaled(bm.read_record(EXAMPLES / "records" / "synthetic_h_v.csv"), -2.5) is not None
    assert bm.Harmonic(0.0, 1e3, cycles=math.inf).amplitude == 0.0  # a component at rest, for ever
    assert bm.Ramp(-20 * G, 1e-12, math.inf).hold_time == math.inf


@pytest.mark.parametrize("build, says", [
    (lambda: BaseMotion(1e300), "stages.base motion.duration: 1e300 s " + OUTSIDE),
    (lambda: BaseMotion(1.0, x=bm.Record((0.0, 1.0), (0.0, 200 * G))),  # a record built by hand: its 100 g
     "stages.base motion.x: its peak acceleration, 200 g, is outside the physical range [-100, 100] g"),
    (lambda: Preload(duration=1e-300), "stages.preload.duration: 1e-300 s " + OUTSIDE),
    (lambda: Release(end=1e9), "stages.release.end: 1e9 s " + OUTSIDE),
    (lambda: Release(end=1.0, friction=1e3), "stages.release.friction: 1000 " + OUTSIDE),
    (lambda: Release(end=1.0, velocity={"A": (0.0, -1e300)}), "stages.release.velocity.A: -1e300 m/s " + OUTSIDE),
    (lambda: Release(end=1.0, gravity=(0.0, -1e300)), "stages.release.gravity: its magnitude 1e300 m/s^2 " + OUTSIDE),
    (lambda: Tilt(0.0, 0.05, ("C1",), "O", PiecewiseLinear((-1.0, 0.0), (0.0, 1e6)), start=-1.0),
     "stages.tilt.ramp.values: its largest value 1e6 turns the angle 0.05 rad to 5e4 rad"),
    (lambda: ImposedMotion(0.0, (ImposedDisplacement("C1", "x", 1e300),), start=-1.0),
     "stages.imposed motion.motions[0].value: 1e300 m is outside the physical range [-1e4, 1e4] m of a displacement"),
    (lambda: ImposedMotion(0.0, (ImposedDisplacement("C1", "x", -0.008, PiecewiseLinear((-1.0, 0.0), (0.0, 1e9))),),
                           start=-1.0),
     "stages.imposed motion.motions[0].ramp.values: its largest value 1e9 takes the value -8e-3 m to 8e6 m"),
    (lambda: Uniform(1e300), "steps.dt: 1e300 s is outside the physical range [1e-15, 1e5] s of a time step"),
    (lambda: Uniform(1e-3, archive_every=10**13), "steps.archive_every: 1e13 steps " + OUTSIDE),
    (lambda: CentralDifferences(1e-300), "steps.dt: 1e-300 s " + OUTSIDE),
    (lambda: CentralDifferences(1e-3, modes=10**9), "steps.modes: 1e9 " + OUTSIDE),
    (lambda: Windows([(0.0, 1.0, 1e-300, 0.0, False)]), "steps.rows[0].dt: 1e-300 s " + OUTSIDE),
    (lambda: Problem(MESH, [], point_masses={"O": 1e300}), "point_masses.O: 1e300 kg " + OUTSIDE),
    (lambda: Problem(MESH, [], point_masses={"O": 1.0}, gravity=1e300), "gravity: 1e300 m/s^2 " + OUTSIDE),
    (lambda: Problem(MESH, [], point_masses={"O": 1.0}, thickness=1e-300), "thickness: 1e-300 m " + OUTSIDE),
])
def test_a_stage_step_or_problem_number_outside_its_range_is_refused_naming_its_key(build, says):
    with pytest.raises(BadInput) as caught:
        build()
    assert str(caught.value).startswith(says), caught.value


def _block_on_table() -> Problem:
    return Problem(MESH, [Body("BLOCK", ElasticMaterial(6e11, 0.2, 1450.0)), Body("GROUN", ElasticMaterial(1e14, 0.3,
                                                                                                           2500.0))],
                   [Support("CTGROUND", ("y",)), Support("S1", ("x",))], [Pair("CONHAUT", "CONBAS", Lagrange(0.9))])


@pytest.mark.parametrize("steps, says", [
    (Uniform(1.0), "steps.dt: 1 s is longer than the stage 'shake' it cuts (its duration, 0.1 s): a step must not "
                   "exceed its stage"),
    (EventSteps(1.0, 1e-4), "steps.dt: 1 s is longer than the stage 'shake' it cuts (its duration, 0.1 s)"),
    ({"shake": CentralDifferences(0.5)}, "steps.shake.dt: 0.5 s is longer than the stage 'shake' it cuts"),
    (EventSteps(1e-3, 1e-4, growth=1e9), "steps.growth: 1e9 is outside the physical range (1, 100]"),
    ({"shake": EventSteps(1e-3, 1e-4, tolerance=1.0)}, "steps.shake.tolerance: 1 m " + OUTSIDE),
])
def test_simulate_refuses_a_step_that_does_not_fit_its_stage_before_anything_is_written(tmp_path, steps, says):
    out = tmp_path / "out"
    with pytest.raises(BadInput) as caught:
        simulate(_block_on_table(), [Preload(), BaseMotion(0.1, x=bm.SinePulse(0.6 * G, 2.0), name="shake")], out=out,
                 steps=steps)
    assert str(caught.value).startswith(says), caught.value
    assert not out.exists()


def test_every_new_range_is_in_the_table_with_its_reason():
    from fem import ranges
    for kind in (ranges.MATERIAL_YOUNG, ranges.RAYLEIGH_BETA, ranges.DISPLACEMENT, ranges.AUGMENTATION, ranges.SCALE,
                 ranges.RELATIVE_TOLERANCE, ranges.NEWTON_ITERATIONS, ranges.STEP_GROWTH, ranges.LOOKAHEAD,
                 ranges.ARCHIVE_EVERY, ranges.MODES):
        assert ranges.TABLE[kind.name] is kind and kind.why
    # the scripts' materials (SDNV105's table at 1e14 Pa, the bar's E = rho = 1) and the examples' stay inside
    for young, density in ((1e14, 2500.0), (6e11, 1450.0), (1.0, 1.0), (1e16, 1e-3)):
        Body("B", ElasticMaterial(young, 0.2, density))
    assert (ranges.short(51234.5), ranges.short(171.87), ranges.short(1.23456e-7)) == ("5.123e4", "171.9", "1.235e-7")
