"""SDNV105 — the energy checks of the release.

During the run, the watch on the energy each contact event creates (fem.stage.energy.CreationWatch,
:func:`creation_hook`: a run stops at an event that gives back more than its limit) and its report for
summary.json (:func:`creation_report`); after it, the energy books' balance (:func:`energy_balance`)
and their verdict (:func:`energy_check`, ``ENERGY_LIMIT``).
"""
from __future__ import annotations

import numpy as np

from contact.state import OPEN
from fem.stage.energy import CreationWatch, EnergyCreated
from cases.sdnv105.config import CREATION_LIMIT_IMMEDIATE, Config
from cases.sdnv105.model import Study, contact_node_name


# A completed run whose energy books miss by more than this fraction of the potential-energy drop
# (energy_balance's relative_error) exits with fem.run.lifecycle.EXIT_FAILED
ENERGY_LIMIT = 0.01


def creation_report(study: Study, watch: CreationWatch) -> dict:
    """summary.json's ``energy_creation``: the energy scale and the limit, the contact events seen
    and the largest energy one created (fem.stage.energy.CreationWatch), with its node."""
    largest = watch.largest
    return {"scale": watch.scale, "scale_is": "the rigid block's potential-energy drop to its first impact",
            "limit": watch.limit,
            "rule": "immediate" if watch.limit == CREATION_LIMIT_IMMEDIATE else "gives nothing back",
            "events": watch.events,
            "largest": None if largest is None else {
                "t_start": largest.t_start, "t": largest.t, "created": largest.created, "fraction": largest.fraction,
                "node": contact_node_name(study, largest.node)},
            "passed": largest is None or largest.fraction <= watch.limit}


def _creation_remedy(config: Config) -> str:
    """What resolves an event that created energy, for the error message."""
    if config.steps == "benchmark":
        return ("the benchmark's windows do not resolve this run's impacts: event-driven steps (--auto-steps, the "
                "default of a custom run) do")
    if config.steps == "events":
        return "its steps do not resolve it: a smaller --dt-fine does"
    return "its steps do not resolve it: a smaller --dt does"


def _stored_energy(contact) -> float:
    """Energy [J] the contact's laws store elastically: b's shock springs, 1/2 RIGI_NOR p^2 for a
    penetration p > 0 plus 1/2 RIGI_TAN e^2 for the tangential spring's elongation e
    (contact.penalty); 0 for the multipliers of a, c, d."""
    law = getattr(contact, "law", None)
    if law is None or not hasattr(contact, "elongation"):
        return 0.0
    p = np.maximum(-np.asarray(contact.state().gap, dtype=float), 0.0)
    p = np.where(np.isfinite(p), p, 0.0)
    return float(0.5 * law.normal_stiffness * np.sum(p * p)
                 + 0.5 * law.tangential_stiffness * np.sum(contact.elongation ** 2))


def creation_hook(study: Study, watch: CreationWatch):
    """The release's energy watch as a hook after each recorded step (fem.problem.Settings.after_step):
    raises fem.stage.energy.EnergyCreated, naming the time and the contact node, when a contact event
    created more than the watch's limit (the step that did is on disk)."""
    def after(stage: str, result) -> None:
        st, e = study.contact.state(), result.state.energies
        found = watch.observe(result.state.t, e.contact_work + e.friction_work, st.status != OPEN, st.rn, st.gap,
                              getattr(study.contact, "impulsive", False), _stored_energy(study.contact))
        if found is not None:
            raise EnergyCreated(found, watch.limit, contact_node_name(study, found.node),
                                _creation_remedy(study.config))

    return after


def energy_balance(R: dict, P: dict) -> dict:
    """Energy balance of the release (t = 0 onwards), from the recorded terms [J]:

        kinetic + strain + gravity potential + Rayleigh damping + contact work + friction work
        + numerical dissipation of the time scheme - work of the supports = constant

    every term computed on its own (fem.stage.energy: the contact laws' works from their reactions and
    gap / slip changes, the scheme's dissipation from its energy identity)

    ``initial_energy`` is the strain and kinetic energy of the model at the release (the strain
    energy the self-weight and the tilt left), energy the run starts with besides the drop;
    ``relative_error`` is the largest departure from the constant, relative to the potential-
    energy drop up to the first impact; ``numerical_dissipation`` (HHT / Newmark with gamma > 1/2
    in the benchmark's impact windows) is reported on its own, and ``relative_error_physical``
    leaves it out (the balance of the physical terms alone)."""
    t = R["t"]
    physical = (R["ke"] + R["strain_energy"] + R["gravity_potential"] + R["damping_dissipation"] + R["term_work"]
                - R["reaction_work"])
    total = physical + R["numerical_dissipation"]
    error, error_phys = total - total[0], physical - physical[0]
    first = t <= t[np.argmax(R["ke"])]
    drop = float(R["gravity_potential"][0] - R["gravity_potential"][first].min())
    rel = (lambda x: float(np.abs(x).max() / drop)) if drop > 0 else (lambda x: None)
    return {"potential_drop": drop, "initial_energy": float(R["strain_energy"][0] + R["ke"][0]),
            "max_abs_error": float(np.abs(error).max()), "relative_error": rel(error),
            "relative_error_physical": rel(error_phys),
            "damping_dissipated": float(R["damping_dissipation"][-1] - R["damping_dissipation"][0]),
            "contact_work": float(R["contact_work"][-1] - R["contact_work"][0]),
            "friction_work": float(R["friction_work"][-1] - R["friction_work"][0]),
            "numerical_dissipation": float(R["numerical_dissipation"][-1] - R["numerical_dissipation"][0]),
            "final_error": float(error[-1])}


def energy_check(energy: dict) -> dict:
    """Whether the energy books of the release agree with the motion computed: ``passed`` is False
    when their largest balance error exceeds ENERGY_LIMIT of the potential-energy drop
    (``relative_error`` of :func:`energy_balance`), None when the run has no drop to compare with.
    A completed run that fails it exits with fem.run.lifecycle.EXIT_FAILED (status stays ``complete``)."""
    rel = energy.get("relative_error")
    check = {"relative_error": rel, "limit": ENERGY_LIMIT, "passed": None if rel is None else bool(rel <= ENERGY_LIMIT)}
    if rel is None:
        check["note"] = "no potential-energy drop in the run: the books are not graded"
    elif not check["passed"]:
        check["message"] = (f"the energy books miss by {100 * rel:.3g} % of the potential-energy drop "
                            f"({energy['max_abs_error']:.4g} J of {energy['potential_drop']:.4g} J; the limit is "
                            f"{100 * ENERGY_LIMIT:g} %): the motion computed is not the one the forces in the books "
                            f"produce, so its impacts, energies and checks are not to be trusted")
    return check
