"""SDNV105 — the run: self-weight, tilt and release as stages of the problem API (:func:`run`).

The block settles under its weight (a SelfWeight stage to -0.825 s), is tilted from its state at
-1.05 s (an ImposedMotion or a Tilt restarted there, to 0 s), and released at rest (a Release to
--t-end), each stage stepped as the benchmark says (cases.sdnv105.release), all three by one
fem.problem.run_stages, as any problem's stages: the tilt's gate is a stated check (:func:`tilt_gate`),
the release's contact events a stage option (phases.release_events), the energy-creation watch a
stated fem.problem.EnergyCreation. The histories (selfweight_history.csv, tilt_history.csv, history.csv with the contact
columns of O and A) and ParaView series are written as the run goes; a Newton failure, a tilt that
fails its gate, energy created at a contact event or a signal ends it with everything before on disk
(:class:`RunOutput`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from contact.output import ContactRecorder
from fem.io.recorder import NodeProbe, add_statistics
from fem.problem import Check, EnergyCreation, Settings, run_stages
from fem.time.interrupt import Interrupted
from fem.time.march import march
from cases.sdnv105.checks import code_aster_checks
from cases.sdnv105.energy import creation_remedy, creation_report
from cases.sdnv105.model import Study
from cases.sdnv105.phases import (TILT_START, TILT_STRAIN_LIMIT, release_stage, self_weight_stage, tilt_check,
                                  tilt_failure, tilt_stage)
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
    # the checks every run makes (fem.problem.simulate: each pair's penetration and reaction alternation, over
    # the whole run); the energy books are the case's
    physical: list | None = None
    # the rows of Code_Aster's tests as the run graded them (checks.code_aster_checks; none for a custom run)
    code_aster: list | None = None

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


def tilt_gate(study: Study) -> Check:
    """The tilt's gate (fem.problem.Check, graded when the tilt ends; the release does not start when it
    is not met): the strain energy the block stores at the end of the tilt, at most TILT_STRAIN_LIMIT of
    the rigid block's potential-energy drop to its first impact (a tilt that turned the block rigidly
    stores next to none; phases.tilt_check says what it left, phases.tilt_failure why it failed)."""
    limit = TILT_STRAIN_LIMIT * rigid_potential_drop(study.config)
    return Check("strain_energy", 0.0, limit, "a rigid tilt stores no strain energy (TILT_STRAIN_LIMIT of the rigid "
                 "block's potential-energy drop)", at=0.0, stage="tilt", criterion="absolute", gate=True,
                 name="tilt: strain energy at its end")


def run(study: Study, integrator=march) -> RunOutput:
    """All stages, one fem.problem.run_stages: self-weight (recorded to -0.825 s), tilt restarted from the
    state at -1.05 s (its gate: :func:`tilt_gate`), release at rest at t = 0, free rocking, its contact
    events watched for energy created (fem.problem.EnergyCreation on the rigid block's drop). Histories and ParaView series are
    written as the run goes; a failure is reported in the output (everything before it is on disk).
    ``integrator``: what marches a stage (fem.time.march.march or a stand-in with its signature)."""
    cfg = study.config
    t0 = time.perf_counter()
    tilted: dict = {}  # the displacements at the tilt's last step (the block's axis there: tilt_check)
    series: list = []  # contact nodes as their own ParaView point set, opened at the release's first archive

    def after_step(stage: str, result) -> None:
        if stage == "tilt":
            tilted["u"] = result.state.u

    def archived(t, u):
        # status, gap, RN, RT, RX, RY, slip (d's term is the velocity-level one once the release starts: the
        # recorder reads the current term)
        if not series:
            series.append(ContactRecorder(study.mesh, {"base": study.contact}, cfg.out, history=False))
        series[0].terms["base"] = study.contact
        series[0].record(t, u)

    settings = Settings(steps=stage_steps(study), probes=_probes(), kinetic_group="BLOCK", paraview=cfg.paraview,
                        observers=(ContactColumns(study),), body_watches=(), march=integrator,
                        histories={"self-weight": "selfweight_history", "tilt": "tilt_history", "release": "history"},
                        after_step=(after_step,), on_archived={"release": archived} if cfg.paraview else None,
                        checks=(tilt_gate(study), *_code_aster_checks(cfg)),
                        energy_creation=EnergyCreation(rigid_potential_drop(cfg), cfg.creation_limit, ("release",),
                                                       creation_remedy(cfg)))
    stages = [self_weight_stage(study), tilt_stage(study), release_stage(study)]
    try:
        outcome = run_stages(study.assembled, stages, cfg.out, settings)
    finally:
        for s in series:
            s.close()
    histories = outcome.histories
    preload, release = histories.get("self-weight", {}), histories.get("release", {})
    tilt = None
    if histories.get("tilt") and "u" in tilted and abs(histories["tilt"]["t"][-1]) <= 1e-9:
        start = _row(preload, int(np.argmin(np.abs(preload["t"] - TILT_START))))
        tilt = tilt_check(study, start, _row(histories["tilt"], -1), tilted["u"])
    failure = None
    if outcome.status != "complete":
        part = "release" if "release" in histories else "preload"
        failure = tilt_failure(tilt) if tilt is not None and not tilt["passed"] else f"{part}: {outcome.message}"
    stats = {"steps": 0, "newton_iterations": 0, "subdivisions": 0, "stepping_s": 0.0}
    add_statistics(stats, outcome.stats)
    stats["wall_s"] = time.perf_counter() - t0
    stats["automatic_refinements"] = outcome.spans
    stated = {c.label for c in _code_aster_checks(cfg)}
    return RunOutput(release, preload, stats, failure, outcome.interrupted, tilt,
                     creation_report(outcome.energy_creation) if "release" in histories else None,
                     run_checks(outcome), [c for c in outcome.checks if c.get("stated") and c["quantity"] in stated])


def _code_aster_checks(cfg) -> tuple:
    """Code_Aster's tests of the modeling (its problem file's) for a run of the benchmark's problem; none
    for a custom one, graded by the rigid block instead (checks.rigid_checks)."""
    return code_aster_checks(cfg.modeling) if cfg.configuration == "benchmark" else ()


def run_checks(outcome) -> list[dict]:
    """The checks every run makes (fem.problem.simulate's outcome: penetration, reaction alternation), without
    its energy books (the case books the release) and its stated checks (the tilt's gate: RunOutput.tilt)."""
    return [{**c, "rel_error": None} for c in outcome.run_checks]
