"""Output folders that only ever hold a run's own files (fem.io.output_folder, fem.run.lifecycle): the files a
run removes are those its predecessor listed; a folder in use is refused naming the other run's
pid; a killed run's stale lock is taken over and its journal tells which files it wrote; files
follow the umask; ``--out ''`` is refused; a refused run touches nothing; Ctrl-C while a script
imports exits 130 on one line.

Scripts run as subprocesses (as a user runs them); SDND101 (cases/sdnd101.py, a mass on a spring
hitting a shock spring) is the quick case: its files are summary.json, history.csv, sdnd101.png."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from fem.io import output_folder
from fem.run.lifecycle import BadInput, Run, prepare_output
from helpers import wait_for

ROOT = Path(__file__).resolve().parents[1]
SDND101 = str(ROOT / "cases" / "sdnd101.py")


def _status(folder: Path) -> str | None:
    try:
        return json.loads((folder / "summary.json").read_text())["status"]
    except (OSError, ValueError, KeyError):
        return None


def _sdnd101(*args, cwd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, SDND101, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          **kw)


def _start(out: Path) -> Run:
    return Run.start(out, "demo", "python demo.py", "custom", {}, quiet=True)


# ----------------------------------------------------------------------------------- what is removed
def test_a_killed_runs_journal_tells_the_next_run_what_to_remove(tmp_path):
    """A run killed outright (no summary listing its files) leaves its lock with the files it wrote;
    the next run takes the stale lock over and removes exactly those."""
    out = tmp_path / "out"
    code = ("import os, sys; from fem.io import output_folder as f; f.claim(sys.argv[1]);"
            "f.write_text(os.path.join(sys.argv[1], 'partial.csv'), 't\\n0\\n');"
            "os.makedirs(os.path.join(sys.argv[1], 'sub'));"
            "f.write_text(os.path.join(sys.argv[1], 'sub', 'step_000001.vtu'), 'x'); os._exit(9)")
    subprocess.run([sys.executable, "-c", code, str(out)], check=False, timeout=120)
    assert (out / output_folder.LOCK).read_text().splitlines()[1:] == ["partial.csv", "sub/step_000001.vtu"]
    (out / "notes.csv").write_text("a user's file")
    _start(prepare_output(out)).finish("complete")
    assert sorted(p.name for p in out.iterdir()) == ["notes.csv", "summary.json"]  # 'sub' emptied and removed


def test_names_leading_out_of_the_folder_are_never_removed(tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    out.mkdir()
    victim.write_text("keep")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.csv").write_text("keep")
    (out / "link").symlink_to(tmp_path / "elsewhere")
    (out / "summary.json").write_text(json.dumps({"files": ["../victim.txt", str(victim), "link/x.csv"]}))
    _start(prepare_output(out)).finish("complete")
    assert victim.read_text() == "keep" and (tmp_path / "elsewhere" / "x.csv").read_text() == "keep"


def test_a_refused_run_leaves_the_previous_runs_files(tmp_path):
    """Exit 2 means nothing was written and nothing removed: the earlier run's files stay."""
    out = tmp_path / "out"
    assert _sdnd101("--t-end", "0.05", "--quiet", "--out", str(out), cwd=tmp_path).returncode == 0
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    proc = _sdnd101("--t-end", "0.05", "--k-shock", "-1", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before


def test_an_empty_out_is_refused(tmp_path):
    (tmp_path / "data.csv").write_text("mine")
    (tmp_path / "plot.png").write_text("mine")
    proc = _sdnd101("--t-end", "0.05", "--out", "", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--out is empty" in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "plot.png"]
    with pytest.raises(BadInput, match="--out is empty"):
        prepare_output("")


# ----------------------------------------------------------------------------------- the lock
def test_a_second_run_into_a_folder_in_use_is_refused_naming_the_first(tmp_path):
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, SDND101, "--t-end", "300", "--quiet", "--out", str(out)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        wait_for(lambda: _status(out) == "running", "the first run to start", proc=first)
        second = _sdnd101("--t-end", "0.05", "--out", str(out), cwd=tmp_path)
        assert second.returncode == 2 and second.stderr.count("\n") == 1
        assert f"in use by another run (pid {first.pid})" in second.stderr
        assert _status(out) == "running"  # the first run's folder untouched
    finally:
        first.send_signal(signal.SIGINT)
    first.communicate(timeout=120)
    assert first.returncode == 130 and _status(out) == "interrupted"
    assert not (out / output_folder.LOCK).exists()
    assert _sdnd101("--t-end", "0.05", "--quiet", "--out", str(out), cwd=tmp_path).returncode == 0  # free again


def test_a_lock_whose_pid_is_another_process_now_is_stale(tmp_path):
    """pid reuse: the lock names a live pid whose process started at another time."""
    out = tmp_path / "out"
    out.mkdir()
    (out / output_folder.LOCK).write_text(f"pid {os.getppid()} start 1\nold.csv\n")
    (out / "old.csv").write_text("from the killed run")
    _start(prepare_output(out)).finish("complete")
    assert not (out / "old.csv").exists() and not (out / output_folder.LOCK).exists()


# ----------------------------------------------------------------------------------- permissions
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_files_follow_the_umask(tmp_path, umask, mode):
    out = tmp_path / "out"
    proc = _sdnd101("--t-end", "0.05", "--quiet", "--out", str(out), cwd=tmp_path,
                    preexec_fn=lambda: os.umask(umask))
    assert proc.returncode == 0, proc.stderr
    files = json.loads((out / "summary.json").read_text())["files"]
    assert {"summary.json", "history.csv"} <= set(files)
    assert {name: stat.S_IMODE((out / name).stat().st_mode) for name in files} == {name: mode for name in files}
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask


# ----------------------------------------------------------------------------------- early Ctrl-C
def _loaded(pid: int, library: str) -> bool:
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def test_ctrl_c_while_the_script_imports_is_exit_130_on_one_line(tmp_path):
    """SIGINT as soon as numpy's library is mapped (the imports under way, nothing written): exit
    130, one line, no traceback, no folder."""
    proc = subprocess.Popen([sys.executable, SDND101, "--out", str(tmp_path / "out")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    wait_for(lambda: _loaded(proc.pid, "numpy"), "numpy to load", proc=proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "interrupted by SIGINT" in err
