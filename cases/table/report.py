"""The report of a shaking-table run (cases/shaking_table.py): report.md (:func:`write_report`), the figures
rotation.png and summary.png (:func:`plot`, :func:`summary_figure`) and the results on stdout
(:func:`print_summary`)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from cases.table.config import G, Config
from cases.table.summary import SLID, UPLIFT
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
                  "rotation.png, summary.png (the table, the rotations beside the rigid block, the friction ratio); "
                  "with --animate, animation.gif (or .mp4)."]
    output_folder.write_text(out / "report.md", "\n".join(lines) + "\n")


def _thetas(R: dict) -> list[str]:
    """The history's rotation columns, the bottom block's first."""
    return sorted((k for k in R if k == "theta" or (k.startswith("theta_") and k[6:].isdigit())),
                  key=lambda k: (len(k), k))


def summary_figure(R: dict, summary: dict):
    """One page [returns the Figure]: (1) the table's acceleration [g] against the rigid block's
    uplift acceleration g tan(alpha); (2) the rotation of each block [rad], FE beside the rigid block
    (the column of a stack), the impacts marked (FE: dotted lines; rigid: triangles); (3) the
    friction ratio |sum R_T| / sum R_N of the base (and of each joint of a stack) against mu and the
    rigid block's largest demand."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.asarray(R["t"], dtype=float)
    rigid = summary.get("rigid_body") or {}
    parameters = summary.get("parameters") or {}
    thetas = _thetas(R)
    fig, (ax_a, ax_theta, ax_mu) = plt.subplots(3, 1, sharex=True, figsize=(11, 9.5),
                                                gridspec_kw={"height_ratios": [1.0, 1.6, 1.0]})
    legend = dict(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    # (1) the table's motion
    ax_a.plot(t, np.asarray(R["table_a"], dtype=float) / G, color="tab:green", lw=1.0,
              label=f"table ({parameters.get('direction', 'horizontal')})")
    lift = summary.get("uplift_acceleration_g")
    if lift:
        for sign in (1, -1):
            ax_a.axhline(sign * lift, color="k", ls="--", lw=0.7,
                         label=f"\u00b1g tan(alpha) = \u00b1{lift:.3g} g: the rigid "
                               f"{'block' if len(thetas) <= 1 else 'column'} lifts" if sign == 1 else None)
    ax_a.set_ylabel("table acceleration [g]")
    ax_a.legend(**legend)
    # (2) the rotations and the impacts
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, name in enumerate(thetas, start=1):
        ax_theta.plot(t, R[name], lw=1.2, color=colours[(k - 1) % len(colours)],
                      label="FE" if len(thetas) == 1 else f"FE, block {k}")
    if rigid.get("curve_t"):
        ax_theta.plot(rigid["curve_t"], rigid["curve_theta"], "k--", lw=1.0,
                      label="rigid block" if len(thetas) <= 1 else "rigid column (joints shut)")
    impacts = summary.get("impacts") or []
    for n, imp in enumerate(impacts):
        ax_theta.axvline(imp["time"], color="grey", ls=":", lw=0.7, label="FE impacts" if n == 0 else None)
    rigid_impacts = rigid.get("impacts") or []
    if rigid_impacts:
        ax_theta.plot([i["time"] for i in rigid_impacts], [0.0] * len(rigid_impacts), "kv", ms=7, mfc="none",
                      label="rigid impacts")
    angles = summary.get("overturn_angle") or []
    angle_text = ", ".join(f"{a:.3g}" for a in angles)
    ax_theta.set_ylabel("rotation theta [rad]")
    ax_theta.set_title(f"counted as overturned at |theta| >= 2 alpha = {angle_text} rad"
                       f"{' (bottom block first)' if len(angles) > 1 else ''}; largest |theta| reached: "
                       + ", ".join(f"{abs(m):.3g}" for m in (summary.get("max_rotation") or [])) + " rad", fontsize=9)
    ax_theta.axhline(0.0, color="k", lw=0.4)
    ax_theta.legend(**legend)
    # (3) the friction the contact surfaces call on
    mu = parameters.get("mu")
    joints = sorted((k for k in R if k.startswith("friction_demand_j")), key=lambda k: (len(k), k))
    for k, name in enumerate(joints, start=1):
        ax_mu.plot(t, R[name], lw=0.7, color=colours[(k + 3) % len(colours)], label=f"FE, joint {k}")
    if "friction_demand" in R:
        ax_mu.plot(t, R["friction_demand"], lw=0.8, color="tab:blue", label="FE, base on the table")
    if mu is not None:
        ax_mu.axhline(mu, color="tab:red", lw=1.2, label=f"mu = {mu:g} (table)")
    mu_joint = parameters.get("mu_joint")
    if joints and mu_joint is not None and mu_joint != mu:
        ax_mu.axhline(mu_joint, color="tab:red", ls="-.", lw=1.0, label=f"mu = {mu_joint:g} (joints)")
    if rigid.get("max_friction_ratio") is not None:
        ax_mu.axhline(rigid["max_friction_ratio"], color="k", ls=":", lw=1.0,
                      label=f"rigid {'block' if len(thetas) <= 1 else 'column'}: largest demand "
                            f"{rigid['max_friction_ratio']:.3g}")
    for imp in impacts:
        ax_mu.axvline(imp["time"], color="grey", ls=":", lw=0.7)
    ax_mu.set_ylabel("friction ratio |R_T| / R_N")
    shown = [float(np.max(R[name])) for name in (*joints, "friction_demand") if name in R] + [mu or 0.0]
    ax_mu.set_ylim(0.0, max(1.15 * max(shown), 0.1))
    ax_mu.set_xlabel("t [s]")
    ax_mu.legend(**legend)
    for ax in (ax_a, ax_theta, ax_mu):
        ax.grid(True, lw=0.3, alpha=0.6)
    blocks = summary.get("blocks", 1)
    motion = parameters.get("excitation", "")
    if parameters.get("amplitude_g") is not None:
        motion += f" {parameters['amplitude_g']:g} g"
    if motion and parameters.get("excitation") != "record" and parameters.get("frequency_hz") is not None:
        motion += f" at {parameters['frequency_hz']:g} Hz"
    fig.suptitle(f"Shaking table: {blocks} block{'s' if blocks > 1 else ''}, {motion}, modeling "
                 f"{parameters.get('modeling', '')} (run {summary.get('status', '')}); overturned: "
                 f"{_verdict(summary)} (FE), {_verdict(rigid)} (rigid)", fontsize=11)
    fig.tight_layout()
    return fig


def plot(out: Path, R: dict, summary: dict) -> None:
    """rotation.png (the rotations and the table's acceleration) and summary.png (:func:`summary_figure`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    thetas = _thetas(R)
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
    fig = summary_figure(R, summary)
    output_folder.save_figure(fig, out / "summary.png", dpi=100)
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
    if "impact_count" in summary:
        print(f"impacts by the rule of every run (a lift beyond 1e-4 of the body's size): {summary['impact_count']}")
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
