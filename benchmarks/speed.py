"""Speed of the SDNV105 runs against the cost floor of a Newton iteration, on the benchmark's mesh
and on uniform blocks of growing size (issue 9).

Run: python benchmarks/speed.py [--sizes 8x16,16x32,32x64,64x128] [--modelings a,d] [--t-end 0.06]
                                [--repeat 5]
Prints the machine, then one markdown table, every number measured in this run on this machine:

* "A full, reference mesh": ``python cases/sdnv105a.py --no-paraview --out TMP``, every phase to 0.33 s;
* one row per modeling and size NXxNY: ``python cases/sdnv105<m>.py --nx NX --ny NY --t-end T
  --no-paraview --out TMP`` (self-weight, tilt, release to T).

Each case runs as a child process. Its stepping time (summary.json ``run.stepping_s``: the time
spent inside the integrators' step generators, fem.io.recorder.timed_steps; set-up, history and
report writing and ParaView left out), steps and Newton iterations give ms per step and ms per
Newton iteration; its peak memory is the child's maximum resident set (os.wait4).

The floor, measured in this process on the same model (cases/sdnv105/case's Config and build,
same modeling and mesh), is the cost a Newton iteration cannot go below with this code's kernels
and SciPy's sparse LU: the best of --repeat of

  (i)  one ``model.forces(u, v, tangent=True)``: internal and damping forces, tangent and damping
       matrices assembled (CSR);
  (ii) one factorisation + solve of the iteration matrix with the solver the run uses
       (fem.time.newton_system: a dense LU up to DENSE_MAX unknowns, else
       ``scipy.sparse.linalg.splu(J_ff, permc_spec=ORDERING).solve(b)``) at the release's
       coarse step dt (a, b, c: HHT alpha 0, i.e. Newmark beta = 1/4, gamma = 1/2:
       J = M / (beta dt^2) + K + gamma / (beta dt) C; d: the theta-scheme's
       J = M / dt + theta (theta dt K + C)), restricted to the free dofs of the release phase (every
       dof but the supports' imposed ones, as fem.loads.applied.resolve_constraints gives them to the
       integrator). The contact rows (multipliers) are left out: a few against thousands of dofs.

floor = (i) + (ii); the ratios are ms per Newton iteration / floor and ms per step / floor. Under
the table: the log-log slope of ms per step (and of the floor) against dofs from the smallest to
the largest size, per modeling (1: linear in the dofs). Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy
import scipy.linalg as sl
import scipy.sparse.linalg as spla

ROOT = Path(__file__).resolve().parents[1]
from cases.sdnv105 import case as common  # noqa: E402

from fem.loads.applied import resolve_constraints  # noqa: E402
from fem.time.memory import keep_freed_memory  # noqa: E402
from fem.time.newton_system import DENSE_MAX, ORDERING  # noqa: E402
from timing import best_time  # noqa: E402  (benchmarks/, the script's folder)


@dataclass
class Row:
    """One run and its floor."""

    label: str
    modeling: str
    size: tuple[int, int] | None  # (nx, ny), None: the benchmark's mesh
    argv: list[str]
    code: int | None = None
    summary: dict | None = None
    peak_mb: float | None = None
    dofs: int | None = None
    assembly_ms: float | None = None
    solve_ms: float | None = None

    @property
    def run(self) -> dict:
        return (self.summary or {}).get("run") or {}

    @property
    def stepping(self) -> tuple[float | None, bool]:
        """(seconds, measured): summary's stepping_s, or its wall_s when the case has none."""
        if "stepping_s" in self.run:
            return self.run["stepping_s"], True
        return self.run.get("wall_s"), False

    @property
    def ms_per_step(self) -> float | None:
        seconds, steps = self.stepping[0], self.run.get("steps")
        return 1e3 * seconds / steps if seconds is not None and steps else None

    @property
    def ms_per_iteration(self) -> float | None:
        seconds, iterations = self.stepping[0], self.run.get("newton_iterations")
        return 1e3 * seconds / iterations if seconds is not None and iterations else None

    @property
    def floor_ms(self) -> float | None:
        return None if self.assembly_ms is None else self.assembly_ms + self.solve_ms


def machine() -> str:
    """Cores, CPU model, load, Python, numpy and scipy versions."""
    model = "unknown CPU"
    try:
        found = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
        model = found.group(1).strip() if found else model
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"Machine: {os.cpu_count()} cores ({usable} usable), {model}; load average {load} at the start; "
            f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")


def run_case(row: Row, folder: Path) -> None:
    """The case as a child process (stdout, stderr into ``folder``), its summary and peak RSS."""
    out = folder / "out"
    argv = [sys.executable, str(ROOT / "cases" / f"sdnv105{row.modeling}.py"), *row.argv, "--out", str(out)]
    with open(folder / "stdout.txt", "w") as stdout, open(folder / "stderr.txt", "w") as stderr:
        proc = subprocess.Popen(argv, stdout=stdout, stderr=stderr, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own resource usage
    proc.returncode = row.code = os.waitstatus_to_exitcode(status)
    row.peak_mb = usage.ru_maxrss / 1024.0  # kB on Linux
    try:
        row.summary = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        row.summary = None


def measure_floor(row: Row, folder: Path, repeat: int) -> None:
    """(i) force + tangent assembly and (ii) factorization + solve of the release's iteration
    matrix on the free dofs, for the row's modeling and mesh (module docstring)."""
    nx, ny = row.size if row.size is not None else (None, None)
    config = common.Config(row.modeling, nx=nx, ny=ny, out=folder).resolved()
    study = common.build(config)  # a generated mesh goes to folder/mesh.msh
    model = study.model
    phase = common.release_phase(study, "release", 0.0, config.dt, config.dt, 0.0)
    fixed = resolve_constraints(model.mesh, phase.constraints, extra_fixed=model.unused_dofs).dofs
    free = np.setdiff1d(np.arange(model.n_dofs), fixed)
    rng = np.random.default_rng(0)
    u = 1e-6 * rng.standard_normal(model.n_dofs)
    v = 1e-3 * rng.standard_normal(model.n_dofs)
    row.dofs = model.n_dofs
    row.assembly_ms = 1e3 * best_time(lambda: model.forces(u, v, tangent=True), repeat)[0]
    forces = model.forces(u, v, tangent=True)
    K, C, M, dt = forces.stiffness, forces.damping_matrix, model.mass, config.dt
    if config.spec.contact == "theta":
        theta = phase.scheme.theta
        J = M / dt + theta * (theta * dt * K + C)
    else:
        beta, gamma = phase.scheme.beta, phase.scheme.gamma
        J = M / (beta * dt * dt) + K + gamma / (beta * dt) * C
    J_ff = J.tocsr()[free][:, free].tocsc()
    b = rng.standard_normal(free.size)
    if free.size <= DENSE_MAX:  # the solver the run uses (fem.time.newton_system)
        dense = J_ff.toarray()
        row.solve_ms = 1e3 * best_time(lambda: sl.lu_solve(sl.lu_factor(dense, check_finite=False), b), repeat)[0]
    else:
        row.solve_ms = 1e3 * best_time(lambda: spla.splu(J_ff, permc_spec=ORDERING).solve(b), repeat)[0]


def parse_sizes(text: str) -> list[tuple[int, int]]:
    sizes = []
    for token in filter(None, (t.strip() for t in text.split(","))):
        found = re.fullmatch(r"(\d+)x(\d+)", token)
        if not found or int(found.group(1)) % 2 or int(found.group(1)) < 2 or int(found.group(2)) < 1:
            raise argparse.ArgumentTypeError(f"{token!r} is not NXxNY with NX even >= 2 and NY >= 1 (e.g. 16x32)")
        sizes.append((int(found.group(1)), int(found.group(2))))
    return sizes


def parse_modelings(text: str) -> list[str]:
    found = [m.strip() for m in text.split(",") if m.strip()]
    if not found or any(m not in common.MODELINGS for m in found):
        raise argparse.ArgumentTypeError(f"expected modelings among {', '.join(common.MODELINGS)}, got {text!r}")
    return found


def _num(x, fmt: str) -> str:
    return "–" if x is None else format(x, fmt)


def table(rows: list[Row]) -> list[str]:
    lines = ["| run | dofs | steps | Newton it. | stepping [s] | ms / step | ms / Newton it. | peak RSS [MB] "
             "| floor [ms] = assembly + LU | Newton it. / floor | step / floor |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        seconds, measured = r.stepping
        mark = "" if measured or seconds is None else " ¹"
        status = "" if r.code == 0 else f" (exit {r.code}{', ' + r.summary['status'] if r.summary else ''}) ²"
        floor = (f"{r.floor_ms:.3g} = {r.assembly_ms:.3g} + {r.solve_ms:.3g}" if r.floor_ms is not None else "–")
        ratio = (lambda x: "–" if x is None or r.floor_ms is None else f"{x / r.floor_ms:.2f}")  # noqa: E731
        lines.append(f"| {r.label}{status} | {_num(r.dofs, 'd')} | {_num(r.run.get('steps'), 'd')} | "
                     f"{_num(r.run.get('newton_iterations'), 'd')} | {_num(seconds, '.2f')}{mark} | "
                     f"{_num(r.ms_per_step, '.3g')} | {_num(r.ms_per_iteration, '.3g')} | {_num(r.peak_mb, '.0f')} | "
                     f"{floor} | {ratio(r.ms_per_iteration)} | {ratio(r.ms_per_step)} |")
    return lines


def slopes(rows: list[Row], modelings: list[str]) -> list[str]:
    """log(ms per step) against log(dofs) between the smallest and the largest size, per modeling."""
    lines = []
    for m in modelings:
        sized = sorted((r for r in rows if r.modeling == m and r.size is not None and r.dofs and r.ms_per_step),
                       key=lambda r: r.dofs)
        if len(sized) < 2:
            continue
        lo, hi = sized[0], sized[-1]
        ratio = math.log(hi.dofs / lo.dofs)
        step = math.log(hi.ms_per_step / lo.ms_per_step) / ratio
        floor = math.log(hi.floor_ms / lo.floor_ms) / ratio
        lines.append(f"Modeling {m}: ms per step grows as dofs^{step:.2f} from {lo.size[0]}x{lo.size[1]} "
                     f"({lo.dofs} dofs) to {hi.size[0]}x{hi.size[1]} ({hi.dofs} dofs); the floor as dofs^{floor:.2f}.")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=parse_sizes, default=parse_sizes("8x16,16x32,32x64,64x128"),
                        help="uniform blocks NXxNY, comma-separated (default 8x16,16x32,32x64,64x128)")
    parser.add_argument("--modelings", type=parse_modelings, default=["a", "d"],
                        help="modelings run on the uniform blocks, comma-separated (default a,d)")
    parser.add_argument("--t-end", type=float, default=0.06, help="end of the release on the uniform blocks [s]")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of each floor timing (best is kept)")
    args = parser.parse_args(argv)
    if not (args.t_end > 0 and args.repeat >= 1):
        parser.error("--t-end must be > 0 and --repeat >= 1")
    keep_freed_memory()  # the floor under the allocator policy of the runs (fem.time.memory)

    rows = [Row("A full, reference mesh", "a", None, ["--no-paraview"])]
    rows += [Row(f"{m.upper()} {nx}x{ny}, to {args.t_end:g} s", m, (nx, ny),
                 ["--nx", str(nx), "--ny", str(ny), "--t-end", f"{args.t_end:g}", "--no-paraview"])
             for m in args.modelings for nx, ny in args.sizes]
    header = machine()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rockfem-speed-") as tmp:
        for k, row in enumerate(rows):
            folder = Path(tmp) / f"run{k}"
            folder.mkdir()
            print(f"[{time.perf_counter() - start:6.0f} s] {row.label}: python cases/sdnv105{row.modeling}.py "
                  f"{' '.join(row.argv)}", file=sys.stderr, flush=True)
            run_case(row, folder)
            if row.code != 0:
                err = (folder / "stderr.txt").read_text().strip().splitlines()
                print(f"  exit {row.code}: {err[-1] if err else ''}", file=sys.stderr, flush=True)
            measure_floor(row, folder / "floor", args.repeat)
    print(header)
    print()
    print("\n".join(table(rows)))
    print()
    notes = slopes(rows, args.modelings)
    if any(not r.stepping[1] and r.stepping[0] is not None for r in rows):
        notes.append("¹ the case reports no stepping time (summary.json run.stepping_s): its wall time, set-up and "
                     "output included, is used instead.")
    if any(r.code != 0 for r in rows):
        notes.append("² the run did not exit 0 (its stderr says why); its numbers are those of its summary.json.")
    notes.append(f"Stepping: the time inside the integrators' step generators (summary.json run.stepping_s). "
                 f"Floor: best of {args.repeat} of one model.forces(u, v, tangent=True) and one "
                 f"factorization + solve of the release's iteration matrix (dense LU up to {DENSE_MAX} unknowns, "
                 f"else splu with {ORDERING}, as fem.time.newton_system) at its coarse dt on the free dofs, in "
                 f"this process. Peak RSS: the child's maximum resident set. "
                 f"Total {time.perf_counter() - start:.0f} s.")
    print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
