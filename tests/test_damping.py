"""Rayleigh damping through the real time integrator, against the closed-form damped free vibration.

Model: a clamped-base graphite block (grid_mesh(1, 2), QUA4, small strain) with Code_Aster's
Rayleigh damping C = AMOR_ALPHA K + AMOR_BETA M (fem.model.material, fem.model.assembly). The first eigenpair
(omega, phi) of (K, M) on the free dofs comes from scipy (phi M-normalised). C is classical
(a combination of K and M), so the modes stay uncoupled and the modal coordinate
q(t) = phi^T M u(t) of a start u0 = q0 phi at rest obeys q'' + 2 zeta omega q' + omega^2 q = 0 with

    zeta = AMOR_BETA / (2 omega) + AMOR_ALPHA omega / 2,
    q(t) = q0 exp(-zeta omega t) (cos wd t + zeta / sqrt(1 - zeta^2) sin wd t),  wd = omega sqrt(1 - zeta^2).

Cases: mass-proportional only (AMOR_BETA = 1200 1/s, zeta = 0.047), stiffness-proportional only
(AMOR_ALPHA = 8e-6 s, zeta = 0.051), both (4e-6 s and 600 1/s, zeta = 0.049); schemes: average
acceleration Newmark(1/4, 1/2), HHT alpha = -0.1 with MODI_EQUI 'OUI' (equilibrium at the
alpha-weighted time, damping force included in the previous-step term) and 'NON' (Newmark with
beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha).

What is asserted, and why each tolerance
----------------------------------------
The schemes have their own error, so the closed form is approached, not met: every run is made
at dt = T/40 and dt = T/80 over two periods (T = 2 pi / omega), and the largest error over the
common instants, e(dt) = max |q_h(t_n) - q(t_n)| / q0, must

1. converge at the scheme's order p (2 for average acceleration and HHT 'OUI', 1 for 'NON', whose
   gamma > 1/2 adds the algorithmic damping ratio (gamma - 1/2) Omega / 2, Omega = omega dt):
   e(dt) / e(dt/2) = 2^p within 10 % (the next term of the error expansion is relatively
   O(Omega) ~ 0.16 at most here; observed within 0.5 %). A damping force that is wrong by a
   fixed fraction (dropped from the previous-step term of the HHT residual, AMOR_ALPHA scaled)
   adds an error that does not shrink with dt: the ratio falls towards 1;
2. vanish in the Richardson extrapolation (2^p q_{dt/2} - q_dt) / (2^p - 1): removing the
   leading term C dt^p must do better than halving the step once more, i.e. its error must be
   below e(dt/2) / 2^p (observed 0.03 of e(dt/2) for p = 2, 0.21 for p = 1, where the
   second-order phase error is what remains). With a wrong damping force the extrapolation
   converges to the wrong damped motion, a few percent of q0 away;
3. be of the size the scheme's order predicts: for p = 2 at most twice the phase error of average
   acceleration, omega t (Omega^2 / 12) (relative period elongation Omega^2/12; HHT 'OUI' adds a
   comparable amplitude term, observed 1.26 times it); for 'NON' at most twice the decay its
   algorithmic damping adds, (gamma - 1/2) (Omega / 2) omega t;
4. stay in the mode: |u - q phi|_M <= 1e-9 q0 (classical damping; only round-off and the Newton
   tolerance 1e-10 remain).

A one-dof oscillator (point mass, fem.stage.discrete.Springs spring and dashpot to the ground) is
checked the same way with average acceleration and HHT 'OUI' (zeta = c / (2 sqrt(k m)) = 0.1):
the dashpot force enters the residual as a force term, through a different path than Rayleigh
damping.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

from fem.stage.discrete import SpringProperties, Springs
from fem.time.dynamics import NewtonSettings, Phase, State, integrate
from fem.loads.applied import ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import Mesh
from fem.model.assembly import Model
from fem.stage.schemes import HHT, Newmark
from tests.helpers import GRAPHITE, grid_mesh

CLAMPED = (ImposedDisplacement("BASE", "x"), ImposedDisplacement("BASE", "y"))
# one Newton correction solves a linear step exactly; the criterion only has to sit above the
# round-off floor of Newmark's a = (u - u0 - dt v0) / (beta dt^2) - ..., ~1e-13 of the forces at
# Omega = 2 pi / 80, so that no step fails on round-off. Its error, < 1e-10 of the forces per
# step, is five decades below the errors measured here.
TIGHT = NewtonSettings(rela=1e-10)
ALPHA_HHT = -0.1
#: (AMOR_ALPHA [s], AMOR_BETA [1/s]) per case
RAYLEIGH = {"mass": (0.0, 1200.0), "stiffness": (8e-6, 0.0), "both": (4e-6, 600.0)}
#: scheme, order of accuracy, algorithmic gamma - 1/2
SCHEMES = {
    "average-acceleration": (Newmark(), 2, 0.0),
    "hht-oui": (HHT(ALPHA_HHT, modified_equilibrium=True), 2, -ALPHA_HHT),
    "hht-non": (HHT(ALPHA_HHT, modified_equilibrium=False), 1, -ALPHA_HHT),
}
STEPS_PER_PERIOD = 40  # and twice as many
PERIODS = 2


def damped_free_vibration(t: np.ndarray, omega: float, zeta: float) -> np.ndarray:
    """q(t) / q0 of q'' + 2 zeta omega q' + omega^2 q = 0, q(0) = q0, q'(0) = 0 (zeta < 1)."""
    s = np.sqrt(1.0 - zeta**2)
    wd = omega * s
    return np.exp(-zeta * omega * t) * (np.cos(wd * t) + zeta / s * np.sin(wd * t))


@pytest.fixture(scope="module")
def block():
    """(mesh, omega_1, phi_1 full-size and M-normalised) of the undamped clamped block, from scipy."""
    mesh = grid_mesh(1, 2)
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="small_strain")
    base = mesh.nodes("BASE")
    free = np.setdiff1d(np.arange(model.n_dofs), np.concatenate([2 * base, 2 * base + 1]))
    K = model.stiffness().toarray()[np.ix_(free, free)]
    M = model.mass.toarray()[np.ix_(free, free)]
    w2, V = sl.eigh(K, M)
    phi = np.zeros(model.n_dofs)
    phi[free] = V[:, 0]
    return mesh, float(np.sqrt(w2[0])), phi


def modal_history(model: Model, phi: np.ndarray, scheme, dt: float, n_steps: int, q0: float, terms=(),
                  constraints=CLAMPED):
    """Times, q(t_n)/q0 and the largest off-mode part |u - q phi|_M / q0 of a free vibration
    started at u0 = q0 phi at rest, through fem.time.dynamics.integrate."""
    phase = Phase("free", 0.0, n_steps * dt, dt, scheme=scheme, constraints=constraints, newton=TIGHT)
    t, q, off = [], [], 0.0
    M = model.mass
    for r in integrate(model, phase, State.at_rest(model.n_dofs, 0.0, q0 * phi), terms):
        u = r.state.u
        qn = float(phi @ (M @ u))
        rest = u - qn * phi
        off = max(off, float(np.sqrt(max(rest @ (M @ rest), 0.0))))
        t.append(r.state.t)
        q.append(qn / q0)
    assert len(t) == n_steps + 1
    return np.array(t), np.array(q), off / q0


def check_convergence(histories, exact, order: int, bound: float) -> dict[str, float]:
    """Assertions 1-3 of the module docstring on the coarse (dt) and fine (dt/2) histories."""
    (t1, q1), (t2, q2) = histories
    np.testing.assert_allclose(t2[::2], t1, rtol=0, atol=1e-12 * t1[-1])
    e1 = np.abs(q1 - exact(t1)).max()
    e2 = np.abs(q2 - exact(t2)).max()
    richardson = (2**order * q2[::2] - q1) / (2**order - 1)
    e_r = np.abs(richardson - exact(t1)).max()
    ratio = e1 / e2
    assert ratio == pytest.approx(2**order, rel=0.1), f"e(dt) = {e1:.3e}, e(dt/2) = {e2:.3e}"
    assert e_r <= e2 / 2**order, f"extrapolated error {e_r:.3e} vs e(dt/2) = {e2:.3e}"
    assert e2 <= bound, f"e(dt/2) = {e2:.3e} above the order estimate {bound:.3e}"
    return dict(e1=e1, e2=e2, ratio=ratio, richardson=e_r)


@pytest.mark.parametrize("scheme_name", list(SCHEMES))
@pytest.mark.parametrize("case", list(RAYLEIGH))
def test_rayleigh_damped_mode_matches_closed_form(block, case, scheme_name):
    mesh, omega, phi = block
    amor_alpha, amor_beta = RAYLEIGH[case]
    zeta = amor_beta / (2 * omega) + amor_alpha * omega / 2
    assert 0.04 < zeta < 0.06  # lightly damped: the decay and the oscillation both show in two periods
    material = ElasticMaterial(**GRAPHITE, rayleigh_stiffness=amor_alpha, rayleigh_mass=amor_beta)
    model = Model(mesh, {"BLOCK": material}, kinematics="small_strain")
    scheme, order, gamma_excess = SCHEMES[scheme_name]
    period = 2 * np.pi / omega
    histories = []
    for n in (STEPS_PER_PERIOD, 2 * STEPS_PER_PERIOD):
        t, q, off = modal_history(model, phi, scheme, period / n, PERIODS * n, q0=1e-6)
        assert off <= 1e-9, f"the motion left the mode: {off:.2e}"
        histories.append((t, q))
    Omega = omega * period / (2 * STEPS_PER_PERIOD)  # of the fine run
    wt = omega * PERIODS * period
    bound = 2 * wt * (Omega**2 / 12 if order == 2 else gamma_excess * Omega / 2)
    res = check_convergence(histories, lambda t: damped_free_vibration(t, omega, zeta), order, bound)
    print(f"\n[{case}, {scheme_name}] zeta = {zeta:.4f}: e(T/40) = {res['e1']:.3e}, e(T/80) = {res['e2']:.3e}, "
          f"ratio {res['ratio']:.3f}, extrapolated {res['richardson']:.2e}, bound {bound:.2e}")


@pytest.mark.parametrize("scheme_name", ["average-acceleration", "hht-oui"])
def test_one_dof_dashpot_matches_closed_form(scheme_name):
    """Point mass m = 2 kg on a spring k = 800 N/m and dashpot c = 8 N s/m to the ground (x only;
    y held): omega = 20 rad/s, zeta = c / (2 sqrt(k m)) = 0.1; same assertions as above."""
    m, k, c = 2.0, 800.0, 8.0
    omega, zeta = np.sqrt(k / m), c / (2 * np.sqrt(k * m))
    mesh = Mesh(np.zeros((1, 2)), {}, {"P": np.array([0])})
    model = Model(mesh, {}, point_masses={"P": m})
    spring = Springs(mesh, "P", SpringProperties((k, 0.0), (c, 0.0)))
    phi = np.array([1.0 / np.sqrt(m), 0.0])  # M-normalised x motion
    scheme, order, _ = SCHEMES[scheme_name]
    period = 2 * np.pi / omega
    histories = []
    for n in (STEPS_PER_PERIOD, 2 * STEPS_PER_PERIOD):
        t, q, _ = modal_history(model, phi, scheme, period / n, PERIODS * n, q0=1e-3, terms=[spring],
                                constraints=(ImposedDisplacement("P", "y"),))
        histories.append((t, q))
    Omega = omega * period / (2 * STEPS_PER_PERIOD)
    bound = 2 * omega * PERIODS * period * Omega**2 / 12
    res = check_convergence(histories, lambda t: damped_free_vibration(t, omega, zeta), order, bound)
    print(f"\n[one dof, {scheme_name}] e(T/40) = {res['e1']:.3e}, e(T/80) = {res['e2']:.3e}, "
          f"ratio {res['ratio']:.3f}, extrapolated {res['richardson']:.2e}")
