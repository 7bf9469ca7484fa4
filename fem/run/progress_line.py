"""The progress of a run on stderr (:class:`ProgressLine`): it listens to the steps the time loops
announce (:mod:`fem.time.progress`); :class:`fem.run.lifecycle.Run` starts and closes it (``--quiet``:
none). On a terminal a line redrawn in place (rich, :mod:`fem.io.terminal`), in a log file or a pipe
a plain line every 20 s."""
from __future__ import annotations

import collections
import sys
import time
from typing import Callable

from fem.io import terminal

#: the simulated-time rate (hence the time left) is that of the last WINDOW seconds [s]
WINDOW = 10.0


class ProgressLine:
    """Progress of a run on stderr: case, phase, simulated time reached, steps, steps per second,
    time left (a range, from the slowest and fastest simulated-time rates of ten-second windows). Silent for the first
    ``delay`` seconds; on a terminal one line redrawn in place at most four times a second (rich: a
    bar of the time reached out of ``t_end``, a spinner without one; :mod:`fem.io.terminal`), ended
    by :meth:`close`; otherwise (a log file, a pipe) a plain line every ``every`` seconds. ``clock``
    [s] is the time it reads (a test gives its own); ``width`` the terminal's, when None."""

    def __init__(self, label: str, t_end: float | None, stream=None, delay: float = 2.0, every: float = 20.0,
                 clock: Callable[[], float] = time.monotonic, width: int | None = None):
        self.label, self.t_end = label, t_end
        self.stream = sys.stderr if stream is None else stream
        self.tty = terminal.interactive(self.stream)
        self.delay, self.every = delay, (terminal.REFRESH if self.tty else every)
        self.clock = clock
        self.start = self.last_print = self.last_sample = clock()
        self.steps = 0
        self.phase, self.t, self.at = "", 0.0, self.start  # the last step announced, and when
        self.samples: collections.deque[tuple[float, float]] = collections.deque()  # (clock, t) of the WINDOW
        self.slowest = self.fastest = None  # extremes of the WINDOW's rate over the phase [s simulated / s]
        self.printed = False
        self.live = None
        if self.tty:
            self.live = terminal.LiveLine(self.stream, [
                terminal.text_column("{task.description}"),
                terminal.spinner_column() if t_end is None else terminal.bar_column(20),
                terminal.text_column("{task.fields[state]}")], clock=clock, width=width)

    def __call__(self, phase: str, t: float) -> None:
        self.steps += 1
        now = self.clock()
        if phase != self.phase:  # another phase, another pace (a preload's static steps, then the motion)
            self.samples.clear()
            self.slowest = self.fastest = None
        self.phase, self.t, self.at = phase, t, now
        due = now - self.start >= self.delay and now - self.last_print >= self.every
        if due or now - self.last_sample >= 0.5:  # the rate's samples: two a second, and at each line
            self.last_sample = now
            self.samples.append((now, t))
            while now - self.samples[0][0] > WINDOW:
                self.samples.popleft()
            self._extremes(now)
        if not due:
            return
        self.last_print = now
        if self.live is not None:
            self.live.show(**self._task(now, left=True))
            self.printed = self.live.started
        else:
            terminal.write_line(self.stream, self.line(now))
            self.printed = True

    def _rate(self, now: float) -> str:
        elapsed = now - self.start
        return f"{self.steps} steps, {self.steps / elapsed if elapsed > 0 else 0.0:.0f} steps/s"

    def _window_rate(self, now: float) -> float | None:
        """The simulated time per second over the last WINDOW seconds (None before it moves)."""
        if not self.samples:
            return None
        w0, t0 = self.samples[0]
        return (self.t - t0) / (now - w0) if now > w0 and self.t > t0 else None

    def _extremes(self, now: float) -> None:
        """Keep the slowest and fastest WINDOW rates of the phase, once a window is full (a run's first
        seconds, numba loading its kernels, are no pace of the run)."""
        rate = self._window_rate(now)
        if rate is None or now - self.samples[0][0] < 0.9 * WINDOW:
            return
        self.slowest = rate if self.slowest is None else min(self.slowest, rate)
        self.fastest = rate if self.fastest is None else max(self.fastest, rate)

    def _left(self, now: float) -> str:
        """", about N s left", or ", about A to B left": the time simulated still to go over the fastest
        and the slowest pace of the last WINDOW seconds seen in this phase (an event-driven run steps
        finely around its impacts, coarsely between: its pace changes tenfold, the range holds both);
        the current window's alone before a window has filled ("" without one)."""
        if self.t_end is None:
            return ""
        rate = self._window_rate(now)
        fast = max(x for x in (rate, self.fastest) if x is not None) if rate or self.fastest else None
        slow = min(x for x in (rate, self.slowest) if x is not None) if rate or self.slowest else None
        if not fast or not slow:
            return ""
        remaining = max(self.t_end - self.t, 0.0)
        low, high = terminal.duration(remaining / fast), terminal.duration(remaining / slow)
        return f", about {low} left" if low == high else f", about {low} to {high} left"

    def _time(self) -> str:
        return f"t = {self.t:.6g} s" + ("" if self.t_end is None else f" of {self.t_end:g} s")

    def line(self, now: float) -> str:
        """The plain line: ``sdnv105a: release, t = 0.5 s of 1 s, 5 steps, 1200 steps/s, about 1 s left``."""
        return f"{self.label}: {self.phase}, {self._time()}, {self._rate(now)}{self._left(now)}"

    def _task(self, now: float, left: bool) -> dict:
        """The terminal line's values: ``case: phase``, the bar (t of t_end), the rest as text."""
        return {"description": f"{self.label}: {self.phase}", "total": self.t_end,
                "completed": min(self.t, self.t_end) if self.t_end is not None else self.t,
                "state": f"{self._time()}, {self._rate(now)}{self._left(now) if left else ''}"}

    def close(self) -> None:
        """End the terminal line (drawn a last time, at the last step announced, then a newline); nothing
        if it was never drawn. On a log file every line is already ended."""
        if self.live is not None:
            self.live.close(**(self._task(self.at, left=False) if self.steps else {}))
