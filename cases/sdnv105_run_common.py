"""SDNV105 — the run: self-weight, tilt and release integrated and recorded (:func:`run`).

The histories (selfweight_history.csv, tilt_history.csv, history.csv with the contact columns of O
and A) and ParaView series are written as the run goes; a Newton failure, a failed tilt, energy
created at a contact event or a signal ends it with everything before on disk (:class:`RunOutput`).
"""
from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass
from typing import Callable

from contact.impacts import velocity_contact_from
from contact.output import ContactRecorder
from fem.time.dynamics import ConvergenceError, State, StepResult, integrate
from fem.time.march import march
from fem.stage.energy import CreationWatch, EnergyCreated
from fem.io.recorder import NodeProbe, RunRecorder, add_run_statistics, record_steps, timed_steps
from fem.time.interrupt import Interrupted
from cases.sdnv105_energy_common import creation_report
from cases.sdnv105_model_common import Study
from cases.sdnv105_phases_common import TILT_START, self_weight_phase, tilt_check, tilt_failure, tilt_phase
from cases.sdnv105_release_common import run_release
from cases.sdnv105_rigid_common import rigid_potential_drop


@dataclass
class RunOutput:
    """Per-step rows of the release (t = 0 at release) and of the self-weight phase (the tilt's
    are in tilt_history.csv)."""

    release: list[dict]
    preload: list[dict]
    stats: dict
    failure: str | None = None
    interrupted: Interrupted | None = None  # the signal that stopped the run, if one did
    tilt: dict | None = None  # tilt_check of the end of the tilt (None: the tilt did not finish)
    energy_creation: dict | None = None  # creation_report of the release (None: no release)

    @property
    def status(self) -> str:
        return "interrupted" if self.interrupted else "failed" if self.failure else "complete"


def _contact_columns(study: Study) -> tuple[list[str], Callable[[StepResult], dict]]:
    columns = [f"{q}_{n}" for n in ("O", "A") for q in ("rn", "rt", "rx", "ry", "gap", "slip", "status")]
    idx = study.contact_index

    def extra(result: StepResult) -> dict:
        st = study.contact.state()
        force = st.force
        row = {}
        for name, k in idx.items():
            row.update({f"rn_{name}": st.rn[k], f"rt_{name}": st.rt[k], f"rx_{name}": force[k, 0],
                        f"ry_{name}": force[k, 1], f"gap_{name}": st.gap[k], f"slip_{name}": st.slip[k],
                        f"status_{name}": float(st.status[k])})
        return row

    return columns, extra


def _probes() -> list[NodeProbe]:
    return [NodeProbe("dy_O", "O", "u", "y"), NodeProbe("dy_A", "A", "u", "y"), NodeProbe("vy_O", "O", "v", "y"),
            NodeProbe("vy_A", "A", "v", "y"), NodeProbe("dx_C1", "C1", "u", "x"), NodeProbe("dy_C1", "C1", "u", "y")]


def run(study: Study, integrator=march) -> RunOutput:
    """All phases: self-weight (recorded to -0.825 s), tilt restarted from the state at -1.05 s,
    release at rest at t = 0, free rocking. Histories and ParaView series are written as the run
    goes; a failure is reported in the output (everything before it is on disk)."""
    cfg = study.config
    out = cfg.out
    columns, extra = _contact_columns(study)
    t0 = time.perf_counter()
    preload_rows, release_rows = [], []
    stats = {"steps": 0, "newton_iterations": 0, "subdivisions": 0, "stepping_s": 0.0}
    self_weight = self_weight_phase(study)
    failure = interrupted = tilt = None

    def recorder(name):
        return RunRecorder(study.model, out, _probes(), history_name=f"{name}_history", series_name=name,
                           kinetic_group="BLOCK", write_series=cfg.paraview, extra_columns=columns, extra=extra)

    snapshot = tilted = watch = None
    refinements: list[dict] = []
    try:
        with recorder("selfweight") as sw:
            try:
                for result in timed_steps(sw, integrate(study.model, self_weight,
                                                        State.at_rest(study.model.n_dofs, -1.95), [study.contact])):
                    preload_rows.append(sw.record(result))
                    if snapshot is None and math.isclose(result.state.t, TILT_START, abs_tol=1e-9):
                        # the tilt restarts from here (sdnv105.md §1.3): keep the contact state too
                        snapshot = (result.state, copy.deepcopy(study.contact, {id(study.model): study.model,
                                                                               id(study.mesh): study.mesh}),
                                    preload_rows[-1])
            finally:
                add_run_statistics(stats, sw)
        state, study.contact, start_row = snapshot
        tilt_rows: list[dict] = []
        with recorder("tilt") as tl:
            try:
                tilted = record_steps(tl, integrate(study.model, tilt_phase(study, state), state, [study.contact]),
                                      tilt_rows, skip_first=True).state
            finally:
                add_run_statistics(stats, tl)
        tilt = tilt_check(study, start_row, tilt_rows[-1], tilted)
        if not tilt["passed"]:
            failure = tilt_failure(tilt)
    except ConvergenceError as err:
        failure = f"preload: {err}"
    except Interrupted as stop:
        failure, interrupted = f"preload: {stop}", stop
    if failure is None:
        watch = CreationWatch(rigid_potential_drop(cfg), cfg.creation_limit)
        with RunRecorder(study.model, out, _probes(), kinetic_group="BLOCK", write_series=cfg.paraview,
                         extra_columns=columns, extra=extra) as rec:
            try:
                if cfg.spec.contact == "theta":
                    study.contact = velocity_contact_from(study.contact)
                # contact nodes as their own ParaView point set: status, gap, RN, RT, RX, RY, slip
                contact_series = (ContactRecorder(study.mesh, {"base": study.contact}, out, history=False)
                                  if cfg.paraview else None)
                try:
                    refinements = run_release(study, tilted.released(0.0), rec, release_rows, integrator,
                                               contact_series, watch)
                finally:
                    if contact_series is not None:
                        contact_series.close()
            except (ConvergenceError, EnergyCreated) as err:
                failure = f"release: {err}"
            except Interrupted as stop:
                failure, interrupted = f"release: {stop}", stop
            add_run_statistics(stats, rec)
    stats["wall_s"] = time.perf_counter() - t0
    stats["automatic_refinements"] = refinements
    return RunOutput(release_rows, preload_rows, stats, failure, interrupted, tilt,
                     creation_report(study, watch) if watch is not None else None)
