"""The summary of a shaking-table run (cases/shaking_table.py) and its verdicts: the rigid block under the
same table motion (:func:`rigid_reference`, :func:`rigid_verdict`), whether the run's blocks overturn
(:func:`overturn_verdict`, :func:`overturn_barrier`), the table's peaks, the energy books and the checks
against the rigid block (:func:`summarize`: summary.json's results). ``study`` and ``output`` are the
script's ``Study`` and ``RunOutput``."""
from __future__ import annotations

import math
import time

import numpy as np

from cases.table.config import G, Config
from contact.output import lift_impacts
from contact.references import rocking_base
from contact.references.overturning import still_table_outcome
from fem.loads import base_motion as bm
from fem.problem import verdicts
from fem.problem.verdicts import remaining_peak  # noqa: F401 (the rigid verdict's, and re-exported)

UPLIFT = 1e-6  # m: a base corner this far above the table has lifted (summary uplift_time)
SLID = 1e-5  # m: a corner that slipped this much has slid (summary slid)
IMPACT_WINDOW = (1e-3, 5e-3)  # s before and after an impact's first closed step: its impulsive forces
# The overturning verdict of a run that did not overturn is "no" only when decided: from the run's end
# on the table is still and the blocks' mechanical energy (kinetic + potential + strain, from the
# rest at t = 0) is below the smallest energy barrier of the column by this fraction of it (the
# blocks can then never rise to an unstable equilibrium again: without input their energy only
# decreases). The elastic block's barrier is the rigid one's to its settlement under self-weight
# (1e-8 m on 0.44 m); the margin keeps the verdict off the barrier by the books' own accuracy
# (ENERGY_LIMIT). Otherwise "undecided", never "no" (summary.json overturn_verdict, report.md).
OVERTURN_MARGIN = verdicts.OVERTURN_MARGIN
#: rigid-reference curve samples kept in summary.json (the solver's are every flight's 801 and a rest
#: scan every min(1/p, dt) / 200 s: 2e5 a second of rest at --dt 1e-3)
CURVE_POINTS = 20001


def uplift_onset(R: dict) -> float | None:
    """First time [s] the block (a stack: the column) stands on one base corner alone (every other
    node of the table contact open): the rigid block's uplift instant, when |a| first exceeds
    g tan(alpha). None if never."""
    single = (R["n_closed"] == 1) & ((R["status_O"] != 0) | (R["status_A"] != 0))
    k = np.flatnonzero(single)
    return float(R["t"][k[0]]) if k.size else None


def first_time(t: np.ndarray, mask: np.ndarray) -> float | None:
    k = np.flatnonzero(mask)
    return float(t[k[0]]) if k.size else None


def rigid_reference(cfg: Config, history: bm.MotionHistory, t_end: float | None = None) -> dict:
    """The rigid block under the same table motion (contact.references.rocking_base); a table acceleration xdd
    along +x (from O to A) is a_g = -xdd in Zhang and Makris' sign. A stack is the column as one
    rigid block (its joints closed), 2b x N 2l: what it is while no joint opens.

    It covers [0, ``t_end``] (default the run's --t-end; the caller passes the time an interrupted or
    failed run reached, so that its cost and memory follow the run, not the duration planned), and
    its overturning verdict is :func:`rigid_verdict`'s (``overturn_verdict``; ``overturned`` True,
    False or None for undecided). ``curve_t``, ``curve_theta``: at most CURVE_POINTS samples; ``wall_s``: its own wall time [s]."""
    if cfg.direction != "horizontal":
        return {"applies": False, "reason": "the rigid reference is for a horizontal table motion"}
    horizon = cfg.t_end if t_end is None else t_end
    if not horizon > 0:
        return {"applies": False, "reason": "the run stopped before the table moved (t = 0)"}
    b, l = cfg.width / 2, cfg.blocks * cfg.height / 2
    started = time.perf_counter()
    res = rocking_base.rock_under_base_motion(b, l, lambda t: -history.acceleration(t),
                                              horizon, g=G, rho=cfg.rho, n_samples_per_flight=801,
                                              max_step=min(cfg.dt, 0.01))
    demand = res.max_friction_ratio
    model = "exact nonlinear rocking, Housner impact law, no sliding"
    if cfg.blocks > 1:
        model += f"; the column of {cfg.blocks} blocks as one rigid block (joints closed)"
    verdict = rigid_verdict(cfg, history, res, horizon)
    wall = time.perf_counter() - started
    keep = np.unique(np.linspace(0, res.t.size - 1, min(res.t.size, CURVE_POINTS)).astype(np.int64))
    return {"applies": bool(min(cfg.mu, cfg.joint_mu) > demand), "model": model, "t_end": horizon,
            "uplift_onset": res.uplift_time, "uplift_time": rocking_base.lift_time(res, UPLIFT),
            "max_rotation": res.max_rotation, "overturned": _overturned(verdict["verdict"]),
            "overturn_time": verdict.get("overturn_time"), "overturn_verdict": verdict,
            "impacts": [{"time": t, "corner": c, "ke_before": kb, "ke_after": ka} for t, c, kb, ka in
                        zip(res.impact_times, res.impact_corner, res.ke_before, res.ke_after)],
            "max_friction_ratio": demand if math.isfinite(demand) else None,
            "curve_t": res.t[keep].tolist(), "curve_theta": res.theta[keep].tolist(),
            "wall_s": wall}


def _overturned(verdict: str) -> bool | None:
    """summary.json's ``overturned``: True, False, or None when undecided."""
    return {"yes": True, "no": False}.get(verdict)


def rigid_verdict(cfg: Config, history: bm.MotionHistory, res, horizon: float) -> dict:
    """Whether the rigid block of ``res`` (contact.references.rocking_base, to ``horizon``) overturns:
    ``verdict`` "yes" (|theta| reached 2 alpha by the horizon, or on a table still from there on,
    where contact.references.overturning.still_table_outcome decides from the final state and integrates on
    with a_g = 0: ``overturn_time`` is then after the horizon), "no" (at rest, or decided to survive
    on a still table; or at rest with the rest of the motion below the uplift acceleration), else
    "undecided" (the table still moves after the horizon), with the ``reason``."""
    if res.overturned:
        return {"verdict": "yes", "overturn_time": res.overturn_time,
                "reason": f"|theta| reached the overturn angle at {res.overturn_time:.6g} s"}
    theta, omega = float(res.theta[-1]), float(res.omega[-1])
    peak = remaining_peak(history, horizon)
    if peak == 0.0:
        fate = still_table_outcome(cfg.width / 2, cfg.blocks * cfg.height / 2, theta, omega, g=G)
        where = (f"the table is still from {horizon:.6g} s on, theta = {theta:.6g} rad, omega = {omega:.6g} rad/s, "
                 f"E / E_b = {fate.energy_ratio:.4g}")
        if fate.overturns:
            t_over = horizon + fate.time_to_overturn
            return {"verdict": "yes", "overturn_time": t_over,
                    "reason": f"{where}: the energy rule says it overturns; integrated on with a_g = 0, at "
                              f"{t_over:.6g} s (after the run's end)"}
        if fate.overturns is False:
            return {"verdict": "no", "reason": f"{where}: the energy rule says it never overturns"}
        return {"verdict": "undecided", "reason": f"{where}: at the barrier within the integration's error"}
    if theta == 0.0 and omega == 0.0 and peak <= G * math.tan(cfg.column_alpha):
        return {"verdict": "no", "reason": f"at rest at {horizon:.6g} s and the rest of the motion stays below "
                                           f"the uplift acceleration"}
    return {"verdict": "undecided", "reason": f"the table still moves after {horizon:.6g} s (its motion lasts to "
                                              f"{history.duration:.6g} s): the outcome is not decided"}


def overturn_barrier(cfg: Config) -> float:
    """The smallest energy [J] that takes a block of the column, with those on it as one rigid body,
    from rest to its unstable equilibrium: min over k of M_k g (R_k - L_k), M_k the mass of blocks
    k..N, L_k their half height (N - k + 1) l, R_k = sqrt(b^2 + L_k^2) (the top block alone for a
    stack; M g (R - l) for one block)."""
    b, l = cfg.width / 2, cfg.height / 2
    block = cfg.rho * cfg.width * cfg.height
    return min((n * block) * G * (math.hypot(b, n * l) - n * l) for n in range(1, cfg.blocks + 1))


def overturn_verdict(cfg: Config, history: bm.MotionHistory, R: dict, output: "RunOutput",
                     uplift_time: float | None, blocks: tuple = ()) -> dict:
    """Whether this run's blocks overturn: ``verdict`` "yes" (a block reached its overturn angle: the
    run stopped there), "no" only when decided (from the run's end on the table is still, every block
    ``blocks`` is on the near side of its unstable equilibrium, |theta_k| < half its overturn angle,
    and the blocks' energy, kinetic + potential + strain from the rest at t = 0, is below
    (1 - OVERTURN_MARGIN) of :func:`overturn_barrier`: they can never climb to an unstable
    equilibrium again; or no corner ever lifted and the rest of the motion stays below the uplift
    acceleration), else "undecided" with the ``reason`` (a block that ends past alpha, still tipping
    outward, whatever its energy: beyond the barrier the potential energy falls as it tips).
    ``energy`` and ``barrier`` [J] at the run's end."""
    if output.overturned_at is not None:
        return verdicts.decide(overturned_at=output.overturned_at, base_still=False,
                               who=f"block {output.overturned_block}")
    if not R:
        return {"verdict": "undecided", "reason": "the run stopped before the table moved"}
    t_last = float(R["t"][-1])
    energy = float(R["ke"][-1] + (R["gravity_potential"][-1] - R["gravity_potential"][0])
                   + (R["strain_energy"][-1] - R["strain_energy"][0]))
    barrier = overturn_barrier(cfg)
    out = {"energy": energy, "barrier": barrier, "t": t_last, "theta": float(R["theta"][-1]),
           "omega": float(R["omega"][-1])}
    peak = remaining_peak(history, t_last)
    state = (f"at {t_last:.6g} s theta = {out['theta']:.4g} rad (alpha {cfg.alpha_rad:.4g}), omega = "
             f"{out['omega']:.4g} rad/s, energy {energy:.4g} J = {energy / barrier:.3g} of the barrier {barrier:.4g} J")
    beyond = [b.k for b in blocks if abs(float(R[b.theta_column][-1])) >= 0.5 * b.overturn]
    verdict = verdicts.decide(base_still=peak == 0.0, beyond_balance=bool(beyond), energy=energy, barrier=barrier,
                              lifted=uplift_time is not None, rest_peak=peak,
                              uplift_acceleration=G * math.tan(cfg.column_alpha), state=state,
                              who=f"block {beyond[0]}" if beyond else "the blocks")
    return {**out, **verdict}


def summarize(study: Study, output: RunOutput) -> dict:
    """summary.json's results. Lists over blocks (bottom first): max_rotation; over contact surfaces
    (the table first, then joint 1, ...): joint_uplift_time, max_joint_gap. uplift_time is the first
    lift of any block's base corner, impacts those of every corner (its name tells the surface)."""
    cfg = study.config
    R = output.history
    # the rigid reference over the time this run covered: its --t-end once complete (overturned or
    # not), the last step reached when interrupted or failed (a SIGINT must not wait for the rigid
    # block of the whole duration planned)
    horizon = cfg.t_end if output.status == "complete" else (float(R["t"][-1]) if R else 0.0)
    summary = {"modeling": cfg.modeling, "blocks": cfg.blocks, "run": output.stats, "failure": output.failure,
               "fine_spans": output.spans, "mass": {"kind": study.model.mass_kind,
                                                     "block_mass": study.model.total_mass("BLOCK")},
               "uplift_acceleration_g": math.tan(cfg.column_alpha),
               "overturn_angle": [b.overturn for b in study.blocks],
               "rigid_body": rigid_reference(cfg, study.history, horizon)}
    if not R:
        summary["overturn_verdict"] = overturn_verdict(cfg, study.history, R, output, None)
        summary["overturned"] = _overturned(summary["overturn_verdict"]["verdict"])
        return summary
    t = R["t"]
    corners = [c for j in study.joints for c in j.corners]
    impacts = lift_impacts(t, R["ke"], {c: R[f"status_{c}"] for c in corners},
                           {c: R[f"gap_{c}"] for c in corners}, lift=UPLIFT)  # in time order
    # the rigid reference's friction demand leaves the impulsive impact forces out: so does
    # max_friction_ratio (IMPACT_WINDOW around each impact); max_friction_ratio_impacts keeps them
    during_impacts = np.zeros(t.size, dtype=bool)
    for i in impacts:
        during_impacts |= (t >= i["time"] - IMPACT_WINDOW[0]) & (t <= i["time"] + IMPACT_WINDOW[1])
    slip = max(float(np.max(np.abs(R[f"slip_{c}"] - R[f"slip_{c}"][0]))) for c in corners)
    gaps = [np.max([R[f"gap_{c}"] for c in j.corners], axis=0) for j in study.joints]
    demand = np.max([R[f"friction_demand{j.suffix}"] for j in study.joints], axis=0)
    summary.update({
        "uplift_time": first_time(t, np.max(gaps, axis=0) > UPLIFT),
        "uplift_onset": uplift_onset(R),
        "joint_uplift_time": [first_time(t, g > UPLIFT) for g in gaps],
        "max_joint_gap": [max(float(np.max(g)), 0.0) for g in gaps],
        "max_rotation": [float(np.max(np.abs(R[b.theta_column]))) for b in study.blocks],
        "overturned": None,  # below, from overturn_verdict
        "overturn_time": output.overturned_at,
        "overturned_block": output.overturned_block,
        "impacts": impacts,
        # the count by the rule of every run (fem.problem.observe.PairWatch: a landing after a lift beyond
        # IMPACT_LIFT of the body's size, landings within one event once), as rockfem run reports it
        "impact_count": len(output.pair_impacts or []),
        "impact_lift": {k: p["impact_lift"] for k, p in (output.pairs or {}).items()},
        "max_friction_ratio": float(np.max(demand[~during_impacts])),
        "max_friction_ratio_impacts": float(np.max(demand)),
        "max_node_friction_ratio": float(max(np.max(R[f"friction_ratio{j.suffix}"]) for j in study.joints)),
        "max_slip": slip,
        "slid": bool(slip > SLID),
        "table": table_peaks(study.history, float(t[-1])),
        "energy": energy_books(R),
    })
    summary["overturn_verdict"] = overturn_verdict(cfg, study.history, R, output, summary["uplift_time"],
                                                   study.blocks)
    summary["overturned"] = _overturned(summary["overturn_verdict"]["verdict"])
    summary["checks"] = checks(summary) + list(output.physical or [])
    return summary


def table_peaks(history: bm.MotionHistory, t_end: float) -> dict:
    """Peak |a|, |v|, |d| of the table's motion over [0, t_end] (on 20001 points and, for a record,
    its samples: the motion itself, not only the steps the run took) and v, d at t_end."""
    t = np.linspace(0.0, t_end, 20001)
    samples = np.asarray(getattr(history, "times", ()), dtype=float)
    t = np.union1d(t, samples[samples <= t_end])
    return {"peak_acceleration": float(np.max(np.abs(history.acceleration(t)))),
            "peak_velocity": float(np.max(np.abs(history.velocity(t)))),
            "peak_displacement": float(np.max(np.abs(history.displacement(t)))),
            "final_velocity": float(history.velocity(t_end)), "final_displacement": float(history.displacement(t_end))}


def energy_books(R: dict) -> dict:
    """The energy balance of the excitation (t >= 0), every term on its own (fem.stage.energy): the
    table's input (the work of the d'Alembert load, external work minus gravity's) against the
    block's kinetic, strain and gravity energies, damping, contact and friction works and the time
    scheme's dissipation. ``relative_error`` is the books' largest error over the largest of the
    input, the kinetic energy and an absolute floor: the strain energy the preload left in the
    bodies (the energy of the block at rest under its weight, 9.7e-6 J for SDNV105's), so that a
    motion that puts no energy in (an all-zero record) is not graded by its round-off (5e-21 J
    over a 9e-21 J input once read as "57 %")."""
    table_work = (R["external_work"] - R["external_work"][0]) + (R["gravity_potential"] - R["gravity_potential"][0])
    error = R["energy_balance_error"] - R["energy_balance_error"][0]
    floor = abs(float(R["strain_energy"][0]))
    scale = max(float(np.max(np.abs(table_work))), float(np.max(R["ke"])), floor, 1e-300)
    return {"table_work": float(table_work[-1]), "max_table_work": float(np.max(np.abs(table_work))),
            "max_abs_error": float(np.max(np.abs(error))), "relative_error": float(np.max(np.abs(error)) / scale),
            "damping_dissipated": float(R["damping_dissipation"][-1] - R["damping_dissipation"][0]),
            "contact_work": float(R["contact_work"][-1] - R["contact_work"][0]),
            "friction_work": float(R["friction_work"][-1] - R["friction_work"][0]),
            "numerical_dissipation": float(R["numerical_dissipation"][-1] - R["numerical_dissipation"][0])}


ENERGY_LIMIT = 0.01


def checks(summary: dict) -> list[dict]:
    """This run against the rigid block under the same motion (where it applies: the pivot's friction
    above the rigid block's demand) and its own energy books."""
    rigid = summary["rigid_body"]
    out = [{"quantity": "energy books error / input", "value": summary["energy"]["relative_error"],
            "reference": 0.0, "rel_error": summary["energy"]["relative_error"], "tolerance": ENERGY_LIMIT,
            "within_tolerance": summary["energy"]["relative_error"] <= ENERGY_LIMIT}]
    if not rigid.get("applies"):
        return out

    def row(quantity, value, reference, tolerance, undecided=False):
        """Relative tolerance on numbers; a bool or a None (never happened) must be equal; no verdict
        (None) when ``undecided``."""
        if undecided:
            out.append({"quantity": quantity, "value": value, "reference": reference, "rel_error": None,
                        "tolerance": tolerance, "within_tolerance": None,
                        "note": "undecided: the run or the rigid block ends before its outcome is decided"})
            return
        if isinstance(value, bool) or isinstance(reference, bool) or value is None or reference is None:
            ok, rel = value == reference, None
        else:
            rel = abs(value - reference) / abs(reference) if reference else None
            ok = abs(value - reference) <= tolerance * abs(reference)
        out.append({"quantity": quantity, "value": value, "reference": reference, "rel_error": rel,
                    "tolerance": tolerance, "within_tolerance": bool(ok)})

    row("uplift onset [s]", summary["uplift_onset"], rigid["uplift_onset"], 0.01)
    row("uplift 1e-6 m [s]", summary["uplift_time"], rigid["uplift_time"], 0.01)
    row("overturned", summary["overturned"], rigid["overturned"], 0,
        undecided=summary["overturned"] is None or rigid["overturned"] is None)
    if rigid["uplift_time"] is not None and rigid["overturned"] is False and summary["overturned"] is False:
        row("max rotation [rad]", summary["max_rotation"][0], rigid["max_rotation"], 0.10)
    if len(summary["max_joint_gap"]) > 1:  # the column as one rigid block holds while its joints stay shut
        row(f"joints closed (gap <= {UPLIFT:g} m)", all(g <= UPLIFT for g in summary["max_joint_gap"][1:]), True, 0)
    return out
