"""A check a stage must meet before the next starts (``Check(gate=True)``, TOML ``gate = true``; issue 41:
what only SDNV105's case did, checking its tilt before the release, any problem can state).

The SDNV105 block on its table: a preload, a first base-motion stage (0.6 g one-sine pulse at 2 Hz to
0.08 s: the block lifts at 0.0675 s), then a second one (0.04 s at rest). A gate on the first stage's
largest rotation:

1. met (a bound of 1 rad): the run is the run without the gate, history for history, byte for byte, and
   the gate's row in summary.json is met;
2. not met (a bound of 1e-12 rad): the run stops at the first stage's end, failed, its message naming the
   gate, its value and its bound; the first stage's history is kept, the second stage never ran (no
   history_2.csv), and the value the gate read is the largest |theta| of the kept history (read back
   from history.csv here);
3. refused before anything runs: a gate without its stage, a gate on an event of the whole run, a
   ``gate`` that is not true or false in a problem file (naming the key and its line).
"""
from __future__ import annotations

import csv
import json

import pytest

from cases.problem_file import load
from fem.loads.base_motion import SinePulse
from fem.problem import BaseMotion, Check, EventSteps, Preload, g, simulate
from fem.ranges import BadInput
from helpers import pulse_example_problem, pulse_problem

STEPS = EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7)


def gate(bound: float) -> Check:
    return Check("rotation", 0.0, bound, "a bound on the first stage", of="BLOCK", measure="max_abs", stage="first",
                 criterion="absolute", gate=True)


def run(folder, checks=()):
    stages = [Preload(), BaseMotion(0.08, x=SinePulse(amplitude=0.6 * g, frequency=2.0), name="first"),
              BaseMotion(0.04, name="second")]
    return simulate(pulse_example_problem(), stages, out=folder, steps=STEPS, paraview=False, quiet=True, checks=list(checks))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return {name: run(tmp_path_factory.mktemp(name), checks) for name, checks in
            (("plain", ()), ("met", (gate(1.0),)), ("not_met", (gate(1e-12),)))}


def test_a_gate_met_changes_nothing(runs):
    plain, met = runs["plain"], runs["met"]
    assert plain.status == met.status == "complete"
    for name in ("preload_history.csv", "history.csv", "history_2.csv"):
        assert (met.out / name).read_bytes() == (plain.out / name).read_bytes(), name
    rows = [c for c in json.loads((met.out / "summary.json").read_text())["checks"] if c.get("stated")]
    assert len(rows) == 1 and rows[0]["within_tolerance"] is True


def test_a_gate_not_met_stops_the_run_at_its_stage_end(runs):
    out = runs["not_met"]
    assert out.status == "failed"
    assert "the stage 'first' ended without meeting its gate rotation[BLOCK] max_abs" in out.message
    assert "the stages after it did not run" in out.message
    assert (out.out / "history.csv").exists() and not (out.out / "history_2.csv").exists()
    assert out.t_reached == pytest.approx(0.08, abs=1e-9)
    with open(out.out / "history.csv") as f:
        largest = max(abs(float(r["theta[BLOCK]"])) for r in csv.DictReader(f))
    assert largest > 1e-6  # the block lifted at 0.0675 s: the bound of 1e-12 rad cannot hold
    assert f"{largest:.6g} rad" in out.message
    assert json.loads((out.out / "summary.json").read_text())["status"] == "failed"


def test_a_gate_needs_its_stage_and_a_history_quantity():
    with pytest.raises(BadInput, match="gate: a gate is graded when its stage ends"):
        Check("rotation", 0.0, 1.0, "x", of="BLOCK", measure="max_abs", criterion="absolute", gate=True)
    with pytest.raises(BadInput, match="gate: impact_time is an event of the whole run"):
        Check("impact_time", 0.3, 0.1, "x", impact=1, stage="first", gate=True)


def test_a_problem_file_states_a_gate(tmp_path):
    check = """[[checks]]
quantity = "rotation"
of = "BLOCK"
measure = "max_abs"
stage = "shake"
reference = 0.0
tolerance = 1.0
criterion = "absolute"
source = "a bound"
gate = GATE
"""
    assert load(pulse_problem(tmp_path, check.replace("GATE", "true"))).checks[0].gate is True
    with pytest.raises(BadInput, match=r"line \d+: checks\[0\]\.gate: expected true or false"):
        load(pulse_problem(tmp_path, check.replace("GATE", '"yes"'), name="bad.toml"))
