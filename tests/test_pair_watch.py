"""fem.problem.observe.PairWatch, a contact pair's measures after each step, against their numpy definition.

The step's node-by-node part is a compiled loop (fem.problem.observe._pair_measures: the closed nodes,
the landings that make impacts, the first uplift, each open node's largest lift, the largest open gap,
the penetration). Scripted pairs of 1 to 9 nodes over 300 steps, whose statuses, gaps (with unpaired
nodes' +inf and NaN, negative gaps, lifts above and below the thresholds) and reactions are random,
give the same history columns, impacts, uplift instant, largest gap and penetration as the numpy
expressions below (the pair's code before the loop), value for value.
"""
from __future__ import annotations

import numpy as np
import pytest

from fem.problem.observe import IMPACT_WINDOW, LIFT, PairWatch

from helpers import PairState




class _Term:
    def __init__(self):
        self.now = None

    def state(self):
        return self.now


class _Reference:
    """The numpy expressions of PairWatch.observe's node-by-node part (before the compiled loop)."""

    def __init__(self, lift):
        self.lift, self.lifted, self.impacts = lift, None, []
        self.uplift_time, self.max_gap, self.penetration, self.penetration_at = None, 0.0, 0.0, None

    def observe(self, t, st):
        closed = np.asarray(st.status) != 0
        gap = np.where(np.isfinite(st.gap), st.gap, 0.0)
        if self.lifted is None:
            self.lifted, self.closed = np.where(closed, 0.0, gap), closed
            self.was_closed = closed
        landing = closed & ~self.closed & (self.lifted > self.lift)
        if np.any(landing):
            last = self.impacts[-1] if self.impacts else None
            if last is not None and t - last["time"] <= IMPACT_WINDOW:
                last["nodes"] += int(np.count_nonzero(landing))
            else:
                self.impacts.append({"time": float(t), "pair": "p", "nodes": int(np.count_nonzero(landing)),
                                     "lift": float(np.max(self.lifted[landing]))})
        if self.uplift_time is None and np.any(self.was_closed & ~closed & (gap > LIFT)):
            self.uplift_time = float(t)
        self.was_closed = self.was_closed | closed
        self.lifted = np.where(closed, 0.0, np.maximum(self.lifted, gap))
        self.closed = closed
        open_gap = float(np.max(gap[~closed])) if np.any(~closed) else 0.0
        self.max_gap = max(self.max_gap, open_gap)
        finite = np.asarray(st.gap, dtype=float)[np.isfinite(st.gap)]
        sunk = float(max(-np.min(finite), 0.0)) if finite.size else 0.0
        if sunk > self.penetration:
            self.penetration, self.penetration_at = sunk, float(t)
        return float(np.count_nonzero(closed)), open_gap, sunk


@pytest.mark.parametrize("n", (1, 2, 5, 9))
def test_the_pair_measures_are_their_numpy_definition(n):
    rng = np.random.default_rng(n)
    lift = 1e-4
    term, reference = _Term(), _Reference(lift)
    watch = PairWatch("p", term, lift=lift)
    status = np.zeros(n, dtype=np.int64)
    for k in range(300):
        flip = rng.random(n) < 0.15
        status = np.where(flip, 1 - np.minimum(status, 1), status) * rng.choice([1, 2], n)
        gap = np.where(status != 0, rng.normal(0.0, 1e-7, n), rng.choice([2e-7, 5e-5, 3e-4, 2e-3], n)
                       * rng.random(n))
        gap[rng.random(n) < 0.03] = np.inf
        gap[rng.random(n) < 0.01] = np.nan
        rn = np.where(status != 0, rng.random(n) * 1e3, 0.0)
        term.now = PairState(status.copy(), gap, rn, 0.1 * rn, np.arange(n) + 10)
        t = 7e-4 * k
        row = watch.observe(t)
        n_closed, open_gap, sunk = reference.observe(t, term.now)
        assert (row["n_closed[p]"], row["max_gap[p]"], row["penetration[p]"]) == (n_closed, open_gap, sunk), k
    assert watch.impacts == reference.impacts and len(reference.impacts) > 3  # landings met and grouped
    assert (watch.uplift_time, watch.max_gap) == (reference.uplift_time, reference.max_gap)
    assert (watch.penetration, watch.penetration_at) == (reference.penetration, reference.penetration_at)
    assert reference.uplift_time is not None and reference.penetration > 0
