"""What every support motion shares (:mod:`fem.loads.base_motion`'s closed forms, :mod:`fem.loads.records`'
samples): the :class:`MotionHistory` protocol, the :class:`History` base class (acceleration, velocity
and displacement from one ``_state(t)`` method), the exact integration of a piecewise-polynomial
acceleration (:class:`PiecewisePolynomial`) and the checks of a motion's parameters
(:func:`checked_positive`, :func:`checked_finite`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


class MotionHistory(Protocol):
    """What the model needs from a support motion."""

    @property
    def duration(self) -> float: ...

    def acceleration(self, t): ...

    def velocity(self, t): ...

    def displacement(self, t): ...


def _times(t) -> np.ndarray:
    return np.asarray(t, dtype=float)


class History:
    """acceleration / velocity / displacement from one ``_state(t) -> (a, v, d)`` method.

    At one instant (a scalar t) the state is computed once and kept until another instant is
    asked for: a time step asks for the acceleration (the inertial load), the displacement (the
    imposed support) and the recorder's columns at the same t, Newton's iterations again at each
    iteration (the closed forms cost tens of microseconds on 0-d arrays)."""

    def _state(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    #: ``_acceleration(t) -> a``, the first of ``_state(t)`` computed alone, the same bits (None: the
    #: whole state is computed): a table-frame run asks for the acceleration alone at most instants
    _acceleration = None

    def _at(self, t, k: int):
        """Component k (0: a, 1: v, 2: d) at t: a float for a scalar t (the last instant's state
        kept; the acceleration alone when that is what is asked and the history can), an array of
        t's shape otherwise."""
        if np.ndim(t) != 0:
            return self._state(_times(t))[k]
        t = float(t)
        last = self.__dict__.get("_last_instant")  # (t, (a, v, d)); a cache, not a field
        if k == 0 and self._acceleration is not None and (last is None or last[0] != t):
            alone = self.__dict__.get("_last_acceleration")  # (t, a)
            if alone is None or alone[0] != t:
                alone = (t, float(self._acceleration(np.asarray(t))))
                object.__setattr__(self, "_last_acceleration", alone)
            return alone[1]
        if last is None or last[0] != t:
            last = (t, tuple(float(x) for x in self._state(np.asarray(t))))
            object.__setattr__(self, "_last_instant", last)  # the frozen dataclasses' way round
        return last[1][k]

    def acceleration(self, t):
        """a(t) [m/s^2]."""
        return self._at(t, 0)

    def velocity(self, t):
        """v(t) = int_0^t a [m/s]."""
        return self._at(t, 1)

    def displacement(self, t):
        """d(t) = int_0^t v [m]."""
        return self._at(t, 2)


def checked_positive(owner: str, name: str, value, allow_inf: bool = False) -> float:
    """``value`` as a float; ValueError naming ``owner`` and ``name`` unless it is > 0 and finite
    (or infinite, with ``allow_inf``)."""
    value = float(value)
    if not (value > 0.0 and (allow_inf or math.isfinite(value))):
        raise ValueError(f"{owner}: {name} must be positive{'' if allow_inf else ' and finite'}, got {value}")
    return value


def checked_finite(owner: str, name: str, value) -> float:
    """``value`` as a float; ValueError naming ``owner`` and ``name`` unless it is finite."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be finite, got {value}")
    return value


@dataclass(frozen=True, eq=False)
class PiecewisePolynomial:
    """a(t) = sum_j c[k, j] (t - t_k)^j on [t_k, t_{k+1}], a constant ``tail`` after the last
    breakpoint, 0 before the first; v and d integrated exactly segment by segment:

        v(t) = v_k + sum_j c_kj tau^(j+1) / (j+1),   d(t) = d_k + v_k tau + sum_j c_kj tau^(j+2) / ((j+1)(j+2)).

    breakpoints : (n+1,) non-decreasing [s]; coefficients : (n, m+1) [m/s^2 / s^j].
    """

    breakpoints: np.ndarray
    coefficients: np.ndarray
    tail: float = 0.0
    velocities: np.ndarray = field(init=False)  # (n+1,) v at the breakpoints [m/s]
    displacements: np.ndarray = field(init=False)  # (n+1,) d at the breakpoints [m]

    def __post_init__(self) -> None:
        h = np.diff(self.breakpoints)[:, None]
        j = np.arange(self.coefficients.shape[1])
        dv = np.sum(self.coefficients * h ** (j + 1) / (j + 1), axis=1)
        dd_own = np.sum(self.coefficients * h ** (j + 2) / ((j + 1) * (j + 2)), axis=1)
        v = np.concatenate([[0.0], np.cumsum(dv)])
        d = np.concatenate([[0.0], np.cumsum(v[:-1] * h[:, 0] + dd_own)])
        object.__setattr__(self, "velocities", v)
        object.__setattr__(self, "displacements", d)

    def state(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        tk = self.breakpoints
        n = tk.size - 1
        k = np.clip(np.searchsorted(tk, t, side="right") - 1, 0, n - 1)
        tau = np.clip(t, tk[0], tk[-1]) - tk[k]
        c = self.coefficients[k]
        a = np.zeros_like(tau)
        v = self.velocities[k].copy()
        d = self.displacements[k] + self.velocities[k] * tau
        for j in range(c.shape[-1]):
            a += c[..., j] * tau**j
            v += c[..., j] * tau ** (j + 1) / (j + 1)
            d += c[..., j] * tau ** (j + 2) / ((j + 1) * (j + 2))
        late = np.maximum(t - tk[-1], 0.0)
        v_end, d_end = self.velocities[-1], self.displacements[-1]
        before, after = t < tk[0], t > tk[-1]
        a = np.where(before, 0.0, np.where(after, self.tail, a))
        v = np.where(before, 0.0, np.where(after, v_end + self.tail * late, v))
        d = np.where(before, 0.0, np.where(after, d_end + v_end * late + 0.5 * self.tail * late**2, d))
        return a, v, d
