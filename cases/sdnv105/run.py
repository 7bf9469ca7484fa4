"""SDNV105 — the run: self-weight, tilt and release as stages of the problem API (:func:`run`).

The block settles under its weight (a SelfWeight stage to -0.825 s), is tilted from its state at
-1.05 s (an ImposedMotion or a Tilt restarted there, to 0 s), and released at rest (a Release to
--t-end), each stage stepped as the benchmark says (cases.sdnv105.release) by
fem.problem.run_stages. The histories (selfweight_history.csv, tilt_history.csv, history.csv with
the contact columns of O and A) and ParaView series are written as the run goes; a Newton failure, a
failed tilt (checked between the tilt and the release), energy created at a contact event or a signal
ends it with everything before on disk (:class:`RunOutput`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from contact.output import ContactRecorder
from fem.io.recorder import NodeProbe, add_statistics
from fem.problem import Settings, run_stages
from fem.stage.energy import CreationWatch
from fem.time.interrupt import Interrupted
from fem.time.march import march
from cases.sdnv105.energy import creation_hook, creation_report
from cases.sdnv105.model import Study
from cases.sdnv105.phases import (TILT_START, release_stage, self_weight_stage, tilt_check, tilt_failure,
                                         tilt_stage)
from cases.sdnv105.release import stage_steps
from cases.sdnv105.rigid import rigid_potential_drop


@dataclass
class RunOutput:
    """The columns of the release (t = 0 at release) and of the self-weight stage (the tilt's are in
    tilt_history.csv), each name -> (n,) array."""

    release: dict
    preload: dict
    stats: dict
    failure: str | None = None
    interrupted: Interrupted | None = None  # the signal that stopped the run, if one did
    tilt: dict | None = None  # tilt_check of the end of the tilt (None: the tilt did not finish)
    energy_creation: dict | None = None  # creation_report of the release (None: no release)
    # the checks every run makes (fem.problem.simulate: each pair's penetration and reaction alternation), of
    # the self-weight and tilt, then of the release, each named after its part; the energy books are the case's
    physical: list | None = None

    @property
    def status(self) -> str:
        return "interrupted" if self.interrupted else "failed" if self.failure else "complete"


@dataclass
class ContactColumns:
    """History columns of the contact at its nodes O and A: RN, RT, their x, y components, gap, slip
    and status (an observer of fem.problem.Settings)."""

    study: Study

    def columns(self) -> list[str]:
        return [f"{q}_{n}" for n in ("O", "A") for q in ("rn", "rt", "rx", "ry", "gap", "slip", "status")]

    def observe(self, result) -> dict:
        st = self.study.contact.state()
        force = st.force
        row = {}
        for name, k in self.study.contact_index.items():
            row.update({f"rn_{name}": st.rn[k], f"rt_{name}": st.rt[k], f"rx_{name}": force[k, 0],
                        f"ry_{name}": force[k, 1], f"gap_{name}": st.gap[k], f"slip_{name}": st.slip[k],
                        f"status_{name}": float(st.status[k])})
        return row


def _probes() -> tuple[NodeProbe, ...]:
    return (NodeProbe("dy_O", "O", "u", "y"), NodeProbe("dy_A", "A", "u", "y"), NodeProbe("vy_O", "O", "v", "y"),
            NodeProbe("vy_A", "A", "v", "y"), NodeProbe("dx_C1", "C1", "u", "x"), NodeProbe("dy_C1", "C1", "u", "y"))


def _row(columns: dict, k: int) -> dict:
    return {name: float(values[k]) for name, values in columns.items()}


def run(study: Study, integrator=march) -> RunOutput:
    """All stages: self-weight (recorded to -0.825 s), tilt restarted from the state at -1.05 s,
    release at rest at t = 0, free rocking. Histories and ParaView series are written as the run
    goes; a failure is reported in the output (everything before it is on disk). ``integrator``:
    what marches a stage (fem.time.march.march or a stand-in with its signature)."""
    cfg = study.config
    t0 = time.perf_counter()
    stats = {"steps": 0, "newton_iterations": 0, "subdivisions": 0, "stepping_s": 0.0}
    settings = Settings(steps=stage_steps(study), probes=_probes(), kinetic_group="BLOCK", paraview=cfg.paraview,
                        observers=(ContactColumns(study),), body_watches=(), march=integrator,
                        histories={"self-weight": "selfweight_history", "tilt": "tilt_history"})
    failure = interrupted = tilt = watch = None
    release: dict = {}
    before = run_stages(study.assembled, [self_weight_stage(study), tilt_stage(study)], cfg.out, settings)
    add_statistics(stats, before.stats)
    physical = run_checks(before, "self-weight and tilt")
    preload = before.histories.get("self-weight", {})
    if before.status != "complete":
        failure, interrupted = f"preload: {before.message}", before.interrupted
    else:
        tilted = before.histories["tilt"]
        start = _row(preload, int(np.argmin(np.abs(preload["t"] - TILT_START))))
        tilt = tilt_check(study, start, _row(tilted, -1), before.state)
        if not tilt["passed"]:
            failure = tilt_failure(tilt)
    refinements: list = []
    if failure is None:
        watch = CreationWatch(rigid_potential_drop(cfg), cfg.creation_limit)
        if cfg.contact_events_resolved == "located" and hasattr(study.contact, "closing"):
            # contacts close and open at their instants (contact.multipliers, closing and release
            # rules): the immediate rules take and give O(dt) energy that depends on where in the step
            # a corner lands or lifts. The release only: the preload has no impact.
            study.contact.closing = study.contact.release = "located"
        # contact nodes as their own ParaView point set: status, gap, RN, RT, RX, RY, slip (d's term is
        # the velocity-level one once the release starts: the recorder reads the current term)
        series = ContactRecorder(study.mesh, {"base": study.contact}, cfg.out, history=False) if cfg.paraview else None

        def archived(t, u):
            series.terms["base"] = study.contact
            series.record(t, u)

        after = run_stages(study.assembled, [release_stage(study)], cfg.out,
                           replace(settings, after_step=(creation_hook(study, watch),),
                                   on_archived={"release": archived} if series is not None else None),
                           state=before.state)
        if series is not None:
            series.close()
        add_statistics(stats, after.stats)
        release, refinements = after.histories.get("release", {}), after.spans
        physical += run_checks(after, "release")
        if after.status != "complete":
            failure, interrupted = f"release: {after.message}", after.interrupted
    stats["wall_s"] = time.perf_counter() - t0
    stats["automatic_refinements"] = refinements
    return RunOutput(release, preload, stats, failure, interrupted, tilt,
                     creation_report(study, watch) if watch is not None else None, physical)


def run_checks(outcome, part: str) -> list[dict]:
    """The checks every run makes of a part of the run (fem.problem.simulate's outcome: penetration, reaction
    alternation), each named after ``part``, without its energy books (the case books the whole run)."""
    return [{**c, "quantity": f"{part}: {c['quantity']}", "rel_error": None} for c in outcome.run_checks]
