"""Read a gmsh ``.msh`` file (through meshio) into a :class:`fem.mesh.mesh.Mesh`.

Physical groups
---------------
Named physical groups come from meshio's ``field_data`` (name -> ``[tag, dim]``). Groups of
dimension 1 and 2 become cell groups (one cell type per group) and node groups; groups of
dimension 0 (meshio ``vertex`` cells, e.g. the one-node groups ``O``, ``C1``) become node groups
only. Unnamed physical groups and elements outside every named group are ignored.

Overlapping physical groups (design choice)
-------------------------------------------
In msh 4.1 (gmsh's default format, the one written by :mod:`meshes.generate`), physical groups
are attached to geometric *entities*; an entity may carry several physical tags (e.g. the
block-base line in both ``CONHAUT`` and ``CTBLO``) and its elements are written once. meshio 5.3.5
(``meshio/gmsh/_gmsh41.py``) keeps only the *first* physical tag of each entity in
``cell_data["gmsh:physical"]``, so that array alone loses the second group. It does, however, build
``cell_sets[name]`` (one index array per cell block) from the full list of physical tags of each
entity, which is correct for overlapping groups. In msh 2.2, gmsh writes one copy of each element
per physical group and meshio reports the group in ``cell_data["gmsh:physical"]`` (no
``cell_sets``).

The reader therefore takes, for each named group, the union of the cells listed in
``cell_sets[name]`` and of the cells whose ``gmsh:physical`` tag (and dimension) match the
group, then drops duplicates (cells with the same node set) in first-occurrence order. This works
for msh 4.1 files from :mod:`meshes.generate`, for msh 4.1 files written from the gmsh GUI / a
``.geo`` script (with entities carrying several physical groups), and for msh 2.2 files; no
special way of writing the files is needed.

Known meshio 5.3.5 limitation: a msh 4.1 file containing elements of entities without any
physical group (gmsh ``Mesh.SaveAll = 1`` together with physical groups) is rejected by meshio
("Incompatible cell data"); save with ``Mesh.SaveAll = 0`` (gmsh's default when physical groups
exist). Two physical groups with the same name in different dimensions collapse into one
``field_data`` entry in meshio (the last one wins).

Post-processing
---------------
* Only the nodes of cells of dimension 1 or 2 of the named groups are kept, renumbered compactly
  in gmsh's relative order; coordinates are (n, 2) (z dropped; ``|z|`` above 1e-12 times the mesh
  size is a :class:`~fem.mesh.mesh.MeshError`, "mesh is not planar"). A coordinate that is NaN,
  infinite or beyond 1e6 m (:data:`fem.ranges.COORDINATE`) is a :class:`~fem.mesh.mesh.MeshError`
  naming the file and the node, so that such a mesh is refused when it is read.
* Surface cells must have a positive signed area (counter-clockwise corners), otherwise a
  :class:`~fem.mesh.mesh.MeshError` names the group, the cell index in the group and "inverted".
* Every line cell is oriented as Code_Aster ``ORIE_PEAU_2D``: walking from node 0 to node 1 keeps
  the one adjacent surface cell on the left (outward normal ``(t_y, -t_x)``). Lines with two
  adjacent surface cells (interior lines) or none keep gmsh's order.
"""
from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import meshio

from fem.mesh.mesh import LINE_CELL_TYPES, SURFACE_CELL_TYPES, CellBlock, Mesh, MeshError
from fem.ranges import COORDINATE, number

#: Number of corner nodes of each supported surface cell type (corners come first, counter-clockwise).
N_CORNERS = {"quad": 4, "quad8": 4, "triangle": 3, "triangle6": 3}

PLANAR_TOLERANCE = 1e-12

_DIM_OF_TYPE = {
    "vertex": 0,
    **{cell_type: 1 for cell_type in LINE_CELL_TYPES},
    **{cell_type: 2 for cell_type in SURFACE_CELL_TYPES},
}


@dataclass(frozen=True)
class RawGroup:
    """One named physical group as read from the file.

    Attributes
    ----------
    name : physical group name.
    dim : physical group dimension (0, 1 or 2).
    cell_type : meshio cell type of its cells (``"vertex"`` for dimension 0).
    connectivity : int array, shape (n_cells, n_nodes_per_cell), indices into the file's points.
    """

    name: str
    dim: int
    cell_type: str
    connectivity: np.ndarray


# ---------------------------------------------------------------------------------------------
# file
# ---------------------------------------------------------------------------------------------


def read_meshio(path: pathlib.Path) -> meshio.Mesh:
    """The meshio mesh of the gmsh file ``path``; :class:`MeshError` naming the file otherwise."""
    if not path.exists():
        raise MeshError(f"mesh file {str(path)!r} does not exist")
    if not path.is_file():
        raise MeshError(f"mesh file {str(path)!r} is not a file")
    import meshio  # imported on use (issue 40: start-up)

    try:
        # meshio.gmsh.read rather than meshio.read: the latter calls sys.exit(1) on a read error
        return meshio.gmsh.read(os.fspath(path))
    except Exception as exc:  # meshio raises ReadError, ValueError, IndexError, ... on bad input
        raise MeshError(_unreadable(path, exc)) from exc


#: how a gmsh .msh file begins (ASCII and binary alike)
GMSH_HEADER = b"$MeshFormat"


def _unreadable(path: pathlib.Path, exc: Exception) -> str:
    """One line naming the file and what is wrong with it: not a gmsh mesh at all (empty, or not
    beginning with ``$MeshFormat``: its first bytes shown), or a gmsh mesh meshio could not read;
    meshio's own message, else the type of its error (meshio's ReadError often has no message)."""
    said = " ".join(str(exc).split())
    why = f"meshio: {said[:200]}" if said else f"meshio: {type(exc).__name__}"
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError as err:
        return f"{path}: cannot be read ({err.strerror or err})"
    if not head.strip():
        return f"{path}: not a gmsh mesh: the file is empty ({why})"
    if not head.lstrip().startswith(GMSH_HEADER):
        first = head.lstrip().splitlines()[0][:24]
        return (f"{path}: not a gmsh mesh: it begins with {first.decode('latin-1')!r}, not "
                f"{GMSH_HEADER.decode()} ({why})")
    hint = ""
    if "Incompatible cell data" in said:
        hint = " (elements outside physical groups? save the mesh with Mesh.SaveAll = 0)"
    return f"{path}: not a gmsh mesh meshio can read ({why}){hint}"


# ---------------------------------------------------------------------------------------------
# physical groups
# ---------------------------------------------------------------------------------------------


def group_cell_indices(raw: meshio.Mesh, name: str, tag: int, dim: int) -> list[np.ndarray]:
    """Per cell block, the indices of the cells of physical group ``name`` (tag ``tag``, dim ``dim``).

    Union of meshio's ``cell_sets[name]`` (msh 4.1, overlapping groups included) and of the cells
    whose ``gmsh:physical`` tag is ``tag`` in blocks of dimension ``dim`` (msh 2.2).
    """
    sets = raw.cell_sets.get(name)
    tags = _cells_by_tag(raw)
    indices = []
    empty = np.empty(0, dtype=np.int64)
    for k, block in enumerate(raw.cells):
        parts = []
        if sets is not None and k < len(sets) and sets[k] is not None and len(sets[k]):
            parts.append(np.asarray(sets[k], dtype=np.int64))
        if tags is not None and block.dim == dim and tag in tags[k]:
            parts.append(tags[k][tag])
        indices.append(np.unique(np.concatenate(parts)) if parts else empty)
    return indices


def _cells_by_tag(raw: meshio.Mesh) -> list[dict] | None:
    """Per cell block, ``gmsh:physical`` tag -> the (sorted) indices of its cells with that tag; None without
    physical tags. Made once per mesh read (kept on it): a mesh of many bodies has as many blocks as groups,
    and looking each group up in every block's tags costs their product."""
    cached = getattr(raw, "_rockfem_cells_by_tag", False)
    if cached is not False:
        return cached
    physical = raw.cell_data.get("gmsh:physical")
    cached = None
    if physical is not None:
        cached = []
        for k in range(len(raw.cells)):
            values = np.asarray(physical[k])
            order = np.argsort(values, kind="stable")  # within a tag, the cells in their order
            found, starts = np.unique(values[order], return_index=True)
            ends = np.append(starts[1:], values.size)
            cached.append({int(t): order[a:b].astype(np.int64) for t, a, b in zip(found, starts, ends)})
    raw._rockfem_cells_by_tag = cached
    return cached


def unique_cells(connectivity: np.ndarray) -> np.ndarray:
    """``connectivity`` without repeated cells (same node set), in first-occurrence order."""
    if connectivity.shape[0] < 2:
        return connectivity
    _, first = np.unique(np.sort(connectivity, axis=1), axis=0, return_index=True)
    return connectivity[np.sort(first)]


def raw_group(raw: meshio.Mesh, name: str, tag: int, dim: int, path: pathlib.Path) -> RawGroup:
    """The cells of one named physical group; :class:`MeshError` if unusable."""
    if dim not in (0, 1, 2):
        raise MeshError(
            f"{str(path)!r}: physical group {name!r} has dimension {dim}; only 0, 1 and 2 are supported"
        )
    selected = [
        (block.type, np.asarray(block.data)[idx])
        for block, idx in zip(raw.cells, group_cell_indices(raw, name, tag, dim))
        if idx.size
    ]
    if not selected:
        raise MeshError(f"{str(path)!r}: physical group {name!r} (dimension {dim}) has no elements")
    types = sorted({cell_type for cell_type, _ in selected})
    if len(types) > 1:
        raise MeshError(
            f"{str(path)!r}: physical group {name!r} mixes cell types {types}; "
            "one type per group is supported"
        )
    cell_type = types[0]
    if cell_type not in _DIM_OF_TYPE:
        raise MeshError(
            f"{str(path)!r}: physical group {name!r} has unsupported cell type {cell_type!r}; "
            f"supported: {list(SURFACE_CELL_TYPES) + list(LINE_CELL_TYPES)}"
        )
    connectivity = np.concatenate([data for _, data in selected]).astype(np.int64, copy=False)
    return RawGroup(name=name, dim=dim, cell_type=cell_type, connectivity=unique_cells(connectivity))


def raw_groups(raw: meshio.Mesh, path: pathlib.Path) -> list[RawGroup]:
    """Every named physical group of the file, in ``field_data`` order."""
    groups = []
    for name, value in raw.field_data.items():
        tag, dim = (int(v) for v in np.asarray(value).ravel()[:2])
        groups.append(raw_group(raw, name, tag, dim, path))
    if not any(group.dim in (1, 2) for group in groups):
        raise MeshError(f"{str(path)!r}: no named physical group of dimension 1 or 2")
    return groups


# ---------------------------------------------------------------------------------------------
# nodes
# ---------------------------------------------------------------------------------------------


def used_nodes(groups: list[RawGroup]) -> np.ndarray:
    """Sorted file indices of the nodes of the cells of dimension 1 or 2, shape (n_nodes,)."""
    return np.unique(np.concatenate([g.connectivity.ravel() for g in groups if g.dim in (1, 2)]))


def renumber(groups: list[RawGroup], used: np.ndarray, path: pathlib.Path) -> list[RawGroup]:
    """``groups`` with connectivities mapped from file indices to positions in ``used``."""
    renumbered = []
    for group in groups:
        flat = group.connectivity.ravel()
        position = np.minimum(np.searchsorted(used, flat), used.size - 1)
        if np.any(used[position] != flat):
            raise MeshError(
                f"{str(path)!r}: node group {group.name!r} has a node that belongs to no line or surface "
                "cell of a named physical group"
            )
        renumbered.append(
            RawGroup(group.name, group.dim, group.cell_type, position.reshape(group.connectivity.shape))
        )
    return renumbered


def check_coordinates(points: np.ndarray, used: np.ndarray, path: pathlib.Path) -> None:
    """:class:`MeshError` naming the file and the first node (gmsh's numbering: its position in the
    file's node list, from 1) with a coordinate that is not finite (NaN, inf) or beyond
    :data:`fem.ranges.COORDINATE` (|x| > 1e6 m: a coordinate's round-off would reach the contact
    tolerance). ``points``: the coordinates of the used nodes, (n, 2 or 3); ``used``: their
    indices in the file."""
    if points.size == 0:
        return
    bound = max(abs(COORDINATE.low), abs(COORDINATE.high))
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(points) | (np.abs(points) > bound)
    if not bad.any():
        return
    row, column = (int(i[0]) for i in np.nonzero(bad))
    value = float(points[row, column])
    what = "not a finite number" if not np.isfinite(value) else f"beyond the {number(bound)} m a mesh may span"
    rows = int(np.count_nonzero(bad.any(axis=1)))
    raise MeshError(
        f"{str(path)!r}: node {int(used[row]) + 1} has {'xyz'[column]} = {number(value)}: {what} "
        f"(coordinates must lie in {COORDINATE.interval()}); {rows} such node(s)"
    )


def planar_points(points: np.ndarray, path: pathlib.Path) -> np.ndarray:
    """x, y columns of ``points`` (n, 2 or 3) [m]; :class:`MeshError` if ``|z|`` exceeds 1e-12 * size."""
    xy = np.ascontiguousarray(points[:, :2], dtype=float)
    if points.shape[1] > 2 and points.shape[0]:
        size = float(np.max(np.ptp(xy, axis=0)))
        z_max = float(np.max(np.abs(points[:, 2])))
        if z_max > PLANAR_TOLERANCE * size:
            raise MeshError(
                f"{str(path)!r}: mesh is not planar: |z| up to {z_max:.3e} m for a mesh of size {size:.3e} m "
                f"(tolerance {PLANAR_TOLERANCE:g} * size)"
            )
    return xy


# ---------------------------------------------------------------------------------------------
# surface cells: orientation check
# ---------------------------------------------------------------------------------------------


def signed_areas(points: np.ndarray, cell_type: str, connectivity: np.ndarray) -> np.ndarray:
    """Signed area [m^2] of the corner polygon of each cell, shape (n_cells,); > 0 counter-clockwise."""
    corners = connectivity[:, : N_CORNERS[cell_type]]
    x = points[corners, 0]
    y = points[corners, 1]
    return 0.5 * np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)


def check_not_inverted(points: np.ndarray, group: RawGroup, path: pathlib.Path) -> None:
    """:class:`MeshError` naming the group and the first cell of non-positive signed area."""
    area = signed_areas(points, group.cell_type, group.connectivity)
    bad = np.flatnonzero(area <= 0.0)
    if bad.size:
        i = int(bad[0])
        raise MeshError(
            f"{str(path)!r}: cell group {group.name!r}: cell {i} (index in the group, nodes "
            f"{group.connectivity[i].tolist()}) is inverted (negative area {area[i]:.3e} m^2; clockwise "
            f"corners); {bad.size} such cell(s) in the group"
        )


# ---------------------------------------------------------------------------------------------
# line cells: orientation (ORIE_PEAU_2D)
# ---------------------------------------------------------------------------------------------


def edge_keys(a: np.ndarray, b: np.ndarray, n_nodes: int) -> np.ndarray:
    """Orientation-independent integer key of the edges ``(a[i], b[i])``."""
    return np.minimum(a, b).astype(np.int64) * n_nodes + np.maximum(a, b)


def surface_edges(surfaces: list[RawGroup], n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Corner edges of the distinct surface cells of ``surfaces``.

    Returns
    -------
    keys : int array, shape (n_edges,), sorted :func:`edge_keys`.
    starts : int array, shape (n_edges,), first node of each edge walking the cell
        counter-clockwise (the cell is on the left of ``start -> end``).
    """
    all_keys, all_starts = [np.empty(0, dtype=np.int64)], [np.empty(0, dtype=np.int64)]
    for cell_type in sorted({g.cell_type for g in surfaces}):
        cells = unique_cells(np.concatenate([g.connectivity for g in surfaces if g.cell_type == cell_type]))
        corners = cells[:, : N_CORNERS[cell_type]]
        ends = np.roll(corners, -1, axis=1)
        all_keys.append(edge_keys(corners.ravel(), ends.ravel(), n_nodes))
        all_starts.append(corners.ravel())
    keys = np.concatenate(all_keys)
    starts = np.concatenate(all_starts)
    order = np.argsort(keys, kind="stable")
    return keys[order], starts[order]


def oriented_lines(
    connectivity: np.ndarray, keys: np.ndarray, starts: np.ndarray, n_nodes: int
) -> np.ndarray:
    """Line cells flipped so that their single adjacent surface cell lies on their left.

    Lines with zero or two (or more) adjacent surface cells keep their order. For ``line3`` only
    nodes 0 and 1 are swapped (the mid node stays at index 2).
    """
    if keys.size == 0:
        return connectivity.copy()
    line_keys = edge_keys(connectivity[:, 0], connectivity[:, 1], n_nodes)
    first = np.searchsorted(keys, line_keys, side="left")
    count = np.searchsorted(keys, line_keys, side="right") - first
    start = starts[np.minimum(first, keys.size - 1)]
    flip = (count == 1) & (connectivity[:, 0] != start)
    out = connectivity.copy()
    out[flip, 0], out[flip, 1] = connectivity[flip, 1], connectivity[flip, 0]
    return out


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------


def read_mesh(path: str | os.PathLike) -> Mesh:
    """Read a gmsh ``.msh`` file (msh 4.1 or 2.2, ASCII or binary) into a :class:`~fem.mesh.mesh.Mesh`.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.msh`` file.

    Returns
    -------
    Mesh
        ``points`` (n_nodes, 2) [m] of the nodes used by line/surface cells of named physical
        groups, renumbered in gmsh's relative order; one cell group per named physical group of
        dimension 1 or 2 (lines oriented with the adjacent surface on the left); one node group
        per named physical group (sorted node indices).

    Raises
    ------
    MeshError
        Missing or unreadable file, no line/surface physical group, mixed or unsupported cell types
        in a group, a coordinate that is NaN, infinite or beyond 1e6 m, non-planar mesh, inverted
        surface cell.
    """
    path = pathlib.Path(path)
    raw = read_meshio(path)
    groups = raw_groups(raw, path)
    used = used_nodes(groups)
    groups = renumber(groups, used, path)
    check_coordinates(np.asarray(raw.points, dtype=float)[used], used, path)
    points = planar_points(np.asarray(raw.points)[used], path)

    surfaces = [g for g in groups if g.dim == 2]
    for group in surfaces:
        check_not_inverted(points, group, path)
    keys, starts = surface_edges(surfaces, points.shape[0])

    cell_groups = {}
    for group in groups:
        if group.dim == 2:
            cell_groups[group.name] = CellBlock(group.cell_type, group.connectivity)
        elif group.dim == 1:
            lines = oriented_lines(group.connectivity, keys, starts, points.shape[0])
            cell_groups[group.name] = CellBlock(group.cell_type, lines)
    node_groups = {group.name: np.unique(group.connectivity) for group in groups}
    return Mesh(points=points, cell_groups=cell_groups, node_groups=node_groups)
