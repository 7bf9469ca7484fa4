"""A sweep on Dask: the cluster (:func:`check_scheduler`, :func:`connect`: a LocalCluster of
single-threaded workers or a running scheduler; :func:`threads`, :func:`dashboard`, :func:`cores`),
and the client's side of a sweep (:func:`run_sweep`: the points submitted, their rows gathered into
the results table as they finish, a signal stopping it; :func:`sweep_on_cluster`: connect, run,
close). Re-exported by :mod:`fem.studies.sweep`."""
from __future__ import annotations

import contextlib
import logging
import os
import queue
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from fem.run.lifecycle import BadInput
from fem.studies.points import Point
from fem.studies.progress import SweepProgress
from fem.studies.results_table import RESULTS, ROW_STATUSES, ResultsTable, SweepOutcome
from fem.studies.tasks import (STOP_GRACE, TOPIC, current_record, reusable, run_point, running_marker, task_row,
                               write_stop_file)
from fem.time.interrupt import Interrupted, held

#: seconds to reach a scheduler (and for it to answer) before --scheduler is refused
CONNECT_TIMEOUT = 10.0


@contextlib.contextmanager
def _silent_logs():
    """No log record at all inside the block (Dask's loggers and asyncio's would print the
    failed connection's details on stderr: the refusal is one line)."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(previous)


def check_scheduler(address: str | None, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse (:class:`fem.run.lifecycle.BadInput`, one line naming ``--scheduler`` and the address) a
    scheduler that cannot be reached, does not answer, or is not a Dask scheduler, within
    ``timeout`` seconds: connection, handshake and one request, bounded as a whole (a host that
    accepts and never answers does not hang the sweep). Nothing is left behind (no Dask client
    half made) and nothing is logged. None: no scheduler to check."""
    if address is None:
        return
    import asyncio

    from distributed.comm import connect as dask_connect

    async def ask() -> object:
        comm = await dask_connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    bound = timeout + 2.0  # the whole exchange; past the connection's own timeout, so that it reports first

    async def bounded() -> object:
        return await asyncio.wait_for(ask(), bound)

    with _silent_logs():
        try:
            answer = asyncio.run(bounded())
        except (asyncio.TimeoutError, TimeoutError):
            raise BadInput(f"--scheduler {address}: no answer within {bound:g} s") from None
        except OSError as err:
            raise BadInput(f"--scheduler {address}: cannot connect within {timeout:g} s{_reason(err)}") from None
        except Exception as err:  # noqa: BLE001 (garbage read as a message: MemoryError, ValueError ...)
            raise BadInput(f"--scheduler {address}: what answers there is not a Dask scheduler "
                           f"({type(err).__name__})") from None
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        kind = answer.get("type") if isinstance(answer, dict) else type(answer).__name__
        raise BadInput(f"--scheduler {address}: what answers there is not a Dask scheduler (a {kind})")


def _reason(err: BaseException) -> str:
    """`` (Connection refused)``: the system's reason in the causes of ``err`` (Dask wraps it), or
    nothing (the last attempt timed out)."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, OSError) and err.strerror:
            return f" ({err.strerror})"
        err = err.__cause__ or err.__context__
    return ""


def connect(scheduler: str | None = None, workers: int | None = None):
    """A Dask client: to the scheduler at ``scheduler`` (``tcp://HOST:PORT``, checked first by
    :func:`check_scheduler`), or to a new LocalCluster of ``workers`` (default: the cores)
    single-threaded workers. Returns ``(client, cluster)``, cluster None for an outside scheduler;
    :class:`fem.run.lifecycle.BadInput` naming ``--scheduler`` if it cannot be reached in
    :data:`CONNECT_TIMEOUT` seconds."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        check_scheduler(scheduler)
        with _silent_logs():
            try:
                return Client(scheduler, timeout=f"{CONNECT_TIMEOUT}s", set_as_default=False), None
            except Exception as err:  # noqa: BLE001 (gone since the check)
                raise BadInput(f"--scheduler {scheduler}: cannot connect ({type(err).__name__}: {err})") from None
    cluster = LocalCluster(n_workers=workers or cores(), threads_per_worker=1, processes=False,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster, set_as_default=False), cluster


def threads(client) -> int:
    """The worker threads of ``client``'s cluster (1 if it cannot tell)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # noqa: BLE001
        return 1


def dashboard(client) -> str | None:
    """The scheduler's dashboard address, when it serves one (Dask serves it only where bokeh is
    installed; without it the address answers with a page saying so: None then)."""
    from urllib.request import urlopen

    try:
        link = client.dashboard_link
        with urlopen(link, timeout=2.0) as answer:  # without bokeh: a page saying it is needed
            served = answer.status == 200 and b"needs bokeh" not in answer.read(4096)
        return link if served else None
    except Exception:  # noqa: BLE001 (no address, nothing listening, not found: no dashboard to give)
        return None


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def run_sweep(points: Sequence[Point], task, out: Path, client, *, progress: SweepProgress | None = None,
              poll: float = 0.2) -> SweepOutcome:
    """Run every point of ``points`` not already complete in ``out`` with ``task`` on ``client``'s
    workers; a row into ``out/results.csv`` as each finishes (fem.studies.sweep's docstring). A signal
    (:class:`fem.time.interrupt.Interrupted`) stops the sweep (:func:`_stop`): the points finished
    meanwhile are rows, the running ones are told to stop (their rows say ``interrupted``), the
    waiting ones are not run; the table is written, and the signal raised again with the counts as
    its ``outcome`` attribute."""
    out = Path(out)
    folders = {p.index: out / "points" / p.name for p in points}
    names = [p.name for p in points]
    if len(set(names)) != len(names):
        raise BadInput("two points share a folder name: give distinct values")
    flags = tuple(dict.fromkeys(k for p in points for k, _ in p.values))
    table = ResultsTable(out / RESULTS, flags)
    todo = []
    for p in points:
        record = reusable(task, p, folders[p.index])
        if record is not None:
            table.add(p, record, folders[p.index])
        else:
            todo.append(p)
    reused = len(points) - len(todo)
    table.write()
    progress = progress or SweepProgress(len(points))
    progress.parallelism = threads(client)  # the most points that can run at once
    session = uuid.uuid4().hex[:8]
    stop_file = out / f".stop-{session}"
    sweep = _Sweep(table, task, folders, progress, session)
    client.subscribe_topic(TOPIC + session, progress.event)
    try:
        for p in todo:  # in grid order
            future = client.submit(run_point, task, p, str(folders[p.index]), str(stop_file), session,
                                   key=f"{p.name}-{session}", pure=False, priority=len(points) - p.index)
            sweep.pending[future] = p
            sweep.submitted.append(p)
            future.add_done_callback(sweep.finished.put)
        next_threads = progress.clock() + 5.0
        while sweep.pending:
            try:
                future = sweep.finished.get(timeout=poll)
            except queue.Empty:
                if progress.clock() > next_threads:  # workers may come and go (a scheduler's)
                    progress.parallelism, next_threads = threads(client), progress.clock() + 5.0
                progress.update(table.counts())
                continue
            sweep.collect(future)
            sweep.collect_finished()
            with held():
                table.write()
    except Interrupted as stop:
        try:
            _stop(sweep, stop, stop_file, client)
        except Interrupted:  # yet another signal: the table is written all the same (_stop), stop now
            pass
        stop.outcome = SweepOutcome.of(len(points), table.counts(), reused, table.path)
        raise
    finally:
        progress.close()  # the bar ended on a terminal, whatever ended the sweep
        stop_file.unlink(missing_ok=True)
        try:
            client.unsubscribe_topic(TOPIC + session)
        except Exception:  # noqa: BLE001 (a client already closing)
            pass
    return SweepOutcome.of(len(points), table.counts(), reused, table.path)


class _Sweep:
    """The client's side of a running sweep: the futures not yet collected, and how a finished
    one becomes a row."""

    def __init__(self, table: ResultsTable, task, folders: dict, progress: SweepProgress, session: str):
        self.table, self.task, self.folders, self.progress, self.session = table, task, folders, progress, session
        self.pending: dict = {}  # future -> point
        self.submitted: list[Point] = []
        self.finished: queue.Queue = queue.Queue()  # futures done (their callbacks put them here)

    def collect(self, future) -> None:
        """The row of a finished future (a signal meanwhile waits until the row is in the table)."""
        from distributed import CancelledError

        point = self.pending.get(future)
        if point is None:
            return
        try:  # the record comes from the worker: a signal meanwhile leaves the future pending
            record = future.result()
        except CancelledError:
            record = None
        except Exception as err:  # noqa: BLE001 (a worker lost too often: KilledWorker, ...)
            record = {"point": point.name, **task_row("failed", f"{type(err).__name__}: {err}", None, 0.0)}
        with held():
            self.pending.pop(future, None)
            future.release()  # at once: a finished point held on a worker that dies would be run again
            if record is None:  # cancelled: its record, if it ran all the same
                record = self.session_record(point)
            else:
                self.progress.ended(point.name)
            if record is None or record.get("status") not in ROW_STATUSES:  # not run: no row
                return
            row = self.table.add(point, record, self.folders[point.index])
        self.progress.point({**row, "label": point.label() or point.name}, self.table.counts())

    def collect_finished(self) -> None:
        """Every future already done, without waiting."""
        while True:
            try:
                future = self.finished.get_nowait()
            except queue.Empty:
                return
            self.collect(future)

    def session_record(self, point: Point) -> dict | None:
        """``point``'s record if this sweep wrote it (its point.json, same identity and session)."""
        record = current_record(self.task, point, self.folders[point.index])
        return record if record is not None and record.get("session") == self.session else None


def _stop(sweep: _Sweep, stop: Interrupted, stop_file: Path, client) -> None:
    """Stop a sweep on ``stop``: the rows of the points finished meanwhile first; then the running
    points are told to stop with the same signal (``stop_file``), the points not begun (no
    :func:`running_marker`) are cancelled, and the rows of the others are collected for up to
    ``STOP_GRACE`` + 5 s (a second signal stops waiting); a point whose row did not arrive but whose
    ``point.json`` this sweep wrote is a row all the same. The table is written last, whatever
    happens before."""
    try:
        try:
            sweep.collect_finished()
            for future in [f for f in sweep.pending if f.done()]:
                sweep.collect(future)
            write_stop_file(stop_file, stop.name)
            # then the markers: a point without one has not begun, and will see the stop file if it does
            waiting = [f for f, p in sweep.pending.items()
                       if not running_marker(sweep.folders[p.index], sweep.session).exists()]
            try:
                client.cancel(waiting)
            except Exception:  # noqa: BLE001 (no answer: the points not started see the stop file)
                pass
            deadline = time.monotonic() + STOP_GRACE + 5.0
            while sweep.pending and time.monotonic() < deadline:
                try:
                    sweep.collect(sweep.finished.get(timeout=0.1))
                except queue.Empty:
                    pass
        except Interrupted:  # a second signal: stop waiting
            pass
        sweep.pending.clear()
        for point in sweep.submitted:  # rows that did not arrive: the records this sweep wrote
            if point.index not in sweep.table.rows:
                record = sweep.session_record(point)
                if record is not None and record.get("status") in ROW_STATUSES:
                    sweep.table.add(point, record, sweep.folders[point.index])
    finally:
        sweep.table.write()


def sweep_on_cluster(points: Sequence[Point], task, out: Path, scheduler: str | None, workers: int,
                     quiet: bool, what: str) -> SweepOutcome:
    """Connect (:func:`connect`), say where the points of ``what`` run and the dashboard's address,
    :func:`run_sweep`, close. The outcome (also that of an interruption, on the exception) says
    where they ran."""
    where, link = scheduler or "a LocalCluster", None
    try:
        client, cluster = connect(scheduler, workers or None)
    except Interrupted as stop:  # before any point was sent: none run
        stop.outcome = SweepOutcome.of(len(points), {}, 0, Path(out) / RESULTS, where=where)
        raise
    try:
        where = scheduler or f"a LocalCluster of {len(client.scheduler_info()['workers'])} workers"
        link = dashboard(client)
        if not quiet:
            print(f"sweep: {len(points)} points of {what} on {where}", file=sys.stderr)
            print(f"sweep: Dask dashboard at {link}" if link else
                  "sweep: no Dask dashboard (it needs bokeh on the scheduler's machine: pip install bokeh)",
                  file=sys.stderr)
        outcome = run_sweep(points, task, out, client, progress=SweepProgress(len(points), quiet=quiet))
        return replace(outcome, where=where, dashboard=link)
    except Interrupted as stop:  # (also one that came before run_sweep began: no point run)
        outcome = getattr(stop, "outcome", None) or SweepOutcome.of(len(points), {}, 0, Path(out) / RESULTS)
        stop.outcome = replace(outcome, where=where, dashboard=link)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
