"""What the client keeps of a sweep's results: the figures of a point's ``summary.json`` as
columns (:func:`summary_figures`), the table of rows ``OUT/results.csv`` (:class:`ResultsTable`,
:func:`write_csv`, :func:`read_results`) and the counts of a sweep (:class:`SweepOutcome`).
Re-exported by :mod:`fem.studies.sweep`."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from fem.io import output_folder
from fem.studies.points import Point

RESULTS = "results.csv"
#: leading columns of every row, before the point's flags' and the summary's figures
LEADING = ("point",)
TRAILING = ("status", "message", "exit_code", "wall_s", "folder")
#: summary.json keys left out of a row: the run's identity (in point.json) and its inputs (the flags)
SKIPPED_KEYS = ("case", "command", "version", "parameters", "status", "message")
MAX_LIST = 8  # a summary list longer than this is not a figure (a curve): left out of the row
MAX_DEPTH = 3
#: the statuses of rows, in the order the summaries count them
ROW_STATUSES = ("complete", "failed", "timeout", "interrupted")


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

    def incomplete(self) -> str | None:
        """The error line of a study some of whose points did not complete (None when all did):
        ``N FE point(s) did not complete (see TABLE)``."""
        if self.complete == self.total:
            return None
        return f"{self.not_complete} FE point(s) did not complete (see {self.table})"

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
