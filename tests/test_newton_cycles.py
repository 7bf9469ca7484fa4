"""Newton iterates that repeat (fem.time.newton.CycleGuard) are relaxed, then fail the step at once.

* The textbook cycle: Newton's method on f(x) = x^3 - 2x + 2 from x = 0 alternates 0, 1, 0, 1 ... for ever
  (each tangent points at the other point); with the guard the repeat is relaxed to x = 1/2, from which
  Newton converges to the real root, -1.76929235423863 (the root of the cubic by Cardano's formula).
* A sequence that keeps repeating after CYCLE_RELAXATIONS relaxations is failed (None) at its next repeat.
* Iterates that never repeat are left alone: the correction returned is Newton's own array.
* The running-bond wall of 11 bricks under its record (0.5 s, HHT alpha -0.3): without the guard Newton falls
  into cycles that run to the iteration limit, 40, and the steps are cut (6 cuts measured); with it no step is
  cut. The wall stands (its bricks turn by elastic rotations of 1e-5 rad) and the two runs end in the same
  state: every brick's rotation at 0.5 s the same to 1e-6 (measured 1e-8; along the way the cut steps, a
  quarter of dt with HHT's dissipation, differ by up to 5 % of a rotation's largest), both energy books closed
  to 1e-6 of the input.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from contact.laws import Penalty
from fem import BaseMotion, Body, ElasticMaterial, Preload, Problem, Support, Uniform, read_record, simulate
from fem.problem import Contact
from fem.time import newton
from fem.time.newton import CYCLE_RELAXATIONS, RELAXATION, CycleGuard
from meshes.assemblies import running_bond_wall, write

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "examples" / "records" / "synthetic_10s_h_v.csv"
CARDANO_ROOT = -1.76929235423863  # x^3 - 2x + 2 = 0: -(cbrt(1 + sqrt(19/27)) + cbrt(1 - sqrt(19/27)))


def _cubic_newton(guard: CycleGuard | None, iterations: int = 40) -> list[float]:
    x, seen = np.array([0.0]), [0.0]
    for _ in range(iterations):
        dx = -(x ** 3 - 2 * x + 2) / (3 * x ** 2 - 2)
        if guard is not None:
            dx = guard.correction(x, dx)
            assert dx is not None
        x = x + dx
        seen.append(float(x[0]))
        if abs(float(x[0] ** 3 - 2 * x[0] + 2)) < 1e-14:
            break
    return seen


def test_cardanos_root_is_the_one_the_formula_gives():
    assert abs(CARDANO_ROOT ** 3 - 2 * CARDANO_ROOT + 2) < 1e-12


def test_the_textbook_cycle_is_relaxed_and_newton_converges():
    plain = _cubic_newton(None)
    assert plain[:6] == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0] and len(plain) == 41  # cycles to the limit
    guarded = _cubic_newton(CycleGuard())
    assert guarded[:3] == [0.0, 1.0, 1.0 - RELAXATION]  # the repeat of 0 relaxed to the midpoint
    assert abs(guarded[-1] - CARDANO_ROOT) < 1e-12 and len(guarded) < 20


def test_a_cycle_that_goes_on_fails_after_the_relaxations():
    guard, x = CycleGuard(), np.array([0.0, 2.0])
    step = np.array([1.0, -1.0])
    taken = []
    for _ in range(CYCLE_RELAXATIONS + 2):
        guard.correction(x, step)  # a step out ...
        back = guard.correction(x + step, -step)  # ... and straight back: a repeat
        taken.append(back)
        if back is None:
            break
        x = x + step + back
    assert [b is None for b in taken] == [False] * CYCLE_RELAXATIONS + [True]
    for b in taken[:-1]:
        np.testing.assert_array_equal(b, -RELAXATION * step)


def test_iterates_that_never_repeat_keep_newtons_corrections():
    rng = np.random.default_rng(3)
    guard, x = CycleGuard(), rng.standard_normal(50)
    for k in range(30):  # a converging sequence: corrections halving, never back to an earlier iterate
        dx = 0.5 ** k * rng.standard_normal(50)
        assert guard.correction(x, dx) is dx
        x = x + dx
    assert guard.relaxed == 0


def _wall_run(tmp_path: Path):
    wall = running_bond_wall(courses=2, bricks=5, brick=(0.4, 0.2), size=0.2)
    stone = ElasticMaterial(young=1e10, poisson=0.2, density=2000.0)
    joints = Contact(Penalty(1e8, mu=0.7, tangential_stiffness=1e8), merge=True, name="JOINTS")
    problem = Problem(write(wall, tmp_path / "wall.msh"), bodies=[Body(b.name, stone) for b in wall.bodies],
                      supports=[Support(g) for g in wall.held], contacts=[joints])
    shake = BaseMotion(0.5, x=read_record(RECORD, column=1, scale=2.5), y=read_record(RECORD, column=2, scale=2.5))
    return simulate(problem, [Preload(), shake], steps=Uniform(2e-3, alpha=-0.3))


def test_the_wall_steps_are_no_longer_cut_by_newton_cycles(tmp_path, monkeypatch):
    guarded = _wall_run(tmp_path)
    monkeypatch.setattr(CycleGuard, "correction", lambda self, x, dx: dx)
    plain = _wall_run(tmp_path)
    assert plain.stats["subdivisions"] >= 3  # the cycles cut steps (6 measured)
    assert guarded.stats["subdivisions"] < plain.stats["subdivisions"]
    for run in (guarded, plain):
        assert run.status == "complete" and run.energy["relative_error"] <= 1e-6
    for column in [c for c in guarded.history if c.startswith("theta[BRICK")]:
        a, b = guarded.history[column][-1], plain.history[column][-1]
        assert abs(a - b) <= 1e-6 * abs(a), column  # measured 1e-8
