"""The collapse verdict of an assembly (fem.problem.collapse): the onset's back-extrapolation on a
motion of known law, the hinges read from the joints, the three verdicts, and a block on the ground
under a ramp of the base's acceleration, whose collapse multiplier has a closed form (lambda = b/h when
it tips, mu when it slides: the limit analysis of one block, contact.references.limit_analysis).

The arches (27 voussoirs, thresholds against the limit analysis) are the slow tests of
tests/test_masonry_arch_thickness.py and tests/test_masonry_arch_ramp.py."""
from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from contact.laws import Lagrange
from contact.references import limit_analysis as la
from fem import BaseMotion, Body, ElasticMaterial, Preload, Problem, Ramp, Support, Uniform, simulate
from fem.constants import GRAVITY
from fem.problem import Collapse, Contact
from fem.problem.collapse import ONSET_GROWTH, CollapseWatch
from fem.ranges import BadInput
from meshes.assemblies import column, write

STONE = ElasticMaterial(young=2e10, poisson=0.2, density=2500.0)


@pytest.mark.parametrize("kwargs", [dict(displacement=0.0), dict(onset=-1e-3), dict(displacement=float("nan")),
                                    dict(displacement=0.05, onset=0.01), dict(stop="yes"), dict(onset=True)])
def test_a_collapse_criterion_out_of_range_is_refused(kwargs):
    with pytest.raises(BadInput, match="collapse"):
        Collapse(**kwargs)


def _watch(criterion=Collapse(), pairs=()):
    """Two unit squares, the first moving rigidly along x; the second still (its size sqrt 2 m)."""
    points = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [2, 0], [3, 0], [3, 1], [2, 1]], dtype=float)
    return CollapseWatch(criterion, {"A": np.arange(4), "B": np.arange(4, 8)}, points, pairs, GRAVITY)


def _step(watch, t, x, gaps=None):
    u = np.zeros((8, 2))
    u[:4, 0] = x
    watch.observe(SimpleNamespace(state=SimpleNamespace(t=t, u=u.ravel())))
    return watch(None)


@pytest.mark.parametrize("t_c,k", [(2.0, 0.05), (3.7, 1.0), (1.234, 0.002)])
def test_the_onset_is_back_extrapolated_from_a_cubic_motion(t_c, k):
    """A mechanism under a load growing linearly past its limit moves as k (t - t_c)^3: the onset found
    from the two crossings lies within two steps of t_c (each crossing is late by less than a step),
    while the first crossing alone lags by (onset D / k)^(1/3); the multiplier is the ramp's a(t_c) / g."""
    ramp = Ramp(0.8 * GRAVITY, 10.0, math.inf)
    watch, dt = _watch(), 1e-3
    watch.begin(BaseMotion(duration=20.0, x=ramp), 0.0, np.zeros(16))
    size = math.sqrt(2.0)
    for t in np.arange(0.0, 20.0, dt):
        if _step(watch, t, k * max(t - t_c, 0.0) ** 3):
            break
    r = watch.report(finished=False)
    assert r["collapsed"] is True and r["largest_motion_block"] == "A"
    assert r["collapsed_at"] == pytest.approx(t_c + (0.1 * size / k) ** (1 / 3), abs=dt)
    assert abs(r["onset_at"] - t_c) <= 2 * dt
    assert r["first_motion_at"] - t_c == pytest.approx((1e-3 * size / k) ** (1 / 3), abs=dt)
    assert r["collapse_multiplier"] == pytest.approx(ramp.acceleration(r["onset_at"]) / GRAVITY, rel=1e-12)
    assert abs(r["collapse_multiplier"] - ramp.acceleration(t_c) / GRAVITY) <= 2 * dt * 1.5 * 0.8 / 10


def test_the_verdict_is_undecided_until_the_stages_have_run_and_no_onset_without_a_ramp():
    watch = _watch()
    watch.begin(BaseMotion(duration=5.0, x=None), 0.0, np.zeros(16))
    for t in np.arange(0.0, 1.0, 0.01):
        assert not _step(watch, t, 1e-5 * t)
    assert watch.report(finished=False)["collapsed"] is None
    assert watch.report(finished=True)["collapsed"] is False
    for t in np.arange(1.0, 2.0, 0.01):
        _step(watch, t, (t - 1.0))
    r = watch.report(finished=True)
    assert r["collapsed"] is True and r["first_motion_at"] is not None
    # no ramp: the onset's (t - t_c)^3 premise does not hold, nothing is said of it
    assert r["onset_at"] is None and r["collapse_multiplier"] is None and r["acceleration_at_onset_g"] is None
    assert not Collapse(stop=False).stop and not _watch(Collapse(stop=False))(None)


@pytest.mark.parametrize("pivot,angle,shift,expected", [
    ((1.0, 0.0), 0.3, 0.0, "rotation"),  # tipping on its right corner: |theta| D = 2 |c|
    ((0.5, 0.5), 0.3, 0.0, "rotation"),  # turning about its centre: no travel at all
    ((1.7, 0.5), 0.3, 0.0, "rotation"),  # about a point 1.2 from its centre: |theta| D = 1.41 |theta| >= 1.2 |theta|
    ((2.0, 0.5), 0.3, 0.0, "sliding"),  # about a point 1.5 from its centre: mostly travel
    ((0.0, 0.0), 0.0, 0.15, "sliding"),  # sliding, not turning
    ((0.0, 0.0), 0.02, 0.15, "sliding"),  # sliding while turning a little: 0.02 x 1.41 < 0.15
])
def test_the_mechanism_is_the_collapsed_blocks_rigid_motion(pivot, angle, shift, expected):
    """Block A (a unit square) moves rigidly, rotated by ``angle`` about ``pivot`` and shifted by ``shift``
    along x, until its motion passes 0.1 of its diagonal: the verdict's mechanism is ``expected``, the
    fitted rotation the angle (to round-off), the travel its centroid's."""
    watch = _watch()
    watch.begin(None, 0.0, np.zeros(16))
    X = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    for s in np.linspace(0.0, 1.0, 101):
        c, si = math.cos(s * angle), math.sin(s * angle)
        moved = (X - pivot) @ np.array([[c, si], [-si, c]]) + pivot + [s * shift, 0.0]
        u = np.zeros((8, 2))
        u[:4] = moved - X
        watch.observe(SimpleNamespace(state=SimpleNamespace(t=s, u=u.ravel())))
        if watch.collapsed_at is not None:
            break
    r = watch.report(finished=False)
    assert r["collapsed"] is True and r["mechanism"] == expected and r["mechanism_block"] == "A"
    centre = X.mean(axis=0)
    c, si = math.cos(s * angle), math.sin(s * angle)
    travel = np.hypot(*((centre - pivot) @ np.array([[c, si], [-si, c]]) + pivot + [s * shift, 0.0] - centre))
    assert r["mechanism_rotation"] == pytest.approx(s * angle, abs=1e-12)
    assert r["mechanism_translation"] == pytest.approx(travel, abs=1e-12)


def test_a_standing_assembly_has_no_mechanism():
    watch = _watch()
    watch.begin(None, 0.0, np.zeros(16))
    _step(watch, 0.0, 1e-5)
    r = watch.report(finished=True)
    assert r["collapsed"] is False and r["mechanism"] is None and r["mechanism_rotation"] is None


def test_hinges_are_joints_gaping_at_one_end_and_closed_at_the_other():
    """At the collapse: a hinge has a node closed and one open by more than onset x the blocks' median
    size (1.2e-3 m here); a joint open at every node has opened; one open by its elastic micrometre, or
    closed, is neither."""
    def pair(label, status, gap):
        state = SimpleNamespace(status=np.array(status), gap=np.array(gap, dtype=float))
        return SimpleNamespace(label=label, term=SimpleNamespace(state=lambda: state))

    pairs = [pair("hinge", [1, 0], [0.0, 5e-3]), pair("apart", [0, 0], [2e-2, 3e-2]), pair("shut", [1, 1], [0, 0]),
             pair("elastic", [1, 0], [0.0, 1e-6]), pair("none", [], [])]
    watch = _watch(pairs=pairs)
    watch.begin(None, 0.0, np.zeros(16))
    _step(watch, 0.0, 0.0)
    assert watch.report(finished=False)["hinges"] == []
    _step(watch, 1.0, 0.5)
    r = watch.report(finished=False)
    assert r["hinges"] == ["hinge"] and r["opened"] == ["apart"]


@pytest.mark.parametrize("width,height,mu,sign", [(0.2, 0.6, 0.8, 1.0), (0.3, 0.6, 0.8, -1.0), (0.4, 0.4, 0.3, 1.0)])
def test_a_block_under_a_ramp_collapses_at_its_limit_analysis_multiplier(tmp_path, width, height, mu, sign):
    """A block (2 x 2 QUA4, E 2e10 Pa) on a base, the base's acceleration ramped to twice the limit
    multiplier over 10 s: it tips at lambda = b/h (mu above it, hinged at its base) or slides at mu
    (below b/h, no hinge). Measured within 0.3 % (dt 5e-3 s: the onset within two steps, 0.3 % of the
    ramp); held to 1 %."""
    block = column(1, width, height, size=max(width, height))
    blocks, joints, _, labels = la.of_assembly(block, mu)
    state = la.collapse_multiplier(blocks, joints, direction=-sign)
    lam = min(width / height, mu)
    assert state.multiplier == pytest.approx(lam, rel=1e-9)
    problem = Problem(write(block, tmp_path / "block.msh"), bodies=[Body(b.name, STONE) for b in block.bodies],
                      supports=[Support(g) for g in block.held], contacts=[Contact(Lagrange(mu=mu))])
    out = simulate(problem, [Preload(), BaseMotion(duration=10.0, x=Ramp(sign * 2 * lam * GRAVITY, 10.0, math.inf))],
                   steps=Uniform(5e-3), collapse=Collapse())
    c = out.collapse
    assert out.status == "complete" and c["collapsed"] is True
    assert c["collapse_multiplier"] == pytest.approx(lam, rel=0.01)
    assert c["hinges"] == [labels[k] for k, _ in state.hinges]
    assert bool(c["hinges"]) == (width / height < mu)
    assert c["mechanism"] == ("rotation" if width / height < mu else "sliding") and c["mechanism_block"] == "DRUM_1"


def test_no_collapse_verdict_unless_asked(tmp_path):
    block = column(1, 0.2, 0.6, size=0.6)
    problem = Problem(write(block, tmp_path / "block.msh"), bodies=[Body(b.name, STONE) for b in block.bodies],
                      supports=[Support(g) for g in block.held], contacts=[Contact(Lagrange(mu=0.8))])
    with pytest.raises(BadInput, match="collapse"):
        simulate(problem, [Preload()], collapse="yes")
    with tempfile.TemporaryDirectory() as out:
        outcome = simulate(problem, [Preload(), BaseMotion(duration=0.05)], steps=Uniform(5e-3), out=Path(out) / "run")
        assert outcome.collapse is None and "collapse" not in outcome.summary()


BLOCK_FILE = """
mesh = "block.msh"
bodies = [{ group = "BASE", material = "stone" }, { group = "DRUM_1", material = "stone" }]
supports = [{ group = "BASE_BOTTOM" }]
contacts = [{ law = "lagrange", mu = 0.8 }]
[materials]
stone = { young = 2e10, poisson = 0.2, density = 2500.0 }
[[stages]]
kind = "preload"
[[stages]]
kind = "base_motion"
duration = 10.0
x = { kind = "ramp", amplitude_g = 0.6666666666666666, ramp_time = 10.0, hold_time = inf }
[steps]
kind = "uniform"
dt = 5e-3
"""


def test_a_problem_file_states_its_collapse_criterion(tmp_path):
    """[collapse] in a problem file: its keys reach the run (the block's multiplier b/h = 1/3 as in
    Python), and a criterion whose onset comes after its collapse is refused naming the table."""
    from fem.problem import file as problem_file
    from cases.problem_file.cli import main as command_main
    from cases.problem_file import CONTACT

    write(column(1, 0.2, 0.6, size=0.6), tmp_path / "block.msh")
    (tmp_path / "block.toml").write_text(BLOCK_FILE + "[collapse]\nonset = 2e-3\n")
    pf = problem_file.load(tmp_path / "block.toml", contact=CONTACT)
    assert pf.collapse == Collapse(onset=2e-3)
    assert command_main(["run", str(tmp_path / "block.toml"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    c = json.loads((tmp_path / "out" / "summary.json").read_text())["collapse"]
    assert c["collapsed"] is True and c["criterion"]["onset"] == 2e-3
    assert c["collapse_multiplier"] == pytest.approx(1 / 3, rel=0.01) and c["hinges"] == ["DRUM_1/BASE"]
    (tmp_path / "bad.toml").write_text(BLOCK_FILE + "[collapse]\nonset = 0.02\n")
    with pytest.raises(BadInput, match=r"collapse.*onset"):
        problem_file.load(tmp_path / "bad.toml", contact=CONTACT)
    (tmp_path / "none.toml").write_text(BLOCK_FILE)
    assert problem_file.load(tmp_path / "none.toml", contact=CONTACT).collapse is None

