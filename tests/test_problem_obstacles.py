"""Obstacles and integrators of the one-dof benchmarks, stated through the problem API.

* A pair's clearance (Code_Aster JEU): a point mass held ``h`` above a shock element's plane falls
  freely for sqrt(2 h / g) before it touches (the first step carrying a force brackets that instant)
  and then crushes the spring by the closed form p = (m g + sqrt((m g)^2 + 2 K m g h)) / K (energy:
  m g (h + p) = K p^2 / 2); a negative clearance presses it in from the start.
* Two masses flying at each other across a :class:`contact.zone.BiPlane` (Code_Aster BI_PLAN, SDND105
  b): with an elastic law (the critical force out of reach) they swap velocities (equal masses,
  Newmark's average acceleration keeps a linear spring's energy: the error is the step that enters or
  leaves contact, O(dt)); with the FLAMBAGE law (contact.laws.Buckling) the relative kinetic energy
  m v0^2 is the envelope's work at the largest crush, and what flies apart is the unloading triangle
  (measured: 3e-8 off the swap, 4.1e-4 off the work, 3e-6 off the triangle).
  The force falls from F_c to F_p inside one step: the energy error is at most
  (F_c - F_p) |dp/dt| dt / 2 (contact.buckling), 5e-4 of the 1 J here.
* Explicit steps (fem.problem.CentralDifferences): on the modal basis of a mass on a spring against a
  shock (SDND101), each contact lasts pi / omega_c with the peak force K v0 / omega_c and the energy
  books close (central differences are Newmark's beta = 0, gamma = 1/2: its dissipation booked); on the physical
  dofs, a mass launched on a spring swings to v0 / w (central differences: O((w dt)^2)).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from contact.laws import Buckling, Penalty
from contact.zone import BiPlane, RigidPlane
from fem.io.recorder import NodeProbe
from fem.mesh.mesh import Mesh
from fem.problem import (CentralDifferences, Pair, Problem, Release, Settings, Spring, Support, Uniform, assemble,
                         run_stages, simulate)
from fem.ranges import BadInput

#: the closed forms are the undamped oscillator's: Newmark's average acceleration (HHT alpha 0), whose
#: energy identity is exact, not the simulation's damped default (HHT -0.1)
NEWMARK = 0.0

G = 9.81


def one_node() -> Mesh:
    return Mesh(np.zeros((1, 2)), {}, {"M": np.array([0])})


def two_nodes() -> Mesh:
    return Mesh(np.array([[-5.0, 0.0], [5.0, 0.0]]), {}, {"A": np.array([0]), "B": np.array([1])})


@pytest.mark.parametrize("height", [0.01, 0.1, 0.5])
def test_a_mass_held_above_its_shock_by_a_clearance_falls_that_far_first(height):
    m, K = 2.0, 2.0e5
    plane = RigidPlane((0.0, 0.0), (0.0, 1.0))
    problem = Problem(one_node(), bodies=(), point_masses={"M": m}, supports=[Support("M", ("x",))], gravity=G,
                      pairs=[Pair("M", plane, Penalty(K), clearance=height)])
    t_fall = math.sqrt(2 * height / G)
    contact = math.pi * math.sqrt(m / K)
    crush = (m * G + math.sqrt((m * G) ** 2 + 2 * K * m * G * height)) / K
    out = simulate(problem, [Release(t_fall + contact, start=0.0)], steps=Uniform(contact / 400, alpha=NEWMARK),
                   probes=(NodeProbe("uy", "M", "u", "y"),))
    assert out.status == "complete", out.message
    h = out.history
    k = int(np.flatnonzero(h["rn[M/plane]"] > 0)[0])
    assert h["t"][k - 1] < t_fall <= h["t"][k]
    assert -h["uy"].min() - height == pytest.approx(crush, rel=1e-4)  # measured 7e-7 to 7e-6


def test_a_negative_clearance_presses_the_shock_in_from_the_start():
    m, K = 1.0, 1.0e4
    problem = Problem(one_node(), bodies=(), point_masses={"M": m}, supports=[Support("M", ("x",))], gravity=0.0,
                      pairs=[Pair("M", RigidPlane((0.0, 0.0), (0.0, 1.0)), Penalty(K), clearance=-1e-3)])
    out = simulate(problem, [Release(0.01, start=0.0)], steps=Uniform(1e-4, alpha=NEWMARK))
    assert out.history["rn[M/plane]"][1] > 0.9 * K * 1e-3


def biplane_run(tmp_path, law, v0: float, dt: float, t_end: float, gap: float = 0.0):
    """Masses of 1 kg at x = -5 m (A) and 5 m (B) flying at each other at v0 [m/s] each, touching across
    DIST_1 = DIST_2 = 4 m and a clearance making their gap ``gap`` [m] at the start."""
    m = 1.0
    problem = Problem(two_nodes(), bodies=(), point_masses={"A": m, "B": m}, gravity=0.0,
                      supports=[Support("A", ("y",)), Support("B", ("y",))],
                      pairs=[Pair("B", BiPlane("A", (1.0, 0.0), dist_1=4.0, dist_2=4.0), law, clearance=gap - 2.0)])
    assembled = assemble(problem)
    assert assembled.terms[0].buckling_state().gap[0] == pytest.approx(gap, abs=1e-12)
    probes = tuple(NodeProbe(f"v{g}", g, "v", "x") for g in "AB")
    out = run_stages(assembled, [Release(t_end, velocity={"A": (v0, 0.0), "B": (-v0, 0.0)}, start=0.0)],
                     tmp_path, Settings(steps=Uniform(dt, alpha=NEWMARK), probes=probes))
    assert out.status == "complete", out.message
    return out.history, assembled.terms[0]


def test_two_equal_masses_across_an_elastic_biplane_swap_velocities(tmp_path):
    K, v0 = 1.0e4, 0.5
    duration = math.pi * math.sqrt(0.5 / K)  # reduced mass m / 2
    h, term = biplane_run(tmp_path, Buckling(K, critical_force=1e6, post_force=1e6), v0, duration / 500, 3 * duration)
    assert h["vA"][-1] == pytest.approx(-v0, rel=1e-6) and h["vB"][-1] == pytest.approx(v0, rel=1e-6)
    assert term.buckling_state().max_crush[0] == pytest.approx(2 * v0 / math.sqrt(2 * K), rel=1e-9)
    assert not term.buckling_state().buckled[0]


def test_two_masses_crushing_a_buckling_element_spend_its_envelope_work(tmp_path):
    K, Fc, Fp, v0 = 1.0e5, 100.0, 50.0, 1.0
    law = Buckling(K, Fc, Fp)
    h, term = biplane_run(tmp_path, law, v0, 1e-5, 0.05, gap=0.01053)
    k = int(np.flatnonzero(h["vB"] > -v0)[0])  # the first step the element pushes: t = gap / (2 v0)
    assert h["t"][k - 1] < 0.005265 < h["t"][k]
    s = term.buckling_state()
    kinetic = 1.0 * v0**2  # of the relative motion: (m / 2) (2 v0)^2 / 2
    bound = (Fc - Fp) * 2 * v0 * 1e-5 / 2 / kinetic
    assert s.buckled[0]
    assert float(law.envelope_work(s.max_crush[0])) == pytest.approx(kinetic, rel=bound)
    flying_apart = 1.0 * h["vB"][-1] ** 2  # m v1^2 with v_A = -v_B
    assert h["vB"][-1] > 0 and h["vA"][-1] == pytest.approx(-h["vB"][-1], rel=1e-9)
    assert flying_apart == pytest.approx(float(law.released_energy(s.max_crush[0])), rel=1e-4)


def test_modal_central_differences_give_sdnd101s_shock():
    m, k, K, v0 = 100.0, 1.0e4, 1.0e6, 1.0
    omega_c = math.sqrt((k + K) / m)
    problem = Problem(one_node(), bodies=(), point_masses={"M": m}, gravity=0.0, supports=[Support("M", ("y",))],
                      springs=[Spring("M", (k, k))], pairs=[Pair("M", RigidPlane((0.0, 0.0), (-1.0, 0.0)), Penalty(K))])
    dt = 2.5e-5
    out = simulate(problem, [Release(0.05, velocity={"M": (v0, 0.0)}, start=0.0)], steps=CentralDifferences(dt, modes=1))
    h = out.history
    inside = h["t"][h["rn[M/plane]"] > 0]
    assert inside[-1] - inside[0] == pytest.approx(math.pi / omega_c, abs=2 * dt)
    assert h["rn[M/plane]"].max() == pytest.approx(K * v0 / omega_c, rel=1e-3)
    assert out.energy["relative_error"] < 1e-12  # the books on the physical dofs (one mode: the whole free space)


@pytest.mark.parametrize("steps_a_period", [50, 200])
def test_central_differences_on_the_physical_dofs_swing_a_mass_to_v0_over_omega(steps_a_period):
    m, k, v0 = 2.0, 800.0, 0.5
    w = math.sqrt(k / m)
    period = 2 * math.pi / w
    problem = Problem(one_node(), bodies=(), point_masses={"M": m}, springs=[Spring("M", (k, k))], gravity=0.0)
    out = simulate(problem, [Release(period, velocity={"M": (v0, 0.0)}, start=0.0)],
                   steps=CentralDifferences(period / steps_a_period), probes=(NodeProbe("ux", "M", "u", "x"),))
    wdt = 2 * math.pi / steps_a_period
    assert np.max(np.abs(out.history["ux"])) == pytest.approx(v0 / w, rel=wdt**2 / 8 + wdt / steps_a_period)


def test_obstacle_pieces_are_refused_naming_the_key():
    with pytest.raises(BadInput, match=r"pairs\.M/plane\.clearance: a finite number"):
        Pair("M", RigidPlane((0.0, 0.0), (0.0, 1.0)), Penalty(1.0), clearance=math.nan)
    problem = Problem(one_node(), bodies=(), point_masses={"M": 1.0},
                      pairs=[Pair("M", BiPlane("N"), Buckling(1.0, 1.0, 0.5))])
    with pytest.raises(BadInput, match=r"pairs\.M/N\.master: the mesh has no line or node group 'N'"):
        assemble(problem)
    with pytest.raises(BadInput, match=r"steps\.modes: an integer >= 1"):
        CentralDifferences(1e-3, modes=0)


def test_the_report_states_what_a_release_launches(tmp_path):
    problem = Problem(one_node(), bodies=(), point_masses={"M": 1.0}, springs=[Spring("M", (100.0, 100.0))], gravity=0.0)
    simulate(problem, [Release(0.01, velocity={"M": (0.5, 0.0)}, start=0.0)], steps=CentralDifferences(1e-3),
             out=tmp_path / "run")
    report = (tmp_path / "run" / "report.md").read_text()
    assert "- release: let go, M at (0.5, 0) m/s (the rest at rest) from 0 s to 0.01 s" in report
