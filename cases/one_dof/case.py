"""Shared pieces of the one-degree-of-freedom cases (SDND101, SDND105, SDND108, SDND122).

* ``NODE``: the name of the one node of SDND101 and SDND108 (Code_Aster's NO1).
* :func:`parser`, :func:`validate`, :func:`departures`, :func:`check_budget`: the command line of a
  one-dof case on top of :mod:`fem.run.lifecycle` (one-line errors raised as :class:`fem.run.lifecycle.BadInput`, range
  checks whose message names the flag and its unit, the configuration 'benchmark' or 'custom', the
  resource bound checked before anything is allocated).
* :func:`check`, :func:`print_checks`: the rows of a summary's ``checks`` list
  ({quantity, value, reference, rel_error, tolerance, passed, source, aster_value}) and the table
  printed at the end of a run; ``passed`` is None (printed ``-``) for a row without a verdict.
* :func:`write_json`: :func:`fem.run.lifecycle.write_json` (atomic, numpy scalars converted, NaN as null).
* :func:`crossing`: the instant where a sampled signal crosses a level, linear between two samples.
* :func:`run_stage`: one stage of a one-dof problem run by fem.problem.run_stages, its history kept or not.

Case scripts import it as ``cases.one_dof.case`` (``cases`` is an installed package).
"""
from __future__ import annotations

import math
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from fem.problem import Outcome, Settings, run_stages
from fem.run import lifecycle as fem_run
from fem.run.lifecycle import BadInput

NODE = "NO1"


# ------------------------------------------------------------------------------ command line
def parser(prog: str, description: str) -> fem_run.CaseParser:
    """The case's :class:`fem.run.lifecycle.CaseParser` (one-line errors, ``--dt -1e-3`` read as a number)."""
    return fem_run.CaseParser(prog=prog, description=description)


_CONDITIONS = {
    ">0": (lambda x: x > 0, "> 0"),
    ">=0": (lambda x: x >= 0, ">= 0"),
    "<0": (lambda x: x < 0, "< 0"),
    "finite": (lambda x: True, "finite"),
}


def validate(rules: Iterable[tuple[str, float | None, str, str]]) -> None:
    """Raise :class:`fem.run.lifecycle.BadInput` at the first violated rule, the message naming the flag.

    rules : (flag, value, condition, unit) with condition one of ">0", ">=0", "<0", "finite";
        every value must also be finite; a None value (flag not given) is skipped.
    """
    for flag, value, condition, unit in rules:
        test, text = _CONDITIONS[condition]
        if value is None:
            continue
        if not (math.isfinite(value) and test(value)):
            unit = f" {unit}" if unit and condition != "finite" else ""
            raise BadInput(f"{flag} must be {text}{unit}, got {value:g}")


def flag_name(key: str) -> str:
    """The command-line flag of a parameter key: ``k_shock`` -> ``--k-shock``."""
    return "--" + key.replace("_", "-")


def departures(params: Mapping[str, float], benchmark: Mapping[str, float],
               flags: Mapping[str, str] | None = None) -> list[str]:
    """Flags whose value differs from the benchmark's (relative 1e-12); empty: the benchmark's
    physical problem. ``flags`` maps a key to its flag when it is not ``--`` + key."""
    flags = flags or {}
    return [flags.get(key, flag_name(key)) for key, ref in benchmark.items()
            if not math.isclose(params[key], ref, rel_tol=1e-12, abs_tol=0.0)]


def check_budget(steps: float, row_bytes: float, force: bool, what: str, remedy: str,
                 unit: str = "time steps") -> fem_run.Estimate:
    """:func:`fem.run.lifecycle.check_resources` of a one-dof run of ``steps`` steps keeping ``row_bytes`` a
    step in memory, before anything is allocated, in the case's own terms: ``what`` says where the
    steps come from (e.g. ``--dt 1e-12 s to --t-end 0.5 s``), ``remedy`` which flags reduce them,
    ``unit`` what a step is."""
    est = fem_run.estimate(nodes=1, cells=0, nodes_per_cell=1, steps=steps, row_bytes=row_bytes)
    fem_run.check_resources(est, force=force, what=what, unit=unit, remedy=remedy)
    return est


def start_run(out: Path, case: str, script: str, argv, configuration: str, parameters: dict,
              t_end: float | None, quiet: bool) -> fem_run.Run:
    """:func:`fem.run.lifecycle.prepare_output` then :meth:`fem.run.lifecycle.Run.start` (summary.json 'running')."""
    fem_run.prepare_output(out)
    return fem_run.Run.start(out, case, fem_run.command_line(script, argv), configuration, parameters,
                             t_end=t_end, quiet=quiet)


# ------------------------------------------------------------------------------ checks
def check(quantity: str, value: float | None, reference: float, tolerance: float | None = None,
          source: str = "", aster_value: float | None = None, note: str = "") -> dict:
    """One row of ``checks``. rel_error = |value - reference| / |reference| (absolute error when
    the reference is 0); passed = rel_error <= tolerance (None without a tolerance or a value: a
    row shown for information, without a verdict)."""
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
    """The checks as a table: value, reference, relative error, tolerance, verdict (``-``: no
    verdict, the row is for information), Code_Aster's value."""
    qw = max(len("quantity"), *(len(c["quantity"]) for c in checks)) if checks else 8
    print(f"{'quantity':{qw}s} {'this code':>15s} {'reference':>15s} {'rel. err':>9s} {'tol':>7s} {'ok':>4s}"
          f" {'Code_Aster':>15s}  source")
    for c in checks:
        ok = {True: "yes", False: "NO", None: "-"}[c["passed"]]
        print(f"{c['quantity']:{qw}s} {_fmt(c['value'], 15, '.9g')} {_fmt(c['reference'], 15, '.9g')} "
              f"{_fmt(c['rel_error'], 9, '.2e')} {_fmt(c['tolerance'], 7, '.0e')} {ok:>4s} "
              f"{_fmt(c.get('aster_value'), 15, '.9g')}  {c['source']}")


# ------------------------------------------------------------------------------ output
def write_json(path: Path, data: dict) -> None:
    """``data`` as indented JSON, replaced atomically (:func:`fem.run.lifecycle.write_json`: numpy scalars
    converted, NaN and infinities written as null)."""
    fem_run.write_json(path, data)


def crossing(t0: float, t1: float, f0: float, f1: float, level: float = 0.0) -> float:
    """Instant where the straight line through (t0, f0), (t1, f1) takes the value ``level``."""
    if f1 == f0:
        return 0.5 * (t0 + t1)
    return t0 + (level - f0) * (t1 - t0) / (f1 - f0)


def run_stage(assembled, stage, settings: Settings, history: Path | None = None) -> Outcome:
    """Run ``stage`` of an assembled problem (fem.problem.run_stages) with ``settings``, its history
    written to the CSV file ``history`` as it goes (or into a temporary folder, removed after); the
    interruption or failure that ended it re-raised (Outcome.reraise), everything up to it on disk."""
    with tempfile.TemporaryDirectory(prefix="rockfem_") as scratch:
        folder, stem = (history.parent, history.stem) if history is not None else (Path(scratch), "history")
        outcome = run_stages(assembled, [stage], folder, replace(settings, histories={stage.name: stem}))
    outcome.reraise()
    return outcome
