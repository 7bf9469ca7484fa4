"""Running one point of a sweep on a worker: :class:`CaseCommand` runs a case script as its own
process through :func:`launch` (the studies' one launcher, a convergence study's levels too),
supervised (:func:`supervise`: the time limit, the sweep's stop file, SIGKILL after a grace), and reads its row from the case's summary.json; :func:`run_point` runs any task for a
point and keeps its record ``point.json`` (:func:`point_record`, :func:`current_record`,
:func:`reusable`: what a rerun of the sweep reuses). Re-exported by :mod:`fem.studies.sweep`."""
from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from fem.run.lifecycle import write_json
from fem.studies.points import Point
from fem.studies.results_table import summary_figures

POINT_RECORD = "point.json"
STOP_GRACE = 30.0  # s a point has, after SIGINT, to record where it stopped before SIGKILL


#: run in the child before the case: die with the worker (PR_SET_PDEATHSIG = 1, kept across exec),
#: then run the script as ``python script args`` would (runpy.run_path; the case imports ``cases.*``)
_LAUNCH = """\
import os, runpy, signal, sys
try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
except Exception:
    pass
if os.getppid() != int(sys.argv[1]):
    sys.exit(143)
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
#: one thread of BLAS a point: a sweep runs one point a core
_SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True)
class CaseCommand:
    """Run a case script for a point: ``python <script> <leading> <point's flags> <fixed> --out <folder> --quiet``.

    script : absolute path of the case script (``cases/<case>.py``), the same on every worker.
    fixed : flags given to every point (after the point's own, so that a case reading a flag twice
        takes the fixed one: the sweep refuses a point flag that is also fixed).
    time_limit : seconds a point may run [s] (None: no limit); then SIGINT, SIGKILL after ``grace``.
    leading : arguments before the point's (a command and its file: ``("run", "/abs/stack.toml")``).
    option : None: the point's values as flags ``--NAME VALUE``; else through this option,
        ``--set NAME=VALUE`` (:meth:`Point.flags`).
    """

    script: str
    fixed: tuple[str, ...] = ()
    time_limit: float | None = None
    grace: float = STOP_GRACE
    leading: tuple[str, ...] = ()
    option: str | None = None

    @property
    def label(self) -> str:
        """``cases/<name>.py`` (``cases/<package>/<name>.py``) as a user types it (the case records its command
        so): the path from the last folder named ``cases``, else the script's folder and name."""
        parts = Path(self.script).parts
        top = max((k for k, part in enumerate(parts) if part == "cases"), default=len(parts) - 2)
        return "/".join(parts[top:])

    def arguments(self, point: Point, folder: str) -> list[str]:
        return [*self.leading, *point.flags(self.option), *self.fixed, "--out", str(folder), "--quiet"]

    def identity(self, point: Point) -> list[str]:
        """What the point's record must match to be reused: the case and its arguments."""
        return [self.label, *self.leading, *point.flags(self.option), *self.fixed]

    def __call__(self, point: Point, folder: str, stop_file: str) -> dict:
        folder_path = Path(folder)
        if not Path(self.script).is_file():
            return task_row("failed", f"case script {self.script} not found on this worker", None, 0.0)
        (folder_path / "summary.json").unlink(missing_ok=True)  # figures from this run only
        raw, stopped, wall = launch(self.script, self.arguments(point, folder), folder_path / "stdout.txt",
                                    folder_path / "stderr.txt", time_limit=self.time_limit, stop_file=stop_file,
                                    grace=self.grace)
        code = exit_code(raw)
        summary = _read_summary(folder_path)
        figures = summary_figures(summary) if summary else {}
        reached = summary.get("t_reached")
        where = f" (results up to t = {reached:.6g} s kept)" if isinstance(reached, (int, float)) else ""
        if code == 0 and summary.get("status") == "complete":  # (also when a stop came as it exited)
            return task_row("complete", None, code, wall, figures)
        if stopped == "timeout":
            return task_row("timeout", f"time limit of {self.time_limit:g} s reached{where}", code, wall, figures)
        if stopped == "interrupted":
            return task_row("interrupted", f"stopped with the sweep{where}", code, wall, figures)
        if code in (130, 143) and summary.get("status") == "interrupted":  # a signal from elsewhere
            message = summary.get("message") or f"interrupted ({_signal_name(code)})"
            return task_row("interrupted", f"{message}, not by the sweep{where}", code, wall, figures)
        killed = f"killed by {_signal_name(code)}" if raw is not None and raw < 0 else f"exit code {code}"
        message = _error_line(folder_path / "stderr.txt") or summary.get("message") or killed
        return task_row("failed", message, code, wall, figures)


def launch(script: str, arguments, stdout: Path, stderr: Path, *, time_limit: float | None, stop_file: str,
           grace: float = STOP_GRACE) -> tuple[int | None, str | None, float]:
    """The one launcher of the studies (a sweep's points, a convergence study's levels): run the case
    script ``script`` with ``arguments`` as a process of its own (its own session, so that a Ctrl-C at
    the terminal reaches the study only; one BLAS thread; it dies with this process), its output in
    the files ``stdout`` and ``stderr``, supervised by :func:`supervise` (the time limit, the study's
    stop file, SIGKILL ``grace`` s after the signal). Returns (its return code, why it was stopped or
    None, wall time [s])."""
    env = {**os.environ, **{k: v for k, v in _SINGLE_THREAD.items() if k not in os.environ}}
    argv = [sys.executable, "-c", _LAUNCH, str(os.getpid()), str(script), *arguments]
    start = time.monotonic()
    with open(stdout, "w") as out, open(stderr, "w") as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        raw, stopped = supervise(proc, time_limit, stop_file, grace)
    return raw, stopped, time.monotonic() - start


def exit_code(raw: int | None) -> int | None:
    """A process's exit code as a shell reports it: 128 + N for a process ended by signal N
    (``subprocess`` gives -N): 130 for SIGINT, 143 for SIGTERM, 137 for SIGKILL."""
    return 128 - raw if raw is not None and raw < 0 else raw


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code - 128).name
    except ValueError:
        return f"signal {code - 128}"


def _stop_signal(stop_file: str) -> int:
    """The signal the sweep was stopped by, as its stop file names it (SIGINT if it names none)."""
    try:
        name = Path(stop_file).read_text().strip()
    except OSError:
        name = ""
    return signal.SIGTERM if name == "SIGTERM" else signal.SIGINT


def write_stop_file(stop_file: Path, signal_name: str) -> None:
    """Tell the points of a sweep to stop: ``stop_file`` holding the signal's name (SIGINT,
    SIGTERM), which :func:`supervise` passes on to each point's process. Written whole (a
    temporary file renamed) so that a point never reads it half written."""
    tmp = Path(stop_file).with_name(Path(stop_file).name + ".tmp")
    tmp.write_text(f"{signal_name}\n")
    os.replace(tmp, stop_file)


def supervise(proc: subprocess.Popen, time_limit: float | None, stop_file: str, grace: float):
    """Wait for ``proc``; past ``time_limit`` [s] (``"timeout"``: SIGINT) or once ``stop_file``
    exists (``"interrupted"``: the signal it names, that of the sweep) signal it, then SIGKILL
    ``grace`` seconds later, or at once when ``stop_file`` + ".now" exists (a second Ctrl-C). Returns
    (the process's return code, why it was stopped or None). A process still running when this
    thread is torn down is killed."""
    start, stopped, deadline = time.monotonic(), None, math.inf
    try:
        while True:
            try:
                return proc.wait(timeout=0.25), stopped
            except subprocess.TimeoutExpired:
                pass
            if stopped is None:
                if time_limit is not None and time.monotonic() - start > time_limit:
                    stopped, signum = "timeout", signal.SIGINT
                elif os.path.exists(stop_file):
                    stopped, signum = "interrupted", _stop_signal(stop_file)
                if stopped is not None:
                    proc.send_signal(signum)
                    deadline = time.monotonic() + grace
            elif time.monotonic() > deadline or os.path.exists(stop_file + ".now"):
                proc.kill()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def task_row(status: str, message: str | None, exit_code: int | None, wall: float, figures: dict | None = None) -> dict:
    """The row a task returns for a point: ``status``, ``message``, ``exit_code``, ``wall_s`` (``wall``
    [s] rounded to the ms) and the ``figures`` of its summary.json (:func:`summary_figures`)."""
    return {"status": status, "message": message, "exit_code": exit_code, "wall_s": round(wall, 3),
            "figures": figures or {}}


def _read_summary(folder: Path) -> dict:
    try:
        data = json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _error_line(path: Path) -> str | None:
    """The last ``error:`` line a case printed on stderr (else its last line), without the prefix."""
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return None
    errors = [line for line in lines if line.startswith(("error:", "internal error:"))]
    line = (errors or lines or [None])[-1]
    if line is None:
        return None
    return line.removeprefix("error:").strip()[:500]


#: a record's status for a point the sweep was stopped before it began (no row, no point.json)
NOT_RUN = "not run"
TOPIC = "rockfem-sweep-"  # + a sweep's session: the Dask event topic of its points' starts and ends


def run_point(task: Callable, point: Point, folder: str, stop_file: str, session: str | None = None) -> dict:
    """On a worker: run ``task`` for ``point`` in ``folder`` and record its row in ``point.json``
    (the old record removed first, so that a point cut short by a dead worker has none), with the
    sweep's ``session``. Once ``stop_file`` exists nothing runs: the record says ``not run`` and
    nothing of the folder's is changed. With a ``session``, the point's start and end are Dask events
    (topic :data:`TOPIC` + session) on which the client counts the points running, and
    :func:`running_marker` exists from before the stop file is looked at until after ``point.json``
    is written: a client that wrote the stop file and then finds no marker knows that the point
    will not run (fem.studies.cluster.run_sweep, when it stops)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    marker = running_marker(path, session)
    if marker is not None:
        marker.touch()
    try:
        if os.path.exists(stop_file):  # the sweep was stopped before this point began
            return {"point": point.name, "identity": task.identity(point), "session": session,
                    **task_row(NOT_RUN, "the sweep was stopped before it began", None, 0.0)}
        (path / POINT_RECORD).unlink(missing_ok=True)
        _announce(session, point, "started")
        try:
            try:
                row = task(point, folder, stop_file)
            except Exception as err:  # a task's own defect: the row says so, the sweep goes on
                row = task_row("failed", f"{type(err).__name__}: {err}", None, 0.0)
            record = {"point": point.name, "identity": task.identity(point), "session": session, **row}
            write_json(path / POINT_RECORD, record)
        finally:
            _announce(session, point, "ended")
        return record
    finally:  # after point.json: a client that sees no marker finds the record
        if marker is not None:
            marker.unlink(missing_ok=True)


def running_marker(folder: Path, session: str | None) -> Path | None:
    """The file that says a point of the sweep ``session`` has begun in ``folder`` (None without
    a session)."""
    return None if session is None else Path(folder) / f".running-{session}"


def _announce(session: str | None, point: Point, state: str) -> None:
    if session is None:
        return
    try:
        from distributed import get_worker

        get_worker().log_event(TOPIC + session, {"point": point.name, "state": state})
    except Exception:  # noqa: BLE001 (not on a Dask worker: a direct call has nobody to tell)
        pass


def point_record(folder: Path) -> dict | None:
    """The row a point's folder records (``point.json``: status, message, exit_code, wall_s, figures
    with their types), None if it has none."""
    try:
        record = json.loads((Path(folder) / POINT_RECORD).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def current_record(task, point: Point, folder: Path) -> dict | None:
    """The record of ``point`` in ``folder`` if ``task`` made it for this point (the same identity:
    an earlier sweep's record of other flags is not this point's), its figures read anew from the
    folder's summary.json when there is one."""
    record = point_record(folder)
    if record is None or record.get("identity") != task.identity(point):
        return None
    summary = _read_summary(Path(folder))
    if summary:  # the figures as this version of summary_figures reads them
        record["figures"] = summary_figures(summary)
    return record


def reusable(task, point: Point, folder: Path) -> dict | None:
    """The record of ``point`` in ``folder`` if it is complete and made by the same identity."""
    record = current_record(task, point, folder)
    return record if record is not None and record.get("status") == "complete" else None
