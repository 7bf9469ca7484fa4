"""The pictures of a run: the reactions figure shows every impact's peak, the summary figures hold their
panels, the animation of a series (fem/io/animation.py) is written whole, noted and with its frames.

The figures are built from small made-up histories (their functions return the Figure, read back
here); the animation from a series of a few quads written by fem.io.results' writers, in both formats.
The case scripts' --animate runs are in the flag tables of tests/test_contract.py and
tests/test_shaking_table_contract.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from cases.sdnv105 import plots as sdnv105_plots
from cases.table import report as table_report
from fem.io import animation, output_folder, results
from fem.mesh.mesh import CellBlock, Mesh
from fem.ranges import BadInput
from helpers import stand_in_ffmpeg

G = 9.81


# ----------------------------------------------------------------------------------- SDNV105 figures
def _sdnv105_history() -> tuple[dict, dict]:
    """A release of 0.2 s: the block on O (RN 3.6 kN, RX 1.2 kN), an impact on A at 0.05 s (RN 3.9 MN,
    RX -1.06 MN, one sample), then on A; an impact on O at 0.15 s (RN 1.5 MN, RX 0.41 MN)."""
    t = np.round(np.arange(0.0, 0.2 + 1e-12, 1e-4), 10)
    on_o = t < 0.05
    rn_o = np.where(on_o | (t >= 0.15), 3600.0, 0.0)
    rn_a = np.where(~on_o & (t < 0.15), 3580.0, 0.0)
    rx_o = np.where(rn_o > 0, 1200.0, 0.0)
    rx_a = np.where(rn_a > 0, -1150.0, 0.0)
    hit_a, hit_o = np.flatnonzero(t >= 0.05)[0], np.flatnonzero(t >= 0.15)[0]
    rn_a[hit_a], rx_a[hit_a] = 3.938e6, -1.058e6
    rn_o[hit_o], rx_o[hit_o] = 1.545e6, 4.148e5
    ke = 7.3 * np.sin(np.pi * t / 0.1) ** 2
    R = {"t": t, "rn_O": rn_o, "rn_A": rn_a, "rx_O": rx_o, "rx_A": rx_a, "ke": ke,
         "dy_O": np.where(on_o, 0.0, 2e-3 * np.sin(np.pi * (t - 0.05) / 0.1).clip(0)),
         "dy_A": np.where(on_o, 3.6e-3, 0.0),
         "strain_energy": np.full(t.size, 1e-4), "gravity_potential": 7.3 - ke, "damping_dissipation": 0.1 * t,
         "contact_work": np.zeros(t.size), "friction_work": np.zeros(t.size), "term_work": np.zeros(t.size),
         "numerical_dissipation": 0.05 * t, "reaction_work": np.zeros(t.size)}
    summary = {"modeling": "a", "configuration": "benchmark",
               "impacts": [{"time": 0.05, "corner": "A"}, {"time": 0.15, "corner": "O"}],
               "rigid_body": {"curve_t": list(t[::10]), "curve_ke": list(ke[::10])},
               "energy": {"max_abs_error": 1.8e-5},
               "checks": [{"quantity": "KE max", "window": "all", "code_aster": 7.29},
                          {"quantity": "t(KE max)", "window": "all", "code_aster": 0.0544},
                          {"quantity": "t(KE max)", "window": "t > 0.15", "code_aster": 0.16},
                          {"quantity": "RN(O) max", "window": "0.01-0.05", "code_aster": 3599.5}]}
    return R, summary


def test_the_reactions_axes_hold_every_peak_and_the_static_level_in_their_linear_part():
    R, summary = _sdnv105_history()
    fig = sdnv105_plots.reactions_figure(R, summary)
    try:
        rn_ax, rx_ax = fig.axes[:2]
        for ax, name in ((rn_ax, "rn"), (rx_ax, "rx")):
            values = np.concatenate([R[f"{name}_O"], R[f"{name}_A"]]) / 1e3  # the axes are in kN
            lo, hi = ax.get_ylim()
            assert lo <= values.min() and hi >= values.max(), (name, (lo, hi), values.min(), values.max())
            assert ax.get_yscale() == "symlog"
            # the static reactions (3.6 kN, 1.2 kN) lie in the linear part, which ends below 10 x them
            linthresh = ax.yaxis.get_transform().linthresh
            assert 3.6 < linthresh < 36.0
            # each impact's peak on its corner marked with its value and time
            labels = [t.get_text() for t in ax.texts if "kN" in t.get_text()]
            assert len(labels) == 2 and all(" s" in label for label in labels), labels
        assert any("3938 kN" in t.get_text() for t in rn_ax.texts)
        assert any("-1058 kN" in t.get_text() for t in rx_ax.texts)
    finally:
        sdnv105_plots._pyplot().close(fig)


def test_the_reaction_limits_and_threshold():
    """The helpers the figure uses: the linear range is the 1-2-5 number above 1.25 x the median
    loaded RN; the limits hold the values with room beyond the linear range."""
    R, _ = _sdnv105_history()
    assert sdnv105_plots.reaction_threshold(R) == 5000.0  # 1.25 x 3600 = 4500 -> 5000
    assert sdnv105_plots.reaction_threshold({"rn_O": np.zeros(3), "rn_A": np.zeros(3)}) == 1.0
    lo, hi = sdnv105_plots.reaction_limits(np.array([0.0, 3600.0, 3.938e6]), 5000.0)
    assert lo < 0.0 and hi >= 3.938e6
    lo, hi = sdnv105_plots.reaction_limits(np.array([-1.058e6, 1200.0]), 5000.0)
    assert lo <= -1.058e6 and hi >= 5000.0


def test_the_sdnv105_summary_has_the_impacts_the_kinetic_energies_and_the_books(tmp_path):
    R, summary = _sdnv105_history()
    fig = sdnv105_plots.summary_figure(R, summary)
    try:
        uplift, ke, books = fig.axes[:3]
        assert len([a for a in fig.axes if a.get_ylabel()]) == 3
        assert [t.get_text() for t in uplift.texts] == ["1: A", "2: O"]  # the impacts, numbered
        labels = [line.get_label() for line in ke.get_lines()]
        assert "this code (FE block)" in labels and "rigid block" in labels
        aster = next(line for line in ke.get_lines() if line.get_label().startswith("Code_Aster's peaks"))
        np.testing.assert_allclose(np.c_[aster.get_xdata(), aster.get_ydata()], [[0.0544, 7.29]])
        assert any(line.get_label().startswith("Code_Aster's instants") for line in ke.get_lines())
        names = [line.get_label() for line in books.get_lines()]
        for word in ("potential energy released", "kinetic", "strain", "damping", "contact", "friction",
                     "time scheme", "sum of the books"):
            assert any(word in n for n in names), (word, names)
    finally:
        sdnv105_plots._pyplot().close(fig)
    sdnv105_plots.plot(tmp_path, R, summary)
    for name in ("kinetic_energy.png", "uplift.png", "reactions.png", "summary.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name


# ----------------------------------------------------------------------------------- shaking-table figure
def _table_history(blocks: int) -> tuple[dict, dict]:
    t = np.linspace(0.0, 1.0, 501)
    R = {"t": t, "table_a": 0.9 * G * np.sin(2 * np.pi * 2.6 * t) * (t < 1 / 2.6),
         "friction_demand": 0.3 + 0.2 * np.sin(20 * t) ** 2}
    for k in range(1, blocks + 1):
        R["theta" if k == 1 else f"theta_{k}"] = 0.1 * k * np.sin(2 * np.pi * t)
        R["omega" if k == 1 else f"omega_{k}"] = np.zeros_like(t)
    for k in range(1, blocks):
        R[f"friction_demand_j{k}"] = 0.2 + 0.0 * t
    summary = {"status": "complete", "blocks": blocks, "uplift_acceleration_g": 0.45 / blocks,
               "overturn_angle": [0.846] * blocks, "max_rotation": [0.1 * k for k in range(1, blocks + 1)],
               "impacts": [{"time": 0.5, "corner": "A"}],
               "parameters": {"mu": 0.9, "mu_joint": 0.5 if blocks > 1 else None, "excitation": "sine-pulse",
                              "amplitude_g": 0.9, "frequency_hz": 2.6, "modeling": "a", "direction": "horizontal"},
               "rigid_body": {"applies": True, "curve_t": list(t), "curve_theta": list(0.09 * np.sin(2 * np.pi * t)),
                              "impacts": [{"time": 0.5, "corner": "A"}], "max_friction_ratio": 0.544}}
    return R, summary


@pytest.mark.parametrize("blocks", [1, 2])
def test_the_shaking_table_summary_has_its_panels(blocks, tmp_path):
    R, summary = _table_history(blocks)
    fig = table_report.summary_figure(R, summary)
    try:
        table, rotation, friction = fig.axes
        assert table.get_ylabel() == "table acceleration [g]"
        (motion,) = [line for line in table.get_lines() if line.get_label().startswith("table")]
        np.testing.assert_allclose(motion.get_ydata(), R["table_a"] / G)
        fe = [line for line in rotation.get_lines()
              if line.get_label().startswith("FE") and "impacts" not in line.get_label()]
        assert [line.get_label() for line in fe] == (["FE"] if blocks == 1 else ["FE, block 1", "FE, block 2"])
        rigid = [line.get_label() for line in rotation.get_lines() if line.get_label().startswith("rigid")]
        assert rigid == ["rigid block" if blocks == 1 else "rigid column (joints shut)", "rigid impacts"]
        assert any(line.get_label() == "FE impacts" for line in rotation.get_lines())
        mu = [line for line in friction.get_lines() if line.get_label().startswith("mu = 0.9")]
        assert len(mu) == 1 and mu[0].get_ydata()[0] == 0.9 and friction.get_ylim()[1] > 0.9
        base = [line for line in friction.get_lines() if line.get_label() == "FE, base on the table"]
        assert len(base) == 1
        assert len([line for line in friction.get_lines() if line.get_label().startswith("FE, joint")]) == blocks - 1
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    table_report.plot(tmp_path, R, summary)
    assert {p.name for p in tmp_path.iterdir()} == {"rotation.png", "summary.png"}


# ----------------------------------------------------------------------------------- the animation
def _quads() -> Mesh:
    """Two 0.1 m quads side by side (the block, group 0: nodes 2 to 7) on a 0.25 x 0.05 m table (group
    1: nodes 0, 1, 8, 9), whose top right node 1 lies where the block's right corner 4 starts."""
    points = np.array([[-0.05, 0.0], [0.2, 0.0], [0.0, 0.0], [0.1, 0.0], [0.2, 0.0], [0.0, 0.2], [0.1, 0.2],
                       [0.2, 0.2], [-0.05, -0.05], [0.2, -0.05]])
    return Mesh(points, {"BLOCK": CellBlock("quad", np.array([[2, 3, 6, 5], [3, 4, 7, 6]])),
                         "GROUN": CellBlock("quad", np.array([[8, 9, 1, 0]]))}, {})


def _write_series(folder, fmt: str, steps: int = 5) -> list[float]:
    """``steps`` steps of the block rocking about its left corner (rotation up to 0.02 rad: its right
    corner lifts) with its contact forces: 50 N on the left corner (x 1000 at step 2: an impact)."""
    mesh = _quads()
    times = [0.01 * k for k in range(steps)]
    with results.TimeSeriesWriter(folder, mesh, ["BLOCK", "GROUN"], output_format=fmt) as solution, \
            results.PointSetSeriesWriter(folder, "contact", output_format=fmt) as contact:
        for k, t in enumerate(times):
            angle = 0.005 * k
            rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
            u = np.zeros_like(mesh.points)
            u[2:8] = mesh.points[2:8] @ rotation.T - mesh.points[2:8]
            solution.write(t, point_data={"displacement": u})
            nodes = np.array([2, 4])
            force = np.array([[0.0, 50.0 * (1000.0 if k == 2 else 1.0)], [0.0, 0.0]])
            contact.write(t, mesh.points[nodes] + u[nodes], {"force": force, "rn": force[:, 1]})
    return times


@pytest.mark.parametrize("fmt", results.SERIES_FORMATS)
def test_the_animation_of_a_series_is_written_whole_and_noted(fmt, tmp_path):
    results.use_series_format(fmt)
    try:
        output_folder.claim(tmp_path)
        output_folder.clear_previous()  # the run has started: what it writes stays
        _write_series(tmp_path, fmt)
        info = animation.animate_run(tmp_path, "gif", impacts=[(0.02, "A")], title="test", still=True)
        written = output_folder.written()
    finally:
        output_folder.release()
        results.use_series_format("xdmf")
    gif = tmp_path / "animation.gif"
    assert "animation.gif" in written
    with Image.open(gif) as image:
        assert image.format == "GIF" and image.n_frames == 5 == info["frames"]
        image.seek(2)  # the impact's frame opens
    # the still is the last frame as drawn: quantised as the GIF's frames are, it is the GIF's last frame
    assert "animation.png" in written and info["still"] == str(tmp_path / "animation.png")
    with Image.open(gif) as image, Image.open(tmp_path / "animation.png") as still:
        assert still.format == "PNG"
        frames = []
        for k in (0, image.n_frames - 1):
            image.seek(k)
            frames.append(np.asarray(image.convert("RGB")))
        png = np.asarray(still.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).convert("RGB"))
    assert np.array_equal(png, frames[1]) and not np.array_equal(png, frames[0])
    # written atomically: no temporary file left beside it
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".animation")]
    # the rotation (0.02 rad of 0.2 m: 4 mm, 2 % of the size) is magnified to be seen; 50 N drawn a
    # quarter of the size at most (the force a metre a 1-2-5 number)
    assert info["magnification"] == 5.0
    assert 1.0 / info["force_scale_m_per_N"] in (500.0, 1000.0, 2000.0)


FAKE_FFMPEG = """#!{python}
import sys
data = sys.stdin.buffer.read()
args = sys.argv[1:]
with open(args[-1], "w") as out:
    out.write(f"{{len(data)}} {{args[args.index('-s') + 1]}} {{args[args.index('-pix_fmt') + 1]}}\\n")
"""


def test_the_mp4_is_fed_the_drawn_frames_through_ffmpeg(tmp_path, monkeypatch):
    """--animate mp4: matplotlib's FFMpegWriter gets every frame as drawn (the canvas's RGBA pixels
    through its pipe, the frame size it announced). A stand-in ffmpeg on PATH writes what it got."""
    stand_in_ffmpeg(tmp_path, monkeypatch, FAKE_FFMPEG)
    assert animation.available("mp4")
    series = tmp_path / "run"
    _write_series(series, "xdmf")
    info = animation.animate_run(series, "mp4")
    received, size, pixel_format = (series / "animation.mp4").read_text().split()
    width, height = (int(x) for x in size.split("x"))
    assert pixel_format == "rgba" and width % 2 == 0 and height % 2 == 0  # H.264's even frame
    assert int(received) == info["frames"] * width * height * 4 and info["frames"] == 5
    assert not [p.name for p in series.iterdir() if p.name.startswith(".animation")]


def test_a_failed_animation_leaves_no_file(tmp_path, monkeypatch):
    _write_series(tmp_path, "xdmf")
    frames = animation.load_frames(tmp_path / "solution.xdmf", tmp_path / "contact.xdmf")
    calls = []

    def broken(*args):
        calls.append(1)
        if len(calls) > 3:
            raise RuntimeError("drawing failed")
        return None

    monkeypatch.setattr(animation, "_arrows", broken)
    with pytest.raises(RuntimeError):
        animation.write_animation(tmp_path / "animation.gif", frames)
    assert not (tmp_path / "animation.gif").exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".animation")]


def test_the_frames_read_back_follow_the_nodes():
    """Each contact point is matched to its node, so its arrow follows the magnified mesh: the block's
    right corner 4, which starts on the table's node 1 (the nearest node at step 0 is either; node
    1's path leaves it as the corner lifts)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        _write_series(folder, "pvd")
        frames = animation.load_frames(Path(folder) / "solution.pvd", Path(folder) / "contact.pvd")
    assert len(frames.times) == 5 and frames.displacements.shape == (5, 10, 2)
    assert all(list(c[0]) == [2, 4] for c in frames.contact)
    assert frames.contact[2][1][0, 1] == 50_000.0
    assert set(frames.groups) == {0, 1} and len(frames.outlines) == 3


def test_pick_frames_keeps_the_ends_and_the_impacts_within_the_budget():
    # fine steps around 0.5 s among coarse ones, as a release's windows archive them
    t = np.unique(np.r_[np.linspace(0.0, 1.0, 101), np.linspace(0.49, 0.51, 401)])
    impact = 0.5003
    k = animation.pick_frames(t, 150, impacts=[impact])
    assert k.size <= 150 and np.all(np.diff(k) > 0) and k[0] == 0 and k[-1] == t.size - 1
    first = int(np.searchsorted(t, impact))
    assert set(range(first - 3, first + 4)) <= set(k)
    # the coarse stretches are seen: no gap between frames longer than 2 coarse steps
    assert np.diff(t[k]).max() <= 0.02 + 1e-12
    assert list(animation.pick_frames(np.arange(7.0), 150)) == list(range(7))  # fewer steps than frames: all
    assert animation.pick_frames(np.arange(1000.0), 150, impacts=np.arange(0.5, 1000.0, 3.0)).size <= 150


def test_the_scales_line_speaks_of_arrows_only_when_the_series_has_forces():
    with_forces = animation.scales_text(10.0, 50.0, 0.05, 1e-3, 2.0)
    assert with_forces.startswith("displacements x 10 (magnified to be seen);  arrows") and "5 cm = 50 N" in with_forces
    without = animation.scales_text(1.0, 0.0, 0.25, 2.0, 4.2)
    assert without == "displacements x 1 (no contact forces in the series)"


def test_magnification_and_force_scale():
    assert animation.magnification(0.88, 0.2) == 1.0  # a 0.2 m rocking is seen as it is
    assert animation.magnification(0.88, 8e-3) == 10.0  # SDNV105's 8 mm: x 10
    assert animation.magnification(1.0, 0.0) == 1.0
    s = animation.force_scale(4097.0, 0.88)  # the block's weight on its corner, a quarter of 0.88 m at most
    assert 1.0 / s == 20_000.0 and 0.4 * 0.22 <= s * 4097.0 <= 0.22
    assert [animation.nice(x) for x in (0.3, 7.0, 10.0)] == [0.2, 5.0, 10.0]
    assert [animation.nice_up(x) for x in (0.3, 7.0, 10.0, 2.5)] == [0.5, 10.0, 10.0, 5.0]


def test_the_flag_is_refused_with_no_paraview_and_mp4_without_ffmpeg(monkeypatch):
    class Args:
        animate, no_paraview = "gif", True

    with pytest.raises(BadInput, match="--animate.*--no-paraview"):
        animation.check_animate_flag(Args)
    Args.no_paraview, Args.animate = False, "mp4"
    monkeypatch.setattr(animation, "available", lambda fmt: fmt == "gif")
    with pytest.raises(BadInput, match="--animate mp4: ffmpeg is not on PATH"):
        animation.check_animate_flag(Args)
    Args.animate = None
    animation.check_animate_flag(Args)  # no flag: nothing to check


@pytest.mark.parametrize("bodies", [2, 13])
def test_a_summary_names_its_curves_up_to_twelve(bodies, tmp_path, monkeypatch):
    """fem.problem.pictures.draw_summary: a panel with up to LEGEND_MAX (12) curves names them in a legend;
    an assembly's rotations (13 bodies here, 205 in examples/masonry_wall.py) are drawn unnamed, the title
    saying how many."""
    from fem.problem import pictures

    drawn = {}
    monkeypatch.setattr(pictures.output_folder, "save_figure", lambda fig, path, dpi: drawn.update(fig=fig))
    t = np.linspace(0.0, 1.0, 11)
    history = {"t": t, "ke": t, **{f"theta[B{k}]": 0.01 * k * t for k in range(bodies)}}
    rows = {f"B{k}": {"limit": 1.0, "overturn_verdict": {"verdict": "stands"}} for k in range(bodies)}
    pictures.draw_summary(tmp_path / "summary.png", history, rows, {}, [])
    rotation = drawn["fig"].axes[0]
    assert len(rotation.get_lines()) >= bodies
    if bodies <= pictures.LEGEND_MAX:
        assert rotation.get_legend() is not None and "curves" not in rotation.get_title()
    else:
        assert rotation.get_legend() is None and f"{bodies} curves, not named" in rotation.get_title()
