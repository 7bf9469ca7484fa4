"""Where a Newton correction's time goes: the parts of fem.time.dynamics._newton_step, timed in one run.

Run: python benchmarks/correction_parts.py [--python] [CASE ARGUMENTS ...]

Runs cases/shaking_table.py in this process (default: the harmonic of benchmarks/realtime.py, 0.6 g,
2 Hz, 8 cycles, cut at 2 s: ``--excitation harmonic --amplitude-g 0.6 --frequency-hz 2 --cycles 8
--t-end 2 --no-paraview --quiet``; other arguments replace these) with a timer around each part of the
Newmark/HHT step (the functions fem.time.dynamics calls, and the Newton system's fill and solve), and
prints each part's total time, its calls, and its time per Newton correction (the corrections of the
compiled loop, contact.newton_loop, plus the calls of solve_increment, the Python loop's). ``_newton_step``
is the whole step, event location's probes included; what it spends beyond the parts listed is the Python
of the step itself (the checks after convergence, the books, the contact commit). Under the compiled loop
the Python loop's parts are not called (a step the loop hands back, FALLBACK, runs them); ``compiled
Newton loop`` is the call of contact.newton_loop.newton_iterations (numba's dispatch of its arguments
included), ``its Python wrapper`` the rest of contact.newton_loop.iterate. ``--python`` runs the Python loop
(ROCKFEM_NEWTON_LOOP=python). Each timer costs about a microsecond per call, included in the figures.
Nothing here asserts a timing.
"""
from __future__ import annotations

import collections
import runpy
import sys
import tempfile
import time
from pathlib import Path

import contact.newton_loop as newton_loop
import fem.time.dynamics as dynamics
import fem.time.newton as newton
import fem.time.newton_system as newton_system

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ["--excitation", "harmonic", "--amplitude-g", "0.6", "--frequency-hz", "2", "--cycles", "8", "--t-end", "2",
           "--no-paraview", "--quiet"]
#: (owner, attribute, label) of each part timed
PARTS = ((dynamics, "_newton_step", "_newton_step (whole step)"),
         (newton_loop, "iterate", "compiled Newton loop, with its Python wrapper"),
         (newton_loop, "newton_iterations", "  compiled Newton loop"),
         (dynamics, "solve_increment", "solve_increment"),
         (newton_system.NewtonSystem, "correction", "  mixed matrix fill and dense solve"),
         (newton_system.NewtonSystem, "solve", "  solve by SuperLU"), (newton_system.IterationMatrix, "data", "Newton matrix"),
         (dynamics, "multiplier_forces", "contact terms"), (dynamics, "evaluate_forces", "forces"),
         (newton, "momentum_norms", "residuals and scale"),
         (dynamics, "oscillating_nodes", "status oscillation check"), (dynamics, "newton_converged", "convergence test"))


def main(argv=None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    if "--python" in args:
        args.remove("--python")
        newton_loop.ENABLED = False
    args = args or DEFAULT
    total, calls = collections.defaultdict(float), collections.Counter()
    loop_corrections = []
    iterate = newton_loop.iterate

    def counted(*a, **k):
        out = iterate(*a, **k)
        if out.code != newton_loop.FALLBACK:  # (a FALLBACK step's corrections are solve_increment's)
            loop_corrections.append(out.iterations)
        return out

    newton_loop.iterate = counted

    def timed(function, label):
        def part(*a, **k):
            t0 = time.perf_counter()
            try:
                return function(*a, **k)
            finally:
                total[label] += time.perf_counter() - t0
                calls[label] += 1
        return part

    for owner, name, label in PARTS:
        setattr(owner, name, timed(getattr(owner, name), label))
    with tempfile.TemporaryDirectory() as out:
        sys.argv = [str(ROOT / "cases" / "shaking_table.py"), *args, "--out", out]
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
        except SystemExit as stop:
            if stop.code not in (0, None):
                raise
    corrections = (calls["solve_increment"] + sum(loop_corrections)) or 1
    print(f"cases/shaking_table.py {' '.join(args)}: {corrections} Newton corrections")
    print("| part | total [s] | calls | per correction [us] |")
    print("|---|---|---|---|")
    for _, _, label in PARTS:
        print(f"| {label} | {total[label]:.3f} | {calls[label]} | {1e6 * total[label] / corrections:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
