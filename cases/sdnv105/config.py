"""SDNV105 — the configuration of a run: what the benchmark fixes, what the user may change.

The block's gravity constant ``G``, the tilt rules and the contact-event rules the flags choose from,
the limits a run is held to (smallest tilt, largest --round-off, energy a contact event may create),
the four modelings (``MODELINGS``: contact, mesh, time steps, Newton settings of the release),
:class:`Config` (every physical and numerical parameter, its resolution of "auto" choices, its
validation against physical ranges before anything is written, its departures from the benchmark),
(its command line: cases.sdnv105.command_line). Also what a Config property needs to
decide: whether a --mesh file holds the benchmark's own mesh, and the friction the rigid block's
pivot needs (:func:`friction_demand`).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from fem.constants import GRAVITY
from contact.references import rocking
from fem import ranges
from fem.time.dynamics import NewtonSettings
from fem.model.material import ElasticMaterial
from fem.mesh.read import read_mesh
from fem.run.lifecycle import BadInput, check_materials, require_all
from fem.studies.round_off import ROUND_OFF_MAX


G = GRAVITY

#: the smallest --tilt-angle [rad]: the rigid reference (contact.references.rocking) integrates the angle with an
#: absolute tolerance of 1e-14 rad (cases/rigid_rocking.py's AMPLITUDE_FLOOR, for the same reason)
TILT_FLOOR = 1e-8

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

#: largest --round-off (the ensemble has 2K + 1 runs): fem.studies.round_off.ROUND_OFF_MAX

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


#: Newton's first iterate in every SDNV105 phase: Newmark's extrapolation u0 + dt v0 + dt^2/2 a0
#: (fem.stage.phase.NewtonSettings.predictor). The fine steps (1e-5 s) resolve the block's motion, so
#: it is the better start here (A: 4,370 Newton iterations for 4,157 steps, 4,473 from the library's
#: default, the extrapolated velocity), and the benchmark's records (checks, round-off ensembles,
#: benchmarks/baseline.json) were measured on its path: the checks after the second impact hang on
#: Newton's path (README, "Newton's first iterate").
PREDICTOR = "constant_acceleration"

MODELINGS = {
    "a": Modeling("a", "lagrange", "sdnv105_quad4", True, 0.33, 0.0025, 1e-5, 0.9,
                  NewtonSettings(rela=1e-6, maxi=8e-3, max_iterations=40,
                                 predictor=PREDICTOR),
                  "QUA4 with the table, Lagrange contact, HHT"),
    "b": Modeling("b", "penalty", "sdnv105_block_tri6", False, 0.285, 0.00125, 2.5e-5, 0.9,
                  NewtonSettings(rela=1e-6, maxi=1e-3, max_iterations=15,
                                 predictor=PREDICTOR),
                  "block only (TRIA6), three penalty shock springs at O, A, O1, HHT"),
    "c": Modeling("c", "augmented", "sdnv105_quad4", True, 0.33, 0.0025, 1e-5, 0.0,
                  NewtonSettings(rela=1e-6, max_iterations=20,
                                 predictor=PREDICTOR),
                  "QUA4 with the table, augmented-Lagrangian contact, HHT"),
    "d": Modeling("d", "theta", "sdnv105_quad4", True, 0.33, 1e-4, 1e-4, 0.9,
                  NewtonSettings(rela=1e-6, maxi=8e-3, max_iterations=40,
                                 predictor=PREDICTOR),
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
    # modeling b, shock springs (docs/references.md, "SDNV105 b and c"); see build() for the tangential
    # stiffness default
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
