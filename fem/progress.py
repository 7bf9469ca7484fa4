"""Step notifications: the time loops announce each converged step to whoever listens.

The integrators (:mod:`fem.dynamics`, :mod:`fem.theta`, :mod:`fem.explicit`) call :func:`step`
for every converged step once the caller has taken it from the generator and asks for the next
one, i.e. after the caller has recorded it: the last time announced (a run's ``t_reached``) is
always on disk. A run's progress line (:class:`fem.run.ProgressLine`) listens. The
library itself never prints. Imports nothing from the package, so every module can use it.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Iterator

Listener = Callable[[str, float], None]
_listeners: list[Listener] = []


def step(phase: str, t: float) -> None:
    """A step of ``phase`` converged at time ``t`` [s]."""
    for listener in _listeners:
        listener(phase, t)


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Call ``listener(phase, t)`` after every converged step inside the block."""
    _listeners.append(listener)
    try:
        yield
    finally:
        _listeners.remove(listener)
