"""simulate(problem, stages) -> Outcome: a user's problem run through its stages, watched, recorded.

    outcome = simulate(problem, [Preload(), BaseMotion(10.0, x=record_x, y=record_y)],
                       out="results/mine", steps=EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7))

The time step is the simulation's, not the stages': ``steps`` is :class:`Uniform` (every step
``dt``) or :class:`fem.time.stepping.EventSteps` (fine steps around contact events, coarse ones in
smooth motion). The scheme is Newmark/HHT (``alpha``, 0: the average acceleration rule) for
position-level laws, Moreau–Jean (``theta``) for the velocity-level law.

:func:`run_stages` integrates assembled stages into a folder and returns the :class:`Outcome`; a case
with a lifecycle of its own calls it with its observers (more history columns), monitors (more
reasons to stop) and settings. :func:`simulate` wraps it in the run lifecycle of every case
(fem.run.lifecycle) when given ``out``: the folder claimed
(another live run's folder, or one that holds files no run wrote listed, is refused), ``summary.json``
``running`` at the start and its final status last, histories written as the run goes
(``preload_history.csv``, ``history.csv``: time, per-body rotation and rate, per-pair closed nodes,
largest gap, normal force and friction demand, base accelerations, every energy term),
``report.md``, ParaView series with ``paraview=True``. A failed run (Newton, a singular system) comes
back with ``status`` "failed" and its message, everything up to it on disk; Ctrl-C or SIGTERM writes
``status: interrupted`` and raises on.
"""
from __future__ import annotations

import math
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from fem.io.recorder import RunRecorder, record_steps, rows_as_arrays
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.loads.base_motion import table_frame_load
from fem.loads.functions import PiecewiseLinear
from fem.problem.definition import Assembled, Problem, assemble
from fem.problem.observe import BodyRotation, BodyWatch, PairWatch, energy_books
from fem.problem.report import write_report
from fem.problem.stages import BaseMotion, Preload, SelfWeight
from fem.ranges import BadInput
from fem.run.lifecycle import Run, prepare_output
from fem.stage.phase import ConvergenceError, NewtonSettings, Phase, SingularSystemError, State
from fem.stage.schemes import HHT, Static, Theta
from fem.time.dynamics import integrate
from fem.time.interrupt import Interrupted
from fem.time.march import UniformSteps, march
from fem.time.stepping import EventSteps, run_with_events

#: the energy books must close to this fraction of the input (or of the largest kinetic energy)
ENERGY_LIMIT = 0.01


@dataclass(frozen=True)
class Uniform:
    """Uniform steps of ``dt`` [s]; every ``archive_every``-th step archived (ParaView)."""

    dt: float
    archive_every: int = 10

    def __post_init__(self) -> None:
        if isinstance(self.dt, bool) or not (isinstance(self.dt, (int, float)) and math.isfinite(self.dt) and self.dt > 0):
            raise BadInput(f"steps.dt: a finite number > 0 s, got {self.dt!r}")
        if isinstance(self.archive_every, bool) or not (isinstance(self.archive_every, int) and self.archive_every >= 1):
            raise BadInput(f"steps.archive_every: an integer >= 1, got {self.archive_every!r}")


@dataclass
class Outcome:
    """What a simulation did.

    status : "complete", "failed" or "interrupted".  message : why it stopped early (None if complete).
    stage : the stage it stopped in (the last one when complete).  interrupted : the signal's exception;
    error : the failure's (a case re-raises them into its own lifecycle).  state : the last State.
    t_reached : the last converged time [s].  history : the last stage's columns (name -> (n,) array).
    bodies : label -> {"max_rotation" [rad], "overturned" (True, False or None: undecided),
        "overturned_at" [s] or None, "limit" [rad]}.
    pairs : label -> {"max_gap" [m], "impacts" (count)}.  impacts : every impact in time order.
    energy : the books of the last dynamic stage (fem.problem.observe.energy_books).
    checks : graded rows (the energy books within ENERGY_LIMIT).  stats : steps, Newton iterations,
    step cuts, wall time [s].  spans : the fine spans of event-driven steps.  out : the output folder
    (None: nothing kept).  warnings : the mesh checks'.
    """

    status: str
    message: str | None
    t_reached: float | None
    history: dict = field(default_factory=dict)
    bodies: dict = field(default_factory=dict)
    pairs: dict = field(default_factory=dict)
    impacts: list = field(default_factory=list)
    energy: dict = field(default_factory=dict)
    checks: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    out: Path | None = None
    warnings: tuple = ()
    stage: str | None = None
    spans: list = field(default_factory=list)
    interrupted: BaseException | None = None
    state: object = None  # the last converged State (fem.stage.phase)
    error: BaseException | None = None  # the Newton failure or singular system that failed the run

    def summary(self) -> dict:
        """The JSON-able part (summary.json)."""
        return {"t_reached": self.t_reached, "bodies": self.bodies, "pairs": self.pairs, "impacts": self.impacts,
                "energy": self.energy, "checks": self.checks, "run": self.stats,
                "mesh_warnings": list(self.warnings)}


@dataclass(frozen=True)
class Settings:
    """How the stages are integrated (:func:`run_stages`).

    steps : Uniform or EventSteps.  alpha, alpha_fine : HHT alpha of the coarse and of the fine steps
    (event-driven steps; alpha_fine None: alpha).  theta : Moreau–Jean.  newton : the dynamic stages'
    Newton settings (None: RESI_GLOB_RELA 1e-6, RESI_GLOB_MAXI 2e-6 of the bodies' weight).
    paraview : the mesh series.  probes : node quantities in the histories (fem.io.recorder.NodeProbe).
    kinetic_group : the region whose kinetic energy is the ``ke`` column (None: all).
    observers : objects with ``columns()`` and ``observe(result) -> dict``, more history columns.
    monitors : ``monitor(result)`` after each step: False or None goes on; True stops the run there as
        its physics decided (status complete, like an overturning); a string stops it early for that
        reason (status "interrupted", the string its message: fem.problem.observe.WallClock).
    on_archived : ``f(t, u)`` after each archived step of a dynamic stage (a contact point series).
    body_watches : the :class:`fem.problem.observe.BodyWatch` es to follow and stop at (None: one per
        body of the problem, its best-fit rotation against its overturning angle).
    step_bodies : the cell groups whose rigid motion bounds the coarse event-driven steps
        (fem.time.stepping; None: every body that holds no support)."""

    steps: object = None
    alpha: float = 0.0
    alpha_fine: float | None = None
    theta: float = 0.55
    newton: NewtonSettings | None = None
    paraview: bool = False
    probes: tuple = ()
    kinetic_group: str | None = None
    observers: tuple = ()
    monitors: tuple = ()
    on_archived: Callable | None = None
    body_watches: tuple | None = None
    step_bodies: tuple | None = None

    def __post_init__(self) -> None:
        if self.steps is None:
            object.__setattr__(self, "steps", EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7))
        if not isinstance(self.steps, (Uniform, EventSteps)):
            raise BadInput(f"steps: Uniform or EventSteps, got {type(self.steps).__name__}")
        for name in ("alpha", "alpha_fine", "theta"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise BadInput(f"{name}: a number, got {value!r}")
        for name in ("alpha", "alpha_fine"):
            value = getattr(self, name)
            if value is not None and not -1.0 / 3.0 <= value <= 0.0:
                raise BadInput(f"{name}: HHT alpha lies in [-1/3, 0], got {value!r}")
        if not 0.5 <= self.theta <= 1.0:
            raise BadInput(f"theta: the Moreau-Jean theta lies in [1/2, 1], got {self.theta!r}")


def _newton(assembled: Assembled) -> NewtonSettings:
    """Code_Aster's RESI_GLOB_RELA 1e-6 with RESI_GLOB_MAXI 2e-6 of the bodies' weight (8e-3 N for
    SDNV105's 4 kN block, the shaking table's setting)."""
    weight = assembled.body_weight()
    return NewtonSettings(rela=1e-6, maxi=2e-6 * weight if weight > 0 else None, max_iterations=40)


def _supports(supports) -> tuple[ImposedDisplacement, ...]:
    return tuple(ImposedDisplacement(s.group, c) for s in supports for c in s.components)


def _preload_phase(assembled: Assembled, stage: Preload) -> Phase:
    """Gravity from 0 at t = -duration to its full value at -duration / 2, held to 0 (static steps)."""
    g = assembled.problem.gravity
    ramp = PiecewiseLinear((-stage.duration, -stage.duration / 2), (0.0, 1.0))
    newton = stage.newton or NewtonSettings(rela=1e-6, maxi=_newton(assembled).maxi, max_iterations=40)
    return Phase(stage.name, -stage.duration, 0.0, stage.duration / stage.steps, Static(),
                 gravity=Gravity((0.0, -g), ramp), constraints=_supports(assembled.problem.supports + stage.hold),
                 friction=stage.friction, newton=newton)


def _check_stages(stages) -> tuple:
    stages = tuple(stages)
    if not stages:
        raise BadInput("stages: at least one stage")
    for i, s in enumerate(stages):
        if not isinstance(s, (Preload, BaseMotion, SelfWeight)):
            raise BadInput(f"stages[{i}]: a Preload, a SelfWeight or a BaseMotion, got {type(s).__name__}")
        if isinstance(s, Preload) and i != 0:
            raise BadInput(f"stages[{i}]: a preload comes first (it starts from the unloaded mesh)")
    return stages


def simulate(problem: Problem, stages: Sequence, *, out: str | Path | None = None, quiet: bool = True,
             case: str = "problem", command: str | None = None, parameters: dict | None = None,
             **settings) -> Outcome:
    """Run ``problem`` through ``stages`` (module docstring); returns the :class:`Outcome`.

    out : output folder (None: nothing written that outlives the call).  quiet : no progress line.
    case, command, parameters : what summary.json says of the run.  settings : :class:`Settings`
    (steps, alpha, alpha_fine, theta, newton, paraview, probes, kinetic_group, observers, monitors).

    Raises BadInput (before anything is written) for a wrong group, stage or setting; re-raises
    the interruption (SIGINT, SIGTERM) once the folder says so."""
    stages = _check_stages(stages)
    settings = Settings(**settings)
    assembled = assemble(problem)
    t_end = planned_end(stages)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="rockfem_") as tmp:
            outcome = run_stages(assembled, stages, Path(tmp), replace(settings, paraview=False))
            outcome.out = None
    else:
        folder = prepare_output(Path(out), "out")
        run = Run.start(folder, case, command or f"simulate({case})", "custom", parameters or {}, t_end=t_end,
                        quiet=quiet)
        outcome = run_stages(assembled, stages, folder, settings)
        data = run.final(outcome.status, outcome.summary(), outcome.message)
        write_report(folder / "report.md", data, stages, settings.steps)
        run.close()
    if outcome.interrupted is not None:
        raise outcome.interrupted
    return outcome


def planned_end(stages: Sequence) -> float:
    """The time [s] the stages end at: a preload ends at 0, a self-weight stage at its ``end``, a base
    motion ``duration`` after the stage before it."""
    t = 0.0
    for s in stages:
        t = s.end if isinstance(s, SelfWeight) else t + s.duration if isinstance(s, BaseMotion) else 0.0
    return t


def run_stages(assembled: Assembled, stages: Sequence, folder: Path, settings: Settings) -> Outcome:
    """Integrate the stages into ``folder`` (histories, ParaView series), watching the bodies and
    pairs; no lifecycle of its own. A Newton failure or a singular system ends it "failed", a signal
    "interrupted" (the exception kept in :attr:`Outcome.interrupted`); everything up to it is on disk."""
    stages = _check_stages(stages)
    problem, model = assembled.problem, assembled.model
    t0 = time.perf_counter()
    points = assembled.mesh.points
    bodies = list(settings.body_watches) if settings.body_watches is not None else [
        body_watch(b.label, BodyRotation(points, nodes), points[nodes], problem.gravity, b.overturn_angle)
        for b in problem.bodies for nodes in [assembled.body_nodes[b.label]]]
    pairs = [PairWatch(p.label, term) for p, term in zip(problem.pairs, assembled.terms)]
    stats = {"steps": 0, "newton_iterations": 0, "subdivisions": 0}
    gravity = (0.0, -problem.gravity)
    first = stages[0]
    state = State.at_rest(model.n_dofs, -first.duration if isinstance(first, Preload) else
                          first.start if isinstance(first, SelfWeight) else 0.0)
    history: dict = {}
    status, message, stopped = "complete", None, None
    energy: dict = {}
    spans: list = []
    t_start, released, current, early, error = state.t if isinstance(first, SelfWeight) else 0.0, True, first.name, \
        False, None
    rows: list[dict] = []
    dynamic = 0  # dynamic stages begun: the first writes history.csv, the next history_2.csv, ...
    try:
        for stage in stages:
            current = stage.name
            if isinstance(stage, Preload):
                with RunRecorder(model, folder, settings.probes, history_name="preload_history",
                                 series_name="preload", kinetic_group=settings.kinetic_group, write_series=False,
                                 gravity=gravity) as rec:
                    try:
                        state = record_steps(rec, integrate(model, _preload_phase(assembled, stage), state,
                                                            assembled.terms)).state
                    finally:
                        _add(stats, rec)
                continue
            start = state.released(t_start) if released and isinstance(stage, BaseMotion) else state
            released = False  # at rest after a preload, else continued
            rows = []  # the stage's rows, kept whatever stops it
            dynamic += 1
            state, stage_spans, stop = _dynamic(assembled, stage, start, folder, settings, bodies, pairs, stats,
                                                gravity, rows, "" if dynamic == 1 else f"_{dynamic}")
            spans += stage_spans
            t_start = state.t
            if stop:
                early = True
                if isinstance(stop, str):
                    status, message = "interrupted", stop
                break
    except (ConvergenceError, SingularSystemError) as err:
        status, message, error = "failed", str(err), err
    except (Interrupted, KeyboardInterrupt) as err:
        status, message, stopped = "interrupted", str(err) or "interrupted", err
    if rows:
        history = rows_as_arrays(rows)
        energy = energy_books(history)
    # the stages ran to their end: a run stopped early (an overturning, a monitor) leaves undecided
    # the bodies that had not overturned
    finished = status == "complete" and not early
    outcome = _outcome(status, message, state, history, bodies, pairs, energy, stats, t0, assembled, folder,
                       current, spans, stopped, finished)
    outcome.state, outcome.error = state, error
    return outcome


def body_watch(label: str, rotation, points: np.ndarray, g: float, angle: float | None = None) -> BodyWatch:
    """A body's watch: its ``rotation`` measure, its overturning angle (``angle``, or 2 atan(w / h) of
    the bounding box of ``points`` (n, 2)), the half diagonal R of that box, gravity ``g``."""
    w, h = np.ptp(points, axis=0)
    limit = float(angle) if angle is not None else 2.0 * math.atan2(float(w), float(h))
    return BodyWatch(label, rotation, limit, 0.5 * float(np.hypot(w, h)), g)


class _Watch:
    """The bodies', pairs' and the caller's observers, run once per step before the step is recorded
    (so that a monitor stops at the step it sees), their row kept for the recorder."""

    def __init__(self, stage: BaseMotion, t_start: float, bodies, pairs, settings: Settings) -> None:
        self.stage, self.t_start, self.bodies, self.pairs = stage, t_start, bodies, pairs
        self.observers, self.monitors = settings.observers, settings.monitors
        self.state = None
        self.row: dict = {}
        self.stopped = False
        self.reason: str | None = None  # a monitor's reason to stop early

    def columns(self) -> list[str]:
        return (["base_ax", "base_ay"] + [c for b in self.bodies for c in b.columns()]
                + [c for p in self.pairs for c in p.columns()] + [c for o in self.observers for c in o.columns()])

    def observe(self, result) -> dict:
        if result.state is not self.state:
            s = result.state
            ax, ay = self.stage.acceleration(s.t - self.t_start)
            row = {"base_ax": ax, "base_ay": ay}
            for b in self.bodies:
                row.update(b.observe(s.t, s.u, s.v))
            for p in self.pairs:
                row.update(p.observe(s.t))
            for o in self.observers:
                row.update(o.observe(result))
            self.state, self.row = s, row
        return self.row

    def stop(self, result) -> bool:
        """Observe the step, then: a body overturned, or a monitor says stop."""
        self.observe(result)
        said = [m(result) for m in self.monitors]
        reasons = [r for r in said if isinstance(r, str)]
        if reasons and self.reason is None:
            self.reason = reasons[0]
        stop = any(b.overturned_at is not None for b in self.bodies) or any(bool(r) for r in said)
        self.stopped = self.stopped or stop
        return stop


def _dynamic(assembled: Assembled, stage: BaseMotion | SelfWeight, state: State, folder: Path, settings: Settings, bodies, pairs,
             stats: dict, gravity, rows: list, suffix: str = ""):
    """One base-motion stage from ``state`` (at its start time), its history rows appended to ``rows``
    as they are recorded (``history{suffix}.csv``, ``solution{suffix}.pvd``). Returns the last state,
    its fine spans and whether a monitor stopped it (True, or its reason to stop early)."""
    problem, model = assembled.problem, assembled.model
    steps = settings.steps
    t_start = state.t
    t_end = stage.end if isinstance(stage, SelfWeight) else t_start + stage.duration
    g_field = (Gravity(gravity, PiecewiseLinear((stage.start, stage.ramp_end), (0.0, 1.0)))
               if isinstance(stage, SelfWeight) else Gravity(gravity))
    supports = problem.supports + getattr(stage, "hold", ())
    if problem.scheme_kind == "theta":
        assembled.terms[:] = [p.law.for_theta(t) for p, t in zip(problem.pairs, assembled.terms)]
        for w, term in zip(pairs, assembled.terms):
            w.term = term
    inertial = tuple(table_frame_load(h, c, start=t_start) for c, h in stage.components())
    newton = settings.newton or _newton(assembled)
    alpha_fine = settings.alpha if settings.alpha_fine is None else settings.alpha_fine

    if problem.scheme_kind == "theta":
        scheme = scheme_fine = Theta(settings.theta)
    else:
        scheme, scheme_fine = HHT(settings.alpha, modified_equilibrium=False), HHT(alpha_fine, modified_equilibrium=False)
    phase = Phase(stage.name, t_start, t_end, steps.dt, scheme, gravity=g_field, inertial=inertial,
                  constraints=_supports(supports), friction=None, newton=newton)

    watch = _Watch(stage, t_start, bodies, pairs, settings)
    spans: list = []
    with RunRecorder(model, folder, settings.probes, history_name=f"history{suffix}", series_name=f"solution{suffix}",
                     kinetic_group=settings.kinetic_group,
                     write_series=settings.paraview, extra_columns=watch.columns(), extra=watch.observe,
                     gravity=gravity) as rec:
        try:
            if isinstance(steps, EventSteps):
                generator = run_with_events(model, phase, state, assembled.terms, assembled.terms, steps, watch.stop,
                                            bodies=settings.step_bodies if settings.step_bodies is not None
                                            else _moving_bodies(assembled), scheme_fine=scheme_fine)
            else:
                generator = march(model, phase, state, assembled.terms,
                                  UniformSteps(t_end, steps.dt, scheme, steps.archive_every), stop=watch.stop)
            recorded = record_steps(rec, generator, rows, on_archived=settings.on_archived)
            last, spans = recorded.state, recorded.value or []
        finally:
            _add(stats, rec)
    return (last if last is not None else state), spans, watch.reason or watch.stopped


def _moving_bodies(assembled: Assembled) -> tuple[str, ...]:
    """The bodies whose rigid motion bounds the coarse steps (fem.time.stepping): those holding no
    support (a supported body, the table, has none of its own)."""
    held = set()
    for s in assembled.problem.supports:
        mesh = assembled.mesh
        held.update(np.unique(mesh.cell_groups[s.group].connectivity).tolist() if s.group in mesh.cell_groups
                    else mesh.nodes(s.group).tolist())
    return tuple(b.group for b in assembled.problem.bodies
                 if not held.intersection(assembled.body_nodes[b.label].tolist()))


def _add(stats: dict, recorder: RunRecorder) -> None:
    s = recorder.run_statistics()
    for key in ("steps", "newton_iterations", "subdivisions"):
        stats[key] += s[key]


def _outcome(status, message, state, history, bodies, pairs, energy, stats, t0, assembled, folder, stage, spans,
             interrupted, finished) -> Outcome:
    checks = []
    if energy:
        checks.append({"quantity": "energy books error / input", "value": energy["relative_error"],
                       "reference": 0.0, "tolerance": ENERGY_LIMIT,
                       "within_tolerance": bool(energy["relative_error"] <= ENERGY_LIMIT)})
    impacts = sorted((i for p in pairs for i in p.impacts), key=lambda i: i["time"])
    t_reached = float(history["t"][-1]) if history else (float(state.t) if state is not None else None)
    stats = {**stats, "wall_s": time.perf_counter() - t0}
    return Outcome(status, message, t_reached, history,
                   {b.label: {"max_rotation": b.max_rotation, "overturned": b.verdict(finished),
                              "overturned_at": b.overturned_at, "limit": b.limit} for b in bodies},
                   {p.label: {"max_gap": p.max_gap, "impacts": len(p.impacts)} for p in pairs},
                   impacts, energy, checks, stats, folder, assembled.warnings, stage, spans, interrupted)
