"""Results output written as the run goes: VTK XML time series for ParaView, CSV time histories.

Time series
-----------
:class:`TimeSeriesWriter` writes one VTK XML unstructured-grid file (``.vtu``, through
:func:`meshio.write`, binary + zlib) per call to ``write`` and, after each step, rewrites the
ParaView collection file (``.pvd``) that lists every step with its *physical* time, so that
ParaView's time axis shows seconds, not step numbers. The ``.pvd`` is replaced atomically
(temporary file in the same folder, then :func:`os.replace`), and every ``.vtu`` it lists is
complete, so a run that crashes still opens in ParaView with every step written before the crash.
:class:`PointSetSeriesWriter` does the same for a small cloud of points written as ``vertex``
cells (contact nodes: status, gap, normal / tangential reactions).

The ``.pvd`` emitted looks like this (``file`` is relative to the folder of the ``.pvd``)::

    <?xml version="1.0"?>
    <VTKFile type="Collection" version="0.1" byte_order="LittleEndian">
      <Collection>
        <DataSet timestep="0.0" group="" part="0" file="solution_000000.vtu"/>
        <DataSet timestep="0.001" group="" part="0" file="solution_000001.vtu"/>
        <DataSet timestep="0.0035" group="" part="0" file="solution_000002.vtu"/>
      </Collection>
    </VTKFile>

:func:`read_pvd` reads it back as ``[(time [s], absolute path of the .vtu), ...]``.

Time histories
--------------
:class:`HistoryWriter` writes a CSV file (header line of column names, then one line per
``append``, floats printed with 17 significant digits so they read back bit-exact) and flushes
after every line; :func:`read_history` reads it back as ``{column: array}`` (both in
fem.io.history, re-exported here).

Formats
-------
The series are written in the format :func:`use_series_format` chose, ``"xdmf"`` by default:
two files a series whatever the number of steps (``basename.xdmf`` + ``basename.h5``, HDF5
through h5py, fem.io.xdmf), or ``"pvd"``: the ``.pvd`` and one ``.vtu`` a step described above,
safer against a process killed outright. :func:`read_series` reads either back.
"""
from __future__ import annotations

import logging
import os
from xml.sax.saxutils import quoteattr
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from fem.io import output_folder
from fem.io.history import HistoryWriter, read_history  # noqa: F401  (re-exported: the histories' module)
from fem.io.xdmf import XdmfSeries, next_time, read_xdmf, series_folder, xml_root
from fem.mesh.mesh import Mesh

if TYPE_CHECKING:
    import meshio

logger = logging.getLogger(__name__)

__all__ = [
    "TimeSeriesWriter",
    "PointSetSeriesWriter",
    "read_pvd",
    "read_series",
    "use_series_format",
    "series_format",
    "SERIES_FORMATS",
    "HistoryWriter",
    "read_history",
]

#: Name of the integer cell field always written by :class:`TimeSeriesWriter`: index of the cell's
#: group in ``TimeSeriesWriter.groups``.
GROUP_FIELD = "group"

_STEP_DIGITS = 6

#: the time-series formats: XDMF + HDF5 (two files a series), or ParaView's .pvd + one .vtu a step
SERIES_FORMATS = ("xdmf", "pvd")
_format = {"series": "xdmf"}


def use_series_format(fmt: str) -> None:
    """Write the time series opened from now on in ``fmt`` (one of SERIES_FORMATS); a run's
    ``--output-format`` sets it (fem.run.lifecycle resets it to "xdmf" at each run's start)."""
    if fmt not in SERIES_FORMATS:
        raise ValueError(f"series format must be one of {SERIES_FORMATS}, got {fmt!r}")
    _format["series"] = fmt


def series_format() -> str:
    """The format the time series opened now are written in."""
    return _format["series"]


def _open_series(directory, basename: str, output_format: str | None):
    fmt = series_format() if output_format is None else output_format
    if fmt not in SERIES_FORMATS:
        raise ValueError(f"output_format must be one of {SERIES_FORMATS}, got {fmt!r}")
    return _PvdSeries(directory, basename) if fmt == "pvd" else XdmfSeries(directory, basename)


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def _atomic_meshio_write(path: Path, mesh: meshio.Mesh) -> None:
    """:func:`meshio.write` a ``.vtu`` atomically."""
    import meshio  # imported on use (issue 40: start-up)

    with output_folder.atomic_target(path, ".vtu.tmp") as tmp:
        meshio.write(tmp, mesh, file_format="vtu")


def _pad_vector(arr: np.ndarray) -> np.ndarray:
    """A 2-column array (2-D vectors) -> 3 columns with z = 0; anything else unchanged."""
    if arr.ndim == 2 and arr.shape[1] == 2:
        return np.column_stack([arr, np.zeros(arr.shape[0], dtype=arr.dtype)])
    return arr


def _as_field(name: str, value, n: int, what: str) -> np.ndarray:
    """Check one data array: shape (n,) or (n, k); bool -> uint8; 2-D vectors padded to 3-D.

    Raises
    ------
    ValueError
        Naming the field and the expected shape if the array does not fit.
    """
    arr = np.asarray(value)
    if arr.ndim not in (1, 2) or arr.shape[0] != n:
        raise ValueError(
            f"{what} field {name!r} has shape {arr.shape}, expected ({n},) or ({n}, k) "
            f"(one value or one row per {'node' if 'point' in what else 'cell'}, n = {n})"
        )
    if arr.dtype == bool:
        arr = arr.astype(np.uint8)
    if not (np.issubdtype(arr.dtype, np.number)):
        raise ValueError(f"{what} field {name!r} has non-numeric dtype {arr.dtype}")
    return _pad_vector(arr)


def _points3(points, what: str) -> np.ndarray:
    """Coordinates (m, 2) or (m, 3) [m] -> float array (m, 3), z = 0 for 2-D input."""
    p = np.asarray(points, dtype=float)
    if p.ndim != 2 or p.shape[1] not in (2, 3):
        raise ValueError(f"{what} must have shape (m, 2) (or (m, 3)), got {p.shape}")
    if p.shape[1] == 2:
        p = np.column_stack([p, np.zeros(p.shape[0])])
    return p


class _PvdSeries:
    """Step counter and ``.pvd`` bookkeeping shared by the time-series writers.

    Parameters
    ----------
    directory : folder of the ``.pvd`` and ``.vtu`` files, created if missing.
    basename : the collection is ``directory/basename.pvd``, the steps
        ``directory/basename_000000.vtu``, ``..._000001.vtu``, ...

    Notes
    -----
    An empty (valid) ``.pvd`` is written at once, replacing any collection of an earlier run with
    the same name. Stale ``.vtu`` files of an earlier run are left in place (only logged); they are
    overwritten step by step and never listed unless written by this run.
    """

    def __init__(self, directory: str | os.PathLike, basename: str):
        self.directory = series_folder(directory, basename)
        self.basename = basename
        self.pvd_path = self.directory / f"{basename}.pvd"
        self._entries: list[tuple[float, str]] = []
        self._closed = False
        stale = sorted(self.directory.glob(f"{basename}_{'[0-9]' * _STEP_DIGITS}.vtu"))
        if stale:
            logger.warning(
                "%d file(s) %s_*.vtu from an earlier run in %s; they are not listed in the new %s "
                "and will be overwritten as steps are written",
                len(stale), basename, self.directory, self.pvd_path.name,
            )
        self._write_pvd()
        logger.info("time series %s opened", self.pvd_path)

    @property
    def path(self) -> Path:
        return self.pvd_path

    @property
    def n_steps(self) -> int:
        return len(self._entries)

    @property
    def times(self) -> list[float]:
        return [t for t, _ in self._entries]

    @property
    def closed(self) -> bool:
        return self._closed

    def next_step(self, t: float) -> tuple[float, Path]:
        """Check the time of the next step and return it with the path of its ``.vtu``.

        Raises
        ------
        RuntimeError
            If the series is closed.
        ValueError
            If ``t`` is not finite or not strictly greater than the previous time.
        """
        t = next_time(t, self._entries[-1][0] if self._entries else None, self._closed, self.pvd_path)
        name = f"{self.basename}_{len(self._entries):0{_STEP_DIGITS}d}.vtu"
        return t, self.directory / name

    def write(self, t: float, mesh: meshio.Mesh) -> Path:
        """Write one step's ``.vtu`` (atomically), then list it; returns the ``.vtu``."""
        t, path = self.next_step(t)
        _atomic_meshio_write(path, mesh)
        self.add(t, path)
        return path

    def add(self, t: float, vtu_path: Path) -> None:
        """Record a step whose ``.vtu`` is complete on disk and rewrite the ``.pvd``."""
        self._entries.append((t, vtu_path.name))
        self._write_pvd()
        logger.debug("%s: step %d, t = %r s -> %s", self.pvd_path.name, len(self._entries) - 1,
                     t, vtu_path.name)

    def close(self) -> None:
        """Rewrite the ``.pvd`` a last time and refuse further steps (idempotent)."""
        if self._closed:
            return
        self._write_pvd()
        self._closed = True
        logger.info("time series %s closed after %d step(s)", self.pvd_path, len(self._entries))

    def _write_pvd(self) -> None:
        lines = [
            '<?xml version="1.0"?>',
            '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
            "  <Collection>",
        ]
        for t, name in self._entries:
            # repr(float) is the shortest string that reads back to the same double.
            lines.append(
                f'    <DataSet timestep="{t!r}" group="" part="0" file={quoteattr(name)}/>'
            )
        lines += ["  </Collection>", "</VTKFile>", ""]
        output_folder.write_text(self.pvd_path, "\n".join(lines))


class _SeriesWriterBase:
    """Context-manager plumbing around a :class:`_PvdSeries` or a fem.io.xdmf.XdmfSeries."""

    _series: "_PvdSeries | XdmfSeries"

    @property
    def path(self) -> Path:
        """Absolute path of the series file ParaView opens (``.pvd`` or ``.xdmf``)."""
        return self._series.path

    @property
    def pvd_path(self) -> Path:
        """Absolute path of the ``.pvd`` collection file (format "pvd")."""
        return self._series.pvd_path

    @property
    def n_steps(self) -> int:
        """Number of steps written so far."""
        return self._series.n_steps

    @property
    def times(self) -> list[float]:
        """Physical times [s] of the steps written so far."""
        return self._series.times

    @property
    def closed(self) -> bool:
        return self._series.closed

    def close(self) -> None:
        """Leave a valid ``.pvd`` listing every step written; later ``write`` calls raise."""
        self._series.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close()

    def _write_step(self, t: float, mesh: meshio.Mesh) -> Path:
        return self._series.write(t, mesh)


# --------------------------------------------------------------------------------------------------
# mesh time series
# --------------------------------------------------------------------------------------------------
class TimeSeriesWriter(_SeriesWriterBase):
    """Time series of fields on a :class:`~fem.mesh.mesh.Mesh`, one ``.vtu`` per step plus a ``.pvd``.

    Parameters
    ----------
    directory : str or path-like
        Output folder, created if missing.
    mesh : Mesh
        The mesh; node coordinates ``mesh.points`` (n_nodes, 2) [m] are written as (n_nodes, 3)
        with z = 0. *All* nodes are written, in mesh order, so point indices in ParaView are those
        of the mesh, even for nodes that belong only to groups not written.
    groups : sequence of str, optional
        Names of the cell groups whose cells are written, in this order (e.g. ``["BLOCK",
        "GROUN"]``). Default: every cell group of dimension 2, in mesh order.
    basename : str, default ``"solution"``
        Files are ``directory/basename.pvd`` and ``directory/basename_000000.vtu``, ...

    Notes
    -----
    Each written group is one cell block of the ``.vtu``. Reading a file back with
    :func:`meshio.read` gives one block per run of consecutive cells of the same type, so two
    consecutive groups of the same cell type come back merged into one block; the integer cell
    field ``"group"`` (index into :attr:`groups`) tells them apart, in ParaView as well.

    Examples
    --------
    >>> with TimeSeriesWriter("results/run1", mesh) as out:           # doctest: +SKIP
    ...     for t, u, v in steps:
    ...         out.write(t, point_data={"displacement": u, "velocity": v})
    """

    def __init__(
        self,
        directory: str | os.PathLike,
        mesh: Mesh,
        groups: Sequence[str] | None = None,
        basename: str = "solution",
        output_format: str | None = None,
    ):
        if groups is None:
            groups = [name for name, blk in mesh.cell_groups.items() if blk.dim == 2]
            if not groups:
                raise ValueError(
                    "mesh has no cell group of dimension 2 to write; "
                    f"cell groups: {sorted(mesh.cell_groups)}; pass groups=[...]"
                )
        elif isinstance(groups, str):
            groups = [groups]
        groups = list(groups)
        if not groups:
            raise ValueError("groups is empty: nothing to write")
        dup = sorted({g for g in groups if groups.count(g) > 1})
        if dup:
            raise ValueError(f"groups listed more than once: {dup}")
        blocks = [mesh.cells(g) for g in groups]  # MeshError naming a missing group

        self.mesh = mesh
        self.groups: tuple[str, ...] = tuple(groups)
        self.n_nodes = mesh.n_nodes
        #: number of cells of each written group, in :attr:`groups` order
        self.n_cells: tuple[int, ...] = tuple(len(b) for b in blocks)
        self._points = _points3(mesh.points, "mesh.points")
        import meshio  # imported on use (issue 40: start-up)

        self._cells = [
            meshio.CellBlock(b.cell_type, np.asarray(b.connectivity, dtype=np.int64))
            for b in blocks
        ]
        for g, c in zip(self.groups, self._cells):
            if c.data.size and (c.data.min() < 0 or c.data.max() >= self.n_nodes):
                raise ValueError(
                    f"cell group {g!r} refers to nodes outside 0..{self.n_nodes - 1}"
                )
        self._group_field = [np.full(n, i, dtype=np.int32) for i, n in enumerate(self.n_cells)]
        self._series = _open_series(directory, basename, output_format)

    @property
    def n_cells_total(self) -> int:
        """Number of cells written per step (all groups)."""
        return int(sum(self.n_cells))

    def write(
        self,
        t: float,
        point_data: Mapping[str, np.ndarray] | None = None,
        cell_data: Mapping[str, Mapping[str, np.ndarray] | np.ndarray] | None = None,
    ) -> Path:
        """Write one step and update the ``.pvd``.

        Parameters
        ----------
        t : float
            Physical time [s]; finite, strictly greater than the previous step's.
        point_data : mapping name -> array, optional
            Nodal fields, shape (n_nodes,) or (n_nodes, k), SI units (displacement [m], velocity
            [m/s], force [N], ...). A 2-column array is a 2-D vector and is written with 3
            components, z = 0 (ParaView's Warp By Vector needs 3-vectors).
        cell_data : mapping name -> (mapping group -> array) or array, optional
            Cell fields, either per group (``{"BLOCK": (n_cells_BLOCK, ...), "GROUN": ...}``, every
            written group present) or one array over all written cells concatenated in
            :attr:`groups` order, shape (n_cells_total,) or (n_cells_total, k). 2-column arrays
            are padded to 3 components like point data. ``"group"`` is reserved: the integer index
            of each cell's group in :attr:`groups` is always written under that name.

        Returns
        -------
        pathlib.Path
            The ``.vtu`` written (format "pvd"), or the series' ``.xdmf``.

        Raises
        ------
        ValueError
            A field of the wrong shape (the message names it and the expected shape), a
            per-group cell field with missing or unknown groups, a bad time.
        RuntimeError
            The writer is closed.
        """
        pdata = {
            name: _as_field(name, value, self.n_nodes, "point_data")
            for name, value in (point_data or {}).items()
        }
        cdata: dict[str, list[np.ndarray]] = {}
        for name, value in (cell_data or {}).items():
            if name == GROUP_FIELD:
                raise ValueError(f"cell_data name {GROUP_FIELD!r} is reserved for the group index")
            cdata[name] = self._split_cell_field(name, value)
        cdata[GROUP_FIELD] = list(self._group_field)
        import meshio  # imported on use (issue 40: start-up)

        out = meshio.Mesh(self._points, list(self._cells), point_data=pdata, cell_data=cdata)
        return self._write_step(t, out)

    def _split_cell_field(self, name: str, value) -> list[np.ndarray]:
        """A cell field given per group or concatenated -> list of arrays, one per written group."""
        if isinstance(value, Mapping):
            missing = [g for g in self.groups if g not in value]
            extra = sorted(str(k) for k in value if k not in self.groups)
            if missing or extra:
                raise ValueError(
                    f"cell_data field {name!r}: "
                    + (f"missing group(s) {missing}" if missing else "")
                    + ("; " if missing and extra else "")
                    + (f"group(s) not written {extra}" if extra else "")
                    + f" (written groups: {list(self.groups)})"
                )
            parts = [
                _as_field(f"{name}[{g}]", value[g], n, "cell_data")
                for g, n in zip(self.groups, self.n_cells)
            ]
            trailing = {p.shape[1:] for p in parts}
            if len(trailing) > 1:
                raise ValueError(
                    f"cell_data field {name!r}: groups have different numbers of components "
                    f"{sorted(trailing)}"
                )
            return parts
        arr = _as_field(name, value, self.n_cells_total, "cell_data")
        return list(np.split(arr, np.cumsum(self.n_cells)[:-1]))


# --------------------------------------------------------------------------------------------------
# point-set time series (contact nodes)
# --------------------------------------------------------------------------------------------------
class PointSetSeriesWriter(_SeriesWriterBase):
    """Time series of a small point set (e.g. contact nodes) written as ``vertex`` cells.

    Parameters
    ----------
    directory : str or path-like
        Output folder, created if missing.
    basename : str
        Files are ``directory/basename.pvd`` and ``directory/basename_000000.vtu``, ...
        Must differ from the mesh series' basename when sharing a folder.

    Notes
    -----
    The number of points may change from step to step. In ParaView, show the points with the
    "Point Gaussian" representation or the Glyph filter. A step with no point (m = 0, e.g. no
    contact yet) is written and listed as a valid empty VTK grid; note that meshio 5.3.5 itself
    cannot read such an empty ``.vtu`` back (``meshio.read`` fails on zero-length arrays).
    """

    def __init__(self, directory: str | os.PathLike, basename: str = "contact", output_format: str | None = None):
        self._series = _open_series(directory, basename, output_format)

    def write(
        self,
        t: float,
        points: np.ndarray,
        point_data: Mapping[str, np.ndarray] | None = None,
    ) -> Path:
        """Write one step and update the ``.pvd``.

        Parameters
        ----------
        t : float
            Physical time [s]; finite, strictly greater than the previous step's.
        points : array, shape (m, 2)
            Current coordinates of the points [m] (written with z = 0).
        point_data : mapping name -> array, optional
            Shape (m,) or (m, k): e.g. ``status`` (int), ``gap`` [m], ``RN`` [N], ``RT`` [N].
            2-column arrays are written as 3-vectors with z = 0.

        Returns
        -------
        pathlib.Path
            The ``.vtu`` written (format "pvd"), or the series' ``.xdmf``.
        """
        p = _points3(points, "points")
        m = p.shape[0]
        pdata = {
            name: _as_field(name, value, m, "point_data")
            for name, value in (point_data or {}).items()
        }
        import meshio  # imported on use (issue 40: start-up)

        cells = [meshio.CellBlock("vertex", np.arange(m, dtype=np.int64).reshape(m, 1))]
        return self._write_step(t, meshio.Mesh(p, cells, point_data=pdata))


def read_pvd(path: str | os.PathLike) -> list[tuple[float, Path]]:
    """Read a ParaView collection file.

    Parameters
    ----------
    path : str or path-like
        The ``.pvd`` file.

    Returns
    -------
    list of (float, pathlib.Path)
        ``(time [s], absolute path of the dataset file)`` for every ``DataSet``, in file order.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If it is not a readable ParaView collection.
    """
    path = Path(path).resolve()
    root = xml_root(path, "ParaView collection file")
    coll = root.find("Collection")
    if root.tag != "VTKFile" or coll is None:
        raise ValueError(f"{path} is not a ParaView collection (VTKFile/Collection) file")
    out = []
    for ds in coll.iter("DataSet"):
        try:
            t = float(ds.attrib["timestep"])
            f = ds.attrib["file"]
        except (KeyError, ValueError) as e:
            raise ValueError(f"{path}: bad DataSet entry {ds.attrib}: {e!r}") from None
        out.append((t, (path.parent / f).resolve()))
    return out


def read_series(path: str | os.PathLike) -> list[tuple[float, meshio.Mesh]]:
    """Every step of a time series, ``.xdmf`` (fem.io.xdmf.read_xdmf) or ``.pvd`` (each ``.vtu``
    read by meshio): ``[(time [s], meshio.Mesh), ...]``."""
    path = Path(path)
    if path.suffix == ".pvd":
        import meshio  # imported on use (issue 40: start-up)

        return [(t, meshio.read(vtu)) for t, vtu in read_pvd(path)]
    return read_xdmf(path)
