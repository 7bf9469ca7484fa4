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

import copy
import math
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from fem.io.recorder import NodeProbe, RunRecorder, add_run_statistics, add_statistics, record_steps, rows_as_arrays
from fem.problem import checks as stated
from fem.problem import grading
from fem.problem.definition import Assembled, Problem, assemble
from fem.problem.collapse import Collapse, CollapseWatch
from fem.problem.pictures import draw_summary
from fem.problem.observe import (BodyKinetic, BodyRotation, BodyWatch, CreationHook, EnergyCreation, PairWatch,
                                energy_books)
from fem.problem.physics import (RESTARTING, check_groups, check_stages, default_newton, dynamic_phase, first_time,
                                 planned_end, preload_phase, release_state, stage_end, stage_gravity)
from fem.problem.report import write_report
from fem.problem.stages import BaseMotion, Preload, Release
from fem.problem.steps import controller, is_spec
from fem.ranges import BadInput
from fem.run.lifecycle import Run, prepare_output
from fem.stage.energy import EnergyCreated
from fem.stage.phase import ConvergenceError, NewtonSettings, SingularSystemError, State
from fem.stage.schemes import Theta
from fem.time.dynamics import integrate
from fem.time.interrupt import Interrupted
from fem.time.march import march
from fem.time.stepping import EventSteps

#: the energy books must close to this fraction of the input (or of the largest kinetic energy)
ENERGY_LIMIT = 0.01


@dataclass
class Outcome:
    """What a simulation did.

    status : "complete", "failed" or "interrupted".  message : why it stopped early (None if complete).
    stage : the stage it stopped in (the last one when complete).  interrupted : the signal's exception;
    error : the failure's (a case re-raises them into its own lifecycle).  state : the last State.
    t_reached : the last converged time [s].  history : the last stage's columns (name -> (n,) array);
    histories : every stage's, by stage name.
    bodies : label -> {"max_rotation" [rad], "overturned" (True, False or None: undecided),
        "overturned_at" [s] or None, "limit" [rad]}.
    pairs : label -> {"max_gap" [m], "impacts" (count)}.  impacts : every impact in time order.
    energy : the books of the last dynamic stage (fem.problem.observe.energy_books).
    checks : graded rows (the energy books within ENERGY_LIMIT, then run_checks and the stated checks).
    run_checks : the checks every run makes beside the books (the preload's end state, each pair's
    penetration and reaction alternation): a case keeping its own checks list adds these.  stats : steps, Newton iterations,
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
    histories: dict = field(default_factory=dict)  # stage name -> its columns (name -> (n,) array)
    run_checks: list = field(default_factory=list)
    energy_creation: dict | None = None  # the watch's report (fem.problem.observe.CreationHook.report)
    contact_search: dict | None = None  # what finding the problem's contacts did (Assembled.contact_search)
    collapse: dict | None = None  # the blocks' verdict (fem.problem.collapse.CollapseWatch.report), if asked

    def reraise(self) -> None:
        """Raise the interruption (a signal) or the failure (a Newton failure, a singular system, energy
        created) that ended the run, if one did: a case reports it through its own lifecycle."""
        for stop in (self.interrupted, self.error):
            if stop is not None:
                raise stop

    def lines(self) -> list[str]:
        """The run in a few lines for a console: status, each body's verdict, impacts, energy books, the
        folder (what ``rockfem run`` prints)."""
        verdicts = {True: "overturned", False: "not overturned", None: "undecided"}
        lines = [f"status: {self.status}" + (f" at t = {self.t_reached:.6g} s" if self.t_reached is not None else "")]
        for label, b in self.bodies.items():
            if (b.get("overturn_verdict") or {}).get("verdict") == "none":
                lines.append(f"body {label}: held by a support, no verdict")
                continue
            at = f" at t = {b['overturned_at']:.6g} s" if b.get("overturned_at") is not None else ""
            lifted = f", lifted at t = {b['uplift_time']:.6g} s" if b.get("uplift_time") is not None else ", never lifted"
            lines.append(f"body {label}: {verdicts[b['overturned']]}{at} (max |rotation| {b['max_rotation']:.3g} "
                         f"rad, limit {b['limit']:.3g} rad{lifted})")
        lines.append(f"impacts: {len(self.impacts)}")
        if self.energy:
            lines.append(f"energy books error: {100 * self.energy['relative_error']:.3g} % of the input "
                         f"(limit {100 * ENERGY_LIMIT:g} %)")
        lines.append(f"results: {self.out} (summary.json, report.md, history.csv)")
        return lines

    def summary(self) -> dict:
        """The JSON-able part (summary.json)."""
        return {"t_reached": self.t_reached, "bodies": self.bodies, "pairs": self.pairs, "impacts": self.impacts,
                "energy": self.energy, "checks": self.checks, "run": self.stats,
                "mesh_warnings": list(self.warnings),
                **({"energy_creation": self.energy_creation} if self.energy_creation is not None else {}),
                **({"contact_search": self.contact_search} if self.contact_search is not None else {}),
                **({"collapse": self.collapse} if self.collapse is not None else {})}


#: HHT alpha of the coarse steps and of the fine steps (through contact events) a simulation takes unless
#: told otherwise (Code_Aster's HHT ALPHA default is -0.1, SDNV105's impact windows take -0.2). Newmark's
#: average acceleration (alpha = 0) leaves undamped the period-2 mode of the contact reactions (Cardona and
#: Geradin 1989): a block pivoting on one corner saw its reaction alternate between 785 N and 7,250 N at every
#: step for 1,293 steps and its friction saturate (0.90 against the rigid block's 0.475: "slid: yes"); with
#: these, the longest alternation is 1 to 15 steps and the friction ratio the rigid block's within 0.5 %
#: (docs/problem.md, "Reactions that alternate": benchmarks/reaction_alternation.py)
ALPHA = -0.1
ALPHA_FINE = -0.2


@dataclass(frozen=True)
class Settings:
    """How the stages are integrated (:func:`run_stages`).

    steps : Uniform, EventSteps or Windows (fem.problem.steps), or a mapping from stage names to them
        (a stage not named takes the simulation's default, EventSteps).  alpha, alpha_fine : HHT alpha
        of the coarse and of the fine steps (event-driven steps; alpha_fine None: alpha; default
        :data:`ALPHA`, :data:`ALPHA_FINE`; a Uniform step states its own or takes alpha).  theta : Moreau–Jean.  newton : the dynamic stages'
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
        (fem.time.stepping; None: every body that holds no support).
    histories : stage name -> the stem of its history and series files (default: ``preload_history``
        for a preload, ``history`` for the first dynamic stage, ``history_2`` ... for the next); dynamic
        stages given the same stem write one history and one series, each stage from its first step.
    on_archived may also be a mapping from stage names to such functions (the stages not named: none).
    after_step : ``f(stage, result)`` after each step of a dynamic stage is recorded (its row on disk);
        raising fem.stage.energy.EnergyCreated there ends the run "failed" (a contact event that created
        energy: SDNV105's watch).
    energy_creation : a :class:`fem.problem.observe.EnergyCreation`: stop the run, failed, at a contact
        event that gives back more than its limit of its energy scale (None: no such watch).
    march : the function that marches a stage (fem.time.march.march, or a stand-in with its signature).
    collapse : a :class:`fem.problem.collapse.Collapse`: follow the blocks' motion, say whether the
        assembly collapsed, when it began, under what acceleration and at which joints it hinged
        (summary.json ``collapse``; None: no such verdict).
    checks : the :class:`fem.problem.checks.Check` s the run is graded by (beside the energy books); the
        node columns they read are added to ``probes``."""

    steps: object = None
    alpha: float = ALPHA
    alpha_fine: float | None = ALPHA_FINE
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
    histories: Mapping[str, str] = field(default_factory=dict)
    after_step: tuple = ()
    energy_creation: EnergyCreation | None = None
    march: Callable = march
    checks: tuple = ()
    collapse: Collapse | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "checks", tuple(self.checks))
        if self.collapse is not None and not isinstance(self.collapse, Collapse):
            raise BadInput(f"collapse: a fem.problem.Collapse, got {type(self.collapse).__name__}")
        if self.energy_creation is not None and not isinstance(self.energy_creation, EnergyCreation):
            raise BadInput(f"energy_creation: a fem.problem.EnergyCreation, got {type(self.energy_creation).__name__}")
        for i, c in enumerate(self.checks):
            if not isinstance(c, stated.Check):
                raise BadInput(f"checks[{i}]: a fem.problem.Check, got {type(c).__name__}")
        have = {p.name for p in self.probes}
        more = tuple(NodeProbe(*p) for p in stated.node_probes(self.checks) if p[0] not in have)
        object.__setattr__(self, "probes", tuple(self.probes) + more)
        if self.steps is None:
            object.__setattr__(self, "steps", DEFAULT_STEPS)
        for key, spec in (self.steps.items() if isinstance(self.steps, Mapping) else [(None, self.steps)]):
            if not is_spec(spec):
                where = "steps" if key is None else f"steps[{key!r}]"
                raise BadInput(f"{where}: Uniform, EventSteps or Windows, got {type(spec).__name__}")
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


    def steps_for(self, stage: str):
        """The steps spec of the stage named ``stage``."""
        if isinstance(self.steps, Mapping):
            return self.steps.get(stage, DEFAULT_STEPS)
        return self.steps


#: the steps of a stage no spec names
DEFAULT_STEPS = EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7)


def simulate(problem: Problem, stages: Sequence, *, out: str | Path | None = None, quiet: bool = True,
             case: str = "problem", command: str | None = None, parameters: dict | None = None,
             finish: Callable | None = None, **settings) -> Outcome:
    """Run ``problem`` through ``stages`` (module docstring); returns the :class:`Outcome`.

    out : output folder (None: nothing written that outlives the call).  quiet : no progress line.
    case, command, parameters : what summary.json says of the run.  finish : ``finish(outcome) -> dict``,
    called once a run is complete, before summary.json and report.md are written: more entries for
    summary.json (a round-off ensemble: fem.problem.command).  settings : :class:`Settings`
    (steps, alpha, alpha_fine, theta, newton, paraview, probes, kinetic_group, observers, monitors).

    Raises BadInput (before anything is written) for a wrong group, stage or setting; re-raises
    the interruption (SIGINT, SIGTERM) once the folder says so."""
    stages = check_stages(stages)
    settings = Settings(**settings)
    assembled = assemble(problem)
    check_groups(assembled, stages, settings)
    grading.check_checks(assembled, stages, settings.checks)
    grading.check_time_scales(assembled, stages, settings)
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
        summary = outcome.summary()
        if finish is not None and outcome.status == "complete":
            summary.update(finish(outcome))
        if outcome.history and outcome.interrupted is None:
            try:
                draw_summary(folder / "summary.png", outcome.history, outcome.bodies, outcome.pairs, outcome.impacts)
            except Exception as err:  # noqa: BLE001 - a picture is never worth a run
                summary["notes"] = [f"summary.png was not drawn: {type(err).__name__}: {err}"]
        data = run.final(outcome.status, summary, outcome.message)
        write_report(folder / "report.md", data, stages, settings.steps)
        run.close()
    if outcome.interrupted is not None:
        raise outcome.interrupted
    return outcome


def run_stages(assembled: Assembled, stages: Sequence, folder: Path, settings: Settings,
               state: State | None = None) -> Outcome:
    """Integrate the stages into ``folder`` (histories, ParaView series), watching the bodies and
    pairs; no lifecycle of its own. A Newton failure or a singular system ends it "failed", a signal
    "interrupted" (the exception kept in :attr:`Outcome.interrupted`); everything up to it is on disk.

    A stage with a ``start`` before the end of the stage before restarts from that stage's state at
    ``start`` (and its contact terms' state then): the stage before runs to its own end for its record.
    ``state``: the state the first stage continues (a run in parts: the case checks what the first
    part left before it runs the next); None: from rest."""
    stages = check_stages(stages, continued=state is not None)
    check_groups(assembled, stages)  # (steps named for other stages: a run in parts names them all)
    problem, model = assembled.problem, assembled.model
    t0 = time.perf_counter()
    points = assembled.mesh.points
    bodies = list(settings.body_watches) if settings.body_watches is not None else [
        body_watch(b.label, BodyRotation(points, nodes), points[nodes], problem.gravity, b.overturn_angle)
        for b in problem.bodies for nodes in [assembled.body_nodes[b.label]]]
    lifts = grading.impact_lifts(assembled)
    pairs = [PairWatch(p.label, term, grading.watched_nodes(assembled, p.label, settings.checks), lifts[p.label])
             for p, term in zip(problem.pairs, assembled.terms)]
    groups = {b.label: b.group for b in problem.bodies}
    kinetic = tuple(BodyKinetic(label, groups[label], model) for label in stated.kinetic_bodies(settings.checks))
    if kinetic:  # the bodies' own kinetic energies the checks read: more history columns
        settings = replace(settings, observers=tuple(settings.observers) + kinetic)
    collapse = None
    if settings.collapse is not None:  # the blocks' motion: one more column and a monitor
        moving = set(grading.moving_bodies(assembled))
        collapse = CollapseWatch(settings.collapse, {b.label: assembled.body_nodes[b.label] for b in problem.bodies
                                                     if b.group in moving}, points, pairs, problem.gravity)
        settings = replace(settings, observers=tuple(settings.observers) + (collapse,),
                           monitors=tuple(settings.monitors) + (collapse,))
    creation = (CreationHook(settings.energy_creation, assembled.terms, assembled.mesh)
                if settings.energy_creation is not None else None)
    if creation is not None:  # watched after every other hook of the step
        settings = replace(settings, after_step=tuple(settings.after_step) + (creation,))
    stats = {"steps": 0, "newton_iterations": 0, "subdivisions": 0}
    released = state is None  # a first base motion starts at rest where the preload left it
    state = State.at_rest(model.n_dofs, first_time(stages[0])) if state is None else state
    histories: dict = {}
    status, message, stopped = "complete", None, None
    spans: list = []
    current, early, error = stages[0].name, False, None
    rows: list[dict] = []
    physical: list = []  # the rows of the checks every run makes (the preload's end state)
    dynamic = 0  # dynamic stages begun: the first writes history.csv, the next history_2.csv, ...
    recorders: dict = {}  # the dynamic stages' histories open, by name (stages may share one)
    try:
        for i, stage in enumerate(stages):
            current = stage.name
            if isinstance(stage, Preload):
                name = settings.histories.get(stage.name, "preload_history")
                with RunRecorder(model, folder, settings.probes, history_name=name, series_name="preload",
                                 kinetic_group=settings.kinetic_group, write_series=False,
                                 gravity=stage_gravity(assembled, stage)) as rec:
                    try:
                        preload_rows: list = []
                        state = record_steps(rec, integrate(model, preload_phase(assembled, stage), state,
                                                            assembled.all_terms()), preload_rows).state
                    finally:
                        add_run_statistics(stats, rec)
                        histories[stage.name] = rows_as_arrays(preload_rows)
                for w in pairs:  # what the preload pressed in counts (a penalty far too soft sinks here)
                    w.measure_penetration(state.t)
                settled = grading.preload_moves(assembled, stage.name, state)
                physical += settled
                moved = [r["note"] for r in settled if r["within_tolerance"] is False]
                if moved:
                    raise stated.PhysicalCheckFailed(moved[0])
                _gate(settings.checks, stage.name, histories)
                continue
            if isinstance(stage, Release):
                state = release_state(assembled, stage, state)  # let go where the stage before left
            elif released and isinstance(stage, BaseMotion):
                state = state.released(state.t)  # at rest after a preload
            released = False
            if collapse is not None:
                collapse.begin(stage, state.t, state.u)
            rows = []  # the stage's rows, kept whatever stops it
            dynamic += 1
            name = settings.histories.get(stage.name, "history" if dynamic == 1 else f"history_{dynamic}")
            after = stages[i + 1] if i + 1 < len(stages) else None
            restart = getattr(after, "start", None) if isinstance(after, RESTARTING) else None
            try:
                state, stage_spans, stop, snapshot = _dynamic(assembled, stage, state, folder, settings, bodies, pairs,
                                                              stats, rows, name, restart, recorders)
            finally:
                histories[stage.name] = rows_as_arrays(rows)
            spans += stage_spans
            if stop:
                early = True
                if isinstance(stop, str):
                    status, message = "interrupted", stop
                break
            _gate(settings.checks, stage.name, histories)
            if restart is not None:
                if snapshot is None:
                    status, message = "failed", (f"stages.{after.name}.start: the stage before has no step at "
                                                 f"t = {restart!r} s to restart from")
                    break
                state, terms = snapshot
                assembled.terms[:] = terms
                for w, term in zip(pairs, assembled.terms):
                    w.term = term
    except (ConvergenceError, SingularSystemError, EnergyCreated, stated.PhysicalCheckFailed) as err:
        status, message, error = "failed", str(err), err
    except (Interrupted, KeyboardInterrupt) as err:
        status, message, stopped = "interrupted", str(err) or "interrupted", err
    finally:
        for rec, _ in recorders.values():
            rec.close()
    history = rows_as_arrays(rows) if rows else {}
    energy = energy_books(history) if history else {}
    # the stages ran to their end: a run stopped early (an overturning, a monitor) leaves undecided
    # the bodies that had not overturned
    finished = status == "complete" and not early
    motion = grading.base_motion_left(stages, current, float(state.t) if state is not None else 0.0)
    outcome = _outcome(status, message, state, history, bodies, pairs, energy, stats, t0, assembled, folder,
                       current, spans, stopped, finished, motion)
    outcome.state, outcome.error, outcome.histories = state, error, histories
    outcome.energy_creation = creation.report() if creation is not None else None
    outcome.collapse = collapse.report(finished) if collapse is not None else None
    last = next((s.name for s in reversed(stages) if not isinstance(s, Preload)), None)
    outcome.run_checks = physical + grading.penetrations(assembled, pairs) + grading.alternations(assembled, pairs)
    outcome.checks += outcome.run_checks + stated.evaluate(settings.checks, outcome, last)
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
            ax, ay = self.stage.acceleration(s.t - self.t_start) if isinstance(self.stage, BaseMotion) \
                else (0.0, 0.0)
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


def _dynamic(assembled: Assembled, stage, state: State, folder: Path, settings: Settings, bodies, pairs, stats: dict,
             rows: list, name: str, restart: float | None, recorders: dict):
    """One dynamic stage from ``state`` (at its start time), its history rows appended to ``rows`` as
    they are recorded (``{name}.csv``, its series ``solution{suffix}.xdmf`` (or ``.pvd``, fem.io.results); ``recorders``: the histories
    open, by name: a stage whose history another stage began continues it). Returns the last state, its
    fine spans, whether a monitor stopped it (True, or its reason to stop early) and, when ``restart``
    is a time, the state and copies of the contact terms at that step (None if no step ended there)."""
    problem, model = assembled.problem, assembled.model
    t_end = stage_end(stage, state.t)
    bodies_moving = settings.step_bodies if settings.step_bodies is not None else grading.moving_bodies(assembled)
    spec = settings.steps_for(stage.name)
    steps, first = controller(spec, assembled, settings, t_end, bodies_moving)
    if isinstance(first, Theta):  # the velocity-level terms continue the position-level ones, once
        assembled.terms[:] = [p.law.for_theta(t) if hasattr(p.law, "for_theta") else t
                              for p, t in zip(problem.pairs, assembled.terms)]
        for w, term in zip(pairs, assembled.terms):
            w.term = term
        steps, first = controller(spec, assembled, settings, t_end, bodies_moving)
    elif any(getattr(t, "impulsive", False) for t in assembled.terms):
        raise BadInput(f"steps[{stage.name!r}]: an HHT stage after a Moreau-Jean one (its contact is velocity-level)")
    phase = dynamic_phase(assembled, stage, state, settings.newton or default_newton(assembled), first)
    watch = _Watch(stage, state.t, bodies, pairs, settings)
    snapshot = None

    def stop(result) -> bool:
        nonlocal snapshot
        if restart is not None and snapshot is None and abs(result.state.t - restart) <= 1e-9 * max(1.0, abs(restart)):
            memo = {id(model): model, id(assembled.mesh): assembled.mesh}
            snapshot = (result.state, [copy.deepcopy(t, memo) for t in assembled.terms])
        return watch.stop(result)

    held = recorders.get(name)
    if held is None:  # a history of its own (or the first of the stages that share it)
        series = "solution" if name == "history" else f"solution{name[len('history'):]}" \
            if name.startswith("history") else name.replace("_history", "")
        current = [watch]
        rec = RunRecorder(model, folder, settings.probes, history_name=name, series_name=series,
                          kinetic_group=settings.kinetic_group, write_series=settings.paraview,
                          extra_columns=watch.columns(), extra=lambda result: current[0].observe(result),
                          gravity=stage_gravity(assembled, stage))
        recorders[name] = (rec, current)
        continuing = False
    else:  # the history goes on: its rows from this stage's first step, with this stage's watch and gravity
        rec, current = held
        current[0] = watch
        rec.set_gravity(stage_gravity(assembled, stage))
        continuing = True
    before = rec.run_statistics()
    try:
        archived = settings.on_archived
        if isinstance(archived, Mapping):
            archived = archived.get(stage.name)
        if callable(getattr(spec, "integrate", None)):  # a spec with its own integrator (explicit steps)
            marched = spec.integrate(assembled, phase, state, t_end, stop=stop)
        else:
            marched = settings.march(model, phase, state, assembled.all_terms(), steps, stop=stop)
        last = record_steps(rec, _followed(marched, stage.name, settings.after_step), rows, skip_first=continuing,
                            on_archived=archived).state
    finally:
        add_statistics(stats, rec.run_statistics(), before)
    spans = list(getattr(steps, "spans", None) or getattr(steps, "refinements", None) or [])
    return (last if last is not None else state), spans, watch.reason or watch.stopped, snapshot


def _gate(checks, stage: str, histories: dict) -> None:
    """Grade the gates of ``stage`` (fem.problem.checks.Check.gate) on its history as it ended: the run
    stops there, failed, naming the first one not met."""
    failed = stated.gate_failure(stated.gate(checks, stage, histories.get(stage, {})), stage)
    if failed:
        raise stated.PhysicalCheckFailed(failed)


def _followed(steps, stage: str, hooks):
    """The results of ``steps``, each followed, once the caller has recorded it, by ``hook(stage,
    result)`` for each hook (its return value the generator's)."""
    if not hooks:
        return (yield from steps)
    while True:
        try:
            result = next(steps)
        except StopIteration as done:
            return done.value
        yield result
        for hook in hooks:
            hook(stage, result)


def _outcome(status, message, state, history, bodies, pairs, energy, stats, t0, assembled, folder, stage, spans,
             interrupted, finished, motion=(np.zeros(0), np.zeros(0))) -> Outcome:
    checks = []
    if energy:
        checks.append({"quantity": "energy books error / input", "value": energy["relative_error"],
                       "unit": "", "reference": 0.0, "tolerance": ENERGY_LIMIT, "criterion": "absolute",
                       "error": energy["relative_error"], "source": "energy conservation: every term booked",
                       "within_tolerance": bool(energy["relative_error"] <= ENERGY_LIMIT)})
    impacts = sorted((i for p in pairs for i in p.impacts), key=lambda i: i["time"])
    t_reached = float(history["t"][-1]) if history else (float(state.t) if state is not None else None)
    stats = {**stats, "wall_s": time.perf_counter() - t0}
    lifts = {p.label: p.uplift_time for p in pairs}
    touching = grading.body_pairs(assembled)
    moving = set(grading.moving_bodies(assembled))
    held = {b.label for b in assembled.problem.bodies if b.group not in moving}
    body_rows = {}
    for b in bodies:
        times = [lifts[q] for q in touching.get(b.label, ()) if lifts.get(q) is not None]
        lifted = min(times) if times else None
        verdict = grading.body_verdict(b, finished, b.label in held, lifted is not None or b.label not in touching, motion)
        body_rows[b.label] = {"max_rotation": b.max_rotation, "overturned": grading.verdicts.overturned(verdict),
                              "overturned_at": b.overturned_at, "limit": b.limit, "uplift_time": lifted,
                              "overturn_verdict": verdict}
    return Outcome(status, message, t_reached, history, body_rows,
                   {p.label: {"max_gap": p.max_gap, "impacts": len(p.impacts), "impact_lift": p.lift,
                              "uplift_time": p.uplift_time, "max_penetration": p.penetration,
                              "reaction_alternation": {"steps": p.alternation, "node": p.alternation_node,
                                                       "from": p.alternation_from}} for p in pairs},
                   impacts, energy, checks, stats, folder, assembled.warnings, stage, spans, interrupted,
                   contact_search=assembled.contact_search)


