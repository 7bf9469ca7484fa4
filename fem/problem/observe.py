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

from fem import compiled
from fem.ranges import BadInput
from fem.stage.energy import CreationWatch, EnergyCreated

#: a node of a pair that opened by more than this [m] has lifted (uplift instants); a pair of no body's
#: (discrete masses) also takes it as its impact threshold
LIFT = 1e-6
#: a pair's impact is a slave node closing after it opened by more than this fraction of the size of the
#: smaller of the pair's bodies (the diagonal of its bounding box: 88 um for SDNV105's block): a node's
#: flutter on its support and the micrometre lifts of a heavy plinth under a rocking statue are no impacts
IMPACT_LIFT = 1e-4
#: closings of one pair within this time [s] of its last impact belong to that impact
IMPACT_WINDOW = 2e-3
#: a closed node's reaction alternates at a step when it went up then down (or down then up) by more
#: than this fraction of the mean reaction of the pair's closed nodes, on both sides of the step
ALTERNATION_STEP = 0.01


def fitted_rotation(X: np.ndarray, x: np.ndarray) -> float:
    """The rotation [rad, counter-clockwise +] that best carries the points ``X`` (n, 2) onto ``x`` (n, 2),
    both about their centroids (2-D Procrustes)::

        theta = atan2(sum X_i x x_i, sum X_i . x_i)"""
    cross = float(np.sum(X[:, 0] * x[:, 1] - X[:, 1] * x[:, 0]))
    dot = float(np.sum(X * x))
    return math.atan2(cross, dot)


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
        omega = float(np.sum(x[:, 0] * w[:, 1] - x[:, 1] * w[:, 0]) / np.sum(x * x))
        return fitted_rotation(self.X, x), omega


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
    had opened by more than ``lift`` [m] (IMPACT_LIFT of the pair's smaller body, fem.problem.simulate);
    closings within IMPACT_WINDOW of the pair's last impact are part of it (a base landing node after
    node, a node re-landing within one event).

    ``nodes``: name -> mesh node index of the slave nodes whose own reaction, gap and contact force on the slave
    body are history columns (``rn[PAIR@NAME]``, ``gap[PAIR@NAME]``, ``rx[PAIR@NAME]``, ``ry[PAIR@NAME]`` [N]).
    ``alternation``: the largest number of steps in a row over which one node, closed throughout, saw its
    normal reaction R go up and down in turn, (R_n+1 - R_n)(R_n - R_n-1) < 0 with both changes above
    ALTERNATION_STEP of the pair's mean closed reaction: a period-2 mode of the contact, which a time
    scheme that damps its highest frequencies lets die in a few steps (HHT alpha: by (1 + alpha) /
    (1 - alpha) a step) and Newmark's trapezoidal rule (alpha = 0) keeps; ``alternation_node`` (mesh
    node) and ``alternation_from`` [s] where that stretch began.
    ``penetration``: the largest penetration of a slave node into its master over the run, -gap of a
    node whose gap is negative [m] (``penetration[PAIR]`` a step's). ``uplift_time``: the first
    instant a node of the pair that had been closed opened by more than LIFT [s] (None: never)."""

    label: str
    term: object
    nodes: dict = None
    lift: float = LIFT  # [m] a landing after a lift beyond it is an impact (IMPACT_LIFT of the bodies' size)

    def __post_init__(self) -> None:
        self.lifted: np.ndarray | None = None  # the largest gap of each node since it last opened [m]
        self.closed: np.ndarray | None = None
        self.impacts: list[dict] = []
        self.max_gap = 0.0
        self.penetration = 0.0
        self.penetration_at: float | None = None
        self.uplift_time: float | None = None
        self.nodes = dict(self.nodes or {})
        self.alternation, self.alternation_node, self.alternation_from = 0, None, None
        # R_n, R_n - R_n-1, closed at n-1 and n, the turns in a row so far and the instant each run began
        self._r = self._d = self._shut = self._run = self._began = None
        self._t, self._mean = 0.0, 0.0

    def _alternate(self, t: float, rn: np.ndarray, closed: np.ndarray, nodes) -> None:
        """Count the steps in a row each closed node's reaction alternates (``alternation``)."""
        if self._r is not None:
            d = rn - self._r
            if self._d is not None:
                swing = np.minimum(np.abs(d), np.abs(self._d))
                turn = self._shut & closed & (d * self._d < 0) & (swing > ALTERNATION_STEP * self._mean)
                self._began = np.where(turn & (self._run == 0), self._t, self._began)
                self._run = np.where(turn, self._run + 1, 0)
                k = int(np.argmax(self._run))
                if self._run[k] > self.alternation:
                    self.alternation, self.alternation_node = int(self._run[k]), int(nodes[k])
                    self.alternation_from = float(self._began[k])
            else:
                self._run, self._began = np.zeros(rn.size, dtype=np.int64), np.zeros(rn.size)
            self._d = d
            self._shut = self._closed_now & closed
        self._r, self._t, self._closed_now = rn.copy(), float(t), closed.copy()  # (the term's arrays may be reused)
        n = int(np.count_nonzero(closed))
        self._mean = float(np.sum(rn[closed])) / n if n else 0.0

    def measure_penetration(self, t: float) -> float:
        """The pair's penetration at ``t`` [s], the largest -gap of a slave node whose gap is negative [m]
        (0: none); the largest over the run kept in :attr:`penetration`, its instant in :attr:`penetration_at`."""
        return self._keep_penetration(float(_penetration(np.asarray(self.term.state().gap, dtype=float))), t)

    def _keep_penetration(self, sunk: float, t: float) -> float:
        """``sunk`` [m], the penetration at ``t``, kept as the run's largest when it is."""
        if sunk > self.penetration:
            self.penetration, self.penetration_at = sunk, float(t)
        return sunk

    def columns(self) -> list[str]:
        return [f"n_closed[{self.label}]", f"max_gap[{self.label}]", f"rn[{self.label}]",
                f"friction_demand[{self.label}]", f"penetration[{self.label}]",
                *(f"{q}[{self.label}@{n}]" for n in self.nodes for q in ("rn", "gap", "rx", "ry"))]

    def observe(self, t: float, ke: float | None = None) -> dict:
        st = self.term.state()
        status = np.asarray(st.status, dtype=np.int64)
        raw_gap = np.asarray(st.gap, dtype=float)
        n = status.size
        if self.lifted is None:
            self.lifted, self.closed, self.was_closed = np.empty(n), np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_)
            first = True
        else:
            first = False
        closed, gap = np.empty(n, dtype=np.bool_), np.empty(n)
        numbers = np.empty(6)
        # closed nodes, gaps (0 where not finite), landings, uplift, lifts, the open gap, the penetration
        _pair_measures(status, raw_gap, self.lifted, self.closed, self.was_closed, self.lift, LIFT, first, closed, gap,
                       numbers)
        landed, highest, lifted_off, open_gap, sunk = int(numbers[0]), numbers[1], numbers[2] > 0, numbers[3], numbers[4]
        if landed:
            last = self.impacts[-1] if self.impacts else None
            if last is not None and t - last["time"] <= IMPACT_WINDOW:
                last["nodes"] += landed
            else:
                self.impacts.append({"time": float(t), "pair": self.label, "nodes": landed, "lift": float(highest)})
        if self.uplift_time is None and lifted_off:
            self.uplift_time = float(t)
        self.closed = closed
        open_gap = float(open_gap)
        self.max_gap = max(self.max_gap, open_gap)
        sunk = self._keep_penetration(float(sunk), t)
        rn = np.asarray(st.rn, dtype=float)
        rn_sum = float(np.sum(rn))
        self._alternate(t, rn, closed, st.nodes)
        row = {f"n_closed[{self.label}]": float(numbers[5]), f"max_gap[{self.label}]": open_gap,
               f"rn[{self.label}]": rn_sum,
               f"friction_demand[{self.label}]": abs(float(np.sum(st.rt))) / rn_sum if rn_sum > 0 else 0.0,
               f"penetration[{self.label}]": sunk}
        force = st.force if self.nodes else None  # (n_s, 2): the contact force on each slave node [N]
        for name, node in self.nodes.items():
            k = int(np.flatnonzero(np.asarray(st.nodes) == node)[0])
            row[f"rn[{self.label}@{name}]"] = float(rn[k])
            row[f"gap[{self.label}@{name}]"] = float(st.gap[k])
            fx, fy = float(force[k, 0]), float(force[k, 1])
            row[f"rx[{self.label}@{name}]"], row[f"ry[{self.label}@{name}]"] = fx, fy
        return row


@dataclass
class BodyWatch:
    """One body's rotation after each step, its largest |rotation|, and its overturning: |theta| at
    or above ``limit`` [rad] (the run stops there). Its verdict at the run's end: fem.problem.verdicts."""

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


@dataclass
class BodyKinetic:
    """One body's kinetic energy after each step, the history column ``ke[LABEL]``::

        ke = 1/2 v_b^T M_b v_b        [J]

    over the elements of the body's ``group`` (Code_Aster POST_ELEM ENER_CIN on its group; ``model``:
    fem.model.assembly.Model.kinetic_energy). The ``ke`` column is the whole model's: a block's own
    energy is the one a rocking benchmark grades, without its table's vibration."""

    label: str
    group: str
    model: object

    def columns(self) -> list[str]:
        return [f"ke[{self.label}]"]

    def observe(self, result) -> dict:
        return {f"ke[{self.label}]": self.model.kinetic_energy(result.state.v, self.group)}


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


#: what resolves an event that created energy, unless the statement says better (EnergyCreation.remedy)
CREATION_REMEDY = ("steps that resolve the event do (a smaller dt_fine), or contact events located inside their "
                   "step (contact_events = \"located\")")


@dataclass(frozen=True)
class EnergyCreation:
    """Stop the run, failed, at a contact event that gives back more than ``limit`` x ``scale`` [J] of the
    energy the contacts took (fem.stage.energy.CreationWatch: the books' contact and friction works over the
    event, less what penalty springs store): a law that stores no energy only takes it, so what it gives
    back is the time scheme's, not the physics'.

    scale : the energy scale [J], > 0 (SDNV105: the rigid block's potential-energy drop to its first
        impact).  limit : the fraction of it an event may give back, in (0, 1].  stages : the names of the
        dynamic stages watched (None: every one).  remedy : what resolves such an event, for the message."""

    scale: float
    limit: float = 0.01
    stages: tuple | None = None
    remedy: str = CREATION_REMEDY

    def __post_init__(self) -> None:
        for key, ok in (("scale", lambda x: x > 0), ("limit", lambda x: 0 < x <= 1)):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not ok(value):
                raise BadInput(f"energy_creation.{key}: " + ("an energy > 0 J" if key == "scale" else
                                                              "a fraction in (0, 1]") + f", got {value!r}")
        if self.stages is not None:
            object.__setattr__(self, "stages", (self.stages,) if isinstance(self.stages, str) else tuple(self.stages))


class CreationHook:
    """An :class:`EnergyCreation` watching a run: ``hook(stage, result)`` after each recorded step of a
    watched stage (fem.problem.Settings.after_step) feeds the watch every pair's contact nodes (``term.state()``:
    status, normal reaction, gap, in pair order) and raises fem.stage.energy.EnergyCreated, naming the node
    (its one-node group or its number), at an event beyond the limit; :meth:`report` is summary.json's
    ``energy_creation``."""

    def __init__(self, statement: EnergyCreation, terms, mesh) -> None:
        self.statement, self.terms, self.mesh = statement, terms, mesh
        self.watch = CreationWatch(statement.scale, statement.limit)

    def __call__(self, stage: str, result) -> None:
        if self.statement.stages is not None and stage not in self.statement.stages:
            return
        states = [t.state() for t in self.terms]
        e = result.state.energies
        stored = sum(float(t.stored_energy()) for t in self.terms if hasattr(t, "stored_energy"))
        found = self.watch.observe(result.state.t, e.contact_work + e.friction_work,
                                   np.concatenate([np.asarray(s.status) != 0 for s in states]),
                                   np.concatenate([s.rn for s in states]), np.concatenate([s.gap for s in states]),
                                   any(getattr(t, "impulsive", False) for t in self.terms), stored)
        if found is not None:
            raise EnergyCreated(found, self.watch.limit, self.node_name(found.node), self.statement.remedy)

    def node_name(self, k: int | None) -> str:
        """The contact node ``k`` (an index into the pairs' slave nodes in pair order) by its mesh name."""
        if k is None:
            return "-"
        nodes = np.concatenate([np.asarray(t.state().nodes) for t in self.terms])
        return self.mesh.node_name(int(nodes[k]))

    def report(self) -> dict:
        """The scale and the limit, the contact events seen and the largest energy one gave back, with
        its node; ``passed``: none beyond the limit."""
        w, largest = self.watch, self.watch.largest
        return {"scale": w.scale, "limit": w.limit, "events": w.events,
                "largest": None if largest is None else {
                    "t_start": largest.t_start, "t": largest.t, "created": largest.created,
                    "fraction": largest.fraction, "node": self.node_name(largest.node)},
                "passed": largest is None or largest.fraction <= w.limit}


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


@compiled.loop(cache=True, error_model="numpy")
def _pair_measures(status, raw_gap, lifted, was, was_closed, lift, uplift_gap, first, closed, gap, numbers):
    """One step of :class:`PairWatch` node by node: closed = status != 0; gap = raw_gap where finite,
    else 0; on the ``first`` step ``lifted`` = gap of the open nodes (0 closed), ``was`` = ``was_closed``
    = closed. Then: the landings (closed now, open before, lifted by more than ``lift``): their count
    and largest lift; an uplift (a node closed at some earlier step now open by more than
    ``uplift_gap``); ``was_closed`` |= closed; ``lifted`` = 0 on the closed nodes, else the largest gap
    since the node opened; the largest gap of an open node (0: none open) and the penetration
    max(-min of the finite raw gaps, 0) (0: none finite), as Python's max takes it. Updates lifted and
    was_closed in place (``was``, the previous closed mask, is read only); fills closed, gap and numbers
    (6,) = (landings, their largest lift, uplift 1/0, open gap, penetration, closed nodes)."""
    n = status.size
    for i in range(n):
        closed[i] = status[i] != 0
        g = raw_gap[i]
        gap[i] = g if math.isfinite(g) else 0.0
        if first:
            lifted[i] = 0.0 if closed[i] else gap[i]
            was[i] = closed[i]
            was_closed[i] = closed[i]
    landings, highest, uplift, n_closed = 0, 0.0, 0.0, 0
    open_gap, any_open = 0.0, False
    for i in range(n):
        if closed[i] and not was[i] and lifted[i] > lift:
            highest = lifted[i] if landings == 0 or lifted[i] > highest else highest
            landings += 1
        if was_closed[i] and not closed[i] and gap[i] > uplift_gap:
            uplift = 1.0
        was_closed[i] = was_closed[i] or closed[i]
        if closed[i]:
            lifted[i] = 0.0
            n_closed += 1
        else:
            lifted[i] = lifted[i] if lifted[i] >= gap[i] else gap[i]
            if not any_open or gap[i] > open_gap:
                open_gap, any_open = gap[i], True
    numbers[0], numbers[1], numbers[2] = landings, highest, uplift
    numbers[3], numbers[4], numbers[5] = open_gap, _penetration(raw_gap), n_closed


@compiled.loop(cache=True, error_model="numpy")
def _penetration(raw_gap):
    """max(-min g, 0) over the finite gaps g (n_s,) [m], as Python's max takes it; 0 when none is finite."""
    smallest, any_finite = 0.0, False
    for i in range(raw_gap.size):
        g = raw_gap[i]
        if math.isfinite(g) and (not any_finite or g < smallest):
            smallest, any_finite = g, True
    sunk = 0.0
    if any_finite:
        sunk = -smallest
        if 0.0 > sunk:  # Python's max(-min, 0.0)
            sunk = 0.0
    return sunk


@compiled.warm_up
def _load_compiled_loops() -> None:
    """Call the loop once in the types of a run, when a run starts (fem.compiled.load): numba loads it from
    its cache before the run reports "running", not at its first step."""
    _pair_measures(np.array([0, 1]), np.array([0.0, np.inf]), np.zeros(2), np.zeros(2, dtype=np.bool_),
                   np.zeros(2, dtype=np.bool_), 1e-4, LIFT, True, np.empty(2, dtype=np.bool_), np.empty(2), np.empty(6))
    _penetration(np.zeros(2))
