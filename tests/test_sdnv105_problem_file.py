"""SDNV105 A stated as a problem file (cases/sdnv105a.toml): the benchmark's stages, steps and Newton
settings, and Code_Aster's 31 tests of modeling a (22 quantities, some against two references) as
``[[checks]]``, with the case script's tilt gate (a check on the strain energy at the tilt's end) and its
watch on the energy the release's contact events give back (``[energy_creation]``), each on the rigid
block's potential-energy drop as the script computes it. ``rockfem run`` on it computes what ``python cases/sdnv105a.py`` computes: both go
through fem.problem's stages with the same settings, so each check's value is the case's value to the
last bit, and both meet every check. The case states the file's checks (one source: cases.sdnv105.checks.
code_aster_checks) and tables them a quantity a row.

The file's references, tolerances and criteria are Code_Aster's records (cases/reference/
code_aster_tests.json), in their order: the file cannot be tuned to pass.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from cases.sdnv105.checks import code_aster_records
from helpers import file_and_case

ROOT = Path(__file__).resolve().parents[1]
PROBLEM = ROOT / "cases" / "sdnv105a.toml"


def _stated() -> list[dict]:
    """The file's Code_Aster checks (its gate aside)."""
    return [c for c in tomllib.loads(PROBLEM.read_text())["checks"] if not c.get("gate")]


def test_the_files_gate_and_watch_are_the_case_scripts():
    """The tilt's gate and the energy watch stated with the numbers the case script computes for the
    benchmark (cases.sdnv105: rigid_potential_drop, TILT_STRAIN_LIMIT, Config.creation_limit)."""
    from cases.sdnv105.case import Config, rigid_potential_drop
    from cases.sdnv105.phases import TILT_STRAIN_LIMIT

    data = tomllib.loads(PROBLEM.read_text())
    config = Config(modeling="a")
    drop = rigid_potential_drop(config)
    [gate] = [c for c in data["checks"] if c.get("gate")]
    assert (gate["quantity"], gate["stage"], gate["at"], gate["reference"]) == ("strain_energy", "tilt", 0.0, 0.0)
    assert gate["tolerance"] == TILT_STRAIN_LIMIT * drop and gate["criterion"] == "absolute"
    watch = data["energy_creation"]
    assert (watch["scale"], watch["limit"], watch["stages"]) == (drop, config.creation_limit, ["release"])
    assert {s.get("contact_events") for s in data["stages"]} == {config.contact_events_resolved}


def test_the_files_checks_are_code_asters_tests_of_modeling_a():
    records = code_aster_records("a")
    stated = _stated()
    assert len(stated) == len(records) == 31
    for i, (c, r) in enumerate(zip(stated, records)):
        assert (c["reference"], c["tolerance"]) == (r["reference"], r["tolerance"]), c["name"]
        assert c.get("criterion", "relative") == ("absolute" if r["criterion"].upper().startswith("ABS") else
                                                  "relative"), c["name"]
        assert f"test {i + 1} of modeling a" in c["source"]
    # one check per record of each of the 22 quantities the case tables (its rows: cases.sdnv105.checks.
    # code_aster_table; their names against the records' own: tests/test_sdnv105.py), a second reference's
    # check right after the first's
    names = [c["name"].removesuffix(" (restitution)") for c in stated]
    assert len(set(names)) == 22 and all(a == b for a, b, c in zip(names, names[1:], stated[1:])
                                         if c["name"].endswith(" (restitution)"))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """(summary of rockfem run on the file, summary of the case script), each run as a user runs it."""
    return file_and_case(PROBLEM, ROOT / "cases" / "sdnv105a.py", tmp_path_factory.mktemp("sdnv105a_file"))


def test_rockfem_run_meets_the_same_checks_with_the_same_values_as_the_case(both):
    file, case = both
    stated = [c for c in file["checks"] if c.get("stated") and c["quantity"] != "tilt: strain energy at its end"]
    assert len(stated) == 31 and all(c["within_tolerance"] is True for c in stated)
    # the gate, the books, the pair's penetration and its reactions' alternation too
    assert all(c["within_tolerance"] is True for c in file["checks"])
    assert file["checks_met"] == file["checks_graded"] == 35
    [gate] = [c for c in file["checks"] if c["quantity"] == "tilt: strain energy at its end"]
    assert gate["value"] == case["tilt"]["strain_energy_end"]
    # the watch saw the same events and the same largest energy given back
    assert file["energy_creation"] == {k: v for k, v in case["energy_creation"].items() if k not in ("scale_is", "rule")}
    rows = iter(stated)
    for quantity in case["checks"]:
        assert quantity["within_tolerance"] is True
        for _ in quantity["tolerance"]:  # one stated check per Code_Aster record of the quantity
            row = next(rows)
            assert row["value"] == quantity["value"], (quantity["quantity"], quantity["window"])


def test_the_files_run_is_the_cases_run(both):
    """The same steps, Newton iterations and impacts: one computation, two front-ends."""
    file, case = both
    assert file["run"]["steps"] == case["run"]["steps"]
    assert file["run"]["newton_iterations"] == case["run"]["newton_iterations"]
    released = [i["time"] for i in file["impacts"] if i["time"] > 0]
    assert len(released) == len(case["impacts"]) == 5
    for ours, theirs in zip(released, case["impacts"]):  # a pair's first closing node vs the corner's closing
        assert ours == pytest.approx(theirs["time"], abs=1e-5)  # within one fine step


def test_the_checks_every_run_makes_are_the_same_in_both(both):
    """The case keeps Code_Aster's tests in ``checks`` and puts the engine's checks in ``run_checks``,
    counted in its "N of M" (22 + 2 = 24); since the case runs its stages as one fem.problem.run_stages,
    they are rockfem run's, over the whole run: the same rows with the same values."""
    file, case = both
    rows = {c["quantity"]: c["value"] for c in case["run_checks"]}
    assert len(rows) == 2 and all(c["within_tolerance"] is True for c in case["run_checks"])
    assert case["checks_met"] == case["checks_graded"] == 22 + 2
    ours = {c["quantity"]: c["value"] for c in file["checks"] if c["quantity"] in rows}
    assert ours == rows and rows["reaction alternation[base] (steps in a row)"] <= 100
