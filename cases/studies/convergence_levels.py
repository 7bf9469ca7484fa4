"""The levels of a convergence study (cases/convergence.py): :class:`Level` (one run of the case: a
time step, a mesh, its folder, its arguments, then its status and summary), :class:`Plan` (the
study as planned: its levels and options), and :class:`LevelRunner`, which runs the levels through
the studies' launcher (fem.studies.tasks.launch, as a sweep runs its points), up to ``jobs`` at once,
reuses a level already complete, and passes a signal on to the running levels."""
from __future__ import annotations

import json
import shlex
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fem.run.lifecycle import EXIT_FAILED
from fem.studies.tasks import exit_code, launch, write_stop_file
from fem.time.interrupt import Interrupted

CASES_DIR = Path(__file__).resolve().parents[1]
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
    """Runs levels as processes of their own through the studies' launcher (fem.studies.tasks.launch:
    own session, supervised, stopped through a stop file), up to ``jobs`` at once; a signal reaching
    this process (as :class:`Interrupted`) is passed to the running levels, which stop and record it
    (SIGKILL ``STOP_WAIT`` s later, or at once on a second signal); levels not yet begun stay pending."""

    def __init__(self, out: Path, jobs: int, quiet: bool, reuse: bool, total: int):
        self.logs = out / "logs"
        self.jobs, self.quiet, self.reuse, self.total = jobs, quiet, reuse, total
        self.count = 0
        self.stop_file = self.logs / "stop"

    def script(self, level: Level) -> Path:
        """The script a level runs: ``cases/<CASE>.py`` (a test may substitute its own)."""
        return CASES_DIR / f"{level.case}.py"

    def say(self, text: str) -> None:
        if not self.quiet:
            print(f"convergence: {text}", file=sys.stderr, flush=True)

    def _run(self, level: Level) -> None:
        """One level, in a thread of the pool: launched unless the study was stopped before it began."""
        if self.stop_file.exists():
            return
        self.count += 1
        level.out.mkdir(parents=True, exist_ok=True)
        level.started = time.time()
        self.say(f"level {self.count}/{self.total} {level.name}: {level.command}")
        raw, _, _ = launch(str(self.script(level)), level.args, self.logs / f"{level.name}.out",
                           self.logs / f"{level.name}.err", time_limit=None, stop_file=str(self.stop_file),
                           grace=STOP_WAIT)
        self._done(level, exit_code(raw))

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
        if not pending:
            return
        self.logs.mkdir(parents=True, exist_ok=True)
        for leftover in (self.stop_file, Path(f"{self.stop_file}.now")):
            leftover.unlink(missing_ok=True)
        with ThreadPoolExecutor(self.jobs) as pool:
            futures = [pool.submit(self._run, level) for level in pending]
            try:
                for future in futures:
                    future.result()
            except Interrupted as stop:
                write_stop_file(self.stop_file, signal.Signals(stop.signum).name)
                self._wait(futures)
                raise
            except BaseException:
                write_stop_file(self.stop_file, "SIGTERM")
                Path(f"{self.stop_file}.now").touch()
                self._wait(futures)
                raise

    def _wait(self, futures) -> None:
        """Wait for the levels stopping; a second signal kills them at once."""
        for future in futures:
            while True:
                try:
                    future.result()
                    break
                except Interrupted:
                    Path(f"{self.stop_file}.now").touch()
                except Exception:  # noqa: BLE001 (a level's own failure is in its record)
                    break


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
