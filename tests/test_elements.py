"""Reference elements and element-level integrals: nodality, partition of unity, gradients
against finite differences, distorted patch tests (QUA4, TRIA3, TRIA6, QUA8), total mass.

Element integrals against independent references (every element type; QUA8 in particular):

* stiffness against a 5x5 Gauss (quadrilaterals) / collapsed 5x5 Gauss (triangles) rule written
  here: on affine cells the integrand B^T D B is a polynomial the element's own rule integrates
  exactly, so the two agree to round-off (1e-12); on a general straight-edged quadrilateral
  1/det J makes it rational and the tolerance is the quadrature error of the element's rule,
  extrapolated from the reference rules' own convergence. A QUA8 with 2x2 points fails both by
  ~5e-2, and shows a 4th zero-energy (hourglass) mode: a single cell must have exactly 3;
* the consistent tangent d(f_int + f_damp)/du and d f_damp/dv against central differences at a
  large-rotation, finite-strain state (total Lagrangian, Rayleigh damping on);
* the consistent mass: rigid translation gives rho t A, a rigid rotation about a point gives the
  kinetic energy 1/2 I omega^2 with I the polar moment computed here in closed form.
"""
import numpy as np
import pytest
import scipy.sparse.linalg as spla

from fem.model.elements import ELEMENTS
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import CellBlock, Mesh
from fem.model.assembly import Model

from helpers import GRAPHITE, grid_mesh

ALL = sorted(ELEMENTS)


def _inside(cell_type: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """n random reference points inside the element."""
    if cell_type.startswith("quad"):
        return rng.uniform(-1, 1, size=(n, 2))
    p = rng.uniform(0, 1, size=(n, 2))
    flip = p.sum(axis=1) > 1
    p[flip] = 1 - p[flip]
    return p


def _fine_rule(cell_type: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """An n x n Gauss-Legendre rule on the reference cell, independent of fem.model.elements: the
    tensor rule on [-1, 1]^2, or on the triangle the collapsed (Duffy) rule x = a (1 - b), y = b,
    exact for polynomials of degree <= 2 n - 2."""
    x, w = np.polynomial.legendre.leggauss(n)
    if cell_type.startswith("quad"):
        return np.array([[a, b] for a in x for b in x]), np.outer(w, w).ravel()
    s = 0.5 * (x + 1)
    pts = np.array([[a * (1 - b), b] for a in s for b in s])
    wts = np.array([wa * wb * (1 - b) / 4 for wa in w for wb, b in zip(w, s)])
    return pts, wts


@pytest.mark.parametrize("cell_type", ALL)
def test_nodality(cell_type):
    e = ELEMENTS[cell_type]
    np.testing.assert_allclose(e.shape(e.nodes), np.eye(e.n_nodes), atol=1e-14)


@pytest.mark.parametrize("cell_type", ALL)
def test_partition_of_unity(cell_type):
    e = ELEMENTS[cell_type]
    xi = _inside(cell_type, 50, np.random.default_rng(42))
    np.testing.assert_allclose(e.shape(xi).sum(axis=1), 1.0, atol=1e-14)
    np.testing.assert_allclose(e.shape_grad(xi).sum(axis=1), 0.0, atol=1e-13)
    # linear completeness: sum_a N_a x_a = x
    np.testing.assert_allclose(e.shape(xi) @ e.nodes, xi, atol=1e-14)


@pytest.mark.parametrize("cell_type", ALL)
def test_gradients_match_finite_differences(cell_type):
    e = ELEMENTS[cell_type]
    xi = _inside(cell_type, 20, np.random.default_rng(43)) * 0.9
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
    pts, wts = _fine_rule(cell_type, 8)
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


def quad8_patch(n: int, distort: float = 0.0, bow: float = 0.0, seed: int = 0) -> Mesh:
    """n x n QUA8 cells on the unit square, one cell group "BLOCK".

    Interior corner nodes are moved by up to ``distort`` times the cell size (uniform, seeded);
    mid-side nodes sit at the edge mid-points, and those of interior edges are then pushed along
    the edge normal by up to ``bow`` times the cell size (curved edges). Boundary nodes stay on the
    boundary, boundary edges straight. Node order per cell: gmsh/meshio QUA8 (corners
    counter-clockwise, then mid-sides 0-1, 1-2, 2-3, 3-0).
    """
    rng = np.random.default_rng(seed)
    h = 1.0 / n
    x = np.linspace(0.0, 1.0, n + 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    pts = np.column_stack([X.ravel(), Y.ravel()])

    def on_edge(coordinate: np.ndarray) -> np.ndarray:
        return np.isclose(coordinate, 0.0) | np.isclose(coordinate, 1.0)

    interior = ~(on_edge(pts[:, 0]) | on_edge(pts[:, 1]))
    pts[interior] += distort * h * rng.uniform(-1, 1, size=(interior.sum(), 2))
    idx = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
    quads = np.stack([idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]], axis=-1).reshape(-1, 4)
    edges = np.stack([quads, np.roll(quads, -1, axis=1)], axis=-1).reshape(-1, 2)
    uniq, inv = np.unique(np.sort(edges, axis=1), axis=0, return_inverse=True)
    a, b = pts[uniq[:, 0]], pts[uniq[:, 1]]
    mids = 0.5 * (a + b)
    boundary = (on_edge(a[:, 0]) & on_edge(b[:, 0]) & np.isclose(a[:, 0], b[:, 0])) | (
        on_edge(a[:, 1]) & on_edge(b[:, 1]) & np.isclose(a[:, 1], b[:, 1]))
    normal = np.column_stack([-(b - a)[:, 1], (b - a)[:, 0]]) / np.linalg.norm(b - a, axis=1)[:, None]
    offset = bow * h * rng.uniform(-1, 1, size=len(uniq))
    mids[~boundary] += offset[~boundary, None] * normal[~boundary]
    conn = np.hstack([quads, len(pts) + inv.reshape(-1, 4)])
    return Mesh(np.vstack([pts, mids]), {"BLOCK": CellBlock("quad8", conn)}, {})


def patch_mesh(element: str, n: int, distort: float, seed: int) -> Mesh:
    """Distorted n x n patch of the unit square; QUA8 cells also get curved interior edges."""
    if element == "quad8":
        return quad8_patch(n, distort=distort, bow=0.1, seed=seed)
    return grid_mesh(n, n, width=1.0, height=1.0, element=element, distort=distort, seed=seed)


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


@pytest.mark.parametrize("element", ["quad", "triangle", "triangle6", "quad8"])
def test_patch_test_distorted_small_strain(element):
    """A linear displacement field on the boundary of a distorted patch is reproduced inside and
    gives the exact constant stress D eps at every cell (to 1e-10 relative: round-off of the
    solve, the fields being exactly representable). Isoparametric cells reproduce linear fields
    even with curved edges (QUA8 here), and their rules integrate grad N_a det J exactly, so the
    interior equations hold exactly."""
    mesh = patch_mesh(element, 4 if element != "quad8" else 3, distort=0.35, seed=3)
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


@pytest.mark.parametrize("element", ["quad", "triangle6", "quad8"])
def test_patch_test_distorted_total_lagrangian(element):
    """Homogeneous finite deformation (rotation 0.5 rad times stretch) imposed on the boundary of a
    distorted patch: Newton finds the same affine field inside, the second Piola-Kirchhoff stress is
    the constant D E(F) in every cell to 1e-10."""
    mesh = patch_mesh(element, 3, distort=0.3, seed=5)
    mat = ElasticMaterial(**GRAPHITE)
    model = Model(mesh, {"BLOCK": mat}, kinematics="total_lagrangian")
    c, s = np.cos(0.5), np.sin(0.5)
    F = np.array([[c, -s], [s, c]]) @ np.array([[1.002, 0.001], [0.0, 0.999]])
    u_exact = (mesh.points @ (F - np.eye(2)).T).ravel()
    interior = _interior_dofs(mesh)
    u = u_exact.copy()
    u[interior] += 1e-4 * np.random.default_rng(44).standard_normal(interior.size)  # start away from the solution
    for _ in range(10):
        r = model.forces(u, tangent=True)
        u[interior] -= spla.spsolve(r.stiffness[interior][:, interior].tocsc(), r.internal[interior])
    np.testing.assert_allclose(u, u_exact, rtol=0, atol=1e-10)
    E = 0.5 * (F.T @ F - np.eye(2))
    S = mat.plane_stress_matrix() @ np.array([E[0, 0], E[1, 1], 2 * E[0, 1]])
    pk2 = model.cell_stresses(u)["pk2"]["BLOCK"]
    np.testing.assert_allclose(pk2, np.broadcast_to(S, pk2.shape), rtol=0, atol=1e-10 * np.abs(S).max())


# ------------------------------------------------------------------------------ single cells
#: corner nodes (counter-clockwise) of single test cells [m]
CORNERS = {
    "quad": {"square": [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
             "parallelogram": [[0.0, 0.0], [1.0, 0.2], [1.4, 1.1], [0.4, 0.9]],
             "general": [[0.0, 0.0], [1.2, 0.1], [1.0, 0.9], [-0.1, 0.8]]},
    "triangle": {"square": [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                 "parallelogram": [[0.0, 0.0], [1.1, 0.2], [0.3, 0.9]],
                 "general": [[0.1, -0.1], [1.2, 0.3], [0.2, 1.0]]},
}


def single_cell(cell_type: str, shape: str, bow: float = 0.0) -> Mesh:
    """One cell of ``cell_type`` with the corners CORNERS[...][shape]; mid-side nodes (QUA8, TRIA6)
    at the edge mid-points, pushed along the edge normal by ``bow`` times the edge length (curved
    edges) when bow != 0."""
    corners = np.array(CORNERS["quad" if cell_type.startswith("quad") else "triangle"][shape])
    pts = corners
    if cell_type in ("quad8", "triangle6"):
        a, b = corners, np.roll(corners, -1, axis=0)
        d = b - a
        mids = 0.5 * (a + b) + bow * np.column_stack([-d[:, 1], d[:, 0]]) * np.array([1, -1, 1, -1][:len(a)])[:, None]
        pts = np.vstack([corners, mids])
    return Mesh(pts, {"BLOCK": CellBlock(cell_type, np.arange(len(pts))[None, :])}, {})


def reference_stiffness(cell_type: str, X: np.ndarray, D: np.ndarray, thickness: float, n: int) -> np.ndarray:
    """Small-strain stiffness int B^T D B t dA of one cell with nodes X, by the n x n rule of
    _fine_rule (dofs node-major, x then y, as the model's)."""
    e = ELEMENTS[cell_type]
    pts, wts = _fine_rule(cell_type, n)
    dN = e.shape_grad(pts)  # (nq, nen, 2), checked against finite differences above
    J = np.einsum("ai,qaj->qij", X, dN)
    grad = np.einsum("qaj,qji->qai", dN, np.linalg.inv(J))  # dN_a/dX_i
    nq, nen = grad.shape[:2]
    B = np.zeros((nq, 3, nen, 2))
    B[:, 0, :, 0] = grad[..., 0]
    B[:, 1, :, 1] = grad[..., 1]
    B[:, 2, :, 0] = grad[..., 1]
    B[:, 2, :, 1] = grad[..., 0]
    B = B.reshape(nq, 3, 2 * nen)
    return thickness * np.einsum("q,qki,kl,qlj->ij", wts * np.linalg.det(J), B, D, B)


@pytest.mark.parametrize("shape", ["square", "parallelogram"])
@pytest.mark.parametrize("cell_type", ALL)
def test_stiffness_matches_a_fine_rule_on_affine_cells(cell_type, shape):
    """On an affine cell (square/right triangle, or a skewed parallelogram/triangle) J is constant
    and B^T D B is a polynomial (degree per variable: QUA8 <= 4, QUA4 <= 2; total degree: TRIA6 2,
    TRIA3 0), which full integration (2x2, 3x3, 3-point,
    1-point) and the 5x5 reference both integrate exactly: equal to round-off, 1e-12 of max |K|.
    A QUA8 with 2x2 points misses the degree-4 terms: off by ~4e-2."""
    mesh = single_cell(cell_type, shape)
    mat = ElasticMaterial(**GRAPHITE)
    K = Model(mesh, {"BLOCK": mat}, thickness=0.3, kinematics="small_strain").stiffness().toarray()
    ref = reference_stiffness(cell_type, mesh.points, mat.plane_stress_matrix(), 0.3, 5)
    np.testing.assert_allclose(K, ref, rtol=0, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("cell_type, full", [("quad", 2), ("quad8", 3)])
def test_stiffness_of_a_general_quadrilateral(cell_type, full):
    """Straight edges, not a parallelogram: det J varies over the cell, grad N = dN/dxi J^-1
    carries 1/det J and the integrand B^T D B det J is rational, so no Gauss rule is exact and the element's full n x n rule (2x2 QUA4, 3x3 QUA8) has
    a quadrature error. The Gauss error of an analytic integrand falls geometrically with the
    number of points, e_n ~ C r^n, so the reference rules' own errors (against 10x10) give the
    estimate e_n ~ e_{n+1}^2 / e_{n+2}; the model's stiffness must be within 10 times it (the
    decay is only asymptotically geometric). For QUA8 e_3 ~ 1e-5; with 2x2 points it is 5.5e-2."""
    mesh = single_cell(cell_type, "general")
    mat = ElasticMaterial(**GRAPHITE)
    D = mat.plane_stress_matrix()
    K = Model(mesh, {"BLOCK": mat}, kinematics="small_strain").stiffness().toarray()
    ref = reference_stiffness(cell_type, mesh.points, D, 1.0, 10)
    err = {n: np.abs(reference_stiffness(cell_type, mesh.points, D, 1.0, n) - ref).max() / np.abs(ref).max()
           for n in (full + 1, full + 2)}
    estimate = err[full + 1] ** 2 / err[full + 2]
    assert err[full + 2] < err[full + 1] < 1e-3  # the reference rules do converge
    assert np.abs(K - ref).max() / np.abs(ref).max() <= 10 * estimate


@pytest.mark.parametrize("cell_type", ALL)
def test_single_cell_has_exactly_three_zero_energy_modes(cell_type):
    """A free cell stores no energy in the two translations and the infinitesimal rotation, and in
    nothing else (a reduced rule would leave hourglass modes: QUA8 with 2x2 points has a 4th).
    Zero: eigenvalue below 1e-10 of the largest (round-off gives ~1e-16; the softest deformation
    mode of these cells is above 1e-3 of the largest)."""
    mesh = single_cell(cell_type, "general")
    K = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="small_strain").stiffness().toarray()
    ev = np.linalg.eigvalsh(K)
    assert np.count_nonzero(ev < 1e-10 * ev.max()) == 3
    assert np.sort(ev)[3] > 1e-3 * ev.max()
    x, y = mesh.points[:, 0], mesh.points[:, 1]
    for rigid in (np.column_stack([np.ones_like(x), 0 * x]), np.column_stack([0 * x, np.ones_like(x)]),
                  np.column_stack([-y, x])):
        r = rigid.ravel()
        assert np.linalg.norm(K @ r) <= 1e-12 * ev.max() * np.linalg.norm(r)


# ------------------------------------------------------------------------------ consistent tangent
@pytest.mark.parametrize("cell_type", ALL)
def test_tangent_matches_central_differences_at_large_deformation(cell_type):
    """Total Lagrangian, Rayleigh damping on (AMOR_ALPHA, AMOR_BETA), at a state with a 0.6 rad
    rotation, ~5 % stretch and a non-affine perturbation (curved mid-side edges for QUA8/TRIA6),
    and a velocity field: the assembled d(f_int + f_damp)/du and d f_damp/dv equal their central
    differences, column by column.

    Tolerance: f_int is a cubic polynomial of u (Saint-Venant-Kirchhoff, E quadratic in grad u,
    f = int F S grad N), f_damp quadratic in u and linear in v, so the truncation error of the
    central difference is h^2/6 d3f/du3 ~ (h/L)^2 |K| = 1e-12 |K| for h = 1e-6 L (cell size L ~ 1
    m), and round-off adds eps |f| / h ~ 1e-16 * 0.6 |K| L / h ~ 1e-10 |K|. 1e-7 |K| is three
    decades above both, and three below the smallest term a wrong tangent would miss (the initial
    stress |S| / E ~ 5e-2, the damping's u-derivative alpha |grad v| ~ 1e-2)."""
    rng = np.random.default_rng(11)
    mesh = single_cell(cell_type, "general", bow=0.06)
    mat = ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-3, rayleigh_mass=5.0)
    model = Model(mesh, {"BLOCK": mat}, kinematics="total_lagrangian")
    c, s = np.cos(0.6), np.sin(0.6)
    F = np.array([[c, -s], [s, c]]) @ np.array([[1.05, 0.03], [0.0, 0.96]])
    u = (mesh.points @ (F - np.eye(2)).T).ravel() + 0.02 * rng.uniform(-1, 1, model.n_dofs)
    v = 10.0 * rng.uniform(-1, 1, model.n_dofs)
    r = model.forces(u, v, tangent=True)
    K, C = r.stiffness.toarray(), r.damping_matrix.toarray()
    h, h_v = 1e-6, 1e-2  # f_damp is linear in v: any step is exact, a large one limits round-off
    K_fd, C_fd = np.zeros_like(K), np.zeros_like(C)
    for j in range(model.n_dofs):
        d = np.zeros(model.n_dofs)
        d[j] = h
        fp, fm = model.forces(u + d, v, tangent=False), model.forces(u - d, v, tangent=False)
        K_fd[:, j] = (fp.internal + fp.damping - fm.internal - fm.damping) / (2 * h)
        d[j] = h_v
        gp, gm = model.forces(u, v + d, tangent=False), model.forces(u, v - d, tangent=False)
        C_fd[:, j] = (gp.damping - gm.damping) / (2 * h_v)
    np.testing.assert_allclose(K, K_fd, rtol=0, atol=1e-7 * np.abs(K).max())
    np.testing.assert_allclose(C, C_fd, rtol=0, atol=1e-7 * np.abs(C).max())
    # the state is really large-deformation: the initial-stress part is far above the tolerance
    K0 = Model(mesh, {"BLOCK": mat}, kinematics="small_strain").stiffness().toarray()
    assert np.abs(K - K0).max() > 1e-2 * np.abs(K).max()


# ------------------------------------------------------------------------------ consistent mass
def polygon_area_and_polar_moment(corners: np.ndarray, about: np.ndarray) -> tuple[float, float]:
    """Area and polar second moment int |X - P|^2 dA of a simple polygon (closed forms, Green's
    theorem over the edges)."""
    p = corners - about
    q = np.roll(p, -1, axis=0)
    cross = p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]
    area = 0.5 * cross.sum()
    polar = (cross * (p[:, 0] ** 2 + p[:, 0] * q[:, 0] + q[:, 0] ** 2
                      + p[:, 1] ** 2 + p[:, 1] * q[:, 1] + q[:, 1] ** 2)).sum() / 12.0
    return float(area), float(polar)


def test_polygon_formulas():
    """The closed forms used below, on the unit square: area 1, int (x^2 + y^2) about a corner 2/3,
    about the centre 1/6."""
    sq = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    assert polygon_area_and_polar_moment(sq, np.zeros(2)) == pytest.approx((1.0, 2.0 / 3.0), rel=1e-14)
    assert polygon_area_and_polar_moment(sq, np.array([0.5, 0.5])) == pytest.approx((1.0, 1.0 / 6.0), rel=1e-14)


def _rigid_mass_checks(model: Model, area: float, polar: float, about: np.ndarray, thickness: float) -> None:
    """1^T M 1 = rho t A in x and y, and 1/2 v^T M v = 1/2 (rho t I_P) omega^2 for the rigid
    rotation v = omega e_z x (X - P) (nodal values; isoparametric cells reproduce it exactly)."""
    rho = GRAPHITE["density"]
    for k in range(2):
        ones = np.zeros(model.n_dofs)
        ones[k::2] = 1.0
        assert ones @ (model.mass @ ones) == pytest.approx(rho * thickness * area, rel=1e-12)
    omega = 3.0
    rel = model.mesh.points - about
    v = (omega * np.column_stack([-rel[:, 1], rel[:, 0]])).ravel()
    assert model.kinetic_energy(v) == pytest.approx(0.5 * rho * thickness * polar * omega**2, rel=1e-12)


@pytest.mark.parametrize("cell_type", ALL)
def test_consistent_mass_of_rigid_motions(cell_type):
    """Consistent mass of a single straight-edged distorted cell and of a distorted patch of the
    unit square (thickness 0.25 m): translation gives rho t A, rotation about P = (0.3, -0.2) the
    kinetic energy 1/2 rho t I_P omega^2 (I_P of the polygon, or of the unit square: ((1-px)^3 +
    px^3 + (1-py)^3 + py^3)/3). Exact to round-off (1e-12): |v|^2 is quadratic in X and the
    straight-edged map is bilinear (affine for triangles), so rho |v|^2 det J has degree <= 3 per
    variable, within every mass rule (2x2, 3x3, degree 2 and 4)."""
    t, about = 0.25, np.array([0.3, -0.2])
    mesh = single_cell(cell_type, "general")
    n_corners = 4 if cell_type.startswith("quad") else 3
    area, polar = polygon_area_and_polar_moment(mesh.points[:n_corners], about)
    _rigid_mass_checks(Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, thickness=t), area, polar, about, t)

    patch = quad8_patch(3, distort=0.3, seed=9) if cell_type == "quad8" else grid_mesh(
        3, 3, width=1.0, height=1.0, element=cell_type, distort=0.3, seed=9)
    px, py = about
    polar_square = ((1 - px) ** 3 + px**3 + (1 - py) ** 3 + py**3) / 3.0
    _rigid_mass_checks(Model(patch, {"BLOCK": ElasticMaterial(**GRAPHITE)}, thickness=t), 1.0, polar_square, about, t)
