"""When a stage's contacts close and open (``contact_events`` of a dynamic stage, TOML ``contact_events``),
and the watch on energy given back at contact events (``EnergyCreation``, TOML ``[energy_creation]``);
issue 41: what SDNV105's case set on its contact by hand before its release and watched on its own, any
problem states.

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
5. The watch (fem.stage.energy.CreationWatch, scale 10 J, limit 5 %): the immediate run stops, failed, at
   its first event that gives back more than 0.5 J, naming the time and the node, its history kept to that
   step; the located run completes, the watch's report in summary.json (its events, the largest, passed);
   the same statement in a problem file does the same through ``rockfem run`` (exit 1, one line).
"""
from __future__ import annotations

import dataclasses
import json
import subprocess

import numpy as np
import pytest

from contact.laws import Penalty
from fem.loads.base_motion import SinePulse
from fem.problem import BaseMotion, EnergyCreation, Pair, Preload, Uniform, g, simulate
from fem.ranges import BadInput
from helpers import pulse_example_problem, pulse_problem, rockfem_script


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


WATCH = EnergyCreation(scale=10.0, limit=0.05)


@pytest.mark.parametrize("events", ["immediate", "located"])
def test_the_watch_stops_a_run_whose_event_gives_energy_back(events, tmp_path):
    out = tmp_path / events
    run = simulate(pulse_example_problem(), [Preload(), stage(events)], out=out, steps=Uniform(2e-4), quiet=True,
                   paraview=False, energy_creation=WATCH)
    report = json.loads((out / "summary.json").read_text())["energy_creation"]
    assert report["scale"] == 10.0 and report["limit"] == 0.05 and report["events"] >= 1
    if events == "located":
        assert run.status == "complete" and report["passed"] is True
        assert report["largest"] is None or report["largest"]["created"] <= 0.5
        return
    assert run.status == "failed" and report["passed"] is False
    assert run.message.startswith("energy created at a contact event:") and "contact_events" in run.message
    largest = report["largest"]
    assert largest["created"] > 0.5 and largest["fraction"] == pytest.approx(largest["created"] / 10.0)
    assert f"node {largest['node']}" in run.message
    assert run.t_reached == pytest.approx(largest["t"], abs=1e-12)  # stopped at the step that gave it back
    assert run.t_reached < 0.6 and (out / "history.csv").exists()


def test_a_problem_file_states_the_watch(tmp_path):
    path = pulse_problem(tmp_path, "[energy_creation]\nscale = 10.0\nlimit = 0.05\nstages = [\"shake\"]\n")
    text = path.read_text()  # the steps above: uniform ones of 2e-4 s
    for old, new in (('kind = "events"', 'kind = "uniform"'), ("dt = 1e-3\n", "dt = 2e-4\n"), ("dt_fine = 1e-4\n", "")):
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text)
    done = subprocess.run([rockfem_script(), "run", str(path), "--out", str(tmp_path / "out"), "--quiet",
                           "--set", "stages.shake.contact_events=immediate", "--set", "stages.shake.x.amplitude_g=1.0",
                           "--set", "stages.shake.duration=0.6"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["energy_creation"]["passed"] is False
    assert "energy created at a contact event" in done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("section, words", [
    ("scale = 0.0", "energy_creation.scale"),
    ("scale = 10.0\nlimit = 2.0", "energy_creation.limit"),
    ("scale = 10.0\nstages = [\"nope\"]", "'nope' names no stage"),
])
def test_a_wrong_watch_in_a_problem_file_is_refused_naming_the_key(section, words, tmp_path):
    from helpers import refusal

    assert words in refusal(pulse_problem(tmp_path, f"[energy_creation]\n{section}\n"))


def test_a_watch_on_a_law_that_gives_back_what_it_stored_is_refused(tmp_path):
    """A buckling element (examples/two_masses_buckling.toml) gives back the elastic energy it stored: the watch
    would take that for energy created, so it is refused, exit 2, one line naming the key, nothing written."""
    import shutil

    from helpers import CASES

    examples = CASES.parent / "examples"
    shutil.copy(examples / "two_masses_buckling.msh", tmp_path)
    path = tmp_path / "two.toml"
    path.write_text((examples / "two_masses_buckling.toml").read_text() + "\n[energy_creation]\nscale = 1.0\n")
    done = subprocess.run([rockfem_script(), "run", str(path), "--out", str(tmp_path / "out"), "--quiet"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "energy_creation: the pair" in done.stderr and "stores energy the watch cannot count" in done.stderr
    assert not (tmp_path / "out").exists()
