"""When an assembly of blocks (an arch, a wall, a column of drums) has collapsed, when its collapse
began, under what base acceleration, and at which joints it hinged.

A block's *motion* is the largest displacement of its nodes since the first dynamic stage began,
over its size (the diagonal of its bounding box)::

    m_b(t) = max_i |u_i(t) - u_i(t_0)| / D_b        (i: the block's nodes; dimensionless)

and the assembly's is the largest, m(t) = max_b m_b(t) (the history column ``moved``). Only the
blocks holding no support count. With :class:`Collapse` (``displacement``, ``onset``):

* the assembly has *collapsed* at the first step where m >= ``displacement`` (default 0.1: a block
  moved by a tenth of its size; an arch that stands moves by its elastic settlement, 1e-4 of a
  voussoir's size for stone); a run that ends its stages below it *stands* (``collapsed`` false); a
  run stopped or failed before either says nothing (``collapsed`` null: undecided);
* the collapse *began* at t_c, back-extrapolated from the instants t_1 and t_2 where m first reached
  ``onset`` and ONSET_GROWTH (8) times it: a mechanism driven by a load that grows linearly past its
  limit moves as (t - t_c)^3 (its generalized acceleration grows as t - t_c), so m(t_2) = 8 m(t_1)
  gives t_2 - t_c = 2 (t_1 - t_c), t_c = 2 t_1 - t_2. Measured on the 27-voussoir arch of t/R = 0.15
  under a ramp of 0.045 g/s (tests/test_masonry_arch_ramp.py), the acceleration at t_1 overshoots the
  limit analysis by 3 %, at t_c it lies 1.3 % below;
* ``collapse_multiplier``: under a base motion whose horizontal history is a
  :class:`fem.loads.base_motion.Ramp` (a monotone ramp), |a_x(t_c)| / g, the load factor of a limit
  analysis with a horizontal live load (contact.references.limit_analysis). The onset and the multiplier
  are stated under a ramp only (null otherwise: the back-extrapolation's premise does not hold);
* ``mechanism``: how the block whose motion reached ``displacement`` first moved, fitted as a rigid
  motion: ``rotation`` when its rotation turns its size by at least its centroid's travel (a block tipping
  on a corner, a voussoir turning about a hinge), ``sliding`` otherwise (a wall's courses on their beds);
* ``hinges``: when it collapsed, the contact pairs (joints; a merged contact's joints one by one,
  fem.problem.Contact ``merge``) with a slave node closed and one open by
  more than ``onset`` times the blocks' median size (0.3 mm for 0.3 m voussoirs: a hinge has turned by
  a few hundredths of a radian then, its open corner gaping millimetres, while a joint that only
  carries load opens by its elastic micrometres), in the problem's order; ``opened``: those with every
  node open by more than that (a block separated).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fem.loads.base_motion import Ramp
from fem.problem.observe import fitted_rotation
from fem.ranges import BadInput

#: the motion at the second instant of the onset's back-extrapolation, in onsets (2^3: t_2 - t_c = 2 (t_1 - t_c))
ONSET_GROWTH = 8.0
#: summary.json's keys of the collapse's mechanism (CollapseWatch._mechanism)
MECHANISM_KEYS = ("mechanism", "mechanism_block", "mechanism_rotation", "mechanism_translation")


@dataclass(frozen=True)
class Collapse:
    """When the blocks' motion (module docstring) says the assembly collapsed: ``displacement``, the
    motion over a block's size at which it has (> 0), ``onset``, that at which its collapse is seen to
    begin (> 0, ONSET_GROWTH times it at most ``displacement``); ``stop``: end the run there, complete
    (the physics decided, as an overturning does)."""

    displacement: float = 0.1
    onset: float = 1e-3
    stop: bool = True

    def __post_init__(self) -> None:
        for key in ("displacement", "onset"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not 0 < value <= 10:
                raise BadInput(f"collapse.{key}: a fraction of a block's size in (0, 10], got {value!r}")
        if not ONSET_GROWTH * self.onset <= self.displacement:
            raise BadInput(f"collapse.onset: {ONSET_GROWTH:g} times it ({ONSET_GROWTH * self.onset:g}) must be at most "
                           f"collapse.displacement ({self.displacement:g}): the onset is seen before the collapse")
        if not isinstance(self.stop, bool):
            raise BadInput(f"collapse.stop: true or false, got {self.stop!r}")


class CollapseWatch:
    """Follows the blocks' motion after each step (an observer: column ``moved``; a monitor: True
    once collapsed when the criterion stops the run) and reports it (:meth:`report`).

    ``blocks``: label -> node indices (the blocks holding no support); ``points`` (n, 2) [m];
    ``pairs``: the contact pairs' watches (fem.problem.observe.PairWatch: ``label``, ``term``), each
    term's ``state()`` giving ``status`` per slave node (0 open); ``gravity`` g [m/s^2]."""

    def __init__(self, criterion: Collapse, blocks: dict, points: np.ndarray, pairs, gravity: float) -> None:
        self.criterion, self.pairs, self.gravity = criterion, list(pairs), float(gravity)
        self.labels = list(blocks)
        nodes = [np.asarray(blocks[b], dtype=np.int64) for b in self.labels]
        self.nodes = np.concatenate(nodes) if nodes else np.zeros(0, dtype=np.int64)
        self.starts = np.cumsum([0] + [len(n) for n in nodes[:-1]]).astype(np.int64)
        self.size = np.array([float(np.hypot(*np.ptp(points[n], axis=0))) for n in nodes])
        self.X = np.asarray(points, dtype=float)[self.nodes]  # the blocks' nodes' initial positions (n_b, 2)
        self.mechanism = dict.fromkeys(MECHANISM_KEYS)  # summary.json's, null until the collapse
        self.u0: np.ndarray | None = None
        self.stage, self.t_start = None, 0.0
        self.largest, self.block = 0.0, None
        self.t1 = self.t2 = self.collapsed_at = None
        self.hinges: list[str] = []
        self.opened: list[str] = []
        self.accelerations: dict = {}

    def begin(self, stage, t_start: float, u: np.ndarray) -> None:
        """A dynamic stage begins at ``t_start`` [s]; the first one fixes the reference positions ``u``."""
        if self.u0 is None:
            self.u0 = np.array(u, dtype=float).reshape(-1, 2)[self.nodes]
        self.stage, self.t_start = stage, float(t_start)

    def columns(self) -> list[str]:
        return ["moved"]

    def _acceleration(self, t: float) -> tuple[float, object]:
        """(a_x [m/s^2], the horizontal history) of the current stage's base at the instant ``t``."""
        x = getattr(self.stage, "x", None)
        return (float(x.acceleration(t - self.t_start)) if x is not None else 0.0), x

    def observe(self, result) -> dict:
        if self.u0 is None or not len(self.nodes):
            return {"moved": 0.0}
        s = result.state
        d = np.asarray(s.u, dtype=float).reshape(-1, 2)[self.nodes] - self.u0
        moved = np.maximum.reduceat(np.hypot(d[:, 0], d[:, 1]), self.starts) / self.size
        k = int(np.argmax(moved))
        m, t = float(moved[k]), float(s.t)
        if m > self.largest:
            self.largest, self.block = m, self.labels[k]
        c = self.criterion
        if self.t1 is None and m >= c.onset:
            self.t1 = t
        if self.t2 is None and m >= ONSET_GROWTH * c.onset:
            self.t2 = t
            tc = max(2.0 * self.t1 - self.t2, self.t_start)
            a, history = self._acceleration(tc)
            self.accelerations = {"t_onset": tc, "history": history, "a_onset": a}
        if self.collapsed_at is None and m >= c.displacement:
            self.collapsed_at = t
            self._joints()
            self.mechanism = self._mechanism(k, d)
        return {"moved": m}

    def _mechanism(self, k: int, d: np.ndarray) -> dict:
        """How block ``k`` moved, ``d`` (n_b, 2) the blocks' node displacements since the reference [m]:
        its best-fit rigid motion from its reference positions P0 to its current P1, the rotation theta
        [rad] (fem.problem.observe.fitted_rotation) and the translation |c| of its centroid [m]; ``rotation`` when theta turns its size D by at least its
        centroid's travel (|theta| D >= |c|: a block rocking on a corner, |theta| D = 2 |c|, or a voussoir
        turning about a hinge), ``sliding`` otherwise."""
        end = self.starts[k + 1] if k + 1 < len(self.starts) else len(self.nodes)
        P0 = self.X[self.starts[k]:end] + self.u0[self.starts[k]:end]
        P1 = P0 + d[self.starts[k]:end]
        theta = fitted_rotation(P0 - P0.mean(axis=0), P1 - P1.mean(axis=0))
        travel = float(np.hypot(*(P1.mean(axis=0) - P0.mean(axis=0))))
        return dict(zip(MECHANISM_KEYS, ("rotation" if abs(theta) * self.size[k] >= travel else "sliding",
                                         self.labels[k], theta, travel)))

    def _joints(self) -> None:
        wide = self.criterion.onset * float(np.median(self.size))  # [m]
        for w in self.pairs:
            contact = w.term.state()
            status, gap = np.asarray(contact.status), np.asarray(contact.gap, dtype=float)
            zone = getattr(w.term, "zone", None)
            labels, owner = getattr(zone, "joints", ()), getattr(zone, "joint_of", None)
            joints = [(w.label, slice(None))] if not labels or owner is None else \
                [(label, owner == k) for k, label in enumerate(labels)]  # a merged contact: joint by joint
            for label, at in joints:
                if status[at].size == 0:
                    continue
                gaping = (status[at] == 0) & (gap[at] > wide)
                if gaping.all():
                    self.opened.append(label)
                elif gaping.any() and (status[at] != 0).any():
                    self.hinges.append(label)

    def __call__(self, result) -> bool:
        """The monitor: True once collapsed, when the criterion stops the run."""
        return self.criterion.stop and self.collapsed_at is not None

    def report(self, finished: bool) -> dict:
        """summary.json's ``collapse``: ``collapsed`` (true, false once the stages ran to their end, else
        null), ``collapsed_at`` [s], ``onset_at`` t_c [s], ``first_motion_at`` t_1 [s], the largest
        motion and its block, ``collapse_multiplier`` and ``acceleration_at_onset_g`` (a Ramp's
        |a_x(t_c)| / g), ``mechanism`` (``rotation`` or ``sliding``: how the block that collapsed moved,
        :meth:`_mechanism`; null while standing) with that block, its rotation [rad] and its centroid's
        travel [m], ``hinges``, ``opened``, the criterion. Without a Ramp (a record, a harmonic, the
        self-weight alone) the motion does not grow as (t - t_c)^3: onset_at, collapse_multiplier and
        acceleration_at_onset_g are null (a record's bursts gave an "onset" 0.56 s before the first
        motion on the wall of examples/masonry_wall.py)."""
        collapsed = True if self.collapsed_at is not None else (False if finished else None)
        a = self.accelerations
        ramped = bool(a) and isinstance(a["history"], Ramp)  # the onset's cubic growth holds under a ramp only
        at_onset = abs(a["a_onset"]) / self.gravity if ramped and self.gravity > 0 else None
        return {"collapsed": collapsed, "collapsed_at": self.collapsed_at,
                "onset_at": a["t_onset"] if ramped else None, "first_motion_at": self.t1,
                "largest_motion": self.largest, "largest_motion_block": self.block,
                "collapse_multiplier": at_onset, "acceleration_at_onset_g": at_onset,
                **self.mechanism,
                "hinges": list(self.hinges), "opened": list(self.opened),
                "criterion": {"displacement": self.criterion.displacement, "onset": self.criterion.onset,
                              "blocks": len(self.labels)}}
