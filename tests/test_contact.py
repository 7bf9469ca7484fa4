"""Contact machinery: zone geometry and sign conventions, bad input, status oscillation handling,
contact outputs and impulses."""
import numpy as np
import pytest

from contact.multipliers import MultiplierContact
from contact.output import ContactRecorder, impulse
from contact.state import OPEN, SLIP, STICK
from contact.zone import ContactError, RigidPlane, contact_zone, node_zone
from fem.time.dynamics import (ConvergenceError, MultiplierLinearization, NewtonSettings, Phase, State, Subdivision,
                          integrate)
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import CellBlock, Mesh
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.io.recorder import RunRecorder
from fem.model.sparsity import SparseRows
from fem.io.results import read_history, read_series
from meshes.generate import reference_mesh_path

from helpers import GRAPHITE, grid_mesh

TABLE = dict(young=1e14, poisson=0.3, density=2500.0)


@pytest.fixture(scope="module")
def mesh():
    return read_mesh(reference_mesh_path("sdnv105_quad4"))


def test_gap_normal_and_rows_on_the_reference_mesh(mesh):
    zone = contact_zone(mesh, "CONHAUT", "CONBAS")
    n_dofs = 2 * mesh.n_nodes
    geo = zone.geometry(mesh.points, np.zeros(n_dofs))
    np.testing.assert_allclose(geo.gap, 0.0, atol=1e-15)
    np.testing.assert_allclose(geo.normal, [[0.0, 1.0]] * 5)  # table top normal points up, to the block
    # lift the block by 1 mm and shift it 2 mm right: gap +1 mm, slip +2 mm along the master tangent
    u = np.zeros(n_dofs)
    block = mesh.nodes("BLOCK")
    u[2 * block] = 2e-3
    u[2 * block + 1] = 1e-3
    geo = zone.geometry(mesh.points, u)
    np.testing.assert_allclose(geo.gap, 1e-3, rtol=1e-12)
    ds = geo.tangent_rows(n_dofs) @ u
    np.testing.assert_allclose(ds * geo.tangent[:, 0], 2e-3, rtol=1e-12)
    # the rows are the derivatives: dg = Gn du exactly for a flat master
    np.testing.assert_allclose(geo.normal_rows(n_dofs) @ u, geo.gap, rtol=1e-12)
    # pushing the table down opens the gap too (master nodes enter with -(1-xi), -xi)
    u2 = np.zeros(n_dofs)
    u2[2 * mesh.nodes("GROUN") + 1] = -5e-4
    np.testing.assert_allclose(zone.geometry(mesh.points, u2).gap, 5e-4, rtol=1e-12)


def test_rigid_plane_and_node_zone(mesh):
    zone = node_zone(mesh, "A", RigidPlane((0.0, -0.01), (0.0, 2.0)), clearance=0.5e-3)
    geo = zone.geometry(mesh.points, np.zeros(2 * mesh.n_nodes))
    assert geo.gap[0] == pytest.approx(0.0105)
    np.testing.assert_allclose(geo.normal[0], [0.0, 1.0])  # normalised


def test_slave_group_not_on_the_boundary(mesh):
    with pytest.raises(ContactError, match="'C1O1' is not on the boundary of a body"):
        contact_zone(mesh, "C1O1", "CONBAS")


def test_master_normal_pointing_into_the_slave_body(mesh):
    flipped = dict(mesh.cell_groups)
    conbas = mesh.cells("CONBAS")
    flipped["CONBAS"] = CellBlock(conbas.cell_type, conbas.connectivity[:, ::-1].copy())
    bad = Mesh(mesh.points, flipped, mesh.node_groups)
    with pytest.raises(ContactError, match="master normal of 'CONBAS' points into the slave body"):
        contact_zone(bad, "CONHAUT", "CONBAS")
    with pytest.raises(ContactError, match="points into the slave body"):
        contact_zone(mesh, "CONHAUT", RigidPlane((0.0, 0.0), (0.0, -1.0)))


def test_negative_friction_and_unknown_method(mesh):
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE), "GROUN": ElasticMaterial(**TABLE)})
    zone = contact_zone(mesh, "CONHAUT", "CONBAS")
    with pytest.raises(ContactError, match="friction coefficient must be >= 0"):
        MultiplierContact(model, zone, friction=-0.1)
    with pytest.raises(ContactError, match="unknown contact method 'penalised'"):
        MultiplierContact(model, zone, method="penalised")
    with pytest.raises(ValueError, match="friction coefficient must be >= 0"):
        Phase("release", 0.0, 0.1, 0.01, friction=-0.9)


def test_contact_statuses_carry_over_and_friction_switches_per_phase(mesh):
    """Self-weight frictionless (slip status), then mu = 0.9 from the next phase: the closed nodes
    stay closed and become sticking; Sigma RN = M g throughout."""
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE), "GROUN": ElasticMaterial(**TABLE)})
    contact = MultiplierContact(model, contact_zone(mesh, "CONHAUT", "CONBAS"), friction=0.9)
    supports = (ImposedDisplacement("CTGROUND", "y"), ImposedDisplacement("S1", "x"), ImposedDisplacement("O1", "x"))
    newton = NewtonSettings(rela=1e-8)
    p1 = Phase("settle", 0.0, 0.01, 0.01, Newmark_static(), gravity=Gravity(), constraints=supports,
               friction=0.0, newton=newton)
    *_, last = integrate(model, p1, State.at_rest(model.n_dofs), [contact])
    assert np.all(contact.state().status == SLIP)
    p2 = Phase("hold", 0.01, 0.02, 0.01, Newmark_static(), gravity=Gravity(), constraints=supports, newton=newton)
    *_, last = integrate(model, p2, last.state, [contact])
    state = contact.state()
    assert np.all(state.status == STICK)
    weight = 1450.0 * 9.81 * 0.36 * 0.80
    assert state.rn.sum() == pytest.approx(weight, rel=1e-8)
    assert np.abs(state.rt).max() < 1e-6 * weight


def Newmark_static():
    from fem.stage.schemes import Static

    return Static()


class _Flipper:
    """A one-node multiplier term whose status flips at every Newton iteration after t_bad: a
    deterministic stand-in for a contact that cannot decide."""

    def __init__(self, n_dofs, node, t_bad):
        self.nodes = np.array([node])
        self.n_dofs, self.node, self.t_bad = n_dofs, node, t_bad
        self.t = 0.0

    class Trial:
        def __init__(self):
            self.lam = np.zeros(1)
            self.status = np.array([OPEN])
            self.changes = np.zeros(1, dtype=int)

    def set_phase(self, phase, u):
        pass

    def begin_step(self, u0):
        return self.Trial()

    def update(self, trial, u, v):
        if self.t < self.t_bad:
            return np.zeros(0, dtype=int)
        trial.status = np.array([STICK if trial.status[0] == OPEN else OPEN])
        trial.changes += 1
        return np.array([0])

    def linearize(self, trial, u, v):
        rows = SparseRows(np.zeros((1, 1), dtype=int), np.zeros((1, 1)), self.n_dofs)
        return MultiplierLinearization(rows, trial.lam.copy(), rows, np.ones((1, 1, 1)))

    def iterate(self, trial, u, v, update):  # a multiplier term written in Python (fem.stage.phase.MultiplierTerm)
        changed = self.update(trial, u, v) if update else np.zeros(0, dtype=int)
        lin = self.linearize(trial, u, v)
        return lin, changed, -lin.force_rows.transpose_times(trial.lam)

    def commit(self, trial, u, v, t):
        self.t = t


def test_oscillating_statuses_are_subdivided_then_reported(tmp_path):
    mesh = grid_mesh(2, 2)
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)})
    flipper = _Flipper(model.n_dofs, mesh.node("A"), t_bad=0.025)
    phase = Phase("release", 0.0, 0.05, 0.01, gravity=Gravity(), constraints=(ImposedDisplacement("BASE", "y"),
                  ImposedDisplacement("O", "x")), newton=NewtonSettings(rela=1e-8), subdivision=Subdivision(4, 2))
    with RunRecorder(model, tmp_path) as rec:
        with pytest.raises(ConvergenceError) as err:
            for result in integrate(model, phase, State.at_rest(model.n_dofs), [flipper]):
                rec.record(result)
    msg = str(err.value)
    node = mesh.node("A")
    assert f"contact statuses oscillated at nodes [{node}]" in msg
    # the step 0.03 -> 0.04 (the first one starting after t_bad) fails, is cut twice (dt/16), and
    # is reported with its time and size
    assert "dt = 0.000625 s" in msg and "t = 0.030625 s" in msg
    # every step before the failure is on disk
    h = read_history(tmp_path / "history.csv")
    np.testing.assert_allclose(h["t"], [0.0, 0.01, 0.02, 0.03])
    assert len(read_series(tmp_path / "solution.xdmf")) == 4


def test_impulse_of_known_pulses():
    t = np.linspace(0.0, 1.0, 101)
    assert impulse(t, np.full_like(t, 3.0), 0.2, 0.5) == pytest.approx(0.9, rel=1e-12)
    # half-sine pulse of amplitude F over duration T: 2 F T / pi; window cutting between samples
    T, F = 0.3, 1e4
    tt = np.linspace(0.0, 0.5, 5001)
    f = np.where(tt < T, F * np.sin(np.pi * tt / T), 0.0)
    assert impulse(tt, f, 0.0, 0.4) == pytest.approx(2 * F * T / np.pi, rel=1e-5)
    assert impulse(tt, f, 0.00005, 0.15) == pytest.approx(F * T / np.pi, rel=1e-3)
    with pytest.raises(ValueError, match="t_end > t_start"):
        impulse(t, t, 0.5, 0.5)


def test_contact_recorder_writes_history_and_point_series(mesh, tmp_path):
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE), "GROUN": ElasticMaterial(**TABLE)})
    contact = MultiplierContact(model, contact_zone(mesh, "CONHAUT", "CONBAS"), friction=0.9)
    phase = Phase("settle", 0.0, 0.02, 0.01, Newmark_static(), gravity=Gravity(),
                  constraints=(ImposedDisplacement("CTGROUND", "y"), ImposedDisplacement("S1", "x"),
                               ImposedDisplacement("O1", "x")), newton=NewtonSettings(rela=1e-8))
    results = integrate(model, phase, State.at_rest(model.n_dofs), [contact])
    first = next(results)
    with ContactRecorder(mesh, {"base": contact}, tmp_path, nodes=("O", "A")) as rec:
        rec.record(first.state.t, first.state.u)
        for r in results:
            rec.record(r.state.t, r.state.u, r.archived)
    with pytest.raises(ValueError, match="'C1' is not a contact node"):
        ContactRecorder(mesh, {"base": contact}, tmp_path / "x", nodes=("C1",))
    h = read_history(tmp_path / "contact_history.csv")
    assert h["t"].tolist() == pytest.approx([0.0, 0.01, 0.02])
    assert h["status_O"][-1] == STICK and h["rn_O"][-1] > 0
    np.testing.assert_allclose(h["ry_O"][-1], h["rn_O"][-1])  # flat table: RY = RN
    steps = read_series(tmp_path / "contact.xdmf")
    assert len(steps) == 3
    import meshio

    pts = steps[-1][1]
    assert pts.points.shape == (5, 3)
    assert pts.point_data["rn"].sum() == pytest.approx(1450.0 * 9.81 * 0.288, rel=1e-8)


def test_augmented_keeps_a_touching_body_supported(mesh):
    """A block laid on the table at zero gap, frictionless, static: with the augmented rule the
    initially closed nodes (CONTACT_INIT) stay closed at zero force and the first solve finds
    Sigma RN = M g, as with Lagrange."""
    from fem.stage.schemes import Static

    for method in ("lagrange", "augmented"):
        model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE), "GROUN": ElasticMaterial(**TABLE)})
        contact = MultiplierContact(model, contact_zone(mesh, "CONHAUT", "CONBAS"), friction=0.0, method=method)
        phase = Phase("settle", 0.0, 1.0, 1.0, Static(), gravity=Gravity(),
                      constraints=(ImposedDisplacement("CTGROUND", "y"), ImposedDisplacement("S1", "x"),
                                   ImposedDisplacement("O1", "x")), newton=NewtonSettings(rela=1e-8))
        *_, last = integrate(model, phase, State.at_rest(model.n_dofs), [contact])
        assert last.substeps == 1
        assert contact.state().rn.sum() == pytest.approx(1450.0 * 9.81 * 0.288, rel=1e-8)
