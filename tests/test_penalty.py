"""Penalty shock element (Code_Aster DIS_CHOC / DIS_CONTACT): :mod:`contact.penalty`.

What each test checks, and why its tolerance
---------------------------------------------
1. SDND101 one-dof shock (docs/one_dof.md): m = 100 kg on a ground spring
   k = 1e4 N/m hits, at v0 = 1 m/s, a rigid plane through its initial position with K = 1e6 N/m.
   The contact is a half period of the oscillator (k + K, m) entered at zero penetration: duration
   pi/omega_c = 0.031260 s, F_max = K v0/omega_c = 9950.4 N, impulse 2 K v0/omega_c^2 = 198.02 N s,
   and (the ground spring is relaxed at the plane) the mass leaves at -v0, so the total energy
   (kinetic + ground spring + shock) is conserved. Average acceleration, dt = 1e-5 s:
   * the physical values within 0.5 % (the brief's tolerance; the errors are ~1e-7);
   * the energy during contact to 1e-9 (the system is linear there: the trapezoidal rule conserves
     it to round-off) and after the exit to K dt^2/m = 1e-6 (the exit step sees the force at its
     ends only: an error below K (v0 dt)^2 / 2 over m v0^2 / 2);
   * convergence (dt = 4e-5, 2e-5, 1e-5): the duration error equals the trapezoidal rule's period
     elongation, (omega dt/2)/atan(omega dt/2) - 1 (1.3e-6 at 4e-5), within 5 % of itself, and falls
     by 4 +- 0.6 per halving (second order). The peak force is sampled at the steps, so its error is
     not a smooth function of dt: it is checked against the sampling bound (omega dt)^2/8.
2. SDND108 b (§4): m = 1 kg, K = 100 N/m, C = 5 N s/m, g = 10, dropped from a 2 m gap at -1 m/s.
   Steps land on the fall time 0.540312 s as in the Code_Aster time list (the gap is then zero to
   round-off, here 2.7e-15 m inside: the element must treat that as "touching", else Newton
   chatters on the damper's force jump C v = 32 N and the step fails), then dt = 1e-3 s. Detachment when the penetration returns to zero (tension allowed)
   at 0.924039 s within 1e-3 relative; with tension_allowed=False at the zero-force instant 0.86570 s
   within 2e-3 (instants interpolated linearly between steps). The error is first order in dt
   (the damper force jumps at impact, the trapezoidal rule averages it over the first step): 2e-4
   at dt = 1e-3, so the tolerances leave a factor 5. The closed form (damped oscillator entered at
   zero penetration) is evaluated here too and must reproduce both reference instants to 1e-6.
3. SDNV105 modeling B block resting on three shock elements (O, A, O1) on the plane y = 0, gravity
   ramped then held, Static: sum of R_N = M g to 1e-8 (equilibrium, Newton at 1e-10), and the
   penetrations equal those of the same block on linear springs to 1e-8. At rest the elements
   stick, so each is exactly a linear spring of stiffness RIGI_NOR along y and RIGI_TAN along x
   (the tangent t = (-1, 0) of the plane): the reference uses fem.stage.discrete.Springs (1e7, 3e10).
   (Springs (0, 3e10) differ by 5e-8: the tangential springs at O and A restrain the base's Poisson
   spreading, which is why they are kept.)
4. Coulomb cap: 1 kg at rest on a plane (K_n = K_t = 1e6, mu = 0.3), pushed by F = 6 t N. Sticks with
   zero cumulated slip until F = mu m g (within 1 %; the step is dt = 2e-3 s, i.e. 0.4 % of the
   force), then slips with acceleration (F - mu m g)/m within 1 % (checked where F >= 1.5 mu m g;
   it is exact to the Newton tolerance once sliding); |R_T| <= mu R_N (1 + 1e-8) at every step.
5. Consistent tangent: trial states built in stick, slip (both directions), open and pulling
   (tension allowed, or cut when not) regimes on a tilted rigid plane, with damping and a committed
   elongation; d_du and d_dv against central differences of the force, relative 1e-6 (the force
   is piecewise linear for a rigid plane: central differences are exact up to round-off, the step
   stays far from any regime boundary). Also: evaluate is pure; forces on master segments equal
   -(N^T R_N + T^T R_T) with the zone's rows and balance to zero; the phase friction override;
   after a commit the same (u, v) gives the same force, and unloading from slip sticks at once (the
   return mapping stored the elongation the cap allows);
   a node touching to round-off carries no force but has the right-limit tangent.
6. Bad input: each negative DIS_CONTACT parameter raises a ValueError naming its keyword.
"""
import copy
import functools
import logging
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from contact.penalty import ShockLaw, ShockSprings
from contact.state import OPEN, SLIP, STICK
from contact.zone import RigidPlane, node_zone
from fem.stage.discrete import SpringProperties, Springs
from fem.time.dynamics import NewtonSettings, Phase, State, integrate, run_phases
from fem.loads.functions import ramp
from fem.loads.applied import Gravity, ImposedDisplacement, NodalForce
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import CellBlock, Mesh
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.stage.schemes import Newmark, Static
from meshes.generate import reference_mesh_path


def _point_model(mass: float, group: str = "NO1"):
    mesh = Mesh(points=np.zeros((1, 2)), node_groups={group: np.array([0])})
    return mesh, Model(mesh, {}, point_masses={group: mass})


def _crossing(t: np.ndarray, f: np.ndarray, k: int) -> float:
    """Linear interpolation of the zero of f between steps k and k + 1."""
    return float(t[k] + (t[k + 1] - t[k]) * f[k] / (f[k] - f[k + 1]))


# ------------------------------------------------------------------------------ 1. SDND101
M1, K_GROUND, K_SHOCK, V0 = 100.0, 1e4, 1e6, 1.0
OMEGA_C = math.sqrt((K_GROUND + K_SHOCK) / M1)
DURATION = math.pi / OMEGA_C
F_MAX = K_SHOCK * V0 / OMEGA_C
IMPULSE = 2.0 * K_SHOCK * V0 / OMEGA_C**2


@functools.lru_cache(maxsize=None)
def _sdnd101(dt: float):
    """Histories (t, x, v, gap, R_N) of the SDND101 shock with average acceleration."""
    mesh, model = _point_model(M1)
    ground = Springs(mesh, "NO1", SpringProperties((K_GROUND, K_GROUND)))
    shock = ShockSprings(model, node_zone(mesh, "NO1", RigidPlane((0.0, 0.0), (-1.0, 0.0))), ShockLaw(K_SHOCK))
    phase = Phase("shock", 0.0, 0.0316, dt, Newmark(), constraints=(ImposedDisplacement("NO1", "y"),))
    rows = []
    for r in integrate(model, phase, State(0.0, np.zeros(2), np.array([V0, 0.0])), [ground, shock]):
        s = shock.state()
        rows.append((r.state.t, r.state.u[0], r.state.v[0], s.gap[0], s.rn[0]))
    return tuple(np.array(c) for c in zip(*rows))


def _duration(dt: float) -> float:
    t, _, _, gap, _ = _sdnd101(dt)
    assert gap[0] == 0.0  # the plane passes through the initial position: contact from t = 0
    k = int(np.flatnonzero(gap < 0)[-1])
    return _crossing(t, gap, k)


def test_sdnd101_contact_duration_force_impulse_energy():
    dt = 1e-5
    t, x, v, gap, rn = _sdnd101(dt)
    assert DURATION == pytest.approx(0.031260, abs=5e-7) and F_MAX == pytest.approx(9950.4, abs=0.05)
    assert IMPULSE == pytest.approx(198.02, abs=5e-3)
    assert _duration(dt) == pytest.approx(DURATION, rel=5e-3)
    assert rn.max() == pytest.approx(F_MAX, rel=5e-3)
    impulse = float(np.sum(0.5 * (rn[1:] + rn[:-1]) * np.diff(t)))
    assert impulse == pytest.approx(IMPULSE, rel=5e-3)
    # energy: kinetic + ground spring + shock (penalty) energy
    p = np.maximum(-gap, 0.0)
    energy = 0.5 * M1 * v**2 + 0.5 * K_GROUND * x**2 + 0.5 * K_SHOCK * p**2
    e0 = 0.5 * M1 * V0**2
    in_contact = np.flatnonzero(gap < 0)
    np.testing.assert_allclose(energy[: in_contact[-1] + 1], e0, rtol=1e-9)
    assert abs(energy[-1] / e0 - 1.0) <= K_SHOCK * dt**2 / M1
    # after the exit: free oscillation on the ground spring, leaving at -v0
    te = _duration(dt)
    after = t > te
    np.testing.assert_allclose(v[after], -V0 * np.cos(math.sqrt(K_GROUND / M1) * (t[after] - te)), atol=2e-6)


def test_sdnd101_second_order_convergence():
    dts = (4e-5, 2e-5, 1e-5)
    errors = np.array([_duration(dt) / DURATION - 1.0 for dt in dts])
    for dt, err in zip(dts, errors):
        h = OMEGA_C * dt / 2.0
        elongation = h / math.atan(h) - 1.0  # trapezoidal rule: tan(Omega dt / 2) = omega dt / 2
        assert err == pytest.approx(elongation, rel=0.05)
        _, _, _, _, rn = _sdnd101(dt)
        assert 0.0 <= 1.0 - rn.max() / F_MAX <= (OMEGA_C * dt) ** 2 / 8 + 1e-9
    ratios = errors[:-1] / errors[1:]
    assert np.all(np.abs(ratios - 4.0) < 0.6), ratios


# ------------------------------------------------------------------------------ 2. SDND108 b
M2, K2, C2, G2, H2, V2 = 1.0, 100.0, 5.0, 10.0, 2.0, -1.0
T_FALL = (math.sqrt(V2**2 + 2 * G2 * H2) + V2) / G2


def _sdnd108_closed_form():
    """Detachment instants: penetration back to zero, and zero force (damped oscillator from p = 0)."""
    w = math.sqrt(K2 / M2)
    z = C2 / (2 * M2 * w)
    wd = w * math.sqrt(1 - z * z)
    vi = math.sqrt(V2**2 + 2 * G2 * H2)
    a = -G2 / w**2
    b = (vi + z * w * a) / wd

    def p(t):
        return G2 / w**2 + math.exp(-z * w * t) * (a * math.cos(wd * t) + b * math.sin(wd * t))

    def dp(t):
        return math.exp(-z * w * t) * ((-z * w * a + wd * b) * math.cos(wd * t) + (-z * w * b - wd * a) * math.sin(wd * t))

    return T_FALL + brentq(p, 0.1, 0.5, xtol=1e-14), T_FALL + brentq(lambda t: K2 * p(t) + C2 * dp(t), 0.1, 0.5,
                                                                       xtol=1e-14)


def test_sdnd108_closed_form_matches_references():
    assert T_FALL == pytest.approx(0.54031242374329, rel=1e-12)
    t_pen, t_force = _sdnd108_closed_form()
    assert t_pen == pytest.approx(0.92403882542, rel=1e-9)
    assert t_force == pytest.approx(0.86570, rel=1e-5)


@pytest.mark.parametrize("tension, reference, tol", [(True, 0.924039, 1e-3), (False, 0.86570, 2e-3)])
def test_sdnd108_damped_bounce_detachment(tension, reference, tol):
    mesh, model = _point_model(M2)
    law = ShockLaw(K2, C2, tension_allowed=tension)
    shock = ShockSprings(model, node_zone(mesh, "NO1", RigidPlane((0.0, 0.0), (0.0, 1.0)), clearance=H2), law)
    common = dict(scheme=Newmark(), gravity=Gravity((0.0, -G2)), constraints=(ImposedDisplacement("NO1", "x"),))
    # 10 fall steps: the last one ends 2.7e-15 m inside the plane (round-off), the touching case
    phases = [Phase("fall", 0.0, T_FALL, T_FALL / 10, **common), Phase("bounce", T_FALL, 0.95, 1e-3, **common)]
    rows = []
    for r in run_phases(model, phases, State(0.0, np.zeros(2), np.array([0.0, V2])), [shock]):
        s = shock.state()
        rows.append((r.state.t, s.gap[0], s.status[0], r.state.v[1]))
    t, gap, status, vy = (np.array(c) for c in zip(*rows))
    at_fall = int(np.argmin(np.abs(t - T_FALL)))
    assert abs(gap[at_fall]) < 1e-12 and status[at_fall] == OPEN  # touching, no force yet
    assert np.all(status[:at_fall + 1] == OPEN) and status[at_fall + 1] != OPEN
    if tension:
        k = int(np.flatnonzero(gap < 0)[-1])
        detach = _crossing(t, gap, k)
        assert status[k] != OPEN and status[k + 1] == OPEN
    else:
        k = int(np.flatnonzero(status != OPEN)[-1])
        force = K2 * (-gap) - C2 * vy  # K p + C dp/dt, dp/dt = -v_y
        detach = _crossing(t, force, k)
        assert gap[k + 1] < 0  # detached while still penetrating
    assert detach == pytest.approx(reference, rel=tol)
    assert np.all(status[k + 1:] == OPEN)


# ------------------------------------------------------------------------------ 3. SDNV105 B at rest
def test_block_at_rest_on_three_shock_elements():
    mesh = read_mesh(reference_mesh_path("sdnv105_block_quad4"))
    model = Model(mesh, {"BLOCK": ElasticMaterial(6e11, 0.2, 1450.0)})
    law = ShockLaw(normal_stiffness=3e10, normal_damping=9e6, tangential_stiffness=1e7, tangential_damping=1e4,
                   friction=0.9)
    plane = RigidPlane((0.0, 0.0), (0.0, 1.0))
    groups = ("O", "A", "O1")
    shocks = [ShockSprings(model, node_zone(mesh, g, plane, clearance=0.0), law) for g in groups]
    phase = Phase("self-weight", 0.0, 1.0, 0.25, Static(), gravity=Gravity((0.0, -9.81), ramp(0.0, 0.5)),
                  constraints=(ImposedDisplacement("O1", "x", 0.0),), newton=NewtonSettings(rela=1e-10))
    last = list(integrate(model, phase, State.at_rest(model.n_dofs), shocks))[-1].state
    states = [s.state() for s in shocks]
    rn = np.array([s.rn[0] for s in states])
    rt = np.array([s.rt[0] for s in states])
    penetration = -np.array([s.gap[0] for s in states])
    assert [int(s.status[0]) for s in states] == [STICK] * 3
    assert np.all(np.abs(rt) < law.friction * rn)
    weight = model.total_mass() * 9.81
    assert rn.sum() == pytest.approx(weight, rel=1e-8)
    # reference: the same block on linear springs (the sticking elements' stiffness)
    springs = [Springs(mesh, g, SpringProperties((1e7, 3e10))) for g in groups]
    ref = list(integrate(model, phase, State.at_rest(model.n_dofs), springs))[-1].state
    ref_pen = -np.array([ref.u[2 * mesh.node(g) + 1] for g in groups])
    np.testing.assert_allclose(penetration, ref_pen, rtol=1e-8)
    np.testing.assert_allclose(last.u, ref.u, rtol=0, atol=1e-8 * np.abs(ref.u).max())
    assert rn[0] == pytest.approx(rn[1], rel=1e-10)  # symmetry
    assert 0.9 * weight / 3 < rn.min() < rn.max() < 1.1 * weight / 3


# ------------------------------------------------------------------------------ 4. Coulomb cap
def test_coulomb_cap_stick_then_slide(caplog):
    m, g, mu, rate = 1.0, 10.0, 0.3, 6.0
    mesh, model = _point_model(m, "P")
    law = ShockLaw(normal_stiffness=1e6, tangential_stiffness=1e6, friction=mu)
    shock = ShockSprings(model, node_zone(mesh, "P", RigidPlane((0.0, 0.0), (0.0, 1.0))), law)
    phase = Phase("push", 0.0, 1.0, 2e-3, Newmark(), gravity=Gravity((0.0, -g)),
                  forces=(NodalForce("P", "x", rate, ramp(0.0, 1.0, 0.0, 1.0)),), newton=NewtonSettings(rela=1e-10))
    start = State(0.0, np.array([0.0, -m * g / law.normal_stiffness]), np.zeros(2))  # static penetration
    rows = []
    with caplog.at_level(logging.INFO, logger="contact.penalty"):
        for r in integrate(model, phase, start, [shock]):
            if r.iterations == 0:
                continue  # the initial state: nothing committed yet
            s = shock.state()
            rows.append((r.state.t, s.status[0], s.rn[0], s.rt[0], s.slip[0], r.state.a[0]))
    t, status, rn, rt, slip, ax = (np.array(c) for c in zip(*rows))
    assert np.all(np.abs(rt) <= mu * rn * (1 + 1e-8))
    np.testing.assert_allclose(rn, m * g, rtol=1e-8)
    k = int(np.flatnonzero(status == SLIP)[0])
    assert np.all(status[:k] == STICK) and np.all(status[k:] == SLIP)
    assert np.all(slip[:k] == 0.0)
    assert rate * t[k] == pytest.approx(mu * m * g, rel=1e-2)
    assert rate * t[k - 1] <= mu * m * g * (1 + 1e-12)
    sliding = rate * t >= 1.5 * mu * m * g
    np.testing.assert_allclose(ax[sliding], (rate * t[sliding] - mu * m * g) / m, rtol=1e-2)
    # the plane's tangent is t = (-1, 0): sliding toward +x is a negative slip along t
    assert slip[-1] < -0.01 and np.all(np.diff(slip[k:]) < 0) and np.all(rt > 0)
    messages = [r.getMessage() for r in caplog.records]
    assert any("open -> stick" in msg for msg in messages)
    assert any("stick -> slip" in msg for msg in messages)


# ------------------------------------------------------------------------------ 5. tangent
REGIMES = ("stick", "slip+", "slip-", "open", "pulling")


def _regime_states(law: ShockLaw, seed: int):
    """A ShockSprings with five nodes on a tilted rigid plane, a committed elongation, and a trial
    (u, v) putting node i in regime REGIMES[i]."""
    rng = np.random.default_rng(seed)
    n = np.array([0.6, 0.8])
    t = np.array([-n[1], n[0]])
    along = np.linspace(-1.0, 1.0, len(REGIMES))
    points = along[:, None] * t  # on the plane through the origin
    mesh = Mesh(points=points, node_groups={"S": np.arange(len(REGIMES))})
    shock = ShockSprings(mesh, node_zone(mesh, "S", RigidPlane((0.0, 0.0), tuple(n))), law)
    ns = len(REGIMES)
    # committed state: all nodes penetrated and sticking with some elongation
    p_c = rng.uniform(1e-3, 2e-3, ns)
    s_c = rng.uniform(-1e-4, 1e-4, ns) * law.friction
    u_c = (-p_c[:, None] * n + s_c[:, None] * t).ravel()
    shock.set_phase(Phase("p", 0.0, 1.0, 0.1), np.zeros(2 * ns))
    shock.commit(u_c, np.zeros(2 * ns), 0.0)
    assert np.all(shock.state().status == STICK)
    e_n = shock.elongation
    Kn, Cn, Kt, Ct, mu = (law.normal_stiffness, law.normal_damping, law.tangential_stiffness,
                          law.tangential_damping, law.friction)
    p = rng.uniform(1e-3, 3e-3, ns)
    pdot = rng.uniform(-0.05, 0.05, ns)
    p[3] = -rng.uniform(1e-3, 2e-3)  # open
    pdot[4] = -2.0 * Kn * p[4] / max(Cn, 1e-300) if Cn > 0 else pdot[4]  # damper pulls: R_N < 0
    rn = Kn * p + Cn * pdot
    sdot = rng.uniform(-0.05, 0.05, ns)
    ratio = np.array([0.5, 2.0, -2.0, 0.0, 1.5]) * rng.uniform(0.8, 1.2, ns)
    target = ratio * mu * np.abs(rn)  # trial tangential force
    ds = (-target - Ct * sdot) / Kt - e_n
    u = u_c + ((p_c - p)[:, None] * n + ds[:, None] * t).ravel()
    v = (-pdot[:, None] * n + sdot[:, None] * t).ravel()
    return shock, u, v, u_c


def _fd(shock, u, v, h_u, h_v):
    n = u.size
    Ju, Jv = np.zeros((n, n)), np.zeros((n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = h_u
        Ju[:, j] = (shock.evaluate(u + e, v, 0.0, False).force - shock.evaluate(u - e, v, 0.0, False).force) / (2 * h_u)
        e[j] = h_v
        Jv[:, j] = (shock.evaluate(u, v + e, 0.0, False).force - shock.evaluate(u, v - e, 0.0, False).force) / (2 * h_v)
    return Ju, Jv


@pytest.mark.parametrize("tension", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_consistent_tangent_matches_finite_differences(tension, seed):
    law = ShockLaw(normal_stiffness=1e6, normal_damping=2e3, tangential_stiffness=4e5, tangential_damping=3e2,
                   friction=0.4, tension_allowed=tension)
    shock, u, v, _ = _regime_states(law, seed)
    probe = copy.deepcopy(shock)
    probe.commit(u, v, 1.0)
    status = probe.state().status
    expected = [STICK, SLIP, SLIP, OPEN, SLIP if tension else OPEN]
    assert status.tolist() == expected
    rn, rt = probe.state().rn, probe.state().rt
    assert rn[4] < 0 if tension else rn[4] == 0.0
    assert rt[1] * rt[2] < 0 and abs(rt[1]) == pytest.approx(law.friction * rn[1], rel=1e-12)
    tf = shock.evaluate(u, v, 1.0, True)
    # after the commit the elongation has returned: the same (u, v) gives the same forces (in slip
    # the spring now carries exactly the cap), and the statuses of the sticking/slipping nodes hold
    np.testing.assert_allclose(probe.evaluate(u, v, 1.0, False).force, tf.force, rtol=1e-12,
                               atol=1e-12 * np.abs(tf.force).max())
    # elastic unloading from slip: moving back by 20 % of the cap's elongation sticks at 0.8 R_T
    t_dir = probe.state().tangent
    back = np.zeros_like(u).reshape(-1, 2)
    back[1:3] = (0.2 * rt[1:3] / law.tangential_stiffness)[:, None] * t_dir[1:3]
    unload = copy.deepcopy(probe)
    unload.commit(u + back.ravel(), v, 2.0)
    assert unload.state().status[1:3].tolist() == [STICK, STICK]
    np.testing.assert_allclose(unload.state().rt[1:3], 0.8 * rt[1:3], rtol=1e-9)
    Ju, Jv = _fd(shock, u, v, 1e-8, 1e-7)
    for J, fd in ((tf.d_du.toarray(), Ju), (tf.d_dv.toarray(), Jv)):
        np.testing.assert_allclose(J, fd, rtol=1e-6, atol=1e-6 * np.abs(fd).max())
    # the slip rows are unsymmetric (friction follows R_N), the stick ones symmetric
    assert not np.allclose(tf.d_du.toarray(), tf.d_du.toarray().T)


def test_evaluate_is_pure_and_phase_friction_overrides():
    law = ShockLaw(normal_stiffness=1e6, normal_damping=2e3, tangential_stiffness=4e5, tangential_damping=3e2,
                   friction=0.4)
    shock, u, v, u_n = _regime_states(law, 3)
    before = (shock.elongation, shock.state())
    f1 = shock.evaluate(u, v, 1.0, True).force
    shock.evaluate(2 * u, -v, 2.0, True)
    np.testing.assert_array_equal(shock.evaluate(u, v, 1.0, True).force, f1)
    np.testing.assert_array_equal(shock.elongation, before[0])
    assert shock.state() is before[1]
    # phase friction: the slip force follows the phase's coefficient, None restores COULOMB
    for friction, mu in ((0.1, 0.1), (None, 0.4)):
        shock.set_phase(Phase("p", 0.0, 1.0, 0.1, friction=friction), u_n)
        probe = copy.deepcopy(shock)
        probe.commit(u, v, 1.0)
        s = probe.state()
        assert s.status[1] == SLIP
        assert abs(s.rt[1]) == pytest.approx(mu * s.rn[1], rel=1e-12)


def test_touching_node_has_no_force_but_a_tangent():
    """p = 0 up to the gap's round-off: no force (also not the damper's), right-limit tangent
    (normal and stick stiffness), so that Newton can start from bodies laid at zero gap."""
    mesh = Mesh(points=np.array([[0.3, 2.0]]), node_groups={"S": np.array([0])})
    law = ShockLaw(1e6, 1e3, 1e5, 10.0, 0.5)
    shock = ShockSprings(mesh, node_zone(mesh, "S", RigidPlane((0.0, 0.0), (0.0, 1.0)), clearance=-2.0), law)
    for uy in (0.0, -4e-16, 4e-16):
        tf = shock.evaluate(np.array([0.0, uy]), np.array([0.0, -3.0]), 0.0, True)
        np.testing.assert_array_equal(tf.force, 0.0)
        np.testing.assert_allclose(tf.d_du.toarray(), np.diag([1e5, 1e6]))
        np.testing.assert_allclose(tf.d_dv.toarray(), np.diag([10.0, 1e3]))
    tf = shock.evaluate(np.array([0.0, -1e-9]), np.array([0.0, -3.0]), 0.0, True)
    assert tf.force[1] == pytest.approx(-(1e6 * 1e-9 + 1e3 * 3.0))
    tf = shock.evaluate(np.array([0.0, 1e-9]), np.array([0.0, -3.0]), 0.0, True)
    assert tf.d_du is None and np.all(tf.force == 0.0)


def test_master_segment_forces_use_the_zone_rows():
    """Slave nodes against a master segment: force = -(N^T R_N + T^T R_T), zero resultant."""
    points = np.array([[1.0, 0.0], [0.0, 0.0], [0.3, -0.002], [0.7, -0.001], [0.5, 0.01]])
    mesh = Mesh(points=points, cell_groups={"M": CellBlock("line", np.array([[0, 1]]))},
                node_groups={"M": np.array([0, 1]), "S": np.array([2, 3, 4])})
    law = ShockLaw(1e6, 1e3, 1e5, 10.0, 0.3)
    shock = ShockSprings(mesh, node_zone(mesh, "S", "M"), law)
    rng = np.random.default_rng(5)
    u = rng.uniform(-1e-4, 1e-4, 10)
    v = rng.uniform(-1e-2, 1e-2, 10)
    tf = shock.evaluate(u, v, 0.0, True)
    probe = copy.deepcopy(shock)
    probe.commit(u, v, 0.0)
    s = probe.state()
    assert s.status.tolist()[2] == OPEN and s.status[0] != OPEN and s.status[1] != OPEN
    geo = shock.zone.geometry(points, u)
    expected = -(geo.normal_rows(10).T @ s.rn + geo.tangent_rows(10).T @ s.rt)
    np.testing.assert_allclose(tf.force, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    assert abs(tf.force[0::2].sum()) < 1e-9 * np.abs(tf.force).max()
    assert abs(tf.force[1::2].sum()) < 1e-9 * np.abs(tf.force).max()
    # the tangent acts on the same dofs: for a linear stick state it equals the rows' products
    N, T = geo.normal_rows(10), geo.tangent_rows(10)
    on = s.status != OPEN
    kt = np.where(s.status == STICK, law.tangential_stiffness, 0.0)
    ks = np.where(s.status == SLIP, law.friction * np.sign(s.rt) * law.normal_stiffness, 0.0)
    K = N.T @ np.diag(on * law.normal_stiffness) @ N + T.T @ np.diag(kt) @ T + T.T @ np.diag(ks) @ N
    np.testing.assert_allclose(tf.d_du.toarray(), K, rtol=1e-12, atol=1e-12 * np.abs(K).max())


# ------------------------------------------------------------------------------ 6. bad input
@pytest.mark.parametrize("kwargs, keyword", [
    (dict(normal_stiffness=-3e10), "RIGI_NOR"),
    (dict(normal_stiffness=0.0), "RIGI_NOR"),
    (dict(normal_damping=-1.0), "AMOR_NOR"),
    (dict(tangential_stiffness=-1e7), "RIGI_TAN"),
    (dict(tangential_damping=-1e4), "AMOR_TAN"),
    (dict(friction=-0.1), "COULOMB"),
])
def test_bad_law_names_the_keyword(kwargs, keyword):
    args = dict(normal_stiffness=3e10, normal_damping=0.0, tangential_stiffness=0.0, tangential_damping=0.0,
                friction=0.0)
    args.update(kwargs)
    value = next(iter(kwargs.values()))
    with pytest.raises(ValueError, match=keyword) as info:
        ShockLaw(**args)
    assert f"{value:g}" in str(info.value)
