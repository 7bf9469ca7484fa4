"""Parameter studies: one case run over many values of its flags, each point on a Dask worker, the
results gathered in one table as the points finish.

The pieces, from the grid to the table:

* :class:`Point`: one set of flag values (``mu=0.6``, ``dt=1e-3``), in a folder of its own
  ``OUT/points/<name>``; :func:`grid` is the Cartesian product of axes (``--grid mu=0.3,0.6``,
  ``--grid amplitude-g=0.4:1.2:5`` for five values from 0.4 to 1.2), :func:`read_points` a CSV
  whose header names the flags and whose rows are the points. Their number is checked against
  :func:`point_limit` before any point is built: an axis's count, then the product of the axes'
  lengths (``v0=0:1:1000000000`` is refused at once, :class:`TooManyPoints`).
* A **task**: what runs a point on a worker. :class:`CaseCommand` runs a case script as its own
  process (``python cases/<case>.py <point's flags> <fixed flags> --out <folder> --quiet``), so a
  point that crashes or hangs takes nothing else down: ``time_limit`` [s] sends it SIGINT (it then
  writes ``status: interrupted`` and keeps its files), SIGKILL ``grace`` seconds later. A task may
  be any picklable callable ``task(point, folder, stop_file) -> row`` with ``task.identity(point)``
  (what makes a finished point reusable: the command line for a case).
* :func:`run_point`, on the worker: announces the point's start and end (Dask events: the progress
  counts the points running from them), runs the task, then writes the row to
  ``<folder>/point.json`` (atomically). That file is the point's record: a rerun of the sweep reuses
  every point whose ``point.json`` says ``complete`` for the same identity, and runs the others
  again (an interrupted point from its start: a case does not resume).
* :func:`run_sweep`, on the client: submits the points not yet complete, adds each point's row to
  ``OUT/results.csv`` as its future completes (rewritten atomically, sorted as the grid), and shows
  progress; the caller keeps the sweep's own record (``summary.json``, fem.run.lifecycle). A point that fails
  is a row with ``status: failed`` and its message; a point whose worker dies is run again on
  another worker by Dask (up to ``distributed.scheduler.allowed-failures`` times, then it is a
  failed row). A signal (SIGINT, SIGTERM) stops the sweep: the rows of the points finished
  meanwhile first, then the running points are sent the same signal (rows ``interrupted``, exit code
  130 / 143), the points not started are not run (no row; counted ``not run``), and the table is
  written before the signal is raised again.
* :func:`check_scheduler` and :func:`connect`: a LocalCluster with one single-threaded worker per
  core (the tasks wait on processes, so the workers are threads of this process), or a running
  scheduler (``tcp://HOST:PORT``, refused on one line if it does not answer as a Dask scheduler
  within :data:`CONNECT_TIMEOUT` seconds; workers elsewhere must see the same output folder, a
  shared file system, and have this package installed).

A row: ``point``, the point's flags (their names without ``--``), ``status`` (``complete``,
``failed``, ``timeout``, ``interrupted``), ``message``, ``exit_code`` (128 + N for a process ended by
signal N), ``wall_s`` (the point's own wall time [s]), ``folder``, then the figures of the point's
``summary.json`` (:func:`summary_figures`).
"""
from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import logging
import math
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence, TextIO

from fem.io import output_folder
from fem.run import lifecycle as _run
from fem.time.interrupt import Interrupted, held
from fem.run.lifecycle import BadInput, Estimate, finite, write_json

POINT_RECORD = "point.json"
RESULTS = "results.csv"
#: leading columns of every row, before the point's flags' and the summary's figures
LEADING = ("point",)
TRAILING = ("status", "message", "exit_code", "wall_s", "folder")
#: summary.json keys left out of a row: the run's identity (in point.json) and its inputs (the flags)
SKIPPED_KEYS = ("case", "command", "version", "parameters", "status", "message")
MAX_LIST = 8  # a summary list longer than this is not a figure (a curve): left out of the row
MAX_DEPTH = 3
STOP_GRACE = 30.0  # s a point has, after SIGINT, to record where it stopped before SIGKILL


# ----------------------------------------------------------------------------------- points
_NAME_SAFE = re.compile(r"[^A-Za-z0-9.+=-]+")
#: a flag's name (``mu``, ``amplitude-g``) or a problem file's dotted key (``pairs.BRICK_1_BOTTOM.mu``)
_FLAG = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$")


@dataclass(frozen=True)
class Point:
    """One point of a study: ``values`` are ``(flag, text)`` pairs, the flag without ``--``, the
    value as the user wrote it (passed to the case unchanged); ``index`` its place in the grid."""

    index: int
    values: tuple[tuple[str, str], ...]

    @property
    def name(self) -> str:
        """Folder name: ``mu=0.6_dt=0.001`` (characters other than letters, digits and ``.+=-``
        replaced by ``_``); ``p0007-<hash>`` when that would be longer than 100 characters."""
        text = "_".join(f"{k}={_NAME_SAFE.sub('_', v)}" for k, v in self.values) or "default"
        if len(text) <= 100:
            return text
        import hashlib

        digest = hashlib.sha1(repr(self.values).encode()).hexdigest()[:10]
        return f"p{self.index:04d}-{digest}"

    def flags(self, option: str | None = None) -> list[str]:
        """``["--mu", "0.6", "--dt", "0.001"]``; with an ``option`` each value is given through it,
        ``NAME=VALUE``: ``["--set", "pairs.0.mu=0.6", "--set", "steps.dt=0.001"]``."""
        if option is not None:
            return [x for k, v in self.values for x in (option, f"{k}={v}")]
        return [x for k, v in self.values for x in (f"--{k}", v)]

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.values)


class TooManyPoints(BadInput):
    """A study of more points than its limit (:func:`point_limit`), refused before any is built."""


def point_limit(force: bool) -> int:
    """The most points a study may have: :data:`MAX_POINTS`; with ``--force`` as many as this
    machine's memory can keep track of (:data:`POINT_BOOKKEEPING` bytes a point on the client and
    the scheduler), and never fewer than :data:`MAX_POINTS`."""
    if not force:
        return MAX_POINTS
    return max(MAX_POINTS, int(_run.available_memory() // POINT_BOOKKEEPING))


def _too_many(what: str, count: int | None, limit: int, noun: str = "points") -> TooManyPoints:
    """``count`` None: more than ``limit`` (a file not read past the limit)."""
    more = "points this machine's memory can keep track of" if limit > MAX_POINTS else "points"
    counted = f"{count:,} {noun}, more than" if count is not None else "more than"
    return TooManyPoints(f"{what}: {counted} the limit of {limit:,} {more} "
                         f"(fewer values{', or --force' if limit == MAX_POINTS else ''})")


def parse_values(text: str, label: str, limit: int | None = None) -> tuple[str, ...]:
    """``v1,v2,...`` or ``start:stop:count`` (count evenly spaced numbers, ends included), as
    strings; :class:`fem.run.lifecycle.BadInput` whose message starts with ``label`` (what the user typed,
    ``--grid mu=0.3,0.6``) otherwise, :class:`TooManyPoints` for more than ``limit`` values, counted
    before any is built."""
    if re.fullmatch(r"[^,]*:[^,]*:[^,]*", text):
        start, stop, count = text.split(":")
        try:
            a, b, n = float(start), float(stop), int(count)
        except ValueError:
            raise BadInput(f"{label}: start:stop:count needs two numbers and an integer") from None
        if n < 1 or not (math.isfinite(a) and math.isfinite(b)):
            raise BadInput(f"{label}: count must be >= 1 and the ends finite")
        if limit is not None and n > limit:
            raise _too_many(label, n, limit, "values")
        return tuple(repr(float(a + (b - a) * k / (n - 1))) if n > 1 else repr(a) for k in range(n))
    values = tuple(v.strip() for v in text.split(","))
    if not text.strip() or any(not v for v in values):
        raise BadInput(f"{label}: empty value (expected v1,v2,... or start:stop:count)")
    if limit is not None and len(values) > limit:
        raise _too_many(label, len(values), limit, "values")
    if len(set(values)) != len(values):
        raise BadInput(f"{label}: a value is repeated")
    return values


def parse_axis(text: str, limit: int | None = None) -> tuple[str, tuple[str, ...]]:
    """``"mu=0.3,0.6"`` -> ``("mu", ("0.3", "0.6"))`` (a leading ``--`` on the name is dropped);
    :class:`fem.run.lifecycle.BadInput` naming ``--grid`` for anything else, :class:`TooManyPoints` for an
    axis of more than ``limit`` values (counted first: ``v0=0:1:1000000000`` builds nothing)."""
    name, sep, rest = text.partition("=")
    name = name.strip().removeprefix("--")
    if not sep or not _FLAG.match(name):
        raise BadInput(f"--grid {text}: expected NAME=v1,v2,... or NAME=start:stop:count (NAME a flag of the case, "
                       f"or a dotted key of a problem file)")
    return name, parse_values(rest, f"--grid {name}={rest}", limit)


def grid(axes: Sequence[tuple[str, Sequence[str]]], limit: int | None = None) -> list[Point]:
    """The Cartesian product of ``axes`` ``[(flag, values), ...]``, the last axis varying fastest;
    :class:`TooManyPoints` if the product of the axes' lengths exceeds ``limit`` (checked before
    any point is built)."""
    names = [name for name, _ in axes]
    if len(set(names)) != len(names):
        raise BadInput(f"--grid: a flag is given twice ({', '.join(sorted(n for n in names if names.count(n) > 1))})")
    count = math.prod(len(values) for _, values in axes)
    if limit is not None and count > limit:
        sizes = " x ".join(f"{len(values):,} ({name})" for name, values in axes)
        raise _too_many(f"--grid {sizes}", count, limit)
    combos = itertools.product(*(values for _, values in axes))
    return [Point(i, tuple(zip(names, combo))) for i, combo in enumerate(combos)]


def read_points(path: Path, limit: int | None = None) -> list[Point]:
    """Points from a CSV file: a header of flag names (with or without ``--``), a row a point; an
    empty cell leaves the flag out of that point. :class:`TooManyPoints` as soon as a row past
    ``limit`` is read (the file is read row by row, never whole)."""
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            rows = []
            for r in reader:
                if any(c.strip() for c in r):
                    rows.append(r)
                    if limit is not None and len(rows) > limit + 1:  # the header and limit points
                        raise _too_many(f"--points {path}", None, limit)
    except OSError as err:
        raise BadInput(f"--points {path}: cannot read it ({err.strerror or err})") from None
    except (csv.Error, UnicodeDecodeError) as err:
        raise BadInput(f"--points {path}: not a CSV file ({err})") from None
    if len(rows) < 2:
        raise BadInput(f"--points {path}: needs a header of flag names and at least one row")
    names = [c.strip().removeprefix("--") for c in rows[0]]
    bad = [n for n in names if not _FLAG.match(n)]
    if bad or len(set(names)) != len(names):
        raise BadInput(f"--points {path}: the header must name distinct flags, got {rows[0]}")
    points = []
    for i, row in enumerate(rows[1:]):
        if len(row) != len(names):
            raise BadInput(f"--points {path}: row {i + 2} has {len(row)} cells, the header {len(names)}")
        points.append(Point(i, tuple((n, c.strip()) for n, c in zip(names, row) if c.strip())))
    if len({p.values for p in points}) != len(points):
        raise BadInput(f"--points {path}: a row is repeated")
    return points


# ----------------------------------------------------------------------------------- summary figures
def summary_figures(summary: dict) -> dict:
    """The figures of a ``summary.json`` as flat columns: numbers, booleans and strings under their
    key (nested dicts joined with ``.``, e.g. ``run.wall_s``, ``rigid_body.overturned``); a list of
    one number under its key, of up to :data:`MAX_LIST` numbers as ``key[0]``, ``key[1]`` ...; a
    list of records (impacts, checks) as its length; for checks (records with ``passed`` or
    ``within_tolerance``) ``key_failed``, the number that failed; for up to :data:`MAX_LIST` other
    records (impacts) the numbers of each, ``key[0].time``, ``key[0].ke_before`` ... Longer lists
    (curves, a run's many impacts beyond their count) and the run's identity (:data:`SKIPPED_KEYS`)
    are left out."""
    out: dict = {}

    def scalar(x) -> bool:
        return x is None or isinstance(x, (bool, int, float, str))

    def add(prefix: str, value, depth: int) -> None:
        if scalar(value):
            out[prefix] = value
        elif isinstance(value, dict) and depth < MAX_DEPTH:
            for k, v in value.items():
                add(f"{prefix}.{k}", v, depth + 1)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            out[prefix] = len(value)
            if any("passed" in v or "within_tolerance" in v for v in value):  # checks (a verdict may be None)
                out[f"{prefix}_failed"] = sum(v.get("passed", v.get("within_tolerance")) is False for v in value)
            elif len(value) <= MAX_LIST:  # a few events (impacts): their numbers, key[i].field
                for k, record in enumerate(value):
                    for name, x in record.items():
                        if isinstance(x, (int, float)) and not isinstance(x, bool):
                            out[f"{prefix}[{k}].{name}"] = x
        elif isinstance(value, list) and not value:
            out[prefix] = 0 if prefix in ("impacts", "checks") else None
        elif isinstance(value, list) and len(value) <= MAX_LIST and all(scalar(v) for v in value):
            if len(value) == 1:
                out[prefix] = value[0]
            else:
                for k, v in enumerate(value):
                    out[f"{prefix}[{k}]"] = v

    for key, value in summary.items():
        if key not in SKIPPED_KEYS:
            add(key, value, 1)
    return out


# ----------------------------------------------------------------------------------- tasks
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
        """``cases/<name>.py`` as a user types it (the case records its command so)."""
        path = Path(self.script)
        return f"{path.parent.name}/{path.name}"

    def arguments(self, point: Point, folder: str) -> list[str]:
        return [*self.leading, *point.flags(self.option), *self.fixed, "--out", str(folder), "--quiet"]

    def identity(self, point: Point) -> list[str]:
        """What the point's record must match to be reused: the case and its arguments."""
        return [self.label, *self.leading, *point.flags(self.option), *self.fixed]

    def __call__(self, point: Point, folder: str, stop_file: str) -> dict:
        folder_path = Path(folder)
        if not Path(self.script).is_file():
            return _row("failed", f"case script {self.script} not found on this worker", None, 0.0)
        (folder_path / "summary.json").unlink(missing_ok=True)  # figures from this run only
        env = {**os.environ, **{k: v for k, v in _SINGLE_THREAD.items() if k not in os.environ}}
        argv = [sys.executable, "-c", _LAUNCH, str(os.getpid()), self.script, *self.arguments(point, folder)]
        start = time.monotonic()
        with open(folder_path / "stdout.txt", "w") as out, open(folder_path / "stderr.txt", "w") as err:
            proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                    start_new_session=True)
            raw, stopped = supervise(proc, self.time_limit, stop_file, self.grace)
        wall = time.monotonic() - start
        code = exit_code(raw)
        summary = _read_summary(folder_path)
        figures = summary_figures(summary) if summary else {}
        reached = summary.get("t_reached")
        where = f" (results up to t = {reached:.6g} s kept)" if isinstance(reached, (int, float)) else ""
        if code == 0 and summary.get("status") == "complete":  # (also when a stop came as it exited)
            return _row("complete", None, code, wall, figures)
        if stopped == "timeout":
            return _row("timeout", f"time limit of {self.time_limit:g} s reached{where}", code, wall, figures)
        if stopped == "interrupted":
            return _row("interrupted", f"stopped with the sweep{where}", code, wall, figures)
        if code in (130, 143) and summary.get("status") == "interrupted":  # a signal from elsewhere
            message = summary.get("message") or f"interrupted ({_signal_name(code)})"
            return _row("interrupted", f"{message}, not by the sweep{where}", code, wall, figures)
        killed = f"killed by {_signal_name(code)}" if raw is not None and raw < 0 else f"exit code {code}"
        message = _error_line(folder_path / "stderr.txt") or summary.get("message") or killed
        return _row("failed", message, code, wall, figures)


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
    ``grace`` seconds later. Returns (the process's return code, why it was stopped or None). A
    process still running when this thread is torn down is killed."""
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
            elif time.monotonic() > deadline:
                proc.kill()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _row(status: str, message: str | None, exit_code: int | None, wall: float, figures: dict | None = None) -> dict:
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
#: the statuses of rows, in the order the summaries count them
ROW_STATUSES = ("complete", "failed", "timeout", "interrupted")
TOPIC = "rockfem-sweep-"  # + a sweep's session: the Dask event topic of its points' starts and ends


def run_point(task: Callable, point: Point, folder: str, stop_file: str, session: str | None = None) -> dict:
    """On a worker: run ``task`` for ``point`` in ``folder`` and record its row in ``point.json``
    (the old record removed first, so that a point cut short by a dead worker has none), with the
    sweep's ``session``. Once ``stop_file`` exists nothing runs: the record says ``not run`` and
    nothing of the folder's is changed. With a ``session``, the point's start and end are Dask events
    (topic :data:`TOPIC` + session) on which the client counts the points running, and
    :func:`running_marker` exists from before the stop file is looked at until after ``point.json``
    is written: a client that wrote the stop file and then finds no marker knows that the point
    will not run (:func:`_stop`)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    marker = running_marker(path, session)
    if marker is not None:
        marker.touch()
    try:
        if os.path.exists(stop_file):  # the sweep was stopped before this point began
            return {"point": point.name, "identity": task.identity(point), "session": session,
                    **_row(NOT_RUN, "the sweep was stopped before it began", None, 0.0)}
        (path / POINT_RECORD).unlink(missing_ok=True)
        _announce(session, point, "started")
        try:
            try:
                row = task(point, folder, stop_file)
            except Exception as err:  # a task's own defect: the row says so, the sweep goes on
                row = _row("failed", f"{type(err).__name__}: {err}", None, 0.0)
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


# ----------------------------------------------------------------------------------- the table
def write_csv(path: Path, rows: Sequence[dict], columns: Sequence[str] | None = None) -> None:
    """``rows`` as CSV under ``columns`` (default: the first row's keys), replaced atomically: None
    as an empty cell, floats at full precision (repr)."""
    def text(x) -> str:
        return "" if x is None else repr(x) if isinstance(x, float) else str(x)

    columns = list(columns if columns is not None else (rows[0] if rows else ()))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([text(row.get(c)) for c in columns])
    output_folder.write_text(path, buf.getvalue())


@dataclass
class ResultsTable:
    """The rows of a sweep, one per point (its latest), written to ``path`` as CSV in grid order:
    :data:`LEADING`, the flags (``flags``, in their order), :data:`TRAILING`, then the summary
    figures in the order they were first seen."""

    path: Path
    flags: tuple[str, ...]
    rows: dict = field(default_factory=dict)  # point index -> row dict

    def add(self, point: Point, record: dict, folder: Path) -> dict:
        row = {"point": point.name, **dict(point.values)}
        row.update({k: record.get(k) for k in TRAILING if k != "folder"})
        row["folder"] = str(folder)
        for k, v in (record.get("figures") or {}).items():
            row.setdefault(k, v)
        self.rows[point.index] = row
        return row

    def columns(self) -> list[str]:
        cols = [*LEADING, *self.flags, *TRAILING]
        seen = set(cols)
        for i in sorted(self.rows):
            for k in self.rows[i]:
                if k not in seen:
                    seen.add(k)
                    cols.append(k)
        return cols

    def write(self) -> None:
        write_csv(self.path, [self.rows[i] for i in sorted(self.rows)], self.columns())

    def count(self, status: str) -> int:
        return sum(r["status"] == status for r in self.rows.values())

    def counts(self) -> dict:
        """{status: rows of it} for every row status (:data:`ROW_STATUSES`)."""
        counts = dict.fromkeys(ROW_STATUSES, 0)
        for r in self.rows.values():
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        return counts


def read_results(path: Path) -> list[dict]:
    """``results.csv`` as a list of dicts of strings (the columns as written)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ----------------------------------------------------------------------------------- progress
def time_left(walls: Sequence[float], remaining: int, parallelism: int,
              running_for: Sequence[float] = ()) -> float | None:
    """Seconds until a sweep ends: the mean wall time of the points finished (``walls`` [s]) times
    the ``remaining`` points (running and waiting), less what the running ones have run already
    (``running_for`` [s], each counted up to the mean), spread over ``parallelism`` workers (no more
    than there are points left). None before a point has finished. It decreases as time passes and
    as points finish, as long as they take about the mean."""
    if remaining <= 0:
        return 0.0
    if not walls:
        return None
    mean = sum(walls) / len(walls)
    work = mean * remaining - sum(min(max(t, 0.0), mean) for t in running_for)
    return max(work, 0.0) / max(1, min(parallelism, remaining))


class SweepProgress:
    """Progress on ``stream``: a line for every finished point, and on a terminal a line rewritten
    in place: the counts of each status, the points running (those whose process has started and
    not ended, as the workers announce them: never more than ``parallelism``, the workers'
    threads), waiting, and the time left (:func:`time_left`, from the points finished in this
    session). ``clock`` [s] is the time it reads (a test gives its own)."""

    def __init__(self, total: int, stream: TextIO | None = None, quiet: bool = False, parallelism: int = 1,
                 clock: Callable[[], float] = time.monotonic):
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.quiet = quiet
        self.parallelism = max(1, int(parallelism))
        self.clock = clock
        self.walls: list[float] = []  # wall times [s] of the points finished in this session
        self._started: dict = {}  # point name -> clock when its start was announced
        self._lock = threading.Lock()

    # the workers' announcements (fem.studies.sweep.run_point), on the Dask client's thread
    def event(self, event) -> None:
        """A Dask event ``(timestamp, {"point": name, "state": "started" | "ended"})``."""
        try:
            _, message = event
            name, state = message["point"], message["state"]
        except (TypeError, ValueError, KeyError):
            return
        if state == "started":
            self.started(name)
        elif state == "ended":
            self.ended(name)

    def started(self, name: str) -> None:
        with self._lock:
            self._started[name] = self.clock()

    def ended(self, name: str) -> None:
        with self._lock:
            self._started.pop(name, None)

    def running(self) -> int:
        with self._lock:
            return min(len(self._started), self.parallelism)

    def time_left(self, counts: dict) -> float | None:
        now = self.clock()
        with self._lock:
            running_for = sorted((now - t for t in self._started.values()), reverse=True)[:self.parallelism]
        return time_left(self.walls, self.total - sum(counts.values()), self.parallelism, running_for)

    def _write(self, text: str) -> None:
        if self.quiet:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def bar(self, counts: dict) -> str:
        finished = sum(counts.values())
        running = min(self.running(), self.total - finished)
        width = 24
        filled = int(width * finished / max(self.total, 1))
        parts = [f"{counts.get('complete', 0)} complete"]
        parts += [f"{n} {_STATUS_WORDS.get(s, s)}" for s, n in counts.items() if s != "complete" and n]
        parts += [f"{running} running", f"{max(self.total - finished - running, 0)} waiting"]
        text = f"sweep [{'#' * filled}{'.' * (width - filled)}] {finished}/{self.total}: {', '.join(parts)}"
        left = self.time_left(counts)
        if left is not None and finished < self.total:
            text += f", about {_duration(left)} left"
        return text

    def point(self, row: dict, counts: dict) -> None:
        """A point finished in this session: its line, and ``counts`` (the table's) on the bar."""
        if isinstance(row.get("wall_s"), (int, float)) and row["wall_s"] > 0:  # (a lost worker's row: 0 s)
            self.walls.append(float(row["wall_s"]))
        what = row["status"] + (f" ({row['message']})" if row.get("message") else "")
        line = f"[{sum(counts.values())}/{self.total}] {row['label']}: {what}, {row['wall_s']:.1f} s"
        self._write(("\r" + " " * 110 + "\r" if self.tty else "") + line + "\n")
        self.update(counts)

    def update(self, counts: dict) -> None:
        if self.tty:
            self._write("\r" + self.bar(counts)[:160].ljust(110))

    def close(self) -> None:
        if self.tty:
            self._write("\r" + " " * 110 + "\r")


_STATUS_WORDS = {"timeout": "timed out"}


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# ----------------------------------------------------------------------------------- Dask
#: seconds to reach a scheduler (and for it to answer) before --scheduler is refused
CONNECT_TIMEOUT = 10.0


@contextlib.contextmanager
def _silent_logs():
    """No log record at all inside the block (Dask's loggers and asyncio's would print the
    failed connection's details on stderr: the refusal is one line)."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(previous)


def check_scheduler(address: str | None, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse (:class:`fem.run.lifecycle.BadInput`, one line naming ``--scheduler`` and the address) a
    scheduler that cannot be reached, does not answer, or is not a Dask scheduler, within
    ``timeout`` seconds: connection, handshake and one request, bounded as a whole (a host that
    accepts and never answers does not hang the sweep). Nothing is left behind (no Dask client
    half made) and nothing is logged. None: no scheduler to check."""
    if address is None:
        return
    import asyncio

    from distributed.comm import connect as dask_connect

    async def ask() -> object:
        comm = await dask_connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    bound = timeout + 2.0  # the whole exchange; past the connection's own timeout, so that it reports first

    async def bounded() -> object:
        return await asyncio.wait_for(ask(), bound)

    with _silent_logs():
        try:
            answer = asyncio.run(bounded())
        except (asyncio.TimeoutError, TimeoutError):
            raise BadInput(f"--scheduler {address}: no answer within {bound:g} s") from None
        except OSError as err:
            raise BadInput(f"--scheduler {address}: cannot connect within {timeout:g} s{_reason(err)}") from None
        except Exception as err:  # noqa: BLE001 (garbage read as a message: MemoryError, ValueError ...)
            raise BadInput(f"--scheduler {address}: what answers there is not a Dask scheduler "
                           f"({type(err).__name__})") from None
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        kind = answer.get("type") if isinstance(answer, dict) else type(answer).__name__
        raise BadInput(f"--scheduler {address}: what answers there is not a Dask scheduler (a {kind})")


def _reason(err: BaseException) -> str:
    """`` (Connection refused)``: the system's reason in the causes of ``err`` (Dask wraps it), or
    nothing (the last attempt timed out)."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, OSError) and err.strerror:
            return f" ({err.strerror})"
        err = err.__cause__ or err.__context__
    return ""


def connect(scheduler: str | None = None, workers: int | None = None):
    """A Dask client: to the scheduler at ``scheduler`` (``tcp://HOST:PORT``, checked first by
    :func:`check_scheduler`), or to a new LocalCluster of ``workers`` (default: the cores)
    single-threaded workers. Returns ``(client, cluster)``, cluster None for an outside scheduler;
    :class:`fem.run.lifecycle.BadInput` naming ``--scheduler`` if it cannot be reached in
    :data:`CONNECT_TIMEOUT` seconds."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        check_scheduler(scheduler)
        with _silent_logs():
            try:
                return Client(scheduler, timeout=f"{CONNECT_TIMEOUT}s", set_as_default=False), None
            except Exception as err:  # noqa: BLE001 (gone since the check)
                raise BadInput(f"--scheduler {scheduler}: cannot connect ({type(err).__name__}: {err})") from None
    cluster = LocalCluster(n_workers=workers or cores(), threads_per_worker=1, processes=False,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster, set_as_default=False), cluster


def threads(client) -> int:
    """The worker threads of ``client``'s cluster (1 if it cannot tell)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # noqa: BLE001
        return 1


def dashboard(client) -> str | None:
    """The scheduler's dashboard address, when it serves one (Dask serves it only where bokeh is
    installed; without it the address answers with a page saying so: None then)."""
    from urllib.request import urlopen

    try:
        link = client.dashboard_link
        with urlopen(link, timeout=2.0) as answer:  # without bokeh: a page saying it is needed
            served = answer.status == 200 and b"needs bokeh" not in answer.read(4096)
        return link if served else None
    except Exception:  # noqa: BLE001 (no address, nothing listening, not found: no dashboard to give)
        return None


@dataclass(frozen=True)
class SweepOutcome:
    """The counts of a sweep: every point is complete (``reused`` of them from an earlier run),
    failed, timed out, interrupted (stopped with the sweep), or not run (the sweep was stopped
    before it began)."""

    total: int
    complete: int
    failed: int
    reused: int  # complete in an earlier run of the sweep, not run again
    table: Path
    where: str = ""  # the cluster: "a LocalCluster of N workers" or the scheduler's address
    dashboard: str | None = None  # the scheduler's dashboard, when it serves one
    timeout: int = 0
    interrupted: int = 0

    @classmethod
    def of(cls, total: int, counts: dict, reused: int, table: Path, **more) -> "SweepOutcome":
        """From a table's ``counts`` ({status: rows}); ``more``: where, dashboard."""
        return cls(total, counts.get("complete", 0), counts.get("failed", 0), reused, table,
                   timeout=counts.get("timeout", 0), interrupted=counts.get("interrupted", 0), **more)

    @property
    def not_complete(self) -> int:
        return self.total - self.complete

    @property
    def not_run(self) -> int:
        return self.total - self.complete - self.failed - self.timeout - self.interrupted

    def describe(self) -> str:
        """``6 points: 1 complete, 2 failed, 1 interrupted, 2 not run`` (the statuses there are)."""
        parts = [f"{self.complete} complete"]
        parts += [f"{n} {word}" for n, word in ((self.failed, "failed"), (self.timeout, "timed out"),
                                                 (self.interrupted, "interrupted"), (self.not_run, "not run")) if n]
        return f"{self.total} points: {', '.join(parts)}"

    def record(self) -> dict:
        """The sweep's figures for a summary.json."""
        return {"where": self.where, "dashboard": self.dashboard, "points": self.total, "complete": self.complete,
                "not_complete": self.not_complete, "failed": self.failed, "timeout": self.timeout,
                "interrupted": self.interrupted, "not_run": self.not_run, "reused": self.reused,
                "table": str(self.table)}


def run_sweep(points: Sequence[Point], task, out: Path, client, *, progress: SweepProgress | None = None,
              poll: float = 0.2) -> SweepOutcome:
    """Run every point of ``points`` not already complete in ``out`` with ``task`` on ``client``'s
    workers; a row into ``out/results.csv`` as each finishes (module docstring). A signal
    (:class:`fem.time.interrupt.Interrupted`) stops the sweep (:func:`_stop`): the points finished
    meanwhile are rows, the running ones are told to stop (their rows say ``interrupted``), the
    waiting ones are not run; the table is written, and the signal raised again with the counts as
    its ``outcome`` attribute."""
    out = Path(out)
    folders = {p.index: out / "points" / p.name for p in points}
    names = [p.name for p in points]
    if len(set(names)) != len(names):
        raise BadInput("two points share a folder name: give distinct values")
    flags = tuple(dict.fromkeys(k for p in points for k, _ in p.values))
    table = ResultsTable(out / RESULTS, flags)
    todo = []
    for p in points:
        record = reusable(task, p, folders[p.index])
        if record is not None:
            table.add(p, record, folders[p.index])
        else:
            todo.append(p)
    reused = len(points) - len(todo)
    table.write()
    progress = progress or SweepProgress(len(points))
    progress.parallelism = threads(client)  # the most points that can run at once
    session = uuid.uuid4().hex[:8]
    stop_file = out / f".stop-{session}"
    sweep = _Sweep(table, task, folders, progress, session)
    client.subscribe_topic(TOPIC + session, progress.event)
    try:
        for p in todo:  # in grid order
            future = client.submit(run_point, task, p, str(folders[p.index]), str(stop_file), session,
                                   key=f"{p.name}-{session}", pure=False, priority=len(points) - p.index)
            sweep.pending[future] = p
            sweep.submitted.append(p)
            future.add_done_callback(sweep.finished.put)
        next_threads = progress.clock() + 5.0
        while sweep.pending:
            try:
                future = sweep.finished.get(timeout=poll)
            except queue.Empty:
                if progress.clock() > next_threads:  # workers may come and go (a scheduler's)
                    progress.parallelism, next_threads = threads(client), progress.clock() + 5.0
                progress.update(table.counts())
                continue
            sweep.collect(future)
            sweep.collect_finished()
            with held():
                table.write()
    except Interrupted as stop:
        try:
            _stop(sweep, stop, stop_file, client)
        except Interrupted:  # yet another signal: the table is written all the same (_stop), stop now
            pass
        progress.close()
        stop.outcome = SweepOutcome.of(len(points), table.counts(), reused, table.path)
        raise
    finally:
        stop_file.unlink(missing_ok=True)
        try:
            client.unsubscribe_topic(TOPIC + session)
        except Exception:  # noqa: BLE001 (a client already closing)
            pass
    progress.close()
    return SweepOutcome.of(len(points), table.counts(), reused, table.path)


class _Sweep:
    """The client's side of a running sweep: the futures not yet collected, and how a finished
    one becomes a row."""

    def __init__(self, table: ResultsTable, task, folders: dict, progress: SweepProgress, session: str):
        self.table, self.task, self.folders, self.progress, self.session = table, task, folders, progress, session
        self.pending: dict = {}  # future -> point
        self.submitted: list[Point] = []
        self.finished: queue.Queue = queue.Queue()  # futures done (their callbacks put them here)

    def collect(self, future) -> None:
        """The row of a finished future (a signal meanwhile waits until the row is in the table)."""
        from distributed import CancelledError

        point = self.pending.get(future)
        if point is None:
            return
        try:  # the record comes from the worker: a signal meanwhile leaves the future pending
            record = future.result()
        except CancelledError:
            record = None
        except Exception as err:  # noqa: BLE001 (a worker lost too often: KilledWorker, ...)
            record = {"point": point.name, **_row("failed", f"{type(err).__name__}: {err}", None, 0.0)}
        with held():
            self.pending.pop(future, None)
            future.release()  # at once: a finished point held on a worker that dies would be run again
            if record is None:  # cancelled: its record, if it ran all the same
                record = self.session_record(point)
            else:
                self.progress.ended(point.name)
            if record is None or record.get("status") not in ROW_STATUSES:  # not run: no row
                return
            row = self.table.add(point, record, self.folders[point.index])
        self.progress.point({**row, "label": point.label() or point.name}, self.table.counts())

    def collect_finished(self) -> None:
        """Every future already done, without waiting."""
        while True:
            try:
                future = self.finished.get_nowait()
            except queue.Empty:
                return
            self.collect(future)

    def session_record(self, point: Point) -> dict | None:
        """``point``'s record if this sweep wrote it (its point.json, same identity and session)."""
        record = current_record(self.task, point, self.folders[point.index])
        return record if record is not None and record.get("session") == self.session else None


def _stop(sweep: _Sweep, stop: Interrupted, stop_file: Path, client) -> None:
    """Stop a sweep on ``stop``: the rows of the points finished meanwhile first; then the running
    points are told to stop with the same signal (``stop_file``), the points not begun (no
    :func:`running_marker`) are cancelled, and the rows of the others are collected for up to
    ``STOP_GRACE`` + 5 s (a second signal stops waiting); a point whose row did not arrive but whose
    ``point.json`` this sweep wrote is a row all the same. The table is written last, whatever
    happens before."""
    try:
        try:
            sweep.collect_finished()
            for future in [f for f in sweep.pending if f.done()]:
                sweep.collect(future)
            write_stop_file(stop_file, stop.name)
            # then the markers: a point without one has not begun, and will see the stop file if it does
            waiting = [f for f, p in sweep.pending.items()
                       if not running_marker(sweep.folders[p.index], sweep.session).exists()]
            try:
                client.cancel(waiting)
            except Exception:  # noqa: BLE001 (no answer: the points not started see the stop file)
                pass
            deadline = time.monotonic() + STOP_GRACE + 5.0
            while sweep.pending and time.monotonic() < deadline:
                try:
                    sweep.collect(sweep.finished.get(timeout=0.1))
                except queue.Empty:
                    pass
        except Interrupted:  # a second signal: stop waiting
            pass
        sweep.pending.clear()
        for point in sweep.submitted:  # rows that did not arrive: the records this sweep wrote
            if point.index not in sweep.table.rows:
                record = sweep.session_record(point)
                if record is not None and record.get("status") in ROW_STATUSES:
                    sweep.table.add(point, record, sweep.folders[point.index])
    finally:
        sweep.table.write()


# ----------------------------------------------------------------------------------- command line
#: a case process's own memory before its model [bytes] (peak RSS measured: sdnd101 113 MB,
#: shaking_table 155 MB): a LocalCluster of N workers needs N of them at once
POINT_BASELINE = 150e6
MAX_POINTS = 100_000
#: what a point costs the client and the scheduler while it waits [bytes]: its Point, its future and
#: task, later its row (measured: 9.8 kB a point for 20,000 points waiting on a LocalCluster; counted
#: twice that). --force lifts MAX_POINTS up to the points the available memory can keep track of
POINT_BOOKKEEPING = 20_000


def estimate(points: int, workers: int) -> Estimate:
    """:class:`fem.run.lifecycle.Estimate` of a sweep: ``points`` (as its steps, bounded by :data:`MAX_POINTS`)
    and the memory of ``workers`` points at once plus the table (4 kB a row)."""
    return Estimate(0, 0, 0, points, int(workers * POINT_BASELINE + 4000 * points))


def script_flags(script: Path) -> set[str]:
    """The flags a case script accepts, read from its ``--help`` (names without ``--``)."""
    try:
        done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BadInput(f"{Path(script).name}: its --help did not answer ({err})") from None
    if done.returncode != 0:
        raise BadInput(f"{Path(script).name}: its --help failed ({(done.stderr.strip().splitlines() or ['?'])[-1]})")
    return {m[2:] for m in re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", done.stdout)}


def split_fixed(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """``[study flags] -- [flags given to every point]`` -> the two lists."""
    argv = list(argv)
    if "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def check_flags(script: Path, given: dict, reserved: Sequence[str]) -> None:
    """Refuse (:class:`fem.run.lifecycle.BadInput`) a flag ``script`` does not have, or one the study sets
    itself (``reserved``), or one given twice; ``given`` maps where the user gave flags
    (``"--grid"``, ``"after --"``) to their names (without ``--``)."""
    known = script_flags(script)
    seen: dict = {}
    for origin, names in given.items():
        for name in sorted(set(names)):
            if name in reserved:
                raise BadInput(f"{origin} --{name}: the study sets it itself")
            if name not in known:
                raise BadInput(f"{origin} --{name}: cases/{script.name} has no such flag "
                               f"(see python cases/{script.name} --help)")
            if name in seen:
                raise BadInput(f"--{name} is given both {seen[name]} and {origin}: give it once")
            seen[name] = origin


def option_names(flags: Sequence[str]) -> list[str]:
    """The names of the options in a list of arguments: ``["--t-end", "2", "--x=1"]`` -> ``["t-end", "x"]``."""
    return [f[2:].split("=")[0] for f in flags if f.startswith("--") and len(f) > 2]


def add_cluster_flags(parser, time_limit: float = 3600.0) -> None:
    """--workers, --scheduler, --time-limit: where the points run and for how long each may."""
    parser.add_argument("--workers", type=int, default=None, help="LocalCluster workers (default: one a core)")
    parser.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help="a running Dask scheduler to send the points to (instead of a LocalCluster)")
    parser.add_argument("--time-limit", type=finite, default=time_limit,
                        help=f"seconds a point may run before it is stopped (status timeout); default {time_limit:g}")


def local_workers(args) -> int:
    """Check --workers, --scheduler, --time-limit (:class:`fem.run.lifecycle.BadInput` naming the flag) and
    return the number of LocalCluster workers to start (0 with --scheduler)."""
    if args.workers is not None and args.workers < 1:
        raise BadInput(f"--workers must be >= 1, got {args.workers}")
    if args.workers is not None and args.scheduler is not None:
        raise BadInput("--workers starts a LocalCluster: not with --scheduler (the scheduler has its workers)")
    if args.scheduler is not None and "://" not in args.scheduler:
        raise BadInput(f"--scheduler {args.scheduler}: expected an address like tcp://HOST:PORT")
    if not args.time_limit > 0:
        raise BadInput(f"--time-limit must be > 0 s, got {args.time_limit:g}")
    return 0 if args.scheduler else (args.workers or cores())


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def sweep_on_cluster(points: Sequence[Point], task, out: Path, scheduler: str | None, workers: int,
                     quiet: bool, what: str) -> SweepOutcome:
    """Connect (:func:`connect`), say where the points of ``what`` run and the dashboard's address,
    :func:`run_sweep`, close. The outcome (also that of an interruption, on the exception) says
    where they ran."""
    where, link = scheduler or "a LocalCluster", None
    try:
        client, cluster = connect(scheduler, workers or None)
    except Interrupted as stop:  # before any point was sent: none run
        stop.outcome = SweepOutcome.of(len(points), {}, 0, Path(out) / RESULTS, where=where)
        raise
    try:
        where = scheduler or f"a LocalCluster of {len(client.scheduler_info()['workers'])} workers"
        link = dashboard(client)
        if not quiet:
            print(f"sweep: {len(points)} points of {what} on {where}", file=sys.stderr)
            print(f"sweep: Dask dashboard at {link}" if link else
                  "sweep: no Dask dashboard (it needs bokeh on the scheduler's machine: pip install bokeh)",
                  file=sys.stderr)
        outcome = run_sweep(points, task, out, client, progress=SweepProgress(len(points), quiet=quiet))
        return replace(outcome, where=where, dashboard=link)
    except Interrupted as stop:  # (also one that came before run_sweep began: no point run)
        outcome = getattr(stop, "outcome", None) or SweepOutcome.of(len(points), {}, 0, Path(out) / RESULTS)
        stop.outcome = replace(outcome, where=where, dashboard=link)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def not_complete_line(outcome: SweepOutcome) -> str | None:
    """The line a sweep prints on stderr, even when quiet, when a point is not complete:
    ``sweep: 3 points: 0 complete, 3 failed (OUT/results.csv)``; None when every point is."""
    if outcome.complete == outcome.total:
        return None
    return f"sweep: {outcome.describe()} ({outcome.table})"
