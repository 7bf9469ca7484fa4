"""Every flag of every case script against its physical range (fem/ranges.py, issue 27 items 3 and 5).

What is checked
---------------
* :mod:`fem.ranges` itself: each range's bounds and reason, the one-line refusal (the flag's own
  name, its unit, the range), numbers written short, steps against their run and the physical
  time scales, derived quantities checked in logarithms; the quantities a run derives from the
  ranges' corners (wave speeds sqrt(E/rho), masses, stiffness/mass ratios, self-weight strains)
  are finite normal doubles.
* :data:`REFUSED`, per script, values outside the ranges (1e308, 5e-324, 10**400 for counts, and
  the probes of the issue): each one is refused by the script's validation, i.e. before
  ``prepare_output`` is called. The scripts run in this process through their ``main`` with
  ``prepare_output`` replaced by a function that raises :class:`Reached`: a refusal returns 2 with
  one ``error:`` line naming the flag; reaching ``prepare_output`` fails the test.
* :data:`ACCEPTED`, values at the edges of the ranges: the validation lets them through (it
  reaches ``prepare_output``; ``--force`` skips the resource check, which is not a range).
* :data:`SUBPROCESS`, a representative subset run as a user runs them, ``python cases/X.py FLAGS
  --out DIR`` from an empty working folder: exit 2, one line on stderr naming the flag, nothing
  written, neither in the working folder nor in ``--out`` (``list(cwd.iterdir()) == []``).
* Mesh files (NaN, inf, |x| > 1e6 m) refused when read, naming the file and the node; records
  (fem.loads.base_motion): two samples run (degree-1 baseline, said in summary.json), an all-zero record
  runs, samples beyond 100 g or not finite refused naming the file and the line.
* The two-sample and all-zero records run to exit 0 with the block at rest: the rotation of the
  all-zero run is the preload's round-off (below 1e-15 rad, measured 1.7e-19 rad); the two-sample
  record (peak 0.025 g after its baseline correction, far below the uplift at g tan(alpha) =
  0.45 g) rotates the elastic block by less than 1e-10 rad (measured 2.3e-12 rad) and the rigid
  block not at all; both energy books close to round-off.

No wall-time assertion; no sleep.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fem import ranges
from fem.run import lifecycle as fem_run
from fem.loads.base_motion import baseline_corrected, read_record
from fem.mesh.mesh import MeshError
from fem.mesh.read import read_mesh
from fem.run.lifecycle import BadInput
from helpers import load_case

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
REFERENCE_MESH = ROOT / "meshes" / "sdnv105_quad4.msh"
HUGE = str(10**400)  # an integer no float holds


# ----------------------------------------------------------------------------------- fem.ranges
def test_every_range_is_stated_with_its_reason():
    for name, r in ranges.TABLE.items():
        assert r.name == name and r.why, name
        assert math.isfinite(r.low) and math.isfinite(r.high) and r.low < r.high, name
        assert r.interval().endswith(r.unit), name


def test_refusal_names_the_flag_its_unit_and_the_range():
    assert ranges.DENSITY.refusal("--rho", 1450.0) is None
    message = ranges.DENSITY.refusal("--rho", 5e-324)
    assert message.startswith("--rho 5e-324 kg/m^3 is outside the physical range [1e-3, 1e6] kg/m^3 of a density")
    assert "\n" not in message
    with pytest.raises(BadInput, match=r"^--young 1e308 Pa is outside the physical range \[1, 1e13\] Pa"):
        ranges.YOUNG.check("--young", 1e308)
    assert "(-1, 0.5)" in ranges.POISSON.refusal("--poisson", 0.5)  # open bounds
    assert ranges.STIFFNESS_OR_ZERO.interval() == "0 or [1e-6, 1e16] N/m"
    assert 0.0 in ranges.STIFFNESS_OR_ZERO and 0.0 not in ranges.STIFFNESS
    for bad in (math.nan, math.inf, -math.inf, 10**400, "x", None):
        assert bad not in ranges.DENSITY


@pytest.mark.parametrize("x, text", [(5e-324, "5e-324"), (1e308, "1e308"), (1e-3, "1e-3"), (1450.0, "1450"),
                                     (0.36, "0.36"), (1e6, "1e6"), (2.5e-5, "2.5e-5"), (0.0, "0"), (30, "30"),
                                     (10**400, "1e400"), (-1e-9, "-1e-9")])
def test_numbers_are_written_short(x, text):
    assert ranges.number(x) == text


def test_check_step_against_the_run_and_its_time_scales():
    ranges.check_step("--dt", 1e-3, 0.33, "--t-end", [("1/p", 0.24, "--width")])
    ranges.check_step("--dt", 0.33, 0.33, "--t-end")  # a single step is still a run
    with pytest.raises(BadInput, match=r"--dt 0\.5 s is longer than the run it cuts \(--t-end = 0\.33 s\)"):
        ranges.check_step("--dt", 0.5, 0.33, "--t-end")
    with pytest.raises(BadInput, match=r"--dt 1e-14 s is shorter than 1e-12 of the run"):
        ranges.check_step("--dt", 1e-14, 100.0, "--t-end")
    with pytest.raises(BadInput, match=r"--dt 0\.3 s is longer than 1/p, 0\.24 s \(--width\)"):
        ranges.check_step("--dt", 0.3, 0.33, "--t-end", [("1/p", 0.24, "--width")])
    with pytest.raises(BadInput, match=r"--dt 1e308 s is outside the physical range"):
        ranges.check_step("--dt", 1e308, None)


def test_derived_quantities_checked_without_overflow():
    assert ranges.check_magnitude("E / rho", "--young, --rho", [(1e13, 1), (1e-3, -1)]) == pytest.approx(16)
    with pytest.raises(BadInput, match=r"--young, --rho: E / rho would be about 1e616"):
        ranges.check_magnitude("E / rho", "--young, --rho", [(1e308, 1), (1e-308, -1)])
    with pytest.raises(BadInput, match="not a positive number"):
        ranges.check_magnitude("x", "--x", [(0.0, 1)])
    assert ranges.check_finite("c", "--young", lambda: math.sqrt(4.0)) == 2.0
    with pytest.raises(BadInput, match="--young, --rho: the wave speed is not a finite positive number"):
        ranges.check_finite("the wave speed", "--young, --rho", lambda: 1e308 * 10)
    with pytest.raises(BadInput, match="not a finite positive number"):
        ranges.check_finite("a ratio", "--k", lambda: 1.0 / 0.0)


def _corners(*kinds):
    """Every combination of the bounds of ``kinds`` (for a range from 0, its high x 1e-300: the
    smallest positive value the check of the quantity must survive)."""
    grids = np.meshgrid(*[[k.low if k.low > 0 else k.high * 1e-300, k.high] for k in kinds], indexing="ij")
    return [g.ravel() for g in grids]


def _normal(x) -> bool:
    return bool(np.all(np.isfinite(x)) and np.all(np.abs(x) > np.finfo(float).tiny))


def test_the_corners_of_the_ranges_keep_derived_quantities_normal_doubles():
    E, rho = _corners(ranges.YOUNG, ranges.DENSITY)
    assert _normal(np.sqrt(E / rho))  # wave speed, 1e-3 .. 1e8 m/s
    E, rho = _corners(ranges.TABLE_YOUNG, ranges.DENSITY)
    assert _normal(np.sqrt(E / rho))
    rho, w, h = _corners(ranges.DENSITY, ranges.BLOCK_SIZE, ranges.BLOCK_SIZE)
    mass = rho * w * h  # a block, 1 m thick
    assert _normal(mass) and _normal(mass * (w**2 + h**2) / 12)  # its inertia
    k, m = _corners(ranges.STIFFNESS, ranges.MASS)
    assert _normal(k / m) and _normal(np.sqrt(m / k))  # omega^2, 1/omega
    c, k, m = _corners(ranges.DASHPOT, ranges.STIFFNESS, ranges.MASS)
    assert np.all(np.isfinite(c / (2 * np.sqrt(k * m))))  # damping ratio
    dt, = _corners(ranges.TIME_STEP)
    assert _normal(1.0 / dt**2) and _normal(dt**2)  # Newmark's 1 / (beta dt^2)
    T, dt = _corners(ranges.DURATION, ranges.TIME_STEP)
    assert np.all(np.isfinite(T / dt))  # step counts: finite (check_resources refuses the large)
    a, f = _corners(ranges.TABLE_ACCELERATION, ranges.FREQUENCY)
    assert _normal(a * 9.81 / (2 * np.pi * f) ** 2)  # a pulse's displacement
    v, rho, E = _corners(ranges.SPEED, ranges.DENSITY, ranges.YOUNG)
    assert _normal(rho * np.sqrt(E / rho) * v)  # an impact stress rho c V


def test_rocking_time_scale():
    assert ranges.rocking_time(0.36, 0.80) == pytest.approx(0.2441, abs=1e-4)  # SDNV105: p = 4.096 rad/s


# ----------------------------------------------------------------------------------- the scripts, in process
class Reached(BaseException):
    """prepare_output was called: the validation let the input through (BaseException: fem.run.lifecycle.execute
    must not turn it into an internal error)."""


def _reached(*args, **kwargs):
    raise Reached()


_SDNV105 = ("sdnv105a", "sdnv105b", "sdnv105c", "sdnv105d")
_MODULES = {}


def _module(name: str):
    if name not in _MODULES:
        _MODULES[name] = load_case(name)
    return _MODULES[name]


def _main(name: str):
    if name in _SDNV105:
        common = _module("sdnv105.case")
        return common, (lambda argv: common.run_case(name[-1], argv))
    module = _module(name)
    return module, module.main


@pytest.fixture
def validate(monkeypatch, tmp_path, capsys):
    """``validate(script, argv)`` -> ("reached", "") when the script's validation lets ``argv`` through
    to prepare_output, else (exit code, stderr)."""
    def run(script: str, argv: list[str]):
        module, main = _main(script)
        monkeypatch.setattr(fem_run, "prepare_output", _reached)  # one_dof_common.start_run's
        if hasattr(module, "prepare_output"):
            monkeypatch.setattr(module, "prepare_output", _reached)
        capsys.readouterr()
        out = tmp_path / "out"
        at = argv.index("--") if "--" in argv else len(argv)  # flags after -- go to the FE points
        try:
            code = main([*argv[:at], "--out", str(out), *argv[at:]])
        except Reached:
            return "reached", ""
        assert not out.exists(), f"{script} {argv}: refused after creating {out}"
        return code, capsys.readouterr().err
    return run


def _zero_record(folder: Path) -> Path:
    path = folder / "zero.csv"
    path.write_text("t,a\n0,0\n0.01,0\n0.02,0\n")
    return path


#: (script, argv, what the one line must say); the first flag of argv is named unless said otherwise
REFUSED = [
    # the probes: 1e308 sizes (an empty internal error before), overflows, continuation stalls
    *[(s, ["--width", "1e308"], "--width 1e308 m is outside the physical range [1e-3, 1000] m") for s in
      ("shaking_table", *_SDNV105, "block_on_incline", "overturning_spectrum")],
    *[(s, ["--height", "1e308"], "--height 1e308 m is outside the physical range") for s in
      ("shaking_table", *_SDNV105, "block_on_incline")],
    *[(s, ["--rho", "5e-324"], "--rho 5e-324 kg/m^3 is outside the physical range [1e-3, 1e6] kg/m^3") for s in
      ("shaking_table", *_SDNV105, "sdnv105_preload", "bar_impact", "rigid_rocking")],
    *[(s, ["--rho", "1e308"], "--rho 1e308 kg/m^3 is outside") for s in
      ("shaking_table", "sdnv105a", "sdnv105_preload", "bar_impact", "rigid_rocking")],
    *[(s, ["--young", "1e308"], "--young 1e308 Pa is outside the physical range [1, 1e13] Pa") for s in
      ("shaking_table", "sdnv105c", "sdnv105_preload", "bar_impact")],
    ("bar_impact", ["--young", "5e-324"], "--young 5e-324 Pa is outside"),
    *[(s, ["--amor-alpha", "1e308"], "--amor-alpha 1e308 s is outside the physical range [0, 1] s") for s in
      ("shaking_table", "sdnv105a", "sdnv105_preload")],
    *[(s, ["--table-amor-alpha", "1e308"], "--table-amor-alpha 1e308 s is outside") for s in
      ("shaking_table", "sdnv105d", "sdnv105_preload")],
    *[(s, ["--table-young", "1e308"], "--table-young 1e308 Pa is outside the physical range [1, 1e16] Pa")
      for s in ("shaking_table", "sdnv105b")],
    *[(s, ["--mu", "1e308"], "--mu 1e308 is outside the physical range [0, 10]") for s in
      ("shaking_table", "sdnv105a", "block_on_incline", "overturning_spectrum")],
    ("shaking_table", ["--blocks", "2", "--mu-joint", "11"], "--mu-joint 11 is outside"),
    # --dt 1e308: accepted silently by 10 scripts before
    *[(s, ["--dt", "1e308"], "--dt 1e308 s is outside the physical range [1e-15, 1e5] s") for s in
      ("shaking_table", *_SDNV105, "block_on_incline", "bar_impact", "sdnd101", "sdnd105", "sdnd108",
       "sdnv105_preload", "overturning_spectrum")],
    *[(s, ["--dt", "5e-324"], "--dt 5e-324 s is outside") for s in
      ("shaking_table", "sdnv105a", "sdnd101", "sdnd105", "sdnd108", "bar_impact", "block_on_incline")],
    ("convergence", ["sdnv105a", "--dt", "1e308", "1e307"], "--dt 1e308 s is outside"),
    ("convergence", ["sdnv105d", "--dt", "1e-3", "5e-4", "--rho", "5e-324"], "--rho 5e-324 kg/m^3 is outside"),
    ("convergence", ["sdnv105a", "--dt", "1e-3", "5e-4", "--meshes", "reference", "2000000000x2"],
     "--meshes 2000000000x2: 2e9 is outside"),
    # a step longer than the run or than the physical time scale the run must resolve
    ("sdnv105a", ["--dt", "0.5"], "--dt 0.5 s is longer than the block's rocking time scale 1/p = sqrt(4R / 3g), 0.2442 s"),
    ("sdnv105b", ["--dt", "0.25", "--t-end", "1"], "--dt 0.25 s is longer than the block's rocking time scale"),
    ("sdnv105d", ["--t-end", "1", "--dt", "0.3"], "--dt 0.3 s is longer than the block's rocking time scale"),
    ("shaking_table", ["--dt", "0.3"], "--dt 0.3 s is longer than the block's rocking time scale"),
    ("shaking_table", ["--frequency-hz", "50", "--dt", "0.05", "--width", "20", "--height", "40"],
     "--dt 0.05 s is longer than the excitation's period 1/f, 0.02 s (--frequency-hz)"),
    ("shaking_table", ["--excitation", "ramp", "--ramp-time", "0.01", "--dt", "0.02"],
     "--dt 0.02 s is longer than the ramp's rise time"),
    ("shaking_table", ["--t-end", "0.5", "--dt", "1"], "--dt 1 s is longer than the run it cuts (--t-end = 0.5 s)"),
    ("block_on_incline", ["--dt", "0.2"], "--dt 0.2 s is longer than the run it cuts (--t-end = 0.1 s)"),
    ("bar_impact", ["--setup", "periodic", "--dt", "5"], "--dt 5 s is longer than the wave's transit of the bar"),
    ("bar_impact", ["--dt", "1e-3"], "--dt 1e-3 s is longer than the run it cuts"),
    ("sdnd101", ["--method", "direct", "--dt", "0.04"], "--dt 0.04 s is longer than the shock's duration"),
    ("sdnd105", ["--dt", "4"], "--dt 4 s is longer than an elastic shock's duration"),
    ("sdnd105", ["--fine-window", "0", "5e-324"], "--fine-window (its part inside the run) 5e-324 s is outside"),
    ("sdnd108", ["--dt", "0.5"], "--dt 0.5 s is longer than the contact's duration pi sqrt(m / k)"),
    ("sdnv105_preload", ["--dt", "0.5"], "--dt 0.5 s is longer than the gravity ramp, 0.3 s"),
    ("overturning_spectrum", ["--dt", "0.3"], "--dt 0.3 s is longer than the block's rocking time scale"),
    # every other number of every script
    *[(s, ["--t-end", "1e308"], "--t-end 1e308 s is outside") for s in
      ("shaking_table", "sdnv105a", "block_on_incline", "bar_impact", "sdnd101", "sdnd105", "sdnd108",
       "sdnv105_preload")],
    ("sdnd108", ["--t-end", "1e6"], "--t-end 1e6 s is outside the physical range [1e-12, 1e5] s of a duration"),
    ("sdnv105a", ["--tilt-angle", "1e-300"], "--tilt-angle 1e-300 rad is below 1e-8 rad"),
    ("sdnv105c", ["--nx", HUGE, "--ny", "2"], "--nx 1e400 is outside the physical range [1, 1e9]"),
    ("sdnv105b", ["--nx", "2", "--ny", HUGE], "--ny 1e400 is outside"),
    ("sdnv105a", ["--dt-fine", "5e-324"], "--dt-fine 5e-324 s is outside the physical range [1e-15, 1e5] s"),
    ("shaking_table", ["--dt-fine", "5e-324"], "--dt-fine 5e-324 s is outside the physical range [1e-15, 1e5] s"),
    ("shaking_table", ["--dt", "1e-15", "--t-end", "1e-3"], "--dt-fine (default --dt / 10) 1e-16 s is outside"),
    ("sdnd105", ["--dt-fine", "1e308"], "--dt-fine 1e308 s is outside"),
    ("overturning_spectrum", ["--height", "1e308", "--width", "1e308"], "--width 1e308 m is outside"),
    ("overturning_spectrum", ["--height", "1e308"], "--height 1e308 m is outside"),
    ("sdnv105a", ["--young", "1e5"], "--rho, --height, --young: the block would be strained by 0.114"),
    ("sdnv105a", ["--table-young", "100"], "--rho, --height, --table-young: the table would be strained"),
    ("sdnv105_preload", ["--young", "1e5"], "--rho, --young: the block would be strained by 0.114"),
    ("sdnv105b", ["--rigi-nor", "1e308"], "--rigi-nor 1e308 N/m is outside the physical range [1e-6, 1e16] N/m"),
    ("sdnv105b", ["--rigi-tan", "5e-324"], "--rigi-tan 5e-324 N/m is outside the physical range 0 or [1e-6, 1e16]"),
    ("sdnv105b", ["--amor-nor", "1e308"], "--amor-nor 1e308 N s/m is outside the physical range [0, 1e13] N s/m"),
    ("sdnv105b", ["--amor-tan", "1e308"], "--amor-tan 1e308 N s/m is outside"),
    ("sdnv105_preload", ["--t-end", "1e308"], "--t-end 1e308 s is outside the physical range [-1e5, 1e5] s"),
    ("shaking_table", ["--amplitude-g", "1e6"], "--amplitude-g 1e6 g: its magnitude is outside the physical "
                                                "range [1e-6, 20] g of a table acceleration"),
    ("shaking_table", ["--amplitude-g", "-21"], "--amplitude-g -21 g: its magnitude is outside"),
    ("shaking_table", ["--amplitude-g", "5e-324"], "--amplitude-g 5e-324 g: its magnitude is outside"),
    ("shaking_table", ["--frequency-hz", "1e308"],
     "--frequency-hz 1e308 Hz is outside the physical range [1e-3, 1000] Hz"),
    ("shaking_table", ["--frequency-hz", "5e-324"], "--frequency-hz 5e-324 Hz is outside"),
    ("shaking_table", ["--cycles", "1e308"], "--cycles 1e308 is outside the physical range [1e-3, 1e4]"),
    ("shaking_table", ["--cycles", "1e4", "--frequency-hz", "1e-3"], "--cycles, --frequency-hz: the excitation "
                                                                      "lasts 1e+07 s"),
    ("shaking_table", ["--excitation", "harmonic", "--smooth-start", "1e308"], "--smooth-start 1e308 s is outside"),
    ("shaking_table", ["--excitation", "ramp", "--ramp-time", "5e-324"], "--ramp-time 5e-324 s is outside"),
    ("shaking_table", ["--excitation", "ramp", "--hold-time", "1e308"], "--hold-time 1e308 s is outside the "
                                                                        "physical range 0 or [1e-12, 1e5] s"),
    ("shaking_table", ["--tolerance", "1e308"], "--tolerance 1e308 m is outside the physical range [1e-12, 0.01] m"),
    ("shaking_table", ["--poisson", "0.4999999999999999", "--young", "5e-324"], "--young 5e-324 Pa is outside"),
    ("shaking_table", ["--young", "1e3"], "--rho, --height, --blocks, --young: the bottom block would be strained"),
    ("block_on_incline", ["--nx", HUGE], "--nx 1e400 is outside"),
    ("block_on_incline", ["--ny", HUGE], "--ny 1e400 is outside"),
    ("bar_impact", ["--nx", HUGE], "--nx 1e400 is outside"),
    ("bar_impact", ["--length", "1e308"], "--length 1e308 m is outside the physical range [1e-6, 1e4] m"),
    ("bar_impact", ["--velocity", "1e308"], "--velocity 1e308 m/s is outside the physical range [1e-9, 1e4] m/s"),
    ("bar_impact", ["--velocity", "5e-324"], "--velocity 5e-324 m/s is outside"),
    ("bar_impact", ["--gap", "1e308"], "--gap 1e308 m is outside the physical range [0, 1000] m"),
    ("bar_impact", ["--velocity", "1e-9"], "--gap, --velocity, --length, --young, --rho: the default --t-end"),
    ("bar_impact", ["--t-end", "1e308"], "--t-end 1e308 s is outside"),
    ("rigid_rocking", ["--half-width", "1e308"], "--half-width 1e308 m is outside"),
    ("rigid_rocking", ["--half-height", "5e-324"], "--half-height 5e-324 m is outside"),
    ("rigid_rocking", ["--thickness", "1e308"], "--thickness 1e308 m is outside"),
    ("rigid_rocking", ["--g", "1e308"], "--g 1e308 m/s^2 is outside the physical range [1e-3, 1000] m/s^2"),
    ("rigid_rocking", ["--impacts", HUGE], "--impacts 1e400: with the document's impact law"),
    ("sdnd101", ["--mass", "1e308"], "--mass 1e308 kg is outside the physical range [1e-6, 1e9] kg"),
    ("sdnd101", ["--k", "1e308"], "--k 1e308 N/m is outside the physical range 0 or [1e-6, 1e16] N/m"),
    ("sdnd101", ["--k-shock", "5e-324"], "--k-shock 5e-324 N/m is outside"),
    ("sdnd101", ["--v0", "1e308"], "--v0 1e308 m/s is outside"),
    ("sdnd101", ["--convergence", HUGE], "--convergence 1e400 is outside the physical range [0, 50]"),
    ("sdnd105", ["--mass", "5e-324"], "--mass 5e-324 kg is outside"),
    ("sdnd105", ["--v0", "1e308"], "--v0 1e308 m/s is outside"),
    ("sdnd105", ["--kn", "1e308"], "--kn 1e308 N/m is outside"),
    ("sdnd105", ["--f-crit", "1e308"], "--f-crit 1e308 N is outside the physical range [1e-9, 1e12] N"),
    ("sdnd105", ["--f-post", "5e-324"], "--f-post 5e-324 N is outside"),
    ("sdnd105", ["--plateau", "1e308"], "--plateau 1e308 m is outside"),  # ZeroDivisionError before
    ("sdnd105", ["--fall", "1e308"], "--fall 1e308 m is outside"),
    ("sdnd105", ["--modeling", "d", "--amor-nor", "1e308"], "--amor-nor 1e308 N s/m is outside"),
    ("sdnd105", ["--modeling", "d", "--amor-fl", "1e308"], "--amor-fl 1e308 N s/m is outside"),
    ("sdnd105", ["--modeling", "d", "--amor-post", "1e308", "1", "1", "1"], "--amor-post 1e308 N s/m is outside"),
    ("sdnd105", ["--modeling", "c", "--depl-post", "2", "3", "4", "1e308"], "--depl-post 1e308 m is outside"),
    ("sdnd105", ["--fine-window", "0", "1e308"], "--fine-window 1e308 s is outside"),
    ("sdnd105", ["--t-end", "1e308"], "--t-end 1e308 s is outside"),
    ("sdnd108", ["--mass", "1e308"], "--mass 1e308 kg is outside"),
    ("sdnd108", ["--k", "5e-324"], "--k 5e-324 N/m is outside the physical range [1e-6, 1e16] N/m"),
    ("sdnd108", ["--c", "1e308"], "--c 1e308 N s/m is outside"),
    ("sdnd108", ["--height", "1e308"], "--height 1e308 m is outside"),
    ("sdnd108", ["--v0", "-1e308"], "--v0 -1e308 m/s is outside the physical range [-1e4, 1e4] m/s"),
    ("sdnd108", ["--g", "5e-324"], "--g 5e-324 m/s^2 is outside"),
    ("sdnd122", ["--energy", "1e308"], "--energy 1e308 J is outside the physical range (0, 1e15] J"),
    ("sdnd122", ["--e-max", "1e308"], "--e-max 1e308 J is outside"),
    ("sdnd122", ["--mass", "1e308"], "--mass 1e308 kg is outside"),
    ("sdnd122", ["--k", "1e308"], "--k 1e308 N/m is outside"),
    ("sdnd122", ["--k-stop", "5e-324"], "--k-stop 5e-324 N/m is outside"),
    ("sdnd122", ["--gap", "5e-324"], "--gap 5e-324 m is outside"),
    ("sdnd122", ["--fe-steps", "10"], "--fe-steps must lie in 20..1000000 steps a period, got 10"),
    ("sdnd122", ["--fe-steps", "2000000"], "--fe-steps must lie in 20..1000000"),
    ("overturning_spectrum", ["--amplitude-ratios", "1e6"], "--amplitude-ratios 1e6: the pulse's peak"),
    ("overturning_spectrum", ["--frequency-ratios", "1e6"], "--frequency-ratios 1e6: the pulse's frequency"),
    ("overturning_spectrum", ["--time-limit", "1e308"],
     "--time-limit 1e308 s is outside the physical range [1, 1e6] s"),
    ("overturning_spectrum", ["--workers", HUGE], "--workers 1e400 is outside the physical range [1, 1000]"),
    ("overturning_spectrum", ["--map-frequencies", "0", "--", "--young", "1e308"],
     "--young 1e308 Pa is outside the physical range [1, 1e13] Pa of a Young's modulus"),
]


def _id(row) -> str:
    script, argv, _ = row
    return f"{script}:{' '.join(a if len(a) < 12 else a[:5] + '..' for a in argv)}"


@pytest.mark.parametrize("script, argv, message", REFUSED, ids=[_id(r) for r in REFUSED])
def test_out_of_range_values_are_refused_before_prepare_output(validate, script, argv, message):
    code, err = validate(script, argv)
    assert code == 2, f"{script} {argv}: {code} {err}"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert message in lines[0], lines[0]


def test_every_float_flag_of_every_script_is_in_the_refusal_table():
    """Each number flag of each script's --help (but the choices, files and integers with their own
    rules) has a row of REFUSED that names it."""
    family = lambda script: "sdnv105" if script in _SDNV105 else script  # noqa: E731 (one validation)
    named = {(family(s), f) for s, argv, msg in REFUSED for f in re.findall(r"--[a-z][a-z0-9-]*", msg)}
    skip = {"--out", "--mesh", "--record", "--scheduler", "--alpha", "--alpha-fine", "--theta", "--restitution",
            "--angle-deg", "--poisson", "--archive-every", "--round-off", "--blocks", "--map-frequencies",
            "--jobs", "--impacts", "--frequency-ratios", "--amplitude-ratios", "--tilt-angle", "--crit-amor"}
    missing = []
    for script in ("shaking_table", *_SDNV105, "sdnv105_preload", "bar_impact", "block_on_incline",
                   "rigid_rocking", "sdnd101", "sdnd105", "sdnd108", "sdnd122", "overturning_spectrum"):
        module, main = _main(script)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            with contextlib.suppress(SystemExit):
                main(["--help"])
        flags = set(re.findall(r"(--[a-z][a-z0-9-]*) [A-Z][A-Z0-9_]*", out.getvalue())) - skip
        missing += [(script, f) for f in sorted(flags) if (family(script), f) not in named]
    assert not missing, " ".join(f"{s}:{f}" for s, f in missing)


#: values at the edges of the ranges: the validation lets them through (--force: the resource check
#: is not a range)
ACCEPTED = [
    ("shaking_table", ["--amplitude-g", "20", "--excitation", "sine-pulse"]),
    ("shaking_table", ["--amplitude-g", "-20"]),
    ("shaking_table", ["--amplitude-g", "1e-6"]),
    ("shaking_table", ["--mu", "0", "--young", "1e13", "--rho", "1e6", "--table-young", "1e16"]),
    ("shaking_table", ["--mu", "10", "--young", "1", "--rho", "1e-3", "--amor-alpha", "1", "--table-amor-alpha", "0"]),
    ("shaking_table", ["--width", "1e-3", "--height", "1e-3", "--dt", "1e-3"]),
    ("shaking_table", ["--width", "1000", "--height", "1000", "--young", "1e13", "--rho", "1e3"]),
    ("shaking_table", ["--frequency-hz", "1000", "--dt", "1e-3"]),  # dt = 1/f exactly
    ("shaking_table", ["--frequency-hz", "1e-3", "--cycles", "1e-3", "--force"]),
    ("shaking_table", ["--excitation", "ramp", "--hold-time", "0", "--ramp-time", "1e-3", "--dt", "1e-3"]),
    ("shaking_table", ["--tolerance", "1e-12"]),
    ("shaking_table", ["--tolerance", "0.01"]),
    ("shaking_table", ["--dt", "1e-14", "--t-end", "1e-3", "--force"]),
    ("sdnv105a", ["--mu", "10", "--young", "1e13", "--rho", "1e6", "--table-young", "1e16", "--amor-alpha", "1"]),
    ("sdnv105b", ["--rigi-nor", "1e16", "--rigi-tan", "0", "--amor-nor", "1e13", "--amor-tan", "0"]),
    ("sdnv105c", ["--width", "1e-3", "--height", "1e-3", "--tilt-angle", "1e-8", "--force"]),
    ("sdnv105d", ["--dt", "0.2", "--t-end", "0.2"]),  # below 1/p = 0.244 s, one step: the run
    ("sdnv105a", ["--nx", "1000000000", "--ny", "1", "--force"]),
    ("sdnv105_preload", ["--dt", "0.3", "--young", "1e13", "--rho", "1e-3"]),
    ("sdnv105_preload", ["--t-end", "-1.65", "--dt", "0.3"]),
    ("bar_impact", ["--length", "1e-6", "--force"]),  # default dt h / 2c = 1.25e-12 s
    ("bar_impact", ["--young", "1e13", "--rho", "1e-3", "--dt", "1e-12", "--force"]),  # c = 1e8 m/s
    ("bar_impact", ["--velocity", "1e4", "--gap", "0"]),
    ("bar_impact", ["--setup", "periodic", "--dt", "1"]),  # dt = L / c exactly
    ("block_on_incline", ["--mu", "10", "--dt", "0.1", "--t-end", "0.1", "--width", "1000", "--height", "1e-3"]),
    ("rigid_rocking", ["--half-width", "1000", "--half-height", "1000", "--rho", "1e6", "--thickness", "1e-3",
                       "--g", "1e3", "--theta", "0.1"]),
    ("rigid_rocking", ["--half-width", "1e-3", "--half-height", "1e-3", "--rho", "1e-3", "--g", "1e-3",
                       "--theta", "0.1"]),
    ("sdnd101", ["--mass", "1e9", "--k", "0", "--k-shock", "1e16", "--v0", "1e4", "--force"]),
    ("sdnd101", ["--convergence", "50", "--force"]),
    ("sdnd105", ["--modeling", "d", "--amor-nor", "1e13", "--amor-fl", "0", "--amor-post", "0", "0", "0", "0"]),
    ("sdnd108", ["--v0", "1e4", "--g", "1e-3", "--c", "0", "--dt", "1e-3"]),
    ("sdnd122", ["--energy", "1e-3", "--e-max", "1e15", "--force"]),
    ("overturning_spectrum", ["--model", "rigid", "--mu", "10", "--time-limit", "1"]),
    ("convergence", ["sdnv105a", "--dt", "1e-3", "5e-4", "--rho", "1e6"]),
]


@pytest.mark.parametrize("script, argv", ACCEPTED, ids=[_id((s, a, "")) for s, a in ACCEPTED])
def test_values_at_the_edges_of_the_ranges_are_accepted(validate, script, argv):
    assert validate(script, argv) == ("reached", ""), (script, argv)


# ----------------------------------------------------------------------------------- subprocesses
def _nan_mesh(folder: Path, value: str = "nan") -> Path:
    """The reference mesh with node 2's y replaced by ``value`` (its line reads '0 0.8 0')."""
    lines = REFERENCE_MESH.read_text().splitlines()
    at = lines.index("0 0.8 0")
    lines[at] = f"0 {value} 0"
    path = folder / f"mesh_{value}.msh"
    path.write_text("\n".join(lines) + "\n")
    return path


def _record(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


#: run as a user runs them (a fresh interpreter: what the shell sees); {inputs} is a folder outside the
#: working folder holding the mesh and record files
SUBPROCESS = [
    ("shaking_table", ["--width", "1e308"], "--width 1e308 m"),
    ("shaking_table", ["--amplitude-g", "1e6"], "--amplitude-g 1e6 g"),
    ("shaking_table", ["--excitation", "record", "--record", "{inputs}/huge.csv"], "huge.csv: line 3 (sample 1"),
    ("shaking_table", ["--mesh", "{inputs}/mesh_nan.msh"], "--mesh"),
    ("sdnv105a", ["--mesh", "{inputs}/mesh_nan.msh"], "node 2 has y = nan"),
    ("sdnv105b", ["--rho", "5e-324"], "--rho 5e-324 kg/m^3"),
    ("sdnv105_preload", ["--mesh", "{inputs}/mesh_1e300.msh"], "node 2 has y = 1e300"),
    ("bar_impact", ["--rho", "1e308"], "--rho 1e308 kg/m^3"),
    ("block_on_incline", ["--dt", "1e308"], "--dt 1e308 s"),
    ("sdnd105", ["--plateau", "1e308"], "--plateau 1e308 m"),
    ("sdnd122", ["--e-max", "1e308"], "--e-max 1e308 J"),
    ("overturning_spectrum", ["--dt", "1e308"], "--dt 1e308 s"),
]


def _run(script: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(CASES / f"{script}.py"), *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("script, argv, message", SUBPROCESS, ids=[_id(r) for r in SUBPROCESS])
def test_refusals_exit_2_with_one_line_and_write_nothing(tmp_path, script, argv, message):
    inputs, cwd = tmp_path / "inputs", tmp_path / "cwd"
    inputs.mkdir()
    cwd.mkdir()
    _nan_mesh(inputs, "nan")
    _nan_mesh(inputs, "1e300")
    _record(inputs, "huge.csv", "t,a\n0,0\n0.01,1e300\n0.02,0\n")
    argv = [a.replace("{inputs}", str(inputs)) for a in argv]
    result = _run(script, [*argv, "--out", str(cwd / "out")], cwd)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr
    assert result.stdout == ""
    assert list(cwd.iterdir()) == []


# ----------------------------------------------------------------------------------- mesh files
@pytest.mark.parametrize("value, says", [("nan", "not a finite number"), ("inf", "not a finite number"),
                                         ("-1e7", "beyond the 1e6 m a mesh may span"),
                                         ("1e300", "beyond the 1e6 m a mesh may span")])
def test_mesh_coordinates_out_of_range_are_refused_when_read(tmp_path, value, says):
    path = _nan_mesh(tmp_path, value)
    with pytest.raises(MeshError) as err:
        read_mesh(path)
    message = str(err.value)
    assert str(path) in message and "node 2 has y = " in message and says in message and "\n" not in message
    assert "[-1e6, 1e6] m" in message


def test_mesh_coordinates_at_the_bound_are_read(tmp_path):
    points = read_mesh(_nan_mesh(tmp_path, "1e6")).points  # an absurd cell, but a coordinate in range
    assert points[:, 1].max() == 1e6


# ----------------------------------------------------------------------------------- records
def test_two_samples_take_the_degree_one_baseline(tmp_path):
    record = read_record(_record(tmp_path, "two.csv", "t,a\n0,0\n0.01,0.5\n"))
    assert np.all(np.isfinite(record.accelerations))
    assert record.accelerations == pytest.approx((-0.25, 0.25), abs=1e-15)  # a - v_end / T
    assert record.velocity(0.01) == pytest.approx(0.0, abs=1e-18)
    assert record.baseline.startswith("polynomial of degree 1") and "2 samples" in record.baseline
    assert baseline_corrected(record, 1).baseline == "polynomial of degree 1 (the straight line to the end velocity)"


def test_an_all_zero_record_stays_zero(tmp_path):
    record = read_record(_zero_record(tmp_path))
    assert record.accelerations == (0.0, 0.0, 0.0) and record.peak_acceleration == 0.0
    assert record.baseline.startswith("polynomial of degree 2")
    with pytest.raises(ValueError, match="cannot scale an all-zero record"):
        read_record(_zero_record(tmp_path), peak_g=0.5)


@pytest.mark.parametrize("name, text, units, says", [
    ("huge.csv", "t,a\n0,0\n0.01,1e300\n0.02,0\n", None, "line 3 (sample 1, t = 0.01 s): acceleration 1e300 m/s^2"),
    ("nan.csv", "# a comment\nt,a\n0,0\n0.01,0\n0.02,nan\n", None, "line 5 (sample 2, t = 0.02 s): acceleration nan "
                                                                  "m/s^2 is not a finite number"),
    ("g.csv", "0 0\n0.01 150\n", "g", "line 2 (sample 1, t = 0.01 s): acceleration 150 g is outside [-100, 100] g"),
    ("late.csv", "0 0\n1e6 0\n", None, "line 2 (sample 1): time 1e6 s is beyond 1e5 s"),
    ("inf.csv", "0 0\ninf 0\n", None, "line 2 (sample 1): time inf s is not a finite number"),
    ("huge.AT2", "PEER\nX\nUNITS OF G\nNPTS=  4, DT=   .0100 SEC\n 0.0 0.1\n 1e300 0.0\n", None,
     "line 6 (sample 2, t = 0.02 s): acceleration 1e300 g is outside [-100, 100] g"),
    ("long.AT2", "PEER\nX\nUNITS OF G\nNPTS=  4, DT=   1e300 SEC\n 0.0 0.1\n 0.0 0.0\n", None, "line 4: NPTS = 4"),
])
def test_absurd_record_samples_are_refused_naming_the_line(tmp_path, name, text, units, says):
    path = _record(tmp_path, name, text)
    with pytest.raises(ValueError) as err:
        read_record(path, units=units)
    message = str(err.value)
    assert message.startswith(str(path)) and says in message and "\n" not in message, message


def test_a_record_beyond_20_g_after_its_correction_is_refused(validate, tmp_path):
    path = _record(tmp_path, "strong.csv", "t,a\n0,0\n0.01,300\n0.02,-300\n0.03,0\n")
    code, err = validate("shaking_table", ["--excitation", "record", "--record", str(path)])
    assert code == 2 and "its peak acceleration, 22.94 g, is outside the physical range [1e-6, 20] g" in err
    assert "--amplitude-g" in err  # how to use it anyway: scale it
    assert validate("shaking_table", ["--excitation", "record", "--record", str(path),
                                      "--amplitude-g", "2"]) == ("reached", "")


@pytest.mark.parametrize("kind", ["two-sample", "all-zero"])
def test_tiny_records_run_with_the_block_at_rest(tmp_path, kind):
    """The two records of the issue run to exit 0 (before: "not a finite number (NaN?)" from the
    baseline fit, and "energy books miss 57.2 %" from a relative error over a zero input)."""
    inputs, cwd = tmp_path / "inputs", tmp_path / "cwd"
    inputs.mkdir()
    cwd.mkdir()
    path = (_record(inputs, "two.csv", "t,a\n0,0\n0.01,0.5\n") if kind == "two-sample" else _zero_record(inputs))
    out = cwd / "out"
    result = _run("shaking_table", ["--excitation", "record", "--record", str(path), "--t-end", "0.1",
                                    "--no-paraview", "--quiet", "--out", str(out)], cwd)
    assert result.returncode == 0, result.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "complete"
    assert s["energy"]["relative_error"] < 1e-12  # round-off over the floor (the preload's strain energy)
    assert s["uplift_time"] is None and not s["overturned"] and not s["slid"] and not s["impacts"]
    assert s["rigid_body"]["max_rotation"] == 0.0
    if kind == "all-zero":
        assert s["max_rotation"][0] < 1e-15  # the preload's round-off, there at t = 0 (1.7e-19 rad)
        assert s["table"]["peak_acceleration"] == 0.0
        assert s["parameters"]["record_baseline"].startswith("polynomial of degree 2")
    else:
        assert s["max_rotation"][0] < 1e-10  # elastic, under 0.025 g (2.3e-12 rad measured)
        assert s["table"]["peak_acceleration"] == pytest.approx(0.25, rel=1e-12)
        assert "2 samples" in s["parameters"]["record_baseline"]
