"""fem.time.dense_lu: the mixed systems' dense LU as a compiled loop calling LAPACK by symbol name.

* the same bits as scipy's LAPACK wrappers (getrf, getrs, gecon) on well and badly conditioned
  matrices, compiled and, in a subprocess, under NUMBA_DISABLE_JIT=1 (the same loop as Python,
  calling the same routines through ctypes);
* the outcomes the Newton solve relies on: a matrix singular to working precision (a row that
  repeats another but for a round-off angle, as SDNV105 A's tilt) or with an exact zero pivot is
  SINGULAR (the caller's SuperLU decides), a NaN is FAILED;
* numba's cache keeps the loop: a second process loads it without compiling.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sl

from fem.time import dense_lu
from fem.time.newton_system import RCOND_MIN

ROOT = Path(__file__).resolve().parent.parent


def _scipy(A: np.ndarray, b: np.ndarray):
    getrf, getrs, gecon = sl.lapack.get_lapack_funcs(("getrf", "getrs", "gecon"), (A,))
    lu, piv, info = getrf(np.asfortranarray(A))
    return getrs(lu, piv, b)[0], gecon(lu, np.abs(A).sum(axis=0).max(), norm="1")[0], info


def _csc(A: np.ndarray):
    """(data, column-major positions, N) of A's nonzeros, as fem.time.newton_system.MixedPattern."""
    N = A.shape[0]
    cols, rows = np.nonzero(A.T)
    return A[rows, cols].copy(), cols * N + rows, N


@pytest.mark.parametrize("seed, N", [(0, 1), (1, 7), (2, 50), (3, 120)])
def test_the_same_bits_as_scipys_lapack(seed, N):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((N, N)) * rng.uniform(1e-3, 1e12, N)  # rows scaled like contact rows
    A[rng.random((N, N)) < 0.5] = 0.0
    A[np.arange(N), np.arange(N)] += 1e6
    b = rng.standard_normal(N)
    x, outcome = dense_lu.solve_dense(*_csc(A), b, RCOND_MIN)
    expected, _, info = _scipy(A, b)
    assert info == 0 and outcome == dense_lu.SOLVED
    assert np.array_equal(x, expected)
    assert np.linalg.norm(A @ x - b) <= 1e-9 * np.linalg.norm(A, 1) * np.linalg.norm(x)  # and it solves


def test_a_round_off_repeated_row_is_singular_and_a_nan_fails():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 6))
    A[:4] *= 1e15  # rows of contact equations (rho ~ 1e12) beside ones of order 1
    A[5] = A[4] * (1 + 2.0 ** -50)  # the same equation twice but for round-off
    A[5, 0] = A[4, 0] * (1 + 2.0 ** -51)
    _, rcond, info = _scipy(A, np.ones(6))
    assert info == 0 and rcond < RCOND_MIN  # no exact zero pivot: only the condition number tells
    assert dense_lu.solve_dense(*_csc(A), np.ones(6), RCOND_MIN)[1] == dense_lu.SINGULAR
    Z = np.eye(4)
    Z[2, 2] = 0.0  # an exact zero pivot
    assert dense_lu.solve_dense(*_csc(Z), np.ones(4), RCOND_MIN)[1] == dense_lu.SINGULAR
    data, flat, N = _csc(np.eye(3))
    data[1] = np.nan
    assert dense_lu.solve_dense(data, flat, N, np.ones(3), RCOND_MIN)[1] == dense_lu.FAILED


PROBE = """
    import numpy as np
    from fem.time import dense_lu
    rng = np.random.default_rng(5)
    A = rng.standard_normal((30, 30)) + 30 * np.eye(30)
    cols, rows = np.nonzero(A.T)
    x, outcome = dense_lu.solve_dense(A[rows, cols].copy(), cols * 30 + rows, 30, np.ones(30), 1e-30)
    misses = getattr(dense_lu.solve_dense, "stats", None)
    print(outcome, x.tobytes().hex(), sum(misses.cache_misses.values()) if misses else "python")
"""


def _probe(**env) -> list[str]:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(PROBE)], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, **env}, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_compiled_cached_and_uncompiled_agree():
    """A first process may compile (and fills numba's cache), a second loads it without compiling; the
    loop run as Python under NUMBA_DISABLE_JIT=1 gives the same bits."""
    first = _probe()
    second = _probe()
    python = _probe(NUMBA_DISABLE_JIT="1")
    assert first[:2] == second[:2] == python[:2] and first[0] == str(dense_lu.SOLVED)
    assert second[2] == "0" and python[2] == "python"
