"""The first Newton iterate of a Newmark/HHT step (fem.stage.phase.NewtonSettings.predictor).

The converged step solves the same equations whatever iterate Newton starts from, so the predictors
give the same motion to the Newton tolerance: a mass dropped 0.1 m onto a penalty shock (SDND108's
setting, a nonlinear contact law) bounces back with the same velocities, within RESI_GLOB_RELA
1e-10 of the forces, from the extrapolated acceleration, the extrapolated velocity or the step's
start. A rocking block on a massless base is where they differ in cost (cases/shaking_table.py
--predictor; benchmarks/realtime.py).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from contact.laws import Penalty
from contact.zone import RigidPlane
from fem.io.recorder import NodeProbe
from fem.mesh.mesh import Mesh
from fem.problem import Pair, Problem, Release, Support, Uniform, simulate
from fem.stage.phase import PREDICTORS, NewtonSettings


def bounce(predictor: str) -> dict:
    m, K, h, g = 1.0, 1.0e4, 0.1, 9.81
    mesh = Mesh(np.zeros((1, 2)), {}, {"M": np.array([0])})
    problem = Problem(mesh, bodies=(), point_masses={"M": m}, supports=[Support("M", ("x",))], gravity=g,
                      pairs=[Pair("M", RigidPlane((0.0, 0.0), (0.0, 1.0)), Penalty(K), clearance=h)])
    t_fall = math.sqrt(2 * h / g)
    newton = NewtonSettings(rela=1e-10, max_iterations=40, predictor=predictor)
    out = simulate(problem, [Release(t_fall + 0.05, start=0.0, newton=newton)], steps=Uniform(2e-4),
                   probes=(NodeProbe("vy", "M", "v", "y"),))
    assert out.status == "complete", out.message
    return {"vy": out.history["vy"], "iterations": out.history["iterations"]}


def test_every_predictor_converges_to_the_same_bounce():
    runs = {p: bounce(p) for p in PREDICTORS}
    reference = runs["constant_acceleration"]["vy"]
    assert reference[-1] > 0  # it bounced back up
    for p, run in runs.items():
        np.testing.assert_allclose(run["vy"], reference, rtol=0, atol=1e-8 * np.max(np.abs(reference)), err_msg=p)
    # in free fall the extrapolated acceleration is the exact step: Newton stops at it (0 iterations) or
    # takes one for the round-off of the 1e-10 tolerance; from the step's start or the extrapolated
    # velocity it is off by g dt^2 / 2 and takes one every step
    free = slice(1, 50)
    accelerated = runs["constant_acceleration"]["iterations"][free]
    assert np.all(accelerated <= 1) and np.any(accelerated == 0)
    for p in ("constant_velocity", "none"):
        assert np.all(runs[p]["iterations"][free] == 1), p


def test_an_unknown_predictor_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match="Newton predictor must be one of constant_acceleration, constant_velocity, none"):
        NewtonSettings(predictor="tangent")
