"""The levels of a convergence study (cases/convergence.py): :class:`Level` (one run of the case: a
time step, a mesh, its folder, its arguments, then its status and summary), :class:`Plan` (the
study as planned: its levels and options), and :class:`LevelRunner`, which runs the levels as
processes of their own, up to ``jobs`` at once, reuses a level already complete, and forwards a
signal to the running levels."""
from __future__ import annotations

import json
import math
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fem.run.lifecycle import EXIT_FAILED
from fem.time.interrupt import Interrupted

CASES_DIR = Path(__file__).resolve().parent
STOP_WAIT = 60.0  # s a level is given to stop after the signal is forwarded


@dataclass
class Level:
    """One run of the case: a time step, a mesh, its folder and the arguments of the case script."""

    name: str  # dt_<X> or mesh_<NXxNY>
    kind: str  # "time" or "mesh"
    dt: float
    mesh: str  # "reference", "NXxNY", or the --mesh given through
    out: Path
    args: list[str]
    h: float | None = None  # the study's size parameter (dt, or (NX NY)^-1/2)
    same_as: "Level | None" = None  # the mesh study's reference level is the finest time level
    status: str = "pending"
    exit_code: int | None = None
    reused: bool = False
    started: float | None = None
    finished: float | None = None
    message: str | None = None
    summary: dict | None = None
    ke_max: float | None = None

    case: str = ""  # sdnv105a ... sdnv105d

    @property
    def command(self) -> str:
        """The level's command as the case records it in its summary.json (``command``)."""
        return shlex.join(["python", f"cases/{self.case}.py", *self.args])


def _level_summary(level: Level) -> None:
    """Read the level's summary.json and history.csv into ``level`` (status, summary, ke_max)."""
    path = level.out / "summary.json"
    try:
        level.summary = json.loads(path.read_text())
    except (OSError, ValueError):
        level.summary = None
    if level.summary is None:
        level.status = "missing" if level.exit_code in (None, 0) else "failed"
        level.message = level.message or f"no readable {path}"
        return
    status = level.summary.get("status", "missing")
    # a folder left 'running' by a process that ended: killed outright (SIGKILL), never finished
    level.status = "killed" if status == "running" else status
    try:
        from fem.io.results import read_history

        ke = read_history(level.out / "history.csv")["ke"]
        level.ke_max = float(np.max(ke)) if ke.size else None
    except (OSError, ValueError, KeyError):
        level.ke_max = None


def _reusable(level: Level) -> bool:
    try:
        s = json.loads((level.out / "summary.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(s, dict) and s.get("status") == "complete" and s.get("command") == level.command


def _last_line(path: Path) -> str | None:
    try:
        lines = [l for l in path.read_text(errors="replace").splitlines() if l.strip()]
    except OSError:
        return None
    return lines[-1] if lines else None


class LevelRunner:
    """Runs levels as subprocesses, up to ``jobs`` at once; a signal reaching this process (as
    :class:`Interrupted`) is forwarded to the running levels, which stop and record it."""

    def __init__(self, out: Path, jobs: int, quiet: bool, reuse: bool, total: int):
        self.logs = out / "logs"
        self.jobs, self.quiet, self.reuse, self.total = jobs, quiet, reuse, total
        self.count = 0

    def script(self, level: Level) -> Path:
        """The script a level runs: ``cases/<CASE>.py`` (a test may substitute its own)."""
        return CASES_DIR / f"{level.case}.py"

    def say(self, text: str) -> None:
        if not self.quiet:
            print(f"convergence: {text}", file=sys.stderr, flush=True)

    def _start(self, level: Level):
        self.count += 1
        level.out.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(parents=True, exist_ok=True)
        stdout = open(self.logs / f"{level.name}.out", "w")
        stderr = open(self.logs / f"{level.name}.err", "w")
        level.started = time.time()
        self.say(f"level {self.count}/{self.total} {level.name}: {level.command}")
        # a session of its own: a Ctrl-C at the terminal reaches this process only, which forwards it once
        proc = subprocess.Popen([sys.executable, str(self.script(level)), *level.args],
                                stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, start_new_session=True)
        return proc, stdout, stderr

    def _done(self, level: Level, code: int) -> None:
        level.finished = time.time()
        level.exit_code = code
        _level_summary(level)
        if code != 0:  # (a complete status with exit 1: the case's energy books contradict the run)
            level.message = _last_line(self.logs / f"{level.name}.err") or f"exit code {code}"
        self.say(f"{level.name}: {level.status}, exit {code}, {level.finished - level.started:.1f} s"
                 + (f" ({level.message})" if code != 0 and level.message else ""))

    def run(self, levels: list[Level]) -> None:
        pending = []
        for level in levels:
            if self.reuse and _reusable(level):
                level.reused, level.exit_code = True, 0
                _level_summary(level)
                books = (level.summary or {}).get("energy_check") or {}
                if books.get("passed") is False:  # the case exited 1 for it
                    level.exit_code = EXIT_FAILED
                    level.message = books.get("message")
                self.say(f"{level.name}: reused ({level.out}/summary.json, the same command)")
            else:
                pending.append(level)
        self.total = len(pending)
        running: list = []
        try:
            while pending or running:
                while pending and len(running) < self.jobs:
                    level = pending.pop(0)
                    running.append((level, *self._start(level)))
                still = []
                for level, proc, *files in running:
                    code = proc.poll()
                    if code is None:
                        still.append((level, proc, *files))
                        continue
                    for f in files:
                        f.close()
                    self._done(level, code)
                if len(still) == len(running):
                    time.sleep(0.05)
                running = still
        except Interrupted as stop:
            self._stop(running, stop.signum)
            raise
        except BaseException:
            self._stop(running, None)
            raise

    def _stop(self, running: list, signum: int | None) -> None:
        """Forward the signal to each running level (SIGKILL for an error of this process), give it
        STOP_WAIT seconds to record where it stopped, then kill it."""
        for level, proc, *_ in running:
            try:
                proc.send_signal(signum) if signum is not None else proc.kill()
            except OSError:
                pass
        deadline = time.monotonic() + STOP_WAIT
        for level, proc, *files in running:
            try:
                code = proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            except Interrupted:  # a second signal: stop every level at once
                deadline = -math.inf
                proc.kill()
                code = proc.wait()
            for f in files:
                f.close()
            self._done(level, code)


@dataclass
class Plan:
    """A study as planned from its command line: the case, the folder, the flags passed through, the
    time steps and meshes, the options, and the levels (time, then mesh) with their configuration."""

    case: str
    out: Path
    extras: list[str]
    dts: list[float]
    meshes: list[tuple[str, int | None, int | None]]
    impacts: int
    jobs: int
    reuse: bool
    quiet: bool
    force: bool
    levels: list[Level] = field(default_factory=list)
    mesh_levels: list[Level] = field(default_factory=list)
    configuration: str = "benchmark"
    departures: list[str] = field(default_factory=list)
    tilt_rule: str | None = None  # the rule the time levels resolve to (Config.tilt_rule_resolved)
    tilt_rule_given: bool = False  # --tilt-rule among the pass-through flags
    width: float = 0.36
    height: float = 0.80
    t_end: float | None = None
