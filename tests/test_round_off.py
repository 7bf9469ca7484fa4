"""--round-off K of the SDNV105 scripts: the run repeated with the tilt angle moved by +-1 ... +-K
units in the last place, and per check the spread and how many runs meet the test.

The contract rows of the flag (tests/test_contract.py requires a run of every flag of every script's
--help) are :data:`CONTRACT_FLAG_RUNS` and :data:`CONTRACT_IMPOSSIBLE`, imported there. The full
ensemble of modeling A (9 runs, about 70 s) is tests/test_sdnv105.py's slow
test_a_round_off_ensemble_meets_every_code_aster_test_by_its_median.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from fem.io.results import read_history

ROOT = Path(__file__).resolve().parents[1]
from cases.sdnv105 import case as common  # noqa: E402


def test_the_tilt_moves_by_units_in_the_last_place():
    t = 0.01
    up, down = common.tilt_moved(t, 1), common.tilt_moved(t, -2)
    assert up == np.nextafter(t, 1.0) and up > t
    assert down == np.nextafter(np.nextafter(t, 0.0), 0.0) and down < t
    assert common.tilt_moved(t, 0) == t
    assert common.Config("a", tilt_angle=common.tilt_moved(t, 4)).departures() == []  # still the benchmark


def _ensemble_rows(folder: Path, summary: dict) -> None:
    """What every --round-off run must show: the runs in their folders, and rows whose range holds
    the run's own value and whose counts add up."""
    ensemble = summary["round_off"]
    k = ensemble["ulps"]
    assert ensemble["status"] == "complete" and ensemble["failed"] == []
    assert ensemble["runs"] == ensemble["asked"] == 2 * k + 1
    for j in [*range(-k, 0), *range(1, k + 1)]:
        run = folder / "round_off" / f"tilt_{j:+d}ulp"
        h = read_history(run / "history.csv")
        assert h["t"].size > 1 and not (run / "solution.xdmf").exists()  # histories, no ParaView
    checks = {(c["quantity"], c["window"]): c for c in summary["checks"]}
    assert [(r["quantity"], r["window"]) for r in ensemble["checks"]] == list(checks)
    for r in ensemble["checks"]:
        own = checks[(r["quantity"], r["window"])]
        if own["value"] is None:
            continue
        assert r["runs"] == 2 * k + 1 and r["min"] <= own["value"] <= r["max"]
        assert r["min"] <= r["median"] <= r["max"]
        assert r["graded"] in (0, 2 * k + 1) and 0 <= r["met"] <= r["graded"]
    decided = [f"{r['quantity']} ({r['window']})" for r in ensemble["checks"] if 0 < r["met"] < r["graded"]]
    assert ensemble["decided_by_round_off"] == decided
    assert "## Round-off" in (folder / "report.md").read_text()


def test_a_before_the_first_impact_is_the_same_to_round_off(tmp_path):
    """To 0.03 s (before the first impact at 0.0544 s) the three runs agree to 1e-9 on every value
    they have: round-off matters only where the impacts amplify it (README, Round-off)."""
    out = tmp_path / "a"
    assert common.run_case("a", ["--out", str(out), "--no-paraview", "--quiet", "--t-end", "0.03",
                                 "--round-off", "1"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    _ensemble_rows(out, summary)
    rows = [r for r in summary["round_off"]["checks"] if r["median"] is not None]
    assert rows  # the self-weight checks at least
    for r in rows:
        assert r["max"] - r["min"] <= 1e-9 * abs(r["median"]) + 1e-15, r
    main = read_history(out / "history.csv")
    for j in (-1, 1):
        other = read_history(out / "round_off" / f"tilt_{j:+d}ulp" / "history.csv")
        assert np.array_equal(other["t"], main["t"])
        assert np.allclose(other["dy_A"], main["dy_A"], rtol=1e-9, atol=1e-15)


def _check_contract_run(modeling: str) -> Callable:
    def check(result) -> None:
        """tests/test_contract.py's Result: three runs, reported."""
        assert result.code == 0, result.err
        s = result.summary()
        assert s["status"] == "complete" and s["parameters"]["round_off"] == 1
        _ensemble_rows(result.folder, s)
        assert "round-off (3 runs, tilt +-1 ulps, complete)" in result.out
    return check


#: (script, name, argv, check) of tests/test_contract.py's FLAG_RUNS: --round-off 1 of each SDNV105
#: script, to 3 ms after the release
CONTRACT_FLAG_RUNS = [
    (f"sdnv105{m}", "round-off", ("--round-off", "1", "--t-end", "0.003", "--no-paraview", "--quiet"),
     _check_contract_run(m)) for m in "abcd"
]
#: (argv, words of the one-line error) of tests/test_contract.py's IMPOSSIBLE, for each SDNV105 script
CONTRACT_IMPOSSIBLE = [(["--round-off", "-1"], ("--round-off", "[0, 16]")),
                       (["--round-off", "17"], ("--round-off", "got 17"))]


@pytest.mark.parametrize("value", ["-1", "17"])
def test_a_bad_round_off_is_one_line_and_exit_2(value, tmp_path, capsys):
    out = tmp_path / "out"
    assert common.run_case("a", ["--out", str(out), "--round-off", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--round-off" in err[0] and f"got {value}" in err[0]
    assert not out.exists()
