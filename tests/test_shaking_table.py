"""The shaking table (cases/shaking_table.py) against closed forms and the rigid block.

Every run starts from rest after the gravity preload. The SDNV105 block is 0.36 x 0.80 m
(tan(alpha) = 0.45); the second block, 0.30 x 1.20 m (tan(alpha) = 0.25), is more slender.

Closed forms (Housner 1963; Zhang and Makris 2001; docs/references.md, the rigid block on a moving base):
a block at rest on a table accelerating at a(t) stays at rest while |a| <= g tan(alpha) (if mu >
tan(alpha)); beyond it it rocks. Under a sin(w t) from rest it lifts at t* = asin(g tan(alpha) / a) / w.
With mu < tan(alpha) it slides first, once |a| > mu g, and then x_rel'' = -a + mu g while it slides.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from fem.loads import base_motion as bm
from helpers import load_case
from fem.io.results import read_history

st = load_case("shaking_table")
G = 9.81
DATA = Path(__file__).resolve().parent / "data"


def run(tmp_path, name: str, *argv: str) -> tuple[dict, dict]:
    out = tmp_path / name
    code = st.main([*argv, "--no-paraview", "--quiet", "--out", str(out)])
    summary = json.loads((out / "summary.json").read_text())
    assert code == 0, summary.get("message")
    assert summary["status"] == "complete"
    return summary, read_history(out / "history.csv")


# ----------------------------------------------------------------------------------- uplift threshold
BLOCKS = [(0.36, 0.80), (0.30, 1.20)]


@pytest.mark.parametrize("width,height", BLOCKS)
@pytest.mark.parametrize("factor", [0.97, 1.03])
def test_uplift_threshold_under_a_held_table_acceleration(tmp_path, width, height, factor):
    """A smooth ramp to factor * g tan(alpha), held 0.2 s: no uplift at 0.97, uplift at 1.03. mu = 0.9
    is above the rest friction demand a/g (0.46 at most), so the block does not slide first.

    At 1.03 the rigid block's tilt grows from the threshold crossing (the ramp reaches 1/1.03 of its
    plateau at 0.09 s) to ~5e-3 rad by 0.3 s, a corner lift of ~1.6 mm: 1600 times the 1e-6 m
    uplift criterion. At 0.97 the base only strains (rotations ~3e-8 rad of the elastic block,
    measured): a corner lifted by 1e-6 m would need a rotation 30 times larger."""
    tan = width / height
    s, h = run(tmp_path, "ramp", "--excitation", "ramp", "--amplitude-g", f"{factor * tan:.12g}", "--ramp-time", "0.1",
               "--hold-time", "0.2", "--t-end", "0.3", "--width", str(width), "--height", str(height))
    assert s["uplift_acceleration_g"] == pytest.approx(tan, rel=1e-12)
    assert np.max(np.abs(h["table_a"])) == pytest.approx(factor * tan * G, rel=1e-9)
    assert not s["slid"]
    if factor > 1:
        assert s["uplift_time"] is not None and s["uplift_onset"] is not None
        assert s["uplift_onset"] < s["uplift_time"] <= 0.3
        # the rigid block lifts in the same run, and its max rotation is matched (the elastic block
        # is 1e-8 strained: 1 % is the time-step error of the coarse steps, 1e-3 s)
        assert s["rigid_body"]["uplift_time"] is not None
        assert s["max_rotation"][0] == pytest.approx(s["rigid_body"]["max_rotation"], rel=0.01)
    else:
        assert s["uplift_time"] is None and s["uplift_onset"] is None
        assert s["rigid_body"]["uplift_time"] is None
        assert s["max_rotation"][0] < 1e-6 / width
        assert s["impacts"] == []


# ----------------------------------------------------------------------------------- sliding
def test_a_block_with_mu_below_tan_alpha_slides_instead_of_rocking(tmp_path):
    """mu = 0.3 < tan(alpha) = 0.45, a ramp to 0.35 g held: the block slides (a > mu g) and never
    lifts (the friction at the base tips it by mu l = 0.12 m < b = 0.18 m of eccentricity).

    Its slip follows the rigid sliding block x_rel'' = -a(t) + mu g from the instant a(t) exceeds
    mu g (integrated here to 1e-10): 1 % covers the elastic base's partial slip before the whole
    base slides (the base nodes let go one after the other, over a few ms) and the step error."""
    mu, amplitude = 0.3, 0.35 * G
    s, h = run(tmp_path, "slide", "--excitation", "ramp", "--amplitude-g", "0.35", "--ramp-time", "0.1",
               "--hold-time", "0.2", "--t-end", "0.3", "--mu", str(mu))
    assert s["slid"] is True
    assert s["uplift_time"] is None and s["uplift_onset"] is None
    ramp = bm.Ramp(amplitude, 0.1, 0.2)
    t_slip = brentq(lambda t: ramp.acceleration(t) - mu * G, 0.0, 0.1)
    sol = solve_ivp(lambda t, y: [y[1], -ramp.acceleration(t) + mu * G], (t_slip, 0.3), [0.0, 0.0],
                    rtol=1e-10, atol=1e-14)
    expected = abs(sol.y[0, -1])  # [m] the block lags behind the table
    slip = abs(h["slip_O"][-1] - h["slip_O"][0])
    assert slip == pytest.approx(expected, rel=0.01)
    assert s["max_slip"] == pytest.approx(expected, rel=0.01)
    # the friction force is mu times the normal one while it slides
    assert s["max_friction_ratio"] == pytest.approx(mu, rel=1e-6)


# ----------------------------------------------------------------------------------- harmonic uplift
@pytest.mark.parametrize("amplitude_g,frequency", [(0.9, 2.0), (1.35, 5.0)])
def test_uplift_time_under_a_harmonic_table_acceleration(tmp_path, amplitude_g, frequency):
    """Under a sin(w t) from rest the block stands on one corner from t* = asin(g tan(alpha)/a)/w
    (uplift_onset), within one time step plus 1 % (the onset is seen at the end of the step in which
    the last other base node lets go: the coarse step of 1e-3 s). Its corner then rises 1e-6 m
    (uplift_time) when the rigid block's does (contact.references.rocking_base.lift_time), same tolerance."""
    dt = 1e-3
    w = 2 * math.pi * frequency
    t_star = math.asin(0.45 / amplitude_g) / w
    s, _ = run(tmp_path, "harmonic", "--excitation", "harmonic", "--amplitude-g", str(amplitude_g), "--frequency-hz",
               str(frequency), "--t-end", f"{t_star + 0.03:.6f}", "--dt", str(dt))
    assert s["uplift_onset"] is not None
    assert abs(s["uplift_onset"] - t_star) <= dt + 0.01 * t_star
    assert s["rigid_body"]["uplift_onset"] == pytest.approx(t_star, rel=1e-9)
    rigid_lift = s["rigid_body"]["uplift_time"]
    assert s["uplift_time"] is not None and rigid_lift is not None and rigid_lift > t_star
    assert abs(s["uplift_time"] - rigid_lift) <= dt + 0.01 * rigid_lift


# ----------------------------------------------------------------------------------- stacks
@pytest.mark.parametrize("factor", [0.97, 1.03])
def test_two_stacked_sdnv105_blocks_uplift_as_one_column(tmp_path, factor):
    """Two 0.36 x 0.80 m blocks, one on the other (--blocks 2): a 0.36 x 1.60 m column. Held at
    factor * g b / (2 l_block) = factor * 0.225 g (ramp 0.1 s, hold 0.2 s), mu = 0.9 at both contacts.

    Each block alone would need 0.45 g to lift on its own base, the column as one body 0.225 g. At
    1.03 the column lifts on its base (onset within 1 % of the rigid column's, contact.references.rocking_base,
    which the test of the single block bounds to the time-step error), both blocks turn together
    (their rotations within 1e-3 of each other: the stack's elastic shear is ~1e-7 rad) and the
    joint stays shut (its corners' gaps below the 1e-6 m uplift criterion, where the column's
    corner rises by 0.36 x 1.3e-3 = 0.47 mm). At 0.97 nothing lifts anywhere."""
    tan = 0.36 / 1.60
    s, h = run(tmp_path, "column", "--blocks", "2", "--excitation", "ramp", "--amplitude-g", f"{factor * tan:.12g}",
               "--ramp-time", "0.1", "--hold-time", "0.2", "--t-end", "0.3")
    assert s["blocks"] == 2
    assert s["uplift_acceleration_g"] == pytest.approx(tan, rel=1e-12)
    assert not s["slid"] and not s["overturned"]
    assert len(s["max_rotation"]) == 2 and len(s["max_joint_gap"]) == 2
    assert s["max_joint_gap"][1] < 1e-6 and s["joint_uplift_time"][1] is None
    if factor > 1:
        rigid = s["rigid_body"]
        assert rigid["applies"] and rigid["uplift_onset"] is not None
        assert s["uplift_onset"] == pytest.approx(rigid["uplift_onset"], rel=0.01)
        assert s["joint_uplift_time"][0] == s["uplift_time"] is not None
        assert s["max_rotation"][0] == pytest.approx(rigid["max_rotation"], rel=0.01)
        assert s["max_rotation"][1] == pytest.approx(s["max_rotation"][0], rel=1e-3)
        assert s["max_joint_gap"][0] > 100 * 1e-6
        np.testing.assert_allclose(h["theta_2"], h["theta"], rtol=0, atol=1e-3 * s["max_rotation"][0])
    else:
        assert s["uplift_time"] is None and s["uplift_onset"] is None and s["rigid_body"]["uplift_time"] is None
        assert max(s["max_rotation"]) < 1e-6 / 0.36
        assert s["impacts"] == []


# ----------------------------------------------------------------------------------- records
def test_a_recorded_accelerogram_runs_end_to_end(tmp_path):
    """The PEER .AT2 file of tests/data (0.24 s, in g) scaled to a 0.3 g peak: below the uplift
    threshold, the block rides the table at rest. After the record's baseline correction the table
    ends at rest: its final velocity below 1 % of its peak (fem.loads.base_motion.baseline_corrected)."""
    s, h = run(tmp_path, "record", "--excitation", "record", "--record", str(DATA / "record_small.AT2"),
               "--amplitude-g", "0.3", "--t-end", "0.5")
    assert s["table"]["peak_acceleration"] == pytest.approx(0.3 * G, rel=1e-9)
    assert abs(s["table"]["final_velocity"]) < 0.01 * s["table"]["peak_velocity"]
    assert s["uplift_time"] is None and not s["slid"]
    assert s["energy"]["relative_error"] < 1e-3


@pytest.mark.slow
def test_a_ten_second_record_runs_end_to_end(tmp_path):
    """The 10 s band-limited record of tests/data (m/s2, a 0.002 g offset in it) scaled to a 0.35 g
    peak, run to its end (--t-end 10; the case's default adds 1 s at rest): the run completes with
    closed books (1e-3 of the table's input), the corrected table ends at rest (final velocity
    below 1 % of its peak, where the raw record's offset alone would leave 0.2 m/s), and the block,
    below g tan(alpha) = 0.45 g, never lifts, as the rigid block."""
    s, h = run(tmp_path, "noise", "--excitation", "record", "--record", str(DATA / "record_filtered_noise.csv"),
               "--amplitude-g", "0.35", "--t-end", "10")
    assert h["t"][-1] == pytest.approx(10.0, abs=1e-9)
    assert abs(s["table"]["final_velocity"]) < 0.01 * s["table"]["peak_velocity"]
    assert s["energy"]["relative_error"] < 1e-3
    assert s["uplift_time"] is None and s["rigid_body"]["uplift_time"] is None
