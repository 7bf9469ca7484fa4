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


def _raise(signum, _frame) -> None:
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
