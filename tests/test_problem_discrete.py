"""Discrete problems and a stage's own gravity (fem.problem: Spring, point masses without a body, the
``gravity`` vector of a stage).

* A mass m hanging on a spring k, gravity applied at once from rest (a base-motion stage with no
  motion): u(t) = -(m g / k)(1 - cos w t), w = sqrt(k / m). Newmark's average acceleration keeps the
  amplitude (no numerical dissipation) and lengthens the period by (w dt)^2 / 12 to leading order:
  with 200 steps a period the lowest point lies within 1e-3 of -2 m g / k at t = pi / w, the largest
  |u| never exceeds 2 m g / k by more than round-off, and the energy books close.
* Launched at v0 on a spring k (a Release with a velocity, SDND101's start): x = (v0 / w) sin(w t).
* A free point mass under a stage's gravity vector (gx, gy) falls as u = g t^2 / 2 in both
  components: Newmark is exact for a constant acceleration (to round-off).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from fem.io.recorder import NodeProbe
from fem.mesh.mesh import Mesh
from fem.problem import BaseMotion, Problem, Release, Spring, Support, Uniform, simulate
from fem.ranges import BadInput

#: the closed forms are the undamped oscillator's: Newmark's average acceleration (HHT alpha 0), whose
#: energy identity is exact, not the simulation's damped default (HHT -0.1)
NEWMARK = 0.0

M, K, G = 2.0, 800.0, 9.81  # kg, N/m, m/s^2: w = 20 rad/s


def one_node() -> Mesh:
    return Mesh(np.zeros((1, 2)), {}, {"M": np.array([0])})


@pytest.mark.parametrize("stiffness", [200.0, 800.0, 5000.0])
def test_a_mass_on_a_spring_loaded_at_once_swings_to_twice_its_static_deflection(stiffness):
    w = math.sqrt(stiffness / M)
    period = 2 * math.pi / w
    problem = Problem(one_node(), bodies=(), point_masses={"M": M}, springs=[Spring("M", (0.0, stiffness))],
                      supports=[Support("M", ("x",))], gravity=G)
    out = simulate(problem, [BaseMotion(1.5 * period)], steps=Uniform(period / 200, alpha=NEWMARK),
                   probes=(NodeProbe("uy", "M", "u", "y"),))
    assert out.status == "complete", out.message
    h = out.history
    static = M * G / stiffness
    k = int(np.argmin(np.abs(h["t"] - period / 2)))
    assert h["uy"][k] == pytest.approx(-2 * static, rel=1e-3)
    assert np.max(np.abs(h["uy"])) <= 2 * static * (1 + 1e-9)
    assert out.energy["relative_error"] < 1e-9


def test_a_stages_gravity_vector_is_the_one_the_mass_falls_with():
    problem = Problem(one_node(), bodies=(), point_masses={"M": M}, gravity=G)
    g = (3.0, -7.0)
    out = simulate(problem, [BaseMotion(0.5, gravity=g)], steps=Uniform(0.01, alpha=NEWMARK),
                   probes=(NodeProbe("ux", "M", "u", "x"), NodeProbe("uy", "M", "u", "y")))
    t = out.history["t"]
    np.testing.assert_allclose(out.history["ux"], 0.5 * g[0] * t**2, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out.history["uy"], 0.5 * g[1] * t**2, rtol=1e-12, atol=1e-15)


def test_discrete_pieces_are_refused_naming_the_key():
    with pytest.raises(BadInput, match=r"bodies: a problem needs at least one body or point mass"):
        Problem(one_node(), bodies=())
    with pytest.raises(BadInput, match=r"springs\.N\.group: the mesh has no line or node group 'N'"):
        simulate(Problem(one_node(), bodies=(), point_masses={"M": M}, springs=[Spring("N", (1.0, 1.0))]),
                 [BaseMotion(0.1)])
    with pytest.raises(BadInput, match=r"springs\.M: spring stiffness must be two values >= 0"):
        simulate(Problem(one_node(), bodies=(), point_masses={"M": M}, springs=[Spring("M", (1.0, -1.0))]),
                 [BaseMotion(0.1)])
    with pytest.raises(BadInput, match=r"stages\.base motion\.gravity: a vector \(gx, gy\)"):
        BaseMotion(0.1, gravity=(1.0,))


@pytest.mark.parametrize("v0", [0.5, -2.0])
def test_a_mass_launched_on_a_spring_swings_to_v0_over_omega(v0):
    """Release(velocity=...) as the first stage: x(t) = (v0 / w) sin(w t); with 200 steps a period the
    largest |x| lies within 1e-3 of |v0| / w and is reached a quarter period in; the books close."""
    w = math.sqrt(K / M)
    period = 2 * math.pi / w
    problem = Problem(one_node(), bodies=(), point_masses={"M": M}, springs=[Spring("M", (K, K))], gravity=0.0)
    out = simulate(problem, [Release(1.25 * period, velocity={"M": (v0, 0.0)}, start=0.0)],
                   steps=Uniform(period / 200, alpha=NEWMARK), probes=(NodeProbe("ux", "M", "u", "x"),))
    h = out.history
    k = int(np.argmax(np.abs(h["ux"])))
    assert abs(h["ux"][k]) == pytest.approx(abs(v0) / w, rel=1e-3) and np.sign(h["ux"][k]) == np.sign(v0)
    assert h["t"][k] == pytest.approx(period / 4, abs=period / 200)
    assert out.energy["relative_error"] < 1e-9


def test_stages_that_share_a_history_write_one_file_from_each_stages_first_step(tmp_path):
    """Settings.histories giving two stages the same name: one history.csv, times strictly increasing
    (no row twice at the stages' boundary), the same motion as one stage run through (to round-off:
    the second stage starts from the first's last state)."""
    w = math.sqrt(K / M)
    period = 2 * math.pi / w
    problem = Problem(one_node(), bodies=(), point_masses={"M": M}, springs=[Spring("M", (K, K))], gravity=0.0)
    launch = Release(period / 2, velocity={"M": (0.5, 0.0)}, start=0.0)
    probes = (NodeProbe("ux", "M", "u", "x"),)
    both = simulate(problem, [launch, BaseMotion(period / 2, name="free")], out=tmp_path / "two",
                    steps=Uniform(period / 100, alpha=NEWMARK), probes=probes, histories={"release": "history", "free": "history"})
    one = simulate(problem, [Release(period, velocity={"M": (0.5, 0.0)}, start=0.0)], steps=Uniform(period / 100, alpha=NEWMARK),
                   probes=probes)
    from fem.io.results import read_history

    h = read_history(tmp_path / "two" / "history.csv")
    assert np.all(np.diff(h["t"]) > 0) and h["t"].size == one.history["t"].size == 101
    np.testing.assert_allclose(h["t"], one.history["t"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(h["ux"], one.history["ux"], rtol=0, atol=1e-12 * 0.5 / w)
    assert not (tmp_path / "two" / "history_2.csv").exists()
