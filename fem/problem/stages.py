"""The stages of a simulation: physics only, no time step (the step is the simulation's choice,
:mod:`fem.problem.simulate`).

* :class:`Preload`: gravity ramped quasi-statically onto the bodies resting on their supports and on
  each other, to the state at rest under their weight; each pair keeps its own friction unless
  ``friction`` says otherwise.
* :class:`SelfWeight`: gravity ramped dynamically from 0 at ``start`` to full at ``ramp_end`` and held
  to ``end`` (absolute times [s]), with the run's scheme and steps: the bodies settle under their
  weight as in SDNV105's self-weight phase (Code_Aster's gravity ramp before a release).
* :class:`ImposedMotion`: displacements imposed on node groups (Code_Aster DDL_IMPO with a time
  function: SDNV105's push of the block's top corner).
* :class:`Tilt`: nodes turned rigidly about a pivot node by a ramped angle (SDNV105's exact tilt).
* :class:`Release`: the bodies let go at rest from where the stage before left them.
* every stage may carry its own ``gravity`` vector (gx, gy) [m/s^2] (a slope: gravity turned by its
  angle); without one, the problem's g along -y.
* :class:`BaseMotion`: the base (every support) moves rigidly with a horizontal and a vertical
  acceleration history together, each a closed form or a record (:mod:`fem.loads.base_motion`); the
  run is written in the base's frame (the d'Alembert load -M e_x a_x(t) - M e_y a_y(t), Code_Aster
  CALC_CHAR_SEISME MONO_APPUI), so the supports stay fixed and displacements are relative to the
  base. Without a component the bodies move freely under gravity from rest.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from fem import ranges
from fem.loads.base_motion import STANDARD_GRAVITY, MotionHistory, peak_acceleration
from fem.ranges import BadInput


def check_gravity(stage) -> None:
    """A stage's ``gravity``: None (the problem's g along -y) or a vector (gx, gy) of finite numbers
    [m/s^2] (BadInput naming the key)."""
    g = stage.gravity
    if g is None:
        return
    if isinstance(g, (str, bytes)) or not hasattr(g, "__len__") or len(g) != 2 or not all(
            isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) for c in g):
        raise BadInput(f"stages.{stage.name}.gravity: a vector (gx, gy) of finite numbers [m/s^2], got {g!r}")
    object.__setattr__(stage, "gravity", (float(g[0]), float(g[1])))
    what = ranges.GRAVITY_OR_ZERO.outside(math.hypot(*stage.gravity))
    if what is not None:
        raise BadInput(f"stages.{stage.name}.gravity: its magnitude {what}")


def check_friction(stage) -> None:
    """A stage's ``friction``: None or a finite number >= 0 (BadInput naming the key)."""
    f = stage.friction
    if f is not None and (isinstance(f, bool) or not isinstance(f, (int, float)) or not (math.isfinite(f) and f >= 0)):
        raise BadInput(f"stages.{stage.name}.friction: a number >= 0, got {f!r}")
    ranges.check_key(f"stages.{stage.name}.friction", f, ranges.FRICTION)


def check_times(stage, keys) -> None:
    """The instants ``keys`` of a stage (finite numbers, checked before) within fem.ranges.INSTANT."""
    for key in keys:
        ranges.check_key(f"stages.{stage.name}.{key}", getattr(stage, key), ranges.INSTANT)


def _ramp_times(key: str, function) -> None:
    """The times of a piecewise-linear ramp (fem.loads.functions.PiecewiseLinear) within fem.ranges.INSTANT."""
    for t in getattr(function, "times", ()):
        ranges.check_key(f"{key}.times", t, ranges.INSTANT)


def _largest(function) -> float | None:
    """max |value| of a piecewise-linear ramp (its points; linear between, constant outside), None for
    another function."""
    values = getattr(function, "values", None)
    return max(abs(v) for v in values) if values else None


@dataclass(frozen=True)
class Preload:
    """Gravity ramped quasi-statically from 0 at t = -duration to its full value at -duration / 2,
    then held to t = 0, in ``steps`` static increments (the time is a load parameter only).

    friction : Coulomb coefficient of every pair during the preload (None: each pair's own; 0 makes
        the preload frictionless and leaves a stack's horizontal motion free: hold a node of each
        body with ``hold``, as SDNV105 holds DX(O1)).
    hold : supports of the preload only (:class:`fem.problem.Support`: a group, its components).
    newton : the preload's Newton settings (fem.stage.phase.NewtonSettings; None: the simulation's)."""

    steps: int = 5
    friction: float | None = None
    duration: float = 1.0
    hold: tuple = ()
    newton: object = None
    name: str = "preload"
    gravity: tuple | None = None

    def __post_init__(self) -> None:
        check_gravity(self)
        object.__setattr__(self, "hold", tuple(self.hold))
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or not 1 <= self.steps <= 1000:
            raise BadInput(f"stages.{self.name}.steps: an integer from 1 to 1000, got {self.steps!r}")
        check_friction(self)
        if isinstance(self.duration, bool) or not isinstance(self.duration, (int, float)) \
                or not (math.isfinite(self.duration) and self.duration > 0):
            raise BadInput(f"stages.{self.name}.duration: a finite number > 0, got {self.duration!r}")
        ranges.check_key(f"stages.{self.name}.duration", self.duration, ranges.DURATION)


@dataclass(frozen=True)
class BaseMotion:
    """The base moving with accelerations ``x(t)`` (horizontal) and ``y(t)`` (vertical, + up)
    [m/s^2] from t = 0 to ``duration`` [s]; a component left None is still.

    x, y : :class:`fem.loads.base_motion.MotionHistory` (Harmonic, SinePulse, CosinePulse, Ramp,
        Record, Scaled) or None.  newton : this stage's Newton settings (fem.stage.phase.NewtonSettings;
        None: the run's).  contact_events : when its multiplier contacts close and open,
        "immediate" (Code_Aster's) or "located" (the step cut at the instant; contact.multipliers), None:
        as the stage before left them (at first the law's own: located when the slave nodes are massless)."""

    duration: float
    x: MotionHistory | None = None
    y: MotionHistory | None = None
    name: str = "base motion"
    gravity: tuple | None = None
    newton: object = None
    contact_events: str | None = None

    def __post_init__(self) -> None:
        check_gravity(self)
        check_contact_events(self)
        if isinstance(self.duration, bool) or not isinstance(self.duration, (int, float)) \
                or not (math.isfinite(self.duration) and self.duration > 0):
            raise BadInput(f"stages.{self.name}.duration: a finite number > 0 s, got {self.duration!r}")
        ranges.check_key(f"stages.{self.name}.duration", self.duration, ranges.DURATION)
        for c in ("x", "y"):
            h = getattr(self, c)
            if h is not None and not hasattr(h, "acceleration"):
                raise BadInput(f"stages.{self.name}.{c}: a base-motion history (fem.loads.base_motion), got {h!r}")
            peak = None if h is None else peak_acceleration(h)  # a record built or scaled by hand: its 100 g
            if peak is not None and not peak / STANDARD_GRAVITY <= ranges.RECORD_SAMPLE.high:
                kind = ranges.RECORD_SAMPLE
                raise BadInput(f"stages.{self.name}.{c}: its peak acceleration, {ranges.short(peak / STANDARD_GRAVITY)} g, is "
                               f"outside the physical range {kind.interval()} of a {kind.name}: no ground motion "
                               f"reaches it")

    def components(self) -> tuple[tuple[str, MotionHistory], ...]:
        """(component, history) for each moving component."""
        return tuple((c, h) for c, h in (("x", self.x), ("y", self.y)) if h is not None)

    def acceleration(self, t: float) -> tuple[float, float]:
        """(a_x, a_y) of the base at time t [m/s^2]."""
        return tuple(float(h.acceleration(t)) if h is not None else 0.0 for h in (self.x, self.y))


@dataclass(frozen=True)
class SelfWeight:
    """Gravity ramped dynamically from 0 at ``start`` to its full value at ``ramp_end``, then held to
    ``end`` (absolute times [s]; start < ramp_end, start < end: a stage may end before its ramp does);
    ``hold``: supports of this stage only; ``friction``, ``newton``, ``contact_events``: as :class:`ImposedMotion`. It starts
    the run (from rest at ``start``) or continues the stage before it."""

    start: float
    ramp_end: float
    end: float
    hold: tuple = ()
    name: str = "self-weight"
    friction: float | None = None
    newton: object = None
    gravity: tuple | None = None
    contact_events: str | None = None

    def __post_init__(self) -> None:
        check_gravity(self)
        check_contact_events(self)
        object.__setattr__(self, "hold", tuple(self.hold))
        for key in ("start", "ramp_end", "end"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise BadInput(f"stages.{self.name}.{key}: a finite number [s], got {value!r}")
        check_times(self, ("start", "ramp_end", "end"))
        check_friction(self)
        if not (self.start < self.ramp_end and self.start < self.end):
            raise BadInput(f"stages.{self.name}: start before ramp_end and before end [s] needed, got start "
                           f"{self.start!r}, ramp_end {self.ramp_end!r}, end {self.end!r}")

    @property
    def duration(self) -> float:
        return self.end - self.start

    def components(self) -> tuple:
        """No base motion."""
        return ()

    def acceleration(self, t: float) -> tuple[float, float]:
        return 0.0, 0.0


#: when a stage's multiplier contacts (Lagrange, augmented) close and open (contact.multipliers): "immediate",
#: Code_Aster's, at the end of the step where it happens; "located", the step cut at the landing or the lift
CONTACT_EVENTS = ("immediate", "located")


def check_contact_events(stage) -> None:
    """``contact_events``: None (the rules the stage before left, at first the pair's law's own: located when
    its slave nodes are massless) or one of :data:`CONTACT_EVENTS`."""
    events = stage.contact_events
    if events is not None and events not in CONTACT_EVENTS:
        raise BadInput(f"stages.{stage.name}.contact_events: {events!r} is not one of {', '.join(CONTACT_EVENTS)}")


def _check_common(stage, keys=("end",)) -> None:
    """The checks the later stages share: finite times, friction >= 0, hold a tuple."""
    object.__setattr__(stage, "hold", tuple(getattr(stage, "hold", ())))
    for key in keys:
        value = getattr(stage, key)
        if value is None and key == "start":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise BadInput(f"stages.{stage.name}.{key}: a finite number [s], got {value!r}")
    check_times(stage, keys)
    check_friction(stage)
    check_contact_events(stage)
    if getattr(stage, "start", None) is not None and not stage.start < stage.end:
        raise BadInput(f"stages.{stage.name}: start before end [s] needed, got start {stage.start!r}, end {stage.end!r}")


@dataclass(frozen=True)
class ImposedMotion:
    """Displacements imposed on node groups to ``end`` [s] (absolute time): ``motions`` are
    :class:`fem.loads.applied.ImposedDisplacement` (group, component, value, function: u = value *
    function(t), Code_Aster DDL_IMPO with its multiplier function), ``hold`` more supports of this
    stage only; gravity full, the bodies' other nodes free.

    start : None: the stage continues the one before; a time [s]: it restarts from the state the stage
        before reached at that time, one of its step times (Code_Aster's ETAT_INIT with INST: the stage
        before may go on past it for its own record, as SDNV105's self-weight does).
    friction : every pair's Coulomb coefficient during the stage (None: each pair's own).
    newton : the stage's Newton settings (fem.stage.phase.NewtonSettings; None: the simulation's).
    contact_events : when the multiplier pairs (Lagrange, augmented) close and open during the stage:
        "immediate" (Code_Aster's: at the end of the step where it happens) or "located" (the step cut at
        the landing or the lift, so that no event gives energy back; contact.multipliers); None: as the
        stage before left them, at first the law's own (located when the slave nodes are massless)."""

    end: float
    motions: tuple = ()
    start: float | None = None
    hold: tuple = ()
    friction: float | None = None
    newton: object = None
    name: str = "imposed motion"
    gravity: tuple | None = None
    contact_events: str | None = None

    def __post_init__(self) -> None:
        check_gravity(self)
        object.__setattr__(self, "motions", tuple(self.motions))
        _check_common(self, ("start", "end"))
        for i, m in enumerate(self.motions):
            if not (hasattr(m, "group") and hasattr(m, "component") and callable(getattr(m, "function", None))):
                raise BadInput(f"stages.{self.name}.motions[{i}]: an ImposedDisplacement (fem.loads.applied), got {m!r}")
            key, value = f"stages.{self.name}.motions[{i}]", getattr(m, "value", None)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                ranges.check_key(f"{key}.value", value, ranges.DISPLACEMENT)
                _ramp_times(f"{key}.ramp", m.function)
                largest = _largest(m.function)
                if largest is not None and abs(value) * largest not in ranges.DISPLACEMENT:
                    kind = ranges.DISPLACEMENT
                    raise BadInput(f"{key}.ramp.values: its largest value {ranges.number(largest)} takes the value "
                                   f"{ranges.number(value)} m to {ranges.short(abs(value) * largest)} m, outside the physical "
                                   f"range {kind.interval()} of a {kind.name}: {kind.why}")


@dataclass(frozen=True)
class Tilt:
    """The nodes of the groups ``nodes`` turned rigidly about the node ``pivot`` by theta(t) = angle *
    ramp(t) [rad, counter-clockwise] from their positions at the stage's start, both components
    imposed (fem.loads.applied.RigidRotation); the rest of the bodies follows elastically under full
    gravity; to ``end`` [s]. Two nodes of a body (a top corner and a base node other than the pivot)
    fix its rotation and position: a block tilted onto its corner from rest, as SDNV105's exact rule.

    ramp : t -> [0, 1] with ramp = 0 at the stage's start (fem.loads.functions.PiecewiseLinear).
    start, hold, friction, newton, contact_events : as :class:`ImposedMotion`."""

    end: float
    angle: float
    nodes: tuple
    pivot: str
    ramp: object
    start: float | None = None
    hold: tuple = ()
    friction: float | None = None
    newton: object = None
    name: str = "tilt"
    gravity: tuple | None = None
    contact_events: str | None = None

    def __post_init__(self) -> None:
        check_gravity(self)
        object.__setattr__(self, "nodes", tuple([self.nodes] if isinstance(self.nodes, str) else self.nodes))
        _check_common(self, ("start", "end"))
        if isinstance(self.angle, bool) or not isinstance(self.angle, (int, float)) \
                or not (math.isfinite(self.angle) and abs(self.angle) < math.pi / 2):
            raise BadInput(f"stages.{self.name}.angle: a number of radians in (-pi/2, pi/2), got {self.angle!r}")
        if not self.nodes or not all(isinstance(n, str) for n in self.nodes):
            raise BadInput(f"stages.{self.name}.nodes: node group names, got {self.nodes!r}")
        if not callable(self.ramp):
            raise BadInput(f"stages.{self.name}.ramp: a function of time (fem.loads.functions), got {self.ramp!r}")
        _ramp_times(f"stages.{self.name}.ramp", self.ramp)
        largest = _largest(self.ramp)
        if largest is not None and abs(self.angle) * largest not in ranges.ANGLE:
            kind = ranges.ANGLE
            raise BadInput(f"stages.{self.name}.ramp.values: its largest value {ranges.number(largest)} turns the angle "
                           f"{ranges.number(self.angle)} rad to {ranges.short(abs(self.angle) * largest)} rad, outside the "
                           f"physical range {kind.interval()} of an {kind.name}: {kind.why}")


@dataclass(frozen=True)
class Release:
    """The bodies let go from the displacements the stage before left (that stage's imposed motions and
    holds dropped; the energy books start over), free under gravity on their supports to ``end`` [s]
    (SDNV105's release).

    velocity : node or cell group -> (vx, vy) [m/s] given to its nodes (the others at rest): a body
        launched (SDND101's x'(0) = v0, a bar thrown at a wall).
    acceleration : "equilibrium": from M a = f_ext - f_int - f_contact with the contact forces of the
        stage before (a block let go from a tilt); "zero": at rest with zero acceleration (a block on a
        slope, whose friction is about to act: the stage before's frictionless contact forces would
        give it g sin(beta) at once).
    start : None: the stage continues the one before; a time [s]: from rest on the undeformed mesh
        when it is the first stage, else from the stage before's state at that time.
    friction, newton, contact_events : as :class:`ImposedMotion`."""

    end: float
    friction: float | None = None
    newton: object = None
    name: str = "release"
    gravity: tuple | None = None
    velocity: Mapping = field(default_factory=dict)
    acceleration: str = "equilibrium"
    start: float | None = None
    contact_events: str | None = None

    def __post_init__(self) -> None:
        check_gravity(self)
        _check_common(self, ("start", "end"))
        if self.acceleration not in ("equilibrium", "zero"):
            raise BadInput(f"stages.{self.name}.acceleration: 'equilibrium' or 'zero', got {self.acceleration!r}")
        for group, v in dict(self.velocity).items():
            if not (isinstance(group, str) and hasattr(v, "__len__") and len(v) == 2 and all(
                    isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) for c in v)):
                raise BadInput(f"stages.{self.name}.velocity: group -> (vx, vy) in m/s, got {group!r}: {v!r}")
            for c in v:
                ranges.check_key(f"stages.{self.name}.velocity.{group}", c, ranges.VELOCITY)
