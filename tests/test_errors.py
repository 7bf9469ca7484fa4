"""Bad input gets an error that names the problem (one test each)."""
import numpy as np
import pytest

from fem.time.dynamics import Phase
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import CellBlock, Mesh, MeshError
from fem.mesh.read import read_mesh
from fem.model.assembly import Model

from helpers import GRAPHITE, grid_mesh


def test_missing_physical_group_is_named():
    mesh = grid_mesh(2, 2)
    with pytest.raises(MeshError, match=r"'GROUN'.*available: \['BLOCK'\]"):
        Model(mesh, {"GROUN": ElasticMaterial(**GRAPHITE)})
    with pytest.raises(MeshError, match="'C1X'"):
        mesh.nodes("C1X")


@pytest.mark.parametrize("young", [0.0, -6e11, float("nan")])
def test_non_positive_young_modulus(young):
    with pytest.raises(ValueError, match="Young's modulus must be > 0"):
        ElasticMaterial(young=young, poisson=0.2, density=1450.0)


@pytest.mark.parametrize("density", [0.0, -1450.0])
def test_non_positive_density(density):
    with pytest.raises(ValueError, match="density must be > 0"):
        ElasticMaterial(young=6e11, poisson=0.2, density=density)


@pytest.mark.parametrize("nu", [-1.0, 0.5, 0.7, -2.0])
def test_poisson_ratio_out_of_range(nu):
    with pytest.raises(ValueError, match=r"Poisson's ratio must lie in \(-1, 0.5\)"):
        ElasticMaterial(young=6e11, poisson=nu, density=1450.0)


def test_negative_damping_coefficient():
    with pytest.raises(ValueError, match="AMOR_ALPHA must be >= 0"):
        ElasticMaterial(**GRAPHITE, rayleigh_stiffness=-1e-4)


@pytest.mark.parametrize("thickness", [0.0, -1.0])
def test_non_positive_thickness(thickness):
    with pytest.raises(ValueError, match="thickness must be > 0"):
        Model(grid_mesh(1, 1), {"BLOCK": ElasticMaterial(**GRAPHITE)}, thickness=thickness)


@pytest.mark.parametrize("dt", [0.0, -1e-3])
def test_non_positive_time_step(dt):
    with pytest.raises(ValueError, match="time step dt must be > 0"):
        Phase("release", 0.0, 0.33, dt)


def test_inverted_element_is_named():
    pts = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]])
    cells = np.array([[0, 1, 2, 3], [1, 2, 5, 4]])  # second cell clockwise
    mesh = Mesh(pts, {"BLOCK": CellBlock("quad", cells)}, {})
    with pytest.raises(MeshError, match=r"cell 1 of group 'BLOCK'.*inverted"):
        Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)})


def test_missing_mesh_file(tmp_path):
    path = tmp_path / "no_such_block.msh"
    with pytest.raises(MeshError, match="no_such_block.msh.*does not exist"):
        read_mesh(path)


def test_unknown_kinematics():
    with pytest.raises(ValueError, match="unknown kinematics 'GROT'"):
        Model(grid_mesh(1, 1), {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="GROT")


def test_material_on_a_line_group():
    mesh = Mesh(np.array([[0.0, 0.0], [1.0, 0.0]]), {"CONHAUT": CellBlock("line", np.array([[0, 1]]))}, {})
    with pytest.raises(MeshError, match="'CONHAUT' holds 'line' cells, not surface cells"):
        Model(mesh, {"CONHAUT": ElasticMaterial(**GRAPHITE)})
