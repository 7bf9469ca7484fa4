"""The physics of each stage as the phase a step controller marches (fem.time.march): loads, supports,
imposed motions, friction and Newton settings; the state a stage starts from and the time it ends at.

* a preload: gravity ramped over static steps (:func:`preload_phase`);
* a self-weight stage: gravity ramped dynamically; a base motion: the base's d'Alembert loads;
* an imposed motion: the stage's DDL_IMPO; a tilt: the rigid rotation of its nodes from where the
  stage starts (fem.loads.applied.RigidRotation); a release: from rest where the stage before left;
* every dynamic stage: the problem's supports and the stage's holds, full gravity unless ramped.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fem import ranges
from fem.loads.applied import Gravity, ImposedDisplacement, RigidRotation
from fem.loads.base_motion import table_frame_load
from fem.loads.functions import PiecewiseLinear
from fem.problem.definition import Assembled, need_group
from fem.problem.stages import BaseMotion, ImposedMotion, Preload, Release, SelfWeight, Tilt
from fem.problem.steps import CentralDifferences, Uniform, check_event_steps
from fem.ranges import BadInput
from fem.stage.phase import NewtonSettings, Phase, State
from fem.stage.schemes import Static
from fem.time.stepping import EventSteps

#: every stage type a simulation runs, and those that integrate the dynamics
STAGES = (Preload, SelfWeight, BaseMotion, ImposedMotion, Tilt, Release)
DYNAMIC = (SelfWeight, BaseMotion, ImposedMotion, Tilt, Release)
#: the stages that may restart from the stage before's state at their ``start``
RESTARTING = (ImposedMotion, Tilt, Release)


def default_newton(assembled: Assembled) -> NewtonSettings:
    """Code_Aster's RESI_GLOB_RELA 1e-6 with RESI_GLOB_MAXI 2e-6 of the bodies' weight (8e-3 N for
    SDNV105's 4 kN block, the shaking table's setting)."""
    weight = assembled.body_weight()
    return NewtonSettings(rela=1e-6, maxi=2e-6 * weight if weight > 0 else None, max_iterations=40)


def supports(supports) -> tuple[ImposedDisplacement, ...]:
    """The supports (fem.problem.Support) as imposed zero displacements."""
    return tuple(ImposedDisplacement(s.group, c) for s in supports for c in s.components)


def stage_gravity(assembled: Assembled, stage) -> tuple[float, float]:
    """The gravity of a stage [m/s^2]: its own ``gravity`` vector (a slope: gravity turned by the
    slope's angle) or the problem's g along -y."""
    own = getattr(stage, "gravity", None)
    return (0.0, -assembled.problem.gravity) if own is None else (float(own[0]), float(own[1]))


def preload_phase(assembled: Assembled, stage: Preload) -> Phase:
    """Gravity from 0 at t = -duration to its full value at -duration / 2, held to 0 (static steps)."""
    ramp = PiecewiseLinear((-stage.duration, -stage.duration / 2), (0.0, 1.0))
    newton = stage.newton or NewtonSettings(rela=1e-6, maxi=default_newton(assembled).maxi, max_iterations=40)
    return Phase(stage.name, -stage.duration, 0.0, stage.duration / stage.steps, Static(),
                 gravity=Gravity(stage_gravity(assembled, stage), ramp),
                 constraints=supports(assembled.problem.supports + stage.hold),
                 friction=stage.friction, newton=newton)


def check_stages(stages, continued: bool = False) -> tuple:
    """The stages as a tuple; BadInput for stages that are no list of them (a stage alone, a string), a
    stage of no known kind, a preload after the first stage, or a first stage that does not say when it
    starts (unless it ``continued`` a state given)."""
    try:
        if isinstance(stages, (str, bytes, *STAGES)):
            raise TypeError
        stages = tuple(stages)
    except TypeError:
        raise BadInput(f"stages: expected a list of stages (e.g. [Preload(), BaseMotion(...)]), got "
                       f"{type(stages).__name__}") from None
    if not stages:
        raise BadInput("stages: at least one stage")
    for i, s in enumerate(stages):
        if not isinstance(s, STAGES):
            raise BadInput(f"stages[{i}]: a Preload, SelfWeight, BaseMotion, ImposedMotion, Tilt or Release, "
                           f"got {type(s).__name__}")
        if isinstance(s, Preload) and i != 0:
            raise BadInput(f"stages[{i}]: a preload comes first (it starts from the unloaded mesh)")
    first = stages[0]
    if not continued and isinstance(first, (Release, ImposedMotion, Tilt)) and first.start is None:
        raise BadInput(f"stages.{first.name}: the first stage must say when it starts (a {type(first).__name__} "
                       f"continues the stage before it)")
    for before, s in zip(stages, stages[1:]):
        if getattr(s, "start", None) is not None and isinstance(s, RESTARTING) and not isinstance(before, DYNAMIC):
            raise BadInput(f"stages.{s.name}.start: a restart needs a dynamic stage before it, got "
                           f"{type(before).__name__}")
        if getattr(s, "start", None) is not None and isinstance(before, (SelfWeight, *RESTARTING)) \
                and before.start is not None and not before.start < s.start <= before.end:
            raise BadInput(f"stages.{s.name}.start: {s.start!r} s is not inside the stage before it "
                           f"({before.start!r} to {before.end!r} s)")
    return stages


def check_groups(assembled: Assembled, stages, settings=None) -> None:
    """Refuse (BadInput naming the key) a stage's group the mesh does not have: holds, imposed motions,
    a tilt's nodes and pivot (groups of one node); contact events stated where no pair has any; a steps spec named for no stage; with ``settings``
    (fem.problem.simulate.Settings), a step that does not fit its stage (:func:`check_steps`)."""
    mesh = assembled.mesh
    for s in stages:
        for key, groups in (("hold", [h.group for h in getattr(s, "hold", ())]),
                            ("velocity", list(dict(getattr(s, "velocity", {})))),
                            ("motions", [m.group for m in getattr(s, "motions", ())])):
            for g in groups:
                need_group(mesh, f"stages.{s.name}.{key}", g, (2, 1, 0))
        if isinstance(s, Tilt):
            _one_node(assembled, f"stages.{s.name}.pivot", s.pivot)
            for g in s.nodes:
                _one_node(assembled, f"stages.{s.name}.nodes", g)
        if getattr(s, "contact_events", None) is not None and not any(hasattr(t, "closing") for t in assembled.terms):
            raise BadInput(f"stages.{s.name}.contact_events: no pair has contact events to place (only Lagrange and "
                           f"augmented pairs have: a penalty spring acts on the penetration as it is)")
    watched = getattr(settings, "energy_creation", None)
    if watched is not None:
        for p, term in zip(assembled.problem.pairs, assembled.terms):
            if not (hasattr(term, "closing") or hasattr(term, "stored_energy")):
                raise BadInput(f"energy_creation: the pair {p.label!r} stores energy the watch cannot count (its law "
                               f"gives back what it stored): leave energy_creation out, or state that pair with "
                               f"another law")
        unknown = sorted(set(watched.stages or ()) - {s.name for s in stages})
        if unknown:
            raise BadInput(f"energy_creation.stages: {unknown[0]!r} names no stage; the stages are "
                           f"{', '.join(repr(s.name) for s in stages)}")
    named = getattr(settings, "steps", None)
    if isinstance(named, Mapping):
        unknown = sorted(set(named) - {s.name for s in stages})
        if unknown:
            raise BadInput(f"steps: {unknown[0]!r} names no stage; the stages are "
                           f"{', '.join(repr(s.name) for s in stages)}")
    if callable(getattr(settings, "steps_for", None)):
        check_steps(stages, settings.steps_for, isinstance(named, Mapping))


def check_steps(stages, spec_for, named: bool) -> None:
    """Refuse (BadInput naming ``steps.dt``, or ``steps.STAGE.dt`` when each stage has its own spec:
    ``named``) the steps of a dynamic stage: an EventSteps' numbers outside their physical ranges
    (fem.problem.steps.check_event_steps), and a step (Uniform, EventSteps, CentralDifferences) longer
    than the stage it cuts or shorter than fem.ranges.MIN_STEP_FRACTION of it (a trillion steps), as
    fem.ranges.check_step refuses a case's; ``spec_for(name)``: the spec of the stage named ``name``."""
    t = 0.0
    for s in stages:
        if isinstance(s, Preload):
            t = 0.0
            continue
        start = s.start if getattr(s, "start", None) is not None else t
        t = end = stage_end(s, start)
        spec, key = spec_for(s.name), f"steps.{s.name}" if named else "steps"
        if isinstance(spec, EventSteps):
            check_event_steps(spec, key)
        if not isinstance(spec, (EventSteps, Uniform, CentralDifferences)):
            continue  # Windows: each row its own window; a case's spec: its own checks
        dt, length = spec.dt, end - start
        span = (f"its duration, {ranges.number(length)} s" if isinstance(s, BaseMotion) else
                f"{ranges.number(length)} s, from {ranges.number(start)} to {ranges.number(end)} s")
        if dt > length * (1.0 + 1e-12):
            raise BadInput(f"{key}.dt: {ranges.number(dt)} s is longer than the stage {s.name!r} it cuts ({span}): "
                           f"a step must not exceed its stage")
        if dt < ranges.MIN_STEP_FRACTION * length:
            raise BadInput(f"{key}.dt: {ranges.number(dt)} s is shorter than {ranges.number(ranges.MIN_STEP_FRACTION)} "
                           f"of the stage {s.name!r} it cuts ({span}): more than a trillion steps")


def first_time(stage) -> float:
    """The time [s] the first stage starts at."""
    if isinstance(stage, Preload):
        return -stage.duration
    return stage.start if isinstance(stage, (SelfWeight, *RESTARTING)) else 0.0


def stage_end(stage, t_start: float) -> float:
    """The time [s] a dynamic stage starting at ``t_start`` ends at."""
    return t_start + stage.duration if isinstance(stage, BaseMotion) else stage.end


def planned_end(stages) -> float:
    """The time [s] the stages end at: a preload ends at 0, a base motion ``duration`` after the stage
    before it, the others at their ``end``."""
    t = 0.0
    for s in stages:
        t = 0.0 if isinstance(s, Preload) else stage_end(s, t)
    return t


def release_state(assembled: Assembled, stage: Release, state: State) -> State:
    """The state a Release starts from: ``state``'s displacements, its velocities those the stage gives
    its groups (zero elsewhere), its acceleration zero or to be found from equilibrium (``None``)."""
    mesh, n = assembled.mesh, assembled.model.n_dofs
    v = np.zeros(n)
    for group, (vx, vy) in dict(stage.velocity).items():
        nodes = mesh.nodes(group) if group in mesh.node_groups else np.unique(mesh.cell_groups[group].connectivity)
        v[2 * nodes], v[2 * nodes + 1] = vx, vy
    a = np.zeros(n) if stage.acceleration == "zero" else None
    return State(t=state.t, u=state.u.copy(), v=v, a=a)


def _one_node(assembled: Assembled, key: str, group: str) -> int:
    mesh = assembled.mesh
    need_group(mesh, key, group, (0,))
    nodes = mesh.nodes(group)
    if nodes.size != 1:
        raise BadInput(f"{key}: {group!r} must be a group of one node, it has {nodes.size}")
    return int(nodes[0])


def tilt_motions(assembled: Assembled, stage: Tilt, state: State) -> tuple[ImposedDisplacement, ...]:
    """Both components of each node of ``stage.nodes`` turned rigidly about the pivot's position in
    ``state`` from the node's own position in ``state`` (fem.loads.applied.RigidRotation)."""
    points, u = assembled.mesh.points[:, :2], state.u.reshape(-1, 2)
    o = _one_node(assembled, f"stages.{stage.name}.pivot", stage.pivot)
    pivot = tuple(float(x) for x in points[o] + u[o])
    motions = []
    for group in stage.nodes:
        k = _one_node(assembled, f"stages.{stage.name}.nodes", group)
        reference, position = tuple(float(x) for x in points[k]), tuple(float(x) for x in points[k] + u[k])
        motions += [ImposedDisplacement(group, axis, 1.0, RigidRotation(reference, position, pivot, stage.angle, c,
                                                                        stage.ramp))
                    for c, axis in enumerate("xy")]
    return tuple(motions)


def dynamic_phase(assembled: Assembled, stage, state: State, newton: NewtonSettings, scheme) -> Phase:
    """The phase of a dynamic stage starting from ``state`` (its time is the stage's start): gravity
    (ramped for a self-weight stage), the base's d'Alembert loads, the problem's supports, the stage's
    holds and imposed motions, its friction, ``newton`` unless the stage has its own; ``scheme`` is
    the first step's (the controller chooses each step's)."""
    problem = assembled.problem
    g = stage_gravity(assembled, stage)
    t_start = state.t
    gravity = (Gravity(g, PiecewiseLinear((stage.start, stage.ramp_end), (0.0, 1.0)))
               if isinstance(stage, SelfWeight) else Gravity(g))
    inertial = (tuple(table_frame_load(h, c, start=t_start) for c, h in stage.components())
                if isinstance(stage, BaseMotion) else ())
    imposed = (stage.motions if isinstance(stage, ImposedMotion) else
               tilt_motions(assembled, stage, state) if isinstance(stage, Tilt) else ())
    held = supports(problem.supports + getattr(stage, "hold", ())) + imposed
    t_end = stage_end(stage, t_start)
    return Phase(stage.name, t_start, t_end, t_end - t_start, scheme, gravity=gravity, inertial=inertial,
                 constraints=held, friction=getattr(stage, "friction", None),
                 contact_events=getattr(stage, "contact_events", None),
                 newton=getattr(stage, "newton", None) or newton)
