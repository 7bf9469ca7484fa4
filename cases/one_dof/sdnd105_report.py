"""What a run of cases/sdnd105.py reports: its summary (:func:`summarise`: the buckling instant, the crushes, the rebound,
the energies and the check rows, against the benchmark's references or the closed form for the run's
own parameters, with the references an event after --t-end leaves out) and the table printed on
stdout (:func:`print_table`). ``result`` is the script's run (``cases.sdnd105.Sdnd105Result``)."""
from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np

from cases.one_dof.sdnd105_modelings import (T_RETURN, ClosedForm, Sdnd105Config, check, closed_form_checks,
                                            departures, references)
from contact.buckling import BucklingShocks

def _hermite_at(t, x, v, tq: float) -> float:
    """Cubic Hermite interpolation of x (with derivative v) at tq."""
    k = int(np.clip(np.searchsorted(t, tq) - 1, 0, len(t) - 2))
    h = t[k + 1] - t[k]
    s = (tq - t[k]) / h
    return float((2 * s**3 - 3 * s**2 + 1) * x[k] + (s**3 - 2 * s**2 + s) * h * v[k]
                 + (-2 * s**3 + 3 * s**2) * x[k + 1] + (s**3 - s**2) * h * v[k + 1])


def summarise(config: Sdnd105Config, h: dict[str, np.ndarray], term: BucklingShocks, stats: dict) -> dict:
    s = term.buckling_state()
    share = 0.5 if config.two_masses else 1.0  # b: each mass takes half of the relative crush
    changed = departures(config)
    closed = ClosedForm(config)
    solution = closed.solve() if closed.applies else None
    summary = {
        "modeling": config.modeling,
        "benchmark_parameters": not changed,
        "departures": changed,
        "t_buckle": float(s.t_buckle[0]),
        "max_compression": share * float(s.max_crush[0]),
        "residual_crush": share * float(s.residual_crush[0]),
        "rebound_velocity": float(h["vx_N02"][-1]),
        "rebound_velocity_time": float(h["t"][-1]),
        "final_force": float(s.force[0]),
    }
    if config.two_masses:
        summary.update(relative_max_compression=float(s.max_crush[0]),
                       relative_residual_crush=float(s.residual_crush[0]),
                       symmetry_error=float(np.max(np.abs(h["ux_N02"] + h["ux_N03"]))))
    # the benchmark's return instant t0 (Code_Aster's), or the closed form's for other parameters
    return_time = T_RETURN if not changed or solution is None else solution["return_time"]
    if config.modeling in ("a", "b") and h["t"][-1] >= return_time * (1 - 1e-12):
        summary["dx_at_return_time"] = _hermite_at(h["t"], h["ux_N02"], h["vx_N02"], min(return_time, h["t"][-1]))
        summary["return_time"] = return_time
    ke0 = 0.5 * config.mass * config.v0**2 * (2 if config.two_masses else 1)
    ke = 0.5 * config.mass * (h["vx_N02"][-1] ** 2 + (h["vx_N03"][-1] ** 2 if config.two_masses else 0.0))
    summary["energy"] = {"initial_kinetic": ke0, "final_kinetic": ke,
                         "law_work": float(h["term_work"][-1]),
                         "law_envelope_work_to_max": float(term.law.envelope_work(s.max_crush[0])),
                         "law_released_energy": float(term.law.released_energy(s.max_crush[0]))}
    if solution is not None:
        summary["closed_form"] = solution
    if not changed:
        summary["references"] = "the benchmark's references (Code_Aster sdnd105 tests and the derived values)"
        rows, notes = [], []
        for r in references(config):
            why = _left_out(r.quantity, config, solution, summary)
            if why:
                notes.append(f"{r.quantity}: {why}")
            else:
                rows.append(check(summary[r.quantity], r))
    elif solution is not None:
        summary["references"] = ("the closed form for this run's parameters (Code_Aster's values apply to the "
                                 "benchmark's only)")
        rows, notes = closed_form_checks(config, summary, solution)
    else:
        summary["references"] = ("none: with damping there is no closed form, and Code_Aster's values apply to the "
                                 "benchmark's parameters only")
        rows, notes = [], []
    summary["checks"] = rows
    summary["references_left_out"] = notes
    summary["all_passed"] = all(c["passed"] is not False for c in rows)
    summary["config"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(config).items()}
    summary["run"] = stats
    return summary


def _left_out(quantity: str, config: Sdnd105Config, solution: dict | None, summary: dict) -> str:
    """Why a benchmark reference does not apply to this run (an event after --t-end), or ''."""
    t_end = config.t_end * (1 + 1e-12)
    if quantity == "dx_at_return_time":
        return "" if quantity in summary else f"the return instant {T_RETURN:.6g} s is after --t-end"
    if solution is None:  # d: Code_Aster's values at the end of its run, 9 s
        if quantity == "rebound_velocity" and not math.isclose(config.t_end, 9.0, rel_tol=1e-12):
            return "Code_Aster's value is the velocity at 9 s; --t-end differs"
        if quantity == "residual_crush" and t_end < 9.0:
            return "Code_Aster's value is the residual crush at 9 s, after --t-end"
        return ""
    due = {"t_buckle": solution["t_buckle"] or 0.0, "max_compression": solution["max_compression_time"],
           "residual_crush": solution["max_compression_time"],
           "rebound_velocity": 9.0 if config.modeling == "c" else solution["separation_time"]}
    if quantity in due and due[quantity] > t_end:
        return f"the event comes at {due[quantity]:.6g} s, after --t-end"
    return ""


def print_table(result: Sdnd105Result) -> None:
    s, cfg = result.summary, result.config
    run = s.get("run", {})
    window = (f"{cfg.dt_fine:g} s in [{cfg.fine_window[0]:g}, {cfg.fine_window[1]:g}] s"
              if cfg.fine_window[1] > cfg.fine_window[0] else "no fine window")
    configuration = s.get("configuration", "custom" if s["departures"] else "benchmark")
    print(f"SDND105 {cfg.modeling} ({configuration} configuration): t = 0 -> {cfg.t_end:g} s, dt = {cfg.dt:g} s "
          f"({window}), {run.get('steps', '?')} steps, {run.get('newton_iterations', '?')} Newton iterations, "
          f"{run.get('wall_s', float('nan')):.1f} s")
    num = lambda x, w, spec: f"{'-':>{w}s}" if x is None else f"{x:{w}{spec}}"  # noqa: E731
    print(f"{'quantity':22s} {'this code':>16s} {'reference':>16s} {'error':>10s} {'tol':>8s} {'ok':>4s}  "
          f"{'Code_Aster':>16s}  (criterion; source)")
    for c in s["checks"]:
        kind = "abs" if c["criterion"] == "ABSOLU" else "rel"
        ok = {True: "yes", False: "NO", None: "-"}[c["passed"]]
        print(f"{c['quantity']:22s} {num(c['value'], 16, '.9g')} {c['reference']:16.9g} "
              f"{num(c['rel_error'], 10, '.2e')} {c['tolerance']:8.0e} {ok:>4s}  "
              f"{num(c['aster_value'], 16, '.9g')}  ({kind}; {c['source']})")
    shown = {c["quantity"] for c in s["checks"]}
    for key in ("t_buckle", "max_compression", "residual_crush", "rebound_velocity"):
        if key not in shown:
            print(f"{key:22s} {s[key]:16.9g} {'-':>16s}")
    for note in s.get("references_left_out", []):
        print(f"not checked: {note}")
    if s["departures"]:
        print(f"custom configuration ({', '.join(s['departures'])}): {s['references']}")
