"""Every case's default figures, stored once and compared after each step of a restructuring.

    python benchmarks/baseline.py --write     # run every case below, store benchmarks/baseline.json
    python benchmarks/baseline.py             # run them again, compare with the stored file, exit 1 on a change
    python benchmarks/baseline.py --only sdnd101 bar_wall    # a subset

Each entry of ``RUNS`` is one case command, run as its own process into a temporary folder (the user's
``results/`` is never touched). Its ``summary.json`` is flattened to ``path -> value`` (numbers, strings,
booleans, nulls), minus what depends on the machine or the clock (``IGNORED``). The comparison:

* every case but SDNV105 A: each figure identical (numbers to 1e-12 relative, the last bits of a
  summation that a move may reorder; strings and verdicts exactly);
* SDNV105 A: its Code_Aster checks within its round-off ensemble (``--round-off 2``, five runs with the
  tilt angle moved by -2 ... +2 ulps, stored with the baseline): a value may move by as much as the
  ensemble spreads, i.e. lie in [min - w, max + w] with w = max - min; the verdicts the ensemble agrees
  on must stay. Everything else of A (impact times, energies) is compared with the same margin when the
  ensemble shows it, otherwise to 1e-12.

A change of physics is not a restructuring: if this reports a difference, the step changed results.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORE = Path(__file__).resolve().with_name("baseline.json")

#: name -> the case script and its flags (defaults unless a variant is the point)
RUNS: dict[str, list[str]] = {
    "sdnv105a": ["cases/sdnv105a.py", "--no-paraview", "--round-off", "2"],
    "sdnv105b": ["cases/sdnv105b.py", "--no-paraview"],
    "sdnv105c": ["cases/sdnv105c.py", "--no-paraview"],
    "sdnv105d": ["cases/sdnv105d.py", "--no-paraview"],
    "sdnv105a_custom": ["cases/sdnv105a.py", "--no-paraview", "--tilt-angle", "0.2", "--t-end", "0.4"],
    "sdnv105_preload": ["cases/sdnv105_preload.py"],
    "rigid_rocking": ["cases/rigid_rocking.py"],
    "incline_lagrange": ["cases/block_on_incline.py", "--angle-deg", "30", "--mu", "0.3",
                         "--method", "lagrange"],
    "incline_default": ["cases/block_on_incline.py"],
    "incline_penalty": ["cases/block_on_incline.py", "--angle-deg", "20", "--mu", "0.5", "--method", "penalty"],
    "sdnd101": ["cases/sdnd101.py"],
    "sdnd101_direct": ["cases/sdnd101.py", "--method", "direct"],
    "sdnd105a": ["cases/sdnd105.py", "--modeling", "a"],
    "sdnd105b": ["cases/sdnd105.py", "--modeling", "b"],
    "sdnd105c": ["cases/sdnd105.py", "--modeling", "c"],
    "sdnd105d": ["cases/sdnd105.py", "--modeling", "d"],
    "sdnd108a": ["cases/sdnd108.py", "--modeling", "a"],
    "sdnd108b": ["cases/sdnd108.py", "--modeling", "b"],
    "sdnd122": ["cases/sdnd122.py"],
    "bar_wall": ["cases/bar_impact.py", "--no-paraview"],
    "bar_periodic": ["cases/bar_impact.py", "--no-paraview", "--setup", "periodic"],
    "shaking_pulse": ["cases/shaking_table.py", "--no-paraview", "--excitation", "sine-pulse",
                      "--amplitude-g", "0.9", "--frequency-hz", "2.6"],
    "shaking_stack": ["cases/shaking_table.py", "--no-paraview", "--excitation", "sine-pulse",
                      "--amplitude-g", "0.6", "--frequency-hz", "3", "--blocks", "2", "--t-end", "0.8"],
    "shaking_vertical": ["cases/shaking_table.py", "--no-paraview", "--excitation", "harmonic",
                         "--direction", "vertical", "--amplitude-g", "0.3", "--cycles", "2"],
    "shaking_record": ["cases/shaking_table.py", "--no-paraview", "--excitation", "record",
                       "--record", "tests/data/record_filtered_noise.csv", "--amplitude-g", "0.5"],
    "spectrum_rigid": ["cases/overturning_spectrum.py", "--model", "rigid"],
    "convergence_d": ["cases/convergence.py", "sdnv105d", "--dt", "2e-4", "1e-4", "--t-end", "0.12"],
    "sweep_sdnd101": ["cases/sweep.py", "sdnd101", "--grid", "v0=0.5,1", "--quiet"],
}

#: keys (anywhere in the summary) whose values depend on the machine, the clock or the folder
IGNORED = {"wall_s", "wall", "elapsed_s", "seconds", "command", "files", "pid", "started", "finished",
           "peak_rss_mb", "memory_mb", "out", "version", "cpu_s", "workers", "time_left_s", "scheduler",
           "estimate", "per_step_ms", "stepping_s", "wall_time_s", "timing", "timings", "path", "mesh_file",
           "history", "record"}


#: a list of more numbers than this is stored as its length, sum, sum of |x|, min, max, first and last
LONG = 20


def flatten(value, prefix: str = "") -> dict:
    """{"a.b[2].c": leaf} for every leaf of a JSON value, ``IGNORED`` keys left out."""
    flat = {}
    if isinstance(value, dict):
        for k, v in value.items():
            if k in IGNORED or "wall" in k or k.endswith("_s_wall"):
                continue
            flat.update(flatten(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(value, list) and len(value) > LONG and all(isinstance(v, (int, float)) for v in value):
        a = [float(v) for v in value]  # a long history: its size and moments stand for it
        flat.update({f"{prefix}.n": len(a), f"{prefix}.sum": math.fsum(a), f"{prefix}.sum_abs": math.fsum(map(abs, a)),
                     f"{prefix}.min": min(a), f"{prefix}.max": max(a), f"{prefix}.first": a[0], f"{prefix}.last": a[-1]})
    elif isinstance(value, list):
        for i, v in enumerate(value):
            flat.update(flatten(v, f"{prefix}[{i}]"))
    elif isinstance(value, str):
        flat[prefix] = value.replace(str(ROOT), "<root>")  # the checkout's own files, wherever it is
    else:
        flat[prefix] = value
    return flat


def run_one(name: str, timeout: float) -> dict:
    """Run RUNS[name] in a fresh folder; its flattened summary(s) and exit code."""
    with tempfile.TemporaryDirectory(prefix=f"baseline_{name}_") as tmp:
        out = Path(tmp) / "out"
        cmd = [sys.executable, *RUNS[name], "--out", str(out)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "MPLBACKEND": "Agg"})
        wall = time.perf_counter() - t0
        summary_path = out / "summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
        if "sweep" in name and (out / "results.csv").exists():  # a study: its table is the figure
            with open(out / "results.csv", newline="") as f:
                summary = {"rows": [{k: v for k, v in row.items() if not _machine_column(k)}
                                    for row in csv.DictReader(f)]}
    return {"exit": proc.returncode, "figures": flatten(summary), "wall_s": round(wall, 1),
            "stderr_tail": proc.stderr.strip().splitlines()[-1:] if proc.returncode else []}


def _machine_column(name: str) -> bool:
    """A results.csv column that depends on the machine or the folder."""
    return "wall" in name or name in ("folder", "command") or name.startswith("files")


def _close(a, b, rel: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(abs(a), abs(b)) or a == b


def ensemble_rows(figures: dict) -> dict:
    """SDNV105 A's round-off ensemble, read once: {"quantity (window)": {min, max, met, graded}}."""
    rows, i = {}, 0
    while (quantity := figures.get(f"round_off.checks[{i}].quantity")) is not None:
        prefix = f"round_off.checks[{i}]."
        rows[f"{quantity} ({figures.get(prefix + 'window')})"] = {k: figures.get(prefix + k)
                                                                  for k in ("min", "max", "met", "graded")}
        i += 1
    return rows


def compare(name: str, stored: dict, now: dict) -> list[str]:
    """One line per figure that changed."""
    problems = []
    if stored["exit"] != now["exit"]:
        problems.append(f"{name}: exit {now['exit']} (stored {stored['exit']}) {now.get('stderr_tail')}")
    a, b = stored["figures"], now["figures"]
    ensemble = ensemble_rows(a) if name == "sdnv105a" else {}
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            problems.append(f"{name}: {key} {'new' if key not in a else 'missing'}")
            continue
        if ensemble and key.startswith("round_off."):
            continue  # the ensemble itself: the margins of the checks below
        if not _close(a[key], b[key], 1e-12):
            allowed, margin = _ensemble_allows(key, a, b, ensemble)
            if allowed:
                continue
            problems.append(f"{name}: {key} = {b[key]!r}, stored {a[key]!r}"
                            + (f" (ensemble margin [{margin[0]:.9g}, {margin[1]:.9g}])" if margin else ""))
    return problems


def _ensemble_allows(key: str, stored: dict, now: dict, ensemble: dict) -> tuple[bool, tuple | None]:
    """(allowed, margin): a field of SDNV105 A's check i may change with its value when that value lies
    in [min - w, max + w] of the check's round-off ensemble (w = max - min); its verdict only where the
    ensemble's runs disagree on it."""
    if not ensemble or not key.startswith("checks["):
        return False, None
    i = key[len("checks["):key.index("]")]
    row = ensemble.get(f"{stored.get(f'checks[{i}].quantity')} ({stored.get(f'checks[{i}].window')})")
    if row is None or not all(isinstance(row[k], (int, float)) for k in ("min", "max")):
        return False, None
    spread = row["max"] - row["min"]
    margin = (row["min"] - spread, row["max"] + spread)
    value = now.get(f"checks[{i}].value")
    if not (isinstance(value, (int, float)) and margin[0] <= value <= margin[1]):
        return False, margin
    if key.endswith((".within_tolerance", ".passed")):
        return 0 < row["met"] < row["graded"], margin
    return True, margin


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help="store the figures instead of comparing")
    p.add_argument("--only", nargs="+", metavar="NAME", help=f"a subset of: {', '.join(RUNS)}")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=1800.0, help="per run [s]")
    a = p.parse_args(argv)
    names = a.only or list(RUNS)
    unknown = [n for n in names if n not in RUNS]
    if unknown:
        print(f"error: --only: unknown run(s) {', '.join(unknown)}", file=sys.stderr)
        return 2
    if a.jobs < 1:
        print(f"error: --jobs must be at least 1, got {a.jobs}", file=sys.stderr)
        return 2
    stored = json.loads(STORE.read_text()) if STORE.exists() else {}
    if not a.write and not stored:
        print(f"error: no stored baseline at {STORE}: run with --write first", file=sys.stderr)
        return 2
    with ThreadPoolExecutor(a.jobs) as pool:
        results = dict(zip(names, pool.map(lambda n: run_one(n, a.timeout), names)))
    for n, r in results.items():
        print(f"{n:20s} exit {r['exit']}  {len(r['figures']):5d} figures  {r['wall_s']:7.1f} s")
    if a.write:
        stored.update({n: {k: v for k, v in r.items() if k != "wall_s"} for n, r in results.items()})
        STORE.write_text(json.dumps(stored, indent=0, sort_keys=True) + "\n")
        print(f"stored {len(results)} runs in {STORE.relative_to(ROOT)}")
        return 0
    problems = []
    for n, r in results.items():
        if n not in stored:
            problems.append(f"{n}: not in the stored baseline")
            continue
        problems += compare(n, stored[n], r)
    for line in problems:
        print(line)
    print(f"{len(results)} runs compared: " + ("results unchanged" if not problems else f"{len(problems)} differences"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
