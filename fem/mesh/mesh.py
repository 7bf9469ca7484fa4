"""Mesh data: node coordinates, cell groups and node groups, named as the physical groups of gmsh.

A :class:`Mesh` is what every other part of the code sees of a mesh. It is built by
:func:`fem.mesh.read.read_mesh` from a gmsh ``.msh`` file (through meshio) or directly in memory
(tests). Group names follow Code_Aster's GROUP_MA / GROUP_NO: a physical group of dimension 1 or 2
is a *cell group*; every physical group (of any dimension, points included) also gives a *node
group* holding the nodes of its cells (Code_Aster's ``CREA_GROUP_NO(TOUT_GROUP_MA='OUI')``).

Cell types and local node order are those of gmsh / meshio / VTK (documented once, here)::

    quad (QUA4)        triangle6 (TRIA6)      line (SEG2)    line3 (SEG3)
    3-----2            2                      0-----1        0--2--1
    |     |            | \\
    |     |            5   4
    0-----1            |     \\
                       0--3--1

    triangle (TRIA3): 0, 1, 2 counter-clockwise; quad8 (QUA8): corners 0-3 as quad, then
    mid-side nodes 4 (0-1), 5 (1-2), 6 (2-3), 7 (3-0).

Boundary lines are stored *oriented*: walking from node 0 to node 1 keeps the material of the
adjacent surface cell on the left, so the outward normal of a segment with tangent t is
``(t_y, -t_x)`` (Code_Aster ``ORIE_PEAU_2D``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

SURFACE_CELL_TYPES = ("quad", "triangle6", "triangle", "quad8")
LINE_CELL_TYPES = ("line", "line3")


class MeshError(ValueError):
    """A mesh is unusable: missing file or group, inverted element, unsupported cell type."""


@dataclass(frozen=True)
class CellBlock:
    """Cells of one type.

    Attributes
    ----------
    cell_type : meshio cell type name (``"quad"``, ``"triangle6"``, ``"line"``, ...).
    connectivity : int array, shape (n_cells, n_nodes_per_cell), indices into ``Mesh.points``.
    """

    cell_type: str
    connectivity: np.ndarray

    @property
    def dim(self) -> int:
        if self.cell_type in SURFACE_CELL_TYPES:
            return 2
        if self.cell_type in LINE_CELL_TYPES:
            return 1
        return 0

    def __len__(self) -> int:
        return int(self.connectivity.shape[0])


@dataclass(frozen=True)
class Mesh:
    """A 2-D mesh with named groups.

    Attributes
    ----------
    points : float array, shape (n_nodes, 2), node coordinates [m]. Every node belongs to at least
        one cell of dimension 1 or 2.
    cell_groups : name -> :class:`CellBlock`, the physical groups of dimension 1 (boundary lines,
        oriented) and 2 (material domains). One cell type per group.
    node_groups : name -> sorted int array of node indices, one entry per physical group of any
        dimension.
    """

    points: np.ndarray
    cell_groups: Mapping[str, CellBlock] = field(default_factory=dict)
    node_groups: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        points = np.asarray(self.points, dtype=float)
        if points.ndim != 2 or points.shape[1] != 2:
            raise MeshError(f"mesh points must have shape (n_nodes, 2), got {points.shape}")
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "node_groups",
                           {k: np.asarray(v, dtype=np.int64).reshape(-1) for k, v in self.node_groups.items()})
        object.__setattr__(self, "cell_groups", {
            k: (v if isinstance(v.connectivity, np.ndarray) and v.connectivity.dtype.kind == "i"
                else CellBlock(v.cell_type, np.asarray(v.connectivity, dtype=np.int64)))
            for k, v in self.cell_groups.items()})

    @property
    def n_nodes(self) -> int:
        return int(self.points.shape[0])

    def cells(self, name: str) -> CellBlock:
        """Cell group ``name``; a :class:`MeshError` naming the group and the ones available otherwise."""
        try:
            return self.cell_groups[name]
        except KeyError:
            raise MeshError(
                f"mesh has no cell group (physical group of dimension 1 or 2) named {name!r}; "
                f"available: {sorted(self.cell_groups)}"
            ) from None

    def nodes(self, name: str) -> np.ndarray:
        """Node indices of group ``name``; a :class:`MeshError` naming the group otherwise."""
        try:
            return self.node_groups[name]
        except KeyError:
            raise MeshError(
                f"mesh has no node group (physical group) named {name!r}; "
                f"available: {sorted(self.node_groups)}"
            ) from None

    def node_name(self, node: int) -> str:
        """The name of mesh node ``node``: its one-node group (``"O"``, ``"C1"``), else its number."""
        names = [g for g, nodes in self.node_groups.items() if len(nodes) == 1 and int(nodes[0]) == node]
        return names[0] if names else f"{node}"

    def node(self, name: str) -> int:
        """The single node of a one-node group such as ``"O"`` or ``"C1"``."""
        idx = self.nodes(name)
        if idx.size != 1:
            raise MeshError(f"node group {name!r} has {idx.size} nodes, expected exactly one")
        return int(idx[0])
