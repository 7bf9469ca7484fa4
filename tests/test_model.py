"""Continuum model: objectivity under rigid rotation, consistent tangent, gravity equilibrium and
stress convergence of a block on a clamped base."""
from dataclasses import replace

import numpy as np
import pytest

from fem.time.dynamics import ConvergenceError, NewtonSettings, Phase, State, integrate
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.model.assembly import Model
from fem.stage.schemes import Static

from helpers import GRAPHITE, grid_mesh, rotation

E_GRAPHITE = GRAPHITE["young"]


def _rigid_rotation(mesh, theta, pivot=(0.0, 0.0), omega=0.0):
    """Displacement (and velocity of a rotation rate omega [rad/s]) of a rigid rotation about pivot."""
    X = mesh.points - np.asarray(pivot)
    x = X @ rotation(theta).T
    u = (x - X).ravel()
    v = (omega * np.column_stack([-x[:, 1], x[:, 0]])).ravel()
    return u, v


@pytest.mark.parametrize("element", ["quad", "triangle6"])
@pytest.mark.parametrize("theta", [0.01, 1.0])
def test_rigid_rotation_gives_no_force_total_lagrangian(element, theta):
    mesh = grid_mesh(4, 6, element=element, distort=0.2)
    mat = ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-4)
    area = 0.36 * 0.80
    u, v = _rigid_rotation(mesh, theta, omega=2.0)
    tl = Model(mesh, {"BLOCK": mat}, kinematics="total_lagrangian")
    f = tl.forces(u, v, tangent=False)
    assert np.abs(f.internal).max() < 1e-9 * E_GRAPHITE * area
    # the stiffness-proportional damping force does not resist a rigid rotation either:
    # alpha E omega area is the scale of a damping force for a strain rate omega
    assert np.abs(f.damping).max() < 1e-9 * 1e-4 * E_GRAPHITE * 2.0 * area
    assert tl.strain_energy(u) < 1e-20 * E_GRAPHITE * area
    # the small-strain model shows a spurious force ~ E (1 - cos theta) area, i.e. not objective
    lin = Model(mesh, {"BLOCK": mat}, kinematics="small_strain")
    spurious = np.abs(lin.forces(u, v, tangent=False).internal).max()
    assert spurious > 1e-3 * (1 - np.cos(theta)) * E_GRAPHITE * area
    assert spurious > 1e3 * np.abs(f.internal).max()


@pytest.mark.parametrize("element", ["quad", "triangle6", "triangle"])
@pytest.mark.parametrize("kinematics", ["total_lagrangian", "small_strain"])
def test_tangent_matches_finite_differences(element, kinematics):
    """d(f_int + f_damp)/du and d f_damp/dv against central differences on a randomly deformed,
    moving, distorted mesh (relative error < 1e-6)."""
    mesh = grid_mesh(3, 4, element=element, distort=0.3, seed=7)
    mat = ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-4, rayleigh_mass=0.5)
    model = Model(mesh, {"BLOCK": mat}, kinematics=kinematics)
    rng = np.random.default_rng(11)
    u = 0.02 * rng.standard_normal(model.n_dofs)  # strains of a few percent
    v = rng.standard_normal(model.n_dofs)
    r = model.forces(u, v, tangent=True)
    total = lambda f: f.internal + f.damping  # noqa: E731
    for _ in range(3):
        d = rng.standard_normal(model.n_dofs)
        h = 1e-6 * np.abs(u).max()
        fd_u = (total(model.forces(u + h * d, v, False)) - total(model.forces(u - h * d, v, False))) / (2 * h)
        assert np.linalg.norm(r.stiffness @ d - fd_u) < 1e-6 * np.linalg.norm(fd_u)
        fd_v = (model.forces(u, v + d, False).damping - model.forces(u, v - d, False).damping) / 2
        assert np.linalg.norm(r.damping_matrix @ d - fd_v) < 1e-6 * np.linalg.norm(fd_v)


@pytest.mark.parametrize("element", ["quad", "triangle", "triangle6"])
def test_smallest_jacobian_finds_an_element_turned_inside_out(element):
    """ForceEvaluation.smallest_jacobian = min det F over the quadrature points (the step's guard in
    fem.time.dynamics): a homogeneous deformation F has det F at every point (1 at rest, 2 x 0.5 for a
    stretch and a squeeze, 1 for a rotation by 1 rad); a mirror image of the body (x -> -x) is -1; one
    node pushed across its cell's diagonal turns that cell alone inside out; small strain forms no F (+inf)."""
    mesh = grid_mesh(3, 4, element=element, distort=0.15)
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="total_lagrangian")
    X = mesh.points
    for F, det in ((np.eye(2), 1.0), (np.diag([2.0, 0.5]), 1.0), (np.diag([1.5, 0.5]), 0.75),
                   (rotation(1.0), 1.0), (np.diag([-1.0, 1.0]), -1.0)):
        u = (X @ F.T - X).ravel()
        assert model.evaluate(u).smallest_jacobian() == pytest.approx(det, rel=1e-12)
    # an interior corner node moved by 1.5 cells: the cells around it fold over
    interior = int(np.argmin(np.sum((X - X.mean(axis=0)) ** 2, axis=1)))
    u = np.zeros(model.n_dofs)
    u[2 * interior] = 1.5 * 0.36 / 3
    assert model.evaluate(u).smallest_jacobian() < 0.0
    small = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="small_strain")
    assert small.evaluate(u).smallest_jacobian() == np.inf


def test_a_step_converged_on_a_body_turned_inside_out_is_refused():
    """The mirror image of a block across its clamped base (x, y) -> (x, -y) is stress-free in a
    Saint-Venant-Kirchhoff material (F = diag(1, -1), E = (F^T F - I) / 2 = 0): a static step from it
    has a zero residual, a converged state no body reaches. fem.time.dynamics refuses it (det F <= 0),
    cuts the step and, every sub-step refused, stops naming the cause."""
    mesh = grid_mesh(2, 3, element="quad")
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="total_lagrangian")
    mirrored = np.zeros(model.n_dofs)
    mirrored[1::2] = -2.0 * mesh.points[:, 1]
    assert model.evaluate(mirrored).smallest_jacobian() == pytest.approx(-1.0)
    assert np.abs(model.evaluate(mirrored).internal).max() == 0.0
    phase = Phase("mirror", 0.0, 1.0, 1.0, Static(),
                  constraints=(ImposedDisplacement("BASE", "x"), ImposedDisplacement("BASE", "y")),
                  newton=NewtonSettings(rela=1e-12))
    start = replace(State.at_rest(model.n_dofs), u=mirrored)
    with pytest.raises(ConvergenceError, match="inside out"):
        list(integrate(model, phase, start))


def _gravity_on_clamped_base(nx, ny, element="quad"):
    mesh = grid_mesh(nx, ny, element=element)
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)})
    phase = Phase("self-weight", 0.0, 1.0, 1.0, Static(), gravity=Gravity((0.0, -9.81)),
                  constraints=(ImposedDisplacement("BASE", "x"), ImposedDisplacement("BASE", "y")),
                  newton=NewtonSettings(rela=1e-12))
    *_, last = integrate(model, phase, State.at_rest(model.n_dofs))
    return mesh, model, last.state


@pytest.mark.parametrize("element", ["quad", "triangle6"])
def test_block_on_clamped_base_reaction_equals_weight(element):
    mesh, model, state = _gravity_on_clamped_base(4, 8, element)
    weight = 1450.0 * 9.81 * 0.36 * 0.80 * 1.0
    assert state.reactions[1::2].sum() == pytest.approx(weight, rel=1e-10)
    assert abs(state.reactions[0::2].sum()) < 1e-10 * weight
    # reactions only at the constrained base nodes
    base_dofs = np.concatenate([2 * mesh.nodes("BASE"), 2 * mesh.nodes("BASE") + 1])
    others = np.setdiff1d(np.arange(model.n_dofs), base_dofs)
    assert np.all(state.reactions[others] == 0.0)


def test_base_stress_converges_to_weight_over_width():
    """Mean sigma_yy over the bottom row of cells -> -rho g 2l; cell averages sit at y = h/2, so
    the error is rho g h / 2 (first order): halving h halves it."""
    exact = -1450.0 * 9.81 * 0.80
    errors, values = [], []
    for ny in (2, 4, 8, 16):
        mesh, model, state = _gravity_on_clamped_base(4, ny)
        s = model.cell_stresses(state.u)["cauchy"]["BLOCK"][:, 1]
        centroid_y = mesh.points[mesh.cells("BLOCK").connectivity].mean(axis=1)[:, 1]
        bottom = centroid_y < 0.80 / ny
        values.append(s[bottom].mean())
        errors.append(abs(values[-1] - exact) / abs(exact))
    errors = np.array(errors)
    rates = np.log2(errors[:-1] / errors[1:])
    assert np.all(rates > 0.9), (errors, rates)
    # the error is the predicted (h/2)/(2l) to 1 %
    h = 0.80 / np.array([2, 4, 8, 16])
    np.testing.assert_allclose(errors, (h / 2) / 0.80, rtol=0.01)
    # Richardson extrapolation of the two finest meshes recovers -rho g 2l to 1e-3
    assert 2 * values[-1] - values[-2] == pytest.approx(exact, rel=1e-3)


@pytest.mark.parametrize("kinematics", ["total_lagrangian", "small_strain"])
def test_regions_fused_into_one_kernel_give_each_its_own_material(kinematics):
    """Two regions of one element type share a kernel (fem.model.continuum.fuse) with per-cell materials:
    the forces, tangent and damping matrix are the sums of the two regions' models alone, and the
    iteration matrix's c_k K + c_v C in one product equals the two matrices combined."""
    from dataclasses import replace as dc_replace

    from fem.mesh.mesh import CellBlock

    mesh = grid_mesh(4, 6, element="quad", distort=0.2, seed=3)
    cells = mesh.cell_groups["BLOCK"].connectivity
    groups = {**mesh.cell_groups, "LOW": CellBlock("quad", cells[:12]), "HIGH": CellBlock("quad", cells[12:])}
    mesh = dc_replace(mesh, cell_groups=groups)
    low = ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-4)
    high = ElasticMaterial(young=2e9, poisson=0.3, density=1000.0)  # no stiffness-proportional damping
    both = Model(mesh, {"LOW": low, "HIGH": high}, kinematics=kinematics)
    alone = [Model(mesh, {"LOW": low}, kinematics=kinematics), Model(mesh, {"HIGH": high}, kinematics=kinematics)]
    assert len(both.kernels) == 1 and both.kernels[0].n_elements == 24
    rng = np.random.default_rng(5)
    u, v = 0.01 * rng.standard_normal(both.n_dofs), rng.standard_normal(both.n_dofs)
    f = both.forces(u, v)
    parts = [m.forces(u, v) for m in alone]
    scale = np.abs(f.internal).max()
    assert np.abs(f.internal - sum(p.internal for p in parts)).max() < 1e-12 * scale
    assert np.abs(f.damping - sum(p.damping for p in parts)).max() < 1e-12 * np.abs(f.damping).max()
    for name in ("stiffness", "damping_matrix"):
        mine, theirs = getattr(f, name), sum(getattr(p, name) for p in parts)
        assert abs(mine - theirs).max() < 1e-12 * abs(mine).max()
    assert both.strain_energy(u) == pytest.approx(sum(m.strain_energy(u) for m in alone), rel=1e-12)
    c_k, c_v = 0.7, 3.0e3
    K_data, C_data = both.evaluate(u, v).tangent_data()
    combined = both.evaluate(u, v).combined_tangent_data(c_k, c_v)
    expected = c_k * K_data + c_v * C_data
    assert np.abs(combined - expected).max() < 1e-12 * np.abs(expected).max()
