"""Limit analysis of 2D assemblies of rigid blocks with no-tension Coulomb joints: the equilibrium
(static, lower-bound) linear program of Livesley 1978 ("Limit analysis of structures formed from rigid
blocks", Int. J. Numer. Meth. Eng. 12) as used by Gilbert and Melbourne 1994 (J. Struct. Eng. 120).

Model (per metre of out-of-plane thickness; forces in N/m, lengths in m)
-----------------------------------------------------------------------
* A block has corners ``(x, y)`` (counter-clockwise) and a weight ``W`` acting at its centroid along
  -y. :func:`polygon_block` gives ``W = area * unit_weight`` (unit weight in N/m^3, i.e. N/m^2 per
  metre of thickness) at the polygon's centroid; :func:`voussoir` gives the exact weight and centroid
  of an annular sector (its curved faces carry no contact, so only its weight needs them).
* A joint between block ``a`` and block ``b`` (``b = None``: the fixed ground) is a segment ``p -> q``
  on both blocks' boundaries, with a friction coefficient ``mu`` (``math.inf``: no sliding).
  Frame (:func:`joint_frame`): tangent ``t = (q - p)/|q - p|``; normal ``n`` perpendicular to it,
  pointing into block ``a`` (towards a's centroid). At each endpoint ``k in (p, q)`` block ``a``
  receives the force ``N_k n + S_k t`` and block ``b`` its opposite, with::

      N_k >= 0               (no tension: the resultant lies within the joint)
      |S_k| <= mu N_k        (Coulomb, linear: two inequalities per endpoint)

* Loads: dead load D (the weights) plus ``lambda`` times a live load L, each a force ``(fx, fy)`` at
  a block's centroid. :func:`horizontal_live_load` is the horizontal acceleration ``lambda g``:
  ``L_i = (direction * W_i, 0)``.
* Equilibrium of every block ``i`` (3 rows: sum fx, sum fy, moment about its centroid ``c_i``)::

      sum_k F_k + D_i + lambda L_i = 0,   sum_k (x_k - c_i) x F_k = 0   (x: 2D cross product)

The collapse multiplier (:func:`collapse_multiplier`) is ``max lambda`` over these constraints
(the lower-bound theorem; with the associated flow implied by the linear Coulomb cone it is also the
kinematic upper bound). The unknowns are scaled (forces by the total weight, moments by the largest
corner-to-centroid distance) so HiGHS's tolerances are relative. :func:`stands` fixes ``lambda = 0``.
:func:`minimum_thickness` bisects on t/R with :func:`stands` for the circular arch of radial-joint
voussoirs (Couplet's problem; n -> inf: Milankovitch's t/R = 0.1075, Makris and Alexakis 2013,
Arch. Appl. Mech. 83; a finite n constrains the thrust line at fewer sections, hence lies below).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.optimize import linprog

ZERO_FORCE = 1e-7  # an endpoint force below ZERO_FORCE * (total weight) counts as zero (hinge, open)
LP_TOLERANCE = 1e-10  # HiGHS primal and dual feasibility tolerance, on the scaled unknowns
THICKNESS_TOLERANCE = 1e-5  # bisection of minimum_thickness on t/R: final bracket width
MILANKOVITCH = 0.1075  # t/R of the continuous semicircular arch, radial joints (Makris & Alexakis 2013)


@dataclass(frozen=True)
class Block:
    """A rigid block: corners (m, counter-clockwise), weight W (N/m) acting at its centroid (m)."""

    corners: tuple[tuple[float, float], ...]
    weight: float
    centroid: tuple[float, float]


@dataclass(frozen=True)
class Joint:
    """The contact segment p -> q (m) between blocks ``a`` and ``b`` (None: ground), friction mu."""

    a: int
    b: int | None
    p: tuple[float, float]
    q: tuple[float, float]
    mu: float = math.inf


@dataclass(frozen=True)
class LimitState:
    """Solution of the equilibrium LP.

    ``multiplier``: collapse load factor lambda (dimensionless); ``None`` when the dead load alone
    cannot be carried (the assembly does not stand); ``math.inf`` when lambda is unbounded (then the
    forces are those of the dead load alone). ``normal``, ``shear``: shape (n_joints, 2), the
    endpoint forces N, S (N/m) at p (column 0) and q (column 1), on block a, in the joint's frame.
    ``hinges``: (joint, "p" or "q") where the thrust sits at that endpoint, the other endpoint's N
    being zero; ``open``: joints with both N zero; ``sliding``: joints with |S_p + S_q| = mu (N_p + N_q)
    (the two endpoint cones then bind together). Zero means below ``ZERO_FORCE`` times the total weight.
    """

    multiplier: float | None
    normal: np.ndarray
    shear: np.ndarray
    hinges: tuple[tuple[int, str], ...]
    sliding: tuple[int, ...]
    open: tuple[int, ...]

    @property
    def stands(self) -> bool:
        return self.multiplier is not None


# --- geometry ------------------------------------------------------------------------------------
def polygon_block(corners: Sequence[Sequence[float]], unit_weight: float = 1.0) -> Block:
    """Polygon block: area A = 1/2 sum (x_k y_k+1 - x_k+1 y_k) (m^2, > 0 counter-clockwise), centroid
    by the shoelace formula, W = A * unit_weight (N/m)."""
    xy = np.asarray(corners, float)
    x, y = xy[:, 0], xy[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cross = x * y1 - x1 * y
    area = 0.5 * cross.sum()
    if not area > 0:
        raise ValueError(f"corners must be counter-clockwise with a positive area, got area {area}")
    cx, cy = ((x + x1) * cross).sum() / (6 * area), ((y + y1) * cross).sum() / (6 * area)
    return Block(tuple(map(tuple, xy.tolist())), float(area * unit_weight), (float(cx), float(cy)))


def voussoir(radius: float, thickness: float, theta0: float, theta1: float, unit_weight: float = 1.0,
             centre: tuple[float, float] = (0.0, 0.0)) -> Block:
    """Annular sector between the angles theta0 < theta1 (rad), radii R -/+ t/2 (m): exact weight
    W = (theta1 - theta0)/2 (r_o^2 - r_i^2) unit_weight and centroid on the mid angle at
    r_G = 2/3 (r_o^3 - r_i^3)/(r_o^2 - r_i^2) sin(phi/2)/(phi/2), phi = theta1 - theta0.
    Corners: intrados and extrados at theta0, extrados and intrados at theta1."""
    ri, ro, phi, mid = radius - thickness / 2, radius + thickness / 2, theta1 - theta0, (theta0 + theta1) / 2
    if not (0 < ri < ro and phi > 0):
        raise ValueError("need 0 < thickness < 2 radius and theta0 < theta1")
    rg = 2 / 3 * (ro**3 - ri**3) / (ro**2 - ri**2) * math.sin(phi / 2) / (phi / 2)
    point = lambda r, th: (centre[0] + r * math.cos(th), centre[1] + r * math.sin(th))  # noqa: E731
    corners = (point(ri, theta0), point(ro, theta0), point(ro, theta1), point(ri, theta1))
    return Block(corners, phi / 2 * (ro**2 - ri**2) * unit_weight, point(rg, mid))


def column(widths: Sequence[float], heights: Sequence[float], mu: float = math.inf,
           unit_weight: float = 1.0) -> tuple[list[Block], list[Joint]]:
    """Rectangles stacked centred on x = 0, the lowest on the ground (y = 0). Joint 0 is the base
    (block 0 on the ground, width w_0); joint i joins block i (a, above) to block i-1 (b, below) over
    their overlap min(w_i-1, w_i). Every joint runs p = left -> q = right: n = +y, t = +x."""
    blocks, joints, y = [], [], 0.0
    for i, (w, h) in enumerate(zip(widths, heights, strict=True)):
        blocks.append(polygon_block([(-w / 2, y), (w / 2, y), (w / 2, y + h), (-w / 2, y + h)], unit_weight))
        c = w if i == 0 else min(w, widths[i - 1])
        joints.append(Joint(i, None if i == 0 else i - 1, (-c / 2, y), (c / 2, y), mu))
        y += h
    return blocks, joints


def block_on_ground(width: float, height: float, mu: float = math.inf,
                    unit_weight: float = 1.0) -> tuple[list[Block], list[Joint]]:
    """One rectangle, centred on x = 0, on the ground: joint 0 from p = (-w/2, 0) to q = (w/2, 0)."""
    return column([width], [height], mu, unit_weight)


def semicircular_arch(n: int, thickness: float, radius: float = 1.0, mu: float = math.inf,
                      unit_weight: float = 1.0, embrace: float = math.pi) -> tuple[list[Block], list[Joint]]:
    """Circular arch of n voussoirs with radial joints, centre-line radius R, thickness t (m), centre
    at the origin, symmetric about x = 0, spanning the angle ``embrace`` (pi: semicircle, springings
    at 0 and pi on y = 0). Joint k (k = 0..n) is the radial section at
    theta_k = pi/2 - embrace/2 + k embrace/n, from p = intrados to q = extrados; voussoir i lies
    between theta_i and theta_i+1. Joints 0 and n are the springings (b = None); joint k in 1..n-1
    has a = k, b = k-1."""
    if n < 1:
        raise ValueError("an arch needs at least one voussoir")
    theta = [math.pi / 2 - embrace / 2 + k * embrace / n for k in range(n + 1)]
    blocks = [voussoir(radius, thickness, theta[i], theta[i + 1], unit_weight) for i in range(n)]
    ri, ro = radius - thickness / 2, radius + thickness / 2
    joints = []
    for k, th in enumerate(theta):
        a, b = (0, None) if k == 0 else (n - 1, None) if k == n else (k, k - 1)
        c, s = math.cos(th), math.sin(th)
        joints.append(Joint(a, b, (ri * c, ri * s), (ro * c, ro * s), mu))
    return blocks, joints


# --- the linear program --------------------------------------------------------------------------
def joint_frame(joint: Joint, blocks: Sequence[Block]) -> tuple[np.ndarray, np.ndarray]:
    """(normal, tangent) unit vectors of the joint: t = (q - p)/|q - p|, n perpendicular to t on the
    side of block a's centroid (into block a)."""
    p, q = np.asarray(joint.p, float), np.asarray(joint.q, float)
    t = (q - p) / np.linalg.norm(q - p)
    n = np.array([-t[1], t[0]])
    return (n if n @ (np.asarray(blocks[joint.a].centroid) - p) > 0 else -n), t


def horizontal_live_load(blocks: Sequence[Block], direction: float = 1.0) -> np.ndarray:
    """Live load of a horizontal acceleration lambda g: (direction W_i, 0) per block, shape
    (n_blocks, 2), N/m; direction +1 pushes along +x, -1 along -x."""
    return np.array([(direction * b.weight, 0.0) for b in blocks])


def _equilibrium(blocks, joints, live, length):
    """A (3 n_blocks, 4 n_joints + 1), rhs: A [N_p, S_p, N_q, S_q per joint..., lambda] = -D, with
    the moment rows divided by ``length``."""
    A = np.zeros((3 * len(blocks), 4 * len(joints) + 1))
    for j, joint in enumerate(joints):
        n, t = joint_frame(joint, blocks)
        for k, x in enumerate((joint.p, joint.q)):
            for block, sign in ((joint.a, 1.0), (joint.b, -1.0)):
                if block is None:
                    continue
                arm = (np.asarray(x) - blocks[block].centroid) / length
                for col, e in ((4 * j + 2 * k, n), (4 * j + 2 * k + 1, t)):
                    A[3 * block:3 * block + 3, col] = sign * np.array([e[0], e[1], arm[0] * e[1] - arm[1] * e[0]])
    A[0::3, -1], A[1::3, -1] = live[:, 0], live[:, 1]
    rhs = np.zeros(3 * len(blocks))
    rhs[1::3] = [b.weight for b in blocks]  # -D: D_y = -W
    return A, rhs


def _friction(joints):
    """A_ub x <= 0: S_k - mu N_k <= 0 and -S_k - mu N_k <= 0 for each endpoint with 0 < mu < inf;
    mu = 0 is imposed by the bounds S_k = 0."""
    rows = []
    for j, joint in enumerate(joints):
        if 0 < joint.mu < math.inf:
            for k in (0, 1):
                for sign in (1.0, -1.0):
                    row = np.zeros(4 * len(joints) + 1)
                    row[4 * j + 2 * k], row[4 * j + 2 * k + 1] = -joint.mu, sign
                    rows.append(row)
    return np.array(rows) if rows else None


def _solve(blocks, joints, live, maximise):
    if any(not (joint.mu >= 0) for joint in joints):
        raise ValueError("friction coefficients must be >= 0 (math.inf: no sliding)")
    force = sum(b.weight for b in blocks)
    length = max(np.hypot(*(np.asarray(c) - b.centroid)) for b in blocks for c in b.corners)
    A, rhs = _equilibrium(blocks, joints, np.asarray(live, float) / force, length)
    bounds = []
    for joint in joints:
        shear = (0.0, 0.0) if joint.mu == 0 else (None, None)
        bounds += [(0.0, None), shear, (0.0, None), shear]
    bounds.append((None, None) if maximise else (0.0, 0.0))
    cost = np.zeros(A.shape[1])
    cost[-1] = -1.0 if maximise else 0.0
    A_ub = _friction(joints)
    res = linprog(cost, A_ub=A_ub, b_ub=None if A_ub is None else np.zeros(len(A_ub)), A_eq=A, b_eq=rhs / force,
                  bounds=bounds, method="highs",
                  options={"primal_feasibility_tolerance": LP_TOLERANCE, "dual_feasibility_tolerance": LP_TOLERANCE})
    if res.status not in (0, 2, 3):
        raise RuntimeError(f"HiGHS failed: {res.message}")
    return res, force


def _state(joints, x, multiplier, force):
    forces = x[:-1].reshape(len(joints), 2, 2) * force
    normal, shear = forces[:, :, 0], forces[:, :, 1]
    zero = ZERO_FORCE * force
    hinges, sliding, opened = [], [], []
    for j, joint in enumerate(joints):
        at_zero = normal[j] <= zero
        if at_zero.all():
            opened.append(j)
        elif at_zero.any():
            hinges.append((j, "q" if at_zero[0] else "p"))
        total_n, total_s = normal[j].sum(), shear[j].sum()
        if joint.mu < math.inf and total_n > zero and abs(total_s) >= joint.mu * total_n - zero:
            sliding.append(j)
    return LimitState(multiplier, normal, shear, tuple(hinges), tuple(sliding), tuple(opened))


def stands(blocks: Sequence[Block], joints: Sequence[Joint]) -> bool:
    """True iff the dead load alone (lambda = 0) admits joint forces satisfying the constraints."""
    res, _ = _solve(blocks, joints, np.zeros((len(blocks), 2)), maximise=False)
    return res.status == 0


def collapse_multiplier(blocks: Sequence[Block], joints: Sequence[Joint], live_load: np.ndarray | None = None,
                        direction: float = 1.0) -> LimitState:
    """max lambda s.t. equilibrium under D + lambda L and the joint constraints.

    ``live_load``: shape (n_blocks, 2), (fx, fy) at each centroid (N/m); default
    :func:`horizontal_live_load` (blocks, direction). The feasible lambdas form an interval; if it
    does not contain 0 the assembly cannot stand and ``multiplier`` is None (forces NaN)."""
    live = horizontal_live_load(blocks, direction) if live_load is None else np.asarray(live_load, float)
    if live.shape != (len(blocks), 2):
        raise ValueError(f"live_load must have shape ({len(blocks)}, 2), got {live.shape}")
    dead, force = _solve(blocks, joints, live, maximise=False)
    if dead.status != 0:
        nan = np.full((len(joints), 2), np.nan)
        return LimitState(None, nan, nan.copy(), (), (), ())
    res, force = _solve(blocks, joints, live, maximise=True)
    if res.status == 3:
        return _state(joints, dead.x, math.inf, force)
    return _state(joints, res.x, float(res.x[-1]) + 0.0, force)  # + 0.0: no -0.0


def minimum_thickness(n: int, radius: float = 1.0, mu: float = math.inf, embrace: float = math.pi,
                      tol: float = THICKNESS_TOLERANCE, bracket: tuple[float, float] = (0.01, 0.5)) -> float:
    """Smallest t/R at which the arch of n radial-joint voussoirs (:func:`semicircular_arch`) stands
    under its own weight (:func:`thinnest`)."""
    return thinnest(lambda ratio: semicircular_arch(n, ratio * radius, radius, mu, embrace=embrace), tol, bracket)


def thinnest(assembly, tol: float = THICKNESS_TOLERANCE, bracket: tuple[float, float] = (0.01, 0.5)) -> float:
    """Smallest ratio at which ``assembly(ratio)`` -> (blocks, joints) stands under its own weight:
    bisection with :func:`stands` until the bracket is narrower than ``tol``; returns its upper end
    (an assembly that stands), so the result is within ``tol`` above the limit."""
    lo, hi = bracket
    if stands(*assembly(lo)[:2]) or not stands(*assembly(hi)[:2]):
        raise ValueError(f"bracket {bracket} does not contain the minimum thickness")
    while hi - lo > tol:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if stands(*assembly(mid)[:2]) else (mid, hi)
    return hi


def of_assembly(assembly, mu: float = math.inf,
                unit_weight: float = 1.0) -> tuple[list[Block], list[Joint], list[str], list[str]]:
    """The rigid blocks and joints of an assembly of polygons (meshes.assemblies.Assembly, or any object
    with ``bodies`` (``name``, ``corners``), ``joints`` (``slave_body``, ``master_body``, ``slave``,
    ``master``, ``start``, ``end``) and ``held`` line groups ``<BODY>_<SIDE>``): a body one of whose sides is
    held is the ground (a rigid block with a face held cannot move); a joint between two ground bodies
    is dropped, one between a block and the ground has b = None. Each block a
    :func:`polygon_block` of the body's own corners (the finite-element body's geometry, chords
    included), every joint of friction ``mu``. Returns (blocks, joints, the blocks' names, the joints'
    labels ``<slave body>/<master body>``: the label of the pair fem.problem.Contact finds there, whose
    slave is the joint's)."""
    held = tuple(assembly.held)
    ground = {b.name for b in assembly.bodies if any(g.startswith(b.name + "_") for g in held)}
    names = [b.name for b in assembly.bodies if b.name not in ground]
    index = {name: i for i, name in enumerate(names)}
    blocks = [polygon_block(b.corners, unit_weight) for b in assembly.bodies if b.name in index]
    joints, labels = [], []
    for j in assembly.joints:
        if j.slave_body in index:
            a, b = index[j.slave_body], index.get(j.master_body)
        elif j.master_body in index:
            a, b = index[j.master_body], None
        else:
            continue
        joints.append(Joint(a, b, tuple(j.start), tuple(j.end), mu))
        labels.append(f"{j.slave_body}/{j.master_body}")
    return blocks, joints, names, labels
