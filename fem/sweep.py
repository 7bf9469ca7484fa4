"""Parameter studies: one case run over many values of its flags, each point on a Dask worker, the
results gathered in one table as the points finish.

The pieces, from the grid to the table:

* :class:`Point`: one set of flag values (``mu=0.6``, ``dt=1e-3``), in a folder of its own
  ``OUT/points/<name>``; :func:`grid` is the Cartesian product of axes (``--grid mu=0.3,0.6``,
  ``--grid amplitude-g=0.4:1.2:5`` for five values from 0.4 to 1.2), :func:`read_points` a CSV
  whose header names the flags and whose rows are the points.
* A **task**: what runs a point on a worker. :class:`CaseCommand` runs a case script as its own
  process (``python cases/<case>.py <point's flags> <fixed flags> --out <folder> --quiet``), so a
  point that crashes or hangs takes nothing else down: ``time_limit`` [s] sends it SIGINT (it then
  writes ``status: interrupted`` and keeps its files), SIGKILL ``grace`` seconds later. A task may
  be any picklable callable ``task(point, folder, stop_file) -> row`` with ``task.identity(point)``
  (what makes a finished point reusable: the command line for a case).
* :func:`run_point`, on the worker: runs the task, then writes the row to ``<folder>/point.json``
  (atomically). That file is the point's record: a rerun of the sweep reuses every point whose
  ``point.json`` says ``complete`` for the same identity, and runs the others again.
* :func:`run_sweep`, on the client: submits the points not yet complete, collects the rows as they
  finish into ``OUT/results.csv`` (rewritten atomically after every point, sorted as the grid), shows
  and shows progress; the caller keeps the sweep's own record (``summary.json``, fem.run). A point
  that fails is a row with ``status: failed`` and its
  message; a point whose worker dies is run again on another worker by Dask (up to
  ``distributed.scheduler.allowed-failures`` times, then it is a failed row).
* :func:`connect`: a LocalCluster with one single-threaded worker per core (the tasks wait on
  processes, so the workers are threads of this process), or a running scheduler
  (``tcp://HOST:PORT``: workers elsewhere must see the same output folder, a shared file system,
  and have this package installed).

A row: ``point``, the point's flags (their names without ``--``), ``status`` (``complete``,
``failed``, ``timeout``, ``interrupted``), ``message``, ``exit_code``, ``wall_s`` (the point's own
wall time [s]), ``folder``, then the figures of the point's ``summary.json`` (:func:`summary_figures`).
"""
from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence, TextIO

from .interrupt import Interrupted
from .results import _atomic_write_text
from .run import BadInput, Estimate, finite, write_json

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
_FLAG = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


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

    def flags(self) -> list[str]:
        """``["--mu", "0.6", "--dt", "0.001"]``."""
        return [x for k, v in self.values for x in (f"--{k}", v)]

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.values)


def _values(name: str, text: str) -> tuple[str, ...]:
    """``v1,v2,...`` or ``start:stop:count`` (count evenly spaced numbers, ends included)."""
    if re.fullmatch(r"[^,]*:[^,]*:[^,]*", text):
        start, stop, count = text.split(":")
        try:
            a, b, n = float(start), float(stop), int(count)
        except ValueError:
            raise BadInput(f"--grid {name}={text}: start:stop:count needs two numbers and an integer") from None
        if n < 1 or not (math.isfinite(a) and math.isfinite(b)):
            raise BadInput(f"--grid {name}={text}: count must be >= 1 and the ends finite")
        return tuple(repr(float(a + (b - a) * k / (n - 1))) if n > 1 else repr(a) for k in range(n))
    values = tuple(v.strip() for v in text.split(","))
    if not text.strip() or any(not v for v in values):
        raise BadInput(f"--grid {name}={text}: empty value (expected v1,v2,... or start:stop:count)")
    if len(set(values)) != len(values):
        raise BadInput(f"--grid {name}={text}: a value is repeated")
    return values


def parse_axis(text: str) -> tuple[str, tuple[str, ...]]:
    """``"mu=0.3,0.6"`` -> ``("mu", ("0.3", "0.6"))`` (a leading ``--`` on the name is dropped);
    :class:`fem.run.BadInput` naming ``--grid`` for anything else."""
    name, sep, rest = text.partition("=")
    name = name.strip().removeprefix("--")
    if not sep or not _FLAG.match(name):
        raise BadInput(f"--grid {text}: expected NAME=v1,v2,... or NAME=start:stop:count (NAME a flag of the case)")
    return name, _values(name, rest)


def grid(axes: Sequence[tuple[str, Sequence[str]]]) -> list[Point]:
    """The Cartesian product of ``axes`` ``[(flag, values), ...]``, the last axis varying fastest."""
    names = [name for name, _ in axes]
    if len(set(names)) != len(names):
        raise BadInput(f"--grid: a flag is given twice ({', '.join(sorted(n for n in names if names.count(n) > 1))})")
    combos = itertools.product(*(values for _, values in axes))
    return [Point(i, tuple(zip(names, combo))) for i, combo in enumerate(combos)]


def read_points(path: Path) -> list[Point]:
    """Points from a CSV file: a header of flag names (with or without ``--``), a row a point; an
    empty cell leaves the flag out of that point."""
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise BadInput(f"--points {path}: cannot read it ({err.strerror or err})") from None
    rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
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
#: then run the script as ``python script args`` would (its folder first on sys.path)
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
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")
"""
#: one thread of BLAS a point: a sweep runs one point a core
_SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True)
class CaseCommand:
    """Run a case script for a point: ``python <script> <point's flags> <fixed> --out <folder> --quiet``.

    script : absolute path of the case script (``cases/<case>.py``), the same on every worker.
    fixed : flags given to every point (after the point's own, so that a case reading a flag twice
        takes the fixed one: the sweep refuses a point flag that is also fixed).
    time_limit : seconds a point may run [s] (None: no limit); then SIGINT, SIGKILL after ``grace``.
    """

    script: str
    fixed: tuple[str, ...] = ()
    time_limit: float | None = None
    grace: float = STOP_GRACE

    @property
    def label(self) -> str:
        """``cases/<name>.py`` as a user types it (the case records its command so)."""
        path = Path(self.script)
        return f"{path.parent.name}/{path.name}"

    def arguments(self, point: Point, folder: str) -> list[str]:
        return [*point.flags(), *self.fixed, "--out", str(folder), "--quiet"]

    def identity(self, point: Point) -> list[str]:
        """What the point's record must match to be reused: the case and its arguments."""
        return [self.label, *point.flags(), *self.fixed]

    def __call__(self, point: Point, folder: str, stop_file: str) -> dict:
        folder_path = Path(folder)
        if not Path(self.script).is_file():
            return _row("failed", f"case script {self.script} not found on this worker", None, 0.0)
        if os.path.exists(stop_file):  # the sweep stopped before this point began
            return _row("interrupted", "not run: the sweep was stopped", None, 0.0)
        (folder_path / "summary.json").unlink(missing_ok=True)  # figures from this run only
        env = {**os.environ, **{k: v for k, v in _SINGLE_THREAD.items() if k not in os.environ}}
        argv = [sys.executable, "-c", _LAUNCH, str(os.getpid()), self.script, *self.arguments(point, folder)]
        start = time.monotonic()
        with open(folder_path / "stdout.txt", "w") as out, open(folder_path / "stderr.txt", "w") as err:
            proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                    start_new_session=True)
            code, stopped = supervise(proc, self.time_limit, stop_file, self.grace)
        wall = time.monotonic() - start
        summary = _read_summary(folder_path)
        figures = summary_figures(summary) if summary else {}
        reached = summary.get("t_reached")
        where = f" (results up to t = {reached:.6g} s kept)" if isinstance(reached, (int, float)) else ""
        if stopped == "timeout":
            return _row("timeout", f"time limit of {self.time_limit:g} s reached{where}", code, wall, figures)
        if stopped == "interrupted":
            return _row("interrupted", f"stopped with the sweep{where}", code, wall, figures)
        if code == 0 and summary.get("status") == "complete":
            return _row("complete", None, code, wall, figures)
        message = _error_line(folder_path / "stderr.txt") or summary.get("message") or f"exit code {code}"
        return _row("failed", message, code, wall, figures)


def supervise(proc: subprocess.Popen, time_limit: float | None, stop_file: str, grace: float):
    """Wait for ``proc``; past ``time_limit`` [s] (``"timeout"``) or once ``stop_file`` exists
    (``"interrupted"``) send it SIGINT, then SIGKILL ``grace`` seconds later. Returns (exit code,
    why it was stopped or None). A process still running when this thread is torn down is killed."""
    start, stopped, deadline = time.monotonic(), None, math.inf
    try:
        while True:
            try:
                return proc.wait(timeout=0.25), stopped
            except subprocess.TimeoutExpired:
                pass
            if stopped is None:
                if time_limit is not None and time.monotonic() - start > time_limit:
                    stopped = "timeout"
                elif os.path.exists(stop_file):
                    stopped = "interrupted"
                if stopped is not None:
                    proc.send_signal(signal.SIGINT)
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


def run_point(task: Callable, point: Point, folder: str, stop_file: str) -> dict:
    """On a worker: run ``task`` for ``point`` in ``folder`` and record its row in ``point.json``
    (the old record removed first, so that a point cut short by a dead worker has none)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    (path / POINT_RECORD).unlink(missing_ok=True)
    try:
        row = task(point, folder, stop_file)
    except Exception as err:  # a task's own defect: the row says so, the sweep goes on
        row = _row("failed", f"{type(err).__name__}: {err}", None, 0.0)
    record = {"point": point.name, "identity": task.identity(point), **row}
    write_json(path / POINT_RECORD, record)
    return record


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
    _atomic_write_text(path, buf.getvalue())


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


def read_results(path: Path) -> list[dict]:
    """``results.csv`` as a list of dicts of strings (the columns as written)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ----------------------------------------------------------------------------------- progress
class SweepProgress:
    """Progress on ``stream``: a line for every finished point, and on a terminal a line rewritten
    in place: done / failed / running / waiting and the time left (from the points finished in this
    session: elapsed time a point times the points left)."""

    def __init__(self, total: int, stream: TextIO | None = None, quiet: bool = False):
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.quiet = quiet
        self.start = time.monotonic()
        self.finished = 0  # in this session

    def _write(self, text: str) -> None:
        if self.quiet:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def bar(self, done: int, failed: int, running: int) -> str:
        left = self.total - done - failed
        width = 24
        filled = int(width * (done + failed) / max(self.total, 1))
        text = (f"sweep [{'#' * filled}{'.' * (width - filled)}] {done + failed}/{self.total}: {done} done, "
                f"{failed} failed, {running} running, {max(left - running, 0)} waiting")
        if self.finished and left:
            rate = (time.monotonic() - self.start) / self.finished
            text += f", about {_duration(rate * left)} left"
        return text

    def point(self, row: dict, done: int, failed: int, running: int) -> None:
        self.finished += 1
        n = done + failed
        what = row["status"] + (f" ({row['message']})" if row.get("message") else "")
        line = f"[{n}/{self.total}] {row['label']}: {what}, {row['wall_s']:.1f} s"
        self._write(("\r" + " " * 110 + "\r" if self.tty else "") + line + "\n")
        self.update(done, failed, running)

    def update(self, done: int, failed: int, running: int) -> None:
        if self.tty:
            self._write("\r" + self.bar(done, failed, running)[:160].ljust(110))

    def close(self) -> None:
        if self.tty:
            self._write("\r" + " " * 110 + "\r")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# ----------------------------------------------------------------------------------- Dask
def connect(scheduler: str | None = None, workers: int | None = None):
    """A Dask client: to the scheduler at ``scheduler`` (``tcp://HOST:PORT``), or to a new
    LocalCluster of ``workers`` (default: the cores) single-threaded workers. Returns
    ``(client, cluster)``, cluster None for an outside scheduler; :class:`fem.run.BadInput` naming
    ``--scheduler`` if it cannot be reached in 10 s."""
    import logging

    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            return Client(scheduler, timeout="10s", set_as_default=False), None
        except (OSError, TimeoutError, ValueError) as err:
            raise BadInput(f"--scheduler {scheduler}: cannot connect ({err})") from None
    cluster = LocalCluster(n_workers=workers or cores(), threads_per_worker=1, processes=False,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster, set_as_default=False), cluster


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
    total: int
    complete: int
    failed: int  # not complete: failed, timed out, interrupted
    reused: int  # complete in an earlier run of the sweep, not run again
    table: Path
    where: str = ""  # the cluster: "a LocalCluster of N workers" or the scheduler's address
    dashboard: str | None = None  # the scheduler's dashboard, when it serves one

    def record(self) -> dict:
        """The sweep's figures for a summary.json."""
        return {"where": self.where, "dashboard": self.dashboard, "points": self.total, "complete": self.complete,
                "not_complete": self.failed, "reused": self.reused, "table": str(self.table)}


def run_sweep(points: Sequence[Point], task, out: Path, client, *, progress: SweepProgress | None = None,
              poll: float = 0.2) -> SweepOutcome:
    """Run every point of ``points`` not already complete in ``out`` with ``task`` on ``client``'s
    workers; rows into ``out/results.csv`` as they finish (module docstring). A signal
    (:class:`fem.interrupt.Interrupted`) stops the running points (they record where they stopped,
    their rows say ``interrupted``), writes the table, and is raised again with the counts so far
    as its ``outcome`` attribute."""
    from distributed import CancelledError

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
    token = uuid.uuid4().hex[:8]
    stop_file = out / f".stop-{token}"
    pending = {client.submit(run_point, task, p, str(folders[p.index]), str(stop_file),
                             key=f"{p.name}-{token}", pure=False, priority=len(points) - p.index): p
               for p in todo}  # in grid order
    keys = {f.key for f in pending}

    def counts():
        return table.count("complete"), sum(table.count(s) for s in ("failed", "timeout", "interrupted"))

    def collect(future) -> None:
        point = pending.pop(future)
        try:
            record = future.result()
        except CancelledError:
            return
        except Exception as err:  # noqa: BLE001 (a worker lost too often: KilledWorker, ...)
            record = {"point": point.name, **_row("failed", f"{type(err).__name__}: {err}", None, 0.0)}
        finally:  # let go of the result at once: a finished point held on a worker that dies would be run again
            future.release()
        row = table.add(point, record, folders[point.index])
        table.write()
        done, failed = counts()
        progress.point({**row, "label": point.label() or point.name}, done, failed, running())

    last_check = [0.0, 0]

    def running() -> int:
        now = time.monotonic()
        if now - last_check[0] > 1.0:
            try:
                busy = client.processing()
                last_check[1] = sum(1 for ks in busy.values() for k in ks if k in keys)
            except Exception:  # noqa: BLE001
                pass
            last_check[0] = now
        return min(last_check[1], len(pending))

    try:
        while pending:
            finished = [f for f in pending if f.done()]
            for f in finished:
                collect(f)
            if not finished:
                progress.update(*counts(), running())
                time.sleep(poll)
    except Interrupted as stop:
        _stop(pending, collect, stop_file, client)
        table.write()
        progress.close()
        done, _ = counts()
        stop.outcome = SweepOutcome(len(points), done, len(points) - done, reused, table.path)
        raise
    finally:
        stop_file.unlink(missing_ok=True)
    progress.close()
    done, failed = counts()
    return SweepOutcome(len(points), done, failed, reused, table.path)


def _stop(pending: dict, collect: Callable, stop_file: Path, client) -> None:
    """Stop a sweep: cancel the points not started, tell the running ones to stop (``stop_file``),
    and collect their rows for up to ``STOP_GRACE`` + 5 s (a second signal stops waiting)."""
    try:
        stop_file.write_text("stop\n")
        try:
            busy = {k for ks in client.processing().values() for k in ks}
        except Exception:  # noqa: BLE001 (no answer: cancel none, the started points see the stop file)
            busy = {f.key for f in pending}
        client.cancel([f for f in pending if f.key not in busy])
        deadline = time.monotonic() + STOP_GRACE + 5.0
        while pending and time.monotonic() < deadline:
            for f in [f for f in pending if f.done() or f.status == "cancelled"]:
                if f.status == "cancelled":
                    pending.pop(f)
                else:
                    collect(f)
            time.sleep(0.1)
    except Interrupted:
        pass


# ----------------------------------------------------------------------------------- command line
#: a case process's own memory before its model [bytes] (peak RSS measured: sdnd101 113 MB,
#: shaking_table 155 MB): a LocalCluster of N workers needs N of them at once
POINT_BASELINE = 150e6
MAX_POINTS = 100_000


def estimate(points: int, workers: int) -> Estimate:
    """:class:`fem.run.Estimate` of a sweep: ``points`` (as its steps, bounded by :data:`MAX_POINTS`)
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
    """Refuse (:class:`fem.run.BadInput`) a flag ``script`` does not have, or one the study sets
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
    """Check --workers, --scheduler, --time-limit (:class:`fem.run.BadInput` naming the flag) and
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
    client, cluster = connect(scheduler, workers or None)
    try:
        where = scheduler or f"a LocalCluster of {len(client.scheduler_info()['workers'])} workers"
        link = dashboard(client)
        if not quiet:
            print(f"sweep: {len(points)} points of {what} on {where}", file=sys.stderr)
            print(f"sweep: Dask dashboard at {link}" if link else
                  "sweep: no Dask dashboard (it needs bokeh on the scheduler's machine: pip install bokeh)",
                  file=sys.stderr)
        try:
            outcome = run_sweep(points, task, out, client, progress=SweepProgress(len(points), quiet=quiet))
        except Interrupted as stop:
            stop.outcome = replace(stop.outcome, where=where, dashboard=link)
            raise
        return replace(outcome, where=where, dashboard=link)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
