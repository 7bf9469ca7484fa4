"""SDNV105 — the phases of a run and the release's windows.

The benchmark's time functions (gravity ramp, tilt ramp, the exact rule's restarted ramp), the
self-weight phase, the tilt phase by either rule (Code_Aster's push or a rigid rotation,
:class:`RigidTilt`) and what it must leave (:func:`tilt_check`), the phases of the free rocking
(:func:`release_phase`), and the release schedules: the benchmark's windows (``SCHEDULES``) and which
ones a run takes (:func:`release_windows`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from fem.loads.functions import PiecewiseLinear
from fem.loads.applied import Gravity, ImposedDisplacement, RigidRotation
from fem.problem import ImposedMotion, Release, SelfWeight, Support, Tilt
from fem.problem.physics import dynamic_phase
from fem.stage.phase import NewtonSettings, Phase, State
from fem.stage.schemes import HHT, Theta
from cases.sdnv105.config import PREDICTOR, Config, G, TILT_RULES
from cases.sdnv105.model import Study
from cases.sdnv105.rigid import rigid_potential_drop


# Benchmark time functions (docs/references.md, "SDNV105's phases")
GRAVITY_RAMP = PiecewiseLinear((-1.95, -1.65), (0.0, 1.0))
TILT_RAMP = PiecewiseLinear((-1.95, -1.2, -1.1, -1.0, -0.8, -0.5, 0.0), (0.0, 0.0, 0.005, 0.1, 0.3, 1.0, 1.0))
# s: the tilt restarts from the self-weight state at this instant (docs/references.md, "SDNV105's phases")
TILT_START = -1.05


def _restarted(ramp: PiecewiseLinear, t0: float) -> PiecewiseLinear:
    """``ramp`` rescaled to rise from 0 at ``t0`` to its final value 1, with the same shape after t0."""
    r0 = ramp(t0)
    times = (t0, *(t for t in ramp.times if t > t0))
    return PiecewiseLinear(times, tuple((ramp(t) - r0) / (1.0 - r0) for t in times))


# The exact rule's rotation theta(t) = tilt * EXACT_TILT_RAMP(t): TILT_RAMP restarted at -1.05 s. TILT_RAMP
# is already 0.0525 there (Code_Aster's restart keeps it), so imposed as it is it would turn the block by
# 0.0525 * tilt within the first 7.5 ms step: at 0.1 rad that kick (100 J of kinetic energy) sets the
# block bouncing on its corner against the stiff table for the whole tilt (1.55 MJ of strain energy at
# its end, measured); the rotation of the state at -1.05 s must be the identity at -1.05 s.
EXACT_TILT_RAMP = _restarted(TILT_RAMP, TILT_START)

# The tilt must leave the block as the rigid block tilted: a run whose block stores more strain energy
# at the end of the tilt than this fraction of the rigid block's potential-energy drop to its first
# impact stops there (the release would start from another state than the one its references assume)
TILT_STRAIN_LIMIT = 0.01


@dataclass(frozen=True)
class Window:
    """A row of the release schedule: [t_start, t_end], step ``dt`` ("coarse"/"fine" or seconds),
    HHT alpha and MODI_EQUI ('OUI' = True)."""

    t_start: float
    t_end: float
    step: str
    alpha: float
    modified: bool = False


def schedule(rows, t_end):
    """The windows of the release schedule ``rows`` (tuples of :class:`Window`'s fields) that start
    before ``t_end``, the last one cut at ``t_end``."""
    return tuple(Window(a, min(b, t_end), s, al, m) for a, b, s, al, m in rows if a < t_end)


# Release schedules (docs/references.md: "SDNV105's phases" for a, "SDNV105 b and c" for b and c),
# continued to 0.33 s as asked
SCHEDULES = {
    "a": [(0.0, 0.0025, "fine", -0.1, False), (0.0025, 0.0525, "coarse", 0.0, False),
          (0.0525, 0.0575, "fine", -0.2, False), (0.0575, 0.14, "coarse", 0.0, False),
          (0.14, 0.145, "fine", -0.2, False), (0.145, 0.205, "coarse", 0.0, False),
          (0.205, 0.2125, "fine", -0.2, False), (0.2125, 0.2575, "coarse", 0.0, False),
          (0.2575, 0.265, "fine", -0.2, False), (0.265, 0.2975, "coarse", 0.0, False),
          (0.2975, 0.3075, "fine", -0.2, False), (0.3075, 1.0, "coarse", 0.0, False)],
    "b": [(0.0, 0.0025, "fine", -0.1, False), (0.0025, 0.05375, "coarse", 0.0, False),
          (0.05375, 0.05875, "fine", -0.1, False), (0.05875, 0.13375, "coarse", 0.0, False),
          (0.13375, 0.145, "fine", -0.1, False), (0.145, 0.1925, "coarse", 0.0, False),
          (0.1925, 0.2025, "fine", -0.1, True), (0.2025, 0.2325, "coarse", 0.0, False),
          (0.2325, 0.2425, "fine", -0.1, True), (0.2425, 0.265, "coarse", 0.0, False),
          (0.265, 0.275, "fine", -0.1, True), (0.275, 1.0, "coarse", 0.0, False)],
    "c": [(0.0, 0.0025, "fine", -0.1, False), (0.0025, 0.0525, "coarse", 0.0, False),
          (0.0525, 0.06, "fine", -0.2, False), (0.06, 0.14, "coarse", 0.0, False),
          (0.14, 0.145, "fine", -0.2, False), (0.145, 0.205, "coarse", 0.0, False),
          (0.205, 0.215, "fine", -0.2, False), (0.215, 0.2575, "coarse", 0.0, False),
          (0.2575, 0.265, "fine", -0.2, False), (0.265, 0.295, "coarse", 0.0, False),
          (0.295, 0.31, "fine", -0.2, False), (0.31, 1.0, "coarse", 0.0, False)],
}


def supports(study: Study) -> tuple[ImposedDisplacement, ...]:
    """Table supports (a, c, d): DY = 0 on CTGROUND, DX = 0 on S1. Nothing for b (no table)."""
    if not study.config.spec.with_table:
        return ()
    return (ImposedDisplacement("CTGROUND", "y"), ImposedDisplacement("S1", "x"))


def anchor(study: Study) -> str:
    """The base node whose DX the self-weight and the code_aster tilt hold: O1 (b: O)."""
    return "O" if study.config.spec.contact == "penalty" else "O1"


def self_weight_stage(study: Study) -> SelfWeight:
    """Self-weight, -1.95 -> -0.825 s (docs/references.md, "SDNV105's phases"): gravity ramped, DX(O1) held
    (b: DX(O)), frictionless; its steps are 7.5 ms with HHT alpha = -0.3 (:func:`stage_steps`)."""
    spec = study.config.spec
    newton = NewtonSettings(rela=1e-6, maxi=2e-3 if spec.name != "b" else 2e-4, max_iterations=40,
                            predictor=PREDICTOR)
    return SelfWeight(GRAVITY_RAMP.times[0], GRAVITY_RAMP.times[-1], -0.825, hold=[Support(anchor(study), ("x",))],
                      friction=0.0, newton=newton, name="self-weight", contact_events=preload_events(study))


def preload_events(study: Study) -> str | None:
    """The contact events of the self-weight and the tilt: Code_Aster's immediate rules for the multiplier
    contacts (a, c; d's before its release), whatever the mass; b's shock springs have none (None)."""
    return "immediate" if study.config.spec.contact in ("lagrange", "augmented", "theta") else None


def release_events(study: Study) -> str | None:
    """The release's contact events: Config.contact_events_resolved for a and c (located with the
    redistributed mass by default), Code_Aster's immediate rules for d's position-level term before its
    velocity-level continuation takes over; b's springs have none (None)."""
    spec = study.config.spec
    return (study.config.contact_events_resolved if spec.contact in ("lagrange", "augmented") else
            "immediate" if spec.contact == "theta" else None)


@dataclass(frozen=True)
class RigidTilt(RigidRotation):
    """The exact rule's imposed rotation of a node (fem.loads.applied.RigidRotation), theta(t) = angle *
    EXACT_TILT_RAMP(t) by default. Counter-clockwise about the base's left corner O, the top moves
    towards -x: Code_Aster's push DX(C1) < 0 is the same sense."""

    ramp: Callable[[float], float] = EXACT_TILT_RAMP


def tilt_nodes(config: Config) -> tuple[str, ...]:
    """The nodes whose two components the exact tilt rule imposes: C1, and a second node of the
    base so that the pair fixes the block's rotation and position: O1 for a, c, d (O, the pivot, is
    a node of the Lagrange contact, whose multipliers must not act on an imposed dof); O for b,
    whose corners rest on shock springs (forces, no multipliers) and which holds DX(O) in the
    self-weight phase: held at its self-weight position, the pivot neither slides nor sinks."""
    return ("C1", "O") if config.spec.contact == "penalty" else ("C1", "O1")


def tilt_stage(study: Study):
    """Tilt, restarted from the self-weight state at -1.05 s, to 0 s (docs/references.md,
    "SDNV105's phases"), by the rule ``config.tilt_rule_resolved`` (TILT_RULES); steps of 7.5 ms
    with HHT alpha = -0.6:

    * ``code_aster``: DX(C1) = -tilt * height * TILT_RAMP(t), DX(O1) held at 0 (b: DX(O)), the other
      components free (an :class:`fem.problem.ImposedMotion`): Code_Aster's small-angle push. It turns
      the block's axis by asin(tilt), not tilt, and, TILT_RAMP being 0.0525 at -1.05 s, its first step
      pushes C1 by 0.0525 * tilt * height at once: harmless at 0.01 rad (the benchmark), at 0.1 rad the
      kick sets the block bouncing on its corner for the whole tilt (README);
    * ``exact``: both components of the nodes of :func:`tilt_nodes` follow the rigid rotation by
      theta(t) = tilt * EXACT_TILT_RAMP(t) of their position at -1.05 s about O's position then (a
      :class:`fem.problem.Tilt`); the rest of the block follows elastically. Newton: RESI_GLOB_RELA
      1e-5 only: the block's internal force at a rigid rotation of the reference mesh is not zero but
      2e-4 N (0.01 rad) to 6e-4 N (0.3 rad) of round-off (E = 6e11 Pa on 2 cm wide elements), above
      the benchmark's RESI_GLOB_MAXI 1e-4 N, which the code_aster rule keeps."""
    cfg, spec = study.config, study.config.spec
    friction = spec.tilt_friction if spec.tilt_friction == 0.0 else cfg.mu
    if cfg.tilt_rule_resolved == "code_aster":
        motions = (ImposedDisplacement(anchor(study), "x"),
                   ImposedDisplacement("C1", "x", -cfg.tilt_angle * cfg.height, TILT_RAMP))
        return ImposedMotion(0.0, motions, start=TILT_START, friction=friction,
                             newton=NewtonSettings(rela=1e-5, maxi=1e-4, max_iterations=30, predictor=PREDICTOR),
                             name="tilt", contact_events=preload_events(study))
    return Tilt(0.0, cfg.tilt_angle, tilt_nodes(cfg), "O", EXACT_TILT_RAMP, start=TILT_START, friction=friction,
                newton=NewtonSettings(rela=1e-5, max_iterations=30, predictor=PREDICTOR), name="tilt",
                contact_events=preload_events(study))


def tilt_phase(study: Study, start: State) -> Phase:
    """The tilt's phase from the restart state ``start`` (:func:`tilt_stage`, fem.problem.physics)."""
    if not math.isclose(start.t, TILT_START, abs_tol=1e-9):
        raise ValueError(f"the tilt restarts from the self-weight state at {TILT_START} s, got t = {start.t} s")
    return dynamic_phase(study.assembled, tilt_stage(study), start, study.config.spec.newton_release, HHT(-0.6))


def tilt_check(study: Study, start: dict, end: dict, u: np.ndarray) -> dict:
    """What the tilt left, from the history rows of its start (``start``, the self-weight state at
    -1.05 s) and end (``end``, 0 s) and the displacements ``u`` (n_dofs,) at its end: the rule, the rotation of the segment
    O1 -> C1 (the block's axis; asked: --tilt-angle), the strain energy at both ends and at the end
    relative to the rigid block's potential-energy drop. ``passed`` is False when that ratio exceeds
    TILT_STRAIN_LIMIT: the tilt did not leave the block tilted rigidly (the release would start from
    another state than its references assume)."""
    cfg, mesh = study.config, study.mesh
    x = mesh.points[:, :2] + np.asarray(u).reshape(-1, 2)
    base, top = x[mesh.node("O1")], x[mesh.node("C1")]
    axis0 = mesh.points[mesh.node("C1"), :2] - mesh.points[mesh.node("O1"), :2]
    axis = top - base
    rotation = math.atan2(axis0[0] * axis[1] - axis0[1] * axis[0], axis0 @ axis)
    drop = rigid_potential_drop(cfg)
    ratio = end["strain_energy"] / drop
    rule = cfg.tilt_rule_resolved
    return {"rule": rule, "description": TILT_RULES[rule], "tilt_angle": cfg.tilt_angle, "height": cfg.height,
            "rotation": rotation,
            "dy_O": end["dy_O"], "strain_energy_start": start["strain_energy"],
            "strain_energy_end": end["strain_energy"], "rigid_potential_drop": drop,
            "strain_energy_ratio": ratio, "limit": TILT_STRAIN_LIMIT, "passed": bool(ratio <= TILT_STRAIN_LIMIT)}


def tilt_failure(check: dict) -> str:
    """The one-line reason a run stops after a tilt that failed :func:`tilt_check`."""
    jump = TILT_RAMP(TILT_START) * check["tilt_angle"] * check["height"]
    how = (f"its first step pushes C1 by {1e3 * jump:.3g} mm at once (TILT_RAMP is {TILT_RAMP(TILT_START):g} at the "
           f"restart), a kick that leaves the block bouncing on its corner; --tilt-rule exact turns it rigidly "
           f"from rest" if check["rule"] == "code_aster" else "the imposed rotation strains the block")
    return (f"tilt: the block stores {check['strain_energy_end']:.4g} J of strain energy at the end of the tilt "
            f"({check['rule']} rule), {check['strain_energy_ratio']:.3g} times the rigid block's potential-energy "
            f"drop to its first impact ({check['rigid_potential_drop']:.4g} J; the limit is "
            f"{100 * check['limit']:g} %): {how}; the release was not run")


def release_scheme(study: Study, alpha: float, modified: bool = False):
    """The free rocking's scheme: HHT(alpha) (--alpha, when given, in every window) with MODI_EQUI
    ``modified``, or the theta-scheme for modeling d."""
    cfg = study.config
    alpha = alpha if cfg.alpha is None else cfg.alpha
    return Theta(cfg.theta) if cfg.spec.contact == "theta" else HHT(alpha, modified_equilibrium=modified)


def release_phase(study: Study, name: str, t0: float, t1: float, dt: float, alpha: float,
                  modified: bool = False) -> Phase:
    """A phase of the free rocking: constant gravity, supports, friction mu; :func:`release_scheme`."""
    cfg = study.config
    return Phase(name, t0, t1, dt, release_scheme(study, alpha, modified), gravity=Gravity((0.0, -G)),
                 constraints=supports(study), friction=cfg.mu, newton=cfg.spec.newton_release,
                 archive_every=cfg.archive_every)


def release_windows(study: Study) -> list[Window]:
    """The release windows: the benchmark's schedule, or for event-driven steps (Config.steps:
    --auto-steps, a custom run's default) its fine start followed by one coarse window (run by
    fem.time.stepping, cases.sdnv105.release.run_release)."""
    cfg = study.config
    if cfg.spec.contact == "theta":  # d: uniform steps, no windows (impacts are first-order events)
        rows = [(0.0, 1e9, "uniform", 0.0, False)]
    elif cfg.steps == "events":
        rows = [(0.0, 0.0025, "fine", -0.1, False), (0.0025, 1e9, "coarse", 0.0, False)]
    else:
        rows = SCHEDULES[cfg.modeling]
    return list(schedule(rows, cfg.t_end))


def release_stage(study: Study) -> Release:
    """The free rocking from rest at 0 s to --t-end: constant gravity, friction mu, the modeling's Newton, its
    contact events (:func:`release_events`)."""
    cfg = study.config
    return Release(cfg.t_end, friction=cfg.mu, newton=cfg.spec.newton_release, name="release",
                   contact_events=release_events(study))
