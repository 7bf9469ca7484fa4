"""A parameter study run as a command: its points from ``--grid`` or ``--points`` (:func:`study_points`)
and its run with its own record in the output folder (:func:`run_study`: summary.json with the counts,
the table and one check, every point complete, :func:`results`). The face of ``cases/sweep.py`` (a case
script over a grid of its flags) and of ``rockfem sweep`` (a problem file over a grid of its keys)."""
from __future__ import annotations

import sys
from pathlib import Path

from fem.run.lifecycle import EXIT_FAILED, BadInput, Run, check_resources, prepare_output
from fem.studies import sweep
from fem.time.interrupt import Interrupted


def study_points(a, name: str = "NAME") -> tuple[list, str]:
    """The points of ``--grid`` or ``--points`` (exactly one of them), counted before any is built
    (fem.studies.sweep.point_limit), and the flag that gave them."""
    if bool(a.grid) == (a.points is not None):
        raise BadInput(f"give the points with --grid {name}=V1,V2,... (one or more) or with --points FILE.csv")
    limit = sweep.point_limit(a.force)
    points = (sweep.read_points(a.points, limit) if a.points is not None else
              sweep.grid([sweep.parse_axis(g, limit) for g in a.grid], limit))
    return points, "--points" if a.points is not None else "--grid"


def run_study(a, points, task, out: Path, workers: int, case: str, command: str, parameters: dict, what: str) -> int:
    """Run ``points`` with ``task`` where ``a`` says (--workers, --scheduler, --quiet, --force), the study's
    own record in ``out`` (summary.json ``case``, ``command``, ``parameters``; the table, fem.studies.sweep):
    the resources and the scheduler checked before the folder is touched. Returns the exit code: 0 every
    point complete, 1 otherwise (one line on stderr, even quiet); an interruption is raised on."""
    check_resources(sweep.estimate(len(points), workers), force=a.force, max_steps=sweep.MAX_POINTS,
                    what="this sweep", unit="points", remedy="fewer points or --workers")
    sweep.check_scheduler(a.scheduler)  # an unreachable scheduler is refused before the folder is touched
    prepare_output(out)
    (out / "points").mkdir(exist_ok=True)
    record = Run.start(out, case, command, "custom", parameters, quiet=True)
    try:
        outcome = sweep.sweep_on_cluster(points, task, out, a.scheduler, workers, a.quiet, what)
    except Interrupted as stop:
        record.finish("interrupted", results(stop.outcome), message=str(stop))
        print(f"sweep: {stop.outcome.describe()} ({stop.outcome.table})", file=sys.stderr, flush=True)
        raise
    record.finish("complete", results(outcome))
    print(f"sweep: {outcome.total} points: {outcome.complete} complete ({outcome.reused} reused from an earlier "
          f"run), {outcome.not_complete} not complete; table: {outcome.table}")
    line = sweep.not_complete_line(outcome)
    if line is not None:  # even with --quiet: a sweep never ends silently on a point that did not complete
        print(line, file=sys.stderr, flush=True)
    return 0 if outcome.complete == outcome.total else EXIT_FAILED


def results(outcome: sweep.SweepOutcome) -> dict:
    """summary.json's results: the counts, the table, and one check: every point complete."""
    return {**outcome.record(),
            "checks": [{"quantity": "points complete", "value": outcome.complete, "reference": outcome.total,
                        "rel_error": (outcome.total - outcome.complete) / max(outcome.total, 1), "tolerance": 0,
                        "passed": outcome.complete == outcome.total}]}
