"""The figure of an overturning spectrum (cases/overturning_spectrum.py): :func:`plot`, ``spectrum.png``,
the map of the modes over (omega_p / p, a_p / (g tan alpha)), the rigid block's and the FE runs' side by
side, the rigid boundaries drawn on both."""
from __future__ import annotations

from pathlib import Path

from contact.references import overturning as ov
from fem.io import output_folder


BOUNDARY_STYLES = {(ov.SURVIVE, ov.OVERTURN_AFTER_IMPACTS): "-", (ov.OVERTURN_AFTER_IMPACTS, ov.SURVIVE): "--",
                   (ov.SURVIVE, ov.OVERTURN_WITHOUT_IMPACT): "-."}
MARKERS = {ov.SURVIVE: ("o", "tab:green"), ov.OVERTURN_AFTER_IMPACTS: ("^", "tab:orange"),
           ov.OVERTURN_WITHOUT_IMPACT: ("s", "tab:red")}


def plot(path: Path, cfg, rows: list[dict], curves: dict, fe: bool, *, frequencies, limits) -> None:
    """``cfg``: the study's Config (cases/overturning_spectrum.py); ``rows``: spectrum.csv's rows; ``curves``:
    the rigid boundaries' amplitude ratios at ``frequencies`` (contact.references.overturning.curves);
    ``limits``: the map's ((x0, x1), (y0, y1)); ``fe``: the FE panel too."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("rigid block (contact.references.overturning)", "rigid_mode")] + ([("FE (cases/shaking_table.py)", "fe_mode")]
                                                                     if fe else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 6.4), sharey=True, squeeze=False)
    (x0, x1), (y0, y1) = limits
    for ax, (title, key) in zip(axes[0], panels):
        labelled = set()
        for (below, above, _), ys in sorted(curves.items()):
            style = BOUNDARY_STYLES.get((below, above), ":")
            label = None if (below, above) in labelled else f"rigid: {below} | {above}"
            labelled.add((below, above))
            ax.plot(frequencies, ys, "k", ls=style, lw=1.0, label=label)
        ax.axhline(1.0, color="0.6", lw=0.8, ls=":")
        for mode, (marker, color) in MARKERS.items():
            pts = [r for r in rows if r[key] == mode]
            full = [r for r in pts if r["compared"]]
            hollow = [r for r in pts if not r["compared"]]
            _scatter(ax, full, marker=marker, color=color, s=60, label=mode, zorder=3)
            _scatter(ax, hollow, marker=marker, facecolors="none", edgecolors=color, s=60, zorder=3,
                     label=None if full else mode)
        if key == "fe_mode":
            _scatter(ax, [r for r in rows if r["fe_mode"] is None], marker="x", color="k", s=50,
                     label="FE run not complete", zorder=3)
            _scatter(ax, [r for r in rows if r["agree"] is False], marker="o", facecolors="none", edgecolors="k",
                     s=220, lw=1.5, label="differs from the rigid block", zorder=2)
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.set_title(title)
        ax.set_xlabel(r"$\omega_p / p$")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    axes[0][0].set_ylabel(r"$a_p / (g \tan\alpha)$")
    fig.suptitle(f"one-sine pulse, block {cfg.width:g} x {cfg.height:g} m, mu = {cfg.mu:g}\n(hollow: the rigid "
                 f"block needs more friction than mu)", fontsize=10)
    fig.tight_layout()
    output_folder.save_figure(fig, path, dpi=110)
    plt.close(fig)


def _scatter(ax, rows: list[dict], **style) -> None:
    """Grid points (frequency ratio, amplitude ratio) of ``rows`` (nothing, and no legend entry, if none)."""
    if rows:
        ax.scatter([r["frequency_ratio"] for r in rows], [r["amplitude_ratio"] for r in rows], **style)
