"""Shaking table: a block (SDNV105's 0.36 x 0.80 m by default) on its table under a base motion.

    python cases/shaking_table.py --excitation sine-pulse --amplitude-g 1.2 --frequency-hz 2.6

The table's support moves rigidly with the acceleration history chosen (fem.loads.base_motion: harmonic,
one-sine or one-cosine pulse, a smooth ramp to a held acceleration, a recorded accelerogram). The
run is written in the table's frame, as Code_Aster's CALC_CHAR_SEISME (MONO_APPUI): the supports
stay fixed and every mass carries the d'Alembert force -M e a(t) (fem.loads.applied.InertialLoad), so
displacements are relative to the table and the table's own motion is in the history columns
``table_d``, ``table_v``, ``table_a``. Phases: the gravity preload (quasi-static, frictionless,
DX(O1) held as in SDNV105), then the excitation from rest at t = 0 with friction ``--mu``.

Steps: fem.time.stepping.EventSteps (fine steps ``--dt-fine`` from before a predicted impact and after
every contact opening or closing, coarse steps up to ``--dt`` elsewhere, bounded by the Newmark
local error indicator). Modeling d (Moreau-Jean) takes uniform steps of ``--dt``.

The block counts as **overturned** once ``|theta| >= 2 alpha`` (alpha = atan(b/l)): it is then
beyond its unstable equilibrium by alpha, and the run stops there. A run that ends before is
"not overturned" only when that is decided (summary ``overturn_verdict``: the table still from its
end on and the blocks' energy below the barrier, on the near side of alpha; or nothing lifted and
the rest of the motion below the uplift acceleration); otherwise, e.g. a block ending past alpha
and still tipping, the verdict is "undecided" (``overturned`` null), never "no". The rigid
reference is decided the same way, integrated on with the table still where the energy rule says
it overturns after the run's end (contact.references.overturning.still_table_outcome).

Stacks (``--blocks N``): N such blocks one on another (meshes.generate.stack_on_table), each joint
a node-to-segment contact with Coulomb friction ``--mu-joint`` (default ``--mu``) like the table's.
Block k counts as overturned at ``|theta_k| >= 2 atan(b / ((N - k + 1) l))``, 2 alpha of the block
and those on it as one body (the column's for the bottom block, its own for the top one).

Beside the FE results, ``summary.json`` has the rigid block rocking under the same table motion
(contact.references.rocking_base: exact nonlinear equation, Housner's impact law, sliding not modelled); for a
stack, the column as one rigid block, which it is while its joints stay shut.
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import logging
import math
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from contact.laws import Augmented, Lagrange, MoreauJean
from contact.output import ContactRecorder, lift_impacts
from contact.references import rocking_base
from contact.references.overturning import still_table_outcome
from fem import ranges
from fem.constants import GRAVITY
from fem.io import output_folder
from fem.io.recorder import NodeProbe, rows_as_arrays
from fem.loads import base_motion as bm
from fem.mesh.check import check_mesh
from fem.mesh.mesh import Mesh
from fem.mesh.read import read_mesh
from fem.model.material import ElasticMaterial
from fem.problem import Assembled, BaseMotion, Body, Pair, Preload, Problem, Support, assemble
from fem.problem.observe import CornerRotation
from fem.problem.simulate import Settings, body_watch, run_stages
from fem.run.lifecycle import (EXIT_FAILED, BadInput, CaseParser, Estimate, Run, add_run_flags, check_materials,
                               check_resources, command_line, count_steps, estimate, execute, finite, prepare_output,
                               require_all)
from fem.stage.phase import NewtonSettings, StepResult
from fem.time.interrupt import Interrupted
from fem.time.stepping import EventSteps

logger = logging.getLogger("shaking_table")

G = GRAVITY
UPLIFT = 1e-6  # m: a base corner this far above the table has lifted (summary uplift_time)
SLID = 1e-5  # m: a corner that slipped this much has slid (summary slid)
IMPACT_WINDOW = (1e-3, 5e-3)  # s before and after an impact's first closed step: its impulsive forces
EXCITATIONS = ("harmonic", "sine-pulse", "cosine-pulse", "ramp", "record")
# The overturning verdict of a run that did not overturn is "no" only when decided: from the run's end
# on the table is still and the blocks' mechanical energy (kinetic + potential + strain, from the
# rest at t = 0) is below the smallest energy barrier of the column by this fraction of it (the
# blocks can then never rise to an unstable equilibrium again: without input their energy only
# decreases). The elastic block's barrier is the rigid one's to its settlement under self-weight
# (1e-8 m on 0.44 m); the margin keeps the verdict off the barrier by the books' own accuracy
# (ENERGY_LIMIT). Otherwise "undecided", never "no" (summary.json overturn_verdict, report.md).
OVERTURN_MARGIN = 0.01
#: rigid-reference curve samples kept in summary.json (the solver's are every flight's 801 and a rest
#: scan every min(1/p, dt) / 200 s: 2e5 a second of rest at --dt 1e-3)
CURVE_POINTS = 20001
PRELOAD_START = -0.5  # s: the gravity preload runs from here to 0
PRELOAD_STEPS = 5
MAX_BLOCKS = 20


@dataclass(frozen=True)
class ContactModeling:
    method: str  # "lagrange", "augmented" or "theta"
    newton: NewtonSettings
    description: str


#: contact as in the SDNV105 modelings of the same letter (cases/sdnv105a.py, c, d)
MODELINGS = {
    "a": ContactModeling("lagrange", NewtonSettings(rela=1e-6, maxi=8e-3, max_iterations=40),
                         "Lagrange multipliers, Coulomb friction, HHT"),
    "c": ContactModeling("augmented", NewtonSettings(rela=1e-6, max_iterations=20),
                         "augmented Lagrangian, Coulomb friction, HHT"),
    "d": ContactModeling("theta", NewtonSettings(rela=1e-6, maxi=8e-3, max_iterations=40),
                         "Moreau-Jean theta-scheme, velocity-level Signorini-Coulomb"),
}


@dataclass(frozen=True)
class Config:
    """Every parameter of a run (SI units; accelerations of the excitation in g)."""

    modeling: str = "a"
    excitation: str = "harmonic"
    amplitude_g: float | None = None  # peak table acceleration [g]; a record is scaled to it if given
    frequency_hz: float = 2.0
    cycles: float | None = 3.0
    smooth_start: float = 0.0
    ramp_time: float = 0.1
    hold_time: float = 0.2
    record: Path | None = None
    record_units: str | None = None
    direction: str = "horizontal"
    width: float = 0.36
    height: float = 0.80
    blocks: int = 1
    mu: float = 0.9
    mu_joint: float | None = None
    young: float = 6.0e11
    poisson: float = 0.2
    rho: float = 1450.0
    amor_alpha: float = 1.0e-4
    table_young: float = 1.0e14
    table_amor_alpha: float = 1.6e-3
    t_end: float | None = None
    dt: float = 1e-3
    dt_fine: float | None = None
    alpha: float = 0.0
    alpha_fine: float | None = None
    theta: float = 0.55
    mass: str = "redistributed"
    tolerance: float = 1e-7
    mesh: Path | None = None
    out: Path = Path("results/shaking_table")
    archive_every: int = 10
    paraview: bool = True
    # the record's baseline correction (fem.loads.base_motion.Record.baseline) and length [s], None
    # without a record; set by resolved(): summary.json's parameters say which polynomial was removed
    record_baseline: str | None = None
    record_length: float | None = None

    @property
    def spec(self) -> ContactModeling:
        return MODELINGS[self.modeling]

    @property
    def alpha_rad(self) -> float:
        """alpha = atan(b/l) of one block [rad]."""
        return math.atan2(self.width, self.height)

    @property
    def column_alpha(self) -> float:
        """alpha of the whole column as one rigid block, atan(b / (N l)) [rad]: the uplift threshold
        of a stack whose joints stay closed is g tan(column_alpha)."""
        return math.atan2(self.width, self.blocks * self.height)

    def overturn_angle(self, k: int) -> float:
        """|theta_k| at which block k (1 = bottom) counts as overturned [rad]: 2 alpha of block k and
        the blocks on it taken as one rigid block, 2 atan(b / ((N - k + 1) l)) (the block's own 2 alpha
        for the top one, the column's for the bottom one)."""
        return 2.0 * math.atan2(self.width, (self.blocks - k + 1) * self.height)

    @property
    def joint_mu(self) -> float:
        """Coulomb coefficient of the block-block joints (default --mu)."""
        return self.mu if self.mu_joint is None else self.mu_joint

    @property
    def amplitude(self) -> float:
        """Peak table acceleration [m/s^2] (the default 0.5 g for the analytic histories)."""
        return (0.5 if self.amplitude_g is None else self.amplitude_g) * G

    def history(self) -> bm.MotionHistory:
        """The table's motion (fem.loads.base_motion), along x (or y with --direction vertical), checked
        against the physical range (:meth:`check_history`)."""
        if self.excitation == "harmonic":
            history = bm.Harmonic(self.amplitude, self.frequency_hz, self.cycles, self.smooth_start)
        elif self.excitation == "sine-pulse":
            history = bm.SinePulse(self.amplitude, self.frequency_hz)
        elif self.excitation == "cosine-pulse":
            history = bm.CosinePulse(self.amplitude, self.frequency_hz)
        elif self.excitation == "ramp":
            history = bm.Ramp(self.amplitude, self.ramp_time, self.hold_time)
        else:
            try:
                history = bm.read_record(self.record, units=self.record_units, peak_g=self.amplitude_g, g=G)
            except (ValueError, OSError) as err:  # fem.loads.base_motion's messages start with the file's name
                text = str(err)
                raise BadInput(f"--record {text}" if text.startswith(f"{self.record}:") else
                               f"--record {self.record}: {text}") from None
        self.check_history(history)
        return history

    def resolved(self, history: bm.MotionHistory) -> "Config":
        """Defaults that depend on others: t_end = the motion's duration + 1 s (3 s if it never
        ends), dt_fine = dt / 10 (d: dt, uniform steps), alpha_fine = alpha."""
        t_end = self.t_end
        if t_end is None:
            t_end = history.duration + 1.0 if math.isfinite(history.duration) else 3.0
        uniform = self.spec.method == "theta"
        dt_fine = self.dt if uniform else (self.dt_fine if self.dt_fine is not None else self.dt / 10)
        return replace(self, t_end=t_end, dt_fine=dt_fine,
                       alpha_fine=self.alpha if self.alpha_fine is None else self.alpha_fine,
                       record_baseline=getattr(history, "baseline", None),
                       record_length=history.duration if self.excitation == "record" else None)

    def time_scales(self) -> list[tuple[str, float, str]]:
        """The physical time scales a step must resolve (fem.ranges.check_step): the rocking time
        scale 1/p of one block, and the excitation's (its period 1/f, or its whole duration when
        shorter; the ramp's rise time; a record's length)."""
        scales = [("the block's rocking time scale 1/p = sqrt(4R / 3g)",
                   ranges.rocking_time(self.width, self.height, G), "--width, --height")]
        if self.excitation in ("harmonic", "sine-pulse", "cosine-pulse"):
            scales.append(("the excitation's period 1/f", 1.0 / self.frequency_hz, "--frequency-hz"))
            if self.excitation == "harmonic" and self.cycles is not None:
                scales.append(("the excitation's duration", self.cycles / self.frequency_hz,
                               "--cycles, --frequency-hz"))
        elif self.excitation == "ramp":
            scales.append(("the ramp's rise time", self.ramp_time, "--ramp-time"))
        elif self.record_length is not None:
            scales.append(("the record's length", self.record_length, f"--record {self.record}"))
        return scales

    def check_history(self, history: bm.MotionHistory) -> None:
        """Refuse a motion beyond the physical range (fem.ranges): a record's peak (after its baseline
        correction and scaling) beyond 20 g (a small or all-zero record is accepted: the block stays
        at rest),
        a motion lasting longer than fem.ranges.DURATION."""
        if self.excitation == "record":
            peak_g = history.peak_acceleration / G  # 0 for an all-zero record: accepted
            if peak_g > ranges.TABLE_ACCELERATION.high:  # a small or zero record: the block at rest
                raise BadInput(f"--record {self.record}: its peak acceleration, {peak_g:.4g} g, is outside the "
                               f"physical range {ranges.TABLE_ACCELERATION.interval()} of a "
                               f"{ranges.TABLE_ACCELERATION.name}: {ranges.TABLE_ACCELERATION.why} (scale it "
                               f"with --amplitude-g)")
        if math.isfinite(history.duration) and history.duration > ranges.DURATION.high:
            flags = {"record": f"--record {self.record}", "ramp": "--ramp-time, --hold-time"}.get(
                self.excitation, "--cycles, --frequency-hz")
            raise BadInput(f"{flags}: the excitation lasts {history.duration:.4g} s, longer than a run may "
                           f"({ranges.DURATION.interval()})")

    def validate(self) -> None:
        """Refuse impossible values (:class:`fem.run.lifecycle.BadInput`, naming the flag)."""
        checks = [
            (self.width > 0, f"--width must be > 0 m, got {self.width:g}"),
            (self.height > 0, f"--height must be > 0 m, got {self.height:g}"),
            (self.mu >= 0, f"--mu must be >= 0, got {self.mu:g}"),
            (1 <= self.blocks <= MAX_BLOCKS, f"--blocks must be an integer in [1, {MAX_BLOCKS}], got {self.blocks}"),
            (self.mu_joint is None or self.mu_joint >= 0, f"--mu-joint must be >= 0, got {self.mu_joint}"),
            (self.mu_joint is None or self.blocks > 1, "--mu-joint needs --blocks 2 or more (it is the block-block friction)"),
            (self.amplitude_g is None or self.amplitude_g != 0, "--amplitude-g must not be 0"),
            (self.amplitude_g is None or self.amplitude_g > 0 or self.excitation != "record",
             f"--amplitude-g must be > 0 for a record (it is the peak it is scaled to), got {self.amplitude_g}"),
            (self.frequency_hz > 0, f"--frequency-hz must be > 0 Hz, got {self.frequency_hz:g}"),
            (self.cycles is None or self.cycles > 0, f"--cycles must be > 0, got {self.cycles}"),
            (self.smooth_start >= 0, f"--smooth-start must be >= 0 s, got {self.smooth_start:g}"),
            (self.ramp_time > 0, f"--ramp-time must be > 0 s, got {self.ramp_time:g}"),
            (self.hold_time >= 0, f"--hold-time must be >= 0 s, got {self.hold_time:g}"),
            (self.excitation != "record" or self.record is not None, "--excitation record needs --record FILE"),
            (self.excitation == "record" or self.record is None,
             f"--record is read only with --excitation record (got --excitation {self.excitation})"),
            (self.t_end is None or self.t_end > 0, f"--t-end must be > 0 s, got {self.t_end}"),
            (self.dt > 0, f"--dt must be > 0 s, got {self.dt:g}"),
            (self.dt_fine is None or self.dt_fine > 0, f"--dt-fine must be > 0 s, got {self.dt_fine}"),
            (self.dt_fine is None or self.dt_fine <= self.dt * (1 + 1e-12),
             f"--dt-fine ({self.dt_fine} s) must not exceed --dt ({self.dt:g} s)"),
            (-1.0 / 3.0 <= self.alpha <= 0.0, f"--alpha must lie in [-1/3, 0] (HHT), got {self.alpha:g}"),
            (self.alpha_fine is None or -1.0 / 3.0 <= self.alpha_fine <= 0.0,
             f"--alpha-fine must lie in [-1/3, 0] (HHT), got {self.alpha_fine}"),
            (0.5 <= self.theta <= 1.0, f"--theta must lie in [0.5, 1], got {self.theta:g}"),
            (self.tolerance > 0, f"--tolerance must be > 0 m, got {self.tolerance:g}"),
            (self.archive_every >= 1, f"--archive-every must be >= 1, got {self.archive_every}"),
            (not (self.modeling == "d" and self.mass == "redistributed"),
             "--mass redistributed needs --modeling a or c (the theta-scheme uses the consistent mass)"),
        ]
        require_all(checks)
        check_materials((("--young, --poisson, --rho, --amor-alpha", self.block_material),
                         ("--table-young, --table-amor-alpha", self.table_material)))
        self.check_ranges()

    @property
    def _dt_fine_flag(self) -> str:
        """--dt-fine, as messages name it (its default, --dt / 10, said so)."""
        return "--dt-fine (default --dt / 10)" if self.dt_fine == self.dt / 10 else "--dt-fine"

    def check_ranges(self) -> None:
        """Every number against its physical range (fem.ranges; the signs and the rules above are
        checked first), the time steps against the run and its time scales (once resolved), the
        block's strain under the column's weight, and a --mesh file read (NaN, infinite or absurd
        coordinates refused): all before the output folder is touched."""
        r = ranges
        r.check_all([
            ("--width", self.width, r.BLOCK_SIZE), ("--height", self.height, r.BLOCK_SIZE),
            ("--mu", self.mu, r.FRICTION), ("--mu-joint", self.mu_joint, r.FRICTION),
            ("--frequency-hz", self.frequency_hz, r.FREQUENCY), ("--cycles", self.cycles, r.CYCLES),
            ("--smooth-start", self.smooth_start, r.DURATION_OR_ZERO), ("--ramp-time", self.ramp_time, r.DURATION),
            ("--hold-time", self.hold_time, r.DURATION_OR_ZERO),
            ("--young", self.young, r.YOUNG), ("--poisson", self.poisson, r.POISSON), ("--rho", self.rho, r.DENSITY),
            ("--amor-alpha", self.amor_alpha, r.RAYLEIGH_ALPHA), ("--table-young", self.table_young, r.TABLE_YOUNG),
            ("--table-amor-alpha", self.table_amor_alpha, r.RAYLEIGH_ALPHA),
            ("--t-end", self.t_end, r.DURATION), ("--dt", self.dt, r.TIME_STEP),
            (self._dt_fine_flag, self.dt_fine, r.TIME_STEP),
            ("--tolerance", self.tolerance, r.STEP_TOLERANCE),
        ])
        r.check_abs("--amplitude-g", self.amplitude_g, r.TABLE_ACCELERATION)
        column = self.rho * G * self.blocks * self.height  # [Pa] on the table and at the bottom block's base
        r.check_self_weight("--rho, --height, --blocks, --young", column, self.young, "the bottom block")
        r.check_self_weight("--rho, --height, --blocks, --table-young", column, self.table_young, "the table")
        if self.t_end is not None:  # resolved (the second validate): the steps, the mesh file
            for flag, dt in (("--dt", self.dt), (self._dt_fine_flag, self.dt_fine)):
                r.check_step(flag, dt, self.t_end, "--t-end", self.time_scales())
            if self.mesh is not None:
                _read_mesh_flag(self.mesh)

    def block_material(self) -> ElasticMaterial:
        return ElasticMaterial(self.young, self.poisson, self.rho, rayleigh_stiffness=self.amor_alpha)

    def table_material(self) -> ElasticMaterial:
        return ElasticMaterial(self.table_young, 0.3, 2500.0, rayleigh_stiffness=self.table_amor_alpha)

    def parameters(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}


# ----------------------------------------------------------------------------------- command line
def parse_args(argv=None) -> tuple[Config, object]:
    d = Config()
    p = CaseParser(prog="shaking_table.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--modeling", choices=sorted(MODELINGS), default="a",
                   help="contact as SDNV105's modeling: a Lagrange (default), c augmented Lagrangian, d theta-scheme")
    p.add_argument("--excitation", choices=EXCITATIONS, default="harmonic", help="the table's acceleration history")
    p.add_argument("--amplitude-g", type=finite, default=None,
                   help="peak table acceleration [g] (default 0.5; a record is scaled to it when given)")
    p.add_argument("--frequency-hz", type=finite, default=2.0, help="harmonic and pulse frequency [Hz]")
    p.add_argument("--cycles", type=finite, default=3.0, help="harmonic: number of cycles")
    p.add_argument("--smooth-start", type=finite, default=0.0,
                   help="harmonic: raised-cosine ramp-in [s] (0: a sin(wt) from t = 0)")
    p.add_argument("--ramp-time", type=finite, default=0.1, help="ramp: smooth rise (and fall) time [s]")
    p.add_argument("--hold-time", type=finite, default=0.2, help="ramp: time the acceleration is held [s]")
    p.add_argument("--record", type=Path, default=None,
                   help="accelerogram: CSV of t [s], a, or PEER .AT2 (baseline-corrected, fem.loads.base_motion)")
    p.add_argument("--record-units", choices=("m/s2", "g"), default=None,
                   help="units of the record's accelerations (default m/s2 for CSV, g for .AT2)")
    p.add_argument("--direction", choices=("horizontal", "vertical"), default="horizontal",
                   help="direction of the table motion (the rigid reference is for horizontal motion only)")
    p.add_argument("--width", type=finite, default=d.width, help="block width 2b [m]")
    p.add_argument("--height", type=finite, default=d.height, help="block height 2l [m]")
    p.add_argument("--blocks", type=int, default=d.blocks,
                   help="number of blocks stacked on the table, each --width x --height (default 1)")
    p.add_argument("--mu", type=finite, default=d.mu, help="Coulomb coefficient block-table")
    p.add_argument("--mu-joint", type=finite, default=None,
                   help="Coulomb coefficient between stacked blocks (default --mu)")
    p.add_argument("--young", type=finite, default=d.young, help="block Young's modulus [Pa]")
    p.add_argument("--poisson", type=finite, default=d.poisson, help="block Poisson's ratio")
    p.add_argument("--rho", type=finite, default=d.rho, help="block density [kg/m^3]")
    p.add_argument("--amor-alpha", type=finite, default=d.amor_alpha, help="block stiffness damping AMOR_ALPHA [s]")
    p.add_argument("--table-young", type=finite, default=d.table_young, help="table Young's modulus [Pa]")
    p.add_argument("--table-amor-alpha", type=finite, default=d.table_amor_alpha, help="table AMOR_ALPHA [s]")
    p.add_argument("--t-end", type=finite, default=None,
                   help="end of the run [s] (default: the motion's duration + 1 s)")
    p.add_argument("--dt", type=finite, default=d.dt, help="largest time step [s] (d: the uniform step)")
    p.add_argument("--dt-fine", type=finite, default=None,
                   help="time step through contact events [s] (default --dt / 10; not with --modeling d)")
    p.add_argument("--alpha", type=finite, default=d.alpha,
                   help="HHT alpha of the coarse steps, in [-1/3, 0] (0: Newmark average acceleration)")
    p.add_argument("--alpha-fine", type=finite, default=None, help="HHT alpha of the fine steps (default --alpha)")
    p.add_argument("--theta", type=finite, default=d.theta, help="modeling d: theta of the Moreau-Jean scheme")
    p.add_argument("--mass", choices=("consistent", "redistributed"), default=None,
                   help="mass matrix: redistributed (default for a, c: the block's base nodes massless, its mass, "
                        "centre and inertia kept; impacts converge with dt) or consistent (Code_Aster's; d's only)")
    p.add_argument("--tolerance", type=finite, default=d.tolerance,
                   help="bound of the local error indicator of the coarse steps [m] (fem.time.stepping)")
    p.add_argument("--mesh", type=Path, default=None, help="gmsh .msh with the SDNV105 group names")
    p.add_argument("--archive-every", type=int, default=d.archive_every, help="ParaView output every N steps")
    p.add_argument("--no-paraview", action="store_true", help="skip the ParaView series (faster)")
    p.add_argument("--out", type=Path, default=d.out,
                   help="output folder (an earlier run's files in it are removed first)")
    add_run_flags(p)
    a = p.parse_args(argv)
    if a.modeling == "d" and a.dt_fine is not None:
        raise BadInput("--dt-fine: modeling d takes uniform steps of --dt")
    config = Config(modeling=a.modeling, excitation=a.excitation, amplitude_g=a.amplitude_g,
                    frequency_hz=a.frequency_hz, cycles=a.cycles, smooth_start=a.smooth_start,
                    ramp_time=a.ramp_time, hold_time=a.hold_time, record=a.record, record_units=a.record_units,
                    direction=a.direction, width=a.width, height=a.height, blocks=a.blocks, mu=a.mu,
                    mu_joint=a.mu_joint, young=a.young,
                    poisson=a.poisson, rho=a.rho, amor_alpha=a.amor_alpha, table_young=a.table_young,
                    table_amor_alpha=a.table_amor_alpha, t_end=a.t_end, dt=a.dt, dt_fine=a.dt_fine,
                    alpha=a.alpha, alpha_fine=a.alpha_fine, theta=a.theta,
                    mass=a.mass if a.mass is not None else ("consistent" if a.modeling == "d" else "redistributed"),
                    tolerance=a.tolerance, mesh=a.mesh, out=a.out, archive_every=a.archive_every,
                    paraview=not a.no_paraview)
    return config, a


# ----------------------------------------------------------------------------------- model
@dataclass
class Joint:
    """A contact surface of the run: the table under block 1 (``suffix`` "") or joint k between
    blocks k and k + 1 (``suffix`` "_jk"), the run's term ``terms[index]`` (the theta-scheme continues
    it at the velocity level after the preload). corners: node group -> index in the term's slave
    arrays (the slave line's two end nodes)."""

    name: str
    suffix: str
    terms: list
    index: int
    corners: dict

    @property
    def term(self):
        return self.terms[self.index]


@dataclass(frozen=True)
class Block:
    """Block k of the column (1 = bottom): its base corners' and base centre's node groups, its
    region and the rotation at which it counts as overturned (Config.overturn_angle)."""

    k: int
    o: str
    a: str
    centre: str
    region: str
    overturn: float

    @property
    def theta_column(self) -> str:
        return "theta" if self.k == 1 else f"theta_{self.k}"

    @property
    def omega_column(self) -> str:
        return "omega" if self.k == 1 else f"omega_{self.k}"


@dataclass
class Study:
    config: Config
    history: bm.MotionHistory
    mesh: Mesh
    model: Model
    joints: list  # [Joint], the table first
    blocks: tuple  # (Block, ...), the bottom one first
    warnings: tuple = ()
    assembled: Assembled | None = None  # the problem (fem.problem) the run integrates

    @property
    def contacts(self) -> list:
        return [j.term for j in self.joints]


TABLE_GROUPS = ("BLOCK", "GROUN", "CONHAUT", "CONBAS", "CTGROUND", "O", "A", "O1")


def joint_groups(k: int) -> tuple[str, ...]:
    """Groups joint k of a stack needs (meshes.generate.stack_on_table names)."""
    return (f"JOINT_{k}_ESCL", f"JOINT_{k}_MAIT", f"BLOCK_{k}", f"BLOCK_{k + 1}", f"O_{k + 1}", f"A_{k + 1}",
            f"O1_{k + 1}")


def _read_mesh_flag(path: Path):
    """The --mesh file read (fem.mesh.read: a missing or unreadable file, a NaN, infinite or absurd
    coordinate, an inverted cell refused as BadInput naming --mesh)."""
    try:
        return read_mesh(path)
    except ValueError as err:
        raise BadInput(f"--mesh {path}: {err}") from None


def _mesh(config: Config):
    if config.mesh is not None:
        try:
            return read_mesh(config.mesh)
        except ValueError as err:
            raise BadInput(f"--mesh {config.mesh}: {err}") from None
    from meshes.generate import block_on_table, reference_mesh_path, stack_on_table

    if config.blocks > 1:
        return read_mesh(stack_on_table(config.out / "mesh.msh", ((config.width, config.height),) * config.blocks))
    if math.isclose(config.width, 0.36) and math.isclose(config.height, 0.80):
        return read_mesh(reference_mesh_path("sdnv105_quad4"))
    path = block_on_table(config.out / "mesh.msh", half_width=config.width / 2, height=config.height,
                          element="quad4", layout="reference", with_table=True)
    return read_mesh(path)


def _corners(mesh: Mesh, term, names: tuple[str, ...]) -> dict:
    """The slave line's end nodes among the node groups ``names`` -> their slave indices."""
    slave = term.zone.slave
    found = {n: np.flatnonzero(slave == mesh.node(n)) for n in names if n in mesh.node_groups}
    return {n: int(i[0]) for n, i in found.items() if i.size}


def build(config: Config, history: bm.MotionHistory) -> Study:
    """The run's problem (fem.problem: the block or the column and the table, the table's base held,
    a node-to-segment pair under each block) assembled, with its joints' corners and its blocks."""
    mesh = _mesh(config)
    needed = TABLE_GROUPS + tuple(g for k in range(1, config.blocks) for g in joint_groups(k))
    missing = [g for g in needed if g not in mesh.cell_groups and g not in mesh.node_groups]
    if missing:
        raise BadInput(f"--mesh {config.mesh}: no group {missing[0]!r} (needed: the SDNV105 names "
                       f"{', '.join(TABLE_GROUPS)}"
                       f"{'' if config.blocks == 1 else ' and those of meshes.generate.stack_on_table'})")
    regions = {"BLOCK": config.block_material(), "GROUN": config.table_material()}
    used = Mesh(mesh.points, {k: v for k, v in mesh.cell_groups.items() if k in regions or v.dim == 1},
                mesh.node_groups)
    surfaces = (("CONHAUT", "CONBAS"),) + tuple((f"JOINT_{k}_ESCL", f"JOINT_{k}_MAIT") for k in range(1, config.blocks))
    try:
        warnings = check_mesh(used, ("CTGROUND",), surfaces)
    except ValueError as err:
        raise BadInput(f"--mesh {config.mesh}: {err}" if config.mesh is not None else str(err)) from None
    law = {"lagrange": Lagrange, "augmented": Augmented, "theta": MoreauJean}[config.spec.method]
    pairs = [Pair(slave, master, law(mu=config.mu if k == 0 else config.joint_mu), name=f"joint {k}" if k else "table")
             for k, (slave, master) in enumerate(surfaces)]
    problem = Problem(mesh, bodies=[Body("BLOCK", regions["BLOCK"]), Body("GROUN", regions["GROUN"])],
                      supports=[Support("CTGROUND")], pairs=pairs, gravity=G, mass=config.mass)
    try:
        assembled = assemble(problem)
    except BadInput as err:
        raise BadInput(f"--mesh {config.mesh}: {err}") from None
    joints = []
    for k, term in enumerate(assembled.terms):
        names = ("O", "A") if k == 0 else (f"O_{k + 1}", f"A_{k + 1}", f"C_{k}", f"B_{k}")
        joints.append(Joint("table" if k == 0 else f"joint {k}", "" if k == 0 else f"_j{k}", assembled.terms, k,
                            _corners(mesh, term, names)))
    blocks = (Block(1, "O", "A", "O1", "BLOCK" if config.blocks == 1 else "BLOCK_1", config.overturn_angle(1)),) + \
        tuple(Block(k, f"O_{k}", f"A_{k}", f"O1_{k}", f"BLOCK_{k}", config.overturn_angle(k))
              for k in range(2, config.blocks + 1))
    return Study(config, history, mesh, assembled.model, joints, blocks, tuple(warnings), assembled)


def stages(study: Study) -> tuple:
    """The gravity preload (quasi-static, frictionless, DX(O1) of every block held as in SDNV105, from
    PRELOAD_START to 0), then the table's motion to t_end along --direction."""
    cfg = study.config
    preload = Preload(steps=PRELOAD_STEPS, friction=0.0, duration=-PRELOAD_START, name="gravity preload",
                      hold=tuple(Support(b.centre, ("x",)) for b in study.blocks),
                      newton=NewtonSettings(rela=1e-6, maxi=2e-3, max_iterations=40))
    component = "x" if cfg.direction == "horizontal" else "y"
    return preload, BaseMotion(cfg.t_end, **{component: study.history}, name="excitation")


def event_steps(config: Config) -> EventSteps:
    return EventSteps(dt=config.dt, dt_fine=config.dt_fine, tolerance=config.tolerance,
                      archive_every=config.archive_every)


# ----------------------------------------------------------------------------------- what is recorded
def block_kinematics(study: Study, block: Block) -> CornerRotation:
    """The rotation of a block from its base corners (fem.problem.observe.CornerRotation)."""
    return CornerRotation(study.mesh.points, study.mesh.node(block.o), study.mesh.node(block.a))


#: per contact surface (suffix "" for the table, "_jk" for joint k): friction_demand = |sum R_T| /
#: sum R_N over the surface (the block's, what the rigid reference reports; summary
#: max_friction_ratio outside the impacts, max_friction_ratio_impacts with them: at an impact the
#: corner may slip for an instant and the ratio reach mu); friction_ratio = the largest |R_T|/R_N of
#: a loaded closed node (<= mu by Coulomb's law; summary max_node_friction_ratio). Per corner (the
#: slave line's ends: O, A at the table, O_(k+1), A_(k+1) at joint k): gap, status, rn, rt, slip.
SURFACE_QUANTITIES = ("n_closed", "friction_ratio", "friction_demand")
CORNER_QUANTITIES = ("gap", "status", "rn", "rt", "slip")


def columns(study: Study) -> list[str]:
    out = ["table_a", "table_v", "table_d"]
    for b in study.blocks:
        out += [b.theta_column, b.omega_column]
    for j in study.joints:
        out += [f"{q}{j.suffix}" for q in SURFACE_QUANTITIES]
        out += [f"{q}_{c}" for c in j.corners for q in CORNER_QUANTITIES]
    return out


def _row_function(study: Study):
    kinematics = [(b, block_kinematics(study, b)) for b in study.blocks]
    history = study.history

    def extra(result: StepResult) -> dict:
        s = result.state
        row = {"table_a": float(history.acceleration(s.t)), "table_v": float(history.velocity(s.t)),
               "table_d": float(history.displacement(s.t))}
        for b, kin in kinematics:
            row[b.theta_column], row[b.omega_column] = kin(s.u, s.v)
        for j in study.joints:
            st = j.term.state()
            closed = st.status != 0
            loaded = closed & (st.rn > 0)
            ratio = float(np.max(np.abs(st.rt[loaded]) / st.rn[loaded])) if np.any(loaded) else 0.0
            rn_sum = float(np.sum(st.rn))
            row.update({f"n_closed{j.suffix}": float(np.count_nonzero(closed)), f"friction_ratio{j.suffix}": ratio,
                        f"friction_demand{j.suffix}": abs(float(np.sum(st.rt))) / rn_sum if rn_sum > 0 else 0.0})
            for name, k in j.corners.items():
                row.update({f"gap_{name}": float(st.gap[k]), f"status_{name}": float(st.status[k]),
                            f"rn_{name}": float(st.rn[k]), f"rt_{name}": float(st.rt[k]),
                            f"slip_{name}": float(st.slip[k])})
        return row

    return extra


@dataclass
class RunOutput:
    rows: list
    stats: dict
    spans: list
    failure: str | None = None
    interrupted: Interrupted | None = None
    overturned_at: float | None = None
    overturned_block: int | None = None

    @property
    def status(self) -> str:
        return "interrupted" if self.interrupted else "failed" if self.failure else "complete"


class _ContactSeries:
    """The contact nodes' ParaView series (contact.output.ContactRecorder), opened at the first
    archived step of the excitation with the terms the run integrates then."""

    def __init__(self, study: Study) -> None:
        self.study, self.recorder = study, None

    def record(self, t: float, u) -> None:
        if self.recorder is None:
            self.recorder = ContactRecorder(self.study.mesh, {j.name: j.term for j in self.study.joints},
                                            self.study.config.out, history=False)
        self.recorder.record(t, u)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


class _Columns:
    """The case's history columns (:func:`columns`), an observer of fem.problem's run."""

    def __init__(self, study: Study) -> None:
        self.names, self.observe = columns(study), _row_function(study)

    def columns(self) -> list[str]:
        return self.names


def run(study: Study) -> RunOutput:
    """Preload, then the excitation to t_end (or overturning), by fem.problem.run_stages. Histories
    and ParaView series are written as the run goes; a failure or an interruption keeps everything up
    to it on disk."""
    cfg = study.config
    top = study.blocks[-1].k
    probe_node = "C1" if top == 1 else f"C1_{top}"
    probes = (NodeProbe(f"dx_{probe_node}", probe_node, "u", "x"), NodeProbe(f"dy_{probe_node}", probe_node, "u", "y")) \
        if probe_node in study.mesh.node_groups else ()
    watches = tuple(body_watch(f"block {b.k}", block_kinematics(study, b),
                               study.mesh.points[np.unique(study.mesh.cell_groups[b.region].connectivity)], G, b.overturn)
                    for b in study.blocks)
    contact_series = _ContactSeries(study) if cfg.paraview else None
    settings = Settings(steps=event_steps(cfg), alpha=cfg.alpha, alpha_fine=cfg.alpha_fine, theta=cfg.theta,
                        newton=cfg.spec.newton, paraview=cfg.paraview, probes=probes, kinetic_group="BLOCK",
                        observers=(_Columns(study),), body_watches=watches,
                        step_bodies=tuple(b.region for b in study.blocks),
                        on_archived=contact_series.record if contact_series is not None else None)
    try:
        outcome = run_stages(study.assembled, stages(study), cfg.out, settings)
    finally:
        if contact_series is not None:
            contact_series.close()
    rows = [dict(zip(outcome.history, values)) for values in zip(*outcome.history.values())]
    failure = None
    if outcome.status != "complete":
        failure = f"{'preload' if outcome.stage == 'gravity preload' else 'excitation'}: {outcome.message}"
    over = [(w["overturned_at"], b.k) for b, w in zip(study.blocks, outcome.bodies.values())
            if w["overturned_at"] is not None]
    stats = {k: outcome.stats[k] for k in ("steps", "newton_iterations", "subdivisions", "wall_s")}
    stats["fine_spans"] = len(outcome.spans)
    return RunOutput(rows, stats, outcome.spans, failure, outcome.interrupted, *(min(over) if over else (None, None)))


# ----------------------------------------------------------------------------------- post-processing

def uplift_onset(R: dict) -> float | None:
    """First time [s] the block (a stack: the column) stands on one base corner alone (every other
    node of the table contact open): the rigid block's uplift instant, when |a| first exceeds
    g tan(alpha). None if never."""
    single = (R["n_closed"] == 1) & ((R["status_O"] != 0) | (R["status_A"] != 0))
    k = np.flatnonzero(single)
    return float(R["t"][k[0]]) if k.size else None


def first_time(t: np.ndarray, mask: np.ndarray) -> float | None:
    k = np.flatnonzero(mask)
    return float(t[k[0]]) if k.size else None


def rigid_reference(cfg: Config, history: bm.MotionHistory, t_end: float | None = None) -> dict:
    """The rigid block under the same table motion (contact.references.rocking_base); a table acceleration xdd
    along +x (from O to A) is a_g = -xdd in Zhang and Makris' sign. A stack is the column as one
    rigid block (its joints closed), 2b x N 2l: what it is while no joint opens.

    It covers [0, ``t_end``] (default the run's --t-end; the caller passes the time an interrupted or
    failed run reached, so that its cost and memory follow the run, not the duration planned), and
    its overturning verdict is :func:`rigid_verdict`'s (``overturn_verdict``; ``overturned`` True,
    False or None for undecided). ``curve_t``, ``curve_theta``: at most CURVE_POINTS samples."""
    if cfg.direction != "horizontal":
        return {"applies": False, "reason": "the rigid reference is for a horizontal table motion"}
    horizon = cfg.t_end if t_end is None else t_end
    if not horizon > 0:
        return {"applies": False, "reason": "the run stopped before the table moved (t = 0)"}
    b, l = cfg.width / 2, cfg.blocks * cfg.height / 2
    res = rocking_base.rock_under_base_motion(b, l, lambda t: -history.acceleration(t),
                                              horizon, g=G, rho=cfg.rho, n_samples_per_flight=801,
                                              max_step=min(cfg.dt, 0.01))
    demand = res.max_friction_ratio
    model = "exact nonlinear rocking, Housner impact law, no sliding"
    if cfg.blocks > 1:
        model += f"; the column of {cfg.blocks} blocks as one rigid block (joints closed)"
    verdict = rigid_verdict(cfg, history, res, horizon)
    keep = np.unique(np.linspace(0, res.t.size - 1, min(res.t.size, CURVE_POINTS)).astype(np.int64))
    return {"applies": bool(min(cfg.mu, cfg.joint_mu) > demand), "model": model, "t_end": horizon,
            "uplift_onset": res.uplift_time, "uplift_time": rocking_base.lift_time(res, UPLIFT),
            "max_rotation": res.max_rotation, "overturned": _overturned(verdict["verdict"]),
            "overturn_time": verdict.get("overturn_time"), "overturn_verdict": verdict,
            "impacts": [{"time": t, "corner": c, "ke_before": kb, "ke_after": ka} for t, c, kb, ka in
                        zip(res.impact_times, res.impact_corner, res.ke_before, res.ke_after)],
            "max_friction_ratio": demand if math.isfinite(demand) else None,
            "curve_t": res.t[keep].tolist(), "curve_theta": res.theta[keep].tolist()}


def _overturned(verdict: str) -> bool | None:
    """summary.json's ``overturned``: True, False, or None when undecided."""
    return {"yes": True, "no": False}.get(verdict)


def remaining_peak(history: bm.MotionHistory, t: float) -> float:
    """Largest |a| [m/s^2] of the table's motion after ``t`` (0 once it has ended; inf for a motion
    that never ends): on 20001 points of [t, duration] and, for a record, its samples there."""
    end = history.duration
    if t >= end:
        return 0.0
    if not math.isfinite(end):
        return math.inf
    times = np.linspace(t, end, 20001)
    samples = np.asarray(getattr(history, "times", ()), dtype=float)
    times = np.union1d(times, samples[(samples >= t) & (samples <= end)])
    return float(np.max(np.abs(history.acceleration(times))))


def rigid_verdict(cfg: Config, history: bm.MotionHistory, res, horizon: float) -> dict:
    """Whether the rigid block of ``res`` (contact.references.rocking_base, to ``horizon``) overturns:
    ``verdict`` "yes" (|theta| reached 2 alpha by the horizon, or on a table still from there on,
    where contact.references.overturning.still_table_outcome decides from the final state and integrates on
    with a_g = 0: ``overturn_time`` is then after the horizon), "no" (at rest, or decided to survive
    on a still table; or at rest with the rest of the motion below the uplift acceleration), else
    "undecided" (the table still moves after the horizon), with the ``reason``."""
    if res.overturned:
        return {"verdict": "yes", "overturn_time": res.overturn_time,
                "reason": f"|theta| reached the overturn angle at {res.overturn_time:.6g} s"}
    theta, omega = float(res.theta[-1]), float(res.omega[-1])
    peak = remaining_peak(history, horizon)
    if peak == 0.0:
        fate = still_table_outcome(cfg.width / 2, cfg.blocks * cfg.height / 2, theta, omega, g=G)
        where = (f"the table is still from {horizon:.6g} s on, theta = {theta:.6g} rad, omega = {omega:.6g} rad/s, "
                 f"E / E_b = {fate.energy_ratio:.4g}")
        if fate.overturns:
            t_over = horizon + fate.time_to_overturn
            return {"verdict": "yes", "overturn_time": t_over,
                    "reason": f"{where}: the energy rule says it overturns; integrated on with a_g = 0, at "
                              f"{t_over:.6g} s (after the run's end)"}
        if fate.overturns is False:
            return {"verdict": "no", "reason": f"{where}: the energy rule says it never overturns"}
        return {"verdict": "undecided", "reason": f"{where}: at the barrier within the integration's error"}
    if theta == 0.0 and omega == 0.0 and peak <= G * math.tan(cfg.column_alpha):
        return {"verdict": "no", "reason": f"at rest at {horizon:.6g} s and the rest of the motion stays below "
                                           f"the uplift acceleration"}
    return {"verdict": "undecided", "reason": f"the table still moves after {horizon:.6g} s (its motion lasts to "
                                              f"{history.duration:.6g} s): the outcome is not decided"}


def overturn_barrier(cfg: Config) -> float:
    """The smallest energy [J] that takes a block of the column, with those on it as one rigid body,
    from rest to its unstable equilibrium: min over k of M_k g (R_k - L_k), M_k the mass of blocks
    k..N, L_k their half height (N - k + 1) l, R_k = sqrt(b^2 + L_k^2) (the top block alone for a
    stack; M g (R - l) for one block)."""
    b, l = cfg.width / 2, cfg.height / 2
    block = cfg.rho * cfg.width * cfg.height
    return min((n * block) * G * (math.hypot(b, n * l) - n * l) for n in range(1, cfg.blocks + 1))


def overturn_verdict(cfg: Config, history: bm.MotionHistory, R: dict, output: "RunOutput",
                     uplift_time: float | None, blocks: tuple = ()) -> dict:
    """Whether this run's blocks overturn: ``verdict`` "yes" (a block reached its overturn angle: the
    run stopped there), "no" only when decided (from the run's end on the table is still, every block
    ``blocks`` is on the near side of its unstable equilibrium, |theta_k| < half its overturn angle,
    and the blocks' energy, kinetic + potential + strain from the rest at t = 0, is below
    (1 - OVERTURN_MARGIN) of :func:`overturn_barrier`: they can never climb to an unstable
    equilibrium again; or no corner ever lifted and the rest of the motion stays below the uplift
    acceleration), else "undecided" with the ``reason`` (a block that ends past alpha, still tipping
    outward, whatever its energy: beyond the barrier the potential energy falls as it tips).
    ``energy`` and ``barrier`` [J] at the run's end."""
    if output.overturned_at is not None:
        return {"verdict": "yes", "overturn_time": output.overturned_at,
                "reason": f"block {output.overturned_block} reached its overturn angle at {output.overturned_at:.6g} s"}
    if not R:
        return {"verdict": "undecided", "reason": "the run stopped before the table moved"}
    t_last = float(R["t"][-1])
    energy = float(R["ke"][-1] + (R["gravity_potential"][-1] - R["gravity_potential"][0])
                   + (R["strain_energy"][-1] - R["strain_energy"][0]))
    barrier = overturn_barrier(cfg)
    out = {"energy": energy, "barrier": barrier, "t": t_last, "theta": float(R["theta"][-1]),
           "omega": float(R["omega"][-1])}
    peak = remaining_peak(history, t_last)
    state = (f"at {t_last:.6g} s theta = {out['theta']:.4g} rad (alpha {cfg.alpha_rad:.4g}), omega = "
             f"{out['omega']:.4g} rad/s, energy {energy:.4g} J = {energy / barrier:.3g} of the barrier {barrier:.4g} J")
    if peak == 0.0:
        beyond = [b.k for b in blocks if abs(float(R[b.theta_column][-1])) >= 0.5 * b.overturn]
        if beyond:
            return {**out, "verdict": "undecided",
                    "reason": f"{state}; the table is still from there on, and block {beyond[0]} is past its "
                              f"unstable equilibrium (alpha): it tips on, or falls back (run longer: --t-end)"}
        if energy < (1.0 - OVERTURN_MARGIN) * barrier:
            return {**out, "verdict": "no", "reason": f"{state}; the table is still from there on: the blocks can "
                                                      f"never reach an unstable equilibrium again"}
        return {**out, "verdict": "undecided",
                "reason": f"{state}; the table is still from there on, but the blocks have the energy to pass "
                          f"the barrier: their impacts decide (run longer: --t-end)"}
    if uplift_time is None and peak <= G * math.tan(cfg.column_alpha):
        return {**out, "verdict": "no", "reason": "no corner lifted and the rest of the motion stays below the "
                                                  "uplift acceleration"}
    return {**out, "verdict": "undecided", "reason": f"{state}; the table still moves after the run's end (its "
                                                     f"motion lasts to {history.duration:.6g} s)"}


def summarize(study: Study, output: RunOutput) -> dict:
    """summary.json's results. Lists over blocks (bottom first): max_rotation; over contact surfaces
    (the table first, then joint 1, ...): joint_uplift_time, max_joint_gap. uplift_time is the first
    lift of any block's base corner, impacts those of every corner (its name tells the surface)."""
    cfg = study.config
    R = rows_as_arrays(output.rows)
    # the rigid reference over the time this run covered: its --t-end once complete (overturned or
    # not), the last step reached when interrupted or failed (a SIGINT must not wait for the rigid
    # block of the whole duration planned)
    horizon = cfg.t_end if output.status == "complete" else (float(R["t"][-1]) if R else 0.0)
    summary = {"modeling": cfg.modeling, "blocks": cfg.blocks, "run": output.stats, "failure": output.failure,
               "fine_spans": output.spans, "mass": {"kind": study.model.mass_kind,
                                                     "block_mass": study.model.total_mass("BLOCK")},
               "uplift_acceleration_g": math.tan(cfg.column_alpha),
               "overturn_angle": [b.overturn for b in study.blocks],
               "rigid_body": rigid_reference(cfg, study.history, horizon)}
    if not R:
        summary["overturn_verdict"] = overturn_verdict(cfg, study.history, R, output, None)
        summary["overturned"] = _overturned(summary["overturn_verdict"]["verdict"])
        return summary
    t = R["t"]
    corners = [c for j in study.joints for c in j.corners]
    impacts = lift_impacts(t, R["ke"], {c: R[f"status_{c}"] for c in corners},
                           {c: R[f"gap_{c}"] for c in corners}, lift=UPLIFT)  # in time order
    # the rigid reference's friction demand leaves the impulsive impact forces out: so does
    # max_friction_ratio (IMPACT_WINDOW around each impact); max_friction_ratio_impacts keeps them
    during_impacts = np.zeros(t.size, dtype=bool)
    for i in impacts:
        during_impacts |= (t >= i["time"] - IMPACT_WINDOW[0]) & (t <= i["time"] + IMPACT_WINDOW[1])
    slip = max(float(np.max(np.abs(R[f"slip_{c}"] - R[f"slip_{c}"][0]))) for c in corners)
    gaps = [np.max([R[f"gap_{c}"] for c in j.corners], axis=0) for j in study.joints]
    demand = np.max([R[f"friction_demand{j.suffix}"] for j in study.joints], axis=0)
    summary.update({
        "uplift_time": first_time(t, np.max(gaps, axis=0) > UPLIFT),
        "uplift_onset": uplift_onset(R),
        "joint_uplift_time": [first_time(t, g > UPLIFT) for g in gaps],
        "max_joint_gap": [max(float(np.max(g)), 0.0) for g in gaps],
        "max_rotation": [float(np.max(np.abs(R[b.theta_column]))) for b in study.blocks],
        "overturned": None,  # below, from overturn_verdict
        "overturn_time": output.overturned_at,
        "overturned_block": output.overturned_block,
        "impacts": impacts,
        "max_friction_ratio": float(np.max(demand[~during_impacts])),
        "max_friction_ratio_impacts": float(np.max(demand)),
        "max_node_friction_ratio": float(max(np.max(R[f"friction_ratio{j.suffix}"]) for j in study.joints)),
        "max_slip": slip,
        "slid": bool(slip > SLID),
        "table": table_peaks(study.history, float(t[-1])),
        "energy": energy_books(R),
    })
    summary["overturn_verdict"] = overturn_verdict(cfg, study.history, R, output, summary["uplift_time"],
                                                   study.blocks)
    summary["overturned"] = _overturned(summary["overturn_verdict"]["verdict"])
    summary["checks"] = checks(summary)
    return summary


def table_peaks(history: bm.MotionHistory, t_end: float) -> dict:
    """Peak |a|, |v|, |d| of the table's motion over [0, t_end] (on 20001 points and, for a record,
    its samples: the motion itself, not only the steps the run took) and v, d at t_end."""
    t = np.linspace(0.0, t_end, 20001)
    samples = np.asarray(getattr(history, "times", ()), dtype=float)
    t = np.union1d(t, samples[samples <= t_end])
    return {"peak_acceleration": float(np.max(np.abs(history.acceleration(t)))),
            "peak_velocity": float(np.max(np.abs(history.velocity(t)))),
            "peak_displacement": float(np.max(np.abs(history.displacement(t)))),
            "final_velocity": float(history.velocity(t_end)), "final_displacement": float(history.displacement(t_end))}


def energy_books(R: dict) -> dict:
    """The energy balance of the excitation (t >= 0), every term on its own (fem.stage.energy): the
    table's input (the work of the d'Alembert load, external work minus gravity's) against the
    block's kinetic, strain and gravity energies, damping, contact and friction works and the time
    scheme's dissipation. ``relative_error`` is the books' largest error over the largest of the
    input, the kinetic energy and an absolute floor: the strain energy the preload left in the
    bodies (the energy of the block at rest under its weight, 9.7e-6 J for SDNV105's), so that a
    motion that puts no energy in (an all-zero record) is not graded by its round-off (5e-21 J
    over a 9e-21 J input once read as "57 %")."""
    table_work = (R["external_work"] - R["external_work"][0]) + (R["gravity_potential"] - R["gravity_potential"][0])
    error = R["energy_balance_error"] - R["energy_balance_error"][0]
    floor = abs(float(R["strain_energy"][0]))
    scale = max(float(np.max(np.abs(table_work))), float(np.max(R["ke"])), floor, 1e-300)
    return {"table_work": float(table_work[-1]), "max_table_work": float(np.max(np.abs(table_work))),
            "max_abs_error": float(np.max(np.abs(error))), "relative_error": float(np.max(np.abs(error)) / scale),
            "damping_dissipated": float(R["damping_dissipation"][-1] - R["damping_dissipation"][0]),
            "contact_work": float(R["contact_work"][-1] - R["contact_work"][0]),
            "friction_work": float(R["friction_work"][-1] - R["friction_work"][0]),
            "numerical_dissipation": float(R["numerical_dissipation"][-1] - R["numerical_dissipation"][0])}


ENERGY_LIMIT = 0.01


def checks(summary: dict) -> list[dict]:
    """This run against the rigid block under the same motion (where it applies: the pivot's friction
    above the rigid block's demand) and its own energy books."""
    rigid = summary["rigid_body"]
    out = [{"quantity": "energy books error / input", "value": summary["energy"]["relative_error"],
            "reference": 0.0, "rel_error": summary["energy"]["relative_error"], "tolerance": ENERGY_LIMIT,
            "within_tolerance": summary["energy"]["relative_error"] <= ENERGY_LIMIT}]
    if not rigid.get("applies"):
        return out

    def row(quantity, value, reference, tolerance, undecided=False):
        """Relative tolerance on numbers; a bool or a None (never happened) must be equal; no verdict
        (None) when ``undecided``."""
        if undecided:
            out.append({"quantity": quantity, "value": value, "reference": reference, "rel_error": None,
                        "tolerance": tolerance, "within_tolerance": None,
                        "note": "undecided: the run or the rigid block ends before its outcome is decided"})
            return
        if isinstance(value, bool) or isinstance(reference, bool) or value is None or reference is None:
            ok, rel = value == reference, None
        else:
            rel = abs(value - reference) / abs(reference) if reference else None
            ok = abs(value - reference) <= tolerance * abs(reference)
        out.append({"quantity": quantity, "value": value, "reference": reference, "rel_error": rel,
                    "tolerance": tolerance, "within_tolerance": bool(ok)})

    row("uplift onset [s]", summary["uplift_onset"], rigid["uplift_onset"], 0.01)
    row("uplift 1e-6 m [s]", summary["uplift_time"], rigid["uplift_time"], 0.01)
    row("overturned", summary["overturned"], rigid["overturned"], 0,
        undecided=summary["overturned"] is None or rigid["overturned"] is None)
    if rigid["uplift_time"] is not None and rigid["overturned"] is False and summary["overturned"] is False:
        row("max rotation [rad]", summary["max_rotation"][0], rigid["max_rotation"], 0.10)
    if len(summary["max_joint_gap"]) > 1:  # the column as one rigid block holds while its joints stay shut
        row(f"joints closed (gap <= {UPLIFT:g} m)", all(g <= UPLIFT for g in summary["max_joint_gap"][1:]), True, 0)
    return out


# ----------------------------------------------------------------------------------- outputs
def _verdict(where: dict) -> str:
    """"yes", "no" or "undecided" (overturn_verdict), "–" without one."""
    return (where.get("overturn_verdict") or {}).get("verdict", "–")


def _fmt(x, digits=6):
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def write_report(out: Path, cfg: Config, summary: dict) -> None:
    rigid = summary["rigid_body"]
    run_ = summary["run"]
    lines = [f"# Shaking table — {cfg.excitation}, modeling {cfg.modeling} ({cfg.spec.description})", "",
             f"Command: `{summary['command']}` (rockfem {summary['version']}; every parameter in summary.json). "
             f"Run: {run_['steps']} steps, {run_['newton_iterations']} Newton iterations, {run_['wall_s']:.1f} s.", "",
             f"Status: **{summary['status']}**.", ""]
    if summary["status"] != "complete":
        lines += [f"**The run did not finish** ({summary.get('message') or summary.get('failure')}): the files hold "
                  f"every step up to t = {summary.get('t_reached')} s, and the values below are those of the "
                  f"steps computed.", ""]
    if cfg.blocks == 1:
        lines += [f"Block {cfg.width:g} x {cfg.height:g} m, alpha = atan(b/l) = {cfg.alpha_rad:.6g} rad: it lifts "
                  f"when the table acceleration exceeds g tan(alpha) = {math.tan(cfg.alpha_rad):.4g} g and counts as "
                  f"overturned at |theta| = 2 alpha = {2 * cfg.alpha_rad:.4g} rad (the run stops there). Friction "
                  f"mu = {cfg.mu:g}.", ""]
    else:
        lines += [f"{cfg.blocks} blocks of {cfg.width:g} x {cfg.height:g} m stacked, a column of "
                  f"{cfg.width:g} x {cfg.blocks * cfg.height:g} m: as one rigid body it lifts when the table "
                  f"acceleration exceeds g tan(alpha_column) = {math.tan(cfg.column_alpha):.4g} g (each block alone: "
                  f"{math.tan(cfg.alpha_rad):.4g} g). Block k counts as overturned at |theta_k| = 2 alpha of block k "
                  f"and those on it ({', '.join(f'{a:.4g}' for a in summary.get('overturn_angle', []))} rad, bottom "
                  f"first; the run stops there). Friction mu = {cfg.mu:g} on the table, {cfg.joint_mu:g} between "
                  f"blocks. Rotations are absolute (relative to the table).", ""]
    if not rigid.get("applies"):
        lines += [f"The rigid reference does not apply to this run: "
                  f"{rigid.get('reason') or 'mu is below the friction the rigid rocking needs'}"
                  f"{'' if rigid.get('max_friction_ratio') is None else ' (' + _fmt(rigid['max_friction_ratio'], 4) + ')'}.",
                  ""]
    lines += ["| quantity | this code | rigid block |", "|---|---|---|"]
    for key, label in (("uplift_onset", "uplift onset (one corner alone) [s]"),
                       ("uplift_time", f"uplift time (corner {UPLIFT:g} m up) [s]"),
                       ("overturned", "overturned"), ("overturn_time", "overturn time [s]"),
                       ("max_friction_ratio", "max |R_T|/R_N")):
        if key == "overturned":
            lines.append(f"| {label} | {_verdict(summary)} | {_verdict(rigid)} |")
            continue
        lines.append(f"| {label} | {_fmt(summary.get(key))} | {_fmt(rigid.get(key))} |")
    mr = summary.get("max_rotation") or []
    for k, value in enumerate(mr, start=1):
        label = "max rotation [rad]" if len(mr) == 1 else f"max rotation of block {k} [rad]"
        lines.append(f"| {label} | {_fmt(value)} | {_fmt(rigid.get('max_rotation'))} |")
    for k, (when, gap) in enumerate(zip(summary.get("joint_uplift_time", [])[1:], summary.get("max_joint_gap", [])[1:]),
                                    start=1):
        lines.append(f"| joint {k}: uplift time [s], largest corner gap [m] | {_fmt(when)}, {_fmt(gap)} | (closed) |")
    lines.append(f"| slid (a corner slipped > {SLID:g} m) | {_fmt(summary.get('slid'))} | (not modelled) |")
    for who, verdict in (("This run", summary.get("overturn_verdict")),
                         ("The rigid block", rigid.get("overturn_verdict"))):
        if verdict:
            lines += ["", f"{who}: overturned **{verdict['verdict']}**: {verdict['reason']}."]
    lines += ["", "## Checks", "", "| check | this code | reference | tolerance | within |", "|---|---|---|---|---|"]
    for c in summary.get("checks", []):
        lines.append(f"| {c['quantity']} | {_fmt(c['value'])} | {_fmt(c['reference'])} | {_fmt(c['tolerance'])} | "
                     f"{_fmt(c['within_tolerance'])} |")
    lines += ["", "## Impacts", "", "| time [s] | corner | KE before [J] | KE after [J] |", "|---|---|---|---|"]
    lines += [f"| {i['time']:.6f} | {i['corner']} | {i['ke_before']:.4g} | {i['ke_after']:.4g} |"
              for i in summary.get("impacts", [])]
    if rigid.get("impacts"):
        lines += ["", "Rigid block:", "", "| time [s] | corner | KE before [J] | KE after [J] |", "|---|---|---|---|"]
        lines += [f"| {i['time']:.6f} | {i['corner']} | {i['ke_before']:.4g} | {i['ke_after']:.4g} |"
                  for i in rigid["impacts"]]
    e = summary.get("energy")
    if e:
        lines += ["", f"Energy: the table put in {e['table_work']:.4g} J (largest {e['max_table_work']:.4g} J); "
                      f"damping {e['damping_dissipated']:.4g} J, contact {e['contact_work']:.4g} J, friction "
                      f"{e['friction_work']:.4g} J, time scheme {e['numerical_dissipation']:.4g} J; the books close "
                      f"to {e['max_abs_error']:.3g} J ({100 * e['relative_error']:.3g} %)."]
    lines += ["", "Files: history.csv (table a, v, d; rotation; corner gaps, reactions, slips; energies), "
                  "solution.pvd and contact.pvd (ParaView, displacements relative to the table), rotation.png."]
    output_folder.write_text(out / "report.md", "\n".join(lines) + "\n")


def plot(out: Path, R: dict, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    thetas = sorted((k for k in R if k == "theta" or k.startswith("theta_")), key=lambda k: (len(k), k))
    for k, name in enumerate(thetas, start=1):
        ax1.plot(R["t"], R[name], label="FE" if len(thetas) == 1 else f"FE, block {k}")
    rigid = summary["rigid_body"]
    if rigid.get("curve_t"):
        ax1.plot(rigid["curve_t"], rigid["curve_theta"], "--",
                 label="rigid block" if len(thetas) == 1 else "rigid column")
    ax1.set_ylabel("rotation theta [rad]")
    ax1.legend()
    ax2.plot(R["t"], R["table_a"] / G)
    ax2.set_ylabel("table acceleration [g]")
    ax2.set_xlabel("t [s]")
    fig.tight_layout()
    output_folder.save_figure(fig, out / "rotation.png", dpi=110)
    plt.close(fig)


def resource_estimate(cfg: Config) -> Estimate:
    steps = PRELOAD_STEPS + count_steps([(0.0, cfg.t_end, cfg.dt)])
    nodes, cells = 25 + 15 * (cfg.blocks - 1), 12 + 8 * (cfg.blocks - 1)
    if cfg.mesh is not None:
        try:
            size = cfg.mesh.stat().st_size
        except OSError:
            size = 0
        nodes, cells = size / 30.0, size / 60.0
    return estimate(nodes, cells, 4, steps, row_bytes=4000.0)


def main(argv=None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return execute(_main, argv)


def _main(argv) -> int:
    config, flags = parse_args(argv)
    config.validate()
    history = config.history()
    config = config.resolved(history)
    config.validate()
    check_resources(resource_estimate(config), force=flags.force)
    prepare_output(config.out)
    study = build(config, history)
    for warning in study.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    record = Run.start(config.out, "shaking_table", command_line("cases/shaking_table.py", argv), "custom",
                       config.parameters(), t_end=config.t_end, quiet=flags.quiet)
    output = run(study)
    summary = record.final(output.status, summarize(study, output), message=output.failure)
    R = rows_as_arrays(output.rows)
    write_report(config.out, config, summary)
    if R:
        plot(config.out, R, summary)
    summary = record.close()  # summary.json last: a folder that says complete holds every file
    _print(summary)
    if output.interrupted is not None:
        raise output.interrupted
    if output.failure:
        print(f"error: {output.failure}; results up to the failure are in {config.out} (status: failed)",
              file=sys.stderr)
        return EXIT_FAILED
    books = (summary.get("energy") or {}).get("relative_error")
    if books is not None and books > ENERGY_LIMIT:
        print(f"error: the energy books miss by {100 * books:.3g} % of the table's input (limit "
              f"{100 * ENERGY_LIMIT:g} %; status: complete; see energy in {config.out}/summary.json)", file=sys.stderr)
        return EXIT_FAILED
    print(f"results: {config.out}/ (report.md, summary.json, history.csv, solution.pvd for ParaView)")
    return 0


def _print(summary: dict) -> None:
    run_ = summary["run"]
    rigid = summary["rigid_body"]
    print(f"shaking table ({summary['status']}): {run_['steps']} steps, {run_['newton_iterations']} Newton "
          f"iterations, {run_['wall_s']:.1f} s")
    mr = summary.get("max_rotation")
    print(f"{'':24s} {'this code':>12s} {'rigid block':>12s}")
    for key in ("uplift_onset", "uplift_time", "overturned", "overturn_time", "max_friction_ratio"):
        if key == "overturned":
            print(f"{key:24s} {_verdict(summary):>12s} {_verdict(rigid):>12s}")
            continue
        print(f"{key:24s} {_fmt(summary.get(key)):>12s} {_fmt(rigid.get(key)):>12s}")
    for k, value in enumerate(mr or [None], start=1):
        label = "max_rotation" if len(mr or [None]) == 1 else f"max_rotation block {k}"
        print(f"{label:24s} {_fmt(value):>12s} {_fmt(rigid.get('max_rotation')):>12s}")
    print(f"{'slid':24s} {_fmt(summary.get('slid')):>12s}")
    for imp in summary.get("impacts", []):
        print(f"impact at {imp['time']:.5f} s on {imp['corner']}: KE {imp['ke_before']:.4g} -> {imp['ke_after']:.4g} J")
    rows = summary.get("checks") or []
    if rows:
        print(f"{'check':32s} {'this code':>12s} {'reference':>12s} {'tol':>6s} {'ok':>3s}")
        for c in rows:
            ok = {True: "yes", False: "NO", None: "-"}[c.get("within_tolerance")]
            print(f"{c['quantity']:32s} {_fmt(c['value']):>12s} {_fmt(c['reference']):>12s} "
                  f"{_fmt(c.get('tolerance')):>6s} {ok:>3s}")
    if not (summary.get("rigid_body") or {}).get("applies"):
        print("the rigid block's reference does not apply (its friction demand exceeds mu): no verdict on the motion")


if __name__ == "__main__":
    sys.exit(main())
