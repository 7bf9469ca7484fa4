"""One-sine pulses on the SDNV105 block (cases/shaking_table.py) against the rigid block under the
same pulse (contact.references.rocking_base; Zhang and Makris 2001): survival, overturning after an impact,
overturning without one. Slow (8 FE runs of 2 to 4 s of motion): the pairs at w_p/p = 2 here, those
at 4 in tests/test_shaking_table_pulses_4.py, so that two test workers share them (--dist loadfile
gives a file to one worker)."""
from __future__ import annotations

import math

import pytest

from contact.references import rocking_base
from test_shaking_table import G, run

# ----------------------------------------------------------------------------------- one-sine pulses
P_SDNV105 = math.sqrt(3 * G / (4 * math.hypot(0.18, 0.40)))  # p = sqrt(3 g / (4 R)) [rad/s]
MU_PULSES = 0.9  # SDNV105's; above the friction the rocking needs (summary max_friction_ratio, checked below)


def _outcome(summary: dict) -> str:
    """'survives', 'overturns after impact' or 'overturns without impact' (impacts before overturning)."""
    if not summary["overturned"]:
        return "survives"
    before = [i for i in summary["impacts"] if i["time"] < summary["overturn_time"]]
    return "overturns after impact" if before else "overturns without impact"


#: (w_p / p, a_p / (g tan alpha)); the rigid block (contact.references.rocking_base, over the pulse + 1.5 s) puts
#: them in: survives (2, 1.05), (4, 2.0), (4, 2.75), (4, 4.5); overturns after one impact (2, 1.5),
#: (4, 3.5); overturns without impact (2, 3.0), (4, 5.75). Each lies at least 0.15 from the nearest
#: amplitude of another outcome in a rigid scan of a_p/(g tan alpha) = 1 to 6 by 0.05 (README).
#: 1.5 s after the pulse covers the latest overturning (4, 3.5: 1.29 s after it); a survivor has
#: had an impact by then and only loses energy after it.
#: (2, 1.1) was the survivor at w_p/p = 2 until issue 8's last session: its largest rotation comes
#: after a chain of small impacts and hangs on the impact law (test below), so no model of the
#: impact other than Housner's own can be held to 10 % of it there.
PULSES_2 = [(2, 1.05), (2, 1.5), (2, 3.0)]
PULSES_4 = [(4, 2.0), (4, 2.75), (4, 3.5), (4, 4.5), (4, 5.75)]
HOUSNER_SDNV105 = 1 - 1.5 * (0.18 ** 2 / (0.18 ** 2 + 0.40 ** 2))  # e = 1 - 3/2 sin^2(alpha) = 0.747


def _rigid_pulse_rotation(ratio: float, amplitude: float, restitution: float | None) -> float:
    """Largest |theta| [rad] of the rigid SDNV105 block under the one-sine pulse of the pair (the
    case's sign: a table acceleration a_p sin(w_p t) along +x is a_g = -that), to 1.5 s after it."""
    w = ratio * P_SDNV105
    a_p, duration = amplitude * 0.45 * G, 2 * math.pi / w
    res = rocking_base.rock_under_base_motion(0.18, 0.40, lambda t: -a_p * math.sin(w * t) if t < duration else 0.0,
                                              duration + 1.5, g=G, restitution=restitution)
    assert not res.overturned
    return res.max_rotation


def test_the_survivor_at_two_does_not_hang_on_the_impact_law():
    """Why the survivor at w_p/p = 2 is (2, 1.05) and not (2, 1.1). Under (2, 1.1) both blocks rock
    alike through the pulse's first half (0.00448 rad); the chain of impacts that follows decides how
    the block meets the second half: the rigid block's largest rotation is 0.0045, 0.0064 and 0.0097
    rad for a restitution e = 0.7, Housner's 0.747 and 0.8 (measured), and the FE block, which keeps a
    5e-4 rad rocking through the chain, reaches 0.0045 rad at dt 1e-3 and 5e-4 s (README). Under
    (2, 1.05) the rigid block comes to rest after its chain whatever e in [0.7, 0.8] and lifts
    again from rest in the second half: its largest rotation (0.001137 rad) does not move by 1e-3
    relative, and the FE block's is 0.0011367 rad. A pair whose answer moves by more than 40 %
    for a 7 % change of e tests the impact law, not the code."""
    for pair, spread_at_most, spread_at_least in (((2, 1.05), 1e-3, 0.0), ((2, 1.1), None, 0.4)):
        housner = _rigid_pulse_rotation(*pair, None)
        assert housner == pytest.approx(_rigid_pulse_rotation(*pair, HOUSNER_SDNV105), rel=1e-9)
        others = [_rigid_pulse_rotation(*pair, e) for e in (0.7, 0.8)]
        spread = (max(others + [housner]) - min(others + [housner])) / housner
        assert spread >= spread_at_least
        if spread_at_most is not None:
            assert spread <= spread_at_most


def check_pulse(tmp_path, ratio: float, amplitude: float) -> None:
    """A one-sine pulse a_p sin(w_p t) of the table on the SDNV105 block, mu = 0.9: the FE block
    survives or overturns, with or without an impact first, as the rigid block under the same pulse
    (computed by the case beside it); a survivor's largest rotation within 10 % of the rigid one's;
    the friction the base needs between impacts (|sum R_T| / sum R_N, as the rigid reference's)
    stays below mu, and no corner slips 1e-5 m (at an impact the ratio reaches mu for an instant:
    measured slips below that). (mu = 2 was tried: Newton then fails at the impacts, the corner's
    status oscillating between stick and slip; reported on issue 8.)"""
    frequency = ratio * P_SDNV105 / (2 * math.pi)
    s, _ = run(tmp_path, "pulse", "--excitation", "sine-pulse", "--amplitude-g", f"{amplitude * 0.45:.12g}",
               "--frequency-hz", f"{frequency:.12g}", "--t-end", f"{1 / frequency + 1.5:.12g}", "--mu", str(MU_PULSES))
    rigid = s["rigid_body"]
    assert rigid["applies"]
    assert _outcome(s) == _outcome(rigid)
    assert s["max_friction_ratio"] < MU_PULSES and not s["slid"]
    if not s["overturned"]:
        assert s["max_rotation"][0] == pytest.approx(rigid["max_rotation"], rel=0.10)


@pytest.mark.slow
@pytest.mark.parametrize("ratio,amplitude", PULSES_2)
def test_one_sine_pulse_survival_and_overturning_agree_with_the_rigid_block(tmp_path, ratio, amplitude):
    """check_pulse at w_p/p = 2."""
    check_pulse(tmp_path, ratio, amplitude)
