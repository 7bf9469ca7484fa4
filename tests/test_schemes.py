"""Acceptance tests of the Newmark / HHT time integrators (fem.stage.schemes, fem.time.dynamics).

Everything runs through the real machinery (Model, Phase, integrate) on small ``grid_mesh``
blocks of graphite (E = 6e11 Pa, nu = 0.2, rho = 1450 kg/m^3, no damping, clamped base). The
reference values are derived here, independently of fem/time/dynamics.py, from the schemes' defining
equations (Newmark update formulas + alpha-weighted equilibrium)::

    u1 = u0 + dt v0 + dt^2 ((1/2 - beta) a0 + beta a1)
    v1 = v0 + dt ((1 - gamma) a0 + gamma a1)
    M a1 + (1 + af) K u1 - af K u0 = 0          (af = alpha for HHT 'OUI', 0 otherwise)

with HHT's beta = (1-alpha)^2/4, gamma = 1/2 - alpha, af written in this file from Code_Aster's
definition (``hht_parameters``) rather than read from fem.stage.schemes, so a wrong sign or formula in
fem.stage.schemes cannot move the reference with it; a separate test compares the two.

1. Energy conservation of average acceleration (Newmark 1/4, 1/2), QUA4 and TRIA6 blocks, random
   initial displacement and velocity, 1000 steps of dt = T1/20: kinetic + strain energy constant to
   1e-8 relative (the acceptance figure; the scheme conserves 1/2 v'Mv + 1/2 u'Ku exactly for a
   linear system, so only round-off and the Newton tolerance rela = 1e-12 remain, observed ~1e-13).
   energy_report's balance_error stays below 1e-8 of the energy, and its kinetic/strain terms equal
   1/2 v'Mv and 1/2 u'Ku built from model.mass and model.stiffness() (1e-10 relative: round-off).

2. One-dof oscillator (single QUA4, every dof held at 0 but one; m = M_ii, k = K_ii). The
   amplification matrix A(Omega) of x = (u, dt v, dt^2 a), x1 = A x0, is solved from the three
   equations above in the dimensionless form, Omega = omega dt, omega^2 = k/m::

        [1          0  -beta ]      [1        1  1/2-beta]
        [0          1  -gamma] x1 = [0        1  1-gamma ] x0
        [(1+af)W^2  0   1    ]      [af W^2   0  0       ]      (W = Omega)

   and cross-checked against the closed form of Hilber-Hughes-Taylor (1977) / Hughes (The Finite
   Element Method, ch. 9) for the undamped case, D = 1 + (1+af) beta W^2::

        A = 1/D [[1 + af beta W^2,  1,                          1/2 - beta                     ],
                 [-gamma W^2,       1 - (1+af)(gamma-beta) W^2, 1-gamma-(1+af)(gamma/2-beta) W^2],
                 [-W^2,             -(1+af) W^2,                -(1+af)(1/2-beta) W^2          ]]

   The integrator's matrix is measured column by column: one step of ``integrate`` from the three
   unit states (u, dt v, dt^2 a) = e_j, the acceleration being *given* (State.a). The full 3x3
   map is needed because HHT 'OUI' leaves a1 != -k u1 / m (M a1 = -k((1+a) u1 - a u0)): the
   "consistent" states are not invariant under HHT, so a 2x2 map (u0, v0) -> (u1, v1) with
   a0 = -k u0/m would not be its amplification matrix (it is for af = 0, where a is always
   consistent and the 3x3 matrix has the extra eigenvalue 0). Spectral radii agree to 1e-6
   relative (acceptance figure; observed ~1e-15 since one Newton iteration solves a linear step
   exactly), matrices entrywise to 1e-9.

   High-frequency limit, derived: for af = 0 the non-zero eigenvalues solve
   lambda^2 - (2 - (gamma+1/2) W^2/(1+beta W^2)) lambda + 1 - (gamma-1/2) W^2/(1+beta W^2) = 0,
   so at W -> infinity lambda^2 - (2 - (gamma+1/2)/beta) lambda + 1 - (gamma-1/2)/beta = 0. With
   beta = (gamma+1/2)^2/4 this is a double root lambda = 1 - 2/(gamma+1/2). For 'NON'
   (gamma = 1/2 - alpha, beta = (1-alpha)^2/4) that is lambda = -(1+alpha)/(1-alpha): the SAME
   limit (1+alpha)/(1-alpha) as classical HHT 'OUI' (Hilber et al. 1977). (|1 - 1/(2 beta)| is not
   this limit: it is the real part of the unit-modulus roots of gamma = 1/2.) Asserted at
   W = 1e6 to 1e-4 (the double root makes eigenvalues sensitive, ~sqrt(round-off), and the limit
   is approached as 1/W^2). A multi-step free vibration from a consistent state (State.a = None)
   is projected on the left eigenvector of the dominant eigenvalue lambda: that modal amplitude
   decays exactly as rho^N (and turns as lambda^N), 1e-6 relative.

3. "No scheme gains energy". For average acceleration the physical energy E = 1/2 v'Mv + 1/2 u'Ku
   is non-increasing from step to step (1e-12 relative). For gamma > 1/2 (Newmark 0.3025/0.6 and
   HHT 'OUI'/'NON') E itself is NOT monotone step to step, even in exact arithmetic (observed on
   these runs: HHT 'OUI' raises E in ~1/3 of the steps, by up to 3e-4 relative, 'NON' by up to
   4e-7 in a few steps; the one-dof theory shows it for every gamma > 1/2); what never
   increases is the scheme's algorithmic energy, derived from the equations above with
   [[x]] = x_{n+1} - x_n and w_n = u_n - u_{n-1} (valid for af = 0, or gamma = 1/2 - af)::

       H = E + 1/2 dt^2 (beta - gamma/2) a'Ma - 1/2 af (1 - gamma) w'Kw
       H_{n+1} - H_n = -D_n <= 0,
       D_n = (gamma - 1/2) ([[u]]'K[[u]] + dt^2 (beta - gamma/2) [[a]]'M[[a]])        (af = 0)
       D_n = -1/2 af (1-gamma) (w_{n+1}-w_n)'K(w_{n+1}-w_n)
             + (gamma - 1/2) dt^2 (beta - gamma/2) [[a]]'M[[a]]                         (HHT 'OUI')

   The test checks H never increases (1e-12 of H0), the identity H_{n+1} - H_n = -D_n (1e-10 of
   H0: round-off), and, since the run starts undeformed (u0 = 0, so a0 = 0, w0 = 0, H0 = E0) and
   H >= E, that the physical energy never exceeds its initial value (1e-12 relative).

4. First natural frequency: a free vibration (average acceleration, dt = T1/100) from the first
   mode shape of the clamped block, period measured from the zero crossings of the tip
   displacement over 5 periods, matches scipy.linalg.eigh(K_ff, M_ff) to 0.5% (acceptance figure;
   average acceleration lowers the frequency by ~Omega^2/12 = 3.3e-4 at dt = T1/100). The measured
   frequency also equals the scheme's discrete frequency 2 arctan(Omega/2) / (2 pi dt) to 1e-5
   (zero-crossing interpolation error, observed ~1e-7), and the peak tip displacement stays the
   initial one (1e-6: no dissipation). Also with total-Lagrangian kinematics at a 1e-4 m tip
   amplitude (frequency shift from geometric non-linearity ~1e-8; the peak amplitude is only
   checked to 1e-3 there since the non-linear terms leak a little energy into other modes,
   observed 3e-5).
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

from fem.time.dynamics import NewtonSettings, Phase, State, energy_report, integrate
from fem.loads.applied import ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import Mesh
from fem.model.assembly import Model
from fem.stage.schemes import HHT, Newmark
from tests.helpers import GRAPHITE, grid_mesh

MATERIAL = ElasticMaterial(**GRAPHITE)
CLAMPED = (ImposedDisplacement("BASE", "x"), ImposedDisplacement("BASE", "y"))
TIGHT = NewtonSettings(rela=1e-12)
ALPHAS = (-0.05, -0.1, -0.2, -0.3)


# ------------------------------------------------------------------------------------ helpers
def block(nx: int, ny: int, element: str = "quad", kinematics: str = "small_strain"):
    """Clamped-base graphite block: (model, free dofs, fixed dofs)."""
    mesh = grid_mesh(nx, ny, element=element)
    model = Model(mesh, {"BLOCK": MATERIAL}, kinematics=kinematics)
    base = mesh.nodes("BASE")
    fixed = np.sort(np.concatenate([2 * base, 2 * base + 1]))
    free = np.setdiff1d(np.arange(model.n_dofs), fixed)
    return model, free, fixed


def clamped_modes(model: Model, free: np.ndarray):
    """Circular frequencies (ascending) and full-size mode shapes of the clamped block, from scipy."""
    K = model.stiffness().toarray()[np.ix_(free, free)]
    M = model.mass.toarray()[np.ix_(free, free)]
    w2, V = sl.eigh(K, M)
    shapes = np.zeros((model.n_dofs, V.shape[1]))
    shapes[free] = V
    return np.sqrt(w2), shapes


def run(model: Model, scheme, dt: float, n_steps: int, state: State, constraints=CLAMPED,
        newton: NewtonSettings = TIGHT) -> list[State]:
    """States at t = 0, dt, ..., n_steps dt of one phase."""
    phase = Phase("free", 0.0, n_steps * dt, dt, scheme=scheme, constraints=constraints, newton=newton)
    states = [r.state for r in integrate(model, phase, state)]
    assert len(states) == n_steps + 1
    return states


def quad(x: np.ndarray, A: np.ndarray) -> float:
    return float(x @ (A @ x))


def amplification_matrix(Omega: float, beta: float, gamma: float, alpha_f: float) -> np.ndarray:
    """Amplification matrix of x = (u, dt v, dt^2 a) for m a + k u = 0, from the defining equations."""
    W2 = Omega**2
    lhs = np.array([[1.0, 0.0, -beta], [0.0, 1.0, -gamma], [(1.0 + alpha_f) * W2, 0.0, 1.0]])
    rhs = np.array([[1.0, 1.0, 0.5 - beta], [0.0, 1.0, 1.0 - gamma], [alpha_f * W2, 0.0, 0.0]])
    return np.linalg.solve(lhs, rhs)


def hht_closed_form(Omega: float, beta: float, gamma: float, alpha_f: float) -> np.ndarray:
    """Closed-form undamped HHT amplification matrix (Hilber et al. 1977; Hughes ch. 9)."""
    W2, a = Omega**2, alpha_f
    D = 1.0 + (1.0 + a) * beta * W2
    return np.array([
        [1.0 + a * beta * W2, 1.0, 0.5 - beta],
        [-gamma * W2, 1.0 - (1.0 + a) * (gamma - beta) * W2, 1.0 - gamma - (1.0 + a) * (gamma / 2 - beta) * W2],
        [-W2, -(1.0 + a) * W2, -(1.0 + a) * (0.5 - beta) * W2],
    ]) / D


def hht_parameters(alpha: float, modified: bool) -> tuple[float, float, float]:
    """(beta, gamma, af) of Code_Aster's HHT, written here from its definition (R5.05.05), not
    read from fem.stage.schemes: 'OUI' = equilibrium at the alpha-weighted time, 'NON' = af = 0."""
    return (1.0 - alpha) ** 2 / 4.0, 0.5 - alpha, (alpha if modified else 0.0)


def spectral_radius(A: np.ndarray) -> float:
    return float(np.max(np.abs(np.linalg.eigvals(A))))


def newmark_infinite_frequency_radius(beta: float, gamma: float) -> float:
    """Spectral radius at Omega -> infinity for af = 0: roots of
    lambda^2 - (2 - (gamma+1/2)/beta) lambda + 1 - (gamma-1/2)/beta."""
    return float(np.max(np.abs(np.roots([1.0, -(2.0 - (gamma + 0.5) / beta), 1.0 - (gamma - 0.5) / beta]))))


# ------------------------------------------------------------------------------------ one-dof oscillator
@pytest.fixture(scope="module")
def oscillator():
    """Single QUA4 with every dof held at 0 except x of the top-right node: (model, constraints, dof, omega).

    Nodes of grid_mesh(1, 1): 0 (0,0), 1 (0,h), 2 (w,0), 3 (w,h). Fixed groups do not overlap.
    """
    g = grid_mesh(1, 1)
    groups = dict(g.node_groups, FIXED=np.array([0, 1, 2]), P=np.array([3]))
    mesh = Mesh(g.points, g.cell_groups, groups)
    model = Model(mesh, {"BLOCK": MATERIAL}, kinematics="small_strain")
    constraints = (ImposedDisplacement("FIXED", "x"), ImposedDisplacement("FIXED", "y"),
                   ImposedDisplacement("P", "y"))
    dof = 2 * 3
    m = model.mass[dof, dof]
    k = model.stiffness()[dof, dof]
    assert m > 0 and k > 0
    return model, constraints, dof, float(np.sqrt(k / m))


def measured_amplification(oscillator, scheme, Omega: float) -> np.ndarray:
    """3x3 map (u, dt v, dt^2 a) -> same at the next step, one step of ``integrate`` per column."""
    model, constraints, dof, omega = oscillator
    dt = Omega / omega
    A = np.zeros((3, 3))
    for j in range(3):
        x = np.zeros(3)
        x[j] = 1.0
        u, v, a = (np.zeros(model.n_dofs) for _ in range(3))
        u[dof], v[dof], a[dof] = x[0], x[1] / dt, x[2] / dt**2
        s0, s1 = run(model, scheme, dt, 1, State(0.0, u, v, a), constraints)
        others = np.arange(model.n_dofs) != dof
        assert not np.any(s1.u[others]) and not np.any(s1.v[others])  # really one dof
        A[:, j] = (s1.u[dof], dt * s1.v[dof], dt**2 * s1.a[dof])
    return A


def test_theoretical_matrix_matches_hht_closed_form():
    """The matrix solved from the defining equations equals the published closed form (HHT and
    af = 0), so the reference used below is not a transcription of a wrong derivation."""
    for alpha in ALPHAS:
        for modified in (True, False):
            p = hht_parameters(alpha, modified)
            for Omega in (0.1, 1.0, 10.0, 100.0):
                A = amplification_matrix(Omega, *p)
                np.testing.assert_allclose(A, hht_closed_form(Omega, *p), rtol=0, atol=1e-12 * np.abs(A).max())


@pytest.mark.parametrize("modified", [True, False], ids=["OUI", "NON"])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_hht_parameters_follow_code_aster(alpha, modified):
    s = HHT(alpha, modified)
    assert (s.beta, s.gamma, s.alpha_f) == pytest.approx(hht_parameters(alpha, modified), rel=1e-15, abs=0)
    assert (Newmark().beta, Newmark().gamma, Newmark().alpha_f) == (0.25, 0.5, 0.0)


@pytest.mark.parametrize("modified", [True, False], ids=["OUI", "NON"])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_one_dof_amplification_matches_theory(oscillator, alpha, modified):
    scheme = HHT(alpha, modified)
    for Omega in (0.1, 1.0, 10.0, 100.0):
        theory = amplification_matrix(Omega, *hht_parameters(alpha, modified))
        measured = measured_amplification(oscillator, scheme, Omega)
        rho_t, rho_m = spectral_radius(theory), spectral_radius(measured)
        assert rho_t < 1.0  # dissipative at every Omega > 0 for alpha < 0
        assert rho_m == pytest.approx(rho_t, rel=1e-6), f"Omega={Omega}"
        np.testing.assert_allclose(measured, theory, rtol=0, atol=1e-9 * np.abs(theory).max(),
                                   err_msg=f"Omega={Omega}")


@pytest.mark.parametrize("modified", [True, False], ids=["OUI", "NON"])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_high_frequency_spectral_radius(oscillator, alpha, modified):
    """rho(Omega -> inf) = (1+alpha)/(1-alpha) for HHT 'OUI' (Hilber 1977) and, as derived in the
    module docstring, also for 'NON' (double root -(1+alpha)/(1-alpha))."""
    scheme = HHT(alpha, modified)
    beta, gamma, af = hht_parameters(alpha, modified)
    limit = (1.0 + alpha) / (1.0 - alpha)
    if not modified:
        assert newmark_infinite_frequency_radius(beta, gamma) == pytest.approx(limit, rel=1e-6)
    Omega = 1e6
    theory = amplification_matrix(Omega, beta, gamma, af)
    assert spectral_radius(theory) == pytest.approx(limit, rel=1e-4)
    assert spectral_radius(measured_amplification(oscillator, scheme, Omega)) == pytest.approx(limit, rel=1e-4)


def test_general_newmark_high_frequency_limit(oscillator):
    """Newmark beta = 0.3025 = (gamma+1/2)^2/4, gamma = 0.6: double root 1 - 2/(gamma+1/2),
    rho_inf = 0.9/1.1 (the same scheme as HHT 'NON' with alpha = -0.1)."""
    scheme = Newmark(beta=0.3025, gamma=0.6)
    limit = abs(1.0 - 2.0 / (0.6 + 0.5))
    assert newmark_infinite_frequency_radius(0.3025, 0.6) == pytest.approx(limit, rel=1e-6)
    assert spectral_radius(measured_amplification(oscillator, scheme, 1e6)) == pytest.approx(limit, rel=1e-4)
    # average acceleration: no dissipation at any frequency
    for Omega in (0.1, 10.0, 1e6):
        assert spectral_radius(measured_amplification(oscillator, Newmark(), Omega)) == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("modified", [True, False], ids=["OUI", "NON"])
@pytest.mark.parametrize("alpha", [-0.1, -0.3])
@pytest.mark.parametrize("Omega", [0.3, 1.0])
def test_multi_step_decay_is_rho_to_the_n(oscillator, alpha, modified, Omega):
    """N steps of free vibration from a consistent state (a computed by integrate): the component
    on the dominant eigenvector decays as rho^N and turns as lambda^N."""
    model, constraints, dof, omega = oscillator
    scheme = HHT(alpha, modified)
    dt, n_steps = Omega / omega, 60
    A = amplification_matrix(Omega, *hht_parameters(alpha, modified))
    lam, left = sl.eig(A, left=True, right=False)
    k = int(np.argmax(np.abs(lam)))
    lam_k, y = lam[k], left[:, k]
    assert abs(lam_k.imag) > 0  # oscillatory regime
    u0 = np.zeros(model.n_dofs)
    v0 = np.zeros(model.n_dofs)
    u0[dof], v0[dof] = 1.0, 0.3 * omega
    states = run(model, scheme, dt, n_steps, State(0.0, u0, v0), constraints)
    x = np.array([[s.u[dof], dt * s.v[dof], dt**2 * s.a[dof]] for s in states])
    assert x[0, 2] == pytest.approx(-Omega**2 * x[0, 0], rel=1e-12)  # consistent initial acceleration
    np.testing.assert_allclose(x[1], A @ x[0], rtol=0, atol=1e-12 * np.abs(x[0]).max())
    c = x @ y.conj()  # modal amplitude y^H x_n = lambda^n y^H x_0
    ratio = c[-1] / c[0]
    assert abs(ratio) == pytest.approx(abs(lam_k) ** n_steps, rel=1e-6)
    assert abs(ratio - lam_k**n_steps) <= 1e-6 * abs(lam_k) ** n_steps
    assert abs(ratio) < 0.999  # the test sees real dissipation


# ------------------------------------------------------------------------------------ block runs
@pytest.mark.parametrize("element", ["quad", "triangle6"])
def test_average_acceleration_conserves_energy(element):
    model, free, fixed = block(2, 4, element=element)
    K, M = model.stiffness(), model.mass
    omegas, _ = clamped_modes(model, free)
    dt = 2 * np.pi / omegas[0] / 20
    rng = np.random.default_rng(7)
    u0 = rng.standard_normal(model.n_dofs)
    v0 = rng.standard_normal(model.n_dofs)
    u0[fixed] = 0.0
    v0[fixed] = 0.0
    u0 *= np.sqrt(quad(v0, M) / quad(u0, K))  # as much strain as kinetic energy at t = 0
    states = run(model, Newmark(), dt, 1000, State(0.0, u0, v0))
    E = np.array([0.5 * quad(s.v, M) + 0.5 * quad(s.u, K) for s in states])
    E0 = E[0]
    assert 0.5 * quad(u0, K) > 0.1 * E0 and 0.5 * quad(v0, M) > 0.1 * E0  # both parts non-trivial
    assert np.max(np.abs(E / E0 - 1.0)) < 1e-8
    for s in states[:: 50] + [states[-1]]:
        rep = energy_report(model, s)
        assert rep["kinetic"] == pytest.approx(0.5 * quad(s.v, M), rel=1e-10)
        assert rep["strain"] == pytest.approx(0.5 * quad(s.u, K), rel=1e-10)
        assert abs(rep["balance_error"]) < 1e-8 * E0
    assert abs(states[-1].u[free]).max() > 0.1 * abs(u0).max()  # still vibrating


def _algorithmic_energy(states: list[State], K, M, params: tuple[float, float, float], dt: float):
    """(E, H, D): physical energy, the scheme's algorithmic energy and the per-step dissipation
    D_n = H_n - H_{n+1} predicted by the identity of the module docstring."""
    beta, gamma, af = params
    assert af == 0.0 or abs(gamma - (0.5 - af)) < 1e-15
    zero = np.zeros_like(states[0].u)
    E, H, D = [], [], []
    w_prev = zero
    for n, s in enumerate(states):
        w = s.u - states[n - 1].u if n else zero
        e = 0.5 * quad(s.v, M) + 0.5 * quad(s.u, K)
        E.append(e)
        H.append(e + 0.5 * dt**2 * (beta - gamma / 2) * quad(s.a, M) - 0.5 * af * (1 - gamma) * quad(w, K))
        if n:
            da = s.a - states[n - 1].a
            d_acc = (gamma - 0.5) * dt**2 * (beta - gamma / 2) * quad(da, M)
            if af == 0.0:
                D.append((gamma - 0.5) * quad(w, K) + d_acc)
            else:
                D.append(-0.5 * af * (1 - gamma) * quad(w - w_prev, K) + d_acc)
        w_prev = w
    return np.array(E), np.array(H), np.array(D)


SCHEMES = [(Newmark(), (0.25, 0.5, 0.0)), (Newmark(beta=0.3025, gamma=0.6), (0.3025, 0.6, 0.0))] + [
    (HHT(a, m), hht_parameters(a, m)) for a in (-0.1, -0.2, -0.3) for m in (True, False)
]


@pytest.mark.parametrize("scheme, params", SCHEMES, ids=[repr(s).replace(" ", "") for s, _ in SCHEMES])
def test_no_scheme_gains_energy(scheme, params):
    model, free, fixed = block(2, 4)
    K, M = model.stiffness(), model.mass
    omegas, _ = clamped_modes(model, free)
    dt = 2 * np.pi / omegas[0] / 10  # Omega from 0.6 (mode 1) to ~26 (highest mode)
    rng = np.random.default_rng(1)
    v0 = rng.standard_normal(model.n_dofs)
    v0[fixed] = 0.0
    states = run(model, scheme, dt, 200, State(0.0, np.zeros(model.n_dofs), v0))
    E, H, D = _algorithmic_energy(states, K, M, params, dt)
    assert H[0] == pytest.approx(E[0], rel=1e-14)  # u0 = 0: a0 = 0, w0 = 0
    assert np.all(D >= -1e-12 * H[0])
    assert np.max(np.diff(H)) <= 1e-12 * H[0]
    np.testing.assert_allclose(np.diff(H), -D, rtol=0, atol=1e-10 * H[0])
    assert np.max(E[1:]) <= E[0] * (1 + 1e-12)
    if scheme == Newmark():
        assert np.max(np.diff(E)) <= 1e-12 * E[0]  # conserving: physical energy stepwise monotone too
    else:
        assert E[-1] < 0.1 * E[0]  # the scheme does dissipate (guards against a vacuous pass)


@pytest.mark.parametrize("kinematics, amplitude, amplitude_tol",
                         [("small_strain", 1e-6, 1e-6), ("total_lagrangian", 1e-4, 1e-3)])
def test_first_frequency_from_free_vibration(kinematics, amplitude, amplitude_tol):
    model, free, fixed = block(2, 6, kinematics=kinematics)
    omegas, shapes = clamped_modes(model, free)
    f1 = omegas[0] / (2 * np.pi)
    tip = 2 * int(model.mesh.nodes("TOP")[-1])  # x of the top-right corner
    u0 = shapes[:, 0] * amplitude / abs(shapes[tip, 0])
    dt = 1.0 / f1 / 100
    n_periods = 5
    states = run(model, Newmark(), dt, 100 * n_periods, State.at_rest(model.n_dofs, u=u0),
                 newton=NewtonSettings(rela=1e-10))
    t = np.array([s.t for s in states])
    x = np.array([s.u[tip] for s in states])
    i = np.flatnonzero(np.sign(x[:-1]) != np.sign(x[1:]))
    crossings = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    assert len(crossings) == 2 * n_periods
    f_measured = (len(crossings) - 1) / (2 * (crossings[-1] - crossings[0]))
    assert f_measured == pytest.approx(f1, rel=5e-3)
    Omega = omegas[0] * dt
    f_discrete = 2 * np.arctan(Omega / 2) / (2 * np.pi * dt)  # average acceleration: tan(theta/2) = Omega/2
    assert f_measured == pytest.approx(f_discrete, rel=1e-5)
    # undamped: amplitude kept (exactly in small strain; total Lagrangian couples the mode weakly
    # to others, observed 3e-5 at 1e-4 m)
    assert np.max(np.abs(x)) == pytest.approx(amplitude, rel=amplitude_tol)
