"""Checks a problem states (fem.problem.checks, a problem file's [[checks]]), graded as Code_Aster's TEST_RESU.

- The reductions on a history whose answer is written down: a value at an instant (linear between
  steps), max / min / max_abs over a window and the instant of the extreme, the integral (an impulse)
  against the closed form of a sine's integral.
- TEST_RESU's grading: RELATIF |v - r| <= tol |r|, ABSOLU |v - r| <= tol, at and just beyond the bound;
  a quantity the run never reached is not met.
- End to end through ``rockfem run``: the one-sine pulse of examples/block_on_table_pulse.toml with its
  first impact checked against the rigid block recomputed for it (contact.references.rocking_base,
  Housner's block: the FE block meets its first impact within 0.2 %, the README's figure), the block's
  largest rotation checked against its own history.csv; ``--strict`` exits 1 when a check is missed; a
  check the problem cannot grade is refused on one line, exit 2, nothing written.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from cases.problem_file import cli
from fem.io.history import read_history
from fem.problem import Check
from fem.problem.checks import evaluate, grade
from fem.ranges import BadInput
from helpers import pulse_problem

G0 = 9.80665  # amplitude_g is in standard g


def _outcome(histories, impacts=(), bodies=None, pairs=None):
    return SimpleNamespace(histories=histories, impacts=list(impacts), bodies=bodies or {}, pairs=pairs or {})


def _sine_history(n=2001):
    t = np.linspace(0.0, math.pi, n)
    return {"t": t, "theta[B]": np.sin(t) - 0.25, "rn[P]": np.sin(t), "ke": 0.5 * np.sin(t) ** 2}


def test_a_value_at_an_instant_is_interpolated_between_the_steps():
    h = {"t": np.array([0.0, 1.0, 2.0]), "theta[B]": np.array([0.0, 1.0, 4.0])}
    [row] = evaluate([Check("rotation", of="B", at=1.5, reference=2.5, tolerance=1e-12, source="written")],
                     _outcome({"s": h}), "s")
    assert row["value"] == pytest.approx(2.5, abs=1e-15) and row["within_tolerance"] is True


@pytest.mark.parametrize("measure, window, result, expected", [
    ("max", None, "value", 0.75), ("min", None, "value", -0.25), ("max_abs", (0.0, 0.1), "value", 0.25),
    ("max", None, "instant", math.pi / 2), ("min", (1.0, 2.0), "value", math.sin(1.0) - 0.25),
    ("min", (1.0, 2.0), "instant", 1.0), ("max", (2.0, 3.0), "instant", 2.0)])
def test_extremes_over_a_window_and_their_instants(measure, window, result, expected):
    h = _sine_history()
    c = Check("rotation", of="B", measure=measure, window=window, result=result, reference=expected,
              tolerance=2e-3, source="sin(t) - 1/4", criterion="absolute")
    [row] = evaluate([c], _outcome({"s": h}), "s")
    assert row["value"] == pytest.approx(expected, abs=2e-3)  # the steps are pi / 2000 apart
    assert row["within_tolerance"] is True


@pytest.mark.parametrize("ends, expected", [
    # samples 0, 1, 2, 3, 4 of x = t: a window [1, 3] takes 3 as its max and 1 as its min with its ends,
    # 2 for both without them (Code_Aster's filters 1 < t < 3)
    (("closed", "closed"), (3.0, 1.0)), (("open", "closed"), (3.0, 2.0)), (("closed", "open"), (2.0, 1.0)),
    (("open", "open"), (2.0, 2.0))])
def test_a_windows_open_ends_leave_out_the_steps_on_them(ends, expected):
    h = {"t": np.arange(5.0), "theta[B]": np.arange(5.0)}
    rows = evaluate([Check("rotation", of="B", measure=m, window=(1.0, 3.0), ends=ends, reference=1.0, tolerance=0.0,
                           source="x = t") for m in ("max", "min")], _outcome({"s": h}), "s")
    assert (rows[0]["value"], rows[1]["value"]) == expected


def test_a_bodys_kinetic_energy_is_its_own_column_the_whole_models_without_of():
    h = {"t": np.array([0.0, 1.0]), "ke": np.array([0.0, 5.0]), "ke[BLOCK]": np.array([0.0, 3.0])}
    rows = evaluate([Check("kinetic_energy", of=of, measure="max", reference=1.0, tolerance=0.0, source="s")
                     for of in ("BLOCK", None)], _outcome({"s": h}), "s")
    assert [r["value"] for r in rows] == [3.0, 5.0]


def test_a_launched_bodys_kinetic_energy_is_its_own_half_m_v_squared(tmp_path):
    """Two free blocks, no gravity, the first launched at 1 m/s (a Release), the second at rest: the check of
    the first's kinetic energy reads m v^2 / 2 = 500 J (2000 kg/m^3 x 1 x 0.5 m), the second's 0, the whole
    model's (no ``of``) 500 J; a rigid translation carries no force, so Newmark keeps it exactly (1e-9)."""
    from fem.model.material import ElasticMaterial
    from fem.problem import Body, Problem, Release, Uniform, simulate
    from meshes.bodies import Rectangle, write_bodies

    mesh = write_bodies(tmp_path / "two.msh", [Rectangle("A", 0.0, 0.0, 1.0, 0.5, size=0.25),
                                               Rectangle("B", 2.0, 0.0, 1.0, 0.5, size=0.25)])
    stone = ElasticMaterial(young=1e9, poisson=0.2, density=2000.0)
    checks = [Check("kinetic_energy", of=of, at=0.01, reference=ref, tolerance=1e-9, criterion=crit,
                    source="m v^2 / 2", name=f"KE {of}") for of, ref, crit in
              (("A", 500.0, "relative"), ("B", 0.0, "absolute"), (None, 500.0, "relative"))]
    out = simulate(Problem(mesh, [Body("A", stone), Body("B", stone)], gravity=0.0),
                   [Release(0.02, velocity={"A": (1.0, 0.0)}, start=0.0)], steps=Uniform(0.005), checks=checks)
    rows = {r["quantity"]: r for r in out.checks if r.get("stated")}
    assert all(r["within_tolerance"] for r in rows.values()), rows


@pytest.mark.parametrize("ny", [4, 8])
def test_the_strain_energy_a_column_stores_under_its_weight_is_the_closed_form(ny, tmp_path):
    """A column W x H on rollers (Poisson 0: the stress is uniaxial; small strains), its weight on it
    quasi-statically (a Preload): sigma = rho g (H - y), U = t W (rho g)^2 H^3 / (6 E). Bilinear elements
    make the nodal displacements of this one-dimensional field exact and its strain constant per element,
    so they store U (1 - 1 / (4 ny^2)) (the strain's linear part, slope rho g / E, averaged away: h^2 /
    (4 H^2) of U): the check of the strain energy meets that to 1e-9 and misses the plain U by the mesh's
    1 / (4 ny^2). Read at the start of the stage after the preload, at rest where it left the column (a
    preload's increments are load steps, no history a check reads).""" 
    from fem.model.material import ElasticMaterial
    from fem.problem import BaseMotion, Body, Preload, Problem, Support, Uniform, simulate
    from helpers import grid_mesh

    E, rho, W, H = 1e7, 2000.0, 0.2, 1.0
    problem = Problem(grid_mesh(2, ny, width=W, height=H), bodies=[Body("BLOCK", ElasticMaterial(E, 0.0, rho))],
                      supports=[Support("BASE", ("y",)), Support("O", ("x",))], kinematics="small_strain")
    U = W * (rho * problem.gravity) ** 2 * H ** 3 / (6 * E)
    exact = U * (1 - 1 / (4 * ny ** 2))
    checks = [Check("strain_energy", ref, 1e-9, "column under its weight", at=0.0, name=name)
              for name, ref in (("meshed", exact), ("continuum", U))]  # at rest where the preload left it
    outcome = simulate(problem, [Preload(), BaseMotion(0.002)], out=tmp_path, steps=Uniform(1e-3), quiet=True,
                       checks=checks)
    rows = {c["quantity"]: c for c in outcome.checks if c.get("stated")}
    assert rows["meshed"]["within_tolerance"] is True, rows["meshed"]
    assert rows["continuum"]["within_tolerance"] is False
    assert rows["continuum"]["value"] == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("t0, t1", [(0.0, math.pi), (0.3, 1.7), (1e-4, 3e-4)])
def test_the_integral_of_a_reaction_is_its_impulse(t0, t1):
    """int sin = cos t0 - cos t1; the trapezoidal rule on steps h errs by (t1 - t0) h^2 / 12 at most."""
    h = _sine_history()
    exact = math.cos(t0) - math.cos(t1)
    c = Check("reaction", of="P", measure="integral", window=(t0, t1), reference=exact, tolerance=1e-6,
              source="closed form")
    [row] = evaluate([c], _outcome({"s": h}), "s")
    step = math.pi / 2000
    assert abs(row["value"] - exact) <= (t1 - t0) * step ** 2 / 12 + 1e-15
    assert row["within_tolerance"] is True


@pytest.mark.parametrize("criterion, reference, tolerance, value, met", [
    # values on the bound are exact in binary: met at it, missed just beyond
    ("relative", 2.0, 0.125, 2.25, True), ("relative", 2.0, 0.125, 2.2501, False), ("relative", -2.0, 0.125, -1.75, True),
    ("relative", -2.0, 0.125, -1.7499, False), ("absolute", 0.0, 0.125, -0.125, True),
    ("absolute", 0.0, 0.125, 0.1251, False), ("absolute", 5.0, 0.5, 4.4, False), ("absolute", 5.0, 0.5, 4.5, True)])
def test_a_check_is_graded_as_test_resu(criterion, reference, tolerance, value, met):
    c = Check("kinetic_energy", at=0.0, reference=reference, tolerance=tolerance, criterion=criterion, source="s")
    row = grade(c, value)
    assert row["within_tolerance"] is met
    assert row["error"] == pytest.approx(abs(value - reference) / (abs(reference) if criterion == "relative" else 1))


def test_a_quantity_the_run_never_reached_is_not_met():
    h = _sine_history()
    rows = evaluate([Check("rotation", of="B", measure="max", window=(0.0, 4.0), reference=0.75, tolerance=1,
                           source="s"),
                     Check("impact_time", impact=2, reference=0.1, tolerance=1, source="s"),
                     Check("uplift_time", of="B", reference=0.1, tolerance=1, source="s")],
                    _outcome({"s": h}, impacts=[{"time": 1.0, "pair": "P"}], bodies={"B": {"uplift_time": None}}), "s")
    assert [r["within_tolerance"] for r in rows] == [False, False, False]
    assert all(r["value"] is None and r["note"] for r in rows)


def test_an_impacts_kinetic_energy_is_the_one_just_before_it():
    h = {"t": np.array([0.0, 0.1, 0.2, 0.3]), "ke": np.array([0.0, 3.0, 5.0, 1.0])}
    [row] = evaluate([Check("impact_kinetic_energy", impact=1, reference=5.0, tolerance=0, source="s")],
                     _outcome({"s": h}, impacts=[{"time": 0.3, "pair": "P"}]), "s")
    assert row["value"] == 5.0 and row["within_tolerance"] is True


@pytest.mark.parametrize("kw, key", [
    (dict(quantity="spin", reference=1, tolerance=0.1), "quantity"),
    (dict(quantity="rotation", of="B", reference=1, tolerance=0.1), "checks.rotation[B]: give at"),
    (dict(quantity="rotation", of="B", at=1, measure="max", reference=1, tolerance=0.1), "give at"),
    (dict(quantity="rotation", of="B", at=1, reference=0, tolerance=0.1), "criterion"),
    (dict(quantity="rotation", of="B", at=1, reference=1, tolerance=-0.1), "tolerance"),
    (dict(quantity="rotation", at=1, reference=1, tolerance=0.1), ".of"),
    (dict(quantity="displacement", of="C1", at=1, reference=1, tolerance=0.1), "component"),
    (dict(quantity="rotation", of="B", measure="max", window=(2, 1), reference=1, tolerance=0.1), "window"),
    (dict(quantity="impact_time", reference=1, tolerance=0.1), "impact"),
    (dict(quantity="rotation", of="B", measure="max", ends=("open", "open"), reference=1, tolerance=0.1),
     "ends: the ends of a window"),
    (dict(quantity="rotation", of="B", measure="max", window=(1, 2), ends=("open", "shut"), reference=1,
          tolerance=0.1), "ends: expected two of closed, open"),
    (dict(quantity="reaction", of="P", measure="integral", window=(1, 2), ends=("open", "open"), reference=1,
          tolerance=0.1), "ends: an integral's ends are interpolated"),
    (dict(quantity="rotation", of="B", at=1, reference=1, tolerance=0.1, source=" "), "source")])
def test_a_check_that_cannot_be_graded_is_refused_naming_its_field(kw, key):
    with pytest.raises(BadInput, match=key.replace("[", r"\[").replace("]", r"\]")):
        Check(**{"source": "s", **kw})


# ---- end to end: rockfem run on a problem file with [[checks]]

def _problem(tmp_path: Path, checks: str, duration: float = 0.4) -> Path:
    path = pulse_problem(tmp_path, checks, name="pulse.toml")
    path.write_text(path.read_text().replace("duration = 1.0", f"duration = {duration}"))
    return path


@pytest.fixture(scope="module")
def rigid():
    """The rigid block (0.36 x 0.80 m) under the example's pulse a = 0.6 g sin(2 pi 2 t), 0 <= t <= 0.5 s."""
    from contact.references.rocking_base import rock_under_base_motion

    def a(t):
        return np.where(np.asarray(t) <= 0.5, 0.6 * G0 * np.sin(4 * np.pi * np.asarray(t)), 0.0)
    return rock_under_base_motion(0.18, 0.40, a, 0.4, g=9.81)


CHECKS = """
[[checks]]
name = "first impact"
quantity = "impact_time"
of = "base"
impact = 1
reference = {t_impact}
tolerance = 2e-3
source = "rigid block under the same pulse (Housner), contact.references.rocking_base"

[[checks]]
quantity = "rotation"
of = "BLOCK"
measure = "max_abs"
reference = {rotation}
tolerance = {tolerance}
source = "stated"
"""


@pytest.fixture(scope="module")
def pulse_run(tmp_path_factory, rigid):
    tmp = tmp_path_factory.mktemp("pulse")
    path = _problem(tmp, CHECKS.format(t_impact=rigid.impact_times[0], rotation=0.2, tolerance=0.01))
    code = cli.main(["run", str(path), "--out", str(tmp / "out"), "--quiet"])
    return code, tmp / "out"


def test_stated_checks_are_graded_in_the_summary_and_the_report(pulse_run, rigid):
    code, out = pulse_run
    assert code == 0  # without --strict a missed check does not fail the run
    data = json.loads((out / "summary.json").read_text())
    rows = {c["quantity"]: c for c in data["checks"]}
    impact = rows["first impact"]
    assert impact["within_tolerance"] is True, impact  # the FE block meets the rigid block's first impact
    assert impact["value"] == pytest.approx(rigid.impact_times[0], rel=2e-3)
    rotation = rows["rotation[BLOCK] max_abs"]
    history = read_history(out / "history.csv")
    assert rotation["value"] == pytest.approx(float(np.max(np.abs(history["theta[BLOCK]"]))), rel=1e-12)
    assert rotation["within_tolerance"] is (abs(rotation["value"] - 0.2) <= 0.01 * 0.2)
    # the books, 2 bodies' preload end state, 1 pair's penetration and its reaction alternation (every run's),
    # then the 2 stated
    assert data["checks_graded"] == 7 and data["checks_met"] == sum(c["within_tolerance"] for c in data["checks"])
    report = (out / "report.md").read_text()
    assert "first impact" in report and "rocking_base" in report


def test_strict_fails_a_run_whose_stated_check_is_missed(pulse_run, tmp_path, rigid):
    """The same run, its rotation stated 1 % from what the run gives (missed), then 10 % (met)."""
    _, out = pulse_run
    got = json.loads((out / "summary.json").read_text())
    value = next(c["value"] for c in got["checks"] if c["quantity"].startswith("rotation"))
    codes = []
    for ref, tol in ((value * 1.02, 0.01), (value * 1.02, 0.1)):
        path = _problem(tmp_path, CHECKS.format(t_impact=rigid.impact_times[0], rotation=ref, tolerance=tol))
        codes.append(cli.main(["run", str(path), "--out", str(tmp_path / f"out_{tol}"), "--quiet", "--strict"]))
    assert codes == [1, 0]


@pytest.mark.parametrize("entry, message", [
    ('quantity = "rotation"\nof = "STATUE"\nat = 0.1\nreference = 1\ntolerance = 0.1\nsource = "s"',
     "line 3[0-9]: checks\\[0\\].of: 'STATUE' is not a body of the problem; it has: BLOCK, GROUN"),
    ('quantity = "rotation"\nof = "BLOCK"\nat = 7.5\nreference = 1\ntolerance = 0.1\nsource = "s"',
     "checks\\[0\\].at: 7.5 s lies outside its stage"),
    ('quantity = "rotation"\nof = "BLOCK"\nat = 0.1\nreference = 0\ntolerance = 0.1\nsource = "s"',
     "checks\\[0\\].criterion: a relative tolerance of a zero reference"),
    ('quantity = "rotation"\nof = "BLOCK"\nat = 0.1\nreference = 1\ntolerance = 0.1',
     "checks\\[0\\].source: missing"),
    ('quantity = "reaction"\nof = "base"\nnode = "C1"\nat = 0.1\nreference = 1\ntolerance = 0.1\nsource = "s"',
     "checks\\[0\\].node: 'C1' is not a slave node of the pair 'base'"),
    ('quantity = "kinetic_energy"\nof = "base"\nat = 0.1\nreference = 1\ntolerance = 0.1\nsource = "s"',
     "checks\\[0\\].of: 'base' is not a body of the problem; it has: BLOCK, GROUN"),
    ('quantity = "rotation"\nof = "BLOCK"\nmeasure = "max"\nwindow = [0.0, 0.1]\nends = "open"\nreference = 1\n'
     'tolerance = 0.1\nsource = "s"', 'line 3[0-9]: checks\\[0\\].ends: expected two of "closed", "open"'),
])
def test_a_check_the_problem_cannot_grade_is_refused_before_anything_is_written(tmp_path, capsys, entry, message):
    path = _problem(tmp_path, "[[checks]]\n" + entry + "\n")
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "pulse.toml" in err[0], err
    import re
    assert re.search(message, err[0]), err[0]
    assert not out.exists()


def test_a_reactions_components_at_its_nodes_balance_the_weight_they_carry(tmp_path):
    """A block of one element on a rigid plane with friction 0.9, under gravity tilted by a horizontal
    1 m/s^2 (it sticks: 1 / 9.81 < 0.9), at rest after a preload: its two base corners carry its weight,
    the contact forces on the block at O and A (``reaction`` with ``component``, rx[base@O] ...) sum to
    (-m gx, m g) to 1e-9 of m g; the checks read the same columns and meet those sums to 1e-9."""
    from contact.laws import Lagrange
    from contact.zone import RigidPlane
    from fem.io.history import read_history
    from fem.model.material import ElasticMaterial
    from fem.problem import BaseMotion, Body, Pair, Preload, Problem, Uniform, simulate
    from helpers import grid_mesh

    W, H, rho, gx, gy = 0.2, 0.4, 2000.0, 1.0, 9.81
    m = rho * W * H  # thickness 1
    problem = Problem(grid_mesh(1, 2, width=W, height=H), bodies=[Body("BLOCK", ElasticMaterial(1e9, 0.2, rho))],
                      pairs=[Pair("BASE", RigidPlane((0.0, 0.0), (0.0, 1.0)), Lagrange(mu=0.9), name="base")],
                      kinematics="small_strain")
    gravity = (gx, -gy)
    checks = [Check("reaction", 0.0, 1e9, "read back", of="base", node=n, component=c, at=0.005, criterion="absolute",
                    name=f"r{c} {n}")
              for n in ("O", "A") for c in ("x", "y")]
    outcome = simulate(problem, [Preload(gravity=gravity), BaseMotion(0.01, gravity=gravity)], out=tmp_path,
                       steps=Uniform(1e-3), quiet=True, checks=checks)
    assert outcome.status == "complete", outcome.message
    h = read_history(tmp_path / "history.csv")
    k = int(np.argmin(np.abs(h["t"] - 0.005)))
    fx, fy = (h[f"r{c}[base@O]"][k] + h[f"r{c}[base@A]"][k] for c in ("x", "y"))
    assert fx == pytest.approx(-m * gx, abs=1e-9 * m * gy) and fy == pytest.approx(m * gy, abs=1e-9 * m * gy)
    rows = {c["quantity"]: c["value"] for c in outcome.checks if c.get("stated")}
    assert rows["rx O"] + rows["rx A"] == pytest.approx(-m * gx, abs=1e-9 * m * gy)
    assert rows["ry O"] + rows["ry A"] == pytest.approx(m * gy, abs=1e-9 * m * gy)


def test_a_reactions_component_needs_its_node():
    with pytest.raises(BadInput, match="component: a reaction's component is read at one node"):
        Check("reaction", 1.0, 0.1, "x", of="base", component="x", at=0.0)
