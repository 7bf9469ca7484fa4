"""cases/masonry_arch.py under the case contract (tests/test_contract.py: its short run, its refusals,
and a run for every flag of its --help whose check asserts the flag took effect)."""
from __future__ import annotations

import math

import pytest

#: a thick arch of 5 voussoirs: it stands its 0.05 s (the short run)
CONTRACT_SHORT = (["--voussoirs", "5", "--thickness-ratio", "0.3", "--t-end", "0.05", "--quiet", "--force"], "custom")
CONTRACT_PROGRESS = ("--voussoirs", "5", "--thickness-ratio", "0.3", "--t-end", "0.02")
CONTRACT_IMPOSSIBLE = [
    (["--voussoirs", "2"], ("--voussoirs", "from 3 to 200")), (["--radius", "-1"], ("--radius", "must be > 0")),
    (["--thickness-ratio", "2"], ("--thickness-ratio",)), (["--mu", "inf"], ("argument --mu", "must be a finite number")),
    (["--ramp-g", "0"], ("--ramp-g",)), (["--dt", "-1e-3"], ("--dt", "must be > 0")),
    (["--young", "0"], ("--young", "must be > 0")),
]


def _summary(result) -> dict:
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    return result.summary()


def check_short(result) -> None:
    """Stands its 0.05 s: collapsed false, the limit analysis says it stands from a t/R below 0.3."""
    s = _summary(result)
    assert s["parameters"]["voussoirs"] == 5 and s["parameters"]["thickness_ratio"] == 0.3
    assert s["collapse"]["collapsed"] is False and s["collapse"]["criterion"]["blocks"] == 5
    assert s["limit_analysis"]["stands"] is True and s["limit_analysis"]["minimum_thickness_ratio"] < 0.3
    assert s["t_reached"] == pytest.approx(0.05, abs=1e-12)
    assert "stands to t = 0.05 s" in result.out


def check_thin(result) -> None:
    """Seven voussoirs of 2 m radius, t/R 0.08 (its limit analysis: it cannot stand), softer and lighter
    stone, friction 0.6, dt 4e-3 s: it collapses within the second, the ParaView series written."""
    s = _summary(result)
    p = s["parameters"]
    assert (p["voussoirs"], p["radius"], p["mu"], p["young"], p["density"], p["dt"]) == (7, 2.0, 0.6, 1e10, 2000.0, 4e-3)
    assert s["limit_analysis"]["stands"] is False and s["limit_analysis"]["minimum_thickness_ratio"] > 0.08
    assert s["collapse"]["collapsed"] is True and s["collapse"]["collapsed_at"] < 1.5
    h = result.history()
    assert h["t"][1] - h["t"][0] == pytest.approx(4e-3, rel=1e-9)
    assert (result.folder / "solution.xdmf").is_file()


def check_ramp(result) -> None:
    """--ramp-g 1 over --ramp-time 2 s: the thick arch of 5 voussoirs collapses under the ramp, its
    multiplier within 5 % of the limit analysis's (a fast ramp: 0.75 g/s at mid-ramp), hinged at its
    joints."""
    s = _summary(result)
    c, reference = s["collapse"], s["limit_analysis"]
    assert s["parameters"]["ramp_g"] == 1.0 and s["parameters"]["ramp_time"] == 2.0
    assert c["collapsed"] is True and math.isfinite(reference["collapse_multiplier"])
    assert c["collapse_multiplier"] == pytest.approx(reference["collapse_multiplier"], rel=0.05)
    assert sorted(c["hinges"]) == sorted(reference["hinges"])


CONTRACT_FLAG_RUNS = [
    ("short", tuple(CONTRACT_SHORT[0]), check_short),
    ("thin", ("--voussoirs", "7", "--radius", "2", "--thickness-ratio", "0.08", "--mu", "0.6", "--young", "1e10",
              "--density", "2000", "--dt", "4e-3", "--t-end", "1.5", "--paraview", "--quiet"), check_thin),
    ("ramp", ("--voussoirs", "5", "--thickness-ratio", "0.3", "--ramp-g", "1", "--ramp-time", "2", "--quiet"),
     check_ramp),
]
