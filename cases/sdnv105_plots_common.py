"""SDNV105 — the plots of a run (:func:`plot`).

kinetic_energy.png (with the impacts and the rigid body's curve), uplift.png (DY of the corners O and
A) and reactions.png (RN and RX at O and A), from the release's history.
"""
from __future__ import annotations

from pathlib import Path

from fem.io import output_folder


def plot(out: Path, R: dict, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    output_folder.save_figure(fig, out / "kinetic_energy.png", dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(t, 1e3 * R["dy_O"], label="DY(O)")
    ax.plot(t, 1e3 * R["dy_A"], label="DY(A)")
    ax.set(xlabel="t [s]", ylabel="uplift [mm]", title="corner uplifts")
    ax.legend()
    fig.tight_layout()
    output_folder.save_figure(fig, out / "uplift.png", dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for c in ("O", "A"):
        ax[0].plot(t, R[f"rn_{c}"], label=f"RN({c})")
        ax[1].plot(t, R[f"rx_{c}"], label=f"RX({c})")
    ax[0].set(ylabel="normal reaction [N]", ylim=(-100, 5000))
    ax[1].set(xlabel="t [s]", ylabel="tangential reaction [N]", ylim=(-2000, 2000))
    ax[0].legend()
    ax[1].legend()
    fig.tight_layout()
    output_folder.save_figure(fig, out / "reactions.png", dpi=120)
    plt.close(fig)
