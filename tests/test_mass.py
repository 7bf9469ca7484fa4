"""Mass redistribution (fem.model.mass): the invariants of every body, the quasi-static massless dofs in
the integrators, and the release rule that keeps contact from creating energy.

Invariants. M_r = P^T M P with P exact on affine fields keeps v^T M v for every affine velocity
field, hence each body's total mass, centre of mass and second moments of mass (the rotational
inertia about the centre of mass among them). They are compared with the consistent mass's, which
integrates the continuum's exactly for these elements (QUA4 2x2 Gauss, TRIA6 6-point rule: the
integrands are polynomials of degree <= 4 in the reference coordinates on affine cells), to 1e-12
relative: only round-off separates them (sums of a few hundred products of O(1) numbers).

Books. With a redistributed mass the energy books close as with any other mass
(BALANCE_TOLERANCE of test_energy_balance, the same scene): the massless dofs' equations are
static, they enter neither the kinetic energy nor the scheme's identity. With Newmark's trapezoidal
rule the contact's work over a step is 1/2 (R_n g_{n+1} - R_{n+1} g_n) (contact.multipliers): the
"located" release (opening at the instant the reaction vanishes) makes it <= 0 at every step (no step gives energy back), the "immediate" one
gives energy back at the openings of this bouncing block.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from contact.multipliers import MultiplierContact
from contact.penalty import ShockLaw, ShockSprings
from contact.zone import RigidPlane, node_zone
from fem.time.dynamics import NewtonSettings, Phase, State, energy_report, integrate
from fem.time.explicit import central_differences
from fem.loads.applied import Gravity
from fem.model.mass import inertia_invariants, mass_transfer
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import Mesh, MeshError
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.stage.schemes import HHT, Newmark, Theta
from helpers import grid_mesh
from meshes.generate import reference_mesh_path

INVARIANT_TOLERANCE = 1e-12
BALANCE_TOLERANCE = 1e-9  # as tests/test_energy_balance.py
G = 9.81
MATERIAL = ElasticMaterial(young=1e8, poisson=0.2, density=1450.0)


def _meshes():
    """(name, mesh, body region, massless groups): the SDNV105 reference QUA4 mesh (block on its
    table: the block's base massless), b's TRIA6 block (quadratic: mid-side base nodes massless
    too), a distorted 8 x 16 QUA4 block, a TRIA3 grid, and the 1-element-wide bar strip."""
    out = [("sdnv105_quad4", read_mesh(reference_mesh_path("sdnv105_quad4")), "BLOCK", ("CONHAUT",)),
           ("sdnv105_block_tri6", read_mesh(reference_mesh_path("sdnv105_block_tri6")), "BLOCK", ("CONHAUT",)),
           ("quad 8x16 distorted", grid_mesh(8, 16, distort=0.2, seed=3), "BLOCK", ("BASE",)),
           ("tria3 4x4", grid_mesh(4, 4, element="triangle"), "BLOCK", ("BASE", "LEFT")),
           ("bar strip 20x1", grid_mesh(20, 1, width=1.0, height=0.05), "BLOCK", ("LEFT",))]
    return out


@pytest.mark.parametrize("name, mesh, region, massless", _meshes(), ids=[m[0] for m in _meshes()])
def test_redistribution_keeps_mass_centre_and_inertia_of_each_body(name, mesh, region, massless):
    regions = {g: MATERIAL for g in mesh.cell_groups if mesh.cell_groups[g].dim == 2}
    consistent = Model(mesh, regions)
    redistributed = Model(mesh, regions, mass="redistributed", massless=massless)
    body = np.unique(mesh.cells(region).connectivity)
    dofs = np.concatenate([2 * body, 2 * body + 1])
    ref = inertia_invariants(consistent.mass, mesh.points, dofs)
    got = inertia_invariants(redistributed.mass, mesh.points, dofs)
    R = np.sqrt(ref["inertia"] / ref["mass"])  # radius of gyration: the length scale of the body
    assert got["mass"] == pytest.approx(ref["mass"], rel=INVARIANT_TOLERANCE)
    assert got["mass_y"] == pytest.approx(ref["mass"], rel=INVARIANT_TOLERANCE)
    assert abs(got["x"] - ref["x"]) <= INVARIANT_TOLERANCE * R
    assert abs(got["y"] - ref["y"]) <= INVARIANT_TOLERANCE * R
    assert got["inertia"] == pytest.approx(ref["inertia"], rel=INVARIANT_TOLERANCE)
    # every second moment, not only the polar one: x^T M x, y^T M y, x^T M y of the x dofs
    x, y = np.zeros(consistent.n_dofs), np.zeros(consistent.n_dofs)
    x[2 * body], y[2 * body] = mesh.points[body, 0] - ref["x"], mesh.points[body, 1] - ref["y"]
    for a, b in ((x, x), (y, y), (x, y)):
        assert a @ (redistributed.mass @ b) == pytest.approx(a @ (consistent.mass @ b), rel=1e-11, abs=1e-12 * ref["inertia"])
    # the contact nodes carry no mass at all; the rest is symmetric positive definite
    Mr = redistributed.mass
    quiet = redistributed.massless_dofs
    assert quiet.size == 2 * np.unique(np.concatenate([mesh.nodes(g) for g in massless])).size
    assert abs(Mr[quiet]).sum() == 0 and abs(Mr[:, quiet]).sum() == 0
    assert abs(Mr - Mr.T).max() <= 1e-14 * abs(Mr).max()
    massive = np.setdiff1d(np.arange(Mr.shape[0]), quiet)
    massive = np.intersect1d(massive, dofs)
    assert np.linalg.eigvalsh(Mr[massive][:, massive].toarray()).min() > 0
    # the regions' kinetic energies add up to the model's, for any velocity
    v = np.random.default_rng(0).normal(size=Mr.shape[0])
    assert sum(redistributed.kinetic_energy(v, g) for g in regions) == pytest.approx(
        redistributed.kinetic_energy(v), rel=1e-12)


def test_a_redistributed_body_in_free_fall_keeps_its_centre_of_mass_on_the_parabola():
    """Gravity stays the continuum's body force (fem.model.mass): total m g on the unchanged total mass,
    so the centre of mass falls at exactly g; the massless base hangs on its elements, a sag of
    order rho g h^2 / E = 3e-7 m here (E = 1e8 Pa, h = 0.2 m), tiny beside the 2 mm fall."""
    mesh = grid_mesh(3, 4)
    model = Model(mesh, {"BLOCK": MATERIAL}, mass="redistributed", massless=("BASE",))
    consistent = Model(mesh, {"BLOCK": MATERIAL})
    f = model.gravity_force((0.0, -G))
    np.testing.assert_array_equal(f, consistent.gravity_force((0.0, -G)))
    phase = Phase("fall", 0.0, 0.02, 1e-3, Newmark(), gravity=Gravity((0.0, -G)),
                  newton=NewtonSettings(rela=1e-12))
    state = list(integrate(model, phase, State.at_rest(model.n_dofs)))[-1].state
    fall = -0.5 * G * 0.02 ** 2
    # centre of mass: sum over the massive dofs of (M_r u)_y / m  (M_r reproduces the consistent
    # mass's first moments, tests above); the trapezoidal rule integrates a constant force exactly
    ones_y = np.zeros(model.n_dofs)
    ones_y[1::2] = 1.0
    m = ones_y @ (model.mass @ ones_y)
    assert (ones_y @ (model.mass @ state.u)) / m == pytest.approx(fall, rel=1e-9)
    assert (ones_y @ (model.mass @ state.v)) / m == pytest.approx(-G * 0.02, rel=1e-9)
    sag = MATERIAL.density * G * 0.2 ** 2 / MATERIAL.young
    assert np.abs(state.u[1::2] - fall).max() < 10 * sag
    # the massless dofs' velocity is the step's mean, [u]/dt: first order, by design
    quiet_y = model.massless_dofs[1::2]
    assert np.abs(state.v[quiet_y] + G * (0.02 - 0.5e-3)).max() < 10 * sag / 1e-3


def test_a_massless_node_without_a_spanning_stencil_is_refused_with_its_coordinates():
    mesh = grid_mesh(2, 1)  # one row of cells: with BASE and TOP massless nothing is left above
    mesh.node_groups["ALL"] = np.arange(mesh.n_nodes)
    with pytest.raises(MeshError, match=r"massless node \d+ at \("):
        Model(mesh, {"BLOCK": MATERIAL}, mass="redistributed", massless=("ALL",))
    with pytest.raises(ValueError, match="massless"):
        Model(mesh, {"BLOCK": MATERIAL}, mass="redistributed")


def test_schemes_that_need_a_mass_on_every_dof_refuse_a_redistributed_one():
    mesh = grid_mesh(2, 2)
    model = Model(mesh, {"BLOCK": MATERIAL}, mass="redistributed", massless=("BASE",))
    state = State.at_rest(model.n_dofs)
    with pytest.raises(ValueError, match="theta-method needs a mass"):
        list(integrate(model, Phase("p", 0.0, 1e-3, 1e-4, Theta(0.5)), state))
    with pytest.raises(ValueError, match="central differences need a mass"):
        list(central_differences(model, Phase("p", 0.0, 1e-3, 1e-4, Newmark()), state))


# ----------------------------------------------------------------------------- books and release
DROP, PUSH, MU, DT, T_END = 1e-3, 0.5, 0.3, 2e-4, 0.025  # test_energy_balance's throw


def throw(scheme, method: str, release: str = "immediate"):
    """test_energy_balance's scene (a damped elastic block thrown onto a rigid plane with friction)
    with the block's base nodes massless: the books, step by step."""
    mesh = grid_mesh(2, 2, width=0.36, height=0.8, y0=DROP)
    material = ElasticMaterial(young=1e8, poisson=0.2, density=1450.0, rayleigh_stiffness=2e-4, rayleigh_mass=3.0)
    model = Model(mesh, {"BLOCK": material}, kinematics="small_strain", mass="redistributed", massless=("BASE",))
    zone = node_zone(mesh, "BASE", RigidPlane((0.0, 0.0), (0.0, 1.0)))
    if method == "penalty":
        term = ShockSprings(model, zone, ShockLaw(normal_stiffness=1e8, tangential_stiffness=1e8, friction=MU))
    else:
        term = MultiplierContact(model, zone, friction=MU, method=method, release=release)
    v0 = np.zeros(model.n_dofs)
    v0[0::2] = PUSH
    phase = Phase("throw", 0.0, T_END, DT, scheme, gravity=Gravity((0.0, -G)),
                  newton=NewtonSettings(rela=1e-10, max_iterations=40))
    gravity = model.gravity_force((0.0, -G))
    reports = [energy_report(model, r.state, gravity)
               for r in integrate(model, phase, State(t=0.0, u=np.zeros(model.n_dofs), v=v0), [term])]
    return {k: np.array([r[k] for r in reports]) for k in reports[0]}


def _scale(books) -> float:
    keys = ("kinetic", "strain", "external_work", "damping_dissipation", "contact_work", "friction_work")
    return max(float(np.abs(books[k]).max()) for k in keys)


@pytest.mark.parametrize("scheme, method, release", [
    (Newmark(), "lagrange", "immediate"), (Newmark(), "lagrange", "located"), (Newmark(), "augmented", "located"),
    (Newmark(), "penalty", None), (HHT(-0.1, modified_equilibrium=True), "lagrange", "located"),
    (HHT(-0.1, modified_equilibrium=False), "augmented", "immediate")])
def test_books_close_with_a_redistributed_mass(scheme, method, release):
    books = throw(scheme, method, release)
    E = _scale(books)
    assert books["friction_work"][-1] > 1e-2 * E and np.abs(books["contact_work"]).max() > 1e-5 * E
    assert np.abs(books["balance_error"]).max() < BALANCE_TOLERANCE * E, (
        f"balance error {np.abs(books['balance_error']).max():.3e} J of {E:.3e} J")


@pytest.mark.parametrize("method", ["lagrange", "augmented"])
def test_located_release_never_gives_energy_back_at_a_step_immediate_does(method):
    tol = BALANCE_TOLERANCE * 10.0  # [J] of ~0.01 J terms: the Newton residual's share of a step
    located = throw(Newmark(), method, "located")
    E = _scale(located)
    assert np.diff(located["contact_work"]).min() > -tol * E
    assert np.diff(located["friction_work"]).min() > -tol * E
    immediate = throw(Newmark(), method, "immediate")
    # this block bounces on its base nodes: some opening gives energy back with Code_Aster's rule
    assert np.diff(immediate["contact_work"]).min() < -1e3 * tol * E
