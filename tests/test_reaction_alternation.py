"""Contact reactions that alternate step to step (issue 39).

Newmark's average acceleration (HHT alpha = 0) leaves undamped the period-2 mode of the reactions of a
constrained, massless contact node (Cardona and Geradin 1989): on the shaking table a block pivoting on
its corner A saw RN(A) alternate between 785 N and 7,250 N at every step for a second, its friction ratio
saturate mu = 0.9 every other step and the run report "slid: yes", where the rigid block needs 0.475.

* The measure (fem.problem.observe.PairWatch.alternation): the most steps in a row one closed node's
  reaction went up and down in turn by more than 1 % of the pair's mean closed reaction; a period-2
  sequence counts every step, a smooth one, a monotone settling or one impact spike none or one.
* Every run grades it (fem.problem.checks.ALTERNATION_LIMIT, 100 steps): the shaking table's run with
  alpha = 0 fails it (1,230 to 1,293 steps) and shows the friction that alternation drives; with the default
  scheme (HHT -0.1 on the coarse steps, -0.2 on the fine ones: fem.problem.simulate.ALPHA, ALPHA_FINE)
  the longest alternation stays below 20 steps, the largest friction ratio outside impacts is the rigid
  block's demand within 1 % and no corner slides, under a harmonic, a one-sine pulse and a record, and
  for the two-block stack the joints' and the table's reactions do not alternate either.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cases import shaking_table
from fem.problem.checks import ALTERNATION_LIMIT, alternation_row
from fem.problem.observe import PairWatch
from fem.problem.simulate import ALPHA, ALPHA_FINE, Settings
from fem.run.lifecycle import graded_rows, tally, verdict

from helpers import PairState

ROOT = Path(__file__).resolve().parents[1]




class _Term:
    """A contact term whose two nodes' reactions are scripted, step by step."""

    def __init__(self, rows):
        self.rows, self.k = rows, 0

    def state(self):
        rn, closed = self.rows[self.k]
        closed = np.asarray(closed, dtype=bool)
        return PairState(np.where(closed, 1, 0), np.where(closed, 0.0, 1e-3), np.asarray(rn, dtype=float),
                      np.zeros(2), np.array([10, 11]))


def _watch(rows) -> PairWatch:
    term = _Term(rows)
    w = PairWatch("base", term)
    for k in range(len(rows)):
        term.k = k
        w.observe(0.001 * k)
    return w


def test_a_period_two_reaction_counts_every_step_in_turn():
    """R = 4000 +- 3000 N in turn for 50 steps on node 10, node 11 steady: 48 turns (the first and the last
    sample have no neighbour on one side), on node 10, from the step after the first."""
    rows = [((4000 + 3000 * (-1) ** k, 1000.0), (True, True)) for k in range(50)]
    w = _watch(rows)
    assert (w.alternation, w.alternation_node) == (48, 10)
    assert w.alternation_from == pytest.approx(0.001)


@pytest.mark.parametrize("name, series", [
    ("smooth", [4000 + 500 * np.sin(0.2 * k) for k in range(200)]),  # 31 steps a period: resolved
    ("settling", [4000 + 3000 * 0.5 ** k for k in range(60)]),  # monotone
    ("an impact's spike", [4000.0] * 20 + [50000.0] + [4000.0] * 20),  # up then down once
    ("round-off", [4000 + 1e-3 * (-1) ** k for k in range(100)]),  # below 1 % of the reaction
])
def test_no_alternation_in_a_resolved_motion(name, series):
    w = _watch([((r, 1000.0), (True, True)) for r in series])
    assert w.alternation <= 1, name


def test_an_opening_ends_the_count():
    """Alternating for 30 steps, open for one, alternating for 20: the longest is 28, not 48."""
    rows = ([((4000 + 3000 * (-1) ** k, 1.0), (True, True)) for k in range(30)] + [((0.0, 1.0), (False, True))]
            + [((4000 + 3000 * (-1) ** k, 1.0), (True, True)) for k in range(20)])
    assert _watch(rows).alternation == 28


def test_the_check_fails_above_its_bound_naming_the_node_the_instant_and_the_remedy():
    ok, bad = alternation_row("base", ALTERNATION_LIMIT), alternation_row("base", 1293, "A", 1.86469)
    assert ok["within_tolerance"] is True and "note" not in ok
    assert bad["within_tolerance"] is False
    assert "node A" in bad["note"] and "1293 steps" in bad["note"] and "t = 1.86469 s" in bad["note"]
    assert "HHT alpha" in bad["note"]


def test_a_cases_run_checks_count_and_fail_strict_like_its_own():
    """A case keeping its own checks list (SDNV105) puts the engine's in ``run_checks``: "N of M" counts both."""
    summary = {"checks": [{"quantity": "KE max", "within_tolerance": True}],
               "run_checks": [alternation_row("base", 3), alternation_row("base", 1293, "A", 1.0)]}
    assert tally(graded_rows(summary)) == (2, 3)
    assert [verdict(c) for c in graded_rows(summary)] == [True, True, False]


def test_the_default_scheme_damps_the_highest_frequencies():
    """HHT's spectral radius at infinite frequency (1 + alpha) / (1 - alpha) < 1: the period-2 mode of a
    landing's reaction falls to 1 % in ln(0.01) / ln(rho) steps, well inside the check's bound."""
    settings = Settings()
    assert (settings.alpha, settings.alpha_fine) == (ALPHA, ALPHA_FINE)
    for alpha in (ALPHA, ALPHA_FINE):
        rho = (1 + alpha) / (1 - alpha)
        assert rho < 1 and np.log(0.01) / np.log(rho) < ALTERNATION_LIMIT / 4


# ---- the shaking table (cases/shaking_table.py, as a user runs it)

HARMONIC = ["--excitation", "harmonic", "--amplitude-g", "0.55", "--frequency-hz", "1.5", "--cycles", "3",
            "--mu", "0.9", "--t-end", "4.5"]


def _table(tmp_path: Path, name: str, *flags: str) -> dict:
    out = tmp_path / name
    assert shaking_table.main([*flags, "--no-paraview", "--quiet", "--out", str(out)]) in (0, 1)
    return json.loads((out / "summary.json").read_text())


def _alternation(summary: dict) -> dict:
    return {c["quantity"]: c for c in summary["checks"] if c["quantity"].startswith("reaction alternation")}


@pytest.mark.slow
def test_newmark_lets_the_pivots_reaction_alternate_and_the_check_says_so(tmp_path):
    s = _table(tmp_path, "newmark", *HARMONIC, "--alpha", "0", "--alpha-fine", "0")
    [row] = _alternation(s).values()
    assert row["value"] > 10 * ALTERNATION_LIMIT and row["within_tolerance"] is False
    assert "node A" in row["note"]
    # the friction the alternation drives: far above the rigid block's demand (0.475; 0.77 to 0.90 = mu
    # measured, as the chaotic run goes: the BLAS kernel alone moves it)
    assert s["max_friction_ratio"] > 1.5 * s["rigid_body"]["max_friction_ratio"]


@pytest.mark.slow
@pytest.mark.parametrize("name, flags", [
    ("harmonic", HARMONIC),
    ("one-sine pulse", ["--excitation", "sine-pulse", "--amplitude-g", "0.6", "--frequency-hz", "2", "--t-end", "3"]),
    ("record", ["--excitation", "record", "--record", str(ROOT / "examples" / "records" / "synthetic_h_v.csv"),
                "--amplitude-g", "0.6"]),
])
def test_with_the_default_scheme_the_pivot_holds_as_the_rigid_blocks(tmp_path, name, flags):
    s = _table(tmp_path, "run", *flags)
    [row] = _alternation(s).values()
    assert row["within_tolerance"] is True and row["value"] < 20, row
    rigid = s["rigid_body"]["max_friction_ratio"]
    assert rigid < 0.9 and s["slid"] is False
    assert s["max_friction_ratio"] == pytest.approx(rigid, rel=0.01)  # the issue asks 5 %


@pytest.mark.slow
def test_with_the_default_scheme_a_stacks_reactions_do_not_alternate(tmp_path):
    s = _table(tmp_path, "stack", "--excitation", "sine-pulse", "--amplitude-g", "0.4", "--frequency-hz", "2",
               "--t-end", "3", "--blocks", "2")
    rows = _alternation(s)
    assert len(rows) == 2 and all(r["within_tolerance"] is True and r["value"] < 20 for r in rows.values()), rows
    assert s["slid"] is False


@pytest.mark.slow
def test_the_default_scheme_gives_no_energy_back_at_impacts(tmp_path):
    """SDNV105 A with the redistributed mass, HHT -0.1 on steps of 2.5e-5 s and no damping at all: the block's
    energy (kinetic, strain, gravity) falls at every impact and never rises over any stretch by more than the
    Newton tolerance's trace (1e-5 J measured, bound 1e-4 J of the 7.29 J drop), and the time scheme's book is
    positive: what the books show negative with SDNV105's damping is their split of one dissipation."""
    from cases.sdnv105.case import run_case
    from fem.io.history import read_history

    out = tmp_path / "undamped"
    assert run_case("a", ["--mass", "redistributed", "--alpha", "-0.1", "--dt", "2.5e-5", "--dt-fine", "2.5e-5",
                          "--amor-alpha", "0", "--table-amor-alpha", "0", "--no-paraview", "--quiet",
                          "--out", str(out)]) in (0, 1)  # a custom run: its rigid-block checks may miss
    s = json.loads((out / "summary.json").read_text())
    h = read_history(out / "history.csv")
    energy = h["ke"] + h["strain_energy"] + h["gravity_potential"]
    assert float(np.max(energy - np.minimum.accumulate(energy))) < 1e-4
    assert s["energy"]["numerical_dissipation"] > 1.0 and s["energy"]["damping_dissipated"] == 0.0
    t = h["t"]
    impacts = [i["time"] for i in s["impacts"]]
    assert len(impacts) >= 5
    for t0 in impacts[:5]:
        before = energy[(t > t0 - 3e-3) & (t < t0 - 1e-3)].mean()
        after = energy[(t > t0 + 2e-3) & (t < t0 + 4e-3)].mean()
        assert after < before
