"""How much SDNV105 A's Code_Aster check values move with the rounding of the arithmetic.

Run: python benchmarks/round_off.py [--ulps 4] [--workers 2]

Runs ``python cases/sdnv105a.py --no-paraview --tilt-angle T`` for T = 0.01 rad moved by -ULPS ...
+ULPS units in the last place (numpy.nextafter): the same benchmark, its input changed by 2e-16 at
most, as a different order of the same floating-point operations changes it. Prints, per check, the
smallest and largest value over the runs and their spread relative to the median, and how many runs
meet each Code_Aster test. A check whose spread is of the order of its tolerance is decided by
round-off, not by the model.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

CASE = Path(__file__).resolve().parents[1] / "cases" / "sdnv105a.py"


def tilt(ulps: int) -> float:
    t = 0.01
    for _ in range(abs(ulps)):
        t = float(np.nextafter(t, np.inf if ulps > 0 else -np.inf))
    return t


def run(ulps: int, folder: Path) -> dict:
    out = folder / f"ulps_{ulps}"
    subprocess.run([sys.executable, str(CASE), "--no-paraview", "--quiet", "--force", "--tilt-angle",
                    repr(tilt(ulps)), "--out", str(out)], capture_output=True, check=False)
    summary = json.loads((out / "summary.json").read_text())
    if "checks" not in summary:
        return {"failed": summary.get("message")}
    return {(c["quantity"], c["window"]): (c["value"], c.get("within_tolerance")) for c in summary["checks"]}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ulps", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.workers) as pool:
        runs = list(pool.map(lambda k: run(k, Path(tmp)), range(-args.ulps, args.ulps + 1)))
    failed = [r["failed"] for r in runs if "failed" in r]
    runs = [r for r in runs if "failed" not in r]
    print(f"{len(runs)} runs complete, {len(failed)} failed" + (f": {failed}" if failed else ""))
    print("| check | window | min | max | spread | runs within Code_Aster's tolerance |")
    print("|---|---|---|---|---|---|")
    for key in runs[0]:
        values = np.array([r[key][0] for r in runs], dtype=float)
        within = sum(bool(r[key][1]) for r in runs)
        median = abs(float(np.median(values)))
        spread = (values.max() - values.min()) / median if median else 0.0
        print(f"| {key[0]} | {key[1]} | {values.min():.6g} | {values.max():.6g} | {spread:.1e} | {within}/{len(runs)} |")


if __name__ == "__main__":
    main()
