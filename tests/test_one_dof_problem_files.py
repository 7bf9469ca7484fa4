"""The one-dof benchmarks stated as problem files (cases/sdnd101.toml, cases/sdnd108a.toml, cases/sdnd108b.toml),
and a node's shock table (fem.problem.shocks: Code_Aster's POST_DYNA_MODA_T, OPTION 'IMPACT'), which any
problem's checks read (``shock_force``, ``shock_instant``, ``shock_duration``, ``shock_impulse``,
``impact_velocity`` of shock number ``impact`` at a pair's slave ``node``).

* The shock table against closed forms: a half sine of penetration p = A sin(w (t - t0)) under a penalty force
  K p, sampled at dt. Start and end are the gap's zero crossings, linear between the samples on either side
  (the gap is linear outside, a sine inside): within w^2 dt^3; F_max and its instant by the parabola through
  the largest sample and its neighbours, and the impulse 2 K A / w by the trapezoid with zero ends, each
  O(dt^2) (halving dt divides the error by about 4); V_IMPACT the gap's secant over the entry step, -A w
  within w^2 dt^2 / 6. A force that jumps at a step (a Lagrange contact: the gap 0 throughout) starts and
  ends on the steps; a shock still closed at the end has no end; one closed from the first step no velocity.
* ``rockfem run cases/sdnd101.toml`` meets Code_Aster's 8 tests and the document's 3 of shock 1, with the values
  ``python cases/sdnd101.py`` tables (its refined shock table: the same definitions, to the bit), the same
  1000 steps; its V_IMPACT of shock 2 is Code_Aster's computed -1.0003141755606 m/s (the leap-frog secant)
  and its F_MAX_ABS Code_Aster's 9954.7807740037 N, both to 1e-12.
* ``rockfem run cases/sdnd108{a,b}.toml`` meet Code_Aster's 4 tests each with the values of ``python
  cases/sdnd108.py``: at 1.0 and 1.1 s to the bit (the same steps: Code_Aster's time list on the closed
  form's instants); at the fall and detachment times within 1e-8 m (the file reads DZ at Code_Aster's
  TempsChute and TempsDecol, 3e-12 s and up to 6e-10 s from the closed form's instants the case reads it
  at, where |v| <= sqrt(41) m/s).
* The files' references, tolerances and criteria are Code_Aster's records, in their order.
"""
from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from cases.problem_file import cli
from fem.problem import Check
from fem.problem.shocks import shock_table
from fem.ranges import BadInput
from helpers import load_case

ROOT = Path(__file__).resolve().parents[1]
RECORDS = json.loads((ROOT / "cases" / "reference" / "code_aster_tests.json").read_text())["records"]


# ------------------------------------------------------------------------------------------ the shock table
K, A, W, T0 = 1e6, 1e-3, 100.0, 0.0123  # N/m, m, rad/s, s


def half_sine(dt: float, t_end: float = 0.06):
    """(t, rn, gap) of one half sine of penetration A sin(W (t - T0)) on [T0, T0 + pi / W], free before and after
    (the gap growing linearly there, as a node flying off at the speed it left with)."""
    t = np.arange(0.0, t_end, dt)
    s = t - T0
    inside = (s > 0) & (s < math.pi / W)
    p = np.where(inside, A * np.sin(W * s), np.where(s <= 0, A * W * s, -A * W * (s - math.pi / W)))
    return t, np.where(inside, K * p, 0.0), -p


def errors(dt: float) -> dict:
    [s] = shock_table(*half_sine(dt))
    return {"start": abs(s["start"] - T0), "end": abs(s["end"] - (T0 + math.pi / W)),
            "force": abs(s["force"] / (K * A) - 1), "instant": abs(s["instant"] - (T0 + math.pi / (2 * W))),
            "impulse": abs(s["impulse"] * W / (2 * K * A) - 1), "velocity": abs(s["velocity"] / (-A * W) - 1)}


def test_a_half_sine_shock_converges_to_its_closed_form_at_second_order():
    for dt in (1e-3 / 3, 1e-3 / 6):
        e = errors(dt)
        # a crossing between a sample on the free line and one on the sine: off by at most W^2 dt^3 [s]; the
        # entry step's secant: the sine's slope lost over at most dt, W^2 dt^2 / 6 relative
        assert e["start"] <= W**2 * dt**3 and e["end"] <= W**2 * dt**3, (dt, e)
        assert e["velocity"] <= W**2 * dt**2 / 6, (dt, e)
    coarse, fine = errors(1e-3 / 3), errors(1e-3 / 6)
    for key in ("force", "instant", "impulse"):
        assert fine[key] < 1e-4 and coarse[key] / fine[key] > 3.5, (key, coarse[key], fine[key])


def test_a_force_jumping_at_a_step_starts_and_ends_on_the_steps():
    t = np.arange(10) * 0.1
    rn = np.array([0, 0, 5, 7, 6, 0, 0, 3, 4, 2], dtype=float)  # gap 0 throughout: a Lagrange contact
    first, second = shock_table(t, rn, np.zeros_like(t))
    assert (first["start"], first["end"], first["complete"]) == (pytest.approx(0.1), pytest.approx(0.5), True)
    assert first["impulse"] == pytest.approx(0.1 * (5 + 7 + 6))  # trapezoid with zero ends
    assert (second["end"], second["duration"], second["impulse"], second["complete"]) == (None, None, None, False)
    assert shock_table(t, rn[::-1], np.zeros_like(t))[0]["velocity"] is None  # closed from the first step


def test_a_shock_check_needs_its_node_and_its_number():
    with pytest.raises(BadInput, match="node: a shock is a node's"):
        Check("shock_force", 1.0, 0.1, "x", of="shock", impact=1)
    with pytest.raises(BadInput, match="impact: the impact's number"):
        Check("shock_force", 1.0, 0.1, "x", of="shock", node="NO1")
    with pytest.raises(BadInput, match="node: only a pair's reaction, gap or shocks"):
        Check("rotation", 1.0, 0.1, "x", of="BLOCK", node="O", measure="max")


# ------------------------------------------------------------------------------------------ the files
def _stated(name: str) -> list[dict]:
    return tomllib.loads((ROOT / "cases" / f"{name}.toml").read_text())["checks"]


def _records(case: str, modeling: str) -> list[dict]:
    return [r for r in RECORDS if r["case"] == case and r["modeling"] == modeling]


@pytest.mark.parametrize("name, case, modeling", [("sdnd101", "SDND101", "a"), ("sdnd108a", "SDND108", "a"),
                                                  ("sdnd108b", "SDND108", "b")])
def test_the_files_checks_are_code_asters_records(name, case, modeling):
    records = _records(case, modeling)
    tested = [c for c in _stated(name) if "Code_Aster's test" in c["source"]]
    assert len(tested) == len(records) == {"SDND101": 8, "SDND108": 4}[case]
    for i, (c, r) in enumerate(zip(tested, records)):
        assert (c["reference"], c["tolerance"], r["criterion"]) == (r["reference"], r["tolerance"], "RELATIF")
        assert f"test {i + 1} of modeling {modeling} " in c["source"]
        if case == "SDND108":  # TEST_RESU at INST=...
            assert c["at"] == float(r["postprocessing"].split("INST=")[1])


def _both(tmp_path, name: str, script: str, *args: str) -> tuple[dict, dict]:
    """(summary of rockfem run --strict on the file, summary of the case script), in this process."""
    assert cli.main(["run", str(ROOT / "cases" / f"{name}.toml"), "--strict", "--quiet",
                     "--out", str(tmp_path / "file")]) == 0
    assert load_case(script).main([*args, "--out", str(tmp_path / "case"), "--quiet"]) == 0
    return tuple(json.loads((tmp_path / k / "summary.json").read_text()) for k in ("file", "case"))


def test_sdnd101_as_a_file_is_the_case_and_code_asters_table(tmp_path):
    file, case = _both(tmp_path, "sdnd101", "sdnd101")
    assert file["run"]["steps"] == case["run"]["steps"] == 1000
    rows = {c["quantity"]: c for c in file["checks"] if c.get("stated")}
    assert len(rows) == 11 and all(c["within_tolerance"] is True for c in file["checks"] if c["within_tolerance"] is not None)
    fields = {"INSTANT": "instant", "F_MAX": "f_max", "T_CHOC": "duration", "IMPULSION": "impulse"}
    for n, shock in enumerate(case["shocks"], start=1):
        for label, field in fields.items():
            assert rows[f"shock {n} {label}"]["value"] == shock[field], (n, label)  # the case's table, to the bit
    aster = {r["quantity"]: r["aster_value"] for r in _records("SDND101", "a")}
    assert rows["shock 2 V_IMPACT"]["value"] == pytest.approx(aster["impact velocity, 2nd shock"], rel=1e-12)
    assert rows["F_MAX_ABS"]["value"] == case["f_max_abs_sampled"]
    assert rows["F_MAX_ABS"]["value"] == pytest.approx(aster["global max abs shock force"], rel=1e-12)


@pytest.mark.parametrize("modeling", ["a", "b"])
def test_sdnd108_as_a_file_is_the_case(tmp_path, modeling):
    file, case = _both(tmp_path, f"sdnd108{modeling}", "sdnd108", "--modeling", modeling)
    assert (file["run"]["steps"], file["run"]["newton_iterations"]) == (case["run"]["steps"],
                                                                      case["run"]["newton_iterations"])
    ours = [c["value"] for c in file["checks"] if c.get("stated")]
    theirs = {c["quantity"]: c["value"] for c in case["checks"]}
    fall, detach, at_1, at_11 = ours
    assert (at_1, at_11) == (theirs["DZ at 1.0 s [m]"], theirs["DZ at 1.1 s [m]"])
    assert fall == pytest.approx(theirs["DZ at fall time [m]"], abs=1e-8)
    assert detach == pytest.approx(theirs["DZ at detachment time [m]"], abs=1e-8)
    assert file["checks_met"] == file["checks_graded"] == 4 + 2  # the books, the alternation (no penetration verdict)
