"""One overturning verdict rule for every front-end (fem.problem.verdicts): "yes" at the overturning
angle, "no" only when proven, no verdict for a body holding a support, "undecided" otherwise.

- The rule's branches, each from its inputs.
- The rigid rectangle's energy against its barrier: zero at rest, the barrier itself at rest on its
  balance point (theta = alpha), the kinetic energy (2/3) R^2 omega^2 of I_O = 4 m R^2 / 3.
- Through ``rockfem run``: SDNV105's block under a horizontal 0.66 g and a vertical 0.2 g sine pulse at
  2 Hz rocks to 0.229 rad (past a quarter of its overturning angle, where the former rule of
  ``simulate`` said "undecided") and comes to rest by 3 s: "no", as the shaking-table case decides
  (the base still, the energy below the barrier); the table, held, gets no verdict.
"""
from __future__ import annotations

import json
import math

import pytest

from cases.problem_file import cli
from helpers import pulse_problem
from fem.problem.verdicts import OVERTURN_MARGIN, decide, overturned, rigid_energy



@pytest.mark.parametrize("kw, verdict", [
    (dict(overturned_at=1.2, base_still=False), "yes"),
    (dict(overturned_at=1.2, held=True, base_still=True), "yes"),
    (dict(held=True, base_still=True, energy=0.0, barrier=1.0), "none"),
    (dict(base_still=True, energy=0.0, barrier=1.0), "no"),
    (dict(base_still=True, energy=(1 - OVERTURN_MARGIN) * 1.0 - 1e-9, barrier=1.0), "no"),
    (dict(base_still=True, energy=(1 - OVERTURN_MARGIN) * 1.0, barrier=1.0), "undecided"),  # within the margin
    (dict(base_still=True, beyond_balance=True, energy=0.0, barrier=1.0), "undecided"),
    (dict(base_still=False, energy=0.0, barrier=1.0), "undecided"),  # the base moves on: nothing proven
    (dict(base_still=False, lifted=False, rest_peak=4.0, uplift_acceleration=4.4), "no"),
    (dict(base_still=False, lifted=False, rest_peak=4.5, uplift_acceleration=4.4), "undecided"),
    (dict(base_still=False, lifted=True, rest_peak=0.1, uplift_acceleration=4.4), "undecided"),
])
def test_the_rule_decides_only_what_it_proves(kw, verdict):
    got = decide(**kw)
    assert got["verdict"] == verdict and got["reason"]
    assert overturned(got) is {"yes": True, "no": False}.get(verdict)


@pytest.mark.parametrize("R, alpha", [(0.44, 0.4229), (1.0, 0.2), (0.1, 0.7)])
def test_the_rigid_energy_meets_its_barrier_at_the_balance_point(R, alpha):
    g = 9.81
    assert rigid_energy(0.0, 0.0, R, alpha, g)[0] == 0.0
    energy, barrier = rigid_energy(alpha, 0.0, R, alpha, g)
    assert energy == pytest.approx(barrier, rel=1e-14) and barrier == pytest.approx(g * R * (1 - math.cos(alpha)))
    omega = 0.7  # at rest position, spinning: (1/2) I_O omega^2 / m with I_O = (4/3) m R^2
    assert rigid_energy(0.0, omega, R, alpha, g)[0] == pytest.approx(0.5 * (4 / 3) * R ** 2 * omega ** 2)
    assert rigid_energy(-0.5 * alpha, 0.0, R, alpha, g)[0] == rigid_energy(0.5 * alpha, 0.0, R, alpha, g)[0]


def test_a_block_that_rocked_and_came_to_rest_did_not_overturn(tmp_path):
    path = pulse_problem(tmp_path)
    out = tmp_path / "out"
    code = cli.main(["run", str(path), "--out", str(out), "--quiet", "--set", "stages.shake.duration=3",
                     "--set", "stages.shake.x.amplitude_g=0.66",
                     "--set", 'stages.shake.y={kind = "sine-pulse", amplitude_g = 0.2, frequency = 2.0}'])
    assert code == 0
    bodies = json.loads((out / "summary.json").read_text())["bodies"]
    block, table = bodies["BLOCK"], bodies["GROUN"]
    assert block["max_rotation"] > 0.25 * block["limit"]  # rocked well past the former "quarter" rule
    assert block["overturned"] is False and block["overturn_verdict"]["verdict"] == "no"
    assert "energy below the barrier" in block["overturn_verdict"]["reason"]
    # Housner's a_h > tan(alpha) (g + a_v), 0.66 s = 0.45 (1 + 0.2 s) with s = sin(4 pi t): the rigid block
    # lifts at t = asin(0.45 / 0.57) / (4 pi) = 0.0722 s; the FE corner has opened 1 um a few ms later
    rigid = math.asin(0.45 / (0.66 - 0.45 * 0.2)) / (4 * math.pi)
    assert rigid < block["uplift_time"] < rigid + 0.01
    assert table["overturned"] is None and table["overturn_verdict"]["verdict"] == "none"
    report = (out / "report.md").read_text()
    assert "no verdict (held)" in report
    assert (out / "summary.png").stat().st_size > 10_000  # the run's page: rotations, gaps, forces, energy


def test_a_picture_that_fails_is_a_note_not_a_failed_run(tmp_path, monkeypatch):
    import sys

    simulate_module = sys.modules["fem.problem.simulate"]  # (fem.problem's `simulate` is the function)

    def broken(*args, **kwargs):
        raise RuntimeError("no backend")
    monkeypatch.setattr(simulate_module, "draw_summary", broken)
    path = pulse_problem(tmp_path)
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out), "--quiet", "--set", "stages.shake.duration=0.02"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and not (out / "summary.png").exists()
    assert summary["notes"] == ["summary.png was not drawn: RuntimeError: no backend"]


class _Term:
    """A contact term's state() as PairWatch reads it: per slave node status and gap."""

    def __init__(self, n):
        import numpy as np
        self.np, self.n = np, n
        self.set(closed=[True] * n, gap=[0.0] * n)

    def set(self, closed, gap):
        np = self.np
        from types import SimpleNamespace
        self.st = SimpleNamespace(nodes=np.arange(self.n), status=np.array(closed, dtype=int),
                                  gap=np.array(gap, dtype=float), rn=np.zeros(self.n), rt=np.zeros(self.n))

    def state(self):
        return self.st


def test_an_impact_is_a_landing_after_a_lift_beyond_the_threshold_counted_once_per_event():
    """The rule of every run (fem.problem.observe.PairWatch, its threshold IMPACT_LIFT of the body's size:
    88 um for SDNV105's block): a 5 um lift and landing (a heavy plinth under a rocking statue) is no
    impact; a 5 mm lift and landing is one; its nodes landing one after the other within 2 ms, and a node
    re-landing after a rebound below the threshold, are the same impact; a lift past it later is another."""
    from fem.problem.observe import IMPACT_LIFT, PairWatch
    lift = IMPACT_LIFT * 0.877
    term = _Term(3)
    watch = PairWatch("base", term, lift=lift)
    watch.observe(0.0)
    steps = [  # t, closed, gap
        (0.10, [False, False, True], [5e-6, 3e-6, 0.0]), (0.11, [True, True, True], [0, 0, 0]),  # 5 um: no impact
        (0.20, [False, False, True], [5e-3, 2e-3, 0.0]), (0.30, [True, False, True], [0, 1e-3, 0]),  # lands
        (0.3015, [True, True, True], [0, 0, 0]),  # its second node 1.5 ms later: the same impact
        (0.31, [False, True, True], [2e-5, 0, 0]), (0.32, [True, True, True], [0, 0, 0]),  # a 20 um rebound
        (0.50, [True, False, True], [0, 2e-3, 0]), (0.60, [True, True, True], [0, 0, 0]),  # another impact
    ]
    for t, closed, gap in steps:
        term.set(closed, gap)
        watch.observe(t)
    assert [i["time"] for i in watch.impacts] == [0.30, 0.60]
    assert watch.impacts[0]["nodes"] == 2 and watch.uplift_time == 0.10  # the uplift instant: 1 um
