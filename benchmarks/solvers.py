"""Linear solvers on the mixed Newton systems of SDNV105 A (fem.time.newton_system), block meshes of
growing size: what one factorisation + solve costs with each.

Run: python benchmarks/solvers.py [--sizes 8x16,16x32,32x64,64x128] [--repeat 3]

For each size, ``cases/sdnv105a.py --nx NX --ny NY`` runs in this process until its 30th Newton
correction of the release (the block rocking on O; the contact multipliers in), whose
mixed matrix (free dofs + contact multipliers, CSC) and right-hand side are kept. On it, best of
--repeat:

* SuperLU (scipy.sparse.linalg.splu) with each column ordering: COLAMD (spsolve's default),
  MMD_AT_PLUS_A (fem.time.newton_system.ORDERING), MMD_ATA;
* the dense LU (LAPACK gesv through scipy.linalg.lu_factor / lu_solve), up to 3000 unknowns;
* pypardiso (Intel MKL PARDISO, unsymmetric real), when it is importable. It is not a dependency:
  ``pip install pypardiso`` brings MKL, 220 MB, 35 s on this machine (run this script with the
  python of a virtual environment that has it). A new PyPardisoSolver each time: pypardiso.spsolve
  keeps the factorisation of a matrix it has seen, which a Newton iteration cannot use.

Every solution is compared with SuperLU COLAMD's (relative max difference). scikit-umfpack has no
wheel (its build needs SWIG and SuiteSparse from the system) and scikit-sparse's CHOLMOD needs
SuiteSparse too, and a symmetric positive definite matrix, which the mixed system is not (its
contact rows; the Total Lagrangian damping derivative is not symmetric either): neither installs
with this project's command on a fresh machine.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import warnings
from pathlib import Path

import numpy as np
import scipy.linalg as sl
import scipy.sparse.linalg as spla

ROOT = Path(__file__).resolve().parents[1]

import fem.time.dynamics as dynamics  # noqa: E402
from cases.sdnv105 import case as common  # noqa: E402
from timing import best_time  # noqa: E402  (benchmarks/, the script's folder)

CAPTURE_AT = 30


class _Captured(Exception):
    pass


def capture(nx: int, ny: int):
    """The mixed matrix (CSC) and right-hand side of the CAPTURE_AT-th Newton solve of the release."""
    solve_increment = dynamics.solve_increment
    seen = []

    def keep(system, J, R_free, lins, trials, c, force_weight, where="Newton correction"):
        if "self-weight" not in where and "tilt" not in where:
            seen.append(None)
            if len(seen) == CAPTURE_AT:
                pattern, data, *_ = system.assemble(J, lins, force_weight)
                seen.append((pattern.sparse(data), -np.concatenate([R_free, c])))
                raise _Captured
        return solve_increment(system, J, R_free, lins, trials, c, force_weight, where)

    dynamics.solve_increment = keep
    try:
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stderr(io.StringIO()):
            try:
                common.run_case("a", ["--nx", str(nx), "--ny", str(ny), "--t-end", "0.06", "--no-paraview",
                                      "--quiet", "--force", "--out", out])
            except _Captured:
                pass
    finally:
        dynamics.solve_increment = solve_increment
    return seen[-1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="8x16,16x32,32x64,64x128")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        import pypardiso
    except ImportError:
        pypardiso = None
    solvers = {f"SuperLU {p}": (lambda A, b, p=p: spla.splu(A, permc_spec=p).solve(b))
               for p in ("COLAMD", "MMD_AT_PLUS_A", "MMD_ATA")}
    solvers["dense LU"] = lambda A, b: sl.lu_solve(sl.lu_factor(A.toarray(), check_finite=False), b)
    if pypardiso is not None:
        # a new solver each time: pypardiso.spsolve keeps the factorisation of a matrix it has seen
        solvers["pypardiso"] = lambda A, b: pypardiso.PyPardisoSolver().solve(A.tocsr(), b)
    print(f"| unknowns | nnz | {' | '.join(solvers)} |")
    print("|---|---|" + "---|" * len(solvers))
    for size in args.sizes.split(","):
        nx, ny = map(int, size.split("x"))
        A, b = capture(nx, ny)
        _, x0 = best_time(lambda: spla.splu(A, permc_spec="COLAMD").solve(b), 1)
        cells = []
        for name, solve in solvers.items():
            if name == "dense LU" and A.shape[0] > 3000:
                cells.append("-")
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t, x = best_time(lambda: solve(A, b), args.repeat)
            cells.append(f"{1e3 * t:.2f} ms ({np.abs(x - x0).max() / np.abs(x0).max():.0e})")
        print(f"| {size}: {A.shape[0]} | {A.nnz} | {' | '.join(cells)} |", flush=True)
    print(f"\nBest of {args.repeat}; in parentheses the largest difference from SuperLU COLAMD's solution, relative "
          "to its largest entry.")


if __name__ == "__main__":
    main()
