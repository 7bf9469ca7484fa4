"""Fixed-step flights of a rigid block rocking on a moving table, compiled with numba: the integrator
behind :func:`contact.references.rocking_base.rock_under_base_motion` (conventions and equations there).

A flight about the pivot ``s`` (+1: O, -1: A) obeys ``phi'' = f(t, phi)`` with the tilt ``phi = |theta|``::

    f = -p^2 [sin(alpha - phi) + (s / g) a_g(t) cos(alpha - phi)]                (tilt_acceleration)

The table acceleration ``a_g`` is a Python callable that is never compiled: :func:`sample_cells`
samples it with vectorised calls on a grid of *cells* and :func:`rk4_flight`, a plain loop compiled by
``numba.njit(cache=True)`` (the same code runs as Python under ``NUMBA_DISABLE_JIT=1``), integrates
the samples.

* **Cells.** From the flight's start the time axis is cut into cells of width ``H`` (the last one ends
  at ``t_stop``), each sampled at its quarter points ``0, 1/4, 1/2, 3/4, 1``. A cell is two classical
  Runge-Kutta (RK4) steps of ``H/2``, each using a_g at its ends and its middle. The caller chooses
  ``H`` from the block's frequency p (``H p`` fixed: RK4's error on the nonlinear rocking is
  ``O((H p)^4)``) and its ``max_step``.
* **The motion's own time scale** is read from the samples. RK4 on ``phi'' = F(t)`` integrates
  ``phi'`` by Simpson's rule, so the cell's error from a_g is about the difference between Simpson's
  rule on the cell and on its two halves, ``w d4 / 12`` with ``d4 = a_0 - 4 a_1 + 6 a_2 - 4 a_3 +
  a_4`` (``w`` the cell width), divided by 15. A cell is split in two while ``w |d4| > tol_rate w +
  tol_abs`` (two new samples per half, one vectorised call per level of splitting, down to
  ``H / 2^MAX_LEVELS``): ``tol_rate`` bounds the error per unit time where a_g is smooth but fast on
  the scale ``H`` (a high-frequency motion), ``tol_abs`` the error of one cell at a kink (a sampled
  record, the end of a pulse), where ``w |d4|`` only falls as ``w^2``. Elsewhere the grid stays as is.
* **Events.** :func:`rk4_flight` stops after the first step whose end has ``phi < 0`` (impact) or
  ``phi >= phi_over`` (overturning). Inside a step the motion is the quintic Hermite polynomial of
  ``(phi, phi', phi'')`` at its two ends (error ``O(h^6)``), on which :func:`crossing` locates the
  impact, the overturning and the apex (``phi' = 0``) by bisection to the last bit;
  :func:`hermite_samples` gives the output samples from the same polynomials.
"""
from __future__ import annotations

import math

import numba
import numpy as np

MAX_LEVELS = 30  # a cell is split at most this many times (width H / 2^30)
_QUARTERS = np.array([0.0, 0.25, 0.5, 0.75])


# ------------------------------------------------------------------------------- compiled kernels
@numba.njit(cache=True)
def tilt_acceleration(alpha, p2, c, a, phi):
    """phi'' [rad/s^2] at tilt ``phi`` under the table acceleration ``a``, ``c = sign / g``."""
    return -p2 * (math.sin(alpha - phi) + c * a * math.cos(alpha - phi))


@numba.njit(cache=True)
def rk4_flight(t, a_node, a_mid, phi0, phidot0, alpha, p2, c, phi_over, phi, phidot, phidd):
    """RK4 over the steps ``[t[k], t[k+1]]`` (a_g ``a_node[k]`` at the nodes, ``a_mid[k]`` at the
    middles) from ``(phi0, phidot0)`` at ``t[0]``, filling ``phi``, ``phidot``, ``phidd`` at the nodes.
    Returns ``(status, k)``: status 1 if step k ends with ``phi < 0`` (an impact inside it), 2 if with
    ``phi >= phi_over`` (overturning), else 0 and k the number of steps (no event)."""
    n = t.size - 1
    y, v = phi0, phidot0
    f = tilt_acceleration(alpha, p2, c, a_node[0], y)
    phi[0], phidot[0], phidd[0] = y, v, f
    for k in range(n):
        h = t[k + 1] - t[k]
        half = 0.5 * h
        k2y = v + half * f
        k2v = tilt_acceleration(alpha, p2, c, a_mid[k], y + half * v)
        k3y = v + half * k2v
        k3v = tilt_acceleration(alpha, p2, c, a_mid[k], y + half * k2y)
        k4y = v + h * k3v
        k4v = tilt_acceleration(alpha, p2, c, a_node[k + 1], y + h * k3y)
        y = y + h / 6.0 * (v + 2.0 * k2y + 2.0 * k3y + k4y)
        v = v + h / 6.0 * (f + 2.0 * k2v + 2.0 * k3v + k4v)
        f = tilt_acceleration(alpha, p2, c, a_node[k + 1], y)
        phi[k + 1], phidot[k + 1], phidd[k + 1] = y, v, f
        if y < 0.0:
            return 1, k
        if y >= phi_over:
            return 2, k
    return 0, n


@numba.njit(cache=True)
def quintic(h, y0, v0, a0, y1, v1, a1):
    """Coefficients ``(c0, ..., c5)`` in ``u = tau / h`` of the quintic with value, slope and
    curvature ``(y0, v0, a0)`` at ``tau = 0`` and ``(y1, v1, a1)`` at ``tau = h``."""
    dy, s0, s1, q0, q1 = y1 - y0, h * v0, h * v1, h * h * a0, h * h * a1
    c3 = 10.0 * dy - 6.0 * s0 - 4.0 * s1 - 1.5 * q0 + 0.5 * q1
    c4 = -15.0 * dy + 8.0 * s0 + 7.0 * s1 + 1.5 * q0 - q1
    c5 = 6.0 * dy - 3.0 * s0 - 3.0 * s1 - 0.5 * q0 + 0.5 * q1
    return y0, s0, 0.5 * q0, c3, c4, c5


@numba.njit(cache=True)
def quintic_at(c, u):
    """(P(u), dP/du) of the quintic with coefficients ``c``."""
    p = ((((c[5] * u + c[4]) * u + c[3]) * u + c[2]) * u + c[1]) * u + c[0]
    d = (((5.0 * c[5] * u + 4.0 * c[4]) * u + 3.0 * c[3]) * u + 2.0 * c[2]) * u + c[1]
    return p, d


@numba.njit(cache=True)
def crossing(c, level, slope, falling, lo, hi):
    """Bisection on ``[lo, hi]`` (in u) for the first u after which ``g = P(u) - level`` (``slope``
    False) or ``g = dP/du`` (``slope`` True) has crossed: ``g <= 0`` if ``falling`` else ``g >= 0``;
    ``lo`` is before the crossing, ``hi`` after. Returns the smallest such u to the last bit."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        p, d = quintic_at(c, mid)
        g = d if slope else p - level
        if (g <= 0.0) if falling else (g >= 0.0):
            hi = mid
        else:
            lo = mid
    return hi


@numba.njit(cache=True)
def hermite_samples(t, phi, phidot, phidd, ts, out_phi, out_phidot):
    """(phi, phi') at the sorted times ``ts`` inside ``[t[0], t[-1]]`` from the quintic of their step."""
    n = t.size
    k = 0
    for i in range(ts.size):
        while k < n - 2 and ts[i] > t[k + 1]:
            k += 1
        h = t[k + 1] - t[k]
        c = quintic(h, phi[k], phidot[k], phidd[k], phi[k + 1], phidot[k + 1], phidd[k + 1])
        p, d = quintic_at(c, (ts[i] - t[k]) / h)
        out_phi[i], out_phidot[i] = p, d / h


# ------------------------------------------------------------------------------ sampling (Python)
def sample_cells(acc_array, t0: float, t_stop: float, width: float, n_cells: int, tol_rate: float,
                 tol_abs: float):
    """The RK4 steps of up to ``n_cells`` cells of ``width`` from ``t0`` (the last one ends at
    ``t_stop`` if reached), a cell of width w split while ``w |a_0 - 4 a_1 + 6 a_2 - 4 a_3 + a_4| >
    tol_rate w + tol_abs`` (module docstring): ``(t, a_node, a_mid)``, the node times, a_g at them and
    at the steps' middles."""
    edges = t0 + width * np.arange(n_cells + 1)
    if edges[-1] >= t_stop:
        edges = np.append(edges[edges < t_stop], t_stop)
    n = edges.size - 1
    tq = np.empty((n, 5))
    tq[:, :4] = edges[:-1, None] + np.diff(edges)[:, None] * _QUARTERS
    tq[:, 4] = edges[1:]
    flat = np.append(tq[:, :4].ravel(), edges[-1])
    a = acc_array(flat)
    idx = 4 * np.arange(n)[:, None] + np.arange(5)
    aq = a[idx]
    w_min = max(width * 0.5**MAX_LEVELS, 64.0 * np.spacing(abs(t_stop)))  # no cell of zero width
    candidate = np.ones(n, dtype=bool)
    for _ in range(MAX_LEVELS):
        d4 = aq[:, 0] - 4.0 * aq[:, 1] + 6.0 * aq[:, 2] - 4.0 * aq[:, 3] + aq[:, 4]
        w = tq[:, 4] - tq[:, 0]
        split = candidate & (w * np.abs(d4) > tol_rate * w + tol_abs) & (w > w_min)
        if not split.any():
            break
        tq, aq, candidate = _split(acc_array, tq, aq, split)
    t = np.empty(2 * tq.shape[0] + 1)
    t[0:-1:2], t[1:-1:2], t[-1] = tq[:, 0], tq[:, 2], tq[-1, 4]
    a_node = np.empty_like(t)
    a_node[0:-1:2], a_node[1:-1:2], a_node[-1] = aq[:, 0], aq[:, 2], aq[-1, 4]
    a_mid = np.empty(2 * tq.shape[0])
    a_mid[0::2], a_mid[1::2] = aq[:, 1], aq[:, 3]
    return t, a_node, a_mid


def _split(acc_array, tq, aq, split):
    """Cells ``split`` replaced by their two halves (in place in the order), the halves' new quarter
    points sampled in one call; returns (tq, aq, candidate mask = the new halves)."""
    parents = np.flatnonzero(split)
    pt, pa = tq[parents], aq[parents]
    new_t = np.empty((parents.size, 4))
    new_t[:, 0] = 0.5 * (pt[:, 0] + pt[:, 1])
    new_t[:, 1] = 0.5 * (pt[:, 1] + pt[:, 2])
    new_t[:, 2] = 0.5 * (pt[:, 2] + pt[:, 3])
    new_t[:, 3] = 0.5 * (pt[:, 3] + pt[:, 4])
    new_a = acc_array(new_t.ravel()).reshape(new_t.shape)
    counts = 1 + split.astype(np.int64)
    start = np.cumsum(counts) - counts
    out_t = np.empty((tq.shape[0] + parents.size, 5))
    out_a = np.empty_like(out_t)
    keep = ~split
    out_t[start[keep]], out_a[start[keep]] = tq[keep], aq[keep]
    first, second = start[parents], start[parents] + 1
    out_t[first] = np.column_stack((pt[:, 0], new_t[:, 0], pt[:, 1], new_t[:, 1], pt[:, 2]))
    out_a[first] = np.column_stack((pa[:, 0], new_a[:, 0], pa[:, 1], new_a[:, 1], pa[:, 2]))
    out_t[second] = np.column_stack((pt[:, 2], new_t[:, 2], pt[:, 3], new_t[:, 3], pt[:, 4]))
    out_a[second] = np.column_stack((pa[:, 2], new_a[:, 2], pa[:, 3], new_a[:, 3], pa[:, 4]))
    candidate = np.zeros(out_t.shape[0], dtype=bool)
    candidate[first], candidate[second] = True, True
    return out_t, out_a, candidate
