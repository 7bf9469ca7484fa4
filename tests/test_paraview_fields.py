"""The ParaView output read back with meshio and compared, at every archived step, with the model's own
state and with quantities computed here independently of the library.

The run is small and fast (< 1 s): a soft 1 m x 1 m block (2 x 2 QUA4) on a rigid plane y = 0 (Lagrange
contact, Coulomb mu = 0.3, three base nodes) under gravity, its top edge driven by imposed displacements
(a rotation of 60 degrees about the top centre with a push down, then a lift), Newmark average
acceleration, 20 steps, every step archived. The block is written as the case scripts write it
(``fem.io.recorder.RunRecorder``: ``solution.xdmf``; ``contact.output.ContactRecorder``: ``contact.xdmf``),
driven directly through ``fem.time.dynamics.integrate``. The large rotation and stretch make the Cauchy
stress differ from the second Piola-Kirchhoff stress by far more than the tolerances below, the
contact goes through open, sticking and slipping states, and the imposed top carries large reactions.

Independent computations (written here, not taken from the library):

* Cauchy stress sigma = F S F^T / det F, with F = I + grad u from the *written* displacement at the
  2 x 2 Gauss points of each QUA4 (where fem.model.assembly.Model.cell_stresses evaluates it), S from the
  plane-stress Saint-Venant-Kirchhoff law of fem/model/material.py, S = E/(1 - nu^2) ((1 - nu) E + nu tr(E) I),
  averaged over the cell with the Gauss weights times det J (reference volume);
* Newmark average-acceleration kinematics between consecutive written steps (velocity and acceleration
  are the rates of the written displacement);
* the momentum balance of the whole block: sum of nodal (row-sum) masses times accelerations = support
  reactions + contact forces + weight;
* the contact geometry of the rigid plane (gap = current height of the node) and Signorini-Coulomb.
"""
from __future__ import annotations


import meshio
import numpy as np
import pytest

from contact.multipliers import MultiplierContact
from contact.output import ContactRecorder
from contact.state import OPEN, SLIP
from contact.zone import RigidPlane, node_zone
from fem.time.dynamics import NewtonSettings, Phase, State, integrate
from fem.loads.functions import PiecewiseLinear
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.model.assembly import Model
from fem.io.recorder import RunRecorder
from fem.io.results import read_series
from fem.stage.schemes import Newmark

from helpers import grid_mesh  # noqa: E402

YOUNG, POISSON, RHO = 2.0e5, 0.3, 1000.0  # Pa, -, kg/m^3: soft, so that the deformation is large
MU = 0.3
G = 9.81
T_END, N_STEPS = 0.3, 20
DT = T_END / N_STEPS
RELA = 1e-9  # Newton RESI_GLOB_RELA of the run


def _top_motion(X: np.ndarray, s: float) -> np.ndarray:
    """Displacement of a top node (reference position X) at the fraction s of the run: a rotation of
    60 degrees about the top centre, a drift of 0.2 m to the right, pushed 0.1 m down over the first
    half and lifted by 0.4 m over the second."""
    theta = np.radians(60.0) * s
    R = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    c = np.array([0.5, 1.0])
    shift = np.array([0.2 * s, -0.1 * min(2 * s, 1.0) + 0.4 * max(0.0, 2 * s - 1.0)])
    return c + R @ (X - c) + shift - X


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("paraview_fields")
    mesh = grid_mesh(2, 2, width=1.0, height=1.0)
    top = mesh.nodes("TOP")
    samples = np.linspace(0.0, T_END, 21)
    constraints = []
    for k, node in enumerate(top):
        mesh.node_groups[f"T{k}"] = np.array([node])
        path = np.array([_top_motion(mesh.points[node], t / T_END) for t in samples])
        for j, comp in enumerate("xy"):
            constraints.append(ImposedDisplacement(f"T{k}", comp, 1.0,
                                                   PiecewiseLinear(tuple(samples), tuple(path[:, j]))))
    model = Model(mesh, {"BLOCK": ElasticMaterial(YOUNG, POISSON, RHO)})
    contact = MultiplierContact(model, node_zone(mesh, "BASE", RigidPlane((0.0, 0.0), (0.0, 1.0))),
                                friction=MU, method="lagrange")
    phase = Phase("drive", 0.0, T_END, DT, Newmark(), gravity=Gravity((0.0, -G)), constraints=tuple(constraints),
                  friction=MU, newton=NewtonSettings(rela=RELA, max_iterations=30))
    states, contact_states = [], []
    with RunRecorder(model, out) as rec, ContactRecorder(mesh, {"base": contact}, out, history=False) as series:
        for result in integrate(model, phase, State.at_rest(model.n_dofs), [contact]):
            rec.record(result)
            if result.archived:
                series.record(result.state.t, result.state.u)
                s = result.state
                states.append({"t": s.t, "u": s.u.copy(), "v": s.v.copy(), "a": s.a.copy(),
                               "reactions": s.reactions.copy()})
                c = contact.state()
                contact_states.append({k: np.array(getattr(c, k), copy=True)
                                       for k in ("nodes", "status", "gap", "rn", "rt", "slip", "force")})
    solution = [m for _, m in read_series(out / "solution.xdmf")]
    contact_files = [m for _, m in read_series(out / "contact.xdmf")]
    return {"out": out, "mesh": mesh, "states": states, "contact": contact_states, "solution": solution,
            "contact_files": contact_files, "top": top}


def _vec(field: np.ndarray) -> np.ndarray:
    """A written 3-vector point field -> (n, 2), after checking its z component is exactly 0."""
    assert field.shape[1] == 3 and np.all(field[:, 2] == 0.0)
    return field[:, :2]


def test_series_lists_every_archived_step_at_its_physical_time(run):
    times = [s["t"] for s in run["states"]]
    assert len(times) == N_STEPS + 1  # the initial state and every step (archive_every = 1)
    for name in ("solution", "contact"):
        steps = read_series(run["out"] / f"{name}.xdmf")
        assert [t for t, _ in steps] == times  # exact: the .xdmf holds repr(t)
        assert all(m.points.shape[1] == 3 for _, m in steps)


def test_displacement_velocity_acceleration_and_reactions_are_the_state(run):
    """Every written nodal field equals the integrator's state of that step, bit for bit (binary
    float64 in the .h5), at all 21 steps; the reference coordinates are the mesh's."""
    n = run["mesh"].n_nodes
    for m, s in zip(run["solution"], run["states"]):
        np.testing.assert_array_equal(_vec(m.points), run["mesh"].points)
        for name, key in (("displacement", "u"), ("velocity", "v"), ("acceleration", "a"),
                          ("reaction", "reactions")):
            np.testing.assert_array_equal(_vec(m.point_data[name]), s[key].reshape(n, 2), err_msg=name)


def test_velocity_and_acceleration_are_the_newmark_rates_of_the_displacement(run):
    """Average acceleration (beta = 1/4, gamma = 1/2) gives exactly u1 - u0 = dt (v0 + v1) / 2 and
    v1 - v0 = dt (a0 + a1) / 2 at every dof (imposed ones too). Tolerance: 1e-10 of the largest
    increment, round-off of a few additions (the fields differ by O(1) if one is written for another)."""
    fields = [{k: _vec(m.point_data[k]) for k in ("displacement", "velocity", "acceleration")}
              for m in run["solution"]]
    moving = 0
    for f0, f1 in zip(fields, fields[1:]):
        du = f1["displacement"] - f0["displacement"]
        dv = f1["velocity"] - f0["velocity"]
        np.testing.assert_allclose(du, 0.5 * DT * (f0["velocity"] + f1["velocity"]), rtol=0,
                                   atol=1e-10 * np.abs(du).max())
        np.testing.assert_allclose(dv, 0.5 * DT * (f0["acceleration"] + f1["acceleration"]), rtol=0,
                                   atol=1e-10 * np.abs(dv).max())
        moving += np.abs(du).max() > 1e-3
    assert moving >= 10  # the premise: the block moves by millimetres or more in most steps


def _nodal_masses(points: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Row sums of the consistent mass [kg]: int rho N_a dV = rho A / 4 per node of a parallelogram
    (the grid's cells are rectangles), thickness 1 m."""
    m = np.zeros(len(points))
    for cell in quads:
        x, y = points[cell, 0], points[cell, 1]
        area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        m[cell] += RHO * area / 4
    return m


def test_reactions_and_contact_forces_balance_the_momentum(run):
    """Whole block, every step: sum_j m_j a_j = sum of the written reactions + the contact forces of
    contact.pvd + the weight (internal forces cancel in the sum). The contact force of a rigid plane
    y = 0 on a node is (-RT, RN) (normal (0, 1), tangent (-1, 0)). Tolerance: 1e-7 of the sum of the
    magnitudes of the terms: Newton stops at a residual of 1e-9 (RELA) of the largest force in play
    (internal forces included, at most about twice that sum) on each of the 12 free dofs, i.e. at
    most 2.4e-8 of it in the sum (measured: below 2e-11). Reactions only act on the imposed (top)
    nodes."""
    mesh = run["mesh"]
    quads = run["solution"][0].cells_dict["quad"]
    masses = _nodal_masses(mesh.points, quads)
    weight = np.array([0.0, -G * masses.sum()])
    assert masses.sum() == pytest.approx(RHO * 1.0 * 1.0, rel=1e-14)
    free = np.setdiff1d(np.arange(mesh.n_nodes), run["top"])
    largest = 0.0
    for m, c in zip(run["solution"], run["contact_files"]):
        a = _vec(m.point_data["acceleration"])
        r = _vec(m.point_data["reaction"])
        assert np.all(r[free] == 0.0)
        contact = np.column_stack([-c.point_data["rt"], c.point_data["rn"]])
        inertia = masses @ a
        forces = r.sum(axis=0) + contact.sum(axis=0) + weight
        scale = (np.abs(masses[:, None] * a).sum() + np.abs(r).sum() + np.abs(contact).sum()
                 + np.abs(weight).sum())
        np.testing.assert_allclose(inertia, forces, rtol=0, atol=1e-7 * scale)
        largest = max(largest, float(np.abs(r.sum(axis=0)).max() / scale))
    # the premise: the support reactions are a sizeable part of the balance (measured: about 10 % of
    # the scale at every step), so that a reaction written with the wrong sign breaks it by far more
    # than the tolerance
    assert largest > 0.05


QUAD_CORNERS = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])  # VTK / gmsh order
GAUSS_2x2 = QUAD_CORNERS / np.sqrt(3.0)  # 2 x 2 Gauss points, weights 1


def _shape_grad(xi: float, eta: float) -> np.ndarray:
    """dN_a/d(xi, eta) of the bilinear quadrilateral, (4, 2)."""
    sx, sy = QUAD_CORNERS[:, 0], QUAD_CORNERS[:, 1]
    return 0.25 * np.column_stack([sx * (1 + eta * sy), sy * (1 + xi * sx)])


def _cell_stresses(points: np.ndarray, quads: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cell averages of (PK2, Cauchy) in Voigt (xx, yy, xy) from the displacement u (n, 2)."""
    c = YOUNG / (1.0 - POISSON**2)
    pk2, cauchy = [], []
    for cell in quads:
        X, U = points[cell], u[cell]
        S_sum, sig_sum, w_sum = np.zeros((2, 2)), np.zeros((2, 2)), 0.0
        for xi, eta in GAUSS_2x2:
            dN = _shape_grad(xi, eta)
            J = X.T @ dN  # dX_i / dxi_j
            grad = dN @ np.linalg.inv(J)  # dN_a / dX_J
            F = np.eye(2) + U.T @ grad
            E = 0.5 * (F.T @ F - np.eye(2))
            S = c * ((1.0 - POISSON) * E + POISSON * np.trace(E) * np.eye(2))
            sig = F @ S @ F.T / np.linalg.det(F)
            w = np.linalg.det(J)  # Gauss weight 1 times det J: reference volume
            S_sum += w * S
            sig_sum += w * sig
            w_sum += w
        for T, out in ((S_sum / w_sum, pk2), (sig_sum / w_sum, cauchy)):
            out.append([T[0, 0], T[1, 1], 0.5 * (T[0, 1] + T[1, 0])])
    return np.array(pk2), np.array(cauchy)


def test_stress_cauchy_is_f_s_ft_over_det_f_of_the_written_displacement(run):
    """stress_cauchy (and stress_pk2) at every step against the stresses computed here from the
    written displacement. Tolerance 1e-10 of the largest stress of the step: round-off of a few
    dozen products (the fields are float64 in the file). At the last steps (rotation near 60
    degrees, stretch) Cauchy and PK2 differ by more than 30 % of the largest stress."""
    points = run["mesh"].points
    differs = []
    for m in run["solution"]:
        quads = m.cells_dict["quad"]
        u = _vec(m.point_data["displacement"])
        pk2, cauchy = _cell_stresses(points, quads, u)
        scale = max(np.abs(cauchy).max(), np.abs(pk2).max(), 1.0)
        np.testing.assert_allclose(m.cell_data_dict["stress_cauchy"]["quad"], cauchy, rtol=0, atol=1e-10 * scale)
        np.testing.assert_allclose(m.cell_data_dict["stress_pk2"]["quad"], pk2, rtol=0, atol=1e-10 * scale)
        differs.append(np.abs(cauchy - pk2).max() / scale)
    assert max(differs[-5:]) > 0.3  # the premise: Cauchy is not PK2 here, by far more than 1e-10


def test_contact_series_is_the_contact_state(run):
    """contact.pvd at every step: the contact nodes at their current position X + u (u from
    solution.pvd of the same step), and status, gap, rn, rt, slip, the force (rx, ry) equal to the
    contact term's state() after that step (exact: binary float64)."""
    points = run["mesh"].points
    for m, c, st in zip(run["solution"], run["contact_files"], run["contact"]):
        u = _vec(m.point_data["displacement"])
        np.testing.assert_array_equal(_vec(c.points), points[st["nodes"]] + u[st["nodes"]])
        np.testing.assert_array_equal(c.point_data["status"], st["status"])
        for name in ("gap", "rn", "rt", "slip"):
            np.testing.assert_array_equal(c.point_data[name], st[name], err_msg=name)
        np.testing.assert_array_equal(c.point_data["rx"], st["force"][:, 0])
        np.testing.assert_array_equal(c.point_data["ry"], st["force"][:, 1])
        np.testing.assert_array_equal(_vec(c.point_data["force"]), st["force"])


def test_contact_series_obeys_the_plane_geometry_and_signorini_coulomb(run):
    """From the written values alone: the gap to the plane y = 0 is the node's current height;
    a closed node (status 1 stick, 2 slip) touches (|gap| <= 1e-9 m: Lagrange enforces g = 0 to
    the Newton tolerance, here far below a micrometre) and pushes (RN >= 0), an open one carries
    no force; |RT| <= mu RN, with equality when slipping (1e-9 relative: round-off of the slip
    equation). The run goes through open, sticking and slipping states with forces of kN."""
    seen = set()
    for c in run["contact_files"]:
        y = c.points[:, 1]
        status, gap, rn, rt = (c.point_data[k] for k in ("status", "gap", "rn", "rt"))
        np.testing.assert_allclose(gap, y, rtol=0, atol=1e-15)
        closed = status != OPEN
        assert np.all(np.abs(gap[closed]) <= 1e-9)
        assert np.all(rn[closed] >= 0)
        assert np.all(rn[~closed] == 0) and np.all(rt[~closed] == 0)
        assert np.all(gap[~closed] > -1e-9)
        assert np.all(np.abs(rt) <= MU * rn * (1 + 1e-9) + 1e-9)
        slip = status == SLIP
        np.testing.assert_allclose(np.abs(rt[slip]), MU * rn[slip], rtol=1e-9)
        seen |= {int(s) for s in status[rn > 1e3]} | ({0} if np.any(gap > 1e-2) else set())
    assert seen == {0, 1, 2}  # the premise: open (lifted by > 1 cm), sticking and slipping under > 1 kN
