"""cases/block_on_incline.py: Coulomb stick and slide of a block on its inclined table.

A rigid block on a slope beta with friction mu sticks when tan beta <= mu and otherwise slides
with a = g (sin beta - mu cos beta). Each run is short (0.05 s after the release, dt = 5 ms) to
keep the file fast; the regimes are set up for every contact method:

* mu = 0.3: 10 deg (tan = 0.18, sticks) and 25 deg (tan = 0.47, slides), SDNV105 block 0.36 x 0.80;
* mu = 0.9: 20 deg (tan = 0.36, sticks) and 45 deg (tan = 1, slides) on a squat block 0.80 x 0.36.
  The SDNV105 block would tip: sliding at mu = 0.9 puts the base resultant mu h/2 = 0.36 m from
  the centre, outside the half width 0.18 m; at 20 deg it sticks but carries 81 % of its tipping
  moment (tan beta h/2 = 0.146 m of 0.18 m), and on the penalty springs the step load overshoots
  (dynamic factor up to 2): the heel lifts and the block rocks while sticking. The squat block
  keeps both regimes clear of tipping (16 % and 41 % of the half width); tipping is not the
  subject here.

Tolerances
----------
* sliding acceleration within 1 % (the brief): it is the slope of the centre-of-mass velocity,
  which Newmark/HHT integrate exactly for a constant force; the measured errors are ~1e-6 for
  every method, penalty included (at the Coulomb cap the shock law gives R_T = mu R_N exactly, so
  its stiffnesses do not enter the sliding force);
* sliding slip of O and A at the end within 1 % of 0.5 a t^2: the start from rest with zero
  acceleration leaves an offset (1 - gamma) a h t with h the first (fine) step, 0.4 % here;
* sticking: |a| < 1e-3 m/s^2, under 0.1 % of the driving g sin beta (what remains is the ringing
  of the elastic block, and of the penalty springs, under the suddenly applied slope load); the
  tangential displacement of O and A relative to the table < 1e-7 m (the brief). For Lagrange
  and augmented it is ~1e-9 m (O lifts by nanometres as the pressure shifts downhill); for the
  penalty springs it is their elastic pre-slip R_T / RIGI_TAN, 2.8e-8 m per node at 20 deg with
  the step-load overshoot, so the same 1e-7 m holds; the slip of the contact law itself is 0;
* stick or slide is decided by the script's stated criterion (its docstring): the slip of the base
  over the second half of the run against s_stick = max(1e-7 m, mu R_N,max / RIGI_TAN). On the
  penalty springs at 15 deg / mu 0.3 (tan beta = 0.27, 90 % of mu) the step load makes the base
  slip 5.7e-7 m in the start-up before it holds: the verdict must be "sticks", and the acceleration
  (fitted over that second half) below the criterion's resolution 2 s_stick / (T^2 - (T/2)^2) =
  2.7e-5 m/s^2 at T = 0.1 s (measured 4e-6: a least-squares slope through the decaying ringing,
  amplitude V = 1.6e-6 m/s, is at most 3 V / (T/2) = 1e-4; the fit over the start-up reported
  -0.29 m/s^2 before);
* sum R_N = M g cos beta to 1e-3 (dynamic ringing of the elastic block on the table); when sliding
  sum R_T = -mu sum R_N to 1e-6 (every loaded node at the cap, to the Newton tolerance).
"""
import json
import math
from pathlib import Path

import numpy as np
import pytest

from contact.references.incline import analytic_acceleration
from fem.io.results import read_history

from helpers import load_case

CASES = Path(__file__).resolve().parents[1] / "cases"
G = 9.81
SQUAT = ["--width", "0.8", "--height", "0.36"]


@pytest.fixture(scope="module")
def case():
    return load_case("block_on_incline")


# (mu, angle [deg], extra flags, sticks)
REGIMES = [
    pytest.param(0.3, 10.0, [], True, id="mu0.3-10deg-sticks"),
    pytest.param(0.3, 25.0, [], False, id="mu0.3-25deg-slides"),
    pytest.param(0.9, 20.0, SQUAT, True, id="mu0.9-20deg-sticks-squat"),
    pytest.param(0.9, 45.0, SQUAT, False, id="mu0.9-45deg-slides-squat"),
]


@pytest.mark.parametrize("method", ["lagrange", "augmented", "penalty"])
@pytest.mark.parametrize("mu, angle, extra, sticks", REGIMES)
def test_stick_or_slide(case, tmp_path, method, mu, angle, extra, sticks):
    assert (math.tan(math.radians(angle)) <= mu) == sticks  # the regime the analytic solution predicts
    argv = ["--out", str(tmp_path), "--method", method, "--mu", str(mu), "--angle-deg", str(angle),
            "--t-end", "0.05", "--dt", "0.005", "--no-plot", *extra]
    assert case.main(argv) == 0
    s = json.loads((tmp_path / "summary.json").read_text())
    beta = math.radians(angle)
    assert s["sticks"] is sticks
    assert s["method"] == method and s["mu"] == mu and s["angle_deg"] == angle
    weight_n = s["block_mass_kg"] * G * math.cos(beta)
    assert s["rn_sum_final_N"] == pytest.approx(weight_n, rel=5e-3 if method == "penalty" else 1e-3)
    if sticks:
        assert s["analytic_acceleration"] == 0.0
        assert abs(s["acceleration"]) < 1e-3
        assert s["max_abs_slip_O"] < 1e-7 and s["max_abs_slip_A"] < 1e-7
        assert s["max_law_slip"] < 1e-7
    else:
        a_ref = G * (math.sin(beta) - mu * math.cos(beta))
        assert s["analytic_acceleration"] == pytest.approx(a_ref, rel=1e-14)
        assert s["acceleration"] == pytest.approx(a_ref, rel=1e-2)
        assert s["fit_steps"] >= 10
        slip_tol = 1e-2 * s["analytic_slip_final"]
        if method == "penalty":
            # the block slides freely until its tangential springs reach the cap, a quarter period
            # tau of the block on them: a velocity offset up to g sin(beta) tau, slip g sin(beta) tau t
            tau = 0.5 * math.pi * math.sqrt(s["block_mass_kg"] / (5 * case.PENALTY["tangential_stiffness"]))
            slip_tol += G * math.sin(beta) * tau * s["t_end"]
        assert s["slip_O_final"] == pytest.approx(s["analytic_slip_final"], abs=slip_tol)
        assert s["slip_A_final"] == pytest.approx(s["analytic_slip_final"], abs=slip_tol)
        assert s["rt_sum_final_N"] == pytest.approx(-mu * s["rn_sum_final_N"], rel=1e-6)
    run = s["run"]
    assert run["steps"] == 10 + 20 + 9  # settle, release (first step cut in 20), slope
    assert run["newton_iterations"] == sum(run["iterations_per_phase"].values())
    assert min(run["min_iterations_per_step"].values()) >= 1


def test_outputs_and_plot(case, tmp_path, capsys):
    argv = ["--out", str(tmp_path), "--angle-deg", "30", "--mu", "0.3", "--t-end", "0.02", "--dt", "0.005"]
    assert case.main(argv) == 0
    printed = capsys.readouterr().out
    assert "slides" in printed and "acceleration [m/s^2]" in printed
    h = read_history(tmp_path / "history.csv")
    # the case's columns, beside the problem API's own (per-pair contact measures, the energy books)
    assert {"t", "ux_com", "vx_com", "slip_O", "slip_A", "rn_sum", "rt_sum", "n_slip", "n_stick", "iterations",
            "ke", "energy_balance_error"} <= set(h)
    assert h["t"][0] == pytest.approx(-0.1) and h["t"][-1] == pytest.approx(0.02)
    assert np.all(np.diff(h["t"]) > 0)  # no duplicated phase-start rows
    assert np.all(h["slip_O"][h["t"] <= 0] == 0)
    assert (tmp_path / "slip.png").stat().st_size > 0
    s = json.loads((tmp_path / "summary.json").read_text())
    for key in ("sticks", "acceleration", "analytic_acceleration", "mu", "angle_deg", "method", "run"):
        assert key in s
    assert analytic_acceleration(30.0, 0.3) == pytest.approx(G * (0.5 - 0.3 * math.sqrt(3) / 2))
    assert analytic_acceleration(30.0, 0.6) == 0.0  # tan 30 deg = 0.577 < 0.6


@pytest.mark.parametrize("flags, message", [
    (["--angle-deg", "90"], "--angle-deg"),
    (["--angle-deg", "-5"], "--angle-deg"),
    (["--angle-deg", "nan"], "--angle-deg"),
    (["--mu", "-0.1"], "--mu"),
    (["--dt", "0"], "--dt"),
    (["--dt", "-1e-3"], "--dt"),
    (["--t-end", "0"], "--t-end"),
    (["--width", "0"], "--width"),
    (["--height", "-0.8"], "--height"),
    (["--nx", "3"], "--nx"),
    (["--method", "springs"], "--method"),
    (["--mu", "abc"], "--mu"),
])
def test_bad_flags_exit_2(case, tmp_path, capsys, flags, message):
    assert case.main(["--out", str(tmp_path / "out"), *flags]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.parametrize("angle, method, sticks", [
    pytest.param(15.0, "penalty", True, id="15deg-penalty-sticks"),
    pytest.param(15.0, "lagrange", True, id="15deg-lagrange-sticks"),
    pytest.param(30.0, "penalty", False, id="30deg-penalty-slides"),
])
def test_stick_slide_criterion(case, tmp_path, capsys, angle, method, sticks):
    """The issue's command (default --t-end 0.1, --dt 0.0025): a penalty block that sticks after a
    start-up slip is reported sticking, with an acceleration below the criterion's resolution."""
    mu = 0.3
    argv = ["--out", str(tmp_path), "--method", method, "--mu", str(mu), "--angle-deg", str(angle), "--no-plot",
            "--quiet"]
    assert case.main(argv) == 0
    printed = capsys.readouterr().out
    s = json.loads((tmp_path / "summary.json").read_text())
    ss = s["stick_slide"]
    assert s["sticks"] is sticks and s["regime"] == ("sticks" if sticks else "slides")
    assert s["regime_as_analytic"] is True
    assert ss["threshold_m"] == max(1e-7, mu * ss["rn_node_max_N"] / case.PENALTY["tangential_stiffness"])
    assert ss["window_s"] == pytest.approx([0.05, 0.1]) and ss["window_steps"] == 21
    assert "criterion: slides if the base" in printed and ss["criterion"] in printed
    if sticks:
        assert abs(ss["slip_in_window_m"]) < 1e-3 * ss["threshold_m"]  # measured 5e-12 m (penalty)
        assert ss["acceleration_resolution"] == pytest.approx(2 * ss["threshold_m"] / (0.1**2 - 0.05**2))
        assert abs(s["acceleration"]) < ss["acceleration_resolution"]
        assert ss["fit_on"] == "window"
        if method == "penalty":
            # the springs' start-up slip exceeds the threshold: the whole-run slip cannot decide
            assert ss["startup_slip_m"] > 5 * ss["threshold_m"]
            assert s["max_law_slip"] > ss["threshold_m"]
    else:
        beta = math.radians(angle)
        a_ref = G * (math.sin(beta) - mu * math.cos(beta))
        assert s["acceleration"] == pytest.approx(a_ref, rel=1e-2)
        assert ss["slip_in_window_m"] == pytest.approx(0.5 * a_ref * (0.1**2 - 0.05**2), rel=1e-2)
        assert ss["fit_on"].startswith("sliding steps")


def test_newton_failure_keeps_the_history(case, tmp_path, monkeypatch, capsys):
    """A ConvergenceError reaches fem.run.lifecycle.execute (exit 1, status failed) with every step before it in
    history.csv."""
    from fem.time.dynamics import ConvergenceError

    real = case.march

    def failing(model, phase, state, terms, controller, **kw):
        for k, result in enumerate(real(model, phase, state, terms, controller, **kw)):
            if phase.name == "release" and k == 5:
                raise ConvergenceError(phase.name, result.state.t, 1e-4, 1.0, 0, "x", (0.0, 0.0), 40)
            yield result

    monkeypatch.setattr(case, "march", failing)
    assert case.main(["--out", str(tmp_path), "--no-plot", "--t-end", "0.01", "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Newton did not converge in phase 'release'" in err[0] and "status: failed" in err[0]
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["status"] == "failed" and "Newton did not converge" in s["message"]
    h = read_history(tmp_path / "history.csv")
    assert h["t"].size == 11 + 4 and h["t"][-1] > 0  # settling, then the release's steps before the failure
