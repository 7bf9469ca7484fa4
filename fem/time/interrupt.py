"""Clean interruption of a run by SIGINT (Ctrl-C) or SIGTERM.

While :func:`catch_signals` is active, SIGINT and SIGTERM raise :class:`Interrupted` in the main
thread where the program stands. Python runs signal handlers between two bytecodes, so a history
line (one ``write`` + ``flush``) or an atomically replaced file (``os.replace``) is on disk whole or
not at all: the caller catches :class:`Interrupted`, writes what it has computed up to the last
converged step, and exits with :attr:`Interrupted.exit_code` = 128 + signal number (130 for SIGINT,
143 for SIGTERM), the shell's convention for a process ended by a signal.

A signal arriving while that final writing goes on raises again: pressing Ctrl-C twice stops at once.
Code running in C (a gmsh meshing call, a sparse factorization) sees the signal when it returns.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """A run stopped by a signal. Derives from BaseException so that ``except Exception`` in
    library code never swallows it."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        super().__init__(f"interrupted by {self.name}")

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


_held = {"depth": 0, "pending": None}  # signals arriving inside held(): raised when it ends


def _raise(signum, _frame) -> None:
    if _held["depth"]:
        if _held["pending"] is None:
            _held["pending"] = signum
        return
    raise Interrupted(signum)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A signal arriving inside the block is raised (as :class:`Interrupted`) when the block ends,
    so that what the block does happens whole: a step recorded by the caller and announced as
    reached (fem.time.progress.deliver). Keep such blocks short."""
    _held["depth"] += 1
    try:
        yield
    finally:
        _held["depth"] -= 1
        if not _held["depth"] and _held["pending"] is not None:
            signum, _held["pending"] = _held["pending"], None
            raise Interrupted(signum)


@contextlib.contextmanager
def catch_signals() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into :class:`Interrupted` inside the block (main thread only; in
    another thread the block runs unchanged). The previous handlers are restored on exit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise) for s in SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
