"""The shocks of one contact node, Code_Aster's POST_DYNA_MODA_T (OPTION 'IMPACT', SEUIL_FORCE 0) table, from
the node's history: its normal reaction ``rn`` [N] and its signed gap ``gap`` [m] (negative: penetrating), both
(n,) over the instants ``t`` (n,) [s].

A shock is a maximal run of steps with ``rn > 0``. Its start and end are the zero crossings of the gap, linear
between the last open step and the first closed one (and the last closed and the first open one), where the
gap changes sign there: a penalty contact (DIS_CHOC), whose force grows from 0 with the penetration, starts and
ends between two steps, not on one. Where the gap does not change sign (a Lagrange contact holds it at 0) the
start is the last open step and the end the first open one, as Code_Aster reads a force clipped at zero. Then

* ``duration`` = end - start (T_CHOC) [s];
* ``impulse`` = the trapezoidal integral of ``rn`` over [start, the closed steps, end] with ``rn`` = 0 at both
  ends (IMPULSION) [N s];
* ``force``, ``instant``: the largest ``rn`` and its instant, the vertex of the parabola through the largest
  sample and its two neighbours when both are closed (the sampled maximum else; its error is O(dt^2) where
  the sampled one's is O(dt)) (F_MAX, INSTANT) [N], [s];
* ``velocity``: the gap's rate over the step in which the shock starts, (gap_k - gap_(k-1)) / dt_k, negative
  when the node approaches (V_IMPACT) [m/s]: for a node on a still obstacle the normal velocity over the step
  that enters contact, Code_Aster's V_IMPACT (the half-step velocity of its leap-frog scheme: SDND101's
  -1.0003141755606 m/s for shock 2, to 1e-12). It is first order in dt (the closed form's -1 is missed by
  4.9e-3 at four times SDND101's step, 2e-3 s); a run that records the node's velocity reads it at the start
  instead, to second order (cases/sdnd101.py).

A shock still closed at the history's end is ``complete`` False: it has no end, duration or impulse (None).
A shock closed from the history's first step has no velocity (None).
"""
from __future__ import annotations

import numpy as np


def _zero(t0: float, t1: float, g0: float, g1: float) -> float:
    """The instant where the gap, linear from (t0, g0) to (t1, g1), crosses zero."""
    return t0 + g0 * (t1 - t0) / (g0 - g1)


def _peak(t: np.ndarray, f: np.ndarray, k: int, closed: np.ndarray) -> tuple[float, float]:
    """(instant, value) of the vertex of the parabola through samples k - 1, k, k + 1 when both neighbours
    are closed and the parabola is concave with its vertex between them; else sample k's."""
    if 0 < k < t.size - 1 and closed[k - 1] and closed[k + 1]:
        tau = t[k - 1:k + 2] - t[k]
        a, b, c = np.polyfit(tau, f[k - 1:k + 2], 2)
        if a < 0 and tau[0] <= -b / (2 * a) <= tau[2]:
            return float(t[k] - b / (2 * a)), float(c - b * b / (4 * a))
    return float(t[k]), float(f[k])


def shock_table(t, rn, gap) -> list[dict]:
    """The shocks of a node in order (module docstring): per shock ``start``, ``end``, ``duration``,
    ``impulse``, ``force``, ``instant``, ``velocity`` and ``complete``."""
    t, rn, gap = (np.asarray(x, dtype=float) for x in (t, rn, gap))
    closed = rn > 0
    edges = np.flatnonzero(np.diff(np.concatenate([[False], closed, [False]]).astype(np.int8)))
    shocks = []
    for k0, k1 in zip(edges[::2], edges[1::2] - 1):  # closed from step k0 to step k1
        first, last = k0 == 0, k1 == t.size - 1
        if first:
            start = float(t[0])
        elif gap[k0 - 1] > 0 > gap[k0]:
            start = _zero(t[k0 - 1], t[k0], gap[k0 - 1], gap[k0])
        else:
            start = float(t[k0 - 1])
        if last:
            end = None
        elif gap[k1] < 0 < gap[k1 + 1]:
            end = _zero(t[k1], t[k1 + 1], gap[k1], gap[k1 + 1])
        else:
            end = float(t[k1 + 1])
        k = k0 + int(np.argmax(rn[k0:k1 + 1]))
        instant, force = _peak(t, rn, k, closed)
        impulse = None
        if end is not None:
            impulse = float(np.trapezoid(np.concatenate([[0.0], rn[k0:k1 + 1], [0.0]]),
                                         np.concatenate([[start], t[k0:k1 + 1], [end]])))
        shocks.append({"start": start, "end": end, "duration": None if end is None else end - start,
                       "impulse": impulse, "force": force, "instant": instant,
                       "velocity": None if first else float((gap[k0] - gap[k0 - 1]) / (t[k0] - t[k0 - 1])),
                       "complete": end is not None})
    return shocks
