"""Sizes a problem's checks measure against: a body's size, a contact pair's element size, a body's
rocking time scale.
"""
from __future__ import annotations

import math

import numpy as np

from fem.ranges import rocking_time


def group_nodes(mesh, group: str) -> np.ndarray:
    """The nodes of a node group or of a cell group of ``mesh``."""
    return mesh.nodes(group) if group in mesh.node_groups else np.unique(mesh.cell_groups[group].connectivity)


def body_size(points: np.ndarray) -> float:
    """The diagonal of the bounding box of a body's ``points`` (n, 2+) [m]."""
    w, h = np.ptp(points[:, :2], axis=0)
    return float(math.hypot(float(w), float(h)))


def contact_size(mesh, slave: str, master, bodies: list[str]) -> float | None:
    """The size [m] of a pair's contact elements: the shortest edge (between its end nodes) of its slave
    and master line groups; a pair with no line group (a node on a plane or on another node) takes the
    smallest sqrt(area) of the body cells (``bodies``: surface groups) holding its slave nodes; None when
    no body cell holds them (discrete masses: no element)."""
    points = mesh.points[:, :2]
    lines = [g for g in (slave, master) if isinstance(g, str) and g in mesh.cell_groups
             and mesh.cell_groups[g].dim == 1]
    if lines:
        edges = [mesh.cell_groups[g].connectivity for g in lines]
        return float(min(np.min(np.linalg.norm(points[e[:, 1]] - points[e[:, 0]], axis=1)) for e in edges))
    nodes = group_nodes(mesh, slave)
    sizes = []
    for g in bodies:
        cells = mesh.cell_groups[g].connectivity
        held = cells[np.isin(cells, nodes).any(axis=1)]
        if held.size:
            corners = held[:, :4] if mesh.cell_groups[g].cell_type.startswith("quad") else held[:, :3]
            x, y = points[corners, 0], points[corners, 1]
            area = 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))
            sizes.append(float(np.sqrt(np.min(area))))
    return min(sizes) if sizes else None


def rocking_scale(points: np.ndarray, g: float) -> float:
    """The rocking time scale 1/p [s] of a body's bounding box (fem.ranges.rocking_time; inf without gravity)."""
    w, h = np.ptp(points[:, :2], axis=0)
    return rocking_time(float(w), float(h), g) if g > 0 and w > 0 and h > 0 else math.inf
