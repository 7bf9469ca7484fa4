"""The one-dof case scripts as a user runs them: command line, exit codes, summary.json (fem.run).

Each script (cases/sdnd101.py, sdnd105.py, sdnd108.py, sdnd122.py) is run as a subprocess with
``sys.executable`` from a temporary folder (so a default ``results/`` would land there), the way a
user types it:

1. ``--help`` exits 0 and prints the usage.
2. An unknown flag exits 2 with exactly one line on stderr naming it.
3. A negative step in exponent form (``--dt -1e-3``: read as a number, not as a flag) and an
   infinite one (``--dt inf``) exit 2 with one line naming the flag (sdnd122 has no time step: its
   ``--energy`` instead); nothing is created.
4. A short run exits 0 and writes summary.json with status 'complete', configuration 'benchmark',
   the command line, the version and the parameters.
5. The same run with one physical parameter changed is 'custom': no check row is graded against a
   Code_Aster value (rows naming Code_Aster or a .comm file, or carrying its value, have no
   verdict), and at least one row is graded against the closed form recomputed for the run's own
   parameters.
6. ``--out`` naming an existing file exits 2 with one line naming --out.
7. Specific: sdnd101 ``--dt 1e-12`` (5e11 steps) is refused within 10 s with the estimate;
   sdnd105 ``--fine-window nan 1`` exits 2 naming --fine-window (it used to run with [0, 1]).
8. A Newton failure (in-process, sdnd108's integrator made to fail at 0.2 s) exits 1 with one
   line, summary.json 'failed' with the message, and history.csv up to the failure.

The subprocesses are started together from a module fixture (four at a time) so that the file runs
in about 20 s on two cores; every one has a timeout.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: per script: the flag of its step, a short benchmark run, and a physical parameter to change
SCRIPTS = {
    "sdnd101": dict(step="--dt", short=["--t-end", "0.05"], custom=["--mass", "50"]),
    "sdnd105": dict(step="--dt", short=["--modeling", "c", "--dt", "1e-2", "--t-end", "1"], custom=["--mass", "1.5"]),
    "sdnd108": dict(step="--dt", short=["--t-end", "0.6"], custom=["--k", "200"]),
    "sdnd122": dict(step="--energy", short=["--e-max", "8e-3"], custom=["--k-stop", "500"]),
}
SUMMARY_HEADER = {"case", "status", "configuration", "command", "version", "parameters"}


def _commands(tmp: Path) -> dict[tuple[str, str], tuple[list[str], Path]]:
    """(script, what) -> (arguments, working folder)."""
    out = {}
    for name, spec in SCRIPTS.items():
        def folder(what: str) -> Path:
            path = tmp / f"{name}-{what}"
            path.mkdir()
            return path

        step = spec["step"]
        out[name, "help"] = (["--help"], folder("help"))
        out[name, "unknown"] = (["--no-such-flag", "3"], folder("unknown"))
        out[name, "negative"] = ([step, "-1e-3"], folder("negative"))
        out[name, "infinite"] = ([step, "inf"], folder("infinite"))
        out[name, "short"] = ([*spec["short"], "--out", "run", "--quiet"], folder("short"))
        out[name, "custom"] = ([*spec["short"], *spec["custom"], "--out", "run", "--quiet"], folder("custom"))
        cwd = folder("file")
        (cwd / "taken").write_text("not a folder\n")
        out[name, "out-file"] = (["--out", "taken"], cwd)
    out["sdnd101", "huge"] = (["--dt", "1e-12"], tmp / "sdnd101-huge")
    out["sdnd101", "huge"][1].mkdir()
    out["sdnd105", "nan-window"] = (["--fine-window", "nan", "1"], tmp / "sdnd105-nan-window")
    out["sdnd105", "nan-window"][1].mkdir()
    return out


def _run(name: str, args: list[str], cwd: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    start = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "cases" / f"{name}.py"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    return {"rc": done.returncode, "out": done.stdout, "err": done.stderr, "seconds": time.monotonic() - start,
            "cwd": cwd}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("onedof")
    commands = _commands(tmp)
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {key: pool.submit(_run, key[0], args, cwd) for key, (args, cwd) in commands.items()}
        return {key: f.result(timeout=300) for key, f in futures.items()}


def _one_line(result: dict) -> str:
    lines = result["err"].strip().splitlines()
    assert len(lines) == 1, result["err"]
    return lines[0]


def _refused(result: dict, *words: str) -> None:
    """Exit 2, one line on stderr naming ``words``, no output folder left behind."""
    assert result["rc"] == 2, (result["rc"], result["err"])
    line = _one_line(result)
    assert line.startswith("error: ")
    for word in words:
        assert word in line, line
    assert not (result["cwd"] / "results").exists()


@pytest.mark.parametrize("name", SCRIPTS)
def test_help(runs, name):
    r = runs[name, "help"]
    assert r["rc"] == 0 and "usage:" in r["out"] and "--force" in r["out"] and "--quiet" in r["out"]


@pytest.mark.parametrize("name", SCRIPTS)
def test_unknown_flag(runs, name):
    _refused(runs[name, "unknown"], "--no-such-flag")


@pytest.mark.parametrize("name", SCRIPTS)
def test_negative_step_in_exponent_form(runs, name):
    _refused(runs[name, "negative"], SCRIPTS[name]["step"], "must be > 0")


@pytest.mark.parametrize("name", SCRIPTS)
def test_infinite_step(runs, name):
    _refused(runs[name, "infinite"], f"argument {SCRIPTS[name]['step']}", "finite")


@pytest.mark.parametrize("name", SCRIPTS)
def test_out_naming_a_file(runs, name):
    _refused(runs[name, "out-file"], "--out taken", "not a folder")
    assert (runs[name, "out-file"]["cwd"] / "taken").read_text() == "not a folder\n"


def _summary(result: dict) -> dict:
    assert result["rc"] == 0, result["err"]
    summary = json.loads((result["cwd"] / "run" / "summary.json").read_text())
    assert SUMMARY_HEADER <= set(summary)
    assert summary["status"] == "complete" and summary["version"]
    assert isinstance(summary["parameters"], dict) and summary["parameters"]
    assert isinstance(summary["checks"], list)
    return summary


def _graded_against_code_aster(row: dict) -> bool:
    source = row.get("source", "")
    aster = row.get("aster_value") is not None or "Code_Aster" in source or ".comm" in source
    return aster and row.get("passed") is not None


@pytest.mark.parametrize("name", SCRIPTS)
def test_short_benchmark_run(runs, name):
    r = runs[name, "short"]
    s = _summary(r)
    assert s["configuration"] == "benchmark"
    assert s["command"] == " ".join(["python", f"cases/{name}.py", *SCRIPTS[name]["short"], "--out", "run", "--quiet"])
    assert s["checks"] and all(c["passed"] is not False for c in s["checks"])
    if name != "sdnd122":  # time histories, written as the run goes
        assert (r["cwd"] / "run" / "history.csv").stat().st_size > 0
    if name in ("sdnd101", "sdnd108"):  # the benchmark's run is graded against Code_Aster's tests
        assert any(_graded_against_code_aster(c) for c in s["checks"])
    assert r["err"] == ""


@pytest.mark.parametrize("name", SCRIPTS)
def test_custom_run_is_not_graded_against_code_aster(runs, name):
    s = _summary(runs[name, "custom"])
    assert s["configuration"] == "custom"
    assert s["departures"] == [SCRIPTS[name]["custom"][0]]
    assert not any(_graded_against_code_aster(c) for c in s["checks"]), s["checks"]
    graded = [c for c in s["checks"] if c["passed"] is not None]
    assert graded and all(c["passed"] for c in graded)
    assert any("closed form" in c["source"] for c in graded)
    assert "custom configuration" in runs[name, "custom"]["out"]
    assert " NO " not in runs[name, "custom"]["out"]


def test_sdnd101_huge_run_is_refused_at_once(runs):
    r = runs["sdnd101", "huge"]
    _refused(r, "--dt 1e-12 s", "500,000,000,000", "--force")
    assert r["seconds"] < 10


def test_sdnd105_nan_fine_window(runs):
    _refused(runs["sdnd105", "nan-window"], "--fine-window", "nan")


def test_convergence_failure_keeps_the_history_and_says_failed(tmp_path, capsys, monkeypatch):
    """A ConvergenceError reaches fem.run.execute: exit 1, summary.json 'failed' with the message,
    history.csv holding every step before the failure (in-process, the integrator made to fail at
    0.2 s)."""
    from fem.dynamics import ConvergenceError
    from fem.results import read_history
    from helpers import load_case

    case = load_case("sdnd108")
    real = case.run_phases

    def failing(model, phases, start, terms):
        for result in real(model, phases, start, terms):
            if result.state.t > 0.2:
                raise ConvergenceError("phase 1", result.state.t, 0.0054, 1.0, 0, "y", (0.0, 0.0), 30)
            yield result

    monkeypatch.setattr(case, "run_phases", failing)
    assert case.main(["--out", str(tmp_path), "--quiet"]) == 1
    line = _one_line({"err": capsys.readouterr().err})
    assert line.startswith("error: the run failed: Newton did not converge") and "(status: failed)" in line
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["status"] == "failed" and "Newton did not converge" in s["message"]
    assert s["configuration"] == "benchmark" and s["t_reached"] == pytest.approx(0.2, abs=0.01)
    h = read_history(tmp_path / "history.csv")
    # every step the integrator returned is on disk (the failing one was announced, not returned)
    assert h["t"][-1] == pytest.approx(0.2, abs=0.006) and h["t"][-1] <= s["t_reached"] and h["t"].size > 30
