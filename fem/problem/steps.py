"""The steps of a simulation's stages: what each stage's step controller (fem.time.march) is built from.

* :class:`Uniform`: steps of ``dt``;
* :class:`fem.time.stepping.EventSteps`: fine steps around contact events, coarse ones growing between;
* :class:`Windows`: a benchmark's schedule of fine and coarse windows, refined where an impact is
  predicted and settled while contact statuses change (fem.time.windows);
* :class:`CentralDifferences`: explicit steps of ``dt``, on the physical dofs or on a modal basis
  (fem.time.explicit): a spec that brings its own integrator (``integrate``) instead of Newton steps.

A case may bring its own: any object with ``controller(assembled, settings, t_end, bodies)`` returning
a step controller and its first scheme, and, when it does not take Newton steps, ``integrate(assembled,
phase, state, t_end, stop)`` yielding the stage's results (the start state first). A simulation takes one of them for every stage, or a mapping from stage names to them
(:class:`fem.problem.simulate.Settings`). The scheme of a step is Newmark/HHT with the alpha of its
window, of its spec or of the simulation (position-level laws), or Moreau–Jean's theta (velocity-level).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from fem import ranges
from fem.ranges import BadInput
from fem.stage.schemes import HHT, Newmark, Theta
from fem.time.explicit import central_differences, modal_basis, modal_central_differences
from fem.time.march import UniformSteps, until
from fem.time.stepping import EventController, EventSteps
from fem.time.windows import ImpactRefinement, Settling, Window, WindowSteps


def _alpha(value, key: str) -> None:
    """HHT's alpha in (-1, 0] (outside [-1/3, 0] first order and strongly damped: SDNV105's tilt takes
    -0.6 on purpose, fem.stage.schemes.HHT)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not -1.0 < value <= 0.0):
        raise BadInput(f"{key}: HHT alpha lies in (-1, 0], got {value!r}")


def _positive(value, key: str) -> None:
    """A time step [s]: a finite number > 0 within fem.ranges.TIME_STEP."""
    if isinstance(value, bool) or not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise BadInput(f"{key}: a finite number > 0 s, got {value!r}")
    ranges.check_key(key, value, ranges.TIME_STEP)


def _archive(value) -> None:
    if isinstance(value, bool) or not (isinstance(value, int) and value >= 1):
        raise BadInput(f"steps.archive_every: an integer >= 1, got {value!r}")
    ranges.check_key("steps.archive_every", value, ranges.ARCHIVE_EVERY)


#: the physical range of each number of an EventSteps (fem.time.stepping checks its signs and order)
EVENT_RANGES = {"dt": ranges.TIME_STEP, "dt_fine": ranges.TIME_STEP, "fine_after": ranges.DURATION_OR_ZERO,
                "lookahead": ranges.LOOKAHEAD, "growth": ranges.STEP_GROWTH, "tolerance": ranges.STEP_TOLERANCE,
                "archive_every": ranges.ARCHIVE_EVERY}


def check_event_steps(spec: EventSteps, key: str = "steps") -> None:
    """Each number of an EventSteps within its physical range (:data:`EVENT_RANGES`): BadInput
    ``steps.dt: 1e300 s is outside ...`` (``key``: ``steps`` or ``steps.STAGE``); ``tolerance`` None skipped."""
    for name, kind in EVENT_RANGES.items():
        ranges.check_key(f"{key}.{name}", getattr(spec, name), kind)


@dataclass(frozen=True)
class Uniform:
    """Uniform steps of ``dt`` [s]; every ``archive_every``-th step archived (ParaView); ``alpha``: the
    HHT alpha of the steps (None: the simulation's; SDNV105's self-weight takes -0.3, its tilt -0.6)."""

    dt: float
    archive_every: int = 10
    alpha: float | None = None
    theta: float | None = None

    def __post_init__(self) -> None:
        _positive(self.dt, "steps.dt")
        _archive(self.archive_every)
        _alpha(self.alpha, "steps.alpha")
        _theta(self.theta)

    def controller(self, assembled, settings, t_end: float, bodies=()):
        """The stage's step controller (fem.time.march.UniformSteps) and its scheme."""
        first = scheme(assembled, settings, self.alpha, theta=self.theta)
        return UniformSteps(t_end, self.dt, first, self.archive_every), first


@dataclass(frozen=True)
class Windows:
    """A schedule of windows (fem.time.windows): ``rows`` of (t_start, t_end, dt, alpha, fine) or
    (..., fine, modified) in absolute time [s], cut at the stage's end; MODI_EQUI ``modified``.

    refine_dt : in coarse windows, fine steps of this length [s] from the step where an impact is
        predicted within 1.5 coarse steps to ``refine_after`` [s] past it, with HHT ``refine_alpha``
        (None: no refinement).
    settle : fine windows and refinements go on by 1 ms (10 ms at most) while the statuses of the
        contact nodes in the node groups ``watch`` (None: every contact node) changed in the last ms.
    archive_every : every this many steps of a window archived, and each window's last.
    theta : Moreau–Jean's theta in every window instead of HHT (velocity-level laws take it anyway)."""

    rows: tuple
    refine_dt: float | None = None
    refine_alpha: float = -0.2
    refine_after: float = 3e-3
    settle: bool = True
    watch: tuple | None = None
    archive_every: int = 10
    theta: float | None = None

    def __post_init__(self) -> None:
        _theta(self.theta)
        object.__setattr__(self, "rows", tuple(tuple(r) for r in self.rows))
        if not self.rows:
            raise BadInput("steps.rows: at least one window")
        for i, r in enumerate(self.rows):
            if len(r) not in (5, 6):
                raise BadInput(f"steps.rows[{i}]: (t_start, t_end, dt, alpha, fine[, modified]), got {r!r}")
            if not r[0] < r[1]:
                raise BadInput(f"steps.rows[{i}]: t_start before t_end, got {r[0]!r}, {r[1]!r}")
            for j, end in enumerate(("t_start", "t_end")):
                ranges.check_key(f"steps.rows[{i}].{end}", r[j], ranges.INSTANT)
            _positive(r[2], f"steps.rows[{i}].dt")
            _alpha(r[3], f"steps.rows[{i}].alpha")
        if self.refine_dt is not None:
            _positive(self.refine_dt, "steps.refine_dt")
        _alpha(self.refine_alpha, "steps.refine_alpha")
        ranges.check_key("steps.refine_after", self.refine_after, ranges.DURATION_OR_ZERO)
        _archive(self.archive_every)


    def controller(self, assembled, settings, t_end: float, bodies=()):
        """The stage's step controller (fem.time.windows.WindowSteps) and its first scheme."""
        def of(alpha, modified=False):
            return scheme(assembled, settings, alpha, modified, self.theta, window=True)

        windows = [Window(r[0], min(r[1], t_end), r[2], of(r[3], bool(r[5]) if len(r) > 5 else False), fine=bool(r[4]))
                   for r in self.rows if r[0] < t_end]
        refine = (ImpactRefinement(self.refine_dt, of(self.refine_alpha), self.refine_after)
                  if self.refine_dt is not None else None)
        return WindowSteps(windows, t_end, assembled.terms, watched_nodes(assembled, self.watch), refine,
                           Settling() if self.settle else None, self.archive_every), windows[0].scheme


@dataclass(frozen=True)
class CentralDifferences:
    """Explicit central differences (Code_Aster DIFF_CENTRE) in steps of ``dt`` [s], every
    ``archive_every``-th archived (fem.time.explicit.central_differences): no Newton iteration, stable
    for dt < 2 / omega_max, a mass on every free dof.

    modes : None: on the physical dofs. N: on the N lowest modes of the model with its supports and
        springs (Code_Aster DYNA_VIBRA, BASE_CALCUL='GENE'; fem.time.explicit.modal_central_differences):
        the springs are in the basis (omega^2 q), the contact forces act on the physical displacement
        u = Phi q and are projected (SDND101's shock on a mass-spring); the energy books are kept on
        the physical dofs (closed to round-off when the basis holds every mode of the free dofs)."""

    dt: float
    modes: int | None = None
    archive_every: int = 1

    def __post_init__(self) -> None:
        _positive(self.dt, "steps.dt")
        _archive(self.archive_every)
        if self.modes is not None and (isinstance(self.modes, bool) or not isinstance(self.modes, int)
                                       or self.modes < 1):
            raise BadInput(f"steps.modes: an integer >= 1 (or none: the physical dofs), got {self.modes!r}")
        ranges.check_key("steps.modes", self.modes, ranges.MODES)

    def controller(self, assembled, settings, t_end: float, bodies=()):
        """Uniform steps of ``dt`` (their scheme, Newmark, is only what the stage's phase is built with)."""
        return UniformSteps(t_end, self.dt, Newmark(), self.archive_every), Newmark()

    def integrate(self, assembled, phase, state, t_end: float, stop=None):
        """The stage's results: the start state, then one per step to ``t_end`` [s] (``stop(result)``
        True ends it there)."""
        phase = replace(phase, t_end=t_end, dt=self.dt, archive_every=self.archive_every)
        model = assembled.model
        if self.modes is None:
            steps = central_differences(model, phase, state, assembled.all_terms())
        else:
            try:
                basis = modal_basis(model, phase, self.modes, assembled.springs)
            except ValueError as err:
                raise BadInput(f"steps.modes: {err}") from None
            steps = modal_central_differences(model, phase, state, basis, assembled.terms, assembled.springs)
        return until(steps, stop)


def events_controller(spec: EventSteps, assembled, settings, t_end: float, bodies=()):
    """Event-driven steps (fem.time.stepping.EventController): the simulation's alpha on coarse steps,
    alpha_fine on fine ones (or Moreau–Jean for velocity-level laws)."""
    fine_alpha = settings.alpha if settings.alpha_fine is None else settings.alpha_fine
    first = scheme(assembled, settings, None)
    return EventController(assembled.model, spec, assembled.terms, t_end, first,
                           scheme(assembled, settings, fine_alpha, window=True), bodies), first


def _theta(value) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not 0.5 <= value <= 1.0):
        raise BadInput(f"steps.theta: the Moreau-Jean theta lies in [1/2, 1], got {value!r}")




def scheme(assembled, settings, alpha: float | None, modified: bool = False, theta: float | None = None,
           window: bool = False):
    """The scheme of a step: Moreau–Jean with ``theta`` when given; else, for velocity-level laws
    (MoreauJean), Moreau–Jean with the simulation's theta unless a spec states its own ``alpha`` (not
    a window's: ``window``), which keeps HHT on the law's position-level term, as SDNV105 d before its
    release; else HHT(``alpha``, the simulation's when None; MODI_EQUI ``modified``)."""
    if theta is not None:
        return Theta(theta)
    if assembled.problem.scheme_kind == "theta" and (alpha is None or window):
        return Theta(settings.theta)
    return HHT(settings.alpha if alpha is None else alpha, modified_equilibrium=modified)


def watched_nodes(assembled, groups) -> list | None:
    """Per contact term, the indices of its nodes (``term.state().nodes``) in the node groups ``groups``
    (None: every node)."""
    if groups is None:
        return None
    nodes = np.concatenate([assembled.mesh.nodes(g) for g in groups])
    return [np.flatnonzero(np.isin(np.asarray(t.state().nodes), nodes)) for t in assembled.terms]


def controller(spec, assembled, settings, t_end: float, bodies=()):
    """The step controller of a stage ending at ``t_end`` [s] (fem.time.march) and its first scheme:
    ``spec.controller(...)`` (Uniform, Windows, or a case's own spec with that method), or the
    event-driven controller of an EventSteps."""
    if isinstance(spec, EventSteps):
        return events_controller(spec, assembled, settings, t_end, bodies)
    return spec.controller(assembled, settings, t_end, bodies)


def is_spec(spec) -> bool:
    """A steps spec: EventSteps, or an object with a ``controller`` method (Uniform, Windows, a case's)."""
    return isinstance(spec, EventSteps) or callable(getattr(spec, "controller", None))
