"""The progress of a running sweep on stderr: a line for every finished point and, on a terminal,
a bar rewritten in place with the counts, the points running and waiting, and the time left
(:func:`time_left`). Re-exported by :mod:`fem.studies.sweep`."""
from __future__ import annotations

import sys
import threading
import time
from typing import Callable, Sequence, TextIO


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
    """Progress on ``stream``: a line for every finished point, and on a terminal a line rewritten
    in place: the counts of each status, the points running (those whose process has started and
    not ended, as the workers announce them: never more than ``parallelism``, the workers'
    threads), waiting, and the time left (:func:`time_left`, from the points finished in this
    session). ``clock`` [s] is the time it reads (a test gives its own)."""

    def __init__(self, total: int, stream: TextIO | None = None, quiet: bool = False, parallelism: int = 1,
                 clock: Callable[[], float] = time.monotonic):
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.quiet = quiet
        self.parallelism = max(1, int(parallelism))
        self.clock = clock
        self.walls: list[float] = []  # wall times [s] of the points finished in this session
        self._started: dict = {}  # point name -> clock when its start was announced
        self._lock = threading.Lock()

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

    def _write(self, text: str) -> None:
        if self.quiet:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def bar(self, counts: dict) -> str:
        finished = sum(counts.values())
        running = min(self.running(), self.total - finished)
        width = 24
        filled = int(width * finished / max(self.total, 1))
        parts = [f"{counts.get('complete', 0)} complete"]
        parts += [f"{n} {_STATUS_WORDS.get(s, s)}" for s, n in counts.items() if s != "complete" and n]
        parts += [f"{running} running", f"{max(self.total - finished - running, 0)} waiting"]
        text = f"sweep [{'#' * filled}{'.' * (width - filled)}] {finished}/{self.total}: {', '.join(parts)}"
        left = self.time_left(counts)
        if left is not None and finished < self.total:
            text += f", about {_duration(left)} left"
        return text

    def point(self, row: dict, counts: dict) -> None:
        """A point finished in this session: its line, and ``counts`` (the table's) on the bar."""
        if isinstance(row.get("wall_s"), (int, float)) and row["wall_s"] > 0:  # (a lost worker's row: 0 s)
            self.walls.append(float(row["wall_s"]))
        what = row["status"] + (f" ({row['message']})" if row.get("message") else "")
        line = f"[{sum(counts.values())}/{self.total}] {row['label']}: {what}, {row['wall_s']:.1f} s"
        self._write(("\r" + " " * 110 + "\r" if self.tty else "") + line + "\n")
        self.update(counts)

    def update(self, counts: dict) -> None:
        if self.tty:
            self._write("\r" + self.bar(counts)[:160].ljust(110))

    def close(self) -> None:
        if self.tty:
            self._write("\r" + " " * 110 + "\r")


_STATUS_WORDS = {"timeout": "timed out"}


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
