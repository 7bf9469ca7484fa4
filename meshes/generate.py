"""gmsh generator for the SDNV105 geometry: a rectangular block resting on a table.

The block occupies ``[0, 2b] x [0, 2l]`` and the table ``[table_left, table_right] x
[-table_depth, 0]`` (units: m). The two bodies are built as separate structured (transfinite)
grids of the gmsh built-in ("geo") kernel: the block base and the table top have coincident but
*distinct* nodes (zero initial gap, never merged; no coherence or fragment is ever called and
``Geometry.AutoCoherence`` is switched off while building). Node coordinates are snapped exactly
onto the grid lines after meshing (gmsh's transfinite curves are accurate to about 1e-12 only).

Each body is a grid of rectangular patches (one geo surface per patch, shared patch edges) so that
every named node sits on a geo point and every named line on geo curves. Physical groups
(Code_Aster names of the benchmark mesh):

======== ===== ===========================================================================
name     dim   content
======== ===== ===========================================================================
BLOCK    2     block cells
GROUN    2     table cells
CONHAUT  1     block base ``y = 0`` (O -> A)
CTBLO    1     whole block outline (includes CONHAUT)
C1O1     1     block centre line ``x = b`` from O1 to C1 (interior line)
CONBAS   1     table top ``y = 0``
CTGROUND 1     table bottom ``y = -table_depth``
CTTAB    1     whole table outline (includes CONBAS and CTGROUND)
O ...    0     one node each: O, O1, A, C, C1, B (+ O10, O11, C10, C11 in the reference layout);
               table S00, S0, S1, S2, S3 (top) and P00, P0, P1, P2, P3 (bottom) at
               ``x = table_left, 0, b, 2b, table_right``
======== ===== ===========================================================================

Overlapping physical groups (CONHAUT in CTBLO, CONBAS/CTGROUND in CTTAB) are written as several
physical tags on the same geometric entity in msh 4.1; :func:`fem.mesh.read.read_mesh` reads them
through meshio's ``cell_sets`` (see its module docstring).

Stacks (:func:`stack_on_table`): N blocks, one on another, centred on the bottom block's centre
line ``x = b_1``, block 1 on the table; same or different sizes. Block 1 keeps every SDNV105 name
above (so a stack reads as the benchmark block with more on top; ``BLOCK`` holds all the blocks'
cells) and each block k = 1..N also has its own names:

=========== ===== ==========================================================================
name        dim   content
=========== ===== ==========================================================================
BLOCK_k     2     cells of block k
CTBLO_k     1     outline of block k
BASE_k      1     base line of block k
TOP_k       1     top line of block k
O_k, A_k    0     base corners of block k (left, right); O1_k the base centre
C_k, B_k    0     top corners (above O_k, A_k); C1_k the top centre
JOINT_k_ESCL, 1   joint k = 1..N-1, between blocks k and k + 1: its slave (Code_Aster
JOINT_k_MAIT      GROUP_MA_ESCL) and master (GROUP_MA_MAIT) lines. The slave is the narrower
                  of BASE_(k+1) and TOP_k (BASE_(k+1) when they are equal), so that its nodes
                  project inside the master line.
=========== ===== ==========================================================================

Run ``python -m meshes.generate`` to regenerate the checked-in meshes of this folder, and
``python -m meshes.generate --layout refined --nx 16 --ny 32 --out FILE.msh`` to write one mesh
(:func:`main`, ``--help``). The patch grids and their construction in gmsh are in
:mod:`meshes.patches`.
"""
from __future__ import annotations

import pathlib
import sys
from dataclasses import replace
from typing import Sequence

import gmsh
import numpy as np

from meshes.patches import (ELEMENTS, LAYOUTS, RELATIVE_TOLERANCE, PatchGrid, PatchTags, add_block_groups,
                            add_patch_grid, add_physical, add_table_groups, block_grid_for, block_node_names,
                            check_mesh_options, check_positive, gmsh_session, mesh_and_write, msh_path,
                            table_extent, table_grid_for)
from meshes.patches import refined_block_grid  # noqa: F401 (re-exported)

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent

#: Checked-in meshes: file stem -> keyword arguments of :func:`block_on_table`.
REFERENCE_MESHES = {
    "sdnv105_quad4": dict(element="quad4", layout="reference", with_table=True),
    "sdnv105_block_quad4": dict(element="quad4", layout="reference", with_table=False),
    "sdnv105_block_tri6": dict(element="tri6", layout="reference", with_table=False),
}

REGENERATE_COMMAND = "python -m meshes.generate"


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------


def block_on_table(
    path,
    *,
    half_width: float = 0.18,
    height: float = 0.80,
    table_left: float | None = None,
    table_right: float | None = None,
    table_depth: float = 0.08,
    element: str = "quad4",
    layout: str = "reference",
    nx: int = 4,
    ny: int = 2,
    with_table: bool = True,
) -> pathlib.Path:
    """Write the SDNV105 block (and table) mesh to a gmsh ``.msh`` file (format 4.1, ASCII).

    Parameters
    ----------
    path : str or os.PathLike
        Output file; must end in ``.msh``. Parent folders are created.
    half_width : float
        Block half width b [m]; the block spans ``0 <= x <= 2b``.
    height : float
        Block height 2l [m]; the block spans ``0 <= y <= height``.
    table_left, table_right : float, optional
        Table x-extent [m]; default ``-b`` and ``3b``. Must satisfy ``table_left < 0`` and
        ``table_right > 2b``. The ``"reference"`` layout requires the defaults.
    table_depth : float
        Table thickness [m]; the table spans ``-table_depth <= y <= 0``.
    element : {"quad4", "quad8", "tri3", "tri6"}
        Cell type (meshio ``quad``, ``quad8``, ``triangle``, ``triangle6``). Triangles split each
        quad of the same structured grid in two; second-order nodes sit at edge mid-points.
    layout : {"reference", "refined"}
        ``"reference"``: the benchmark mesh (block columns ``0, b - e, b, b + e, 2b`` with
        ``e = b/9``, 2 rows; table of 4 elements of width b, 1 deep; nx, ny unused).
        ``"refined"``: uniform ``nx x ny`` block, table top conforming with the block base.
    nx, ny : int
        Block elements across the width (even) and the height, ``"refined"`` layout only.
    with_table : bool
        Also mesh the table (groups GROUN, CONBAS, CTGROUND, CTTAB and S*/P* nodes).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        An invalid argument (the message names it).
    """
    path = msh_path(path)
    b = check_positive("half_width", half_width)
    height = check_positive("height", height)
    depth = check_positive("table_depth", table_depth)
    element, layout, nx, ny = check_mesh_options(element, layout, nx, ny)
    if not isinstance(with_table, bool):
        raise ValueError(f"with_table must be True or False, got {with_table!r}")
    left, right = table_extent(b, table_left, table_right)
    table_grid = table_grid_for(layout, b, depth, left, right, nx)
    block_grid = block_grid_for(layout, b, height, nx, ny)

    path.parent.mkdir(parents=True, exist_ok=True)
    recombine = element in ("quad4", "quad8")
    with gmsh_session("sdnv105_block_on_table"):
        block = add_patch_grid(block_grid, recombine=recombine)
        table = add_patch_grid(table_grid, recombine=recombine) if with_table else None
        gmsh.model.geo.synchronize()
        add_block_groups(block, layout, centre_column=block_grid.xs.index(b))
        if table is not None:
            add_table_groups(table)
        mesh_and_write(path, element, [block_grid, table_grid] if with_table else [block_grid])
    return path


def shifted(grid: PatchGrid, dx: float, dy: float) -> PatchGrid:
    """``grid`` translated by (dx, dy) [m]."""
    return replace(grid, xs=tuple(x + dx for x in grid.xs), ys=tuple(y + dy for y in grid.ys))


def check_sizes(sizes) -> tuple[tuple[float, float], ...]:
    """``sizes`` as ((width, height), ...) [m]; ValueError unless a non-empty sequence of positive pairs."""
    try:
        pairs = [tuple(pair) for pair in sizes]
    except TypeError:
        raise ValueError(f"sizes must be a sequence of (width, height) pairs, got {sizes!r}") from None
    if not pairs:
        raise ValueError("sizes must hold at least one (width, height) pair")
    out = []
    for k, pair in enumerate(pairs, start=1):
        if len(pair) != 2:
            raise ValueError(f"sizes[{k - 1}] must be a (width, height) pair, got {pair!r}")
        out.append((check_positive(f"width of block {k}", pair[0]), check_positive(f"height of block {k}", pair[1])))
    return tuple(out)


def joint_sides(sizes: Sequence[tuple[float, float]], k: int) -> tuple[str, str]:
    """(slave, master) line groups of joint k (between blocks k and k + 1, 1-based): the narrower
    surface is the slave, the upper block's base when the widths are equal."""
    if sizes[k][0] <= sizes[k - 1][0] * (1 + RELATIVE_TOLERANCE):
        return f"BASE_{k + 1}", f"TOP_{k}"
    return f"TOP_{k}", f"BASE_{k + 1}"


def add_stack_block_groups(k: int, block: PatchTags, layout: str) -> None:
    """Physical groups of block k of a stack: BLOCK_k, CTBLO_k, BASE_k, TOP_k and its node groups."""
    add_physical(2, block.surfaces, f"BLOCK_{k}")
    add_physical(1, block.outline(), f"CTBLO_{k}")
    add_physical(1, block.horizontal[:, 0], f"BASE_{k}")
    add_physical(1, block.horizontal[:, -1], f"TOP_{k}")
    for name, (i, j) in block_node_names(layout).items():
        if name in ("O", "O1", "A", "C", "C1", "B"):
            add_physical(0, [block.points[i, j]], f"{name}_{k}")


def stack_on_table(
    path,
    sizes=((0.36, 0.80), (0.36, 0.80)),
    *,
    table_left: float | None = None,
    table_right: float | None = None,
    table_depth: float = 0.08,
    element: str = "quad4",
    layout: str = "reference",
    nx: int = 4,
    ny: int = 2,
) -> pathlib.Path:
    """Write N blocks stacked on the table to a gmsh ``.msh`` file (format 4.1, ASCII).

    Block k (1 = bottom) of width w_k and height h_k spans ``b_1 - w_k/2 <= x <= b_1 + w_k/2``
    (centred on the bottom block's centre line, b_1 = w_1/2) and ``y_k <= y <= y_k + h_k`` with
    ``y_1 = 0``, ``y_(k+1) = y_k + h_k``: each block rests on the one below with coincident but
    distinct nodes, like block 1 on the table. Groups: the module docstring.

    Parameters
    ----------
    path : output ``.msh`` file.
    sizes : ((w_1, h_1), ..., (w_N, h_N)) [m], bottom first.
    table_left, table_right, table_depth : the table, as :func:`block_on_table` for block 1.
    element, layout : as :func:`block_on_table`; ``"reference"`` meshes every block as the
        benchmark's (4 columns, 2 rows), ``"refined"`` every block ``nx x ny``.
    nx, ny : elements across and up each block (``"refined"`` only; nx even).

    Raises
    ------
    ValueError : an invalid argument (the message names it).
    """
    path = msh_path(path)
    sizes = check_sizes(sizes)
    depth = check_positive("table_depth", table_depth)
    element, layout, nx, ny = check_mesh_options(element, layout, nx, ny)
    b1 = sizes[0][0] / 2.0
    left, right = table_extent(b1, table_left, table_right)
    table_grid = table_grid_for(layout, b1, depth, left, right, nx)
    grids, y = [], 0.0
    for width, height in sizes:
        grids.append(shifted(block_grid_for(layout, width / 2.0, height, nx, ny), b1 - width / 2.0, y))
        y += height

    path.parent.mkdir(parents=True, exist_ok=True)
    recombine = element in ("quad4", "quad8")
    with gmsh_session("stack_on_table"):
        blocks = [add_patch_grid(grid, recombine=recombine) for grid in grids]
        table = add_patch_grid(table_grid, recombine=recombine)
        gmsh.model.geo.synchronize()
        add_block_groups(blocks[0], layout, centre_column=grids[0].xs.index(b1),
                         cells=np.concatenate([blk.surfaces.ravel() for blk in blocks]))
        for k, blk in enumerate(blocks, start=1):
            add_stack_block_groups(k, blk, layout)
        for k in range(1, len(blocks)):
            slave, master = joint_sides(sizes, k)
            for side, name in ((slave, "ESCL"), (master, "MAIT")):
                blk = blocks[int(side.split("_")[1]) - 1]
                lines = blk.horizontal[:, 0] if side.startswith("BASE") else blk.horizontal[:, -1]
                add_physical(1, lines, f"JOINT_{k}_{name}")
        add_table_groups(table)
        mesh_and_write(path, element, [*grids, table_grid])
    return path


def reference_mesh_path(name: str = "sdnv105_quad4") -> pathlib.Path:
    """Path of a checked-in mesh of this folder (``name`` with or without ``.msh``).

    Raises
    ------
    FileNotFoundError
        The file is missing; the message gives the command that regenerates it.
    """
    stem = name[:-4] if name.endswith(".msh") else name
    path = PACKAGE_DIR / f"{stem}.msh"
    if not path.is_file():
        known = ", ".join(sorted(REFERENCE_MESHES))
        raise FileNotFoundError(
            f"reference mesh {str(path)!r} not found; regenerate the checked-in meshes with "
            f"'{REGENERATE_COMMAND}' (known: {known})"
        )
    return path


def write_reference_meshes(folder=PACKAGE_DIR) -> list[pathlib.Path]:
    """Regenerate every mesh of :data:`REFERENCE_MESHES` in ``folder``; returns their paths."""
    folder = pathlib.Path(folder)
    return [block_on_table(folder / f"{stem}.msh", **kwargs) for stem, kwargs in REFERENCE_MESHES.items()]


# ---------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------

#: the generator's argument names -> the flags they come from (the checks above name the arguments)
_FLAGS = {"element": "--element", "layout": "--layout", "nx": "--nx", "ny": "--ny", "width": "--width",
          "height": "--height"}


def _parser():
    from fem.run.lifecycle import CaseParser, finite

    p = CaseParser(prog="python -m meshes.generate", description=__doc__.split("\n\n")[0] + (
        "\n\nWithout arguments: rewrite the checked-in meshes of this folder. With --out: write one mesh, e.g.\n"
        "  python -m meshes.generate --layout refined --nx 16 --ny 32 --element quad4 --out block.msh"))
    p.add_argument("--out", type=pathlib.Path, default=None, help="the .msh file to write (folders are created)")
    p.add_argument("--layout", choices=LAYOUTS, default="reference",
                   help="reference: the benchmark's 4 x 2 block (and 4 x 1 table); refined: a uniform --nx x --ny "
                        "block, the table conforming with its base")
    p.add_argument("--nx", type=int, default=None, help="block elements across, even (refined layout; default 4)")
    p.add_argument("--ny", type=int, default=None, help="block elements up (refined layout; default 2)")
    p.add_argument("--element", choices=ELEMENTS, default="quad4", help="cell type")
    table = p.add_mutually_exclusive_group()
    table.add_argument("--with-table", dest="with_table", action="store_true", default=True,
                       help="mesh the table too (default; groups GROUN, CONBAS, CTGROUND, CTTAB, S*, P*)")
    table.add_argument("--no-table", dest="with_table", action="store_false", help="the block only")
    p.add_argument("--width", type=finite, default=0.36, help="block width 2b [m]")
    p.add_argument("--height", type=finite, default=0.80, help="block height 2l [m]")
    return p


def _in_flags(err: ValueError) -> str:
    """A check's message (``nx must be even ...``) in the flag's name (``--nx: must be even ...``)."""
    name, _, rest = str(err).partition(" ")
    return f"{_FLAGS[name]}: {rest}" if name in _FLAGS else str(err)


def _writable(path: pathlib.Path) -> None:
    """fem.run.lifecycle.BadInput naming --out unless ``path`` ends in .msh and can be written (its folder is
    created): gmsh's own failure to open a file is a bare Exception, raised after the meshing."""
    from fem.run.lifecycle import BadInput

    try:
        msh_path(path)
    except ValueError as err:
        raise BadInput(f"--out: {err}") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with open(path, "a"):
            pass
        if not existed:
            path.unlink()
    except OSError as err:
        raise BadInput(f"--out {path}: cannot write the file ({err.strerror or err})") from None


def _generate(argv: Sequence[str] | None) -> int:
    from fem.run.lifecycle import BadInput

    given = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(given)
    if args.out is None:
        if given:
            raise BadInput("--out: the file to write is required with any other flag (without arguments the "
                           "checked-in meshes are rewritten)")
        for written in write_reference_meshes():
            print(written)
        return 0
    if args.layout == "reference" and (args.nx is not None or args.ny is not None):
        raise BadInput(f"{'--nx' if args.nx is not None else '--ny'}: only with --layout refined (the reference "
                       f"layout is the benchmark's block of 4 x 2 elements)")
    nx, ny = 4 if args.nx is None else args.nx, 2 if args.ny is None else args.ny
    try:
        check_mesh_options(args.element, args.layout, nx, ny)
        check_positive("width", args.width)
        check_positive("height", args.height)
    except ValueError as err:
        raise BadInput(_in_flags(err)) from None
    _writable(args.out)
    path = block_on_table(args.out, half_width=args.width / 2.0, height=args.height, element=args.element,
                          layout=args.layout, nx=nx, ny=ny, with_table=args.with_table)
    from fem.mesh.read import read_mesh

    mesh = read_mesh(path)
    surfaces = {k: v for k, v in mesh.cell_groups.items() if v.dim == 2}
    cells = ", ".join(f"{k} {len(v.connectivity)} {v.cell_type}" for k, v in surfaces.items())
    print(f"{path}: {mesh.n_nodes} nodes, {sum(len(v.connectivity) for v in surfaces.values())} cells ({cells})")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m meshes.generate``: without arguments, rewrite the checked-in meshes
    (:func:`write_reference_meshes`); with ``--out FILE.msh``, write one :func:`block_on_table` mesh
    (``--layout``, ``--nx``, ``--ny``, ``--element``, ``--with-table`` / ``--no-table``, ``--width``,
    ``--height``) and print its path and node and cell counts. Bad input: one ``error: --flag: ...``
    line on stderr and exit code 2 (:func:`fem.run.lifecycle.execute`). Returns the exit code."""
    from fem.run.lifecycle import execute

    return execute(_generate, argv)


if __name__ == "__main__":
    sys.exit(main())
