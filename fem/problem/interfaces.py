"""The interfaces between bodies, found from the mesh: where a face of one body lies on a face of another,
so that a problem states contact among many bodies with one law instead of a pair per joint
(:class:`fem.problem.Contact`).

A body's **boundary** is the edges of its cells that belong to one cell only, oriented with the body on
their left (a ``line`` of two nodes, or a ``line3`` with its mid node last for quadratic cells: the
mesh's own line convention), so that the outward normal of an edge of unit tangent t is (t_y, -t_x).
Two boundary edges of two bodies **face** each other when they lie on one line (both ends of each within
``tolerance`` of the other's line), run in opposite directions (the bodies on either side) and overlap
over more than ``tolerance``.

Broad phase: the edges' midpoints in a KD-tree (scipy.spatial.cKDTree); two edges that overlap on one
line have midpoints at most half their lengths' sum apart, so the candidate pairs are those within the
longest edge's length (plus ``tolerance``): O(n log n) for n boundary edges of comparable length.
Narrow phase: the facing test above.

An interface between bodies A and B (one per pair of bodies that face) is a node-to-segment contact: its
**master** is the lower body's face (the body whose facing edges' outward normals sum to a vector
pointing up; for a vertical interface, the left body's), the whole of that face: every boundary edge of
the master on the lines of its facing edges, turned toward the slave (a block on a wider table: the
table's whole top); its **slave** the other body's edges that face the master. Lengths in metres.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from fem.mesh.mesh import CellBlock, Mesh

#: surface cell type -> (number of corners, the line type of its edges, each edge's (start, end[, mid]) in
#: the cell's local numbering, counter-clockwise: the cell on the left)
EDGES = {"triangle": ("line", ((0, 1), (1, 2), (2, 0))),
         "quad": ("line", ((0, 1), (1, 2), (2, 3), (3, 0))),
         "triangle6": ("line3", ((0, 1, 3), (1, 2, 4), (2, 0, 5))),
         "quad8": ("line3", ((0, 1, 4), (1, 2, 5), (2, 3, 6), (3, 0, 7)))}
#: the nodes of a line cell of each type
WIDTH = {"line": 2, "line3": 3}
#: |n_y| of an interface's summed unit normal below this (relative): the interface is vertical
VERTICAL = 1e-9


@dataclass(frozen=True)
class Interface:
    """Two bodies in contact face to face: ``slave`` and ``master`` (body group names), the slave's and the
    master's boundary edges (node indices, (k, 2) for ``line``, (k, 3) for ``line3``, oriented with their
    body on the left) and their line types (each its body's: a TRIA6 body on a QUA4 one)."""

    slave: str
    master: str
    slave_edges: np.ndarray
    master_edges: np.ndarray
    slave_type: str
    master_type: str


@dataclass(frozen=True)
class Search:
    """What the search did: the bodies' boundary edges, the candidate edge pairs of the broad phase, the
    facing pairs of the narrow phase, the interfaces found, and its wall time [s]."""

    edges: int
    candidates: int
    facing: int
    interfaces: int
    seconds: float

    def record(self) -> dict:
        return {"boundary_edges": self.edges, "candidate_edge_pairs": self.candidates,
                "facing_edge_pairs": self.facing, "interfaces": self.interfaces, "seconds": self.seconds}


def boundary(mesh: Mesh, body: str) -> tuple[np.ndarray, str]:
    """The boundary edges of the surface group ``body`` (module docstring): (k, 2) or (k, 3) node indices in
    the order of its cells, and their line type."""
    cells = mesh.cell_groups[body]
    line_type, local = EDGES[cells.cell_type]
    edges = np.concatenate([cells.connectivity[:, list(e)] for e in local]).reshape(len(local), -1, len(local[0]))
    edges = edges.transpose(1, 0, 2).reshape(-1, len(local[0]))  # cell by cell, each cell's edges in turn
    a, b = np.minimum(edges[:, 0], edges[:, 1]), np.maximum(edges[:, 0], edges[:, 1])
    keys = a.astype(np.int64) * mesh.n_nodes + b
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    return edges[counts[inverse] == 1], line_type


def facing(p: np.ndarray, q: np.ndarray, owner: np.ndarray, tolerance: float):
    """The segments p -> q ((m, 2) each [m], of owners ``owner`` (m,)) that face one another (module docstring):
    ``(i, j, lo, hi, candidates)``, the pairs i < j of different owners, in (i, j) order, j on i's line (both
    its ends within ``tolerance``), running the other way, overlapping over [lo, hi] along i from p_i, longer
    than ``tolerance``; ``candidates`` the broad phase's pairs (a KD-tree over the midpoints, within the longest
    segment's length). A segment of zero length faces nothing."""
    length = np.hypot(*(q - p).T)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (q - p) / length[:, None]
    n = np.stack([t[:, 1], -t[:, 0]], axis=1)
    pairs = cKDTree(0.5 * (p + q)).query_pairs(float(length.max()) + tolerance, output_type="ndarray")
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    i, j = pairs[:, 0], pairs[:, 1]
    other = owner[i] != owner[j]
    i, j = i[other], j[other]
    on_line = ((np.abs(np.einsum("kd,kd->k", p[j] - p[i], n[i])) <= tolerance)
               & (np.abs(np.einsum("kd,kd->k", q[j] - p[i], n[i])) <= tolerance))
    opposite = np.einsum("kd,kd->k", t[i], t[j]) < 0.0
    s0, s1 = np.einsum("kd,kd->k", p[j] - p[i], t[i]), np.einsum("kd,kd->k", q[j] - p[i], t[i])
    lo, hi = np.maximum(0.0, np.minimum(s0, s1)), np.minimum(length[i], np.maximum(s0, s1))
    keep = on_line & opposite & (hi - lo > tolerance)
    return i[keep], j[keep], lo[keep], hi[keep], len(pairs)


def find(mesh: Mesh, bodies, tolerance: float) -> tuple[list[Interface], Search]:
    """The interfaces among the surface groups ``bodies`` (in the bodies' order: A before B) and what the
    search did; ``tolerance`` [m] (module docstring)."""
    started = time.perf_counter()
    edges, owner, types = [], [], {}
    for i, body in enumerate(bodies):
        e, types[body] = boundary(mesh, body)
        edges.append(e)
        owner.append(np.full(len(e), i))
    if not edges:
        return [], Search(0, 0, 0, 0, time.perf_counter() - started)
    width = max(e.shape[1] for e in edges)
    nodes = np.concatenate([np.pad(e, ((0, 0), (0, width - e.shape[1])), constant_values=-1) for e in edges])
    owner = np.concatenate(owner)
    p, q = mesh.points[nodes[:, 0], :2], mesh.points[nodes[:, 1], :2]
    length = np.hypot(*(q - p).T)
    t = (q - p) / length[:, None]
    n = np.stack([t[:, 1], -t[:, 0]], axis=1)
    i, j, _, _, broad = facing(p, q, owner, tolerance)
    found = []
    by_bodies: dict[tuple[int, int], tuple[set, set]] = {}
    for x, y in zip(i, j):
        a, b = (x, y) if owner[x] < owner[y] else (y, x)
        sides = by_bodies.setdefault((int(owner[a]), int(owner[b])), (set(), set()))
        sides[0].add(int(a))
        sides[1].add(int(b))
    order = np.argsort(owner, kind="stable")  # each body's edges, without scanning them all per interface
    of_body = np.split(order, np.searchsorted(owner[order], np.arange(1, len(bodies))))
    for (ka, kb), (on_a, on_b) in sorted(by_bodies.items()):
        normal = n[sorted(on_a)].sum(axis=0)
        scale = np.hypot(*normal)
        a_is_master = normal[1] > VERTICAL * scale or (abs(normal[1]) <= VERTICAL * scale and normal[0] > 0.0)
        (km, master_on), (ks, slave_on) = ((ka, on_a), (kb, on_b)) if a_is_master else ((kb, on_b), (ka, on_a))
        # the master's whole face: its boundary edges on the lines of its facing edges, turned the same way
        candidates = of_body[km]
        face = np.zeros(candidates.size, dtype=bool)
        for e in sorted(master_on):
            face |= ((np.abs((p[candidates] - p[e]) @ n[e]) <= tolerance)
                     & (np.abs((q[candidates] - p[e]) @ n[e]) <= tolerance) & (t[candidates] @ t[e] > 0.0))
        master = candidates[face]
        slave = np.array(sorted(slave_on))
        ts, tm = types[bodies[ks]], types[bodies[km]]
        found.append(Interface(bodies[ks], bodies[km], nodes[slave, :WIDTH[ts]], nodes[master, :WIDTH[tm]], ts, tm))
    search = Search(int(len(length)), int(broad), int(len(i)), len(found), time.perf_counter() - started)
    return found, search


@dataclass(frozen=True)
class Joints:
    """The master of a pair that holds many interfaces as one contact term (a merged
    :class:`fem.problem.Contact`): ``interfaces`` the (slave, master) line groups of each, ``labels`` their
    ``SLAVE/MASTER`` names, ``name`` the pair's. The contact law builds one zone of all of them, each
    slave node pairing only among its own interface's master segments (contact.zone.interface_zone)."""

    name: str
    interfaces: tuple[tuple[str, str], ...]
    labels: tuple[str, ...]


def with_interfaces(mesh: Mesh, interfaces: list[Interface], names: list[tuple[str, str]]) -> Mesh:
    """``mesh`` with each interface's slave and master edges as line groups (and their nodes as node groups,
    as a mesh file's groups) named ``names[k]`` = (slave, master)."""
    groups, nodes = dict(mesh.cell_groups), dict(mesh.node_groups)
    for face, (slave, master) in zip(interfaces, names):
        for name, edges, kind in ((slave, face.slave_edges, face.slave_type), (master, face.master_edges, face.master_type)):
            groups[name] = CellBlock(kind, edges)
            nodes[name] = np.unique(edges)
    return Mesh(mesh.points, groups, nodes)


def with_union(mesh: Mesh, name: str, groups: list[str]) -> Mesh:
    """``mesh`` with the line group ``name`` gathering the edges of the line groups ``groups`` (one cell type:
    the first one's; its nodes as a node group too)."""
    blocks = [mesh.cell_groups[g] for g in groups]
    kinds = {b.cell_type for b in blocks}
    if len(kinds) > 1:
        raise ValueError(f"the interfaces of {name} mix line types {sorted(kinds)}: merge them per element order")
    edges = np.concatenate([b.connectivity for b in blocks]) if blocks else np.zeros((0, 2), dtype=np.int64)
    cell_groups, node_groups = dict(mesh.cell_groups), dict(mesh.node_groups)
    cell_groups[name] = CellBlock(blocks[0].cell_type if blocks else "line", edges)
    node_groups[name] = np.unique(edges)
    return Mesh(mesh.points, cell_groups, node_groups)
