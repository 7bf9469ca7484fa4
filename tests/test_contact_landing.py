"""The closing rule of position-level contact (contact.multipliers, fem.time.dynamics._step_to_landing).

A Kelvin-Voigt bar (P1 strip of meshes/bar.py, E = rho = 1, stiffness-proportional damping
0.05 s: element modes critically damped), its contact end massless (fem.model.mass), flies at V = 1
towards a rigid wall placed so that it lands at the fraction s of a step (gap = (3 + s) V dt,
dt = h / 2, Newmark's average acceleration). By the trapezoidal identity of contact.multipliers
the immediate closing takes 1/2 R_N,{n+1} g_n at the landing, about 1/2 F V dt s (1 - s); the
located closing cuts the step where the gap vanishes, so it takes at most LANDING_TOLERANCE of
that, and with the located release the contact never gives energy back.
"""
import numpy as np
import pytest

from contact.multipliers import MultiplierContact
from contact.zone import ContactError, RigidPlane, contact_zone
from fem.time.dynamics import LANDING_TOLERANCE, Phase, State, integrate
from fem.model.material import ElasticMaterial
from fem.model.assembly import Model
from fem.stage.schemes import Newmark
from meshes.bar import bar_strip

NX = 20
FRACTIONS = (0.1, 0.3, 0.5, 0.7, 0.9)


def _bar_on_wall(s: float, closing: str, release: str = "located", steps_per_h: int = 2):
    """Contact work [J], damping dissipation [J] and mean bar velocity [m/s] at t = 3 s (after the
    rebound) for a landing at the fraction s of a step."""
    h = 1.0 / NX
    dt = h / steps_per_h
    mesh = bar_strip(1.0, 0.1, NX)
    model = Model(mesh, {"BAR": ElasticMaterial(1.0, 0.0, 1.0, rayleigh_stiffness=0.05)}, thickness=10.0,
                  kinematics="small_strain", mass="redistributed", massless=("END0",))
    gap = (3 + s) * dt
    zone = contact_zone(mesh, "END0", RigidPlane((-gap, 0.0), (1.0, 0.0)))
    term = MultiplierContact(model, zone, method="lagrange", release=release, closing=closing)
    v0 = np.zeros(model.n_dofs)
    v0[0::2] = -1.0
    phase = Phase("fly", 0.0, 3.0, dt, Newmark())
    for result in integrate(model, phase, State(t=0.0, u=np.zeros(model.n_dofs), v=v0), [term]):
        last = result.state
    ex = np.zeros(model.n_dofs)
    ex[0::2] = 1.0
    mass_x = model.mass @ ex
    return last.energies.contact_work, last.energies.damping_dissipation, float(mass_x @ last.v / (mass_x @ ex))


@pytest.fixture(scope="module")
def landings():
    return {(closing, s): _bar_on_wall(s, closing) for closing in ("immediate", "located") for s in FRACTIONS}


def test_the_immediate_closing_takes_energy_that_follows_where_the_landing_falls(landings):
    """Immediate: the landing's contact work is about 1/2 F V dt s (1 - s), symmetric in s and
    largest mid-step (measured 1.5e-3, 3.5e-3, 4.1e-3, 3.5e-3, 1.5e-3 J of the 0.5 J)."""
    work = np.array([landings["immediate", s][0] for s in FRACTIONS])
    assert np.all(work > 1e-3)
    assert work[2] > 2.5 * work[0] and work[2] > 2.5 * work[4]
    assert work[0] == pytest.approx(work[4], rel=0.1) and work[1] == pytest.approx(work[3], rel=0.1)


@pytest.mark.parametrize("s", FRACTIONS)
def test_the_located_closing_takes_at_most_its_tolerance_and_creates_nothing(landings, s):
    """Located: the contact work is in [0, LANDING_TOLERANCE x the immediate one] (measured 4e-9
    to 3.7e-6 J against 1.5e-3 to 4.1e-3 J)."""
    located, immediate = landings["located", s], landings["immediate", s]
    assert -1e-12 <= located[0] <= LANDING_TOLERANCE * immediate[0]


def test_the_rebound_converges_with_the_step_wherever_the_landing_falls():
    """Located closing and release: the spread of the rebound velocity over the landing fraction s
    is O(dt) (measured 1.27e-3, 6.4e-4, 3.2e-4 for dt = h/2, h/4, h/8), and the rebound itself
    converges (mean over s 0.75145, 0.75106, 0.75081 m/s)."""
    spreads, means = [], []
    for k in (2, 4):
        v = np.array([_bar_on_wall(s, "located", steps_per_h=k)[2] for s in FRACTIONS])
        spreads.append(np.ptp(v))
        means.append(v.mean())
    assert spreads[1] < 0.6 * spreads[0]
    assert 0.70 < means[1] < 0.80 and abs(means[1] - means[0]) < 1e-3


def test_an_unknown_closing_rule_is_refused():
    mesh = bar_strip(1.0, 0.1, 4)
    model = Model(mesh, {"BAR": ElasticMaterial(1.0, 0.0, 1.0)}, thickness=10.0, kinematics="small_strain")
    zone = contact_zone(mesh, "END0", RigidPlane((-0.1, 0.0), (1.0, 0.0)))
    with pytest.raises(ContactError, match="closing rule"):
        MultiplierContact(model, zone, closing="eventually")
