"""Where the fine steps start before a predicted impact (fem.time.stepping.run_with_events).

The rule (fem.time.stepping, EventSteps.lookahead): before each step, from each open node's gap g_k at
the step start t_k and its rate over the last step, the controller predicts the closing time
t_k + g_k / ((g_(k-1) - g_k) / h_(k-1)); when it lies within ``lookahead`` times the coarse step it
would take next, c_k = min(dt, growth h_(k-1)), a fine span starts at t_k: steps of dt_fine from
t_k to fine_after past it, so that the impact is integrated with fine steps from before it.

The scene: a point mass (fem.model.assembly point mass, no gravity or under gravity) above a rigid plane,
moving towards it, with a penalty shock element (contact.penalty) that acts only once it touches.
Before the impact no force acts but gravity, so Newmark's average acceleration reproduces the
motion exactly (its update is exact for a constant acceleration): the gaps at the step starts are
the closed form

    g(t) = h0 - V t - g t^2 / 2,    closing at t_c = (sqrt(V^2 + 2 g h0) - V) / g   (h0 / V for g = 0)

to round-off. The test replays the documented rule on the closed-form gaps, step by step, from
the step lengths the run took, and asserts that the run's first fine span starts exactly at the
first step start where the rule fires, with the predicted impact the rule gives, that every step
before it is coarse (the growth rule) and every step from it through the impact fine. At constant
velocity the prediction is the exact closing time, and the margin it leaves is the stated
lookahead: (lookahead - 1) c <= t_c - start < lookahead c once the coarse steps have reached dt.
Each case is chosen so that a controller that ignored the lookahead (fine steps only once the
impact is within one coarse step) would start later and fail.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from contact.penalty import ShockLaw, ShockSprings
from contact.zone import RigidPlane, node_zone
from fem.time.dynamics import Phase, State
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.mesh.mesh import Mesh
from fem.model.assembly import Model
from fem.stage.schemes import Newmark
from fem.time.stepping import EventSteps, run_with_events

#: comparisons of instants: the schedule is a sum of a few hundred steps, exact to ~1e-15 s each
TIME_TOL = 1e-12


def closing_time(h0: float, V: float, g: float) -> float:
    """t_c [s] of g(t) = h0 - V t - g t^2 / 2 (module docstring)."""
    return h0 / V if g == 0.0 else (math.sqrt(V * V + 2.0 * g * h0) - V) / g


def run(h0: float, V: float, g: float, steps: EventSteps, t_end: float):
    """(step end times including t = 0, gaps of the node at those times, fine spans) of the fall."""
    mesh = Mesh(np.array([[0.0, h0]]), {}, {"P": np.array([0])})
    model = Model(mesh, {}, point_masses={"P": 1.0})
    shock = ShockSprings(model, node_zone(mesh, "P", RigidPlane((0.0, 0.0), (0.0, 1.0))), ShockLaw(1e6))

    phase = Phase("fall", 0.0, t_end, steps.dt, Newmark(), gravity=Gravity((0.0, -g)) if g else None,
                  constraints=(ImposedDisplacement("P", "x"),))
    state = State(0.0, np.zeros(2), np.array([0.0, -V]))
    gen = run_with_events(model, phase, state, [shock], [shock], steps)
    times, gaps = [], []
    while True:
        try:
            result = next(gen)
        except StopIteration as stop:
            return np.array(times), np.array(gaps), stop.value
        times.append(result.state.t)
        gaps.append(h0 + result.state.u[1])


def first_prediction(times: np.ndarray, gap, steps: EventSteps):
    """Replay of the documented rule on the run's step starts with the closed-form ``gap(t)``:
    (index k of the step start where a fine span must start, its coarse step c_k, the predicted
    closing instant). Also checks that the rule is not decided by round-off at any step."""
    h_last = steps.dt_fine
    for k in range(1, len(times)):
        h_last = times[k] - times[k - 1]
        g0, g1 = gap(times[k - 1]), gap(times[k])
        coarse = min(steps.dt, steps.growth * h_last)
        if g1 < g0 and g1 > 0:
            closing_in = g1 / ((g0 - g1) / h_last)
            assert abs(closing_in - steps.lookahead * coarse) > 1e-6 * coarse, "case decided by round-off"
            if closing_in < steps.lookahead * coarse:
                return k, coarse, times[k] + closing_in
    raise AssertionError("the rule never fires")


CASES = [
    # (h0 [m], V [m/s], g [m/s^2], dt, dt_fine, lookahead)
    pytest.param(0.0206, 1.0, 0.0, 1e-3, 1e-4, 1.5, id="V-lookahead1.5"),
    pytest.param(0.0171, 1.0, 0.0, 1e-3, 1e-4, 3.0, id="V-lookahead3"),
    pytest.param(0.0312, 2.0, 0.0, 2e-3, 2.5e-4, 2.2, id="V-lookahead2.2"),
    pytest.param(0.05, 0.3, 9.81, 1e-3, 1e-4, 2.5, id="fall-lookahead2.5"),
]


@pytest.mark.parametrize("h0, V, g, dt, dt_fine, lookahead", CASES)
def test_fine_steps_start_the_stated_lookahead_before_the_predicted_impact(h0, V, g, dt, dt_fine, lookahead):
    # a span lasts fine_after from its start: longer than lookahead dt, it reaches past the impact
    # (as the defaults do: 3 ms >= 1.5 dt for dt <= 2 ms)
    steps = EventSteps(dt=dt, dt_fine=dt_fine, lookahead=lookahead, fine_after=lookahead * dt + 1e-3)
    t_c = closing_time(h0, V, g)
    times, gaps, spans = run(h0, V, g, steps, t_c + 5 * dt_fine)

    def gap(t):
        return h0 - V * t - 0.5 * g * t * t

    # before the impact the run follows the closed form (no force but gravity, Newmark exact)
    before = times < t_c
    np.testing.assert_allclose(gaps[before], gap(times[before]), rtol=0, atol=1e-12 * h0)
    k, coarse, predicted = first_prediction(times, gap, steps)
    span = spans[0]
    assert span["reason"] == "impact predicted"
    assert span["from"] == pytest.approx(times[k], abs=TIME_TOL)
    assert span["predicted_impact"] == pytest.approx(predicted, abs=1e-9 * t_c)
    assert span["from"] < t_c < span["to"]
    # the coarse steps before the span: growth from dt_fine by `growth`, up to dt
    h = np.diff(times)
    expected = steps.dt_fine
    for hk in h[:k]:
        expected = min(steps.dt, steps.growth * expected)
        assert hk == pytest.approx(expected, abs=TIME_TOL)
    # fine steps from the span's start through the impact (and the steps just after it)
    impact_step = int(np.searchsorted(times, t_c))
    assert impact_step > k
    np.testing.assert_allclose(h[k:impact_step + 1], steps.dt_fine, rtol=0, atol=TIME_TOL)
    if g == 0.0:
        # constant velocity: the prediction is the closing time, and the margin the stated lookahead
        assert predicted == pytest.approx(t_c, abs=1e-9 * t_c)
        assert coarse == pytest.approx(steps.dt, abs=TIME_TOL)
        margin = (t_c - span["from"]) / coarse
        assert lookahead - 1.0 <= margin < lookahead, margin
    else:
        # accelerating: the last step's mean rate is below the current one, the prediction is late
        assert predicted > t_c


def test_no_lookahead_no_fine_steps_before_the_impact():
    """lookahead = 0: no closing is ever predicted soon enough; the first fine span is started by
    the contact status change, after the impact (the coarse step that crossed it)."""
    steps = EventSteps(dt=1e-3, dt_fine=1e-4, lookahead=0.0, fine_after=1e-3)
    t_c = closing_time(0.0206, 1.0, 0.0)
    times, _, spans = run(0.0206, 1.0, 0.0, steps, t_c + 2e-3)
    assert spans and spans[0]["reason"] == "contact status changed"
    assert spans[0]["from"] > t_c
    assert np.all(np.diff(times)[times[1:] <= t_c] > steps.dt_fine * (1 + 1e-9))
