"""A stage marched one step at a time, each step chosen after the step before by a step controller.

    for result in march(model, phase, state, terms, controller):
        ...

``phase`` holds the stage's physics: loads (gravity and its ramp, nodal forces, the base's d'Alembert
loads), supports and imposed motions, friction, Newton and subdivision settings. It is resolved once
(fem.time.newton.start_phase: constraints, loads, free dofs, the forces at the start state), and every
step continues from the forces the step before converged on: no phase is built per step and the forces
are evaluated once per Newton iteration, never again at a step's start. Its ``t_start`` is the state's
time; its ``dt``, ``t_end`` and ``scheme`` are not read (the controller chooses each step and its scheme).

The controller (:class:`StepController`) is asked before the first step and after each accepted step
for the next one: a :class:`Step` (its end time ``t1`` [s], its scheme: Newmark/HHT, Static or
Moreau-Jean's Theta, and whether it is an archive point), or None when the stage is over. Controllers:

* :class:`UniformSteps` (fixed ``dt``, the last step shortened to the stage's end, as
  :meth:`fem.stage.phase.Phase.times`);
* :class:`fem.time.windows.WindowSteps` (a benchmark's windows: fine steps around its impacts, coarse
  ones between, refined where an impact is predicted);
* :class:`fem.time.stepping.EventController` (event-driven steps: fine around contact events, coarse
  ones bounded by a local error indicator);
* :class:`Planned`: any schedule written as a generator that yields steps and receives the states.

The step's scheme may change from one step to the next (HHT alpha -0.2 through an impact, 0 between):
the phase's Newton settings and scales carry over. ``stop(result)`` after each step ends the stage
there (an overturning, a monitor), that step archived.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Generator, Iterator, Protocol, Sequence

from fem.model.assembly import Model
from fem.stage.phase import Phase, State, StepResult, uniform_times
from fem.stage.schemes import Theta
from fem.time import progress
from fem.time.dynamics import step_with_release
from fem.time.newton import start_phase, step_with_subdivision
from fem.time.theta import theta_step


@dataclass(frozen=True)
class Step:
    """The next step: to ``t1`` [s] with ``scheme`` (Newmark, HHT, Static, Theta); ``archived``: an
    archive point of the output series."""

    t1: float
    scheme: object
    archived: bool = False


class StepController(Protocol):
    """Chooses the steps of a stage (module docstring)."""

    def next_step(self, state: State) -> Step | None:
        """The step after ``state`` (the stage's start state, then each accepted step's), or None
        when the stage is over."""


def segment(t_start: float, t_end: float, dt: float, scheme, archive_every: int = 1
            ) -> Generator[Step, State, State]:
    """Uniform steps from t_start to t_end (:func:`uniform_times`), every ``archive_every``-th and the
    last one archived, as a generator for :class:`Planned` schedules (``state = yield from segment(...)``
    returns the state at t_end)."""
    times = uniform_times(t_start, t_end, dt)
    state = None
    for k, t1 in enumerate(times):
        state = yield Step(float(t1), scheme, (k + 1) % archive_every == 0 or k == len(times) - 1)
    return state


class Planned:
    """A controller from a schedule written as a generator function ``plan(state)`` that yields
    :class:`Step` s and receives, for each, the state it reached (``state = yield step``)."""

    def __init__(self, plan: Callable[[State], Generator[Step, State, None]]) -> None:
        self._plan, self._steps = plan, None

    def next_step(self, state: State) -> Step | None:
        try:
            if self._steps is None:
                self._steps = self._plan(state)
                return next(self._steps)
            return self._steps.send(state)
        except StopIteration:
            return None


class UniformSteps(Planned):
    """Steps of ``dt`` [s] to ``t_end`` with ``scheme``, every ``archive_every``-th archived."""

    def __init__(self, t_end: float, dt: float, scheme, archive_every: int = 1) -> None:
        if not (math.isfinite(dt) and dt > 0):
            raise ValueError(f"UniformSteps: dt must be > 0 s, got {dt}")
        self.t_end, self.dt, self.scheme, self.archive_every = t_end, dt, scheme, archive_every
        super().__init__(lambda state: segment(state.t, t_end, dt, scheme, archive_every))


def march(model: Model, phase: Phase, state: State, terms: Sequence = (), controller: StepController = None,
          stop: Callable[[StepResult], bool] | None = None) -> Iterator[StepResult]:
    """Integrate ``phase``'s physics from ``state`` with the steps ``controller`` chooses (module
    docstring). Yields the completed start state once (0 iterations), then one :class:`StepResult`
    per step, its ``archived`` flag the controller's (and the step ``stop`` ends at)."""
    if not math.isclose(state.t, phase.t_start, rel_tol=0, abs_tol=1e-9 * max(1.0, abs(phase.t_start))):
        raise ValueError(f"phase {phase.name!r} starts at t = {phase.t_start} s but the state given is at "
                         f"t = {state.t} s")
    state = replace(state, t=phase.t_start)
    phases: dict = {}

    def phase_for(scheme) -> Phase:
        """The phase with the step's scheme (one per scheme met, the scales carried by the context)."""
        if scheme not in phases:
            if isinstance(scheme, Theta) and model.massless_dofs.size:
                raise ValueError(f"phase {phase.name!r}: the Moreau-Jean theta-method needs a mass on every free "
                                 "dof (its velocity is a state variable): use a consistent or lumped mass, not a "
                                 "redistributed one")
            phases[scheme] = replace(phase, scheme=scheme)
        return phases[scheme]

    step = controller.next_step(state)
    ctx, state = start_phase(model, phase_for(step.scheme) if step is not None else phase, state, terms)
    yield StepResult(phase.name, state, 0, 0, True)
    while step is not None:
        if step.scheme != ctx.phase.scheme:
            ctx.phase = phase_for(step.scheme)
        advance = theta_step if isinstance(step.scheme, Theta) else step_with_release
        state, it, n = step_with_subdivision(ctx, state, step.t1, advance)
        result = StepResult(phase.name, state, it, n, step.archived)
        stopped = stop is not None and bool(stop(result))
        if stopped:
            result = replace(result, archived=True)
        yield from progress.deliver(result, phase.name, state.t)
        if stopped:
            return
        step = controller.next_step(state)


def until(steps: Iterator[StepResult], stop: Callable[[StepResult], bool] | None = None) -> Iterator[StepResult]:
    """The results of ``steps`` (a stage's start state first, then its steps) up to the first step
    ``stop`` is true of, that step archived (as :func:`march` stops)."""
    for k, result in enumerate(steps):
        if k and stop is not None and stop(result):
            yield replace(result, archived=True)
            return
        yield result
