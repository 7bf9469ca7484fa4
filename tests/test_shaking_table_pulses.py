"""One-sine pulses on the SDNV105 block (cases/shaking_table.py) against the rigid block under the
same pulse (contact.rocking_base; Zhang and Makris 2001): survival, overturning after an impact,
overturning without one. Slow (8 FE runs of 2 to 4 s of motion): the pairs at w_p/p = 2 here, those
at 4 in tests/test_shaking_table_pulses_4.py, so that two test workers share them (--dist loadfile
gives a file to one worker)."""
from __future__ import annotations

import math

import pytest

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


#: (w_p / p, a_p / (g tan alpha)); the rigid block (contact.rocking_base, over the pulse + 1.5 s) puts
#: them in: survives (2, 1.1), (4, 2.0), (4, 2.75), (4, 4.5); overturns after one impact (2, 1.5),
#: (4, 3.5); overturns without impact (2, 3.0), (4, 5.75). None lies within 0.25 of a boundary of
#: the rigid scan (README "Shaking table"). 1.5 s after the pulse covers the latest overturning (4,
#: 3.5: 1.29 s after it); a survivor has had an impact by then and only loses energy after it.
ROTATION_21 = ("(2, 1.1): the outcome agrees (survives) but not the largest rotation, 0.0045 rad against the rigid "
               "block's 0.0064: both rock alike through the pulse's first half (0.00448 rad); the rigid block "
               "comes to rest after its chain of impacts and lifts again in the second half to 0.0064 rad, the FE "
               "block is still rocking (5e-4 rad) and meets it out of phase, 0.0030 rad (README, issue 8)")
PULSES_2 = [pytest.param(2, 1.1, marks=pytest.mark.xfail(strict=True, reason=ROTATION_21)), (2, 1.5), (2, 3.0)]
PULSES_4 = [(4, 2.0), (4, 2.75), (4, 3.5), (4, 4.5), (4, 5.75)]


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
