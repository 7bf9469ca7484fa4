"""summary.png of a problem's run (``rockfem run``, ``simulate(..., out=...)``): one page from the last
dynamic stage's history: each free body's rotation against its overturning angle (its uplift and
overturning instants marked), each pair's largest gap and normal force (its impacts marked), and the
kinetic energy beside the energy books' error.

A picture that cannot be drawn is a note in summary.json (``notes``), never a failed run.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from fem.io import output_folder


#: a panel names its curves in a legend up to this many
LEGEND_MAX = 12


def draw_summary(path: Path, history: dict, bodies: dict, pairs: dict, impacts: list) -> None:
    """Write ``path`` (PNG) from ``history`` (column -> (n,) array, with ``t``), the outcome's ``bodies``
    and ``pairs`` (label -> their rows) and ``impacts``. Bodies with no verdict (held) are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.asarray(history["t"], dtype=float)
    fig, ((ax_rot, ax_gap), (ax_rn, ax_e)) = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    for label, b in bodies.items():
        if (b.get("overturn_verdict") or {}).get("verdict") == "none" or f"theta[{label}]" not in history:
            continue
        (line,) = ax_rot.plot(t, history[f"theta[{label}]"], lw=1, label=label)
        for sign in (1, -1):
            ax_rot.axhline(sign * b["limit"], color=line.get_color(), ls=":", lw=0.8)
        for key, mark in (("uplift_time", "^"), ("overturned_at", "x")):
            if b.get(key) is not None:
                ax_rot.plot([b[key]], [np.interp(b[key], t, history[f"theta[{label}]"])], mark,
                            color=line.get_color(), ms=7)
    ax_rot.set_ylabel("rotation [rad]")
    ax_rot.set_title("bodies: rotation (dotted: overturning angle; ^ uplift, x overturned)")
    for label in pairs:
        for ax, column, scale in ((ax_gap, f"max_gap[{label}]", 1e3), (ax_rn, f"rn[{label}]", 1e-3)):
            if column in history:
                ax.plot(t, np.asarray(history[column]) * scale, lw=1, label=label)
    hits = [i["time"] for i in impacts]
    for ax in (ax_gap, ax_rn):
        for hit in hits:
            ax.axvline(hit, color="0.75", lw=0.6, zorder=0)
    ax_gap.set_ylabel("largest gap [mm]")
    ax_gap.set_title(f"pairs: largest open gap ({len(hits)} impacts, grey)")
    forces = [np.abs(np.asarray(history[f"rn[{p}]"])) * 1e-3 for p in pairs if f"rn[{p}]" in history]
    if forces:  # linear within the static forces, logarithmic for the impacts' peaks
        ax_rn.set_yscale("symlog", linthresh=max(2.0 * float(np.median(np.concatenate(forces))), 1e-6))
    ax_rn.set_ylabel("normal force [kN] (symlog)")
    ax_rn.set_title("pairs: normal force")
    if "ke" in history:
        ax_e.plot(t, history["ke"], lw=1, label="kinetic energy")
    if "energy_balance_error" in history:
        error = np.asarray(history["energy_balance_error"]) - history["energy_balance_error"][0]
        ax_e.plot(t, error, lw=1, label="energy books error")
    ax_e.set_ylabel("energy [J]")
    ax_e.set_title("energy")
    for ax in (ax_rot, ax_gap, ax_rn, ax_e):
        ax.grid(alpha=0.3)
        lines = len(ax.get_legend_handles_labels()[0])
        if 0 < lines <= LEGEND_MAX:
            ax.legend(fontsize=8)
        elif lines > LEGEND_MAX:  # an assembly's hundreds of bodies: a legend would hide the panel
            ax.set_title(f"{ax.get_title()}\n{lines} curves, not named (more than {LEGEND_MAX})", fontsize=10)
    for ax in (ax_rn, ax_e):
        ax.set_xlabel("t [s]")
    fig.tight_layout()
    output_folder.save_figure(fig, path, dpi=110)
    plt.close(fig)
