"""How finding the contacts of an assembly grows with its number of blocks (fem.problem.interfaces.find, what
``Contact`` / ``[[contacts]]`` runs when a problem is assembled).

Run: python benchmarks/contact_search.py [--blocks 10 50 200 1000] [--repeat 3] [--out FILE.md]

For each size: a square-ish array of 0.25 m bricks on a base (meshes.assemblies.brick_array, the bricks of a
column stacked, neighbouring columns in contact; QUA4 of 0.0625 m, 16 cells a brick), written and read as a
user's mesh, then the search over every body timed (the min and median of ``--repeat`` runs): the boundary
edges n_e, the candidate edge pairs of the broad phase (a KD-tree over the edges' midpoints, radius the
longest edge), the facing pairs of the narrow phase, the interfaces, and the time per n_e log2 n_e: flat as
the blocks grow when the search is O(n log n). Nothing here asserts a timing; the load average is printed
beside the table.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
from pathlib import Path

from fem.io.markdown import md_table



def measure(blocks: int, repeat: int, folder: Path) -> dict:
    from fem.mesh.read import read_mesh
    from fem.problem import interfaces
    from meshes.assemblies import brick_array, write

    cols = max(1, round(math.sqrt(blocks)))
    rows = max(1, round(blocks / cols))
    assembly = brick_array(rows, cols, size=0.0625)
    mesh = read_mesh(write(assembly, folder / f"array_{rows}x{cols}.msh"))
    bodies = [b.name for b in assembly.bodies]
    times, search = [], None
    for _ in range(repeat):
        found, search = interfaces.find(mesh, bodies, 1e-9)
        times.append(search.seconds)
    n = search.edges
    return {"blocks": rows * cols, "bodies": len(bodies), "edges": n, "candidates": search.candidates,
            "facing": search.facing, "interfaces": search.interfaces, "min_s": min(times),
            "median_s": statistics.median(times), "per_nlogn_us": 1e6 * min(times) / (n * math.log2(n))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--blocks", type=int, nargs="+", default=[10, 50, 200, 1000])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", type=Path, default=None, help="also write the table (Markdown) here")
    a = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in a.blocks:
            rows.append(measure(n, a.repeat, Path(tmp)))
    lines = md_table(["blocks", "bodies", "boundary edges", "candidate pairs", "facing pairs", "interfaces", "min [ms]",
                      "median [ms]", "min / (n_e log2 n_e) [us]"],
                     [(r["blocks"], r["bodies"], r["edges"], r["candidates"], r["facing"], r["interfaces"],
                       f"{1e3 * r['min_s']:.2f}", f"{1e3 * r['median_s']:.2f}", f"{r['per_nlogn_us']:.3f}") for r in rows])
    lines.append(f"\nload average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    text = "\n".join(lines)
    print(text)
    if a.out is not None:
        a.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
