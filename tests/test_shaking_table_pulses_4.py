"""One-sine pulses on the SDNV105 block at w_p/p = 4 (tests/test_shaking_table_pulses.py has the
study, its pairs and its check; this file lets a second test worker run these, slow)."""
from __future__ import annotations

import pytest

from test_shaking_table_pulses import PULSES_4, check_pulse


@pytest.mark.slow
@pytest.mark.parametrize("ratio,amplitude", PULSES_4)
def test_one_sine_pulse_survival_and_overturning_agree_with_the_rigid_block(tmp_path, ratio, amplitude):
    """check_pulse at w_p/p = 4."""
    check_pulse(tmp_path, ratio, amplitude)
