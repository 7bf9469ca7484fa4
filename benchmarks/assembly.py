"""Assembly cost of internal force + consistent tangent, per element, for 1e3, 1e4 and 1e5 elements.

Run: python benchmarks/assembly.py [--repeat 3]
Prints, for QUA4 and TRIA6 grids in total-Lagrangian kinematics with Rayleigh damping, the time of
one call of Model.forces(u, v, tangent=True) (element kernels + CSR assembly with the pattern
computed once), the time of the internal force alone, and the one-off set-up (geometry + pattern),
with the freed memory kept as in a run (fem.time.memory).
"""
from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

import numpy as np

_spec = importlib.util.spec_from_file_location("helpers", Path(__file__).resolve().parents[1] / "tests" / "helpers.py")
helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helpers)
GRAPHITE, grid_mesh = helpers.GRAPHITE, helpers.grid_mesh

from fem.model.material import ElasticMaterial  # noqa: E402
from fem.time.memory import keep_freed_memory  # noqa: E402
from fem.model.assembly import Model  # noqa: E402
from timing import best_time  # noqa: E402  (benchmarks/, the script's folder)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="timing repetitions (best is kept)")
    args = parser.parse_args(argv)
    keep_freed_memory()  # as a run does (fem.time.memory)
    mat = ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-4)
    print(f"{'element':9s} {'n_el':>7s} {'n_dofs':>8s} {'setup s':>8s} {'f_int s':>9s} {'f+K s':>9s} "
          f"{'f+K us/el':>10s}")
    for element, per_cell in (("quad", 1), ("triangle6", 2)):
        for target in (1_000, 10_000, 100_000):
            cells = target // per_cell
            nx = max(2, int(round(np.sqrt(cells * 0.36 / 0.80))))
            ny = max(1, int(round(cells / nx)))
            mesh = grid_mesh(nx, ny, element=element)
            t0 = time.perf_counter()
            model = Model(mesh, {"BLOCK": mat})
            setup = time.perf_counter() - t0
            n_el = model.sets[0].n_elements
            rng = np.random.default_rng(0)
            u = 1e-6 * rng.standard_normal(model.n_dofs)
            v = 1e-3 * rng.standard_normal(model.n_dofs)
            t_f = best_time(lambda: model.forces(u, v, tangent=False), args.repeat)[0]
            t_k = best_time(lambda: model.forces(u, v, tangent=True), args.repeat)[0]
            print(f"{element:9s} {n_el:7d} {model.n_dofs:8d} {setup:8.3f} {t_f:9.4f} {t_k:9.4f} "
                  f"{1e6 * t_k / n_el:10.2f}")


if __name__ == "__main__":
    main()
