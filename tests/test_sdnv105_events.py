"""SDNV105 A with the redistributed mass: where in the step the contacts close and open
(--contact-events; contact.multipliers closing and release rules).

Uniform steps over the release (--dt X --dt-fine X, --alpha 0: Newmark's average acceleration in
every step, no numerical dissipation), to 0.14 s (the first impact on A, the block rocking back on
to O). With Code_Aster's immediate rules the contact takes 1/2 R g_n at each landing, about
1/2 F v dt s (1 - s) with s where the corner lands in the step: 0.84 J at the first impact for
dt = 5e-5 s, 0.20 J for 1.25e-5 s, 0.21 J for 6.25e-6 s (measured, history.csv contact_work), and the
kinetic energy the block keeps does not settle (before the second impact 4.069, 4.075, 4.209,
4.275 J for dt = 5e-5 ... 6.25e-6 s, with alpha 0 in the benchmark's windows and -0.2 around the
impacts detected in them). Located, the landing and lift-off instants are found inside
the step: the contact takes 0.02 J at most and the kinetic energy before the second impact is
4.2945, 4.2918, 4.2855 J at dt = 5e-5, 2.5e-5, 1.25e-5 s (instants 0.13745, 0.13742, 0.13737 s).

Runtime: two runs, 20 s and 36 s on this 2-core machine (slow).
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest

CASES = Path(__file__).resolve().parents[1] / "cases"
if str(CASES) not in sys.path:
    sys.path.insert(0, str(CASES))
import sdnv105_common as common  # noqa: E402  (the scripts' own entry point, run_case)


def _history(path: Path) -> dict[str, np.ndarray]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    data = np.array(rows[1:], dtype=float)
    return {c: data[:, j] for j, c in enumerate(rows[0])}


def _run(dt: float, out: Path, events: str = "auto") -> tuple[dict, dict]:
    code = common.run_case("a", ["--out", str(out), "--no-paraview", "--quiet", "--force", "--mass", "redistributed",
                                 "--dt", str(dt), "--dt-fine", str(dt), "--alpha", "0", "--t-end", "0.14",
                                 "--contact-events", events])
    assert code == 0
    return json.loads((out / "summary.json").read_text()), _history(out / "history.csv")


@pytest.fixture(scope="module")
def levels(tmp_path_factory):
    return {dt: _run(dt, tmp_path_factory.mktemp(f"events_{dt:g}")) for dt in (5e-5, 2.5e-5)}


@pytest.mark.slow
def test_auto_locates_the_events_with_the_redistributed_mass(levels):
    for summary, _ in levels.values():
        assert summary["contact_events"] == "located" and summary["mass"]["kind"] == "redistributed"


@pytest.mark.slow
def test_located_events_take_almost_nothing_and_create_nothing(levels):
    """The contact's work over the release is in [0, 0.03 J] (the immediate rule takes 0.84 J at
    the first impact alone at 5e-5 s); the block's kinetic energy never exceeds the potential-energy
    drop; the books balance to 1e-5 of it."""
    for summary, h in levels.values():
        e = summary["energy"]
        assert 0.0 <= e["contact_work"] <= 0.03
        assert h["ke"].max() <= e["potential_drop"] * (1 + 1e-9)
        assert e["relative_error"] < 1e-5


@pytest.mark.slow
def test_the_first_impact_no_longer_depends_on_the_step(levels):
    """Second impact (on O): instant within 0.1 ms and kinetic energy before it within 0.3 % between
    dt = 5e-5 and 2.5e-5 s (measured 0.03 ms and 0.06 %; immediate rules, module docstring: 0.02 ms and
    0.15 %, then 3 % and 1.6 % for the next halvings)."""
    (s1, _), (s2, _) = levels[5e-5], levels[2.5e-5]
    i1, i2 = s1["impacts"], s2["impacts"]
    assert [i["corner"] for i in i1] == [i["corner"] for i in i2] == ["A", "O"]
    assert abs(i1[1]["time"] - i2[1]["time"]) < 1e-4
    assert i1[1]["ke_before"] == pytest.approx(i2[1]["ke_before"], rel=3e-3)
