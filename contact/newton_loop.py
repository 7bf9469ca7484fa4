"""The Newton iterations of a Newmark/HHT step with multiplier contact as one compiled loop over arrays.

A step's iterations, as fem.time.dynamics._newton_step writes them, are::

    repeat:  a, v = kinematics(u);  f_int, f_damp = forces(u, v);  statuses, equations and forces of
             each contact term at u;  R = M a + w1 g - w0 g_n;  Code_Aster's stopping test
             (fem.time.newton.newton_converged);  J = c_a M + w (K + C c_v);  solve the mixed system
             [[J_ff, -w G_f^T], [B_f, A]] [du; dlam] = -[R_f; c];  u_f += du, lam += dlam

:func:`newton_iterations` runs that loop in one call, on the arrays a phase holds (:class:`StepData`, built
once per phase by :func:`step_data`: the continuum kernels of fem.model.continuum, the iteration matrix's
pattern of fem.time.newton_system, and the contact terms' zones and law parameters, concatenated: law
code "lagrange" 0 or "augmented" 1, mu, rho_n, rho_t, gap tolerance per term), calling the loops the
Python path calls (continuum._forces, _cell_matrices, contact.equations.zone_rows, iterate_equations,
newmark, newton_system's fills, fem.time.dense_lu) in the same order: the same bits. The mixed matrix is
filled straight into the dense array the LU factorises, each entry summed in the order of the sparse fill
(fem.time.newton_system._mixed_data).

Which steps it runs (:func:`step_data` returns None otherwise, and the Python loop runs): a Newmark/HHT
phase whose multiplier terms are all :class:`contact.multipliers.MultiplierContact` (Lagrange or
augmented Lagrangian) against a rigid plane or master segments, with no force term (penalty shock springs,
buckling elements, discrete springs and users' own terms run the Python loop), and whose mixed system has
at most fem.time.newton_system.DENSE_MAX unknowns. fem never imports contact: the integrator finds this
module through its terms (MultiplierContact.compiled_iterations, the optional part of the MultiplierTerm
protocol), so a phase without a multiplier term runs the Python loop. ``ROCKFEM_NEWTON_LOOP=python`` in the
environment (or :data:`ENABLED` False) sends every step to the Python loop, for comparisons. A step whose
dense LU is singular to working precision or fails returns FALLBACK: the Python loop runs it again from its
start (SuperLU decides, or diagnoses). Under ``NUMBA_DISABLE_JIT=1`` the same function runs as Python.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import numpy as np

from fem import compiled
from fem.model import continuum
from fem.time import dense_lu, newmark, newton, newton_system

import contact.equations as contact_loops

#: outcomes of :func:`newton_iterations`
CONVERGED, NON_FINITE, NOT_CONVERGED, FALLBACK = 0, 1, 2, 3
#: whether fem.time.dynamics runs the steps it can through :func:`newton_iterations` (False: the Python
#: loop, for comparisons; ROCKFEM_NEWTON_LOOP=python in the environment)
ENABLED = os.environ.get("ROCKFEM_NEWTON_LOOP", "compiled") != "python"
#: law codes of the contact terms
LAGRANGE, AUGMENTED = 0, 1

_NO_INDEX = np.zeros(0, dtype=np.int64)
_NO_VALUES = np.zeros(0)


@dataclass(frozen=True)
class StepData:
    """What :func:`newton_iterations` reads of a phase, built once per phase (:func:`step_data`).

    kernels : per continuum kernel, tuples (dofs, grad, dvol, lam, mu, alpha (empty: no damping), slot);
    large : total Lagrangian; pattern_nnz : the model pattern's entries; md : mass damping CSR arrays
    (indptr, indices, data), empty when none; the iteration matrix's arrays (k_whole, k_map, nnz, md_map,
    md_values, mass, row, col, free_slots, free_rows, free_cols, index); the contact terms: node offsets
    (n_t + 1,), slave nodes, segment offsets (n_t + 1,), segments (., 2), planes (n_t, 4), row widths
    (n_t,), parameters (n_t, 7): extension, clearance, mu, rho_n, rho_t, gap tolerance, law code.
    """

    terms: tuple
    points: np.ndarray
    dofs: tuple
    grad: tuple
    dvol: tuple
    lam: tuple
    mu: tuple
    alpha: tuple
    slot: tuple
    large: bool
    pattern_nnz: int
    md_indptr: np.ndarray
    md_indices: np.ndarray
    md_data: np.ndarray
    k_whole: bool
    k_map: np.ndarray
    nnz: int
    md_map: np.ndarray
    md_values: np.ndarray
    mass: np.ndarray
    row: np.ndarray
    col: np.ndarray
    jm_indptr: np.ndarray
    free_slots: np.ndarray
    free_rows: np.ndarray
    free_cols: np.ndarray
    index: np.ndarray
    node_start: np.ndarray
    slave: np.ndarray
    segment_start: np.ndarray
    segments: np.ndarray
    planes: np.ndarray
    widths: np.ndarray
    parameters: np.ndarray


def step_data(ctx) -> StepData | None:
    """The arrays of ``ctx`` (fem.time.newton.PhaseContext) for :func:`newton_iterations`, or None when
    the phase is not one it runs (module docstring)."""
    from fem.stage.schemes import Static

    model = ctx.model
    if not ENABLED or isinstance(ctx.phase.scheme, Static) or ctx.terms:
        return None
    terms = tuple(ctx.multipliers)
    points = terms[0].points if terms else np.zeros((0, 2))
    this = sys.modules[__name__]
    for term in terms:  # one set of points for every zone: the terms' own (a tilted phase's may be its own)
        named = getattr(term, "compiled_iterations", lambda: None)()
        if named is not this or term.impulsive or term.points is not points:
            return None
        if term._fused_zone() is None:
            return None
    n_m = sum(term.size for term in terms)
    if ctx.free.size + n_m > newton_system.DENSE_MAX:
        return None
    if model.mass_damping is not None and model.mass_damping.format != "csr":
        return None
    matrix = ctx.system.matrix
    if matrix._extra.size:
        return None
    kernels = model.kernels
    if not kernels:
        return None
    has_md = matrix._mass_damping_keys is not None
    md = model.mass_damping
    fused = [term._fused_zone() for term in terms]
    node_start = np.concatenate([[0], np.cumsum([term.zone.size for term in terms])]).astype(np.int64)
    segment_start = np.concatenate([[0], np.cumsum([f[0].shape[0] for f in fused])]).astype(np.int64)
    return StepData(
        terms=terms, points=np.ascontiguousarray(points, dtype=np.float64),
        dofs=tuple(k.dofs for k in kernels), grad=tuple(k.grad for k in kernels), dvol=tuple(k.dvol for k in kernels),
        lam=tuple(k.lam for k in kernels), mu=tuple(k.mu for k in kernels),
        alpha=tuple(_NO_VALUES if k.alpha is None else k.alpha for k in kernels), slot=tuple(k.slot for k in kernels),
        large=model.kinematics == "total_lagrangian", pattern_nnz=int(model.pattern.nnz),
        md_indptr=md.indptr if md is not None else _NO_INDEX, md_indices=md.indices if md is not None else _NO_INDEX,
        md_data=md.data if md is not None else _NO_VALUES,
        k_whole=bool(matrix.k_whole), k_map=matrix.k_map, nnz=int(matrix.nnz),
        md_map=matrix.md_map if has_md else _NO_INDEX, md_values=matrix.mass_damping if has_md else _NO_VALUES,
        mass=matrix.mass, row=matrix.row, col=matrix.col, jm_indptr=matrix.indptr, free_slots=matrix.free_slots,
        free_rows=matrix.free_rows, free_cols=matrix.free_cols, index=matrix.index,
        node_start=node_start,
        slave=np.concatenate([term.zone.slave for term in terms]).astype(np.int64) if terms else _NO_INDEX,
        segment_start=segment_start,
        segments=(np.concatenate([f[0] for f in fused]).astype(np.int64) if terms
                  else np.zeros((0, 2), dtype=np.int64)),
        planes=np.array([f[1] for f in fused], dtype=float).reshape(len(terms), 4),
        widths=np.array([f[2] for f in fused], dtype=np.int64),
        parameters=np.array([[t.zone.extension, t.zone.clearance, t.friction, t.rho_n, t.rho_t, t.gap_tolerance,
                              AUGMENTED if t.method == "augmented" else LAGRANGE] for t in terms],
                            dtype=float).reshape(len(terms), 7),
    )


@compiled.loop(calls=("fem.model.continuum", "fem.time.newmark", "fem.time.newton", "fem.time.newton_system",
                      "fem.time.dense_lu", "contact.equations", "contact.zone"), cache=True, error_model="numpy")
def newton_iterations(u, u0, v0, a0, ca, dt, beta, gamma, quasi_static, f_ext, m_indptr, m_indices, m_data, w1, w0,
                      g0, free, cdofs, c_v, split, dofs_k, grad_k, dvol_k, lam_k, mu_k, alpha_k, slot_k, large,
                      pattern_nnz, md_indptr, md_indices, md_data, k_whole, k_map, nnz, md_map, md_values, mass, row,
                      col, jm_indptr, free_slots, free_rows, free_cols, index, points, node_start, slave,
                      segment_start, segments, planes, widths, parameters, has_held, held, has_free, free_mask, lam,
                      status, direction, changes, rela, use_rela, maxi, use_maxi, max_iterations, max_changes,
                      momentum_rate, force_scale, rcond_min, u_out, a_out, v_out, f_int, f_damp, f_each, f_terms,
                      reactions_c, R_free, norms, counts, geometry, rows_dofs, rows_values):
    """A step's Newton iterations (module docstring) from the first iterate ``u`` (imposed values set),
    writing the last iterate: u_out, a_out, v_out, f_int, f_damp, f_each (n_t, n_dofs) each contact
    term's force -G^T lam, f_terms (their sum), reactions_c, R_free, norms (5,) (||R_free||, ||c||, scale,
    and when converged the strain energy [J] and the smallest det F, +inf in small strain), and
    the contact trial (lam, status, direction, changes: concatenated over the terms, in place), the last
    iterate's contact geometry and rows (zone_rows' arrays, concatenated over the terms, each term's rows in
    its first columns): ``geometry`` (n_s, 8) gap, normal (2), tangent (2), xi, gap_inf, 0; ``rows_dofs``
    (4 n_s, k) the master nodes (first two columns), the dofs of the rows (n_s) and of the interleaved rows
    (2 n_s); ``rows_values`` (4 n_s, k) wn, wt (n_s each) and the interleaved G (2 n_s) (:func:`kept_rows`);
    force_scale (1,) the phase's largest scale (fem.time.newton.newton_converged), counts[0] the
    corrections made. Returns CONVERGED, NON_FINITE (a residual not finite), NOT_CONVERGED (max_iterations
    reached or a status changed max_changes times: the caller names the cause) or FALLBACK (the dense LU
    was singular or failed: the caller runs the step again its own way).

    w1, w0, c_v : one number (size 1) or one per dof; ``split`` when c_v is per dof (J from K and C apart,
    fem.time.newton_system._split_data, else from their combination, _combined_data)."""
    n = u.size
    nf = free.size
    n_t = widths.size
    n_m = lam.size
    N = nf + n_m
    k = 1
    for t in range(n_t):
        if widths[t] > k:
            k = widths[t]
    c = np.empty(n_m)
    columns = np.zeros((n_m, k), dtype=np.int64)
    G = np.zeros((n_m, k))
    B = np.zeros((n_m, k))
    A = np.empty(2 * n_m)
    on_free = np.zeros((n_m, k), dtype=np.bool_)
    paired = np.zeros(n_m, dtype=np.bool_)  # each node's rows of A: (normal, tangent), 2 entries from 2 r
    row_start, row_size = np.empty(n_m, dtype=np.int64), np.full(n_m, 2, dtype=np.int64)
    trivial = np.empty(n_m, dtype=np.bool_)
    for r in range(n_m):
        paired[r] = r % 2 == 1
        row_start[r] = 2 * r
    w_rows = w1.size > 1
    no_field, no_cells, no_values = np.empty((2, 2, 0, 0)), np.empty((0, 0, 0)), np.empty(0)
    no_index = np.empty(0, dtype=np.int64)
    J = np.empty(0)
    u_J = u.copy()
    it, previous, have_J = 0, np.inf, False
    while True:
        a, v = newmark.newmark_kinematics(u, u0, v0, a0, ca, dt, beta, gamma, quasi_static)
        # forces (fem.model.assembly.Model.evaluate)
        for i in range(n):
            f_int[i] = 0.0
            f_damp[i] = 0.0
        F_k = [no_field for _ in range(len(dofs_k))]
        E_k = [no_field for _ in range(len(dofs_k))]
        S_k = [no_field for _ in range(len(dofs_k))]
        Hv_k = [no_field for _ in range(len(dofs_k))]
        Sd_k = [no_field for _ in range(len(dofs_k))]
        for q in range(len(dofs_k)):
            dofs, grad, dvol, alpha = dofs_k[q], grad_k[q], dvol_k[q], alpha_k[q]
            nen, nq, ne = grad.shape[0], dvol.shape[0], dvol.shape[1]
            damped = alpha.size > 0
            F = np.empty((2, 2, nq, ne)) if large else no_field
            E, S = np.empty((2, 2, nq, ne)), np.empty((2, 2, nq, ne))
            Hv = np.empty((2, 2, nq, ne)) if damped else no_field
            Sd = np.empty((2, 2, nq, ne)) if damped else no_field
            fi = np.zeros((nen, 2, ne))
            fd = np.zeros((nen, 2, ne)) if damped else no_cells
            continuum._forces(u, v if damped else no_values, dofs, grad, dvol, lam_k[q], mu_k[q], alpha, F, E, S, Hv,
                              Sd, fi, fd)
            continuum.add_scattered(f_int, dofs.ravel(), fi.ravel())
            if damped:
                continuum.add_scattered(f_damp, dofs.ravel(), fd.ravel())
            F_k[q], E_k[q], S_k[q], Hv_k[q], Sd_k[q] = F, E, S, Hv, Sd
        if md_indptr.size:
            product = newmark.mass_times(md_indptr, md_indices, md_data, v)
            for i in range(n):
                f_damp[i] = f_damp[i] + product[i]
        # contact terms (contact.multipliers.MultiplierContact.iterate)
        settled = True
        for i in range(n):
            f_terms[i] = 0.0
        for t in range(n_t):
            s0, s1 = node_start[t], node_start[t + 1]
            ns, m = s1 - s0, widths[t]
            gap, normal, tangent = np.empty(ns), np.empty((ns, 2)), np.empty((ns, 2))
            master, xi = np.empty((ns, 2), dtype=np.int64), np.empty(ns)
            dofs_t, wn, wt = np.empty((ns, m), dtype=np.int64), np.empty((ns, m)), np.empty((ns, m))
            dofs2, G_t, gap_inf = np.empty((2 * ns, m), dtype=np.int64), np.empty((2 * ns, m)), np.empty(ns)
            contact_loops.zone_rows(points, u, slave[s0:s1], segments[segment_start[t]:segment_start[t + 1]],
                                    planes[t], parameters[t, 0], parameters[t, 1], gap, normal, tangent, master, xi,
                                    dofs_t, wn, wt, dofs2, G_t, gap_inf)
            nt = node_start[n_t]
            for i in range(ns):
                at = s0 + i
                geometry[at, 0], geometry[at, 1], geometry[at, 2] = gap[i], normal[i, 0], normal[i, 1]
                geometry[at, 3], geometry[at, 4], geometry[at, 5] = tangent[i, 0], tangent[i, 1], xi[i]
                geometry[at, 6], geometry[at, 7] = gap_inf[i], 0.0
                rows_dofs[at, 0], rows_dofs[at, 1] = master[i, 0], master[i, 1]
                for j in range(m):
                    rows_dofs[nt + at, j] = dofs_t[i, j]
                    rows_values[at, j], rows_values[nt + at, j] = wn[i, j], wt[i, j]
            for r in range(2 * ns):
                for j in range(m):
                    rows_dofs[2 * nt + 2 * s0 + r, j] = dofs2[r, j]
                    rows_values[2 * nt + 2 * s0 + r, j] = G_t[r, j]
            ds = np.empty(ns)
            contact_loops.row_increments(dofs_t, wt, u, u0, ds)
            new, turned, changed = np.empty(ns, dtype=np.int64), np.empty(ns), np.empty(ns, dtype=np.int64)
            residual, Du, Dl = np.empty(2 * ns), np.empty((2 * ns, m)), np.empty((ns, 2, 2))
            force = np.empty(n)
            count = contact_loops.iterate_equations(
                True, status[s0:s1], direction[s0:s1], lam[2 * s0:2 * s1], gap_inf, ds, held[s0:s1], has_held[t],
                free_mask[s0:s1], has_free[t], parameters[t, 2], parameters[t, 3], parameters[t, 4],
                parameters[t, 5], parameters[t, 6] == AUGMENTED, 1.0, dofs2, G_t, changes[s0:s1], new, turned,
                changed, residual, Du, Dl, force)
            if count:
                settled = False
            for i in range(ns):
                status[s0 + i], direction[s0 + i] = new[i], turned[i]
            for r in range(2 * ns):
                c[2 * s0 + r] = residual[r]
                for j in range(k):
                    if j < m:
                        columns[2 * s0 + r, j], G[2 * s0 + r, j], B[2 * s0 + r, j] = dofs2[r, j], G_t[r, j], Du[r, j]
                    else:  # padded with the first column and zeros (NewtonSystem._rows)
                        columns[2 * s0 + r, j], G[2 * s0 + r, j], B[2 * s0 + r, j] = dofs2[r, 0], 0.0, 0.0
            for i in range(ns):
                for p in range(2):
                    for q in range(2):
                        A[4 * s0 + 4 * i + 2 * p + q] = Dl[i, p, q]
            for i in range(n):
                f_each[t, i] = force[i]
        # f_terms = zeros + (zeros + f_0 + f_1 + ...), as the Python loop sums them
        for i in range(n):
            total = 0.0
            for t in range(n_t):
                total = total + f_each[t, i]
            f_terms[i] = 0.0 + total
        g, Ma, R = newmark.hht_residual(f_int, f_damp, f_terms, f_ext, m_indptr, m_indices, m_data, a, w1, w0, g0)
        newton.momentum_norms(R, free, c, Ma, g, cdofs, f_ext, f_int, f_damp, f_terms, R_free, reactions_c, norms)
        res, res_c, scale = norms[0], norms[1], norms[2]
        for i in range(n):
            u_out[i], a_out[i], v_out[i] = u[i], a[i], v[i]
        counts[0] = it
        if not np.isfinite(res + res_c):
            return NON_FINITE
        worst = res_c if res_c > res else res  # Python's max(res, res_c)
        floor = 0.0
        if have_J and worst > 0.5 * previous:  # the round-off floor once Newton stops gaining (fem.time.dynamics)
            floor = newton.csr_round_off_floor(J, col, jm_indptr, u_J)
        if newton.stopping_test(worst, scale, force_scale, settled, it, momentum_rate, floor, rela, use_rela, maxi,
                                use_maxi):
            # the strain energy and smallest det F of the converged state (fem.model.assembly.ForceEvaluation's)
            energy, smallest = 0.0, np.inf
            for q in range(len(dofs_k)):
                energy += continuum._energy(S_k[q], E_k[q], dvol_k[q])
                if large:
                    det = continuum.smallest_determinant(F_k[q])
                    if det < smallest:
                        smallest = det
            norms[3], norms[4] = energy, smallest
            return CONVERGED
        previous = worst
        oscillating = False
        for i in range(changes.size):
            if changes[i] >= max_changes:
                oscillating = True
        if it >= max_iterations or oscillating:
            return NOT_CONVERGED
        # the iteration matrix (fem.time.newton_system.IterationMatrix.data)
        if split:
            K_data, C_data = np.zeros(pattern_nnz), np.zeros(pattern_nnz)
            for q in range(len(dofs_k)):
                grad, dvol, alpha = grad_k[q], dvol_k[q], alpha_k[q]
                mm, ne = 2 * grad.shape[0], dvol.shape[1]
                K = np.empty((mm, mm, ne))
                C = np.empty((mm, mm, ne)) if alpha.size else no_cells
                continuum._cell_matrices(F_k[q], Hv_k[q], S_k[q], Sd_k[q], grad, dvol, lam_k[q], mu_k[q], alpha, 1.0,
                                         0.0, 1.0, K, C)
                continuum.add_scattered(K_data, slot_k[q], K.ravel())
                if alpha.size:
                    continuum.add_scattered(C_data, slot_k[q], C.ravel())
            J = newton_system._split_data(K_data, C_data, k_map, nnz, md_map, md_values, no_index, no_values,
                                          no_index, no_values, 1.0, c_v, col, ca, mass, w1, w_rows, row)
        else:
            cells = np.zeros(pattern_nnz)
            for q in range(len(dofs_k)):
                grad, dvol, alpha = grad_k[q], dvol_k[q], alpha_k[q]
                mm, ne = 2 * grad.shape[0], dvol.shape[1]
                K = np.empty((mm, mm, ne))
                continuum._cell_matrices(F_k[q], Hv_k[q], S_k[q], Sd_k[q], grad, dvol, lam_k[q], mu_k[q], alpha, 1.0,
                                         c_v[0], 1.0, K, no_cells)
                continuum.add_scattered(cells, slot_k[q], K.ravel())
            J = newton_system._combined_data(cells, k_whole, k_map, nnz, md_map, md_values, c_v[0], no_index,
                                             no_values, ca, mass, w1, w_rows, row)
        u_J = u
        have_J = True
        # the mixed system, filled dense (fem.time.newton_system._mixed_correction, entry by entry in its order)
        dense = np.zeros(N * N)
        for p in range(free_slots.size):
            dense[free_cols[p] * N + free_rows[p]] += J[free_slots[p]]
        for r in range(n_m):
            for j in range(k):
                on_free[r, j] = index[columns[r, j]] >= 0
        for r in range(n_m):
            for j in range(k):
                if on_free[r, j]:
                    weight = w1[columns[r, j]] if w_rows else w1[0]
                    if w_rows:
                        dense[(nf + r) * N + index[columns[r, j]]] += -(weight * G[r, j])
                    else:
                        dense[(nf + r) * N + index[columns[r, j]]] += -weight * G[r, j]
        for r in range(n_m):
            for j in range(k):
                if on_free[r, j]:
                    dense[index[columns[r, j]] * N + nf + r] += B[r, j]
        for node in range(n_m // 2):
            for p in range(2):
                for q in range(2):
                    dense[(nf + 2 * node + q) * N + nf + 2 * node + p] += A[4 * node + 2 * p + q]
        b = np.empty(N)
        for i in range(nf):
            b[i] = -R_free[i]
        for r in range(n_m):
            b[nf + r] = -c[r]
        if newton_system.trivial_equations(A, row_start, row_size, B, columns, on_free, paired, trivial):
            for r in range(n_m):
                if trivial[r]:
                    dense[(nf + r) * N + nf + r] += 1.0
                    b[nf + r] = -lam[r]
        x, outcome = dense_lu.factor_and_solve(dense, N, b, rcond_min)
        if outcome != dense_lu.SOLVED:
            return FALLBACK
        for r in range(n_m):
            lam[r] = lam[r] + x[nf + r]
        u = u.copy()
        for i in range(nf):
            u[free[i]] += x[i]
        it += 1


@dataclass
class Iterated:
    """What :func:`iterate` leaves of a step's Newton iterations: the outcome code, the corrections made,
    the last iterate (u, a, v), the forces there (f_int, f_damp, each contact term's force f_each (n_t,
    n_dofs), their sum f_terms), the reactions on the imposed dofs (reactions_c), the free residual R_free
    and the norms (||R_free||, ||c||, scale, strain energy, smallest det F: :func:`newton_iterations`)."""

    code: int
    iterations: int
    u: np.ndarray
    a: np.ndarray
    v: np.ndarray
    f_int: np.ndarray
    f_damp: np.ndarray
    f_each: np.ndarray
    f_terms: np.ndarray
    reactions_c: np.ndarray
    R_free: np.ndarray
    norms: np.ndarray
    changes: list


def iterate(data: StepData, ctx, trials, u, u0, v0, a0, ca: float, dt: float, beta: float, gamma: float,
            quasi_static, f_ext, M, w1: np.ndarray, w0: np.ndarray, g0, c_v: np.ndarray, momentum_rate: float,
            max_changes: int) -> Iterated:
    """Run :func:`newton_iterations` for a step of the phase ``ctx`` from the first iterate u, the contact
    trials ``trials`` (contact.multipliers.TrialContact, in the order of ctx.multipliers). On CONVERGED,
    NON_FINITE or NOT_CONVERGED the trials take the last iterate's multipliers and statuses and
    ctx.force_scale its update; on FALLBACK nothing is changed. ``changes`` (per term, (n_s,)) the
    status changes counted in the step."""
    n, settings = u.size, ctx.phase.newton
    n_t = len(trials)
    if n_t:  # copies: the trials keep their values until the loop is done (FALLBACK starts from them)
        lam = np.concatenate([trial.lam for trial in trials])
        status = np.concatenate([trial.status for trial in trials])
        direction = np.concatenate([trial.direction for trial in trials])
        changes = np.concatenate([trial.changes for trial in trials])
    else:
        lam, direction, status, changes = _NO_VALUES, _NO_VALUES, _NO_INDEX, _NO_INDEX
    ns = status.size
    held, free_mask = np.zeros(ns, dtype=np.bool_), np.zeros(ns, dtype=np.bool_)
    has_held, has_free = np.zeros(n_t, dtype=np.bool_), np.zeros(n_t, dtype=np.bool_)
    for t, trial in enumerate(trials):
        s0, s1 = data.node_start[t], data.node_start[t + 1]
        if trial.held is not None:
            has_held[t], held[s0:s1] = True, trial.held
        if trial.free is not None:
            has_free[t], free_mask[s0:s1] = True, trial.free
    free, cdofs = ctx.free, ctx.constraints.dofs
    force_scale = np.array([ctx.force_scale])
    out = Iterated(0, 0, np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty((n_t, n)),
                   np.empty(n), np.empty(cdofs.size), np.empty(free.size), np.empty(5), [])
    counts = np.zeros(1, dtype=np.int64)
    k = max(int(data.widths.max()), 1) if n_t else 1
    geometry, rows_dofs, rows_values = np.empty((ns, 8)), np.empty((4 * ns, k), dtype=np.int64), np.empty((4 * ns, k))
    out.code = newton_iterations(
        u, u0, v0, a0, ca, dt, beta, gamma, quasi_static, f_ext, M.indptr, M.indices, M.data, w1, w0, g0, free, cdofs,
        c_v, c_v.size > 1, data.dofs, data.grad, data.dvol, data.lam, data.mu, data.alpha, data.slot, data.large,
        data.pattern_nnz, data.md_indptr, data.md_indices, data.md_data, data.k_whole, data.k_map, data.nnz,
        data.md_map, data.md_values, data.mass, data.row, data.col, data.jm_indptr, data.free_slots, data.free_rows,
        data.free_cols, data.index, data.points, data.node_start, data.slave, data.segment_start, data.segments,
        data.planes, data.widths, data.parameters, has_held, held, has_free, free_mask, lam, status, direction,
        changes, settings.rela if settings.rela is not None else 0.0, settings.rela is not None,
        settings.maxi if settings.maxi is not None else 0.0, settings.maxi is not None, settings.max_iterations,
        max_changes, momentum_rate, force_scale, newton_system.RCOND_MIN, out.u, out.a, out.v, out.f_int, out.f_damp,
        out.f_each, out.f_terms, out.reactions_c, out.R_free, out.norms, counts, geometry, rows_dofs, rows_values)
    out.iterations = int(counts[0])
    if out.code == FALLBACK:
        return out
    ctx.force_scale = float(force_scale[0])
    for t, trial in enumerate(trials):
        s0, s1 = data.node_start[t], data.node_start[t + 1]
        trial.lam = lam[2 * s0:2 * s1].copy()
        trial.status = status[s0:s1].copy()
        trial.direction = direction[s0:s1].copy()
        trial.changes[:] = changes[s0:s1]
    out.changes = [trial.changes for trial in trials]
    if out.code == CONVERGED:  # the terms' geometry at the converged u, as they would compute it again
        for t, term in enumerate(data.terms):
            term.keep_rows(out.u, kept_rows(geometry, rows_dofs, rows_values, data.node_start, t, int(data.widths[t])))
    return out


def kept_rows(geometry, rows_dofs, rows_values, node_start, t: int, m: int):
    """Term t's arrays of contact.equations.zone_rows (gap, normal, tangent, master, xi, dofs, wn, wt,
    dofs2, G, gap_inf), each its own contiguous array, from :func:`newton_iterations`' outputs."""
    s0, s1, nt = int(node_start[t]), int(node_start[t + 1]), int(node_start[-1])
    g = geometry[s0:s1]
    own = np.ascontiguousarray
    return (g[:, 0].copy(), own(g[:, 1:3]), own(g[:, 3:5]), own(rows_dofs[s0:s1, :2]), g[:, 5].copy(),
            own(rows_dofs[nt + s0:nt + s1, :m]), own(rows_values[s0:s1, :m]), own(rows_values[nt + s0:nt + s1, :m]),
            own(rows_dofs[2 * nt + 2 * s0:2 * nt + 2 * s1, :m]), own(rows_values[2 * nt + 2 * s0:2 * nt + 2 * s1, :m]),
            g[:, 6].copy())


@compiled.warm_up
def _load_compiled_loops() -> None:
    """Run the loop once in the types of a run (one element type, no contact point, two dofs at rest:
    converged at its first iterate), when a run starts (fem.compiled.load): numba loads it from its cache
    before the run reports "running"."""
    x, two = np.zeros(2), np.arange(2, dtype=np.int64)
    indptr, indices = np.array([0, 1, 2], dtype=np.int32), np.array([0, 1], dtype=np.int32)
    one, none_bool = np.ones(1), np.zeros(0, dtype=np.bool_)
    cells = (np.zeros((4, 2, 0), dtype=np.int64),), (np.zeros((4, 2, 4, 0)),), (np.zeros((4, 0)),)
    per_cell = (np.zeros(0),)
    for split in (False, True):
        newton_iterations(
            x, x, x, x, 1.0, 1.0, 0.25, 0.5, _NO_INDEX, x, indptr, indices, np.ones(2), one, np.zeros(1), x, two,
            _NO_INDEX, np.ones(2) if split else one, split, *cells, per_cell, per_cell, per_cell, (_NO_INDEX,), False,
            0, _NO_INDEX, _NO_INDEX, _NO_VALUES, True, _NO_INDEX, 2, _NO_INDEX, _NO_VALUES, x, two, two,
            np.arange(3, dtype=np.int64), two, two, two, two, np.zeros((0, 2)), np.zeros(1, dtype=np.int64),
            _NO_INDEX, np.zeros(1, dtype=np.int64), np.zeros((0, 2), dtype=np.int64), np.zeros((0, 4)), _NO_INDEX,
            np.zeros((0, 7)), none_bool, none_bool, none_bool, none_bool, _NO_VALUES, _NO_INDEX, _NO_VALUES,
            _NO_INDEX, 1e-6, True, 0.0, False, 20, 6, 0.0, np.zeros(1), newton_system.RCOND_MIN, np.empty(2),
            np.empty(2), np.empty(2), np.empty(2), np.empty(2), np.empty((0, 2)), np.empty(2), np.empty(0),
            np.empty(2), np.empty(5), np.zeros(1, dtype=np.int64), np.empty((0, 8)), np.empty((0, 1), dtype=np.int64),
            np.empty((0, 1)))
