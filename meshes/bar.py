"""A straight bar as a plane-stress strip: ``nx`` QUA4 elements along the length, one across.

With Poisson's ratio 0 the strip is exactly a 1-D bar of linear (P1) elements: a field that is
uniform across the width (u_x = u(x), u_y = 0) has zero shear and transverse strain, so the
stiffness and the consistent (or HRZ-lumped) mass of the strip act on it as the 1-D P1 matrices
times the cross-section area (width x thickness), whatever the width. The width only matters when
Poisson's ratio is not zero (lateral contraction, lateral inertia).

Layout (the bar along x from 0 to ``length``, the width along y)::

    nx+1 --- nx+2 --- ... --- 2nx+1        y = width
     |        |                 |
     0 ------ 1 ------ ... ---- nx          y = 0
    x = 0                       x = length

Groups (cells and nodes, named as gmsh physical groups would be):

* ``BAR``: the nx QUA4 cells (counter-clockwise, gmsh/meshio order);
* ``END0``: the end x = 0 (one SEG2 line, oriented with the bar on its left, fem.mesh.mesh), the
  contact end; ``END1``: the end x = length (same orientation rule), clamped in the periodic set-up;
* node groups ``END0``, ``END1`` (two nodes each), ``P0`` (the node (0, 0)) and ``PL`` (the node
  (length, 0)), one-node groups for histories.
"""
from __future__ import annotations

import numpy as np

from fem.mesh.mesh import CellBlock, Mesh, MeshError


def bar_strip(length: float, width: float, nx: int) -> Mesh:
    """The strip mesh of the module docstring.

    Parameters
    ----------
    length : bar length [m], > 0.
    width : strip width [m], > 0.
    nx : elements along the length, >= 1.

    Raises
    ------
    MeshError : a non-positive or non-finite size, nx < 1.
    """
    if not (np.isfinite(length) and length > 0 and np.isfinite(width) and width > 0):
        raise MeshError(f"bar strip: length and width must be > 0 m, got {length}, {width}")
    if int(nx) != nx or nx < 1:
        raise MeshError(f"bar strip: nx must be an integer >= 1, got {nx}")
    nx = int(nx)
    n = nx + 1
    x = np.linspace(0.0, length, n)
    points = np.concatenate([np.column_stack([x, np.zeros(n)]), np.column_stack([x, np.full(n, width)])])
    i = np.arange(nx)
    quads = np.column_stack([i, i + 1, n + i + 1, n + i])
    cells = {"BAR": CellBlock("quad", quads),
             "END0": CellBlock("line", np.array([[n, 0]])),        # downwards: the bar (+x) on its left
             "END1": CellBlock("line", np.array([[nx, n + nx]]))}  # upwards: the bar (-x) on its left
    nodes = {"BAR": np.arange(2 * n), "END0": np.array([0, n]), "END1": np.array([nx, n + nx]),
             "P0": np.array([0]), "PL": np.array([nx])}
    return Mesh(points, cells, nodes)
