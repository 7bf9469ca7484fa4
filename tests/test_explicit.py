"""Explicit central differences (physical and modal coordinates) and shock post-processing."""
import numpy as np
import pytest

from contact.shocks import detect_shocks
from fem.stage.discrete import SpringProperties, Springs
from fem.time.dynamics import NewtonSettings, Phase, State, integrate
from fem.time.explicit import central_differences, modal_basis, modal_central_differences
from fem.loads.applied import ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import Mesh
from fem.model.assembly import Model

from helpers import GRAPHITE, grid_mesh


def _oscillator(m=100.0, k=1e4):
    mesh = Mesh(np.zeros((1, 2)), {}, {"NO1": np.array([0])})
    model = Model(mesh, {}, point_masses={"NO1": m})
    spring = Springs(mesh, "NO1", SpringProperties((k, k)))
    return mesh, model, spring


def test_central_differences_has_its_discrete_frequency():
    """Undamped oscillator: the leap-frog map rotates with sin(w_d dt / 2) = w dt / 2, exactly."""
    mesh, model, spring = _oscillator()
    dt, w = 5e-3, 10.0
    phase = Phase("free", 0.0, 2.0, dt, constraints=(ImposedDisplacement("NO1", "y"),))
    start = State(0.0, np.zeros(2), np.array([1.0, 0.0]))
    *_, last = central_differences(model, phase, start, [spring])
    w_d = 2 / dt * np.arcsin(w * dt / 2)
    # leap-frog from u0 = 0 gives u1 = dt v0, then u_n = u1 sin(w_d t_n) / sin(w_d dt)
    n = round(2.0 / dt)
    assert last.state.u[0] == pytest.approx(dt * 1.0 * np.sin(w_d * n * dt) / np.sin(w_d * dt), rel=1e-9)
    # and it is close to the exact solution v0/w sin(w t) (second order)
    assert last.state.u[0] == pytest.approx(0.1 * np.sin(20.0), abs=5e-4)


def test_modal_equals_direct_for_a_linear_structure():
    """Free vibration of a clamped block: modal central differences with all modes = physical
    central differences (same scheme, exact change of basis)."""
    mesh = grid_mesh(1, 2)
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="small_strain", lumped_mass=True)
    phase = Phase("free", 0.0, 2e-4, 1e-6, constraints=(ImposedDisplacement("BASE", "x"),
                                                       ImposedDisplacement("BASE", "y")))
    basis = modal_basis(model, phase, n_modes=6)
    v0 = basis.shapes @ np.array([1.0, 0.5, 0, 0, 0.2, 0]) * 1e-3
    start = State(0.0, np.zeros(model.n_dofs), v0)
    *_, direct = central_differences(model, phase, start)
    *_, modal = modal_central_differences(model, phase, start, basis)
    np.testing.assert_allclose(modal.state.u, direct.state.u, atol=1e-9 * np.abs(direct.state.u).max())
    # the basis is mass-normalised and its frequencies solve the eigenproblem
    np.testing.assert_allclose(basis.shapes.T @ model.mass @ basis.shapes, np.eye(6), atol=1e-10)


def test_central_differences_agrees_with_newmark_for_a_slow_motion():
    mesh, model, spring = _oscillator()
    phase = Phase("free", 0.0, 0.5, 1e-4, constraints=(ImposedDisplacement("NO1", "y"),),
                  newton=NewtonSettings(rela=1e-8))
    start = State(0.0, np.zeros(2), np.array([1.0, 0.0]))
    *_, cd = central_differences(model, phase, start, [spring])
    *_, nm = integrate(model, phase, start, [spring])
    assert cd.state.u[0] == pytest.approx(nm.state.u[0], rel=1e-6)


def test_detect_shocks_on_half_sines():
    t = np.linspace(0.0, 1.0, 20001)
    T, F = 0.03126, 9950.0
    pulses = [(0.1, F), (0.6, 0.5 * F)]
    f = np.zeros_like(t)
    for t0, amp in pulses:
        inside = (t >= t0) & (t <= t0 + T)
        f[inside] = amp * np.sin(np.pi * (t[inside] - t0) / T)
    v = np.gradient(-f, t)  # any velocity history
    shocks = detect_shocks(t, f, velocity=v)
    assert len(shocks) == 2
    for s, (t0, amp) in zip(shocks, pulses):
        assert s.start == pytest.approx(t0, abs=1e-4)
        assert s.duration == pytest.approx(T, rel=2e-3)
        assert s.f_max == pytest.approx(amp, rel=1e-5)
        assert s.instant == pytest.approx(t0 + T / 2, abs=1e-4)
        assert s.impulse == pytest.approx(2 * amp * T / np.pi, rel=1e-5)
    with pytest.raises(ValueError, match="strictly increasing"):
        detect_shocks(t[::-1], f)
