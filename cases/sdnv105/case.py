"""SDNV105 — rocking of a 2-D graphite block on a table: what the four modelings share.

The benchmark (Code_Aster SDNV105; its phases in docs/references.md, its tests in
cases/reference/code_aster_tests.json): a block of
width 2b = 0.36 m and height 2l = 0.80 m rests on a stiff table; gravity is ramped (self-weight),
the top centre C1 is pushed by DX = -0.008 m (tilt of 0.01 rad about corner O) while O1 is held in
x, then the block is released at rest (t = 0) and rocks, hitting the table five times by 0.33 s.

Modelings (one script each, ``cases/sdnv105{a,b,c,d}.py``):

* a — QUA4 reference mesh with the table, Lagrange contact (Code_Aster DISCRETE/LAGRANGIEN), HHT
  with the benchmark's windows (fine steps with alpha = -0.2 around each impact).
* b — block only (the document says TRIA6; the public Code_Aster file uses QUA4: both meshes are
  available, TRIA6 by default), three penalty shock springs at O, A, O1 on a rigid floor (DIS_CHOC).
* c — QUA4 reference mesh with the table, augmented-Lagrangian contact (Code_Aster CONTINUE);
  run to 0.33 s (Code_Aster stops at 0.145 s); self-weight and tilt frictionless, as in its file.
* d — QUA4 with the table, Lagrange contact with a Moreau-Jean theta-scheme (velocity level,
  impulses), uniform dt.

Pipeline: mesh -> model -> contact -> phases (self-weight, tilt, release schedule) -> records
(history.csv from the release on, selfweight_history.csv and tilt_history.csv before) -> post-processing as the
benchmark's §1.6 -> summary.json, report.md, plots, ParaView series.

Where the reference documents disagree the Code_Aster test files are followed: table
AMOR_ALPHA = 1.6e-3 s (a, c files), not the document's 0.001.

The work is done by the modules of this package, one job each, imported here in pipeline order; this
module is the face the scripts, cases/convergence.py, the tests and the benchmarks import, with the entry
point
:func:`run_case` (parse, build, run, post-process, write):

* config — the benchmark's constants and rules, the modelings, Config;
* command_line — the flags of the four scripts (parse_args);
* resources — the steps and memory of a run before anything is built;
* model — the mesh, the model and the contact (build -> Study);
* rigid — the rigid block recomputed for a run's parameters;
* phases — the time functions, the phases and the release's windows;
* energy — the watch on energy created at contact events, the energy books;
* release — the release loop (windows, predicted impacts, event-driven steps);
* run — the run: every phase integrated and recorded (run -> RunOutput);
* checks — Code_Aster's tests, the rigid-block checks, the impacts, from the histories;
* summary — summary.json's body (summarize);
* round_off — the round-off ensemble (--round-off);
* report — report.md and the table printed at the end of a run;
* plots — the plots.
"""
from __future__ import annotations

import logging
import sys
from dataclasses import asdict
from pathlib import Path

from fem.time.march import march
# prepare_output is looked up here, by _run_case (tests/test_input_ranges.py patches this module's)
from fem.run.lifecycle import (EXIT_FAILED, BadInput, Run, check_resources, command_line, execute,
                               prepare_output, results_line)
from cases.sdnv105.command_line import parse_args
from cases.sdnv105.config import CREATION_LIMIT, CREATION_LIMIT_IMMEDIATE, MODELINGS, Config, Modeling
from cases.sdnv105.resources import resource_estimate
from cases.sdnv105.model import Study, build, mesh_source
from cases.sdnv105.rigid import rigid_potential_drop, rigid_reference
from cases.sdnv105.phases import (EXACT_TILT_RAMP, TILT_RAMP, RigidTilt, release_phase, supports,
                                         tilt_phase)
from cases.sdnv105.run import RunOutput, run
from cases.sdnv105.checks import detect_impacts
from cases.sdnv105.summary import summarize
from cases.sdnv105.round_off import round_off_ensemble, tilt_moved
from cases.sdnv105.report import print_table, write_report
from cases.sdnv105.plots import animate, plot

#: what the scripts, cases/convergence.py, tests/ and benchmarks/ use of this module
__all__ = ["run_case", "BadInput", "CREATION_LIMIT", "CREATION_LIMIT_IMMEDIATE", "MODELINGS", "Config", "Modeling",
           "parse_args", "resource_estimate", "Study", "build", "mesh_source", "rigid_potential_drop",
           "rigid_reference", "EXACT_TILT_RAMP", "TILT_RAMP", "RigidTilt", "release_phase", "supports", "tilt_phase",
           "RunOutput", "run", "detect_impacts", "summarize", "round_off_ensemble", "tilt_moved", "write_report",
           "plot"]


def run_case(modeling: str, argv=None, description: str = "", integrator=march) -> int:
    """Parse, build, run, post-process, write (exit codes: fem.run.lifecycle). Returns the exit code."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if modeling not in MODELINGS:
        print(f"error: unknown modeling {modeling!r}; choose one of {sorted(MODELINGS)}", file=sys.stderr)
        return 2
    return execute(lambda args: _run_case(modeling, args, description, integrator), argv)


def _run_case(modeling: str, argv, description: str, integrator) -> int:
    config, flags = parse_args(modeling, argv, description)
    config = config.resolved()
    config.validate()
    check_resources(resource_estimate(config), force=flags.force)
    prepare_output(config.out)
    study = build(config)
    for warning in study.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if config.steps == "benchmark" and config.configuration == "custom":
        print("note: --benchmark-steps: the benchmark's impact windows are placed for the benchmark's block and "
              "tilt, not for this run's impacts (without the flag a custom run takes event-driven steps)",
              file=sys.stderr)
    record = Run.start(config.out, f"sdnv105{modeling}", command_line(f"cases/sdnv105{modeling}.py", argv),
                       config.configuration, {k: (str(v) if isinstance(v, Path) else v)
                                              for k, v in asdict(config).items()},
                       t_end=config.t_end, quiet=flags.quiet)
    output = run(study, integrator)
    summary = summarize(study, output)
    ensemble_interrupted = None
    if config.round_off and output.status == "complete":
        summary["round_off"], ensemble_interrupted = round_off_ensemble(study, summary, integrator)
    summary = record.final(output.status, summary, message=output.failure)
    R = output.release
    if R or output.tilt is not None:
        write_report(config.out, config, summary)
    if R:
        plot(config.out, R, summary)
        if flags.animate and output.interrupted is None:
            why = animate(config.out, summary, flags.animate)
            if why is not None:  # a note, never a failed run: status and exit code unchanged
                summary = {**summary, "animation_error": why}
    summary = record.close(summary)  # summary.json last: a folder that says complete holds every file
    print_table(summary)
    if output.interrupted is not None:
        raise output.interrupted  # fem.run.lifecycle.execute: one line, exit code 130 / 143
    if ensemble_interrupted is not None:
        print(f"note: the run is complete; its round-off ensemble was interrupted after "
              f"{summary['round_off']['runs']} of {summary['round_off']['asked']} runs (report.md)", file=sys.stderr)
        raise ensemble_interrupted
    if output.failure:
        print(f"error: {output.failure}; results up to the failure are in {config.out} (status: failed)",
              file=sys.stderr)
        return EXIT_FAILED
    books = summary.get("energy_check") or {}
    if books.get("passed") is False:  # completed, but the books contradict the motion
        print(f"error: {books['message']} (status: complete; see energy in {config.out}/summary.json)",
              file=sys.stderr)
        return EXIT_FAILED
    print(results_line(config.out, summary.get("files") or []))  # the files it wrote, no other
    return 0
