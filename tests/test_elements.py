"""Reference elements and element-level integrals: nodality, partition of unity, gradients
against finite differences, distorted patch tests, total mass."""
import numpy as np
import pytest
import scipy.sparse.linalg as spla

from fem.elements import ELEMENTS
from fem.material import ElasticMaterial
from fem.model import Model

from helpers import GRAPHITE, grid_mesh

ALL = sorted(ELEMENTS)
RNG = np.random.default_rng(42)


def _inside(cell_type: str, n: int) -> np.ndarray:
    """n random reference points inside the element."""
    if cell_type.startswith("quad"):
        return RNG.uniform(-1, 1, size=(n, 2))
    p = RNG.uniform(0, 1, size=(n, 2))
    flip = p.sum(axis=1) > 1
    p[flip] = 1 - p[flip]
    return p


@pytest.mark.parametrize("cell_type", ALL)
def test_nodality(cell_type):
    e = ELEMENTS[cell_type]
    np.testing.assert_allclose(e.shape(e.nodes), np.eye(e.n_nodes), atol=1e-14)


@pytest.mark.parametrize("cell_type", ALL)
def test_partition_of_unity(cell_type):
    e = ELEMENTS[cell_type]
    xi = _inside(cell_type, 50)
    np.testing.assert_allclose(e.shape(xi).sum(axis=1), 1.0, atol=1e-14)
    np.testing.assert_allclose(e.shape_grad(xi).sum(axis=1), 0.0, atol=1e-13)
    # linear completeness: sum_a N_a x_a = x
    np.testing.assert_allclose(e.shape(xi) @ e.nodes, xi, atol=1e-14)


@pytest.mark.parametrize("cell_type", ALL)
def test_gradients_match_finite_differences(cell_type):
    e = ELEMENTS[cell_type]
    xi = _inside(cell_type, 20) * 0.9
    h = 1e-6
    for j in range(2):
        d = np.zeros(2)
        d[j] = h
        fd = (e.shape(xi + d) - e.shape(xi - d)) / (2 * h)
        # shape functions are polynomials of degree <= 3: central differences are exact to O(h^2)
        np.testing.assert_allclose(e.shape_grad(xi)[..., j], fd, atol=1e-9)


@pytest.mark.parametrize("cell_type", ALL)
def test_mass_rule_integrates_shape_products_exactly(cell_type):
    """The mass rule gives the same N_a N_b integrals as a much finer rule."""
    e = ELEMENTS[cell_type]
    r = e.mass_rule
    coarse = np.einsum("qa,qb,q->ab", e.shape(r.points), e.shape(r.points), r.weights)
    if cell_type.startswith("quad"):
        x, w = np.polynomial.legendre.leggauss(8)
        pts = np.array([[a, b] for a in x for b in x])
        wts = np.outer(w, w).ravel()
    else:  # collapsed Gauss (Duffy) rule on the triangle, exact for these degrees
        x, w = np.polynomial.legendre.leggauss(8)
        s = 0.5 * (x + 1)
        pts = np.array([[a * (1 - b), b] for a in s for b in s])
        wts = np.array([wa * wb * (1 - b) / 4 for wa in w for wb, b in zip(w, s)])
    fine = np.einsum("qa,qb,q->ab", e.shape(pts), e.shape(pts), wts)
    np.testing.assert_allclose(coarse, fine, atol=1e-12)


@pytest.mark.parametrize("element", ["quad", "triangle", "triangle6"])
@pytest.mark.parametrize("lumped", [False, True])
def test_total_mass(element, lumped):
    mesh = grid_mesh(3, 5, element=element, distort=0.3)
    mat = ElasticMaterial(**GRAPHITE)
    for t in (1.0, 0.25):
        model = Model(mesh, {"BLOCK": mat}, thickness=t, lumped_mass=lumped)
        expected = 1450.0 * 0.36 * 0.80 * t
        ones_x = np.zeros(model.n_dofs)
        ones_x[0::2] = 1.0
        # rigid translation: 1^T M 1 = total mass, in each direction
        assert ones_x @ (model.mass @ ones_x) == pytest.approx(expected, rel=1e-12)
        assert model.total_mass() == pytest.approx(expected, rel=1e-12)
        # kinetic energy of a rigid translation at 2 m/s, whole model and region: m v^2 / 2
        assert model.kinetic_energy(2 * ones_x) == pytest.approx(2 * expected, rel=1e-12)
        assert model.kinetic_energy(2 * ones_x, "BLOCK") == pytest.approx(2 * expected, rel=1e-12)
        # gravity resultant = m g
        assert model.gravity_force((0.0, -9.81))[1::2].sum() == pytest.approx(-9.81 * expected, rel=1e-12)
    if lumped:
        assert model.mass.count_nonzero() == model.n_dofs
        assert (model.mass.diagonal() > 0).all()


def _interior_dofs(mesh) -> np.ndarray:
    """Dofs of the nodes strictly inside the rectangle spanned by the mesh."""
    x, y = mesh.points[:, 0], mesh.points[:, 1]
    inside = ~(np.isclose(x, x.min()) | np.isclose(x, x.max()) | np.isclose(y, y.min()) | np.isclose(y, y.max()))
    nodes = np.flatnonzero(inside)
    return np.sort(np.concatenate([2 * nodes, 2 * nodes + 1]))


def _solve_patch(mesh, model, u_exact):
    """Impose u_exact on the boundary nodes, solve K u = 0 for the interior (linear model)."""
    free = _interior_dofs(mesh)
    fixed = np.setdiff1d(np.arange(model.n_dofs), free)
    K = model.stiffness()
    u = np.zeros(model.n_dofs)
    u[fixed] = u_exact[fixed]
    u[free] = spla.spsolve(K[free][:, free].tocsc(), -K[free][:, fixed] @ u[fixed])
    return u


@pytest.mark.parametrize("element", ["quad", "triangle", "triangle6"])
def test_patch_test_distorted_small_strain(element):
    """A linear displacement field on the boundary of a distorted patch is reproduced inside and
    gives the exact constant stress D eps at every cell (to 1e-10 relative)."""
    mesh = grid_mesh(4, 4, width=1.0, height=1.0, element=element, distort=0.35, seed=3)
    mat = ElasticMaterial(**GRAPHITE)
    model = Model(mesh, {"BLOCK": mat}, kinematics="small_strain")
    G = np.array([[1.0e-3, 0.4e-3], [-0.2e-3, -0.7e-3]])  # grad u
    u_exact = (mesh.points @ G.T + np.array([1e-4, -2e-4])).ravel()
    u = _solve_patch(mesh, model, u_exact)
    np.testing.assert_allclose(u, u_exact, rtol=0, atol=1e-10 * np.abs(u_exact).max())
    eps = np.array([G[0, 0], G[1, 1], G[0, 1] + G[1, 0]])
    sigma = mat.plane_stress_matrix() @ eps
    stress = model.cell_stresses(u)["cauchy"]["BLOCK"]
    np.testing.assert_allclose(stress, np.broadcast_to(sigma, stress.shape), rtol=0,
                               atol=1e-10 * np.abs(sigma).max())
    # and the internal force vanishes at interior nodes (1 m patch: force scale = stress scale)
    f = model.forces(u, tangent=False).internal
    assert np.abs(f[_interior_dofs(mesh)]).max() < 1e-10 * np.abs(sigma).max()


@pytest.mark.parametrize("element", ["quad", "triangle6"])
def test_patch_test_distorted_total_lagrangian(element):
    """Homogeneous finite deformation (rotation 0.5 rad times stretch) imposed on the boundary of a
    distorted patch: Newton finds the same affine field inside, the second Piola-Kirchhoff stress is
    the constant D E(F) in every cell to 1e-10."""
    mesh = grid_mesh(3, 3, width=1.0, height=1.0, element=element, distort=0.3, seed=5)
    mat = ElasticMaterial(**GRAPHITE)
    model = Model(mesh, {"BLOCK": mat}, kinematics="total_lagrangian")
    c, s = np.cos(0.5), np.sin(0.5)
    F = np.array([[c, -s], [s, c]]) @ np.array([[1.002, 0.001], [0.0, 0.999]])
    u_exact = (mesh.points @ (F - np.eye(2)).T).ravel()
    interior = _interior_dofs(mesh)
    u = u_exact.copy()
    u[interior] += 1e-4 * RNG.standard_normal(interior.size)  # start away from the solution
    for _ in range(10):
        r = model.forces(u, tangent=True)
        u[interior] -= spla.spsolve(r.stiffness[interior][:, interior].tocsc(), r.internal[interior])
    np.testing.assert_allclose(u, u_exact, rtol=0, atol=1e-10)
    E = 0.5 * (F.T @ F - np.eye(2))
    S = mat.plane_stress_matrix() @ np.array([E[0, 0], E[1, 1], 2 * E[0, 1]])
    pk2 = model.cell_stresses(u)["pk2"]["BLOCK"]
    np.testing.assert_allclose(pk2, np.broadcast_to(S, pk2.shape), rtol=0, atol=1e-10 * np.abs(S).max())
