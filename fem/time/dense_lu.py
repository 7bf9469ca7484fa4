"""The dense LU of the mixed systems, as a compiled loop: LAPACK's dgetrf, dgecon and dgetrs.

:func:`solve_dense` fills the mixed matrix from its CSC data into a dense column-major (N, N) array,
factorises it (dgetrf, partial pivoting), estimates its reciprocal condition number in the 1-norm
(dgecon) and solves (dgetrs): the LAPACK scipy ships (``scipy.linalg.cython_lapack``), the same routines
``scipy.linalg.lapack.get_lapack_funcs`` returns, so the same bits.

LAPACK is bound by symbol name: when the loops are loaded (fem.compiled), each routine's address is
given to LLVM under a name of its own (``llvmlite.binding.add_symbol``) and the loop calls that name
(``numba.types.ExternalFunction``). The machine code then holds a name, not an address, and numba
can keep it in its cache: a kernel holding a ctypes pointer would be compiled again in every process.
Under ``NUMBA_DISABLE_JIT=1`` the same loop runs as Python and calls the same routines through ctypes.

Pointer arguments are one-element slices of small work arrays (``ints[k:]``), Fortran's by-reference
arguments.
"""
from __future__ import annotations

import math
import os

import numpy as np

from fem import compiled

#: the LAPACK routines bound, with their argument lists (i: int*, d: double*, c: char*)
ROUTINES = {"dgetrf": "iidiii", "dgetrs": "ciidiidii", "dgecon": "cididddii"}

#: outcome codes of :func:`solve_dense`
SOLVED, FAILED, SINGULAR = 0, 1, 2


def _jit_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


@compiled.before_loading
def _bind_lapack() -> None:
    """Put dgetrf, dgetrs and dgecon in this module's namespace: numba external functions called by
    symbol name (compiled), or ctypes functions (NUMBA_DISABLE_JIT=1)."""
    from numba.extending import get_cython_function_address

    namespace = globals()
    if _jit_disabled():
        import ctypes

        for name, args in ROUTINES.items():
            address = get_cython_function_address("scipy.linalg.cython_lapack", name)
            namespace[name] = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(args))(address)
        return
    import llvmlite.binding as llvm
    from numba import types

    pointer = {"i": types.CPointer(types.int32), "d": types.CPointer(types.float64),
               "c": types.CPointer(types.int8)}
    for name, args in ROUTINES.items():
        symbol = f"rockfem_{name}"
        llvm.add_symbol(symbol, get_cython_function_address("scipy.linalg.cython_lapack", name))
        namespace[name] = types.ExternalFunction(symbol, types.void(*[pointer[a] for a in args]))


@compiled.loop(cache=True, error_model="numpy")
def solve_dense(data, flat, N, b, rcond_min):
    """x with A x = b, A (N, N) given by its CSC ``data`` (nnz,) and each entry's column-major
    position ``flat`` (nnz,) in a dense array. Returns (x (N,), code): SOLVED (x finite), FAILED (an
    illegal value in dgetrf, a matrix norm or a solution not finite: x not to be used), SINGULAR (an
    exact zero pivot, or a reciprocal condition number below ``rcond_min``: singular to working
    precision, for the caller's sparse solver to decide)."""
    a = np.zeros(N * N)
    for k in range(flat.size):
        a[flat[k]] = data[k]
    return factor_and_solve(a, N, b, rcond_min)


@compiled.loop(cache=True, error_model="numpy")
def factor_and_solve(a, N, b, rcond_min):
    """:func:`solve_dense` of the dense column-major (N, N) matrix ``a`` (N N,), overwritten by its LU
    factors: (x (N,), code)."""
    x = b.copy()
    norm1 = 0.0
    for j in range(N):
        s = 0.0
        for i in range(N):
            s += abs(a[j * N + i])
        if s > norm1 or s != s:
            norm1 = s
    ints = np.empty(4, dtype=np.int32)  # N, leading dimension, info, one right-hand side
    ints[0], ints[1], ints[2], ints[3] = N, max(N, 1), 0, 1
    pivots = np.empty(max(N, 1), dtype=np.int32)
    dgetrf(ints[0:].ctypes, ints[0:].ctypes, a.ctypes, ints[1:].ctypes, pivots.ctypes, ints[2:].ctypes)
    info = ints[2]
    if info < 0 or not math.isfinite(norm1):
        return x, FAILED
    if info > 0:
        return x, SINGULAR
    chars = np.empty(2, dtype=np.int8)
    chars[0], chars[1] = 78, 49  # "N" (no transpose), "1" (1-norm)
    reals = np.empty(2)
    reals[0], reals[1] = norm1, 0.0
    work, iwork = np.empty(4 * max(N, 1)), np.empty(max(N, 1), dtype=np.int32)
    dgecon(chars[1:].ctypes, ints[0:].ctypes, a.ctypes, ints[1:].ctypes, reals[0:].ctypes, reals[1:].ctypes,
           work.ctypes, iwork.ctypes, ints[2:].ctypes)
    if not reals[1] >= rcond_min:
        return x, SINGULAR
    dgetrs(chars[0:].ctypes, ints[0:].ctypes, ints[3:].ctypes, a.ctypes, ints[1:].ctypes, pivots.ctypes, x.ctypes,
           ints[1:].ctypes, ints[2:].ctypes)
    for i in range(N):
        if not math.isfinite(x[i]):
            return x, FAILED
    return x, SOLVED


@compiled.warm_up
def _load_compiled_loop() -> None:
    """Solve a 2 x 2 system once, when a run starts (fem.compiled.load): numba loads the loop from its
    cache (and LAPACK is bound) before the run reports "running", not at its first step."""
    solve_dense(np.array([2.0, 1.0]), np.array([0, 3], dtype=np.int64), 2, np.ones(2), 1e-30)
