"""The arithmetic of a Newmark/HHT iteration as compiled loops: the kinematics of an iterate and its
residual (fem.time.dynamics), each value computed with the operations, in the order, of the numpy
expressions they replaced (the same bits).

Kinematics of an iterate u at t_{n+1} (beta, gamma; c_a = 1 / (beta dt^2))::

    a = c_a (u - u_n - dt v_n) - (1 / (2 beta) - 1) a_n,   v = v_n + dt ((1 - gamma) a_n + gamma a)

and, on the massless dofs of a redistributed mass (fem.model.mass), a = 0, v = (u - u_n) / dt.

Residual (HHT weights w1, w0 per dof, or one number each)::

    g = f_int + f_damp + f_terms - f_ext,   R = M a + w1 g - w0 g_n

and the product M x of a step's start (:func:`mass_times`). Shapes (n_dofs,); M given by its CSR arrays.
"""
from __future__ import annotations

import numpy as np

from fem import compiled


@compiled.loop(cache=True, error_model="numpy")
def newmark_kinematics(u, u0, v0, a0, ca, dt, beta, gamma, quasi_static):
    """(a, v) of the iterate u (module docstring); ``quasi_static``: the massless dofs."""
    n = u.size
    a, v = np.empty(n), np.empty(n)
    keep = 0.5 / beta - 1.0
    old = 1.0 - gamma
    for i in range(n):
        a[i] = ca * (u[i] - u0[i] - dt * v0[i]) - keep * a0[i]
        v[i] = v0[i] + dt * (old * a0[i] + gamma * a[i])
    for k in range(quasi_static.size):
        i = quasi_static[k]
        a[i] = 0.0
        v[i] = (u[i] - u0[i]) / dt
    return a, v


@compiled.loop(cache=True, error_model="numpy")
def hht_residual(internal, damping, f_terms, f_ext, indptr, indices, data, a, w1, w0, g0):
    """(g, M a, R) (module docstring); w1, w0 of size 1 (one number) or n_dofs."""
    n = a.size
    g, Ma, R = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        g[i] = internal[i] + damping[i] + f_terms[i] - f_ext[i]
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * a[indices[p]]
        Ma[i] = s
        R[i] = s + (w1[i] if w1.size > 1 else w1[0]) * g[i] - (w0[i] if w0.size > 1 else w0[0]) * g0[i]
    return g, Ma, R


@compiled.loop(cache=True, error_model="numpy")
def mass_times(indptr, indices, data, x):
    """M x (n_dofs,) from M's CSR arrays, each row summed from 0 in storage order (scipy's product)."""
    n = indptr.size - 1
    out = np.empty(n)
    for i in range(n):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * x[indices[p]]
        out[i] = s
    return out


@compiled.warm_up
def _load_compiled_loops() -> None:
    """Call each loop once in the types of a run, when a run starts (fem.compiled.load): numba loads
    them from its cache before the run reports "running", not at its first step."""
    x, qs = np.zeros(2), np.zeros(0, dtype=np.int64)
    newmark_kinematics(x, x, x, x, 1.0, 1.0, 0.25, 0.5, qs)
    indptr, indices = np.array([0, 1, 2], dtype=np.int32), np.array([0, 1], dtype=np.int32)
    hht_residual(x, x, x, x, indptr, indices, x, x, np.ones(1), np.zeros(1), x)
    mass_times(indptr, indices, x, x)
