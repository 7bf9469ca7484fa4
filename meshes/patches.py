"""The structured patch grids the generators of :mod:`meshes.generate` are built from: the checks of
their arguments, the layouts of a block and a table (the benchmark's and the refined one), and their
construction in gmsh (a session that leaves the caller's gmsh as it found it, transfinite patches,
physical groups, nodes snapped exactly onto the grid lines, meshing and writing the file)."""
from __future__ import annotations

import contextlib
import math
import numbers
import pathlib
from dataclasses import dataclass
from typing import Iterator, Sequence

import gmsh
import numpy as np

from fem.io import output_folder

ELEMENTS = ("quad4", "quad8", "tri3", "tri6")
LAYOUTS = ("reference", "refined")

# gmsh options set while generating, restored afterwards (the caller's session is left as found).
_GMSH_OPTIONS = {
    "General.Terminal": 0,
    "Geometry.AutoCoherence": 0,
    "Mesh.SaveAll": 0,
    "Mesh.SaveParametric": 0,
    "Mesh.Binary": 0,
    "Mesh.MshFileVersion": 4.1,
    "Mesh.RecombineAll": 0,
    "Mesh.SubdivisionAlgorithm": 0,
    "Mesh.Smoothing": 0,
    "Mesh.HighOrderOptimize": 0,
    "Mesh.SecondOrderLinear": 0,
    "Mesh.ElementOrder": 1,
    "Mesh.FirstNodeTag": 1,
    "Mesh.FirstElementTag": 1,
}

#: relative tolerance [-] of the geometric comparisons (:func:`is_close`, the joint sides of a stack)
RELATIVE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PatchGrid:
    """Rectangular patch layout of one body.

    Attributes
    ----------
    xs : patch break points along x [m], increasing, shape (n_patch_x + 1,).
    ys : patch break points along y [m], increasing, shape (n_patch_y + 1,).
    nx : number of elements across each x interval, shape (n_patch_x,).
    ny : number of elements across each y interval, shape (n_patch_y,).
    """

    xs: tuple[float, ...]
    ys: tuple[float, ...]
    nx: tuple[int, ...]
    ny: tuple[int, ...]


@dataclass(frozen=True)
class PatchTags:
    """gmsh geo tags of a body built from a :class:`PatchGrid`.

    Attributes
    ----------
    points : int array, shape (n_patch_x + 1, n_patch_y + 1), point ``[i, j]`` at ``(xs[i], ys[j])``.
    horizontal : int array, shape (n_patch_x, n_patch_y + 1), curve from point ``[i, j]`` to ``[i + 1, j]``.
    vertical : int array, shape (n_patch_x + 1, n_patch_y), curve from point ``[i, j]`` to ``[i, j + 1]``.
    surfaces : int array, shape (n_patch_x, n_patch_y), counter-clockwise (normal +z) patch surfaces.
    """

    points: np.ndarray
    horizontal: np.ndarray
    vertical: np.ndarray
    surfaces: np.ndarray

    def outline(self) -> list[int]:
        """Curve tags of the outline: bottom, right, top, left."""
        return [
            *self.horizontal[:, 0].tolist(),
            *self.vertical[-1, :].tolist(),
            *self.horizontal[:, -1].tolist(),
            *self.vertical[0, :].tolist(),
        ]


# ---------------------------------------------------------------------------------------------
# argument validation
# ---------------------------------------------------------------------------------------------


def check_positive(name: str, value) -> float:
    """``value`` as a float; ValueError naming ``name`` unless it is a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return value


def check_count(name: str, value) -> int:
    """``value`` as an int; ValueError naming ``name`` unless it is an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def check_choice(name: str, value, choices: Sequence[str]) -> str:
    """``value``; ValueError naming ``name`` and the ``choices`` unless it is one of them."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_coordinate(name: str, value) -> float:
    """``value`` as a finite float; ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def is_close(a: float, b: float, scale: float) -> bool:
    """``|a - b| <= 1e-12 * scale``."""
    return abs(a - b) <= RELATIVE_TOLERANCE * scale


def table_extent(half_width: float, table_left, table_right) -> tuple[float, float]:
    """Table x-extent [m] with defaults ``(-b, 3b)``; ValueError unless it extends past the block.

    The table must reach beyond both block sides (``table_left < 0 < 2b < table_right``) so that
    the table nodes S00/S0 and S2/S3 are distinct.
    """
    left = -half_width if table_left is None else check_coordinate("table_left", table_left)
    right = 3.0 * half_width if table_right is None else check_coordinate("table_right", table_right)
    if left >= 0.0:
        raise ValueError(f"table_left must be < 0 (left of the block side x = 0), got {left!r}")
    if right <= 2.0 * half_width:
        raise ValueError(
            f"table_right must be > 2 * half_width = {2.0 * half_width!r} "
            f"(right of the block side), got {right!r}"
        )
    return left, right


# ---------------------------------------------------------------------------------------------
# layouts
# ---------------------------------------------------------------------------------------------


def reference_block_grid(b: float, height: float) -> PatchGrid:
    """Block of the benchmark mesh: columns ``0, b - e, b, b + e, 2b`` (e = b/9), 2 rows."""
    e = b / 9.0
    return PatchGrid(xs=(0.0, b - e, b, b + e, 2.0 * b), ys=(0.0, height), nx=(1, 1, 1, 1), ny=(2,))


def reference_table_grid(b: float, depth: float) -> PatchGrid:
    """Table of the benchmark mesh: 4 elements of width b, 1 element deep."""
    return PatchGrid(xs=(-b, 0.0, b, 2.0 * b, 3.0 * b), ys=(-depth, 0.0), nx=(1, 1, 1, 1), ny=(1,))


def refined_block_grid(b: float, height: float, nx: int, ny: int) -> PatchGrid:
    """Uniform ``nx x ny`` block split at ``x = b`` (nx even)."""
    return PatchGrid(xs=(0.0, b, 2.0 * b), ys=(0.0, height), nx=(nx // 2, nx // 2), ny=(ny,))


def refined_table_grid(b: float, depth: float, left: float, right: float, nx: int) -> PatchGrid:
    """Table matching the refined block base, elements of about the block width ``2b / nx`` outside.

    The table has nodes at every block-base x position, and at ``x = left, 0, b, 2b, right``;
    ``max(1, round(depth / h))`` elements deep with ``h = 2b / nx``.
    """
    h = 2.0 * b / nx
    n_left = max(1, round(-left / h))
    n_right = max(1, round((right - 2.0 * b) / h))
    n_deep = max(1, round(depth / h))
    return PatchGrid(
        xs=(left, 0.0, b, 2.0 * b, right),
        ys=(-depth, 0.0),
        nx=(n_left, nx // 2, nx // 2, n_right),
        ny=(n_deep,),
    )


def block_node_names(layout: str) -> dict[str, tuple[int, int]]:
    """Block node groups: name -> (i, j) index into :attr:`PatchTags.points`."""
    if layout == "reference":
        bottom = ("O", "O10", "O1", "O11", "A")
        top = ("C", "C10", "C1", "C11", "B")
    else:
        bottom = ("O", "O1", "A")
        top = ("C", "C1", "B")
    return {
        **{name: (i, 0) for i, name in enumerate(bottom)},
        **{name: (i, -1) for i, name in enumerate(top)},
    }


def table_node_names() -> dict[str, tuple[int, int]]:
    """Table node groups: name -> (i, j) index into :attr:`PatchTags.points`."""
    top = ("S00", "S0", "S1", "S2", "S3")
    bottom = ("P00", "P0", "P1", "P2", "P3")
    return {
        **{name: (i, -1) for i, name in enumerate(top)},
        **{name: (i, 0) for i, name in enumerate(bottom)},
    }


# ---------------------------------------------------------------------------------------------
# gmsh
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def gmsh_session(model_name: str) -> Iterator[None]:
    """A fresh gmsh model with the generator's options; everything restored on exit.

    gmsh is initialized (and finalized on exit, even on error) only if the caller had not
    initialized it; otherwise the caller's options and current model are restored and the
    temporary model removed.
    """
    owner = not gmsh.isInitialized()
    if owner:
        gmsh.initialize(readConfigFiles=False, interruptible=False)
    try:
        saved = {name: gmsh.option.getNumber(name) for name in _GMSH_OPTIONS}
        previous_model = gmsh.model.getCurrent()
        try:
            for name, value in _GMSH_OPTIONS.items():
                gmsh.option.setNumber(name, value)
            gmsh.model.add(model_name)
            try:
                yield
            finally:
                gmsh.model.remove()
                if not owner:
                    with contextlib.suppress(Exception):
                        gmsh.model.setCurrent(previous_model)
        finally:
            for name, value in saved.items():
                gmsh.option.setNumber(name, value)
    finally:
        if owner:
            gmsh.finalize()


def add_patch_grid(grid: PatchGrid, *, recombine: bool) -> PatchTags:
    """Build ``grid`` in the geo kernel as transfinite patches; returns the entity tags.

    Surfaces are bounded counter-clockwise (normal +z) so that gmsh's cells are counter-clockwise.
    """
    geo = gmsh.model.geo
    nxp, nyp = len(grid.xs) - 1, len(grid.ys) - 1
    points = np.array([[geo.addPoint(x, y, 0.0) for y in grid.ys] for x in grid.xs], dtype=int)
    horizontal = np.array(
        [[geo.addLine(points[i, j], points[i + 1, j]) for j in range(nyp + 1)] for i in range(nxp)],
        dtype=int,
    ).reshape(nxp, nyp + 1)
    vertical = np.array(
        [[geo.addLine(points[i, j], points[i, j + 1]) for j in range(nyp)] for i in range(nxp + 1)],
        dtype=int,
    ).reshape(nxp + 1, nyp)
    for i, n in enumerate(grid.nx):
        for curve in horizontal[i, :]:
            geo.mesh.setTransfiniteCurve(int(curve), n + 1)
    for j, n in enumerate(grid.ny):
        for curve in vertical[:, j]:
            geo.mesh.setTransfiniteCurve(int(curve), n + 1)
    surfaces = np.empty((nxp, nyp), dtype=int)
    for i in range(nxp):
        for j in range(nyp):
            bottom, right = int(horizontal[i, j]), int(vertical[i + 1, j])
            top, left = int(horizontal[i, j + 1]), int(vertical[i, j])
            loop = geo.addCurveLoop([bottom, right, -top, -left])
            surface = geo.addPlaneSurface([loop])
            corners = [points[i, j], points[i + 1, j], points[i + 1, j + 1], points[i, j + 1]]
            geo.mesh.setTransfiniteSurface(surface, "Left", [int(c) for c in corners])
            if recombine:
                geo.mesh.setRecombine(2, surface)
            surfaces[i, j] = surface
    return PatchTags(points=points, horizontal=horizontal, vertical=vertical, surfaces=surfaces)


def add_physical(dim: int, tags, name: str) -> None:
    """Physical group ``name`` of dimension ``dim`` over the entity ``tags``."""
    gmsh.model.addPhysicalGroup(dim, [int(t) for t in np.ravel(tags)], name=name)


def add_block_groups(block: PatchTags, layout: str, centre_column: int, cells=None) -> None:
    """Physical groups BLOCK (over ``cells``, default the block's surfaces), CONHAUT, CTBLO, C1O1 and
    the block node groups."""
    add_physical(2, block.surfaces if cells is None else cells, "BLOCK")
    add_physical(1, block.horizontal[:, 0], "CONHAUT")
    add_physical(1, block.outline(), "CTBLO")
    add_physical(1, block.vertical[centre_column, :], "C1O1")
    for name, (i, j) in block_node_names(layout).items():
        add_physical(0, [block.points[i, j]], name)


def add_table_groups(table: PatchTags) -> None:
    """Physical groups GROUN, CONBAS, CTGROUND, CTTAB and the table node groups."""
    add_physical(2, table.surfaces, "GROUN")
    add_physical(1, table.horizontal[:, -1], "CONBAS")
    add_physical(1, table.horizontal[:, 0], "CTGROUND")
    add_physical(1, table.outline(), "CTTAB")
    for name, (i, j) in table_node_names().items():
        add_physical(0, [table.points[i, j]], name)


def grid_lines(breaks: Sequence[float], counts: Sequence[int]) -> np.ndarray:
    """Sorted coordinates [m] of the grid lines and grid mid-lines along one axis of a patch grid.

    Every node of the structured grid (corner or second-order mid-side node) has its coordinate
    along this axis in the returned array.
    """
    return np.unique(
        np.concatenate([np.linspace(a, b, 2 * n + 1) for a, b, n in zip(breaks[:-1], breaks[1:], counts)])
    )


def snap(values: np.ndarray, lines: np.ndarray, tolerance: float) -> np.ndarray:
    """``values`` replaced by the nearest entry of the sorted ``lines`` when closer than ``tolerance``."""
    right = np.clip(np.searchsorted(lines, values), 1, lines.size - 1)
    left = right - 1
    nearest = np.where(values - lines[left] <= lines[right] - values, lines[left], lines[right])
    return np.where(np.abs(nearest - values) <= tolerance, nearest, values)


def snap_nodes_to_grids(grids: Sequence[PatchGrid]) -> None:
    """Move the mesh nodes of the current model exactly onto the grid (mid-)lines of ``grids``.

    gmsh places the inner nodes of transfinite curves by numerical integration, with errors of
    about 1e-12 relative (e.g. y = 0.3999999999989 instead of 0.4); the benchmark coordinates
    are exact, so each coordinate within 1e-9 * (grid extent) of a grid line is snapped onto it.
    """
    xs = np.unique(np.concatenate([grid_lines(g.xs, g.nx) for g in grids]))
    ys = np.unique(np.concatenate([grid_lines(g.ys, g.ny) for g in grids]))
    tolerance = 1e-9 * max(xs[-1] - xs[0], ys[-1] - ys[0])
    tags, coords, _ = gmsh.model.mesh.getNodes()
    xyz = np.asarray(coords, dtype=float).reshape(-1, 3)
    snapped = np.column_stack([snap(xyz[:, 0], xs, tolerance), snap(xyz[:, 1], ys, tolerance), xyz[:, 2]])
    for i in np.flatnonzero(np.any(snapped != xyz, axis=1)):
        gmsh.model.mesh.setNode(int(tags[i]), snapped[i].tolist(), [])


def mesh_and_write(path: pathlib.Path, element: str, grids: Sequence[PatchGrid]) -> None:
    """Generate the 2-D mesh of the current model at the order of ``element``, snap it onto
    ``grids`` (:func:`snap_nodes_to_grids`) and write ``path``."""
    gmsh.option.setNumber("Mesh.SecondOrderIncomplete", 1 if element == "quad8" else 0)
    gmsh.model.mesh.generate(2)
    if element in ("quad8", "tri6"):
        gmsh.model.mesh.setOrder(2)
    snap_nodes_to_grids(grids)
    with output_folder.atomic_target(pathlib.Path(path), ".tmp.msh") as tmp:  # gmsh reads the format from .msh
        gmsh.write(tmp)


def msh_path(path) -> pathlib.Path:
    """``path`` as a Path; ValueError unless it ends in ``.msh``."""
    path = pathlib.Path(path)
    if path.suffix != ".msh":
        raise ValueError(f"path must end in '.msh' (gmsh picks the format from it), got {str(path)!r}")
    return path


def check_mesh_options(element, layout, nx, ny) -> tuple[str, str, int, int]:
    """element, layout, nx, ny checked (ValueError naming the bad one); nx even for 'refined' (the
    block centre line x = b, with O1, C1 and C1O1, is a mesh line)."""
    element = check_choice("element", element, ELEMENTS)
    layout = check_choice("layout", layout, LAYOUTS)
    nx = check_count("nx", nx)
    ny = check_count("ny", ny)
    if layout == "refined" and nx % 2:
        raise ValueError(
            f"nx must be even in the 'refined' layout so that the block centre line x = b "
            f"(nodes O1, C1, line C1O1) is a mesh line, got nx = {nx}"
        )
    return element, layout, nx, ny


def table_grid_for(layout: str, b: float, depth: float, left: float, right: float, nx: int) -> PatchGrid:
    """The table under a block of half width b: the benchmark's (``"reference"``, which needs the
    default extent (-b, 3b)) or conforming with an nx-element block base (``"refined"``)."""
    if layout == "reference":
        if not (is_close(left, -b, b) and is_close(right, 3.0 * b, b)):
            raise ValueError(
                f"layout='reference' requires the default table extent table_left = -half_width = {-b!r}, "
                f"table_right = 3 * half_width = {3.0 * b!r}; got ({left!r}, {right!r}); "
                "use layout='refined' for another table"
            )
        return reference_table_grid(b, depth)
    return refined_table_grid(b, depth, left, right, nx)


def block_grid_for(layout: str, b: float, height: float, nx: int, ny: int) -> PatchGrid:
    """A block of half width b and the given height with its base at the origin, in ``layout``."""
    return reference_block_grid(b, height) if layout == "reference" else refined_block_grid(b, height, nx, ny)
