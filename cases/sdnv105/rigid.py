"""SDNV105 — the rigid block recomputed for a run's own width, height, tilt and density.

contact.references.rocking's event-driven rigid rocking (exact nonlinear equation, the document's
impact law): the potential-energy drop to the first impact (the run's energy scale) and the impact
instants and kinetic energies the custom runs are graded against. (The friction the rigid pivot
needs, :func:`cases.sdnv105.config.friction_demand`, is with the Config that asks for it.)
"""
from __future__ import annotations

import math
import time

import numpy as np

from contact.references import rocking
from cases.sdnv105.config import Config, G


def rigid_potential_drop(config: Config) -> float:
    """Potential-energy drop [J] of the rigid block released at the run's tilt, from the release to
    its first impact (flat): M g R (cos(alpha - theta) - cos(alpha)), alpha = atan(b/l),
    R = sqrt(b^2 + l^2), M = rho (2b)(2l) per metre of thickness."""
    b, l = config.width / 2, config.height / 2
    alpha, radius = math.atan2(b, l), math.hypot(b, l)
    mass = config.rho * config.width * config.height
    return mass * G * radius * (math.cos(alpha - config.tilt_angle) - math.cos(alpha))


def rigid_reference(config: Config) -> dict:
    """Event-driven rigid-block rocking (contact.references.rocking, exact nonlinear equation, Housner's
    impact law of the document) for the run's geometry: impact instants, kinetic energies before
    and after each impact, and the kinetic-energy curve for the plots; ``wall_s`` its wall time [s]."""
    started = time.perf_counter()
    result = rocking.rock(config.width / 2, config.height / 2, config.tilt_angle, g=G, rho=config.rho,
                          n_impacts=5, model="nonlinear")
    curve_t = np.linspace(0.0, min(result.impact_times[-1], config.t_end), 800)
    curve_ke = np.asarray(result.energies(curve_t)[0])
    return {"model": "exact nonlinear rocking, impact law omega+ = (1 - 3 b^2 / (2 R^2)) omega-",
            "impact_times": list(result.impact_times), "impact_corner": list(result.impact_corner),
            "ke_before": list(result.ke_before), "ke_after": list(result.ke_after),
            "curve_t": curve_t.tolist(), "curve_ke": curve_ke.tolist(), "wall_s": time.perf_counter() - started}
