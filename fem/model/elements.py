"""Reference elements: shape functions, their gradients and quadrature rules.

An element is data (node order, reference coordinates, quadrature rules) and two pure functions of
an array of reference points. Node order is that of gmsh / meshio / VTK (see :mod:`fem.mesh.mesh`).

Reference domains: quadrilaterals on [-1, 1]^2, triangles on {xi >= 0, eta >= 0, xi + eta <= 1}.

Quadrature ("full integration"):

============  ======================  ============================
element       stiffness rule          mass rule (exact for N_a N_b)
============  ======================  ============================
quad (QUA4)   Gauss 2 x 2             Gauss 2 x 2
quad8 (QUA8)  Gauss 3 x 3             Gauss 3 x 3
triangle      1 point (degree 1)      3 points (degree 2)
triangle6     3 points (degree 2)     6 points (degree 4, Dunavant)
============  ======================  ============================
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Quadrature:
    """Points (n_qp, 2) in reference coordinates and weights (n_qp,)."""

    points: np.ndarray
    weights: np.ndarray


@dataclass(frozen=True)
class ReferenceElement:
    """A Lagrange reference element.

    Attributes
    ----------
    cell_type : meshio name.
    nodes : (n_nodes, 2) reference coordinates of the nodes, in gmsh/meshio order.
    corners : indices of the corner nodes, counter-clockwise (used for the area/orientation check).
    shape : function (n_pts, 2) -> (n_pts, n_nodes), shape functions N_a(xi).
    shape_grad : function (n_pts, 2) -> (n_pts, n_nodes, 2), dN_a/dxi_j.
    stiffness_rule, mass_rule : :class:`Quadrature`.
    """

    cell_type: str
    nodes: np.ndarray
    corners: tuple[int, ...]
    shape: Callable[[np.ndarray], np.ndarray]
    shape_grad: Callable[[np.ndarray], np.ndarray]
    stiffness_rule: Quadrature
    mass_rule: Quadrature

    @property
    def n_nodes(self) -> int:
        return int(self.nodes.shape[0])


def _gauss_square(n: int) -> Quadrature:
    x, w = np.polynomial.legendre.leggauss(n)
    X, Y = np.meshgrid(x, x, indexing="ij")
    W = np.outer(w, w)
    return Quadrature(np.column_stack([X.ravel(), Y.ravel()]), W.ravel())


def _triangle_rule(degree: int) -> Quadrature:
    if degree == 1:
        return Quadrature(np.array([[1 / 3, 1 / 3]]), np.array([0.5]))
    if degree == 2:
        p = np.array([[1 / 6, 1 / 6], [2 / 3, 1 / 6], [1 / 6, 2 / 3]])
        return Quadrature(p, np.full(3, 1 / 6))
    if degree == 4:  # Dunavant, 6 points
        a, wa = 0.445948490915965, 0.223381589678011
        b, wb = 0.091576213509771, 0.109951743655322
        p = np.array([[a, a], [1 - 2 * a, a], [a, 1 - 2 * a], [b, b], [1 - 2 * b, b], [b, 1 - 2 * b]])
        return Quadrature(p, 0.5 * np.array([wa, wa, wa, wb, wb, wb]))
    raise ValueError(f"no triangle rule of degree {degree}")


# --- QUA4 -----------------------------------------------------------------------------------
_Q4_NODES = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


def _q4_shape(xi: np.ndarray) -> np.ndarray:
    s = _Q4_NODES
    return 0.25 * (1 + xi[:, None, 0] * s[None, :, 0]) * (1 + xi[:, None, 1] * s[None, :, 1])


def _q4_grad(xi: np.ndarray) -> np.ndarray:
    s = _Q4_NODES
    dx = 0.25 * s[None, :, 0] * (1 + xi[:, None, 1] * s[None, :, 1])
    dy = 0.25 * s[None, :, 1] * (1 + xi[:, None, 0] * s[None, :, 0])
    return np.stack([dx, dy], axis=-1)


# --- QUA8 (serendipity) ---------------------------------------------------------------------
_Q8_NODES = np.array(
    [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
)


def _q8_shape(xi: np.ndarray) -> np.ndarray:
    x, y = xi[:, 0:1], xi[:, 1:2]
    sx, sy = _Q8_NODES[None, :, 0], _Q8_NODES[None, :, 1]
    corner = 0.25 * (1 + x * sx) * (1 + y * sy) * (x * sx + y * sy - 1)
    mid_x = 0.5 * (1 - x**2) * (1 + y * sy)  # nodes with sx == 0
    mid_y = 0.5 * (1 + x * sx) * (1 - y**2)  # nodes with sy == 0
    N = np.where(sx == 0, mid_x, np.where(sy == 0, mid_y, corner))
    return N


def _q8_grad(xi: np.ndarray) -> np.ndarray:
    x, y = xi[:, 0:1], xi[:, 1:2]
    sx, sy = _Q8_NODES[None, :, 0], _Q8_NODES[None, :, 1]
    c_dx = 0.25 * sx * (1 + y * sy) * (2 * x * sx + y * sy)
    c_dy = 0.25 * sy * (1 + x * sx) * (x * sx + 2 * y * sy)
    mx_dx = -x * (1 + y * sy)
    mx_dy = 0.5 * (1 - x**2) * sy
    my_dx = 0.5 * sx * (1 - y**2)
    my_dy = -(1 + x * sx) * y
    dx = np.where(sx == 0, mx_dx, np.where(sy == 0, my_dx, c_dx))
    dy = np.where(sx == 0, mx_dy, np.where(sy == 0, my_dy, c_dy))
    return np.stack([dx, dy], axis=-1)


# --- TRIA3 / TRIA6 --------------------------------------------------------------------------
def _t3_shape(xi: np.ndarray) -> np.ndarray:
    return np.column_stack([1 - xi[:, 0] - xi[:, 1], xi[:, 0], xi[:, 1]])


def _t3_grad(xi: np.ndarray) -> np.ndarray:
    g = np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
    return np.broadcast_to(g, (xi.shape[0], 3, 2)).copy()


def _t6_shape(xi: np.ndarray) -> np.ndarray:
    L1, L2, L3 = 1 - xi[:, 0] - xi[:, 1], xi[:, 0], xi[:, 1]
    return np.column_stack(
        [L1 * (2 * L1 - 1), L2 * (2 * L2 - 1), L3 * (2 * L3 - 1), 4 * L1 * L2, 4 * L2 * L3, 4 * L3 * L1]
    )


def _t6_grad(xi: np.ndarray) -> np.ndarray:
    L1, L2, L3 = 1 - xi[:, 0] - xi[:, 1], xi[:, 0], xi[:, 1]
    # dL/dxi = (-1, 1, 0), dL/deta = (-1, 0, 1)
    dxi = np.column_stack([-(4 * L1 - 1), 4 * L2 - 1, 0 * L3, 4 * (L1 - L2), 4 * L3, -4 * L3])
    deta = np.column_stack([-(4 * L1 - 1), 0 * L2, 4 * L3 - 1, -4 * L2, 4 * L2, 4 * (L1 - L3)])
    return np.stack([dxi, deta], axis=-1)


QUAD4 = ReferenceElement("quad", _Q4_NODES, (0, 1, 2, 3), _q4_shape, _q4_grad, _gauss_square(2), _gauss_square(2))
QUAD8 = ReferenceElement("quad8", _Q8_NODES, (0, 1, 2, 3), _q8_shape, _q8_grad, _gauss_square(3), _gauss_square(3))
TRIA3 = ReferenceElement(
    "triangle", np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), (0, 1, 2), _t3_shape, _t3_grad,
    _triangle_rule(1), _triangle_rule(2),
)
TRIA6 = ReferenceElement(
    "triangle6",
    np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.0], [0.5, 0.5], [0.0, 0.5]]),
    (0, 1, 2), _t6_shape, _t6_grad, _triangle_rule(2), _triangle_rule(4),
)

ELEMENTS = {e.cell_type: e for e in (QUAD4, QUAD8, TRIA3, TRIA6)}


def reference_element(cell_type: str) -> ReferenceElement:
    """The reference element of a meshio cell type; ValueError naming the type if unsupported."""
    try:
        return ELEMENTS[cell_type]
    except KeyError:
        raise ValueError(
            f"unsupported surface cell type {cell_type!r}; supported: {sorted(ELEMENTS)}"
        ) from None
