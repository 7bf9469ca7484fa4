"""SDNV105 — the plots of a run (:func:`plot`) and its animation (:func:`animate`).

kinetic_energy.png (with the impacts and the rigid body's curve), uplift.png (DY of the corners O and
A), reactions.png (RN and RX at O and A on symmetric-log axes: linear up to about the static reaction,
logarithmic beyond, so the static level and every impact's peak show, each peak marked with its
value and time) and summary.png (the impacts on the uplifts, the kinetic energy beside the rigid
block and Code_Aster's peaks, the energy books), from the release's history. Each figure is built
by a function returning the Figure (:func:`reactions_figure`, :func:`summary_figure`), which
:func:`plot` saves.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from fem.io import animation, output_folder

#: the corners whose reactions the history holds
CORNERS = ("O", "A")
#: an impact's peak reaction is looked for from this long before its first closed step to this long after [s]
PEAK_WINDOW = (2e-3, 3e-3)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _impact_lines(ax, impacts: list[dict], label: bool = True) -> None:
    """Each impact a dotted vertical line, numbered with its corner at the top of ``ax``."""
    for k, imp in enumerate(impacts, start=1):
        ax.axvline(imp["time"], color="grey", lw=0.7, ls=":")
        if label:
            ax.annotate(f"{k}: {imp['corner']}", (imp["time"], 1.0), xycoords=("data", "axes fraction"),
                        xytext=(2, -2), textcoords="offset points", fontsize=8.5, color="0.3", va="top")


# ----------------------------------------------------------------------------------- reactions
def reaction_threshold(R: dict) -> float:
    """The linear range [N] of the reactions' symmetric-log axes: the 1-2-5 number at or above 1.25
    times the static reaction (the median of RN at O and A where loaded: the block's weight on its
    pivot corner), so the static level lies in the linear part; 1 N without a loaded sample."""
    rn = np.concatenate([np.asarray(R[f"rn_{c}"], dtype=float) for c in CORNERS if f"rn_{c}" in R] or [np.zeros(1)])
    loaded = rn[np.isfinite(rn) & (rn > 0)]
    return animation.nice_up(1.25 * float(np.median(loaded))) if loaded.size else 1.0


def reaction_limits(values: np.ndarray, threshold: float) -> tuple[float, float]:
    """Axis limits [N] of a symmetric-log axis of linear range ``threshold`` [N] holding every value:
    beyond the linear range a factor 3 of room (half a decade, for the peaks' labels), within it
    10 % of the range; the lower limit at most -10 % of it (the zero line shows)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    top = float(v.max()) if v.size else 0.0
    bottom = float(v.min()) if v.size else 0.0
    hi = 3.0 * top if top > threshold else 1.1 * threshold
    lo = 3.0 * bottom if bottom < -threshold else min(-0.1 * threshold, 1.1 * bottom)
    return lo, hi


def _symlog_ticks(lo: float, hi: float, threshold: float) -> list[float]:
    """0, the linear range in halves, then every decade beyond it (from 3 times the range), both
    signs, within [lo, hi]."""
    ticks = [0.0, 0.5 * threshold, threshold, -0.5 * threshold, -threshold]
    decade = 10.0 ** math.ceil(math.log10(threshold * (1 + 1e-9)))
    if decade < 3.0 * threshold:  # too near the linear range's end to be read apart
        decade *= 10.0
    while decade <= max(abs(lo), abs(hi)):
        ticks += [decade, -decade]
        decade *= 10.0
    return sorted(t for t in ticks if lo <= t <= hi)


def _peaks(t: np.ndarray, values: np.ndarray, impacts: list[dict], corner: str) -> list[tuple[float, float]]:
    """(time [s], value) of the largest |value| around each impact on ``corner`` (PEAK_WINDOW)."""
    found = []
    for imp in impacts:
        if imp["corner"] != corner:
            continue
        window = (t >= imp["time"] - PEAK_WINDOW[0]) & (t <= imp["time"] + PEAK_WINDOW[1])
        if np.any(window):
            k = np.flatnonzero(window)[np.argmax(np.abs(values[window]))]
            found.append((float(t[k]), float(values[k])))
    return found


def reactions_figure(R: dict, summary: dict):
    """RN and RX at O and A [kN] against time [s], on symmetric-log axes (:func:`reaction_threshold`,
    :func:`reaction_limits`): the static level in the linear part, every impact's peak on the
    logarithmic part, marked and labelled with its value and time."""
    plt = _pyplot()
    t = np.asarray(R["t"], dtype=float)
    impacts = summary.get("impacts") or []
    threshold = reaction_threshold(R)
    k = 1e-3  # N -> kN
    fig, axes = plt.subplots(2, 1, figsize=(11, 7.5), sharex=True)
    colours = {"O": "tab:blue", "A": "tab:orange"}
    rn = [np.asarray(R[f"rn_{c}"], dtype=float) for c in CORNERS]
    static = float(np.median(np.concatenate([v[v > 0] for v in rn]))) if any(np.any(v > 0) for v in rn) else None
    for ax, name, what in ((axes[0], "rn", "normal reaction RN [kN]"), (axes[1], "rx", "tangential reaction RX [kN]")):
        values = []
        for c in CORNERS:
            v = np.asarray(R[f"{name}_{c}"], dtype=float)
            values.append(v)
            ax.plot(t, k * v, lw=0.9, color=colours[c], label=f"{name.upper()}({c})")
            for tp, vp in _peaks(t, v, impacts, c):
                ax.plot(tp, k * vp, "o", ms=4, color=colours[c])
                ax.annotate(f"{k * vp:.4g} kN\nat {tp:.5f} s", (tp, k * vp), xytext=(6, 0),
                            textcoords="offset points", fontsize=7.5, color=colours[c], va="center")
        lo, hi = reaction_limits(np.concatenate(values), threshold)
        ax.set_yscale("symlog", linthresh=k * threshold, linscale=1.0)
        ax.set_ylim(k * lo, k * hi)
        ax.set_yticks([k * y for y in _symlog_ticks(lo, hi, threshold)])
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda y, _: f"{y:g}"))
        ax.yaxis.set_minor_locator(plt.NullLocator())
        ax.axhspan(-k * threshold, k * threshold, color="0.93", zorder=0)
        ax.grid(True, which="major", lw=0.3, alpha=0.6)
        ax.set_ylabel(what)
        _impact_lines(ax, impacts, label=False)
    if static is not None:
        axes[0].axhline(k * static, color="k", lw=0.7, ls="--",
                        label=f"static: {k * static:.3g} kN (median of RN where loaded)")
    for ax in axes:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    axes[1].set_xlabel("t [s]")
    fig.suptitle(f"SDNV105 {summary.get('modeling', '')}: contact reactions at the corners O and A\n"
                 f"axes linear within \u00b1{k * threshold:g} kN (shaded), logarithmic beyond; each impact's peak "
                 f"marked with its value and time (impacts dotted)", fontsize=10)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------------- summary
def _code_aster_peaks(checks: list[dict]) -> tuple[list, list]:
    """Code_Aster's kinetic-energy peaks from the checks: [(t [s], KE [J])] where a window has both
    "KE max" and "t(KE max)" rows with Code_Aster values, and [t [s]] where it has the instant alone."""
    ke = {c["window"]: c.get("code_aster") for c in checks if c.get("quantity") == "KE max"}
    when = {c["window"]: c.get("code_aster") for c in checks if c.get("quantity") == "t(KE max)"}
    pairs = [(when[w], ke[w]) for w in when if w in ke and when[w] is not None and ke[w] is not None]
    alone = [when[w] for w in when if when[w] is not None and ke.get(w) is None]
    return pairs, alone


def _energy_books(ax, R: dict, energy: dict | None) -> None:
    """The energy books from the release on [J]: the potential energy released, where it went
    (kinetic, strain, damping, contact, friction, time scheme) and their sum."""
    t = np.asarray(R["t"], dtype=float)
    start = lambda name: np.asarray(R[name], dtype=float) - float(R[name][0])  # noqa: E731
    released = -start("gravity_potential")
    ax.plot(t, released, color="k", lw=2.0, label="potential energy released V(0) - V(t)")
    books = [("ke", "kinetic", "tab:blue"), ("strain_energy", "strain", "tab:purple"),
             ("damping_dissipation", "damping (Rayleigh)", "tab:green"),
             ("contact_work", "contact (taken; < 0: given back)", "tab:red"),
             ("friction_work", "friction", "tab:brown"), ("numerical_dissipation", "time scheme", "tab:gray")]
    total = np.zeros_like(t)
    for name, label, colour in books:
        if name in R:
            v = start(name)
            total += v
            ax.plot(t, v, lw=1.0, color=colour, label=label)
    if "reaction_work" in R:
        total -= start("reaction_work")
    error = "" if not energy else f" (they close to {energy['max_abs_error']:.2g} J)"
    ax.plot(t, total, color="gold", lw=1.0, ls="--", label=f"sum of the books{error}")
    ax.axhline(0.0, color="k", lw=0.4)
    ax.set_ylabel("energy since the release [J]")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)


def summary_figure(R: dict, summary: dict):
    """One page: (1) the corners' uplifts [mm] with the impacts numbered, (2) the block's kinetic
    energy [J] beside the rigid block's and Code_Aster's peaks, (3) the energy books [J]."""
    plt = _pyplot()
    t = np.asarray(R["t"], dtype=float)
    impacts = summary.get("impacts") or []
    fig, axes = plt.subplots(3, 1, figsize=(11, 10), sharex=True)
    ax = axes[0]
    for c in CORNERS:
        ax.plot(t, 1e3 * np.asarray(R[f"dy_{c}"], dtype=float), lw=1.0, label=f"DY({c})")
    _impact_lines(ax, impacts)
    ax.set_ylabel("corner uplift [mm]")
    ax.set_title(f"SDNV105 {summary.get('modeling', '')} ({summary.get('configuration', '')}): "
                 f"{len(impacts)} impact{'' if len(impacts) == 1 else 's'} (dotted, numbered with the corner that lands)", fontsize=10)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    ax = axes[1]
    ax.plot(t, R["ke"], lw=1.2, label="this code (FE block)")
    rigid = summary.get("rigid_body") or {}
    if rigid.get("curve_t") is not None:
        ax.plot(rigid["curve_t"], rigid["curve_ke"], "k--", lw=0.9, label="rigid block")
    pairs, alone = _code_aster_peaks(summary.get("checks") or [])
    if pairs:
        ax.plot(*zip(*pairs), "rx", ms=8, mew=1.8, label="Code_Aster's peaks (KE max, at t(KE max))")
    if alone:
        ax.plot(alone, np.interp(alone, t, R["ke"]), "rd", mfc="none", ms=7,
                label="Code_Aster's instants of KE max (on this code's curve)")
    _impact_lines(ax, impacts, label=False)
    ax.set_ylabel("kinetic energy [J]")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    _energy_books(axes[2], R, summary.get("energy"))
    _impact_lines(axes[2], impacts, label=False)
    axes[2].set_xlabel("t [s] (from the release)")
    for ax in axes:
        ax.grid(True, lw=0.3, alpha=0.6)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------------- the files
def _save(fig, path: Path, dpi: int = 120) -> None:
    output_folder.save_figure(fig, path, dpi=dpi)
    _pyplot().close(fig)


def plot(out: Path, R: dict, summary: dict) -> None:
    """kinetic_energy.png, uplift.png, reactions.png and summary.png in ``out``."""
    plt = _pyplot()
    t = R["t"]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(t, R["ke"], label="block kinetic energy")
    for imp in summary["impacts"]:
        ax.axvline(imp["time"], color="grey", lw=0.6, ls=":")
    rigid = summary.get("rigid_body")
    if rigid and rigid.get("curve_t") is not None:
        ax.plot(rigid["curve_t"], rigid["curve_ke"], "k--", lw=0.8, label="rigid body")
    ax.set(xlabel="t [s]", ylabel="kinetic energy [J]", title="SDNV105: kinetic energy, impacts dotted")
    ax.legend()
    fig.tight_layout()
    _save(fig, out / "kinetic_energy.png")
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(t, 1e3 * R["dy_O"], label="DY(O)")
    ax.plot(t, 1e3 * R["dy_A"], label="DY(A)")
    ax.set(xlabel="t [s]", ylabel="uplift [mm]", title="corner uplifts")
    ax.legend()
    fig.tight_layout()
    _save(fig, out / "uplift.png")
    _save(reactions_figure(R, summary), out / "reactions.png")
    _save(summary_figure(R, summary), out / "summary.png", dpi=100)


def animate(out: Path, summary: dict, fmt: str = "gif") -> str | None:
    """OUT/animation.<fmt> of the release (fem.io.animation.animate_or_note: the deformed mesh and the
    contact forces from the run's series, at most 150 frames, the impacts' steps always in). An
    animation that fails (ffmpeg exiting with an error, a run that wrote no series step) gets one
    warning line on stderr; returns why (the run's ``animation_error``), or None when it was written."""
    impacts = [(imp["time"], imp["corner"]) for imp in summary.get("impacts") or []]
    if summary.get("modeling") == "b":  # no table: shock springs at O, A, O1 on a rigid floor y = 0
        _, why = animation.animate_or_note(out, fmt, impacts, title="SDNV105 b", floor=0.0,
                                           note="the release: the block rocks on its shock springs (rigid floor)")
    else:
        _, why = animation.animate_or_note(out, fmt, impacts, title=f"SDNV105 {summary.get('modeling', '')}",
                                           note="the release: the block rocks on the table")
    return why
