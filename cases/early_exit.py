"""Ctrl-C while a case script is still loading: exit 128 + signal number, one line, no traceback.

Every case script imports this first, under ``if __name__ == "__main__":``, before numpy, scipy and
gmsh load (a second or two in which Python would otherwise print a KeyboardInterrupt traceback).
Nothing is written yet then. :func:`fem.time.interrupt.catch_signals` takes over while a run goes on and
gives these handlers back when it ends. No import of the package here: a bare checkout loads it too.
"""
import os
import signal
import sys


def _exit(signum, _frame) -> None:
    try:
        sys.stderr.write(f"interrupted by {signal.Signals(signum).name}\n")
        sys.stderr.flush()
    finally:
        os._exit(128 + signum)


for _signal in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_signal, _exit)
