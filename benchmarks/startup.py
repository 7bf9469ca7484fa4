"""Start-up of each case script: what ``import cases.NAME`` costs before a run does anything.

Run: python benchmarks/startup.py [--repeat N] [--out FILE.md]

For each case script under cases/ (its module, not its run): the wall time of
``python -c "import cases.NAME"`` in a new process (min and median of N, interpreter start included),
the cumulative time ``python -X importtime`` gives the module, and which of the heavy libraries the
import loaded: a run loads the others only where it uses them (numba when its compiled loops are first
called or at fem.run.lifecycle.Run.start, meshio and h5py when it writes a series, matplotlib for its
plots, Dask for a study, scipy.optimize and scipy.integrate for a reference that needs them). Nothing
here asserts a timing; the load average is printed beside the table.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "meshio", "h5py", "matplotlib", "distributed", "gmsh", "scipy.optimize", "scipy.integrate",
         "rich")
PROBE = ("import sys, cases.{name}; print(' '.join(m for m in {heavy!r} if m in sys.modules))")


def cases() -> list[str]:
    """The case scripts (cases/*.py but the package's __init__; their helpers are in cases' packages)."""
    return sorted(p.stem for p in (ROOT / "cases").glob("*.py") if p.stem != "__init__")


def wall(name: str, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import cases.{name}"], cwd=ROOT, check=True)
        times.append(time.perf_counter() - t0)
    return times


def importtime(name: str) -> tuple[float, str]:
    """(the module's cumulative import time [s] by -X importtime, the heavy libraries loaded)."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", PROBE.format(name=name, heavy=HEAVY)],
                         cwd=ROOT, check=True, capture_output=True, text=True)
    cumulative = 0.0
    for line in out.stderr.splitlines():
        fields = line.split("|")
        if len(fields) == 3 and fields[2].strip() == f"cases.{name}":
            cumulative = int(fields[1]) * 1e-6
    return cumulative, out.stdout.strip() or "-"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="processes per case for the wall time (default 5)")
    p.add_argument("--only", nargs="*", help="case modules to measure (default: all)")
    p.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    a = p.parse_args(argv)
    names = a.only or cases()
    load = os.getloadavg()
    lines = ["| case module | wall min [s] | wall median [s] | -X importtime [s] | heavy libraries loaded |",
             "|---|---|---|---|---|"]
    for name in names:
        print(f"{name} ...", file=sys.stderr)
        times = wall(name, a.repeat)
        cumulative, heavy = importtime(name)
        lines.append(f"| cases.{name} | {min(times):.2f} | {statistics.median(times):.2f} | {cumulative:.2f} | "
                     f"{heavy} |")
    lines.append("")
    lines.append(f"`python -c \"import cases.NAME\"`, {a.repeat} processes each; load average "
                 f"{load[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end; Python "
                 f"{sys.version.split()[0]}.")
    text = "\n".join(lines)
    print(text)
    if a.out:
        a.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
