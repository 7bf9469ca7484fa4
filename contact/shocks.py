"""Shock post-processing (Code_Aster POST_DYNA_MODA_T, OPTION='IMPACT').

A shock is a maximal time interval over which the normal contact force exceeds a threshold
(SEUIL_FORCE, default 0). Per shock: the instant of the maximum force (INSTANT), the maximum force
(F_MAX), the duration (T_CHOC), the impulse (IMPULSION, integral of the force [N s]) and the
normal velocity at the start of the shock (V_IMPACT, negative when approaching). Start and end
instants are the threshold crossings of the linear interpolant of the given force history. A
force clipped at zero outside contact has no crossing between samples, so its shocks start and
end on samples (durations rounded up to the time step, as Code_Aster's POST_DYNA_MODA_T reports
them); pass the law's force extended outside contact (e.g. K p with a signed penetration p) to
locate the crossings between samples (cases/sdnd101.py does both).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class Shock:
    """One shock. instant [s] (time of F_max), f_max [N], duration [s], impulse [N s],
    v_impact [m/s] (normal velocity of the node at the start, along the obstacle normal),
    start, end [s]."""

    instant: float
    f_max: float
    duration: float
    impulse: float
    v_impact: float
    start: float
    end: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def _crossing(t0, t1, f0, f1, level) -> float:
    """Instant where the linear interpolant of (t0, f0)-(t1, f1) equals level."""
    if f1 == f0:
        return 0.5 * (t0 + t1)
    return t0 + (level - f0) * (t1 - t0) / (f1 - f0)


def detect_shocks(t: np.ndarray, force: np.ndarray, velocity: np.ndarray | None = None,
                  threshold: float = 0.0) -> list[Shock]:
    """Shocks in a normal-force history.

    Parameters
    ----------
    t : (n,) increasing instants [s].
    force : (n,) normal contact force [N] (compression positive).
    velocity : (n,) normal velocity of the contact node [m/s] (for V_IMPACT), optional.
    threshold : SEUIL_FORCE [N].
    """
    t = np.asarray(t, dtype=float)
    f = np.asarray(force, dtype=float)
    if t.shape != f.shape or t.ndim != 1:
        raise ValueError(f"time and force histories must have the same 1-D shape, got {t.shape} and {f.shape}")
    if np.any(np.diff(t) <= 0):
        raise ValueError("time history must be strictly increasing")
    on = f > threshold
    edges = np.diff(on.astype(int))
    starts = list(np.flatnonzero(edges == 1) + 1)
    ends = list(np.flatnonzero(edges == -1))
    if on[0]:
        starts.insert(0, 0)
    if on[-1]:
        ends.append(len(t) - 1)
    shocks = []
    for i0, i1 in zip(starts, ends):
        t_start = _crossing(t[i0 - 1], t[i0], f[i0 - 1], f[i0], threshold) if i0 > 0 else t[0]
        t_end = _crossing(t[i1], t[i1 + 1], f[i1], f[i1 + 1], threshold) if i1 < len(t) - 1 else t[-1]
        seg_t = np.concatenate([[t_start], t[i0:i1 + 1], [t_end]])
        seg_f = np.concatenate([[threshold], f[i0:i1 + 1], [threshold]])
        k = i0 + int(np.argmax(f[i0:i1 + 1]))
        v_imp = float(np.interp(t_start, t, velocity)) if velocity is not None else float("nan")
        shocks.append(Shock(instant=float(t[k]), f_max=float(f[k]), duration=float(t_end - t_start),
                            impulse=float(np.trapezoid(seg_f, seg_t)), v_impact=v_imp,
                            start=float(t_start), end=float(t_end)))
    return shocks
