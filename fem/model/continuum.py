"""Element kernels of the plane-stress continuum: internal and damping forces, tangent and strain
energy, as loops over every cell of one element type compiled with numba.

The regions of a model that share an element type are fused into one :class:`ContinuumKernel`
(their materials become per-cell arrays), so a step costs a fixed number of kernel calls whatever
the number of regions (SDNV105's block and table: one QUA4 kernel).

Formulas (total Lagrangian, fem.model.assembly; small strain: F = I, E = sym(grad u))::

    H = grad_X u,  F = I + H,  E = (H + H^T + H^T H) / 2
    S = lam* tr(E) I + 2 mu E                      (plane stress: lam* = E nu / (1 - nu^2), 2 mu = E / (1 + nu))
    f_a = sum_q dV_q P grad N_a,  P = F S           (first Piola-Kirchhoff, no strain operator built)
    S_d = alpha (lam* tr(Edot) I + 2 mu Edot),  Edot = sym(F^T grad_X v)    (Rayleigh, AMOR_ALPHA)
    K = sum_q dV_q (B^T D B + G^T (S + S_d) G) + alpha sum_q dV_q B^T D B(grad v),  C = alpha sum_q dV_q B^T D B

with B the Voigt strain operator (delta E = B delta u_e) and G the gradient of the shape functions.
Shapes: ne cells, nq quadrature points, nen nodes per cell, m = 2 nen dofs per cell.

Compiled loops. Each kernel is a plain loop over the quadrature points q and cells e
(:func:`_forces`, :func:`_cell_matrices`, :func:`_energy`) compiled by ``numba.njit(cache=True)`` on first use (fem.compiled):
the machine code is kept in ``__pycache__`` (NUMBA_CACHE_DIR moves it), compiled again only when
this file changes (~3 s; ~0.2 s to load); under ``NUMBA_DISABLE_JIT=1`` the same functions run as
Python, slowly. The numpy version this replaces paid ~20 array operations of overhead per call
(~0.1 ms on the small models users run most). Inside the loops a point's 2 x 2 tensors are 4-tuples
``(T00, T01, T10, T11)`` (kept in registers), the small helpers being inlined. The forces loop runs
over the cells innermost (the fields, cell index last, are then read and written contiguously); the
cell-matrix loop builds one cell at a time in a scratch (m, m). A field that does not apply (F in
small strain, the damping fields without AMOR_ALPHA or velocity) is passed to the loops as an empty
array (numba compiles one version per argument type: None would add versions), and is None in
:class:`KernelState`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem import compiled

_ABSENT_FIELD = np.zeros((2, 2, 0, 0))  # a tensor field that does not apply (2, 2, nq, ne)
_ABSENT_CELLS = np.zeros((0, 0, 0))  # cell vectors (nen, 2, ne) or matrices (m, m, ne) not wanted
_ABSENT_VALUES = np.zeros(0)  # a nodal field (v) or per-cell values (alpha) that do not apply
_IDENTITY = (1.0, 0.0, 0.0, 1.0)
_ZERO = (0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class ContinuumKernel:
    """The cells of one element type, from one or several regions (fem.model.assembly.ElementSet), stored
    component-major with the cell index last.

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
            return np.concatenate([np.full(s.n_elements, v, dtype=np.float64) for (s, _), v in zip(members, values)])

        mats = [s.material for s, _ in members]
        dofs = np.concatenate([s.dofs for s, _ in members])  # (ne, m)
        ne, m = dofs.shape
        alpha = cells([mat.rayleigh_stiffness for mat in mats])
        ends = np.cumsum([0] + [s.n_elements for s, _ in members])
        kernels.append(ContinuumKernel(
            dofs=np.ascontiguousarray(dofs.T.reshape(m // 2, 2, ne), dtype=np.int64),
            grad=np.ascontiguousarray(np.concatenate([s.grad for s, _ in members]).transpose(2, 3, 1, 0)),
            dvol=np.ascontiguousarray(np.concatenate([s.dvol for s, _ in members]).T),
            lam=cells([mat.young * mat.poisson / (1.0 - mat.poisson ** 2) for mat in mats]),
            mu=cells([0.5 * mat.young / (1.0 + mat.poisson) for mat in mats]),
            alpha=alpha if np.any(alpha > 0) else None,
            slot=np.concatenate([slot for _, slot in members]).reshape(ne, m, m).transpose(1, 2, 0).ravel(),
            regions=tuple((s.group, slice(int(a), int(b))) for (s, _), a, b in zip(members, ends[:-1], ends[1:])),
        ))
    return tuple(kernels)


@compiled.loop(cache=True, error_model="numpy")
def add_scattered(total, slots, values):
    """total (n,) += s with s_i = sum of values[p] over slots[p] = i (slots, values (m,)), each s_i summed
    from 0 in the order of p, as ``total += np.bincount(slots, weights=values, minlength=n)``: the same
    bits, without the two arrays numpy makes. Slots must lie in [0, n) (no bounds check)."""
    partial = np.zeros(total.size)
    for p in range(slots.size):
        partial[slots[p]] += values[p]
    for i in range(total.size):
        total[i] += partial[i]


# ---------------------------------------------- a cell's nodal values, a point's tensors (4-tuples)
@compiled.loop(cache=True)
def _cell_values(w, dofs):
    """w_e (nen, 2, ne), w_e[a, i, e] = w_ai - w_0i: the nodal field w (n_dofs,) on each cell relative
    to its first node (a rigid translation then gives exactly zero gradient)."""
    nen, _, ne = dofs.shape
    w_e = np.empty((nen, 2, ne))
    for e in range(ne):
        for i in range(2):
            for a in range(nen):
                if dofs[a, i, e] >= w.size:  # compiled code does not check indices
                    raise IndexError("a cell's dof is outside the nodal field")
                w_e[a, i, e] = w[dofs[a, i, e]] - w[dofs[0, i, e]]
    return w_e


@compiled.loop(cache=True, inline="always")
def _gradient_at(w_e, grad, q, e):
    """grad_X w = (H00, H01, H10, H11), H_iJ = sum_a w_ai dN_a/dX_J at point q of cell e, of the
    cells' nodal values w_e (nen, 2, ne)."""
    h00 = h01 = h10 = h11 = 0.0
    for a in range(w_e.shape[0]):
        gX, gY = grad[a, 0, q, e], grad[a, 1, q, e]
        h00 += w_e[a, 0, e] * gX
        h01 += w_e[a, 0, e] * gY
        h10 += w_e[a, 1, e] * gX
        h11 += w_e[a, 1, e] * gY
    return h00, h01, h10, h11


@compiled.loop(cache=True, inline="always")
def _product(A, B):
    """A B of 2 x 2 tensors."""
    return (A[0] * B[0] + A[1] * B[2], A[0] * B[1] + A[1] * B[3],
            A[2] * B[0] + A[3] * B[2], A[2] * B[1] + A[3] * B[3])


@compiled.loop(cache=True, inline="always")
def _transposed_product(A, B):
    """A^T B of 2 x 2 tensors."""
    return (A[0] * B[0] + A[2] * B[2], A[0] * B[1] + A[2] * B[3],
            A[1] * B[0] + A[3] * B[2], A[1] * B[1] + A[3] * B[3])


@compiled.loop(cache=True, inline="always")
def _symmetric(A):
    """(A + A^T) / 2."""
    shear = 0.5 * (A[1] + A[2])
    return A[0], shear, shear, A[3]


@compiled.loop(cache=True, inline="always")
def _hooke(lam, two_mu, E):
    """Plane-stress Hooke's law lam tr(E) I + 2 mu E [Pa] (lam = lam*, or alpha lam* for S_d)."""
    trace = lam * (E[0] + E[3])
    return two_mu * E[0] + trace, two_mu * E[1], two_mu * E[2], two_mu * E[3] + trace


@compiled.loop(cache=True, inline="always")
def _at(field, q, e):
    """The tensor of a field (2, 2, nq, ne) at point q of cell e."""
    return field[0, 0, q, e], field[0, 1, q, e], field[1, 0, q, e], field[1, 1, q, e]


@compiled.loop(cache=True, inline="always")
def _store(field, q, e, T):
    """field[:, :, q, e] = T."""
    field[0, 0, q, e] = T[0]
    field[0, 1, q, e] = T[1]
    field[1, 0, q, e] = T[2]
    field[1, 1, q, e] = T[3]


# ---------------------------------------------------------------------------- forces (the loop)
@compiled.loop(cache=True, inline="always")
def _add_nodal_forces(f, P, dv, grad, q, e):
    """f_ai += dV_q P_iJ dN_a/dX_J: point q's share of cell e's force vector f[:, :, e] (nen, 2, ne),
    of the stress P."""
    for a in range(f.shape[0]):
        gX, gY = grad[a, 0, q, e], grad[a, 1, q, e]
        f[a, 0, e] += dv * (P[0] * gX + P[1] * gY)
        f[a, 1, e] += dv * (P[2] * gX + P[3] * gY)


@compiled.loop(cache=True)
def _forces(u, v, dofs, grad, dvol, lam, mu, alpha, F, E, S, Hv, S_d, f_int, f_damp):
    """The loops of :func:`evaluate`, over the points q and (innermost, to read and write every array
    contiguously) the cells e. Internal forces: H = grad u, F = I + H, E, S [Pa], stored in the fields
    F, E, S (2, 2, nq, ne), and f_int (nen, 2, ne, zero on entry) += dV F S grad N [N]. Damping forces
    (a second pass: fewer arrays streamed at once): Hv = grad v [1/s], S_d = alpha D sym(F^T Hv) [Pa]
    stored in Hv, S_d, and f_damp += dV F S_d grad N [N]. Small strain when F is empty (F = I, E =
    sym(H)); no damping when S_d is empty."""
    large, damped = F.size > 0, S_d.size > 0
    nq, ne = dvol.shape
    u_e = _cell_values(u, dofs)
    for q in range(nq):
        for e in range(ne):
            H = _gradient_at(u_e, grad, q, e)
            Fq = (1.0 + H[0], H[1], H[2], 1.0 + H[3]) if large else _IDENTITY
            quadratic = _transposed_product(H, H) if large else _ZERO  # H^T H
            Eq = (H[0] + 0.5 * quadratic[0], 0.5 * (H[1] + H[2] + quadratic[1]),
                  0.5 * (H[2] + H[1] + quadratic[2]), H[3] + 0.5 * quadratic[3])
            Sq = _hooke(lam[e], 2.0 * mu[e], Eq)
            _add_nodal_forces(f_int, _product(Fq, Sq), dvol[q, e], grad, q, e)
            if large:
                _store(F, q, e, Fq)
            _store(E, q, e, Eq)
            _store(S, q, e, Sq)
    if not damped:
        return
    v_e = _cell_values(v, dofs)
    for q in range(nq):
        for e in range(ne):
            Fq = _at(F, q, e) if large else _IDENTITY
            Hvq = _gradient_at(v_e, grad, q, e)
            Sdq = _hooke(alpha[e] * lam[e], 2.0 * alpha[e] * mu[e], _symmetric(_transposed_product(Fq, Hvq)))
            _add_nodal_forces(f_damp, _product(Fq, Sdq), dvol[q, e], grad, q, e)
            _store(Hv, q, e, Hvq)
            _store(S_d, q, e, Sdq)


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
    nen, _, nq, ne = k.grad.shape
    damped = v is not None and k.alpha is not None
    fields = iter(np.empty((2 + int(large) + 2 * int(damped), 2, 2, nq, ne)))  # one block: fewer allocator calls
    F = next(fields) if large else _ABSENT_FIELD
    E, S = next(fields), next(fields)
    Hv, S_d = (next(fields), next(fields)) if damped else (_ABSENT_FIELD, _ABSENT_FIELD)
    f_int = np.zeros((nen, 2, ne))
    f_damp = np.zeros((nen, 2, ne)) if damped else _ABSENT_CELLS
    nodal = np.ascontiguousarray  # one compiled version: float64, contiguous
    _forces(nodal(u, dtype=np.float64), nodal(v, dtype=np.float64) if damped else _ABSENT_VALUES, k.dofs, k.grad,
            k.dvol, k.lam, k.mu, k.alpha if damped else _ABSENT_VALUES, F, E, S, Hv, S_d, f_int, f_damp)
    if not damped:
        return f_int, None, KernelState(F if large else None, E, S, None, None)
    return f_int, f_damp, KernelState(F if large else None, E, S, S_d, Hv)


# ------------------------------------------------------------------------- tangents (the loop)
@compiled.loop(cache=True, inline="always")
def _strain_operator(Fq, grad, q, e, B):
    """Voigt operator B (3, m) at point q of cell e, delta E = B delta u_e for the deformation
    gradient Fq: delta E_IJ = sym(F_iI dN_a/dX_J) delta u_ai; rows (11, 22, 2*12), column 2 a + i."""
    for a in range(grad.shape[0]):
        g0, g1 = grad[a, 0, q, e], grad[a, 1, q, e]
        for i in range(2):
            Fi0, Fi1 = Fq[2 * i], Fq[2 * i + 1]
            B[0, 2 * a + i] = g0 * Fi0
            B[1, 2 * a + i] = g1 * Fi1
            B[2, 2 * a + i] = g1 * Fi0 + g0 * Fi1


@compiled.loop(cache=True, inline="always")
def _hooke_voigt(lam, mu, dv, X, DX):
    """DX = dV D X (3, m) of a Voigt operator X, D the plane-stress Hooke matrix [[lam* + 2 mu, lam*,
    0], [lam*, lam* + 2 mu, 0], [0, 0, mu]]."""
    for c in range(X.shape[1]):
        DX[0, c] = dv * ((lam + 2.0 * mu) * X[0, c] + lam * X[1, c])
        DX[1, c] = dv * (lam * X[0, c] + (lam + 2.0 * mu) * X[1, c])
        DX[2, c] = dv * (mu * X[2, c])


@compiled.loop(cache=True, inline="always")
def _add_transposed_product(M, B, DX):
    """M += B^T DX (m, m) of two Voigt operators (3, m)."""
    for r in range(M.shape[0]):
        b0, b1, b2 = B[0, r], B[1, r], B[2, r]
        for c in range(M.shape[1]):
            M[r, c] += b0 * DX[0, c] + b1 * DX[1, c] + b2 * DX[2, c]


@compiled.loop(cache=True)
def _cell_matrices(F, Hv, S, S_d, grad, dvol, lam, mu, alpha, c_k, c_v, c_g, K, C):
    """The loop of :func:`tangent` and :func:`combined_tangent`: cell matrices K [N/m], C [N s/m]
    (m, m, ne), one cell at a time,

        K_e = sum_q dV_q B^T D ((c_k + c_v alpha) B + c_k alpha B(grad v)) + c_g sum_q dV_q G^T (S + S_d) G,
        C_e = alpha sum_q dV_q B^T D B,

    B = B(F) (F = I in small strain: F empty). The B(grad v) term (the u-derivative of the damping
    stress) and the initial-stress term are large-strain only; no damping (alpha = 0) when alpha is
    empty, S_d and B(grad v) only when S_d is given, and no C when C is empty."""
    large, damped, moving, with_c = F.size > 0, alpha.size > 0, S_d.size > 0, C.size > 0
    nen = grad.shape[0]
    nq, ne = dvol.shape
    m = 2 * nen
    B, X, DX = np.empty((3, m)), np.empty((3, m)), np.empty((3, m))  # B(F), its combination with B(grad v), dV D X
    Ke, Ce = np.empty((m, m)), np.empty((m, m))
    for e in range(ne):
        Ke[:] = 0.0
        Ce[:] = 0.0
        alpha_e = alpha[e] if damped else 0.0
        material = c_k + c_v * alpha_e
        rate = c_k * alpha_e if large and moving else 0.0  # d S_d / du through F in Edot = sym(F^T grad v)
        for q in range(nq):
            dv = dvol[q, e]
            _strain_operator(_at(F, q, e) if large else _IDENTITY, grad, q, e, B)
            if rate != 0.0:  # X = material B + rate B(grad v)
                _strain_operator(_at(Hv, q, e), grad, q, e, X)
                for k in range(3):
                    for c in range(m):
                        X[k, c] = material * B[k, c] + rate * X[k, c]
            else:
                for k in range(3):
                    for c in range(m):
                        X[k, c] = material * B[k, c]
            _hooke_voigt(lam[e], mu[e], dv, X, DX)
            _add_transposed_product(Ke, B, DX)
            if with_c:
                _hooke_voigt(lam[e], mu[e], dv, B, DX)
                _add_transposed_product(Ce, B, DX)
            if large and c_g != 0.0:  # delta_ij dV grad N_a . (S + S_d) . grad N_b
                T = _at(S, q, e)
                if moving:
                    Sd = _at(S_d, q, e)
                    T = (T[0] + Sd[0], T[1] + Sd[1], T[2] + Sd[2], T[3] + Sd[3])
                for a in range(nen):
                    ga0, ga1 = grad[a, 0, q, e], grad[a, 1, q, e]
                    Tg0, Tg1 = ga0 * T[0] + ga1 * T[2], ga0 * T[1] + ga1 * T[3]  # (grad N_a . T)_J
                    for b in range(nen):
                        g = c_g * dv * (Tg0 * grad[b, 0, q, e] + Tg1 * grad[b, 1, q, e])
                        Ke[2 * a, 2 * b] += g
                        Ke[2 * a + 1, 2 * b + 1] += g
        for r in range(m):
            for c in range(m):
                K[r, c, e] = Ke[r, c]
        if with_c:
            for r in range(m):
                for c in range(m):
                    C[r, c, e] = alpha_e * Ce[r, c]


def _matrices(k: ContinuumKernel, state: KernelState, c_k: float, c_v: float, c_g: float, with_c: bool):
    """(K, C) of :func:`_cell_matrices` for a kernel at a state, C None unless ``with_c``."""
    m, ne = 2 * k.grad.shape[0], k.grad.shape[-1]

    def given(field):
        return _ABSENT_FIELD if field is None else field

    K = np.empty((m, m, ne))
    C = np.empty((m, m, ne)) if with_c else _ABSENT_CELLS
    _cell_matrices(given(state.F), given(state.Hv), state.S, given(state.S_d), k.grad, k.dvol, k.lam, k.mu,
                   _ABSENT_VALUES if k.alpha is None else k.alpha, float(c_k), float(c_v), float(c_g), K, C)
    return K, (C if with_c else None)


def tangent(k: ContinuumKernel, state: KernelState) -> tuple[np.ndarray, np.ndarray | None]:
    """Cell matrices (m, m, ne): d(f_int + f_damp)/du [N/m], and d f_damp/dv [N s/m] (None
    without stiffness-proportional damping)."""
    return _matrices(k, state, 1.0, 0.0, c_g=1.0, with_c=k.alpha is not None)


def combined_tangent(k: ContinuumKernel, state: KernelState, c_k: float, c_v: float) -> np.ndarray:
    """Cell matrices (m, m, ne) of c_k d(f_int + f_damp)/du + c_v d f_damp/dv (:func:`tangent`'s K
    and C) with one product: c_k K + c_v C = sum_q dV_q B^T D ((c_k + c_v alpha) B + c_k alpha B(grad v))
    + c_k G^T (S + S_d) G, as a Newton iteration matrix needs them."""
    return _matrices(k, state, c_k, c_v, c_g=c_k, with_c=False)[0]


# ------------------------------------------------------------------------------- strain energy
@compiled.loop(cache=True)
def _energy(S, E, dvol):
    """sum_e sum_q dV_q S : E / 2 [J] (the cell index innermost: contiguous)."""
    nq, ne = dvol.shape
    total = 0.0
    for i in range(2):
        for J in range(2):
            for q in range(nq):
                for e in range(ne):
                    total += S[i, J, q, e] * E[i, J, q, e] * dvol[q, e]
    return 0.5 * total


def strain_energy(k: ContinuumKernel, state: KernelState) -> float:
    """sum over cells of sum_q dV_q S : E / 2 [J]."""
    return float(_energy(state.S, state.E, k.dvol))


@compiled.loop(cache=True, error_model="numpy")
def smallest_determinant(F):
    """min over the points of J = det F = F_00 F_11 - F_01 F_10 of a field F (2, 2, nq, ne), NaN when one
    is NaN (numpy's min of fem.model.assembly.jacobian(F)); +inf for no point."""
    out = np.inf
    for q in range(F.shape[2]):
        for e in range(F.shape[3]):
            J = F[0, 0, q, e] * F[1, 1, q, e] - F[0, 1, q, e] * F[1, 0, q, e]
            if J < out or J != J:
                out = J
                if J != J:
                    return out
    return out


@compiled.warm_up
def _load_compiled_loops() -> None:
    """Call the scatter once in the types of a run, when a run starts (fem.compiled.load): numba loads it
    from its cache before the run reports "running", not at its first step (the cell loops are loaded
    when the model is built)."""
    add_scattered(np.zeros(2), np.zeros(2, dtype=np.int64), np.ones(2))
    smallest_determinant(np.ones((2, 2, 1, 2)))
