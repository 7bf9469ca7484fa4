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
on a Dask worker (fem.sweep): a point that crashes, is refused, or hangs past ``--time-limit`` is a
row with its status and message, and the others go on. By default a LocalCluster runs one point a
core (``--workers N`` to choose); ``--scheduler tcp://HOST:PORT`` sends the points to a running
scheduler (``dask scheduler`` and ``dask worker tcp://HOST:PORT --nthreads 1`` started by hand, or by
dask-jobqueue), whose workers must have this package installed and see OUT (a shared file system).

Outputs in OUT: ``results.csv`` (a row a point, in grid order, rewritten as each point finishes:
``point``, the grid's flags, ``status`` complete / failed / timeout / interrupted, ``message``,
``exit_code``, ``wall_s``, ``folder``, then the figures of the point's summary.json: every number,
flag and string of it, nested keys joined by ``.``); ``summary.json`` (fem.run: ``status: running``
until every point has been run, then ``complete`` or ``interrupted``; the command, the counts, one
check: every point complete); ``points/<name>/`` (the case's own files, its ``stdout.txt`` /
``stderr.txt``, and ``point.json``, the point's row).

Rerunning the same command completes what is missing: a point whose ``point.json`` says complete
for the same case and flags is reused, every other point (failed, timed out, interrupted, never
started) runs again. Ctrl-C stops the running points (their folders say ``interrupted``), writes the
table and exits 130.

``--force`` is given to every point too (each runs past its own resource bounds); without it a sweep
of more than 100,000 points, or whose LocalCluster workers would need more memory than is available
(150 MB a worker, a case process's own), is refused.

Exit codes: 0 every point complete; 1 the sweep ran every point but some did not complete (see
results.csv); 2 bad input (one line naming the flag); 130 / 143 interrupted.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # python cases/sweep.py from a checkout
    sys.path.insert(0, str(_ROOT))

from fem import sweep  # noqa: E402
from fem.interrupt import Interrupted  # noqa: E402
from fem.run import (EXIT_FAILED, BadInput, CaseParser, Estimate, Run, add_run_flags, check_resources,  # noqa: E402
                     command_line, execute, finite, prepare_output)

CASES_DIR = Path(__file__).resolve().parent
NOT_CASES = ("sweep", "overturning_spectrum", "convergence")  # studies themselves, not cases
RESERVED = ("out", "quiet", "help")


def case_script(name: str) -> Path:
    """``cases/<name>.py``, or ``name`` itself if it is a path to a script; :class:`BadInput` else."""
    path = Path(name)
    if path.suffix != ".py":
        path = CASES_DIR / f"{name}.py"
    if path.stem in NOT_CASES or path.stem.endswith("_common") or not path.is_file():
        known = sorted(p.stem for p in CASES_DIR.glob("*.py")
                       if p.stem not in NOT_CASES and not p.stem.endswith("_common") and p.stem != "one_dof_common")
        raise BadInput(f"CASE {name}: not a case script (the cases: {', '.join(known)})")
    return path.resolve()


def case_flags(script: Path) -> set[str]:
    """The flags a case accepts, read from its ``--help`` (names without ``--``)."""
    try:
        done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BadInput(f"CASE {script.stem}: its --help did not answer ({err})") from None
    if done.returncode != 0:
        raise BadInput(f"CASE {script.stem}: its --help failed ({(done.stderr.strip().splitlines() or ['?'])[-1]})")
    import re

    return {m[2:] for m in re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", done.stdout)}


def parse_args(argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    fixed: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, fixed = argv[:cut], argv[cut + 1:]
    p = CaseParser(prog="sweep.py", description=__doc__.split("\n\n")[0],
                   epilog="Flags after -- are given to every point.")
    p.add_argument("case", help="a script of cases/ (shaking_table, sdnv105a, sdnd101, ...) or its path")
    p.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="an axis of the grid: a flag of the case and its values (or start:stop:count)")
    p.add_argument("--points", type=Path, default=None, help="CSV of points: a header of flags, a row a point")
    p.add_argument("--out", type=Path, default=None, help="output folder (default results/sweep_<case>)")
    p.add_argument("--workers", type=int, default=None, help="LocalCluster workers (default: one a core)")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="a running Dask scheduler to send the points to (instead of a LocalCluster)")
    p.add_argument("--time-limit", type=finite, default=3600.0,
                   help="seconds a point may run before it is stopped (status timeout); default 3600")
    add_run_flags(p)
    a = p.parse_args(argv)
    return a, fixed


def plan(a, fixed: list[str]):
    """Check everything before anything runs: the case, its flags, the grid, the folder."""
    script = case_script(a.case)
    if bool(a.grid) == (a.points is not None):
        raise BadInput("give the points with --grid NAME=V1,V2,... (one or more) or with --points FILE.csv")
    if a.workers is not None and a.workers < 1:
        raise BadInput(f"--workers must be >= 1, got {a.workers}")
    if a.workers is not None and a.scheduler is not None:
        raise BadInput("--workers starts a LocalCluster: not with --scheduler (the scheduler has its workers)")
    if a.scheduler is not None and "://" not in a.scheduler:
        raise BadInput(f"--scheduler {a.scheduler}: expected an address like tcp://HOST:PORT")
    if not a.time_limit > 0:
        raise BadInput(f"--time-limit must be > 0 s, got {a.time_limit:g}")
    points = sweep.read_points(a.points) if a.points is not None else sweep.grid([sweep.parse_axis(g) for g in a.grid])
    known = case_flags(script)
    given = {k for p in points for k, _ in p.values}
    fixed_names = {f[2:].split("=")[0] for f in fixed if f.startswith("--")}
    where = "--points" if a.points is not None else "--grid"
    for name in sorted(given | fixed_names):
        origin = where if name in given else "after --"
        if name in RESERVED:
            raise BadInput(f"{origin} --{name}: the sweep sets it itself")
        if name not in known:
            raise BadInput(f"{origin} --{name}: cases/{script.name} has no such flag (see python cases/{script.name} --help)")
    both = given & fixed_names
    if both:
        raise BadInput(f"--{sorted(both)[0]} is both a point's flag and a flag after --: give it once")
    out = a.out if a.out is not None else Path("results") / f"sweep_{script.stem}"
    return script, points, out


#: a case process's own memory before its model [bytes] (peak RSS measured: sdnd101 113 MB,
#: shaking_table 155 MB): a LocalCluster of N workers needs N of them at once
POINT_BASELINE = 150e6
MAX_POINTS = 100_000


def resources(points: int, workers: int) -> Estimate:
    return Estimate(0, 0, 0, points, int(workers * POINT_BASELINE + 4000 * points))


def main(argv=None) -> int:
    return execute(_main, argv)


def _main(argv) -> int:
    a, fixed = parse_args(argv)
    script, points, out = plan(a, fixed)
    workers = 0 if a.scheduler else (a.workers or os.cpu_count() or 1)
    check_resources(resources(len(points), workers), force=a.force, max_steps=MAX_POINTS, what="this sweep",
                    unit="points", remedy="fewer points or --workers")
    task = sweep.CaseCommand(str(script), tuple([*fixed, "--force"] if a.force else fixed), a.time_limit)
    parameters = {"case": script.stem, "grid": a.grid, "points_file": a.points, "fixed": fixed,
                  "workers": a.workers, "scheduler": a.scheduler, "time_limit": a.time_limit, "force": a.force,
                  "points": len(points)}
    prepare_output(out)  # (a folder it creates is removed again if the scheduler cannot be reached)
    (out / "points").mkdir(exist_ok=True)
    client, cluster = sweep.connect(a.scheduler, workers or None)
    try:
        record = Run.start(out, f"sweep_{script.stem}", command_line("cases/sweep.py", argv), "custom",
                           parameters, quiet=True)
        where = a.scheduler or f"a LocalCluster of {len(client.scheduler_info()['workers'])} workers"
        link = sweep.dashboard(client)
        if not a.quiet:
            print(f"sweep: {len(points)} points of cases/{script.name} on {where}", file=sys.stderr)
            print(f"sweep: Dask dashboard at {link}" if link else
                  "sweep: no Dask dashboard (it needs bokeh on the scheduler's machine: pip install bokeh)",
                  file=sys.stderr)
        try:
            outcome = sweep.run_sweep(points, task, out, client,
                                      progress=sweep.SweepProgress(len(points), quiet=a.quiet))
        except Interrupted as stop:
            record.finish("interrupted", results(stop.outcome, where, link), message=str(stop))
            raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    record.finish("complete", results(outcome, where, link))
    print(f"sweep: {outcome.total} points: {outcome.complete} complete ({outcome.reused} reused from an earlier "
          f"run), {outcome.failed} not complete; table: {outcome.table}")
    return 0 if outcome.complete == outcome.total else EXIT_FAILED


def results(outcome: sweep.SweepOutcome, where: str, link: str | None) -> dict:
    """summary.json's results: the counts, the table, and one check: every point complete."""
    return {"where": where, "dashboard": link, "points": outcome.total, "complete": outcome.complete,
            "not_complete": outcome.failed, "reused": outcome.reused, "table": str(outcome.table),
            "checks": [{"quantity": "points complete", "value": outcome.complete, "reference": outcome.total,
                        "rel_error": (outcome.total - outcome.complete) / max(outcome.total, 1), "tolerance": 0,
                        "passed": outcome.complete == outcome.total}]}


if __name__ == "__main__":
    sys.exit(main())
