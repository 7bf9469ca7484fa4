"""The energy rule that decides, at the end of a one-sine pulse, whether the rigid block overturns
(contact/references/overturning.py, rules 1-3 of its docstring), asserted on the decided mode, state by state
and pulse by pulse, so that a wrong rule fails a mode assertion rather than a later computation.

Block of SDNV105: b = 0.18 m, l = 0.40 m, alpha = atan(b / l), R = sqrt(b^2 + l^2),
p^2 = 3 g / (4 R), Housner's e = 1 - 3/2 sin^2 alpha = 0.7474. After the pulse the table is
still, and while the block rocks about a corner its energy (zero flat, divided by M g R)::

    E = phi'^2 / (2 p^2) + cos(alpha - phi) - cos(alpha),      barrier E_b = 1 - cos(alpha)

is conserved; an impact (at phi = 0) multiplies it by e^2. So from a state (phi, phi'):
outward (phi' > 0) it overturns in this flight iff E > E_b or phi > alpha; inward beyond the top
(phi > alpha, phi' <= 0) it turns back and overturns iff E < E_b; otherwise it reaches the impact
with E and overturns after it iff e^2 E > E_b, else never (every later flight has at most
e^4 E < E_b). The tests below write E, E_b and e here from these formulas (not from the module),
take each expected fate from them, and confirm it by integrating the free block
(contact.references.rocking_base with a_g = 0) long enough for a survivor to come to rest.

The states that separate e^2 E from e E: inward with E_b / e < E < E_b / e^2 (1.338 < E / E_b <
1.790): one impact, then survival, though e E > E_b. Three pulses end in that band (their states at
T_p are recomputed here), and each must be decided "survive".
"""
from __future__ import annotations

import math

import pytest

from contact.references import overturning as ov
from contact.references.rocking import RigidBlock
from contact.references.rocking_base import rock_under_base_motion

B, L, G = 0.18, 0.40, 9.81
BLOCK = RigidBlock(B, L)
ALPHA = math.atan2(B, L)
R = math.hypot(B, L)
P = math.sqrt(3.0 * G / (4.0 * R))
E_HOUSNER = 1.0 - 1.5 * math.sin(ALPHA) ** 2
BARRIER = 1.0 - math.cos(ALPHA)
SURVIVE, AFTER, WITHOUT = ov.MODES


def energy(phi: float, phidot: float) -> float:
    """E / (M g R) of the free block (module docstring)."""
    return phidot**2 / (2.0 * P**2) + math.cos(ALPHA - phi) - math.cos(ALPHA)


def phidot_for(phi: float, ratio: float, sign: int) -> float:
    """phi' of sign ``sign`` giving E = ratio E_b at tilt phi."""
    kinetic = ratio * BARRIER - (math.cos(ALPHA - phi) - math.cos(ALPHA))
    assert kinetic > 0, "no such state"
    return sign * P * math.sqrt(2.0 * kinetic)


def expected_fate(phi: float, phidot: float) -> tuple[bool, int]:
    """(overturns, impacts before it) from the closed-form energy argument."""
    E = energy(phi, phidot)
    if phidot > 0 and (E > BARRIER or phi > ALPHA):
        return True, 0
    if phidot <= 0 and phi > ALPHA and E < BARRIER:
        return True, 0
    return E_HOUSNER**2 * E > BARRIER, 1


def free_fate(phi: float, phidot: float) -> tuple[bool, int]:
    """(overturned, impacts before it or before rest) of the free block from (theta = phi, theta'
    = phidot) about O, integrated over 40 / p (a survivor's flights shrink by e^2 in energy each:
    it comes to rest long before)."""
    res = rock_under_base_motion(B, L, lambda t: 0.0, 40.0 / P, theta0=phi, omega0=phidot)
    return res.overturned, len(res.impact_times)


# (phi / alpha, E / E_b, direction): one state per branch of the rule, and the band
STATES = [
    pytest.param(0.5, 1.2, +1, id="outward-above-barrier"),
    pytest.param(0.5, 0.8, +1, id="outward-below-barrier"),
    pytest.param(0.5, 2.5, -1, id="inward-e2E-above"),
    pytest.param(0.5, 1.6, -1, id="inward-eE-above-e2E-below"),
    pytest.param(0.2, 1.4, -1, id="inward-eE-above-e2E-below-low"),
    pytest.param(0.5, 1.2, -1, id="inward-eE-below"),
    pytest.param(1.3, 0.95, +1, id="beyond-top-outward"),
    pytest.param(1.3, 0.95, -1, id="beyond-top-inward-turns-back"),
    pytest.param(1.3, 1.7, -1, id="beyond-top-inward-comes-over"),
    pytest.param(1.3, 2.5, -1, id="beyond-top-inward-comes-over-overturns"),
]


@pytest.mark.parametrize("phi_ratio, energy_ratio, sign", STATES)
def test_the_free_fate_of_a_state_follows_the_energy_argument(phi_ratio, energy_ratio, sign):
    phi = phi_ratio * ALPHA
    phidot = phidot_for(phi, energy_ratio, sign)
    expected = expected_fate(phi, phidot)
    # the decision of the module (its rule, from its own e = RigidBlock.housner_r)
    assert ov._free_fate(BLOCK, BLOCK.housner_r, phi, phidot) == expected
    # and what the free block does (a fate with one impact: impacts counted up to overturn or rest)
    overturns, impacts = free_fate(phi, phidot)
    assert overturns == expected[0]
    if overturns:
        assert impacts == expected[1]
    else:
        assert impacts >= expected[1]


def test_the_band_between_e_and_e_squared():
    """The band the tests below rely on: e E > E_b > e^2 E for 1/e < E / E_b < 1/e^2."""
    assert E_HOUSNER == pytest.approx(BLOCK.housner_r, rel=1e-15)
    assert 1.0 / E_HOUSNER == pytest.approx(1.33797, rel=1e-5)
    assert 1.0 / E_HOUSNER**2 == pytest.approx(1.79016, rel=1e-5)


# pulses (omega_p / p, a_p / (g tan alpha)) that leave the block moving inward with E in the band
BAND_PULSES = [(4.0, 2.9), (5.0, 4.0), (6.0, 6.0)]


@pytest.mark.parametrize("frequency_ratio, amplitude_ratio", BAND_PULSES)
def test_a_pulse_ending_in_the_band_survives_after_one_impact(frequency_ratio, amplitude_ratio):
    """The state at T_p (a plain run of the pulse) lies in the band, moving inward below alpha: the
    rule says one impact, then survival; the module decides so from that state, its pulse
    response says survive, and so does a plain run through 40 / p after the pulse."""
    pulse = ov.OneSinePulse(amplitude_ratio * G * B / L, frequency_ratio * P)
    res = rock_under_base_motion(B, L, pulse, pulse.duration, max_step=pulse.duration / ov.STEPS_PER_PULSE)
    assert not res.overturned
    theta, omega = float(res.theta[-1]), float(res.omega[-1])
    phi, phidot = abs(theta), math.copysign(1.0, theta) * omega
    E = energy(phi, phidot)
    assert 1.0 / E_HOUSNER < E / BARRIER < 1.0 / E_HOUSNER**2 and phidot < 0 and phi < ALPHA  # in the band
    assert expected_fate(phi, phidot) == (False, 1)
    assert ov._free_fate(BLOCK, BLOCK.housner_r, phi, phidot) == (False, 1)
    r = ov.pulse_response(B, L, frequency_ratio, amplitude_ratio)
    assert (r.mode, r.impacts, r.overturn_time) == (SURVIVE, len(res.impact_times), None)
    assert r.energy_ratio == pytest.approx(E / BARRIER, rel=1e-9)  # same state, same formula
    # the survivor's largest tilt is the apex of its next flight, after the impact: E e^2
    apex = ALPHA - math.acos(math.cos(ALPHA) + E_HOUSNER**2 * E)
    assert r.max_rotation == pytest.approx(max(res.max_rotation, apex), rel=1e-12)
    plain = rock_under_base_motion(B, L, pulse, pulse.duration + 40.0 / P,
                                   max_step=pulse.duration / ov.STEPS_PER_PULSE)
    assert not plain.overturned and plain.rest_times


# the modes the module's boundaries at omega_p / p = 4 give (tests/test_overturning.py pins them at
# 3.0576, 4.0650, 5.4734), at points well inside each band
BOUNDARY_MODES = [(4.0, 0.9, SURVIVE), (4.0, 2.0, SURVIVE), (4.0, 3.5, AFTER), (4.0, 4.5, SURVIVE),
                  (4.0, 6.5, WITHOUT)]


@pytest.mark.parametrize("frequency_ratio, amplitude_ratio, mode", BOUNDARY_MODES)
def test_modes_inside_the_bands_of_the_boundaries(frequency_ratio, amplitude_ratio, mode):
    """The decided mode inside each band, confirmed by a plain run through 40 / p after the pulse;
    at 4.5 the pulse ends in the band (E / E_b = 1.65, inward): survival decided by e^2 E < E_b."""
    r = ov.pulse_response(B, L, frequency_ratio, amplitude_ratio)
    pulse = ov.OneSinePulse(amplitude_ratio * G * B / L, frequency_ratio * P)
    plain = rock_under_base_motion(B, L, pulse, pulse.duration + 40.0 / P,
                                   max_step=pulse.duration / ov.STEPS_PER_PULSE)
    plain_mode = SURVIVE if not plain.overturned else (AFTER if plain.impact_times else WITHOUT)
    assert r.mode == plain_mode == mode
