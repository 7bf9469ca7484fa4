"""Shared pieces of the one-degree-of-freedom shock cases (SDND101, SDND108).

* :func:`point_model`: one node ``NO1`` at the origin carrying a point mass (Code_Aster POI1 with
  DIS_T, M_T_D_N), the only body of these cases.
* :func:`parse` and :func:`validate`: command-line parsing that never raises ``SystemExit`` (``main``
  returns 2 instead) and range checks whose message names the offending flag.
* :func:`check`, :func:`print_checks`: the rows of a summary's ``checks`` list
  ({quantity, value, reference, rel_error, tolerance, passed, source, aster_value}) and the table
  printed at the end of a run.
* :func:`write_json`: summary files (numpy scalars converted, NaN written as null).
* :func:`crossing`: the instant where a sampled signal crosses a level, linear between two samples.

Case scripts import this module by name; they add their own folder to ``sys.path`` so that
they also work when loaded from a file path (tests, ``importlib``).
"""
from __future__ import annotations

import argparse
import time
import json
import math
import sys
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from fem.mesh import Mesh
from fem.model import Model
from fem.results import HistoryWriter

NODE = "NO1"


def point_model(mass: float) -> tuple[Mesh, Model]:
    """Mesh with one node NO1 at (0, 0) and a model carrying ``mass`` [kg] on it (x and y dofs)."""
    mesh = Mesh(points=np.zeros((1, 2)), node_groups={NODE: np.array([0])})
    return mesh, Model(mesh, {}, point_masses={NODE: mass})


# ------------------------------------------------------------------------------ command line
def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> tuple[argparse.Namespace | None, int]:
    """``parser.parse_args(argv)`` without ``SystemExit``: returns (args, 0), or (None, exit code)
    after argparse printed its message (an unknown flag or an unreadable number names the flag;
    ``--help`` gives code 0)."""
    try:
        return parser.parse_args(argv), 0
    except SystemExit as stop:  # argparse has printed usage and the message (or the help)
        code = stop.code
        return None, int(code) if isinstance(code, int) else (0 if code is None else 2)


_CONDITIONS = {
    ">0": (lambda x: x > 0, "> 0"),
    ">=0": (lambda x: x >= 0, ">= 0"),
    "<0": (lambda x: x < 0, "< 0"),
    "finite": (lambda x: True, "finite"),
}


def validate(rules: Iterable[tuple[str, float, str, str]]) -> str | None:
    """First violated rule as a message naming the flag, or None.

    rules : (flag, value, condition, unit) with condition one of ">0", ">=0", "<0", "finite";
        every value must also be finite.
    """
    for flag, value, condition, unit in rules:
        test, text = _CONDITIONS[condition]
        if value is None:
            continue
        if not (math.isfinite(value) and test(value)):
            unit = f" {unit}" if unit else ""
            return f"{flag} must be {text}{unit if condition != 'finite' else ''}, got {value:g}"
    return None


def fail(message: str) -> int:
    """Print ``error: message`` on stderr and return the bad-input exit code 2."""
    print(f"error: {message}", file=sys.stderr)
    return 2


# ------------------------------------------------------------------------------ checks
def check(quantity: str, value: float | None, reference: float, tolerance: float | None = None,
          source: str = "", aster_value: float | None = None, note: str = "") -> dict:
    """One row of ``checks``. rel_error = |value - reference| / |reference| (absolute error when
    the reference is 0); passed = rel_error <= tolerance (None without a tolerance or a value)."""
    if value is None or not math.isfinite(value):
        rel = None
    else:
        rel = abs(value - reference) / abs(reference) if reference != 0 else abs(value)
    row = {
        "quantity": quantity,
        "value": None if value is None else float(value),
        "reference": float(reference),
        "rel_error": rel,
        "tolerance": tolerance,
        "passed": None if (tolerance is None or rel is None) else bool(rel <= tolerance),
        "source": source,
    }
    if aster_value is not None:
        row["aster_value"] = float(aster_value)
    if note:
        row["note"] = note
    return row


def all_passed(checks: Sequence[dict]) -> bool:
    """True when every check with a tolerance passed (and none lacks its value)."""
    return all(c["passed"] is not False and not (c["tolerance"] is not None and c["passed"] is None)
               for c in checks)


def _fmt(x, width: int, spec: str) -> str:
    return f"{'-':>{width}s}" if x is None else f"{x:{width}{spec}}"


def print_checks(checks: Sequence[dict]) -> None:
    """The checks as a table: value, reference, relative error, tolerance, verdict, Code_Aster's value."""
    qw = max(len("quantity"), *(len(c["quantity"]) for c in checks)) if checks else 8
    print(f"{'quantity':{qw}s} {'this code':>15s} {'reference':>15s} {'rel. err':>9s} {'tol':>7s} {'ok':>4s}"
          f" {'Code_Aster':>15s}  source")
    for c in checks:
        ok = {True: "yes", False: "NO", None: "-"}[c["passed"]]
        print(f"{c['quantity']:{qw}s} {_fmt(c['value'], 15, '.9g')} {_fmt(c['reference'], 15, '.9g')} "
              f"{_fmt(c['rel_error'], 9, '.2e')} {_fmt(c['tolerance'], 7, '.0e')} {ok:>4s} "
              f"{_fmt(c.get('aster_value'), 15, '.9g')}  {c['source']}")


# ------------------------------------------------------------------------------ output
def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    return x


def write_json(path: Path, data: dict) -> None:
    """``data`` as indented JSON (numpy scalars converted; NaN and infinities as null)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_jsonable(data), indent=2, allow_nan=False) + "\n")


def crossing(t0: float, t1: float, f0: float, f1: float, level: float = 0.0) -> float:
    """Instant where the straight line through (t0, f0), (t1, f1) takes the value ``level``."""
    if f1 == f0:
        return 0.5 * (t0 + t1)
    return t0 + (level - f0) * (t1 - t0) / (f1 - f0)


def record_run(steps, row_of, columns: Sequence[str], history: Path | None):
    """Run a step generator, one row per step from ``row_of(step_result)`` (a tuple in the order of
    ``columns``), written to the CSV ``history`` as it goes when given. Returns the rows, the Newton
    iterations, the sub-steps and the wall time [s]."""
    writer = HistoryWriter(history, columns) if history is not None else None
    rows, iterations, substeps = [], 0, 0
    t0 = time.perf_counter()
    try:
        for result in steps:
            row = row_of(result)
            rows.append(row)
            iterations += result.iterations
            substeps += result.substeps
            if writer is not None:
                writer.append(dict(zip(columns, row)))
    finally:
        if writer is not None:
            writer.close()
    return rows, iterations, substeps, time.perf_counter() - t0
