"""Time functions: piecewise-linear ramps with constant extrapolation (Code_Aster DEFI_FONCTION
with PROL_GAUCHE = PROL_DROITE = 'CONSTANT')."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PiecewiseLinear:
    """f(t) linear between the points (times[i], values[i]), constant outside.

    Attributes
    ----------
    times : strictly increasing instants [s].
    values : function values (dimensionless multipliers).
    """

    times: tuple[float, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        t = np.asarray(self.times, dtype=float)
        v = np.asarray(self.values, dtype=float)
        if t.ndim != 1 or t.size == 0 or t.shape != v.shape:
            raise ValueError(
                f"a piecewise-linear function needs as many times as values (got {t.size} times, {v.size} values)"
            )
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
            raise ValueError("piecewise-linear function: times and values must be finite")
        if np.any(np.diff(t) <= 0):
            raise ValueError(f"piecewise-linear function: times must be strictly increasing, got {list(t)}")
        object.__setattr__(self, "times", tuple(float(x) for x in t))
        object.__setattr__(self, "values", tuple(float(x) for x in v))

    def __call__(self, t: float) -> float:
        return float(np.interp(t, self.times, self.values))


@dataclass(frozen=True)
class Constant:
    """f(t) = value."""

    value: float = 1.0

    def __call__(self, t: float) -> float:
        return float(self.value)


def ramp(t0: float, t1: float, v0: float = 0.0, v1: float = 1.0) -> PiecewiseLinear:
    """v0 before t0, linear to v1 at t1, v1 afterwards (Code_Aster's usual load ramp)."""
    return PiecewiseLinear((t0, t1), (v0, v1))
