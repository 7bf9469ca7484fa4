"""SDNV105 — summary.json's body: a run's post-processing assembled (:func:`summarize`).

The configuration, mass, mesh, tilt, steps (:func:`steps_report`), energy creation, impacts, energy
balance and the checks of the configuration (Code_Aster's tests for the benchmark, the rigid block
for a custom run), with the rigid-body reference.
"""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from cases.sdnv105.checks import code_aster_table, detect_impacts, rigid_checks
from cases.sdnv105.config import Config, friction_demand
from cases.sdnv105.energy import energy_balance, energy_check
from cases.sdnv105.model import Study, mesh_source
from cases.sdnv105.rigid import rigid_reference
from cases.sdnv105.run import RunOutput


def summarize(study: Study, output: RunOutput) -> dict:
    """What summary.json holds besides the run header (fem.run.lifecycle.Run): the configuration's checks
    (Code_Aster's tests for the benchmark configuration, the rigid block recomputed for this run's
    parameters for a custom one), impacts, energy balance, rigid-body reference, run statistics."""
    cfg = study.config
    R, P = output.release, output.preload
    summary = {"modeling": cfg.modeling, "config": {k: (str(v) if isinstance(v, Path) else v)
                                                    for k, v in asdict(cfg).items()},
               "departures": cfg.departures(), "run": output.stats, "failure": output.failure}
    model = study.model
    summary["contact_events"] = cfg.contact_events_resolved
    summary["mass"] = {"kind": model.mass_kind, "massless_nodes": int(model.massless_dofs.size // 2),
                       "block_mass": model.total_mass("BLOCK")}
    source = mesh_source(cfg)
    # a --mesh file may hold the benchmark's own mesh (recognised by its nodes and cells)
    benchmark_mesh = source["source"] == "benchmark" or (source["source"] == "--mesh"
                                                         and "--mesh" not in cfg.departures())
    summary["mesh"] = {**source, "benchmark_mesh": benchmark_mesh, "nodes": study.mesh.n_nodes,
                       "cells": sum(s.n_elements for s in model.sets), "dofs": model.n_dofs}
    summary["rigid_body"] = rigid_reference(cfg)
    summary["rigid_body"]["friction_demand"] = friction_demand(cfg)
    summary["tilt"] = output.tilt
    summary["steps"] = steps_report(cfg)
    summary["energy_creation"] = output.energy_creation
    summary["run_checks"] = list(output.physical or [])  # counted with the checks (fem.run.lifecycle)
    if R:
        summary["impacts"] = detect_impacts(R)
        summary["energy"] = energy_balance(R, P)
        summary["energy_check"] = energy_check(summary["energy"])
        summary["checks"] = (code_aster_table(cfg.modeling, output.code_aster) if cfg.configuration == "benchmark"
                             else rigid_checks(cfg, R, summary["impacts"], summary["rigid_body"]))
    return summary


STEPS = {"benchmark": "the benchmark's windows: fine steps (--dt-fine) around the benchmark's own impact instants, "
                       "coarse steps (--dt) between them, with fine steps added where an impact is predicted within "
                       "1.5 coarse steps",
         "events": "event-driven (fem.time.stepping): fine steps (--dt-fine) from before each predicted impact and for "
                   "3 ms after every contact opening or closing, coarse steps growing x2 a step up to --dt elsewhere",
         "uniform": "uniform steps of --dt (modeling d, the theta-scheme: no windows, no event-driven steps)"}


def steps_report(config: Config) -> dict:
    """summary.json's ``steps``: which steps the release used (Config.steps), and why."""
    if config.spec.contact == "theta":
        why = "modeling d"
    elif config.auto_steps:
        why = "--auto-steps"
    elif config.benchmark_steps:
        why = "--benchmark-steps"
    else:
        why = f"default of the {config.configuration} configuration"
    return {"kind": config.steps, "description": STEPS[config.steps], "chosen_by": why, "dt": config.dt,
            "dt_fine": config.dt_fine}
