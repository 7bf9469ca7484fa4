"""SDNV105 — rocking of a 2-D graphite block on a table: what the four modelings share.

The benchmark (../shared/reference/sdnv105.md, document ../shared/seeds/004_...txt): a block of
width 2b = 0.36 m and height 2l = 0.80 m rests on a stiff table; gravity is ramped (self-weight),
the top centre C1 is pushed by DX = -0.008 m (tilt of 0.01 rad about corner O) while O1 is held in
x, then the block is released at rest (t = 0) and rocks, hitting the table five times by 0.33 s.

Modelings (one script each, ``cases/sdnv105{a,b,c,d}.py``):

* a — QUA4 reference mesh with the table, Lagrange contact (Code_Aster DISCRETE/LAGRANGIEN), HHT
  with the benchmark's windows (fine steps with alpha = -0.2 around each impact).
* b — block only (the document says TRIA6; the public Code_Aster file uses QUA4: both meshes are
  available, TRIA6 by default), three penalty shock springs at O, A, O1 on a rigid floor (DIS_CHOC).
* c — QUA4 reference mesh with the table, augmented-Lagrangian contact (Code_Aster CONTINUE);
  run to 0.33 s (Code_Aster stops at 0.145 s); self-weight and tilt frictionless, as in its file.
* d — QUA4 with the table, Lagrange contact with a Moreau-Jean theta-scheme (velocity level,
  impulses), uniform dt.

Pipeline: mesh -> model -> contact -> phases (self-weight, tilt, release schedule) -> records
(history.csv from the release on, selfweight_history.csv and tilt_history.csv before) -> post-processing as the
benchmark's §1.6 -> summary.json, report.md, plots, ParaView series.

Where the reference documents disagree the Code_Aster test files are followed: table
AMOR_ALPHA = 1.6e-3 s (a, c files), not the document's 0.001.
"""
from __future__ import annotations

import argparse
import copy
import functools
import json
import logging
import math
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from fem.constants import GRAVITY
from contact.multipliers import MultiplierContact
from contact.references import rocking
from contact.impacts import velocity_contact_from
from contact.output import ContactRecorder, impulse
from contact.penalty import ShockLaw, ShockSprings
from contact.state import OPEN
from contact.zone import RigidPlane, contact_zone, node_zone
from fem.io import output_folder
from fem import ranges
from fem.time.dynamics import ConvergenceError, NewtonSettings, Phase, State, StepResult, integrate
from fem.stage.energy import CreationWatch, EnergyCreated
from fem.loads.functions import PiecewiseLinear
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import Mesh
from fem.mesh.check import check_mesh
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.io.recorder import NodeProbe, RunRecorder, add_run_statistics, record_steps, rows_as_arrays, timed_steps
from fem.run.lifecycle import (EXIT_FAILED, BadInput, CaseParser, Estimate, Run, add_run_flags, check_materials,
                     check_resources, command_line, count_steps, estimate, execute, finite, prepare_output,
                     require_all)
from fem.time.interrupt import Interrupted
from fem.stage.schemes import HHT, Theta
from fem.time.stepping import EventSteps, run_with_events, time_to_closing

logger = logging.getLogger(__name__)

G = GRAVITY
# verbatim copy of ../shared/reference/code_aster_tests.json (tests check it is identical)
REFERENCE_FILE = Path(__file__).resolve().parent / "reference" / "code_aster_tests.json"

# Benchmark time functions (sdnv105.md §1.3)
GRAVITY_RAMP = PiecewiseLinear((-1.95, -1.65), (0.0, 1.0))
TILT_RAMP = PiecewiseLinear((-1.95, -1.2, -1.1, -1.0, -0.8, -0.5, 0.0), (0.0, 0.0, 0.005, 0.1, 0.3, 1.0, 1.0))
TILT_START = -1.05  # s: the tilt restarts from the self-weight state at this instant (sdnv105.md §1.3)
#: the smallest --tilt-angle [rad]: the rigid reference (contact.references.rocking) integrates the angle with an
#: absolute tolerance of 1e-14 rad (cases/rigid_rocking.py's AMPLITUDE_FLOOR, for the same reason)
TILT_FLOOR = 1e-8


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

# How the tilt phase imposes the tilt (--tilt-rule; tilt_phase). "auto" is resolved by Config.resolved.
TILT_RULES = {
    "code_aster": "Code_Aster's small-angle push: DX(C1) = -tilt * height * TILT_RAMP(t), DX(O1) held at 0 "
                  "(b: DX(O)); the block's axis turns by asin(tilt), and TILT_RAMP being 0.0525 at the restart, "
                  "the first step pushes C1 by 0.0525 * tilt * height at once: right for the benchmark's 0.01 rad",
    "exact": "a rigid rotation about O by tilt * EXACT_TILT_RAMP(t) (TILT_RAMP restarted from 0 at -1.05 s): "
             "both components of C1 and O1 (b: C1 and O) follow the rotation of the self-weight state at "
             "-1.05 s about O's position then",
    "auto": "code_aster for the benchmark's physics, exact otherwise",
}
# When the release's contacts close and open (--contact-events; a and c, Lagrange / augmented
# contact; contact.multipliers, fem.time.dynamics.step_with_release)
CONTACT_EVENTS = {
    "immediate": "Code_Aster's: a contact closes at the end of the step in which it penetrates and opens in the "
                 "step in which its reaction would turn to traction",
    "located": "each step is cut where a contact's gap or reaction vanishes, so no landing or lift-off takes "
               "or gives the O(dt) energy of the immediate rule",
    "auto": "located with --mass redistributed, immediate with the consistent mass",
}
# The tilt must leave the block as the rigid block tilted: a run whose block stores more strain energy
# at the end of the tilt than this fraction of the rigid block's potential-energy drop to its first
# impact stops there (the release would start from another state than the one its references assume)
TILT_STRAIN_LIMIT = 0.01
#: largest --round-off (the ensemble has 2K + 1 runs)
ROUND_OFF_MAX = 16
# A completed run whose energy books miss by more than this fraction of the potential-energy drop
# (energy_balance's relative_error) exits with fem.run.lifecycle.EXIT_FAILED
ENERGY_LIMIT = 0.01
# A release whose contact gives back, over one contact event, more than this fraction of the run's
# energy scale (the rigid block's potential-energy drop to its first impact: all the energy the
# rocking has) than it took in it fails (fem.stage.energy.CreationWatch: the books' contact and friction
# work over the event; by their identity, the mechanical energy gained beyond the work put in and
# the energy damping and the time scheme removed).
# * CREATION_LIMIT, 1 %: contacts that give nothing back by construction (the located rules of a and
#   c, contact.multipliers; b's shock springs, whose stored energy at an event's ends is
#   R_N^2 / (2 RIGI_NOR) ~ 1e-4 J, 1e-5 of the drop; d's impulses): measured, every event of a with
#   the redistributed mass at uniform steps of 2.5e-5 s, and every event of b and d by default, takes
#   energy (net creation <= 0); 1 % is the books' own accuracy (ENERGY_LIMIT).
# * CREATION_LIMIT_IMMEDIATE, 25 %: Code_Aster's immediate rules (a, c with the consistent mass, the
#   benchmark's formulation) give back 1/2 R_N,n g_(n+1) when a node opens in the step after it closed
#   (contact.multipliers), by an amount that depends on where in its step the corner lands, not
#   smoothly on dt: measured over the first impact of a, -16 %, +18 %, +5.6 %, -1.6 % of the drop at
#   fine steps of 2e-5, 1e-5 (the benchmark's), 5e-6, 2.5e-6 s; +17 % for c; +16 % at a 0.2 rad tilt
#   with event-driven steps. 25 % lets the benchmark's own formulation at its steps run and stops an
#   impact its steps do not resolve: the 0.2 rad tilt's first impact in a 2.5 ms coarse step gives
#   back 85 % (the block flies up at 0.88 m/s). Below the limit the largest creation is reported
#   (summary.json energy_creation, report.md), never silent.
CREATION_LIMIT = 0.01
CREATION_LIMIT_IMMEDIATE = 0.25


@dataclass(frozen=True)
class Window:
    """A row of the release schedule: [t_start, t_end], step ``dt`` ("coarse"/"fine" or seconds),
    HHT alpha and MODI_EQUI ('OUI' = True)."""

    t_start: float
    t_end: float
    step: str
    alpha: float
    modified: bool = False


def _schedule(rows, t_end):
    return tuple(Window(a, min(b, t_end), s, al, m) for a, b, s, al, m in rows if a < t_end)


# Release schedules (sdnv105.md §1.3 for a, §1.4 for b, §1.5 for c, continued to 0.33 s as asked)
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


@dataclass(frozen=True)
class Modeling:
    """What distinguishes a modeling."""

    name: str
    contact: str  # "lagrange", "augmented", "penalty", "theta"
    mesh: str  # checked-in mesh name
    with_table: bool
    t_end: float
    dt: float  # coarse step of the release [s]
    dt_fine: float
    tilt_friction: float  # friction during the tilt (c: frictionless, as its file)
    newton_release: NewtonSettings
    description: str


MODELINGS = {
    "a": Modeling("a", "lagrange", "sdnv105_quad4", True, 0.33, 0.0025, 1e-5, 0.9,
                  NewtonSettings(rela=1e-6, maxi=8e-3, max_iterations=40),
                  "QUA4 with the table, Lagrange contact, HHT"),
    "b": Modeling("b", "penalty", "sdnv105_block_tri6", False, 0.285, 0.00125, 2.5e-5, 0.9,
                  NewtonSettings(rela=1e-6, maxi=1e-3, max_iterations=15),
                  "block only (TRIA6), three penalty shock springs at O, A, O1, HHT"),
    "c": Modeling("c", "augmented", "sdnv105_quad4", True, 0.33, 0.0025, 1e-5, 0.0,
                  NewtonSettings(rela=1e-6, max_iterations=20),
                  "QUA4 with the table, augmented-Lagrangian contact, HHT"),
    "d": Modeling("d", "theta", "sdnv105_quad4", True, 0.33, 1e-4, 1e-4, 0.9,
                  NewtonSettings(rela=1e-6, maxi=8e-3, max_iterations=40),
                  "QUA4 with the table, Lagrange contact, Moreau-Jean theta-scheme"),
}


@dataclass(frozen=True)
class Config:
    """Every physical and numerical parameter of a run (SI units)."""

    modeling: str
    width: float = 0.36
    height: float = 0.80
    tilt_angle: float = 0.01  # rad: the block's rotation about O at the release
    # how the tilt is imposed (TILT_RULES): "auto" resolves (Config.resolved) to "code_aster" for the
    # benchmark's physics, to "exact" otherwise
    tilt_rule: str = "auto"
    mu: float = 0.9
    young: float = 6.0e11
    poisson: float = 0.2
    rho: float = 1450.0
    amor_alpha: float = 1.0e-4
    table_young: float = 1.0e14
    table_poisson: float = 0.3
    table_rho: float = 2500.0
    table_amor_alpha: float = 1.6e-3
    t_end: float | None = None
    dt: float | None = None
    dt_fine: float | None = None
    theta: float = 0.55
    alpha: float | None = None  # HHT alpha of every release step (None: the benchmark's schedule)
    contact_events: str = "auto"  # a, c: CONTACT_EVENTS
    auto_steps: bool = False
    # --benchmark-steps: the benchmark's windows on a custom run (whose default is event-driven steps)
    benchmark_steps: bool = False
    mass: str = "consistent"  # a, c: "redistributed" frees the block's base of mass (fem.model.mass)
    mesh: Path | None = None
    # a uniform nx x ny block (nx even) generated for the run (meshes.generate, layout "refined"),
    # with the table of the modeling's mesh conforming with its base; None: the modeling's mesh
    nx: int | None = None
    ny: int | None = None
    out: Path | None = None
    archive_every: int = 10
    paraview: bool = True
    round_off: int = 0  # --round-off K: 2K more runs with the tilt moved by +-1 ... +-K ulps
    # modeling b, shock springs (sdnv105.md §1.4); see build() for the tangential stiffness default
    rigi_nor: float = 3.0e10
    rigi_tan: float = 3.0e10
    amor_nor: float = 9.0e6
    amor_tan: float = 1.0e4

    @property
    def spec(self) -> Modeling:
        return MODELINGS[self.modeling]

    @property
    def default_geometry(self) -> bool:
        return math.isclose(self.width, 0.36) and math.isclose(self.height, 0.80)

    @property
    def rigid_reference_applies(self) -> bool:
        """The rigid-block reference assumes the pivot sticks: true when mu exceeds the largest
        |R_T|/R_N the rigid rocking needs before the first impact."""
        return self.mu > friction_demand(self)

    @property
    def steps(self) -> str:
        """The release's time steps (summary.json ``steps``, report.md): ``uniform`` for d (steps of
        --dt, the theta scheme; no windows and no event-driven steps), ``benchmark`` (the benchmark's
        windows: fine steps around the benchmark's own impact instants, coarse steps between), or ``events``
        (fem.time.stepping's event-driven steps: fine from before each predicted impact and through every
        contact event, coarse elsewhere). --auto-steps asks for ``events``, --benchmark-steps for
        ``benchmark``; by default the benchmark configuration keeps its windows and a custom run takes
        ``events``: the windows are placed for the benchmark's block and tilt, and another run's
        impacts fall in its coarse steps (a 0.2 rad tilt: its first impact, 0.30831 s for the rigid
        block, inside the 2.5 ms step after the last window ends at 0.3075 s, created 85 % of its
        energy scale)."""
        if self.spec.contact == "theta":
            return "uniform"
        if self.auto_steps:
            return "events"
        if self.benchmark_steps:
            return "benchmark"
        return "events" if self.configuration == "custom" else "benchmark"

    @property
    def creation_limit(self) -> float:
        """Largest energy a contact event may create, as a fraction of the energy scale
        (CREATION_LIMIT, CREATION_LIMIT_IMMEDIATE for a and c under Code_Aster's immediate rules)."""
        immediate = self.spec.contact in ("lagrange", "augmented") and self.contact_events_resolved == "immediate"
        return CREATION_LIMIT_IMMEDIATE if immediate else CREATION_LIMIT

    @property
    def contact_events_resolved(self) -> str:
        """'located' or 'immediate' (Code_Aster's): when the release's contacts close and open
        (a, c; auto = located with the redistributed mass, immediate with the consistent one)."""
        if self.spec.contact not in ("lagrange", "augmented"):
            return "immediate"
        if self.contact_events == "auto":
            return "located" if self.mass == "redistributed" else "immediate"
        return self.contact_events

    @property
    def tilt_rule_resolved(self) -> str:
        """The tilt rule this run uses: ``tilt_rule`` unless "auto", which is "code_aster" when no
        other physical parameter departs from the benchmark (Code_Aster's rule reproduces its values
        at 0.01 rad) and "exact" otherwise (any other tilt or block is tilted rigidly)."""
        if self.tilt_rule != "auto":
            return self.tilt_rule
        return "exact" if self._physics_departures() else "code_aster"

    def resolved(self) -> "Config":
        m = self.spec
        dt = self.dt if self.dt is not None else m.dt
        uniform = m.contact == "theta"  # d: uniform steps of --dt
        return replace(self, t_end=self.t_end if self.t_end is not None else m.t_end, dt=dt,
                       tilt_rule=self.tilt_rule_resolved,
                       dt_fine=dt if uniform else self.dt_fine if self.dt_fine is not None else m.dt_fine,
                       out=self.out if self.out is not None else Path(f"results/sdnv105{self.modeling}"))

    def validate(self) -> None:
        """Refuse impossible values (:class:`fem.run.lifecycle.BadInput`, the message in the flag's own name
        and unit; non-finite numbers are refused by the command line already)."""
        alpha = math.atan2(self.width, self.height)
        checks = [
            (self.modeling in MODELINGS, f"unknown modeling {self.modeling!r}; choose one of {sorted(MODELINGS)}"),
            (self.width > 0, f"--width must be > 0 m, got {self.width:g}"),
            (self.height > 0, f"--height must be > 0 m, got {self.height:g}"),
            (self.width in ranges.BLOCK_SIZE, ranges.BLOCK_SIZE.refusal("--width", self.width)),
            (self.height in ranges.BLOCK_SIZE, ranges.BLOCK_SIZE.refusal("--height", self.height)),
            (0 < self.tilt_angle < alpha,
             f"--tilt-angle must lie in (0, atan(width/height) = {alpha:.4g}) rad "
             f"(beyond it the block topples), got {self.tilt_angle:g}"),
            (self.tilt_rule in TILT_RULES,
             f"--tilt-rule must be one of {', '.join(TILT_RULES)}, got {self.tilt_rule!r}"),
            (self.mu >= 0, f"--mu must be >= 0, got {self.mu:g}"),
            (self.t_end is None or self.t_end > 0, f"--t-end must be > 0 s, got {self.t_end}"),
            (self.dt is None or self.dt > 0, f"--dt must be > 0 s, got {self.dt}"),
            (self.dt_fine is None or self.dt_fine > 0, f"--dt-fine must be > 0 s, got {self.dt_fine}"),
            (self.dt is None or self.dt in ranges.TIME_STEP, ranges.TIME_STEP.refusal("--dt", self.dt)),
            (self.dt_fine is None or self.dt_fine in ranges.TIME_STEP,
             ranges.TIME_STEP.refusal("--dt-fine", self.dt_fine)),
            (0.5 <= self.theta <= 1.0, f"--theta must lie in [0.5, 1], got {self.theta:g}"),
            (self.alpha is None or -1.0 / 3.0 <= self.alpha <= 0.0,
             f"--alpha must lie in [-1/3, 0] (HHT), got {self.alpha}"),
            (self.archive_every >= 1, f"--archive-every must be >= 1, got {self.archive_every}"),
            (0 <= self.round_off <= ROUND_OFF_MAX,
             f"--round-off must lie in [0, {ROUND_OFF_MAX}] (units in the last place of the tilt), "
             f"got {self.round_off}"),
            (self.nx is None or (self.nx >= 2 and self.nx % 2 == 0),
             f"--nx must be even and >= 2 (the block's centre line x = b, with O1 and C1, is a mesh line), "
             f"got {self.nx}"),
            (self.ny is None or self.ny >= 1, f"--ny must be >= 1, got {self.ny}"),
            ((self.nx is None) == (self.ny is None),
             f"--nx and --ny go together (the block's elements across and up, e.g. --nx 8 --ny 16): "
             f"only {'--nx' if self.ny is None else '--ny'} was given"),
            (self.nx is None or self.mesh is None, "--nx/--ny and --mesh both give the mesh: give one of them"),
            (self.rigi_nor > 0, f"--rigi-nor must be > 0 N/m, got {self.rigi_nor:g}"),
            (self.rigi_tan >= 0, f"--rigi-tan must be >= 0 N/m, got {self.rigi_tan:g}"),
            (self.amor_nor >= 0, f"--amor-nor must be >= 0 N s/m, got {self.amor_nor:g}"),
            (self.amor_tan >= 0, f"--amor-tan must be >= 0 N s/m, got {self.amor_tan:g}"),
        ]
        require_all(checks)
        resolved = self.resolved()
        if resolved.dt_fine > resolved.dt * (1 + 1e-12):
            raise BadInput(f"--dt-fine ({resolved.dt_fine:g} s) must not exceed --dt ({resolved.dt:g} s): "
                           f"the fine steps are the ones around the impacts")
        check_materials((("--young, --poisson, --rho, --amor-alpha", self.block_material),
                         ("--table-young, --table-amor-alpha", self.table_material)))
        self.check_ranges()

    def check_ranges(self) -> None:
        """Every number against its physical range (fem.ranges; signs and the rules of
        :meth:`validate` first), the tilt above the rigid reference's resolution, the block's strain
        under its weight, the release's steps against the rocking time scale 1/p (a step longer than
        a short release is cut at its end), and a --mesh file read (missing, unreadable, NaN or
        absurd coordinates refused): all before the output folder is touched."""
        r = ranges
        resolved = self.resolved()
        r.check_all([  # --width, --height: validate's list, before the tilt rule that uses them
            ("--mu", self.mu, r.FRICTION), ("--young", self.young, r.YOUNG), ("--poisson", self.poisson, r.POISSON),
            ("--rho", self.rho, r.DENSITY), ("--amor-alpha", self.amor_alpha, r.RAYLEIGH_ALPHA),
            ("--table-young", self.table_young, r.TABLE_YOUNG),
            ("--table-amor-alpha", self.table_amor_alpha, r.RAYLEIGH_ALPHA),
            ("--t-end", resolved.t_end, r.DURATION),
            ("--nx", self.nx, r.ELEMENTS), ("--ny", self.ny, r.ELEMENTS),
        ])
        if self.modeling == "b":
            r.check_all([("--rigi-nor", self.rigi_nor, r.STIFFNESS), ("--rigi-tan", self.rigi_tan, r.STIFFNESS_OR_ZERO),
                         ("--amor-nor", self.amor_nor, r.DASHPOT), ("--amor-tan", self.amor_tan, r.DASHPOT)])
        require_all([(self.tilt_angle >= TILT_FLOOR,
                      f"--tilt-angle {r.number(self.tilt_angle)} rad is below {r.number(TILT_FLOOR)} rad: the rigid "
                      f"reference (contact.references.rocking) integrates the angle to 1e-14 rad, a smaller tilt is computed to "
                      f"worse than 1e-6")])
        weight = self.rho * G * self.height  # [Pa] at the block's base, on the table's top
        r.check_self_weight("--rho, --height, --young", weight, self.young)
        r.check_self_weight("--rho, --height, --table-young", weight, self.table_young, "the table")
        rocking = [("the block's rocking time scale 1/p = sqrt(4R / 3g)", r.rocking_time(self.width, self.height, G),
                    "--width, --height")]
        steps = (("--dt", resolved.dt),) if self.spec.contact == "theta" else (("--dt", resolved.dt),
                                                                              ("--dt-fine", resolved.dt_fine))
        for flag, dt in steps:  # a step longer than a short release is cut at its end: no run length here
            r.check_step(flag, dt, None, "the release, --t-end", rocking)
        if self.mesh is not None:  # read here, before the output folder: a refused file leaves nothing
            try:
                read_mesh(self.mesh)
            except ValueError as err:
                raise BadInput(f"--mesh {self.mesh}: {err}") from None

    def physics(self) -> dict:
        """The parameters that change the physical problem (not the numerics), by flag name."""
        keys = ["width", "height", "tilt_angle", "mu", "young", "poisson", "rho", "amor_alpha", "table_young",
                "table_poisson", "table_rho", "table_amor_alpha"]
        if self.modeling == "b":
            keys += ["rigi_nor", "rigi_tan", "amor_nor", "amor_tan"]
        return {k: getattr(self, k) for k in keys}

    def departures(self) -> list[str]:
        """Flags whose value makes this run differ physically from the benchmark (empty: the
        benchmark's own problem, whatever the time steps, windows, end time or output).

        ``--tilt-rule`` is one when it is the only one: the benchmark's block and tilt with the exact
        rule start the release from another state (the rigidly tilted block, not Code_Aster's
        pushed one), so the run is custom and graded against the rigid block, not Code_Aster. With
        other departures the run is custom already and the rule is not listed (it is "exact" unless
        --tilt-rule code_aster is given, in summary.json's config and report.md)."""
        changed = self._physics_departures()
        if not changed and self.tilt_rule_resolved != "code_aster":
            changed.append("--tilt-rule")
        return changed

    def _physics_departures(self) -> list[str]:
        """The departures of the physical parameters and the mesh (the tilt rule left out)."""
        default = Config(self.modeling)
        changed = [f"--{k.replace('_', '-')}" for k, v in self.physics().items()
                   if not math.isclose(v, getattr(default, k), rel_tol=1e-12, abs_tol=0.0)]
        # b's benchmark mesh: TRIA6 in the document, QUA4 in the public Code_Aster file (both checked in)
        references = ("sdnv105_block_tri6", "sdnv105_block_quad4") if self.modeling == "b" else (self.spec.mesh,)
        if self.mesh is not None and not any(_is_reference_mesh(self.mesh, name) for name in references):
            changed.append("--mesh")
        if self.nx is not None:  # a uniform block: never the benchmark's 4-column layout
            changed += ["--nx", "--ny"]
        return changed

    @property
    def configuration(self) -> str:
        """'benchmark' when no physical parameter departs from the benchmark, else 'custom'."""
        return "custom" if self.departures() else "benchmark"

    def block_material(self) -> ElasticMaterial:
        return ElasticMaterial(self.young, self.poisson, self.rho, rayleigh_stiffness=self.amor_alpha)

    def table_material(self) -> ElasticMaterial:
        return ElasticMaterial(self.table_young, self.table_poisson, self.table_rho,
                               rayleigh_stiffness=self.table_amor_alpha)


# ----------------------------------------------------------------------------------- command line
def parse_args(modeling: str, argv=None, description: str = "") -> tuple[Config, argparse.Namespace]:
    """The run's configuration from the command line, and the run flags (--quiet, --force)."""
    m = MODELINGS[modeling]
    p = CaseParser(prog=f"sdnv105{modeling}.py", description=description)
    p.add_argument("--width", type=finite, default=0.36, help="block width 2b [m]")
    p.add_argument("--height", type=finite, default=0.80, help="block height 2l [m]")
    p.add_argument("--tilt-angle", type=finite, default=0.01,
                   help="initial tilt [rad] about corner O (0.01: the benchmark's DX(C1) = -0.008 m)")
    p.add_argument("--tilt-rule", choices=list(TILT_RULES), default="auto",
                   help="how the tilt is imposed: code_aster = DX(C1) = -tilt * height with DX(O1) held "
                        "(b: DX(O)), Code_Aster's small-angle push; exact = C1 and O1 (b: C1 and O) follow a "
                        "rigid rotation about O; auto (default) = code_aster for the benchmark's block and "
                        "tilt, exact otherwise")
    p.add_argument("--mu", type=finite, default=0.9, help="Coulomb coefficient after the self-weight phase")
    p.add_argument("--young", type=finite, default=6.0e11, help="block Young's modulus [Pa]")
    p.add_argument("--poisson", type=finite, default=0.2, help="block Poisson's ratio")
    p.add_argument("--rho", type=finite, default=1450.0, help="block density [kg/m^3]")
    p.add_argument("--amor-alpha", type=finite, default=1.0e-4, help="block AMOR_ALPHA [s]")
    p.add_argument("--table-young", type=finite, default=1.0e14, help="table Young's modulus [Pa]")
    p.add_argument("--table-amor-alpha", type=finite, default=1.6e-3, help="table AMOR_ALPHA [s]")
    p.add_argument("--t-end", type=finite, default=None, help=f"end of the release run [s] (default {m.t_end})")
    p.add_argument("--dt", type=finite, default=None, help=f"coarse time step of the release [s] (default {m.dt})")
    if modeling != "d":  # d integrates with uniform steps of --dt
        p.add_argument("--dt-fine", type=finite, default=None,
                       help=f"time step around impacts [s] (default {m.dt_fine})")
    if modeling == "d":
        p.add_argument("--theta", type=finite, default=0.55, help="theta of the Moreau-Jean scheme, in [0.5, 1]")
    if modeling == "b":
        p.add_argument("--rigi-nor", type=finite, default=3.0e10, help="shock spring RIGI_NOR [N/m]")
        p.add_argument("--rigi-tan", type=finite, default=3.0e10,
                       help="shock spring stiffness while sticking [N/m]; the benchmark states RIGI_TAN = 1e7, "
                            "Code_Aster's values are reproduced with a stiff sticking spring (README)")
        p.add_argument("--amor-nor", type=finite, default=9.0e6, help="shock spring AMOR_NOR [N s/m]")
        p.add_argument("--amor-tan", type=finite, default=1.0e4, help="shock spring AMOR_TAN [N s/m]")
    if modeling in ("a", "c"):
        p.add_argument("--mass", choices=("consistent", "redistributed"), default="consistent",
                       help="mass matrix: Code_Aster's consistent mass (default), or redistributed: the block's "
                            "base nodes massless, its mass, centre and inertia kept (fem.model.mass)")
        p.add_argument("--contact-events", choices=list(CONTACT_EVENTS), default="auto",
                       help="when the release's contacts close and open: immediate = Code_Aster's rule (at the "
                            "end of the step); located = at their instant inside the step; auto (default) = "
                            "located with --mass redistributed, immediate otherwise (README)")
    if modeling != "d":
        p.add_argument("--alpha", type=finite, default=None,
                       help="HHT alpha of every release step, in [-1/3, 0] (0: Newmark's average acceleration); "
                            "default: the benchmark's, -0.1 / -0.2 in the fine windows and around detected "
                            "impacts, 0 in the coarse steps. One alpha for uniform-step studies "
                            "(cases/convergence.py)")
        steps = p.add_mutually_exclusive_group()
        steps.add_argument("--auto-steps", action="store_true",
                           help="instead of the benchmark's windows, fem.time.stepping's event-driven steps: --dt-fine "
                                "from before a predicted impact and for 3 ms after any contact opening or closing, "
                                "steps growing (x2 a step) to --dt elsewhere (the default of a custom run)")
        steps.add_argument("--benchmark-steps", action="store_true",
                           help="the benchmark's windows even on a custom run (whose default is --auto-steps): "
                                "they are placed for the benchmark's impacts, not this run's")
    p.add_argument("--mesh", type=Path, default=None, help="gmsh .msh with the benchmark's group names")
    p.add_argument("--nx", type=int, default=None,
                   help="instead of the benchmark's mesh, a uniform block of NX (even) elements across, generated "
                        f"into --out as mesh.msh ({'TRIA6, no table' if modeling == 'b' else 'QUA4, with the table'}"
                        "; meshes.generate, layout refined); with --ny, not with --mesh; a departure from the "
                        "benchmark")
    p.add_argument("--ny", type=int, default=None, help="block elements up (with --nx)")
    p.add_argument("--archive-every", type=int, default=10, help="ParaView output every N steps of a phase")
    p.add_argument("--no-paraview", action="store_true", help="skip the ParaView series (faster)")
    p.add_argument("--round-off", type=int, default=0, metavar="K",
                   help="also run the case with the tilt angle moved by +-1 ... +-K units in the last place "
                        "(2K runs more, histories in OUT/round_off/) and report, per check, the spread and "
                        "how many runs meet the test: a check on which they disagree is decided by the "
                        "rounding of the arithmetic, not by the model (README, Round-off)")
    p.add_argument("--out", type=Path, default=None,
                   help=f"output folder (default results/sdnv105{modeling}); an earlier run's files in it are "
                        f"removed first")
    add_run_flags(p)
    a = p.parse_args(argv)
    config = Config(modeling=modeling, width=a.width, height=a.height, tilt_angle=a.tilt_angle,
                    tilt_rule=a.tilt_rule, mu=a.mu,
                    young=a.young, poisson=a.poisson, rho=a.rho, amor_alpha=a.amor_alpha,
                    table_young=a.table_young, table_amor_alpha=a.table_amor_alpha, t_end=a.t_end, dt=a.dt,
                    dt_fine=getattr(a, "dt_fine", None), theta=getattr(a, "theta", 0.55),
                    alpha=getattr(a, "alpha", None), contact_events=getattr(a, "contact_events", "auto"),
                    auto_steps=getattr(a, "auto_steps", False), benchmark_steps=getattr(a, "benchmark_steps", False),
                    mass=getattr(a, "mass", "consistent"), mesh=a.mesh,
                    nx=a.nx, ny=a.ny, out=a.out, archive_every=a.archive_every, paraview=not a.no_paraview,
                    round_off=a.round_off,
                    **({"rigi_nor": a.rigi_nor, "rigi_tan": a.rigi_tan, "amor_nor": a.amor_nor,
                        "amor_tan": a.amor_tan} if modeling == "b" else {}))
    return config, a


# ----------------------------------------------------------------------------------- model
@dataclass
class Study:
    """Everything built for a run."""

    config: Config
    mesh: object
    model: Model
    contact: object  # MultiplierContact or ShockSprings
    contact_index: dict[str, int]  # position of O, A in the contact state arrays
    warnings: tuple[str, ...] = ()  # suspicious but usable input (printed, not fatal)


@functools.lru_cache(maxsize=8)
def _reference_arrays(name: str):
    from meshes.generate import reference_mesh_path

    mesh = read_mesh(reference_mesh_path(name))
    return mesh.points, {k: v.connectivity for k, v in mesh.cell_groups.items()}


@functools.lru_cache(maxsize=8)  # Config.departures() asks for every summary, report and header
def _is_reference_mesh(path: Path, name: str) -> bool:
    """True when the mesh file holds the benchmark's own mesh ``name`` (same nodes and cells)."""
    try:
        mesh = read_mesh(path)
    except ValueError:
        return False
    points, cells = _reference_arrays(name)
    return (mesh.points.shape == points.shape and np.allclose(mesh.points, points, rtol=0, atol=1e-12)
            and set(cells) == set(mesh.cell_groups)
            and all(np.array_equal(cells[k], mesh.cell_groups[k].connectivity) for k in cells))


@functools.lru_cache(maxsize=64)
def _friction_demand(b: float, l: float, tilt: float, rho: float) -> float:
    result = rocking.rock(b, l, tilt, g=G, rho=rho, n_impacts=1, model="nonlinear")
    return float(result.rt_over_rn_max[0])


def friction_demand(config: Config) -> float:
    """Largest |R_T|/R_N at the pivot of the rigid block from the release to the first impact
    (contact.references.rocking, exact nonlinear rocking): below it the pivot slides and the rigid-rocking
    reference does not apply."""
    return _friction_demand(config.width / 2, config.height / 2, config.tilt_angle, config.rho)


def _element(config: Config) -> str:
    """The cell type of the modeling's mesh, for a generated one (meshes.generate)."""
    return "tri6" if config.spec.mesh.endswith("tri6") else "quad4"


def mesh_source(config: Config) -> dict:
    """Which mesh the run uses, before it is built: ``source`` "benchmark" (the checked-in mesh of
    the modeling), "--mesh" (a file given), "generated" (the benchmark's layout for another block,
    or with --nx/--ny a uniform block, written into the output folder as mesh.msh); ``file``,
    ``layout``, ``element``, ``nx``, ``ny``, ``with_table`` where they apply."""
    spec = config.spec
    if config.mesh is not None:
        return {"source": "--mesh", "file": str(config.mesh)}
    if config.nx is None and config.default_geometry:
        from meshes.generate import reference_mesh_path

        return {"source": "benchmark", "file": str(reference_mesh_path(spec.mesh)), "layout": "reference",
                "element": _element(config), "with_table": spec.with_table}
    out = config.out if config.out is not None else config.resolved().out
    refined = config.nx is not None
    return {"source": "generated", "file": str(out / "mesh.msh"), "layout": "refined" if refined else "reference",
            "element": _element(config), "with_table": spec.with_table,
            **({"nx": config.nx, "ny": config.ny} if refined else {})}


def _mesh_for(config: Config, out: Path):
    if config.mesh is not None:
        try:
            return read_mesh(config.mesh)
        except ValueError as err:
            raise BadInput(f"--mesh {config.mesh}: {err}") from None
    spec = config.spec
    if config.nx is None and config.default_geometry:
        from meshes.generate import reference_mesh_path

        return read_mesh(reference_mesh_path(spec.mesh))
    from meshes.generate import block_on_table

    layout = ({"layout": "refined", "nx": config.nx, "ny": config.ny} if config.nx is not None
              else {"layout": "reference"})
    try:
        path = block_on_table(out / "mesh.msh", half_width=config.width / 2, height=config.height,
                              element=_element(config), with_table=spec.with_table, **layout)
    except ValueError as err:  # the flags are checked (Config.validate): should gmsh's side refuse, name them
        raise BadInput(f"the mesh of --width {config.width:g} --height {config.height:g}"
                       f"{'' if config.nx is None else f' --nx {config.nx} --ny {config.ny}'}: {err}") from None
    return read_mesh(path)


def build(config: Config) -> Study:
    """Mesh, model and contact of a modeling."""
    spec = config.spec
    mesh = _mesh_for(config, config.out)
    warnings = []
    regions = {"BLOCK": config.block_material()}
    if spec.with_table:
        regions["GROUN"] = config.table_material()
    elif "GROUN" in mesh.cell_groups:
        warnings.append(f"--mesh {config.mesh}: its table (region GROUN) is ignored: modeling {config.modeling} "
                        f"has no table, the block's corners hit a rigid floor through shock springs")
    # a crack (unmerged duplicate nodes) or a floating part would make the system singular: refuse
    # it here, naming the nodes (fem.mesh.check); b's block is held by its three shock springs
    used = Mesh(mesh.points, {k: v for k, v in mesh.cell_groups.items() if k in regions or v.dim == 1},
                mesh.node_groups)
    try:
        warnings += check_mesh(used, ("CTGROUND", "S1") if spec.with_table else ("O", "O1", "A"),
                               (("CONHAUT", "CONBAS"),) if spec.with_table else ())
    except ValueError as err:
        raise BadInput(f"--mesh {config.mesh}: {err}" if config.mesh is not None else str(err)) from None
    redistributed = config.mass == "redistributed"
    # the block's contact nodes (CONHAUT) lose their mass; the table keeps its consistent mass: its
    # contact nodes lie one element above its supported base (all its other nodes are collinear, no
    # affine stencil exists) and the table is 167 times stiffer than the block (README)
    model = Model(mesh, regions, mass=config.mass, massless=("CONHAUT",) if redistributed else ())
    if spec.contact == "penalty":
        # modeling b (sdnv105.md §1.4): DIS_CHOC at O, A, O1 against the floor y = 0. Sticking
        # stiffness: the file's RIGI_TAN = 1e7 N/m makes the released block oscillate on its pivot
        # spring at ~25 Hz (RN(O) 4181 N, VY(O) -1911 N), which Code_Aster's b values do not show;
        # a sticking spring as stiff as RIGI_NOR reproduces them (RN(O) 3608 N vs 3604, KE max
        # 7.2826 J at 0.054375 s vs 7.2831 J at 0.054375 s), so that is the default (--rigi-tan).
        law = ShockLaw(normal_stiffness=config.rigi_nor, normal_damping=config.amor_nor,
                       tangential_stiffness=config.rigi_tan, tangential_damping=config.amor_tan, friction=config.mu)
        mesh.node_groups["SHOCK_NODES"] = np.concatenate([mesh.nodes(n) for n in ("O", "O1", "A")])
        zone = node_zone(mesh, "SHOCK_NODES", RigidPlane((0.0, 0.0), (0.0, 1.0)))
        contact = ShockSprings(model, zone, law)
    else:
        zone = contact_zone(mesh, "CONHAUT", "CONBAS")
        method = "augmented" if spec.contact == "augmented" else "lagrange"
        contact = MultiplierContact(model, zone, friction=config.mu, method=method)
    slave = contact.zone.slave
    contact_index = {name: int(np.flatnonzero(slave == mesh.node(name))[0]) for name in ("O", "A")}
    return Study(config, mesh, model, contact, contact_index, tuple(warnings))


# ----------------------------------------------------------------------------------- phases
def supports(study: Study) -> tuple[ImposedDisplacement, ...]:
    """Table supports (a, c, d): DY = 0 on CTGROUND, DX = 0 on S1. Nothing for b (no table)."""
    if not study.config.spec.with_table:
        return ()
    return (ImposedDisplacement("CTGROUND", "y"), ImposedDisplacement("S1", "x"))


def self_weight_phase(study: Study) -> Phase:
    """Self-weight, -1.95 -> -0.825 s (sdnv105.md §1.3): gravity ramped, DX(O1) held (b: DX(O))."""
    cfg, spec = study.config, study.config.spec
    anchor = "O" if spec.contact == "penalty" else "O1"  # b holds DX(O), a/c/d DX(O1)
    newton_sw = NewtonSettings(rela=1e-6, maxi=2e-3 if spec.name != "b" else 2e-4, max_iterations=40)
    return Phase("self-weight", -1.95, -0.825, 0.0075, HHT(-0.3), gravity=Gravity((0.0, -G), GRAVITY_RAMP),
                 constraints=supports(study) + (ImposedDisplacement(anchor, "x"),), friction=0.0,
                 newton=newton_sw, archive_every=cfg.archive_every)


@dataclass(frozen=True)
class RigidTilt:
    """Component ``component`` (0: x, 1: y) of the displacement [m] of a point turned rigidly,
    counter-clockwise, by theta(t) = angle * ramp(t) about ``pivot``:

        u(t) = pivot + R(theta(t)) (start - pivot) - reference

    ``start`` is the point's position when the rotation begins (theta = 0), ``reference`` its mesh
    position X. As the ``function`` of ``ImposedDisplacement(group, component, 1.0, ...)`` it
    imposes the rigid rotation on a node. Counter-clockwise about the base's left corner O, the top
    moves towards -x: Code_Aster's push DX(C1) < 0 is the same sense."""

    reference: tuple[float, float]
    start: tuple[float, float]
    pivot: tuple[float, float]
    angle: float
    component: int
    ramp: Callable[[float], float] = EXACT_TILT_RAMP

    def __call__(self, t: float) -> float:
        theta = self.angle * self.ramp(t)
        c, s = math.cos(theta), math.sin(theta)
        dx, dy = self.start[0] - self.pivot[0], self.start[1] - self.pivot[1]
        turned = (self.pivot[0] + c * dx - s * dy, self.pivot[1] + s * dx + c * dy)
        return turned[self.component] - self.reference[self.component]


def tilt_nodes(config: Config) -> tuple[str, ...]:
    """The nodes whose two components the exact tilt rule imposes: C1, and a second node of the
    base so that the pair fixes the block's rotation and position: O1 for a, c, d (O, the pivot, is
    a node of the Lagrange contact, whose multipliers must not act on an imposed dof); O for b,
    whose corners rest on shock springs (forces, no multipliers) and which holds DX(O) in the
    self-weight phase: held at its self-weight position, the pivot neither slides nor sinks."""
    return ("C1", "O") if config.spec.contact == "penalty" else ("C1", "O1")


def tilt_phase(study: Study, start: State) -> Phase:
    """Tilt, restarted from the self-weight state ``start`` at -1.05 s, to 0 s (sdnv105.md §1.3),
    by the rule ``config.tilt_rule_resolved`` (TILT_RULES):

    * ``code_aster``: DX(C1) = -tilt * height * TILT_RAMP(t), DX(O1) held at 0 (b: DX(O)), the other
      components free: Code_Aster's small-angle push. It turns the block's axis by asin(tilt), not
      tilt, and, TILT_RAMP being 0.0525 at -1.05 s, its first step pushes C1 by 0.0525 * tilt *
      height at once: harmless at 0.01 rad (the benchmark), at 0.1 rad the kick sets the block
      bouncing on its corner for the whole tilt (README);
    * ``exact``: both components of the nodes of :func:`tilt_nodes` follow the rigid rotation by
      theta(t) = tilt * EXACT_TILT_RAMP(t) of their position in ``start`` about O's position in
      ``start`` (:class:`RigidTilt`); the rest of the block follows elastically. Newton: RESI_GLOB_RELA
      1e-5 only: the block's internal force at a rigid rotation of the reference mesh is not zero but
      2e-4 N (0.01 rad) to 6e-4 N (0.3 rad) of round-off (E = 6e11 Pa on 2 cm wide elements), above
      the benchmark's RESI_GLOB_MAXI 1e-4 N, which the code_aster rule keeps."""
    cfg, spec = study.config, study.config.spec
    if not math.isclose(start.t, TILT_START, abs_tol=1e-9):
        raise ValueError(f"the tilt restarts from the self-weight state at {TILT_START} s, got t = {start.t} s")
    if cfg.tilt_rule_resolved == "code_aster":
        anchor = "O" if spec.contact == "penalty" else "O1"  # b holds DX(O), a/c/d DX(O1)
        imposed = (ImposedDisplacement(anchor, "x"),
                   ImposedDisplacement("C1", "x", -cfg.tilt_angle * cfg.height, TILT_RAMP))
        newton = NewtonSettings(rela=1e-5, maxi=1e-4, max_iterations=30)
    else:
        mesh, u = study.mesh, start.u.reshape(-1, 2)
        o = mesh.node("O")
        pivot = tuple(float(x) for x in mesh.points[o, :2] + u[o])
        imposed = ()
        for name in tilt_nodes(cfg):
            k = mesh.node(name)
            reference = tuple(float(x) for x in mesh.points[k, :2])
            position = tuple(float(x) for x in mesh.points[k, :2] + u[k])
            imposed += tuple(ImposedDisplacement(name, axis, 1.0, RigidTilt(reference, position, pivot,
                                                                            cfg.tilt_angle, c))
                             for c, axis in enumerate("xy"))
        newton = NewtonSettings(rela=1e-5, max_iterations=30)
    return Phase("tilt", TILT_START, 0.0, 0.0075, HHT(-0.6), gravity=Gravity((0.0, -G), GRAVITY_RAMP),
                 constraints=supports(study) + imposed,
                 friction=spec.tilt_friction if spec.tilt_friction == 0.0 else cfg.mu,
                 newton=newton, archive_every=cfg.archive_every)


def rigid_potential_drop(config: Config) -> float:
    """Potential-energy drop [J] of the rigid block released at the run's tilt, from the release to
    its first impact (flat): M g R (cos(alpha - theta) - cos(alpha)), alpha = atan(b/l),
    R = sqrt(b^2 + l^2), M = rho (2b)(2l) per metre of thickness."""
    b, l = config.width / 2, config.height / 2
    alpha, radius = math.atan2(b, l), math.hypot(b, l)
    mass = config.rho * config.width * config.height
    return mass * G * radius * (math.cos(alpha - config.tilt_angle) - math.cos(alpha))


def tilt_check(study: Study, start: dict, end: dict, state: State) -> dict:
    """What the tilt left, from the history rows of its start (``start``, the self-weight state at
    -1.05 s) and end (``end``, 0 s) and the state at its end: the rule, the rotation of the segment
    O1 -> C1 (the block's axis; asked: --tilt-angle), the strain energy at both ends and at the end
    relative to the rigid block's potential-energy drop. ``passed`` is False when that ratio exceeds
    TILT_STRAIN_LIMIT: the tilt did not leave the block tilted rigidly (the release would start from
    another state than its references assume)."""
    cfg, mesh = study.config, study.mesh
    x = mesh.points[:, :2] + state.u.reshape(-1, 2)
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


def release_phase(study: Study, name: str, t0: float, t1: float, dt: float, alpha: float,
                  modified: bool = False) -> Phase:
    """A phase of the free rocking: constant gravity, supports, friction mu; HHT(alpha), or the
    theta-scheme for modeling d."""
    cfg = study.config
    alpha = alpha if cfg.alpha is None else cfg.alpha
    scheme = Theta(cfg.theta) if cfg.spec.contact == "theta" else HHT(alpha, modified_equilibrium=modified)
    return Phase(name, t0, t1, dt, scheme, gravity=Gravity((0.0, -G)),
                 constraints=supports(study), friction=cfg.mu, newton=cfg.spec.newton_release,
                 archive_every=cfg.archive_every)


# ----------------------------------------------------------------------------------- run
@dataclass
class RunOutput:
    """Per-step rows of the release (t = 0 at release) and of the self-weight phase (the tilt's
    are in tilt_history.csv)."""

    release: list[dict]
    preload: list[dict]
    stats: dict
    failure: str | None = None
    interrupted: Interrupted | None = None  # the signal that stopped the run, if one did
    tilt: dict | None = None  # tilt_check of the end of the tilt (None: the tilt did not finish)
    energy_creation: dict | None = None  # creation_report of the release (None: no release)

    @property
    def status(self) -> str:
        return "interrupted" if self.interrupted else "failed" if self.failure else "complete"


def _contact_columns(study: Study) -> tuple[list[str], Callable[[StepResult], dict]]:
    columns = [f"{q}_{n}" for n in ("O", "A") for q in ("rn", "rt", "rx", "ry", "gap", "slip", "status")]
    idx = study.contact_index

    def extra(result: StepResult) -> dict:
        st = study.contact.state()
        force = st.force
        row = {}
        for name, k in idx.items():
            row.update({f"rn_{name}": st.rn[k], f"rt_{name}": st.rt[k], f"rx_{name}": force[k, 0],
                        f"ry_{name}": force[k, 1], f"gap_{name}": st.gap[k], f"slip_{name}": st.slip[k],
                        f"status_{name}": float(st.status[k])})
        return row

    return columns, extra


def _probes() -> list[NodeProbe]:
    return [NodeProbe("dy_O", "O", "u", "y"), NodeProbe("dy_A", "A", "u", "y"), NodeProbe("vy_O", "O", "v", "y"),
            NodeProbe("vy_A", "A", "v", "y"), NodeProbe("dx_C1", "C1", "u", "x"), NodeProbe("dy_C1", "C1", "u", "y")]


def run(study: Study, integrator=integrate) -> RunOutput:
    """All phases: self-weight (recorded to -0.825 s), tilt restarted from the state at -1.05 s,
    release at rest at t = 0, free rocking. Histories and ParaView series are written as the run
    goes; a failure is reported in the output (everything before it is on disk)."""
    cfg = study.config
    out = cfg.out
    columns, extra = _contact_columns(study)
    t0 = time.perf_counter()
    preload_rows, release_rows = [], []
    stats = {"steps": 0, "newton_iterations": 0, "subdivisions": 0, "stepping_s": 0.0}
    self_weight = self_weight_phase(study)
    failure = interrupted = tilt = None

    def recorder(name):
        return RunRecorder(study.model, out, _probes(), history_name=f"{name}_history", series_name=name,
                           kinetic_group="BLOCK", write_series=cfg.paraview, extra_columns=columns, extra=extra)

    snapshot = tilted = watch = None
    refinements: list[dict] = []
    try:
        with recorder("selfweight") as sw:
            try:
                for result in timed_steps(sw, integrate(study.model, self_weight,
                                                        State.at_rest(study.model.n_dofs, -1.95), [study.contact])):
                    preload_rows.append(sw.record(result))
                    if snapshot is None and math.isclose(result.state.t, TILT_START, abs_tol=1e-9):
                        # the tilt restarts from here (sdnv105.md §1.3): keep the contact state too
                        snapshot = (result.state, copy.deepcopy(study.contact, {id(study.model): study.model,
                                                                               id(study.mesh): study.mesh}),
                                    preload_rows[-1])
            finally:
                add_run_statistics(stats, sw)
        state, study.contact, start_row = snapshot
        tilt_rows: list[dict] = []
        with recorder("tilt") as tl:
            try:
                tilted = record_steps(tl, integrate(study.model, tilt_phase(study, state), state, [study.contact]),
                                      tilt_rows, skip_first=True).state
            finally:
                add_run_statistics(stats, tl)
        tilt = tilt_check(study, start_row, tilt_rows[-1], tilted)
        if not tilt["passed"]:
            failure = tilt_failure(tilt)
    except ConvergenceError as err:
        failure = f"preload: {err}"
    except Interrupted as stop:
        failure, interrupted = f"preload: {stop}", stop
    if failure is None:
        watch = CreationWatch(rigid_potential_drop(cfg), cfg.creation_limit)
        with RunRecorder(study.model, out, _probes(), kinetic_group="BLOCK", write_series=cfg.paraview,
                         extra_columns=columns, extra=extra) as rec:
            try:
                if cfg.spec.contact == "theta":
                    study.contact = velocity_contact_from(study.contact)
                # contact nodes as their own ParaView point set: status, gap, RN, RT, RX, RY, slip
                contact_series = (ContactRecorder(study.mesh, {"base": study.contact}, out, history=False)
                                  if cfg.paraview else None)
                try:
                    refinements = _run_release(study, tilted.released(0.0), rec, release_rows, integrator,
                                               contact_series, watch)
                finally:
                    if contact_series is not None:
                        contact_series.close()
            except (ConvergenceError, EnergyCreated) as err:
                failure = f"release: {err}"
            except Interrupted as stop:
                failure, interrupted = f"release: {stop}", stop
            add_run_statistics(stats, rec)
    stats["wall_s"] = time.perf_counter() - t0
    stats["automatic_refinements"] = refinements
    return RunOutput(release_rows, preload_rows, stats, failure, interrupted, tilt,
                     creation_report(study, watch) if watch is not None else None)


def contact_node_name(study: Study, k: int | None) -> str:
    """The name of contact node ``k`` (index in the contact's slave arrays): its one-node group of
    the mesh (O, O10, O1, O11, A), else its node number."""
    if k is None:
        return "-"
    node = int(study.contact.zone.slave[k])
    names = [g for g, nodes in study.mesh.node_groups.items() if len(nodes) == 1 and int(nodes[0]) == node]
    return names[0] if names else f"{node}"


def creation_report(study: Study, watch: CreationWatch) -> dict:
    """summary.json's ``energy_creation``: the energy scale and the limit, the contact events seen
    and the largest energy one created (fem.stage.energy.CreationWatch), with its node."""
    largest = watch.largest
    return {"scale": watch.scale, "scale_is": "the rigid block's potential-energy drop to its first impact",
            "limit": watch.limit,
            "rule": "immediate" if watch.limit == CREATION_LIMIT_IMMEDIATE else "gives nothing back",
            "events": watch.events,
            "largest": None if largest is None else {
                "t_start": largest.t_start, "t": largest.t, "created": largest.created, "fraction": largest.fraction,
                "node": contact_node_name(study, largest.node)},
            "passed": largest is None or largest.fraction <= watch.limit}


def _creation_remedy(config: Config) -> str:
    """What resolves an event that created energy, for the error message."""
    if config.steps == "benchmark":
        return ("the benchmark's windows do not resolve this run's impacts: event-driven steps (--auto-steps, the "
                "default of a custom run) do")
    if config.steps == "events":
        return "its steps do not resolve it: a smaller --dt-fine does"
    return "its steps do not resolve it: a smaller --dt does"


def _stored_energy(contact) -> float:
    """Energy [J] the contact's laws store elastically: b's shock springs, 1/2 RIGI_NOR p^2 for a
    penetration p > 0 plus 1/2 RIGI_TAN e^2 for the tangential spring's elongation e
    (contact.penalty); 0 for the multipliers of a, c, d."""
    law = getattr(contact, "law", None)
    if law is None or not hasattr(contact, "elongation"):
        return 0.0
    p = np.maximum(-np.asarray(contact.state().gap, dtype=float), 0.0)
    p = np.where(np.isfinite(p), p, 0.0)
    return float(0.5 * law.normal_stiffness * np.sum(p * p)
                 + 0.5 * law.tangential_stiffness * np.sum(contact.elongation ** 2))


def _watched(study: Study, watch: CreationWatch | None, steps):
    """The results of ``steps`` (a step generator; its return value is returned), each one followed,
    once the caller has recorded it, by the contact's energy watch: raises fem.stage.energy.EnergyCreated,
    naming the time and the contact node, when a contact event created more than the watch's limit."""
    if watch is None:
        return (yield from steps)
    while True:
        try:
            result = next(steps)
        except StopIteration as done:
            return done.value
        yield result
        st, e = study.contact.state(), result.state.energies
        found = watch.observe(result.state.t, e.contact_work + e.friction_work, st.status != OPEN, st.rn, st.gap,
                              getattr(study.contact, "impulsive", False), _stored_energy(study.contact))
        if found is not None:
            raise EnergyCreated(found, watch.limit, contact_node_name(study, found.node),
                                _creation_remedy(study.config))


IMPACT_FINE_AFTER = 3e-3  # s of fine steps after a predicted impact
IMPACT_ALPHA = -0.2  # HHT alpha of the automatic impact windows (benchmark a, c)
POST_IMPACT_CHUNK = 1e-3  # s: fine-step extensions while contact statuses still change
POST_IMPACT_MAX = 10e-3


def _predicted_impact(contact, previous: tuple | None, t: float) -> float:
    """Time until the first open contact node closes, from the gap and its rate over the last
    step (inf when no node is closing; fem.time.stepping.time_to_closing)."""
    if previous is None:
        return np.inf
    st = contact.state()
    gap = np.where(np.isfinite(st.gap), st.gap, np.inf)
    gap0, t0 = previous
    return time_to_closing(gap0, gap, st.status != OPEN, t - t0)


def _windows(study: Study) -> list[Window]:
    """The release windows: the benchmark's schedule, or for event-driven steps (Config.steps:
    --auto-steps, a custom run's default) its fine start followed by one coarse window (run by
    fem.time.stepping, :func:`_run_release`)."""
    cfg = study.config
    if cfg.spec.contact == "theta":  # d: uniform steps, no windows (impacts are first-order events)
        rows = [(0.0, 1e9, "uniform", 0.0, False)]
    elif cfg.steps == "events":
        rows = [(0.0, 0.0025, "fine", -0.1, False), (0.0025, 1e9, "coarse", 0.0, False)]
    else:
        rows = SCHEDULES[cfg.modeling]
    return list(_schedule(rows, cfg.t_end))


def _run_release(study: Study, state: State, rec: RunRecorder, rows: list[dict], integrator,
                 contact_series: ContactRecorder | None = None, watch: CreationWatch | None = None) -> list[dict]:
    """Run the release windows. Fine windows run as given. Coarse windows advance one step at a
    time and watch the contact: when an open node is predicted to close within 1.5 coarse steps and
    before the next fine window starts, fine steps with alpha = -0.2 run until 3 ms after the
    predicted impact. With event-driven steps (Config.steps), after the fine start the steps are
    fem.time.stepping's (fine steps with alpha = -0.2 through every contact event). Every step is
    followed by the contact's energy watch (:func:`_watched`). Returns the automatic refinements
    made."""
    cfg = study.config
    windows = _windows(study)
    refinements: list[dict] = []
    first = True
    if cfg.contact_events_resolved == "located":
        # contacts close and open at their instants (contact.multipliers, closing and release
        # rules): the immediate rules take and give O(dt) energy that depends on where in the step
        # a corner lands or lifts. Release phases only: the preload has no impact.
        study.contact.closing = study.contact.release = "located"

    def advance(phase):
        nonlocal state, first
        state = record_steps(rec, _watched(study, watch, integrator(study.model, phase, state, [study.contact])), rows,
                             skip_first=not first,
                             on_archived=contact_series.record if contact_series is not None else None).state
        first = False

    def settle(alpha, modified):
        """Extend a fine window by 1 ms chunks (10 ms at most, not past the next fine window) while
        a corner's contact status changed during the last millisecond: a block still bouncing
        on its corner must not be left to coarse steps."""
        extended = 0.0
        while extended < POST_IMPACT_MAX and state.t < cfg.t_end - 1e-12:
            recent = [r for r in rows if r["t"] > state.t - POST_IMPACT_CHUNK - 1e-12]
            if len({(r["status_O"] != OPEN, r["status_A"] != OPEN) for r in recent}) <= 1:
                return
            t1 = min(state.t + POST_IMPACT_CHUNK, cfg.t_end)
            refinements.append({"from": state.t, "to": t1, "reason": "contact statuses still changing"})
            advance(release_phase(study, f"settle {state.t:.5f}", state.t, t1, cfg.dt_fine, alpha, modified))
            extended += POST_IMPACT_CHUNK

    if cfg.steps == "events":
        # the benchmark's fine start, then fem.time.stepping: fine steps (HHT IMPACT_ALPHA) from before a
        # predicted impact and for IMPACT_FINE_AFTER after every contact status change, steps
        # growing to --dt elsewhere
        start = windows[0]
        advance(release_phase(study, f"fine {start.t_start:g}-{start.t_end:g}", state.t, start.t_end, cfg.dt_fine,
                              start.alpha, start.modified))
        steps = run_with_events(study.model, lambda name, t0, t1, dt, fine: release_phase(
            study, name, t0, t1, dt, IMPACT_ALPHA if fine else 0.0), state, [study.contact], [study.contact],
            cfg.t_end, EventSteps(cfg.dt, cfg.dt_fine, fine_after=IMPACT_FINE_AFTER,
                                  archive_every=cfg.archive_every))
        return record_steps(rec, _watched(study, watch, steps), rows, skip_first=True,
                            on_archived=contact_series.record if contact_series is not None else None).value or []
    for k, w in enumerate(windows):
        if w.step == "uniform":
            advance(release_phase(study, "release", w.t_start, w.t_end, cfg.dt, 0.0))
            continue
        if w.step == "fine":
            if state.t >= w.t_end - 1e-12:  # already covered by an extension
                continue
            advance(release_phase(study, f"fine {w.t_start:g}-{w.t_end:g}", state.t, w.t_end, cfg.dt_fine,
                                  w.alpha, w.modified))
            settle(w.alpha, w.modified)
            continue
        next_fine = next((v.t_start for v in windows[k + 1:] if v.step == "fine"), np.inf)
        previous = None
        while state.t < w.t_end - 1e-12:
            t_hit = _predicted_impact(study.contact, previous, state.t)
            if t_hit < 1.5 * cfg.dt and state.t + t_hit < next_fine:
                t1 = min(state.t + t_hit + IMPACT_FINE_AFTER, w.t_end)
                refinements.append({"from": state.t, "to": t1, "predicted_impact": state.t + t_hit})
                logger.info("impact predicted at %.6f s: fine steps %.6f -> %.6f s", state.t + t_hit, state.t, t1)
                advance(release_phase(study, f"impact {state.t:.5f}", state.t, t1, cfg.dt_fine, IMPACT_ALPHA))
                settle(IMPACT_ALPHA, False)
                previous = None
                continue
            st = study.contact.state()
            previous = (np.where(np.isfinite(st.gap), st.gap, np.inf), state.t)
            advance(release_phase(study, f"{w.step} {state.t:.5f}", state.t, min(state.t + cfg.dt, w.t_end),
                                  cfg.dt, w.alpha, w.modified))
    return refinements


# ----------------------------------------------------------------------------------- post-processing
def _in(t, lo=-np.inf, hi=np.inf, closed_hi=False):
    return (t > lo) & ((t <= hi) if closed_hi else (t < hi))


def _ke_max(R, lo, hi=np.inf, closed_hi=False):
    m = _in(R["t"], lo, hi, closed_hi)
    k = np.flatnonzero(m)[np.argmax(R["ke"][m])]
    return float(R["ke"][k]), float(R["t"][k])


def extractors(R: dict, P: dict) -> dict[str, Callable[[], float]]:
    """The benchmark's post-processed quantities (sdnv105.md §1.6), by name."""
    sw = np.ones(P["t"].size, dtype=bool)  # P: the self-weight phase
    t = R["t"]
    return {
        "dy_C1_sw_max": lambda: float(P["dy_C1"][sw].max()),
        "dy_C1_sw_min": lambda: float(P["dy_C1"][sw].min()),
        "dy_O_min": lambda: float(R["dy_O"].min()),
        "dy_O_max": lambda: float(R["dy_O"].max()),
        "dy_A_min": lambda: float(R["dy_A"].min()),
        "dy_A_max": lambda: float(R["dy_A"].max()),
        "vy_O_min_017": lambda: float(R["vy_O"][t > 0.17].min()),
        "vy_O_min": lambda: float(R["vy_O"].min()),
        "vy_A_min": lambda: float(R["vy_A"].min()),
        "rn_O_min": lambda: float(R["rn_O"].min()),
        "rn_O_max_1": lambda: float(R["rn_O"][_in(t, 0.01, 0.05)].max()),
        "rn_A_min": lambda: float(R["rn_A"].min()),
        "rn_A_max_2": lambda: float(R["rn_A"][_in(t, 0.06, 0.12)].max()),
        # tangential reactions with Code_Aster's sign: the force of the block on the table (b: the
        # discrete element's internal force), the opposite of our force on the block
        "rx_O_min_1": lambda: float(-R["rx_O"][_in(t, 0.01, 0.05)].max()),
        "rx_A_max_2": lambda: float(-R["rx_A"][_in(t, 0.06, 0.12)].min()),
        "rx_A_max_2b": lambda: float(-R["rx_A"][_in(t, 0.07, 0.12)].min()),
        # a: RN(A) restricted to 0.0544 < t < 0.0545, integrated, value at 0.05449
        "percussion_A": lambda: impulse(t, R["rn_A"], 0.0544, 0.05449),
        # c: normal / tangential impulse of the contact at A over the window
        "percussion_A_n": lambda: abs(impulse(t, R["ry_A"], 0.0544, 0.0545)),
        "percussion_A_t": lambda: -impulse(t, R["rx_A"], 0.0544, 0.0545),
        "ke_max": lambda: _ke_max(R, -np.inf)[0],
        "t_ke_max": lambda: _ke_max(R, -np.inf)[1],
        **{f"ke_max_{lo}": (lambda lo=lo: _ke_max(R, lo)[0]) for lo in (0.1, 0.15, 0.22, 0.26, 0.28)},
        **{f"t_ke_max_{lo}": (lambda lo=lo: _ke_max(R, lo)[1]) for lo in (0.1, 0.15, 0.22, 0.26, 0.28)},
        "ke_max_0.1c": lambda: _ke_max(R, 0.1, 0.145, True)[0],
        "t_ke_max_0.1c": lambda: _ke_max(R, 0.1, 0.145, True)[1],
    }


# quantity name, window label, extractor, indices of the modeling's records in code_aster_tests.json
CHECKS = {
    "a": [("DY(C1) max", "self-weight", "dy_C1_sw_max", [0]), ("DY(C1) min", "self-weight", "dy_C1_sw_min", [1]),
          ("DY(O) min", "release", "dy_O_min", [2]), ("DY(O) max", "release", "dy_O_max", [3, 4]),
          ("DY(A) min", "release", "dy_A_min", [5]), ("DY(A) max", "release", "dy_A_max", [6]),
          ("VY(O) min", "t > 0.17", "vy_O_min_017", [7]), ("RN(O) min", "release", "rn_O_min", [8]),
          ("RN(O) max", "0.01-0.05", "rn_O_max_1", [9]), ("RN(A) min", "release", "rn_A_min", [10]),
          ("RN(A) max", "0.06-0.12", "rn_A_max_2", [11]),
          ("percussion RN(A)", "0.0544-0.05449", "percussion_A", [12]),
          ("KE max", "all", "ke_max", [13]), ("t(KE max)", "all", "t_ke_max", [14]),
          ("KE max", "t > 0.1", "ke_max_0.1", [15, 16]), ("t(KE max)", "t > 0.1", "t_ke_max_0.1", [17, 18]),
          ("KE max", "t > 0.15", "ke_max_0.15", [19, 20]), ("t(KE max)", "t > 0.15", "t_ke_max_0.15", [21, 22]),
          ("KE max", "t > 0.22", "ke_max_0.22", [23, 24]), ("t(KE max)", "t > 0.22", "t_ke_max_0.22", [25, 26]),
          ("KE max", "t > 0.28", "ke_max_0.28", [27, 28]), ("t(KE max)", "t > 0.28", "t_ke_max_0.28", [29, 30])],
    "b": [("DY(O) min", "release", "dy_O_min", [0]), ("DY(O) max", "release", "dy_O_max", [1, 2]),
          ("DY(A) min", "release", "dy_A_min", [3]), ("DY(A) max", "release", "dy_A_max", [4]),
          ("VY(O) min", "release", "vy_O_min", [5, 6]), ("VY(A) min", "release", "vy_A_min", [7]),
          ("N(O) max", "0.01-0.05", "rn_O_max_1", [8]), ("N(A) max", "0.06-0.12", "rn_A_max_2", [9]),
          ("VY force (O) min", "0.01-0.05", "rx_O_min_1", [10]),
          ("VY force (A) max", "0.07-0.12", "rx_A_max_2b", [11]),
          ("KE max", "all", "ke_max", [12]), ("t(KE max)", "all", "t_ke_max", [13]),
          ("KE max", "t > 0.1", "ke_max_0.1", [14, 15]), ("t(KE max)", "t > 0.1", "t_ke_max_0.1", [16, 17]),
          ("t(KE max)", "t > 0.15", "t_ke_max_0.15", [18, 19]), ("t(KE max)", "t > 0.26", "t_ke_max_0.26", [20, 21])],
    "c": [("DY(C1) max", "self-weight", "dy_C1_sw_max", [0]), ("DY(C1) min", "self-weight", "dy_C1_sw_min", [1]),
          ("DY(O) min", "release", "dy_O_min", [2]), ("DY(O) max", "release", "dy_O_max", [3, 4]),
          ("DY(A) min", "release", "dy_A_min", [5]), ("DY(A) max", "release", "dy_A_max", [6]),
          ("VY(O) min", "release", "vy_O_min", [7, 8]), ("VY(A) min", "release", "vy_A_min", [9]),
          ("RN(O) min", "release", "rn_O_min", [10]), ("RN(O) max", "0.01-0.05", "rn_O_max_1", [11]),
          ("RN(A) min", "release", "rn_A_min", [12]), ("RN(A) max", "0.06-0.12", "rn_A_max_2", [13]),
          ("RX(O) min", "0.01-0.05", "rx_O_min_1", [14]), ("RX(A) max", "0.06-0.12", "rx_A_max_2", [15]),
          ("percussion IY(A)", "0.0544-0.0545", "percussion_A_n", [16]),
          ("percussion IX(A)", "0.0544-0.0545", "percussion_A_t", [17]),
          ("KE max", "all", "ke_max", [18]), ("t(KE max)", "all", "t_ke_max", [19]),
          ("KE max", "0.1 < t <= 0.145", "ke_max_0.1c", [20, 21]),
          ("t(KE max)", "0.1 < t <= 0.145", "t_ke_max_0.1c", [22, 23])],
}


def code_aster_records(modeling: str) -> list[dict]:
    """The SDNV105 records of a modeling, in file order."""
    data = json.loads(REFERENCE_FILE.read_text())
    return [r for r in data["records"] if r["case"] == "SDNV105" and r["modeling"] == modeling]


def _within(value: float, record: dict) -> bool:
    ref, tol = record["reference"], record["tolerance"]
    if record["criterion"].upper().startswith("ABS"):
        return abs(value - ref) <= tol
    return abs(value - ref) <= tol * abs(ref)


def _rel(value: float, ref: float | None) -> float | None:
    if ref is None:
        return None
    return abs(value - ref) / abs(ref) if ref != 0 else abs(value - ref)


def _window_end(window: str, t_end: float) -> float:
    """Release time [s] at which a check's window closes: 'a-b' -> b, '0.1 < t <= 0.145' -> 0.145,
    'release', 'all', 't > x' -> the benchmark's end ``t_end``; the self-weight phase -> -inf."""
    if window == "self-weight":
        return -np.inf
    if "<=" in window:
        return float(window.split("<=")[1])
    if "-" in window and not window.startswith("t"):
        return float(window.split("-")[1])
    return t_end


def evaluate_checks(modeling: str, R: dict, P: dict) -> list[dict]:
    """One entry per tested quantity: our value beside the rigid-body (or analytic) reference, the
    restitution-coefficient reference when there is one, Code_Aster's value, the relative error to
    the first reference, and whether each reference's Code_Aster tolerance is met."""
    table = CHECKS.get(modeling, CHECKS["a"])
    records = code_aster_records(modeling if modeling in CHECKS else "a")
    ex = extractors(R, P)
    out = []
    t_last = float(R["t"][-1])
    for quantity, window, key, idx in table:
        recs = [records[i] for i in idx]
        rigid = next((r for r in recs if "restitution" not in (r.get("note") or "")), recs[0])
        restit = next((r for r in recs if "restitution" in (r.get("note") or "")), None)
        value = None  # a window the run does not reach (--t-end, an interrupted run) gets no verdict
        if t_last >= _window_end(window, MODELINGS[modeling].t_end) - 1e-9:
            try:
                value = ex[key]()
            except ValueError:  # empty window
                pass
        out.append({
            "quantity": quantity, "window": window, "value": value,
            "reference_rigid": rigid["reference"],
            "reference_restitution": restit["reference"] if restit else None,
            "code_aster": rigid["aster_value"],
            "rel_error": None if value is None else _rel(value, rigid["reference"]),
            "rel_error_code_aster": None if value is None else _rel(value, rigid["aster_value"]),
            "tolerance": [r["tolerance"] for r in recs], "criterion": rigid["criterion"],
            "within_tolerance": None if value is None else all(_within(value, r) for r in recs),
            **({"note": "window not reached by the run (--t-end)"} if value is None else {}),
        })
    return out


# Tolerances of the checks of a custom run against the rigid block recomputed for its parameters.
# Before the first impact the elastic block (first eigenfrequency >> rocking frequency p) rocks as
# the rigid one: at the benchmark's parameters a, b, c and d meet the first impact instant within
# 0.2 % and the kinetic energy before it within 0.5 % (README), and |RT|/RN at the pivot within
# 0.6 % (0.3195 vs 0.3193 here, 0.3212 in the document); the instant is read at the step where
# the corner's status closes, i.e. to within a fine step. Modeling d's impact law is the rigid
# block's (no rebound of the contact nodes), so its later impacts are checked too, with the
# tolerances the benchmark's d run meets (instants 1 %, energies 3 %). A, b and c impacts are
# elastic: after the first one they are compared with Code_Aster, not with the rigid block.
RELEASE_TRANSIENT = 0.01  # s
RIGID_TOLERANCES = {"instant": 0.01, "ke_before": 0.02, "friction_ratio": 0.02, "later_instant": 0.01,
                    "later_ke_before": 0.03}


def _rigid_row(quantity: str, window: str, value, reference: float, tolerance: float, applies: bool,
               note: str = "") -> dict:
    """A check against the rigid block: a verdict only where the reference ``applies``; a value the
    run does not have (an impact the rigid block makes and the run misses) then fails."""
    rel = None if value is None else _rel(value, reference)
    return {"quantity": quantity, "window": window, "value": value, "reference_rigid": reference,
            "reference_restitution": None, "code_aster": None, "rel_error": rel, "rel_error_code_aster": None,
            "tolerance": [tolerance], "criterion": "RELATIF",
            "within_tolerance": (rel is not None and rel <= tolerance) if applies else None, "note": note}


def rigid_checks(config: Config, R: dict, impacts: list[dict], rigid: dict) -> list[dict]:
    """Checks of a custom run against the rigid block recomputed for its own width, height, tilt and
    density (contact.references.rocking): first impact instant and kinetic energy before it, largest |RT|/RN at
    the pivot O before it, and for modeling d every later impact. ``within_tolerance`` is None (no
    verdict) for an impact the run does not reach, and for every row when the pivot slides
    (mu below the rigid block's friction demand), since the rigid reference assumes it sticks."""
    demand = friction_demand(config)
    applies = config.rigid_reference_applies
    why = "" if applies else (f"--mu {config.mu:g} is below the rigid block's friction demand {demand:.4g}: "
                              f"the pivot slides, the rigid-rocking reference does not apply")
    n_checked = len(rigid["impact_times"]) if config.modeling == "d" else 1
    t_last = float(R["t"][-1])  # --t-end, or where an interrupted run stopped
    rows = []
    for k in range(n_checked):
        got = impacts[k] if k < len(impacts) else None
        t_ref, ke_ref = rigid["impact_times"][k], rigid["ke_before"][k]
        reached = t_ref <= t_last
        note = why or ("" if got else "no such impact in the run" if reached else "not reached by the run")
        label = f"impact {k + 1}"
        for quantity, field, reference, tolerance in (
                (f"t({label})", "time", t_ref, RIGID_TOLERANCES["instant" if k == 0 else "later_instant"]),
                (f"KE before {label}", "ke_before", ke_ref,
                 RIGID_TOLERANCES["ke_before" if k == 0 else "later_ke_before"])):
            rows.append(_rigid_row(quantity, "release", got[field] if got else None, reference, tolerance,
                                   applies and reached, note))
    # from 0.01 s, as the benchmark's RN(O), RX(O) windows: the elastic block's reactions need a few
    # of its vertical periods to settle from the held tilt (t = 0) to the rocking (0.36 at 2e-4 s in d)
    t_impact = impacts[0]["time"] if impacts else rigid["impact_times"][0]
    before = (R["t"] >= RELEASE_TRANSIENT) & (R["t"] < t_impact)
    loaded = before & (R["rn_O"] > 0.05 * np.max(R["rn_O"][before], initial=0.0))
    ratio = float(np.max(np.abs(R["rt_O"][loaded]) / R["rn_O"][loaded])) if np.any(loaded) else None
    rows.append(_rigid_row("max RT/RN at O", "0.01-impact 1", ratio, demand, RIGID_TOLERANCES["friction_ratio"],
                           applies and ratio is not None, why))  # None: the run stopped before 0.01 s
    return rows


def detect_impacts(R: dict) -> list[dict]:
    """Impacts: a corner contact closing after being open (status column), with the block kinetic
    energy just before (the maximum over the last 40 % of the preceding flight, as the benchmark
    reads its collision instants) and just after (the minimum over the next 5 ms). The pivot O
    settling on its elastic support in the first RELEASE_TRANSIENT after the release (a lift of a
    few nanometres for a step or two, kinetic energy ~1e-5 J) is not an impact: the block leaves the
    tilt resting on O."""
    impacts = []
    for corner in ("O", "A"):
        status = R[f"status_{corner}"]
        closes = np.flatnonzero((status[1:] != OPEN) & (status[:-1] == OPEN)) + 1
        for k in closes:
            if corner == "O" and R["t"][k] < RELEASE_TRANSIENT:
                continue
            impacts.append((float(R["t"][k]), corner, k))
    impacts.sort()
    out, t_prev = [], 0.0
    for t_hit, corner, k in impacts:
        if out and t_hit - out[-1]["time"] < 0.01:  # chatter within one impact
            continue
        before = (R["t"] > t_prev + 0.6 * (t_hit - t_prev)) & (R["t"] <= t_hit)  # the approach, not the last impact
        after = (R["t"] > t_hit) & (R["t"] <= t_hit + 0.005)
        ke_b = float(R["ke"][before].max()) if before.any() else float("nan")
        ke_a = float(R["ke"][after].min()) if after.any() else float("nan")
        out.append({"time": t_hit, "corner": corner, "ke_before": ke_b, "ke_after": ke_a})
        t_prev = t_hit
    return out


def energy_balance(R: dict, P: dict) -> dict:
    """Energy balance of the release (t = 0 onwards), from the recorded terms [J]:

        kinetic + strain + gravity potential + Rayleigh damping + contact work + friction work
        + numerical dissipation of the time scheme - work of the supports = constant

    every term computed on its own (fem.stage.energy: the contact laws' works from their reactions and
    gap / slip changes, the scheme's dissipation from its energy identity)

    ``initial_energy`` is the strain and kinetic energy of the model at the release (the strain
    energy the self-weight and the tilt left), energy the run starts with besides the drop;
    ``relative_error`` is the largest departure from the constant, relative to the potential-
    energy drop up to the first impact; ``numerical_dissipation`` (HHT / Newmark with gamma > 1/2
    in the benchmark's impact windows) is reported on its own, and ``relative_error_physical``
    leaves it out (the balance of the physical terms alone)."""
    t = R["t"]
    physical = (R["ke"] + R["strain_energy"] + R["gravity_potential"] + R["damping_dissipation"] + R["term_work"]
                - R["reaction_work"])
    total = physical + R["numerical_dissipation"]
    error, error_phys = total - total[0], physical - physical[0]
    first = t <= t[np.argmax(R["ke"])]
    drop = float(R["gravity_potential"][0] - R["gravity_potential"][first].min())
    rel = (lambda x: float(np.abs(x).max() / drop)) if drop > 0 else (lambda x: None)
    return {"potential_drop": drop, "initial_energy": float(R["strain_energy"][0] + R["ke"][0]),
            "max_abs_error": float(np.abs(error).max()), "relative_error": rel(error),
            "relative_error_physical": rel(error_phys),
            "damping_dissipated": float(R["damping_dissipation"][-1] - R["damping_dissipation"][0]),
            "contact_work": float(R["contact_work"][-1] - R["contact_work"][0]),
            "friction_work": float(R["friction_work"][-1] - R["friction_work"][0]),
            "numerical_dissipation": float(R["numerical_dissipation"][-1] - R["numerical_dissipation"][0]),
            "final_error": float(error[-1])}


def energy_check(energy: dict) -> dict:
    """Whether the energy books of the release agree with the motion computed: ``passed`` is False
    when their largest balance error exceeds ENERGY_LIMIT of the potential-energy drop
    (``relative_error`` of :func:`energy_balance`), None when the run has no drop to compare with.
    A completed run that fails it exits with fem.run.lifecycle.EXIT_FAILED (status stays ``complete``)."""
    rel = energy.get("relative_error")
    check = {"relative_error": rel, "limit": ENERGY_LIMIT, "passed": None if rel is None else bool(rel <= ENERGY_LIMIT)}
    if rel is None:
        check["note"] = "no potential-energy drop in the run: the books are not graded"
    elif not check["passed"]:
        check["message"] = (f"the energy books miss by {100 * rel:.3g} % of the potential-energy drop "
                            f"({energy['max_abs_error']:.4g} J of {energy['potential_drop']:.4g} J; the limit is "
                            f"{100 * ENERGY_LIMIT:g} %): the motion computed is not the one the forces in the books "
                            f"produce, so its impacts, energies and checks are not to be trusted")
    return check


# ----------------------------------------------------------------------------------- outputs
def rigid_reference(config: Config) -> dict:
    """Event-driven rigid-block rocking (contact.references.rocking, exact nonlinear equation, Housner's
    impact law of the document) for the run's geometry: impact instants, kinetic energies before
    and after each impact, and the kinetic-energy curve for the plots."""
    result = rocking.rock(config.width / 2, config.height / 2, config.tilt_angle, g=G, rho=config.rho,
                          n_impacts=5, model="nonlinear")
    curve_t = np.linspace(0.0, min(result.impact_times[-1], config.t_end), 800)
    curve_ke = np.asarray(result.energies(curve_t)[0])
    return {"model": "exact nonlinear rocking, impact law omega+ = (1 - 3 b^2 / (2 R^2)) omega-",
            "impact_times": list(result.impact_times), "impact_corner": list(result.impact_corner),
            "ke_before": list(result.ke_before), "ke_after": list(result.ke_after),
            "curve_t": curve_t.tolist(), "curve_ke": curve_ke.tolist()}


def _fmt(x, digits=6):
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "**no**"
    if isinstance(x, (list, tuple)):
        return " / ".join(_fmt(v, 3) for v in x)
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:.{digits}g}"
    return f"{x:.{digits - 1}e}"


def describe_mesh(mesh: dict) -> str:
    """summary.json's ``mesh`` in words, for report.md."""
    names = {"quad4": "QUA4", "tri6": "TRIA6"}
    size = f"{mesh['nodes']} nodes, {mesh['cells']} cells, {mesh['dofs']} dofs"
    if mesh["source"] == "benchmark":
        return f"the benchmark's, `{mesh['file']}` ({size})"
    if mesh["source"] == "--mesh":
        return (f"`{mesh['file']}` (--mesh; {'the benchmark' if mesh['benchmark_mesh'] else 'not the benchmark'}'s "
                f"mesh; {size})")
    table = "on the table" if mesh["with_table"] else "without the table"
    if mesh["layout"] == "refined":
        return (f"a uniform block of {mesh['nx']} x {mesh['ny']} {names.get(mesh['element'], mesh['element'])} "
                f"{table} (--nx {mesh['nx']} --ny {mesh['ny']}: not the benchmark's mesh), generated into "
                f"`{mesh['file']}` ({size})")
    return f"the benchmark's layout for this block, generated into `{mesh['file']}` ({size})"


def _creation_lines(creation: dict | None) -> list[str]:
    """report.md's paragraph on the energy created at contact events (summary energy_creation)."""
    if not creation:
        return []
    largest = creation["largest"]
    limit = f"{100 * creation['limit']:g} % of the energy scale {creation['scale']:.4g} J ({creation['scale_is']})"
    if largest is None:
        return [f"Energy created at contact events: none ({creation['events']} events; every one took energy; "
                f"the limit is {limit}).", ""]
    return [f"Energy created at contact events: the largest, {largest['created']:.4g} J "
            f"({100 * largest['fraction']:.3g} %) given back by the contact over the event from "
            f"{largest['t_start']:.6g} s, measured at {largest['t']:.6g} s, node {largest['node']} "
            f"({creation['events']} events); {'within' if creation['passed'] else '**beyond**'} the limit of {limit}"
            f"{'' if creation['passed'] else ': the run stopped there (status failed)'}. Net over an event, "
            f"the contact and friction work can only take energy; what a position-level contact under "
            f"Code_Aster's immediate rules gives back when a node opens is measured here.", ""]


def _round_off_section(ensemble: dict | None) -> list[str]:
    """report.md's "Round-off" section (--round-off), empty without an ensemble."""
    if not ensemble:
        return []
    lines = ["", "## Round-off", "",
             f"The run repeated with the tilt angle moved by -{ensemble['ulps']} ... +{ensemble['ulps']} units in the "
             f"last place ({ensemble['runs']} runs of {ensemble['asked']}"
             f"{', interrupted' if ensemble['status'] == 'interrupted' else ''}"
             f"{'; failed: ' + '; '.join(ensemble['failed']) if ensemble['failed'] else ''}; histories in "
             f"round_off/). A check whose runs disagree on the verdict is decided by the rounding of the arithmetic, "
             f"not by the model: "
             f"{', '.join(ensemble['decided_by_round_off']) or 'none here'}.", "",
             "| quantity | window | min | median | max | spread | runs within tol. |", "|---|---|---|---|---|---|---|"]
    for r in ensemble["checks"]:
        met = f"{r['met']}/{r['graded']}" if r["graded"] else "–"
        lines.append(f"| {r['quantity']} | {r['window']} | {_fmt(r['min'])} | {_fmt(r['median'])} | {_fmt(r['max'])} "
                     f"| {_fmt(r['spread'], 2)} | {met} |")
    return lines


def write_report(out: Path, config: Config, summary: dict) -> Path:
    """report.md: the checks as a table, ours beside the references and Code_Aster's value."""
    spec = config.spec
    lines = [f"# SDNV105{config.modeling.upper()} — {spec.description}", "",
             f"Command: `{summary['command']}` (rockfem {summary['version']}; every parameter in summary.json). "
             f"Run: {summary['run']['steps']} steps, {summary['run']['newton_iterations']} Newton iterations, "
             f"{summary['run']['subdivisions']} sub-steps, {summary['run']['wall_s']:.1f} s.", "",
             *([f"Mesh: {describe_mesh(summary['mesh'])}.", ""] if summary.get("mesh") else []),
             *([f"Steps of the release: **{summary['steps']['kind']}** ({summary['steps']['chosen_by']}): "
                f"{summary['steps']['description']}; --dt {summary['steps']['dt']:g} s, --dt-fine "
                f"{summary['steps']['dt_fine']:g} s.", ""] if summary.get("steps") else []),
             f"Status: **{summary['status']}**. Configuration: **{summary['configuration']}**.", ""]
    if summary["status"] == "interrupted":
        lines += [f"**The run was interrupted** ({summary['message']}) at t = {summary['t_reached']} s: the "
                  f"histories and ParaView series hold every step up to there; the checks below use what was "
                  f"computed and are not those of a finished run.", ""]
    elif summary.get("failure"):
        lines += [f"**The run stopped early**: {summary['failure']}", ""]
    books = summary.get("energy_check") or {}
    if books.get("passed") is False:
        lines += [f"**The run exited with code 1**: {books['message']} (see \"Energy balance of the release\").", ""]
    tilt = summary.get("tilt")
    if tilt:
        lines += [f"Tilt rule: **{tilt['rule']}** ({tilt['description']}). At the end of the tilt the block's axis "
                  f"O1-C1 has turned {tilt['rotation']:.6g} rad (asked {tilt['tilt_angle']:g}), DY(O) = "
                  f"{tilt['dy_O']:.3g} m, and the model stores {tilt['strain_energy_end']:.4g} J of strain energy "
                  f"({tilt['strain_energy_start']:.4g} J under self-weight before the tilt): "
                  f"{tilt['strain_energy_ratio']:.3g} of the rigid block's potential-energy drop "
                  f"{tilt['rigid_potential_drop']:.4g} J, {'within' if tilt['passed'] else '**above**'} the "
                  f"{100 * tilt['limit']:g} % limit.", ""]
    if summary["configuration"] == "custom":
        lines += [f"This run departs from the benchmark ({', '.join(summary['departures'])}): Code_Aster's values "
                  f"are those of the benchmark's parameters and do not apply, so the Code_Aster columns are empty. "
                  f"The references are the rigid block recomputed for this run's width, height, tilt and density "
                  f"(contact.references.rocking, exact nonlinear rocking and the document's impact law): the first impact, the "
                  f"kinetic energy before it and the friction the pivot needs"
                  f"{' (and every impact, modeling d having the rigid impact law)' if config.modeling == 'd' else ''}."
                  f" A verdict is given only where that reference applies.", ""]
    if config.modeling == "d" and summary["configuration"] == "benchmark":
        lines += ["No public Code_Aster file exists for modeling d: the table compares with modeling a's tests "
                  "and values. The theta-scheme's impact law (no rebound of the contact nodes, at the velocity "
                  "level) dissipates more per impact than a's elastic impacts; its reference is the rigid-body "
                  "rocking below (impact instants and kinetic energies).", ""]
    if summary["configuration"] == "benchmark":
        lines += ["References: `rigid` = the benchmark's rigid-body (or analytic) value, `restit.` = its value "
                  "estimated with a restitution coefficient, `Code_Aster` = the value Code_Aster computes "
                  "(VALE_CALC of the public test file). `error` is relative to the first reference; `within tol.` "
                  "applies Code_Aster's own tolerance(s) of the test file. Tangential reactions and percussions "
                  "are given with Code_Aster's sign (force of the block on the table); the histories hold the "
                  "force of the table on the block.", ""]
    lines += ["| quantity | window | this code | rigid | restit. | Code_Aster | error | error vs Code_Aster "
              "| tolerance | within tol. |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for c in summary.get("checks", []):
        verdict = _fmt(c["within_tolerance"]) if c["within_tolerance"] is not None else "–"
        note = f" ({c['note']})" if c.get("note") else ""
        lines.append(f"| {c['quantity']} | {c['window']} | {_fmt(c['value'])} | {_fmt(c['reference_rigid'])} | "
                     f"{_fmt(c['reference_restitution'])} | {_fmt(c['code_aster'])} | {_fmt(c['rel_error'], 3)} | "
                     f"{_fmt(c['rel_error_code_aster'], 3)} | {_fmt(c['tolerance'])} {c['criterion'][:3].lower()} | "
                     f"{verdict}{note} |")
    lines += _round_off_section(summary.get("round_off"))
    lines += ["", "## Impacts", "", "| time [s] | corner | KE before [J] | KE after [J] |", "|---|---|---|---|"]
    lines += [f"| {i['time']:.6f} | {i['corner']} | {i['ke_before']:.4f} | {i['ke_after']:.4f} |"
              for i in summary.get("impacts", [])]
    rigid = summary.get("rigid_body")
    if rigid:
        lines += ["", "## Rigid-body reference (event-driven, this geometry)", "",
                  "| impact | time [s] | KE before [J] | KE after [J] |", "|---|---|---|---|"]
        lines += [f"| {k + 1} | {t:.6f} | {kb:.4f} | {ka:.4f} |" for k, (t, kb, ka) in
                  enumerate(zip(rigid["impact_times"], rigid["ke_before"], rigid["ke_after"]))]
    e = summary.get("energy")
    if not e:  # stopped before the release
        output_folder.write_text(out / "report.md", "\n".join(lines))
        return out / "report.md"
    verdict = ("not graded (no potential-energy drop)" if books.get("passed") is None else
               f"{'within' if books['passed'] else '**beyond**'} the limit of {100 * books['limit']:g} % of the drop"
               f"{'' if books['passed'] else ': the run exits with code 1'}")
    lines += ["", "## Energy balance of the release", "",
              f"Energy books: {verdict}.", "",
              f"Potential-energy drop to the first impact {e['potential_drop']:.4f} J; largest balance error "
              f"{e['max_abs_error']:.4g} J ({100 * (e['relative_error'] or 0):.3g} % of the drop); dissipated by "
              f"Rayleigh damping {e['damping_dissipated']:.4g} J; taken by the normal contact {e['contact_work']:.4g} J "
              f"(negative: given back, the position-level Lagrange contact of A and C creates energy when a contact "
              f"opens) and by friction {e['friction_work']:.4g} J; "
              f"removed by the time scheme itself, from its own energy identity (HHT alpha < 0 in the impact "
              f"windows, theta > 1/2) "
              f"{e['numerical_dissipation']:.4g} J, i.e. without it the physical terms would miss "
              f"{100 * (e['relative_error_physical'] or 0):.3g} % of the drop.",
              "", *_creation_lines(summary.get("energy_creation"))]
    path = out / "report.md"
    output_folder.write_text(path, "\n".join(lines))
    return path


def plot(out: Path, R: dict, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = R["t"]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(t, R["ke"], label="block kinetic energy")
    for imp in summary["impacts"]:
        ax.axvline(imp["time"], color="grey", lw=0.6, ls=":")
    rigid = summary.get("rigid_body")
    if rigid and rigid.get("curve_t") is not None:
        ax.plot(rigid["curve_t"], rigid["curve_ke"], "k--", lw=0.8, label="rigid body")
    ax.set(xlabel="t [s]", ylabel="kinetic energy [J]", title="SDNV105: kinetic energy, impacts dotted")
    ax.legend()
    fig.tight_layout()
    output_folder.save_figure(fig, out / "kinetic_energy.png", dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(t, 1e3 * R["dy_O"], label="DY(O)")
    ax.plot(t, 1e3 * R["dy_A"], label="DY(A)")
    ax.set(xlabel="t [s]", ylabel="uplift [mm]", title="corner uplifts")
    ax.legend()
    fig.tight_layout()
    output_folder.save_figure(fig, out / "uplift.png", dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for c in ("O", "A"):
        ax[0].plot(t, R[f"rn_{c}"], label=f"RN({c})")
        ax[1].plot(t, R[f"rx_{c}"], label=f"RX({c})")
    ax[0].set(ylabel="normal reaction [N]", ylim=(-100, 5000))
    ax[1].set(xlabel="t [s]", ylabel="tangential reaction [N]", ylim=(-2000, 2000))
    ax[0].legend()
    ax[1].legend()
    fig.tight_layout()
    output_folder.save_figure(fig, out / "reactions.png", dpi=120)
    plt.close(fig)


def tilt_moved(tilt: float, ulps: int) -> float:
    """The tilt angle moved by ``ulps`` units in the last place (numpy.nextafter)."""
    for _ in range(abs(ulps)):
        tilt = float(np.nextafter(tilt, np.inf if ulps > 0 else -np.inf))
    return tilt


def round_off_ensemble(study: Study, summary: dict, integrator=integrate) -> tuple[dict, Interrupted | None]:
    """--round-off K: the run repeated with the tilt angle moved by -K ... -1, +1 ... +K units in the
    last place (2e-18 rad each: the benchmark's input, changed as a different order of the same
    floating-point operations changes a result), each in OUT/round_off/tilt_<k>ulp (histories, no
    ParaView). Per check of ``summary`` (this run's): the smallest, median and largest value over the
    2K + 1 runs, the spread (max - min) / |median|, and how many runs meet the check's test.

    Returns (the summary's "round_off" entry, the interruption that stopped the ensemble or None):
    an interrupted ensemble reports the runs it finished."""
    config = study.config
    checks = summary.get("checks") or []
    values = [[c["value"] for c in checks]]
    verdicts = [[c["within_tolerance"] for c in checks]]
    failed, interrupted = [], None
    for k in [*range(-config.round_off, 0), *range(1, config.round_off + 1)]:
        moved = replace(config, tilt_angle=tilt_moved(config.tilt_angle, k), paraview=False, round_off=0,
                        out=config.out / "round_off" / f"tilt_{k:+d}ulp")
        moved.out.mkdir(parents=True, exist_ok=True)
        moved_study = build(moved)
        output = run(moved_study, integrator)
        if output.interrupted is not None:
            interrupted = output.interrupted
            break
        if output.failure:
            failed.append(f"{k:+d} ulp: {output.failure}")
            continue
        theirs = {(c["quantity"], c["window"]): c for c in summarize(moved_study, output).get("checks", [])}
        same = [theirs.get((c["quantity"], c["window"]), {}) for c in checks]
        values.append([c.get("value") for c in same])
        verdicts.append([c.get("within_tolerance") for c in same])
    rows = []
    for i, c in enumerate(checks):
        got = np.array([v[i] for v in values if v[i] is not None], dtype=float)
        graded = [v[i] for v in verdicts if v[i] is not None]
        median = float(np.median(got)) if got.size else None
        rows.append({"quantity": c["quantity"], "window": c["window"], "runs": int(got.size),
                     "min": float(got.min()) if got.size else None, "median": median,
                     "max": float(got.max()) if got.size else None,
                     "spread": (float(got.max() - got.min()) / abs(median)) if median else None,
                     "graded": len(graded), "met": sum(bool(g) for g in graded)})
    entry = {"ulps": config.round_off, "status": "interrupted" if interrupted else "complete",
             "runs": len(values), "asked": 2 * config.round_off + 1, "failed": failed, "checks": rows,
             "decided_by_round_off": [f"{r['quantity']} ({r['window']})" for r in decided_by_round_off(rows)]}
    return entry, interrupted


def decided_by_round_off(rows: list[dict]) -> list[dict]:
    """The rows of a round-off ensemble on whose verdict its runs disagree."""
    return [r for r in rows if 0 < r["met"] < r["graded"]]


def summarize(study: Study, output: RunOutput) -> dict:
    """What summary.json holds besides the run header (fem.run.lifecycle.Run): the configuration's checks
    (Code_Aster's tests for the benchmark configuration, the rigid block recomputed for this run's
    parameters for a custom one), impacts, energy balance, rigid-body reference, run statistics."""
    cfg = study.config
    R, P = rows_as_arrays(output.release), rows_as_arrays(output.preload)
    summary = {"modeling": cfg.modeling, "config": {k: (str(v) if isinstance(v, Path) else v)
                                                    for k, v in asdict(cfg).items()},
               "departures": cfg.departures(), "run": output.stats, "failure": output.failure}
    model = study.model
    summary["contact_events"] = cfg.contact_events_resolved
    summary["mass"] = {"kind": model.mass_kind, "massless_nodes": int(model.massless_dofs.size // 2),
                       "block_mass": model.total_mass("BLOCK")}
    source = mesh_source(cfg)
    # a --mesh file may hold the benchmark's own mesh (recognised by its nodes and cells)
    benchmark_mesh = source["source"] == "benchmark" or (source["source"] == "--mesh"
                                                         and "--mesh" not in cfg.departures())
    summary["mesh"] = {**source, "benchmark_mesh": benchmark_mesh, "nodes": study.mesh.n_nodes,
                       "cells": sum(s.n_elements for s in model.sets), "dofs": model.n_dofs}
    summary["rigid_body"] = rigid_reference(cfg)
    summary["rigid_body"]["friction_demand"] = friction_demand(cfg)
    summary["tilt"] = output.tilt
    summary["steps"] = steps_report(cfg)
    summary["energy_creation"] = output.energy_creation
    if R:
        summary["impacts"] = detect_impacts(R)
        summary["energy"] = energy_balance(R, P)
        summary["energy_check"] = energy_check(summary["energy"])
        summary["checks"] = (evaluate_checks(cfg.modeling, R, P) if cfg.configuration == "benchmark"
                             else rigid_checks(cfg, R, summary["impacts"], summary["rigid_body"]))
    return summary


STEPS = {"benchmark": "the benchmark's windows: fine steps (--dt-fine) around the benchmark's own impact instants, "
                       "coarse steps (--dt) between them, with fine steps added where an impact is predicted within "
                       "1.5 coarse steps",
         "events": "event-driven (fem.time.stepping): fine steps (--dt-fine) from before each predicted impact and for "
                   "3 ms after every contact opening or closing, coarse steps growing x2 a step up to --dt elsewhere",
         "uniform": "uniform steps of --dt (modeling d, the theta-scheme: no windows, no event-driven steps)"}


def steps_report(config: Config) -> dict:
    """summary.json's ``steps``: which steps the release used (Config.steps), and why."""
    if config.spec.contact == "theta":
        why = "modeling d"
    elif config.auto_steps:
        why = "--auto-steps"
    elif config.benchmark_steps:
        why = "--benchmark-steps"
    else:
        why = f"default of the {config.configuration} configuration"
    return {"kind": config.steps, "description": STEPS[config.steps], "chosen_by": why, "dt": config.dt,
            "dt_fine": config.dt_fine}


def resource_estimate(config: Config) -> Estimate:
    """Steps of the run (preload phases, then the release at its fine step inside the windows and
    its coarse step outside) and memory, before anything is built (the SDNV105 meshes have 25 to
    a few hundred nodes unless --mesh says otherwise)."""
    steps = count_steps([(-1.95, -0.825, 0.0075), (-1.05, 0.0, 0.0075)])
    windows = list(_schedule(SCHEDULES.get(config.modeling, SCHEDULES["a"]), config.t_end))
    fine = sum(w.t_end - w.t_start for w in windows if w.step == "fine")
    if config.spec.contact == "theta":
        steps += count_steps([(0.0, config.t_end, config.dt)])
    else:
        steps += count_steps([(0.0, fine, config.dt_fine), (0.0, max(config.t_end - fine, 0.0), config.dt)])
    nodes, cells = 60, 40
    if config.nx is not None:
        nodes, cells = refined_mesh_size(config)
    elif config.mesh is not None:
        try:
            size = config.mesh.stat().st_size
        except OSError:
            size = 0
        nodes, cells = size / 30.0, size / 60.0  # a .msh line is >= 30 bytes a node, >= 60 a cell
    return estimate(nodes, cells, 8 if config.modeling == "b" else 4, steps, row_bytes=4000.0)


def refined_mesh_size(config: Config) -> tuple[float, float]:
    """Nodes and surface cells of the --nx x --ny mesh (meshes.generate.refined_block_grid and
    refined_table_grid), from the flags alone, as floats (absurd counts do not overflow and are
    refused by the resource check before gmsh runs): the block's nx x ny quadrilaterals (b: two
    TRIA6 each, with mid-side nodes), and for a table nx / 2 + nx + nx / 2 columns of the block's
    element width, about max(1, 0.08 m / (width / nx)) rows deep."""
    nx, ny = float(min(config.nx, 10**300)), float(min(config.ny, 10**300))
    if not config.spec.with_table:  # b: TRIA6 block only
        return (2.0 * nx + 1.0) * (2.0 * ny + 1.0), 2.0 * nx * ny
    deep = max(1.0, 0.08 * nx / config.width)
    return (nx + 1.0) * (ny + 1.0) + (2.0 * nx + 1.0) * (deep + 1.0), nx * ny + 2.0 * nx * deep


def run_case(modeling: str, argv=None, description: str = "", integrator=integrate) -> int:
    """Parse, build, run, post-process, write (exit codes: fem.run.lifecycle). Returns the exit code."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if modeling not in MODELINGS:
        print(f"error: unknown modeling {modeling!r}; choose one of {sorted(MODELINGS)}", file=sys.stderr)
        return 2
    return execute(lambda args: _run_case(modeling, args, description, integrator), argv)


def _run_case(modeling: str, argv, description: str, integrator) -> int:
    config, flags = parse_args(modeling, argv, description)
    config = config.resolved()
    config.validate()
    check_resources(resource_estimate(config), force=flags.force)
    prepare_output(config.out)
    study = build(config)
    for warning in study.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if config.steps == "benchmark" and config.configuration == "custom":
        print("note: --benchmark-steps: the benchmark's impact windows are placed for the benchmark's block and "
              "tilt, not for this run's impacts (without the flag a custom run takes event-driven steps)",
              file=sys.stderr)
    record = Run.start(config.out, f"sdnv105{modeling}", command_line(f"cases/sdnv105{modeling}.py", argv),
                       config.configuration, {k: (str(v) if isinstance(v, Path) else v)
                                              for k, v in asdict(config).items()},
                       t_end=config.t_end, quiet=flags.quiet)
    output = run(study, integrator)
    summary = summarize(study, output)
    ensemble_interrupted = None
    if config.round_off and output.status == "complete":
        summary["round_off"], ensemble_interrupted = round_off_ensemble(study, summary, integrator)
    summary = record.final(output.status, summary, message=output.failure)
    R = rows_as_arrays(output.release)
    if R or output.tilt is not None:
        write_report(config.out, config, summary)
    if R:
        plot(config.out, R, summary)
    summary = record.close()  # summary.json last: a folder that says complete holds every file
    _print_table(summary)
    if output.interrupted is not None:
        raise output.interrupted  # fem.run.lifecycle.execute: one line, exit code 130 / 143
    if ensemble_interrupted is not None:
        print(f"note: the run is complete; its round-off ensemble was interrupted after "
              f"{summary['round_off']['runs']} of {summary['round_off']['asked']} runs (report.md)", file=sys.stderr)
        raise ensemble_interrupted
    if output.failure:
        print(f"error: {output.failure}; results up to the failure are in {config.out} (status: failed)",
              file=sys.stderr)
        return EXIT_FAILED
    books = summary.get("energy_check") or {}
    if books.get("passed") is False:  # completed, but the books contradict the motion
        print(f"error: {books['message']} (status: complete; see energy in {config.out}/summary.json)",
              file=sys.stderr)
        return EXIT_FAILED
    print(f"results: {config.out}/ (report.md, summary.json, history.csv, solution.pvd for ParaView)")
    return 0


def _print_table(summary: dict) -> None:
    run_ = summary["run"]
    print(f"SDNV105{summary['modeling'].upper()} ({summary['configuration']} configuration"
          f"{'' if summary['status'] == 'complete' else ', ' + summary['status']}): {run_['steps']} steps, "
          f"{run_['newton_iterations']} Newton iterations, {run_['subdivisions']} sub-steps, {run_['wall_s']:.1f} s")
    tilt = summary.get("tilt")
    if tilt:
        print(f"tilt ({tilt['rule']} rule): block axis turned {tilt['rotation']:.6g} rad, strain energy at its end "
              f"{tilt['strain_energy_end']:.4g} J = {tilt['strain_energy_ratio']:.3g} of the rigid potential drop "
              f"{tilt['rigid_potential_drop']:.4g} J")
    checks = summary.get("checks") or []
    if checks:
        print(f"{'quantity':18s} {'window':16s} {'this code':>12s} {'reference':>12s} {'Code_Aster':>12s} "
              f"{'err':>8s} {'ok':>3s}")
        num = lambda x: f"{'-':>12s}" if x is None else f"{x:12.5g}"  # noqa: E731
        for c in checks:
            ok = {True: "yes", False: "NO", None: "-"}[c["within_tolerance"]]
            err = "-" if c["rel_error"] is None else f"{c['rel_error']:.2e}"
            print(f"{c['quantity']:18s} {c['window']:16s} {num(c['value'])} {num(c['reference_rigid'])} "
                  f"{num(c['code_aster'])} {err:>8s} {ok:>3s}")
        if summary["configuration"] == "custom":
            print(f"custom configuration ({', '.join(summary['departures'])}): references are the rigid block "
                  f"for this run's parameters; Code_Aster's values apply to the benchmark only")
    for imp in summary.get("impacts", []):
        print(f"impact at {imp['time']:.5f} s on {imp['corner']}: KE {imp['ke_before']:.4f} -> {imp['ke_after']:.4f} J")
    ensemble = summary.get("round_off")
    if ensemble:
        decided = ", ".join(f"{r['quantity']} ({r['window']}) met in {r['met']}/{r['graded']}"
                            for r in decided_by_round_off(ensemble["checks"])) or "none"
        print(f"round-off ({ensemble['runs']} runs, tilt +-{ensemble['ulps']} ulps, {ensemble['status']}): "
              f"checks decided by round-off: {decided}")
    steps, created = summary.get("steps"), summary.get("energy_creation")
    if steps:
        print(f"steps: {steps['kind']} ({steps['chosen_by']})")
    if created and created["largest"] and created["largest"]["fraction"] > 1e-9:
        c = created["largest"]
        print(f"largest energy created at a contact event: {c['created']:.4g} J ({100 * c['fraction']:.3g} % of "
              f"{created['scale']:.4g} J, limit {100 * created['limit']:g} %) at {c['t']:.6g} s, node {c['node']}")
    if summary.get("energy"):
        e = summary["energy"]
        print(f"energy balance error {e['max_abs_error']:.3g} J = {100 * (e['relative_error'] or 0):.2f} % of the "
              f"potential drop {e['potential_drop']:.4f} J (damping {e['damping_dissipated']:.3f} J, contact "
              f"{e['contact_work']:.3f} J, friction {e['friction_work']:.3f} J, time scheme "
              f"{e['numerical_dissipation']:.3f} J)")
