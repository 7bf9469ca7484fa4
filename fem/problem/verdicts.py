"""One overturning verdict rule for every front-end (fem.problem.simulate, the shaking-table case): a body
is "yes" overturned when its rotation reached its overturning angle; "no" only when that is proven; a
body held by a support gets no verdict; "undecided" otherwise, never "no" by default.

Proven not to overturn (the base's acceleration zero from the run's end on: the frame is inertial and,
without input, the bodies' mechanical energy only decreases):

1. **energy below the barrier**: the base is still from the run's end on, the body is on the near side
   of its unstable equilibrium (|theta| < alpha, half its overturning angle) and its mechanical energy
   measured from rest is below (1 - OVERTURN_MARGIN) of the energy barrier that takes it from rest to
   that equilibrium: it can never climb there again. For a rigid rectangle rocking on a corner (R its
   half diagonal, I_O = 4 m R^2 / 3), per unit mass::

       E = (2/3) R^2 omega^2 + g R (cos(alpha - |theta|) - cos(alpha)),   E_b = g R (1 - cos(alpha))

   (:func:`rigid_energy`); the shaking-table case passes its FE energy (kinetic + potential + strain)
   and the column's barrier instead.
2. **never lifted**: nothing lifted and the rest of the base motion stays below the uplift acceleration:
   |a_h| - tan(alpha) a_v <= g tan(alpha) at every instant (Housner's a_h > tan(alpha) (g + a_v) lifts it).

OVERTURN_MARGIN keeps the verdict off the barrier by the energy books' own accuracy (1 %).
"""
from __future__ import annotations

import math

import numpy as np

#: the energy must stay below (1 - OVERTURN_MARGIN) of the barrier for a "no" (the books' accuracy)
OVERTURN_MARGIN = 0.01


def decide(*, overturned_at: float | None = None, held: bool = False, base_still: bool,
           beyond_balance: bool = False, energy: float | None = None, barrier: float | None = None,
           lifted: bool = True, rest_peak: float = math.inf, uplift_acceleration: float = 0.0,
           state: str = "", who: str = "the body") -> dict:
    """The verdict (module docstring): ``{"verdict": "yes" | "no" | "undecided" | "none", "reason"}``.

    overturned_at : the instant it reached its overturning angle [s] (None: it did not).  held : it holds
    a support (no verdict).  base_still : the base's acceleration is zero from the run's end on.
    beyond_balance : |theta| >= alpha at the end.  energy, barrier : its mechanical energy at the end and
    the barrier (same units).  lifted : some node of it lifted during the run.  rest_peak : the largest
    |horizontal acceleration| of the base after the run's end, or its uplift demand |a_x| - tan(alpha) a_y
    [m/s^2].  uplift_acceleration : what lifts it, g tan(alpha) [m/s^2].  state : what the reason says of the end state."""
    lead = f"{state}; " if state else ""
    if overturned_at is not None:
        return {"verdict": "yes", "overturn_time": overturned_at,
                "reason": f"{who} reached its overturning angle at {overturned_at:.6g} s"}
    if held:
        return {"verdict": "none", "reason": f"{who} holds a support: no overturning verdict"}
    if base_still:
        if beyond_balance:
            return {"verdict": "undecided",
                    "reason": f"{lead}the base is still from there on, and {who} is past its unstable equilibrium "
                              f"(alpha): it tips on, or falls back (run longer)"}
        if energy is not None and barrier is not None and energy < (1.0 - OVERTURN_MARGIN) * barrier:
            return {"verdict": "no", "reason": f"{lead}the base is still from there on: {who} can never reach "
                                               f"its unstable equilibrium again (energy below the barrier)"}
        return {"verdict": "undecided",
                "reason": f"{lead}the base is still from there on, but {who} has the energy to pass the barrier: "
                          f"its impacts decide (run longer)"}
    if not lifted and rest_peak <= uplift_acceleration:
        return {"verdict": "no", "reason": f"{lead}no corner lifted and the rest of the motion stays below the uplift "
                                           f"acceleration"}
    return {"verdict": "undecided", "reason": f"{lead}the base still moves after the run's end"}


def overturned(verdict: dict) -> bool | None:
    """summary.json's ``overturned``: True, False, or None (undecided, or no verdict)."""
    return {"yes": True, "no": False}.get(verdict["verdict"])


def rigid_energy(theta: float, omega: float, radius: float, alpha: float, g: float) -> tuple[float, float]:
    """(E, E_b) per unit mass [J/kg] of a rigid rectangle (half diagonal ``radius`` [m], slenderness
    ``alpha`` [rad]) at rotation ``theta`` [rad] and rate ``omega`` [rad/s] (module docstring)."""
    energy = (2.0 / 3.0) * radius ** 2 * omega ** 2 + g * radius * (math.cos(alpha - abs(theta)) - math.cos(alpha))
    return energy, g * radius * (1.0 - math.cos(alpha))


#: samples of a motion's rest (:func:`motion_samples`, :func:`remaining_peak`)
SAMPLES = 20001


def motion_samples(x, y, t: float) -> tuple[np.ndarray, np.ndarray]:
    """(a_x, a_y) [m/s^2] of the base-motion histories ``x``, ``y`` (None: still) after ``t`` [s] (their own
    time) to the later one's end, on SAMPLES points and, for a record, its samples there; empty once
    both have ended; inf for a motion that never ends."""
    parts = [h for h in (x, y) if h is not None]
    end = max((h.duration for h in parts), default=0.0)
    if t >= end:
        return np.zeros(0), np.zeros(0)
    if not math.isfinite(end):
        return np.array([math.inf]), np.array([0.0])
    times = np.linspace(t, end, SAMPLES)
    for h in parts:
        samples = np.asarray(getattr(h, "times", ()), dtype=float)
        times = np.union1d(times, samples[(samples >= t) & (samples <= end)])
    return tuple(np.asarray(h.acceleration(times), dtype=float) if h is not None else np.zeros(times.size)
                 for h in (x, y))


def remaining_peak(history, t: float) -> float:
    """Largest |a| [m/s^2] of a base-motion ``history`` (fem.loads.base_motion) after ``t`` [s] (its own
    time): 0 once it has ended, inf for a motion that never ends (the samples of :func:`motion_samples`)."""
    a, _ = motion_samples(history, None, t)
    return float(np.max(np.abs(a))) if a.size else 0.0
