"""SDNV105 — the energy checks of the release.

During the run, the watch on the energy each contact event creates is the problem road's
(fem.problem.observe.EnergyCreation, stated by cases.sdnv105.run: a run stops at an event that gives back
more than its limit; :func:`creation_remedy` says what resolves one); its report for summary.json
(:func:`creation_report`); after the run, the energy books' balance (:func:`energy_balance`) and their
verdict (:func:`energy_check`, ``ENERGY_LIMIT``).
"""
from __future__ import annotations

import numpy as np

from cases.sdnv105.config import CREATION_LIMIT_IMMEDIATE, Config


# A completed run whose energy books miss by more than this fraction of the potential-energy drop
# (energy_balance's relative_error) exits with fem.run.lifecycle.EXIT_FAILED
ENERGY_LIMIT = 0.01


def creation_report(watched: dict) -> dict:
    """summary.json's ``energy_creation``: the run's watch (fem.problem.observe.CreationHook.report: the
    energy scale and the limit, the contact events seen and the largest energy one created, with its
    node) and what its scale and its limit are for SDNV105."""
    immediate = watched["limit"] == CREATION_LIMIT_IMMEDIATE
    return {"scale": watched["scale"], "scale_is": "the rigid block's potential-energy drop to its first impact",
            "limit": watched["limit"], "rule": "immediate" if immediate else "gives nothing back",
            **{k: v for k, v in watched.items() if k not in ("scale", "limit")}}


def creation_remedy(config: Config) -> str:
    """What resolves an event that created energy, for the error message."""
    if config.steps == "benchmark":
        return ("the benchmark's windows do not resolve this run's impacts: event-driven steps (--auto-steps, the "
                "default of a custom run) do")
    if config.steps == "events":
        return "its steps do not resolve it: a smaller --dt-fine does"
    return "its steps do not resolve it: a smaller --dt does"


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
