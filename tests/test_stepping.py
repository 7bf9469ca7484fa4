"""Event-driven step control (fem.time.stepping) and the table-frame load of a moving support
(fem.loads.applied.InertialLoad, fem.loads.base_motion.table_frame_load)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fem.loads import base_motion as bm
from fem.time.dynamics import Phase, State, integrate
from fem.loads.applied import ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.model.assembly import Model
from fem.stage.schemes import Newmark
from fem.time.stepping import EventSteps, RigidMotion, error_indicator, time_to_closing
from helpers import grid_mesh


# ----------------------------------------------------------------------------------- the table's frame
def _column():
    mesh = grid_mesh(2, 8, width=0.2, height=1.0)
    return Model(mesh, {"BLOCK": ElasticMaterial(1.0e8, 0.25, 1000.0)})


def _top_x(model, phase, state, shift=None):
    top = model.mesh.node("C1")
    t, x = [], []
    for r in integrate(model, phase, state):
        t.append(r.state.t)
        x.append(r.state.u[2 * top] - (shift(r.state.t) if shift else 0.0))
    return np.array(t), np.array(x)


@pytest.mark.parametrize("history", [bm.Harmonic(3.0, 8.0, cycles=2, smooth_start=0.05), bm.SinePulse(4.0, 5.0)],
                         ids=["harmonic", "sine-pulse"])
def test_the_table_frame_load_is_the_moving_support_seen_from_the_table(history):
    """An elastic column (first bending mode ~25 Hz) clamped on a table moving along x: the run in
    the table's frame (supports fixed, load -M e a(t)) gives the relative displacement of the run
    in absolute coordinates (the base imposed at d(t)), u_rel = u_abs - d(t), to the discretisation
    error of the two: the absolute run's base follows Newmark's recursion of d(t_n), an O(dt^2)
    departure of its acceleration from a(t). Halving dt divides the difference by 4 (second order:
    measured 5.9e-4, 1.5e-4, 3.7e-5 of the response for the harmonic, 2.7e-4, 6.8e-5, 1.7e-5 for the
    pulse), so it is the discretisation's and not a missing term (which would not shrink)."""
    model = _column()
    t_end = 0.3
    fixed = (ImposedDisplacement("BASE", "x"), ImposedDisplacement("BASE", "y"))
    moving = (bm.support_motion("BASE", history, "x"), ImposedDisplacement("BASE", "y"))
    gaps = []
    for dt in (1e-3, 5e-4, 2.5e-4):
        relative = Phase("relative", 0.0, t_end, dt, Newmark(), constraints=fixed,
                         inertial=(bm.table_frame_load(history, "x"),))
        absolute = Phase("absolute", 0.0, t_end, dt, Newmark(), constraints=moving)
        t, x_rel = _top_x(model, relative, State.at_rest(model.n_dofs))
        _, x_abs = _top_x(model, absolute, State.at_rest(model.n_dofs), lambda s: float(history.displacement(s)))
        scale = np.max(np.abs(x_rel))
        assert scale > 1e-4  # the column does respond (m)
        gaps.append(np.max(np.abs(x_abs - x_rel)) / scale)
    assert gaps[-1] < 1e-4
    assert gaps[0] / gaps[1] > 3.5 and gaps[1] / gaps[2] > 3.5, gaps


def test_the_table_frame_load_is_minus_the_mass_times_the_table_acceleration():
    """f = -M e a(t): its x resultant is -(total mass) a(t), nothing along y, and with the
    redistributed mass (massless base) the base nodes get none of it."""
    mesh = grid_mesh(4, 4, width=0.36, height=0.80)
    material = ElasticMaterial(6e11, 0.2, 1450.0)
    history = bm.Ramp(2.0, 0.1, 0.1)
    for mass, massless in (("consistent", ()), ("redistributed", ("BASE",))):
        model = Model(mesh, {"BLOCK": material}, mass=mass, massless=massless)
        phase = Phase("p", 0.0, 0.1, 0.05, Newmark(), inertial=(bm.table_frame_load(history, "x"),),
                      constraints=(ImposedDisplacement("BASE", "y"),))
        from fem.time.dynamics import make_context  # the phase's resolved loads

        f = make_context(model, phase, ()).loads.at(0.15)
        assert f[0::2].sum() == pytest.approx(-model.total_mass() * 2.0, rel=1e-12)
        assert np.all(f[1::2] == 0.0)
        if massless:
            assert np.all(f[2 * mesh.nodes("BASE")] == 0.0)


# ----------------------------------------------------------------------------------- step control
def test_event_steps_refuse_impossible_settings():
    with pytest.raises(ValueError, match="dt_fine"):
        EventSteps(dt=1e-3, dt_fine=2e-3)
    with pytest.raises(ValueError, match="dt must be > 0"):
        EventSteps(dt=0.0, dt_fine=1e-4)
    with pytest.raises(ValueError, match="growth"):
        EventSteps(dt=1e-3, dt_fine=1e-4, growth=1.0)
    with pytest.raises(ValueError, match="tolerance"):
        EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=-1.0)


def test_time_to_closing_extrapolates_each_open_node_at_its_rate():
    gap0 = np.array([1e-3, 2e-3, 0.0, 1e-3])
    gap1 = np.array([0.5e-3, 1.9e-3, 0.0, 1.2e-3])
    closed = np.array([False, False, True, False])
    # node 0 closes in 0.5e-3 / (0.5e-3 / 1e-3) = 1e-3 s, node 1 in 1.9e-2 s; node 3 opens
    assert time_to_closing(gap0, gap1, closed, 1e-3) == pytest.approx(1e-3, rel=1e-12)
    assert time_to_closing(gap0[3:], gap1[3:], closed[3:], 1e-3) == math.inf


def test_the_error_indicator_reads_the_rigid_motion_and_not_the_ringing():
    """A rigid field a_G + w' x (x - x_G) gives |a_G| + r |w'| exactly; a field that alternates in
    sign between neighbouring nodes (an unresolved elastic mode) with zero mean and zero moment
    gives nothing."""
    mesh = grid_mesh(2, 2, width=1.0, height=2.0)
    model = Model(mesh, {"BLOCK": ElasticMaterial(1e9, 0.0, 1000.0)}, lumped_mass=True)
    body = RigidMotion.of(model, np.arange(mesh.n_nodes))
    x = mesh.points[:, :2] - (body.mass @ mesh.points[body.nodes, :2]) / body.mass.sum()
    aG, spin = np.array([0.3, -0.4]), 2.0
    a = np.column_stack([aG[0] - spin * x[:, 1], aG[1] + spin * x[:, 0]]).ravel()
    assert body.change(np.zeros_like(a), a) == pytest.approx(0.5 + body.gyration * spin, rel=1e-12)
    assert error_indicator(0.25, 1e-3, np.zeros_like(a), a, [body]) == pytest.approx(
        (0.25 - 1 / 6) * 1e-6 * (0.5 + body.gyration * spin), rel=1e-12)
    ring = np.zeros((mesh.n_nodes, 2))
    centre = np.argmin(np.hypot(*x.T))
    ring[:, 1] = np.where(np.abs(x[:, 0]) > 1e-12, 1.0, 0.0)  # the outer columns up
    ring[centre, 1] = 0.0
    ring[:, 1] -= (body.mass @ ring[:, 1]) / body.mass.sum()  # zero mean; symmetric: zero moment
    assert body.change(np.zeros(model.n_dofs), ring.ravel()) == pytest.approx(0.0, abs=1e-12)
