"""Animations of a run: the deformed mesh and the contact forces, read back from its ParaView series.

:func:`animate_or_note` is what a case's ``--animate`` calls after the run (:func:`animate_run`, whose
failure, an ffmpeg that exits with an error, a full disk, a series that cannot be read, becomes a
warning on stderr and the run's ``animation_error``: a picture never fails a run). It reads
``OUT/solution.<fmt>`` and ``OUT/contact.<fmt>`` (``fmt`` the run's series format,
fem.io.results.series_format: ``.xdmf`` or ``.pvd``) with fem.io.results.read_series, keeps at most
:data:`MAX_FRAMES` of the archived steps (:func:`pick_frames`: always the steps around each impact,
then evenly in time and among the steps), draws each one with matplotlib and writes ``OUT/animation.gif`` (Pillow) or
``OUT/animation.mp4`` (ffmpeg, when on PATH) atomically, noted by the run's output folder
(fem.io.output_folder.atomic_target).

Each frame shows:

* the mesh's cells as polygons at ``X + m u`` (X the initial coordinates [m], u the displacement
  [m] of the series' ``displacement`` field, m the magnification of :func:`magnification`: 1 when
  the largest displacement is visible at the figure's scale, else a 1-2-5 number, stated on the
  frame);
* the contact forces on the contact points (the ``force`` field of the contact series, [N]: the
  table's or the joint's reaction on the node) as arrows whose tip is the point, so that an arrow
  pushes on the node as the reaction does, of length ``s |F|`` [m] with the scale s [m/N] of
  :func:`force_scale`: the typical total contact force (the median over the frames: a resting
  block's weight) drawn at most :data:`ARROW_FRACTION` of the model's size long, the force a metre
  a 1-2-5 number, stated on the frame as a round length and the force it stands for. An arrow
  longer than :data:`ARROW_CAP` times the typical one is cut to that and drawn red, with its force
  written beside it (the impacts' peaks, hundreds of times the static reactions, would otherwise
  leave the figure);
* the time in the title, and below the model a time line of the run with the impacts marked and
  the frame's instant.

The points of the contact series are the deformed positions ``X + u`` of mesh nodes: each is
matched to its node (the nearest deformed node of the same step) so that its arrow follows the
magnified mesh.
"""
from __future__ import annotations

import math
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from fem.io import output_folder
from fem.io.results import read_series, series_format
from fem.ranges import BadInput

__all__ = ["FORMATS", "MAX_FRAMES", "ARROW_CAP", "ARROW_FRACTION", "Frames", "available", "add_animate_flag",
           "check_animate_flag", "pick_frames", "magnification", "force_scale", "nice", "nice_up", "load_frames",
           "scales_text", "write_animation", "animate_run", "animate_or_note", "why_not_written"]

#: the animation formats: GIF through Pillow (always), MP4 through ffmpeg (when on PATH)
FORMATS = ("gif", "mp4")
#: the most frames an animation holds
MAX_FRAMES = 150
#: an arrow longer than this many times the typical one (force_scale) is cut and labelled
ARROW_CAP = 2.0
#: the typical total contact force is drawn at most this fraction of the model's size long
ARROW_FRACTION = 0.25
#: frames kept before and after each impact's first archived step
AROUND_IMPACT = 3

#: polygon order of a cell's nodes (VTK / meshio numbering): corners and mid-side nodes around it
_OUTLINE = {"triangle": (0, 1, 2), "triangle6": (0, 3, 1, 4, 2, 5), "quad": (0, 1, 2, 3),
            "quad8": (0, 4, 1, 5, 2, 6, 3, 7), "quad9": (0, 4, 1, 5, 2, 6, 3, 7)}
_FACE = ("#9ecae1", "#d9d9d9", "#fdd0a2", "#c7e9c0", "#dadaeb")  # group 0 (the block(s)), 1 (the table), ...


def available(fmt: str) -> bool:
    """Whether matplotlib can write ``fmt`` here: "gif" always (Pillow comes with matplotlib),
    "mp4" when ffmpeg is on PATH."""
    if fmt == "gif":
        return True
    if fmt == "mp4":
        from matplotlib import animation

        return animation.writers.is_available("ffmpeg")
    return False


def add_animate_flag(parser, what: str = "the run") -> None:
    """A case's ``--animate [gif|mp4]`` (default gif): after the run, ``OUT/animation.<fmt>`` of
    ``what`` from the run's ParaView series (:func:`animate_run`)."""
    parser.add_argument("--animate", nargs="?", const="gif", default=None, choices=FORMATS,
                        help=f"after the run, OUT/animation.gif (or .mp4 with ffmpeg on PATH: --animate mp4) of "
                             f"{what}: the deformed mesh (displacements magnified when too small to see, the factor "
                             f"written on it) and the contact forces as arrows, at most {MAX_FRAMES} of the archived "
                             f"steps, the impacts' always in; drawn from the ParaView series (not with --no-paraview)")


def check_animate_flag(args) -> None:
    """Refuse, before the run starts (fem.ranges.BadInput, exit code 2), ``--animate`` with
    ``--no-paraview`` (no series to draw) and ``--animate mp4`` without ffmpeg."""
    fmt = getattr(args, "animate", None)
    if fmt is None:
        return
    if getattr(args, "no_paraview", False):
        raise BadInput("--animate draws the run's ParaView series, which --no-paraview leaves out: give one of them")
    if not available(fmt):
        raise BadInput(f"--animate {fmt}: ffmpeg is not on PATH (matplotlib writes MP4 through it); "
                       f"use --animate gif")


def nice(x: float) -> float:
    """The largest 1-2-5 number (1, 2, 5, 10, 20, ...) not above ``x`` > 0."""
    if not (x > 0 and math.isfinite(x)):
        raise ValueError(f"nice() needs a finite number > 0, got {x!r}")
    decade = 10.0 ** math.floor(math.log10(x))
    for step in (5.0, 2.0, 1.0):
        if step * decade <= x * (1 + 1e-12):
            return step * decade
    return decade  # not reached


def pick_frames(times: Sequence[float], max_frames: int = MAX_FRAMES, impacts: Sequence[float] = (),
                around: int = AROUND_IMPACT) -> np.ndarray:
    """Indices (increasing) of at most ``max_frames`` of the archived steps at ``times`` [s]: all of
    them when there are no more; else the first and the last, the ``around`` steps before and after
    the first step at or after each impact time [s] (thinned evenly if they alone exceed two thirds
    of the frames); then steps nearest equally spaced instants up to half the frames, and equally
    spaced steps (denser where the run took fine steps) for the rest."""
    t = np.asarray(times, dtype=float)
    n = t.size
    if max_frames < 2:
        raise ValueError(f"max_frames must be >= 2, got {max_frames}")
    if n <= max_frames:
        return np.arange(n)
    must = {0, n - 1}
    for t_impact in impacts:
        i = int(np.searchsorted(t, t_impact))
        must.update(range(max(0, i - around), min(n, i + around + 1)))
    must_list = np.array(sorted(must))
    if must_list.size > (2 * max_frames) // 3:
        thinned = np.round(np.linspace(0, must_list.size - 1, (2 * max_frames) // 3)).astype(int)
        must_list = np.unique(must_list[thinned])

    def in_time(count: int) -> np.ndarray:  # the steps nearest ``count`` equally spaced instants
        targets = np.linspace(t[0], t[-1], count)
        right = np.clip(np.searchsorted(t, targets), 1, n - 1)
        return np.where(np.abs(t[right - 1] - targets) <= np.abs(t[right] - targets), right - 1, right)

    def in_index(count: int) -> np.ndarray:  # ``count`` equally spaced steps
        return np.round(np.linspace(0, n - 1, count)).astype(int)

    def most(base: np.ndarray, more, limit: int) -> np.ndarray:
        """``base`` with the largest ``more(count)`` whose union with it holds at most ``limit`` steps."""
        low, high = 0, n
        while low < high:
            mid = (low + high + 1) // 2
            if np.union1d(base, more(mid)).size <= limit:
                low = mid
            else:
                high = mid - 1
        return np.union1d(base, more(low)) if low else base

    # half the frames equally spaced in time (the coarse stretches of a run are seen), the rest
    # equally spaced among the steps (denser where the run took fine steps: its contact events)
    chosen = most(must_list, in_time, max(must_list.size, max_frames // 2))
    return most(chosen, in_index, max_frames)


def magnification(size: float, largest: float, visible: float = 0.05, target: float = 0.1) -> float:
    """The factor the displacements are drawn with: 1 when the largest displacement ``largest`` [m]
    is at least ``visible`` of the model's size ``size`` [m] (a rocking block's rotation, a slide);
    else the 1-2-5 number bringing it nearest below ``target`` of the size (10 for SDNV105's 8 mm on
    0.88 m)."""
    if not (size > 0) or not (largest > 0) or largest >= visible * size:
        return 1.0
    return max(1.0, nice(target * size / largest))


def nice_up(x: float) -> float:
    """The smallest 1-2-5 number (1, 2, 5, 10, 20, ...) not below ``x`` > 0."""
    if not (x > 0 and math.isfinite(x)):
        raise ValueError(f"nice_up() needs a finite number > 0, got {x!r}")
    decade = 10.0 ** math.floor(math.log10(x))
    return next(step * decade for step in (1.0, 2.0, 5.0, 10.0) if step * decade >= x * (1 - 1e-12))


def force_scale(reference: float, size: float, fraction: float = ARROW_FRACTION) -> float:
    """The arrows' scale s [m/N]: the reference force ``reference`` [N] (the typical total contact
    force) drawn at most ``fraction`` of the model's size ``size`` [m] long, the force a metre
    (1 / s) rounded up to a 1-2-5 number so the scale reads plainly. A reference of 0 (no contact
    force at all) gives 1 N the reference."""
    if not (size > 0):
        raise ValueError(f"size must be > 0 m, got {size!r}")
    per_metre = nice_up((reference if reference > 0 else 1.0) / (fraction * size))
    return 1.0 / per_metre


@dataclass
class Frames:
    """What the animation draws, read back from a run's series.

    times : (k,) [s]; points : (n, 2) initial node coordinates [m]; outlines : per cell, its nodes
    around it; groups : (cells,) the cell's group index (0: the first group written, the block(s));
    displacements : (k, n, 2) [m]; contact : per frame, (nodes (m,), forces (m, 2) [N]) of its
    contact points, or None when the frame has none; impacts : [(time [s], label), ...] marked on the
    time line; all_times : every archived step's time [s] (the time line's extent)."""

    times: np.ndarray
    points: np.ndarray
    outlines: list
    groups: np.ndarray
    displacements: np.ndarray
    contact: list
    impacts: list
    all_times: np.ndarray

    @property
    def size(self) -> float:
        """The model's size [m]: the larger side of its initial bounding box."""
        return float(np.max(np.ptp(self.points, axis=0)))


def _cells(mesh) -> tuple[list, np.ndarray]:
    outlines, groups = [], []
    group_data = mesh.cell_data.get("group")
    for k, block in enumerate(mesh.cells):
        order = _OUTLINE.get(block.type)
        if order is None:
            continue  # vertices, lines: not drawn
        outlines += [row[list(order)] for row in np.asarray(block.data)]
        g = np.asarray(group_data[k]).ravel() if group_data is not None else np.zeros(len(block.data), int)
        groups.append(g.astype(int))
    if not outlines:
        raise ValueError("the series has no 2-D cell to draw")
    return outlines, np.concatenate(groups)


def _match_nodes(points: list, deformed: list) -> list:
    """For each frame, the mesh node of each of its contact points: ``points`` per frame (m, 2) [m]
    (or None), ``deformed`` the mesh's nodes then (n, 2) [m]. A contact node touches a node of the
    other body (the table's under a block's corner) that coincides with it while closed: when every
    frame has the same points (a recorder's contact nodes, in its order), each point is given the
    node whose path it follows over all the frames (the least sum of squared distances), which the
    other body's node does not once it lifts; otherwise the nearest node frame by frame."""
    present = [j for j, xy in enumerate(points) if xy is not None]
    sizes = {len(points[j]) for j in present}
    if len(sizes) == 1 and sizes != {0}:
        total = sum(((points[j][:, None, :] - deformed[j][None, :, :]) ** 2).sum(axis=2) for j in present)
        nodes = np.argmin(total, axis=1)
        return [nodes if xy is not None else None for xy in points]
    return [None if xy is None else np.argmin(((xy[:, None, :] - d[None, :, :]) ** 2).sum(axis=2), axis=1)
            for xy, d in zip(points, deformed)]


def load_frames(solution: str | Path, contact: str | Path | None = None, impacts: Sequence = (),
                max_frames: int = MAX_FRAMES) -> Frames:
    """The frames of a run: its mesh series ``solution`` (``.xdmf`` or ``.pvd``, with a
    ``displacement`` field [m]) and, when given and present, its contact series ``contact`` (points
    at their deformed positions [m], a ``force`` field [N]) read back (fem.io.results.read_series),
    :func:`pick_frames` of its steps kept. ``impacts``: times [s] or (time [s], label) pairs."""
    steps = read_series(solution)
    if not steps:
        raise ValueError(f"{solution}: the series has no step")
    marks = [(float(i), "") if np.isscalar(i) else (float(i[0]), str(i[1])) for i in impacts]
    all_times = np.array([t for t, _ in steps])
    keep = pick_frames(all_times, max_frames, [t for t, _ in marks])
    first = steps[0][1]
    points = np.asarray(first.points, dtype=float)[:, :2]
    outlines, groups = _cells(first)
    u = np.array([np.asarray(steps[i][1].point_data["displacement"], dtype=float)[:, :2] for i in keep])
    forces: list = [None] * keep.size
    if contact is not None and Path(contact).exists():
        by_time = {round(t, 12): mesh for t, mesh in read_series(contact)}
        found = [by_time.get(round(all_times[i], 12)) for i in keep]
        found = [m if m is not None and len(m.points) and "force" in m.point_data else None for m in found]
        nodes = _match_nodes([None if m is None else np.asarray(m.points, dtype=float)[:, :2] for m in found],
                             [points + u[j] for j in range(keep.size)])
        forces = [None if m is None else (n, np.asarray(m.point_data["force"], dtype=float)[:, :2])
                  for m, n in zip(found, nodes)]
    return Frames(all_times[keep], points, outlines, groups, u, forces, marks, all_times)


def _typical_force(frames: Frames) -> float:
    """The median over the frames of the total contact force [N] (the larger of the sums of |F_x|
    and of |F_y| over the points: the weight a resting block puts on its supports), 0 without
    contact forces."""
    totals = [float(np.abs(f[1]).sum(axis=0).max()) for f in frames.contact if f is not None and len(f[1])]
    totals = [x for x in totals if x > 0]
    return float(np.median(totals)) if totals else 0.0


def _force_text(f: float) -> str:
    """A force [N] with its unit: N, kN or MN, three significant figures."""
    for unit, factor in (("MN", 1e6), ("kN", 1e3)):
        if abs(f) >= factor:
            return f"{f / factor:.3g} {unit}"
    return f"{f:.3g} N"


def _length_text(x: float) -> str:
    return f"{x * 100:.3g} cm" if x < 1 else f"{x:.3g} m"


def _arrows(frames: Frames, j: int, mag: float, s: float, cap: float):
    """Frame j's arrows: (tips [m], vectors [m] cut at ``cap``, cut mask, forces [N]), or None."""
    contact = frames.contact[j]
    if contact is None or not len(contact[0]):
        return None
    nodes, force = contact
    tips = frames.points[nodes] + mag * frames.displacements[j][nodes]
    vec = s * force
    length = np.hypot(vec[:, 0], vec[:, 1])
    cut = length > cap
    vec = np.where(cut[:, None], vec * (cap / np.maximum(length, 1e-300))[:, None], vec)
    return tips, vec, cut, force


def _limits(frames: Frames, mag: float, s: float, cap: float) -> tuple[tuple, tuple]:
    """Fixed axes limits [m] holding every frame's deformed mesh and its arrows' tails."""
    xy = [(frames.points[None] + mag * frames.displacements).reshape(-1, 2)]
    for j in range(len(frames.times)):
        arrows = _arrows(frames, j, mag, s, cap)
        if arrows is not None:
            xy.append(arrows[0] - arrows[1])
    xy = np.concatenate(xy)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    pad = 0.05 * float(np.max(hi - lo))
    return (lo[0] - pad, hi[0] + pad), (lo[1] - pad, hi[1] + pad)


def write_animation(path: str | Path, frames: Frames, title: str = "", note: str = "", fps: float | None = None,
                    dpi: int = 100, mag: float | None = None, scale: float | None = None,
                    floor: float | None = None, still: str | Path | None = None) -> dict:
    """Draw ``frames`` and write them to ``path`` (".gif": Pillow; ".mp4": ffmpeg), atomically and
    noted by the output folder. ``title`` heads every frame, with the frame's time; ``note`` is a
    line under it (e.g. the frame of reference); ``mag`` the displacements' magnification (default
    :func:`magnification`), ``scale`` the arrows' [m/N] (default :func:`force_scale` of the median
    total contact force); ``fps`` frames a second (default: the animation lasts about 12 s, 2 to 12
    frames a second); ``floor``: the height [m] of a rigid floor drawn under the model (a model
    without its table); ``still``: a PNG file that also gets the last frame as drawn (the state a run
    ended in: a collapse pattern), written atomically. Returns {"path", "frames", "magnification",
    "force_scale_m_per_N", "seconds"} and, with ``still``, "still" its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    start = time.perf_counter()
    path = Path(path)
    fmt = path.suffix.lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"{path}: an animation is .gif or .mp4")
    if not available(fmt):
        raise ValueError(f"{path}: ffmpeg is not on PATH (matplotlib writes MP4 through it); write a .gif")
    size = frames.size
    if mag is None:
        mag = magnification(size, float(np.abs(frames.displacements).max(initial=0.0)))
    typical = _typical_force(frames)
    s = force_scale(typical, size) if scale is None else scale
    drawn = s * typical if typical > 0 else ARROW_FRACTION * size  # [m], the typical arrow
    cap = ARROW_CAP * drawn  # [m]
    legend = nice(drawn)  # [m], the stated length, and the force it stands for
    xlim, ylim = _limits(frames, mag, s, cap)
    # the layout in inches: title and scales on top, the model (equal axes, its box from the limits'
    # aspect within [2.5, 5.5] in: the limits widen to fill it), the time line at the bottom
    width, left, right = 6.4, 0.8, 0.25
    box_w = width - left - right
    box_h = min(max(box_w * (ylim[1] - ylim[0]) / (xlim[1] - xlim[0]), 2.5), 5.5)
    xlim, ylim = _fill(xlim, ylim, box_h / box_w)
    top, below, line_h, line_bottom = 1.0, 0.75, 0.26, 0.42
    height = top + box_h + below + line_h + line_bottom
    fig = plt.figure(figsize=(width, height), dpi=dpi)
    ax = fig.add_axes((left / width, (line_bottom + line_h + below) / height, box_w / width, box_h / height))
    line_ax = fig.add_axes((left / width, line_bottom / height, box_w / width, line_h / height))
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x [m]", fontsize=9)
    ax.set_ylabel("y [m]", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, lw=0.3, alpha=0.5)
    faces = [_FACE[g % len(_FACE)] for g in frames.groups]
    cells = PolyCollection([frames.points[o] for o in frames.outlines], facecolors=faces, edgecolors="#3b3b3b",
                           linewidths=0.6, animated=True)
    ax.add_collection(cells)
    if floor is not None:
        ax.axhline(floor, color="k", lw=1.5)
        ax.fill_between(xlim, floor - 0.03 * (ylim[1] - ylim[0]), floor, color="0.85", hatch="///",
                        edgecolor="0.5", lw=0)
    fig.text(0.5, 1 - 0.55 / height, scales_text(mag, typical, legend, s, cap), ha="center", va="top", fontsize=8.5,
             color="0.25")
    t_all = frames.all_times
    line_ax.set_xlim(t_all[0], t_all[-1] if t_all[-1] > t_all[0] else t_all[0] + 1.0)
    line_ax.set_ylim(0, 1)
    line_ax.set_yticks([])
    line_ax.set_xlabel("t [s]", fontsize=8.5, labelpad=1)
    line_ax.tick_params(labelsize=8)
    for t_impact, _ in frames.impacts:
        line_ax.axvline(t_impact, color="tab:red", lw=0.8)
    line_ax.set_title("the run's time line" + (", impacts in red" if frames.impacts else ""), fontsize=8,
                      loc="left", pad=2)
    (cursor,) = line_ax.plot([frames.times[0]] * 2, [0, 1], color="k", lw=2.0, animated=True)
    head = fig.text(0.5, 1 - 0.08 / height, "", ha="center", va="top", fontsize=11, animated=True)

    def draw(j: int) -> None:
        """Frame j on the figure's static background (blitting: only what changes is drawn)."""
        fig.canvas.restore_region(background)
        xy = frames.points + mag * frames.displacements[j]
        cells.set_verts([xy[o] for o in frames.outlines])
        ax.draw_artist(cells)
        t = frames.times[j]
        near = [(t_impact, label) for t_impact, label in frames.impacts
                if _first_after(frames.all_times, t_impact) == t]
        head.set_text(f"{title}{'  ' if title else ''}t = {t:.5f} s"
                      + (f"  (impact{' on ' + near[0][1] if near[0][1] else ''} at {near[0][0]:.5f} s"
                         f"{f' and {len(near) - 1} more' if len(near) > 1 else ''})" if near else "")
                      + (f"\n{note}" if note else ""))
        fig.draw_artist(head)
        cursor.set_xdata([t, t])
        line_ax.draw_artist(cursor)
        arrows = _arrows(frames, j, mag, s, cap)
        if arrows is not None:
            tips, vec, cut, force = arrows
            shown = np.hypot(vec[:, 0], vec[:, 1]) > 1e-3 * legend
            for mask, colour in ((shown & ~cut, "tab:blue"), (shown & cut, "tab:red")):
                if np.any(mask):
                    quiver = ax.quiver(tips[mask, 0], tips[mask, 1], vec[mask, 0], vec[mask, 1], angles="xy",
                                       scale_units="xy", scale=1.0, pivot="tip", color=colour, width=0.006,
                                       animated=True)
                    ax.draw_artist(quiver)
                    quiver.remove()
            if np.any(cut):
                magnitude = np.hypot(force[:, 0], force[:, 1])
                k = int(np.argmax(np.where(cut, magnitude, -1.0)))
                tail = tips[k] - vec[k]
                label = ax.text(tail[0], tail[1], _force_text(float(magnitude[k])), color="tab:red", fontsize=8,
                                ha="center", va="top", animated=True,
                                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8))
                ax.draw_artist(label)
                label.remove()

    if fps is None:
        fps = min(12.0, max(2.0, len(frames.times) / 12.0))
    writer = _canvas_writer(fmt, fps)
    try:
        with output_folder.atomic_target(path, f".tmp.{fmt}") as tmp:
            with writer.saving(fig, tmp, dpi):  # (ffmpeg's H.264 may round the figure to even pixels here)
                fig.canvas.draw()  # the static background: axes, ticks, time line (animated artists left out)
                background = fig.canvas.copy_from_bbox(fig.bbox)
                for j in range(len(frames.times)):
                    draw(j)
                    writer.grab_canvas()
        if still is not None:  # the canvas holds the last frame as drawn
            with output_folder.atomic_target(Path(still), ".tmp.png") as tmp:
                _canvas_image(fig.canvas).convert("RGB").save(tmp, format="PNG")
    finally:
        plt.close(fig)
    return {"path": str(path), "frames": int(len(frames.times)), "magnification": mag, "force_scale_m_per_N": s,
            "seconds": time.perf_counter() - start, **({"still": str(still)} if still is not None else {})}


def scales_text(mag: float, typical: float, legend: float, s: float, cap: float) -> str:
    """The line under a frame's title: the displacements' magnification ``mag`` and, when the series has
    contact forces (``typical`` [N] > 0), the arrows' scale: ``legend`` [m] drawn for ``legend / s`` [N],
    arrows cut at ``cap`` [m]."""
    text = f"displacements x {mag:g}{'' if mag == 1 else ' (magnified to be seen)'}"
    if not typical > 0:
        return text + " (no contact forces in the series)"
    return (text + f";  arrows: contact forces on the nodes, {_length_text(legend)} = {_force_text(legend / s)}\n"
            f"(red: an arrow longer than {_length_text(cap)}, cut to it, its force written)")


def _fill(xlim: tuple, ylim: tuple, ratio: float) -> tuple[tuple, tuple]:
    """The limits widened about their centre so that their height / width is ``ratio`` (an equal-axes
    box of that shape, filled)."""
    (x0, x1), (y0, y1) = xlim, ylim
    if (y1 - y0) < ratio * (x1 - x0):
        half = 0.5 * ratio * (x1 - x0)
        y0, y1 = 0.5 * (y0 + y1) - half, 0.5 * (y0 + y1) + half
    else:
        half = 0.5 * (y1 - y0) / ratio
        x0, x1 = 0.5 * (x0 + x1) - half, 0.5 * (x0 + x1) + half
    return (x0, x1), (y0, y1)


def _first_after(times: np.ndarray, t: float) -> float:
    """The first archived time [s] at or after ``t`` (the frame that shows an impact at ``t``)."""
    i = int(np.searchsorted(times, t))
    return float(times[min(i, times.size - 1)])


def _canvas_image(canvas):
    """The canvas's pixels as drawn (blitted frames included) as a PIL RGBA image (sharing its buffer)."""
    from PIL import Image

    return Image.frombuffer("RGBA", canvas.get_width_height(physical=True), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)


def _canvas_writer(fmt: str, fps: float):
    """matplotlib's PillowWriter ("gif") or FFMpegWriter ("mp4"), taking each frame from the canvas
    as drawn (blitted: ``grab_canvas``) rather than redrawing the figure, which would leave out the
    animated artists. A GIF frame is kept as a 256-colour image (what the GIF holds); ffmpeg is
    fed the canvas's RGBA pixels through its pipe."""
    from matplotlib.animation import FFMpegWriter, PillowWriter
    from PIL import Image

    def pixels(writer):
        canvas = writer.fig.canvas
        size = canvas.get_width_height(physical=True)
        if tuple(size) != tuple(int(x) for x in writer.frame_size):
            raise RuntimeError(f"the canvas is {size} pixels, the movie's frames {writer.frame_size}")
        return size, canvas.buffer_rgba()

    class CanvasPillowWriter(PillowWriter):
        def grab_canvas(self) -> None:
            pixels(self)  # the canvas's size checked against the movie's
            self._frames.append(_canvas_image(self.fig.canvas).convert("RGB").quantize(
                256, method=Image.Quantize.FASTOCTREE))

    class CanvasFFMpegWriter(FFMpegWriter):
        def grab_canvas(self) -> None:
            _, rgba = pixels(self)
            self._proc.stdin.write(bytes(rgba))  # frame_format "rgba", frame_size pixels

    if fmt == "gif":
        return CanvasPillowWriter(fps=fps)
    writer = CanvasFFMpegWriter(fps=fps, bitrate=1200)
    if writer.frame_format != "rgba":  # its one pipe format (FFMpegWriter.supported_formats)
        raise RuntimeError(f"matplotlib's FFMpegWriter takes {writer.frame_format!r} frames, not RGBA")
    return writer


def animate_run(out: str | Path, fmt: str = "gif", impacts: Sequence = (), title: str = "", note: str = "",
                max_frames: int = MAX_FRAMES, floor: float | None = None, still: bool = False) -> dict:
    """``OUT/animation.<fmt>`` of a run in ``out`` from its series ``solution`` and ``contact`` in the
    run's format (fem.io.results.series_format), and with ``still`` its last frame as ``OUT/animation.png``;
    see :func:`write_animation` for what it returns. Raises FileNotFoundError when the run wrote no mesh
    series."""
    out = Path(out)
    ext = series_format()
    solution = out / f"solution.{ext}"
    if not solution.exists():
        raise FileNotFoundError(f"{solution}: no ParaView series to animate")
    frames = load_frames(solution, out / f"contact.{ext}", impacts, max_frames)
    return write_animation(out / f"animation.{fmt}", frames, title=title, note=note, floor=floor,
                           still=out / "animation.png" if still else None)


def why_not_written(err: BaseException) -> str:
    """One line saying why an animation failed: a program that exited with an error (ffmpeg: its
    status and the last line it wrote on stderr), else the error's type and message."""
    if isinstance(err, subprocess.CalledProcessError):
        cmd = err.cmd[0] if isinstance(err.cmd, (list, tuple)) and err.cmd else err.cmd
        said = err.stderr.decode(errors="replace") if isinstance(err.stderr, bytes) else (err.stderr or "")
        last = [line.strip() for line in said.splitlines() if line.strip()][-1:]
        return f"{Path(str(cmd)).name} exited with status {err.returncode}" + (f": {last[0][:200]}" if last else "")
    said = " ".join(str(err).split())
    return f"{type(err).__name__}: {said[:300]}" if said else type(err).__name__


def animate_or_note(out: str | Path, fmt: str = "gif", impacts: Sequence = (), **kw) -> tuple[dict | None, str | None]:
    """:func:`animate_run` after a run, whose failure does not fail the run: ``(what animate_run
    returns, None)``, or ``(None, why)`` with one line ``warning: the animation was not written: why``
    on stderr; the caller keeps ``why`` in summary.json (``animation_error``), the run's status and
    exit code unchanged. A signal (fem.time.interrupt.Interrupted, KeyboardInterrupt) still stops the run."""
    try:
        return animate_run(out, fmt, impacts, **kw), None
    except Exception as err:  # ffmpeg's CalledProcessError, OSError, ValueError, a drawing error, MemoryError
        why = why_not_written(err)
        try:
            print(f"warning: the animation was not written: {why}", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
        return None, why
