"""The physical range of each kind of input: what a case script accepts before anything runs.

A flag's value is refused (:class:`BadInput`, one line naming the flag, its unit and the
range) when it lies outside the range of its kind, so that no input reaches the solver to fail
there (an overflow, a division by zero, a step count of 1e300, a wave speed of 0). The ranges are
physical: each bound is stated with its reason beside it (the table below), and they are wide
enough for scaled problems (the periodic bar's E = rho = L = 1) and narrow enough that every
quantity derived from them (wave speeds sqrt(E/rho), masses rho V, stiffness/mass ratios, step
counts) stays a finite, normal double: the largest products of the bounds are far from 1e308 and
the smallest far from 1e-308. Derived quantities that a script forms are checked in logarithms
(:func:`check_magnitude`) or with ``math.isfinite`` (:func:`check_finite`), naming the flags they
come from.

Time steps (:func:`check_step`) are checked against the run they cut, no longer than the run and
no shorter than 1e-12 of it (a trillion steps), and against the physical time scale the run must
resolve, which each script names (the rocking time scale 1/p of the block, the duration of an
elastic shock, the bar's wave transit, the excitation's period). Element periods are not used:
the implicit schemes of this code step over them by design (SDNV105's block has an element period
near 1e-5 s, the benchmark's steps are 1e-4 s); the explicit central differences of SDND101 keep
their own stability limit.

Usage::

    from fem import ranges
    ranges.check_all([("--rho", cfg.rho, ranges.DENSITY), ("--young", cfg.young, ranges.YOUNG)])
    ranges.check_step("--dt", cfg.dt, cfg.t_end, "--t-end", [("the rocking time scale 1/p", 0.24, "--width, --height")])
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Iterable, Sequence

from fem import constants


class BadInput(ValueError):
    """Input refused before the run: the message names the flag, key or file and the problem (exit 2)."""



def number(x: float) -> str:
    """``x`` written short and exact enough to retype: 1e-3 -> '1e-3', 1e6 -> '1e6', 5e-324 ->
    '5e-324', 1450.0 -> '1450', 0.36 -> '0.36' (the shortest repr, or 10 digits for a computed value
    such as 1e-15 / 10; below 0.01 and from 1e4 on in exponent form, the exponent without '+' or
    leading zeros); an integer too large for a float, 10**400, is written 1e400."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) >= 10**15:
        mantissa, exponent = format(Decimal(x), ".6e").split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    x = float(x)
    if x == 0.0:
        return "0"
    if not math.isfinite(x):
        return repr(x)
    text = repr(x)
    if len(text.split("e")[0].lstrip("-").replace(".", "").lstrip("0")) > 12:  # a computed value: 10 digits
        text = format(x, ".10g")
    if 1e-2 <= abs(x) < 1e4:
        text = repr(float(text))
        return text[:-2] if text.endswith(".0") else text
    mantissa, exponent = format(Decimal(text).normalize(), "e").split("e")
    return f"{mantissa}e{int(exponent)}"


def short(x: float) -> str:
    """A computed ``x`` to 4 significant digits, written as :func:`number` writes it (171.9, 5e4, 1.234e-7)."""
    x = float(x)
    return number(float(f"{x:.4g}")) if math.isfinite(x) else repr(x)


def _bound(x: float) -> str:
    """A range's bound: :func:`number`, or 6 digits for a long one (pi / 2)."""
    text = number(x)
    return text if len(text) <= 10 else f"{x:.6g}"


@dataclass(frozen=True)
class Range:
    """The physical range of one kind of input.

    Attributes
    ----------
    name : what the value is ("density").
    unit : its unit ("kg/m^3"; "" for a pure number).
    low, high : the bounds.
    low_open, high_open : the bound itself is excluded.
    zero : 0 is accepted besides the range (an absent spring, dashpot or gap).
    why : the reason for the bounds, short (it ends the refusal's message).
    """

    name: str
    unit: str
    low: float
    high: float
    low_open: bool = False
    high_open: bool = False
    zero: bool = False
    why: str = ""

    def __contains__(self, value) -> bool:
        try:
            x = float(value)
        except (TypeError, ValueError, OverflowError):
            return False
        if not math.isfinite(x):
            return False
        if self.zero and x == 0.0:
            return True
        above = x > self.low if self.low_open else x >= self.low
        below = x < self.high if self.high_open else x <= self.high
        return above and below

    def interval(self) -> str:
        """'[0.001, 1e6] kg/m^3', '(-1, 0.5)', '0 or [1e-6, 1e16] N/m'."""
        text = (f"{'(' if self.low_open else '['}{_bound(self.low)}, {_bound(self.high)}"
                f"{')' if self.high_open else ']'}")
        if self.zero and 0.0 not in replace(self, zero=False):
            text = f"0 or {text}"
        return f"{text} {self.unit}" if self.unit else text

    def outside(self, value, signed: bool = False) -> str | None:
        """What is wrong with ``value``, without the flag or key it came from ("1e-300 Pa is outside the
        physical range [1, 1e16] Pa of a material's Young's modulus: why"), or None when it lies in the
        range; ``signed``: the value's magnitude is what the range bounds (an amplitude whose sign is a
        direction), a negative one written |x|."""
        magnitude = abs(value) if signed and isinstance(value, (int, float)) and not isinstance(value, bool) \
            else value
        if magnitude in self:
            return None
        try:
            shown = number(value)
        except (TypeError, ValueError, OverflowError):
            shown = repr(value)
        if signed and magnitude is not value and value < 0:
            shown = f"|{shown}|"
        unit = f" {self.unit}" if self.unit else ""
        why = f": {self.why}" if self.why else ""
        article = "an" if self.name[0] in "aeiou" else "a"
        return f"{shown}{unit} is outside the physical range {self.interval()} of {article} {self.name}{why}"

    def refusal(self, flag: str, value) -> str | None:
        """The one-line message refusing ``value`` of ``flag``, or None when it lies in the range."""
        what = self.outside(value)
        return None if what is None else f"{flag} {what}"

    def check(self, flag: str, value) -> None:
        """Raise :class:`BadInput` with :meth:`refusal` unless ``value`` lies in the range."""
        message = self.refusal(flag, value)
        if message is not None:
            raise BadInput(message)


# ------------------------------------------------------------------------------------ the table
# Each bound with its reason. SI units; a "scaled problem" is one written in units where its data
# are 1 (cases/bar_impact.py --setup periodic: E = rho = L = 1).

#: a length of a one-dof case or of the bar: 1 um (below, this code's absolute tolerances, 1e-9 m
#: on gaps and 1e-7 m on slips, are no longer small against it) to 10 km (beyond any structure)
LENGTH = Range("length", "m", 1e-6, 1e4, why="from 1 um, where the code's 1e-9 m gap tolerance stops being small, "
               "to 10 km, beyond any structure")
#: a block's size (width, height, thickness): 1 mm (the uplift and slip thresholds of the shaking
#: table, 1e-6 m and 1e-5 m, stay 100 times smaller) to 1 km (taller than any building, 828 m)
BLOCK_SIZE = Range("block size", "m", 1e-3, 1e3, why="from 1 mm, 100 times the 1e-5 m slip threshold, to 1 km, "
                   "taller than any building")
#: a gap to a wall or a stop: 0 (in contact) to 1 km (a mass flying farther than that hits nothing)
GAP = Range("gap", "m", 0.0, 1e3, why="from 0 (touching) to 1 km")
#: a mesh node's coordinate: |x| <= 1000 km; beyond, a coordinate's round-off (1e-10 m at 1e6 m)
#: reaches the contact gaps' tolerance (1e-9 m) and no body this code models is that large
COORDINATE = Range("mesh coordinate", "m", -1e6, 1e6, why="beyond 1000 km a coordinate's round-off reaches the "
                   "1e-9 m contact tolerance")
#: 1e-3 kg/m^3 (below any solid or liquid, aerogel 1, air 1.2; room for scaled problems, rho = 1)
#: to 1e6 kg/m^3 (44 times osmium's 22,590, the densest element)
DENSITY = Range("density", "kg/m^3", 1e-3, 1e6, why="from below any solid (aerogel 1 kg/m^3) to 44 times osmium's "
                "22,590")
#: 1 Pa (softer than any foam or gel; room for scaled problems, E = 1) to 1e13 Pa (8 times
#: diamond's 1.2e12 Pa, the stiffest material)
YOUNG = Range("Young's modulus", "Pa", 1.0, 1e13, why="from softer than any foam to 8 times diamond's 1.2e12 Pa")
#: a support's Young's modulus: the SDNV105 table is a rigid proxy of 1e14 Pa (167 times the
#: block); up to 1e16 Pa it stays a stiff support whose matrix (1e16 against the block's 6e11)
#: and wave speed sqrt(E/rho) remain in double precision
TABLE_YOUNG = Range("support's Young's modulus", "Pa", 1.0, 1e16, why="a rigid-support proxy (the benchmark's "
                    "table has 1e14 Pa) stays a usable stiffness up to 1e16 Pa")
#: an isotropic solid's Hooke matrix is positive definite only for -1 < nu < 0.5 (0.5: incompressible)
POISSON = Range("Poisson's ratio", "", -1.0, 0.5, low_open=True, high_open=True,
                why="an isotropic solid is stable only there (0.5 is incompressible)")
#: 0 (frictionless) to 10: measured dry friction stays below about 5 (clean metals in vacuum);
#: at 10 every block of this code sticks
FRICTION = Range("friction coefficient", "", 0.0, 10.0, why="measured dry friction stays below 5; 10 is sticking")
#: a table's peak acceleration: from 1e-6 g (the order of the ground's ambient noise, microseisms
#: 1e-7 .. 1e-6 g: below it the table is at rest) to 20 g, beyond any recorded ground motion (4.4 g,
#: Iwate-Miyagi 2008) and any shaking table (about 3-5 g); a block flying off the table is supported (a vertical motion
#: beyond 1 g lifts it, it lands again)
TABLE_ACCELERATION = Range("table acceleration", "g", 1e-6, 20.0,
                           why="from the ground's ambient noise to beyond any recorded ground motion (4.4 g) or "
                               "shaking table")
#: a record's sample: |a| <= 100 g; above, the file is in other units (cm/s^2 read as m/s^2, counts)
RECORD_SAMPLE = Range("record sample", "g", -100.0, 100.0,
                      why="a larger sample is a unit mistake (cm/s^2 read as m/s^2), no ground motion")
#: 1e-3 m/s^2 (below a small asteroid's surface, Eros 6e-3) to 1e3 m/s^2 (four times the Sun's 274)
GRAVITY = Range("gravity", "m/s^2", 1e-3, 1e3, why="from a small asteroid's (6e-3) to four times the Sun's (274)")
#: an excitation frequency: 1e-3 Hz (a 17-minute cycle) to 1e3 Hz (ground motion and shaking tables
#: lie within 0.05-50 Hz; a kHz motion of a rocking block is vibration, not excitation)
FREQUENCY = Range("frequency", "Hz", 1e-3, 1e3, why="ground motions and shaking tables lie within 0.05-50 Hz")
#: a number of cycles: a thousandth of a cycle (a motion shorter than that is no harmonic) to 1e4,
#: longer than any shaking-table test
CYCLES = Range("number of cycles", "", 1e-3, 1e4, why="up to longer than any shaking-table test")
#: a run's duration: 1e-12 s (a picosecond, shorter than any elastic shock of these cases) to 1e5 s
#: (more than a day: longer than any shaking or rocking; the step count refuses long runs earlier)
DURATION = Range("duration", "s", 1e-12, 1e5, why="from a picosecond to more than a day")
#: a duration that may be 0 (hold time, smooth start)
DURATION_OR_ZERO = replace(DURATION, zero=True)
#: an instant of a run (a window's end, an end time on the benchmark's clock): |t| <= 1e5 s
INSTANT = Range("time", "s", -1e5, 1e5, why="more than a day either side of t = 0")
#: a time step: 1e-15 s (below any continuum time scale, atomic vibrations 1e-13 s; dt^2 and
#: 1/dt^2 stay normal doubles) to 1e5 s; it is also bounded by its run and the run's physical
#: time scale (:func:`check_step`)
TIME_STEP = Range("time step", "s", 1e-15, 1e5, why="from below any continuum time scale to more than a day")
#: a time step no shorter than this fraction of the run it cuts (a trillion steps)
MIN_STEP_FRACTION = 1e-12
#: a signed velocity: |v| <= 10 km/s; faster impacts are hypervelocity (solids flow like fluids),
#: out of an elastic contact code's scope
VELOCITY = Range("velocity", "m/s", -1e4, 1e4, why="faster impacts are hypervelocity, where solids flow")
#: an impact speed (> 0): 1e-9 m/s (a nanometre a second, slower than creep) to 10 km/s
SPEED = Range("speed", "m/s", 1e-9, 1e4, why="from 1 nm/s, slower than creep, to 10 km/s, hypervelocity")
#: a point mass: 1 mg to a million tonnes (the heaviest ships, 6e8 kg)
MASS = Range("mass", "kg", 1e-6, 1e9, why="from a milligram to the heaviest ship")
#: a spring's stiffness: 1e-6 N/m (a hair) to 1e16 N/m (3e5 times the SDNV105 shock springs' 3e10;
#: E A / L of a 1 m^2 steel section 20 um long); 0 only where the flag allows no spring
STIFFNESS = Range("stiffness", "N/m", 1e-6, 1e16, why="from a hair's to 3e5 times the benchmark's 3e10 N/m "
                  "shock springs")
STIFFNESS_OR_ZERO = replace(STIFFNESS, zero=True)
#: a dashpot: 0 to 1e13 N s/m, above the critical damping 2 sqrt(k m) = 6e12 N s/m of the stiffest
#: spring (1e16 N/m) on the heaviest mass (1e9 kg)
DASHPOT = Range("damping coefficient", "N s/m", 0.0, 1e13,
                why="above the critical damping of the stiffest spring on the heaviest mass")
#: Code_Aster's AMOR_ALPHA (stiffness-proportional damping, zeta = alpha omega / 2): 0 to 1 s, which
#: damps critically every mode above 0.3 Hz, every elastic mode of any block many times over
RAYLEIGH_ALPHA = Range("stiffness-proportional damping AMOR_ALPHA", "s", 0.0, 1.0,
                       why="1 s already damps critically every mode above 0.3 Hz")
#: a damping ratio: 0 (undamped) to 1 (critical)
DAMPING_RATIO = Range("damping ratio", "", 0.0, 1.0, why="from undamped to critical")
#: a force: 1 nN (below it a contact force is noise) to 1e12 N (the weight of a hundred million tonnes)
FORCE = Range("force", "N", 1e-9, 1e12, why="from a nanonewton to the weight of a hundred million tonnes")
#: an energy: (0, 1e15] J (a quarter of a megaton of TNT: no oscillator with a stop holds more)
ENERGY = Range("energy", "J", 0.0, 1e15, low_open=True, why="up to a quarter of a megaton of TNT")
#: an angle: [0, pi/2] rad (a tilt or a slope; beyond a right angle the block is upside down)
ANGLE = Range("angle", "rad", 0.0, math.pi / 2, why="a tilt or a slope, up to a right angle")
#: the local error bound of fem.time.stepping's coarse steps: 1e-12 m (the round-off of a metre-sized
#: body's position is 1e-16 m; below 1e-12 m every step is a fine one) to 1 cm (beyond, it bounds
#: nothing of a rocking block's motion)
STEP_TOLERANCE = Range("local error bound", "m", 1e-12, 1e-2,
                       why="from 1e-12 m, where every step is fine, to 1 cm, which bounds nothing")
#: elements along a side of a generated mesh: 1 to 1e9 (a billion along a side is a 1e18-cell mesh,
#: far beyond any memory: the resource check, which names --force, refuses much less; the bound
#: keeps the counts and their products inside double precision, where 10**400 would overflow)
ELEMENTS = Range("number of elements along a side", "", 1.0, 1e9,
                 why="a billion along a side is a 1e18-cell mesh, beyond any memory")
#: halvings of a time step (SDND101 --convergence): 0 to 50; dt / 2^50 is 1e-15 of dt, below the
#: round-off of the time t itself (2.2e-16 relative): more halvings add no distinct step
HALVINGS = Range("number of step halvings", "", 0.0, 50.0, why="dt / 2^50 is below the round-off of t")
#: worker processes of a study: 1 to 1000 (each is a process with its own memory; no machine this
#: code runs on has that many cores)
WORKERS = Range("number of worker processes", "", 1.0, 1000.0, why="each is a process; no machine here has more cores")
#: a wall-clock time limit: 1 s (a point cannot even start: importing the code takes about that) to
#: 1e6 s (eleven days)
WALL_TIME = Range("wall-clock time limit", "s", 1.0, 1e6, why="from the second a point needs to start to eleven days")


# ---- the kinds a problem file (cases/problem_file/__init__.py) and the Python API (fem.problem, contact.laws) add
#: a material's Young's modulus: 1 Pa (as YOUNG) to 1e16 Pa (as TABLE_YOUNG): a body of a problem may be
#: the rigid proxy of a support (the benchmark's table, 1e14 Pa), and nothing tells a block from a table
MATERIAL_YOUNG = Range("material's Young's modulus", "Pa", 1.0, 1e16,
                       why="from softer than any foam to a rigid support's proxy (the benchmark's table has 1e14 Pa)")
#: Code_Aster's AMOR_BETA (mass-proportional damping, zeta = beta / (2 omega)): 0 to 1e4 1/s, which damps
#: critically every mode below 800 Hz, the rocking and flight of any body many times over (the damping
#: tests take 1200 1/s)
RAYLEIGH_BETA = Range("mass-proportional damping AMOR_BETA", "1/s", 0.0, 1e4,
                      why="1e4 1/s already damps critically every mode below 800 Hz")
#: a problem's gravity: GRAVITY, or 0 (a problem of discrete masses without weight, SDND's)
GRAVITY_OR_ZERO = replace(GRAVITY, zero=True)
#: a length that may be 0 (a buckling element's plateau or fall, a residual crush)
LENGTH_OR_ZERO = replace(LENGTH, zero=True)
#: a point mass that may be 0 (a node given no mass: the file's point_masses accept it)
MASS_OR_ZERO = replace(MASS, zero=True)
#: an imposed displacement: |u| <= 10 km, the largest LENGTH (no structure is larger); any small value is
#: a displacement (0: held)
DISPLACEMENT = Range("displacement", "m", -1e4, 1e4, why="10 km either way, beyond any structure")
#: the augmented Lagrangian's COEF_CONT and COEF_FROT (factors of the slave's mean stiffness): 1e-6 to 1e6;
#: Code_Aster's default is 100, this code's 1; a million times the body's stiffness, or a millionth of it,
#: leaves the Newton system of the contact to round-off (1e-16 relative) or the contact unenforced
AUGMENTATION = Range("augmentation coefficient", "", 1e-6, 1e6,
                     why="a factor of the slave's mean stiffness; beyond a million either way the contact is lost "
                         "to round-off or not enforced")
#: a base motion's scale factor (signed: -1 turns it round): its magnitude from 1e-8 to 1e8, the ratio of
#: the largest record sample (100 g) to the ground's ambient noise (1e-6 g); 0 stills the component
SCALE = Range("scale factor", "", 1e-8, 1e8, zero=True,
              why="1e8 is the ratio of a 100 g sample to the ground's 1e-6 g ambient noise: no factor beyond it "
                  "maps a ground motion onto another")
#: Newton's relative residual tolerance RESI_GLOB_RELA: from 1e-15 (the round-off of a residual, 2.2e-16
#: relative, is never below it) to 1 (a residual as large as the load)
RELATIVE_TOLERANCE = Range("relative residual tolerance", "", 1e-15, 1.0,
                           why="from the round-off of double precision to a residual as large as the load")
#: Newton iterations of a step ITER_GLOB_MAXI: 1 to 1000 (Newton converges in a few or not at all;
#: Code_Aster's default is 10)
NEWTON_ITERATIONS = Range("number of Newton iterations", "", 1.0, 1000.0,
                          why="Newton converges in a few iterations or not at all (Code_Aster's default is 10)")
#: the largest ratio of two successive coarse event-driven steps: above 1 (steps grow) to 100 (a step a
#: hundred times the one before skips the motion that one followed)
STEP_GROWTH = Range("step growth ratio", "", 1.0, 100.0, low_open=True,
                    why="a step 100 times the one before skips the motion that one followed")
#: how many coarse steps ahead a predicted closing starts fine steps: 0 to 1000 (further ahead, a closing
#: predicted from the gap rate of one step is no prediction)
LOOKAHEAD = Range("lookahead", "coarse steps", 0.0, 1e3, why="further ahead, a closing predicted from one step "
                  "is no prediction")
#: every how many steps one is archived: 1 to 1e12 (a run takes at most a trillion steps, MIN_STEP_FRACTION)
ARCHIVE_EVERY = Range("archiving interval", "steps", 1.0, 1e12, why="a run takes at most a trillion steps")
#: the modes of a modal basis: 1 to 1e6 (the dense eigen-solve of a million modes would need terabytes)
MODES = Range("number of modes", "", 1.0, 1e6, why="a dense eigen-solve of more modes needs terabytes")

#: every range by its name, for the README and the tests
TABLE = {r.name: r for r in (LENGTH, BLOCK_SIZE, GAP, COORDINATE, DENSITY, YOUNG, TABLE_YOUNG, POISSON, FRICTION,
                             TABLE_ACCELERATION, RECORD_SAMPLE, GRAVITY, FREQUENCY, CYCLES, DURATION, INSTANT,
                             TIME_STEP, VELOCITY, SPEED, MASS, STIFFNESS, DASHPOT, RAYLEIGH_ALPHA, DAMPING_RATIO,
                             FORCE, ENERGY, ANGLE, STEP_TOLERANCE, ELEMENTS, HALVINGS, WORKERS, WALL_TIME,
                             MATERIAL_YOUNG, RAYLEIGH_BETA, DISPLACEMENT, AUGMENTATION, SCALE, RELATIVE_TOLERANCE,
                             NEWTON_ITERATIONS, STEP_GROWTH, LOOKAHEAD, ARCHIVE_EVERY, MODES)}


# ------------------------------------------------------------------------------------ checks
def check(flag: str, value, kind: Range) -> None:
    """Refuse ``value`` of ``flag`` outside ``kind`` (:class:`BadInput`); None is skipped
    (a flag not given)."""
    if value is not None:
        kind.check(flag, value)


def check_key(key: str, value, kind: Range, signed: bool = False) -> None:
    """Refuse ``value`` of the library's ``key`` (``stages.shake.duration``, ``steps.dt``) outside ``kind``:
    BadInput ``KEY: VALUE UNIT is outside the physical range ...`` (:meth:`Range.outside`; ``signed``: its
    magnitude is bounded); None is skipped."""
    if value is not None:
        what = kind.outside(value, signed)
        if what is not None:
            raise BadInput(f"{key}: {what}")


def check_abs(flag: str, value, kind: Range) -> None:
    """Refuse a signed ``value`` of ``flag`` whose magnitude lies outside ``kind`` (an amplitude
    whose sign is a direction); None is skipped."""
    if value is not None and abs(value) not in kind:
        raise BadInput(f"{flag} {number(value)}{' ' + kind.unit if kind.unit else ''}: its magnitude is outside the "
                       f"physical range {kind.interval()} of {'an' if kind.name[0] in 'aeiou' else 'a'} {kind.name}"
                       f"{': ' + kind.why if kind.why else ''}")


def check_all(items: Iterable[tuple[str, object, Range]]) -> None:
    """:func:`check` of each ``(flag, value, range)``, the first refusal raised; a tuple value (a flag
    taking several numbers) is checked number by number."""
    for flag, value, kind in items:
        if isinstance(value, (tuple, list)):
            for x in value:
                check(flag, x, kind)
        else:
            check(flag, value, kind)


def check_step(flag: str, dt: float | None, run: float | None, run_flag: str = "",
               scales: Sequence[tuple[str, float, str]] = ()) -> None:
    """Refuse a time step ``dt`` of ``flag`` that is outside :data:`TIME_STEP`, longer than the run
    it cuts (``run`` [s], named by ``run_flag``, e.g. ``"--t-end"`` or ``"the release, --t-end"``;
    None: not known yet), shorter than :data:`MIN_STEP_FRACTION` of it, or longer than a physical
    time scale the run must resolve: ``scales`` are ``(what, seconds, flags it comes from)``. A
    ``dt`` of None is skipped."""
    if dt is None:
        return
    TIME_STEP.check(flag, dt)
    if run is not None and math.isfinite(run) and run > 0:  # else the run's own range check names its flag
        if dt > run * (1.0 + 1e-12):
            raise BadInput(f"{flag} {number(dt)} s is longer than the run it cuts ({run_flag} = {number(run)} s): "
                           f"a step must not exceed the run")
        if dt < MIN_STEP_FRACTION * run:
            raise BadInput(f"{flag} {number(dt)} s is shorter than {number(MIN_STEP_FRACTION)} of the run "
                           f"({run_flag} = {number(run)} s): more than a trillion steps")
    for what, seconds, flags in scales:
        if math.isfinite(seconds) and seconds > 0 and dt > seconds * (1.0 + 1e-12):
            raise BadInput(f"{flag} {number(dt)} s is longer than {what}, {seconds:.4g} s ({flags}): a step "
                           f"must resolve it")


def check_finite(what: str, flags: str, value) -> float:
    """Refuse (naming ``flags``) a derived quantity ``what`` that is not a finite positive number;
    ``value`` may be a callable computing it (an OverflowError or a ZeroDivisionError is a refusal
    too). Returns the value."""
    try:
        x = float(value() if callable(value) else value)
    except (ArithmeticError, ValueError):
        x = math.nan
    if not (math.isfinite(x) and x > 0.0):
        raise BadInput(f"{flags}: {what} is not a finite positive number in double precision ({x!r})")
    return x


#: derived quantities are kept within these decades (well inside double precision, 1e-308 .. 1e308,
#: so that a product of two of them or a square still is a normal double)
MAGNITUDE = (-150.0, 150.0)


def check_magnitude(what: str, flags: str, factors: Sequence[tuple[float, float]]) -> float:
    """Refuse (naming ``flags``) a derived quantity ``what`` = prod x_i^p_i, ``factors`` =
    ``[(x_i, p_i)]`` with x_i > 0, whose decimal exponent, computed in logarithms (no overflow),
    lies outside :data:`MAGNITUDE`. Returns log10 of the quantity."""
    try:
        exponent = sum(p * math.log10(x) for x, p in factors)
    except (ValueError, OverflowError):  # x <= 0
        raise BadInput(f"{flags}: {what} is not a positive number") from None
    low, high = MAGNITUDE
    if not low <= exponent <= high:
        raise BadInput(f"{flags}: {what} would be about 1e{exponent:.0f}, outside 1e{low:.0f} .. 1e{high:.0f} "
                       f"(double precision holds 1e-308 .. 1e308 and the run forms its products and squares)")
    return exponent


#: the largest strain a body may take under its own weight, rho g H / E: Saint-Venant-Kirchhoff's
#: law (linear in the Green-Lagrange strain) is far from any real material beyond a few per cent
#: and loses its stiffness in compression at 42 %; 0.1 leaves rubber blocks (1e-2) in
SELF_WEIGHT_STRAIN = 0.1


def check_self_weight(flags: str, stress: float, young: float, what: str = "the block") -> None:
    """Refuse (naming ``flags``) a body whose strain under the weight it carries, ``stress`` / ``young``
    (``stress`` = rho g H of what stands on it [Pa]), exceeds :data:`SELF_WEIGHT_STRAIN`: it would
    crush under its own weight, which the elastic law cannot follow."""
    strain = stress / young
    if not strain <= SELF_WEIGHT_STRAIN:
        raise BadInput(f"{flags}: {what} would be strained by {strain:.3g} under its own weight (rho g H / E), "
                       f"more than {SELF_WEIGHT_STRAIN:g}: the elastic law cannot carry it (a stiffer --young, a "
                       f"lighter --rho or a lower block)")


def rocking_time(width: float, height: float, g: float = constants.GRAVITY) -> float:
    """The rocking time scale 1/p [s] of a rigid block of ``width`` x ``height``:
    p = sqrt(3 g / (4 R)), R = the half-diagonal (Housner 1963). A step longer than it cannot follow
    the rocking (0.244 s for SDNV105's 0.36 x 0.80 m block)."""
    R = 0.5 * math.hypot(width, height)
    return math.sqrt(4.0 * R / (3.0 * g))
