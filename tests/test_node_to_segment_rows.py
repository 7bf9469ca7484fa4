"""Node-to-segment contact rows with a MOVING master segment (contact/zone.py), against central
differences of the gap and of the projection, on random configurations.

A slave node s against master segments (a, b) in the current configuration x = X + u
(contact.zone, Code_Aster's master normal)::

    d = x_b - x_a,  L = |d|,  t = d / L,  n = (t_y, -t_x)
    xi = (x_s - x_a) . d / L^2                     (projection parameter, 0 at a, 1 at b)
    g  = (x_s - x_a) . n + clearance               (gap; x_s - x_a = xi d + (g - clearance) n)

Differentiating (dt/dd = (I - t t^T) / L, dn/dd = R dt/dd with n = R t): the normal's rotation
cancels against the projection's motion, and the gap gradient is exactly the normal rows of
ContactGeometry.local_rows::

    dg/du_s = n,   dg/du_a = -(1 - xi) n,   dg/du_b = -xi n

The tangential rows T = [t, -(1 - xi) t, -xi t] (the slip increment ds = T [du]: the slave's
motion relative to the master's material point at xi, along t) are the motion of the projection
along the master, L dxi/du, up to the rotation of the normal that the rows hold fixed (module
docstring of contact.zone)::

    L dxi/du = [t, -(1 - xi) t - (g - clearance) n / L, -xi t + (g - clearance) n / L]

so T = L dxi/du exactly for a slave on the master (g = clearance) and
T = L dxi/du + (g - clearance) / L [0, n, -n] otherwise.

Tolerances: every function differenced is smooth (a slave projecting inside one segment, away
from its ends and from the other segments), with coordinates of order 1 m; central differences of
step h = 1e-6 m have a truncation error h^2 / 6 |f'''| ~ 1e-12 / L^2 and a round-off error
~ 1e-16 / h = 1e-10, so the derivatives (order 1) are compared to 1e-7. Swapping the two master
weights changes them by |1 - 2 xi| >= 0.2 here.

The penalty shock element (contact.penalty, normal law only) and the buckling element
(contact.buckling, elastic branch) on such a segment return the resisting force -N^T R_N with
R_N = K p, p = -g: the gradient of the spring's energy K p^2 / 2, checked the same way.
"""
from __future__ import annotations

import numpy as np
import pytest

from contact.buckling import BucklingLaw, BucklingShocks
from contact.penalty import ShockLaw, ShockSprings
from contact.zone import node_zone
from fem.mesh.mesh import CellBlock, Mesh

H = 1e-6  # [m] central-difference step
TOL = 1e-7  # derivatives of order 1 (module docstring)
SEEDS = [0, 1, 2, 3, 4]


def configuration(seed: int, on_master: bool = False, clearance: float = 0.0):
    """A random scene: a master line of three segments (nodes 0-3, a wavy polyline of segment
    length ~1 m, oriented along +x) and one slave node (4) over the middle segment (nodes 1, 2),
    at a gap of a few cm (or on it), projecting at xi in [0.1, 0.4] U [0.6, 0.9]; a random
    displacement u of every node, the master's included (tenths of a metre). Returns (mesh,
    zone, u, xi)."""
    rng = np.random.default_rng(seed)
    master = np.column_stack([np.arange(4.0) + rng.uniform(-0.1, 0.1, 4), rng.uniform(-0.1, 0.1, 4)])
    u = rng.uniform(-0.1, 0.1, 10)
    x = master + u[:8].reshape(4, 2)
    a, b = x[1], x[2]
    d = b - a
    t = d / np.linalg.norm(d)
    n = np.array([t[1], -t[0]])
    xi = rng.choice([rng.uniform(0.1, 0.4), rng.uniform(0.6, 0.9)])
    gap = 0.0 if on_master else rng.choice([-1.0, 1.0]) * rng.uniform(0.01, 0.05)
    slave = a + xi * d + gap * n - u[8:]  # reference position of the slave, so that x_s = a + xi d + gap n
    points = np.vstack([master, slave])
    mesh = Mesh(points, {"MASTER": CellBlock("line", np.array([[0, 1], [1, 2], [2, 3]]))},
                {"S": np.array([4]), "MASTER": np.arange(4)})
    return mesh, node_zone(mesh, "S", "MASTER", clearance=clearance), u, xi


def closed_form(points: np.ndarray, u: np.ndarray, clearance: float):
    """(g, xi, L, t, n) of the slave against segment (1, 2), written here from the docstring."""
    x = points + u.reshape(-1, 2)
    a, b, s = x[1], x[2], x[4]
    d = b - a
    L = float(np.linalg.norm(d))
    t = d / L
    n = np.array([t[1], -t[0]])
    return float((s - a) @ n) + clearance, float((s - a) @ d) / L**2, L, t, n


def central_difference(f, u: np.ndarray) -> np.ndarray:
    """(f(u + h e_j) - f(u - h e_j)) / 2h for every dof j, f scalar."""
    out = np.zeros(u.size)
    for j in range(u.size):
        e = np.zeros(u.size)
        e[j] = H
        out[j] = (f(u + e) - f(u - e)) / (2 * H)
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("clearance", [0.0, 2e-3])
def test_gap_and_projection_are_the_closed_form(seed, clearance):
    mesh, zone, u, xi = configuration(seed, clearance=clearance)
    geo = zone.geometry(mesh.points, u)
    g, xi_cf, _, t, n = closed_form(mesh.points, u, clearance)
    assert geo.master.tolist() == [[1, 2]]  # paired with the middle segment
    assert xi_cf == pytest.approx(xi, abs=1e-12)
    # round-off of sums of coordinates of order 1: 1e-15 m
    assert geo.xi[0] == pytest.approx(xi_cf, abs=1e-13)
    assert geo.gap[0] == pytest.approx(g, abs=1e-13)
    np.testing.assert_allclose(geo.normal[0], n, atol=1e-14)
    np.testing.assert_allclose(geo.tangent[0], t, atol=1e-14)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("on_master", [False, True], ids=["off", "on"])
def test_normal_rows_are_the_gradient_of_the_gap_with_moving_masters(seed, on_master):
    """N = dg/du on every dof: slave n, first master node -(1 - xi) n, second -xi n, zero on the
    nodes of the other segments; against central differences of the zone's own gap."""
    mesh, zone, u, xi = configuration(seed, on_master=on_master, clearance=1e-3)
    geo = zone.geometry(mesh.points, u)
    N = geo.normal_rows(u.size).toarray()[0]
    fd = central_difference(lambda w: float(zone.geometry(mesh.points, w).gap[0]), u)
    np.testing.assert_allclose(N, fd, rtol=0, atol=TOL)
    n = geo.normal[0]
    expected = np.zeros(10)
    expected[8:], expected[2:4], expected[4:6] = n, -(1.0 - xi) * n, -xi * n
    np.testing.assert_allclose(N, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("on_master", [False, True], ids=["off", "on"])
def test_tangent_rows_are_the_motion_of_the_projection(seed, on_master):
    """T = L dxi/du + (g - clearance) / L [0, n, -n] (exactly L dxi/du for a slave on the
    master), against central differences of the zone's own projection parameter."""
    clearance = 1e-3
    mesh, zone, u, _ = configuration(seed, on_master=on_master, clearance=clearance)
    geo = zone.geometry(mesh.points, u)
    T = geo.tangent_rows(u.size).toarray()[0]
    g, xi, L, t, n = closed_form(mesh.points, u, clearance)
    dxi = central_difference(lambda w: float(zone.geometry(mesh.points, w).xi[0]), u)
    rotation = np.zeros(10)
    rotation[2:4], rotation[4:6] = n, -n
    rotation *= (g - clearance) / L
    np.testing.assert_allclose(T, L * dxi + rotation, rtol=0, atol=TOL)
    if on_master:
        np.testing.assert_allclose(T, L * dxi, rtol=0, atol=TOL)
    # the slip of a slave dragged along the moving master: T [du] for du = rigid master motion plus
    # a slide of the slave by s along t is s (a rigid translation of the pair slips nothing)
    du = np.zeros(10)
    shift = np.array([0.3, -0.2])
    du[:8] = np.tile(shift, 4)
    du[8:] = shift + 0.05 * t
    assert T @ du == pytest.approx(0.05, abs=1e-12)


def _energy_gradient(term, energy, u: np.ndarray):
    """The term's resisting force at (u, v = 0) and central differences of ``energy(u)``."""
    force = term.evaluate(u, np.zeros_like(u), 0.0, False).force
    return force, central_difference(energy, u)


@pytest.mark.parametrize("seed", SEEDS)
def test_penalty_and_buckling_forces_are_the_gradient_of_the_spring_energy(seed):
    """Penetrating slave (g < 0): f = -N^T K p = d(K p^2 / 2)/du on the slave and both moving
    master nodes, for the penalty shock element and the buckling element below its critical force
    (elastic branch, R_N = K p). Force scale K |p| ~ 1e4 N: compared to 1e-7 of it."""
    mesh, zone, u, _ = configuration(seed, clearance=0.0)
    g0 = float(zone.geometry(mesh.points, u).gap[0])
    clearance = -abs(g0) - 0.01 if g0 > 0 else -0.01  # a penetration of at least 1 cm
    mesh, zone, u, _ = configuration(seed, clearance=clearance)
    K = 1e6

    def energy(w):
        p = -float(zone.geometry(mesh.points, w).gap[0])
        return 0.5 * K * max(p, 0.0) ** 2

    p = -float(zone.geometry(mesh.points, u).gap[0])
    assert p > 0.005
    penalty = ShockSprings(mesh, zone, ShockLaw(normal_stiffness=K))
    buckling = BucklingShocks(mesh, zone, BucklingLaw(stiffness=K, critical_force=1e3 * K * p,
                                                      post_force=1e3 * K * p))
    for term in (penalty, buckling):
        force, fd = _energy_gradient(term, energy, u)
        np.testing.assert_allclose(force, fd, rtol=0, atol=TOL * K * p)
        assert abs(force[0::2].sum()) < 1e-9 * K * p and abs(force[1::2].sum()) < 1e-9 * K * p  # no net force
