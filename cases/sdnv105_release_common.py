"""SDNV105 — the release loop: how the free rocking is stepped (:func:`run_release`).

The benchmark's windows (fine steps around its impacts, coarse between, fine steps added where an
impact is predicted and extended while a corner still bounces), fem.time.stepping's event-driven
steps, or d's uniform steps; every step recorded and followed by the energy watch.
"""
from __future__ import annotations

import logging

import numpy as np

from contact.output import ContactRecorder
from contact.state import OPEN
from fem.time.dynamics import State
from fem.stage.energy import CreationWatch
from fem.io.recorder import RunRecorder, record_steps
from fem.time.stepping import EventSteps, run_with_events, time_to_closing
from cases.sdnv105_energy_common import watched
from cases.sdnv105_model_common import Study
from cases.sdnv105_phases_common import release_phase, release_windows


logger = logging.getLogger(__name__)

IMPACT_FINE_AFTER = 3e-3  # s of fine steps after a predicted impact
IMPACT_ALPHA = -0.2  # HHT alpha of the automatic impact windows (benchmark a, c)
POST_IMPACT_CHUNK = 1e-3  # s: fine-step extensions while contact statuses still change
POST_IMPACT_MAX = 10e-3


def _predicted_impact(contact, previous: tuple | None, t: float) -> float:
    """Time until the first open contact node closes, from the gap and its rate over the last
    step (inf when no node is closing; fem.time.stepping.time_to_closing)."""
    if previous is None:
        return np.inf
    st = contact.state()
    gap = np.where(np.isfinite(st.gap), st.gap, np.inf)
    gap0, t0 = previous
    return time_to_closing(gap0, gap, st.status != OPEN, t - t0)


def run_release(study: Study, state: State, rec: RunRecorder, rows: list[dict], integrator,
                 contact_series: ContactRecorder | None = None, watch: CreationWatch | None = None) -> list[dict]:
    """Run the release windows. Fine windows run as given. Coarse windows advance one step at a
    time and watch the contact: when an open node is predicted to close within 1.5 coarse steps and
    before the next fine window starts, fine steps with alpha = -0.2 run until 3 ms after the
    predicted impact. With event-driven steps (Config.steps), after the fine start the steps are
    fem.time.stepping's (fine steps with alpha = -0.2 through every contact event). Every step is
    followed by the contact's energy watch (:func:`cases.sdnv105_energy_common.watched`). Returns
    the automatic refinements made."""
    cfg = study.config
    windows = release_windows(study)
    refinements: list[dict] = []
    first = True
    if cfg.contact_events_resolved == "located":
        # contacts close and open at their instants (contact.multipliers, closing and release
        # rules): the immediate rules take and give O(dt) energy that depends on where in the step
        # a corner lands or lifts. Release phases only: the preload has no impact.
        study.contact.closing = study.contact.release = "located"

    def advance(phase):
        nonlocal state, first
        state = record_steps(rec, watched(study, watch, integrator(study.model, phase, state, [study.contact])), rows,
                             skip_first=not first,
                             on_archived=contact_series.record if contact_series is not None else None).state
        first = False

    def settle(alpha, modified):
        """Extend a fine window by 1 ms chunks (10 ms at most, not past the next fine window) while
        a corner's contact status changed during the last millisecond: a block still bouncing
        on its corner must not be left to coarse steps."""
        extended = 0.0
        while extended < POST_IMPACT_MAX and state.t < cfg.t_end - 1e-12:
            recent = [r for r in rows if r["t"] > state.t - POST_IMPACT_CHUNK - 1e-12]
            if len({(r["status_O"] != OPEN, r["status_A"] != OPEN) for r in recent}) <= 1:
                return
            t1 = min(state.t + POST_IMPACT_CHUNK, cfg.t_end)
            refinements.append({"from": state.t, "to": t1, "reason": "contact statuses still changing"})
            advance(release_phase(study, f"settle {state.t:.5f}", state.t, t1, cfg.dt_fine, alpha, modified))
            extended += POST_IMPACT_CHUNK

    if cfg.steps == "events":
        # the benchmark's fine start, then fem.time.stepping: fine steps (HHT IMPACT_ALPHA) from before a
        # predicted impact and for IMPACT_FINE_AFTER after every contact status change, steps
        # growing to --dt elsewhere
        start = windows[0]
        advance(release_phase(study, f"fine {start.t_start:g}-{start.t_end:g}", state.t, start.t_end, cfg.dt_fine,
                              start.alpha, start.modified))
        steps = run_with_events(study.model, lambda name, t0, t1, dt, fine: release_phase(
            study, name, t0, t1, dt, IMPACT_ALPHA if fine else 0.0), state, [study.contact], [study.contact],
            cfg.t_end, EventSteps(cfg.dt, cfg.dt_fine, fine_after=IMPACT_FINE_AFTER,
                                  archive_every=cfg.archive_every))
        return record_steps(rec, watched(study, watch, steps), rows, skip_first=True,
                            on_archived=contact_series.record if contact_series is not None else None).value or []
    for k, w in enumerate(windows):
        if w.step == "uniform":
            advance(release_phase(study, "release", w.t_start, w.t_end, cfg.dt, 0.0))
            continue
        if w.step == "fine":
            if state.t >= w.t_end - 1e-12:  # already covered by an extension
                continue
            advance(release_phase(study, f"fine {w.t_start:g}-{w.t_end:g}", state.t, w.t_end, cfg.dt_fine,
                                  w.alpha, w.modified))
            settle(w.alpha, w.modified)
            continue
        next_fine = next((v.t_start for v in windows[k + 1:] if v.step == "fine"), np.inf)
        previous = None
        while state.t < w.t_end - 1e-12:
            t_hit = _predicted_impact(study.contact, previous, state.t)
            if t_hit < 1.5 * cfg.dt and state.t + t_hit < next_fine:
                t1 = min(state.t + t_hit + IMPACT_FINE_AFTER, w.t_end)
                refinements.append({"from": state.t, "to": t1, "predicted_impact": state.t + t_hit})
                logger.info("impact predicted at %.6f s: fine steps %.6f -> %.6f s", state.t + t_hit, state.t, t1)
                advance(release_phase(study, f"impact {state.t:.5f}", state.t, t1, cfg.dt_fine, IMPACT_ALPHA))
                settle(IMPACT_ALPHA, False)
                previous = None
                continue
            st = study.contact.state()
            previous = (np.where(np.isfinite(st.gap), st.gap, np.inf), state.t)
            advance(release_phase(study, f"{w.step} {state.t:.5f}", state.t, min(state.t + cfg.dt, w.t_end),
                                  cfg.dt, w.alpha, w.modified))
    return refinements
