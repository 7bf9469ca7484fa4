"""SDNV105 — the checks of a run.

Every Code_Aster test of the benchmark (docs/references.md, "SDNV105: the post-processed quantities
and the test values"), stated once, in the modeling's problem file (cases/sdnv105{a,b,c,d}.toml, what
``rockfem run`` grades too): the case's run states them (:func:`code_aster_checks`, graded by fem.problem on
the run's histories) and tables them a quantity a row beside the records of code_aster_tests.json
(:func:`code_aster_table`); the checks of a custom run against the rigid block recomputed for its
parameters (:func:`rigid_checks`), and the impacts read from the contact statuses (:func:`detect_impacts`).
"""
from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from cases.problem_file import load
from contact.state import OPEN
from cases.sdnv105.config import Config, MODELINGS, friction_demand
from fem.problem import Check


# a verbatim copy of the benchmark team's code_aster_tests.json (a test checks it is identical where that
# master copy is beside the checkout)
REFERENCE_FILE = Path(__file__).resolve().parents[1] / "reference" / "code_aster_tests.json"


#: the modelings' problem files, whose [[checks]] state Code_Aster's tests (d's: modeling a's, by which it is graded)
PROBLEM_FILES = {m: Path(__file__).resolve().parents[1] / f"sdnv105{m}.toml" for m in MODELINGS}
#: a stated check's name is the case's quantity and window, "DY(O) max, release"; a second reference's adds this
RESTITUTION = " (restitution)"


def code_aster_records(modeling: str) -> list[dict]:
    """The SDNV105 records of a modeling, in file order."""
    data = json.loads(REFERENCE_FILE.read_text())
    return [r for r in data["records"] if r["case"] == "SDNV105" and r["modeling"] == modeling]


def graded_by(modeling: str) -> str:
    """Whose Code_Aster records grade ``modeling``: its own, d's by a's (d has none of its own)."""
    return "a" if modeling == "d" else modeling


@functools.lru_cache(maxsize=len(MODELINGS))
def _file_checks(modeling: str) -> tuple[Check, ...]:
    return tuple(c for c in load(PROBLEM_FILES[modeling]).checks if not c.gate)


def code_aster_checks(modeling: str) -> tuple[Check, ...]:
    """Code_Aster's tests of ``modeling`` as its problem file states them (cases/sdnv105{a,b,c,d}.toml, one
    source for both front-ends; the file's tilt gate aside: the case states its own, :func:`run.tilt_gate`),
    one :class:`fem.problem.Check` a record, in the records' order. Code_Aster's tests are over Code_Aster's
    run: a check of the whole release is held to the benchmark's release, 0 to its end, so that a run ended
    sooner (--t-end, an interruption) has no value for it and a longer one is read over the same span."""
    end = MODELINGS[modeling].t_end
    return tuple(replace(c, window=(0.0, end)) if c.stage is None and c.at is None and c.window is None else c
                 for c in _file_checks(modeling))


def code_aster_table(modeling: str, graded: list[dict]) -> list[dict]:
    """summary.json's ``checks`` of a benchmark run: one row a tested quantity, from the rows the run graded
    the stated checks by (fem.problem: ``graded``, in :func:`code_aster_checks`' order), with its records:
    our value (in Code_Aster's sign: a force the file reads on the block, Code_Aster on the table, turned
    back) beside the rigid-body (or analytic) reference, the restitution-coefficient reference when there is
    one, Code_Aster's value, the relative error to the first reference, and whether each record's tolerance
    is met (None: the run did not reach the quantity's window)."""
    records = iter(code_aster_records(graded_by(modeling)))
    groups: list[list[tuple[dict, dict]]] = []
    for row in graded:
        pair = (row, next(records))
        if row["quantity"].endswith(RESTITUTION) and groups:
            groups[-1].append(pair)
        else:
            groups.append([pair])
    out = []
    for group in groups:
        recs = [r for _, r in group]
        rigid = next((r for r in recs if "restitution" not in (r.get("note") or "")), recs[0])
        restit = next((r for r in recs if "restitution" in (r.get("note") or "")), None)
        first, record = group[0]
        turned = record["reference"] != 0 and first["reference"] == -record["reference"]
        value = None if first["value"] is None else (-first["value"] if turned else first["value"])
        quantity, _, window = first["quantity"].partition(", ")
        out.append({
            "quantity": quantity, "window": window, "value": value,
            "reference_rigid": rigid["reference"],
            "reference_restitution": restit["reference"] if restit else None,
            "code_aster": rigid["aster_value"],
            "rel_error": None if value is None else _rel(value, rigid["reference"]),
            "rel_error_code_aster": None if value is None else _rel(value, rigid["aster_value"]),
            "tolerance": [r["tolerance"] for r in recs], "criterion": rigid["criterion"],
            "within_tolerance": None if value is None else all(row["within_tolerance"] for row, _ in group),
            **({"note": "window not reached by the run (--t-end)"} if value is None else {}),
        })
    return out


def _rel(value: float, ref: float | None) -> float | None:
    if ref is None:
        return None
    return abs(value - ref) / abs(ref) if ref != 0 else abs(value - ref)


# Tolerances of the checks of a custom run against the rigid block recomputed for its parameters.
# Before the first impact the elastic block (first eigenfrequency >> rocking frequency p) rocks as
# the rigid one: at the benchmark's parameters a, b, c and d meet the first impact instant within
# 0.2 % and the kinetic energy before it within 0.5 % (README), and |RT|/RN at the pivot within
# 0.6 % (0.3195 vs 0.3193 here, 0.3212 in the document); the instant is read at the step where
# the corner's status closes, i.e. to within a fine step. Modeling d's impact law is the rigid
# block's (no rebound of the contact nodes), so its later impacts are checked too, with the
# tolerances the benchmark's d run meets (instants 1 %, energies 3 %). A, b and c impacts are
# elastic: after the first one they are compared with Code_Aster, not with the rigid block.
RELEASE_TRANSIENT = 0.01  # s
RIGID_TOLERANCES = {"instant": 0.01, "ke_before": 0.02, "friction_ratio": 0.02, "later_instant": 0.01,
                    "later_ke_before": 0.03}


def _rigid_row(quantity: str, window: str, value, reference: float, tolerance: float, applies: bool,
               note: str = "") -> dict:
    """A check against the rigid block: a verdict only where the reference ``applies``; a value the
    run does not have (an impact the rigid block makes and the run misses) then fails."""
    rel = None if value is None else _rel(value, reference)
    return {"quantity": quantity, "window": window, "value": value, "reference_rigid": reference,
            "reference_restitution": None, "code_aster": None, "rel_error": rel, "rel_error_code_aster": None,
            "tolerance": [tolerance], "criterion": "RELATIF",
            "within_tolerance": (rel is not None and rel <= tolerance) if applies else None, "note": note}


def rigid_checks(config: Config, R: dict, impacts: list[dict], rigid: dict) -> list[dict]:
    """Checks of a custom run against the rigid block recomputed for its own width, height, tilt and
    density (contact.references.rocking): first impact instant and kinetic energy before it, largest |RT|/RN at
    the pivot O before it, and for modeling d every later impact. ``within_tolerance`` is None (no
    verdict) for an impact the run does not reach, and for every row when the pivot slides
    (mu below the rigid block's friction demand), since the rigid reference assumes it sticks."""
    demand = friction_demand(config)
    applies = config.rigid_reference_applies
    why = "" if applies else (f"--mu {config.mu:g} is below the rigid block's friction demand {demand:.4g}: "
                              f"the pivot slides, the rigid-rocking reference does not apply")
    n_checked = len(rigid["impact_times"]) if config.modeling == "d" else 1
    t_last = float(R["t"][-1])  # --t-end, or where an interrupted run stopped
    rows = []
    for k in range(n_checked):
        got = impacts[k] if k < len(impacts) else None
        t_ref, ke_ref = rigid["impact_times"][k], rigid["ke_before"][k]
        reached = t_ref <= t_last
        note = why or ("" if got else "no such impact in the run" if reached else "not reached by the run")
        label = f"impact {k + 1}"
        for quantity, field, reference, tolerance in (
                (f"t({label})", "time", t_ref, RIGID_TOLERANCES["instant" if k == 0 else "later_instant"]),
                (f"KE before {label}", "ke_before", ke_ref,
                 RIGID_TOLERANCES["ke_before" if k == 0 else "later_ke_before"])):
            rows.append(_rigid_row(quantity, "release", got[field] if got else None, reference, tolerance,
                                   applies and reached, note))
    # from 0.01 s, as the benchmark's RN(O), RX(O) windows: the elastic block's reactions need a few
    # of its vertical periods to settle from the held tilt (t = 0) to the rocking (0.36 at 2e-4 s in d)
    t_impact = impacts[0]["time"] if impacts else rigid["impact_times"][0]
    before = (R["t"] >= RELEASE_TRANSIENT) & (R["t"] < t_impact)
    loaded = before & (R["rn_O"] > 0.05 * np.max(R["rn_O"][before], initial=0.0))
    ratio = float(np.max(np.abs(R["rt_O"][loaded]) / R["rn_O"][loaded])) if np.any(loaded) else None
    rows.append(_rigid_row("max RT/RN at O", "0.01-impact 1", ratio, demand, RIGID_TOLERANCES["friction_ratio"],
                           applies and ratio is not None, why))  # None: the run stopped before 0.01 s
    return rows


def detect_impacts(R: dict) -> list[dict]:
    """Impacts: a corner contact closing after being open (status column), with the block kinetic
    energy just before (the maximum over the last 40 % of the preceding flight, as the benchmark
    reads its collision instants) and just after (the minimum over the next 5 ms). The pivot O
    settling on its elastic support in the first RELEASE_TRANSIENT after the release (a lift of a
    few nanometres for a step or two, kinetic energy ~1e-5 J) is not an impact: the block leaves the
    tilt resting on O."""
    impacts = []
    for corner in ("O", "A"):
        status = R[f"status_{corner}"]
        closes = np.flatnonzero((status[1:] != OPEN) & (status[:-1] == OPEN)) + 1
        for k in closes:
            if corner == "O" and R["t"][k] < RELEASE_TRANSIENT:
                continue
            impacts.append((float(R["t"][k]), corner, k))
    impacts.sort()
    out, t_prev = [], 0.0
    for t_hit, corner, k in impacts:
        if out and t_hit - out[-1]["time"] < 0.01:  # chatter within one impact
            continue
        before = (R["t"] > t_prev + 0.6 * (t_hit - t_prev)) & (R["t"] <= t_hit)  # the approach, not the last impact
        after = (R["t"] > t_hit) & (R["t"] <= t_hit + 0.005)
        ke_b = float(R["ke"][before].max()) if before.any() else float("nan")
        ke_a = float(R["ke"][after].min()) if after.any() else float("nan")
        out.append({"time": t_hit, "corner": corner, "ke_before": ke_b, "ke_after": ke_a})
        t_prev = t_hit
    return out
