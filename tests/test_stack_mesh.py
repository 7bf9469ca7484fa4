"""Stacks of blocks on the table (meshes.generate.stack_on_table): geometry, groups and the
block-block joints as contact zones (contact.zone), for equal and different block sizes."""
from __future__ import annotations

import numpy as np
import pytest

from contact.zone import contact_zone
from fem.mesh.mesh import MeshError
from fem.mesh.check import check_mesh
from fem.mesh.read import read_mesh
from meshes.generate import block_on_table, stack_on_table

TOL = 1e-12
SDNV105_COLUMN = ((0.36, 0.80), (0.36, 0.80))
#: a narrower block on a wider one, then a wider one on top (both joint orientations)
MIXED = ((0.40, 0.50), (0.30, 0.60), (0.50, 0.20))


def area(mesh, group: str) -> np.ndarray:
    """Signed corner-polygon areas [m^2] of a surface group's cells (counter-clockwise > 0)."""
    block = mesh.cells(group)
    n = 4 if block.cell_type.startswith("quad") else 3
    xy = mesh.points[block.connectivity[:, :n]]
    x, y = xy[..., 0], xy[..., 1]
    return 0.5 * np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)


def extent(mesh, group: str) -> tuple[np.ndarray, np.ndarray]:
    xy = mesh.points[mesh.nodes(group)]
    return xy.min(axis=0), xy.max(axis=0)


@pytest.fixture(scope="module")
def column(tmp_path_factory):
    return read_mesh(stack_on_table(tmp_path_factory.mktemp("stack") / "column.msh", SDNV105_COLUMN))


@pytest.fixture(scope="module", params=[("quad4", "reference"), ("quad8", "refined"), ("tri6", "refined")])
def mixed(request, tmp_path_factory):
    element, layout = request.param
    if layout == "reference":
        return read_mesh(stack_on_table(tmp_path_factory.mktemp("mixed") / "m.msh", MIXED, element=element))
    return read_mesh(stack_on_table(tmp_path_factory.mktemp("mixed") / "m.msh", MIXED, element=element,
                                    layout="refined", nx=4, ny=3))


def test_the_column_is_two_sdnv105_blocks_one_on_the_other(column, tmp_path):
    """Block k spans [0, 0.36] x [0.8 (k - 1), 0.8 k]; BLOCK is both, block 1 carries the SDNV105
    names where block_on_table puts them, and the joint's two lines coincide with distinct nodes."""
    single = read_mesh(block_on_table(tmp_path / "one.msh"))
    for name in ("O", "O10", "O1", "O11", "A", "C", "C1", "B", "S0", "S3", "P00"):
        np.testing.assert_allclose(column.points[column.node(name)], single.points[single.node(name)], atol=TOL)
    for k in (1, 2):
        np.testing.assert_allclose(area(column, f"BLOCK_{k}").sum(), 0.36 * 0.80, rtol=1e-12)
        lo, hi = extent(column, f"BLOCK_{k}")
        np.testing.assert_allclose([*lo, *hi], [0.0, 0.8 * (k - 1), 0.36, 0.8 * k], atol=TOL)
        for corner, xy in (("O", (0, 0.8 * (k - 1))), ("A", (0.36, 0.8 * (k - 1))), ("O1", (0.18, 0.8 * (k - 1))),
                           ("C", (0, 0.8 * k)), ("B", (0.36, 0.8 * k)), ("C1", (0.18, 0.8 * k))):
            np.testing.assert_allclose(column.points[column.node(f"{corner}_{k}")], xy, atol=TOL)
    assert np.all(area(column, "BLOCK") > 0)
    np.testing.assert_allclose(area(column, "BLOCK").sum(), 2 * 0.36 * 0.80, rtol=1e-12)
    np.testing.assert_array_equal(np.sort(column.nodes("CONHAUT")), np.sort(column.nodes("BASE_1")))
    np.testing.assert_array_equal(np.sort(column.nodes("JOINT_1_ESCL")), np.sort(column.nodes("BASE_2")))
    np.testing.assert_array_equal(np.sort(column.nodes("JOINT_1_MAIT")), np.sort(column.nodes("TOP_1")))
    slave, master = column.nodes("JOINT_1_ESCL"), column.nodes("JOINT_1_MAIT")
    assert np.intersect1d(slave, master).size == 0
    np.testing.assert_allclose(np.sort(column.points[slave][:, 0]), np.sort(column.points[master][:, 0]), atol=TOL)
    np.testing.assert_allclose(column.points[slave][:, 1], 0.8, atol=TOL)


def test_a_joint_is_a_closed_contact_zone_at_rest(column):
    """contact_zone on a joint: every slave node paired, gap 0, master normal +y (toward the upper
    block). Block 1's cells are in BLOCK and BLOCK_1: each edge still borders one cell."""
    zone = contact_zone(column, "JOINT_1_ESCL", "JOINT_1_MAIT")
    geo = zone.geometry(column.points, np.zeros(2 * column.n_nodes))
    np.testing.assert_allclose(geo.gap, 0.0, atol=TOL)
    np.testing.assert_allclose(geo.normal, np.tile([0.0, 1.0], (zone.size, 1)), atol=TOL)
    contact_zone(column, "CONHAUT", "CONBAS")  # the table contact, through the overlapping groups


def regions(mesh, names):
    return type(mesh)(mesh.points, {k: v for k, v in mesh.cell_groups.items() if k in names or v.dim == 1},
                      mesh.node_groups)


def test_a_stack_is_supported_only_through_its_joints(column):
    """check_mesh: the column is held (table fixed at CTGROUND, block 1 on it, block 2 on block 1).
    Without the joint pair the coincident joint nodes of region BLOCK are a crack; with the blocks
    as two regions, block 2 floats."""
    pairs = (("CONHAUT", "CONBAS"), ("JOINT_1_ESCL", "JOINT_1_MAIT"))
    check_mesh(regions(column, ("BLOCK", "GROUN")), ("CTGROUND",), pairs)
    check_mesh(regions(column, ("BLOCK_1", "BLOCK_2", "GROUN")), ("CTGROUND",), pairs)
    with pytest.raises(MeshError, match="crack"):
        check_mesh(regions(column, ("BLOCK", "GROUN")), ("CTGROUND",), pairs[:1])
    with pytest.raises(MeshError, match="floating"):
        check_mesh(regions(column, ("BLOCK_1", "BLOCK_2", "GROUN")), ("CTGROUND",), pairs[:1])


def test_blocks_of_different_sizes_are_centred_and_the_narrower_side_is_slave(mixed):
    """Each block centred on x = b_1 = 0.2 and resting on the one below; joint 1 (0.30 on 0.40):
    slave BASE_2; joint 2 (0.50 on 0.30): slave TOP_2, master BASE_3 with its normal -y (its body
    above). Every slave node projects inside its master at gap 0."""
    y = 0.0
    for k, (w, h) in enumerate(MIXED, start=1):
        lo, hi = extent(mixed, f"BLOCK_{k}")
        np.testing.assert_allclose([*lo, *hi], [0.2 - w / 2, y, 0.2 + w / 2, y + h], atol=TOL)
        np.testing.assert_allclose(area(mixed, f"BLOCK_{k}").sum(), w * h, rtol=1e-12)
        y += h
    np.testing.assert_array_equal(np.sort(mixed.nodes("JOINT_1_ESCL")), np.sort(mixed.nodes("BASE_2")))
    np.testing.assert_array_equal(np.sort(mixed.nodes("JOINT_2_ESCL")), np.sort(mixed.nodes("TOP_2")))
    np.testing.assert_array_equal(np.sort(mixed.nodes("JOINT_2_MAIT")), np.sort(mixed.nodes("BASE_3")))
    for k, normal in ((1, (0.0, 1.0)), (2, (0.0, -1.0))):
        zone = contact_zone(mixed, f"JOINT_{k}_ESCL", f"JOINT_{k}_MAIT")
        geo = zone.geometry(mixed.points, np.zeros(2 * mixed.n_nodes))
        np.testing.assert_allclose(geo.gap, 0.0, atol=TOL)
        np.testing.assert_allclose(geo.normal, np.tile(normal, (zone.size, 1)), atol=TOL)


@pytest.mark.parametrize("sizes, parameter", [
    ((), "at least one"),
    (((0.36, 0.8), (0.36,)), "pair"),
    (((0.36, 0.8), (0.36, -0.8)), "height of block 2"),
    (((0.0, 0.8),), "width of block 1"),
    (0.36, "sequence"),
])
def test_bad_sizes_are_refused_naming_the_block(tmp_path, sizes, parameter):
    with pytest.raises(ValueError, match=parameter):
        stack_on_table(tmp_path / "bad.msh", sizes)
    assert not (tmp_path / "bad.msh").exists()
