"""cases/bar_impact.py: an elastic bar (plane-stress strip, nu = 0) against its closed forms.

Set-ups (the script's docstring; docs/references.md, the two bars): ``wall``, the
SDNV100 bar (0.2 m, c = 5000 m/s) hitting a rigid wall at 100 m/s: contact from gap/V for 2L/c at
rho c V = 4e9 Pa, rebound at +V, energy conserved; ``periodic``, the clamped bar released from
u = (1 - x)/2 (Dabaghi et al. 2014): period 3, contact stress 1/2 on [1, 2], energy 1/8.

Every run is the script itself (``main`` in this process, --no-paraview --quiet), made once and
shared by the tests that read it (module fixture). Runs of nx = 20 and the two reference runs
(wall nx = 80, periodic nx = 40) are in the default suite; the other meshes, the theta-method and
the convergence studies are ``slow`` (CI runs them too).

Tolerances (each justified where it is used):

* no energy created: max_energy_ratio <= 1 + 1e-8. The energy identity of the trapezoidal rule
  with the release rule that never gives energy back (contact/multipliers.py) makes every step's
  change <= 0 exactly; what remains is round-off of the energy sums and Newton's residual
  (rela 1e-10, linear problem: one iteration), measured at most 6e-14;
* the gain with a mass on the contact nodes (Code_Aster's immediate release): max ratio > 2, a
  factor far outside any round-off (measured 5.8 to 20, see the tests);
* wall (nx = 80, dt = h/(2c)): contact start within dt of gap/V (the step over which contact
  begins), duration within 2 dt + h/c of 2L/c (one step at each end, one element transit), rebound
  within 2 % of V, mean contact stress within 5 % of rho c V (the brief's acceptance);
* periodic: the brief's acceptance, see each test.
"""
from __future__ import annotations

import contextlib
import io
import json
import math

import numpy as np
import pytest

from cases.bar.checks import SAFE_RELEASE
from fem.io.results import read_history
from helpers import load_case

case = load_case("bar_impact")
SAFE = SAFE_RELEASE  # the library's release rule that never creates energy
slow = pytest.mark.slow


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """run(*argv) -> summary dict (with the history under "_history"), each distinct run once."""
    base = tmp_path_factory.mktemp("bar_impact")
    cache: dict[tuple, dict] = {}

    def go(*argv: str) -> dict:
        if argv not in cache:
            out = base / f"run{len(cache)}"
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                code = case.main([*argv, "--out", str(out), "--no-paraview", "--quiet"])
            assert code == 0, err.getvalue()
            s = json.loads((out / "summary.json").read_text())
            assert s["status"] == "complete"
            s["_history"] = read_history(out / "history.csv")
            cache[argv] = s
        return cache[argv]

    return go


def _energy_from_history(s: dict) -> np.ndarray:
    """Total energy (kinetic + strain + penalty springs) from history.csv, not from the summary."""
    h = s["_history"]
    return h["ke"] + h["strain_energy"] + h["penalty_energy"]


# --------------------------------------------------------------------------- no energy created
def _cases(setups_nx):
    """(setup, nx, method) with the slow mark on everything but nx 20 and the two reference runs
    (wall 80 and periodic 40 with lagrange, which the accuracy tests read anyway)."""
    out = []
    for setup, nxs in setups_nx:
        for nx in nxs:
            for method in ("lagrange", "augmented"):
                reference = (setup, nx, method) in (("wall", 80, "lagrange"), ("periodic", 40, "lagrange"))
                marks = () if nx == 20 or reference else (slow,)
                out.append(pytest.param(setup, nx, method, id=f"{setup}-nx{nx}-{method}", marks=marks))
    return out


ENERGY_CASES = _cases([("wall", (20, 40, 80)), ("periodic", (20, 40))])


@pytest.mark.parametrize("setup, nx, method", ENERGY_CASES)
def test_redistributed_mass_creates_no_energy(run, setup, nx, method):
    """Redistributed mass (contact nodes massless), auto release (the library's safe rule):
    the total energy never exceeds the initial one (1e-8: module docstring), read both from the
    summary and from history.csv's own columns; the run's check row says so with a verdict."""
    s = run("--setup", setup, "--nx", str(nx), "--method", method)
    assert s["parameters"]["mass"] == "redistributed" and s["parameters"]["release"] == SAFE
    assert s["max_energy_ratio"] <= 1 + 1e-8
    total = _energy_from_history(s)
    assert total.max() / total[0] <= 1 + 1e-8
    assert s["max_energy_ratio"] == pytest.approx(total.max() / total[0], rel=1e-12)
    row = next(c for c in s["checks"] if c["quantity"].startswith("max energy ratio"))
    assert row["passed"] is True and row["tolerance"] == 1e-8


@pytest.mark.parametrize("setup, nx, method", ENERGY_CASES)
def test_consistent_mass_with_immediate_release_gains_energy(run, setup, nx, method):
    """The same runs with a consistent mass (release auto = immediate, Code_Aster's rule): the
    contact gives back energy at openings (contact/multipliers.py). Measured max ratios: wall
    5.8 / 8.3 / 11.7 (nx 20 / 40 / 80), periodic 19.7 / 13.6 (nx 20 / 40); > 2 is far from any
    round-off. (The later values depend on round-off: the two end nodes' reactions, equal to
    round-off, can open in different steps and the strip then leaves the 1-D motion; periodic
    nx 40 gives 9.8 / 9.3 / 13.6 / 16.8 for strip widths L/40, L/20, L/10, L/5.) The run's energy
    row has no verdict (no claim for this release)."""
    s = run("--setup", setup, "--nx", str(nx), "--method", method, "--mass", "consistent")
    assert s["parameters"]["release"] == "immediate"
    assert s["max_energy_ratio"] > 2
    total = _energy_from_history(s)
    assert total.max() / total[0] > 2
    row = next(c for c in s["checks"] if c["quantity"].startswith("max energy ratio"))
    assert row["passed"] is None


# --------------------------------------------------------------------------- the wall (SDNV100)
def test_wall_matches_wave_theory(run):
    """SDNV100 data, nx = 80, dt = h/(2c) = 2.5e-7 s (the defaults): the brief's acceptance (module
    docstring), and the run's own checks all pass."""
    s = run("--setup", "wall", "--nx", "80", "--method", "lagrange")
    p = s["parameters"]
    c = math.sqrt(2e11 / 8000)
    dt, h = p["dt"], 0.2 / 80
    assert dt == pytest.approx(h / (2 * c), rel=1e-14) and s["configuration"] == "benchmark"
    assert abs(s["contact_start"] - 2e-3 / 100) <= dt
    assert abs(s["contact_duration"] - 2 * 0.2 / c) <= 2 * dt + h / c
    assert s["rebound_velocity"] == pytest.approx(100.0, rel=0.02)
    assert s["mean_contact_stress"] == pytest.approx(8000 * c * 100, rel=0.05)
    assert s["initial_energy"] == pytest.approx(0.5 * 8000 * 4e-4 * 0.2 * 100**2, rel=1e-12)
    assert s["exact"]["mean_contact_stress"] == pytest.approx(4e9, rel=1e-14)
    assert s["exact"]["contact_duration"] == pytest.approx(8e-5, rel=1e-14)
    assert all(c["passed"] for c in s["checks"]), s["checks"]


# --------------------------------------------------------------------------- the periodic bar
def _losses(run, method="lagrange"):
    return {nx: 1 - run("--setup", "periodic", "--nx", str(nx), "--method", method)["final_energy_ratio"]
            for nx in (20, 40, 80)}


def test_periodic_keeps_its_energy_over_four_contacts(run):
    """nx = 40, dt = h/2, t = 12 (four contacts): final energy ratio >= 0.96 (the brief); the
    energy is read after each contact (t = 2.5, 5.5, 8.5, 11.5) and never grows (the
    safe release can only take energy)."""
    s = run("--setup", "periodic", "--nx", "40", "--method", "lagrange")
    assert s["parameters"]["t_end"] == pytest.approx(12.0, rel=1e-14)
    assert s["final_energy_ratio"] >= 0.96
    after = s["energy_after_contacts"]
    np.testing.assert_allclose(s["energy_after_contacts_times"], [2.5, 5.5, 8.5, 11.5], atol=0.0125 / 2)
    assert len(s["contacts"]) == 4 and all(b <= a + 1e-12 for a, b in zip([1.0, *after], after))
    # the discrete initial energy: the massless end starts in static equilibrium, (1 - h)/8
    assert s["initial_energy"] == pytest.approx((1 - 1 / 40) / 8, rel=1e-12)
    assert s["initial_energy_exact"] == 0.125


LOSS_20_40 = ("measured: energy lost at t = 12 is 1.296 % / 0.989 % / 0.540 % at nx 20 / 40 / 80 (dt = h/2), "
              "so loss(20) / loss(40) = 1.31 < 1.4 (loss(40) / loss(80) = 1.83 holds). The loss per contact "
              "is irregular (nx 20: 0.61, 0.21, 0.27, 0.20 %; nx 40: 0.12, 0.31, 0.04, 0.52 %): it depends on "
              "the reaction in the step where it turns tensile, not smoothly on h. At dt = h: 4.83 / 2.99 / "
              "0.59 % (ratios 1.61, 5.1); nx 160 at dt = h/2: 0.095 % (ratio 5.7)")


@slow
@pytest.mark.parametrize("coarse", [pytest.param(20, marks=pytest.mark.xfail(strict=True, reason=LOSS_20_40)), 40])
def test_periodic_energy_loss_halves_with_the_mesh(run, coarse):
    """nx = 20, 40, 80 at dt = h/2: the energy lost at t = 12 (1 - final ratio) halves with each
    refinement within +-30 %: loss(coarse) / loss(2 coarse) in [1.4, 2.6] (the brief). Not so from
    20 to 40 (LOSS_20_40, measured; the tolerance is the brief's and is not widened)."""
    losses = _losses(run)
    ratio = losses[coarse] / losses[2 * coarse]
    assert 1.4 <= ratio <= 2.6, losses


@slow
def test_periodic_contact_stress_converges(run):
    """Relative L2 error of sigma(0, t) over the step times: at most 0.25 at nx = 40 (the brief),
    and decreasing with nx (20, 40, 80: measured 0.395, 0.223, 0.186; it then levels off, 0.194 at
    nx = 160: the step of adhesion of each release and the ringing of the discrete reaction)."""
    err = {nx: run("--setup", "periodic", "--nx", str(nx), "--method", "lagrange")["contact_stress_l2_error"]
           for nx in (20, 40, 80)}
    assert err[40] <= 0.25
    assert err[20] > err[40] > err[80], err


@pytest.mark.parametrize("mass, t_end", [("redistributed", 1.9), ("consistent", 1.025)])
def test_strip_is_the_1d_bar_until_the_first_release(mass, t_end, tmp_path):
    """The plane-stress strip with nu = 0 is the 1-D P1 bar: the script's energy and contact-stress
    histories equal an independent 1-D numpy computation (Newmark average acceleration, Signorini
    at x = 0 by an active set, the 1-D redistributed mass P^T M P with the end velocity 2 v_1 - v_2,
    or the consistent mass) up to the first opening, so that no release rule enters: with the
    redistributed mass to t = 1.9 (free flight, the closing at t = 1, most of the contact); with the
    consistent mass to t = 1.025, the closing step (the massive end node's reaction alternates in
    sign from the next step on: +1.48, -1.52, +3.54, ... in the 1-D run, so the contact opens at
    once). 1e-10 of the energy and of E/2: round-off of two assemblies over 76 steps (measured
    8e-15 of the energy, 6e-13 of the stress)."""
    with contextlib.redirect_stdout(io.StringIO()):
        assert case.main(["--setup", "periodic", "--nx", "20", "--t-end", str(t_end), "--mass", mass,
                          "--out", str(tmp_path), "--no-paraview", "--quiet"]) == 0
    h = read_history(tmp_path / "history.csv")
    t, energy, sigma = _one_d_bar(20, 0.025, t_end, mass)
    np.testing.assert_allclose(h["t"], t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(h["total_energy"], energy, rtol=0, atol=1e-10 * 0.125)
    np.testing.assert_allclose(h["contact_stress"], sigma, rtol=0, atol=1e-10 * 0.5)
    assert sigma.max() > 0.4  # the contact was reached


def _one_d_bar(nx: int, dt: float, t_end: float, mass: str):
    """Independent 1-D P1 bar, rho = E = A = 1, L = 1, clamped at x = 1, u0 = (1 - x)/2, v0 = 0,
    Signorini at x = 0 (closing only: used before the first opening). Returns t, total energy,
    contact stress (compressive positive) at the steps."""
    h, n = 1.0 / nx, nx + 1
    M, K = np.zeros((n, n)), np.zeros((n, n))
    for e in range(nx):
        i = np.ix_([e, e + 1], [e, e + 1])
        M[i] += h / 6 * np.array([[2.0, 1.0], [1.0, 2.0]])
        K[i] += 1 / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
    u = 0.5 * (1 - np.linspace(0, 1, n))
    if mass == "redistributed":  # node 0 massless, its velocity 2 v1 - v2 (affine from the next two)
        P = np.eye(n)
        P[0, :] = 0.0
        P[0, 1], P[0, 2] = 2.0, -1.0
        M = P.T @ M @ P
        u[0] = u[1]  # quasi-static start: the first element unstressed
        massive = np.arange(1, n - 1)
    else:
        massive = np.arange(0, n - 1)
    v, a = np.zeros(n), np.zeros(n)
    a[massive] = np.linalg.solve(M[np.ix_(massive, massive)], -(K @ u)[massive])
    beta, gamma = 0.25, 0.5
    ca = 1 / (beta * dt * dt)
    S = ca * M + K
    closed = False
    ts, es, ss = [0.0], [0.5 * v @ M @ v + 0.5 * u @ K @ u], [0.0]
    for k in range(1, int(round(t_end / dt)) + 1):
        rhs = M @ (ca * (u + dt * v) + (0.5 / beta - 1) * a)
        u1 = np.zeros(n)
        free = np.arange(1 if closed else 0, n - 1)
        u1[free] = np.linalg.solve(S[np.ix_(free, free)], rhs[free])
        if not closed and u1[0] < 0:
            closed = True
            u1[:] = 0.0
            free = np.arange(1, n - 1)
            u1[free] = np.linalg.solve(S[np.ix_(free, free)], rhs[free])
        lam = (S @ u1 - rhs)[0] if closed else 0.0
        a1 = ca * (u1 - u - dt * v) - (0.5 / beta - 1) * a
        v1 = v + dt * ((1 - gamma) * a + gamma * a1)
        if mass == "redistributed":
            a1[0], v1[0] = 0.0, (u1[0] - u[0]) / dt
        u, v, a = u1, v1, a1
        ts.append(k * dt)
        es.append(0.5 * v @ M @ v + 0.5 * u @ K @ u)
        ss.append(lam)
    return np.array(ts), np.array(es), np.array(ss)


# --------------------------------------------------------------------------- Moreau-Jean
@slow
@pytest.mark.parametrize("setup", ["wall", "periodic"])
def test_theta_method_loses_what_the_redistributed_mass_loses(run, setup):
    """Moreau-Jean theta = 1/2 with a consistent mass (velocity-level contact, no rebound) against
    the redistributed-mass Newmark run, nx = 80, dt = h/(2c): the energy ratio after each contact
    (each run over its own initial energy) within 0.02 (the brief)."""
    theta = run("--setup", setup, "--nx", "80", "--method", "theta")
    ref = run("--setup", setup, "--nx", "80", "--method", "lagrange")
    assert theta["parameters"]["mass"] == "consistent" and theta["notes"]
    assert len(theta["energy_after_contacts"]) == len(ref["energy_after_contacts"]) >= 1
    np.testing.assert_allclose(theta["energy_after_contacts"], ref["energy_after_contacts"], rtol=0, atol=0.02)
    assert theta["max_energy_ratio"] <= 1 + 1e-8  # theta = 1/2 with inelastic impacts only takes energy


# --------------------------------------------------------------------------- choices of the script
def test_release_and_mass_defaults(run):
    """auto release: the safe rule with the redistributed mass, immediate with a consistent one;
    --method theta defaults the mass to consistent and says so (short runs: periodic, nx 4, 0.5 s)."""
    short = ("--setup", "periodic", "--nx", "4", "--t-end", "0.5")
    assert run(*short)["parameters"]["release"] == SAFE
    assert run(*short, "--mass", "lumped")["parameters"]["release"] == "immediate"
    theta = run(*short, "--method", "theta")
    assert theta["parameters"]["mass"] == "consistent" and theta["parameters"]["release"] == "none"
    assert "mass is consistent" in theta["notes"][0]
    assert run(*short, "--method", "theta", "--mass", "lumped")["notes"] == []
