"""The analysis of a convergence study (cases/convergence.py) from its levels' summaries: per impact
and quantity the values, differences, ratios, orders, Richardson estimates and the criterion
(:func:`analyse`), the verdict, a level's record in summary.json (:func:`level_record`), the rigid
block's reference (:func:`rigid_reference`) and the contract's checks (:func:`checks_of`)."""
from __future__ import annotations

from cases.studies.convergence_levels import Level
from fem.studies.convergence import (QUANTITIES, criterion, difference_ratios, differences,
                                               energy_creation, initial_energy, observed_orders, richardson,
                                               same_impacts, tolerance_of)


def _level_values(level: Level, n: int) -> dict:
    s = level.summary or {}
    impacts = list(s.get("impacts") or [])
    first = impacts[:n]
    return {"instant": [first[k]["time"] if k < len(first) else None for k in range(n)],
            "ke_before": [first[k]["ke_before"] if k < len(first) else None for k in range(n)],
            "all": [(i["time"], i["corner"]) for i in impacts]}


def analyse(levels: list[Level], n_impacts: int, kind: str, t_end: float | None) -> dict:
    """Per impact and quantity: values per level, differences, ratios, orders, Richardson estimates
    and the criterion; the same-impacts check, energy creation per level and the verdict."""
    labels = [lv.name for lv in levels]
    h = [lv.h for lv in levels]
    values = [_level_values(lv, n_impacts) for lv in levels]
    impacts = []
    verdicts = []
    for k in range(n_impacts):
        row = {"impact": k + 1}
        for q in QUANTITIES:
            v = [values[j][q][k] for j in range(len(levels))]
            orders = observed_orders(v, h)
            crit = criterion(v, tolerance_of(q, v))
            row[q] = {"values": v, "differences": differences(v), "ratios": difference_ratios(v),
                      "orders": orders, "richardson": richardson(v, h, orders), "criterion": crit}
            verdicts.append(crit["converged"])
        impacts.append(row)
    same = same_impacts([vals["all"] for vals in values], labels, t_end)
    created = {}
    for lv in levels:
        e = (lv.summary or {}).get("energy") or {}
        created[lv.name] = energy_creation(lv.ke_max, e.get("potential_drop"), e.get("contact_work"),
                                           e.get("friction_work"), e.get("numerical_dissipation"),
                                           initial_energy=initial_energy(lv.summary),
                                           damping=e.get("damping_dissipated"))
    failed = [lv.name for lv in levels if lv.status != "complete" or lv.exit_code not in (0, None)]
    if any(v is None for v in verdicts):
        converged = None
    else:
        converged = bool(all(verdicts) and same["same"])
    return {"kind": kind, "levels": labels, "h": h,
            "refinement_ratios": [(a / b if a and b else None) for a, b in zip(h[:-1], h[1:])],
            "impacts": impacts, "same_impacts": same, "energy_created": created,
            "energy_created_levels": [n for n, c in created.items() if c["created"]],
            "failed_levels": failed, "converged": converged, "verdict": _verdict(levels, impacts, same, converged,
                                                                                   failed, created)}


def _verdict(levels, impacts, same, converged, failed, created) -> str:
    parts = []
    if failed:
        parts.append("level(s) that did not complete: " + ", ".join(
            f"{lv.name} (not run)" if lv.status == "pending" else
            f"{lv.name} ({lv.status}, exit {lv.exit_code}{': ' + lv.message if lv.message else ''})"
            for lv in levels if lv.name in failed))
    if converged is None:
        parts.append("no verdict: the criterion needs three levels")
    elif converged:
        parts.append("converged: every impact's instant and kinetic energy meets the criterion, the same impacts "
                     "at every level")
    else:
        bad = [f"impact {row['impact']} {QUANTITIES[q][1]} ({row[q]['criterion']['reason']})"
               for row in impacts for q in QUANTITIES if row[q]["criterion"]["converged"] is False]
        parts.append("NOT converged: " + ("; ".join(bad) if bad else "every impact's instant and kinetic energy "
                                          "meets the criterion, but the levels do not make the same impacts"))
    if not same["same"]:
        parts.append("not the same impacts: " + "; ".join(same["differences"]))
    made = [n for n, c in created.items() if c["created"]]
    parts.append(("energy created at " + ", ".join(made)) if made else "no level creates energy")
    return "; ".join(parts)


def level_record(lv: Level, n: int) -> dict:
    s = lv.summary or {}
    e = s.get("energy") or {}
    run = s.get("run") or {}
    return {"name": lv.name, "kind": lv.kind, "dt": lv.dt, "mesh": lv.mesh, "h": lv.h, "out": str(lv.out),
            "command": lv.command, "status": lv.status, "exit_code": lv.exit_code, "message": lv.message,
            "reused": lv.reused, "same_as": lv.same_as.name if lv.same_as else None,
            "started": lv.started, "finished": lv.finished, "configuration": s.get("configuration"),
            "impacts": list(s.get("impacts") or [])[:n], "impacts_found": len(s.get("impacts") or []),
            "energy": {k: e.get(k) for k in ("potential_drop", "damping_dissipated", "contact_work", "friction_work",
                                             "numerical_dissipation", "relative_error")},
            "ke_max": lv.ke_max,
            "energy_creation": energy_creation(lv.ke_max, e.get("potential_drop"), e.get("contact_work"),
                                               e.get("friction_work"), e.get("numerical_dissipation"),
                                               initial_energy=initial_energy(s), damping=e.get("damping_dissipated")),
            "run": {"steps": run.get("steps"), "wall_s": run.get("wall_s"),
                    "newton_iterations": run.get("newton_iterations")},
            "t_reached": s.get("t_reached")}


def rigid_reference(levels: list[Level], n: int) -> dict | None:
    """The rigid block's first ``n`` impacts (instants, kinetic energies before, corners) and its friction
    demand, from the finest level whose summary.json has a ``rigid_body``; None if none has."""
    for lv in reversed(levels):
        r = (lv.summary or {}).get("rigid_body")
        if r:
            return {"model": r.get("model"), "impact_times": r["impact_times"][:n], "ke_before": r["ke_before"][:n],
                    "impact_corner": (r.get("impact_corner") or [])[:n],
                    "friction_demand": r.get("friction_demand")}
    return None


def checks_of(study: dict, rigid: dict | None, name: str) -> list[dict]:
    """One row per impact and quantity (the contract's ``checks``): the finest level's value against
    the rigid block (relative error), and the criterion's verdict."""
    rows = []
    for row in study["impacts"]:
        k = row["impact"] - 1
        for q, (field_, short, unit) in QUANTITIES.items():
            r = row[q]
            value = r["values"][-1]
            ref = None
            if rigid and k < len(rigid["impact_times"]):
                ref = rigid["impact_times"][k] if q == "instant" else rigid["ke_before"][k]
            label = f"t(impact {k + 1})" if q == "instant" else f"KE before impact {k + 1}"
            rows.append({"quantity": label, "study": name, "value": value, "unit": unit, "reference_rigid": ref,
                         "rel_error": (abs(value - ref) / abs(ref) if value is not None and ref else None),
                         "difference_ratio": r["criterion"]["ratio"], "converged": r["criterion"]["converged"],
                         "passed": r["criterion"]["converged"], "note": r["criterion"]["reason"]})
    return rows
