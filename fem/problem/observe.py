"""What a simulation watches after each step: per-body rotation, per-pair contact measures and
impacts, and the monitors that stop a run (a body overturned).

Contact terms are read through ``term.state()`` (arrays per slave node: ``status`` 0 open, else
closed; ``gap`` [m]; ``rn``, ``rt`` [N]), so nothing here imports a contact law.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

#: a slave node that left its master by more than this [m] and closes again makes an impact
LIFT = 1e-6
#: closings of one pair within this time [s] of its last impact belong to that impact
IMPACT_WINDOW = 2e-3


class BodyRotation:
    """The rigid rotation of a body that best fits its nodes' motion (2-D Procrustes)::

        theta = atan2(sum X_i x (x_i - c), sum X_i . (x_i - c))        [rad, counter-clockwise +]
        omega = sum (x_i - c) x (v_i - v_c) / sum |x_i - c|^2          [rad/s]

    X_i: the node's position about the body's initial centroid, x_i = X_i + u_i its current one, c
    and v_c the current centroid and its velocity. Exact for a rigid motion, a least-squares fit of a
    deforming one."""

    def __init__(self, points: np.ndarray, nodes: np.ndarray) -> None:
        self.nodes = np.asarray(nodes)
        self.X = points[self.nodes] - points[self.nodes].mean(axis=0)

    def __call__(self, u: np.ndarray, v: np.ndarray) -> tuple[float, float]:
        d = u.reshape(-1, 2)[self.nodes]
        x = self.X + d - d.mean(axis=0)
        w = v.reshape(-1, 2)[self.nodes]  # its mean (the centroid's velocity) drops out: sum of x is 0
        cross = float(np.sum(self.X[:, 0] * x[:, 1] - self.X[:, 1] * x[:, 0]))
        dot = float(np.sum(self.X * x))
        omega = float(np.sum(x[:, 0] * w[:, 1] - x[:, 1] * w[:, 0]) / np.sum(x * x))
        return math.atan2(cross, dot), omega


class CornerRotation:
    """The rotation of a body from two of its nodes (e.g. a block's base corners O and A)::

        theta = atan2(dy, dx) of A - O            [rad, counter-clockwise +; > 0: A lifted, rocking about O]
        omega = (dx vy - dy vx) / (dx^2 + dy^2)   [rad/s], (vx, vy) = v_A - v_O

    (absolute: relative to the base's frame, not to a body below)."""

    def __init__(self, points: np.ndarray, o: int, a: int) -> None:
        self.o, self.a = int(o), int(a)
        self.base = points[self.a] - points[self.o]

    def __call__(self, u: np.ndarray, v: np.ndarray) -> tuple[float, float]:
        o, a = self.o, self.a
        dx = self.base[0] + u[2 * a] - u[2 * o]
        dy = self.base[1] + u[2 * a + 1] - u[2 * o + 1]
        vx, vy = v[2 * a] - v[2 * o], v[2 * a + 1] - v[2 * o + 1]
        return math.atan2(dy, dx), (dx * vy - dy * vx) / (dx * dx + dy * dy)


@dataclass
class PairWatch:
    """One contact pair's measures after each step, and its impacts: a slave node closing after it
    had opened by more than LIFT; closings within IMPACT_WINDOW of the pair's last impact are part of
    it (a base landing node after node)."""

    label: str
    term: object

    def __post_init__(self) -> None:
        self.lifted: np.ndarray | None = None  # the largest gap of each node since it last opened [m]
        self.closed: np.ndarray | None = None
        self.impacts: list[dict] = []
        self.max_gap = 0.0

    def columns(self) -> list[str]:
        return [f"n_closed[{self.label}]", f"max_gap[{self.label}]", f"rn[{self.label}]",
                f"friction_demand[{self.label}]"]

    def observe(self, t: float, ke: float | None = None) -> dict:
        st = self.term.state()
        closed = np.asarray(st.status) != 0
        gap = np.where(np.isfinite(st.gap), st.gap, 0.0)
        if self.lifted is None:
            self.lifted, self.closed = np.where(closed, 0.0, gap), closed
        landing = closed & ~self.closed & (self.lifted > LIFT)
        if np.any(landing):
            last = self.impacts[-1] if self.impacts else None
            if last is not None and t - last["time"] <= IMPACT_WINDOW:
                last["nodes"] += int(np.count_nonzero(landing))
            else:
                self.impacts.append({"time": float(t), "pair": self.label, "nodes": int(np.count_nonzero(landing)),
                                     "lift": float(np.max(self.lifted[landing]))})
        self.lifted = np.where(closed, 0.0, np.maximum(self.lifted, gap))
        self.closed = closed
        open_gap = float(np.max(gap[~closed])) if np.any(~closed) else 0.0
        self.max_gap = max(self.max_gap, open_gap)
        rn = np.asarray(st.rn, dtype=float)
        rn_sum = float(np.sum(rn))
        return {f"n_closed[{self.label}]": float(np.count_nonzero(closed)), f"max_gap[{self.label}]": open_gap,
                f"rn[{self.label}]": rn_sum,
                f"friction_demand[{self.label}]": abs(float(np.sum(st.rt))) / rn_sum if rn_sum > 0 else 0.0}


@dataclass
class BodyWatch:
    """One body's rotation after each step, its largest |rotation|, and its overturning: |theta| at
    or above ``limit`` [rad] (the run stops there)."""

    label: str
    rotation: BodyRotation
    limit: float
    radius: float = 0.0  # R [m]: half the diagonal of the body's bounding box
    g: float = 0.0  # [m/s^2]

    def __post_init__(self) -> None:
        self.max_rotation = 0.0
        self.overturned_at: float | None = None
        self.theta = self.omega = 0.0

    def columns(self) -> list[str]:
        return [f"theta[{self.label}]", f"omega[{self.label}]"]

    def observe(self, t: float, u: np.ndarray, v: np.ndarray) -> dict:
        self.theta, self.omega = self.rotation(u, v)
        self.max_rotation = max(self.max_rotation, abs(self.theta))
        if self.overturned_at is None and abs(self.theta) >= self.limit:
            self.overturned_at = float(t)
        return {f"theta[{self.label}]": self.theta, f"omega[{self.label}]": self.omega}

    def settled(self) -> bool:
        """At the last step the body, taken as a rigid rectangle rocking on a corner (R the half
        diagonal, I_O = 4 m R^2 / 3, balance angle alpha = limit / 2), has too little kinetic energy to
        reach its balance angle from where it is::

            (2/3) R^2 omega^2 < g R (1 - cos(alpha - |theta|))
        """
        alpha = 0.5 * self.limit
        if abs(self.theta) >= alpha or self.radius <= 0:
            return False
        return (2.0 / 3.0) * self.radius ** 2 * self.omega ** 2 < self.g * self.radius * (1 - math.cos(alpha - abs(self.theta)))

    def verdict(self, finished: bool) -> bool | None:
        """True: overturned; False: the stages ran to their end, the body never rotated past a quarter
        of its overturning angle (half its balance angle) and it ends unable to reach its balance
        angle (:meth:`settled`); None otherwise: undecided (README "What a run guarantees": never an
        outcome it has not decided)."""
        if self.overturned_at is not None:
            return True
        if finished and self.max_rotation < 0.25 * self.limit and self.settled():
            return False
        return None


class WallClock:
    """A monitor: stop the run early once ``seconds`` of wall-clock time have passed since it was made
    (the run's status "interrupted", this limit its message). ``clock`` is the time source [s]."""

    def __init__(self, seconds: float, clock=time.monotonic) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
            raise ValueError(f"WallClock: seconds must be > 0, got {seconds!r}")
        self.seconds, self.clock = float(seconds), clock
        self.start = clock()

    def __call__(self, result) -> str | None:
        spent = self.clock() - self.start
        if spent >= self.seconds:
            return f"wall-clock limit of {self.seconds:g} s reached at t = {result.state.t:.6g} s"
        return None


def energy_books(history: dict) -> dict:
    """The energy balance of a stage, every term on its own (fem.stage.energy): the input (the work of
    the base's d'Alembert load: external work minus gravity's) against the bodies' kinetic, strain
    and gravity energies and the works of damping, contact, friction and the time scheme.
    ``relative_error``: the books' largest error over the largest of the input, the kinetic energy
    and the strain energy the stage started with."""
    h = history
    base_work = (h["external_work"] - h["external_work"][0]) + (h["gravity_potential"] - h["gravity_potential"][0])
    error = h["energy_balance_error"] - h["energy_balance_error"][0]
    scale = max(float(np.max(np.abs(base_work))), float(np.max(h["ke"])), abs(float(h["strain_energy"][0])), 1e-300)
    return {"input": float(base_work[-1]), "max_input": float(np.max(np.abs(base_work))),
            "max_kinetic": float(np.max(h["ke"])), "max_abs_error": float(np.max(np.abs(error))),
            "relative_error": float(np.max(np.abs(error)) / scale),
            "damping_dissipated": float(h["damping_dissipation"][-1] - h["damping_dissipation"][0]),
            "contact_work": float(h["contact_work"][-1] - h["contact_work"][0]),
            "friction_work": float(h["friction_work"][-1] - h["friction_work"][0]),
            "numerical_dissipation": float(h["numerical_dissipation"][-1] - h["numerical_dissipation"][0])}
