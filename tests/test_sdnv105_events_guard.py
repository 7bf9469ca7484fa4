"""SDNV105 with the redistributed mass and located contact events: what the friction guard and the
release at a step's start do, each on its own run (slow; the study of the located events is
tests/test_sdnv105_events.py, whose helpers these use). Runtime: a run of A to 0.26 s without the
friction guard, 35 s, and one of C to 0.21 s, 45 s, on this 2-core machine."""
from __future__ import annotations

import json

import numpy as np
import pytest

from test_sdnv105_events import _history, common


@pytest.mark.slow
def test_without_the_friction_guard_a_step_gives_energy_back(tmp_path, monkeypatch):
    """The guard is what keeps the friction book non-negative: with it off (threshold infinite),
    the step after the fourth impact at dt = 5e-5 s gives back about 0.1 J (measured 0.107 J), and
    the run's creation watch (fem.stage.energy.CreationWatch, 1 % of the drop for these located rules)
    stops it there: status failed, exit 1, the time and the node named."""
    import fem.time.dynamics as dynamics
    monkeypatch.setattr(dynamics, "FRICTION_CREATION", np.inf)
    code = common.run_case("a", ["--out", str(tmp_path), "--no-paraview", "--quiet", "--force", "--mass",
                                 "redistributed", "--dt", "5e-5", "--dt-fine", "5e-5", "--alpha", "0", "--t-end",
                                 "0.26", "--contact-events", "auto"])
    summary, h = json.loads((tmp_path / "summary.json").read_text()), _history(tmp_path / "history.csv")
    assert code == 1 and summary["status"] == "failed"
    assert "energy created at a contact event" in summary["message"] and "node O" in summary["message"]
    assert [i["corner"] for i in summary["impacts"]] == ["A", "O", "A", "O"]
    assert np.diff(h["friction_work"]).min() < -0.01 * summary["energy"]["potential_drop"]


@pytest.mark.slow
def test_c_a_release_jumping_at_the_step_start_opens_there(tmp_path, monkeypatch):
    """SDNV105 C (augmented Lagrangian, HHT -0.2) with the redistributed mass at dt = 5e-5 s. At the
    third impact (on A, t = 0.1995 s) the landing is located and the rest of its step closes three
    base nodes at its start; O's reaction held closed jumps there, from 1832 N at t_n to -550 kN an
    instant later. The release search then converged on the step start and committed a step of
    about 1e-15 s, after which the run blew up (kinetic energy 6e16 J, books missing by 4e14 % of
    the drop; exit 1). Such a node now opens at the step start (fem.time.dynamics.step_with_release):
    no committed step is shorter than 1e-6 of dt, the books balance (measured 2.9e-6 of the drop)
    and no step of the contact gives energy back (measured -5e-12 J at worst; before, a release at
    a window boundary was not located and gave back 1/2 R_N,n g_{n+1} = 4.5e-5 J at t = 0.14 s)."""
    import fem.time.dynamics as dynamics
    dt, steps = 5e-5, []
    newton_step = dynamics._newton_step

    def recording(ctx, state, t1, *args, **kwargs):
        out = newton_step(ctx, state, t1, *args, **kwargs)
        if not kwargs.get("probe") and ctx.phase.name not in ("self-weight", "tilt"):
            steps.append(t1 - state.t)
        return out

    monkeypatch.setattr(dynamics, "_newton_step", recording)
    code = common.run_case("c", ["--out", str(tmp_path), "--no-paraview", "--quiet", "--force", "--mass",
                                 "redistributed", "--dt", str(dt), "--dt-fine", str(dt), "--t-end", "0.21"])
    assert code == 0
    summary, h = json.loads((tmp_path / "summary.json").read_text()), _history(tmp_path / "history.csv")
    assert [i["corner"] for i in summary["impacts"]] == ["A", "O", "A"]
    assert min(steps) > 1e-6 * dt
    e = summary["energy"]
    assert e["relative_error"] < 1e-5
    assert np.diff(h["contact_work"]).min() > -1e-6 * e["potential_drop"]
    # the energy the block has to give: the drop and the strain energy left by the tilt (4e-5 J)
    assert h["ke"].max() <= (e["potential_drop"] + h["strain_energy"][0]) * (1 + 1e-9)
