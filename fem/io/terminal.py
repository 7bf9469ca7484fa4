"""Progress on a terminal: one line redrawn in place with rich (:class:`LiveLine`), used by a run's
progress line (:class:`fem.run.lifecycle.ProgressLine`) and a sweep's (:class:`fem.studies.progress.SweepProgress`).

Only a terminal gets it (:func:`interactive`): a log file, a pipe or CI get plain lines, written by
those classes themselves, without a control character. The display refreshes only when its owner
asks (rich's ``auto_refresh`` is off): no thread of its own, nothing between two of the owner's calls,
so a signal (fem.time.interrupt) finds the program where it would without it. It does not hide the
cursor (a run killed outright leaves the terminal as it found it) and never replaces sys.stdout or
sys.stderr. A stream that fails (closed, a broken pipe) turns it off, silently: progress must not
stop a run.
"""
from __future__ import annotations

import os
from typing import Callable, Sequence, TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, TextColumn
from rich.table import Column

#: the least interval between two refreshes of a line on a terminal [s] (four a second)
REFRESH = 0.25


def interactive(stream) -> bool:
    """Whether ``stream`` is a terminal that can redraw a line (a tty, TERM neither dumb nor unknown)."""
    try:
        tty = bool(getattr(stream, "isatty", lambda: False)())
    except (OSError, ValueError):  # a closed stream
        return False
    return tty and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


def duration(seconds: float) -> str:
    """A time left as a person reads it: 42 s, 12 min, 1.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def write_line(stream: TextIO, text: str) -> None:
    """``text`` and a newline on ``stream``, flushed; nothing if the stream fails (closed, broken pipe)."""
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def text_column(template: str) -> TextColumn:
    """A column of plain text (no markup, no highlighting: a '[' in a label stays text) that never wraps."""
    return TextColumn(template, markup=False, table_column=Column(no_wrap=True, overflow="ellipsis"))


def bar_column(width: int) -> BarColumn:
    """A bar of ``width`` characters, narrower (to nothing) where the line would not fit the terminal
    otherwise: the text columns keep their room first."""
    return BarColumn(bar_width=None, table_column=Column(max_width=width))


def spinner_column() -> SpinnerColumn:
    """A spinner (for a run without an end time), turning at each redraw."""
    return SpinnerColumn()


class _Console(Console):
    """rich's Console, but the cursor stays visible: a process killed outright (SIGKILL) cannot
    leave it hidden."""

    def show_cursor(self, show: bool = True) -> bool:
        return False


class LiveLine:
    """One line of ``columns`` (rich progress columns) for a single task, drawn on the terminal
    ``stream`` at the first :meth:`show` and redrawn in place at each other (the owner decides how
    often); :meth:`print` writes a line above it; :meth:`close` draws it a last time and ends it with
    a newline. ``width`` [characters]: the terminal's own when None. ``clock`` [s]: the time rich
    reads (a spinner's frame)."""

    def __init__(self, stream: TextIO, columns: Sequence[ProgressColumn | str], clock: Callable[[], float],
                 width: int | None = None):
        self.console = _Console(file=stream, force_terminal=True, force_interactive=True, width=width,
                                highlight=False)
        self.progress = Progress(*columns, console=self.console, auto_refresh=False, transient=False,
                                 redirect_stdout=False, redirect_stderr=False, get_time=clock)
        self.task = None
        self.started = self.closed = self.broken = False

    def _set(self, task: dict) -> None:
        if self.task is None:
            fields = {k: v for k, v in task.items() if k not in ("description", "total", "completed")}
            self.task = self.progress.add_task(task.get("description", ""), total=task.get("total"),
                                               completed=task.get("completed", 0), **fields)
        elif task:
            self.progress.update(self.task, **task)

    def show(self, **task) -> None:
        """Set the task's ``description``, ``total``, ``completed`` and fields (keywords) and draw the
        line (the first call starts the display)."""
        if self.closed or self.broken:
            return
        try:
            self._set(task)
            if self.started:
                self.progress.refresh()
            else:
                self.started = True
                self.progress.start()  # draws it
        except (OSError, ValueError):  # the terminal went away: no more progress, the run goes on
            self.broken = True

    def print(self, text: str, **task) -> None:
        """``text`` on a line of its own above the live line, then the line drawn below it with
        ``task``'s values (:meth:`show`)."""
        if self.closed or self.broken:
            return
        try:
            self._set(task)
            if self.started:
                self.progress.refresh()  # the live line as it is now, redrawn below the text
                self.console.print(text, markup=False, highlight=False, soft_wrap=True)
            else:
                self.console.print(text, markup=False, highlight=False, soft_wrap=True)
                self.started = True
                self.progress.start()
        except (OSError, ValueError):
            self.broken = True

    def close(self, **task) -> None:
        """Draw the line a last time (with ``task``'s values, if given) and end it: the display is
        stopped (nothing is written after). Nothing if it never started; twice is once."""
        if self.closed:
            return
        self.closed = True
        if not self.started:
            return
        try:
            if task and self.task is not None and not self.broken:
                self.progress.update(self.task, **task)
            self.progress.stop()
        except (OSError, ValueError):
            self.broken = True
