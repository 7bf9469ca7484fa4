"""Tests of fem.io.xdmf: time series as one XDMF file over one HDF5 file (the default format of
fem.io.results' writers), read back by fem.io.xdmf.read_xdmf, by meshio's own XDMF reader, and by
VTK's vtkXdmfReader (the reader behind ParaView's "XDMF Reader"), when VTK is installed."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import h5py
import meshio
import numpy as np
import pytest

from fem.io.results import PointSetSeriesWriter, TimeSeriesWriter, read_series, series_format, use_series_format
from fem.io.xdmf import XdmfSeries, read_xdmf, topology_array
from fem.mesh.mesh import CellBlock, Mesh

TIMES = [0.0, 1e-3, 3.5e-3, 0.1, 1.0 / 3.0]  # non-uniform, not round in binary


def quad_and_tria6() -> Mesh:
    """A quad (BLOCK) above a quadratic triangle (GROUN), and a node (9) no cell uses."""
    points = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 2.0], [0.0, 2.0], [0.0, 0.0], [1.0, 0.0], [0.5, 0.0],
                       [0.5, 0.5], [0.0, 0.5], [7.0, 7.0]])
    return Mesh(points=points,
                cell_groups={"BLOCK": CellBlock("quad", np.array([[0, 1, 2, 3]])),
                             "GROUN": CellBlock("triangle6", np.array([[4, 5, 0, 6, 7, 8]]))},
                node_groups={})


def two_quads() -> Mesh:
    points = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0]])
    return Mesh(points=points, cell_groups={"BLOCK": CellBlock("quad", np.array([[0, 1, 4, 3], [1, 2, 5, 4]]))},
                node_groups={})


def listed_times(path):
    """Times listed in an XDMF file, parsed independently of read_xdmf."""
    root = ET.parse(path).getroot()
    return [float(g.find("Time").get("Value")) for g in root.findall("./Domain/Grid/Grid")]


def test_the_default_format_is_xdmf_and_pvd_can_be_chosen(tmp_path):
    assert series_format() == "xdmf"
    with TimeSeriesWriter(tmp_path / "a", two_quads()) as w:
        w.write(0.0)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["solution.h5", "solution.xdmf"]
    try:
        use_series_format("pvd")
        with TimeSeriesWriter(tmp_path / "b", two_quads()) as w:
            w.write(0.0)
        assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["solution.pvd", "solution_000000.vtu"]
    finally:
        use_series_format("xdmf")
    with pytest.raises(ValueError, match="xdmf"):
        use_series_format("vtkhdf")


def test_round_trip_every_field_at_every_time_two_files_whatever_the_steps(tmp_path):
    """Two cell types (a Mixed topology), point fields (2-D vectors padded to 3-D, scalars, ints),
    cell fields per group and concatenated: read back bit-exact at every step, by read_xdmf and by
    meshio's XDMF reader; the mesh arrays are stored once."""
    mesh = quad_and_tria6()
    rng = np.random.default_rng(1)
    n = mesh.n_nodes
    steps = [dict(u=rng.standard_normal((n, 2)), T=rng.standard_normal(n), flag=rng.integers(0, 3, n),
                  eps={"BLOCK": rng.standard_normal((1, 3)), "GROUN": rng.standard_normal((1, 3))})
             for _ in range(40)]
    times = list(np.cumsum(rng.uniform(1e-4, 1e-2, 40)))
    with TimeSeriesWriter(tmp_path, mesh) as w:
        assert w.groups == ("BLOCK", "GROUN")
        for t, s in zip(times, steps):
            w.write(t, point_data={"displacement": s["u"], "T": s["T"], "flag": s["flag"]},
                    cell_data={"eps": s["eps"]})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["solution.h5", "solution.xdmf"]
    with h5py.File(tmp_path / "solution.h5") as h5:
        assert list(h5["geometry"]) == ["0"] and list(h5["topology"]) == ["0"]  # stored once
    back = read_series(tmp_path / "solution.xdmf")
    assert [t for t, _ in back] == times  # exact: repr(t) in the XML
    for (t, m), s in zip(back, steps):
        assert [c.type for c in m.cells] == ["quad", "triangle6"]
        np.testing.assert_array_equal(m.cells[0].data, mesh.cells("BLOCK").connectivity)
        np.testing.assert_array_equal(m.cells[1].data, mesh.cells("GROUN").connectivity)
        np.testing.assert_array_equal(m.points[:, :2], mesh.points)
        np.testing.assert_array_equal(m.points[:, 2], 0.0)
        np.testing.assert_array_equal(m.point_data["displacement"][:, :2], s["u"])
        np.testing.assert_array_equal(m.point_data["displacement"][:, 2], 0.0)
        np.testing.assert_array_equal(m.point_data["T"], s["T"])
        np.testing.assert_array_equal(m.point_data["flag"], s["flag"])
        np.testing.assert_array_equal(m.cell_data["eps"][0], s["eps"]["BLOCK"])
        np.testing.assert_array_equal(m.cell_data["eps"][1], s["eps"]["GROUN"])
        assert [list(g) for g in m.cell_data["group"]] == [[0], [1]]


def test_meshio_reads_the_series(tmp_path):
    """meshio's own XDMF reader (another implementation of the format) reads what read_xdmf reads
    (one cell type: meshio 5.3's reader does not know the Tri_6 code of a Mixed array)."""
    mesh = two_quads()
    us = [np.full((mesh.n_nodes, 2), t) + np.arange(mesh.n_nodes)[:, None] for t in TIMES]
    with TimeSeriesWriter(tmp_path, mesh) as w:
        for t, u in zip(TIMES, us):
            w.write(t, point_data={"displacement": u}, cell_data={"eps": np.array([t, -t])})
    with meshio.xdmf.TimeSeriesReader(tmp_path / "solution.xdmf") as reader:
        points, cells = reader.read_points_cells()
        np.testing.assert_array_equal(points[:, :2], mesh.points)
        assert [c.type for c in cells] == ["quad"]
        np.testing.assert_array_equal(cells[0].data, mesh.cells("BLOCK").connectivity)
        assert reader.num_steps == len(TIMES)
        for k, t in enumerate(TIMES):
            time_k, point_data, cell_data = reader.read_data(k)
            assert time_k == t
            np.testing.assert_array_equal(point_data["displacement"][:, :2], us[k])
            np.testing.assert_array_equal(cell_data["eps"][0], [t, -t])


def test_the_xdmf_lists_the_steps_on_disk_before_close(tmp_path):
    """A run that stops without closing keeps its steps: the first is listed at once, later ones when
    ``every`` seconds have passed (a clock the test turns), all at close; the listed ones read back."""
    now = [0.0]
    series = XdmfSeries(tmp_path, "crash", every=2.0, clock=lambda: now[0])
    assert listed_times(tmp_path / "crash.xdmf") == []  # valid and empty before any step
    mesh = meshio.Mesh(np.zeros((2, 3)), [meshio.CellBlock("vertex", np.array([[0], [1]]))])
    for k, t in enumerate(TIMES):
        now[0] = 0.9 * k  # steps 0.9 s apart: listed at 0 s (step 0), then at 2.7 s (step 3)
        mesh.point_data = {"u": np.full(2, t)}
        series.write(t, mesh)
        assert listed_times(tmp_path / "crash.xdmf") == TIMES[:{0: 1, 1: 1, 2: 1, 3: 4, 4: 4}[k]]
    back = read_xdmf(tmp_path / "crash.xdmf")  # the steps listed, their arrays on disk
    assert [float(m.point_data["u"][0]) for _, m in back] == TIMES[:4]
    series.close()
    series.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        series.write(2.0, mesh)
    assert listed_times(tmp_path / "crash.xdmf") == TIMES


def test_times_must_increase_and_refused_steps_leave_nothing(tmp_path):
    with TimeSeriesWriter(tmp_path, two_quads()) as w:
        w.write(1.0)
        with pytest.raises(ValueError, match="strictly increasing"):
            w.write(1.0)
        with pytest.raises(ValueError, match="finite"):
            w.write(float("nan"))
        with pytest.raises(ValueError, match=r"'velocity'.*\(6,\)"):
            w.write(2.0, point_data={"velocity": np.zeros((5, 2))})
    assert listed_times(tmp_path / "solution.xdmf") == [1.0]
    with h5py.File(tmp_path / "solution.h5") as h5:
        assert list(h5["steps"]) == ["000000"]


def test_point_sets_change_size_and_position(tmp_path):
    """Contact points: their positions are written when they move, their count may change."""
    pts = np.array([[0.0, 0.0], [0.5, -1e-6], [1.0, 2e-7]])
    rt = np.array([[0.1, 0.2], [0.0, 0.0], [-0.3, 1 / 3]])
    with PointSetSeriesWriter(tmp_path, "contact") as w:
        w.write(0.0, pts, {"status": np.array([1, 0, 2]), "RT": rt})
        w.write(1e-3, pts, {"status": np.array([1, 1, 2]), "RT": rt})  # same points: geometry kept
        w.write(2e-3, pts[:2] * 2, {"status": np.array([0, 0]), "RT": rt[:2]})
    back = read_series(tmp_path / "contact.xdmf")
    assert [t for t, _ in back] == [0.0, 1e-3, 2e-3]
    np.testing.assert_array_equal(back[1][1].point_data["status"], [1, 1, 2])
    np.testing.assert_array_equal(back[2][1].points[:, :2], pts[:2] * 2)
    np.testing.assert_array_equal(back[2][1].point_data["RT"][:, :2], rt[:2])
    assert back[2][1].cells[0].type == "vertex" and back[2][1].cells[0].data.ravel().tolist() == [0, 1]
    with h5py.File(tmp_path / "contact.h5") as h5:
        assert sorted(h5["geometry"]) == ["0", "1"]


def test_mixed_topology_codes():
    """XDMF's Mixed array: the type code, the node count for poly cells, the nodes."""
    kind, arr, n, per = topology_array([meshio.CellBlock("quad", np.array([[0, 1, 2, 3]])),
                                        meshio.CellBlock("triangle6", np.array([[4, 5, 0, 6, 7, 8]])),
                                        meshio.CellBlock("line", np.array([[1, 2]]))])
    assert (kind, n, per) == ("Mixed", 3, None)
    assert arr.tolist() == [5, 0, 1, 2, 3, 36, 4, 5, 0, 6, 7, 8, 2, 2, 1, 2]
    with pytest.raises(ValueError, match="wedge"):
        topology_array([meshio.CellBlock("wedge", np.zeros((1, 6), dtype=int))])


def test_vtk_xdmf_reader_opens_the_series(tmp_path):
    """VTK's vtkXdmfReader, ParaView's "XDMF Reader", sees every step's time and reads the fields of
    a step it is asked for (a quad + triangle6 mesh: a Mixed topology)."""
    vtk_xdmf = pytest.importorskip("vtkmodules.vtkIOXdmf2")
    from vtkmodules.util.numpy_support import vtk_to_numpy

    mesh = quad_and_tria6()
    us = [np.full((mesh.n_nodes, 2), float(k)) for k in range(len(TIMES))]
    with TimeSeriesWriter(tmp_path, mesh) as w:
        for t, u in zip(TIMES, us):
            w.write(t, point_data={"displacement": u}, cell_data={"eps": np.array([1.5, 2.5])})
    reader = vtk_xdmf.vtkXdmfReader()
    reader.SetFileName(str(tmp_path / "solution.xdmf"))
    reader.UpdateInformation()
    info = reader.GetOutputInformation(0)
    from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
    assert list(info.Get(sddp.TIME_STEPS())) == TIMES
    reader.UpdateTimeStep(TIMES[3])
    grid = reader.GetOutputDataObject(0)
    assert grid.GetNumberOfPoints() == mesh.n_nodes and grid.GetNumberOfCells() == 2
    np.testing.assert_array_equal(vtk_to_numpy(grid.GetPointData().GetArray("displacement"))[:, 0], 3.0)
    np.testing.assert_array_equal(vtk_to_numpy(grid.GetCellData().GetArray("eps")), [1.5, 2.5])
    assert [grid.GetCellType(i) for i in range(2)] == [9, 22]  # VTK_QUAD, VTK_QUADRATIC_TRIANGLE
