"""Phases, time functions, release, imposed motions, Newton subdivision and its failure report."""
import numpy as np
import pytest

from fem.time.dynamics import (ConvergenceError, NewtonSettings, Phase, State, Subdivision, energy_report, integrate,
                          run_phases)
from fem.loads.functions import PiecewiseLinear, ramp
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.model.assembly import Model
from fem.stage.schemes import HHT, Newmark, Static

from helpers import GRAPHITE, grid_mesh


def test_piecewise_linear_is_constant_outside():
    # SDNV105 tilt ramp ramp_ila
    f = PiecewiseLinear((-1.95, -1.2, -1.1, -1.0, -0.8, -0.5, 0.0), (0, 0, 0.005, 0.1, 0.3, 1.0, 1.0))
    assert f(-3.0) == 0.0 and f(5.0) == 1.0
    assert f(-1.05) == pytest.approx(0.0525)
    assert f(-0.65) == pytest.approx(0.65)
    with pytest.raises(ValueError, match="strictly increasing"):
        PiecewiseLinear((0.0, 0.0), (0.0, 1.0))
    with pytest.raises(ValueError, match="as many times as values"):
        PiecewiseLinear((0.0, 1.0), (0.0,))


def test_phase_times_end_exactly():
    ph = Phase("free", 0.0025, 0.0525, 0.0025)
    t = ph.times()
    assert t.size == 20 and t[-1] == 0.0525
    ph = Phase("odd", 0.0, 1.0, 0.3)
    np.testing.assert_allclose(ph.times(), [0.3, 0.6, 0.9, 1.0])


def test_a_round_off_remainder_is_not_a_step():
    """A phase starting 2e-14 s before a window boundary reached by adding steps (16000 steps of
    3.125e-6 s) has 1600 steps of 3.125e-6 s to its end, not a 1601st of 2e-14 s; a real
    remainder (1e-3 dt) is still a step of its own."""
    dt = 3.125e-6
    ph = Phase("p", 0.0525 - 2e-14, 0.0575, dt)
    t = ph.times()
    assert t.size == 1600 and t[-1] == 0.0575
    assert np.diff(t).min() > 0.999 * dt
    assert Phase("p", 0.0525 - 1e-3 * dt, 0.0575, dt).times().size == 1601


def test_hht_parameters_and_bounds():
    s = HHT(-0.2)
    assert s.gamma == pytest.approx(0.7) and s.beta == pytest.approx(0.36) and s.alpha_f == 0.0
    assert HHT(-0.2, modified_equilibrium=True).alpha_f == -0.2
    with pytest.raises(ValueError, match=r"HHT alpha must lie in \(-1, 0\]"):
        HHT(0.1)


def _free_block(element="quad"):
    mesh = grid_mesh(2, 4, element=element)
    return mesh, Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)})


def test_release_computes_acceleration_from_equilibrium():
    """A free block released at rest under gravity: a = g at every node, and after 0.1 s of free
    fall u = g t^2 / 2 exactly (average acceleration integrates constant acceleration exactly);
    kinetic energy equals the work of gravity."""
    mesh, model = _free_block()
    phase = Phase("fall", 0.0, 0.1, 0.01, Newmark(), gravity=Gravity((0.0, -9.81)),
                  newton=NewtonSettings(rela=1e-10))
    results = list(integrate(model, phase, State.at_rest(model.n_dofs)))
    first, last = results[0].state, results[-1].state
    np.testing.assert_allclose(first.a[1::2], -9.81, rtol=1e-12)
    np.testing.assert_allclose(first.a[0::2], 0.0, atol=1e-12)
    np.testing.assert_allclose(last.u[1::2], -0.5 * 9.81 * 0.1**2, rtol=1e-10)
    e = energy_report(model, last)
    assert e["kinetic"] == pytest.approx(e["external_work"], rel=1e-10)
    assert abs(e["balance_error"]) < 1e-10 * e["kinetic"]


def test_chained_phases_and_release_keep_displacement_reset_velocity():
    mesh, model = _free_block()
    c1x = ImposedDisplacement("C1", "x", -0.008, ramp(0.0, 0.5))
    base = (ImposedDisplacement("BASE", "y"), ImposedDisplacement("O1", "x"))
    phases = [
        Phase("ramp", 0.0, 0.5, 0.05, HHT(-0.3), constraints=base + (c1x,), newton=NewtonSettings(rela=1e-8)),
        Phase("hold", 0.5, 0.6, 0.05, HHT(-0.3), constraints=base + (c1x,), newton=NewtonSettings(rela=1e-8)),
    ]
    results = list(run_phases(model, phases, State.at_rest(model.n_dofs)))
    times = [r.state.t for r in results]
    assert times[0] == 0.0 and times[-1] == pytest.approx(0.6)
    assert np.all(np.diff(times) > 0)  # the second phase's initial state is not repeated
    tilted = results[-1].state
    assert tilted.u[2 * mesh.node("C1")] == pytest.approx(-0.008, rel=1e-12)
    # the imposed motion's reaction is reported at C1, nowhere else off the supports
    assert tilted.reactions[2 * mesh.node("C1")] != 0.0
    released = tilted.released(t=0.0)
    assert released.t == 0.0 and np.all(released.v == 0.0) and released.a is None
    np.testing.assert_array_equal(released.u, tilted.u)


def _big_rotation_phase(max_iterations, max_level):
    """Impose a 0.6 rad rotation of the whole base in one step: Newton with very few iterations
    cannot follow it at once, smaller steps can."""
    theta = 0.6
    c, s = np.cos(theta), np.sin(theta)
    mesh = grid_mesh(2, 2, width=0.36, height=0.36)
    base = mesh.nodes("BASE")
    x = mesh.points[base, 0]
    cons = []
    for node, xi in zip(base, x):
        mesh.node_groups[f"N{node}"] = np.array([node])
        cons.append(ImposedDisplacement(f"N{node}", "x", xi * (c - 1), ramp(0.0, 1.0)))
        cons.append(ImposedDisplacement(f"N{node}", "y", xi * s, ramp(0.0, 1.0)))
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)})
    phase = Phase("rotate", 0.0, 1.0, 1.0, Static(), constraints=tuple(cons),
                  # stress-free end state, no load: only an absolute criterion (RESI_GLOB_MAXI) is meaningful
                  newton=NewtonSettings(rela=None, maxi=1e-4, max_iterations=max_iterations),
                  subdivision=Subdivision(factor=4, max_level=max_level))
    return mesh, model, phase


def test_failed_step_is_subdivided():
    mesh, model, phase = _big_rotation_phase(max_iterations=4, max_level=3)
    *_, last = integrate(model, phase, State.at_rest(model.n_dofs))
    assert last.substeps > 1
    # rigid rotation reached: the top nodes rotated too, no stress (total Lagrangian)
    assert model.strain_energy(last.state.u) < 1e-12 * GRAPHITE["young"]


def test_exhausted_subdivision_names_time_step_and_node():
    mesh, model, phase = _big_rotation_phase(max_iterations=2, max_level=0)
    with pytest.raises(ConvergenceError) as err:
        list(integrate(model, phase, State.at_rest(model.n_dofs)))
    msg = str(err.value)
    assert "phase 'rotate'" in msg and "t = 1 s" in msg and "dt = 1 s" in msg
    assert "node" in msg and "residual" in msg
    assert err.value.node in range(mesh.n_nodes)


def test_steps_written_before_a_failure_are_kept(tmp_path):
    """A run that fails leaves every step recorded before the failure on disk."""
    from fem.io.recorder import RunRecorder
    from fem.io.results import read_history, read_series

    mesh, model = _free_block()
    good = Phase("settle", 0.0, 0.03, 0.01, Newmark(), gravity=Gravity(), constraints=(
        ImposedDisplacement("BASE", "y"), ImposedDisplacement("O1", "x")), newton=NewtonSettings(rela=1e-8))
    bad = Phase("hopeless", 0.03, 0.04, 0.01, Newmark(), gravity=Gravity(), constraints=good.constraints,
                newton=NewtonSettings(rela=1e-30, max_iterations=1), subdivision=Subdivision(max_level=0))
    with RunRecorder(model, tmp_path) as rec:
        with pytest.raises(ConvergenceError):
            for r in run_phases(model, [good, bad], State.at_rest(model.n_dofs)):
                rec.record(r)
    h = read_history(tmp_path / "history.csv")
    np.testing.assert_allclose(h["t"], [0.0, 0.01, 0.02, 0.03])
    assert [t for t, _ in read_series(tmp_path / "solution.xdmf")] == pytest.approx([0.0, 0.01, 0.02, 0.03])


def test_mass_proportional_damping_decays_rigid_velocity():
    """AMOR_BETA: a free block moving rigidly at v0 slows down as v0 exp(-beta t)."""
    mesh = grid_mesh(2, 2)
    beta = 2.0
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE, rayleigh_mass=beta)})
    v0 = np.zeros(model.n_dofs)
    v0[0::2] = 1.0
    state = State(t=0.0, u=np.zeros(model.n_dofs), v=v0)
    *_, last = integrate(model, Phase("drift", 0.0, 0.5, 1e-3, Newmark(),
                                         # floor of the linear solve: eps ||K|| |du| ~ 1e-8 N here
                                         newton=NewtonSettings(rela=1e-8)), state)
    # average acceleration: amplification (1 - beta dt/2)/(1 + beta dt/2) per step
    expected = ((1 - beta * 1e-3 / 2) / (1 + beta * 1e-3 / 2)) ** 500
    np.testing.assert_allclose(last.state.v[0::2], expected, rtol=1e-9)
    assert expected == pytest.approx(np.exp(-beta * 0.5), rel=1e-5)


def test_overlapping_supports_and_conflicting_values():
    """Clamping two groups that share a corner is fine; imposing two different values is not."""
    from fem.loads.applied import resolve_constraints

    mesh = grid_mesh(2, 2)
    c = resolve_constraints(mesh, [ImposedDisplacement("BASE", "x"), ImposedDisplacement("LEFT", "x")])
    shared = 2 * np.intersect1d(mesh.nodes("BASE"), mesh.nodes("LEFT"))
    assert np.isin(shared, c.dofs).all()
    with pytest.raises(ValueError, match="imposed twice with different values"):
        resolve_constraints(mesh, [ImposedDisplacement("BASE", "x", 0.0), ImposedDisplacement("LEFT", "x", 1e-3)])


def test_state_time_must_match_phase_start():
    mesh, model = _free_block()
    with pytest.raises(ValueError, match=r"phase 'late' starts at t = 1.0 s but the state given is at t = 0.0 s"):
        next(integrate(model, Phase("late", 1.0, 2.0, 0.1), State.at_rest(model.n_dofs, 0.0)))


@pytest.mark.parametrize("scheme", [Newmark(), Newmark(0.3025, 0.6), HHT(-0.2), HHT(-0.3, modified_equilibrium=True)],
                         ids=["avg-acc", "newmark-0.6", "hht-non", "hht-oui"])
def test_energy_books_close_with_the_schemes_numerical_dissipation(scheme):
    """Kinetic + strain + numerical dissipation = initial energy (linear elastic block in free
    vibration, no damping): the per-step identity of Newmark kinematics accounts for everything
    the scheme removes; it is zero for average acceleration and positive otherwise."""
    mesh = grid_mesh(2, 4)
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="small_strain")
    rng = np.random.default_rng(3)
    start = State(0.0, 1e-7 * rng.standard_normal(model.n_dofs), 1e-3 * rng.standard_normal(model.n_dofs))
    phase = Phase("free", 0.0, 2e-4, 2e-6, scheme, constraints=(ImposedDisplacement("BASE", "x"),
                  ImposedDisplacement("BASE", "y")), newton=NewtonSettings(rela=1e-9))
    *_, last = integrate(model, phase, start)
    e = energy_report(model, last.state)
    initial = last.state.energies.initial
    assert abs(e["balance_error"]) < 1e-8 * initial
    if scheme == Newmark():
        assert abs(e["numerical_dissipation"]) < 1e-8 * initial
    else:
        assert e["numerical_dissipation"] > 1e-4 * initial


def test_free_flight_converges_with_a_relative_tolerance():
    """A point mass thrown upward, then falling freely after a spring releases it: in free flight
    the only force is inertia (zero to round-off) and the relative criterion falls back to the
    force scale met earlier in the phase, as Code_Aster does with a zero load."""
    from fem.stage.discrete import SpringProperties, Springs
    from fem.mesh.mesh import Mesh

    mesh = Mesh(np.zeros((1, 2)), {}, {"P": np.array([0])})
    model = Model(mesh, {}, point_masses={"P": 1.0})
    start = State(0.0, np.zeros(2), np.array([3.0, 0.0]))
    phase = Phase("flight", 0.0, 1.0, 0.01, Newmark(), constraints=(ImposedDisplacement("P", "y"),))
    spring = Springs(mesh, "P", SpringProperties((1e-30, 0.0)))  # practically no force at all
    *_, last = integrate(model, phase, start, [spring])
    assert last.state.u[0] == pytest.approx(3.0, rel=1e-9)


def test_theta_one_half_is_average_acceleration():
    """The theta-method with theta = 1/2 and Newmark(1/4, 1/2) give the same trajectory for a
    smooth linear problem (both are the trapezoidal rule), and theta > 1/2 dissipates."""
    from fem.stage.schemes import Theta

    mesh = grid_mesh(2, 3)
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="small_strain")
    rng = np.random.default_rng(5)
    start = State(0.0, np.zeros(model.n_dofs), 1e-3 * rng.standard_normal(model.n_dofs))
    supports = (ImposedDisplacement("BASE", "x"), ImposedDisplacement("BASE", "y"))
    runs = {}
    for name, scheme in (("newmark", Newmark()), ("theta", Theta(0.5)), ("theta55", Theta(0.55))):
        phase = Phase("free", 0.0, 1e-4, 1e-6, scheme, constraints=supports, newton=NewtonSettings(rela=1e-10))
        *_, last = integrate(model, phase, start)
        runs[name] = last.state
    np.testing.assert_allclose(runs["theta"].u, runs["newmark"].u, atol=1e-9 * np.abs(runs["newmark"].u).max())
    energy = {k: model.kinetic_energy(s.v) + model.strain_energy(s.u) for k, s in runs.items()}
    assert energy["theta55"] < 0.999 * energy["theta"]
    assert energy["theta"] == pytest.approx(start.energies.initial or model.kinetic_energy(start.v), rel=1e-8)


def test_a_very_short_step_converges_at_the_round_off_of_its_residual():
    """A 1 kg mass on a 1e6 N/m spring, 1 m from its rest point, stepped by dt = 1e-9 s (the sliver
    steps a located contact event may cut). Newton's matrix is M / (beta dt^2) = 4e18 N/m, so the
    rounding of u (2e-16 m) alone puts about 900 N in the residual, above the relative tolerance
    of the 1e6 N spring force (1e-6: 1 N). The residual is converged at the round-off of its own
    evaluation (fem.time.dynamics.round_off_floor); the step's motion is the free oscillation's, to
    round-off: u(dt) = cos(w dt) with w = 1e3 rad/s, i.e. 1 - 5e-13."""
    from fem.stage.discrete import SpringProperties, Springs
    from fem.time.dynamics import round_off_floor
    from fem.mesh.mesh import Mesh
    import scipy.sparse as sp

    mesh = Mesh(np.zeros((1, 2)), {}, {"P": np.array([0])})
    model = Model(mesh, {}, point_masses={"P": 1.0})
    start = State(0.0, np.array([1.0, 0.0]), np.zeros(2))
    phase = Phase("sliver", 0.0, 3e-9, 1e-9, Newmark(), constraints=(ImposedDisplacement("P", "y"),))
    spring = Springs(mesh, "P", SpringProperties((1e6, 0.0)))
    *_, last = integrate(model, phase, start, [spring])
    assert last.state.u[0] == pytest.approx(np.cos(1e3 * 3e-9), abs=1e-12)
    J = sp.csr_matrix(np.array([[4e18 + 1e6, 0.0], [0.0, 4e18]]))
    assert round_off_floor(J, np.array([1.0, 0.0])) == pytest.approx(16 * np.finfo(float).eps * (4e18 + 1e6))
