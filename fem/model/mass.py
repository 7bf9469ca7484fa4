"""Mass redistribution: contact nodes without mass, each body keeping its rigid-body inertia.

Why (Khenous, Laborde, Renard, "Mass redistribution method for finite element contact problems in
elastodynamics", Eur. J. Mech. A/Solids 27 (2008) 918-932; Hauret, "Mixed interpretation and
extensions of the equivalent mass matrix approach for elastodynamics with contact", CMAME 199
(2010) 2941-2957; Doyen, Ern, Piperno, "Time-integration schemes for the finite element dynamic
Signorini problem", SIAM J. Sci. Comput. 33 (2011) 223-249). With a consistent (or lumped) mass the
nodes on a contact surface carry mass: a position-level contact condition then makes their velocity
jump at every impact, the semi-discrete problem is ill posed, and Newmark schemes create or destroy
energy at impacts depending on the step. When the contact nodes carry no mass their displacement is
set by quasi-static equilibrium with the rest of the body, the semi-discrete problem is a
Lipschitz ODE with a well-posed Signorini condition, the energy is conserved (up to the scheme) and
the answers converge as the step and mesh shrink.

Construction (a transfer of the velocity field, so that every rigid motion keeps its energy)
-----------------------------------------------------------------------------------------
For each massless node s pick a stencil of nodes k of the same body that keep their mass, and
weights w_sk reproducing affine fields exactly::

    sum_k w_sk = 1,    sum_k w_sk X_k = X_s                       (3 equations in 2-D)

(the weights of least weighted norm sum_k (d_sk / h_s)^2 w_sk^2 among the solutions, d_sk the
distance from s, h_s the nearest one; the stencil is the massive nodes that share an element with
s, grown by one ring of neighbours at a time until it spans the plane). The transfer P (n_dofs,
n_dofs) maps the velocities of the massive nodes to every node: identity on the massive dofs,
v_s = sum_k w_sk v_k on a massless one (same weights for x and y), zero columns for the massless
dofs. The redistributed mass is::

    M_r = P^T M P

with M the consistent (or lumped) mass. Every rigid velocity field of the plane, v(X) = V +
omega e_z x (X - X_G), is affine, so P reproduces it from its massive values and
v^T M_r v = (P v)^T M (P v) = v^T M v: the kinetic energy of every rigid motion is kept, hence
(polarising over the three rigid modes) the total mass, the centre of mass and the whole second
moment of mass (rotational inertia about the centre of mass included) of each body. M_r is
symmetric, positive definite on the massive dofs (P v = 0 implies v = 0 there) and has exactly
zero rows and columns on the massless ones. Mass-proportional damping is transferred the same
way, P^T (beta M) P. Gravity stays the continuum's body force f_a = int rho N_a g (on the massless
nodes too): the self-weight state is the consistent one (transferring it, P^T f, would move the
base row's weight up the body and change the static settlement by O(h): 2 % on the SDNV105 block
of tests/test_contract.py), and the total force m g acting on the unchanged total mass m, the
centre of mass still falls at exactly g; the massless nodes' share of the weight is carried to
the massive ones by their elements (a static sag of order rho g h^2 / E in free flight).

Where the mass goes: to the stencil, i.e. the first nodes off the contact surface and, where those
are collinear (one element row above a straight surface), the next row. Unlike a diagonal
redistribution it can keep the inertia of a body whose remaining nodes all lie on one side of the
centre of mass (the SDNV105 block's two-row reference mesh: after its base row only the rows at
mid-height and at the top remain).

Time integration (fem.time.dynamics): the massless dofs are quasi-static. They have no Newmark
recursion: their velocity is the displacement increment over the step, (u1 - u0) / dt (used by
the damping, the friction and the output), their acceleration is zero, and their equations are the
static equilibrium of the forces at the step's end, unweighted by HHT (a weighted statics
(1 + alpha) g1 = alpha g0 would be a recursion g1 = alpha/(1 + alpha) g0 on those dofs, unstable for
alpha < -1/2, e.g. the SDNV105 tilt's alpha = -0.6). The initial-acceleration solve leaves them out,
and a first phase starts with them in static equilibrium with the massive ones (quasi-static
initial data).

Units SI; arrays over dofs (node i: dofs 2i, 2i + 1) unless said.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fem.mesh.mesh import MeshError

MASS_KINDS = ("consistent", "lumped", "redistributed")
MAX_RINGS = 4  # neighbour rings searched for a stencil spanning the plane


@dataclass(frozen=True)
class MassTransfer:
    """The velocity transfer of a mass redistribution.

    massless_nodes : (n_s,) sorted node indices carrying no mass.
    stencils : one (nodes (n_k,), weights (n_k,)) pair per massless node, in that order.
    matrix : P, CSR (n_dofs, n_dofs): v_full = P v (identity on the massive dofs).
    """

    massless_nodes: np.ndarray
    stencils: tuple[tuple[np.ndarray, np.ndarray], ...]
    matrix: sp.csr_matrix

    @property
    def massless_dofs(self) -> np.ndarray:
        """(2 n_s,) sorted dofs of the massless nodes."""
        return np.sort(np.concatenate([2 * self.massless_nodes, 2 * self.massless_nodes + 1]))

    def redistribute(self, M: sp.spmatrix) -> sp.csr_matrix:
        """P^T M P, CSR, with the massless rows and columns exactly zero (stored zeros removed)."""
        P = self.matrix
        Mr = (P.T @ M @ P).tocsr()
        Mr.eliminate_zeros()
        return Mr



def node_neighbours(n_nodes: int, connectivities) -> sp.csr_matrix:
    """Node adjacency (n_nodes, n_nodes), boolean CSR: nodes sharing a cell of any connectivity
    (n_el, n_en) given."""
    rows, cols = [], []
    for conn in connectivities:
        conn = np.asarray(conn)
        n_en = conn.shape[1]
        rows.append(np.repeat(conn, n_en, axis=1).ravel())
        cols.append(np.tile(conn, (1, n_en)).ravel())
    if not rows:
        return sp.csr_matrix((n_nodes, n_nodes), dtype=bool)
    r, c = np.concatenate(rows), np.concatenate(cols)
    return sp.csr_matrix((np.ones(r.size, dtype=bool), (r, c)), shape=(n_nodes, n_nodes))


def affine_weights(points: np.ndarray, node: int, stencil: np.ndarray) -> np.ndarray | None:
    """Weights w (n_k,) with sum w = 1 and sum w X_k = X_node, of least norm sum (d_k/h)^2 w_k^2
    (d_k distance of stencil node k, h the smallest); None when the stencil's nodes are collinear
    (no affine field is determined by them)."""
    rel = points[stencil] - points[node]
    d = np.hypot(rel[:, 0], rel[:, 1])
    h = float(d.min())
    if not h > 0:
        return None
    A = np.vstack([np.ones(stencil.size), rel[:, 0] / h, rel[:, 1] / h])  # (3, n_k)
    if np.linalg.matrix_rank(A, tol=1e-8 * np.sqrt(stencil.size)) < 3:
        return None
    Winv = (h / d) ** 2  # inverse of the norm's weights
    AW = A * Winv
    w = AW.T @ np.linalg.solve(AW @ A.T, np.array([1.0, 0.0, 0.0]))
    return w


def mass_transfer(points: np.ndarray, connectivities, massless: np.ndarray, n_dofs: int) -> MassTransfer:
    """Build the transfer P for the nodes ``massless`` (module docstring).

    Parameters
    ----------
    points : (n_nodes, 2) reference coordinates [m].
    connectivities : the cell connectivities (n_el, n_en) of the bodies that carry mass.
    massless : node indices to free of mass.
    n_dofs : 2 n_nodes.

    Raises
    ------
    MeshError : a massless node in no cell, or no stencil of massive nodes spanning the plane
        within MAX_RINGS rings of neighbours (a body made only of contact nodes).
    """
    massless = np.unique(np.asarray(massless, dtype=np.int64))
    n_nodes = points.shape[0]
    adjacency = node_neighbours(n_nodes, connectivities)
    is_massless = np.zeros(n_nodes, dtype=bool)
    is_massless[massless] = True
    rows, cols, vals, stencils = [], [], [], []
    for s in massless:
        reached = np.zeros(n_nodes, dtype=bool)
        reached[s] = True
        front = np.array([s])
        weights = None
        for _ in range(MAX_RINGS):
            nxt = np.unique(adjacency[front].indices)
            nxt = nxt[~reached[nxt]]
            if nxt.size == 0:
                break
            reached[nxt] = True
            front = nxt
            stencil = np.flatnonzero(reached & ~is_massless)
            if stencil.size >= 3:
                weights = affine_weights(points, int(s), stencil)
                if weights is not None:
                    break
        if weights is None:
            where = f"node {int(s)} at ({points[s, 0]:.6g}, {points[s, 1]:.6g})"
            if adjacency[s].nnz == 0:
                raise MeshError(f"mass redistribution: massless {where} belongs to no cell of a body with mass")
            raise MeshError(f"mass redistribution: massless {where} has no nodes with mass spanning the plane within "
                            f"{MAX_RINGS} rings of neighbours (is the whole body a contact surface?)")
        stencils.append((stencil, weights))
        for k in range(2):
            rows.append(np.full(stencil.size, 2 * s + k))
            cols.append(2 * stencil + k)
            vals.append(weights)
    massive_dofs = np.flatnonzero(~np.repeat(is_massless, 2))
    rows.append(massive_dofs)
    cols.append(massive_dofs)
    vals.append(np.ones(massive_dofs.size))
    P = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n_dofs, n_dofs))
    return MassTransfer(massless, tuple(stencils), P)


def rigid_modes(points: np.ndarray, centre: np.ndarray | None = None) -> np.ndarray:
    """The three rigid velocity fields of the plane at the nodes, (n_dofs, 3): translation x,
    translation y, unit rotation about ``centre`` (default the origin) [m/s per unit]."""
    c = np.zeros(2) if centre is None else np.asarray(centre, dtype=float)
    n = points.shape[0]
    R = np.zeros((2 * n, 3))
    R[0::2, 0] = 1.0
    R[1::2, 1] = 1.0
    R[0::2, 2] = -(points[:, 1] - c[1])
    R[1::2, 2] = points[:, 0] - c[0]
    return R


def inertia_invariants(M: sp.spmatrix, points: np.ndarray, dofs: np.ndarray | None = None) -> dict[str, float]:
    """Total mass [kg], centre of mass (x, y) [m] and polar moment of inertia about it [kg m^2] of
    a mass matrix M (n_dofs, n_dofs), from the rigid modes (restricted to ``dofs`` if given: one
    body). The x-translation's kinetic energy gives the mass, the coupling of the translations with
    the rotation about the origin the centre, the rotation about the centre the inertia."""
    R = rigid_modes(points)
    if dofs is not None:
        mask = np.zeros(R.shape[0], dtype=bool)
        mask[dofs] = True
        R = R * mask[:, None]
    G = R.T @ (M @ R)  # (3, 3) Gram matrix of the rigid modes
    m = G[0, 0]
    xg, yg = G[1, 2] / m, -G[0, 2] / m
    inertia = G[2, 2] - m * (xg * xg + yg * yg)
    return {"mass": float(m), "mass_y": float(G[1, 1]), "x": float(xg), "y": float(yg), "inertia": float(inertia)}
