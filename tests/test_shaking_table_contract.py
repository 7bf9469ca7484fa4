"""Rows of tests/test_contract.py for cases/shaking_table.py (the run contract of every case script).

tests/test_contract.py finds every script of cases/, so it finds shaking_table.py, and its tables
need rows for it. These are the rows; test_contract.py takes them with

    from test_shaking_table_contract import CONTRACT_FLAG_RUNS, CONTRACT_IMPOSSIBLE, CONTRACT_SHORT
    SHORT["shaking_table"] = CONTRACT_SHORT
    IMPOSSIBLE["shaking_table"] = CONTRACT_IMPOSSIBLE
    FLAG_RUNS += [FlagRun("shaking_table", name, argv, check) for name, argv, check in CONTRACT_FLAG_RUNS]

(and its PROGRESS_RUNS has the cheapest run without --quiet). This module holds no test of its
own: the checks run in test_contract.py's ``test_flags_take_effect`` (``result`` is its Result:
code, out, err, argv, folder, summary(), history()). They are written here, without importing
test_contract.py (which imports this module).

Every run is a gravity preload (5 static steps) and a few hundredths of a second of excitation:
0.4 to 1.0 s each in test_contract.py's process (pytest --durations, this 2-core machine), 2 to 3 s
as a fresh ``python cases/shaking_table.py`` (most of it the imports). The default block is
SDNV105's 0.36 x 0.80 m (tan(alpha) = 0.45: a rigid block lifts when the table accelerates past
0.45 g, and slides first when mu < 0.45 and |a| > mu g).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from fem.loads import base_motion as bm
from fem.mesh.read import read_mesh
from fem.io.results import read_history, read_series
from helpers import assert_parameters
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
AT2 = DATA / "record_small.AT2"  # PEER .AT2 in g, 24 samples of 0.01 s
CSV = DATA / "record_filtered_noise.csv"  # t [s], a [m/s^2], 10 s: only with a short --t-end
COPY = "copy:"  # test_contract.py's runner: a copy of meshes/<name> in the runs' folder
G = 9.81  # the script's g
POSITIVE, FINITE = "must be > 0", "must be a finite number"
SLID = 1e-5  # m: the script's threshold of summary "slid"

# ----------------------------------------------------------------------------------- the tables
#: a short complete run of every contract test (the memory check made to fail: it runs because of
#: --force): a smooth ramp to 0.2 g, 20 ms of it (0.02 g reached: the block sticks and stands)
#: Newmark's average acceleration on every step (no longer the default, HHT -0.1 / -0.2): the runs whose checks
#: rest on its exact identities (no numerical dissipation, the trapezoidal kinematics of a slide) state it
NEWMARK = ("--alpha", "0", "--alpha-fine", "0")
CONTRACT_SHORT = (["--excitation", "ramp", "--amplitude-g", "0.2", "--t-end", "0.02", "--dt", "2e-3", *NEWMARK,
                   "--no-paraview", "--quiet", "--force"], "custom")

#: impossible values: (flags, what the one-line message must say); each refused before anything runs
CONTRACT_IMPOSSIBLE = [
    (["--dt", "-1e-3"], ("--dt", POSITIVE)),
    (["--width", "-0.36"], ("--width", POSITIVE)),
    (["--height", "0"], ("--height", POSITIVE)),
    (["--mu", "inf"], ("argument --mu", FINITE)),
    (["--mu", "-0.1"], ("--mu", ">= 0")),
    (["--alpha", "0.2"], ("--alpha",)),
    (["--alpha-fine", "-0.5"], ("--alpha-fine",)),
    (["--theta", "0.4"], ("--theta",)),
    (["--archive-every", "0"], ("--archive-every",)),
    (["--mesh", "missing.msh"], ("--mesh missing.msh",)),
    (["--excitation", "record"], ("--record",)),
    (["--excitation", "record", "--record", "missing.csv"], ("--record missing.csv", "no such record file")),
    (["--record", str(AT2)], ("--record", "--excitation record")),
    (["--frequency-hz", "0"], ("--frequency-hz", POSITIVE)),
    (["--t-end", "-1"], ("--t-end", POSITIVE)),
    (["--dt", "1e-3", "--dt-fine", "2e-3"], ("--dt-fine", "must not exceed --dt")),
    (["--tolerance", "0"], ("--tolerance", POSITIVE)),
    (["--modeling", "d", "--mass", "redistributed"], ("--mass",)),
    (["--modeling", "d", "--dt-fine", "1e-4"], ("--dt-fine",)),
    (["--excitation", "foo"], ("--excitation", "invalid choice")),
    (["--direction", "diagonal"], ("--direction", "invalid choice")),
    (["--blocks", "0"], ("--blocks", "[1, 20]")),
    (["--blocks", "1.5"], ("argument --blocks", "invalid int")),
    (["--mu-joint", "0.3"], ("--mu-joint", "--blocks 2")),
    (["--blocks", "2", "--mu-joint", "-1"], ("--mu-joint", ">= 0")),
    (["--animate", "--no-paraview"], ("--animate", "--no-paraview")),  # no series to draw
]


# ----------------------------------------------------------------------------------- helpers
def _completed(result) -> dict:
    """Exit 0, no traceback, status complete; with --quiet nothing at all on stderr (no progress
    line, no warning: the reference mesh and these blocks give none)."""
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    if "--quiet" in result.argv:
        assert result.err == "", result.err
    s = result.summary()
    assert s["status"] == "complete" and s["case"] == "shaking_table" and s["configuration"] == "custom"
    return s


def _preload(result) -> dict:
    return read_history(result.folder / "preload_history.csv")


def _steps_within_dt(t: np.ndarray, dt: float, t_end: float) -> None:
    """--dt is the largest step (1e-12 relative: the run's last step is cut to t_end and sums of
    steps round); --t-end is the last time written."""
    assert np.all(np.diff(t) > 0)
    assert np.all(np.diff(t) <= dt * (1 + 1e-12)), np.diff(t).max()
    assert t[0] == 0.0 and t[-1] == pytest.approx(t_end, abs=1e-12)


def _table_history(h: dict, history: bm.MotionHistory, amplitude: float) -> None:
    """history.csv's table_a is the chosen history at the times written: the same closed form at the
    same times (the CSV writes 17 significant digits, a double round-trips), so to 1e-12 of A."""
    np.testing.assert_allclose(h["table_a"], history.acceleration(h["t"]), rtol=1e-12, atol=1e-12 * abs(amplitude))
    np.testing.assert_allclose(h["table_v"], history.velocity(h["t"]), rtol=1e-12, atol=1e-12 * abs(amplitude))


def _peak(history: bm.MotionHistory, t_end: float, samples=()) -> float:
    """max |a| on [0, t_end]: on 200001 points, the record's samples and t_end (exact for a
    piecewise-linear record; for a sine of frequency f the grid misses the peak by at most
    (2 pi f h)^2 / 8 relative, 5e-10 at 50 Hz and h = 1.8e-7 s)."""
    t = np.linspace(0.0, t_end, 200001)
    samples = np.asarray(samples, dtype=float)
    t = np.union1d(t, samples[samples <= t_end])
    return float(np.max(np.abs(history.acceleration(t))))


def _no_numerical_dissipation(s: dict) -> None:
    """--alpha 0 --alpha-fine 0: Newmark's average acceleration books no numerical dissipation (its
    energy identity is exact; measured 1e-20 of the table's input, 1e-12 leaves round-off room)."""
    e = s["energy"]
    assert abs(e["numerical_dissipation"]) <= 1e-12 * e["max_table_work"]


def _column(rho: float, height: float, young: float) -> float:
    """DY(C1), the top centre, under self-weight: the 1-D column's -rho g H^2 / (2E)."""
    return -rho * G * height**2 / (2 * young)


# ----------------------------------------------------------------------------------- the checks
def check_short(result) -> None:
    """The short run: --excitation ramp --amplitude-g 0.2 (rise time 0.1 s, hold 0.2 s by default),
    --t-end 0.02, --dt 2e-3 (and the default --dt-fine, dt/10), --no-paraview, --quiet, --force."""
    s = _completed(result)
    assert_parameters(s, modeling="a", excitation="ramp", amplitude_g=0.2, ramp_time=0.1, hold_time=0.2, t_end=0.02,
            dt=2e-3, dt_fine=2e-4, alpha=0.0, alpha_fine=0.0, mu=0.9, mass="redistributed", paraview=False,
            direction="horizontal")
    assert s["modeling"] == "a" and s["mass"]["kind"] == "redistributed"
    # --no-paraview: no ParaView file at all; the default block runs on the checked-in mesh (none written)
    assert not [p for p in result.folder.glob("*.*") if p.suffix in (".pvd", ".xdmf", ".h5")]
    assert not [p for p in result.folder.glob("*.vtu") if p.name != "mine_000001.vtu"]
    assert not (result.folder / "mesh.msh").exists()
    h = result.history()
    t = h["t"]
    _steps_within_dt(t, 2e-3, 0.02)
    # the first step after rest is growth x dt_fine = 2 x dt / 10 (fem.time.stepping: no event, no history yet)
    assert t[1] == pytest.approx(2 * 2e-4, rel=1e-12)
    ramp = bm.Ramp(0.2 * G, 0.1, 0.2)
    _table_history(h, ramp, 0.2 * G)
    # the rise is monotone: the peak over [0, 0.02] is a(0.02) = 0.2 g S(0.2), S(s) = 3 s^2 - 2 s^3
    assert s["table"]["peak_acceleration"] == pytest.approx(0.2 * G * (3 * 0.04 - 2 * 0.008), rel=1e-9)
    # the block sticks and stands (0.02 g << mu 0.9 and tan(alpha) 0.45): it moves with the table, so the
    # base's friction carries M a and the normal reaction M g; |sum R_T| / sum R_N = a / g (measured to
    # 1.5e-5: the block's elastic response; 1e-3)
    assert s["max_friction_ratio"] == pytest.approx(s["table"]["peak_acceleration"] / G, rel=1e-3)
    assert s["slid"] is False and s["max_slip"] < SLID and s["uplift_time"] is None and s["impacts"] == []
    assert s["mass"]["block_mass"] == pytest.approx(1450.0 * 0.36 * 0.80, rel=1e-12)
    _no_numerical_dissipation(s)


HARMONIC = dict(amplitude_g=0.1, frequency_hz=50.0, cycles=1.5, smooth_start=0.01, width=0.3, height=0.9,
                rho=2000.0, young=1.2e12, poisson=0.25, amor_alpha=2e-4, table_young=2e14, table_amor_alpha=1e-3)


def check_harmonic_block(result) -> None:
    """A 0.30 x 0.90 m block of other materials under 1.5 cycles of a 50 Hz harmonic with a 10 ms
    smooth start, with ParaView every 3 steps."""
    s = _completed(result)
    p = HARMONIC
    assert_parameters(s, excitation="harmonic", t_end=0.036, dt=2e-3, archive_every=3, paraview=True, **p)
    # --width, --height: the script meshed this block (gmsh, the reference layout) into its folder
    mesh = read_mesh(result.folder / "mesh.msh")
    xy = mesh.points[mesh.nodes("BLOCK")]
    np.testing.assert_allclose(np.ptp(xy[:, :2], axis=0), [0.3, 0.9], rtol=1e-12)
    # --rho, --width, --height: the block's mass (per metre); its slenderness: uplift at tan(alpha) g,
    # overturned at 2 alpha
    assert s["mass"]["block_mass"] == pytest.approx(2000.0 * 0.3 * 0.9, rel=1e-12)
    assert s["uplift_acceleration_g"] == pytest.approx(0.3 / 0.9, rel=1e-12)
    assert s["overturn_angle"] == [pytest.approx(2 * math.atan(0.3 / 0.9), rel=1e-12)]
    # --rho, --young, --height: at the end of the preload (static, frictionless base) DY(C1) is the 1-D
    # column's. The reference layout departs from it by its Poisson / base effect (0.31 % measured,
    # 0.44 % for the default block): 2 % is 6 times that, and 10 times smaller than the change a flag
    # left at its default would make (rho: x 0.73, young: x 2.0, height: x 0.79)
    pre = _preload(result)
    assert pre["t"][-1] == 0.0
    assert pre["dy_C1"][-1] == pytest.approx(_column(2000.0, 0.9, 1.2e12), rel=2e-2)
    # --excitation harmonic --amplitude-g --frequency-hz --cycles --smooth-start: table_a is the closed form
    A = 0.1 * G
    motion = bm.Harmonic(A, 50.0, 1.5, 0.01)
    h = result.history()
    # --poisson (with --rho --young --height --width): the frictionless preload lets the base spread
    # sideways, each base corner by nu rho g H b / E for the plane-stress column (its lateral strain at
    # the base, nu rho g H / E, over the half-width b), as slip_O = -slip_A at t = 0. The reference
    # layout gives 0.860 of it here and 0.854 for the default block (nu 0.2, H/b 4.4): the base is held
    # flat and the bilinear cells cannot take the column's quadratic displacements. Asked within
    # [0.80, 0.92] of it: nu = 0.2 (the default) instead of 0.25 would give 0.69
    spread = 0.25 * 2000.0 * G * 0.9 * 0.15 / 1.2e12
    assert h["slip_A"][0] == pytest.approx(-h["slip_O"][0], rel=1e-9)
    assert 0.80 * spread <= h["slip_O"][0] <= 0.92 * spread
    t = h["t"]
    _steps_within_dt(t, 2e-3, 0.036)
    _table_history(h, motion, A)
    # ... and each of --cycles, --smooth-start shows: a = 0 after 1.5 / 50 = 0.03 s (3 cycles would
    # go on), and a is ramped in before 0.01 s (a sharp start differs there by up to A/2 at the steps)
    late = t > 0.03 + 1e-12
    assert late.sum() >= 2 and np.all(h["table_a"][late] == 0.0)
    assert np.max(np.abs(bm.Harmonic(A, 50.0, 3.0, 0.01).acceleration(t[late]))) > 0.5 * A
    early = t < 0.01
    assert np.max(np.abs(bm.Harmonic(A, 50.0, 1.5, 0.0).acceleration(t[early]) - h["table_a"][early])) > 0.2 * A
    # the peak of the motion over [0, 0.036]: A (cycles 2 and 3 of the sine, after the ramp-in)
    assert s["table"]["peak_acceleration"] == pytest.approx(_peak(motion, 0.036), rel=1e-6)
    assert s["table"]["peak_acceleration"] == pytest.approx(A, rel=1e-6)
    # --archive-every 3: the ParaView series holds the initial state, every 3rd step and the last one;
    # --output-format pvd: as a .pvd and one .vtu a step (no .xdmf)
    steps = t.size - 1
    assert not list(result.folder.glob("*.xdmf")) and not list(result.folder.glob("*.h5"))
    for name in ("solution.pvd", "contact.pvd"):
        frames = read_series(result.folder / name)
        assert len(list(result.folder.glob(name.replace(".pvd", "_*.vtu")))) == len(frames), name
        assert len(frames) == 1 + math.ceil(steps / 3), name
        expected = np.r_[t[::3], t[-1]] if steps % 3 else t[::3]
        np.testing.assert_allclose([f[0] for f in frames], expected, rtol=0, atol=1e-12)
    # --animate: animation.gif, a frame for each step of the series (fewer than its 150), listed in summary.json
    with Image.open(result.folder / "animation.gif") as gif:
        assert gif.format == "GIF" and gif.n_frames == len(read_series(result.folder / "solution.pvd")) > 1
    assert "animation.gif" in s["files"]
    _no_numerical_dissipation(s)


def check_sine_pulse_c(result) -> None:
    """Modeling c (augmented Lagrangian), the consistent mass, HHT alpha -0.1 in the coarse steps and
    Newmark's alpha 0 in the fine ones, under one sine of 0.6 g at 5 Hz: past tan(alpha) = 0.45 g,
    the block lifts."""
    s = _completed(result)
    assert_parameters(s, modeling="c", excitation="sine-pulse", amplitude_g=0.6, frequency_hz=5.0, t_end=0.035, dt=2e-3,
            dt_fine=5e-4, mass="consistent", alpha=-0.1, alpha_fine=0.0, paraview=False)
    assert s["modeling"] == "c" and s["mass"]["kind"] == "consistent"
    A, w = 0.6 * G, 2 * math.pi * 5.0
    h = result.history()
    t = h["t"]
    _steps_within_dt(t, 2e-3, 0.035)
    _table_history(h, bm.SinePulse(A, 5.0), A)
    # a rises over [0, 0.035] (a quarter period is 0.05 s): the peak is a(t_end)
    assert s["table"]["peak_acceleration"] == pytest.approx(A * math.sin(w * 0.035), rel=1e-9)
    # --dt-fine: contact events happened (the heel opens, then the block lifts) and every step begun
    # within a fine span is --dt-fine (fem.time.stepping), but the run's last, cut to --t-end
    spans = s["fine_spans"]
    assert spans
    steps = np.diff(t)
    fine = np.zeros(steps.size, bool)
    for span in spans:
        fine |= (t[:-1] >= span["from"] - 1e-12) & (t[:-1] < span["to"] - 1e-12)
    assert fine.sum() >= 10
    np.testing.assert_allclose(steps[fine & (t[1:] < 0.035 - 1e-12)], 5e-4, rtol=1e-9)
    # --amplitude-g --frequency-hz (and the block's tan(alpha) = 0.45): the rigid block lifts when
    # a = A sin(w t) reaches g tan(alpha), t* = asin(0.45 / 0.6) / w = 0.0270 s; the FE block stands on
    # one corner alone at the end of the step that crosses it (steps <= --dt: within [t*, t* + dt])
    t_star = math.asin(0.45 / 0.6) / w
    assert s["rigid_body"]["uplift_onset"] == pytest.approx(t_star, rel=1e-6)
    assert t_star - 1e-12 <= s["uplift_onset"] <= t_star + 2e-3 + 1e-12
    # --alpha -0.1 in the coarse steps, --alpha-fine 0 in the fine ones: Newmark's average acceleration
    # books no numerical dissipation in a step (its energy identity is exact: measured 3e-20 of the
    # table's input, 1e-12 asked), HHT does (either sign step by step: measured up to 1.1e-3 of the
    # input, 1e-6 asked). Without --alpha-fine the fine steps would take alpha -0.1 (4.5e-5 measured);
    # without --alpha the coarse steps would book nothing (3e-18)
    work = s["energy"]["max_table_work"]
    booked = np.abs(np.diff(h["numerical_dissipation"]))
    assert np.max(booked[fine]) <= 1e-12 * work
    assert (~fine).sum() >= 10 and np.max(booked[~fine]) > 1e-6 * work


def check_cosine_pulse_d(result) -> None:
    """Modeling d (Moreau-Jean, theta 0.6) on a given mesh (a copy of the checked-in reference mesh),
    under one cosine of 0.3 g at 10 Hz with mu 0.1: the table jumps to 0.3 g at t = 0, and the block
    slides from the first step to the end (0.03 s; it would stick again after a falls below mu g at
    0.0196 s and its lag is taken up)."""
    s = _completed(result)
    assert_parameters(s, modeling="d", theta=0.6, excitation="cosine-pulse", amplitude_g=0.3, frequency_hz=10.0, mu=0.1,
            t_end=0.03, dt=1e-3, mass="consistent", paraview=False)
    assert s["modeling"] == "d" and s["mass"]["kind"] == "consistent"  # d's default mass
    # d takes uniform steps of --dt: its resolved dt_fine is dt
    assert_parameters(s, dt_fine=1e-3)
    h = result.history()
    t = h["t"]
    _steps_within_dt(t, 1e-3, 0.03)
    np.testing.assert_allclose(np.diff(t), 1e-3, rtol=1e-9)
    # --excitation cosine-pulse: a = A cos(w t), A from t = 0 (its peak)
    A = 0.3 * G
    _table_history(h, bm.CosinePulse(A, 10.0), A)
    assert h["table_a"][0] == pytest.approx(A, rel=1e-15)
    assert s["table"]["peak_acceleration"] == pytest.approx(A, rel=1e-12)
    # --mesh: the file given is read (a copy of meshes/sdnv105_quad4.msh, elsewhere); nothing meshed here
    given = Path(s["parameters"]["mesh"])
    assert given.name == "copy-sdnv105_quad4.msh" and given.is_file()
    assert given.read_bytes() == (ROOT / "meshes" / "sdnv105_quad4.msh").read_bytes()
    assert not (result.folder / "mesh.msh").exists()
    M = s["mass"]["block_mass"]
    assert M == pytest.approx(1450.0 * 0.36 * 0.80, rel=1e-12)
    # --mu 0.1: it slides backwards (relative to the table) at every step, friction at the cap
    assert s["slid"] is True and s["max_friction_ratio"] == pytest.approx(0.1, rel=1e-6)
    x = h["dx_C1"]
    assert np.all(np.abs(h["friction_demand"][1:] - 0.1) <= 1e-6) and np.all(np.diff(x) < 0)
    # --theta 0.6: the Moreau-Jean update [u] = dt ((1 - theta) v0 + theta v1) (fem.stage.energy's docstring),
    # read off the sliding block: [u] from DX(C1), v = -sqrt(2 KE / M) (it translates, backwards), so
    # theta = ([u]/dt - v0) / (v1 - v0) at each step. Measured within 2e-3 of 0.6 from the 5th step (the
    # first ones ring with the pulse's jump at t = 0, which KE holds too): 5e-3, ten times less than
    # the default 0.55 is away
    v = -np.sqrt(2 * h["ke"] / M)
    theta = (np.diff(x) / np.diff(t) - v[:-1]) / np.diff(v)
    np.testing.assert_allclose(theta[4:], 0.6, rtol=0, atol=5e-3)


def check_record_at2_vertical(result) -> None:
    """The PEER record scaled to a 0.3 g peak, moving the table vertically."""
    s = _completed(result)
    assert_parameters(s, excitation="record", record=str(AT2), record_units=None, amplitude_g=0.3, direction="vertical",
            t_end=0.05, dt=2e-3)
    record = bm.read_record(AT2, peak_g=0.3, g=G)  # AT2: in g by default; scaled to 0.3 g (its units cancel)
    assert record.peak_acceleration == pytest.approx(0.3 * G, rel=1e-12)
    h = result.history()
    t = h["t"]
    _steps_within_dt(t, 2e-3, 0.05)
    _table_history(h, record, 0.3 * G)
    # the peak of a piecewise-linear record over [0, t_end] is at a sample or at t_end
    assert s["table"]["peak_acceleration"] == pytest.approx(_peak(record, 0.05, record.times), rel=1e-12)
    # --direction vertical: no rigid reference (it is for a horizontal table)
    assert s["rigid_body"]["applies"] is False and "horizontal" in s["rigid_body"]["reason"]
    # ... no horizontal motion of the block at all (measured 1e-19 m; 1e-15 m is round-off of 1e-8 m
    # displacements) ...
    assert np.max(np.abs(h["dx_C1"])) < 1e-15 and np.max(np.abs(h["theta"])) < 1e-12
    # ... and the block is weighed by g + a: the body forces (gravity, the d'Alembert load -M a e_y)
    # all scale by (1 + a/g), and the stiff block (vertical mode at 6 kHz, overdamped by AMOR_ALPHA)
    # follows quasi-statically: DY(C1) = DY_preload (1 + a/g) after t = 0. Measured within 0.9 % of
    # DY_preload (Newmark's trapezoidal rule leaves the stiff mode ringing after the record's jump at
    # t = 0, and a lag): 2 %, while a/g reaches 0.13 here (a horizontal motion would leave DY unchanged)
    us = _preload(result)["dy_C1"][-1]
    a = h["table_a"][1:]
    assert np.max(np.abs(a)) / G > 0.1
    np.testing.assert_allclose(h["dy_C1"][1:], us * (1 + a / G), rtol=0, atol=2e-2 * abs(us))
    assert s["slid"] is False and s["uplift_time"] is None


def check_record_csv_in_g(result) -> None:
    """The CSV record (written in m/s^2) read with --record-units g: every sample is 9.81 times its
    m/s^2 reading (the baseline correction is linear in the samples), no peak scaling."""
    s = _completed(result)
    assert_parameters(s, excitation="record", record=str(CSV), record_units="g", amplitude_g=None, t_end=0.03, dt=2e-3,
            direction="horizontal")
    in_g = bm.read_record(CSV, units="g", g=G)
    in_si = bm.read_record(CSV, units="m/s2", g=G)
    h = result.history()
    t = h["t"]
    _steps_within_dt(t, 2e-3, 0.03)
    _table_history(h, in_g, in_g.peak_acceleration)
    np.testing.assert_allclose(h["table_a"], G * in_si.acceleration(t), rtol=1e-12, atol=1e-15)
    assert np.max(np.abs(h["table_a"])) > 0.01
    assert s["table"]["peak_acceleration"] == pytest.approx(_peak(in_g, 0.03, in_g.times), rel=1e-12)
    # horizontal and sticking (a few cm/s^2): the block moves with the table, friction carries M a
    assert s["rigid_body"]["applies"] is True and s["slid"] is False


SLIDE = dict(amplitude_g=0.3, ramp_time=0.02, hold_time=0.01, mu=0.1, tolerance=3e-8)


def check_slide(result) -> None:
    """A ramp to 0.3 g (rise 20 ms, held 10 ms) under a block with mu 0.1: past mu g the block
    slides (it would rock only past 0.45 g), x_rel'' = -(a - mu g); --tolerance 3e-8 m bounds the
    coarse steps through the changing acceleration."""
    s = _completed(result)
    assert_parameters(s, excitation="ramp", t_end=0.04, dt=2e-3, dt_fine=2e-4, **SLIDE)
    A, mu, tol, dt = 0.3 * G, 0.1, 3e-8, 2e-3
    ramp = bm.Ramp(A, 0.02, 0.01)
    h = result.history()
    t = h["t"]
    _steps_within_dt(t, dt, 0.04)
    _table_history(h, ramp, A)
    assert s["table"]["peak_acceleration"] == pytest.approx(A, rel=1e-12)  # held from 0.02 to 0.03 s
    # --mu 0.1: it slid; the base's friction is at the Coulomb cap, |sum R_T| / sum R_N = mu (to
    # Newton's tolerance); the rigid reference does not apply (the rigid rocking would need more friction)
    assert s["slid"] is True and s["uplift_time"] is None
    assert s["max_friction_ratio"] == pytest.approx(mu, rel=1e-6)
    assert s["rigid_body"]["applies"] is False and s["rigid_body"]["max_friction_ratio"] > mu
    sliding = np.abs(h["friction_demand"] - mu) <= 1e-6 * mu
    # --amplitude-g --hold-time --mu: in the hold [0.02, 0.03] s the relative acceleration is
    # -(A - mu g), constant, which Newmark integrates exactly (a parabola): the fitted curvature of
    # DX(C1) is it to 1e-4 (measured 2e-8; the block's elastic ringing is 1e-9 m)
    hold = (t >= 0.02) & (t <= 0.03)
    assert hold.sum() >= 4 and np.all(sliding[hold])
    x = h["dx_C1"] - h["dx_C1"][0]
    assert 2 * np.polyfit(t[hold], x[hold], 2)[0] == pytest.approx(-(A - mu * G), rel=1e-4)
    # --ramp-time: the slide starts when a(t) = mu g on the rise, t_s; from there x_rel = -(d(t) - d(t_s)
    # - v(t_s)(t - t_s)) + mu g (t - t_s)^2 / 2. At t_end within 1 % (measured 0.34 %: the step in
    # which the slide starts, 2 ms long, is integrated with Newmark's average acceleration)
    t_s = brentq(lambda x_: ramp.acceleration(x_) - mu * G, 1e-9, 0.02)
    closed = -(ramp.displacement(0.04) - ramp.displacement(t_s) - ramp.velocity(t_s) * (0.04 - t_s)) \
        + 0.5 * mu * G * (0.04 - t_s) ** 2
    assert x[-1] == pytest.approx(closed, rel=1e-2)
    assert s["max_slip"] == pytest.approx(abs(closed), rel=1e-2)
    # --tolerance: a coarse step after two sliding steps n-1, n is min(dt, 2 dt_n, 0.9 dt_n (tol / eta)^(1/3))
    # with eta = |beta - 1/6| dt_n^2 |A_n - A_(n-1)| (fem.time.stepping; beta = 1/4, the rigid block's
    # rotation nil), A_n = -(mean a over step n - mu g) the sliding block's mean relative acceleration,
    # from the closed form. Measured within 0.9 %: 2 % (the default tolerance, 1e-7, would give steps
    # (10/3)^(1/3) = 1.49 times longer)
    steps = np.diff(t)
    mean_a = -(np.diff(ramp.velocity(t)) / steps - mu * G)
    compared = bounded = 0
    for n in range(1, steps.size - 1):
        if not np.all(sliding[n - 1:n + 2]) or t[n + 2] >= 0.04 - 1e-12:  # the last step is cut to t_end
            continue
        eta = abs(0.25 - 1 / 6) * steps[n] ** 2 * abs(mean_a[n] - mean_a[n - 1])
        by_error = 0.9 * steps[n] * (tol / eta) ** (1 / 3) if eta > 0 else math.inf
        predicted = min(dt, 2 * steps[n], max(2e-4, by_error))
        assert steps[n + 1] == pytest.approx(predicted, rel=2e-2), (t[n + 1], steps[n + 1], predicted)
        compared += 1
        bounded += by_error < min(dt, 2 * steps[n])
    assert compared >= 10 and bounded >= 6  # the tolerance set most of these steps
    _no_numerical_dissipation(s)


def check_stack_joint_slide(result) -> None:
    """Two SDNV105 blocks (--blocks 2) under the slide's ramp (0.3 g, rise 20 ms, held 10 ms), mu 0.9
    on the table and --mu-joint 0.1 between the blocks: the top block slides on the bottom one,
    x_rel'' = -(a - mu_joint g) once a > mu_joint g, while the bottom block sticks to the table (its
    base carries (M_1 a + mu_joint W_2) / (W_1 + W_2) = 0.2 g of friction demand < 0.9) and neither
    tips (the bottom one would need 0.7 g with the joint's friction on its top, the top one
    mu_joint l = 0.04 m < b = 0.18 m of eccentricity)."""
    s = _completed(result)
    assert_parameters(s, excitation="ramp", t_end=0.04, blocks=2, mu=0.9, mu_joint=0.1, amplitude_g=0.3,
                      ramp_time=0.02, hold_time=0.01)
    A, mu_j = 0.3 * G, 0.1
    ramp = bm.Ramp(A, 0.02, 0.01)
    h = result.history()
    t = h["t"]
    # --blocks 2: a rotation per block, a joint between them with its own columns
    assert s["blocks"] == 2 and len(s["max_rotation"]) == 2 and len(s["max_joint_gap"]) == 2
    assert {"theta_2", "friction_demand_j1", "slip_O_2", "dx_C1_2"} <= set(h)
    assert s["uplift_time"] is None and max(s["max_rotation"]) < 1e-5
    # --mu-joint 0.1: the joint at its Coulomb cap through the hold; the table far below its own 0.9
    hold = (t >= 0.02) & (t <= 0.03)
    assert hold.sum() >= 4
    np.testing.assert_allclose(h["friction_demand_j1"][hold], mu_j, rtol=1e-6)
    assert np.max(h["friction_demand"]) == pytest.approx((0.3 + mu_j) / 2, rel=1e-3)
    assert s["max_friction_ratio"] == pytest.approx((0.3 + mu_j) / 2, rel=1e-3)  # the larger surface's demand
    # the rigid column would rock at 0.3 g > 0.225 g, but needs more friction than the joint's 0.1
    assert s["rigid_body"]["applies"] is False and s["rigid_body"]["uplift_time"] is not None
    # the top block's slip on the bottom one: the rigid slider's closed form at t_end within 1 % (the
    # step in which the slide starts); the bottom block does not slip on the table
    t_s = brentq(lambda x_: ramp.acceleration(x_) - mu_j * G, 1e-9, 0.02)
    closed = -(ramp.displacement(0.04) - ramp.displacement(t_s) - ramp.velocity(t_s) * (0.04 - t_s)) \
        + 0.5 * mu_j * G * (0.04 - t_s) ** 2
    slip_top = h["slip_O_2"] - h["slip_O_2"][0]
    assert abs(slip_top[-1]) == pytest.approx(abs(closed), rel=1e-2)
    assert h["dx_C1_2"][-1] - h["dx_C1_2"][0] == pytest.approx(closed, rel=1e-2)
    assert np.max(np.abs(h["slip_O"] - h["slip_O"][0])) < 1e-3 * abs(closed)
    assert s["slid"] is True


#: (name, argv, check): together they use every flag of shaking_table.py --help but --out (the
#: runner adds it); the run without --quiet is test_contract.py's PROGRESS_RUNS row
def check_predictor_none(result) -> None:
    """--predictor none (each step's first Newton iterate its start): under one sine of 0.6 g at 5 Hz
    the block lifts at the rigid block's instant t* = asin(0.45 / 0.6) / w within a step, as with the
    default predictor, and the energy books close (the converged steps do not depend on the first
    iterate beyond the Newton tolerance)."""
    s = _completed(result)
    assert_parameters(s, excitation="sine-pulse", amplitude_g=0.6, frequency_hz=5.0, predictor="none")
    t_star = math.asin(0.45 / 0.6) / (2 * math.pi * 5.0)
    assert t_star - 1e-12 <= s["uplift_onset"] <= t_star + 2e-3 + 1e-12
    assert s["energy"]["relative_error"] < 1e-3


CONTRACT_FLAG_RUNS = [
    ("short", tuple(CONTRACT_SHORT[0]), check_short),
    ("predictor-none", ("--excitation", "sine-pulse", "--amplitude-g", "0.6", "--frequency-hz", "5", "--t-end", "0.035",
                        "--dt", "2e-3", "--predictor", "none", "--no-paraview", "--quiet"), check_predictor_none),
    ("harmonic-block", ("--excitation", "harmonic", "--amplitude-g", "0.1", "--frequency-hz", "50", "--cycles", "1.5",
                        "--smooth-start", "0.01", "--width", "0.3", "--height", "0.9", "--rho", "2000", "--young",
                        "1.2e12", "--poisson", "0.25", "--amor-alpha", "2e-4", "--table-young", "2e14",
                        "--table-amor-alpha", "1e-3", "--t-end", "0.036", "--dt", "2e-3", "--archive-every", "3", "--output-format", "pvd",
                        *NEWMARK, "--animate", "--quiet"), check_harmonic_block),
    ("sine-pulse-c", ("--modeling", "c", "--excitation", "sine-pulse", "--amplitude-g", "0.6", "--frequency-hz", "5",
                      "--t-end", "0.035", "--dt", "2e-3", "--dt-fine", "5e-4", "--mass", "consistent", "--alpha",
                      "-0.1", "--alpha-fine", "0", "--no-paraview", "--quiet"), check_sine_pulse_c),
    ("cosine-pulse-d", ("--modeling", "d", "--theta", "0.6", "--excitation", "cosine-pulse", "--amplitude-g", "0.3",
                        "--frequency-hz", "10", "--mu", "0.1", "--t-end", "0.03", "--dt", "1e-3", "--mesh",
                        COPY + "sdnv105_quad4.msh", "--no-paraview", "--quiet"), check_cosine_pulse_d),
    ("record-at2-vertical", ("--excitation", "record", "--record", str(AT2), "--amplitude-g", "0.3", "--direction",
                             "vertical", "--t-end", "0.05", "--dt", "2e-3", *NEWMARK, "--no-paraview", "--quiet"),
     check_record_at2_vertical),
    ("record-csv-in-g", ("--excitation", "record", "--record", str(CSV), "--record-units", "g", "--t-end", "0.03",
                         "--dt", "2e-3", "--no-paraview", "--quiet"), check_record_csv_in_g),
    ("slide", ("--excitation", "ramp", "--amplitude-g", "0.3", "--ramp-time", "0.02", "--hold-time", "0.01", "--mu",
               "0.1", "--tolerance", "3e-8", "--t-end", "0.04", "--dt", "2e-3", *NEWMARK, "--no-paraview", "--quiet"),
     check_slide),
    ("stack-joint-slide", ("--blocks", "2", "--mu-joint", "0.1", "--excitation", "ramp", "--amplitude-g", "0.3",
                           "--ramp-time", "0.02", "--hold-time", "0.01", "--t-end", "0.04", "--dt", "2e-3",
                           "--no-paraview", "--quiet"), check_stack_joint_slide),
]

