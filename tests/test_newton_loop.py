"""The compiled Newton iterations (contact.newton_loop) are the Python loop of fem.time.dynamics, byte for
byte, over the range of what they run: every Newmark/HHT variant, small strain and total Lagrangian,
stiffness- and mass-proportional Rayleigh damping, consistent, lumped and redistributed masses (massless
contact nodes: per-dof HHT weights and velocity factors), Lagrange and augmented Lagrangian contact with
and without friction, events located inside their steps (probes, held and kept-open nodes). The same
scenes run with ``newton_loop.ENABLED`` False (the Python loop, which every phase the loop does not run
still takes) must give states whose every array has the same bytes: the loop calls the same compiled
pieces in the same order, so a difference is a second path. The physics of those runs is checked by the
rest of the suite (energy books, SDNV105, the shaking table), which runs through the loop by default.
"""
from __future__ import annotations

import numpy as np
import pytest

from contact.multipliers import MultiplierContact
from contact.penalty import ShockLaw, ShockSprings
from contact.zone import RigidPlane, contact_zone, node_zone
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.model.material import ElasticMaterial
from fem.stage.schemes import HHT, Newmark, Static
from contact import newton_loop
from fem.time import newton, newton_system
from fem.time.dynamics import NewtonSettings, Phase, State, integrate, make_context
from helpers import grid_mesh
from meshes.generate import reference_mesh_path

G = 9.81

SCHEMES = {
    "newmark": Newmark(),
    "newmark-gamma0.6": Newmark(beta=0.3025, gamma=0.6),
    "hht-oui": HHT(-0.1, modified_equilibrium=True),
    "hht-non": HHT(-0.3, modified_equilibrium=False),
}

#: (scheme, method, kinematics, mass, friction, located): a spread of what the loop runs
CASES = [
    ("newmark", "lagrange", "small_strain", "consistent", 0.3, False),
    ("hht-oui", "lagrange", "total_lagrangian", "redistributed", 0.3, True),
    ("hht-non", "augmented", "total_lagrangian", "redistributed", 0.6, True),
    ("newmark-gamma0.6", "augmented", "small_strain", "lumped", 0.0, False),
    ("hht-oui", "lagrange", "small_strain", "lumped", 2.0, False),
    ("newmark", "augmented", "total_lagrangian", "consistent", 0.3, True),
]


def thrown_block(kinematics: str, mass: str, damped: bool = True):
    """A 2 x 3 QUA4 block 1 mm above a rigid plane, Rayleigh-damped (AMOR_ALPHA 2e-4 s, AMOR_BETA 3 /s)."""
    mesh = grid_mesh(2, 3, width=0.36, height=0.8, y0=1e-3)
    material = ElasticMaterial(young=1e8, poisson=0.2, density=1450.0, rayleigh_stiffness=2e-4 if damped else 0.0,
                               rayleigh_mass=3.0 if damped else 0.0)
    model = Model(mesh, {"BLOCK": material}, kinematics=kinematics, mass=mass,
                  massless=("BASE",) if mass == "redistributed" else ())
    return model, mesh


def history(scheme: str, method: str, kinematics: str, mass: str, friction: float, located: bool, compiled: bool,
            monkeypatch, t_end: float = 0.03):
    """Every state of the throw (falls, lands, rocks and slides) as bytes, with or without the loop."""
    monkeypatch.setattr(newton_loop, "ENABLED", compiled)
    model, mesh = thrown_block(kinematics, mass)
    zone = node_zone(mesh, "BASE", RigidPlane((0.0, 0.0), (0.0, 1.0)))
    rules = dict(release="located", closing="located") if located else {}
    term = MultiplierContact(model, zone, friction=friction, method=method, **rules)
    v0 = np.zeros(model.n_dofs)
    v0[0::2] = 0.5
    v0[1::2] = -0.2
    phase = Phase("throw", 0.0, t_end, 2e-4, SCHEMES[scheme], gravity=Gravity((0.0, -G)),
                  newton=NewtonSettings(rela=1e-8, max_iterations=40))
    out = []
    for r in integrate(model, phase, State(t=0.0, u=np.zeros(model.n_dofs), v=v0), [term]):
        s = r.state
        contact = term.state()
        out.append((r.iterations, r.substeps, s.u.tobytes(), s.v.tobytes(), s.a.tobytes(), s.reactions.tobytes(),
                    s.f_terms.tobytes(), s.f_scheme.tobytes(), contact.status.tobytes(), contact.rn.tobytes(),
                    contact.rt.tobytes(), repr(s.energies)))
    return out


@pytest.mark.parametrize("scheme, method, kinematics, mass, friction, located", CASES)
def test_the_compiled_iterations_are_the_python_loop_byte_for_byte(scheme, method, kinematics, mass, friction,
                                                                    located, monkeypatch):
    calls = []
    iterate = newton_loop.iterate
    monkeypatch.setattr(newton_loop, "iterate", lambda *a, **k: calls.append(1) or iterate(*a, **k))
    fast = history(scheme, method, kinematics, mass, friction, located, True, monkeypatch)
    assert len(calls) >= len(fast) - 1  # every step went through the loop
    slow = history(scheme, method, kinematics, mass, friction, located, False, monkeypatch)
    assert len(fast) == len(slow) > 100
    # the scene exercises contact: the block lands and some node is closed at the end
    assert any(state[9] != slow[0][9] for state in slow)
    for k, (a, b) in enumerate(zip(fast, slow)):
        assert a == b, f"state {k} differs"


def test_a_step_whose_dense_lu_is_not_trusted_is_run_again_by_the_python_loop(monkeypatch):
    """With no dense LU trusted (RCOND_MIN above any reciprocal condition number) every step comes back
    FALLBACK and runs the Python loop, whose SuperLU solves it: the same run as without the loop."""
    monkeypatch.setattr(newton_system, "RCOND_MIN", 2.0)
    codes = []
    iterate = newton_loop.iterate

    def counted(*a, **k):
        out = iterate(*a, **k)
        codes.append(out.code)
        return out

    monkeypatch.setattr(newton_loop, "iterate", counted)
    fast = history("hht-oui", "lagrange", "small_strain", "consistent", 0.3, False, True, monkeypatch, t_end=0.02)
    assert codes and set(codes) == {newton_loop.FALLBACK}
    assert fast == history("hht-oui", "lagrange", "small_strain", "consistent", 0.3, False, False, monkeypatch,
                           t_end=0.02)


def test_a_newton_failure_names_the_same_residual_and_dof_either_way(monkeypatch):
    """Too few iterations allowed: the step subdivision's ConvergenceError carries the same residual,
    node and time whether the loop or the Python loop failed."""
    errors = []
    for compiled in (True, False):
        monkeypatch.setattr(newton_loop, "ENABLED", compiled)
        model, mesh = thrown_block("total_lagrangian", "consistent")
        term = MultiplierContact(model, node_zone(mesh, "BASE", RigidPlane((0.0, 0.0), (0.0, 1.0))), friction=0.3)
        v0 = np.zeros(model.n_dofs)
        v0[1::2] = -0.5
        phase = Phase("throw", 0.0, 0.02, 2e-3, Newmark(), gravity=Gravity((0.0, -G)),
                      newton=NewtonSettings(rela=1e-12, max_iterations=1))
        with pytest.raises(newton.ConvergenceError) as caught:
            for _ in integrate(model, phase, State(t=0.0, u=np.zeros(model.n_dofs), v=v0), [term]):
                pass
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def _context(terms, scheme=None, model=None, mesh=None):
    if model is None:
        model, mesh = thrown_block("small_strain", "consistent")
    phase = Phase("p", 0.0, 0.01, 1e-3, scheme or Newmark())
    ctx = make_context(model, phase, terms(model, mesh))
    for term in ctx.multipliers:
        term.set_phase(phase, np.zeros(model.n_dofs))
    return ctx


def test_the_loop_runs_the_phases_it_was_written_for_and_leaves_the_others_to_python():
    plane = RigidPlane((0.0, 0.0), (0.0, 1.0))

    def multipliers(model, mesh):
        return [MultiplierContact(model, node_zone(mesh, "BASE", plane), friction=0.3)]

    assert newton_loop.step_data(_context(multipliers)) is not None
    assert _context(multipliers).step_loop[0] is newton_loop
    assert _context(lambda model, mesh: []).step_loop is None  # no multiplier term: the Python loop
    # a force term (penalty shock springs), a static phase, a system beyond the dense size: Python
    assert newton_loop.step_data(_context(lambda model, mesh: [ShockSprings(
        model, node_zone(mesh, "BASE", plane), ShockLaw(normal_stiffness=1e8))])) is None
    assert newton_loop.step_data(_context(multipliers, scheme=Static())) is None
    model, mesh = grid_mesh(8, 16), None
    big = Model(model, {"BLOCK": ElasticMaterial(young=1e8, poisson=0.2, density=1450.0)})
    assert big.n_dofs > newton_system.DENSE_MAX
    assert newton_loop.step_data(_context(multipliers, model=big, mesh=model)) is None
    # a user's own multiplier law (a subclass): Python
    subclass = type("MyContact", (MultiplierContact,), {})
    assert newton_loop.step_data(_context(lambda model, mesh: [subclass(model, node_zone(mesh, "BASE", plane))])) \
        is None


def test_master_segments_run_in_the_loop(monkeypatch):
    """SDNV105's block thrown onto its deformable table (master segments, rows 6 wide), both damped."""
    mesh = read_mesh(reference_mesh_path("sdnv105_quad4"))
    results = []
    for compiled in (True, False):
        monkeypatch.setattr(newton_loop, "ENABLED", compiled)
        model = Model(mesh, {"BLOCK": ElasticMaterial(young=6e11, poisson=0.2, density=1450.0, rayleigh_stiffness=1e-4),
                             "GROUN": ElasticMaterial(young=1e14, poisson=0.3, density=2500.0,
                                                      rayleigh_stiffness=1.6e-3)})
        term = MultiplierContact(model, contact_zone(mesh, "CONHAUT", "CONBAS"), friction=0.3)
        phase = Phase("throw", 0.0, 0.01, 1e-4, HHT(-0.1), gravity=Gravity((0.0, -G)),
                      constraints=(ImposedDisplacement("CTGROUND", "y"), ImposedDisplacement("S1", "x")),
                      newton=NewtonSettings(rela=1e-8, max_iterations=40))
        ctx = make_context(model, phase, [term])
        term.set_phase(phase, np.zeros(model.n_dofs))
        data = newton_loop.step_data(ctx)
        assert (data is not None and data.widths.tolist() == [6]) if compiled else data is None
        v0 = np.zeros(model.n_dofs)
        v0[2 * mesh.nodes("BLOCK")] = 0.3  # sliding
        v0[2 * mesh.nodes("BLOCK") + 1] = -0.05  # and pressed onto the table
        states = [(r.state.u.tobytes(), r.state.v.tobytes(), term.state().rn.tobytes(), term.state().rt.tobytes())
                  for r in integrate(model, phase, State(t=0.0, u=np.zeros(model.n_dofs), v=v0), [term])]
        results.append(states)
    assert results[0] == results[1]
    assert len(results[0]) > 50
    assert any(np.frombuffer(rn).max() > 0 for _, _, rn, _ in results[1])  # the block bears on the table


def _reduceat_floor(data, indices, indptr, u):
    """The round-off floor as numpy computes it: each row by add.reduceat, an empty row 0, the largest."""
    rows = np.add.reduceat(np.abs(data) * np.abs(u[indices]), indptr[:-1])
    rows[np.diff(indptr) == 0] = 0.0
    return newton.ROUND_OFF * float(rows.max())


@pytest.mark.parametrize("lengths", [(0, 1, 3, 7, 8, 9, 15, 16, 17, 33), (129, 130, 300, 0, 2), (5,)])
def test_the_round_off_floor_loop_is_numpys_reduceat(lengths):
    """fem.time.newton.csr_round_off_floor (the Python loop's and the compiled loop's) gives the bits of
    numpy's add.reduceat: numpy sums a row pairwise, eight partial sums at a time beyond eight entries,
    halves beyond 128."""
    rng = np.random.default_rng(len(lengths))
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    n = 40
    data = rng.normal(size=indptr[-1]) * 10.0 ** rng.integers(-8, 8, size=indptr[-1])
    indices = rng.integers(0, n, size=indptr[-1]).astype(np.int64)
    u = rng.normal(size=n)
    assert newton.csr_round_off_floor(data, indices, indptr, u) == _reduceat_floor(data, indices, indptr, u)
    data[-1] = np.nan  # a NaN row (the last) makes the floor NaN, as numpy's max
    assert np.isnan(newton.csr_round_off_floor(data, indices, indptr, u))
    assert np.isnan(_reduceat_floor(data, indices, indptr, u))
