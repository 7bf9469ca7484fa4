"""The report of a convergence study (cases/convergence.py): its tables in Markdown
(:func:`study_table`, :func:`energy_table`, :func:`report`: ``convergence.md``) and its figures
(:func:`plot`: ``convergence.png``, ``convergence_mesh.png``)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from fem.io import output_folder
from fem.io.markdown import md_row, md_table
from cases.studies.convergence_levels import Level, Plan
from fem.studies.convergence import QUANTITIES, as_array


def _num(x, digits=6) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


def _signed(x, digits=3) -> str:
    return "–" if x is None or not np.isfinite(x) else f"{x:+.{digits}e}"


def _created(v) -> str:
    return "–" if v is None else "**yes**" if v else "no"


def _yes(v) -> str:
    return "–" if v is None else "yes" if v else "**no**"


def study_table(study: dict, levels: list[Level], rigid: dict | None) -> list[str]:
    n = len(study["impacts"])
    head = ["level", "dt [s]", "mesh", "status"] + [c for k in range(n) for c in (f"t{k + 1} [s]", f"KE{k + 1} [J]")]
    lines = md_table(head, [])

    def row(label, cells, dt="", mesh="", status=""):
        lines.append(md_row([label, dt, mesh, status, *cells]))

    for j, lv in enumerate(levels):
        cells = []
        for r in study["impacts"]:
            cells += [_num(r["instant"]["values"][j], 7), _num(r["ke_before"]["values"][j], 6)]
        row(lv.name, cells, f"{lv.dt:g}", lv.mesh,
            lv.status + ("" if lv.exit_code in (0, None) else f" (exit {lv.exit_code})") + (", reused" if lv.reused else ""))
    for j in range(len(levels) - 1):
        row(f"d = {levels[j + 1].name} − {levels[j].name}",
            [_signed(r[q]["differences"][j]) for r in study["impacts"] for q in QUANTITIES])
    for j in range(len(levels) - 2):
        row(f"ratio abs(d{j + 2})/abs(d{j + 1})", [_num(r[q]["ratios"][j], 3) for r in study["impacts"] for q in QUANTITIES])
        row(f"observed order ({levels[j].name}…{levels[j + 2].name})",
            [_num(r[q]["orders"][j], 3) for r in study["impacts"] for q in QUANTITIES])
        row("Richardson estimate", [_num(r[q]["richardson"][j], 7) for r in study["impacts"] for q in QUANTITIES])
    row("converged (0.6 / 0.3 ms / 2 %)", [_yes(r[q]["criterion"]["converged"]) for r in study["impacts"]
                                            for q in QUANTITIES])
    if rigid:
        cells = []
        for k in range(n):
            t = rigid["impact_times"][k] if k < len(rigid["impact_times"]) else None
            e = rigid["ke_before"][k] if k < len(rigid["ke_before"]) else None
            cells += [_num(t, 7), _num(e, 6)]
        row("rigid block", cells)
    return lines


def energy_table(study: dict, levels: list[Level]) -> list[str]:
    rows = []
    for lv in levels:
        s = lv.summary or {}
        e, run = s.get("energy") or {}, s.get("run") or {}
        made = study["energy_created"][lv.name]
        rows.append((lv.name, _num(run.get("steps")), _num(run.get("wall_s"), 3), _num(lv.ke_max),
                     _num(e.get("potential_drop")), _num(e.get("damping_dissipated"), 4), _num(e.get("contact_work"), 4),
                     _num(e.get("numerical_dissipation"), 4), _num(e.get("relative_error"), 3),
                     _created(made["created"]) + (" (" + "; ".join(made["reasons"]) + ")" if made["created"] else "")))
    return md_table(["level", "steps", "wall [s]", "KE max [J]", "potential drop [J]", "damping [J]", "contact work [J]",
                     "time scheme [J]", "books error / drop", "creates energy"], rows)


def report(summary: dict, plan: Plan, time_study: dict | None, mesh_study: dict | None) -> str:
    title = f"# Convergence study of {plan.case}" + (" (time step and mesh)" if plan.meshes else " (time step)")
    lines = [title, "", f"Status: **{summary['status']}**" + (f" ({summary['message']})" if summary.get("message") else ""),
             f"Configuration of the time levels: {plan.configuration}"
             + (f" ({', '.join(plan.departures)})" if plan.departures else "") + f"; end time {plan.t_end:g} s.", ""]
    blocks = []
    if time_study:
        blocks.append(("Time step", time_study, plan.levels))
    if mesh_study:
        blocks.append((f"Mesh, at dt = {plan.levels[-1].dt:g} s", mesh_study, plan.mesh_levels))
    for name, study, levels in blocks:
        lines += [f"## {name}", "", f"**Verdict: {study['verdict']}.**", ""]
        lines += study_table(study, levels, summary.get("rigid_body"))
        same = study["same_impacts"]
        lines += ["", "Same impacts: " + ("yes" if same["same"] else "**no**") + " (impacts found: "
                  + ", ".join(f"{lab} {c} {cor or '-'}" for lab, c, cor in zip(study["levels"], same["counts"],
                                                                               same["corners"])) + ")"]
        lines += [f"* {d}" for d in same["differences"]]
        lines += ["", *energy_table(study, levels), ""]
    lines += ["Criterion, per impact and quantity, on the three finest levels: |d_last| <= 0.6 |d_prev|, or both "
              "below 0.3 ms (instant) / 2 % of the finest value (KE before). Observed order p = log(|d_j|/|d_j+1|) / "
              "log(h_j/h_j+1); the Richardson value is an estimate assuming P = P* + C h^p. Instants are read at the "
              "step where a corner closes: within one step of the event.", "",
              "## Commands", "", "```", summary["command"]]
    lines += [lv.command for lv in plan.levels + [m for m in plan.mesh_levels if m.same_as is None]]
    lines += ["```", ""]
    return "\n".join(lines)


def plot(path: Path, study: dict, levels: list[Level], rigid: dict | None, xlabel: str) -> None:
    """Top: each impact's instant and kinetic energy before it at every level (dotted: the rigid
    block), one panel each; bottom: |d_j| against the step (mesh: the mesh) of level j+1, log-log,
    every impact, with a slope-1 line for the time study."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.gridspec import GridSpec
    from matplotlib.ticker import NullFormatter

    time_study = study["kind"] == "time"
    x = np.array([lv.dt for lv in levels], dtype=float) if time_study else np.arange(len(levels), dtype=float)
    labels = [f"{lv.dt:g}" for lv in levels] if time_study else [lv.mesh for lv in levels]
    n = len(study["impacts"])
    fig = plt.figure(figsize=(max(9.0, 2.4 * n), 9.0))
    grid = GridSpec(3, 2 * n, figure=fig, height_ratios=(1, 1, 1.4))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]

    def axis_of_levels(ax, first=0):
        if time_study:
            ax.set_xscale("log")
        ax.set_xticks(x[first:])
        ax.set_xticklabels(labels[first:], fontsize=7, rotation=30 if not time_study else 0)
        ax.xaxis.set_minor_formatter(NullFormatter())

    for row, (q, (_, short, unit)) in enumerate(QUANTITIES.items()):
        bottom = fig.add_subplot(grid[2, row * n:(row + 1) * n])
        points = []
        for r in study["impacts"]:
            k = r["impact"]
            colour = colours[(k - 1) % len(colours)]
            ax = fig.add_subplot(grid[row, 2 * (k - 1):2 * k])
            values = as_array(r[q]["values"])
            ax.plot(x, values, "o-", color=colour)
            refs = (rigid or {}).get("impact_times" if q == "instant" else "ke_before") or []
            title = f"{short}{k} [{unit}]"
            if k - 1 < len(refs):
                title += f", rigid {refs[k - 1]:.5g}"
                finite_values = values[np.isfinite(values)]
                lo, hi = (finite_values.min(), finite_values.max()) if finite_values.size else (refs[k - 1],) * 2
                span = max(hi - lo, 1e-3 * abs(refs[k - 1]))
                if lo - 3 * span <= refs[k - 1] <= hi + 3 * span:  # far off: in the title only
                    ax.axhline(refs[k - 1], color="k", lw=0.7, ls=":")
            ax.set_title(title, fontsize=8)
            ax.tick_params(labelsize=7)
            ax.yaxis.get_offset_text().set_fontsize(7)
            axis_of_levels(ax)
            d = np.abs(as_array(r[q]["differences"]))
            ok = np.isfinite(d) & (d > 0)
            if ok.any():
                bottom.plot(x[1:][ok], d[ok], "o-", color=colour, label=f"impact {k}")
                points += list(zip(x[1:][ok], d[ok]))
        bottom.set(title=f"|{short}(level j+1) − {short}(level j)| [{unit}]", xlabel=f"{xlabel} of level j+1")
        if points:
            bottom.set_yscale("log")
            if time_study and len(x) > 2:
                right = max(p[0] for p in points)
                anchor = math.exp(np.mean([math.log(p[1]) for p in points if p[0] == right]))
                xs = x[1:]
                bottom.plot(xs, anchor * xs / right, "k--", lw=0.7, label="slope 1")
            bottom.legend(fontsize=7)
        else:
            bottom.text(0.5, 0.5, "no non-zero difference", ha="center", va="center", transform=bottom.transAxes)
        axis_of_levels(bottom, first=1)
    fig.suptitle(f"{levels[0].case}: {'time step' if time_study else 'mesh'} study "
                 f"({', '.join(lv.name for lv in levels)}); dotted: rigid block", fontsize=10)
    fig.tight_layout()
    output_folder.save_figure(fig, path, dpi=110)
    plt.close(fig)
