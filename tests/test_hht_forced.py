"""HHT with MODI_EQUI = 'OUI' (equilibrium at the alpha-weighted time, fem.time.dynamics) under a
TIME-VARYING external force, against the closed form of the forced damped oscillator.

The one-dof system: a point mass m = 2 kg on a spring k = 800 N/m and a dashpot c = 4 N s/m to the
ground (fem.stage.discrete.Springs, x only; y held), loaded by the nodal force F(t) = F0 sin(W t + phi0)
(F0 = 3 N, W = 13 rad/s, phi0 = 0.7: neither the load nor its rate vanishes at t = 0, so the start
of the run weighs in), released at rest at x = 0. Its exact motion::

    m x'' + c x' + k x = F0 sin(W t + phi0),   x(0) = x'(0) = 0
    x(t) = X sin(W t + phi0 - d) + exp(-zeta w t) (A cos(wd t) + B sin(wd t))
    X = F0 / sqrt((k - m W^2)^2 + (c W)^2),   d = atan2(c W, k - m W^2)
    w = sqrt(k / m) = 20 rad/s,  zeta = c / (2 sqrt(k m)) = 0.05,  wd = w sqrt(1 - zeta^2)
    A = -X sin(phi0 - d),   B = (zeta w A - X W cos(phi0 - d)) / wd

HHT 'OUI' writes M a_{n+1} + (1 + alpha) g_{n+1} - alpha g_n = 0, g = f_int + f_damp + f_terms -
f_ext: the external force enters as (1 + alpha) F(t_{n+1}) - alpha F(t_n) = F(t_{n+1} + alpha dt)
+ O(dt^2), the load at the same weighted instant as the other forces, and the scheme is second
order (Hilber, Hughes, Taylor 1977) for alpha in [-1/3, 0].

What is asserted (alpha = -0.1 and -0.3; runs over two natural periods T = 2 pi / w at dt = T/40,
T/80, T/160; e(dt) the largest |x_h(t_n) - x(t_n)| over the run, relative to X):

1. second order: e(dt) / e(dt/2) = 4 within 10 % for both halvings (the next term of the error
   expansion is relatively O(w dt) <= 0.16 at T/40; observed 3.99-4.00). A load taken at
   t_{n+1} instead of the weighted instant shifts it by alpha dt, a first-order error
   (W |alpha| dt X per unit time): the ratio falls towards 2; a load dropped from g_n, or the
   whole -alpha g_n term dropped, leaves an O(alpha) error that does not shrink: the ratio
   falls towards 1;
2. the Richardson extrapolation (4 x_{dt/4} - x_{dt/2}) / 3 is closer to the closed form than
   e(dt/4) / 4: removing the leading C dt^2 term must do better than one more halving (observed
   0.03-0.04 of it); a wrong load leaves its own error in the extrapolation;
3. the size the order predicts: e(T/160) at most twice the phase error of average acceleration
   after the run, w t Omega^2 / 12 with Omega = w dt (relative period elongation Omega^2 / 12;
   observed 0.6-0.7 of it).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from fem.stage.discrete import SpringProperties, Springs
from fem.time.dynamics import NewtonSettings, Phase, State, integrate
from fem.loads.applied import ImposedDisplacement, NodalForce
from fem.mesh.mesh import Mesh
from fem.model.assembly import Model
from fem.stage.schemes import HHT

M, K, C = 2.0, 800.0, 4.0  # [kg], [N/m], [N s/m]
F0, W, PHI0 = 3.0, 13.0, 0.7  # [N], [rad/s], [rad]
OMEGA = math.sqrt(K / M)
PERIOD = 2.0 * math.pi / OMEGA
T_END = 2.0 * PERIOD
STEPS = (40, 80, 160)  # steps per natural period
# one Newton correction solves a linear step exactly; 1e-10 of the forces is five decades below
# the errors measured here and above the round-off of the Newmark update
TIGHT = NewtonSettings(rela=1e-10)


def load(t: float) -> float:
    return math.sin(W * t + PHI0)


def exact(t: np.ndarray) -> tuple[np.ndarray, float]:
    """x(t) [m] of the module docstring, and the forced amplitude X [m]."""
    zeta = C / (2.0 * math.sqrt(K * M))
    wd = OMEGA * math.sqrt(1.0 - zeta**2)
    X = F0 / math.hypot(K - M * W**2, C * W)
    d = math.atan2(C * W, K - M * W**2)
    A = -X * math.sin(PHI0 - d)
    B = (zeta * OMEGA * A - X * W * math.cos(PHI0 - d)) / wd
    x = X * np.sin(W * t + PHI0 - d) + np.exp(-zeta * OMEGA * t) * (A * np.cos(wd * t) + B * np.sin(wd * t))
    return x, X


def run(scheme, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Times and x(t_n) [m] of the forced oscillator through fem.time.dynamics.integrate."""
    mesh = Mesh(np.zeros((1, 2)), {}, {"P": np.array([0])})
    model = Model(mesh, {}, point_masses={"P": M})
    spring = Springs(mesh, "P", SpringProperties((K, 0.0), (C, 0.0)))
    phase = Phase("forced", 0.0, T_END, dt, scheme, forces=(NodalForce("P", "x", F0, load),),
                  constraints=(ImposedDisplacement("P", "y"),), newton=TIGHT)
    t, x = [], []
    for r in integrate(model, phase, State.at_rest(model.n_dofs), [spring]):
        t.append(r.state.t)
        x.append(r.state.u[0])
    return np.array(t), np.array(x)


def test_the_closed_form_solves_the_forced_equation():
    """The reference itself: x(0) = 0, x'(0) = 0 and m x'' + c x' + k x = F(t), checked with central
    differences of step h = 1e-4 s: the residual's truncation m h^2 x'''' / 12 is about
    (w h)^2 / 12 = 3e-7 of k X (observed 2.5e-7, falling as h^2), its round-off 1e-16 m X / h^2
    = 2e-8 X N/m; 1e-6 k X bounds both."""
    h = 1e-4
    t = np.linspace(h, T_END, 57)
    (x, X), (xp, _), (xm, _) = exact(t), exact(t + h), exact(t - h)
    v, a = (xp - xm) / (2 * h), (xp - 2 * x + xm) / h**2
    residual = M * a + C * v + K * x - F0 * np.sin(W * t + PHI0)
    assert np.abs(residual).max() < 1e-6 * K * X
    (x0, x_plus, x_minus), _ = exact(np.array([0.0, h, -h]))  # the formula continued to t < 0
    assert x0 == pytest.approx(0.0, abs=1e-15 * X)
    # x'(0) = 0 by a central difference: truncation h^2 x'''(0) / 6 with m x'''(0) = F'(0) - c x''(0),
    # 3e-7 W X; round-off 1e-16 X / h
    assert abs(x_plus - x_minus) / (2 * h) < 1e-5 * W * X


@pytest.mark.parametrize("alpha", [-0.1, -0.3])
def test_hht_oui_converges_at_second_order_to_the_forced_response(alpha):
    scheme = HHT(alpha, modified_equilibrium=True)
    histories = [run(scheme, PERIOD / n) for n in STEPS]
    errors = []
    for t, x in histories:
        ref, X = exact(t)
        errors.append(float(np.abs(x - ref).max()) / X)
    for (t_coarse, _), (t_fine, _) in zip(histories[:-1], histories[1:]):
        np.testing.assert_allclose(t_fine[::2], t_coarse, rtol=0, atol=1e-12 * T_END)
    ratios = [errors[0] / errors[1], errors[1] / errors[2]]
    assert ratios == pytest.approx([4.0, 4.0], rel=0.1), f"errors {errors}"
    (t2, x2), (_, x4) = histories[1], histories[2]
    ref2, X = exact(t2)
    richardson = float(np.abs((4.0 * x4[::2] - x2) / 3.0 - ref2).max()) / X
    assert richardson < errors[2] / 4.0, f"extrapolated {richardson:.3e}, e(dt/4) = {errors[2]:.3e}"
    Omega = OMEGA * PERIOD / STEPS[-1]
    bound = 2.0 * OMEGA * T_END * Omega**2 / 12.0
    assert errors[2] < bound, f"e(T/{STEPS[-1]}) = {errors[2]:.3e} above the order estimate {bound:.3e}"
