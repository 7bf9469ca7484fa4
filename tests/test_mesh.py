"""Tests of the SDNV105 mesh generator (meshes.generate) and the gmsh reader (fem.mesh.read)."""
from __future__ import annotations

import gmsh
import meshio
import numpy as np
import pytest

from fem.mesh.mesh import Mesh, MeshError
from fem.mesh.read import read_mesh
from meshes import generate
from meshes.generate import block_on_table, reference_mesh_path

B = 0.18  # block half width [m]
H = 0.80  # block height [m]
D = 0.08  # table depth [m]
TABLE_LEFT, TABLE_RIGHT = -0.18, 0.54
TOL = 1e-12

BLOCK_BOTTOM = {"O": (0.0, 0.0), "O10": (0.16, 0.0), "O1": (0.18, 0.0), "O11": (0.20, 0.0), "A": (0.36, 0.0)}
BLOCK_TOP = {"C": (0.0, 0.8), "C10": (0.16, 0.8), "C1": (0.18, 0.8), "C11": (0.20, 0.8), "B": (0.36, 0.8)}
TABLE_TOP = {"S00": (-0.18, 0.0), "S0": (0.0, 0.0), "S1": (0.18, 0.0), "S2": (0.36, 0.0), "S3": (0.54, 0.0)}
TABLE_BOTTOM = {
    "P00": (-0.18, -0.08), "P0": (0.0, -0.08), "P1": (0.18, -0.08), "P2": (0.36, -0.08), "P3": (0.54, -0.08)
}
REFERENCE_NODES = {**BLOCK_BOTTOM, **BLOCK_TOP, **TABLE_TOP, **TABLE_BOTTOM}
REFINED_NODES = {
    name: xy
    for name, xy in REFERENCE_NODES.items()
    if name not in ("O10", "O11", "C10", "C11")
}
CORNERS = {"quad": 4, "quad8": 4, "triangle": 3, "triangle6": 3}


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def assert_close(actual, desired, err_msg: str = "") -> None:
    """Equal within the absolute tolerance TOL [m] (no relative tolerance)."""
    np.testing.assert_allclose(actual, desired, rtol=0, atol=TOL, err_msg=err_msg)


def signed_areas(mesh: Mesh, group: str) -> np.ndarray:
    """Signed corner-polygon areas [m^2] of the cells of a surface group."""
    block = mesh.cells(group)
    xy = mesh.points[block.connectivity[:, : CORNERS[block.cell_type]]]
    x, y = xy[..., 0], xy[..., 1]
    return 0.5 * np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)


def tangents(mesh: Mesh, group: str) -> np.ndarray:
    """Unit tangents (node 0 -> node 1) of the segments of a line group, shape (n, 2)."""
    conn = mesh.cells(group).connectivity
    t = mesh.points[conn[:, 1]] - mesh.points[conn[:, 0]]
    return t / np.linalg.norm(t, axis=1, keepdims=True)


def outward_normals(mesh: Mesh, group: str) -> np.ndarray:
    """Outward unit normals ``(t_y, -t_x)`` of the segments of a line group, shape (n, 2)."""
    t = tangents(mesh, group)
    return np.column_stack([t[:, 1], -t[:, 0]])


def left_probe(mesh: Mesh, group: str, eps: float = 1e-3) -> np.ndarray:
    """Points [m] slightly on the left of each segment mid-point of a line group, shape (n, 2)."""
    conn = mesh.cells(group).connectivity
    mid = 0.5 * (mesh.points[conn[:, 0]] + mesh.points[conn[:, 1]])
    return mid - eps * outward_normals(mesh, group)


def inside(points: np.ndarray, x0: float, x1: float, y0: float, y1: float) -> np.ndarray:
    return (points[:, 0] > x0) & (points[:, 0] < x1) & (points[:, 1] > y0) & (points[:, 1] < y1)


def named_node_set(mesh: Mesh, names) -> set[int]:
    return {mesh.node(n) for n in names}


def assert_node_groups(mesh: Mesh, expected: dict[str, tuple[float, float]]) -> None:
    for name, xy in expected.items():
        assert_close(mesh.points[mesh.node(name)], xy, err_msg=name)


def assert_mid_side_nodes(mesh: Mesh, group: str) -> None:
    """Second-order nodes at the mid-points of their edges (triangle6, quad8, line3)."""
    block = mesh.cells(group)
    conn = block.connectivity
    n = {"triangle6": 3, "quad8": 4, "line3": 2}[block.cell_type]
    corners = mesh.points[conn[:, :n]]
    edge_mid = 0.5 * (corners + np.roll(corners, -1, axis=1))
    if block.cell_type == "line3":
        edge_mid = edge_mid[:, :1]
    assert_close(mesh.points[conn[:, n:]], edge_mid)


def gmsh_model(name: str):
    """Start gmsh quietly with a fresh model (the caller must finalize)."""
    gmsh.initialize(readConfigFiles=False, interruptible=False)
    gmsh.option.setNumber("General.Terminal", 0)
    gmsh.model.add(name)


# ---------------------------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["checked_in", "fresh"])
def reference(request, tmp_path_factory) -> Mesh:
    if request.param == "checked_in":
        return read_mesh(reference_mesh_path("sdnv105_quad4"))
    path = block_on_table(tmp_path_factory.mktemp("ref") / "ref.msh")
    return read_mesh(path)


@pytest.fixture(scope="module", params=["quad4", "tri6", "tri3", "quad8"])
def refined(request, tmp_path_factory) -> tuple[str, Mesh]:
    path = tmp_path_factory.mktemp("refined") / f"refined_{request.param}.msh"
    block_on_table(path, element=request.param, layout="refined", nx=6, ny=10)
    return request.param, read_mesh(path)


# ---------------------------------------------------------------------------------------------
# reference layout
# ---------------------------------------------------------------------------------------------


def test_reference_counts(reference):
    assert reference.n_nodes == 25
    assert reference.points.shape == (25, 2)
    assert reference.cells("BLOCK").cell_type == "quad" and len(reference.cells("BLOCK")) == 8
    assert reference.cells("GROUN").cell_type == "quad" and len(reference.cells("GROUN")) == 4
    assert sorted(reference.cell_groups) == sorted(
        ["BLOCK", "GROUN", "CONHAUT", "CONBAS", "CTGROUND", "CTBLO", "C1O1", "CTTAB"]
    )


def test_reference_node_groups(reference):
    assert_node_groups(reference, REFERENCE_NODES)
    assert_close(np.sort(np.unique(reference.points[:, 1])), [-0.08, 0.0, 0.4, 0.8])
    assert_close(
        np.unique(reference.points[reference.nodes("BLOCK"), 0]), [0.0, 0.16, 0.18, 0.20, 0.36])
    assert reference.nodes("BLOCK").size == 15 and reference.nodes("GROUN").size == 10


def test_reference_line_groups(reference):
    expected = {
        "CONHAUT": (4, BLOCK_BOTTOM),
        "CONBAS": (4, TABLE_TOP),
        "CTGROUND": (4, TABLE_BOTTOM),
    }
    for group, (n, names) in expected.items():
        block = reference.cells(group)
        assert block.cell_type == "line" and len(block) == n, group
        assert set(reference.nodes(group).tolist()) == named_node_set(reference, names), group
    assert len(reference.cells("CTBLO")) == 12
    assert len(reference.cells("C1O1")) == 2
    assert len(reference.cells("CTTAB")) == 10
    assert set(reference.nodes("CONHAUT")) <= set(reference.nodes("CTBLO"))
    assert set(reference.nodes("CONBAS")) | set(reference.nodes("CTGROUND")) <= set(reference.nodes("CTTAB"))
    c1o1 = reference.points[reference.nodes("C1O1")]
    assert_close(c1o1[np.argsort(c1o1[:, 1])], [[0.18, 0.0], [0.18, 0.4], [0.18, 0.8]])


def test_block_base_distinct_from_table_top_but_coincident(reference):
    for block_node, table_node in [("O", "S0"), ("O1", "S1"), ("A", "S2")]:
        i, j = reference.node(block_node), reference.node(table_node)
        assert i != j
        assert_close(reference.points[i], reference.points[j])
    assert not set(reference.nodes("BLOCK")) & set(reference.nodes("GROUN"))
    assert not set(reference.nodes("CONHAUT")) & set(reference.nodes("CONBAS"))
    # the geo kernel did not merge coincident points: 3 coincident pairs among 25 nodes
    assert np.unique(np.round(reference.points, 9), axis=0).shape[0] == 22


def test_contact_lines_oriented(reference):
    conhaut = reference.cells("CONHAUT").connectivity
    assert set(conhaut[:, 0]) == named_node_set(reference, ["O", "O10", "O1", "O11"])
    assert set(conhaut[:, 1]) == named_node_set(reference, ["O10", "O1", "O11", "A"])
    assert_close(outward_normals(reference, "CONHAUT"), np.tile([0.0, -1.0], (4, 1)))
    conbas = reference.cells("CONBAS").connectivity
    assert set(conbas[:, 0]) == named_node_set(reference, ["S3", "S2", "S1", "S0"])
    assert set(conbas[:, 1]) == named_node_set(reference, ["S2", "S1", "S0", "S00"])
    assert_close(outward_normals(reference, "CONBAS"), np.tile([0.0, 1.0], (4, 1)))
    assert_close(outward_normals(reference, "CTGROUND"), np.tile([0.0, -1.0], (4, 1)))


def test_outlines_have_material_on_the_left(reference):
    assert inside(left_probe(reference, "CTBLO"), 0.0, 2 * B, 0.0, H).all()
    assert inside(left_probe(reference, "CTTAB"), TABLE_LEFT, TABLE_RIGHT, -D, 0.0).all()
    # interior line keeps the generator's order (upwards from O1 to C1)
    assert_close(tangents(reference, "C1O1"), [[0.0, 1.0], [0.0, 1.0]])


def test_reference_cells_counter_clockwise_and_areas(reference):
    assert (signed_areas(reference, "BLOCK") > 0).all()
    assert (signed_areas(reference, "GROUN") > 0).all()
    assert signed_areas(reference, "BLOCK").sum() == pytest.approx(2 * B * H, rel=1e-12)
    assert signed_areas(reference, "GROUN").sum() == pytest.approx((TABLE_RIGHT - TABLE_LEFT) * D, rel=1e-12)


def test_generator_writes_no_orphan_node(tmp_path):
    path = block_on_table(tmp_path / "ref.msh")
    raw = meshio.read(path)
    assert raw.points.shape[0] == 25
    used = np.unique(np.concatenate([c.data.ravel() for c in raw.cells if c.dim > 0]))
    assert used.size == 25


# ---------------------------------------------------------------------------------------------
# refined layout
# ---------------------------------------------------------------------------------------------


def test_refined_areas_and_counts(refined):
    element, mesh = refined
    cell_type = {"quad4": "quad", "quad8": "quad8", "tri3": "triangle", "tri6": "triangle6"}[element]
    per_quad = 1 if element.startswith("quad") else 2
    assert mesh.cells("BLOCK").cell_type == cell_type
    assert len(mesh.cells("BLOCK")) == 6 * 10 * per_quad
    # table: h = 0.06 -> 3 + 6 + 3 elements wide, round(0.08 / 0.06) = 1 deep
    assert len(mesh.cells("GROUN")) == 12 * per_quad
    assert (signed_areas(mesh, "BLOCK") > 0).all() and (signed_areas(mesh, "GROUN") > 0).all()
    assert signed_areas(mesh, "BLOCK").sum() == pytest.approx(2 * B * H, rel=1e-12)
    assert signed_areas(mesh, "GROUN").sum() == pytest.approx((TABLE_RIGHT - TABLE_LEFT) * D, rel=1e-12)
    assert len(mesh.cells("CONHAUT")) == 6 and len(mesh.cells("C1O1")) == 10


def test_refined_node_groups(refined):
    _, mesh = refined
    assert_node_groups(mesh, REFINED_NODES)
    for name in ("O10", "O11", "C10", "C11"):
        with pytest.raises(MeshError, match=name):
            mesh.nodes(name)


def test_refined_block_base_pairwise_coincident_with_table_top(refined):
    _, mesh = refined
    base = mesh.nodes("CONHAUT")
    top = mesh.nodes("CONBAS")
    under = top[(mesh.points[top, 0] > -TOL) & (mesh.points[top, 0] < 2 * B + TOL)]
    assert base.size == under.size
    assert not set(base) & set(top)
    base_xy = mesh.points[base][np.argsort(mesh.points[base, 0])]
    top_xy = mesh.points[under][np.argsort(mesh.points[under, 0])]
    assert_close(base_xy, top_xy)
    assert np.all(np.diff(base_xy[:, 0]) > 0)


def test_refined_lines_oriented_and_mid_side_nodes(refined):
    element, mesh = refined
    assert_close(outward_normals(mesh, "CONHAUT"), np.tile([0.0, -1.0], (6, 1)))
    assert_close(outward_normals(mesh, "CONBAS")[:, 1], 1.0)
    assert inside(left_probe(mesh, "CTBLO"), 0.0, 2 * B, 0.0, H).all()
    assert inside(left_probe(mesh, "CTTAB"), TABLE_LEFT, TABLE_RIGHT, -D, 0.0).all()
    if element in ("tri6", "quad8"):
        for group in ("BLOCK", "GROUN", "CONHAUT", "CONBAS", "CTBLO", "C1O1"):
            assert_mid_side_nodes(mesh, group)
        assert mesh.cells("CONBAS").cell_type == "line3"


def test_refined_table_extent_and_depth(tmp_path):
    path = block_on_table(
        tmp_path / "t.msh", layout="refined", nx=4, ny=4, table_left=-0.5, table_right=1.0, table_depth=0.4
    )
    mesh = read_mesh(path)
    assert_node_groups(mesh, {"S00": (-0.5, 0.0), "S3": (1.0, 0.0), "P00": (-0.5, -0.4), "P3": (1.0, -0.4),
                              "S1": (B, 0.0), "P1": (B, -0.4)})
    assert signed_areas(mesh, "GROUN").sum() == pytest.approx(1.5 * 0.4, rel=1e-12)
    # h = 0.09: round(0.4 / 0.09) = 4 elements deep
    assert_close(np.unique(mesh.points[mesh.nodes("GROUN"), 1]), np.linspace(-0.4, 0.0, 5))


# ---------------------------------------------------------------------------------------------
# block-only variants and checked-in files
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "element, cell_type, n_cells, n_nodes", [("quad4", "quad", 8, 15), ("tri6", "triangle6", 16, 45)]
)
def test_block_only(tmp_path, element, cell_type, n_cells, n_nodes):
    mesh = read_mesh(block_on_table(tmp_path / "b.msh", element=element, with_table=False))
    assert sorted(mesh.cell_groups) == ["BLOCK", "C1O1", "CONHAUT", "CTBLO"]
    assert mesh.cells("BLOCK").cell_type == cell_type and len(mesh.cells("BLOCK")) == n_cells
    assert mesh.n_nodes == n_nodes
    assert_node_groups(mesh, {**BLOCK_BOTTOM, **BLOCK_TOP})
    with pytest.raises(MeshError):
        mesh.nodes("S0")


@pytest.mark.parametrize(
    "name, cell_type, line_type, n_cells, n_nodes",
    [("sdnv105_block_quad4", "quad", "line", 8, 15), ("sdnv105_block_tri6", "triangle6", "line3", 16, 45)],
)
def test_checked_in_block_meshes(name, cell_type, line_type, n_cells, n_nodes):
    mesh = read_mesh(reference_mesh_path(name))
    assert mesh.n_nodes == n_nodes
    assert mesh.cells("BLOCK").cell_type == cell_type and len(mesh.cells("BLOCK")) == n_cells
    for group, n in [("CONHAUT", 4), ("CTBLO", 12), ("C1O1", 2)]:
        assert mesh.cells(group).cell_type == line_type and len(mesh.cells(group)) == n
    assert_node_groups(mesh, {**BLOCK_BOTTOM, **BLOCK_TOP})
    assert signed_areas(mesh, "BLOCK").sum() == pytest.approx(2 * B * H, rel=1e-12)
    assert_close(outward_normals(mesh, "CONHAUT"), np.tile([0.0, -1.0], (4, 1)))
    assert inside(left_probe(mesh, "CTBLO"), 0.0, 2 * B, 0.0, H).all()
    if line_type == "line3":
        assert_mid_side_nodes(mesh, "BLOCK")
        assert_mid_side_nodes(mesh, "CTBLO")


def test_checked_in_meshes_match_generator(tmp_path):
    for name, kwargs in generate.REFERENCE_MESHES.items():
        fresh = read_mesh(block_on_table(tmp_path / f"{name}.msh", **kwargs))
        stored = read_mesh(reference_mesh_path(name))
        np.testing.assert_array_equal(fresh.points, stored.points)
        assert sorted(fresh.cell_groups) == sorted(stored.cell_groups)
        for group in fresh.cell_groups:
            np.testing.assert_array_equal(fresh.cells(group).connectivity, stored.cells(group).connectivity)


def test_reference_mesh_path():
    assert reference_mesh_path().name == "sdnv105_quad4.msh"
    assert reference_mesh_path("sdnv105_block_tri6.msh").is_file()
    with pytest.raises(FileNotFoundError, match="python -m meshes.generate"):
        reference_mesh_path("no_such_mesh")


# ---------------------------------------------------------------------------------------------
# gmsh session handling
# ---------------------------------------------------------------------------------------------


def test_generator_leaves_caller_gmsh_session(tmp_path):
    assert not gmsh.isInitialized()
    gmsh_model("caller")
    try:
        gmsh.option.setNumber("Mesh.SaveAll", 1)
        gmsh.option.setNumber("Mesh.MshFileVersion", 2.2)
        block_on_table(tmp_path / "a.msh")
        assert gmsh.isInitialized()
        assert gmsh.option.getNumber("Mesh.SaveAll") == 1
        assert gmsh.option.getNumber("Mesh.MshFileVersion") == 2.2
        assert gmsh.model.getCurrent() == "caller"
    finally:
        gmsh.finalize()
    assert read_mesh(tmp_path / "a.msh").n_nodes == 25
    assert (tmp_path / "a.msh").read_text().startswith("$MeshFormat\n4.1")


def test_generator_finalizes_gmsh_on_error(tmp_path, monkeypatch):
    def fail(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(generate, "mesh_and_write", fail)
    with pytest.raises(RuntimeError, match="boom"):
        block_on_table(tmp_path / "x.msh")
    assert not gmsh.isInitialized()


# ---------------------------------------------------------------------------------------------
# files not written by the generator
# ---------------------------------------------------------------------------------------------


def write_hand_made_msh(path) -> None:
    """Two quads on [0, 2] x [0, 1] from discrete gmsh entities, arbitrary tags, reversed lines.

    Node tags: 40 (0,0), 12 (1,0), 97 (2,0), 5 (0,1), 63 (1,1), 8 (2,1), 200 (3,0), 201 (3,1).
    """
    gmsh_model("hand")
    try:
        m = gmsh.model
        m.addDiscreteEntity(2, 7)
        for tag in (3, 11, 4, 9):
            m.addDiscreteEntity(1, tag)
        m.addDiscreteEntity(0, 21)
        tags = [40, 12, 97, 5, 63, 8, 200, 201]
        xyz = [0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0, 3, 0, 0, 3, 1, 0]
        m.mesh.addNodes(2, 7, tags, xyz)
        m.mesh.addElementsByType(7, 3, [300, 17], [40, 12, 63, 5, 12, 97, 8, 63])  # quads, ccw
        m.mesh.addElementsByType(3, 1, [55, 2], [12, 40, 97, 12])  # bottom, reversed (right to left)
        m.mesh.addElementsByType(11, 1, [90], [40, 5])  # left side upwards: material on the right
        m.mesh.addElementsByType(4, 1, [91], [63, 12])  # interior line, downwards
        m.mesh.addElementsByType(9, 1, [92], [201, 200])  # free line, no surface
        m.mesh.addElementsByType(21, 15, [400], [97])
        m.addPhysicalGroup(2, [7], name="PLATE")
        m.addPhysicalGroup(1, [3], name="BOTTOM")
        m.addPhysicalGroup(1, [3, 11], name="OUTLINE")  # entity 3 carries BOTTOM and OUTLINE
        m.addPhysicalGroup(1, [11], name="LEFT")
        m.addPhysicalGroup(1, [4], name="MIDDLE")
        m.addPhysicalGroup(1, [9], name="FREE")
        m.addPhysicalGroup(0, [21], name="CORNER")
        gmsh.write(str(path))
    finally:
        gmsh.finalize()


def test_hand_made_msh(tmp_path):
    path = tmp_path / "hand.msh"
    write_hand_made_msh(path)
    assert path.read_text().startswith("$MeshFormat\n4.1")
    mesh = read_mesh(path)
    assert mesh.n_nodes == 8
    assert sorted(mesh.cell_groups) == ["BOTTOM", "FREE", "LEFT", "MIDDLE", "OUTLINE", "PLATE"]
    assert sorted(mesh.node_groups) == ["BOTTOM", "CORNER", "FREE", "LEFT", "MIDDLE", "OUTLINE", "PLATE"]
    assert [len(mesh.cells(g)) for g in ("PLATE", "BOTTOM", "OUTLINE")] == [2, 2, 3]
    assert_close(mesh.points[mesh.node("CORNER")], [2.0, 0.0])
    assert_close(outward_normals(mesh, "BOTTOM"), [[0.0, -1.0], [0.0, -1.0]])
    assert_close(outward_normals(mesh, "LEFT"), [[-1.0, 0.0]])
    assert_close(outward_normals(mesh, "OUTLINE"), [[0.0, -1.0], [0.0, -1.0], [-1.0, 0.0]])
    assert_close(tangents(mesh, "MIDDLE"), [[0.0, -1.0]])  # interior: kept
    assert_close(tangents(mesh, "FREE"), [[0.0, -1.0]])  # no surface: kept


GEO_SCRIPT = """
Point(1) = {0, 0, 0}; Point(2) = {2, 0, 0}; Point(3) = {2, 1, 0}; Point(4) = {0, 1, 0};
Line(1) = {2, 1};  // bottom drawn right to left
Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {-1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 5; Transfinite Curve{2, 4} = 3;
Transfinite Surface{1}; Recombine Surface{1};
Physical Surface("BLOCK") = {1};
Physical Curve("CONHAUT") = {1};
Physical Curve("CTBLO") = {1, 2, 3, 4};
Physical Point("O") = {1};
Physical Point("A") = {2};
"""


def write_geo_msh(tmp_path, version: float | None):
    geo = tmp_path / "plate.geo"
    geo.write_text(GEO_SCRIPT)
    path = tmp_path / f"plate_{version}.msh"
    gmsh.initialize(readConfigFiles=False, interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.open(str(geo))
        gmsh.model.mesh.generate(2)
        if version is not None:
            gmsh.option.setNumber("Mesh.MshFileVersion", version)
        gmsh.write(str(path))
    finally:
        gmsh.finalize()
    return path


def test_geo_script_msh_default_format_and_msh22(tmp_path):
    path = write_geo_msh(tmp_path, None)
    assert path.read_text().startswith("$MeshFormat\n4.1")
    mesh = read_mesh(path)
    assert [len(mesh.cells(g)) for g in ("BLOCK", "CONHAUT", "CTBLO")] == [8, 4, 12]
    assert_close(outward_normals(mesh, "CONHAUT"), np.tile([0.0, -1.0], (4, 1)))
    assert inside(left_probe(mesh, "CTBLO"), 0.0, 2.0, 0.0, 1.0).all()
    assert_close(mesh.points[[mesh.node("O"), mesh.node("A")]], [[0, 0], [2, 0]])

    old = read_mesh(write_geo_msh(tmp_path, 2.2))  # one element copy per physical group
    assert sorted(old.cell_groups) == sorted(mesh.cell_groups)
    assert sorted(old.node_groups) == sorted(mesh.node_groups)
    for group in mesh.cell_groups:
        old_xy = old.points[old.cells(group).connectivity]
        assert_close(old_xy, mesh.points[mesh.cells(group).connectivity], err_msg=group)


def write_meshio_msh22(path, points, quads, name="PLATE") -> None:
    cells = [("quad", np.asarray(quads))]
    ones = [np.ones(len(quads), dtype=int)]
    mesh = meshio.Mesh(
        np.asarray(points, dtype=float),
        cells,
        cell_data={"gmsh:physical": ones, "gmsh:geometrical": ones},
        field_data={name: np.array([1, 2])},
    )
    meshio.write(path, mesh, file_format="gmsh22", binary=False)


def test_duplicated_surface_cells_counted_once(tmp_path):
    path = tmp_path / "dup.msh"
    write_meshio_msh22(path, [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], [[0, 1, 2, 3], [0, 1, 2, 3]])
    mesh = read_mesh(path)
    assert len(mesh.cells("PLATE")) == 1


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


def test_missing_file(tmp_path):
    path = tmp_path / "nothing.msh"
    with pytest.raises(MeshError, match="does not exist") as info:
        read_mesh(path)
    assert str(path) in str(info.value)


def test_unreadable_file(tmp_path):
    path = tmp_path / "garbage.msh"
    path.write_text("this is not a mesh\n")
    with pytest.raises(MeshError, match="garbage.msh"):
        read_mesh(path)


def test_missing_groups(reference):
    with pytest.raises(MeshError, match="NOPE"):
        reference.cells("NOPE")
    with pytest.raises(MeshError, match="NOPE"):
        reference.nodes("NOPE")


def test_inverted_cell(tmp_path):
    path = tmp_path / "inverted.msh"
    points = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [2, 0, 0], [2, 1, 0]]
    write_meshio_msh22(path, points, [[0, 1, 2, 3], [1, 2, 5, 4]], name="BAD")
    with pytest.raises(MeshError, match=r"'BAD'.*cell 1 .*inverted"):
        read_mesh(path)


def test_non_planar_mesh(tmp_path):
    path = tmp_path / "warped.msh"
    write_meshio_msh22(path, [[0, 0, 0], [1, 0, 0], [1, 1, 0.1], [0, 1, 0]], [[0, 1, 2, 3]])
    with pytest.raises(MeshError, match="not planar"):
        read_mesh(path)


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        (dict(layout="refined", nx=5), "nx"),
        (dict(nx=0), "nx"),
        (dict(layout="refined", ny=0), "ny"),
        (dict(half_width=0.0), "half_width"),
        (dict(height=-1.0), "height"),
        (dict(table_depth=float("nan")), "table_depth"),
        (dict(element="quad9"), "element"),
        (dict(layout="fine"), "layout"),
        (dict(table_left=-0.3), "table_left"),
        (dict(layout="refined", table_left=0.1), "table_left"),
        (dict(layout="refined", table_right=0.3), "table_right"),
    ],
)
def test_generator_rejects_bad_arguments(tmp_path, kwargs, parameter):
    with pytest.raises(ValueError, match=parameter):
        block_on_table(tmp_path / "bad.msh", **kwargs)
    assert not (tmp_path / "bad.msh").exists()


def test_generator_rejects_non_msh_path(tmp_path):
    with pytest.raises(ValueError, match="msh"):
        block_on_table(tmp_path / "bad.vtk")
