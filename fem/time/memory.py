"""The process keeps the memory it frees (glibc's allocator), so that a time step's large
temporaries do not cost page faults.

A Newton iteration on a 32x64 block allocates and frees some fifty arrays of 0.1-2 MB (strain
operators, cell matrices, the mixed system). glibc serves such sizes by mmap, or from the top of
the heap, and returns them to the system when freed; the next iteration then pays a page fault
per 4 KiB page it writes. Measured on a 32x64 block (modeling D, python benchmarks/kernels.py):
forces 1.00 / 0.87 ms, cell tangents 11.6 / 4.1 ms with the default policy / the memory kept, the
operations themselves unchanged.

:func:`keep_freed_memory` raises glibc's mmap threshold to its maximum (32 MiB) and its trim
threshold to 1 GiB (mallopt M_MMAP_THRESHOLD, M_TRIM_THRESHOLD): freed blocks stay in the heap for
the next allocation. The resident size stays near its peak, which a run reaches anyway. It is
called when a phase starts (fem.time.newton.start_phase); elsewhere than glibc it does nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc malloc.h
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest (HEAP_MAX_SIZE / 2 on 64-bit)
TRIM_THRESHOLD = 1 << 30

_done: bool | None = None


def keep_freed_memory() -> bool:
    """Ask glibc to keep freed memory (once per process); True when it accepted."""
    global _done
    if _done is None:
        _done = False
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            mallopt = libc.mallopt
        except (OSError, AttributeError):  # not glibc (macOS, Windows, musl without mallopt)
            return False
        mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _done
