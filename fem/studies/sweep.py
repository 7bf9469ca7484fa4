"""Parameter studies: one case run over many values of its flags, each point on a Dask worker, the
results gathered in one table as the points finish.

The pieces, from the grid to the table:

* :class:`Point`: one set of flag values (``mu=0.6``, ``dt=1e-3``), in a folder of its own
  ``OUT/points/<name>``; :func:`grid` is the Cartesian product of axes (``--grid mu=0.3,0.6``,
  ``--grid amplitude-g=0.4:1.2:5`` for five values from 0.4 to 1.2), :func:`read_points` a CSV
  whose header names the flags and whose rows are the points. Their number is checked against
  :func:`point_limit` before any point is built: an axis's count, then the product of the axes'
  lengths (``v0=0:1:1000000000`` is refused at once, :class:`TooManyPoints`).
* A **task**: what runs a point on a worker. :class:`CaseCommand` runs a case script as its own
  process (``python cases/<case>.py <point's flags> <fixed flags> --out <folder> --quiet``), so a
  point that crashes or hangs takes nothing else down: ``time_limit`` [s] sends it SIGINT (it then
  writes ``status: interrupted`` and keeps its files), SIGKILL ``grace`` seconds later. A task may
  be any picklable callable ``task(point, folder, stop_file) -> row`` with ``task.identity(point)``
  (what makes a finished point reusable: the command line for a case).
* :func:`run_point`, on the worker: announces the point's start and end (Dask events: the progress
  counts the points running from them), runs the task, then writes the row to
  ``<folder>/point.json`` (atomically). That file is the point's record: a rerun of the sweep reuses
  every point whose ``point.json`` says ``complete`` for the same identity, and runs the others
  again (an interrupted point from its start: a case does not resume).
* :func:`run_sweep`, on the client: submits the points not yet complete, adds each point's row to
  ``OUT/results.csv`` as its future completes (rewritten atomically, sorted as the grid), and shows
  progress; the caller keeps the sweep's own record (``summary.json``, fem.run.lifecycle). A point that fails
  is a row with ``status: failed`` and its message; a point whose worker dies is run again on
  another worker by Dask (up to ``distributed.scheduler.allowed-failures`` times, then it is a
  failed row). A signal (SIGINT, SIGTERM) stops the sweep: the rows of the points finished
  meanwhile first, then the running points are sent the same signal (rows ``interrupted``, exit code
  130 / 143), the points not started are not run (no row; counted ``not run``), and the table is
  written before the signal is raised again.
* :func:`check_scheduler` and :func:`connect`: a LocalCluster with one single-threaded worker per
  core (the tasks wait on processes, so the workers are threads of this process), or a running
  scheduler (``tcp://HOST:PORT``, refused on one line if it does not answer as a Dask scheduler
  within :data:`CONNECT_TIMEOUT` seconds; workers elsewhere must see the same output folder, a
  shared file system, and have this package installed).

A row: ``point``, the point's flags (their names without ``--``), ``status`` (``complete``,
``failed``, ``timeout``, ``interrupted``), ``message``, ``exit_code`` (128 + N for a process ended by
signal N), ``wall_s`` (the point's own wall time [s]), ``folder``, then the figures of the point's
``summary.json`` (:func:`summary_figures`).

The modules, each re-exported here (``from fem.studies import sweep``, then ``sweep.X``):

* :mod:`fem.studies.points`: :class:`Point`, :func:`parse_values`, :func:`parse_axis`, :func:`grid`,
  :func:`read_points`, :func:`point_limit`, :class:`TooManyPoints`;
* :mod:`fem.studies.tasks`: :class:`CaseCommand`, :func:`supervise`, the stop file, :func:`run_point`
  and the point's record (``point.json``);
* :mod:`fem.studies.results_table`: :func:`summary_figures`, :class:`ResultsTable`, :func:`write_csv`,
  :func:`read_results`, :class:`SweepOutcome`;
* :mod:`fem.studies.progress`: :class:`SweepProgress`, :func:`time_left`;
* :mod:`fem.studies.cluster`: :func:`check_scheduler`, :func:`connect`, :func:`run_sweep`,
  :func:`sweep_on_cluster`;
* :mod:`fem.studies.command_line`: the flags of a study script (:func:`split_fixed`,
  :func:`check_flags`, :func:`add_cluster_flags`, :func:`local_workers`), :func:`estimate`,
  :func:`not_complete_line`.
"""
from __future__ import annotations

from fem.studies.cluster import (CONNECT_TIMEOUT, check_scheduler, connect, cores, dashboard, run_sweep,
                                 sweep_on_cluster, threads)
from fem.studies.command_line import (POINT_BASELINE, add_cluster_flags, check_flags, estimate, local_workers,
                                      not_complete_line, option_names, script_flags, split_fixed)
from fem.studies.points import (MAX_POINTS, POINT_BOOKKEEPING, Point, TooManyPoints, grid, parse_axis, parse_values,
                                point_limit, read_points)
from fem.studies.progress import SweepProgress, time_left
from fem.studies.results_table import (LEADING, MAX_DEPTH, MAX_LIST, RESULTS, ROW_STATUSES, SKIPPED_KEYS, TRAILING,
                                       ResultsTable, SweepOutcome, read_results, summary_figures, write_csv)
from fem.studies.tasks import (NOT_RUN, POINT_RECORD, STOP_GRACE, TOPIC, CaseCommand, current_record, exit_code,
                               point_record, reusable, run_point, running_marker, supervise, task_row,
                               write_stop_file)

__all__ = [
    # points and grids
    "MAX_POINTS", "POINT_BOOKKEEPING", "Point", "TooManyPoints", "grid", "parse_axis", "parse_values", "point_limit",
    "read_points",
    # a point run as a process, its record
    "NOT_RUN", "POINT_RECORD", "STOP_GRACE", "TOPIC", "CaseCommand", "current_record", "exit_code", "point_record",
    "reusable", "run_point", "running_marker", "supervise", "task_row", "write_stop_file",
    # the results table, the outcome
    "LEADING", "MAX_DEPTH", "MAX_LIST", "RESULTS", "ROW_STATUSES", "SKIPPED_KEYS", "TRAILING", "ResultsTable",
    "SweepOutcome", "read_results", "summary_figures", "write_csv",
    # progress
    "SweepProgress", "time_left",
    # Dask
    "CONNECT_TIMEOUT", "check_scheduler", "connect", "cores", "dashboard", "run_sweep", "sweep_on_cluster", "threads",
    # the command line of a study script
    "POINT_BASELINE", "add_cluster_flags", "check_flags", "estimate", "local_workers", "not_complete_line",
    "option_names", "script_flags", "split_fixed",
]
