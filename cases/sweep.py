"""Parameter study: any case run over a grid of its flags on Dask workers, the results in one table.

    python cases/sweep.py sdnd101 --grid k-shock=1e5,1e6 --grid v0=0.5,1,2 --out results/sweep_sdnd101
    python cases/sweep.py shaking_table --grid mu=0.5,0.9 --grid amplitude-g=0.4:1.2:5 \\
        --out results/sweep_st -- --excitation sine-pulse --frequency-hz 2 --no-paraview
    python cases/sweep.py shaking_table --points points.csv --scheduler tcp://HOST:8786 --out /shared/study

CASE is a script of cases/ (``shaking_table``, ``sdnv105a``, ``sdnd101`` ...) or a path to one. Each
``--grid NAME=v1,v2,...`` (or ``NAME=start:stop:count``, count values evenly spaced, ends included)
is an axis: the points are every combination, the last axis varying fastest. ``--points FILE.csv``
instead lists the points: a header of flag names, a row a point. The flags after ``--`` are given to
every point. Every flag is checked against the case's own ``--help`` before anything runs.

Each point runs as its own process (``python cases/CASE.py <flags> --out OUT/points/<name> --quiet``)
on a Dask worker (fem.studies.sweep): a point that crashes, is refused, or hangs past ``--time-limit`` is a
row with its status and message, and the others go on. By default a LocalCluster runs one point a
core (``--workers N`` to choose); ``--scheduler tcp://HOST:PORT`` sends the points to a running
scheduler (``dask scheduler`` and ``dask worker tcp://HOST:PORT --nthreads 1`` started by hand, or by
dask-jobqueue), whose workers must have this package installed and see OUT (a shared file system).

Outputs in OUT: ``results.csv`` (a row a point that ran, in grid order, added as each point
finishes: ``point``, the grid's flags, ``status`` complete / failed / timeout / interrupted,
``message``, ``exit_code`` (128 + N for a process ended by signal N), ``wall_s``, ``folder``, then
the figures of the point's summary.json: every number, flag and string of it, nested keys joined by
``.``); ``summary.json`` (fem.run.lifecycle: ``status: running`` until every point has been run, then
``complete`` or ``interrupted``; the command, the counts of each status, one check: every point
complete); ``points/<name>/`` (the case's own files, its ``stdout.txt`` / ``stderr.txt``, and
``point.json``, the point's row).

Rerunning the same command completes what is missing: a point whose ``point.json`` says complete
for the same case and flags is reused, every other point (failed, timed out, interrupted, never
started) runs again, from its start (a case does not resume). Ctrl-C or SIGTERM stops the sweep: the
points finished meanwhile are rows, the running ones are sent the same signal (``interrupted`` rows,
exit code 130 / 143, their folders keep their steps), the others are not run; the table is written,
one line on stderr gives the counts, and the sweep exits 130 / 143.

``--force`` is given to every point too (each runs past its own resource bounds); without it a sweep
of more than 100,000 points, or whose LocalCluster workers would need more memory than is available
(150 MB a worker, a case process's own), is refused; with it, one of more points than the memory can
keep track of (fem.studies.sweep.point_limit). The count of points (each axis's, then their product) is
checked before any point is built. A ``--scheduler`` that does not answer as a Dask scheduler within
about 10 s is refused before the output folder is touched.

Exit codes: 0 every point complete; 1 the sweep ran every point but some did not complete (one line
on stderr, even with --quiet: ``sweep: 3 points: 0 complete, 3 failed (OUT/results.csv)``); 2 bad
input (one line naming the flag); 130 / 143 interrupted.
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import sys
from pathlib import Path

from fem.studies import sweep  # noqa: E402
from fem.studies.study import run_study, study_points  # noqa: E402
from fem.run.lifecycle import BadInput, CaseParser, add_run_flags, command_line, execute  # noqa: E402

CASES_DIR = Path(__file__).resolve().parent
#: studies, helpers, the package, the problem-file command's installer (cases/problem_file/cli.py) and its reader
NOT_CASES = ("sweep", "overturning_spectrum", "convergence", "early_exit", "__init__", "cli", "problem_file")
RESERVED = ("out", "quiet", "help")


def case_script(name: str) -> Path:
    """``cases/<name>.py``, or ``name`` itself if it is a path to a script; :class:`BadInput` else."""
    path = Path(name)
    if path.suffix != ".py":
        path = CASES_DIR / f"{name}.py"
    def is_case(p: Path) -> bool:
        return p.stem not in NOT_CASES and not p.stem.endswith("_common")

    if not (is_case(path) and path.is_file()):
        known = sorted(p.stem for p in CASES_DIR.glob("*.py") if is_case(p))
        raise BadInput(f"CASE {name}: not a case script (the cases: {', '.join(known)})")
    return path.resolve()


def parse_args(argv):
    argv, fixed = sweep.split_fixed(sys.argv[1:] if argv is None else argv)
    p = CaseParser(prog="sweep.py", description=__doc__.split("\n\n")[0],
                   epilog="Flags after -- are given to every point.")
    p.add_argument("case", help="a script of cases/ (shaking_table, sdnv105a, sdnd101, ...) or its path")
    p.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="an axis of the grid: a flag of the case and its values (or start:stop:count)")
    p.add_argument("--points", type=Path, default=None, help="CSV of points: a header of flags, a row a point")
    p.add_argument("--out", type=Path, default=None, help="output folder (default results/sweep_<case>)")
    sweep.add_cluster_flags(p)
    add_run_flags(p)
    a = p.parse_args(argv)
    return a, fixed


def plan(a, fixed: list[str]):
    """Check everything before anything runs: the case, its flags, the grid, the folder."""
    script = case_script(a.case)
    points, where = study_points(a)
    sweep.check_flags(script, {where: [k for p in points for k, _ in p.values], "after --": sweep.option_names(fixed)},
                      RESERVED)
    out = a.out if a.out is not None else Path("results") / f"sweep_{script.stem}"
    return script, points, out


def main(argv=None) -> int:
    return execute(_main, argv)


def _main(argv) -> int:
    a, fixed = parse_args(argv)
    workers = sweep.local_workers(a)
    script, points, out = plan(a, fixed)
    task = sweep.CaseCommand(str(script), tuple([*fixed, "--force"] if a.force else fixed), a.time_limit)
    parameters = {"case": script.stem, "grid": a.grid, "points_file": a.points, "fixed": fixed,
                  "workers": a.workers, "scheduler": a.scheduler, "time_limit": a.time_limit, "force": a.force,
                  "points": len(points)}
    return run_study(a, points, task, out, workers, f"sweep_{script.stem}", command_line("cases/sweep.py", argv),
                     parameters, f"cases/{script.name}")


if __name__ == "__main__":
    sys.exit(main())
