"""The progress of a running sweep on stderr: a line for every finished point and, on a terminal,
a bar redrawn in place (rich, :mod:`fem.io.terminal`) with the counts, the points running and
waiting, and the time left (:func:`time_left`); in a log file or a pipe, the same as a plain line
when no line was written for ``every`` seconds. Re-exported by :mod:`fem.studies.sweep`."""
from __future__ import annotations

import sys
import threading
import time
from typing import Callable, Sequence, TextIO

from fem.io import terminal


def time_left(walls: Sequence[float], remaining: int, parallelism: int,
              running_for: Sequence[float] = ()) -> float | None:
    """Seconds until a sweep ends: the mean wall time of the points finished (``walls`` [s]) times
    the ``remaining`` points (running and waiting), less what the running ones have run already
    (``running_for`` [s], each counted up to the mean), spread over ``parallelism`` workers (no more
    than there are points left). None before a point has finished. It decreases as time passes and
    as points finish, as long as they take about the mean."""
    if remaining <= 0:
        return 0.0
    if not walls:
        return None
    mean = sum(walls) / len(walls)
    work = mean * remaining - sum(min(max(t, 0.0), mean) for t in running_for)
    return max(work, 0.0) / max(1, min(parallelism, remaining))


class SweepProgress:
    """Progress on ``stream``: a line for every finished point, and the state of the sweep: the
    counts of each status, the points running (those whose process has started and not ended, as
    the workers announce them: never more than ``parallelism``, the workers' threads), waiting, and
    the time left (:func:`time_left`, from the points finished in this session). On a terminal that
    state is a bar redrawn in place (at most four times a second, at once when a count changes) and
    ended by :meth:`close`; elsewhere a plain line ``sweep 2/6: ...`` when nothing was written for
    ``every`` seconds. ``clock`` [s] is the time it reads (a test gives its own); ``width`` the
    terminal's, when None."""

    def __init__(self, total: int, stream: TextIO | None = None, quiet: bool = False, parallelism: int = 1,
                 clock: Callable[[], float] = time.monotonic, every: float = 20.0, width: int | None = None):
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.tty = terminal.interactive(self.stream)
        self.quiet = quiet
        self.parallelism = max(1, int(parallelism))
        self.clock = clock
        self.every = every
        self.walls: list[float] = []  # wall times [s] of the points finished in this session
        self._started: dict = {}  # point name -> clock when its start was announced
        self._lock = threading.Lock()
        self.last_line = clock()  # when a line was last written (not on a terminal)
        self._shown: tuple | None = None  # the bar drawn last: (clock, its numbers, its text)
        self.live = None
        if self.tty and not quiet:
            self.live = terminal.LiveLine(self.stream, ["sweep", terminal.bar_column(24),
                                                        terminal.text_column("{task.fields[state]}")],
                                          clock=clock, width=width)

    # the workers' announcements (fem.studies.sweep.run_point), on the Dask client's thread
    def event(self, event) -> None:
        """A Dask event ``(timestamp, {"point": name, "state": "started" | "ended"})``."""
        try:
            _, message = event
            name, state = message["point"], message["state"]
        except (TypeError, ValueError, KeyError):
            return
        if state == "started":
            self.started(name)
        elif state == "ended":
            self.ended(name)

    def started(self, name: str) -> None:
        with self._lock:
            self._started[name] = self.clock()

    def ended(self, name: str) -> None:
        with self._lock:
            self._started.pop(name, None)

    def running(self) -> int:
        with self._lock:
            return min(len(self._started), self.parallelism)

    def time_left(self, counts: dict) -> float | None:
        now = self.clock()
        with self._lock:
            running_for = sorted((now - t for t in self._started.values()), reverse=True)[:self.parallelism]
        return time_left(self.walls, self.total - sum(counts.values()), self.parallelism, running_for)

    def _numbers(self, counts: dict) -> tuple[int, int, int]:
        """(finished, running, waiting)."""
        finished = sum(counts.values())
        running = min(self.running(), self.total - finished)
        return finished, running, max(self.total - finished - running, 0)

    def text(self, counts: dict) -> str:
        """``2/6: 1 complete, 1 failed, 2 running, 2 waiting, about 11 s left``."""
        finished, running, waiting = self._numbers(counts)
        parts = [f"{counts.get('complete', 0)} complete"]
        parts += [f"{n} {_STATUS_WORDS.get(s, s)}" for s, n in counts.items() if s != "complete" and n]
        parts += [f"{running} running", f"{waiting} waiting"]
        text = f"{finished}/{self.total}: {', '.join(parts)}"
        left = self.time_left(counts)
        if left is not None and finished < self.total:
            text += f", about {terminal.duration(left)} left"
        return text

    def bar(self, counts: dict) -> str:
        """The state as a plain line: ``sweep 2/6: 1 complete, ...`` (what the bar shows beside it)."""
        return f"sweep {self.text(counts)}"

    def _task(self, counts: dict) -> dict:
        return {"total": max(self.total, 1), "completed": sum(counts.values()), "state": self.text(counts)}

    def point(self, row: dict, counts: dict) -> None:
        """A point finished in this session: its line, and ``counts`` (the table's) on the bar."""
        if isinstance(row.get("wall_s"), (int, float)) and row["wall_s"] > 0:  # (a lost worker's row: 0 s)
            self.walls.append(float(row["wall_s"]))
        if self.quiet:
            return
        what = row["status"] + (f" ({row['message']})" if row.get("message") else "")
        line = f"[{sum(counts.values())}/{self.total}] {row['label']}: {what}, {row['wall_s']:.1f} s"
        if self.live is not None:
            task = self._task(counts)
            self.live.print(line, **task)  # above the bar, redrawn with the new counts
            self._shown = (self.clock(), self._numbers(counts), task["state"])
        else:
            terminal.write_line(self.stream, line)
            self.last_line = self.clock()

    def update(self, counts: dict) -> None:
        """The state (the sweep's poll, a few times a second): on a terminal the bar, redrawn at once
        when a number changed, else when its text did, at most four times a second; elsewhere a line
        when none was written for ``every`` seconds."""
        if self.quiet:
            return
        now = self.clock()
        if self.live is None:
            if now - self.last_line >= self.every:
                terminal.write_line(self.stream, self.bar(counts))
                self.last_line = now
            return
        numbers, task = self._numbers(counts), self._task(counts)
        if self._shown is None or self._shown[1] != numbers or (now - self._shown[0] >= terminal.REFRESH
                                                                 and self._shown[2] != task["state"]):
            self.live.show(**task)
            self._shown = (now, numbers, task["state"])

    def close(self) -> None:
        """End the bar on a terminal (its last state stays, then a newline); nothing elsewhere. Twice is once."""
        if self.live is not None:
            self.live.close()


_STATUS_WORDS = {"timeout": "timed out"}
