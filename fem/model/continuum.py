"""Element kernels of the plane-stress continuum: internal and damping forces, tangent and strain
energy, vectorised over every cell of one element type at once.

The regions of a model that share an element type are fused into one :class:`ContinuumKernel`
(their materials become per-cell arrays), so a step costs a fixed number of array operations
whatever the number of regions (SDNV105's block and table: one QUA4 kernel).

Formulas (total Lagrangian, fem.model.assembly; small strain: F = I, E = sym(grad u))::

    H = grad_X u,  F = I + H,  E = (H + H^T + H^T H) / 2
    S = lam* tr(E) I + 2 mu E                      (plane stress: lam* = E nu / (1 - nu^2), 2 mu = E / (1 + nu))
    f_a = sum_q dV_q P grad N_a,  P = F S           (first Piola-Kirchhoff, no strain operator built)
    S_d = alpha (lam* tr(Edot) I + 2 mu Edot),  Edot = sym(F^T grad_X v)    (Rayleigh, AMOR_ALPHA)
    K = sum_q dV_q (B^T D B + G^T (S + S_d) G) + alpha sum_q dV_q B^T D B(grad v),  C = alpha sum_q dV_q B^T D B

with B the Voigt strain operator (delta E = B delta u_e) and G the gradient of the shape functions.
Shapes: ne cells, nq quadrature points, nen nodes per cell, m = 2 nen dofs per cell.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_I2 = np.eye(2)


@dataclass(frozen=True)
class ContinuumKernel:
    """The cells of one element type, from one or several regions (fem.model.assembly.ElementSet), stored
    component-major with the cell index last (every operation then runs over contiguous cells).

    dofs (nen, 2, ne) dof of node a, component i of each cell; grad (nen, 2, nq, ne) dN_a/dX_J
    [1/m]; dvol (nq, ne) [m^3]; lam, mu (ne,) plane-stress Lame coefficients lam* and mu [Pa];
    alpha (ne,) AMOR_ALPHA [s] (None when every cell has 0); slot (m m ne,) positions of the
    cell-matrix entries (row, column, cell) in the model's CSR pattern data; regions ((group,
    cells), ...) the cell range of each region fused into it.
    """

    dofs: np.ndarray
    grad: np.ndarray
    dvol: np.ndarray
    lam: np.ndarray
    mu: np.ndarray
    alpha: np.ndarray | None
    slot: np.ndarray
    regions: tuple[tuple[str, slice], ...]

    @property
    def n_elements(self) -> int:
        return int(self.dofs.shape[-1])


def fuse(sets, slots) -> tuple[ContinuumKernel, ...]:
    """One kernel per element type, from the model's element sets and each set's pattern slots
    (cell, row, column order, as fem.model.sparsity.SparsityPattern.slot)."""
    kernels = []
    for name in dict.fromkeys(s.element.cell_type for s in sets):
        members = [(s, slot) for s, slot in zip(sets, slots) if s.element.cell_type == name]

        def cells(values):
            return np.concatenate([np.full(s.n_elements, v) for (s, _), v in zip(members, values)])

        mats = [s.material for s, _ in members]
        dofs = np.concatenate([s.dofs for s, _ in members])  # (ne, m)
        ne, m = dofs.shape
        alpha = cells([mat.rayleigh_stiffness for mat in mats])
        ends = np.cumsum([0] + [s.n_elements for s, _ in members])
        kernels.append(ContinuumKernel(
            dofs=np.ascontiguousarray(dofs.T.reshape(m // 2, 2, ne)),
            grad=np.ascontiguousarray(np.concatenate([s.grad for s, _ in members]).transpose(2, 3, 1, 0)),
            dvol=np.ascontiguousarray(np.concatenate([s.dvol for s, _ in members]).T),
            lam=cells([mat.young * mat.poisson / (1.0 - mat.poisson ** 2) for mat in mats]),
            mu=cells([0.5 * mat.young / (1.0 + mat.poisson) for mat in mats]),
            alpha=alpha if np.any(alpha > 0) else None,
            slot=np.concatenate([slot for _, slot in members]).reshape(ne, m, m).transpose(1, 2, 0).ravel(),
            regions=tuple((s.group, slice(int(a), int(b))) for (s, _), a, b in zip(members, ends[:-1], ends[1:])),
        ))
    return tuple(kernels)


def gradient(u: np.ndarray, k: ContinuumKernel) -> np.ndarray:
    """grad_X u at the quadrature points, (2, 2, nq, ne), H[i, J] = du_i/dX_J, from the cell's
    nodal values relative to its first node (a rigid translation then gives exactly zero)."""
    ue = u[k.dofs]
    return np.einsum("aie,aJqe->iJqe", ue - ue[:1], k.grad)


def stress(E: np.ndarray, k: ContinuumKernel, factor=1.0) -> np.ndarray:
    """Plane-stress Hooke's law on tensors (2, 2, nq, ne): factor (lam* tr(E) I + 2 mu E) [Pa]."""
    S = (2.0 * factor * k.mu) * E
    trace = (factor * k.lam) * (E[0, 0] + E[1, 1])
    S[0, 0] += trace
    S[1, 1] += trace
    return S


def nodal_forces(P: np.ndarray, k: ContinuumKernel) -> np.ndarray:
    """Cell force vectors (nen, 2, ne), f_ai = sum_q dV_q P_iJ dN_a/dX_J, of stresses P (2, 2, nq, ne)."""
    return np.einsum("iJqe,aJqe->aie", P * k.dvol, k.grad)


def scatter(dofs: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Sum cell vectors ``values`` into a global vector (n,) at ``dofs`` (same shape)."""
    return np.bincount(dofs.ravel(), weights=values.ravel(), minlength=n)


def _product(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """A B of 2 x 2 tensor fields (2, 2, nq, ne)."""
    return np.einsum("iKqe,KJqe->iJqe", A, B)


def _transposed_product(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """A^T B of 2 x 2 tensor fields (2, 2, nq, ne)."""
    return np.einsum("Kiqe,KJqe->iJqe", A, B)


def strain_operator(F: np.ndarray, k: ContinuumKernel) -> np.ndarray:
    """Voigt operator B (3, m, nq, ne) with delta E = B delta u_e for F (2, 2, nq, ne):
    delta E_IJ = sym(F_iI dN_a/dX_J) delta u_ai; rows (11, 22, 2*12), columns (a, i) node-major."""
    g0, g1 = k.grad[:, None, 0], k.grad[:, None, 1]  # (nen, 1, nq, ne)
    F0, F1 = F[None, :, 0], F[None, :, 1]  # (1, 2, nq, ne): F_i0, F_i1
    nen = k.grad.shape[0]
    return np.stack([g0 * F0, g1 * F1, g1 * F0 + g0 * F1]).reshape(3, 2 * nen, *k.dvol.shape)


def bt_d_b(Bw: np.ndarray, B: np.ndarray, k: ContinuumKernel) -> np.ndarray:
    """Cell matrices (m, m, ne) sum_q Bw^T D B, Bw and B (3, m, nq, ne), D the plane-stress
    Hooke matrix [[lam* + 2 mu, lam*, 0], [lam*, lam* + 2 mu, 0], [0, 0, mu]]."""
    lam, mu = k.lam, k.mu
    DB = np.stack([(lam + 2.0 * mu) * B[0] + lam * B[1], lam * B[0] + (lam + 2.0 * mu) * B[1], mu * B[2]])
    return np.einsum("kmqe,knqe->mne", Bw, DB)


def geometric(S: np.ndarray, k: ContinuumKernel) -> np.ndarray:
    """Initial-stress matrices (m, m, ne), delta_ij sum_q dV_q grad N_a . S . grad N_b."""
    nen, ne = k.grad.shape[0], k.grad.shape[-1]
    Gs = np.einsum("aIqe,IJqe,bJqe->abe", k.grad, S * k.dvol, k.grad)  # (nen, nen, ne)
    K = np.zeros((nen, 2, nen, 2, ne))
    K[:, 0, :, 0] = Gs
    K[:, 1, :, 1] = Gs
    return K.reshape(2 * nen, 2 * nen, ne)


@dataclass(frozen=True)
class KernelState:
    """One kernel's fields at a state, tensors (2, 2, nq, ne): F (None in small strain), E, S, the
    Rayleigh stress S_d and Hv = grad v (None without stiffness-proportional damping)."""

    F: np.ndarray | None
    E: np.ndarray
    S: np.ndarray
    S_d: np.ndarray | None
    Hv: np.ndarray | None


def evaluate(k: ContinuumKernel, u: np.ndarray, v: np.ndarray | None, large: bool):
    """Cell internal and damping forces (nen, 2, ne) (None: no damping) and the fields they came from."""
    H = gradient(u, k)
    Ht = H.transpose(1, 0, 2, 3)
    if large:
        F = H + _I2[:, :, None, None]
        E = 0.5 * (H + Ht + _transposed_product(H, H))
    else:
        F = None
        E = 0.5 * (H + Ht)
    S = stress(E, k)
    f_int = nodal_forces(S if F is None else _product(F, S), k)
    S_d = Hv = f_damp = None
    if v is not None and k.alpha is not None:
        Hv = gradient(v, k)
        FtHv = Hv if F is None else _transposed_product(F, Hv)
        S_d = stress(0.5 * (FtHv + FtHv.transpose(1, 0, 2, 3)), k, k.alpha)
        f_damp = nodal_forces(S_d if F is None else _product(F, S_d), k)
    return f_int, f_damp, KernelState(F, E, S, S_d, Hv)


def _strain_operators(k: ContinuumKernel, state: KernelState) -> tuple[np.ndarray, np.ndarray]:
    """B at the state's F (the identity in small strain) and B dV, each (3, m, nq, ne)."""
    F = np.broadcast_to(_I2[:, :, None, None], state.E.shape) if state.F is None else state.F
    B = strain_operator(F, k)
    return B, B * k.dvol


def _initial_stress(k: ContinuumKernel, state: KernelState) -> np.ndarray | None:
    """G^T (S + S_d) G (m, m, ne) of the total-Lagrangian state; None in small strain."""
    if state.F is None:
        return None
    return geometric(state.S if state.S_d is None else state.S + state.S_d, k)


def tangent(k: ContinuumKernel, state: KernelState) -> tuple[np.ndarray, np.ndarray | None]:
    """Cell matrices (m, m, ne): d(f_int + f_damp)/du [N/m], and d f_damp/dv [N s/m] (None
    without stiffness-proportional damping)."""
    B, Bw = _strain_operators(k, state)
    K_mat = bt_d_b(Bw, B, k)
    G = _initial_stress(k, state)
    K = K_mat if G is None else K_mat + G
    if k.alpha is None:
        return K, None
    if state.F is not None and state.Hv is not None:  # d/du of sym(F^T grad v): B with F replaced by grad v
        K = K + k.alpha * bt_d_b(Bw, strain_operator(state.Hv, k), k)
    return K, k.alpha * K_mat


def combined_tangent(k: ContinuumKernel, state: KernelState, c_k: float, c_v: float) -> np.ndarray:
    """Cell matrices (m, m, ne) of c_k d(f_int + f_damp)/du + c_v d f_damp/dv (:func:`tangent`'s K
    and C) with one product: c_k K + c_v C = sum_q dV_q Bw^T D ((c_k + c_v alpha) B + c_k alpha B(grad v))
    + c_k G^T (S + S_d) G, as a Newton iteration matrix needs them."""
    if k.alpha is None:
        K, _ = tangent(k, state)
        return K if c_k == 1.0 else c_k * K
    B, Bw = _strain_operators(k, state)
    right = (c_k + c_v * k.alpha) * B
    if state.F is not None and state.Hv is not None:
        right += (c_k * k.alpha) * strain_operator(state.Hv, k)
    K = bt_d_b(Bw, right, k)
    G = _initial_stress(k, state)
    return K if G is None else K + c_k * G


def strain_energy(k: ContinuumKernel, state: KernelState) -> float:
    """sum over cells of sum_q dV_q S : E / 2 [J]."""
    return 0.5 * float(np.einsum("ijqe,ijqe,qe->", state.S, state.E, k.dvol))
