"""The shaking table's parameters (cases/shaking_table.py): the contact modelings (as SDNV105's of the same
letter), the :class:`Config` of a run (every parameter, the defaults that depend on others, the table's
motion it describes) and its checks (impossible values, physical ranges, the --mesh file read)."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from fem import ranges
from fem.constants import GRAVITY
from fem.loads import base_motion as bm
from fem.mesh.read import read_mesh
from fem.model.material import ElasticMaterial
from fem.problem.simulate import ALPHA, ALPHA_FINE
from fem.run.lifecycle import BadInput, check_materials, require_all
from fem.stage.phase import NewtonSettings

G = GRAVITY
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
    alpha: float = ALPHA  # fem.problem.simulate's: HHT -0.1 on the coarse steps, -0.2 on the fine ones
    alpha_fine: float | None = ALPHA_FINE
    theta: float = 0.55
    mass: str = "redistributed"
    tolerance: float = 1e-7
    mesh: Path | None = None
    out: Path = Path("results/shaking_table")
    archive_every: int = 10
    paraview: bool = True
    predictor: str = "constant_velocity"  # the Newton predictor (fem.stage.phase.PREDICTORS)
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
        ends), dt_fine = dt / 10 (d: dt, uniform steps), alpha_fine (None: alpha)."""
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


def _read_mesh_flag(path: Path):
    """The --mesh file read (fem.mesh.read: a missing or unreadable file, a NaN, infinite or absurd
    coordinate, an inverted cell refused as BadInput naming --mesh)."""
    try:
        return read_mesh(path)
    except ValueError as err:
        raise BadInput(f"--mesh {path}: {err}") from None
