"""Time series in two files: XDMF (the light XML ParaView reads) over HDF5 (the arrays).

A series ``basename`` in a folder is ``basename.xdmf`` and ``basename.h5``, whatever the number of
steps. The HDF5 file holds::

    /geometry/<k>             (n, 3) float64 point coordinates [m], written when they change
    /topology/<k>             the cells: (n_cells, nodes) int64 for one cell type, or a flat
                              XDMF "Mixed" array (type code, [count,] nodes, ...) for several
    /steps/<step>/point/<f>   point field f of step <step> (6 digits), (n,) or (n, k)
    /steps/<step>/cell/<f>    cell field f, over all cells in block order
    /steps/<step>             attribute ``time`` [s]

and the XDMF file (version 3.0: ParaView's "XDMF Reader" (vtkXdmfReader), its Xdmf3 readers and
meshio open it) is a temporal collection of one uniform grid per step, each naming its HDF5 arrays::

    <Xdmf Version="3.0"><Domain>
      <Grid Name="solution" GridType="Collection" CollectionType="Temporal">
        <Grid Name="step_000000" GridType="Uniform"><Time Value="0.0"/>
          <Topology TopologyType="Quadrilateral" NumberOfElements="32">
            <DataItem Dimensions="32 4" NumberType="Int" Precision="8" Format="HDF">solution.h5:/topology/0</DataItem>
          </Topology>
          <Geometry GeometryType="XYZ">...</Geometry>
          <Attribute Name="displacement" AttributeType="Vector" Center="Node">...</Attribute>
        </Grid>
        ...

A run that stops keeps its steps: the HDF5 file is flushed after every step, and the XDMF file is
replaced atomically (a temporary file, then ``os.replace``) after the first step, then whenever
``every`` seconds have passed since its last rewrite, and at :meth:`XdmfSeries.close` (which the
recorders call on success, failure and interruption alike): it lists only steps whose arrays are
on disk. A process killed outright (SIGKILL) may leave the last ``every`` seconds of steps in the
HDF5 file unlisted, and an HDF5 write cut in the middle may leave that file unreadable: for such
runs the one-file-per-step ``.pvd`` format (fem.io.results) is the safer choice.

:func:`read_xdmf` reads a series back as ``[(time [s], meshio.Mesh), ...]``.
"""
from __future__ import annotations

import logging
import math
import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Callable
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from fem.io import output_folder

if TYPE_CHECKING:
    import meshio

logger = logging.getLogger(__name__)

#: XDMF topology name and "Mixed" type code of each meshio cell type written (Xdmf's XdmfTopology
#: codes: Polyvertex 0x1, Polyline 0x2, Triangle 0x4, Quadrilateral 0x5, Quadrilateral_9 0x23,
#: Tri_6 0x24, Quad_8 0x25); Polyvertex and Polyline carry their node count in a Mixed array
CELL_TYPES = {"vertex": ("Polyvertex", 1), "line": ("Polyline", 2), "triangle": ("Triangle", 4),
              "quad": ("Quadrilateral", 5), "quad9": ("Quadrilateral_9", 35), "triangle6": ("Tri_6", 36),
              "quad8": ("Quad_8", 37)}
_BY_NAME = {name: cell for cell, (name, _) in CELL_TYPES.items()}
_BY_CODE = {code: cell for cell, (_, code) in CELL_TYPES.items()}
_COUNTED = {"vertex", "line"}  # codes followed by a node count in a Mixed array
#: seconds between two rewrites of the XDMF file while a run goes on
EVERY = 2.0
_STEP_DIGITS = 6


def _number_type(arr: np.ndarray) -> tuple[str, int]:
    """XDMF NumberType and Precision of an array's dtype."""
    if np.issubdtype(arr.dtype, np.floating):
        return "Float", arr.dtype.itemsize
    if arr.dtype == np.uint8:
        return "UChar", 1
    if np.issubdtype(arr.dtype, np.unsignedinteger):
        return "UInt", arr.dtype.itemsize
    return "Int", arr.dtype.itemsize


def _attribute_type(arr: np.ndarray) -> str:
    """XDMF AttributeType of a field (n,) or (n, k)."""
    k = 1 if arr.ndim == 1 else arr.shape[1]
    return {1: "Scalar", 3: "Vector", 6: "Tensor6", 9: "Tensor"}.get(k, "Matrix")


def _data_item(h5_name: str, path: str, arr: np.ndarray) -> str:
    number, precision = _number_type(arr)
    dims = " ".join(str(d) for d in arr.shape)
    return (f'<DataItem Dimensions="{dims}" NumberType="{number}" Precision="{precision}" '
            f'Format="HDF">{escape(h5_name)}:{escape(path)}</DataItem>')


def _check_name(name: str) -> str:
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"field name {name!r} cannot name an HDF5 array (empty, '/' or a dot)")
    return name


def series_folder(directory: str | os.PathLike, basename: str) -> Path:
    """The folder of a series (absolute, created if missing), after checking ``basename`` is a plain
    file name stem (ValueError otherwise): the .xdmf and the .pvd series alike."""
    if not basename or os.sep in basename or (os.altsep and os.altsep in basename):
        raise ValueError(f"basename must be a plain file name stem, got {basename!r}")
    folder = Path(directory).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def next_time(t: float, previous: float | None, closed: bool, path: Path) -> float:
    """A series' next step time ``t`` [s], checked (the .xdmf and the .pvd series alike):
    RuntimeError when the series ``path`` is closed, ValueError when ``t`` is not finite or not
    strictly after the ``previous`` step's time (ParaView's time axis)."""
    if closed:
        raise RuntimeError(f"time series {path} is closed; cannot write more steps")
    t = float(t)
    if not math.isfinite(t):
        raise ValueError(f"time must be finite, got {t!r}")
    if previous is not None and not t > previous:
        raise ValueError(f"time {t!r} s is not after the previous step's time {previous!r} s; "
                         "ParaView needs strictly increasing times")
    return t


def topology_array(cells: list[meshio.CellBlock]) -> tuple[str, np.ndarray, int, int | None]:
    """(TopologyType, array, number of cells, nodes per cell or None) of cell blocks: one cell type
    gives its connectivity (n_cells, nodes); several give XDMF's flat "Mixed" array."""
    for block in cells:
        if block.type not in CELL_TYPES:
            raise ValueError(f"cell type {block.type!r} has no XDMF topology here (known: {sorted(CELL_TYPES)})")
    n_cells = sum(len(b.data) for b in cells)
    if len({b.type for b in cells}) == 1:
        data = np.concatenate([np.asarray(b.data, dtype=np.int64) for b in cells])
        return CELL_TYPES[cells[0].type][0], data, n_cells, data.shape[1]
    parts = []
    for block in cells:
        conn = np.asarray(block.data, dtype=np.int64)
        head = [np.full((len(conn), 1), CELL_TYPES[block.type][1], dtype=np.int64)]
        if block.type in _COUNTED:
            head.append(np.full((len(conn), 1), conn.shape[1], dtype=np.int64))
        parts.append(np.hstack([*head, conn]).ravel())
    return "Mixed", np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64), n_cells, None


class XdmfSeries:
    """A time series written step by step into ``directory/basename.xdmf`` and ``basename.h5``.

    ``every`` [s]: the XDMF file is rewritten after the first step, then when at least ``every``
    seconds of ``clock`` have passed since its last rewrite, and at :meth:`close` (0: after every
    step). Times must be finite and strictly increasing (ParaView's time axis).
    """

    def __init__(self, directory: str | os.PathLike, basename: str, every: float = EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.directory = series_folder(directory, basename)
        self.basename = basename
        self.path = self.directory / f"{basename}.xdmf"
        self.h5_path = self.directory / f"{basename}.h5"
        self.every, self.clock = float(every), clock
        self._times: list[float] = []
        self._grids: list[str] = []
        self._geometry: list = [None, None, None]  # last points written, their XML item, count
        self._topology: list = [None, None, None]  # last cells written (their arrays), their XML, count
        self._closed = False
        import h5py  # imported on use (issue 40: start-up)

        self._h5 = h5py.File(self.h5_path, "w")
        output_folder.note(self.h5_path)
        self._listed = -1
        self._rewrite()
        self._last_rewrite = self.clock()
        logger.info("time series %s opened", self.path)

    @property
    def n_steps(self) -> int:
        return len(self._times)

    @property
    def times(self) -> list[float]:
        return list(self._times)

    @property
    def closed(self) -> bool:
        return self._closed

    def write(self, t: float, mesh: meshio.Mesh) -> Path:
        """Write one step: ``mesh``'s points (n, 3), cells, point_data and cell_data (one array per
        cell block, as meshio keeps them) at time ``t`` [s]; returns the series' ``.xdmf``."""
        t = next_time(t, self._times[-1] if self._times else None, self._closed, self.path)
        step = len(self._times)
        h5, name = self._h5, self.h5_path.name
        geometry, topology = self._geometry_item(mesh.points), self._topology_item(mesh.cells)
        group = h5.create_group(f"steps/{step:0{_STEP_DIGITS}d}")
        group.attrs["time"] = t
        attributes = []
        for field, value in mesh.point_data.items():
            arr = np.ascontiguousarray(value)
            path = f"/steps/{step:0{_STEP_DIGITS}d}/point/{_check_name(field)}"
            h5.create_dataset(path, data=arr)
            attributes.append(f'<Attribute Name={quoteattr(field)} AttributeType="{_attribute_type(arr)}" '
                              f'Center="Node">{_data_item(name, path, arr)}</Attribute>')
        for field, blocks in mesh.cell_data.items():
            arr = np.ascontiguousarray(np.concatenate([np.asarray(b) for b in blocks]))
            path = f"/steps/{step:0{_STEP_DIGITS}d}/cell/{_check_name(field)}"
            h5.create_dataset(path, data=arr)
            attributes.append(f'<Attribute Name={quoteattr(field)} AttributeType="{_attribute_type(arr)}" '
                              f'Center="Cell">{_data_item(name, path, arr)}</Attribute>')
        h5.flush()
        self._times.append(t)
        self._grids.append(f'<Grid Name="step_{step:0{_STEP_DIGITS}d}" GridType="Uniform"><Time Value="{t!r}"/>'
                           f"{topology}{geometry}{''.join(attributes)}</Grid>")
        if step == 0 or self.clock() - self._last_rewrite >= self.every:
            self._rewrite()
        return self.path

    def _geometry_item(self, points: np.ndarray) -> str:
        last, item, count = self._geometry
        if last is not None and (last is points or np.array_equal(last, points)):
            return item
        points = np.ascontiguousarray(points, dtype=float)
        path = f"/geometry/{0 if count is None else count}"
        self._h5.create_dataset(path, data=points)
        item = f'<Geometry GeometryType="XYZ">{_data_item(self.h5_path.name, path, points)}</Geometry>'
        self._geometry = [points, item, 1 if count is None else count + 1]
        return item

    def _topology_item(self, cells: list[meshio.CellBlock]) -> str:
        last, item, count = self._topology
        key = [(b.type, np.asarray(b.data)) for b in cells]
        if last is not None and len(last) == len(key) and all(
                a == c and (x is y or np.array_equal(x, y)) for (a, x), (c, y) in zip(last, key)):
            return item
        kind, arr, n_cells, per_cell = topology_array(cells)
        path = f"/topology/{0 if count is None else count}"
        self._h5.create_dataset(path, data=arr)
        nodes = f' NodesPerElement="{per_cell}"' if per_cell is not None else ""
        item = (f'<Topology TopologyType="{kind}" NumberOfElements="{n_cells}"{nodes}>'
                f"{_data_item(self.h5_path.name, path, arr)}</Topology>")
        self._topology = [key, item, 1 if count is None else count + 1]
        return item

    def _rewrite(self) -> None:
        """Replace the XDMF file by one listing every step written so far."""
        if self._listed == len(self._grids):
            return
        text = ('<?xml version="1.0"?>\n<Xdmf Version="3.0">\n<Domain>\n'
                f'<Grid Name={quoteattr(self.basename)} GridType="Collection" CollectionType="Temporal">\n'
                + "".join(g + "\n" for g in self._grids) + "</Grid>\n</Domain>\n</Xdmf>\n")
        output_folder.write_text(self.path, text)
        self._listed, self._last_rewrite = len(self._grids), self.clock()

    def close(self) -> None:
        """List every step written and close the HDF5 file (idempotent); later writes raise."""
        if self._closed:
            return
        self._closed = True
        try:
            self._h5.close()
        finally:
            self._rewrite()
        logger.info("time series %s closed after %d step(s)", self.path, len(self._times))


#: nodes of a cell of each fixed-size type
_NODES = {"triangle": 3, "quad": 4, "triangle6": 6, "quad8": 8, "quad9": 9}


def _read_item(item: ET.Element, folder: Path, files: dict) -> np.ndarray:
    """The array a DataItem names (Format HDF: ``file.h5:/path``, the files opened once in
    ``files``; XML: inline numbers)."""
    dims = tuple(int(d) for d in item.attrib["Dimensions"].split())
    if item.attrib.get("Format", "XML") == "HDF":
        file, _, path = (item.text or "").strip().partition(":")
        if file not in files:
            import h5py  # imported on use (issue 40: start-up)

            files[file] = h5py.File(folder / file, "r")
        return np.asarray(files[file][path]).reshape(dims)
    return np.array((item.text or "").split(), dtype=float).reshape(dims)


def _cells(kind: str, arr: np.ndarray, n_cells: int) -> list[meshio.CellBlock]:
    """Cell blocks of a Topology: consecutive cells of one type make a block."""
    import meshio  # imported on use (issue 40: start-up)

    if kind != "Mixed":
        return [meshio.CellBlock(_BY_NAME[kind], arr.reshape(n_cells, -1))]
    flat, blocks, k = arr.ravel(), [], 0
    for _ in range(n_cells):
        cell = _BY_CODE[int(flat[k])]
        if cell in _COUNTED:
            count, k = int(flat[k + 1]), k + 2
        else:
            count, k = _NODES[cell], k + 1
        nodes = flat[k:k + count]
        k += count
        if blocks and blocks[-1][0] == cell:
            blocks[-1][1].append(nodes)
        else:
            blocks.append((cell, [nodes]))
    return [meshio.CellBlock(cell, np.array(rows, dtype=np.int64)) for cell, rows in blocks]


def xml_root(path: Path, what: str) -> ET.Element:
    """The root element of the XML file ``path``: FileNotFoundError ("``what`` not found: path") when
    it is missing, ValueError when it is not XML (a series' .xdmf, a .pvd collection)."""
    if not path.is_file():
        raise FileNotFoundError(f"{what} not found: {path}")
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as err:
        raise ValueError(f"{path} is not valid XML: {err}") from None


def read_xdmf(path: str | os.PathLike) -> list[tuple[float, meshio.Mesh]]:
    """Every step of an XDMF temporal collection: ``[(time [s], meshio.Mesh), ...]`` in file order,
    point and cell data included (cell data split by block). FileNotFoundError if ``path`` is
    missing, ValueError if it is not such a file."""
    path = Path(path).resolve()
    root = xml_root(path, "XDMF file")
    collection = root.find("Domain/Grid")
    if root.tag != "Xdmf" or collection is None:
        raise ValueError(f"{path} is not an XDMF file with a grid collection")
    steps, files = [], {}
    try:
        for grid in collection.findall("Grid"):
            steps.append(_read_grid(grid, path.parent, files))
    finally:
        for h5 in files.values():
            h5.close()
    return steps


def _read_grid(grid: ET.Element, folder: Path, files: dict) -> tuple[float, meshio.Mesh]:
    """(time, mesh with its data) of one uniform grid."""
    import meshio  # imported on use (issue 40: start-up)

    t = float(grid.find("Time").attrib["Value"])
    topology, geometry = grid.find("Topology"), grid.find("Geometry")
    cells = _cells(topology.attrib["TopologyType"], _read_item(topology.find("DataItem"), folder, files),
                   int(topology.attrib["NumberOfElements"]))
    points = _read_item(geometry.find("DataItem"), folder, files)
    point_data, cell_data = {}, {}
    splits = np.cumsum([len(b.data) for b in cells])[:-1]
    for attribute in grid.findall("Attribute"):
        arr = _read_item(attribute.find("DataItem"), folder, files)
        if attribute.attrib.get("Center", "Node") == "Cell":
            cell_data[attribute.attrib["Name"]] = list(np.split(arr, splits))
        else:
            point_data[attribute.attrib["Name"]] = arr
    return t, meshio.Mesh(points, cells, point_data=point_data, cell_data=cell_data)
