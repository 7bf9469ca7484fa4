"""Tests of fem.io.results: .vtu/.pvd time series for ParaView (format "pvd"; the XDMF series: tests/test_xdmf.py)
and CSV time histories."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import meshio
import numpy as np
import pytest

from fem.mesh.mesh import CellBlock, Mesh
from fem.io.results import (
    HistoryWriter,
    PointSetSeriesWriter,
    TimeSeriesWriter,
    read_history,
    read_pvd,
)

TIMES = [0.0, 1e-3, 3.5e-3, 0.1, 1.0 / 3.0]  # non-uniform, not round in binary


def two_quads() -> Mesh:
    """Two unit quads side by side, plus one node (6) used by no written cell."""
    points = np.array(
        [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [5.0, 5.0]]
    )
    quads = np.array([[0, 1, 4, 3], [1, 2, 5, 4]])
    return Mesh(
        points=points,
        cell_groups={
            "BLOCK": CellBlock("quad", quads),
            "BOTTOM": CellBlock("line", np.array([[0, 1], [1, 2]])),
        },
        node_groups={"BLOCK": np.arange(6), "BOTTOM": np.array([0, 1, 2]), "P": np.array([6])},
    )


def quad_and_tria6() -> Mesh:
    """A quad (BLOCK) above a quadratic triangle (GROUN)."""
    points = np.array(
        [
            [0.0, 1.0], [1.0, 1.0], [1.0, 2.0], [0.0, 2.0],  # quad 0-3
            [0.0, 0.0], [1.0, 0.0], [0.5, 0.0],  # triangle corners 4, 5, 0 (shared), mids
            [0.5, 0.5], [0.0, 0.5],
        ]
    )
    return Mesh(
        points=points,
        cell_groups={
            "BLOCK": CellBlock("quad", np.array([[0, 1, 2, 3]])),
            "GROUN": CellBlock("triangle6", np.array([[4, 5, 0, 6, 7, 8]])),
        },
        node_groups={},
    )


def pvd_steps(path):
    """(times, file names) listed in a .pvd, parsed independently of read_pvd."""
    root = ET.parse(path).getroot()
    ds = root.findall("./Collection/DataSet")
    return [float(d.get("timestep")) for d in ds], [d.get("file") for d in ds]


def test_time_series_round_trip(tmp_path):
    mesh = two_quads()
    rng = np.random.default_rng(0)
    us = [rng.standard_normal((mesh.n_nodes, 2)) for _ in TIMES]
    temps = [rng.standard_normal(mesh.n_nodes) for _ in TIMES]
    sig = [rng.standard_normal((2, 3)) for _ in TIMES]
    with TimeSeriesWriter(tmp_path / "out", mesh, output_format="pvd") as w:
        assert w.groups == ("BLOCK",)  # default: dimension-2 groups only
        for t, u, temp, s in zip(TIMES, us, temps, sig):
            w.write(t, point_data={"displacement": u, "T": temp},
                    cell_data={"stress": {"BLOCK": s}})

    steps = read_pvd(tmp_path / "out" / "solution.pvd")
    assert len(steps) == 5
    assert [t for t, _ in steps] == TIMES  # exact
    assert [p.name for _, p in steps] == [f"solution_{i:06d}.vtu" for i in range(5)]
    assert all(p.is_absolute() and p.is_file() for _, p in steps)
    assert sorted(x.name for x in (tmp_path / "out").iterdir()) == sorted(
        ["solution.pvd"] + [f"solution_{i:06d}.vtu" for i in range(5)]
    )  # no temporary files left behind

    for (t, p), u, temp, s in zip(steps, us, temps, sig):
        m = meshio.read(p)
        assert m.points.shape == (mesh.n_nodes, 3)  # every node, incl. node 6 used by no cell
        np.testing.assert_array_equal(m.points[:, :2], mesh.points)
        np.testing.assert_array_equal(m.points[:, 2], 0.0)
        assert len(m.cells) == 1 and m.cells[0].type == "quad"
        np.testing.assert_array_equal(m.cells[0].data, mesh.cells("BLOCK").connectivity)
        d = m.point_data["displacement"]
        assert d.shape == (mesh.n_nodes, 3)
        np.testing.assert_array_equal(d[:, :2], u)
        np.testing.assert_array_equal(d[:, 2], 0.0)
        np.testing.assert_array_equal(m.point_data["T"], temp)
        np.testing.assert_array_equal(m.cell_data["stress"][0], s)
        np.testing.assert_array_equal(m.cell_data["group"][0], [0, 0])
        assert np.issubdtype(m.cell_data["group"][0].dtype, np.integer)


def test_pvd_valid_after_every_step_without_close(tmp_path):
    mesh = two_quads()
    w = TimeSeriesWriter(tmp_path, mesh, basename="crash", output_format="pvd")
    pvd = tmp_path / "crash.pvd"
    assert pvd_steps(pvd) == ([], [])  # valid, empty, before any step
    for k, t in enumerate(TIMES):
        w.write(t, point_data={"u": np.full((mesh.n_nodes, 2), t)})
        times, files = pvd_steps(pvd)
        assert times == TIMES[: k + 1]
        assert files == [f"crash_{i:06d}.vtu" for i in range(k + 1)]
        assert [t for t, _ in read_pvd(pvd)] == TIMES[: k + 1]
        last = meshio.read(read_pvd(pvd)[-1][1])
        np.testing.assert_array_equal(last.point_data["u"][:, 0], t)
    # never closed: the run "crashed"; everything written is listed and readable
    assert len(read_pvd(pvd)) == 5


def test_close_and_write_after_close(tmp_path):
    mesh = two_quads()
    w = TimeSeriesWriter(tmp_path, mesh, output_format="pvd")
    w.write(0.5)
    w.close()
    w.close()  # idempotent
    assert [t for t, _ in read_pvd(tmp_path / "solution.pvd")] == [0.5]
    with pytest.raises(RuntimeError, match="closed"):
        w.write(1.0)
    # the refused step left nothing on disk and the collection unchanged
    assert sorted(p.name for p in tmp_path.iterdir()) == ["solution.pvd", "solution_000000.vtu"]
    assert [t for t, _ in read_pvd(tmp_path / "solution.pvd")] == [0.5]


def test_time_must_increase(tmp_path):
    with TimeSeriesWriter(tmp_path, two_quads(), output_format="pvd") as w:
        w.write(1.0)
        with pytest.raises(ValueError, match="strictly increasing"):
            w.write(1.0)
        with pytest.raises(ValueError, match="finite"):
            w.write(float("nan"))
        with pytest.raises(ValueError, match="strictly increasing"):
            w.write(0.5)  # earlier than the last step
    assert len(read_pvd(tmp_path / "solution.pvd")) == 1
    # the refused steps wrote no .vtu (and no temporary file)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["solution.pvd", "solution_000000.vtu"]


def test_two_surface_groups_quad_and_triangle6(tmp_path):
    mesh = quad_and_tria6()
    u = np.arange(2.0 * mesh.n_nodes).reshape(-1, 2)
    with TimeSeriesWriter(tmp_path, mesh, output_format="pvd") as w:
        assert w.groups == ("BLOCK", "GROUN")
        w.write(0.25, point_data={"displacement": u},
                cell_data={"eps": {"BLOCK": [1.5], "GROUN": [2.5]},
                           "rho": np.array([2500.0, 7800.0])})  # concatenated form
        with pytest.raises(ValueError, match="GROUN"):
            w.write(0.5, cell_data={"eps": {"BLOCK": [1.0]}})
    [(t, p)] = read_pvd(tmp_path / "solution.pvd")
    assert t == 0.25
    m = meshio.read(p)
    assert [c.type for c in m.cells] == ["quad", "triangle6"]
    np.testing.assert_array_equal(m.cells[0].data, mesh.cells("BLOCK").connectivity)
    np.testing.assert_array_equal(m.cells[1].data, mesh.cells("GROUN").connectivity)
    assert [list(a) for a in m.cell_data["group"]] == [[0], [1]]
    assert [list(a) for a in m.cell_data["eps"]] == [[1.5], [2.5]]
    assert [list(a) for a in m.cell_data["rho"]] == [[2500.0], [7800.0]]
    np.testing.assert_array_equal(m.point_data["displacement"][:, :2], u)


def test_wrong_length_point_field(tmp_path):
    mesh = two_quads()
    with TimeSeriesWriter(tmp_path, mesh, output_format="pvd") as w:
        with pytest.raises(ValueError, match=r"'velocity'.*\(7,\)"):
            w.write(0.0, point_data={"velocity": np.zeros((6, 2))})
        with pytest.raises(ValueError, match="'stress'"):
            w.write(0.0, cell_data={"stress": np.zeros(3)})
    # nothing was listed for the failed writes
    assert read_pvd(tmp_path / "solution.pvd") == []


def test_point_set_round_trip(tmp_path):
    pts = np.array([[0.0, 0.0], [0.5, -1e-6], [1.0, 2e-7]])
    status = np.array([1, 0, 2])
    gap = np.array([0.0, 1e-6, -2e-7])
    rn = np.array([1.0e5, 0.0, 3.0e4])
    rt = np.array([[0.1, 0.2], [0.0, 0.0], [-0.3, 1 / 3]])
    with PointSetSeriesWriter(tmp_path, "contact", output_format="pvd") as w:
        w.write(0.0, pts, {"status": status, "gap": gap, "RN": rn, "RT": rt})
        w.write(2e-3, pts[:2] * 2, {"gap": gap[:2]})  # the set may change size
        w.write(3e-3, np.zeros((0, 2)), {"gap": np.zeros(0)})  # empty set: still a step
    steps = read_pvd(tmp_path / "contact.pvd")
    assert [t for t, _ in steps] == [0.0, 2e-3, 3e-3]
    # the empty step is a valid VTK grid with no point and no cell, its fields declared (meshio 5.3.5
    # cannot read an empty .vtu back, so its XML header is read here)
    empty = ET.parse(steps[2][1]).getroot()
    assert empty.tag == "VTKFile" and empty.get("type") == "UnstructuredGrid"
    piece = empty.find("./UnstructuredGrid/Piece")
    assert (piece.get("NumberOfPoints"), piece.get("NumberOfCells")) == ("0", "0")
    assert [a.get("Name") for a in piece.findall("./PointData/DataArray")] == ["gap"]
    assert piece.find("./Points/DataArray").get("NumberOfComponents") == "3"
    m = meshio.read(steps[0][1])
    assert m.cells[0].type == "vertex"
    np.testing.assert_array_equal(m.cells[0].data.ravel(), [0, 1, 2])
    np.testing.assert_array_equal(m.points[:, :2], pts)
    np.testing.assert_array_equal(m.points[:, 2], 0.0)
    np.testing.assert_array_equal(m.point_data["status"], status)
    np.testing.assert_array_equal(m.point_data["gap"], gap)
    np.testing.assert_array_equal(m.point_data["RN"], rn)
    np.testing.assert_array_equal(m.point_data["RT"][:, :2], rt)
    np.testing.assert_array_equal(m.point_data["RT"][:, 2], 0.0)
    m1 = meshio.read(steps[1][1])
    assert m1.points.shape == (2, 3)
    np.testing.assert_array_equal(m1.point_data["gap"], gap[:2])


def test_read_pvd_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.pvd"):
        read_pvd(tmp_path / "nope.pvd")


def test_history_round_trip_and_errors(tmp_path):
    path = tmp_path / "hist" / "h.csv"
    rows = [
        {"t": 0.0, "ux": 0.1, "RN": 1.0 / 3.0},
        {"t": 0.1, "ux": 1e-300, "RN": -2.0 / 3.0},
        {"t": 0.2, "ux": 5e-324, "RN": np.float64(1.7976931348623157e308)},
    ]
    with HistoryWriter(path, ["t", "ux", "RN"]) as h:
        assert path.read_text() == "t,ux,RN\n"  # header written at once
        for k, r in enumerate(rows):
            h.append(r)
            # the file already holds the rows while the writer is still open
            back = read_history(path)
            assert list(back) == ["t", "ux", "RN"]
            assert back["ux"].tolist() == [row["ux"] for row in rows[: k + 1]]
        with pytest.raises(ValueError, match="'RN'"):
            h.append({"t": 0.3, "ux": 0.0})
        with pytest.raises(ValueError, match="'vy'"):
            h.append({"t": 0.3, "ux": 0.0, "RN": 0.0, "vy": 1.0})
    back = read_history(path)
    for c in ("t", "ux", "RN"):
        assert back[c].dtype == np.float64
        assert back[c].tolist() == [float(r[c]) for r in rows]  # bit-exact
    assert back["RN"][0] == 1.0 / 3.0 and back["ux"][1] == 1e-300
    with pytest.raises(RuntimeError, match="closed"):
        h.append(rows[0])
    assert read_history(path)["t"].tolist() == [0.0, 0.1, 0.2]  # the refused row was not written


def test_history_lines_are_each_value_formatted_17g(tmp_path):
    """A line is format(float(x), ".17g") of each value (the text of the histories the project has
    always written, read back bit-exact), for 20,000 floats over the whole exponent range, subnormals,
    signed zeros, infinities, NaN, numpy scalars, integers and booleans."""
    rng = np.random.default_rng(2)
    values = list(rng.standard_normal(20000) * 10.0 ** rng.integers(-320, 308, 20000))
    values += [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1.7976931348623157e308, True, np.float64(0.1),
               np.int64(7), 2**60 + 1, 3]
    columns = ["a", "b", "c"]
    values += [0.0] * (-len(values) % 3)
    path = tmp_path / "h.csv"
    with HistoryWriter(path, columns) as h:
        for k in range(0, len(values), 3):
            h.append(dict(zip(columns, values[k:k + 3])))
    want = "".join(",".join(format(float(x), ".17g") for x in values[k:k + 3]) + "\n" for k in range(0, len(values), 3))
    assert path.read_text() == "a,b,c\n" + want


def test_history_of_a_killed_run(tmp_path, caplog):
    """A run killed while writing a line leaves it without its newline: read_history drops it (with
    a warning) and returns every complete row; a complete line with a wrong number of fields is an
    error naming the file and the line."""
    path = tmp_path / "h.csv"
    with HistoryWriter(path, ["t", "ux", "RN"]) as h:
        h.append({"t": 0.0, "ux": 1.0, "RN": 2.0})
        h.append({"t": 0.5, "ux": 3.0, "RN": 4.0})
    path.write_text(path.read_text() + "1,5.5")  # a partial third line, no newline
    with caplog.at_level("WARNING", logger="fem.io.results"):
        back = read_history(path)
    assert back["t"].tolist() == [0.0, 0.5] and back["RN"].tolist() == [2.0, 4.0]
    assert "dropping incomplete last line 4" in caplog.text
    path.write_text("t,ux,RN\n0,1,2\n1,5.5\n2,3,4\n")  # a short line in the middle
    with pytest.raises(ValueError, match=r"h\.csv, line 3: 2 fields, expected 3"):
        read_history(path)


def test_history_empty(tmp_path):
    with HistoryWriter(tmp_path / "e.csv", ["t", "x"]):
        pass
    back = read_history(tmp_path / "e.csv")
    assert list(back) == ["t", "x"] and back["t"].shape == (0,)
