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

Compiled loops
--------------
The pairing, the measures and the rows are computed by plain Python loops over the slave nodes
compiled by ``numba.njit(cache=True)`` on first use (fem.compiled; end of this module): on the small zones users run most (2 to
40 slave nodes) numpy's per-call overhead cost more than the arithmetic. The same code runs as
Python under ``NUMBA_DISABLE_JIT=1`` (tests/test_contact_compiled.py runs it both ways against the
vectorised numpy forms), and evaluates each value with the operations, in the order, of the
vectorised form (the same bits, but for the rigid plane's gap, whose dot product numpy's matrix
product may fuse: its last bit), ``error_model="numpy"``: a division by zero gives inf or NaN.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from fem import compiled
from fem.mesh.mesh import Mesh
from fem.model.sparsity import SparseRows


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
        a rigid plane: the slave's x, y, values n and t; m = 6 on master segments: slave, first and
        second master node, x then y, values w n and w t with the weights (1, xi - 1, -xi):
        :func:`segment_rows`)."""
        plane = self.master.size == 0 or self.master[0, 0] < 0
        m = 2 if plane else 6
        ns = self.slave.size
        dofs, wn, wt = np.empty((ns, m), dtype=np.int64), np.empty((ns, m)), np.empty((ns, m))
        if plane:
            plane_rows(self.slave, self.normal, self.tangent, dofs, wn, wt)
        else:
            segment_rows(self.slave, self.master, self.xi, self.normal, self.tangent, dofs, wn, wt)
        return dofs, wn, wt

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
    candidates: np.ndarray | None = None  # (n_s, 2): point i pairs among segments[lo:hi] (None: all)
    joints: tuple = ()  # the joints' labels of an interface zone (:func:`interface_zone`)
    joint_of: np.ndarray | None = None  # (n_s,): the joint of each slave point

    @property
    def size(self) -> int:
        return int(self.slave.size)

    def candidate_ranges(self) -> np.ndarray:
        """(n_s, 2) int64: the [lo, hi) range of the master segments each slave point pairs among."""
        if self.candidates is not None:
            return self.candidates
        ranges = np.zeros((self.slave.size, 2), dtype=np.int64)
        ranges[:, 1] = 0 if self.segments is None else self.segments.shape[0]
        return ranges

    def geometry(self, points: np.ndarray, u: np.ndarray) -> ContactGeometry:
        """Pair and measure in the configuration x = X + u (points (n, 2), u (2 n,)).

        Rigid plane (point p, normal n): g = (x_s - p) . n + clearance, t = (-n_y, n_x), master -1,
        xi 0. Master segments (a, b), d = b - a: each slave node pairs with the segment (among its
        candidates, :meth:`candidate_ranges`) whose
        closest point (at xi = (x_s - a) . d / |d|^2 clipped to [0, 1]) is nearest; on it t = d / |d|,
        n = (t_y, -t_x), xi_b = xi clipped to [-extension, 1 + extension] and
        g = (x_s - a - xi_b d) . n + clearance, g = +inf where xi != xi_b (projection beyond the
        tolerated extension: unpaired). Compiled loops :func:`plane_geometry`,
        :func:`segment_geometry`."""
        points, u = np.asarray(points, dtype=float), np.asarray(u, dtype=float)
        if points.ndim != 2 or points.shape[1] != 2 or u.shape != (points.size,):
            raise ValueError(f"geometry needs points (n, 2) and u (2 n,), got {points.shape} and {u.shape}")
        ns = self.slave.size
        gap, normal, tangent, xi = np.empty(ns), np.empty((ns, 2)), np.empty((ns, 2)), np.zeros(ns)
        if self.plane is not None:
            (px, py), (nx, ny) = self.plane.point, self.plane.normal
            plane_geometry(points, u, self.slave, px, py, nx, ny, self.clearance, gap, normal, tangent)
            return ContactGeometry(self.slave, gap, normal, tangent, np.full((ns, 2), -1), xi)
        if self.segments.shape[0] == 0 and ns:
            raise ContactError(f"master {self.master_name!r} of zone {self.slave_group!r} has no segment")
        best = np.empty(ns, dtype=np.int64)
        segment_geometry(points, u, self.slave, self.segments, self.candidate_ranges(), self.extension, self.clearance,
                         gap, normal, tangent, best, xi)
        return ContactGeometry(self.slave, gap, normal, tangent, self.segments[best], xi)


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
        segments = np.ascontiguousarray(mlines.connectivity[:, :2])
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
    segments = np.ascontiguousarray(mesh.cells(master).connectivity[:, :2])
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
    if hasattr(master, "interfaces"):  # the joints a contact found, one term (fem.problem.interfaces.Joints)
        return interface_zone(mesh, slave, master, clearance)
    if isinstance(master, BiPlane):
        pairs = node_pairs(mesh, slave, master.other, master.direction, master.dist_1, master.dist_2)
        if not np.isfinite(clearance):
            raise ContactError(f"clearance (JEU) must be finite, got {clearance}")
        return pairs if clearance == 0.0 else replace(pairs, clearance=pairs.clearance + float(clearance))
    if slave in mesh.cell_groups and mesh.cell_groups[slave].dim == 1:
        return contact_zone(mesh, slave, master, clearance)
    return node_zone(mesh, slave, master, clearance)


def interface_zone(mesh: Mesh, slave: str, joints, clearance: float = 0.0, extension: float = 0.5) -> ContactZone:
    """One zone for many joints (``joints.interfaces``: (slave line group, master line group) each, labelled
    ``joints.labels``): the slave nodes of every joint, a node on two joints once for each (a brick's corner
    on its bed and its head joint), each pairing only among its own joint's master segments
    (:attr:`ContactZone.candidates`): what one pair of each joint would compute, as one term. ``slave``:
    the line group of all the slave edges (the zone's name)."""
    if not np.isfinite(clearance):
        raise ContactError(f"clearance (JEU) must be finite, got {clearance}")
    points, segments, ranges, owner = [], [], [], []
    for k, (s, m) in enumerate(joints.interfaces):
        nodes = np.unique(mesh.cells(s).connectivity)
        seg = np.ascontiguousarray(mesh.cells(m).connectivity[:, :2])
        if np.intersect1d(seg, nodes).size:
            raise ContactError(f"slave group {s!r} and master group {m!r} share nodes: "
                               "contact needs distinct nodes on the two bodies")
        first = sum(len(x) for x in segments)
        points.append(nodes)
        segments.append(seg)
        ranges.append(np.tile([first, first + len(seg)], (nodes.size, 1)))
        owner.append(np.full(nodes.size, k))
    empty = np.zeros(0, dtype=np.int64)
    return ContactZone(np.concatenate(points) if points else empty,
                       np.concatenate(segments).astype(np.int64) if segments else np.zeros((0, 2), dtype=np.int64),
                       None, float(clearance), float(extension), slave, joints.name,
                       np.concatenate(ranges).astype(np.int64) if ranges else np.zeros((0, 2), dtype=np.int64),
                       tuple(joints.labels), np.concatenate(owner) if owner else empty)


# ------------------------------------------------------------------------------------ compiled loops
# They fill arrays the caller allocates and return nothing: a tuple of arrays boxed by numba on return
# meets a signal handler that raised (fem.time.interrupt) as "SystemError: ... returned a result with
# an exception set", where a run must stop cleanly.
@compiled.loop(cache=True, error_model="numpy")
def clip(x, low, high):
    """x clipped to [low, high], NaN kept (np.clip)."""
    if x < low:
        return low
    if x > high:
        return high
    return x


@compiled.loop(cache=True, error_model="numpy")
def plane_geometry(points, u, slave, px, py, nx, ny, clearance, gap, normal, tangent):
    """Slave nodes against the rigid plane through (px, py) of outward unit normal (nx, ny), in
    x = X + u: fills gap g = (x_s - p) . n + clearance, normal n and tangent t = (-n_y, n_x) (so that
    n = (t_y, -t_x)), (n_s,) and (n_s, 2)."""
    for i in range(slave.size):
        s = slave[i]
        x = points[s, 0] + u[2 * s]
        y = points[s, 1] + u[2 * s + 1]
        gap[i] = ((x - px) * nx + (y - py) * ny) + clearance
        normal[i, 0], normal[i, 1] = nx, ny
        tangent[i, 0], tangent[i, 1] = -ny, nx


@compiled.loop(cache=True, error_model="numpy")
def segment_geometry(points, u, slave, segments, candidates, extension, clearance, gap, normal, tangent, best, xi):
    """Slave nodes against master segments (a, b) in x = X + u (node-to-segment).

    Pairing: each slave node x_s goes with the segment, among its candidates segments[lo:hi]
    (``candidates`` (n_s, 2) = lo, hi: every segment, or those of its own joint), whose closest point to it is nearest (the
    first such segment on a tie; a degenerate segment, whose distance is NaN, wins as np.argmin
    would have it), the closest point at xi = (x_s - a) . d / |d|^2 clipped to [0, 1], d = b - a.
    Measures on that segment: xi_b = xi clipped to [-extension, 1 + extension] (TOLE_PROJ_EXT),
    t = d / |d|, n = (t_y, -t_x), gap g = (x_s - a - xi_b d) . n + clearance, and g = +inf when the
    projection falls beyond the extension (xi != xi_b: the node is unpaired).
    Fills gap, normal, tangent, best (the index of the segment) and xi (xi_b)."""
    ns, nm = slave.size, segments.shape[0]
    ax, ay = np.empty(nm), np.empty(nm)
    dx, dy, length2 = np.empty(nm), np.empty(nm), np.empty(nm)
    for j in range(nm):
        a, b = segments[j, 0], segments[j, 1]
        ax[j] = points[a, 0] + u[2 * a]
        ay[j] = points[a, 1] + u[2 * a + 1]
        dx[j] = (points[b, 0] + u[2 * b]) - ax[j]
        dy[j] = (points[b, 1] + u[2 * b + 1]) - ay[j]
        length2[j] = dx[j] * dx[j] + dy[j] * dy[j]
    for i in range(ns):
        s = slave[i]
        x = points[s, 0] + u[2 * s]
        y = points[s, 1] + u[2 * s + 1]
        lo, hi = candidates[i, 0], candidates[i, 1]
        k, nearest, xi_p = lo, np.inf, np.nan
        for j in range(lo, hi):
            rx, ry = x - ax[j], y - ay[j]
            xi_j = (rx * dx[j] + ry * dy[j]) / length2[j]
            c = clip(xi_j, 0.0, 1.0)
            ox, oy = rx - c * dx[j], ry - c * dy[j]  # slave - closest point of the segment
            distance = math.sqrt(ox * ox + oy * oy)
            if distance != distance:  # NaN: np.argmin takes the first one
                k, xi_p = j, xi_j
                break
            if j == lo or distance < nearest:
                k, nearest, xi_p = j, distance, xi_j
        best[i] = k
        # unclamped projection on the chosen segment; beyond the surface's ends only up to `extension`
        xi_b = clip(xi_p, -extension, 1.0 + extension)
        length = math.sqrt(length2[k])
        tx, ty = dx[k] / length, dy[k] / length
        nx, ny = ty, -tx
        g = ((x - ax[k]) - xi_b * dx[k]) * nx + ((y - ay[k]) - xi_b * dy[k]) * ny + clearance
        gap[i] = g if xi_p == xi_b else np.inf  # projection beyond the tolerated extension: unpaired
        normal[i, 0], normal[i, 1] = nx, ny
        tangent[i, 0], tangent[i, 1] = tx, ty
        xi[i] = xi_b


@compiled.loop(cache=True, error_model="numpy")
def segment_rows(slave, master, xi, normal, tangent, dofs, wn, wt):
    """Rows dg/du and d(ds)/du node by node on master segments: fills dofs (n_s, 6) of the slave, the
    first and the second master node (x then y), and the values wn = w_k n, wt = w_k t with the
    weights (w_slave, w_first, w_second) = (1, xi - 1, -xi)."""
    for i in range(slave.size):
        w_slave, w_first, w_second = 1.0, xi[i] - 1.0, -xi[i]
        for c in range(2):
            dofs[i, c] = 2 * slave[i] + c
            dofs[i, 2 + c] = 2 * master[i, 0] + c
            dofs[i, 4 + c] = 2 * master[i, 1] + c
            wn[i, c], wt[i, c] = w_slave * normal[i, c], w_slave * tangent[i, c]
            wn[i, 2 + c], wt[i, 2 + c] = w_first * normal[i, c], w_first * tangent[i, c]
            wn[i, 4 + c], wt[i, 4 + c] = w_second * normal[i, c], w_second * tangent[i, c]


@compiled.loop(cache=True, error_model="numpy")
def plane_rows(slave, normal, tangent, dofs, wn, wt):
    """Rows on a rigid plane: fills dofs (n_s, 2) of the slave node and the values wn = n, wt = t."""
    for i in range(slave.size):
        for c in range(2):
            dofs[i, c] = 2 * slave[i] + c
            wn[i, c] = normal[i, c]
            wt[i, c] = tangent[i, c]


@compiled.warm_up
def _load_compiled_loops() -> None:
    """Call each loop once on a small zone (two slave nodes, one master segment), in the types of a
    run: numba loads it from its cache (or compiles it, once per checkout) when a run starts
    (fem.compiled.load, before the run reports "running"), not at its first step. That first call
    into numba costs a process about 0.2 s, and a run that is already "running" (fem.run.lifecycle)
    must reach its first step promptly: a signal soon after the start reports the time reached
    (tests/test_sweep.py)."""
    points = np.array([[0.0, 0.0], [1.0, 0.0], [0.2, 0.1], [0.7, -0.1]])
    u, slave, segments = np.zeros(8), np.arange(2, 4), np.array([[1, 0]])
    gap, normal, tangent, xi = np.empty(2), np.empty((2, 2)), np.empty((2, 2)), np.empty(2)
    plane_geometry(points, u, slave, 0.0, 0.0, 0.0, 1.0, 0.0, gap, normal, tangent)
    plane_rows(slave, normal, tangent, np.empty((2, 2), dtype=np.int64), np.empty((2, 2)), np.empty((2, 2)))
    best = np.empty(2, dtype=np.int64)
    segment_geometry(points, u, slave, segments, np.array([[0, 1], [0, 1]], dtype=np.int64), 0.5, 0.0, gap, normal,
                     tangent, best, xi)
    segment_rows(slave, segments[best], xi, normal, tangent, np.empty((2, 6), dtype=np.int64), np.empty((2, 6)),
                 np.empty((2, 6)))
