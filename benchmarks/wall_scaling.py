"""How the cost of a masonry-wall run grows with its number of bricks, against the cost floor of a
Newton iteration (one sparse factorisation + solve of the same system).

Run: python benchmarks/wall_scaling.py [--sizes 2x5,5x10,10x20,20x50] [--t-end 0.02] [--repeat 5] [--pair-a-joint]
     [--cycle-memory M] [--cycle-relaxations R] [--alpha A]

Prints the machine, then one markdown table, every number measured in this run on this machine, a row per
size COURSESxBRICKS (2x5, 5x10, 10x20, 20x50: 11, 52, 205, 1010 bricks): the wall of
examples/masonry_wall.py (meshes.assemblies.running_bond_wall, 0.4 x 0.2 m bricks, QUA4 of 0.2 m, on a
base slab whose bottom is held; E = 1e10 Pa, nu = 0.2, 2000 kg/m^3; every joint found from the mesh, one
Penalty(1e8 N/m, mu 0.7, tangential 1e8 N/m) term), written as a gmsh file, then

* assemble: the time of ``fem.problem.assemble(problem)``, reading the mesh file included; bricks: the
  bodies holding no support; joints: the interfaces the contact search found; dofs: 2 per node;
* ``simulate(problem, [Preload(), shake], steps=Uniform(2e-3, alpha=-0.3))``, shake the BaseMotion of
  examples/records/synthetic_10s_h_v.csv (x: column 1, y: column 2, both x 2.5) for --t-end s, nothing
  written. contact search: its ``contact_search`` seconds (broad + narrow phase, fem.problem.interfaces),
  n_e its boundary edges, search / (n_e log2 n_e) divided by the smallest size's (flat or falling: no worse
  than O(n log n));
* ``simulate(problem, [Preload()])`` alone: ``outcome.stats`` add up every stage, the preload's 5 static
  steps too, so steps, Newton iterations and stepping time here are the shaking's: the first run's less
  the preload run's (the Newton iterations of the steps kept: a step that failed and was cut is counted by
  its sub-steps, its own iterations not); Newton solves: every correction solved (fem.time.dynamics.solve_increment
  counted), the failed steps' too: what the stepping pays for. Stepping: the time inside the integrators' step generators (fem.io.recorder.timed_steps);
  ms / step = 1e3 stepping / steps, ms / Newton it. = 1e3 stepping / iterations, wall s / simulated s =
  stepping / --t-end.

The floor, measured in this process at the preload's end state u (v = 0), is the best of --repeat of one
factorisation + solve of the iteration matrix on the free dofs (every dof but the support's and the unused
ones, fem.loads.applied.resolve_constraints): J = M / (beta dt^2) + (1 + alpha) (K + K_c), HHT's beta = (1 - alpha)^2 / 4 of
the runs' alpha (--alpha, default -0.3: the example's), dt = 2e-3 s,
K the model's tangent stiffness (model.forces(u, v, tangent=True)), K_c the penalty term's d_du
(term.evaluate(u, v, 0, tangent=True), a fresh term); ``scipy.sparse.linalg.splu(J_ff, permc_spec=ORDERING,
**SYMMETRIC_MODE).solve(b)`` (SuperLU's symmetric mode; a dense LU up to DENSE_MAX
unknowns; fem.time.newton_system). Newton it. / floor = ms per Newton iteration / floor. The first size is preceded by an untimed 2x2 wall run (numba's loops loaded).
Progress goes to stderr. Nothing here asserts a timing.
"""
from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.linalg as sl
import scipy.sparse.linalg as spla

from contact.laws import Penalty
from fem import BaseMotion, Body, ElasticMaterial, Preload, Problem, Support, Uniform, read_record, simulate
from fem.io.markdown import md_table
from fem.loads.applied import resolve_constraints
from fem.problem import Contact, assemble
from fem.problem.grading import moving_bodies
from fem.problem.physics import supports
from fem.time import dynamics, newton
from fem.time.newton_system import DENSE_MAX, ORDERING, SYMMETRIC_MODE
from meshes.assemblies import running_bond_wall, write
from speed import machine  # benchmarks/, the script's folder
from timing import best_time

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "examples" / "records" / "synthetic_10s_h_v.csv"
DT = 2e-3  # [s], the run's uniform step and the floor's
ALPHA = -0.3  # HHT's alpha, the example's (--alpha)


#: Newton corrections solved so far in this process (every one, a failed step's too)
SOLVES = [0]


def _counted(solve):
    def counted(*args, **kwargs):
        SOLVES[0] += 1
        return solve(*args, **kwargs)
    return counted


def _with_solves(run):
    """(run(), the Newton corrections it solved)."""
    before = SOLVES[0]
    return run(), SOLVES[0] - before


def wall_problem(courses: int, bricks: int, folder: Path, merge: bool = True) -> Problem:
    """examples/masonry_wall.py's problem for a wall of ``courses`` x ``bricks``, its mesh in ``folder``
    (``merge`` False: a pair a joint)."""
    wall = running_bond_wall(courses=courses, bricks=bricks, brick=(0.4, 0.2), size=0.2)
    stone = ElasticMaterial(young=1e10, poisson=0.2, density=2000.0)
    joints = Contact(Penalty(1e8, mu=0.7, tangential_stiffness=1e8), merge=merge, name="JOINTS" if merge else None)
    return Problem(write(wall, folder / "wall.msh"), bodies=[Body(b.name, stone) for b in wall.bodies],
                   supports=[Support(g) for g in wall.held], contacts=[joints])


def shake(t_end: float) -> BaseMotion:
    return BaseMotion(t_end, x=read_record(RECORD, column=1, scale=2.5), y=read_record(RECORD, column=2, scale=2.5))


def floor(assembled, u: np.ndarray, repeat: int, alpha: float) -> tuple[float, int]:
    """(the best time [s] of one factorisation + solve of J_ff at u, v = 0; the free dofs) (module docstring)."""
    model = assembled.model
    v = np.zeros_like(u)
    K = model.forces(u, v, tangent=True).stiffness
    for term in assembled.terms:
        d_du = term.evaluate(u, v, 0.0, True).d_du
        K = K if d_du is None else K + d_du
    beta = (1 - alpha) ** 2 / 4  # HHT's
    J = (model.mass / (beta * DT * DT) + (1 + alpha) * K).tocsr()
    fixed = resolve_constraints(model.mesh, supports(assembled.problem.supports), extra_fixed=model.unused_dofs).dofs
    free = np.setdiff1d(np.arange(model.n_dofs), fixed)
    J_ff = J[free][:, free].tocsc()
    b = np.random.default_rng(0).standard_normal(free.size)
    if free.size <= DENSE_MAX:  # the solver the run uses (fem.time.newton_system)
        dense = J_ff.toarray()
        return best_time(lambda: sl.lu_solve(sl.lu_factor(dense, check_finite=False), b), repeat)[0], free.size
    return best_time(lambda: spla.splu(J_ff, permc_spec=ORDERING, **SYMMETRIC_MODE).solve(b), repeat)[0], free.size


def measure(courses: int, bricks: int, t_end: float, repeat: int, folder: Path, merge: bool = True,
            alpha: float = ALPHA) -> dict:
    """One size's row (module docstring)."""
    problem = wall_problem(courses, bricks, folder, merge)
    t0 = time.perf_counter()
    assembled = assemble(problem)
    assemble_s = time.perf_counter() - t0
    run, solves = _with_solves(lambda: simulate(problem, [Preload(), shake(t_end)], steps=Uniform(DT, alpha=alpha)))
    pre, pre_solves = _with_solves(lambda: simulate(problem, [Preload()], steps=Uniform(DT, alpha=alpha)))
    floor_s, free = floor(assembled, pre.state.u, repeat, alpha)
    search = run.contact_search["contacts"][0]
    shaking = {k: run.stats.get(k, 0) - pre.stats.get(k, 0) for k in ("steps", "newton_iterations", "stepping_s")}
    return {"size": f"{courses}x{bricks}", "status": run.status, "message": run.message,
            "bricks": len(moving_bodies(assembled)), "joints": search["interfaces"], "dofs": assembled.model.n_dofs,
            "free": free, "edges": search["boundary_edges"], "search_s": search["seconds"], "assemble_s": assemble_s,
            "t_end": t_end, "floor_s": floor_s, "solves": solves - pre_solves, **shaking}


def parse_sizes(text: str) -> list[tuple[int, int]]:
    sizes = []
    for token in filter(None, (t.strip() for t in text.split(","))):
        found = re.fullmatch(r"(\d+)x(\d+)", token)
        if not found or int(found.group(1)) < 1 or int(found.group(2)) < 1:
            raise argparse.ArgumentTypeError(f"{token!r} is not COURSESxBRICKS with both >= 1 (e.g. 10x20)")
        sizes.append((int(found.group(1)), int(found.group(2))))
    if not sizes:
        raise argparse.ArgumentTypeError("no size given")
    return sizes


def table(rows: list[dict]) -> list[str]:
    ref = rows[0]["search_s"] / (rows[0]["edges"] * math.log2(rows[0]["edges"]))
    lines = []
    for r in rows:
        steps, its, stepping, fl = r["steps"], r["newton_iterations"], r["stepping_s"], 1e3 * r["floor_s"]
        per_it = 1e3 * stepping / its if its else None
        lines.append((f"{r['size']}" + ("" if r["status"] == "complete" else f" ({r['status']}) ¹"),
                      r["bricks"], r["joints"], f"{r['dofs']} ({r['free']})", r["edges"],
                      f"{1e3 * r['search_s']:.2f}",
                      f"{r['search_s'] / (r['edges'] * math.log2(r['edges'])) / ref:.2f}",
                      f"{r['assemble_s']:.2f}", steps, f"{its / steps:.2f}" if steps else "–",
                      f"{r['solves'] / steps:.2f}" if steps else "–",
                      f"{1e3 * stepping / steps:.3g}" if steps else "–", "–" if per_it is None else f"{per_it:.3g}",
                      f"{fl:.3g}", "–" if per_it is None else f"{per_it / fl:.2f}", f"{stepping / r['t_end']:.3g}"))
    return md_table(["wall", "bricks", "joints", "dofs (free)", "edges n_e", "contact search [ms]",
                     "search / (n_e log n_e), 1st = 1", "assemble [s]", "steps", "Newton it. / step",
                     "Newton solves / step", "ms / step",
                     "ms / Newton it.", "floor [ms]", "Newton it. / floor", "wall s / simulated s"], lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=parse_sizes, default=parse_sizes("2x5,5x10,10x20,20x50"),
                        help="walls COURSESxBRICKS, comma-separated (default 2x5,5x10,10x20,20x50)")
    parser.add_argument("--t-end", type=float, default=0.02, help="simulated seconds of shaking per size [s]")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of the floor timing (best is kept)")
    parser.add_argument("--pair-a-joint", action="store_true",
                        help="a contact pair a joint instead of one merged term (what merging saves)")
    parser.add_argument("--alpha", type=float, default=ALPHA, help=f"HHT's alpha (default {ALPHA:g}, the example's)")
    parser.add_argument("--cycle-memory", type=int, default=newton.CYCLE_MEMORY,
                        help=f"iterates a Newton step remembers to see a repeat (default {newton.CYCLE_MEMORY})")
    parser.add_argument("--cycle-relaxations", type=int, default=newton.CYCLE_RELAXATIONS,
                        help=f"relaxed corrections a step may take (default {newton.CYCLE_RELAXATIONS})")
    args = parser.parse_args(argv)
    if not (args.t_end >= DT and args.repeat >= 1):
        parser.error(f"--t-end must be >= {DT:g} s (one step) and --repeat >= 1")
    if not (args.cycle_memory >= 1 and args.cycle_relaxations >= 0):
        parser.error("--cycle-memory must be >= 1 and --cycle-relaxations >= 0")
    if not -1 / 3 <= args.alpha <= 0:
        parser.error("--alpha must lie in [-1/3, 0]")
    newton.CYCLE_MEMORY, newton.CYCLE_RELAXATIONS = args.cycle_memory, args.cycle_relaxations
    dynamics.solve_increment = _counted(dynamics.solve_increment)
    header = machine()
    start = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="rockfem-wall-") as tmp:
        warm = Path(tmp) / "warm-up"
        warm.mkdir()
        simulate(wall_problem(2, 2, warm), [Preload(), shake(DT)], steps=Uniform(DT))  # numba's loops loaded
        for courses, bricks in args.sizes:
            print(f"[{time.perf_counter() - start:6.0f} s] wall {courses}x{bricks}, to {args.t_end:g} s",
                  file=sys.stderr, flush=True)
            folder = Path(tmp) / f"{courses}x{bricks}"
            folder.mkdir(exist_ok=True)
            rows.append(measure(courses, bricks, args.t_end, args.repeat, folder, not args.pair_a_joint, args.alpha))
            if rows[-1]["status"] != "complete":
                print(f"  {rows[-1]['status']}: {rows[-1]['message']}", file=sys.stderr, flush=True)
    print(header)
    print()
    print("\n".join(table(rows)))
    print()
    notes = []
    if any(r["status"] != "complete" for r in rows):
        notes.append("¹ the run did not complete (stderr says why); its numbers are those up to where it stopped.")
    notes.append(f"Newton steps' cycle guard: {newton.CYCLE_MEMORY} iterates remembered, "
                 f"{newton.CYCLE_RELAXATIONS} relaxation(s) a step (fem.time.newton.CycleGuard).")
    notes.append(f"Steps, Newton it. and stepping: the shaking's ({args.t_end:g} s at dt = {DT:g} s, "
                 f"HHT alpha {args.alpha:g}; the example's {ALPHA:g}), the Preload's taken out. Floor: best of {args.repeat} of one factorisation + "
                 f"solve of M / (beta dt^2) + (1 + alpha) (K + K_contact) (HHT's beta {(1 - args.alpha) ** 2 / 4:g}) at the preloaded state on the free dofs, splu "
                 f"with {ORDERING} in symmetric mode (dense LU up to {DENSE_MAX} unknowns). Total {time.perf_counter() - start:.0f} s.")
    print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
