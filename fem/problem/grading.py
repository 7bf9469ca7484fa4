"""What a problem's run is graded by, beside the checks it states (fem.problem.checks): the checks every
run makes (each pair's penetration against its contact elements' size, the preload's end state against
each body's size, a step against the rocking time scale of the bodies free to rock), each body's
overturning verdict by the one rule (fem.problem.verdicts) and each pair's impact threshold.
"""
from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from fem.problem import checks as stated
from fem.problem import sizes, verdicts
from fem.problem.definition import Assembled
from fem.problem.observe import IMPACT_LIFT, LIFT, BodyWatch
from fem.problem.physics import stage_end
from fem.problem.stages import BaseMotion, Preload
from fem.ranges import BadInput
from fem.stage.phase import State


def preload_moves(assembled: Assembled, stage: str, state: State) -> list[dict]:
    """The preload's end state, a row a body: its largest displacement over its size (the diagonal of its
    bounding box) against fem.problem.checks.PRELOAD_MOVE_LIMIT, the row of a body that moved more
    noting why and the remedy (the run then fails there: the stages after would start from nonsense)."""
    points, u = assembled.mesh.points[:, :2], state.u.reshape(-1, 2)
    rows = []
    for label, nodes in assembled.body_nodes.items():
        size = sizes.body_size(points[nodes])
        moved = float(np.max(np.linalg.norm(u[nodes], axis=1))) if nodes.size else 0.0
        ratio = moved / size if size > 0 else 0.0
        note = "" if ratio <= stated.PRELOAD_MOVE_LIMIT else (
            f"{stage}: {label} moved by {moved:.3g} m under gravity, {ratio:.3g} of its size {size:.3g} m (more than "
            f"{stated.PRELOAD_MOVE_LIMIT:g}): the bodies under it do not carry it; a contact far too soft (a penalty "
            f"normal_stiffness: docs/problem.md), a pair's normal the wrong way, a support missing, or a body "
            f"free to slide in the static preload (hold one of its nodes in x: the preload's hold)")
        rows.append(stated.physical_row(f"{stage}: displacement of {label} / its size", ratio,
                                        stated.PRELOAD_MOVE_LIMIT, "every run: a preload settles, it does not move bodies",
                                        note))
    return rows


def penetrations(assembled: Assembled, pairs) -> list[dict]:
    """A row a pair: its largest penetration over its contact elements' size (fem.problem.checks.penetration_row)."""
    mesh, groups = assembled.mesh, [b.group for b in assembled.problem.bodies]
    out = []
    for p, watch in zip(assembled.problem.pairs, pairs):
        size = sizes.contact_size(mesh, p.slave, p.master, groups)
        out.append(stated.penetration_row(p.label, watch.penetration, size, float(p.clearance), watch.penetration_at))
    return out


def alternations(assembled: Assembled, pairs) -> list[dict]:
    """A row a pair: the most steps in a row a closed node's reaction alternated (fem.problem.checks.alternation_row),
    the node named by its one-node group when it has one (fem.mesh.mesh.Mesh.node_name)."""
    return [stated.alternation_row(w.label, w.alternation, None if w.alternation_node is None else
                                   assembled.mesh.node_name(w.alternation_node), w.alternation_from) for w in pairs]


def check_time_scales(assembled: Assembled, stages, settings) -> None:
    """Refuse (BadInput naming the steps' key) a dynamic stage's step longer than the rocking time scale
    1/p of a body free to rock (fem.ranges.rocking_time of its bounding box): a step that long cannot
    follow the motion it is meant to compute."""
    g = assembled.problem.gravity
    moving = set(moving_bodies(assembled))
    free = [(b.label, sizes.rocking_scale(assembled.mesh.points[assembled.body_nodes[b.label]], g))
            for b in assembled.problem.bodies if b.group in moving]
    if not free:
        return
    body, scale = min(free, key=lambda x: x[1])
    for s in stages:
        if isinstance(s, Preload):
            continue
        spec = settings.steps_for(s.name)
        key = f"steps[{s.name!r}]" if isinstance(settings.steps, Mapping) else "steps"
        for dt in [r[2] for r in getattr(spec, "rows", None) or []] or [getattr(spec, "dt", None)]:
            if dt is not None and dt > scale * (1 + 1e-12):
                raise BadInput(f"{key}.dt: {dt:g} s is longer than the rocking time scale 1/p = {scale:.4g} s of "
                               f"{body} (p = sqrt(3 g / (4 R)), R its half diagonal): a step must resolve the motion")


def stage_spans(stages) -> dict:
    """The dynamic stages' planned (start, end) [s], by name, in order (a preload ends at 0)."""
    spans, t = {}, 0.0
    for s in stages:
        if isinstance(s, Preload):
            t = 0.0
            continue
        start = s.start if getattr(s, "start", None) is not None else t
        t = stage_end(s, start)
        spans[s.name] = (float(start), float(t))
    return spans


def check_checks(assembled: Assembled, stages, checks) -> None:
    """Refuse (BadInput naming ``checks.NAME.KEY``) a check the problem cannot grade (fem.problem.checks.validate)."""
    if not checks:
        return
    mesh = assembled.mesh
    groups = {g: len(mesh.nodes(g)) for g in mesh.node_groups}
    stated.validate(checks, [b.label for b in assembled.problem.bodies], [p.label for p in assembled.problem.pairs],
                    groups, stage_spans(stages))
    for c in checks:
        if c.node is not None:
            pair = next(p for p, t in zip(assembled.problem.pairs, assembled.terms) if p.label == c.of)
            if not np.isin(mesh.nodes(c.node), mesh.nodes(pair.slave) if pair.slave in mesh.node_groups else
                           np.unique(mesh.cell_groups[pair.slave].connectivity)).all():
                raise BadInput(f"checks.{c.label}.node: {c.node!r} is not a slave node of the pair {c.of!r} "
                               f"(slave group {pair.slave!r})")


def watched_nodes(assembled: Assembled, label: str, checks) -> dict:
    """name -> mesh node of the one-node groups the checks read the pair ``label`` at."""
    return {n: int(assembled.mesh.nodes(n)[0]) for n in sorted(stated.pair_nodes(checks).get(label, set()))}


def moving_bodies(assembled: Assembled) -> tuple[str, ...]:
    """The bodies whose rigid motion bounds the coarse steps (fem.time.stepping): those holding no
    support (a supported body, the table, has none of its own)."""
    held = set()
    for s in assembled.problem.supports:
        mesh = assembled.mesh
        held.update(np.unique(mesh.cell_groups[s.group].connectivity).tolist() if s.group in mesh.cell_groups
                    else mesh.nodes(s.group).tolist())
    return tuple(b.group for b in assembled.problem.bodies
                 if not held.intersection(assembled.body_nodes[b.label].tolist()))


def base_motion_left(stages, current: str, t: float) -> tuple[np.ndarray, np.ndarray]:
    """The base's accelerations (a_x, a_y) [m/s^2] sampled after the instant ``t`` [s] of the stage named
    ``current``, over it and the stages after it, each motion to its own end (its stage may cut it:
    the motion it states goes on); empty arrays: the base is still from there on; inf: a motion that
    never ends (fem.problem.verdicts.motion_samples)."""
    names = [s.name for s in stages]
    k = names.index(current) if current in names else 0
    start = 0.0
    for s in stages[:k]:
        start = 0.0 if isinstance(s, Preload) else stage_end(s, s.start if getattr(s, "start", None) is not None
                                                          else start)
    xs, ys = [], []
    for j, s in enumerate(stages[k:]):
        if isinstance(s, BaseMotion) and s.components():
            ax, ay = verdicts.motion_samples(s.x, s.y, max(t - start, 0.0) if j == 0 else 0.0)
            xs.append(ax)
            ys.append(ay)
        start = stage_end(s, start) if not isinstance(s, Preload) else 0.0
    return (np.concatenate(xs), np.concatenate(ys)) if xs else (np.zeros(0), np.zeros(0))


def body_verdict(b: BodyWatch, finished: bool, held: bool, lifted: bool, motion: tuple) -> dict:
    """A body's overturning verdict by the one rule (fem.problem.verdicts), its energy that of the rigid
    rectangle of its bounding box at its last rotation and rate; ``motion``: the base's accelerations
    after the run's end (:func:`base_motion_left`), whose uplift demand |a_x| - tan(alpha) a_y is
    weighed against g tan(alpha) (Housner: a_h > tan(alpha) (g + a_v) lifts it)."""
    alpha = 0.5 * b.limit
    if b.overturned_at is None and not held and not finished:
        return {"verdict": "undecided", "reason": "the run stopped before the end of its stages"}
    energy, barrier = verdicts.rigid_energy(b.theta, b.omega, b.radius, alpha, b.g) if b.radius > 0 else (None, None)
    state = f"theta = {b.theta:.4g} rad (alpha {alpha:.4g}), omega = {b.omega:.4g} rad/s" + (
        f", energy {energy / barrier:.3g} of the barrier" if energy is not None and barrier > 0 else "")
    ax, ay = motion
    demand = float(np.max(np.abs(ax) - math.tan(alpha) * ay)) if ax.size else 0.0
    return verdicts.decide(overturned_at=b.overturned_at, held=held, base_still=not ax.size, beyond_balance=abs(b.theta) >= alpha,
                           energy=energy, barrier=barrier, lifted=lifted, rest_peak=demand,
                           uplift_acceleration=math.tan(alpha) * b.g, state=state, who=b.label)


def impact_lifts(assembled: Assembled) -> dict:
    """pair label -> the lift [m] beyond which its landing is an impact: IMPACT_LIFT of the size
    (bounding-box diagonal) of the smaller body the pair's groups lie in (LIFT for a pair of no body's)."""
    points = assembled.mesh.points[:, :2]
    own: dict = {}
    for body, pairs in body_pairs(assembled).items():
        size = sizes.body_size(points[assembled.body_nodes[body]])
        for pair in pairs:
            own[pair] = min(own.get(pair, size), size)
    return {p.label: IMPACT_LIFT * own[p.label] if p.label in own else LIFT for p in assembled.problem.pairs}


def body_pairs(assembled: Assembled) -> dict:
    """body label -> the labels of the pairs whose slave or master group lies in the body."""
    mesh, out = assembled.mesh, {}
    for p in assembled.problem.pairs:
        groups = [p.slave] + ([p.master] if isinstance(p.master, str) else [])
        for g in groups:
            nodes = mesh.nodes(g) if g in mesh.node_groups else np.unique(mesh.cell_groups[g].connectivity)
            for label, own in assembled.body_nodes.items():
                if np.isin(nodes, own).all():
                    out.setdefault(label, []).append(p.label)
    return out
