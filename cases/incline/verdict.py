"""The block on an incline (cases/block_on_incline.py): whether a run's block sticks or slides, read from
its histories, and the steps its acceleration is fitted on (:func:`stick_or_slide`), to be held against
the rigid block's regime and acceleration (contact.references.incline).

Stick or slide: the criterion (:func:`stick_or_slide`)
------------------------------------------------------
The slope is applied at once, so an FE block starts with a transient (its elastic ringing, and with
penalty springs a friction force overshooting by up to 2 while the tangential springs load): a block
that sticks may first slip a little. The verdict therefore reads the *second half* of the run after
the release, t in [t_end/2, t_end] (all the steps after the release if that half holds fewer than
:data:`MIN_FIT_STEPS` steps), the ``window``:

* the block **slides** when its base (the mean of the slips of its corners O and A relative to the
  table) moves by more than ``s_stick`` over the window, and **sticks** otherwise;
* ``s_stick`` (:func:`stick_threshold`) ``= max(1e-7 m, mu R_N,max / K_T)`` [m]: a sticking base moves
  only by the change of its elastic tangential deflection, at most the static deflection of penalty
  tangential springs of stiffness K_T [N/m] at the Coulomb cap for the most loaded base node (R_N,max
  [N]); the same threshold for every contact method, so that the verdict does not depend on the
  method's own stiffness;
* resolution: a block sliding from the release with acceleration a moves a (t_end^2 - t_w^2) / 2 over
  the window [t_w, t_end], so "sticks" means |a| < 2 s_stick / (t_end^2 - t_w^2)
  (``acceleration_resolution`` [m/s^2]).

The acceleration is then fitted (a least-squares line through the centre-of-mass velocity, which also
absorbs a start-up velocity offset) over the steps after the release where no base node sticks and at
least one slips when the block slides (the window if fewer than :data:`MIN_FIT_STEPS`), over the
window when it sticks: a least-squares line through a ringing of amplitude V over a window of length
W has a slope of at most 3 V / W.
"""
from __future__ import annotations

import numpy as np

STICK_SLIP_FLOOR = 1.0e-7  # [m], the smallest s_stick
MIN_FIT_STEPS = 3


def stick_threshold(mu: float, rn_node_max: float, tangential_stiffness: float) -> float:
    """``s_stick`` [m] (module docstring): 1e-7 m, or the static deflection of the penalty tangential
    springs at the Coulomb cap for the most loaded base node, mu R_N,max / RIGI_TAN, if larger."""
    return max(STICK_SLIP_FLOOR, mu * rn_node_max / tangential_stiffness)


def stick_or_slide(h: dict, t_end: float, threshold: float) -> dict:
    """The verdict of the module docstring's criterion from the histories ``h`` (arrays over the steps:
    ``t`` [s], 0 at the release; ``slip_O``, ``slip_A`` [m], the corners' slips relative to the table
    since the release; ``n_slip``, ``n_stick``, the base nodes slipping and sticking): the slip of the
    base over the window (second half of the run after the release) against ``threshold`` [m], and the
    steps to fit the acceleration on (``fit_mask``): the sliding steps (sliding) or the window
    (sticking)."""
    t = h["t"]
    after = t > 0
    window = after & (t >= 0.5 * t_end - 1e-12)
    if np.count_nonzero(window) < MIN_FIT_STEPS:
        window = after
    first, last = np.flatnonzero(window)[[0, -1]]
    base = 0.5 * (h["slip_O"] + h["slip_A"])
    slip_window = float(base[last] - base[first])
    slides = abs(slip_window) > threshold
    sliding = after & (h["n_slip"] > 0) & (h["n_stick"] == 0)
    if slides and np.count_nonzero(sliding) >= MIN_FIT_STEPS:
        fit, fit_on = sliding, "sliding steps (no base node sticking, at least one slipping)"
    else:
        fit, fit_on = window, "window"
    t_w, t_last = float(t[first]), float(t[last])
    span = t_last**2 - t_w**2
    criterion = (f"slides if the base (mean of O and A) slips more than {threshold:.3g} m relative to the table "
                 f"over the second half of the run, t = {t_w:.6g} to {t_last:.6g} s (after the start-up "
                 f"transient); sticks otherwise")
    return {
        "sticks": not slides,
        "criterion": criterion,
        "threshold_m": threshold,
        "window_s": [t_w, t_last],
        "window_steps": int(np.count_nonzero(window)),
        "slip_in_window_m": slip_window,
        "startup_slip_m": float(base[first]),
        "acceleration_resolution": 2.0 * threshold / span if span > 0 else None,
        "fit_on": fit_on,
        "fit_mask": fit,
    }
