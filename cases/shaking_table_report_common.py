"""The report of a shaking-table run (cases/shaking_table.py): report.md (:func:`write_report`), the rotation
figure rotation.png (:func:`plot`) and the results on stdout (:func:`print_summary`)."""
from __future__ import annotations

import math
from pathlib import Path

from cases.shaking_table_config_common import G, Config
from cases.shaking_table_summary_common import SLID, UPLIFT
from fem.io.results import series_format
from fem.io import output_folder
from fem.io.markdown import md_row, md_table
from fem.problem.report import cell


def _verdict(where: dict) -> str:
    """"yes", "no" or "undecided" (overturn_verdict), "–" without one."""
    return (where.get("overturn_verdict") or {}).get("verdict", "–")


def _impacts(impacts: list[dict]) -> list[str]:
    return md_table(["time [s]", "corner", "KE before [J]", "KE after [J]"],
                    [(f"{i['time']:.6f}", i["corner"], f"{i['ke_before']:.4g}", f"{i['ke_after']:.4g}") for i in impacts])


def write_report(out: Path, cfg: Config, summary: dict) -> None:
    rigid = summary["rigid_body"]
    run_ = summary["run"]
    lines = [f"# Shaking table — {cfg.excitation}, modeling {cfg.modeling} ({cfg.spec.description})", "",
             f"Command: `{summary['command']}` (rockfem {summary['version']}; every parameter in summary.json). "
             f"Run: {run_['steps']} steps, {run_['newton_iterations']} Newton iterations, {run_['wall_s']:.1f} s.", "",
             f"Status: **{summary['status']}**.", ""]
    if summary["status"] != "complete":
        lines += [f"**The run did not finish** ({summary.get('message') or summary.get('failure')}): the files hold "
                  f"every step up to t = {summary.get('t_reached')} s, and the values below are those of the "
                  f"steps computed.", ""]
    if cfg.blocks == 1:
        lines += [f"Block {cfg.width:g} x {cfg.height:g} m, alpha = atan(b/l) = {cfg.alpha_rad:.6g} rad: it lifts "
                  f"when the table acceleration exceeds g tan(alpha) = {math.tan(cfg.alpha_rad):.4g} g and counts as "
                  f"overturned at |theta| = 2 alpha = {2 * cfg.alpha_rad:.4g} rad (the run stops there). Friction "
                  f"mu = {cfg.mu:g}.", ""]
    else:
        lines += [f"{cfg.blocks} blocks of {cfg.width:g} x {cfg.height:g} m stacked, a column of "
                  f"{cfg.width:g} x {cfg.blocks * cfg.height:g} m: as one rigid body it lifts when the table "
                  f"acceleration exceeds g tan(alpha_column) = {math.tan(cfg.column_alpha):.4g} g (each block alone: "
                  f"{math.tan(cfg.alpha_rad):.4g} g). Block k counts as overturned at |theta_k| = 2 alpha of block k "
                  f"and those on it ({', '.join(f'{a:.4g}' for a in summary.get('overturn_angle', []))} rad, bottom "
                  f"first; the run stops there). Friction mu = {cfg.mu:g} on the table, {cfg.joint_mu:g} between "
                  f"blocks. Rotations are absolute (relative to the table).", ""]
    if not rigid.get("applies"):
        lines += [f"The rigid reference does not apply to this run: "
                  f"{rigid.get('reason') or 'mu is below the friction the rigid rocking needs'}"
                  f"{'' if rigid.get('max_friction_ratio') is None else ' (' + cell(rigid['max_friction_ratio'], 4) + ')'}.",
                  ""]
    lines += md_table(["quantity", "this code", "rigid block"], [])
    for key, label in (("uplift_onset", "uplift onset (one corner alone) [s]"),
                       ("uplift_time", f"uplift time (corner {UPLIFT:g} m up) [s]"),
                       ("overturned", "overturned"), ("overturn_time", "overturn time [s]"),
                       ("max_friction_ratio", "max |R_T|/R_N")):
        if key == "overturned":
            lines.append(md_row([label, _verdict(summary), _verdict(rigid)]))
            continue
        lines.append(md_row([label, cell(summary.get(key)), cell(rigid.get(key))]))
    mr = summary.get("max_rotation") or []
    for k, value in enumerate(mr, start=1):
        label = "max rotation [rad]" if len(mr) == 1 else f"max rotation of block {k} [rad]"
        lines.append(md_row([label, cell(value), cell(rigid.get('max_rotation'))]))
    for k, (when, gap) in enumerate(zip(summary.get("joint_uplift_time", [])[1:], summary.get("max_joint_gap", [])[1:]),
                                    start=1):
        lines.append(md_row([f"joint {k}: uplift time [s], largest corner gap [m]", f"{cell(when)}, {cell(gap)}",
                             "(closed)"]))
    lines.append(md_row([f"slid (a corner slipped > {SLID:g} m)", cell(summary.get('slid')), "(not modelled)"]))
    for who, verdict in (("This run", summary.get("overturn_verdict")),
                         ("The rigid block", rigid.get("overturn_verdict"))):
        if verdict:
            lines += ["", f"{who}: overturned **{verdict['verdict']}**: {verdict['reason']}."]
    lines += ["", "## Checks", ""]
    lines += md_table(["check", "this code", "reference", "tolerance", "within"],
                      [(c["quantity"], cell(c["value"]), cell(c["reference"]), cell(c["tolerance"]),
                        cell(c["within_tolerance"])) for c in summary.get("checks", [])])
    lines += ["", "## Impacts", ""] + _impacts(summary.get("impacts", []))
    if rigid.get("impacts"):
        lines += ["", "Rigid block:", ""] + _impacts(rigid["impacts"])
    e = summary.get("energy")
    if e:
        lines += ["", f"Energy: the table put in {e['table_work']:.4g} J (largest {e['max_table_work']:.4g} J); "
                      f"damping {e['damping_dissipated']:.4g} J, contact {e['contact_work']:.4g} J, friction "
                      f"{e['friction_work']:.4g} J, time scheme {e['numerical_dissipation']:.4g} J; the books close "
                      f"to {e['max_abs_error']:.3g} J ({100 * e['relative_error']:.3g} %)."]
    lines += ["", "Files: history.csv (table a, v, d; rotation; corner gaps, reactions, slips; energies), "
                  f"solution.{series_format()} and contact.{series_format()} (ParaView, displacements relative to the table), "
                  "rotation.png."]
    output_folder.write_text(out / "report.md", "\n".join(lines) + "\n")


def plot(out: Path, R: dict, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    thetas = sorted((k for k in R if k == "theta" or k.startswith("theta_")), key=lambda k: (len(k), k))
    for k, name in enumerate(thetas, start=1):
        ax1.plot(R["t"], R[name], label="FE" if len(thetas) == 1 else f"FE, block {k}")
    rigid = summary["rigid_body"]
    if rigid.get("curve_t"):
        ax1.plot(rigid["curve_t"], rigid["curve_theta"], "--",
                 label="rigid block" if len(thetas) == 1 else "rigid column")
    ax1.set_ylabel("rotation theta [rad]")
    ax1.legend()
    ax2.plot(R["t"], R["table_a"] / G)
    ax2.set_ylabel("table acceleration [g]")
    ax2.set_xlabel("t [s]")
    fig.tight_layout()
    output_folder.save_figure(fig, out / "rotation.png", dpi=110)
    plt.close(fig)


def print_summary(summary: dict) -> None:
    """The run on stdout: this code against the rigid block, the impacts and the checks."""
    run_ = summary["run"]
    rigid = summary["rigid_body"]
    print(f"shaking table ({summary['status']}): {run_['steps']} steps, {run_['newton_iterations']} Newton "
          f"iterations, {run_['wall_s']:.1f} s")
    mr = summary.get("max_rotation")
    print(f"{'':24s} {'this code':>12s} {'rigid block':>12s}")
    for key in ("uplift_onset", "uplift_time", "overturned", "overturn_time", "max_friction_ratio"):
        if key == "overturned":
            print(f"{key:24s} {_verdict(summary):>12s} {_verdict(rigid):>12s}")
            continue
        print(f"{key:24s} {cell(summary.get(key)):>12s} {cell(rigid.get(key)):>12s}")
    for k, value in enumerate(mr or [None], start=1):
        label = "max_rotation" if len(mr or [None]) == 1 else f"max_rotation block {k}"
        print(f"{label:24s} {cell(value):>12s} {cell(rigid.get('max_rotation')):>12s}")
    print(f"{'slid':24s} {cell(summary.get('slid')):>12s}")
    for imp in summary.get("impacts", []):
        print(f"impact at {imp['time']:.5f} s on {imp['corner']}: KE {imp['ke_before']:.4g} -> {imp['ke_after']:.4g} J")
    rows = summary.get("checks") or []
    if rows:
        print(f"{'check':32s} {'this code':>12s} {'reference':>12s} {'tol':>6s} {'ok':>3s}")
        for c in rows:
            ok = {True: "yes", False: "NO", None: "-"}[c.get("within_tolerance")]
            print(f"{c['quantity']:32s} {cell(c['value']):>12s} {cell(c['reference']):>12s} "
                  f"{cell(c.get('tolerance')):>6s} {ok:>3s}")
    if not (summary.get("rigid_body") or {}).get("applies"):
        print("the rigid block's reference does not apply (its friction demand exceeds mu): no verdict on the motion")
