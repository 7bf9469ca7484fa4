"""The command line of a study script: the flags it passes to every point (:func:`split_fixed`)
checked against the case's own (:func:`check_flags`, :func:`script_flags`, :func:`option_names`),
the cluster's flags (:func:`add_cluster_flags`, :func:`local_workers`), the study's resource
estimate (:func:`estimate`) and the line it prints when a point is not complete
(:func:`not_complete_line`). Re-exported by :mod:`fem.studies.sweep`."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from fem.run.lifecycle import BadInput, Estimate, finite
from fem.studies.cluster import cores
from fem.studies.results_table import SweepOutcome

#: a case process's own memory before its model [bytes] (peak RSS measured: sdnd101 113 MB,
#: shaking_table 155 MB): a LocalCluster of N workers needs N of them at once
POINT_BASELINE = 150e6


def estimate(points: int, workers: int) -> Estimate:
    """:class:`fem.run.lifecycle.Estimate` of a sweep: ``points`` (as its steps, bounded by
    :data:`fem.studies.points.MAX_POINTS`) and the memory of ``workers`` points at once plus the table (4 kB a row)."""
    return Estimate(0, 0, 0, points, int(workers * POINT_BASELINE + 4000 * points))


def script_flags(script: Path) -> set[str]:
    """The flags a case script accepts, read from its ``--help`` (names without ``--``)."""
    try:
        done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BadInput(f"{Path(script).name}: its --help did not answer ({err})") from None
    if done.returncode != 0:
        raise BadInput(f"{Path(script).name}: its --help failed ({(done.stderr.strip().splitlines() or ['?'])[-1]})")
    return {m[2:] for m in re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", done.stdout)}


def split_fixed(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """``[study flags] -- [flags given to every point]`` -> the two lists."""
    argv = list(argv)
    if "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def check_flags(script: Path, given: dict, reserved: Sequence[str]) -> None:
    """Refuse (:class:`fem.run.lifecycle.BadInput`) a flag ``script`` does not have, or one the study sets
    itself (``reserved``), or one given twice; ``given`` maps where the user gave flags
    (``"--grid"``, ``"after --"``) to their names (without ``--``)."""
    known = script_flags(script)
    seen: dict = {}
    for origin, names in given.items():
        for name in sorted(set(names)):
            if name in reserved:
                raise BadInput(f"{origin} --{name}: the study sets it itself")
            if name not in known:
                raise BadInput(f"{origin} --{name}: cases/{script.name} has no such flag "
                               f"(see python cases/{script.name} --help)")
            if name in seen:
                raise BadInput(f"--{name} is given both {seen[name]} and {origin}: give it once")
            seen[name] = origin


def option_names(flags: Sequence[str]) -> list[str]:
    """The names of the options in a list of arguments: ``["--t-end", "2", "--x=1"]`` -> ``["t-end", "x"]``."""
    return [f[2:].split("=")[0] for f in flags if f.startswith("--") and len(f) > 2]


def add_cluster_flags(parser, time_limit: float = 3600.0) -> None:
    """--workers, --scheduler, --time-limit: where the points run and for how long each may."""
    parser.add_argument("--workers", type=int, default=None, help="LocalCluster workers (default: one a core)")
    parser.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help="a running Dask scheduler to send the points to (instead of a LocalCluster)")
    parser.add_argument("--time-limit", type=finite, default=time_limit,
                        help=f"seconds a point may run before it is stopped (status timeout); default {time_limit:g}")


def local_workers(args) -> int:
    """Check --workers, --scheduler, --time-limit (:class:`fem.run.lifecycle.BadInput` naming the flag) and
    return the number of LocalCluster workers to start (0 with --scheduler)."""
    if args.workers is not None and args.workers < 1:
        raise BadInput(f"--workers must be >= 1, got {args.workers}")
    if args.workers is not None and args.scheduler is not None:
        raise BadInput("--workers starts a LocalCluster: not with --scheduler (the scheduler has its workers)")
    if args.scheduler is not None and "://" not in args.scheduler:
        raise BadInput(f"--scheduler {args.scheduler}: expected an address like tcp://HOST:PORT")
    if not args.time_limit > 0:
        raise BadInput(f"--time-limit must be > 0 s, got {args.time_limit:g}")
    return 0 if args.scheduler else (args.workers or cores())


def not_complete_line(outcome: SweepOutcome) -> str | None:
    """The line a sweep prints on stderr, even when quiet, when a point is not complete:
    ``sweep: 3 points: 0 complete, 3 failed (OUT/results.csv)``; None when every point is."""
    if outcome.complete == outcome.total:
        return None
    return f"sweep: {outcome.describe()} ({outcome.table})"
