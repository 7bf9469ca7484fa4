"""The index set of the Moreau-Jean theta-method: which contacts a step may close.

A point mass m falls from rest at height h0 onto the rigid plane y = 0 (fem.time.theta with
contact.impacts.VelocityContact, frictionless, no rebound e = 0). Closed form: impact at
t* = sqrt(2 h0 / g) with velocity V = g t*, then at rest on the plane (gap 0, velocity 0) for good.

The scheme: free flight v1 = v0 - g dt, u1 = u0 + dt ((1 - theta) v0 + theta v1), so
y_k = h0 - g t_k^2 / 2 - (theta - 1/2) g dt t_k (exact for theta = 1/2; a first-order drift
otherwise). VelocityContact puts the contact in the step's index set when the gap at the
midpoint prediction, y_k + dt/2 v_k = h0 - g t_k^2 / 2 - theta g dt t_k, is <= 0, i.e. for the
first step [t_k, t_k + dt] with (t_k + theta dt)^2 >= t*^2 + theta^2 dt^2:

    t* - theta dt <= t_k < t* + (1 - theta) dt        (to theta^2 dt^2 / (2 t*) < dt^2 / t*)   (1)

(half a step either side for theta = 1/2: the step whose midpoint first passes t*). In that step
the normal velocity at the end is set to 0 (impulse m |v_k| + m g dt), so
u_{k+1} = u_k + (1 - theta) dt v_k, and with s = t* - t_k the final penetration is

    p = g (t_k^2 + dt t_k - t*^2) / 2 = V (dt/2 - s) - g s (dt - s) / 2                     (2)

(theta drops out: the free-flight drift and the last (1 - theta) move compensate), so by (1)
p lies in [(1/2 - theta) dt V, (3/2 - theta) dt V) up to g dt^2 / 8: less than one step of
travel, |p| < dt V, first order in dt, as the method is with impacts. After it the body stays at
rest on the plane: velocity 0, gap constant.

Selecting the index set from the gap at the step start u0 instead closes the contact only in the
first step that *starts* penetrated, t_k >= t* - (theta - 1/2) dt. For an impact in the first half
of a step (t* = t_n + phi dt, phi < 1/2) that is a whole step late, t_k - t* = (1 - phi) dt,
violating (1), and p = (3/2 - phi) dt V exceeds (3/2 - theta) dt V. The tests use phi = 0.15 and
0.3 (caught with margins >= 0.15 dt, ~100 times the O(dt^2 / t*) slack, t* = 50 dt) and 0.7, 0.85
(where both selections agree), with theta = 1/2 and 0.55.

Also checked: before the impact, free flight against the closed form (theta = 1/2: exact, 1e-12;
0.55: within the drift (theta - 1/2) g dt t); momentum: the impulse of the impact step equals
m (v_{k+1} - v_k) + m g dt (1e-9, the Newton tolerance), and the contact carries exactly the
weight afterwards.
"""
from __future__ import annotations

import numpy as np
import pytest

from contact.impacts import VelocityContact
from contact.state import OPEN
from contact.zone import RigidPlane, node_zone
from fem.time.dynamics import NewtonSettings, Phase, State, integrate
from fem.loads.applied import Gravity
from fem.mesh.mesh import Mesh
from fem.model.assembly import Model
from fem.stage.schemes import Theta

G = 9.81
MASS = 2.0
DT = 1e-3
N_BEFORE = 50  # whole steps before the one holding the impact: t* = (N_BEFORE + phi) dt


def drop(phi: float, theta: float):
    """Run the drop with t* = (N_BEFORE + phi) dt; returns the histories and the closed form."""
    t_star = (N_BEFORE + phi) * DT
    h0 = 0.5 * G * t_star**2
    mesh = Mesh(np.array([[0.0, h0]]), {}, {"P": np.array([0])})
    model = Model(mesh, {}, point_masses={"P": MASS})
    contact = VelocityContact(model, node_zone(mesh, "P", RigidPlane((0.0, 0.0), (0.0, 1.0))), friction=0.0)
    phase = Phase("drop", 0.0, t_star + 10 * DT, DT, scheme=Theta(theta), gravity=Gravity((0.0, -G)),
                  newton=NewtonSettings(rela=1e-10))
    t, y, vy, rn, closed = [], [], [], [], []
    for r in integrate(model, phase, State.at_rest(model.n_dofs), [contact]):
        c = contact.state()
        t.append(r.state.t)
        y.append(h0 + r.state.u[1])
        vy.append(r.state.v[1])
        rn.append(float(c.rn[0]))
        closed.append(bool(c.status[0] != OPEN))
    return dict(t=np.array(t), y=np.array(y), vy=np.array(vy), rn=np.array(rn), closed=np.array(closed),
                t_star=t_star, V=G * t_star, h0=h0)


@pytest.mark.parametrize("theta", [0.5, 0.55])
@pytest.mark.parametrize("phi", [0.15, 0.3, 0.7, 0.85])
def test_impact_is_taken_in_the_step_the_midpoint_predicts(phi, theta):
    r = drop(phi, theta)
    t, y, vy, rn, closed, t_star, V = (r[k] for k in ("t", "y", "vy", "rn", "closed", "t_star", "V"))
    assert not closed[0] and closed[-1]
    k1 = int(np.argmax(closed))  # the step [t[k1-1], t[k1]] holds the impact impulse
    k = k1 - 1
    assert np.all(rn[:k1] == 0.0) and rn[k1] > 0

    # free flight up to the impact step, against h0 - g t^2 / 2
    drift = (theta - 0.5) * G * DT * t[:k1]
    assert np.all(np.abs(y[:k1] - (r["h0"] - 0.5 * G * t[:k1] ** 2)) <= drift + 1e-12 * r["h0"])
    np.testing.assert_allclose(vy[:k1], -G * t[:k1], rtol=0, atol=1e-12 * V)

    # (1) the impact step is the one whose midpoint prediction first passes the plane
    slack = DT**2 / t_star
    assert t_star - theta * DT - slack <= t[k] < t_star + (1 - theta) * DT + slack, \
        f"impact step starts at t* {(t[k] - t_star) / DT:+.2f} dt"

    # (2) penetration below one step of travel; and the body stops: e = 0, then rests on the plane
    penetration = -y[k1:]
    slack = G * DT**2 / 8
    assert np.all(penetration >= (0.5 - theta) * DT * V - slack)
    assert np.all(penetration < (1.5 - theta) * DT * V + slack), \
        f"penetration {penetration.max() / (DT * V):.2f} dt V"
    assert np.abs(vy[k1:]).max() <= 1e-9 * V
    np.testing.assert_allclose(y[k1:], y[k1], rtol=0, atol=1e-12 * r["h0"])
    assert np.all(closed[k1:])

    # momentum: impulse of the impact step, then the plane carries the weight
    np.testing.assert_allclose(rn[k1] * DT, MASS * (vy[k1] - vy[k]) + MASS * G * DT, rtol=1e-9)
    np.testing.assert_allclose(rn[k1 + 1:], MASS * G, rtol=1e-9)
    print(f"\n[phi = {phi}, theta = {theta}] impact step starts at t* {(t[k] - t_star) / DT:+.2f} dt, "
          f"penetration {penetration[0] / (DT * V):+.3f} dt V")
