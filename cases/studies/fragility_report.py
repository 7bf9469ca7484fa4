"""The report of a fragility study (cases/fragility.py): its figure (:func:`plot`: ``fragility.png``, a panel a
measure, each model's fitted curve and observed fractions) and its tables in Markdown (:func:`fit_lines`,
:func:`stripe_lines`, :func:`write_report`: ``report.md``).

``cfg``, ``block`` and the grid points are cases/fragility.py's Config, Block and GridPoint; ``fitted``
its fits, {measure: {model: fit}}, in the study's order of measures and models (cases/fragility.fits):
the measures and the models drawn and tabled are those of ``fitted``."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from fem.studies import fragility as fit
from fem.io import output_folder
from fem.io.markdown import md_table


STYLES = {"fe": dict(color="tab:blue", marker="o", ls="-", label="FE (cases/shaking_table.py)"),
          "rigid": dict(color="tab:orange", marker="s", ls="--", label="rigid block")}


def measure_title(cfg, measure: str) -> str:
    return {"overturning": "overturning", "uplift": "uplift (a base corner 1e-6 m up)",
            "rotation": f"peak rotation > {cfg.rotation_threshold:g} rad"}[measure]


def plot(path: Path, cfg, block, fitted: dict) -> None:
    """One panel a measure: each model's fitted curve (none when undetermined: the legend says why, a
    separated fit's bracket of theta shaded) and its observed fractions per PGA (marker area ~ analyses)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    measures = list(fitted)
    lo, hi = min(cfg.scales), max(cfg.scales)
    xs = np.geomspace(lo / 1.25, hi * 1.25, 400)
    fig, axes = plt.subplots(1, len(measures), figsize=(5.2 * len(measures), 5.0), sharey=True)
    for ax, measure in zip(axes, measures):
        for model, f in fitted[measure].items():
            style = STYLES[model]
            levels, n, z = (np.asarray(f[k], dtype=float) for k in ("stripes_pga", "stripes_n", "stripes_z"))
            if levels.size:
                ax.scatter(levels, z / n, s=12 + 6 * n, marker=style["marker"], zorder=3,
                           facecolors=style["color"] if model == "fe" else "none", edgecolors=style["color"])
            if f["status"] == fit.FITTED:
                ax.plot(xs, fit.lognormal_cdf(xs, f["theta"], f["beta"]), color=style["color"], ls=style["ls"],
                        label=f"{style['label']}: theta = {f['theta']:.3g} g, beta = {f['beta']:.2f}")
            else:
                ax.plot([], [], color=style["color"], ls=style["ls"],
                        label=f"{style['label']}: not fitted ({f['status']})")
                bracket = f.get("theta_bracket")
                if f["status"] == fit.SEPARATED and bracket:
                    ax.axvspan(bracket[0], bracket[1] if bracket[1] > bracket[0] else bracket[0] * 1.01,
                               color=style["color"], alpha=0.12, label=f"{model}: theta in [{bracket[0]:g}, "
                                                                       f"{bracket[1]:g}] g, beta -> 0")
        ax.axvline(block.tan_alpha, color="0.5", lw=0.8, ls=":", label=f"g tan alpha = {block.tan_alpha:.3g} g")
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator(list(cfg.scales)))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([f"{v:g}" for v in cfg.scales], fontsize=8)
        ax.set_xlim(xs[0], xs[-1])
        ax.set_ylim(-0.04, 1.04)
        ax.set_title(measure_title(cfg, measure), fontsize=10)
        ax.set_xlabel("PGA [g]")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)
    axes[0].set_ylabel("P(exceed | PGA)")
    fig.suptitle(f"fragility, block {block.width:g} x {block.height:g} m, {len(cfg.records)} records x "
                 f"{len(cfg.scales)} PGAs (points: observed fractions, area ~ analyses; lines: lognormal MLE)",
                 fontsize=10)
    fig.tight_layout()
    output_folder.save_figure(fig, path, dpi=110)
    plt.close(fig)


def _count(f: dict) -> str:
    return f"{f['exceedances']} of {f['trials']}" + (f" ({f['left_out']} undecided or not run)" if f["left_out"] else "")


def fit_lines(cfg, fitted: dict) -> list[str]:
    """The fits as a table (theta [g], beta, their standard errors), an undetermined one's reason below it."""
    rows, notes = [], []
    for measure in fitted:
        for model, f in fitted[measure].items():
            if f["status"] == fit.FITTED:
                rows.append((measure_title(cfg, measure), model, f"{f['theta']:.4g}", f"{f['beta']:.3g}",
                             f"{f['se_ln_theta']:.2g}", f"{f['se_beta']:.2g}", _count(f), "fitted"))
            else:
                rows.append((measure_title(cfg, measure), model, "–", "–", "–", "–", _count(f), f"**{f['status']}**"))
                notes.append(f"* {measure}, {model}: {f['message']}.")
    lines = md_table(["measure", "model", "theta [g]", "beta", "se(ln theta)", "se(beta)", "exceeded of decided", "fit"],
                     rows)
    return lines + ([""] + notes if notes else [])


def stripe_lines(cfg, rows: list[dict], fitted: dict) -> list[str]:
    """Per PGA, the exceedances of each measure FE / rigid as k/n (n: the decided analyses); the
    measures and the models those of ``fitted``."""
    measures = list(fitted)
    models = list(fitted[measures[0]])
    stripes = []
    for pga in cfg.scales:
        at = [r for r in rows if r["pga_g"] == pga]
        cells = [f"{pga:g}"]
        for measure in measures:
            for m in models:
                decided = [r[f"{m}_{measure}"] for r in at if r[f"{m}_{measure}"] is not None]
                cells.append(f"{sum(decided)}/{len(decided)}")
        stripes.append(cells)
    return md_table(["PGA [g]", *(f"{measure} {m}" for measure in measures for m in models)], stripes)


def write_report(out: Path, cfg, block, summary: dict, rows: list[dict], fitted: dict, grid_points: list) -> None:
    r = summary
    records = {}
    for g in grid_points:
        records.setdefault(g.tag, (g.record, g.t_end))
    lines = [f"# Fragility — {len(cfg.records)} records x {len(cfg.scales)} PGAs, block {block.width:g} x "
             f"{block.height:g} m", "",
             f"Command: `{r['command']}` (rockfem {r['version']}). Status: **{r['status']}**. Models: {cfg.model}. "
             f"Wall time {r['wall_s']:.0f} s" + (f" (the FE sweep {r['fe_wall_s']:.0f} s on {r['fe']['where']})"
                                                  if r.get("fe") else "") + ".", "",
             f"Uplift acceleration g tan alpha = {block.tan_alpha:.4g} g, overturn angle 2 alpha = "
             f"{block.overturn_angle:.4g} rad; rotation threshold {cfg.rotation_threshold:g} rad. Each record is "
             f"scaled to the PGA (its peak after the baseline correction) and run to its end + 1 s. Rigid: "
             f"contact.references.rocking_base through cases/table/summary.rigid_reference "
             f"(no sliding); FE: cases/shaking_table.py" + (f" with `{' '.join(cfg.fixed)}`" if cfg.fixed else "")
             + ".", ""]
    lines += md_table(["record", "file", "run to [s]"], [(tag, path, f"{t_end:g}") for tag, (path, t_end) in records.items()])
    lines += ["", "## Fragility fits", "", "P(PGA) = Phi(ln(PGA / theta) / beta), maximum likelihood on the "
              "binomial outcomes of the stripes (Baker 2015, multiple stripes); standard errors from the Fisher "
              "information. Undecided analyses (the verdict of a run that could not tell) and FE runs not complete "
              "are left out.", ""]
    lines += fit_lines(cfg, fitted)
    if any(f["status"] == fit.SEPARATED for f in fitted["uplift"].values()):
        lines += ["", f"Uplift: the rigid block lifts exactly when the PGA exceeds g tan alpha = {block.tan_alpha:.4g} g, "
                      "whatever the record (and the FE block, nearly rigid, with it): its fragility is a step there, "
                      "beta = 0, and the fit can only bracket theta between the stripes around it."]
    lines += ["", "## Stripes (exceeded / decided)", ""] + stripe_lines(cfg, rows, fitted)
    lines += ["", "## Checks", ""]
    lines += md_table(["check", "value", "reference", "passed"],
                      [(c["quantity"], c["value"], c["reference"], {True: "yes", False: "no", None: "shown"}[c["passed"]])
                       for c in r["checks"]])
    lines += ["", "Files: points.csv (a row a record x PGA), fragility.png" + (", fe/results.csv and fe/points/ (each "
                                                                             "FE run's folder)" if cfg.fe else "") + "."]
    output_folder.write_text(out / "report.md", "\n".join(lines) + "\n")
