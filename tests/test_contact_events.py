"""When a stage's contacts close and open (``contact_events`` of a dynamic stage, TOML ``contact_events``;
issue 41: what SDNV105's case set on its contact by hand before its release, any problem states).

The SDNV105 graphite block on its table (tests/helpers.pulse_example_problem: redistributed mass, Lagrange
contact with friction 0.9) under a one-sine pulse of 1 g at 2 Hz for 0.6 s, steps of 2e-4 s: it lifts,
rocks and lands (impacts at 0.47 and 0.53 s). contact.multipliers: with massless contact nodes a landing or
a lift located inside its step (the step cut at the instant) books no energy given back by the contact,
each step's contact work >= 0; Code_Aster's immediate rules close a node at the end of the step it went
through the table and open it with the reaction it still carried, and give energy back at such steps
(measured here: up to 26 J in one step, 6 steps).

1. ``located`` stated: the contact work never decreases from a step to the next (beyond 1e-9 J).
2. ``immediate`` stated overrides the law's located events: some step gives more than 1 J back.
3. Left out (None): the law's own rules, located for massless contact nodes: the same history to the byte.
4. Refused before anything runs: a value that is not a rule, and events on a problem whose pairs have none
   (a penalty spring), each naming the stage's key.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from contact.laws import Penalty
from fem.loads.base_motion import SinePulse
from fem.problem import BaseMotion, Pair, Preload, Uniform, g, simulate
from fem.ranges import BadInput
from helpers import pulse_example_problem


def stage(events=None) -> BaseMotion:
    return BaseMotion(0.6, x=SinePulse(amplitude=1.0 * g, frequency=2.0), contact_events=events)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {}
    for events in ("located", "immediate", None):
        folder = tmp_path_factory.mktemp(str(events))
        out[events] = simulate(pulse_example_problem(), [Preload(), stage(events)], out=folder, steps=Uniform(2e-4),
                               quiet=True, paraview=False)
    return out


def test_located_events_never_give_energy_back(runs):
    run = runs["located"]
    assert run.status == "complete" and len(run.impacts) >= 2  # it landed: there were events to place
    assert np.diff(run.history["contact_work"]).min() >= -1e-9


def test_immediate_events_stated_on_the_stage_give_energy_back(runs):
    run = runs["immediate"]
    assert run.status == "complete" and run.impacts
    assert np.diff(run.history["contact_work"]).min() < -1.0


def test_events_left_out_are_the_laws_own(runs):
    assert (runs[None].out / "history.csv").read_bytes() == (runs["located"].out / "history.csv").read_bytes()


def test_a_rule_that_is_not_one_is_refused_naming_the_key():
    with pytest.raises(BadInput, match=r"stages.base motion.contact_events: 'late' is not one of immediate, located"):
        stage("late")


def test_events_on_pairs_without_any_are_refused_before_anything_is_written(tmp_path):
    problem = pulse_example_problem()
    springs = dataclasses.replace(problem, pairs=[Pair("CONHAUT", "CONBAS", Penalty(1e9), name="base")])
    with pytest.raises(BadInput, match=r"stages.base motion.contact_events: no pair has contact events"):
        simulate(springs, [Preload(), stage("located")], out=tmp_path / "out", steps=Uniform(2e-4))
    assert not (tmp_path / "out").exists()
