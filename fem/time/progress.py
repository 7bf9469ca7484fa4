"""Step notifications: the time loops announce each converged step to whoever listens.

The integrators (:mod:`fem.time.dynamics`, :mod:`fem.time.theta`, :mod:`fem.time.explicit`) call :func:`step`
for every converged step once the caller has taken it from the generator and asks for the next
one, i.e. after the caller has recorded it: the last time announced (a run's ``t_reached``) is
always on disk. A signal arriving between the two (fem.time.interrupt) waits for the announcement
(:func:`deliver`). A run's progress line (:class:`fem.run.lifecycle.ProgressLine`) listens. The library
itself never prints. Imports only fem.time.interrupt, so every module can use it.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from fem.time.interrupt import held

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


def deliver(result: Any, phase: str, t: float) -> Iterator[Any]:
    """``yield from deliver(result, phase, t)`` in a time loop: hand ``result`` (the step at time
    ``t`` [s]) to the caller, who records it, then announce the step (:func:`step`). A SIGINT or
    SIGTERM arriving in between is raised after the announcement (fem.time.interrupt.held): a run's
    ``t_reached`` is always the last step on disk, never one behind it."""
    with held():
        yield result
        step(phase, t)
