"""Discrete linear springs and dashpots (Code_Aster DIS_T with K_T_D_N / A_T_D_N, K_T_D_L / A_T_D_L).

A :class:`Springs` term joins each node of a group to the ground, or the nodes of two groups pairwise,
with a stiffness and a damping per direction. It is a :class:`fem.time.dynamics.ForceTerm`: linear,
with constant matrices assembled once. Point masses live in :class:`fem.model.assembly.Model`
(``point_masses``), so a mixed discrete/continuum model uses the same assembly and integrators.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fem.stage.phase import TermForces
from fem.mesh.mesh import Mesh


@dataclass(frozen=True)
class SpringProperties:
    """Stiffness (kx, ky) [N/m] and damping (cx, cy) [N s/m], all >= 0."""

    stiffness: tuple[float, float] = (0.0, 0.0)
    damping: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        for name, values in (("stiffness", self.stiffness), ("damping", self.damping)):
            if len(values) != 2 or not all(np.isfinite(v) and v >= 0 for v in values):
                raise ValueError(f"spring {name} must be two values >= 0 (x, y), got {values}")


class Springs:
    """Springs and dashpots from the nodes of ``group`` to the ground (``other=None``) or to the
    nodes of ``other`` (same count, paired in index order).

    Force on the body: f = -K (u_a - u_b) - C (v_a - v_b) at the nodes of ``group`` and the
    opposite at ``other``; the term returns the resisting force K du + C dv (residual sign).
    """

    def __init__(self, mesh: Mesh, group: str, properties: SpringProperties, other: str | None = None) -> None:
        a = mesh.nodes(group)
        b = mesh.nodes(other) if other is not None else None
        if b is not None and b.size != a.size:
            raise ValueError(f"spring groups {group!r} ({a.size} nodes) and {other!r} ({b.size}) differ in size")
        n = 2 * mesh.n_nodes
        k = np.asarray(properties.stiffness, dtype=float)
        c = np.asarray(properties.damping, dtype=float)
        # incidence D (2 n_springs, n_dofs): relative displacement per spring and direction
        rows = np.arange(2 * a.size)
        cols = (2 * a[:, None] + np.arange(2)).ravel()
        D = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(rows.size, n))
        if b is not None:
            cols_b = (2 * b[:, None] + np.arange(2)).ravel()
            D = D - sp.csr_matrix((np.ones(rows.size), (rows, cols_b)), shape=(rows.size, n))
        self.stiffness = (D.T @ sp.diags(np.tile(k, a.size)) @ D).tocsr()
        self.damping = (D.T @ sp.diags(np.tile(c, a.size)) @ D).tocsr()

    def evaluate(self, u: np.ndarray, v: np.ndarray, t: float, tangent: bool) -> TermForces:
        return TermForces(self.stiffness @ u + self.damping @ v, self.stiffness, self.damping)

    def commit(self, u: np.ndarray, v: np.ndarray, t: float) -> None:
        pass

    def set_phase(self, phase, u: np.ndarray) -> None:
        pass
