"""The checks every run makes, whatever the front-end (fem.problem.simulate): each pair's largest penetration
against its contact elements' size, the preload's end state against each body's size, a step against the
rocking time scale of the bodies free to rock.

The block of examples/block_on_table_pulse.toml (SDNV105's graphite block, 0.36 x 0.80 m, 1450 kg/m^3, on a
table 1e14 Pa stiff) standing on penalty springs (Code_Aster DIS_CHOC) of stiffness k at its 5 base nodes:
the block, 1e6 times stiffer than the springs, settles rigidly by d = W / (5 k), W = rho b h g. At
k = 1e5 N/m that is 8.2 mm, 0.41 of the pair's shortest contact edge (0.02 m): the penetration check
fails; at k = 1e6 N/m, 0.82 mm, 0.041: it holds. At k = 1e2 N/m the block sinks 8.2 m, 9.3 times its
size: the run fails at the preload's end, naming the body and the remedy.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cases.problem_file import cli
from fem.problem.checks import PENETRATION_LIMIT, penetration_row
from helpers import pulse_problem

W = 0.36 * 0.80 * 1450.0 * 9.81  # the block's weight per metre of thickness [N]
NODES = 5  # slave nodes of CONHAUT (4 QUA4 edges)
EDGE = 0.02  # the shortest edge of the pair's line groups (CONBAS) [m]


def _run(tmp_path: Path, *sets: str, hold: bool = True, duration: float = 0.02) -> tuple[int, dict]:
    path = pulse_problem(tmp_path)
    out = tmp_path / "out"
    args = ["run", str(path), "--out", str(out), "--quiet", "--strict", "--set", f"stages.shake.duration={duration}"]
    if hold:  # the penalty springs have no tangential stiffness: a static preload needs the block held in x
        args += ["--set", 'stages.preload.hold=[{group = "O1", components = ["x"]}]']
    for s in sets:
        args += ["--set", s]
    code = cli.main(args)
    return code, json.loads((out / "summary.json").read_text())


def _penalty(k: float) -> tuple[str, str]:
    return 'pairs.base.law="penalty"', f"pairs.base.normal_stiffness={k:g}"


def _row(summary: dict, start: str) -> dict:
    return next(c for c in summary["checks"] if c["quantity"].startswith(start))


@pytest.mark.parametrize("k, met", [(1e5, False), (1e6, True)])
def test_a_penalty_contact_is_graded_by_its_penetration(tmp_path, k, met):
    code, summary = _run(tmp_path, *_penalty(k))
    row = _row(summary, "penetration[base]")
    settled = W / (NODES * k)
    assert row["value"] * EDGE == pytest.approx(settled, rel=0.02)  # the rigid settlement W / (5 k)
    assert row["within_tolerance"] is met and row["tolerance"] == PENETRATION_LIMIT
    assert summary["status"] == "complete"
    assert code == (0 if met else 1)  # --strict
    if not met:
        assert "far too soft" in row["note"] and row["note"].startswith("base: ") and " at t = " in row["note"]


def test_a_contact_far_too_soft_fails_the_run_at_the_preloads_end_naming_the_body(tmp_path):
    code, summary = _run(tmp_path, *_penalty(1e2))
    assert code == 1 and summary["status"] == "failed"
    message = summary["message"]
    assert message.startswith("preload: BLOCK moved by 8.19 m") and "normal_stiffness" in message
    assert _row(summary, "penetration[base]")["value"] * EDGE == pytest.approx(W / (NODES * 1e2), rel=0.02)


def test_a_lagrange_contact_does_not_penetrate(tmp_path):
    code, summary = _run(tmp_path, hold=False)
    assert code == 0
    row = _row(summary, "penetration[base]")
    assert row["within_tolerance"] is True and row["value"] < 1e-9
    moved = _row(summary, "preload: displacement of BLOCK")
    assert moved["within_tolerance"] is True and 0 < moved["value"] < 1e-6  # a stiff block settles by nanometres


def test_no_verdict_on_penetration_without_a_contact_element():
    """A node on a plane with no body cell (a discrete mass on a shock element) has no element size: the
    shock element's compression is its law, not a penetration to bound."""
    assert penetration_row("shock", 0.5, None)["within_tolerance"] is None
    assert penetration_row("pair", 0.05, 1.0, clearance=0.1)["within_tolerance"] is False  # 0.5 of the clearance


@pytest.mark.parametrize("dt", [0.3, 1.0])
def test_a_step_longer_than_the_rocking_time_scale_is_refused(tmp_path, capsys, dt):
    """1/p = sqrt(4 R / (3 g)) = 0.244 s for the 0.36 x 0.80 m block (R its half diagonal)."""
    path = pulse_problem(tmp_path)
    out = tmp_path / "out"
    code = cli.main(["run", str(path), "--out", str(out), "--set", 'steps={kind = "uniform", dt = %g}' % dt,
                     "--set", "stages.shake.duration=2.0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not out.exists()
    assert len(err) == 1 and "steps.dt" in err[0] and "rocking time scale 1/p = 0.2" in err[0], err
