"""Mesh checks before a run: cracks (unmerged duplicate nodes), floating parts, orphan nodes,
degenerate cells.

:func:`check_mesh` raises :class:`fem.mesh.mesh.MeshError` for what makes the problem ill-posed and
returns warnings for the rest:

* fatal, *unmerged duplicate nodes*: two distinct nodes at the same place (within 1e-9 times the
  bounding-box diagonal) that both belong to cells of the same surface region: the region is cut
  there (a crack). Coincident nodes of *different* regions are legitimate (the SDNV105 block's
  base on the table's top); nodes of a contact group are exempt (a declared interface).
* fatal, *floating part*: a connected component of the surface cells (nodes linked through cells)
  that touches no node group of ``supported_groups`` (imposed displacements, grounded springs) and
  is not linked to a supported component through a contact pair. Skipped when no supported group
  is given (nothing to be attached to).
* warnings: orphan nodes (in no surface cell and no node group), degenerate cells (area at most
  1e-12 times the mean cell area).

Vectorised (no loop over nodes or cells): coincident nodes by sorting coordinates rounded to the
tolerance, parts by :func:`scipy.sparse.csgraph.connected_components`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from fem.mesh.mesh import Mesh, MeshError
from fem.mesh.read import signed_areas

#: two nodes closer than this fraction of the bounding-box diagonal are coincident
COINCIDENT_TOLERANCE = 1e-9
#: a cell of area <= this fraction of the mean cell area is degenerate
DEGENERATE_AREA = 1e-12
#: items listed in a message before "and N more"
LISTED = 5


def _xy(points: np.ndarray, node: int) -> str:
    return f"({points[node, 0]:.6g}, {points[node, 1]:.6g})"


def _more(total: int) -> str:
    return f" and {total - LISTED} more" if total > LISTED else ""


def _coincident(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cluster label of every node (nodes within the tolerance share one) and the mask of the nodes
    that share their cluster with another node."""
    n = points.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    tol = COINCIDENT_TOLERANCE * float(np.hypot(*np.ptp(points, axis=0)))
    scaled = (points - points.min(axis=0)) / tol if tol > 0 else points
    rows, cols = [], []
    # four grids shifted by half a cell: two points closer than tol/2 in x and y share a cell in one
    for shift in ((0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)):
        key = np.floor(scaled + shift) if tol > 0 else scaled
        order = np.lexsort((key[:, 1], key[:, 0]))
        same = np.all(key[order[1:]] == key[order[:-1]], axis=1)
        rows.append(order[:-1][same])
        cols.append(order[1:][same])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    graph = sp.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return labels, np.bincount(labels)[labels] > 1


def _check_cracks(mesh: Mesh, surfaces, labels: np.ndarray, duplicated: np.ndarray) -> None:
    """MeshError naming coincident nodes of one region (at most LISTED clusters per region)."""
    problems = []
    for name, block in surfaces:
        mine = np.zeros(mesh.n_nodes, dtype=bool)
        mine[block.connectivity.ravel()] = True
        mine &= duplicated
        clusters = np.flatnonzero(np.bincount(labels[mine], minlength=labels.size) > 1)
        if clusters.size == 0:
            continue
        listed = []
        for c in clusters[:LISTED]:
            nodes = np.flatnonzero(mine & (labels == c))
            listed.append(f"nodes {', '.join(map(str, nodes))} at {_xy(mesh.points, nodes[0])}")
        problems.append(f"region {name} has unmerged duplicate nodes (a crack): {'; '.join(listed)}"
                        f"{_more(clusters.size)}")
    if problems:
        raise MeshError("mesh: " + "; ".join(problems) + ": merge them (gmsh: Coherence), or put the two sides "
                        "in different regions or in a contact pair")


def _check_floating(mesh: Mesh, surfaces, supported_groups, contact_groups, duplicated: np.ndarray) -> None:
    """MeshError naming the surface components attached to no support, directly or through contact."""
    n = mesh.n_nodes
    rows, cols = [], []
    for _, block in surfaces:  # each cell: its first node linked to the others
        conn = block.connectivity
        rows.append(np.repeat(conn[:, 0], conn.shape[1] - 1))
        cols.append(conn[:, 1:].ravel())
    for k, (slave, master) in enumerate(contact_groups):  # one extra vertex per pair joins both sides
        sides = np.concatenate([mesh.nodes(slave), mesh.nodes(master)])
        rows.append(np.full(sides.size, n + k))
        cols.append(sides)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    size = n + len(contact_groups)
    _, comp = connected_components(sp.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(size, size)),
                                   directed=False)
    comp = comp[:n]
    supported = np.zeros(size, dtype=bool)
    supported[comp[np.concatenate([mesh.nodes(g) for g in supported_groups])]] = True
    in_cell = np.zeros(n, dtype=bool)
    for _, block in surfaces:
        in_cell[block.connectivity.ravel()] = True
    floating = in_cell & ~supported[comp]
    parts = np.unique(comp[floating])
    if parts.size == 0:
        return
    messages = []
    for c in parts[:LISTED]:
        nodes = np.flatnonzero(floating & (comp == c))
        example = np.concatenate([nodes[duplicated[nodes]], nodes[~duplicated[nodes]]])[:2]
        regions = [name for name, block in surfaces if np.any(comp[block.connectivity[:, 0]] == c)]
        messages.append(
            f"part of region{'s' if len(regions) > 1 else ''} {', '.join(regions)} ({nodes.size} nodes, e.g. "
            f"nodes {', '.join(map(str, example))} at {_xy(mesh.points, example[0])}) is attached to no support "
            "and no contact")
    pairs = ", ".join(f"{s}/{m}" for s, m in contact_groups) or "none"
    raise MeshError("mesh: " + "; ".join(messages) + _more(parts.size) + ": a floating part or unmerged duplicate "
                    f"nodes (supports: {', '.join(supported_groups)}; contact pairs: {pairs})")


def _degenerate(mesh: Mesh, surfaces) -> list[str]:
    areas = [signed_areas(mesh.points, block.cell_type, block.connectivity) for _, block in surfaces]
    if not areas:
        return []
    mean = float(np.mean(np.abs(np.concatenate(areas))))
    warnings = []
    for (name, block), area in zip(surfaces, areas):
        bad = np.flatnonzero(area <= DEGENERATE_AREA * mean)
        if bad.size:
            cells = "; ".join(f"cell {i} (nodes {block.connectivity[i].tolist()}, area {area[i]:.3g} m^2)"
                              for i in bad[:LISTED])
            warnings.append(f"mesh: region {name}: {bad.size} degenerate cell(s) (area <= {DEGENERATE_AREA:g} x the "
                            f"mean cell area {mean:.3g} m^2): {cells}{_more(bad.size)}")
    return warnings


def _orphans(mesh: Mesh, surfaces) -> list[str]:
    used = np.zeros(mesh.n_nodes, dtype=bool)
    for _, block in surfaces:
        used[block.connectivity.ravel()] = True
    for nodes in mesh.node_groups.values():
        used[nodes] = True
    orphans = np.flatnonzero(~used)
    if orphans.size == 0:
        return []
    listed = ", ".join(f"{i} at {_xy(mesh.points, i)}" for i in orphans[:LISTED])
    return [f"mesh: {orphans.size} orphan node(s) in no surface cell and no group (no mass, no stiffness; held at "
            f"zero): nodes {listed}{_more(orphans.size)}"]


def check_mesh(mesh: Mesh, supported_groups: Sequence[str] = (),
               contact_groups: Sequence[tuple[str, str]] = ()) -> list[str]:
    """Check that ``mesh`` makes a well-posed problem; return the warnings.

    Parameters
    ----------
    mesh : the mesh.
    supported_groups : node groups held by imposed displacements (or grounded springs).
    contact_groups : (slave_group, master_group) node-group pairs; a part touching one side of a
        pair is linked with the parts touching the other side.

    Returns
    -------
    list of str : warnings (orphan nodes, degenerate cells), each a sentence.

    Raises
    ------
    MeshError : unmerged duplicate nodes in a region (names the nodes, their coordinates and the
        region), a floating part (names the region, node count and example nodes), an unknown group.
    """
    if isinstance(supported_groups, str):
        supported_groups = (supported_groups,)
    supported_groups = tuple(supported_groups)
    contact_groups = tuple(tuple(pair) for pair in contact_groups)
    if any(len(pair) != 2 for pair in contact_groups):
        raise TypeError(f"contact_groups must be (slave_group, master_group) pairs, e.g. [('CONHAUT', 'CONBAS')]; "
                        f"got {contact_groups!r}")
    surfaces = [(name, block) for name, block in mesh.cell_groups.items() if block.dim == 2]
    labels, duplicated = _coincident(mesh.points)
    for slave, master in contact_groups:  # coincident nodes of a contact interface are intended
        duplicated[mesh.nodes(slave)] = False
        duplicated[mesh.nodes(master)] = False
    _check_cracks(mesh, surfaces, labels, duplicated)
    if supported_groups and surfaces:
        _check_floating(mesh, surfaces, supported_groups, contact_groups, duplicated)
    return _orphans(mesh, surfaces) + _degenerate(mesh, surfaces)
