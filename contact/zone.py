"""Contact zones: slave nodes against a master surface (node-to-segment) or a rigid plane; gaps,
normals, tangents and the rows of their derivatives, in the current configuration.

Conventions (Code_Aster DEFI_CONTACT, master normal)
-----------------------------------------------------
* Master lines are oriented with their body on the left (see :mod:`fem.mesh.mesh`), so the master
  outward normal of a segment with unit tangent t is n = (t_y, -t_x); it points toward the slave.
* Gap g = (x_s - x_m) . n + clearance, with x_m the projection of the slave node on its closest
  master segment, at parameter xi in [0, 1] (0 at the segment's first node). g > 0: open,
  g < 0: penetration. ``clearance`` is Code_Aster's JEU (positive: the bodies are that far apart
  at zero geometric gap).
* Tangential slip increment over a step: ds = t . [du_s - ((1 - xi) du_a + xi du_b)], du = u - u_n.
* Contact force on the slave node: f = R_N n + R_T t (R_N >= 0 in compression); the master nodes
  receive -(1 - xi) f and -xi f.

Rows: ``normal_rows`` (n_s, n_dofs) = dg/du and ``tangent_rows`` = d(ds)/du, with the master normal
held fixed over the linearisation (flat or gently curved masters; the geometry itself is updated
at every Newton iteration).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from fem.mesh.mesh import Mesh
from fem.model.sparsity import SparseRows

_XY = np.arange(2)


class ContactError(ValueError):
    """A contact definition is unusable (bad group, bad orientation, bad parameter)."""


def node_coordinates(source, who: str) -> np.ndarray:
    """Node coordinates (n, 2) [m] of a Model, a Mesh or an array; ValueError naming ``who``."""
    if hasattr(source, "mesh"):
        source = source.mesh
    if hasattr(source, "points"):
        source = source.points
    pts = np.asarray(source, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ValueError(f"{who} needs a Model, a Mesh or node coordinates (n, 2), got shape {pts.shape}")
    return pts


@dataclass(frozen=True)
class RigidPlane:
    """A fixed rigid obstacle: the half-plane behind ``point`` with outward unit ``normal``
    (pointing toward the slave body)."""

    point: tuple[float, float]
    normal: tuple[float, float]

    def __post_init__(self) -> None:
        n = np.asarray(self.normal, dtype=float)
        norm = float(np.hypot(*n))
        if not np.isfinite(norm) or norm == 0.0:
            raise ContactError(f"rigid plane normal must be a non-zero vector, got {self.normal}")
        object.__setattr__(self, "normal", (float(n[0] / norm), float(n[1] / norm)))
        object.__setattr__(self, "point", (float(self.point[0]), float(self.point[1])))


@dataclass(frozen=True)
class ContactGeometry:
    """Geometry of a zone at one configuration; arrays over slave nodes (n_s,).

    gap [m]; normal, tangent (n_s, 2) unit vectors of the master; master (n_s, 2) node indices of
    the master segment (-1 for a rigid plane); xi (n_s,) projection parameter.
    """

    slave: np.ndarray
    gap: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    master: np.ndarray
    xi: np.ndarray

    def local_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Dofs (n_s, m) and values (n_s, m) of normal_rows and tangent_rows, node by node (m = 2 on
        a rigid plane: the slave's x, y; m = 6 on master segments: slave, first and second master
        node, x then y)."""
        if self.master.size == 0 or self.master[0, 0] < 0:
            return 2 * self.slave[:, None] + _XY, self.normal.copy(), self.tangent.copy()
        nodes = np.column_stack([self.slave, self.master])  # (n_s, 3): slave, first, second master node
        dofs = (2 * nodes[:, :, None] + _XY).reshape(-1, 6)
        w = np.column_stack([np.ones_like(self.xi), self.xi - 1.0, -self.xi])[:, :, None]  # (n_s, 3, 1)
        return dofs, (w * self.normal[:, None, :]).reshape(-1, 6), (w * self.tangent[:, None, :]).reshape(-1, 6)

    def normal_rows(self, n_dofs: int) -> sp.csr_matrix:
        """dg/du, (n_s, n_dofs)."""
        dofs, normal, _ = self.local_rows()
        return SparseRows(dofs, normal, n_dofs).tocsr()

    def tangent_rows(self, n_dofs: int) -> sp.csr_matrix:
        """d(ds)/du, (n_s, n_dofs)."""
        dofs, _, tangent = self.local_rows()
        return SparseRows(dofs, tangent, n_dofs).tocsr()


def _edge_owners(mesh: Mesh, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many distinct surface cells have each edge (n_e, 2) of corner nodes, and the centroid
    (n_e, 2) of one of them (NaN where none). A cell listed in several groups (e.g. a stack's
    BLOCK and BLOCK_1) counts once."""
    n = mesh.n_nodes
    keys, cells, centroids = [], [], []
    for block in mesh.cell_groups.values():
        if block.dim != 2:
            continue
        n_corner = 4 if block.cell_type.startswith("quad") else 3
        corners = block.connectivity[:, :n_corner]
        pairs = np.stack([corners, np.roll(corners, -1, axis=1)], axis=-1).reshape(-1, 2)
        pairs = np.sort(pairs, axis=1)
        keys.append(pairs[:, 0] * n + pairs[:, 1])
        cell = np.full((corners.shape[0], 4), -1, dtype=np.int64)  # the cell's sorted corners: its identity
        cell[:, :n_corner] = np.sort(corners, axis=1)
        cells.append(np.repeat(cell, n_corner, axis=0))
        centroids.append(np.repeat(mesh.points[block.connectivity].mean(axis=1), n_corner, axis=0))
    all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    all_centroids = np.concatenate(centroids) if centroids else np.zeros((0, 2))
    if keys:  # one entry per (edge, distinct cell)
        _, first = np.unique(np.column_stack([all_keys, np.concatenate(cells)]), axis=0, return_index=True)
        first = np.sort(first)
        all_keys, all_centroids = all_keys[first], all_centroids[first]
    order = np.argsort(all_keys, kind="stable")
    sorted_keys = all_keys[order]
    wanted = np.sort(edges, axis=1)
    wanted = wanted[:, 0] * n + wanted[:, 1]
    left = np.searchsorted(sorted_keys, wanted, "left")
    count = np.searchsorted(sorted_keys, wanted, "right") - left
    centroid = np.full((edges.shape[0], 2), np.nan)
    has = count > 0
    centroid[has] = all_centroids[order[left[has]]]
    return count, centroid


@dataclass(frozen=True)
class ContactZone:
    """Slave nodes of a line group against a master line group or a rigid plane.

    Build with :func:`contact_zone`. Attributes: ``slave`` (n_s,) node indices; ``segments``
    (n_m, 2) oriented master segments (corner nodes) or None; ``plane`` or None; ``clearance``
    JEU [m]; ``extension`` TOLE_PROJ_EXT (fraction of a segment length a projection may fall
    outside the master surface's end segments; beyond it the node is unpaired, i.e. open).
    """

    slave: np.ndarray
    segments: np.ndarray | None
    plane: RigidPlane | None
    clearance: float
    extension: float
    slave_group: str
    master_name: str

    @property
    def size(self) -> int:
        return int(self.slave.size)

    def geometry(self, points: np.ndarray, u: np.ndarray) -> ContactGeometry:
        """Pair and measure in the configuration x = X + u (points (n, 2), u (2 n,))."""
        x = points + u.reshape(-1, 2)
        xs = x[self.slave]
        ns = self.slave.size
        if self.plane is not None:
            n = np.broadcast_to(np.asarray(self.plane.normal), (ns, 2)).copy()
            t = np.column_stack([-n[:, 1], n[:, 0]])  # n = (t_y, -t_x)
            gap = (xs - np.asarray(self.plane.point)) @ np.asarray(self.plane.normal) + self.clearance
            return ContactGeometry(self.slave, gap, n, t, np.full((ns, 2), -1), np.zeros(ns))
        a, b = x[self.segments[:, 0]], x[self.segments[:, 1]]  # (n_m, 2)
        d = b - a
        dx, dy = d[:, 0], d[:, 1]
        length2 = dx * dx + dy * dy
        rx, ry = xs[:, 0, None] - a[:, 0], xs[:, 1, None] - a[:, 1]  # (n_s, n_m): slave - first node
        xi = (rx * dx + ry * dy) / length2
        clamped = np.clip(xi, 0.0, 1.0)
        ox, oy = rx - clamped * dx, ry - clamped * dy  # slave - closest point of the segment
        best = np.argmin(np.sqrt(ox * ox + oy * oy), axis=1)
        xi_p = xi[np.arange(ns), best]
        # unclamped projection on the chosen segment; beyond the surface's ends only up to `extension`
        xi_b = np.clip(xi_p, -self.extension, 1.0 + self.extension)
        db = d[best]
        t = db / np.sqrt(length2[best])[:, None]
        n = np.column_stack([t[:, 1], -t[:, 0]])
        gap = ((xs - a[best] - xi_b[:, None] * db) * n).sum(axis=1) + self.clearance
        gap[xi_p != xi_b] = np.inf  # projection beyond the tolerated extension
        return ContactGeometry(self.slave, gap, n, t, self.segments[best], xi_b)


def contact_zone(mesh: Mesh, slave: str, master: str | RigidPlane, clearance: float = 0.0,
                 extension: float = 0.5) -> ContactZone:
    """Define a contact zone (Code_Aster DEFI_CONTACT ZONE: GROUP_MA_ESCL, GROUP_MA_MAIT, DIST).

    Parameters
    ----------
    slave : line group on the boundary of a body (e.g. "CONHAUT").
    master : line group of the other body (e.g. "CONBAS"), or a :class:`RigidPlane`.
    clearance : JEU [m].
    extension : TOLE_PROJ_EXT as a fraction of the end segments' length.

    Raises
    ------
    ContactError : slave lines not on a body boundary, master normal pointing into the slave body,
        non-finite clearance, slave and master sharing nodes.
    """
    if not np.isfinite(clearance):
        raise ContactError(f"clearance (JEU) must be finite, got {clearance}")
    if not extension >= 0:
        raise ContactError(f"projection extension tolerance must be >= 0, got {extension}")
    lines = mesh.cells(slave)
    if lines.dim != 1:
        raise ContactError(f"slave group {slave!r} must be a line group, it holds {lines.cell_type!r} cells")
    edges = lines.connectivity[:, :2]
    counts, centroids = _edge_owners(mesh, edges)
    if np.any(counts != 1):
        bad = int(np.flatnonzero(counts != 1)[0])
        raise ContactError(
            f"slave group {slave!r} is not on the boundary of a body: its segment {edges[bad].tolist()} "
            f"belongs to {counts[bad]} surface cells (a contact surface must border exactly one)"
        )
    slave_nodes = np.unique(lines.connectivity)
    if isinstance(master, RigidPlane):
        zone = ContactZone(slave_nodes, None, master, float(clearance), float(extension), slave, "rigid plane")
        # "toward the slave": from the plane to the centroids of the slave cells along the line
        side = (centroids - np.asarray(master.point)) @ np.asarray(master.normal)
    else:
        mlines = mesh.cells(master)
        if mlines.dim != 1:
            raise ContactError(f"master group {master!r} must be a line group, it holds {mlines.cell_type!r} cells")
        segments = np.asarray(mlines.connectivity[:, :2])
        if np.intersect1d(segments, slave_nodes).size:
            raise ContactError(f"slave group {slave!r} and master group {master!r} share nodes: "
                               "contact needs distinct nodes on the two bodies")
        zone = ContactZone(slave_nodes, segments, None, float(clearance), float(extension), slave, master)
        geo = zone.geometry(mesh.points, np.zeros(2 * mesh.n_nodes))
        first = np.searchsorted(slave_nodes, edges[:, 0])  # slave-node index of each segment's first node
        paired = np.isfinite(geo.gap[first])
        first, n = first[paired], geo.normal[first[paired]]
        x_master = mesh.points[edges[paired, 0]] - (geo.gap[first] - zone.clearance)[:, None] * n
        side = np.einsum("si,si->s", centroids[paired] - x_master, n)
    if np.any(side <= 0):
        raise ContactError(
            f"the master normal of {zone.master_name!r} points into the slave body {slave!r} (or away from it): "
            "master lines must be oriented with their own body on the left (ORIE_PEAU_2D) and the rigid "
            "plane normal must point toward the slave"
        )
    return zone


def node_zone(mesh: Mesh, group: str, master: str | RigidPlane, clearance: float = 0.0,
              extension: float = 0.5) -> ContactZone:
    """Nodes of a node group against a master line group or a rigid plane (Code_Aster DIS_CHOC on
    POI1 elements: shock elements at chosen nodes, e.g. the corners O, A and the base centre O1).

    No boundary or orientation check is possible for isolated nodes: the master normal (or the
    plane normal) defines which side is open.
    """
    if not np.isfinite(clearance):
        raise ContactError(f"clearance (JEU) must be finite, got {clearance}")
    nodes = np.unique(mesh.nodes(group))
    if isinstance(master, RigidPlane):
        return ContactZone(nodes, None, master, float(clearance), float(extension), group, "rigid plane")
    segments = np.asarray(mesh.cells(master).connectivity[:, :2])
    if np.intersect1d(segments, nodes).size:
        raise ContactError(f"node group {group!r} and master group {master!r} share nodes")
    return ContactZone(nodes, segments, None, float(clearance), float(extension), group, master)


# ------------------------------------------------------------------------------------ node pairs
@dataclass(frozen=True)
class NodePairs:
    """Code_Aster ``BI_PLAN`` obstacle between node i of ``slave`` and node i of ``other``: the gap is
    the distance of the two nodes along a fixed unit direction minus DIST_1 + DIST_2::

        g = (x_slave - x_other) . n - (DIST_1 + DIST_2)

    with n = +-direction, the sign that makes the initial distance positive (the slave lies on the +n
    side). Build with :func:`node_pairs`. Presents the interface of a contact zone (``slave``,
    ``size``, ``slave_group``, ``geometry``): the rows dg/du are +n at the slave and -n at the other
    node (a :class:`ContactGeometry` whose master "segment" is the other node twice, xi = 0).
    """

    slave: np.ndarray
    other: np.ndarray
    normal: np.ndarray  # (n_s, 2)
    clearance: float
    slave_group: str
    master_name: str
    segments: None = None
    plane: None = None

    @property
    def size(self) -> int:
        return int(self.slave.size)

    def geometry(self, points: np.ndarray, u: np.ndarray) -> ContactGeometry:
        x = points + u.reshape(-1, 2)
        n = self.normal
        gap = np.einsum("si,si->s", x[self.slave] - x[self.other], n) + self.clearance
        t = np.column_stack([-n[:, 1], n[:, 0]])
        master = np.column_stack([self.other, self.other])
        return ContactGeometry(self.slave, gap, n.copy(), t, master, np.zeros(self.size))


def node_pairs(mesh, group_1: str, group_2: str, direction=(1.0, 0.0), dist_1: float = 0.0,
               dist_2: float = 0.0) -> NodePairs:
    """Pair the nodes of two node groups (same count, index order) for a ``BI_PLAN`` obstacle along
    ``direction`` (Code_Aster NORM_OBST), with thicknesses DIST_1, DIST_2 [m] (>= 0)."""
    a = np.asarray(mesh.nodes(group_1))
    b = np.asarray(mesh.nodes(group_2))
    if a.size != b.size:
        raise ContactError(f"node groups {group_1!r} ({a.size} nodes) and {group_2!r} ({b.size}) differ in size")
    if np.intersect1d(a, b).size:
        raise ContactError(f"node groups {group_1!r} and {group_2!r} share nodes")
    for name, value in (("DIST_1", dist_1), ("DIST_2", dist_2)):
        if not (np.isfinite(value) and value >= 0):
            raise ContactError(f"{name} must be >= 0 m, got {value}")
    d = np.asarray(direction, dtype=float)
    norm = float(np.hypot(*d))
    if not np.isfinite(norm) or norm == 0.0:
        raise ContactError(f"BI_PLAN direction must be a non-zero vector, got {direction}")
    d = d / norm
    along = (mesh.points[a] - mesh.points[b]) @ d
    if np.any(along == 0.0):
        raise ContactError(f"nodes of {group_1!r} and {group_2!r} have the same position along {tuple(d)}: "
                           "the side of the obstacle is undefined")
    normal = np.sign(along)[:, None] * d[None, :]
    return NodePairs(a, b, normal, -float(dist_1 + dist_2), group_1, group_2)


@dataclass(frozen=True)
class BiPlane:
    """The master of a pair of node groups (Code_Aster ``BI_PLAN``): node i of the slave group against
    node i of the node group ``other``, along ``direction`` (NORM_OBST), the gap the distance of the two
    minus the thicknesses ``dist_1`` + ``dist_2`` [m] (DIST_1, DIST_2) and plus the pair's clearance
    (:func:`node_pairs`). SDND105 b: two masses flying at each other."""

    other: str
    direction: tuple[float, float] = (1.0, 0.0)
    dist_1: float = 0.0
    dist_2: float = 0.0

    @property
    def groups(self) -> tuple[str, ...]:
        """The mesh groups the obstacle names (checked before a run)."""
        return (self.other,)

    @property
    def name(self) -> str:
        return self.other


def zone_of(mesh: Mesh, slave: str, master: "str | RigidPlane | BiPlane", clearance: float = 0.0):
    """The contact zone of a slave line group (or a node group) against a master line group or a
    rigid plane (:func:`contact_zone`, :func:`node_zone`), or of a node group against the nodes of
    a :class:`BiPlane` (:func:`node_pairs`); ``clearance``: JEU [m]."""
    if isinstance(master, BiPlane):
        pairs = node_pairs(mesh, slave, master.other, master.direction, master.dist_1, master.dist_2)
        if not np.isfinite(clearance):
            raise ContactError(f"clearance (JEU) must be finite, got {clearance}")
        return pairs if clearance == 0.0 else replace(pairs, clearance=pairs.clearance + float(clearance))
    if slave in mesh.cell_groups and mesh.cell_groups[slave].dim == 1:
        return contact_zone(mesh, slave, master, clearance)
    return node_zone(mesh, slave, master, clearance)
