"""Coulomb friction in dynamics: stick, slip and slip reversal of a block under a reversing push,
against the closed form of a rigid block, for the three contact methods; and the independence of
the augmented-Lagrangian solution from its augmentation coefficients.

The block and its loads
-----------------------
One QUA4, W = 0.4 m wide and h = 0.1 m high, density 2500 kg/m^3 (m = 100 kg for the unit
thickness), E = 1e10 Pa, nu = 0 (no Poisson spreading of the base under the weight, hence no
self-equilibrated friction at rest), on the rigid plane y = 0 (``RigidPlane``, tangent t = (-1, 0))
through its two base nodes. Gravity (N = m g) is ramped and held with the friction on (settling
phase, HHT -0.3, 0.1 s); then, from rest at t = 0, a horizontal force F(t) = F0 sin(w t),
w = 2 pi 2 rad/s, acts on the base, F0 / 2 on each base node.

No rocking: F and the friction both act at the base, so they have no moment about it; the only
moment is that of the inertia, m a h / 2 while sliding, which the normal reactions balance as long
as m |a| h / 2 < m g W / 2, i.e. |a| < g W / h = 4 g; here |a| <= (F0 + mu N) / m <= 1.05 g. While
the block sticks a = 0 and each base node carries F / 2 against its own friction, with N / 2 on
it: both reach their cap together, so the base sticks and slips as one.

Closed form (rigid block, Coulomb, Fc = mu N = mu m g, r = Fc / F0 < 1)
-----------------------------------------------------------------------
Sticking (x' = 0) lasts while |F(t)| <= Fc; the block starts to slip in the direction s = sign F
at the first instant after the stick began where |F| reaches Fc from below: w t = asin(r)
(mod pi). Slipping in direction s (s x' > 0) from (t_a, x_a) with x'(t_a) = 0::

    m x'' = F0 sin(w t) - s Fc
    x'(t) = F0 / (m w) (cos w t_a - cos w t) - s Fc (t - t_a) / m
    x(t)  = x_a + F0 / (m w) [(t - t_a) cos w t_a - (sin w t - sin w t_a) / w] - s Fc (t - t_a)^2 / (2 m)

until x'(t_b) = 0 (root of the exact x', bracketed on a 0.1 ms grid, brentq to 1e-15 s). Then
the block sticks if |F(t_b)| <= Fc, else it slips the other way at once (a reversal: s F(t_b) <
-Fc). Two loads over 0.6 s: F0 = 1.25 Fc ("stick-slip": slip 74-230 ms, stick, slip back 324-480
ms, stick, slip from 574 ms; 4.4 mm each way) and F0 = 2.5 Fc ("reversal": slip from 33 ms, the
velocity reverses without sticking at 327 and 569 ms; 87 mm).

Methods: "lagrange" and "augmented" (:class:`contact.multipliers.MultiplierContact`, coefficients
1) and penalty shock springs (:class:`contact.penalty.ShockSprings`, RIGI_NOR 1e10 N/m and RIGI_TAN
1e9 N/m per node, no damping). Time integration: HHT alpha = -0.2 with the alpha-weighted
equilibrium (MODI_EQUI 'OUI', second order; the modified average acceleration, 'NON', is first
order in the velocity: an error alpha dt times the change of the acceleration), dt = 2.5 ms
(200 steps per forcing period), Newton RESI_GLOB_RELA 1e-8.

Tolerance of the displacement history (centre of mass x, weighted by the consistent mass)
-----------------------------------------------------------------------------------------
The centre of mass obeys m x'' = F - friction for the elastic block as for the rigid one; it can
only differ from the closed form through the time discretisation and the friction statuses. The
budget, summed over the events before t (``displacement_tolerance``):

* smooth parts: for m x'' = f(t), HHT's velocity increments are the trapezoidal rule plus terms
  that telescope: the velocity error stays below (1/6 + |alpha| (1 - gamma)) dt^2 max|f'| / m, and
  the displacement update adds (beta + alpha / 2 - 1/6) dt^3 f' / m per step; together (0.32)
  below 0.5 dt^2 max|f'| t / m at time t, max|f'| = F0 w;
* an event is decided on the step's net slip, so the friction is wrong during at most one step, by
  at most 2 Fc at a stop (from -s Fc to a sticking force |F| <= Fc) or a reversal (from -s Fc to
  +s Fc), and HHT's weighting of the previous step's force carries |alpha| of that jump into the
  next step: a velocity error dv = 2 (1 + |alpha|) mu g dt (0.018 m/s). After a reversal it stays:
  dv (t - t_e + dt). At a stop the block moves wrongly for at most one step, dv dt, then sticks;
  the velocity left in the Newmark state of the stuck dofs decays as A^n, A the amplification of a
  dof held fixed (a double eigenvalue -(1 + alpha)/(1 - alpha)), and is carried into the next
  slip: dv ||A^n|| (t - t_onset), n the whole steps of the stick interval less 2 (||A^35|| = 1e-4);
* an onset is detected at a step end past it: the force imbalance is at most F0 w dt during one
  step, (F0 w / m) dt^2 carried until the next stop (sticking resets the velocity);
* the elastic block's centre of mass may lag its base by its shear under the inertia load,
  (F0 + Fc) h / (W G) with G = E / 2 (5e-8 m);
* penalty: the tangential springs deflect elastically by at most mu R_N / RIGI_TAN per node either
  way (2 mu m g / RIGI_TAN covers both directions and any load share, 6e-7 m), and a stop onto the
  springs with the velocity error dv deflects them by at most dv / omega_t more before they hold
  the block (omega_t = sqrt(2 RIGI_TAN / m), the block on its two springs).

At 0.6 s the budget is 2.8e-4 m for the stick-slip load (6 % of the 4.4 mm slip; the smooth and
onset terms dominate, and the runs use at most 5 % of it) and 5.8e-3 m for the reversal load (the
one step of wrong friction at each reversal dominates; the runs use 44 % of it, 2e-3 m).

Also checked, at every step:

* Coulomb: |R_T| <= mu R_N (1 + 1e-8) at every node (the methods' own 1 + 1e-10 plus the Newton
  tolerance); sum R_N = m g to 1e-3 (the inertia moment shifts the weight between the nodes but
  not its sum; 1e-3 leaves room for the vertical ringing of the elastic block, and of the penalty
  springs, excited by the friction jumps);
* statuses: where the closed form slips, 2 steps or more from any event, every base node slips and
  the total friction force along x is -s mu sum R_N, with s the exact slip direction, to 1e-6 (the
  slip equation, resp. the return mapping, holds to the Newton tolerance 1e-8); where it sticks,
  2 steps or more before an onset and 3 steps or more after a stop, every base node sticks (with
  the penalty springs at least one: each spring keeps the elastic deflection it had at the stop,
  so they reach their caps at different loads and one may slip just before the onset). The 3
  steps after a stop: the stop is detected one step late when it falls in the second half of a
  step, and the step after may slip back once, while the velocity left in the stopped base
  (alternating in sign, see A above) pushes it past the cap;
* event instants: the first step where every node has the new status comes within 2 steps after
  each exact onset and stop (an event falling near the end of a step is seen at the end of the
  next one); the centre-of-mass velocity changes sign once within 2 steps of each exact reversal,
  and its zero (linear between steps) is within 2 dt of the exact instant (the crossing is in the
  step containing the reversal or, when the friction flipped for the whole step leaves the
  velocity's sign, the next one).

Augmented-Lagrangian coefficients
---------------------------------
At convergence the augmented method satisfies the same Signorini-Coulomb conditions as the
Lagrange method: rho_n = coef_cont k and rho_t = coef_frot k (k = 1.06e10 N/m, the mean diagonal
stiffness of the slave dofs) only steer Newton. Over the stick-slip history (0.34 s: onset, slip,
stop, stick, onset back; 0.6 s for (1, 1), the run of the first test), coef_cont and coef_frot
each take 0.1, 1 and 10, in the pairs (0.1, 10), (1, 1), (10, 0.1), and must reproduce the
Lagrange run step by step: the same statuses, and within the Newton tolerance of each converged
step, e = RESI_GLOB_RELA * m g (the force scale of the residual is at most the weight, ~1e-5 N):
every node's R_N and R_T within 2 e (both runs within e of the discrete solution), the centre of
mass within e T^2 / (2 m) (a force error e acting on the rigid block for the whole run, 2e-8 m).

Runtime: 8 FE runs of 136 to 240 steps, about 7 s.
"""
import functools
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from contact.multipliers import MultiplierContact
from contact.penalty import ShockLaw, ShockSprings
from contact.state import SLIP, STICK
from contact.zone import RigidPlane, node_zone
from fem.time.dynamics import NewtonSettings, Phase, State, integrate
from fem.loads.functions import ramp
from fem.loads.applied import Gravity, NodalForce
from fem.model.material import ElasticMaterial
from fem.model.assembly import Model
from fem.stage.schemes import HHT

from helpers import grid_mesh

G = 9.81
WIDTH, HEIGHT, DENSITY, YOUNG = 0.4, 0.1, 2500.0, 1.0e10
MASS = WIDTH * HEIGHT * DENSITY  # 100 kg
MU = 0.3
FC = MU * MASS * G  # Coulomb force of the block [N]
OMEGA = 2.0 * math.pi * 2.0  # forcing [rad/s]
DT, T_END, ALPHA = 2.5e-3, 0.6, -0.2
NEWTON = NewtonSettings(rela=1e-8, max_iterations=40)
K_NORMAL, K_TANGENT = 1.0e10, 1.0e9  # penalty RIGI_NOR, RIGI_TAN per node [N/m]
RATIOS = {"stick-slip": 1.25, "reversal": 2.5}  # F0 / Fc
METHODS = ("lagrange", "augmented", "penalty")


# ------------------------------------------------------------------------------ closed form
def rigid_history(F0: float, t_end: float):
    """Segments (t_start, x_start, s, t_stop) of the rigid block: s = 0 stick, +-1 slip direction."""
    r = FC / F0
    segments = []
    t, x, s = 0.0, 0.0, 0
    while t < t_end:
        if s == 0:  # stick until |F| reaches Fc: w t = asin(r) (mod pi), after t
            phase = math.asin(r)
            t_next = (phase + (math.floor((OMEGA * t - phase) / math.pi) + 1) * math.pi) / OMEGA
            segments.append((t, x, 0, min(t_next, t_end)))
            t, s = t_next, (1 if math.sin(OMEGA * t_next) > 0 else -1)
            continue
        ta, xa = t, x
        v = functools.partial(_slip_velocity, F0=F0, ta=ta, s=s)
        h = 1e-4
        tb = ta + h
        while s * v(tb) > 0 and tb < t_end + h:
            tb += h
        if s * v(tb) > 0:  # still slipping at the end
            segments.append((ta, xa, s, t_end))
            break
        tb = brentq(v, tb - h, tb, xtol=1e-15, rtol=4 * np.finfo(float).eps)
        segments.append((ta, xa, s, min(tb, t_end)))
        t, x = tb, float(_slip_position(np.array([tb]), F0, ta, xa, s)[0])
        f_stop = F0 * math.sin(OMEGA * tb)
        s = 0 if abs(f_stop) <= FC else int(np.sign(f_stop))
    return segments


def _slip_velocity(t, F0, ta, s):
    return F0 / (MASS * OMEGA) * (np.cos(OMEGA * ta) - np.cos(OMEGA * t)) - s * FC * (t - ta) / MASS


def _slip_position(t, F0, ta, xa, s):
    wave = (t - ta) * math.cos(OMEGA * ta) - (np.sin(OMEGA * t) - math.sin(OMEGA * ta)) / OMEGA
    return xa + F0 / (MASS * OMEGA) * wave - s * FC * (t - ta) ** 2 / (2 * MASS)


def exact(segments, F0, t):
    """x, x' and the slip direction s (0: stick) of the rigid block at times t."""
    x, v, s = np.zeros_like(t), np.zeros_like(t), np.zeros(t.size, dtype=int)
    for ta, xa, sd, tb in segments:
        on = (t >= ta) & (t <= tb)
        if sd == 0:
            x[on] = xa
        else:
            x[on] = _slip_position(t[on], F0, ta, xa, sd)
            v[on] = _slip_velocity(t[on], F0, ta, sd)
        s[on] = sd
    return x, v, s


def events(segments):
    """(time, kind) of every change: 'onset' (stick -> slip), 'stop' (slip -> stick), 'reversal'."""
    out = []
    for (_, _, s0, t1), (_, _, s1, _) in zip(segments[:-1], segments[1:]):
        out.append((t1, "onset" if s0 == 0 else "stop" if s1 == 0 else "reversal"))
    return out


def fixed_dof_decay(n: int) -> float:
    """||A^n||_2 for the Newmark kinematics (beta, gamma of HHT alpha) of a dof held fixed:
    (v, dt a) -> (v + dt ((1-gamma) a + gamma a1), dt a1) with a1 = -v/(beta dt) - (1/(2 beta) - 1) a."""
    scheme = HHT(ALPHA, modified_equilibrium=True)
    b, g = scheme.beta, scheme.gamma
    A = np.array([[1 - g / b, 1 - g / (2 * b)], [-1 / b, 1 - 1 / (2 * b)]])
    return float(np.linalg.norm(np.linalg.matrix_power(A, max(n, 0)), 2))


def displacement_tolerance(t, segments, F0, method):
    """Error budget of the module docstring at times t [m]."""
    jerk = F0 * OMEGA / MASS  # max |f'| / m
    dv = 2 * (1 + abs(ALPHA)) * MU * G * DT
    shear = (F0 + FC) * HEIGHT / (WIDTH * 0.5 * YOUNG)  # m a_max h / (W G), G = E / 2 for nu = 0
    tol = shear + 0.5 * DT**2 * jerk * t
    evs = events(segments)
    for k, (te, kind) in enumerate(evs):
        started = t > te - DT
        t_next = evs[k + 1][0] if k + 1 < len(evs) else np.inf
        if kind == "reversal":
            tol = tol + dv * np.clip(t - te + DT, 0.0, None) * started
        elif kind == "onset":  # carried until the next stop, where sticking resets the velocity
            tol = tol + jerk * DT**2 * np.clip(np.minimum(t, t_next + DT) - te + DT, 0.0, None) * started
        else:  # stop: one step of wrong motion, then the leftover velocity carried into the next slip
            tol = tol + dv * DT * started
            if np.isfinite(t_next):
                n = int((t_next - te) / DT) - 2
                tol = tol + dv * fixed_dof_decay(n) * np.clip(t - t_next + DT, 0.0, None)
            if method == "penalty":
                tol = tol + dv / math.sqrt(2 * K_TANGENT / MASS) * started
    if method == "penalty":
        tol = tol + 2 * MU * MASS * G / K_TANGENT
    return tol


# ------------------------------------------------------------------------------ FE runs
class Sine:
    """sin(w t) as a load function."""

    def __init__(self, omega: float) -> None:
        self.omega = omega

    def __call__(self, t: float) -> float:
        return math.sin(self.omega * t)


def simulate(method: str, ratio: float, coef_cont: float = 1.0, coef_frot: float = 1.0, t_end: float = T_END):
    """Settle the block under gravity, then push it with F0 sin(w t), F0 = ratio Fc. Returns the
    histories from t = 0 (the released state) as a dict of arrays (one run per set of arguments)."""
    return _simulate(method, float(ratio), float(coef_cont), float(coef_frot), float(t_end))


@functools.lru_cache(maxsize=None)
def _simulate(method, ratio, coef_cont, coef_frot, t_end):
    mesh = grid_mesh(1, 1, WIDTH, HEIGHT)
    model = Model(mesh, {"BLOCK": ElasticMaterial(YOUNG, 0.0, DENSITY)})
    zone = node_zone(mesh, "BASE", RigidPlane((0.0, 0.0), (0.0, 1.0)))
    if method == "penalty":
        term = ShockSprings(model, zone, ShockLaw(K_NORMAL, 0.0, K_TANGENT, 0.0, MU))
    else:
        term = MultiplierContact(model, zone, friction=MU, method=method, coef_cont=coef_cont, coef_frot=coef_frot)
    settle = Phase("settle", -0.1, 0.0, 0.01, HHT(-0.3), gravity=Gravity((0.0, -G), ramp(-0.1, -0.05)),
                   friction=MU, newton=NEWTON)
    state = list(integrate(model, settle, State.at_rest(model.n_dofs, -0.1), [term]))[-1].state
    n_base = mesh.nodes("BASE").size
    push = Phase("push", 0.0, t_end, DT, HHT(ALPHA, modified_equilibrium=True), gravity=Gravity((0.0, -G)),
                 forces=(NodalForce("BASE", "x", ratio * FC / n_base, Sine(OMEGA)),), friction=MU, newton=NEWTON)
    mx = model.mass @ np.tile([1.0, 0.0], mesh.n_nodes)  # x-row sums: nodal masses
    assert mx.sum() == pytest.approx(MASS, rel=1e-12)
    rows = []
    for result in integrate(model, push, state.released(0.0), [term]):
        cs = term.state()
        rows.append((result.state.t, mx @ result.state.u / MASS, mx @ result.state.v / MASS, cs.status.copy(),
                     cs.rn.copy(), cs.rt.copy(), cs.tangent[:, 0].copy()))
    t, x, v, status, rn, rt, tx = (np.array(c) for c in zip(*rows))
    return dict(t=t, x=x, v=v, status=status, rn=rn, rt=rt, fx=(rt * tx).sum(axis=1))


# ------------------------------------------------------------------------------ 1. closed form
@pytest.mark.parametrize("regime", list(RATIOS))
@pytest.mark.parametrize("method", METHODS)
def test_stick_slip_reversal_matches_rigid_block(method, regime):
    ratio = RATIOS[regime]
    F0 = ratio * FC
    h = simulate(method, ratio)
    t = h["t"]
    assert t[-1] == pytest.approx(T_END) and np.allclose(np.diff(t), DT)
    segments = rigid_history(F0, T_END)
    evs = events(segments)
    kinds = [k for _, k in evs]
    assert kinds == (["onset", "stop", "onset", "stop", "onset"] if regime == "stick-slip"
                     else ["onset", "reversal", "reversal"])
    xe, _, se = exact(segments, F0, t)

    # Coulomb at every step; weight carried by the base
    rn_sum = h["rn"].sum(axis=1)
    over = np.abs(h["rt"]) > MU * h["rn"] * (1 + 1e-8)
    assert not over.any(), f"|R_T| > mu R_N at t = {t[over.any(axis=1)][:5]} s"
    np.testing.assert_allclose(rn_sum, MASS * G, rtol=1e-3)

    # statuses away from the events: not within 2 steps of an onset or a reversal, nor from 2 steps
    # before to 3 steps after a stop (see the module docstring)
    before = np.array([te - 2 * DT for te, _ in evs])[None, :]
    after = np.array([te + (3 if kind == "stop" else 2) * DT for te, kind in evs])[None, :]
    far = ~np.any((t[:, None] > before + 1e-12) & (t[:, None] < after - 1e-12), axis=1)
    sticking, slipping = far & (se == 0), far & (se != 0)
    stuck = h["status"] == STICK
    if regime == "stick-slip":
        assert sticking.sum() >= 80 and slipping.sum() >= 100  # both regimes, over many steps
    loose = sticking & ~(stuck.any(axis=1) if method == "penalty" else stuck.all(axis=1))
    assert not loose.any(), f"the rigid block sticks but the base slips at t = {t[loose][:5]} s"
    held = slipping & ~np.all(h["status"] == SLIP, axis=1)
    assert not held.any(), f"the rigid block slips but a base node does not at t = {t[held][:5]} s"
    np.testing.assert_allclose(h["fx"][slipping], -se[slipping] * MU * rn_sum[slipping], rtol=1e-6)

    # event instants
    for te, kind in evs:
        if kind == "reversal":
            window = np.flatnonzero((t >= te - 2 * DT) & (t <= te + 2 * DT))
            sign = np.sign(h["v"][window])
            changes = np.flatnonzero(sign[1:] != sign[:-1])
            assert changes.size == 1, f"velocity sign near the reversal at {te:.4f} s: {h['v'][window]}"
            j = window[changes[0]]
            t_zero = t[j] + (t[j + 1] - t[j]) * h["v"][j] / (h["v"][j] - h["v"][j + 1])
            assert abs(t_zero - te) <= 2 * DT, f"velocity reverses at {t_zero:.5f} s, rigid block at {te:.5f} s"
        else:
            new = STICK if kind == "stop" else SLIP
            k = int(np.searchsorted(t, te))  # first step at or after the event
            first = k + int(np.argmax(np.all(h["status"][k:] == new, axis=1)))
            assert np.all(h["status"][first] == new), f"no {kind} after the rigid block's at {te:.5f} s"
            assert t[first] - te <= 2 * DT, f"{kind} at {t[first]:.5f} s, rigid block at {te:.5f} s"

    # displacement history
    tol = displacement_tolerance(t, segments, F0, method)
    err = np.abs(h["x"] - xe)
    worst = int(np.argmax(err / tol))
    print(f"\n[{method}, {regime}] max |x - x_exact| = {err.max():.3e} m (|x| max {np.abs(xe).max():.3e}); "
          f"largest err / tol = {err[worst] / tol[worst]:.3f} at t = {t[worst]:.3f} s (tol {tol[worst]:.2e}); "
          f"tol at the end {tol[-1]:.2e}")
    assert np.all(err <= tol), f"x off the rigid block by {err[worst]:.3e} m at t = {t[worst]:.4f} s > {tol[worst]:.3e}"


# ------------------------------------------------------------------------------ 2. augmentation
T_COEF = 0.34  # onset 74 ms, slip, stop 230 ms, stick, onset back 324 ms


@pytest.mark.parametrize("coef_cont, coef_frot", [(0.1, 10.0), (1.0, 1.0), (10.0, 0.1)])
def test_augmented_solution_independent_of_coefficients(coef_cont, coef_frot):
    ratio = RATIOS["stick-slip"]
    t_end = T_END if (coef_cont, coef_frot) == (1.0, 1.0) else T_COEF  # (1, 1): test 1's run
    h = simulate("augmented", ratio, coef_cont, coef_frot, t_end)
    n = h["t"].size
    ref = {key: value[:n] for key, value in simulate("lagrange", ratio).items()}  # the same steps
    assert np.array_equal(h["t"], ref["t"])
    assert set(np.unique(ref["status"][1:])) == {STICK, SLIP}  # both regimes in the history
    assert np.array_equal(h["status"], ref["status"])
    e = NEWTON.rela * MASS * G  # force balance of a converged step [N]
    dx = np.abs(h["x"] - ref["x"]).max()
    drn = np.abs(h["rn"] - ref["rn"]).max()
    drt = np.abs(h["rt"] - ref["rt"]).max()
    print(f"\n[augmented {coef_cont}, {coef_frot}] vs lagrange: x {dx:.2e} m, R_N {drn:.2e} N, R_T {drt:.2e} N "
          f"(per node)")
    assert dx <= e * h["t"][-1] ** 2 / (2 * MASS)
    assert drn <= 2 * e
    assert drt <= 2 * e
