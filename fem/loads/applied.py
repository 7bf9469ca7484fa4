"""Loads and imposed displacements, each scaled by a time function.

Loads are given on named groups of the mesh and resolved into dof arrays once
(:func:`resolve_loads`, :func:`resolve_constraints`); evaluating them at a time is then a
multiplication, with no Python work per node.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from fem.constants import GRAVITY
from fem.loads.functions import Constant

COMPONENTS = {"x": 0, "y": 1, "DX": 0, "DY": 1, "FX": 0, "FY": 1}


def component_index(name: str) -> int:
    """0 for x (DX, FX), 1 for y (DY, FY): the component's offset in a node's two dofs."""
    try:
        return COMPONENTS[name]
    except KeyError:
        raise ValueError(f"unknown component {name!r}; use 'x' or 'y' (or DX/DY, FX/FY)") from None


@dataclass(frozen=True)
class Gravity:
    """Uniform gravity field g * function(t) [m/s^2] (Code_Aster PESANTEUR).

    Attributes
    ----------
    acceleration : (gx, gy) [m/s^2], default (0, -GRAVITY), fem.constants.
    function : multiplier of time, default 1.
    """

    acceleration: tuple[float, float] = (0.0, -GRAVITY)
    function: Callable[[float], float] = field(default_factory=Constant)


@dataclass(frozen=True)
class NodalForce:
    """Force ``value * function(t)`` [N] on component ``component`` of every node of ``group``."""

    group: str
    component: str
    value: float
    function: Callable[[float], float] = field(default_factory=Constant)


@dataclass(frozen=True)
class InertialLoad:
    """d'Alembert load of a support that moves rigidly with acceleration ``function(t)`` [m/s^2]
    along ``component``, for a run written in the support's frame (Code_Aster CALC_CHAR_SEISME,
    MONO_APPUI)::

        u_abs = u + e d(t)   =>   M u'' + C u' + f_int(u) = f_ext - M e d''(t)

    e (n_dofs,) = 1 on the ``component`` dofs, 0 elsewhere. Exact when the supports move together,
    the damping is stiffness-proportional (C e = 0) and the contact laws see relative motion only:
    a rigid translation strains nothing and opens no gap. The force vector is -M e with the model's
    own mass matrix (consistent, lumped or redistributed), so the relative motion is that of the
    absolute one of the same discrete model."""

    component: str
    function: Callable[[float], float]


@dataclass(frozen=True)
class ImposedDisplacement:
    """Displacement ``value * function(t)`` [m] of component ``component`` on the nodes of
    ``group`` (Code_Aster DDL_IMPO with a multiplier function)."""

    group: str
    component: str
    value: float = 0.0
    function: Callable[[float], float] = field(default_factory=Constant)


@dataclass(frozen=True)
class RigidRotation:
    """Component ``component`` (0: x, 1: y) of the displacement [m] of a point turned rigidly,
    counter-clockwise, by theta(t) = angle * ramp(t) [rad] about ``pivot``:

        u(t) = pivot + R(theta(t)) (start - pivot) - reference

    ``start`` is the point's position when the rotation begins (theta = 0), ``reference`` its mesh
    position X (m, each (2,)). As the ``function`` of ``ImposedDisplacement(group, component, 1.0, ...)``
    it imposes the rigid rotation on a node (fem.problem.stages.Tilt)."""

    reference: tuple[float, float]
    start: tuple[float, float]
    pivot: tuple[float, float]
    angle: float
    component: int
    ramp: Callable[[float], float]

    def __call__(self, t: float) -> float:
        theta = self.angle * self.ramp(t)
        c, s = math.cos(theta), math.sin(theta)
        dx, dy = self.start[0] - self.pivot[0], self.start[1] - self.pivot[1]
        turned = (self.pivot[0] + c * dx - s * dy, self.pivot[1] + s * dx + c * dy)
        return turned[self.component] - self.reference[self.component]


@dataclass(frozen=True)
class ResolvedConstraints:
    """Imposed dofs and their values as functions of time.

    Attributes
    ----------
    dofs : (n_c,) sorted constrained dofs.
    values : (n_c, n_terms) value of each constraint term on each dof (0 where the term does not act).
    functions : the n_terms time functions.
    """

    dofs: np.ndarray
    values: np.ndarray
    functions: tuple[Callable[[float], float], ...]

    def at(self, t: float) -> np.ndarray:
        """Imposed displacement (n_c,) [m] at time t."""
        if not self.functions:
            return np.zeros(self.dofs.size)
        return self.values @ np.array([f(t) for f in self.functions])


def resolve_constraints(mesh, constraints: Sequence[ImposedDisplacement], extra_fixed: np.ndarray | None = None
                        ) -> ResolvedConstraints:
    """Constrained dofs of a list of imposed displacements (plus ``extra_fixed`` dofs held at 0).

    A dof named twice must be given the same value and function, else ValueError.
    """
    dofs_all, cols = [], []
    seen: dict[int, tuple[float, int]] = {}
    functions: list = []
    for c in constraints:
        nodes = mesh.nodes(c.group)
        dofs = 2 * nodes + component_index(c.component)
        k = len(functions)
        functions.append(c.function)
        for d in dofs.tolist():
            if d in seen and (seen[d][0] != c.value or functions[seen[d][1]] != c.function):
                raise ValueError(
                    f"dof {c.component} of node {d // 2} (group {c.group!r}) is imposed twice with different values"
                )
            seen.setdefault(d, (c.value, k))
        dofs_all.append(dofs)
        cols.append(k)
    if extra_fixed is not None:
        for d in np.asarray(extra_fixed).tolist():
            seen.setdefault(int(d), (0.0, -1))
    dofs = np.array(sorted(seen), dtype=np.int64)
    values = np.zeros((dofs.size, len(functions)))
    for i, d in enumerate(dofs.tolist()):
        v, k = seen[d]
        if k >= 0:
            values[i, k] = v
    return ResolvedConstraints(dofs, values, tuple(functions))


@dataclass(frozen=True)
class ResolvedLoads:
    """External force f_ext(t) = sum_k vectors[k] * functions[k](t), vectors (n_terms, n_dofs) [N]."""

    vectors: np.ndarray
    functions: tuple[Callable[[float], float], ...]
    gravity_vector: np.ndarray  # (n_dofs,) body force of the gravity field at multiplier 1 [N]
    gravity_function: Callable[[float], float]

    def at(self, t: float) -> np.ndarray:
        """f_ext(t) (n_dofs,) [N], gravity included."""
        f = self.gravity_vector * self.gravity_function(t)
        if self.functions:
            f = f + np.array([fn(t) for fn in self.functions]) @ self.vectors
        return f


def resolve_loads(model, gravity: Gravity | None, forces: Sequence[NodalForce],
                  inertial: Sequence[InertialLoad] = ()) -> ResolvedLoads:
    """Assemble the constant load vectors once (nodal forces, then inertial loads -M e)."""
    n = model.n_dofs
    vectors = np.zeros((len(forces) + len(inertial), n))
    for k, f in enumerate(forces):
        nodes = model.mesh.nodes(f.group)
        vectors[k, 2 * nodes + component_index(f.component)] = f.value
    for k, load in enumerate(inertial, start=len(forces)):
        e = np.zeros(n)
        e[component_index(load.component)::2] = 1.0
        vectors[k] = -(model.mass @ e)
    if gravity is None:
        g_vec, g_fun = np.zeros(n), Constant(0.0)
    else:
        g_vec, g_fun = model.gravity_force(gravity.acceleration), gravity.function
    return ResolvedLoads(vectors, tuple(f.function for f in forces) + tuple(f.function for f in inertial),
                         g_vec, g_fun)
