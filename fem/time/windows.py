"""A benchmark's release schedule as a step controller: windows of fine steps through its impacts,
coarse steps between, refined where an impact comes earlier than the schedule says.

Code_Aster's SDNV105 (docs/references.md, "SDNV105's phases" and "SDNV105 b and c") steps the free
rocking with a list of windows: fine steps (and a dissipative HHT alpha) around each expected
impact, coarse steps between. A run whose impacts move (another mesh, step or tilt) must not meet
an impact with coarse steps, so :class:`WindowSteps` adds, in coarse windows:

* **a predicted impact** (:class:`ImpactRefinement`): when an open contact node is predicted to
  close within ``lookahead`` coarse steps (from each node's gap and its rate over the last coarse
  step, fem.time.stepping.time_to_closing) and before the next fine window starts, fine steps run
  from now until ``after`` past the predicted instant;

and after a fine window or such a refinement:

* **settling** (:class:`Settling`): while the watched contact nodes' statuses (open / closed)
  changed during the last ``chunk``, the fine steps go on by ``chunk`` (``longest`` at most): a
  block still bouncing on its corner is not left to coarse steps.

A coarse window without a refinement is one run of uniform steps (the steps of
fem.stage.phase.uniform_times). ``refinements``: what was added (``{"from", "to",
"predicted_impact"}`` or ``{"from", "to", "reason"}``).
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from fem.stage.phase import State
from fem.time.march import Planned, Step, segment
from fem.time.stepping import gaps_and_closed, time_to_closing

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Window:
    """[t_start, t_end] [s] in steps of ``dt`` [s] with ``scheme``; ``fine``: a window through an
    impact (settled after, no impact predicted inside), else a coarse one."""

    t_start: float
    t_end: float
    dt: float
    scheme: object
    fine: bool = False


@dataclass(frozen=True)
class ImpactRefinement:
    """Fine steps ``dt`` [s] with ``scheme`` from a coarse step after which an open node is predicted
    to close within ``lookahead`` coarse steps, to ``after`` [s] past the predicted impact."""

    dt: float
    scheme: object
    after: float = 3e-3
    lookahead: float = 1.5


@dataclass(frozen=True)
class Settling:
    """Fine steps go on by ``chunk`` [s], ``longest`` [s] at most, while the watched nodes' statuses
    changed during the last ``chunk``."""

    chunk: float = 1e-3
    longest: float = 10e-3


class WindowSteps(Planned):
    """The step controller of a window schedule (module docstring).

    windows : the schedule, in time order, cut at the stage's end ``t_end`` [s].
    contacts : the contact terms whose gaps predict impacts.  watched : per contact term, the indices
        of its nodes whose statuses settling follows (None: every node).
    refine, settle : :class:`ImpactRefinement`, :class:`Settling` or None (not done).
    archive_every : every this many steps of a window archived, and each window's last."""

    def __init__(self, windows: Sequence[Window], t_end: float, contacts: Sequence = (),
                 watched: Sequence | None = None, refine: ImpactRefinement | None = None,
                 settle: Settling | None = None, archive_every: int = 1) -> None:
        self.windows, self.t_end, self.contacts = tuple(windows), t_end, tuple(contacts)
        self.watched, self.refine, self.settle, self.archive_every = watched, refine, settle, archive_every
        self.refinements: list[dict] = []
        self._statuses: list[tuple[float, tuple]] = []  # (t, closed flags of the watched nodes) per state
        super().__init__(self._plan)

    def next_step(self, state: State) -> Step | None:
        self._statuses.append((state.t, self._closed()))
        return super().next_step(state)

    def _closed(self) -> tuple:
        flags = []
        for k, term in enumerate(self.contacts):
            closed = np.asarray(term.state().status) != 0
            idx = None if self.watched is None else self.watched[k]
            flags.extend((closed if idx is None else closed[np.asarray(idx)]).tolist())
        return tuple(flags)

    def _settled(self, t: float) -> bool:
        """The watched statuses did not change during the last chunk before t."""
        since = t - self.settle.chunk - 1e-12
        return len({flags for s, flags in self._statuses if s > since}) <= 1

    def _settling(self, state: State, dt: float, scheme):
        total = 0.0
        while self.settle is not None and total < self.settle.longest and state.t < self.t_end - 1e-12:
            if self._settled(state.t):
                break
            t1 = min(state.t + self.settle.chunk, self.t_end)
            self.refinements.append({"from": state.t, "to": t1, "reason": "contact statuses still changing"})
            state = yield from segment(state.t, t1, dt, scheme, self.archive_every)
            total += self.settle.chunk
        return state

    def _plan(self, state: State):
        for k, w in enumerate(self.windows):
            if state.t >= w.t_end - 1e-12:  # already covered by an extension
                continue
            if w.fine:
                state = yield from segment(state.t, w.t_end, w.dt, w.scheme, self.archive_every)
                state = yield from self._settling(state, w.dt, w.scheme)
                continue
            if self.refine is None:
                state = yield from segment(state.t, w.t_end, w.dt, w.scheme, self.archive_every)
                continue
            next_fine = next((v.t_start for v in self.windows[k + 1:] if v.fine), math.inf)
            previous, count = None, 0
            while state.t < w.t_end - 1e-12:
                gap, closed = gaps_and_closed(self.contacts)
                t_hit = math.inf if previous is None else time_to_closing(previous[0], gap, closed, state.t - previous[1])
                if t_hit < self.refine.lookahead * w.dt and state.t + t_hit < next_fine:
                    t1 = min(state.t + t_hit + self.refine.after, w.t_end)
                    self.refinements.append({"from": state.t, "to": t1, "predicted_impact": state.t + t_hit})
                    logger.info("impact predicted at %.6f s: fine steps %.6f -> %.6f s", state.t + t_hit, state.t, t1)
                    state = yield from segment(state.t, t1, self.refine.dt, self.refine.scheme, self.archive_every)
                    state = yield from self._settling(state, self.refine.dt, self.refine.scheme)
                    previous = None
                    continue
                previous = (gap, state.t)
                t1 = min(state.t + w.dt, w.t_end)
                count += 1
                state = yield Step(t1, w.scheme, count % self.archive_every == 0 or t1 >= w.t_end - 1e-12)
