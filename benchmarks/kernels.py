"""Cost of the continuum kernels (fem.model.continuum) on a uniform block, under glibc's default
allocator policy and with the freed memory kept (fem.time.memory), each in a fresh process.

Run: python benchmarks/kernels.py [--size 32x64] [--modeling d] [--repeat 20]

Each process builds the SDNV105 model of the modeling on an NXxNY block (cases/sdnv105/case) and
times, best of --repeat, in the order of a Newton iteration (a new displacement each time, so the
temporaries are allocated afresh as in a run):

* forces: ``model.evaluate(u, v)`` (internal and damping forces);
* tangent: ``evaluation.tangent_data()`` (cell tangents and damping matrices, scattered on the
  pattern);
* forces + tangent: both, as fem.time.newton's iteration does.

Prints one markdown table. Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
from cases.sdnv105 import case as common  # noqa: E402

from fem.time.memory import keep_freed_memory  # noqa: E402
from speed import parse_sizes  # noqa: E402  (benchmarks/, the script's folder)


def measure(modeling: str, nx: int, ny: int, repeat: int) -> dict:
    """Best times [ms] of forces, tangent, forces + tangent on the block, in this process."""
    with tempfile.TemporaryDirectory() as folder:
        config = common.Config(modeling, nx=nx, ny=ny, out=Path(folder)).resolved()
        model = common.build(config).model
    rng = np.random.default_rng(0)
    u0 = 1e-6 * rng.standard_normal(model.n_dofs)
    v = 1e-3 * rng.standard_normal(model.n_dofs)
    best = {"forces": np.inf, "tangent": np.inf, "forces + tangent": np.inf}
    for i in range(repeat):
        u = u0 * (1.0 + 1e-3 * i)
        t0 = time.perf_counter()
        evaluation = model.evaluate(u, v)
        t1 = time.perf_counter()
        evaluation.tangent_data()
        t2 = time.perf_counter()
        best["forces"] = min(best["forces"], t1 - t0)
        best["tangent"] = min(best["tangent"], t2 - t1)
        best["forces + tangent"] = min(best["forces + tangent"], t2 - t0)
    return {"dofs": model.n_dofs, **{k: 1e3 * v for k, v in best.items()}}


def parse_size(text: str) -> tuple[int, int]:
    """One NXxNY (benchmarks/speed.py's parse_sizes, a single size)."""
    sizes = parse_sizes(text)
    if len(sizes) != 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give one size NXxNY (e.g. 32x64)")
    return sizes[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=parse_size, default=(32, 64), help="uniform block NXxNY (default 32x64)")
    parser.add_argument("--modeling", choices=common.MODELINGS, default="d", help="SDNV105 modeling (default d)")
    parser.add_argument("--repeat", type=int, default=20, help="timed iterations (best is kept)")
    parser.add_argument("--child", choices=("default", "kept"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    nx, ny = args.size
    if args.child:
        if args.child == "kept" and not keep_freed_memory():
            print(json.dumps(None))
            return 0
        print(json.dumps(measure(args.modeling, nx, ny, args.repeat)))
        return 0
    rows = {}
    for policy in ("default", "kept"):
        print(f"[{policy}] {args.modeling} {nx}x{ny}", file=sys.stderr)
        out = subprocess.run([sys.executable, __file__, "--size", f"{nx}x{ny}", "--modeling", args.modeling,
                              "--repeat", str(args.repeat), "--child", policy],
                             capture_output=True, text=True, check=True).stdout
        rows[policy] = json.loads(out.strip().splitlines()[-1])
    dofs = next(r["dofs"] for r in rows.values() if r)
    print(f"Modeling {args.modeling.upper()}, {nx}x{ny} block ({dofs} dofs), best of {args.repeat} [ms]\n")
    print("| allocator | forces | tangent | forces + tangent |\n|---|---|---|---|")
    names = {"default": "glibc default", "kept": "freed memory kept (fem.time.memory)"}
    for policy, r in rows.items():
        cells = ["not glibc"] * 3 if r is None else [f"{r[k]:.2f}" for k in ("forces", "tangent", "forces + tangent")]
        print(f"| {names[policy]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
