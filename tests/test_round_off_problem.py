"""A round-off ensemble of any problem file (``rockfem run FILE --round-off K``, fem.studies.round_off):
the run repeated with gravity moved by -K ... +K units in the last place, per stated check the spread of
its values and how many runs meet it.

- The ensemble's statistics on values written down: min, median, max, spread (max - min) / |median|,
  the verdicts met, and the checks on which the runs disagree.
- The pulse of examples/block_on_table_pulse.toml to 0.45 s (its first impact at 0.31 s): a run
  that round-off cannot move. Three runs (gravity 9.81 and the floats on either side), every check's
  spread below 1e-9 and none decided by round-off; the ensemble in summary.json and report.md.
- SDNV105 A (cases/sdnv105a.toml), slow: its late impacts are chaotic. Gravity moved by one ulp decides
  the check that the case script's own ensemble (the tilt moved by +-2 ulps, benchmarks/baseline.json)
  finds decided by round-off, VY(O) min over t > 0.17 s, and moves the kinetic energy after 0.22 s by
  more than 1e-3 while the self-weight's DY(C1) min stays within 1e-12.
- Refused on one line, exit 2, nothing written: a K outside [0, 16], a problem without gravity.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fem.studies.round_off import decided_by_round_off, ensemble_rows, moved, offsets
from helpers import CASES, pulse_problem, rockfem_script

CHECKS = """
[[checks]]
name = "first impact"
quantity = "impact_time"
impact = 1
reference = 0.3
tolerance = 0.2
source = "the run's own order of magnitude"

[[checks]]
name = "largest rotation"
quantity = "rotation"
of = "BLOCK"
measure = "max_abs"
reference = 0.08
tolerance = 0.2
source = "the run's own order of magnitude"
"""


def rockfem(*args, cwd=None):
    return subprocess.run([rockfem_script(), *map(str, args)], capture_output=True, text=True, timeout=900, cwd=cwd)


def test_an_ensembles_statistics_are_its_values():
    values = [[1.0, 2.0, None], [3.0, 2.0, 5.0], [2.0, 2.0, 7.0]]
    verdicts = [[True, True, None], [False, True, True], [True, True, False]]
    rows = ensemble_rows(values, verdicts)
    assert [(r["runs"], r["min"], r["median"], r["max"]) for r in rows] == [(3, 1.0, 2.0, 3.0), (3, 2.0, 2.0, 2.0),
                                                                             (2, 5.0, 6.0, 7.0)]
    assert [r["spread"] for r in rows] == [1.0, 0.0, pytest.approx(2.0 / 6.0)]
    assert [(r["graded"], r["met"]) for r in rows] == [(3, 2), (3, 3), (2, 1)]
    assert decided_by_round_off(rows) == [rows[0], rows[2]]
    assert offsets(2) == [-2, -1, 1, 2] and moved(9.81, 0) == 9.81
    assert moved(9.81, 2) == np.nextafter(np.nextafter(9.81, 10.0), 10.0) and moved(9.81, -1) == np.nextafter(9.81, 0.0)


def test_a_run_round_off_cannot_move_has_no_spread(tmp_path):
    path = pulse_problem(tmp_path, CHECKS)
    done = rockfem("run", path, "--out", tmp_path / "out", "--quiet", "--round-off", "1",
                   "--set", "stages.shake.duration=0.45")
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / "out" / "summary.json").read_text())["round_off"]
    assert (entry["status"], entry["runs"], entry["asked"], entry["failed"]) == ("complete", 3, 3, [])
    assert entry["gravities"] == [9.81, np.nextafter(9.81, 0.0), np.nextafter(9.81, 10.0)]
    assert [r["quantity"] for r in entry["checks"]] == ["first impact", "largest rotation"]
    for r in entry["checks"]:
        assert r["runs"] == r["graded"] == r["met"] == 3 and r["spread"] < 1e-9, r
    assert entry["decided_by_round_off"] == []
    assert "round-off ensemble (3 of 3 runs" in done.stdout
    assert "## Round-off ensemble" in (tmp_path / "out" / "report.md").read_text()


@pytest.mark.slow
def test_the_chaotic_late_rocking_of_sdnv105a_is_decided_by_round_off(tmp_path):
    done = rockfem("run", CASES / "sdnv105a.toml", "--out", tmp_path / "out", "--quiet", "--round-off", "1")
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / "out" / "summary.json").read_text())["round_off"]
    assert entry["decided_by_round_off"] == ["VY(O) min, t > 0.17"]
    rows = {r["quantity"]: r for r in entry["checks"]}
    assert rows["KE max, t > 0.22"]["spread"] > 1e-3
    assert rows["DY(C1) min, self-weight"]["spread"] < 1e-12


@pytest.mark.parametrize("flags, words", [(["--round-off", "17"], "--round-off 17: K from 0 to 16"),
                                          (["--round-off", "1", "--set", "gravity=0"], "no gravity to move")])
def test_a_round_off_that_cannot_be_made_is_refused(flags, words, tmp_path):
    done = rockfem("run", pulse_problem(tmp_path), "--out", tmp_path / "out", *flags)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert words in done.stderr and not (tmp_path / "out").exists()
