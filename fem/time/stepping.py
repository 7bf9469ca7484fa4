"""Event-driven time steps: fine steps around contact events, coarse steps in smooth motion.

A stage is marched one step at a time (fem.time.march: its physics resolved once, its forces carried
from step to step); after each step the controller (:class:`EventController`) chooses the next one:

* **fine** (``dt_fine``) while a fine span is running. A fine span of ``fine_after`` starts

  - when an open contact node is predicted to close within ``lookahead`` of the step it would
    take, from each node's gap and its rate over the last step (``gap / (-dgap/dt)``): the impact
    is then integrated with fine steps from before it until ``fine_after`` after it;
  - when any contact node opened or closed in the last step (uplift, landing, a bounce), so that
    a chain of bounces or the peeling of a base is never left to coarse steps.

* **coarse** otherwise: the step grows from the last one by at most ``growth`` per step, up to
  ``dt``, and is bounded by the local error indicator of the Newmark family (Zienkiewicz and Xie,
  Earthquake Eng. Struct. Dyn. 20 (1991) 871-887), the difference between the Newmark
  displacement update and a third-order Taylor expansion, applied to each body's rigid motion::

      eta = |beta - 1/6| dt^2 max_bodies (|A_G,n - A_G,n-1| + r |W_n - W_n-1|)      [m]

  with A = (v_n - v_(n-1)) / dt_n the step's mean acceleration (Newmark's gamma = 1/2 makes it
  (a_(n-1) + a_n) / 2), A_G that of the body's centre of mass, W its mean angular acceleration (the
  mass-weighted least-squares rotation of the nodal A about G) and r its radius of gyration: the
  error of the motion a rocking or sliding body makes, not of its elastic vibrations. A stiff block
  rings at kHz after every impact; the step's unresolved modes alternate in sign from one step to
  the next in a_n and cancel in the mean A, and following that ringing would take steps of
  microseconds while nothing of the rocking depends on it. The next step is
  ``0.9 dt_n (tol / eta)^(1/3)``, so that the indicator stays near ``tolerance``. Steps are not
  rejected: the indicator sets the next step; the events above are what refine ahead of an impact.

Contact terms are read through ``term.state()`` (``status``: 0 = open, anything else closed;
``gap`` [m]), so fem does not import contact.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from fem.model.assembly import Model
from fem.stage.phase import Phase, State, StepResult
from fem.time.march import Step, march


@dataclass(frozen=True)
class EventSteps:
    """Step control around contact events (module docstring). Times in s, tolerance in m.

    dt : largest (coarse) step.  dt_fine : step through contact events, <= dt.
    fine_after : length of a fine span after a predicted impact or a status change.
    lookahead : a closing predicted within ``lookahead`` times the next coarse step starts fine steps.
    growth : largest ratio of two successive coarse steps (> 1).
    tolerance : bound of the local error indicator eta; None: no bound (steps grow to ``dt``).
    archive_every : mark every this many steps as archived (ParaView output).
    """

    dt: float
    dt_fine: float
    fine_after: float = 3e-3
    lookahead: float = 1.5
    growth: float = 2.0
    tolerance: float | None = None
    archive_every: int = 10

    def __post_init__(self) -> None:
        if not (self.dt > 0 and math.isfinite(self.dt)):
            raise ValueError(f"EventSteps: dt must be > 0 s, got {self.dt}")
        if not (0 < self.dt_fine <= self.dt * (1 + 1e-12)):
            raise ValueError(f"EventSteps: dt_fine must lie in (0, dt = {self.dt:g}] s, got {self.dt_fine}")
        if not self.fine_after >= 0 or not self.lookahead >= 0:
            raise ValueError("EventSteps: fine_after and lookahead must be >= 0")
        if not self.growth > 1:
            raise ValueError(f"EventSteps: growth must be > 1, got {self.growth}")
        if self.tolerance is not None and not self.tolerance > 0:
            raise ValueError(f"EventSteps: tolerance must be > 0 m, got {self.tolerance}")
        if self.archive_every < 1:
            raise ValueError(f"EventSteps: archive_every must be >= 1, got {self.archive_every}")


def gaps_and_closed(terms) -> tuple[np.ndarray, np.ndarray]:
    """Gaps [m] (inf where not finite) and closed flags of every contact node, one state() a term."""
    if not terms:
        return np.zeros(0), np.zeros(0, dtype=bool)
    states = [t.state() for t in terms]
    gap = np.concatenate([np.asarray(st.gap, dtype=float) for st in states])
    closed = np.concatenate([np.asarray(st.status) != 0 for st in states])
    return np.where(np.isfinite(gap), gap, np.inf), closed


def time_to_closing(gap0: np.ndarray, gap1: np.ndarray, closed: np.ndarray, dt: float) -> float:
    """Time [s] until the first open node closes if each keeps its gap rate of the last step,
    ``gap1 / ((gap0 - gap1) / dt)`` over the open nodes whose gap shrank; inf if none.

    gap0, gap1 : (n,) gaps [m] at the start and end of the last step.  closed : (n,) bool at its end.
    """
    closing = ~closed & (gap1 < gap0) & (gap1 > 0) & np.isfinite(gap0)
    if not np.any(closing):
        return math.inf
    rate = (gap0[closing] - gap1[closing]) / max(dt, 1e-300)
    return float(np.min(gap1[closing] / rate))


@dataclass(frozen=True)
class RigidMotion:
    """The rigid motion of a body's nodal accelerations (masses m_i, reference positions x_i):

        a_G = sum m_i a_i / M,     w' = sum m_i (x_i - x_G) x a_i / sum m_i |x_i - x_G|^2

    nodes (n,), mass (n,) [kg] (nodal masses, the row sums of the mass matrix), offset (n, 2) [m]
    = x_i - x_G, gyration [m] = sqrt(sum m_i |x_i - x_G|^2 / M)."""

    nodes: np.ndarray
    mass: np.ndarray
    offset: np.ndarray
    gyration: float

    @classmethod
    def of(cls, model: Model, nodes: np.ndarray) -> "RigidMotion":
        nodes = np.unique(np.asarray(nodes, dtype=np.int64))
        lumped = np.asarray(model.mass.sum(axis=1)).ravel()
        m = 0.5 * (lumped[2 * nodes] + lumped[2 * nodes + 1])
        x = model.mesh.points[nodes, :2]
        total = float(m.sum())
        if not total > 0:
            raise ValueError("RigidMotion: the body has no mass")
        offset = x - (m @ x) / total
        return cls(nodes, m, offset, math.sqrt(float(m @ np.sum(offset**2, axis=1)) / total))

    def change(self, a0: np.ndarray, a1: np.ndarray) -> float:
        """|a_G1 - a_G0| + r |w'1 - w'0| [m/s^2] between two nodal acceleration fields (n_dofs,)."""
        da = (a1 - a0).reshape(-1, 2)[self.nodes]
        m = self.mass
        total = m.sum()
        d_centre = (m @ da) / total
        moment = m @ (self.offset[:, 0] * da[:, 1] - self.offset[:, 1] * da[:, 0])
        d_spin = moment / (total * self.gyration**2)
        return float(np.hypot(*d_centre) + self.gyration * abs(d_spin))


def error_indicator(beta: float, dt: float, a0: np.ndarray, a1: np.ndarray, bodies: Sequence[RigidMotion]) -> float:
    """Zienkiewicz-Xie local error of a Newmark step [m] on the bodies' rigid motions, from two
    successive (mean) nodal accelerations a0, a1 (n_dofs,) (module docstring)."""
    if not bodies:
        return 0.0
    return abs(beta - 1.0 / 6.0) * dt * dt * max(b.change(a0, a1) for b in bodies)


class EventController:
    """The step controller of event-driven steps (module docstring; fem.time.march): asked after each
    step, it reads the contact terms' gaps and statuses and the state's velocity, and chooses the next
    step (``scheme_fine`` when fine, ``scheme`` otherwise) up to ``t_end``. ``spans``: the fine spans
    (``{"from", "to", "reason"}``, and ``"predicted_impact"`` [s] for a span started by a predicted
    closing).

    contacts : the contact terms to watch.  bodies : region names whose rigid motion the error
    indicator follows (none: no indicator)."""

    def __init__(self, model: Model, steps: EventSteps, contacts: Sequence, t_end: float, scheme,
                 scheme_fine=None, bodies: Sequence[str] = ()) -> None:
        self.steps, self.contacts, self.t_end = steps, contacts, t_end
        self.scheme, self.scheme_fine = scheme, scheme if scheme_fine is None else scheme_fine
        self.rigid = [RigidMotion.of(model, np.unique(model.mesh.cell_groups[name].connectivity)) for name in bodies]
        self.spans: list[dict] = []
        self._fine_until = -math.inf
        self._dt_last, self._dt_error = steps.dt_fine, steps.dt
        self._before = None  # (gap, closed, t, v, scheme) at the start of the step being made
        self._gap_prev = self._closed_prev = self._t_prev = None
        self._mean_prev = None  # the previous step's mean acceleration (n_dofs,)
        self._count = 0
        self._eps = 1e-9 * max(steps.dt_fine, 1e-300)

    def _accepted(self, state: State) -> None:
        """Take in the step that just ended at ``state``: its gaps, its length, the error indicator."""
        gap, closed, t, v0, scheme = self._before
        self._gap_prev, self._closed_prev, self._t_prev = gap, closed, t
        self._dt_last = dt = state.t - t
        beta = getattr(scheme, "beta", None)
        if self.steps.tolerance is not None and self.rigid and beta is not None:
            mean = (state.v - v0) / dt
            if self._mean_prev is not None:
                eta = error_indicator(beta, dt, self._mean_prev, mean, self.rigid)
                self._dt_error = self.steps.dt if eta <= 0 else 0.9 * dt * (self.steps.tolerance / eta) ** (1.0 / 3.0)
            self._mean_prev = mean

    def next_step(self, state: State) -> Step | None:
        steps, eps, t = self.steps, self._eps, state.t
        if self._before is not None:
            self._accepted(state)
        if t >= self.t_end - eps:
            return None
        gap, closed = gaps_and_closed(self.contacts)
        reason, closing_in = None, math.inf
        if self._closed_prev is not None and closed.shape == self._closed_prev.shape \
                and np.any(closed != self._closed_prev):
            reason = "contact status changed"
        elif self._gap_prev is not None and gap.shape == self._gap_prev.shape:
            coarse = min(steps.dt, self._dt_last * steps.growth, self._dt_error)
            closing_in = time_to_closing(self._gap_prev, gap, closed, t - self._t_prev)
            if closing_in < steps.lookahead * coarse:
                reason = "impact predicted"
        if reason is not None:
            end = t + steps.fine_after
            if self.spans and self.spans[-1]["to"] >= t - eps:  # extends the span running
                self.spans[-1]["to"] = max(self.spans[-1]["to"], end)
            else:
                self.spans.append({"from": t, "to": end, "reason": reason})
                if reason == "impact predicted":
                    self.spans[-1]["predicted_impact"] = t + closing_in
            self._fine_until = max(self._fine_until, end)
        fine = t < self._fine_until - eps
        h = steps.dt_fine if fine else max(steps.dt_fine, min(steps.dt, self._dt_last * steps.growth, self._dt_error))
        t1 = t + h
        if t1 > self.t_end - 1e-6 * h:
            t1 = self.t_end
        scheme = self.scheme_fine if fine else self.scheme
        self._before = (gap, closed, t, state.v, scheme)
        self._count += 1
        return Step(t1, scheme, self._count % steps.archive_every == 0 or t1 >= self.t_end - eps)


def run_with_events(model: Model, phase: Phase, state: State, terms: Sequence, contacts: Sequence,
                    steps: EventSteps, monitor: Callable[[StepResult], bool] | None = None,
                    bodies: Sequence[str] = (), scheme_fine=None) -> Iterator[StepResult]:
    """Integrate ``phase``'s physics (fem.time.march) from ``state`` to ``phase.t_end`` with steps chosen by
    ``steps`` (:class:`EventController`): ``phase.scheme`` for the coarse steps, ``scheme_fine`` (None:
    the same) for the fine ones.

    terms : force and contact terms of the model.  contacts : the contact terms to watch (a subset).
    monitor(result) -> bool : called after each step; True stops the run there (e.g. overturning).
    bodies : region names whose rigid motion the error indicator follows (none: no indicator).

    Yields the initial state once (0 iterations), then one :class:`StepResult` per step, its
    ``archived`` flag every ``archive_every`` steps and at the end. Returns the fine spans
    (:attr:`EventController.spans`) as the generator's value.
    """
    controller = EventController(model, steps, contacts, phase.t_end, phase.scheme, scheme_fine, bodies)
    yield from march(model, phase, state, terms, controller, stop=monitor)
    return controller.spans
