"""SDNV105 — the release loop: how the free rocking is stepped (:func:`run_release`).

The benchmark's windows (fine steps around its impacts, coarse between, fine steps added where an
impact is predicted and extended while a corner still bounces: fem.time.windows), fem.time.stepping's
event-driven steps, or d's uniform steps; the release marched as one stage (fem.time.march), every step
recorded and followed by the energy watch.
"""
from __future__ import annotations

from contact.output import ContactRecorder
from fem.stage.energy import CreationWatch
from fem.stage.phase import State
from fem.io.recorder import RunRecorder, record_steps
from fem.time.march import Planned, march, segment
from fem.time.stepping import EventController, EventSteps
from fem.time.windows import ImpactRefinement, Settling, Window, WindowSteps
from cases.sdnv105_energy_common import watched
from cases.sdnv105_model_common import Study
from cases.sdnv105_phases_common import release_phase, release_scheme, release_windows


IMPACT_FINE_AFTER = 3e-3  # s of fine steps after a predicted impact
IMPACT_ALPHA = -0.2  # HHT alpha of the automatic impact windows (benchmark a, c)
POST_IMPACT_CHUNK = 1e-3  # s: fine-step extensions while contact statuses still change
POST_IMPACT_MAX = 10e-3


def release_steps(study: Study):
    """The release's step controller (fem.time.march) and the list its refinements are appended to.

    The benchmark's windows (:func:`cases.sdnv105_phases_common.release_windows`) as
    fem.time.windows.WindowSteps: in coarse windows, when an open node is predicted to close within
    1.5 coarse steps and before the next fine window starts, fine steps with alpha = -0.2 run until
    3 ms after the predicted impact; after a fine window or such a refinement, fine steps go on by
    1 ms (10 ms at most) while the status of corner O or A changed in the last millisecond. With
    event-driven steps (Config.steps), the fine start, then fem.time.stepping's steps (fine steps with
    alpha = -0.2 from before a predicted impact and for 3 ms after every contact status change,
    steps growing to --dt elsewhere). d: uniform steps of --dt."""
    cfg = study.config
    rows = release_windows(study)
    fine_scheme = release_scheme(study, IMPACT_ALPHA)
    if cfg.steps == "events":
        start = rows[0]
        events = EventController(study.model, EventSteps(cfg.dt, cfg.dt_fine, fine_after=IMPACT_FINE_AFTER,
                                                         archive_every=cfg.archive_every),
                                 [study.contact], cfg.t_end, release_scheme(study, 0.0), fine_scheme)

        def plan(state: State):
            state = yield from segment(state.t, start.t_end, cfg.dt_fine, release_scheme(study, start.alpha,
                                                                                        start.modified),
                                       cfg.archive_every)
            while (step := events.next_step(state)) is not None:
                state = yield step

        return Planned(plan), events.spans
    windows = [Window(w.t_start, w.t_end, cfg.dt_fine if w.step == "fine" else cfg.dt,
                      release_scheme(study, w.alpha, w.modified), fine=w.step == "fine") for w in rows]
    uniform = cfg.spec.contact == "theta"
    corners = [study.contact_index[c] for c in ("O", "A")]
    controller = WindowSteps(windows, cfg.t_end, [study.contact], watched=[corners],
                             refine=None if uniform else ImpactRefinement(cfg.dt_fine, fine_scheme, IMPACT_FINE_AFTER),
                             settle=None if uniform else Settling(POST_IMPACT_CHUNK, POST_IMPACT_MAX),
                             archive_every=cfg.archive_every)
    return controller, controller.refinements


def run_release(study: Study, state: State, rec: RunRecorder, rows: list[dict], integrator=march,
                contact_series: ContactRecorder | None = None, watch: CreationWatch | None = None) -> list[dict]:
    """March the release (:func:`release_steps`) from ``state``, every step recorded into ``rec`` and
    ``rows`` and followed by the contact's energy watch (:func:`cases.sdnv105_energy_common.watched`).
    ``integrator``: fem.time.march.march or a stand-in with its signature. Returns the automatic
    refinements made (the event-driven steps' fine spans)."""
    cfg = study.config
    if cfg.contact_events_resolved == "located":
        # contacts close and open at their instants (contact.multipliers, closing and release
        # rules): the immediate rules take and give O(dt) energy that depends on where in the step
        # a corner lands or lifts. Release phases only: the preload has no impact.
        study.contact.closing = study.contact.release = "located"
    controller, refinements = release_steps(study)
    phase = release_phase(study, "release", state.t, cfg.t_end, cfg.dt, 0.0)
    record_steps(rec, watched(study, watch, integrator(study.model, phase, state, [study.contact], controller)), rows,
                 on_archived=contact_series.record if contact_series is not None else None)
    return refinements
