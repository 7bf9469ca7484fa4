"""An event's probes start from the solutions met at nearby instants (fem.time.dynamics._Probes): the
linear interpolation in time between the nearest instants already solved, the solution itself at an
instant already solved. The located landing of a block dropped from a clearance: the step committed to
the located instant, solved already by the last probe, converges in one correction (not the three or
four of a start from the predictor), and the probes after the first start from their neighbours."""
from __future__ import annotations

import math

import numpy as np
import pytest

import fem.time.dynamics as dynamics
from contact.laws import Lagrange
from contact.zone import RigidPlane
from fem.constants import GRAVITY
from fem.model.material import ElasticMaterial
from fem.problem import Body, Pair, Problem, Release, Uniform, simulate
from fem.stage.phase import State
from helpers import grid_mesh

STONE = ElasticMaterial(young=3e10, poisson=0.2, density=2500.0, rayleigh_stiffness=1e-4)


def test_a_probe_starts_between_its_neighbours_and_at_a_solved_instant_from_its_solution():
    u0 = np.array([0.0, 1.0, 2.0])
    probes = dynamics._Probes(State(t=1.0, u=u0, v=np.zeros(3)))
    key = dynamics._masks_key([np.array([True, False])])
    assert probes.start(1.5, key) is None  # nothing solved: the predictor's extrapolation
    u2 = np.array([4.0, 5.0, 10.0])
    probes.keep(2.0, u2)
    np.testing.assert_allclose(probes.start(1.25, key), 0.75 * u0 + 0.25 * u2, rtol=0, atol=1e-15)
    u15 = np.array([1.0, 3.0, 3.0])
    probes.keep(1.5, u15)
    np.testing.assert_allclose(probes.start(1.75, key), 0.5 * u15 + 0.5 * u2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(probes.start(1.1, key), 0.8 * u0 + 0.2 * u15, rtol=0, atol=1e-15)
    assert probes.start(1.5, key) is u15  # an instant solved: its solution
    assert probes.start(2.5, key) is None  # beyond every probe
    other = dynamics._masks_key([np.array([True, True])])
    assert probes.start(1.5, other) is None  # another set of nodes: afresh


@pytest.mark.parametrize("clearance", [1e-3, 2.5e-3])
def test_the_step_to_a_located_landing_converges_in_one_correction(monkeypatch, clearance):
    calls = []
    original = dynamics._newton_step

    def recorded(ctx, state, t1, **kw):
        out = original(ctx, state, t1, **kw)
        calls.append((t1, kw.get("probe", False), kw.get("kept_open") is not None, kw.get("start") is not None,
                      out[1]))
        return out

    monkeypatch.setattr(dynamics, "_newton_step", recorded)
    problem = Problem(grid_mesh(2, 4, width=0.2, height=0.4), bodies=[Body("BLOCK", STONE)],
                      pairs=[Pair("BASE", RigidPlane((0.0, 0.0), (0.0, 1.0)), Lagrange(mu=0.9), clearance=clearance)],
                      mass="redistributed")
    t_land = math.sqrt(2.0 * clearance / GRAVITY)  # free fall from rest over the clearance
    outcome = simulate(problem, [Release(end=t_land + 3e-3, start=0.0)], steps=Uniform(1e-3))
    assert outcome.status == "complete"
    probes = [c for c in calls if c[1] and c[2]]
    committed = [c for c in calls if not c[1] and c[2]]
    assert probes and committed, calls  # the landing was located (probes with the nodes kept open)
    t_star = committed[0][0]
    assert abs(t_star - t_land) < 0.02 * 1e-3 + 1e-6  # located within the tolerance's reach of free fall
    assert any(c[0] == t_star for c in probes)  # the instant committed was probed
    assert committed[0][3] and committed[0][4] == 1  # from the probe's solution: one correction
    assert all(c[3] for c in probes[1:])  # every probe after the first starts from its neighbours
