"""simulate(problem, stages) -> Outcome: a user's problem run through its stages, watched, recorded.

    outcome = simulate(problem, [Preload(), BaseMotion(10.0, x=record_x, y=record_y)],
                       out="results/mine", steps=EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7))

The time step is the simulation's, not the stages': ``steps`` is :class:`Uniform` (every step
``dt``) or :class:`fem.time.stepping.EventSteps` (fine steps around contact events, coarse ones in
smooth motion). The scheme is Newmark/HHT (``alpha``, 0: the average acceleration rule) for
position-level laws, Moreau–Jean (``theta``) for the velocity-level law.

With ``out`` the run follows the lifecycle of every case (fem.run.lifecycle): the folder claimed
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from fem.io.recorder import RunRecorder, record_steps, rows_as_arrays
from fem.loads.applied import Gravity, ImposedDisplacement
from fem.loads.base_motion import table_frame_load
from fem.loads.functions import PiecewiseLinear
from fem.problem.definition import Assembled, Problem, assemble, overturn_angle
from fem.problem.observe import BodyRotation, BodyWatch, PairWatch, energy_books
from fem.problem.report import write_report
from fem.problem.stages import BaseMotion, Preload
from fem.ranges import BadInput
from fem.run.lifecycle import Run, prepare_output
from fem.stage.phase import ConvergenceError, NewtonSettings, Phase, SingularSystemError, State
from fem.stage.schemes import HHT, Static, Theta
from fem.time.dynamics import integrate
from fem.time.interrupt import Interrupted
from fem.time.stepping import EventSteps, run_with_events

#: the energy books must close to this fraction of the input (or of the largest kinetic energy)
ENERGY_LIMIT = 0.01


@dataclass(frozen=True)
class Uniform:
    """Uniform steps of ``dt`` [s]; every ``archive_every``-th step archived (ParaView)."""

    dt: float
    archive_every: int = 10

    def __post_init__(self) -> None:
        if not (isinstance(self.dt, (int, float)) and math.isfinite(self.dt) and self.dt > 0):
            raise BadInput(f"steps.dt: a finite number > 0 s, got {self.dt!r}")
        if not (isinstance(self.archive_every, int) and self.archive_every >= 1):
            raise BadInput(f"steps.archive_every: an integer >= 1, got {self.archive_every!r}")


@dataclass
class Outcome:
    """What a simulation did.

    status : "complete", "failed" or "interrupted".  message : why it stopped early (None if complete).
    t_reached : the last converged time [s].  history : the last stage's columns (name -> (n,) array).
    bodies : label -> {"max_rotation" [rad], "overturned" (True, False or None: undecided),
        "overturned_at" [s] or None, "limit" [rad]}.
    pairs : label -> {"max_gap" [m], "impacts" (count)}.  impacts : every impact in time order.
    energy : the books of the last dynamic stage (fem.problem.observe.energy_books).
    checks : graded rows (the energy books within ENERGY_LIMIT).  stats : steps, Newton iterations,
    step cuts, wall time [s].  out : the output folder (None: nothing kept).  warnings : the mesh checks'.
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

    def summary(self) -> dict:
        """The JSON-able part (summary.json)."""
        return {"t_reached": self.t_reached, "bodies": self.bodies, "pairs": self.pairs, "impacts": self.impacts,
                "energy": self.energy, "checks": self.checks, "run": self.stats,
                "mesh_warnings": list(self.warnings)}


def _newton(assembled: Assembled) -> NewtonSettings:
    """Code_Aster's RESI_GLOB_RELA 1e-6 with RESI_GLOB_MAXI 2e-6 of the bodies' weight (8e-3 N for
    SDNV105's 4 kN block, the shaking table's setting)."""
    weight = assembled.body_weight()
    return NewtonSettings(rela=1e-6, maxi=2e-6 * weight if weight > 0 else None, max_iterations=40)


def _supports(problem: Problem) -> tuple[ImposedDisplacement, ...]:
    return tuple(ImposedDisplacement(s.group, c) for s in problem.supports for c in s.components)


def _preload_phase(assembled: Assembled, stage: Preload) -> Phase:
    """Gravity from 0 at t = -1 s to its full value at -0.5 s, held to 0 (static steps)."""
    g = assembled.problem.gravity
    ramp = PiecewiseLinear((-1.0, -0.5), (0.0, 1.0))
    return Phase(stage.name, -1.0, 0.0, 1.0 / stage.steps, Static(), gravity=Gravity((0.0, -g), ramp),
                 constraints=_supports(assembled.problem), friction=stage.friction,
                 newton=NewtonSettings(rela=1e-6, maxi=_newton(assembled).maxi, max_iterations=40))


def simulate(problem: Problem, stages: Sequence, *, out: str | Path | None = None,
             steps: Uniform | EventSteps | None = None, alpha: float = 0.0, theta: float = 0.55,
             paraview: bool = False, quiet: bool = True, case: str = "problem", command: str | None = None,
             parameters: dict | None = None) -> Outcome:
    """Run ``problem`` through ``stages`` (module docstring); returns the :class:`Outcome`.

    steps : Uniform or EventSteps (default EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7)).
    alpha : HHT alpha in [-1/3, 0] (0: Newmark's average acceleration).  theta : Moreau–Jean theta.
    out : output folder (None: nothing written that outlives the call).  paraview : the mesh series.
    quiet : no progress line.  case, command, parameters : what summary.json says of the run.

    Raises BadInput (before anything is written) for a wrong group, stage or setting; Interrupted
    on SIGINT/SIGTERM once the folder says so."""
    stages = tuple(stages)
    if not stages:
        raise BadInput("stages: at least one stage")
    for i, s in enumerate(stages):
        if not isinstance(s, (Preload, BaseMotion)):
            raise BadInput(f"stages[{i}]: a Preload or a BaseMotion, got {type(s).__name__}")
        if isinstance(s, Preload) and i != 0:
            raise BadInput(f"stages[{i}]: a preload comes first (it starts from the unloaded mesh)")
    if not -1.0 / 3.0 <= alpha <= 0.0:
        raise BadInput(f"alpha: HHT alpha lies in [-1/3, 0], got {alpha!r}")
    if not 0.5 <= theta <= 1.0:
        raise BadInput(f"theta: the Moreau-Jean theta lies in [1/2, 1], got {theta!r}")
    steps = steps if steps is not None else EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7)
    assembled = assemble(problem)
    t_end = sum(s.duration for s in stages if isinstance(s, BaseMotion))
    if out is None:
        with tempfile.TemporaryDirectory(prefix="rockfem_") as tmp:
            return _run(assembled, stages, Path(tmp), steps, alpha, theta, False, None)
    folder = prepare_output(Path(out), "out")
    run = Run.start(folder, case, command or f"simulate({case})", "custom", parameters or {}, t_end=t_end, quiet=quiet)
    return _run(assembled, stages, folder, steps, alpha, theta, paraview, run)


def _run(assembled: Assembled, stages, folder: Path, steps, alpha: float, theta: float, paraview: bool,
         run: Run | None) -> Outcome:
    problem, model = assembled.problem, assembled.model
    t0 = time.perf_counter()
    points = assembled.mesh.points
    bodies = [BodyWatch(b.label, BodyRotation(points, nodes), overturn_angle(b, points[nodes]),
                        0.5 * float(np.hypot(*np.ptp(points[nodes], axis=0))), problem.gravity)
              for b in problem.bodies for nodes in [assembled.body_nodes[b.label]]]
    pairs = [PairWatch(p.label, term) for p, term in zip(problem.pairs, assembled.terms)]
    stats = {"steps": 0, "newton_iterations": 0, "subdivisions": 0}
    gravity = (0.0, -problem.gravity)
    state = State.at_rest(model.n_dofs, -1.0 if isinstance(stages[0], Preload) else 0.0)
    history: dict = {}
    status, message = "complete", None
    energy: dict = {}
    t_start = 0.0
    released = True
    try:
        for stage in stages:
            if isinstance(stage, Preload):
                with RunRecorder(model, folder, history_name="preload_history", write_series=False,
                                 gravity=gravity) as rec:
                    try:
                        state = record_steps(rec, integrate(model, _preload_phase(assembled, stage), state,
                                                            assembled.terms)).state
                    finally:
                        _add(stats, rec)
                continue
            start = state.released(t_start) if released else state  # at rest after a preload, else continued
            released = False
            state, history = _dynamic(assembled, stage, start, folder, steps, alpha, theta,
                                      paraview and run is not None, bodies, pairs, stats, gravity)
            t_start = state.t
            if history:
                energy = energy_books(history)
            if any(b.overturned_at is not None for b in bodies):
                break
    except (ConvergenceError, SingularSystemError) as err:
        status, message = "failed", str(err)
    except (Interrupted, KeyboardInterrupt) as err:
        status, message = "interrupted", str(err) or "interrupted"
        outcome = _outcome(status, message, state, history, bodies, pairs, energy, stats, t0, assembled, run)
        _finish(run, outcome, folder, stages, steps)
        raise
    outcome = _outcome(status, message, state, history, bodies, pairs, energy, stats, t0, assembled, run)
    _finish(run, outcome, folder, stages, steps)
    return outcome


def _dynamic(assembled: Assembled, stage: BaseMotion, state: State, folder: Path, steps, alpha: float,
             theta: float, paraview: bool, bodies, pairs, stats: dict, gravity):
    """One base-motion stage from ``state`` (at rest, at its start time)."""
    problem, model = assembled.problem, assembled.model
    t_start, t_end = state.t, state.t + stage.duration
    if problem.scheme_kind == "theta":
        assembled.terms[:] = [p.law.for_theta(t) for p, t in zip(problem.pairs, assembled.terms)]
        for w, term in zip(pairs, assembled.terms):
            w.term = term
        scheme = Theta(theta)
    else:
        scheme = HHT(alpha, modified_equilibrium=False)
    inertial = tuple(table_frame_load(h, c, start=t_start) for c, h in stage.components())
    newton = _newton(assembled)

    def make_phase(name, t0, t1, dt, fine=False):
        return Phase(name, t0, t1, dt, scheme, gravity=Gravity(gravity), inertial=inertial,
                     constraints=_supports(problem), friction=None, newton=newton,
                     archive_every=1 if isinstance(steps, EventSteps) else steps.archive_every)

    def observed(result) -> dict:
        s = result.state
        ax, ay = stage.acceleration(s.t - t_start)
        row = {"base_ax": ax, "base_ay": ay}
        for b in bodies:
            row.update(b.observe(s.t, s.u, s.v))
        for p in pairs:
            row.update(p.observe(s.t))
        return row

    def overturned(result) -> bool:
        return any(b.overturned_at is not None for b in bodies)

    columns = ["base_ax", "base_ay"] + [c for b in bodies for c in b.columns()] + [c for p in pairs for c in p.columns()]
    rows: list[dict] = []
    with RunRecorder(model, folder, write_series=paraview, extra_columns=columns, extra=observed,
                     gravity=gravity) as rec:
        try:
            if isinstance(steps, EventSteps):
                generator = run_with_events(model, make_phase, state, assembled.terms, assembled.terms, t_end,
                                            steps, overturned, bodies=tuple(b.group for b in problem.bodies))
            else:
                generator = _uniform(model, make_phase(stage.name, t_start, t_end, steps.dt), state,
                                     assembled.terms, overturned)
            last = record_steps(rec, generator, rows).state
        finally:
            _add(stats, rec)
    return (last if last is not None else state), rows_as_arrays(rows) if rows else {}


def _uniform(model, phase: Phase, state: State, terms, stop):
    """integrate() of one phase, stopped after the step where ``stop(result)`` holds."""
    for k, result in enumerate(integrate(model, phase, state, terms)):
        yield result
        if k and stop(result):
            return


def _add(stats: dict, recorder: RunRecorder) -> None:
    s = recorder.run_statistics()
    for key in ("steps", "newton_iterations", "subdivisions"):
        stats[key] += s[key]


def _outcome(status, message, state, history, bodies, pairs, energy, stats, t0, assembled, run) -> Outcome:
    # the stages ran to their end: a run stopped by an overturning leaves the other bodies undecided
    finished = status == "complete" and all(b.overturned_at is None for b in bodies)
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
                   impacts, energy, checks, stats, run.out if run is not None else None, assembled.warnings)


def _finish(run: Run | None, outcome: Outcome, folder: Path, stages, steps) -> None:
    """report.md, then summary.json last (the lifecycle)."""
    if run is None:
        return
    summary = outcome.summary()
    data = run.final(outcome.status, summary, outcome.message)
    write_report(folder / "report.md", data, stages, steps)
    run.close()
