"""SDND122: nonlinear normal mode of a mass on an elastic stop (contact/references/nnm.py, cases/sdnd122.py).

Cheapest first: the exact flow against finite differences and solve_ivp, the shooting at the tested
energy, the closed form against time integration, the continued branch, bad input, the case script.

Tolerances: the flow is the exact piecewise-harmonic solution and the orbits are found by shooting
on it, so frequencies agree with the closed form to round-off (1e-12, a few hundred operations on
numbers of order 1); solve_ivp (DOP853, rtol 1e-12) to 1e-10; central differences with h = 1e-7 to
1e-7 (truncation h^2 ~ 1e-14, round-off eps / h ~ 1e-9). The closed form is written again here
(:func:`exact_frequency`, docs/references.md, "SDND122", corrected) independently of
contact/references/nnm.py, and so is the document's (Code_Aster's) formula
(:func:`document_formula_frequency`): the 6.4e-4 between them is the term that formula drops,
derived, not a value of this code. Code_Aster's computed
frequencies (harmonic balance on a regularised stop) are compared within its own PRECISION 1e-3;
how far they are from the exact value (9.7e-5, 1.1e-4) is a fact about Code_Aster's numbers,
asserted as regression values.
"""
import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

from contact.references.nnm import (StopOscillator, aster_formula_frequency, check_energy_range, closed_form_frequency,
                         continue_branch, integrate_numerically, periodic_orbit)

from helpers import load_case

CASES = Path(__file__).resolve().parents[1] / "cases"
OSC = StopOscillator()                       # m = 1 kg, k = 10 N/m, K = 50 N/m, gap = 0.01 m
E_TEST = 6.50108331624e-3                    # document value (the .comm file has ...626)
F_ASTER_REFERENCE = 0.646217                 # sdnd122a VALE_REFE (Code_Aster's closed form) [Hz]
F_ASTER_COMPUTED = 0.64669392749957          # sdnd122a VALE_CALC [Hz]


def exact_frequency(E, m=1.0, k=10.0, K=50.0, gap=0.01):
    """The corrected closed form: free phase 2 arccos(-gap / A) / w0, A = sqrt(2E/k); contact phase
    2 arccos(k gap / sqrt(2E(k+K) - kK gap^2)) / wc about the shifted equilibrium K gap / (k+K)."""
    w0, wc = math.sqrt(k / m), math.sqrt((k + K) / m)
    free = 2 * math.acos(-gap / math.sqrt(2 * E / k)) / w0
    contact = 2 * math.acos(k * gap / math.sqrt(2 * E * (k + K) - k * K * gap**2)) / wc
    return 1.0 / (free + contact)


def document_formula_frequency(E, m=1.0, k=10.0, K=50.0, gap=0.01):
    """The formula of sdnd122a.comm (docs/references.md, "SDND122") as printed: e = E / (k gap^2),
    tau1 = 2 arccos(-1/sqrt(2e)), tau2 = 2 sqrt(k/(k+K)) arccos(sqrt(k / (2e (k+K)))),
    T = sqrt(m/k) (tau1 + tau2)."""
    e = E / (k * gap**2)
    tau1 = 2 * math.acos(-1 / math.sqrt(2 * e))
    tau2 = 2 * math.sqrt(k / (k + K)) * math.acos(math.sqrt(k / (2 * e * (k + K))))
    return 1.0 / (math.sqrt(m / k) * (tau1 + tau2))


# ----------------------------------------------------------------------------------------- exact flow
def test_flow_jacobian_against_finite_differences():
    z0, t = np.array([-0.02, 0.13]), 2.3       # several regime switches
    _, phi, contact_time = OSC.flow(z0, t)
    h = 1e-7
    fd = np.column_stack([(OSC.flow(z0 + h * e, t)[0] - OSC.flow(z0 - h * e, t)[0]) / (2 * h) for e in np.eye(2)])
    np.testing.assert_allclose(phi, fd, rtol=1e-7, atol=1e-7)
    assert contact_time > 0
    assert np.linalg.det(phi) == pytest.approx(1.0, abs=1e-13)   # area-preserving flow


@pytest.mark.parametrize("z0", [(-0.02, 0.13), (0.015, -0.05), (0.01, 0.2), (0.01, -0.2), (0.0, 0.05)])
def test_flow_against_solve_ivp(z0):
    for t in (0.0, 0.4, 3.7):
        z, _, _ = OSC.flow(z0, t)
        np.testing.assert_allclose(z, integrate_numerically(OSC, z0, t), rtol=0, atol=1e-10)
        assert OSC.energy(*z) == pytest.approx(OSC.energy(*z0), rel=1e-13)


# ----------------------------------------------------------------------------------------- tested orbit
def test_frequency_at_sdnd122_energy():
    orbit = periodic_orbit(OSC, E_TEST)
    f_exact = closed_form_frequency(OSC, E_TEST)
    assert orbit.frequency == pytest.approx(f_exact, rel=1e-12)
    assert orbit.frequency == pytest.approx(0.6466310406, rel=1e-9)
    assert orbit.stable
    assert orbit.frequency == pytest.approx(exact_frequency(E_TEST), rel=1e-12)
    # Code_Aster's reference formula drops -k K gap^2 from the contact amplitude: the printed
    # 0.646217 is that formula (rounded to 6 digits: 1e-6), and this code's frequency is above it
    # by exactly what the dropped term makes (the document's rounding, 8e-7), 6.4e-4, still inside
    # the benchmark's own 1e-3 PRECISION
    assert document_formula_frequency(E_TEST) == pytest.approx(F_ASTER_REFERENCE, rel=1e-6)
    assert aster_formula_frequency(OSC, E_TEST) == pytest.approx(document_formula_frequency(E_TEST), rel=1e-12)
    dropped = exact_frequency(E_TEST) / document_formula_frequency(E_TEST) - 1
    assert orbit.frequency / F_ASTER_REFERENCE - 1 == pytest.approx(dropped, abs=1e-6)
    assert 6.3e-4 < dropped < 6.5e-4 and orbit.frequency == pytest.approx(F_ASTER_REFERENCE, rel=1e-3)
    # Code_Aster's harmonic balance, within its PRECISION; it is 9.7e-5 above the exact value
    # (regression value: a fact about Code_Aster's number, its regularised stop)
    assert orbit.frequency == pytest.approx(F_ASTER_COMPUTED, rel=1e-3)
    assert F_ASTER_COMPUTED / orbit.frequency - 1 == pytest.approx(9.7e-5, abs=1e-6)


def test_floquet_multipliers_are_the_trivial_pair():
    orbit = periodic_orbit(OSC, E_TEST)
    mu = orbit.multipliers
    np.testing.assert_allclose(np.abs(mu), 1.0, atol=1e-6)       # split by ~sqrt(round-off) only
    assert np.prod(mu).real == pytest.approx(1.0, abs=1e-13)
    m = orbit.monodromy
    assert np.trace(m) == pytest.approx(2.0, abs=1e-12)
    f0 = OSC.rhs(0.0, orbit.initial_state)                        # flow direction is an eigenvector
    np.testing.assert_allclose(m @ f0, f0, atol=1e-12 * np.linalg.norm(f0))
    assert abs(m[1, 0]) > 0.1                                     # Jordan block: period depends on energy
    assert orbit.return_error < 1e-13


def test_orbit_returns_under_time_integration_and_confirms_the_corrected_closed_form():
    orbit = periodic_orbit(OSC, E_TEST)
    z0 = orbit.initial_state
    amplitude = abs(z0[0])
    z = integrate_numerically(OSC, z0, orbit.period)
    assert np.hypot(z[0] - z0[0], z[1] / OSC.omega_free) < 1e-10 * amplitude
    # after Code_Aster's formula period the state has not returned
    z_aster = integrate_numerically(OSC, z0, 1 / F_ASTER_REFERENCE)
    assert np.hypot(z_aster[0] - z0[0], z_aster[1] / OSC.omega_free) > 1e-3 * amplitude


@pytest.mark.parametrize("energy, f_doc, f_aster, aster_above", [
    (6.58129654238e-3, 0.6470147, 0.647088395, 1.14e-4),   # b
    (6.47656819016e-3, 0.6465124, 0.64658517, 1.13e-4)])   # c
def test_sdnd122_b_and_c_energies(energy, f_doc, f_aster, aster_above):
    f = periodic_orbit(OSC, energy).frequency
    assert f == pytest.approx(closed_form_frequency(OSC, energy), rel=1e-12)
    assert f == pytest.approx(exact_frequency(energy), rel=1e-12)
    assert f == pytest.approx(f_doc, abs=1e-7)  # the corrected values of docs/references.md, "SDND122", 7 digits
    assert f == pytest.approx(aster_formula_frequency(OSC, energy), rel=1e-3)  # the benchmark's PRECISION
    # Code_Aster's b, c: within its PRECISION; 1.1e-4 above exact (regression values, its numbers)
    assert f == pytest.approx(f_aster, rel=1e-3)
    assert f_aster / f - 1 == pytest.approx(aster_above, abs=1e-6)


def test_grazing_orbit_is_the_linear_mode():
    e0 = OSC.first_contact_energy
    assert periodic_orbit(OSC, e0).frequency == pytest.approx(OSC.linear_frequency, rel=1e-14)
    assert closed_form_frequency(OSC, e0) == pytest.approx(0.5032921210448704, rel=1e-14)
    # Code_Aster's formula keeps a finite contact time at grazing: f(E0) = 0.437 Hz < f0
    assert aster_formula_frequency(OSC, e0) < 0.9 * OSC.linear_frequency


# ----------------------------------------------------------------------------------------- branch
def test_branch_matches_closed_form_from_first_contact_to_ten_times():
    e0 = OSC.first_contact_energy
    branch = continue_branch(OSC, 10 * e0)
    assert branch.energy[0] == e0 and branch.energy[-1] == pytest.approx(10 * e0, rel=1e-14)
    assert np.all(np.diff(branch.energy) > 0) and np.all(np.diff(branch.frequency) > 0)
    assert branch.energy.size >= 30 and np.diff(branch.energy).max() < 0.3 * e0
    err = np.abs(branch.frequency / closed_form_frequency(OSC, branch.energy) - 1)
    assert err.max() < 1e-12  # shooting on the exact flow: round-off
    assert branch.stable.all()
    assert np.abs(branch.multipliers).max() < 1 + 1e-6
    assert branch.return_error.max() < 1e-12
    assert branch.frequency[0] == pytest.approx(OSC.linear_frequency, rel=1e-14)


def test_branch_other_parameters_and_high_energy():
    osc = StopOscillator(mass=2.0, stiffness=3.0, stop_stiffness=1000.0, gap=0.5)
    branch = continue_branch(osc, 200 * osc.first_contact_energy)
    err = np.abs(branch.frequency / closed_form_frequency(osc, branch.energy) - 1)
    assert err.max() < 1e-12 and branch.stable.all()
    assert 1 / branch.frequency[-1] > osc.high_energy_period      # period tends to pi/w1 + pi/w2


# ----------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("field, value", [("mass", 0.0), ("stiffness", -1.0), ("stop_stiffness", 0.0),
                                          ("gap", -0.01), ("gap", math.nan)])
def test_bad_parameters(field, value):
    with pytest.raises(ValueError, match=f"{field} must be a finite number > 0"):
        StopOscillator(**{field: value})


def test_bad_energies():
    e0 = OSC.first_contact_energy
    with pytest.raises(ValueError, match="below first contact"):
        periodic_orbit(OSC, 0.5 * e0)
    with pytest.raises(ValueError, match="below first contact"):
        check_energy_range(OSC, 0.5 * e0, 10 * e0)
    with pytest.raises(ValueError, match="e_max = .* must be > energy"):
        check_energy_range(OSC, E_TEST, E_TEST)
    with pytest.raises(ValueError, match="must be > first contact"):
        continue_branch(OSC, e0)
    with pytest.raises(ValueError, match="below first contact"):
        closed_form_frequency(OSC, 0.1 * e0)


# ----------------------------------------------------------------------------------------- finite elements
@pytest.mark.parametrize("osc, energy", [(OSC, E_TEST), (OSC, 0.5), (StopOscillator(3.0, 100.0, 50.0, 0.01), 0.05),
                                         (StopOscillator(1.0, 10.0, 5000.0, 0.01), E_TEST)])
def test_the_finite_element_orbit_returns_within_newmarks_period_error(osc, energy):
    """The orbit run by the engine (fem.problem: spring, a Penalty stop with a clearance, a Release)
    returns after one period within Newmark's period error at the contact frequency, 2 pi (w_c dt)^2 / 12,
    and comes closer as the step shrinks (the error at 400 steps below the error at 200)."""
    case = load_case("sdnd122")
    orbit = periodic_orbit(osc, energy)
    fine, coarse = case.fe_orbit(osc, orbit, 400), case.fe_orbit(osc, orbit, 200)
    bound = 2 * math.pi * (osc.omega_contact * orbit.period / 400) ** 2 / 12
    assert fine["steps"] == 400 and fine["return_error"] <= bound
    assert fine["return_error"] < coarse["return_error"]


def test_the_finite_element_orbit_converges_at_second_order_with_the_benchmarks_parameters():
    case = load_case("sdnd122")
    orbit = periodic_orbit(OSC, E_TEST)
    errors = [case.fe_orbit(OSC, orbit, n)["return_error"] for n in (250, 500, 1000)]
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 2.0) < 0.2), orders  # the case's 10 %; measured 2.11, 2.02


# ----------------------------------------------------------------------------------------- case script
def test_case_writes_results(tmp_path, capsys):
    case = load_case("sdnd122")
    assert case.main(["--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "Code_Aster reference formula" in printed
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["frequency"] == pytest.approx(0.6466310406, rel=1e-9)
    assert summary["stable"] is True
    checks = {c["quantity"]: c for c in summary["checks"]}
    assert checks["frequency [Hz] vs exact closed form"]["rel_error"] < 1e-12
    dropped = exact_frequency(E_TEST) / document_formula_frequency(E_TEST) - 1  # see the test above
    assert checks["frequency [Hz] vs Code_Aster reference formula"]["rel_error"] == pytest.approx(dropped, rel=1e-6)
    assert checks["frequency [Hz] vs Code_Aster computed value"]["passed"]  # its PRECISION 1e-3
    assert all({"quantity", "value", "reference", "rel_error"} <= set(c) for c in summary["checks"])
    with (tmp_path / "curve.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:3] == ["energy", "frequency", "stable"]
    e = np.array([float(r["energy"]) for r in rows])
    f = np.array([float(r["frequency"]) for r in rows])
    assert e[0] == OSC.first_contact_energy and e[-1] >= 10 * OSC.first_contact_energy
    np.testing.assert_allclose(f, closed_form_frequency(OSC, e), rtol=1e-12)
    assert all(r["stable"] == "True" for r in rows)
    # the headline figure from curve.csv: the frequency at the tested energy, interpolated linearly
    # between the two branch points around it, is the run's orbit within the interpolation error
    # |f''| dE^2 / 8, f'' from the curve's own second differences about that interval (they vary
    # by 5 % from one point to the next there: 1.2 times their largest), and the exact value within
    # that plus round-off
    period = np.array([float(r["period"]) for r in rows])
    np.testing.assert_allclose(f * period, 1.0, rtol=1e-14)
    j = int(np.searchsorted(e, E_TEST))
    assert e[j - 1] < E_TEST <= e[j]
    h1, h2 = np.diff(e)[:-1], np.diff(e)[1:]
    f2 = 2 * ((f[2:] - f[1:-1]) / h2 - (f[1:-1] - f[:-2]) / h1) / (h1 + h2)  # f'' at e[1:-1]
    interpolation = 1.2 * np.abs(f2[j - 2:j]).max() * (e[j] - e[j - 1]) ** 2 / 8
    f_curve = float(np.interp(E_TEST, e, f))
    assert interpolation < 1e-5  # a resolved branch
    assert abs(f_curve - summary["frequency"]) <= interpolation
    assert abs(f_curve - exact_frequency(6.50108331626e-3)) <= interpolation + 1e-12
    assert (tmp_path / "sdnd122.png").stat().st_size > 0
    fe = summary["finite_element"]
    assert checks[f"finite-element state return after one period ({fe['steps']} steps)"]["passed"]
    assert checks["finite-element observed order (500 -> 1000 steps)"]["passed"]
    from fem.io.results import read_history
    h = read_history(tmp_path / "fe_history.csv")
    assert h["t"].size == fe["steps"] + 1 and h["t"][-1] == pytest.approx(summary["period"], rel=1e-12)


@pytest.mark.parametrize("argv, message", [
    (["--energy", "1e-4"], "--energy 0.0001 J is below first contact"),
    (["--e-max", "5e-3"], "--e-max 0.005 J must be > --energy"),
    (["--k-stop", "0"], "--k-stop must be > 0 N/m"),
    (["--mass", "-1"], "--mass must be > 0 kg"),
    (["--gap", "nan"], "argument --gap: must be a finite number"),
    (["--e-max", "1000"], "8,000,006 continuation points"),  # 2e6 E0: beyond the step limit
    (["--fe-steps", "10"], "--fe-steps must lie in 20..1000000"),
])
def test_case_rejects_bad_input(tmp_path, capsys, argv, message):
    case = load_case("sdnd122")
    out = tmp_path / "out"
    assert case.main(["--out", str(out)] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
