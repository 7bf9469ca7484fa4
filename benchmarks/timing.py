"""The timing rule of the benchmark scripts: the best of several calls (the least disturbed by the
rest of the machine)."""
from __future__ import annotations

import time


def best_time(fn, repeat: int) -> tuple[float, object]:
    """(the shortest wall time [s] of ``repeat`` calls of ``fn()``, the last call's result)."""
    best, result = float("inf"), None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result
