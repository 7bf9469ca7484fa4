"""Loops compiled by numba when first used, not when their module is imported.

A module of compiled loops writes them as plain Python functions under :func:`loop`::

    from fem import compiled

    @compiled.loop(cache=True, error_model="numpy")
    def segment_rows(...):
        ...

Importing the module imports neither numba (about 0.2 s) nor the loops' machine code. The first call
of any of its loops, or of an attribute numba gives a loop (``py_func``, ``signatures``), imports
numba and puts ``numba.njit(**options)(function)`` in the module's namespace in place of every loop
of that module, so that

* a loop calling another one of its module is compiled against numba's dispatcher, as with the
  decorator written directly;
* later calls from the module go straight to numba (the stand-in is no longer in the namespace);
* under ``NUMBA_DISABLE_JIT=1`` the module's namespace holds the plain functions: one code path.

numba's cache (``cache=True``) is unchanged: the machine code is kept in ``__pycache__`` and loaded,
not compiled, by later processes, and compiled again when the loop's source file changes. A loop that
calls the loops of other modules names them (``calls=("fem.model.continuum", ...)``): they are loaded
first, and its cache is also stale when one of their files changes (numba alone would keep the old
callee inlined in the caller's machine code).

A module may register a warm-up (:func:`warm_up`): a function calling each of its loops once in the
types of a run, so that numba loads them from its cache (or compiles them) there. :func:`load` runs
the warm-ups of every module imported so far; a run calls it before it reports ``running``
(fem.run.lifecycle.Run.start), so that its first step, and a signal soon after the start, do not wait
for numba (a process pays about 0.2 s for numba's first load).
"""
from __future__ import annotations

import sys
from typing import Callable

#: per module name: {loop name: (Python function, numba.njit options, modules whose loops it calls)}
_LOOPS: dict[str, dict[str, tuple[Callable, dict, tuple[str, ...]]]] = {}
#: per module name: {loop name: what numba.njit made of it}, once the module's loops are loaded
_LOADED: dict[str, dict[str, Callable]] = {}
#: per module name: what the module's loops need in its namespace first (:func:`before_loading`)
_BEFORE: dict[str, Callable[[], None]] = {}
#: warm-ups registered by :func:`warm_up` and not yet run, in import order
_WARM_UPS: list[Callable[[], None]] = []


class _Loop:
    """The stand-in for a loop until its module's loops are loaded (module docstring)."""

    def __init__(self, function: Callable) -> None:
        self.__wrapped__ = function
        self.__name__, self.__qualname__ = function.__name__, function.__qualname__
        self.__module__, self.__doc__ = function.__module__, function.__doc__

    def __call__(self, *args, **kwargs):
        return _loaded(self.__module__)[self.__name__](*args, **kwargs)

    def __getattr__(self, name: str):  # only for what the stand-in lacks: numba's py_func, signatures, ...
        return getattr(_loaded(self.__module__)[self.__name__], name)

    def __repr__(self) -> str:
        return f"<loop {self.__module__}.{self.__qualname__}, not yet loaded>"


def loop(calls: tuple[str, ...] = (), **options) -> Callable[[Callable], _Loop]:
    """Decorator: the function becomes a loop compiled by ``numba.njit(**options)`` on first use
    (module docstring). ``calls``: the modules (names) whose loops it calls; theirs are loaded
    first, and its cached machine code is kept only while their source files are unchanged too
    (:func:`_stamp_with`)."""
    def wrap(function: Callable) -> _Loop:
        _LOOPS.setdefault(function.__module__, {})[function.__name__] = (function, dict(options), tuple(calls))
        return _Loop(function)
    return wrap


def _source_stamp(module_name: str) -> tuple[float, int]:
    """(modification time, size) of a module's source file: what numba's cache compares."""
    import os

    info = os.stat(sys.modules[module_name].__file__)
    return info.st_mtime, info.st_size


def _stamp_with(dispatcher, calls: tuple[str, ...]) -> None:
    """Make numba's cache of ``dispatcher`` stale when a module it calls changes. numba keeps a
    loop's machine code, callees inlined, under the stamp of the loop's own source file only
    (numba.core.caching.IndexDataCacheFile._source_stamp): a callee edited in another file would
    leave it stale. The stamp becomes (own stamp, each callee module's stamp)."""
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(cache, "_cache_file", None)
    if index is None or not hasattr(index, "_source_stamp"):  # no cache (NUMBA_DISABLE_JIT) or numba changed
        return
    index._source_stamp = (index._source_stamp, *[_source_stamp(name) for name in calls])


def _loaded(module_name: str) -> dict[str, Callable]:
    """The numba dispatchers (the plain functions under NUMBA_DISABLE_JIT=1) of a module's loops,
    made and put in the module's namespace on the first call."""
    table = _LOADED.get(module_name)
    if table is None:
        import numba

        if module_name not in _LOOPS:  # a module named in ``calls=`` that nothing has imported yet
            import importlib

            importlib.import_module(module_name)
        if module_name in _BEFORE:
            _BEFORE[module_name]()
        table = {}
        for name, (function, options, calls) in _LOOPS[module_name].items():
            for callee in calls:
                _loaded(callee)
            table[name] = numba.njit(**options)(function)
            if calls and options.get("cache"):
                _stamp_with(table[name], calls)
        namespace = vars(sys.modules[module_name])
        for name, dispatcher in table.items():
            if isinstance(namespace.get(name), _Loop):
                namespace[name] = dispatcher
        _LOADED[module_name] = table
    return table


def before_loading(function: Callable[[], None]) -> Callable[[], None]:
    """Decorator: ``function()`` runs once, just before its module's loops are loaded, to put in the
    module's namespace what they call and what is not to be made at import (e.g. numba's external
    functions, fem.time.dense_lu)."""
    _BEFORE[function.__module__] = function
    return function


def warm_up(function: Callable[[], None]) -> Callable[[], None]:
    """Decorator: register a module's warm-up, run by :func:`load` (module docstring)."""
    _WARM_UPS.append(function)
    return function


def load() -> None:
    """Load every loop of the modules imported so far and run their warm-ups (module docstring)."""
    for module_name in list(_LOOPS):
        _loaded(module_name)
    while _WARM_UPS:
        _WARM_UPS.pop(0)()
