"""A stage marched by a step controller (fem.time.march, fem.time.windows, fem.time.stepping).

The scene: a point mass (fem.model.assembly point mass) above a rigid plane, moving towards it at V
with no gravity, and a penalty shock element (contact.penalty, stiffness k) that acts only once it
touches: the node closes at t_c = h0 / V exactly and, on the spring, stays closed for half a period
pi sqrt(m / k). Before the impact no force acts, so Newmark reproduces the motion exactly and the
gaps at the step starts are h0 - V t to round-off.

* uniform steps marched are the phase loop's steps, bit for bit (one context either way);
* the forces are evaluated once per Newton iteration and never again at a step's start: the model's
  force evaluations are 1 (the stage's start) + sum over steps of (iterations + 1);
* a scheme that changes from step to step (HHT alpha -0.3, 0, -0.1, ...) keeps the energy books
  closed (each step's identity with its own alpha, the scheme force handed over);
* the windows: fine steps in a fine window, coarse ones elsewhere, a refinement from the coarse step
  where the closing is predicted within 1.5 coarse steps, and a fine window extended by a chunk while
  the node's status changed during the last chunk.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from contact.penalty import ShockLaw, ShockSprings
from contact.zone import RigidPlane, node_zone
from fem.loads.applied import ImposedDisplacement
from fem.mesh.mesh import Mesh
from fem.model.assembly import Model
from fem.stage.phase import Phase, State
from fem.stage.schemes import HHT, Newmark
from fem.time.dynamics import energy_report, integrate
from fem.time.march import Planned, Step, UniformSteps, march
from fem.time.stepping import EventSteps, run_with_events
from fem.time.windows import ImpactRefinement, Settling, Window, WindowSteps

H0, V, K = 0.01, 0.1, 1e6  # m, m/s, N/m: closes at t_c = 0.1 s, for pi / 1000 s
T_C = H0 / V


def scene():
    mesh = Mesh(np.array([[0.0, H0]]), {}, {"P": np.array([0])})
    model = Model(mesh, {}, point_masses={"P": 1.0})
    shock = ShockSprings(model, node_zone(mesh, "P", RigidPlane((0.0, 0.0), (0.0, 1.0))), ShockLaw(K))
    phase = Phase("fall", 0.0, 0.2, 1e-3, Newmark(), constraints=(ImposedDisplacement("P", "x"),))
    return model, shock, phase, State(0.0, np.zeros(2), np.array([0.0, -V]))


def steps_of(generator) -> list:
    return list(generator)


def test_uniform_steps_marched_are_the_phase_loops_steps_bit_for_bit():
    model, shock, phase, state = scene()
    looped = steps_of(integrate(model, phase, state, [shock]))
    model, shock, phase, state = scene()
    marched = steps_of(march(model, phase, state, [shock], UniformSteps(phase.t_end, phase.dt, phase.scheme)))
    assert len(marched) == len(looped) == 201
    for a, b in zip(looped, marched):
        assert a.state.t == b.state.t
        assert np.array_equal(a.state.u, b.state.u) and np.array_equal(a.state.v, b.state.v)
        assert a.iterations == b.iterations and a.archived == b.archived
    assert min(r.state.u[1] for r in marched) < -H0  # the impact happened inside the run


def test_the_forces_are_evaluated_once_per_newton_iteration_not_again_at_a_steps_start():
    model, shock, phase, state = scene()
    calls = []
    evaluate = model.evaluate
    model.evaluate = lambda u, v: calls.append(1) or evaluate(u, v)
    steps = EventSteps(dt=2e-3, dt_fine=1e-4, fine_after=2e-3)
    results = steps_of(run_with_events(model, phase, state, [shock], [shock], steps, scheme_fine=HHT(-0.2)))
    made = results[1:]
    assert len(made) > 50 and all(r.substeps == 1 for r in made)
    # a phase built per step would evaluate them once more per step, at its start
    assert len(calls) == 1 + sum(r.iterations + 1 for r in made)
    dts = np.diff([r.state.t for r in results])
    assert dts.min() == pytest.approx(1e-4, rel=1e-9) and dts.max() == pytest.approx(2e-3, rel=1e-9)


def books_with(alphas) -> dict:
    """Energy books at 0.2 s of the fall marched in steps of 0.1 ms, the k-th with HHT(alphas[k % n])."""
    model, shock, phase, state = scene()

    def plan(state):
        k = 0
        while state.t < 0.2 - 1e-12:
            state = yield Step(min(state.t + 1e-4, 0.2), HHT(alphas[k % len(alphas)]))
            k += 1

    results = steps_of(march(model, phase, state, [shock], Planned(plan)))
    assert len(results) == 2001
    return energy_report(model, results[-1].state)


def test_a_scheme_that_changes_every_step_keeps_the_energy_books_closed():
    """The HHT alpha alternating -0.3, 0, -0.1 through the impact: every step's energy identity
    (fem.stage.energy) holds with its own alpha, so the books close to round-off: 1e-9 of the kinetic
    energy (0.005 J; a constant alpha = -0.3 closes them to 3.6e-13 J, measured; a scheme force not
    handed over from one alpha to the next would miss by the order of the dissipation, 1e-4 J). Each
    step used its own alpha: the scheme's dissipation lies between constant -0.1's and -0.3's, and
    nothing was given back (kinetic energy below the initial)."""
    ke0 = 0.5 * V * V
    books = books_with((-0.3, 0.0, -0.1))
    assert abs(books["balance_error"]) < 1e-9 * ke0
    low, high = books_with((-0.1,))["numerical_dissipation"], books_with((-0.3,))["numerical_dissipation"]
    assert 0 < low < books["numerical_dissipation"] < high
    assert books["kinetic"] < ke0


def step_lengths(results) -> tuple[np.ndarray, np.ndarray]:
    t = np.array([r.state.t for r in results])
    return t[:-1], np.diff(t)


def test_a_coarse_window_refines_from_the_step_where_the_impact_is_predicted():
    """Coarse steps of 1 ms: at t = 0.099 s the gap and its rate predict the closing at 0.1 s, within
    1.5 coarse steps: fine steps of 10 us from 0.099 s to 3 ms past the predicted impact, coarse ones
    again after; no step of the coarse window is refined before 0.099 s (at 0.098 s the impact is
    2 ms away, beyond 1.5 ms)."""
    model, shock, phase, state = scene()
    controller = WindowSteps([Window(0.0, 0.2, 1e-3, Newmark())], 0.2, [shock],
                             refine=ImpactRefinement(1e-5, HHT(-0.2), after=3e-3), settle=Settling())
    results = steps_of(march(model, phase, state, [shock], controller))
    (first,) = controller.refinements
    assert first["from"] == pytest.approx(0.099, abs=1e-12)
    assert first["predicted_impact"] == pytest.approx(T_C, abs=1e-12)
    assert first["to"] == pytest.approx(0.103, abs=1e-12)
    starts, dt = step_lengths(results)
    inside = (starts >= 0.099 - 1e-12) & (starts < 0.103 - 1e-12)
    assert np.allclose(dt[inside], 1e-5, rtol=1e-6) and inside.sum() == 400
    assert np.allclose(dt[~inside][:-1], 1e-3, rtol=1e-6)  # the last one ends at the stage's end
    assert results[-1].state.t == 0.2


def test_a_fine_window_is_extended_while_the_node_status_changes():
    """A fine window 0.0995-0.1005 s over the landing at 0.1 s: at its end the node's status changed
    within the last millisecond, so fine steps go on by 1 ms, to 0.1015 s, where the last millisecond
    saw it closed throughout: coarse steps from there. No impact predicted in the coarse window before
    it (the closing, 1 ms after 0.099 s, is past the fine window's start)."""
    model, shock, phase, state = scene()
    windows = [Window(0.0, 0.0995, 1e-3, Newmark()), Window(0.0995, 0.1005, 1e-5, HHT(-0.1), fine=True),
               Window(0.1005, 0.2, 1e-3, Newmark())]
    controller = WindowSteps(windows, 0.2, [shock], refine=ImpactRefinement(1e-5, HHT(-0.2)), settle=Settling())
    results = steps_of(march(model, phase, state, [shock], controller))
    assert len(controller.refinements) == 1
    settled = controller.refinements[0]
    assert settled["reason"] == "contact statuses still changing"
    assert (settled["from"], settled["to"]) == pytest.approx((0.1005, 0.1015), abs=1e-12)
    starts, dt = step_lengths(results)
    fine = (starts >= 0.0995 - 1e-12) & (starts < 0.1015 - 1e-12)
    assert np.allclose(dt[fine], 1e-5, rtol=1e-6) and fine.sum() == 200
    coarse = dt[~fine]
    assert np.all(coarse <= 1e-3 * (1 + 1e-9)) and np.sum(np.isclose(coarse, 1e-3, rtol=1e-6)) >= len(coarse) - 2
    assert results[-1].state.t == 0.2


def test_stop_ends_the_stage_at_the_step_it_sees_archived():
    model, shock, phase, state = scene()
    results = steps_of(march(model, phase, state, [shock], UniformSteps(0.2, 1e-3, Newmark(), archive_every=50),
                             stop=lambda r: r.state.u[1] < -H0))
    assert results[-1].archived and results[-1].state.u[1] < -H0 <= results[-2].state.u[1]
    assert results[-1].state.t == pytest.approx(math.floor(T_C / 1e-3 + 1) * 1e-3, abs=1.5e-3)
