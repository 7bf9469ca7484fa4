"""The shaking-table case and ``rockfem run`` of the same problem reach the same overturning verdict and
count the same impacts (one rule, fem.problem.verdicts; one impact rule, fem.problem.observe.PairWatch).

The problem file states what cases/shaking_table.py builds by default: SDNV105's block and table
(meshes/sdnv105_quad4.msh), the redistributed mass, Lagrange contact with mu = 0.9, the frictionless
gravity preload of 5 static steps over 0.5 s with DX(O1) held, event-driven steps of 1 ms and 0.1 ms,
Newton's RESI_GLOB_MAXI 8e-3 N in the motion (the case's: 2e-6 of the block's weight).
Five motions: one that never lifts the block, one it rocks under and comes to rest after, one that
overturns it, a harmonic still shaking at the run's end (undecided), and a vertical pulse. The case has
no two-component motion (its horizontal and vertical together are checked through ``rockfem run`` in
tests/test_verdicts.py).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cases.problem_file import cli
from cases import shaking_table

ROOT = Path(__file__).resolve().parents[1]
G = 9.81  # the case's g (cases/table/config.G): its --amplitude-g is in these units

PROBLEM = """mesh = "{mesh}"
gravity = 9.81
mass = "redistributed"
bodies = [{{ group = "BLOCK", material = "graphite" }}, {{ group = "GROUN", material = "table" }}]
supports = [{{ group = "CTGROUND" }}]
pairs = [{{ slave = "CONHAUT", master = "CONBAS", law = "lagrange", mu = 0.9, name = "table" }}]
[materials]
graphite = {{ young = 6e11, poisson = 0.2, density = 1450.0, rayleigh_stiffness = 1e-4 }}
table = {{ young = 1e14, poisson = 0.3, density = 2500.0, rayleigh_stiffness = 1.6e-3 }}
[[stages]]
kind = "preload"
name = "gravity preload"
steps = 5
duration = 0.5
friction = 0.0
hold = [{{ group = "O1", components = ["x"] }}]
newton = {{ rela = 1e-6, maxi = 2e-3, max_iterations = 40 }}
[[stages]]
kind = "base_motion"
name = "excitation"
duration = {duration}
newton = {{ rela = 1e-6, maxi = 8e-3, max_iterations = 40 }}
{direction} = {{ kind = "{kind}", amplitude = {amplitude}, frequency = {frequency}{more} }}
[steps]
kind = "events"
dt = 1e-3
dt_fine = 1e-4
tolerance = 1e-7
archive_every = 10
"""

# name, excitation, amplitude [g], frequency [Hz], t_end [s], direction, the verdict both must reach
MOTIONS = [
    ("never lifts", "sine-pulse", 0.3, 2.0, 1.0, "horizontal", "no"),
    ("rocks and comes to rest", "sine-pulse", 0.6, 2.0, 3.0, "horizontal", "no"),
    ("overturns", "sine-pulse", 0.8, 2.0, 2.0, "horizontal", "yes"),
    ("still shaking at the end", "harmonic", 0.55, 1.5, 1.0, "horizontal", "undecided"),
    ("vertical pulse", "sine-pulse", 0.5, 2.0, 1.0, "vertical", "no"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, kind, amplitude_g, frequency, t_end, direction, verdict", MOTIONS,
                         ids=[m[0] for m in MOTIONS])
def test_the_case_and_rockfem_run_agree(tmp_path, name, kind, amplitude_g, frequency, t_end, direction, verdict):
    case = tmp_path / "case"
    code = shaking_table.main(["--excitation", kind, "--amplitude-g", str(amplitude_g), "--frequency-hz",
                               str(frequency), "--t-end", str(t_end), "--direction", direction, "--no-paraview",
                               "--quiet", "--out", str(case)] + (["--cycles", "3"] if kind == "harmonic" else []))
    assert code == 0
    s = json.loads((case / "summary.json").read_text())
    path = tmp_path / "problem.toml"
    path.write_text(PROBLEM.format(mesh=(ROOT / "meshes" / "sdnv105_quad4.msh").as_posix(), duration=t_end,
                                   direction="x" if direction == "horizontal" else "y", kind=kind,
                                   amplitude=amplitude_g * G, frequency=frequency,
                                   more=", cycles = 3" if kind == "harmonic" else ""))
    assert cli.main(["run", str(path), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    r = json.loads((tmp_path / "run" / "summary.json").read_text())
    block = r["bodies"]["BLOCK"]
    assert s["overturn_verdict"]["verdict"] == block["overturn_verdict"]["verdict"] == verdict, \
        (s["overturn_verdict"], block["overturn_verdict"])
    assert s["impact_count"] == len(r["impacts"]) == r["pairs"]["table"]["impacts"]
    assert r["bodies"]["GROUN"]["overturn_verdict"]["verdict"] == "none"  # the table holds a support
    if verdict == "yes":
        assert s["overturn_time"] == pytest.approx(block["overturned_at"], abs=2e-3)
    assert s["impact_lift"]["table"] == r["pairs"]["table"]["impact_lift"]
