"""Ill-posed problems stop with a message naming the nodes or the region: fem.mesh.check.check_mesh
(cracks, floating parts, orphan nodes, degenerate cells) and SingularSystemError from the solves."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from fem.time.dynamics import ConvergenceError, Phase, SingularSystemError, State, integrate, solve_increment
from fem.time.explicit import central_differences
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import CellBlock, Mesh, MeshError
from fem.mesh.check import check_mesh
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.time.newton_system import NewtonSystem
from fem.stage.schemes import Newmark, Static

from helpers import GRAPHITE, grid_mesh

MESHES = Path(__file__).resolve().parents[1] / "meshes"


def split_grid(nx: int = 8, ny: int = 4, upper_region: str = "BLOCK") -> tuple[Mesh, dict[int, int]]:
    """QUA4 grid of [0, 0.36] x [0, 0.8] whose cells above y = 0.4 use copies of the nodes of that line.

    Returns the mesh (upper cells in ``upper_region``; node groups BASE, TOP, LOWER_FACE, UPPER_FACE)
    and the map original line node -> its copy.
    """
    grid = grid_mesh(nx, ny)
    points, conn = grid.points, grid.cells("BLOCK").connectivity
    line = np.flatnonzero(np.abs(points[:, 1] - 0.4) < 1e-12)
    copies = points.shape[0] + np.arange(line.size)
    new_index = np.arange(points.shape[0])
    new_index[line] = copies
    upper = points[conn].mean(axis=1)[:, 1] > 0.4
    upper_conn = new_index[conn[upper]]
    cells = {"BLOCK": CellBlock("quad", conn[~upper])}
    if upper_region == "BLOCK":
        cells["BLOCK"] = CellBlock("quad", np.concatenate([conn[~upper], upper_conn]))
    else:
        cells[upper_region] = CellBlock("quad", upper_conn)
    groups = {"BASE": grid.nodes("BASE"), "TOP": grid.nodes("TOP"), "LOWER_FACE": line, "UPPER_FACE": copies}
    return Mesh(np.vstack([points, points[line]]), cells, groups), dict(zip(line.tolist(), copies.tolist()))


# ------------------------------------------------------------------------------------ check_mesh
def test_reference_meshes_pass():
    table = read_mesh(MESHES / "sdnv105_quad4.msh")  # the block's base coincides with the table's top
    assert check_mesh(table, ("CTGROUND", "S1"), [("CONHAUT", "CONBAS")]) == []
    block = read_mesh(MESHES / "sdnv105_block_tri6.msh")  # modeling b: shock springs at O, A, O1
    assert check_mesh(block, ("O", "A", "O1")) == []
    # the same table mesh without the contact pair: the block is attached to nothing
    with pytest.raises(MeshError, match=r"part of region BLOCK \(15 nodes, e\.g\. nodes \d+, \d+ at \(0, 0\)\)"):
        check_mesh(table, ("CTGROUND", "S1"))


def test_crack_names_the_duplicated_nodes():
    mesh, copy_of = split_grid()
    with pytest.raises(MeshError) as info:
        check_mesh(mesh, ("BASE",))
    msg = str(info.value)
    assert msg.startswith("mesh: region BLOCK has unmerged duplicate nodes (a crack): ")
    listed = re.findall(r"nodes (\d+), (\d+) at \(([^)]*)\)", msg)
    assert len(listed) == 5 and "and 4 more" in msg  # 9 nodes on the cut line, 5 listed
    for a, b, xy in listed:
        a, b = int(a), int(b)
        assert copy_of[a] == b
        np.testing.assert_allclose([float(v) for v in xy.split(",")], mesh.points[a], atol=1e-6)
    # nodes of a declared contact interface are not a crack
    assert check_mesh(mesh, ("BASE",), [("UPPER_FACE", "LOWER_FACE")]) == []


def test_coincident_nodes_of_different_regions_are_legitimate_but_must_be_linked():
    mesh, copy_of = split_grid(upper_region="UPPER")
    with pytest.raises(MeshError) as info:
        check_mesh(mesh, ("BASE",))
    msg = str(info.value)
    m = re.match(r"mesh: part of region UPPER \((\d+) nodes, e\.g\. nodes (\d+), (\d+) at \(0, 0\.4\)\) is attached to "
                 r"no support and no contact: a floating part or unmerged duplicate nodes", msg)
    assert m, msg
    assert int(m[1]) == 9 * 3 and int(m[2]) in copy_of.values()  # the example is a duplicate node
    assert check_mesh(mesh, ("BASE",), [("UPPER_FACE", "LOWER_FACE")]) == []  # held through contact
    assert check_mesh(mesh, ("BASE", "TOP")) == []  # both parts supported
    with pytest.raises(TypeError, match="pairs"):
        check_mesh(mesh, ("BASE",), ("UPPER_FACE", "LOWER_FACE"))  # a pair, not a sequence of pairs


def test_floating_part_of_a_region():
    a, b = grid_mesh(2, 2), grid_mesh(2, 2, x0=1.0)
    n = a.n_nodes
    conn = np.concatenate([a.cells("BLOCK").connectivity, b.cells("BLOCK").connectivity + n])
    mesh = Mesh(np.vstack([a.points, b.points]), {"BLOCK": CellBlock("quad", conn)}, {"BASE": a.nodes("BASE")})
    with pytest.raises(MeshError, match=rf"mesh: part of region BLOCK \(9 nodes, e\.g\. nodes {n}, {n + 1} at "
                                        r"\(1, 0\)\) is attached to no support and no contact"):
        check_mesh(mesh, ["BASE"])
    with pytest.raises(MeshError, match="no node group"):
        check_mesh(mesh, ["NOWHERE"])


def test_orphan_node_and_degenerate_cell_are_warnings():
    grid = grid_mesh(3, 2)
    base = grid.nodes("BASE")
    base = base[np.argsort(grid.points[base, 0])]  # the 4 nodes of y = 0: a flat quad
    conn = np.vstack([grid.cells("BLOCK").connectivity, base])
    points = np.vstack([grid.points, [[0.5, 0.5]]])
    mesh = Mesh(points, {"BLOCK": CellBlock("quad", conn)}, dict(grid.node_groups))
    warns = check_mesh(mesh, ("BASE",))
    assert len(warns) == 2
    assert warns[0] == (f"mesh: 1 orphan node(s) in no surface cell and no group (no mass, no stiffness; held at "
                        f"zero): nodes {grid.n_nodes} at (0.5, 0.5)")
    assert warns[1].startswith("mesh: region BLOCK: 1 degenerate cell(s) (area <= 1e-12 x the mean cell area")
    assert f"cell {len(conn) - 1} (nodes {base.tolist()}, area 0 m^2)" in warns[1]


def test_check_mesh_passes_a_large_clean_mesh():
    """102,400 cells: no false warning (its cost is measured by benchmarks, not asserted here)."""
    mesh = grid_mesh(320, 320)
    assert check_mesh(mesh, ("BASE",)) == []


# ------------------------------------------------------------------------------------ singular solves
def _one_element():
    mesh = grid_mesh(1, 1)
    return Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)})


def test_free_element_falls_under_newmark():
    """Not singular: inertia holds a free body in a dynamic step (M / (beta dt^2) + K is regular)."""
    model = _one_element()
    phase = Phase("fall", 0.0, 0.01, 0.005, Newmark(), gravity=Gravity((0.0, -9.81)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        last = list(integrate(model, phase, State.at_rest(model.n_dofs)))[-1].state
    np.testing.assert_allclose(last.u[1::2], -0.5 * 9.81 * 0.01**2, rtol=1e-10)


def test_floating_element_in_a_static_phase_stops_at_once():
    model = _one_element()
    phase = Phase("self-weight", 0.0, 1.0, 0.5, Static(), gravity=Gravity((0.0, -9.81)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no MatrixRankWarning escapes
        with pytest.raises(SingularSystemError) as info:
            list(integrate(model, phase, State.at_rest(model.n_dofs)))
    assert not isinstance(info.value, ConvergenceError)
    assert str(info.value) == (
        "phase 'self-weight', step ending at t = 0.5 s: the system matrix is singular (zero pivot): a floating part, "
        "unmerged duplicate nodes or a missing support; nodes connected to no imposed displacement: 0, 1, 2, 3")
    # held at its base, the same element is fine
    held = Phase("self-weight", 0.0, 1.0, 0.5, Static(), gravity=Gravity((0.0, -9.81)),
                 constraints=(ImposedDisplacement("BASE", "y"), ImposedDisplacement("O", "x")))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(integrate(model, held, State.at_rest(model.n_dofs)))


def test_zero_row_names_the_dof():
    model = _one_element()  # 4 nodes: the iteration matrix's pattern is the element's, 8 x 8
    system = NewtonSystem(model, np.arange(model.n_dofs))
    rows, cols = system.matrix.row, system.matrix.col
    J = np.where((rows == cols) & (rows != 1), 1.0, 0.0)  # identity but for dy of node 0
    with pytest.raises(SingularSystemError, match="unknowns with an all-zero row and column: dy of node 0"):
        solve_increment(system, J, np.ones(model.n_dofs), [], [], np.zeros(0), 1.0,
                        "phase 'p', step ending at t = 1 s")


def test_explicit_mass_singular():
    model = _one_element()
    mass = model.mass.tolil()
    mass[0, :] = 0.0
    mass[:, 0] = 0.0
    model.mass = mass.tocsr()
    phase = Phase("fall", 0.0, 1e-5, 1e-6, gravity=Gravity((0.0, -9.81)))
    with pytest.raises(SingularSystemError, match="phase 'fall': the mass matrix of the free dofs is singular"):
        next(central_differences(model, phase, State.at_rest(model.n_dofs)))
