"""The run contract of fem.run for cases/block_on_incline.py, rigid_rocking.py and sdnv105_preload.py,
checked as a user meets it: the scripts run as subprocesses (``python cases/<script>.py``) in an
empty folder.

* ``--help`` exits 0;
* an unknown flag, or an impossible value (negative, infinite), exits 2 with exactly one line on
  stderr, naming the flag, and writes nothing;
* a short run exits 0 and its summary.json holds status "complete", configuration, command,
  version and parameters;
* a mesh too large for the machine (block_on_incline --nx 100000: 4.4e9 table cells, which gmsh
  would try to build in tens of GB) is refused within 10 s, on one line giving the estimate;
* rigid_rocking with another block is "custom" and grades no document value.
"""
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parents[1] / "cases"
SCRIPTS = ("block_on_incline", "rigid_rocking", "sdnv105_preload")

# a short run of each, and impossible values: (flags, the flag the message must name)
SHORT = {
    "block_on_incline": ["--t-end", "0.01", "--dt", "0.005", "--no-plot"],
    "rigid_rocking": ["--impacts", "2"],
    "sdnv105_preload": ["--t-end", "-1.9"],
}
IMPOSSIBLE = {
    "block_on_incline": [(["--dt", "-1e-3"], "--dt"), (["--mu", "inf"], "--mu"), (["--width", "-0.3"], "--width"),
                         (["--nx", "-4"], "--nx")],
    "rigid_rocking": [(["--half-width", "-0.18"], "--half-width"), (["--theta", "inf"], "--theta"),
                      (["--impacts", "-1"], "--impacts"), (["--g", "-9.81"], "--g")],
    "sdnv105_preload": [(["--young", "-6e11"], "--young"), (["--dt", "inf"], "--dt"), (["--rho", "-1450"], "--rho"),
                        (["--t-end", "-inf"], "--t-end")],
}


def run(script: str, args, cwd: Path, timeout: float = 60.0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CASES / f"{script}.py"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(script, tmp_path):
    p = run(script, ["--help"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"usage: {script}.py") and "--quiet" in p.stdout and "--force" in p.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script", SCRIPTS)
def test_unknown_flag(script, tmp_path):
    p = run(script, ["--no-such-flag", "3"], tmp_path)
    assert p.returncode == 2
    assert "--no-such-flag" in one_line(p.stderr)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script, flags, flag", [(s, f, n) for s in SCRIPTS for f, n in IMPOSSIBLE[s]])
def test_impossible_value(script, flags, flag, tmp_path):
    p = run(script, ["--out", "out", *flags], tmp_path)
    assert p.returncode == 2, p.stdout + p.stderr
    line = one_line(p.stderr)
    assert line.startswith("error: ") and flag in line
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script", SCRIPTS)
def test_short_run(script, tmp_path):
    p = run(script, ["--out", "out", "--quiet", *SHORT[script]], tmp_path)
    assert p.returncode == 0, p.stderr
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["status"] == "complete" and s["case"] == script
    assert s["configuration"] in ("benchmark", "custom")
    assert s["command"] == " ".join(["python", f"cases/{script}.py", "--out", "out", "--quiet", *SHORT[script]])
    assert s["version"] and isinstance(s["parameters"], dict) and s["parameters"]["out"] == "out"
    expected = {"block_on_incline": "custom", "rigid_rocking": "benchmark", "sdnv105_preload": "benchmark"}
    assert s["configuration"] == expected[script]
    # a second run into the same folder replaces the first one's files
    p = run(script, ["--out", "out", "--quiet", *SHORT[script]], tmp_path)
    assert p.returncode == 0, p.stderr


def test_block_on_incline_refuses_a_mesh_larger_than_the_machine(tmp_path):
    start = time.monotonic()
    p = run("block_on_incline", ["--no-plot", "--t-end", "0.01", "--nx", "100000", "--out", "X"], tmp_path,
            timeout=30.0)
    elapsed = time.monotonic() - start
    assert p.returncode == 2 and elapsed < 10.0
    line = one_line(p.stderr)
    assert line.startswith("error: this run needs about ") and "cells" in line and "--force" in line
    assert not (tmp_path / "X").exists()


def test_rigid_rocking_custom_block_grades_no_document_value(tmp_path):
    p = run("rigid_rocking", ["--out", "custom", "--half-width", "0.2", "--impacts", "3", "--quiet"], tmp_path)
    assert p.returncode == 0, p.stderr
    s = json.loads((tmp_path / "custom" / "summary.json").read_text())
    assert s["configuration"] == "custom" and s["departures"] == ["--half-width"]
    assert s["checks"] == [] and "sdnv105" not in s and "document_recurrence_restitution" not in s
    assert "document 0.05440978" not in p.stdout and "(document 3579.25" not in p.stdout
    assert "against the benchmark document" not in p.stdout
    # the references are recomputed for the run's block: the first instant of this b, l, tilt
    assert len(s["result"]["impact_times"]) == 3 and s["result"]["impact_times"][0] < 0.0544
    # the benchmark block grades the document, and every value is met
    p = run("rigid_rocking", ["--out", "benchmark", "--quiet"], tmp_path)
    assert p.returncode == 0, p.stderr
    s = json.loads((tmp_path / "benchmark" / "summary.json").read_text())
    assert s["configuration"] == "benchmark" and s["departures"] == []
    assert len(s["checks"]) == 10 and all(c["within_tolerance"] for c in s["checks"])
