"""SDNV105 — the round-off ensemble (--round-off K).

The run repeated with the tilt angle moved by -K ... +K units in the last place, and per check the
spread of the values and how many runs meet the test: a check on which they disagree is decided by
the rounding of the arithmetic, not by the model.
"""
from __future__ import annotations

from dataclasses import replace

from fem.studies.round_off import ensemble, moved, offsets
from fem.time.march import march
from fem.time.interrupt import Interrupted
from cases.sdnv105.model import Study, build
from cases.sdnv105.run import run
from cases.sdnv105.summary import summarize


def tilt_moved(tilt: float, ulps: int) -> float:
    """The tilt angle moved by ``ulps`` units in the last place (fem.studies.round_off.moved)."""
    return moved(tilt, ulps)


def round_off_ensemble(study: Study, summary: dict, integrator=march) -> tuple[dict, Interrupted | None]:
    """--round-off K: the run repeated with the tilt angle moved by -K ... -1, +1 ... +K units in the
    last place (2e-18 rad each: the benchmark's input, changed as a different order of the same
    floating-point operations changes a result), each in OUT/round_off/tilt_<k>ulp (histories, no
    ParaView). Per check of ``summary`` (this run's): the smallest, median and largest value over the
    2K + 1 runs, the spread (max - min) / |median|, and how many runs meet the check's test.

    Returns (the summary's "round_off" entry, the interruption that stopped the ensemble or None):
    an interrupted ensemble reports the runs it finished."""
    config = study.config
    checks = summary.get("checks") or []
    values = [[c["value"] for c in checks]]
    verdicts = [[c["within_tolerance"] for c in checks]]
    failed, interrupted = [], None
    for k in offsets(config.round_off):
        other = replace(config, tilt_angle=tilt_moved(config.tilt_angle, k), paraview=False, round_off=0,
                        out=config.out / "round_off" / f"tilt_{k:+d}ulp")
        other.out.mkdir(parents=True, exist_ok=True)
        moved_study = build(other)
        output = run(moved_study, integrator)
        if output.interrupted is not None:
            interrupted = output.interrupted
            break
        if output.failure:
            failed.append(f"{k:+d} ulp: {output.failure}")
            continue
        theirs = {(c["quantity"], c["window"]): c for c in summarize(moved_study, output).get("checks", [])}
        same = [theirs.get((c["quantity"], c["window"]), {}) for c in checks]
        values.append([c.get("value") for c in same])
        verdicts.append([c.get("within_tolerance") for c in same])
    entry = ensemble(config.round_off, [{"quantity": c["quantity"], "window": c["window"]} for c in checks], values,
                     verdicts, failed, interrupted is not None, lambda r: f"{r['quantity']} ({r['window']})")
    return entry, interrupted
