"""SDNV105 — how the stages are stepped (:func:`stage_steps`).

The self-weight and the tilt in steps of 7.5 ms (HHT alpha -0.3 and -0.6, docs/references.md,
"SDNV105's phases"); the free rocking in the benchmark's windows (fine steps around its impacts,
coarse between, fine steps added where an impact is predicted and extended while a corner still
bounces: fem.problem.Windows), in fem.time.stepping's event-driven steps after the benchmark's fine
start (:class:`FineStartThenEvents`), or, for d, in uniform steps of --dt with the theta-scheme.
"""
from __future__ import annotations

from dataclasses import dataclass

from fem.problem import EventSteps, Uniform, Windows
from fem.problem.steps import scheme
from fem.time.march import Planned, segment
from fem.time.stepping import EventController
from cases.sdnv105.model import Study
from cases.sdnv105.phases import release_windows


IMPACT_FINE_AFTER = 3e-3  # s of fine steps after a predicted impact
IMPACT_ALPHA = -0.2  # HHT alpha of the automatic impact windows (benchmark a, c)
STAGE_DT = 0.0075  # s: the self-weight's and the tilt's steps


@dataclass(frozen=True)
class FineStartThenEvents:
    """The release's event-driven steps (Config.steps "events"): the benchmark's fine start (steps of
    ``dt_fine`` to ``start_end`` with HHT ``start_alpha``), then fem.time.stepping's steps: fine steps
    with HHT ``fine_alpha`` from before a predicted impact and for 3 ms after every contact status
    change, steps growing to ``dt`` (HHT ``alpha``) elsewhere. A steps spec of fem.problem.steps."""

    start_end: float
    start_alpha: float
    start_modified: bool
    dt: float
    dt_fine: float
    alpha: float
    fine_alpha: float
    archive_every: int

    def controller(self, assembled, settings, t_end: float, bodies=()):
        start = scheme(assembled, settings, self.start_alpha, self.start_modified)
        events = EventController(assembled.model, EventSteps(self.dt, self.dt_fine, fine_after=IMPACT_FINE_AFTER,
                                                             archive_every=self.archive_every),
                                 assembled.terms, t_end, scheme(assembled, settings, self.alpha),
                                 scheme(assembled, settings, self.fine_alpha))

        def plan(state):
            state = yield from segment(state.t, self.start_end, self.dt_fine, start, self.archive_every)
            while (step := events.next_step(state)) is not None:
                state = yield step

        planned = Planned(plan)
        planned.spans = events.spans
        return planned, start


def _alpha(study: Study, alpha: float) -> float:
    """--alpha, when given, in every window of the release."""
    return alpha if study.config.alpha is None else study.config.alpha


def release_steps(study: Study):
    """The release's steps spec (module docstring)."""
    cfg = study.config
    rows = release_windows(study)
    if cfg.spec.contact == "theta":  # d: uniform steps, no windows (impacts are first-order events)
        return Uniform(cfg.dt, cfg.archive_every, theta=cfg.theta)
    if cfg.steps == "events":
        start = rows[0]
        return FineStartThenEvents(start.t_end, _alpha(study, start.alpha), start.modified, cfg.dt, cfg.dt_fine,
                                   _alpha(study, 0.0), _alpha(study, IMPACT_ALPHA), cfg.archive_every)
    return Windows([(w.t_start, w.t_end, cfg.dt_fine if w.step == "fine" else cfg.dt, _alpha(study, w.alpha),
                     w.step == "fine", w.modified) for w in rows],
                   refine_dt=cfg.dt_fine, refine_alpha=_alpha(study, IMPACT_ALPHA), refine_after=IMPACT_FINE_AFTER,
                   watch=("O", "A"), archive_every=cfg.archive_every)


def stage_steps(study: Study) -> dict:
    """Every stage's steps spec, by stage name (fem.problem.Settings.steps)."""
    archive = study.config.archive_every
    return {"self-weight": Uniform(STAGE_DT, archive, alpha=-0.3), "tilt": Uniform(STAGE_DT, archive, alpha=-0.6),
            "release": release_steps(study)}
