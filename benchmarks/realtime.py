"""How far from real time the cases run: one Markdown table, every figure measured in this run on
this machine (issue 29).

Run: python benchmarks/realtime.py [--only ROW ...] [--repeat N] [--out FILE.md]

Each row is a case command run as its own child process, as a user would run it (``--quiet``,
``--no-paraview`` where the case has them, ``--out`` a temporary folder), from the repository's root:

1. ``sdnv105a``: SDNV105 a, the full benchmark run: ``python cases/sdnv105a.py --no-paraview``
   (self-weight and tilt, t < 0, then the release, rocking from t = 0 to 0.33 s).
2. ``harmonic``: the 5 s harmonic: ``python cases/shaking_table.py --excitation harmonic --amplitude-g 0.6
   --frequency-hz 2 --cycles 8 --no-paraview`` (4 s of motion, the case's default end, motion + 1 s).
3. ``record``: the recorded accelerogram examples/records/synthetic_h_v.csv (a synthetic Kanai-Tajimi
   ground motion, 6 s, horizontal and vertical columns; examples/records/make_synthetic.py):
   ``--excitation record --record examples/records/synthetic_h_v.csv --record-units m/s2 --t-end L``
   with L = min(10 s, the record's length) = 6 s: the record is shorter than 10 s, so the run lasts its
   length. Horizontal component only, at its own scale (peak 0.35 g, no ``--amplitude-g``): the case
   reads the first acceleration column (fem.loads.records.read_record, column 1) along ``--direction``
   and has no flag for a second, vertical component at the same time.
4. ``pulse``: a one-sine pulse, the README's example: ``--excitation sine-pulse --amplitude-g 0.9
   --frequency-hz 2.6`` (to the case's default end, the pulse + 1 s).
5. ``stack``: the same pulse on a 2-block stack (``--blocks 2``).
6. ``spectrum``: the overturning spectrum's default run: ``python cases/overturning_spectrum.py --quiet``
   (the rigid map in the process, then 16 FE points, each a cases/shaking_table.py process on a Dask
   LocalCluster of one worker a core). Its figures add up the 16 points' summary.json
   (OUT/fe/points/*/summary.json): simulated time, steps, Newton iterations, step cuts and stepping
   time are the sums over the points; the process wall time is the whole study's, points run side
   by side on the workers (wall / simulated is then per simulated second of all the points).

Columns:

* simulated [s]: the excitation's (or the release's) span, 0 to summary.json ``t_reached`` (a run that
  stops at overturning stops there). The preloads (gravity; SDNV105's self-weight and tilt) are
  quasi-static phases before t = 0: their steps and time are in the other columns, not in this one.
* wall [s]: the child process's wall time (start-up, imports, set-up, report and plots included).
* stepping [s]: the case's own time for its steps, summary.json ``run.stepping_s`` (the time inside the
  integrators' step generators, fem.io.recorder.timed_steps); marked ``ʷ`` where the case has none
  and its ``run.wall_s`` (the stages' wall time, history writing included) is given instead.
* wall / sim.: wall / simulated, then in parentheses stepping / simulated; 1 is real time.
* steps, Newton it. / step, step cuts (``run.subdivisions``: steps cut and redone smaller), all phases.
* ms / step: stepping / steps.
* rigid ref. [s]: the rigid reference's own time, where the case reports it separately. None does
  today: SDNV105's is computed in cases/sdnv105/summary.summarize (rigid_reference(cfg)), the
  shaking table's in cases/table/summary.summarize (rigid_reference(cfg, history, ...)),
  both after the FE run: inside the process's wall time, outside ``run.wall_s`` and
  ``run.stepping_s``; a timer around those calls would measure it. The spectrum's rigid map
  (overturning_spectrum._main: rigid_grid, rigid_boundaries) runs in the process before the FE
  sweep; ``python cases/overturning_spectrum.py --model rigid`` alone times it. A key such as
  ``run.rigid_s`` or ``rigid_body.wall_s``, if a case adds one, is shown.
* floor [ms] (SDNV105 a): the cost a Newton iteration cannot go below, benchmarks/speed.py's
  measure_floor in this process on the same model: one force + tangent assembly + one factorisation
  and solve of the release's iteration matrix with the run's solver, best of max(5, N) calls; then
  how many floors a step costs. The one-block shaking-table rows run on the same 25-node mesh
  (50 dofs), so this floor is theirs to within the mass and dt.

With ``--repeat N`` each row runs N times and every figure is the median of the N runs. A run that
exits non-zero shows ``exit CODE`` instead of figures (its stderr is summarised on stderr). Nothing
here asserts a timing. Progress goes to stderr; the machine, load average and total time are
printed with the table (timings taken while something else uses the CPUs are not to be trusted).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent

RECORD = Path("examples/records/synthetic_h_v.csv")
RECORD_SECONDS = 10.0  # the record row's length, or the record's if shorter
PULSE = ("--excitation", "sine-pulse", "--amplitude-g", "0.9", "--frequency-hz", "2.6")
FLOOR_REPEAT = 5
#: where a case could report its rigid reference's own time (none does yet)
RIGID_KEYS = (("run", "rigid_s"), ("run", "rigid_wall_s"), ("rigid_body", "wall_s"), ("rigid_body", "seconds"))


@dataclass(frozen=True)
class Case:
    number: int
    key: str
    label: str
    script: str
    args: tuple
    floor: bool = False  # benchmarks/speed.py's floor for this row
    points: bool = False  # a study whose figures are its FE points' (OUT/fe/points/*/summary.json)


def record_length(path: Path) -> float:
    """The record's duration [s] (last time minus first, the CSV's first column)."""
    with open(ROOT / path, newline="") as f:
        times = []
        for row in csv.reader(f):
            try:
                times.append(float(row[0]))
            except (ValueError, IndexError):
                continue  # header
    return times[-1] - times[0]


def cases() -> list[Case]:
    length = min(RECORD_SECONDS, record_length(RECORD))
    st = "shaking_table.py"
    return [
        Case(1, "sdnv105a", "SDNV105 a, full run", "sdnv105a.py", ("--no-paraview", "--quiet"), floor=True),
        Case(2, "harmonic", "harmonic 0.6 g, 2 Hz, 8 cycles", st,
             ("--excitation", "harmonic", "--amplitude-g", "0.6", "--frequency-hz", "2", "--cycles", "8",
              "--no-paraview", "--quiet")),
        Case(3, "record", f"record synthetic_h_v (h only), {length:g} s", st,
             ("--excitation", "record", "--record", str(RECORD), "--record-units", "m/s2", "--t-end", f"{length:g}",
              "--no-paraview", "--quiet")),
        Case(4, "pulse", "sine pulse 0.9 g, 2.6 Hz", st, (*PULSE, "--no-paraview", "--quiet")),
        Case(5, "stack", "2-block stack, same pulse", st, (*PULSE, "--blocks", "2", "--no-paraview", "--quiet")),
        Case(6, "spectrum", "overturning spectrum, default (16 FE points)", "overturning_spectrum.py", ("--quiet",),
             points=True),
    ]


@dataclass
class Result:
    """One run's figures (None: not in its summary)."""

    code: int
    wall: float
    simulated: float | None = None
    stepping: float | None = None
    stepping_measured: bool = True  # False: run.wall_s stands for it
    steps: float | None = None
    iterations: float | None = None
    cuts: float | None = None
    rigid: float | None = None
    error: str = ""
    note: str = ""  # a study's points and cluster


@dataclass
class Row:
    case: Case
    runs: list = field(default_factory=list)
    floor: tuple | None = None  # (assembly ms, solve ms, dofs)
    floor_error: str = ""


def _get(d: dict, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d if isinstance(d, (int, float)) and not isinstance(d, bool) else None


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def figures(summary: dict) -> dict:
    """A case's figures from its summary.json (None where a key is missing)."""
    run = summary.get("run") if isinstance(summary.get("run"), dict) else {}
    stepping, measured = _get(run, "stepping_s"), True
    if stepping is None:
        stepping, measured = _get(run, "wall_s"), False
    rigid = next((v for v in (_get(summary, *k) for k in RIGID_KEYS) if v is not None), None)
    return {"simulated": _get(summary, "t_reached"), "stepping": stepping, "stepping_measured": measured,
            "steps": _get(run, "steps"), "iterations": _get(run, "newton_iterations"),
            "cuts": _get(run, "subdivisions"), "rigid": rigid}


def _sum(values: list):
    return None if not values or any(v is None for v in values) else sum(values)


def run_once(case: Case, folder: Path) -> Result:
    """The case as a child process, its wall time and its summary's figures."""
    out = folder / "out"
    argv = [sys.executable, str(ROOT / "cases" / case.script), *case.args, "--out", str(out)]
    with open(folder / "stdout.txt", "w") as stdout, open(folder / "stderr.txt", "w") as stderr:
        t0 = time.perf_counter()
        code = subprocess.call(argv, stdout=stdout, stderr=stderr, cwd=ROOT)
        wall = time.perf_counter() - t0
    result = Result(code, wall)
    if code != 0:
        lines = (folder / "stderr.txt").read_text(errors="replace").strip().splitlines()
        result.error = lines[-1] if lines else ""
        return result
    if case.points:
        parts = [figures(s) for s in (_read(p) for p in sorted((out / "fe" / "points").glob("*/summary.json")))
                 if s is not None]
        if not parts:
            return result
        for name in ("simulated", "stepping", "steps", "iterations", "cuts", "rigid"):
            setattr(result, name, _sum([p[name] for p in parts]))
        result.stepping_measured = all(p["stepping_measured"] for p in parts)
        fe = (_read(out / "summary.json") or {}).get("fe") or {}
        result.note = (f"{len(parts)} FE points' summaries added up; {fe.get('where') or 'cluster not reported'} "
                       "(the points run side by side: their summed stepping time can exceed the study's wall time)")
        return result
    summary = _read(out / "summary.json")
    if summary is not None:
        for name, value in figures(summary).items():
            setattr(result, name, value)
    return result


def measure_floor(row: Row, folder: Path, repeat: int) -> None:
    """benchmarks/speed.py's floor (assembly + factorisation and solve) for SDNV105 a's model."""
    try:
        import speed  # benchmarks/speed.py (the script's folder is on the path when it runs)

        speed.keep_freed_memory()  # as speed.py: the floor under the runs' allocator policy
        probe = speed.Row("floor", "a", None, [])
        speed.measure_floor(probe, folder, max(FLOOR_REPEAT, repeat))
        row.floor = (probe.assembly_ms, probe.solve_ms, probe.dofs)
    except Exception as err:  # noqa: BLE001 (the table is still printed, the reason given)
        row.floor_error = f"{type(err).__name__}: {err}"


# ----------------------------------------------------------------------------------- the table
def _median(values: list):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _fmt(x, digits: int = 3) -> str:
    if x is None:
        return "-"
    if abs(x) >= 10 ** digits:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def table(rows: list[Row]) -> list[str]:
    lines = ["| row | simulated [s] | wall [s] | stepping [s] | wall / sim. (stepping / sim.) | steps "
             "| Newton it. / step | step cuts | ms / step | rigid ref. [s] | floor [ms] = assembly + solve |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        c = row.case
        name = f"{c.number} {c.key}: {c.label}"
        failed = [r for r in row.runs if r.code != 0]
        if failed:
            codes = ", ".join(str(r.code) for r in failed)
            of = f" ({len(failed)} of {len(row.runs)} runs)" if len(row.runs) > 1 else ""
            lines.append(f"| {name} | exit {codes}{of} | " + " | ".join(["-"] * 9) + " |")
            continue
        m = {k: _median([getattr(r, k) for r in row.runs])
             for k in ("simulated", "wall", "stepping", "steps", "iterations", "cuts", "rigid")}
        per_step = 1e3 * m["stepping"] / m["steps"] if m["stepping"] is not None and m["steps"] else None
        mark = "" if all(r.stepping_measured for r in row.runs) or m["stepping"] is None else " ʷ"
        if m["simulated"]:
            ratio = f"{m['wall'] / m['simulated']:.3g}"
            if m["stepping"] is not None:
                ratio += f" ({m['stepping'] / m['simulated']:.3g})"
        else:
            ratio = "-"
        floor = "-"
        if row.floor is not None:
            total = row.floor[0] + row.floor[1]
            floor = f"{total:.3g} = {row.floor[0]:.3g} + {row.floor[1]:.3g}"
            if per_step is not None and total > 0:
                floor += f"; a step = {per_step / total:.0f} floors"
        lines.append(
            f"| {name} | {_fmt(m['simulated'])} | {_fmt(m['wall'])} | {_fmt(m['stepping'])}{mark} | {ratio} | "
            f"{'-' if m['steps'] is None else format(m['steps'], '.0f')} | "
            f"{_fmt(m['iterations'] / m['steps']) if m['iterations'] is not None and m['steps'] else '-'} | "
            f"{'-' if m['cuts'] is None else format(m['cuts'], '.0f')} | "
            f"{_fmt(per_step)} | {_fmt(m['rigid'])} | {floor} |")
    return lines


def machine() -> str:
    try:
        import speed

        return speed.machine()
    except Exception:  # noqa: BLE001
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        return f"Machine: {os.cpu_count()} cores; load average {load} at the start; Python {sys.version.split()[0]}"


def main(argv=None) -> int:
    all_cases = cases()
    names = {c.key: c for c in all_cases} | {str(c.number): c for c in all_cases}
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", metavar="ROW", choices=list(names),
                        help=f"rows to run, by number or name: {', '.join(c.key for c in all_cases)} (default all)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each row; figures are their median (default 1)")
    parser.add_argument("--out", type=Path, default=None, help="also write the table (Markdown) to this file")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    chosen = sorted({names[n].number: names[n] for n in (args.only or [c.key for c in all_cases])}.items())
    rows = [Row(c) for _, c in chosen]
    header = machine()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rockfem-realtime-") as tmp:
        for row in rows:
            c = row.case
            for k in range(args.repeat):
                folder = Path(tmp) / f"{c.key}-{k}"
                folder.mkdir()
                print(f"[{time.perf_counter() - start:6.0f} s] {c.number} {c.key} ({k + 1}/{args.repeat}): "
                      f"python cases/{c.script} {' '.join(c.args)}", file=sys.stderr, flush=True)
                result = run_once(c, folder)
                row.runs.append(result)
                print(f"  exit {result.code}, {result.wall:.1f} s" + (f": {result.error}" if result.error else ""),
                      file=sys.stderr, flush=True)
            if c.floor:
                folder = Path(tmp) / f"{c.key}-floor"
                folder.mkdir()
                measure_floor(row, folder, args.repeat)
    total = time.perf_counter() - start
    commands = [f"{r.case.number} = `python cases/{r.case.script} {' '.join(r.case.args)}`" for r in rows]
    notes = [f"Rows (each with --out TMP): {'; '.join(commands)}."]
    if any(not x.stepping_measured for r in rows for x in r.runs if x.stepping is not None):
        notes.append("ʷ the case's summary.json has no run.stepping_s: its run.wall_s (the stages' wall time, "
                     "history writing included) is given instead.")
    notes += [f"Row {r.case.number}: {r.runs[-1].note}." for r in rows if r.runs and r.runs[-1].note]
    notes += [f"floor not measured: {r.floor_error}" for r in rows if r.floor_error]
    if any(r.floor for r in rows):
        dofs = next(r.floor[2] for r in rows if r.floor)
        notes.append(f"Floor: benchmarks/speed.py measure_floor, best of {max(FLOOR_REPEAT, args.repeat)}, "
                     f"{dofs} dofs, in this process.")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    notes.append(f"Median of {args.repeat} run(s) a row. Load average {load} at the end. Total {total:.0f} s.")
    text = "\n".join([header, "", *table(rows), "", *notes])
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
