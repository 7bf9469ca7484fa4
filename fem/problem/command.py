"""rockfem: run a problem stated in a TOML file (fem.problem.file), or a study of it.

    rockfem run stack.toml
    rockfem run stack.toml --set stages.shake.x.scale=0.8 --set steps.dt=5e-4 --out results/stack_08
    rockfem sweep stack.toml --grid pairs.BRICK_1_BOTTOM.mu=0.5,0.7 --grid stages.shake.x.scale=0.5:1.5:5
    python -m cases.problem_file.cli run stack.toml          (the same as rockfem)

``run`` loads the file with its overrides (``--set KEY.PATH=VALUE``: a TOML value, list entries picked
by name or index, e.g. ``pairs.BRICK_1_BOTTOM.mu=0.6``, ``bodies.0.material="granite"``) and simulates it
(fem.problem.simulate) into ``--out`` (default ``[output] out``, else ``results/<file stem>``):
``summary.json``, ``report.md``, ``history.csv``, ``preload_history.csv``, ParaView series with
``[output] paraview = true``.

``sweep`` runs the file over a grid of its keys (``--grid KEY.PATH=v1,v2,...`` or ``start:stop:count``,
or ``--points FILE.csv`` whose header names the keys) on Dask workers, as cases/sweep.py does for a
case script (fem.studies.sweep): each point is its own process, ``rockfem run FILE --set KEY=VALUE ...
--out OUT/points/<name> --quiet``, and ``OUT/results.csv`` has a row a point. Before anything runs, the file
is loaded with each value of each key (up to 50 points) and assembled with the first point's: a wrong key
or value is refused on one line.

Exit codes, as every case (fem.run.lifecycle): 0 complete (a sweep: every point complete); 1 the run
failed (Newton, a singular system; a sweep: a point not complete), or a graded check missed under
``--strict``; 2 bad input, refused on one line before anything is written; 130 / 143 interrupted.
"""
from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from fem.io.results import use_series_format
from fem.problem import file as reader
from fem.problem.definition import load_mesh
from fem.problem.file import ContactCatalogue
from fem.problem.round_off import RoundOff
from fem.problem.simulate import simulate
from fem.run.lifecycle import (EXIT_FAILED, EXIT_OK, BadInput, CaseParser, add_run_flags, add_series_flag,
                               check_resources, execute)
from fem.studies import sweep
from fem.studies.round_off import ROUND_OFF_MAX
from fem.studies.study import run_study, study_points

#: grid points whose overrides are loaded to check them before a sweep runs (each value of each axis
#: at least once, up to this many files built)
CHECKED_POINTS = 50


def parser() -> CaseParser:
    p = CaseParser(prog="rockfem", description=__doc__.split("\n\n")[0],
                   epilog="rockfem COMMAND --help: the flags of a command.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=CaseParser)
    run = sub.add_parser("run", help="simulate a problem file", description=__doc__.split("\n\n")[2],
                         formatter_class=p.formatter_class)
    run.add_argument("file", type=Path, help="the problem file (TOML)")
    run.add_argument("--out", type=Path, default=None,
                     help="output folder (default: the file's [output] out, else results/<file stem>)")
    run.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE",
                     help="change a key of the file (a TOML value; list entries by name or index), repeatable")
    run.add_argument("--round-off", type=int, default=0, metavar="K",
                     help="after a complete run, 2K runs more with gravity moved by -K ... +K units in the last "
                          "place (no files of their own): per stated check the spread of its values and how many "
                          f"runs meet it, in summary.json (round_off) and report.md (K from 0 to {ROUND_OFF_MAX})")
    add_run_flags(run)
    add_series_flag(run)
    study = sub.add_parser("sweep", help="a parameter study of a problem file on Dask",
                           description=__doc__.split("\n\n")[3], formatter_class=p.formatter_class)
    study.add_argument("file", type=Path, help="the problem file (TOML)")
    study.add_argument("--grid", action="append", default=[], metavar="KEY.PATH=V1,V2,...",
                       help="an axis of the grid: a key of the file and its values (or start:stop:count)")
    study.add_argument("--points", type=Path, default=None, help="CSV of points: a header of keys, a row a point")
    study.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE",
                       help="change a key of the file for every point, repeatable")
    study.add_argument("--out", type=Path, default=None, help="output folder (default results/sweep_<file stem>)")
    sweep.add_cluster_flags(study)
    add_run_flags(study)
    return p


def overrides(items, flag: str = "--set") -> list[tuple[str, str, str]]:
    """``["pairs.0.mu=0.6"]`` -> ``[("pairs.0.mu", "0.6", "--set")]``; BadInput naming ``flag`` else."""
    found = []
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise BadInput(f"{flag} {item}: expected KEY.PATH=VALUE (e.g. {flag} pairs.0.mu=0.6)")
        found.append((key.strip(), value, flag))
    return found


@dataclass(frozen=True)
class Command:
    """The command as installed: ``contact``, the laws and masters a problem file's pairs may name (fem never
    imports the contact package: the caller hands them over, cases.problem_file.CONTACT); ``script``, the
    file that runs this command as a process (each point of a ``sweep`` runs ``python SCRIPT run FILE ...``)."""

    contact: ContactCatalogue
    script: Path

    def load(self, path, fixed) -> reader.ProblemFile:
        return reader.load(path, fixed, contact=self.contact)


def main(argv, command: Command) -> int:
    """``rockfem ARGS`` (exit codes: fem.run.lifecycle.execute)."""
    return execute(lambda args: _main(args, command), argv)


def _main(argv, command: Command) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    a = parser().parse_args(args)
    line = shlex.join(["rockfem", *args])
    return run(a, line, command) if a.command == "run" else study(a, line, command)


def run(a, line: str, command: Command) -> int:
    if isinstance(a.round_off, bool) or not 0 <= a.round_off <= ROUND_OFF_MAX:
        raise BadInput(f"--round-off {a.round_off}: K from 0 to {ROUND_OFF_MAX} (2K more runs)")
    fixed = overrides(a.overrides)
    pf = command.load(a.file, fixed)
    if a.round_off and pf.problem.gravity == 0:
        raise BadInput(f"--round-off {a.round_off}: the problem has no gravity to move (gravity = 0)")
    out = a.out if a.out is not None else pf.out
    if a.output_format is None:  # --output-format before the file's [output] format
        use_series_format(pf.output_format)
    with pf.refusals():
        mesh = load_mesh(pf.problem.mesh)  # read once: simulate takes the Mesh
    est = pf.estimate(mesh)
    check_resources(est, force=a.force, what=f"{a.file}",
                    remedy="a larger steps.dt, shorter stages, a coarser mesh")
    settings = dict(steps=pf.steps, alpha=pf.alpha, alpha_fine=pf.alpha_fine, theta=pf.theta, checks=pf.checks,
                    energy_creation=pf.energy_creation, collapse=pf.collapse)
    problem = replace(pf.problem, mesh=mesh)
    ensemble = RoundOff(problem, pf.stages, settings, a.round_off)
    with pf.refusals(out_given=a.out is not None):
        outcome = simulate(problem, pf.stages, out=out, paraview=pf.paraview, quiet=a.quiet,
                           case=a.file.stem, command=line, parameters=pf.data,
                           finish=ensemble if a.round_off else None, **settings)
    try:
        print("\n".join(outcome.lines() + ensemble.lines()), flush=True)
    except (OSError, ValueError):  # a closed stdout: the run's files say it all
        pass
    if ensemble.interrupted is not None:
        print(f"note: the run is complete; its round-off ensemble was interrupted after {ensemble.runs} of "
              f"{2 * a.round_off + 1} runs (summary.json)", file=sys.stderr, flush=True)
        raise ensemble.interrupted
    if outcome.status == "failed":
        print(f"error: the run failed: {outcome.message}; results up to t = {outcome.t_reached} s are in "
              f"{outcome.out} (status: failed)", file=sys.stderr, flush=True)
        return EXIT_FAILED
    return EXIT_OK


def check_points(file: Path, points, fixed, where: str, command: Command) -> None:
    """Load the file with each point's values as overrides (each value of each key at least once, up to
    :data:`CHECKED_POINTS` points) and assemble the first: a wrong key or value is refused before
    anything runs, naming where it was given."""
    first = command.load(file, [*fixed, *((k, v, where) for k, v in points[0].values)])
    first.assemble()
    seen, checked = set(points[0].values), 1
    for p in points[1:]:
        if checked >= CHECKED_POINTS:
            break
        if not set(p.values) <= seen:
            command.load(file, [*fixed, *((k, v, where) for k, v in p.values)])
            seen |= set(p.values)
            checked += 1


def study(a, line: str, command: Command) -> int:
    workers = sweep.local_workers(a)
    points, where = study_points(a, "KEY.PATH")
    fixed = overrides(a.overrides)
    for key in dict.fromkeys(k for p in points for k, _ in p.values):
        if key in {k for k, _, _ in fixed}:
            raise BadInput(f"{where} {key}: also given with --set: give it once")
    check_points(a.file, points, fixed, where, command)
    file = a.file.resolve()
    task = sweep.CaseCommand(str(command.script), (*(x for k, v, _ in fixed for x in ("--set", f"{k}={v}")),
                                           *(("--force",) if a.force else ())),
                             a.time_limit, leading=("run", str(file)), option="--set")
    parameters = {"file": str(file), "grid": a.grid, "points_file": a.points, "fixed": a.overrides,
                  "workers": a.workers, "scheduler": a.scheduler, "time_limit": a.time_limit, "force": a.force,
                  "points": len(points)}
    out = a.out if a.out is not None else Path("results") / f"sweep_{a.file.stem}"
    return run_study(a, points, task, out, workers, f"sweep_{a.file.stem}", line, parameters, f"{a.file.name}")

