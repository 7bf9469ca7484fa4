"""The Newton system of a phase, on sparsity patterns computed once: the iteration matrix written
in place, the free dofs gathered by a precomputed map, the contact multipliers' rows added to a
mixed pattern kept while the contact pairings do not change, and a dense LU for small systems
(fem.time.dense_lu: a compiled loop calling LAPACK by symbol name).

Iteration matrix (n_dofs, n_dofs), on the union pattern of M, K and C::

    J = c_M M + diag(w) (c_K K + C diag(c_v))

K = d(f_int + f_damp + f_terms)/du and C = d(f_damp + f_terms)/dv; Newmark/HHT: c_M = 1/(beta dt^2),
w = 1 + alpha_f (1 on the massless dofs of fem.model.mass), c_K = 1, c_v = gamma/(beta dt) (1/dt on the
massless dofs); Moreau-Jean theta: c_M = 1/dt, w = theta, c_K = theta dt, c_v = 1.

Mixed system on the free dofs f and the multipliers lam (n_m of them)::

    [[J_ff, -W G_f^T], [B_f, A]] [dx; dlam] = -[R_f; c]

G the multiplier force rows, B = dC/du and A = dC/dlam (block diagonal) the derivatives of the
multiplier equations C, W = diag(w) (fem.time.dynamics.solve_increment). Nothing here builds a sparse
matrix object per iteration: the matrices are data arrays on fixed patterns; SuperLU is handed one
CSC matrix per pattern whose data is overwritten.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fem import compiled
from fem.time import dense_lu

#: mixed systems with at most this many unknowns are solved with a dense LU (LAPACK getrf): SDNV105 A's
#: mixed systems (python benchmarks/solvers.py) take 0.06 / 0.16 / 0.52 / 1.7 ms dense against
#: 0.08 / 0.33 / 0.48 / 0.8 ms with SuperLU at 50 / 126 / 234 / 408 unknowns
DENSE_MAX = 200
#: SuperLU's column ordering for the large systems: the minimum degree of A^T + A fills in less than
#: COLAMD on these structurally symmetric matrices (python benchmarks/solvers.py, factorisation and
#: solve: 18 against 30 ms at 5330 unknowns, 102 against 211 ms at 20640)
ORDERING = "MMD_AT_PLUS_A"
#: SuperLU's threshold for a diagonal pivot in the systems without multipliers (J_ff alone): a diagonal
#: entry at least this fraction of its column's largest is the pivot (1 is partial pivoting). J_ff =
#: c_M M + w (K + c_v C) is nearly symmetric with its mass term dominant, so with SuperLU's symmetric
#: mode (rows permuted as the columns) its diagonal is the pivot: on the 205-brick wall of
#: examples/masonry_wall.py (3,862 unknowns) 10 ms and 0.33 M nonzeros in L + U, against 17 ms and
#: 0.50 M with partial pivoting on the same ordering. The mixed systems, whose multiplier block has
#: zeros on its diagonal, keep partial pivoting.
SYMMETRIC_PIVOT = 0.1
#: splu's keyword arguments for those systems (read only)
SYMMETRIC_MODE = dict(diag_pivot_thresh=SYMMETRIC_PIVOT, options=dict(SymmetricMode=True))
#: below this reciprocal condition number (1-norm, LAPACK gecon) a dense LU is not trusted. The
#: mixed systems of a sound step have about 1e-15 (the contact rows are scaled by rho ~ 1e12 N/m
#: against A's ones); a contact equation that is redundant with an imposed dof but for a round-off
#: angle gives 1e-44 (SDNV105 A's tilt, O1 sticking with its DX imposed)
RCOND_MIN = 1e-30
#: distinct mixed patterns (contact pairings) kept per phase
PATTERN_CACHE = 8


def _keys(matrix: sp.spmatrix, n: int) -> np.ndarray:
    """Row-major keys row * n + col (nnz,) of a CSR matrix's stored entries, in storage order."""
    matrix = matrix.tocsr()
    rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), np.diff(matrix.indptr))
    return rows * n + matrix.indices.astype(np.int64)


class IterationMatrix:
    """The union pattern of M, K, C (and of the force terms' derivatives met so far) on all dofs,
    with the gather of its free-free part.

    Attributes: n; keys (nnz,) sorted row-major keys; row, col (nnz,); mass (nnz,) M's data on it;
    free (n_f,) free dofs; free_slots (nnz_ff,) the entries of J_ff in the union, row-major;
    free_rows, free_cols (nnz_ff,) their free indices.
    """

    def __init__(self, model, free: np.ndarray) -> None:
        self.model, self.n, self.free = model, model.n_dofs, free
        pattern, n = model.pattern, self.n
        self._pattern_keys = _keys(pattern.matrix(np.zeros(pattern.nnz)), n)
        self._mass_keys = _keys(model.mass, n)
        self._sources = (model.mass, model.mass_damping)  # the matrices whose data it copied
        self._mass_damping_keys = _keys(model.mass_damping, n) if model.mass_damping is not None else None
        self._extra = np.zeros(0, dtype=np.int64)  # entries of the force terms' derivatives met so far
        self._slot_cache: list = []  # per force-term matrix of the last call: (version, indptr, indices, slots)
        self._build(self._extra)

    def _build(self, extra: np.ndarray) -> None:
        parts = [self._pattern_keys, self._mass_keys, extra]
        if self._mass_damping_keys is not None:
            parts.append(self._mass_damping_keys)
        n = self.n
        self.keys = np.unique(np.concatenate(parts))
        self.row, self.col = np.divmod(self.keys, n)
        self.nnz = self.keys.size
        self.k_map = np.searchsorted(self.keys, self._pattern_keys)
        self.k_whole = self.k_map.size == self.nnz  # the union is the model's pattern: no scatter
        self.mass = np.zeros(self.nnz)
        self.mass[np.searchsorted(self.keys, self._mass_keys)] = self.model.mass.tocsr().data
        if self._mass_damping_keys is not None:
            self.md_map = np.searchsorted(self.keys, self._mass_damping_keys)
            self.mass_damping = self.model.mass_damping.tocsr().data
        is_free = np.zeros(n, dtype=bool)
        is_free[self.free] = True
        self.index = np.full(n, -1, dtype=np.int64)  # free index of a dof, -1 if imposed
        self.index[self.free] = np.arange(self.free.size)
        self.free_slots = np.flatnonzero(is_free[self.row] & is_free[self.col])
        self.free_rows = self.index[self.row[self.free_slots]]
        self.free_cols = self.index[self.col[self.free_slots]]
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(self.row, minlength=n))])
        self.version = getattr(self, "version", -1) + 1

    def built_for(self, model) -> bool:
        """Whether the model still has the mass and damping matrices this pattern copied."""
        return self._sources[0] is model.mass and self._sources[1] is model.mass_damping

    def data(self, forces, term_tangents, c_m: float, w, c_k: float, c_v) -> np.ndarray:
        """J's data (nnz,) on the union pattern.

        forces : fem.model.assembly.ForceEvaluation (c_k K + c_v C of its cells assembled at once when c_v is a
            number, its tangent_data otherwise); term_tangents : (d_du, d_dv) sparse
        or None per force term (a term's entries outside the pattern grow it, once: a contact
        pairing met for the first time); c_m, c_k numbers; w, c_v numbers or (n_dofs,) arrays
        (per row, per column).
        """
        extra = [(which, matrix.tocsr()) for d_du, d_dv in term_tangents
                 for which, matrix in (("K", d_du), ("C", d_dv)) if matrix is not None]
        slots = self._slots([matrix for _, matrix in extra])
        has_md = self._mass_damping_keys is not None
        md_map = self.md_map if has_md else _NO_SLOTS
        mass_damping = self.mass_damping if has_md else _NO_VALUES
        w_rows = isinstance(w, np.ndarray) and w.ndim != 0
        w = np.asarray(w, dtype=float).reshape(-1)
        if not (isinstance(c_v, np.ndarray) and c_v.ndim != 0):  # c_k K + c_v C of the cells in one product (fem.model.continuum.combined_tangent)
            at, values = _entries([(at, (c_k if which == "K" else c_v) * matrix.data)
                                   for (which, matrix), at in zip(extra, slots)])
            return _combined_data(forces.combined_tangent_data(c_k, c_v), self.k_whole, self.k_map, self.nnz,
                                  md_map, mass_damping, float(c_v), at, values, c_m, self.mass, w, w_rows, self.row)
        K_data, C_data = forces.tangent_data()
        k_at, k_values = _entries([(at, matrix.data) for (which, matrix), at in zip(extra, slots) if which == "K"])
        c_at, c_values = _entries([(at, matrix.data) for (which, matrix), at in zip(extra, slots) if which == "C"])
        return _split_data(K_data, C_data, self.k_map, self.nnz, md_map, mass_damping, k_at, k_values, c_at, c_values,
                           c_k, np.asarray(c_v, dtype=float), self.col, c_m, self.mass, w, w_rows, self.row)

    def _slots(self, matrices) -> list:
        """Where each stored entry of the CSR ``matrices`` (the force terms' derivatives) lies in J's data
        (nnz,): their entries outside the pattern grow it first (once: the pattern keeps them). A matrix
        with the structure (indptr, indices) it had at the previous call, on the same pattern, keeps its
        slots (a contact term whose pairings did not change: no search)."""
        cached = self._slot_cache
        if len(cached) == len(matrices) and all(
                version == self.version and np.array_equal(indptr, m.indptr) and np.array_equal(indices, m.indices)
                for (version, indptr, indices, _), m in zip(cached, matrices)):
            return [at for *_, at in cached]
        keys = [_keys(matrix, self.n) for matrix in matrices]
        slots = [np.searchsorted(self.keys, k) for k in keys]
        if not all(np.array_equal(self.keys[np.minimum(at, self.nnz - 1)], k) for at, k in zip(slots, keys)):
            self._extra = np.concatenate([self._extra, *keys])
            self._build(self._extra)
            slots = [np.searchsorted(self.keys, k) for k in keys]
        self._slot_cache = [(self.version, m.indptr.copy(), m.indices.copy(), at) for m, at in zip(matrices, slots)]
        return slots

    def matrix(self, data: np.ndarray) -> sp.csr_matrix:
        """J (n_dofs, n_dofs) as a CSR matrix (for diagnostics off the hot path)."""
        return sp.csr_matrix((data, self.col.astype(np.int32), self.indptr), shape=(self.n, self.n))


class MixedPattern:
    """CSC pattern of the mixed system for one set of multiplier-row columns, and where each of
    its blocks goes. Unknowns: the n_f free dofs, then the n_m multipliers.

    columns : (n_m, k) dofs of the multiplier rows; blocks : ((rows, block size), ...) of A's
    diagonal blocks, term by term (rows summing to n_m).
    """

    def __init__(self, matrix: IterationMatrix, columns: np.ndarray, blocks) -> None:
        nf, nm = matrix.free.size, columns.shape[0]
        N = nf + nm
        k = columns.shape[1]
        fidx = matrix.index[columns]  # (n_m, k), -1 for an imposed dof
        self.on_free = fidx >= 0
        r_m = np.repeat(np.arange(nm, dtype=np.int64), k).reshape(nm, k)[self.on_free] + nf
        c_f = fidx[self.on_free]
        a_r, a_c, diag = [], [], []
        #: per multiplier equation: where its row of A's block starts in A's data, the block size, and
        #: whether it is the tangent row of a 2-row block (its normal row the one before)
        self.row_start, self.row_size = np.zeros(nm, dtype=np.int64), np.ones(nm, dtype=np.int64)
        self.paired = np.zeros(nm, dtype=np.bool_)
        offset, row = 0, 0
        for rows, b in blocks:
            local = np.arange(rows, dtype=np.int64)
            self.row_start[row:row + rows] = offset + (local // b) * b * b + (local % b) * b
            self.row_size[row:row + rows] = b
            if b == 2:
                self.paired[row + 1:row + rows:2] = True
            offset, row = offset + rows * b, row + rows
        start = nf
        for rows, b in blocks:
            base = start + b * np.repeat(np.arange(rows // b, dtype=np.int64), b * b)
            i, j = np.repeat(np.arange(b), b), np.tile(np.arange(b), b)
            a_r.append(base + np.tile(i, rows // b))
            a_c.append(base + np.tile(j, rows // b))
            diag.append(np.tile(i == j, rows // b))
            start += rows
        a_r = np.concatenate(a_r) if a_r else np.zeros(0, dtype=np.int64)
        a_c = np.concatenate(a_c) if a_c else np.zeros(0, dtype=np.int64)
        rows = np.concatenate([matrix.free_rows, c_f, r_m, a_r])
        cols = np.concatenate([matrix.free_cols, r_m, c_f, a_c])
        keys = cols * N + rows  # column-major: CSC
        unique, self.slot = np.unique(keys, return_inverse=True)
        self.N, self.nnz = N, unique.size
        ccol, crow = np.divmod(unique, N)
        #: (n_m,) slot of each multiplier equation's diagonal entry in A
        self.a_diagonal = self.slot[rows.size - a_r.size:][np.concatenate(diag)] if diag else np.zeros(0, dtype=int)
        self.zero_free = ccol < nf  # entries of J_ff and B (columns of the free dofs)
        self.indices = crow.astype(np.int32)
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(ccol, minlength=N))]).astype(np.int32)
        self.flat = ccol * N + crow  # column-major (Fortran) position in a dense (N, N) array
        self.csc = sp.csc_matrix((np.zeros(self.nnz), self.indices, self.indptr), shape=(N, N))
        #: (gather, columns): SuperLU's column ordering of the first factorisation, reused (see reorder)
        self.order: tuple[np.ndarray, np.ndarray] | None = None
        #: no multiplier rows: J_ff alone, factorised in SuperLU's symmetric mode (SYMMETRIC_PIVOT)
        self.symmetric = nm == 0
        self.ordered_csc: sp.csc_matrix | None = None

    def reorder(self, perm_c: np.ndarray) -> None:
        """Keep the column permutation of a SuperLU factorisation on this pattern (perm_c, its
        minimum-degree ordering and elimination-tree postorder). The ordering depends on the
        structure alone, so later factorisations take the columns in that order with SuperLU's
        NATURAL ordering: the same factors (the row pivoting is still done on the values), without
        computing the ordering again. ordered_csc holds the permuted structure; data[gather] its
        data; the solution of the permuted system y gives x[columns] = y. A symmetric pattern
        (J_ff alone) has its rows permuted as its columns, P A P^T, whose right-hand side is
        b[columns]: its diagonal stays the diagonal, SuperLU's symmetric mode's pivots."""
        columns = np.argsort(perm_c)
        lengths = np.diff(self.indptr)[columns]
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        gather = np.repeat(self.indptr[:-1][columns] - indptr[:-1], lengths) + np.arange(self.nnz)
        rows = self.indices[gather]
        if self.symmetric:
            rows = np.asarray(perm_c)[rows]
            order = np.lexsort((rows, np.repeat(np.arange(self.N), lengths)))
            gather, rows = gather[order], rows[order]
        self.ordered_csc = sp.csc_matrix((np.zeros(self.nnz), rows.astype(np.int32), indptr.astype(np.int32)),
                                         shape=(self.N, self.N))
        self.order = (gather, columns)

    def sparse(self, data: np.ndarray) -> sp.csc_matrix:
        """The mixed matrix as a new CSC matrix, the zeros of its J_ff and B blocks not stored (the
        structure SuperLU's column ordering sees, as when the blocks were sums and products of
        sparse matrices)."""
        keep = (data != 0) | ~self.zero_free
        counts = np.add.reduceat(keep.astype(np.int64), self.indptr[:-1]) if self.nnz else np.zeros(self.N, int)
        counts[np.diff(self.indptr) == 0] = 0
        indptr = np.concatenate([[0], np.cumsum(counts)])
        return sp.csc_matrix((data[keep], self.indices[keep], indptr), shape=(self.N, self.N))


class NewtonSystem:
    """Iteration matrix and mixed-system solves of one phase (one set of free dofs)."""

    def __init__(self, model, free: np.ndarray) -> None:
        self.matrix = IterationMatrix(model, free)
        self._patterns: dict = {}

    def _pattern(self, columns: np.ndarray, blocks) -> MixedPattern:
        key = (self.matrix.version, columns.shape, blocks, columns.tobytes())
        pattern = self._patterns.get(key)
        if pattern is None:
            if len(self._patterns) >= PATTERN_CACHE:
                self._patterns.pop(next(iter(self._patterns)))
            pattern = self._patterns[key] = MixedPattern(self.matrix, columns, blocks)
        return pattern

    def assemble(self, J: np.ndarray, lins, force_weight):
        """The mixed system for J's data (nnz,) and the multiplier terms' linearisations ``lins``
        (fem.time.dynamics.MultiplierLinearization), before the redundant equations are made trivial:
        (pattern, CSC data, columns (n_m, k), B values (n_m, k)). Without multipliers: J_ff alone. (The
        Newton loop's call is :meth:`correction`; this one is for tests and benchmarks.)"""
        pattern, columns, G, B, A, weight, weights = self._fill_inputs(lins, force_weight)
        data = _mixed_data(J, self.matrix.free_slots, G, B, pattern.on_free, A, pattern.slot, pattern.nnz, weight,
                           weights, columns)
        return pattern, data, columns, B

    def correction(self, J: np.ndarray, lins, force_weight, R_free: np.ndarray, c: np.ndarray, lam: np.ndarray):
        """The Newton correction's mixed system, redundant equations made trivial, and its solve up to
        DENSE_MAX unknowns, in one compiled call (:func:`_mixed_correction`; fem.time.newton.solve_increment
        says what is solved). ``lam`` (n_m,): the multipliers of the equations' terms, in order.
        Returns (x or None, pattern, data, b, columns, B): x None when the dense LU was not used or did
        not solve (then :meth:`solve` on the same data and b decides, SuperLU)."""
        pattern, columns, G, B, A, weight, weights = self._fill_inputs(lins, force_weight)
        data, b, x = np.empty(pattern.nnz), np.empty(pattern.N), np.empty(pattern.N)
        outcome = _mixed_correction(J, self.matrix.free_slots, G, B, pattern.on_free, A, pattern.slot, pattern.nnz,
                                    weight, weights, columns, pattern.row_start, pattern.row_size, pattern.paired,
                                    pattern.a_diagonal, lam, R_free, c, pattern.flat, pattern.N,
                                    pattern.N <= DENSE_MAX, RCOND_MIN, data, b, x)
        if outcome == dense_lu.SOLVED:
            return x, pattern, data, b, columns, B
        if outcome == dense_lu.FAILED:  # a pivot or a solution not finite: the Newton failure path
            return None, pattern, data, b, columns, B
        return self.solve(pattern, data, b, dense=False), pattern, data, b, columns, B

    def _fill_inputs(self, lins, force_weight):
        """What the mixed fill (:func:`_mixed_data`) reads besides J: (pattern, columns, G, B, A, weight,
        weights), the weight w of the multiplier forces a number ``weight`` or, per dof, ``weights``."""
        columns, G, B, blocks, A = self._rows(lins)
        per_dof = isinstance(force_weight, np.ndarray) and force_weight.ndim != 0
        weights = np.asarray(force_weight, dtype=float) if per_dof else _NO_VALUES
        return self._pattern(columns, blocks), columns, G, B, A, 0.0 if per_dof else float(force_weight), weights

    def _rows(self, lins):
        """The multiplier terms' rows on common columns: (columns (n_m, k), G, B (n_m, k), A's diagonal
        blocks ((rows, block size) per term), A's data (n_m b,)); a term with fewer columns is padded
        with its first column and zeros. One term: its own arrays (read, never written)."""
        k = max([lin.force_rows.columns.shape[1] for lin in lins], default=1)

        def padded(arrays, columns: bool):
            out = [np.concatenate([a, np.repeat(a[:, :1], k - a.shape[1], axis=1) if columns
                                   else np.zeros((a.shape[0], k - a.shape[1]))], axis=1)
                   if a.shape[1] < k else a for a in arrays]
            if len(out) == 1:
                return out[0]
            return np.concatenate(out) if out else np.zeros((0, k), dtype=np.int64 if columns else float)

        columns = padded([lin.force_rows.columns for lin in lins], True)
        G = padded([lin.force_rows.values for lin in lins], False)
        B = padded([lin.d_du.values for lin in lins], False)
        blocks = tuple((lin.d_dlam.shape[0] * lin.d_dlam.shape[1], lin.d_dlam.shape[1]) for lin in lins)
        A = (lins[0].d_dlam.reshape(-1) if len(lins) == 1 else np.concatenate([lin.d_dlam.ravel() for lin in lins])) \
            if lins else np.zeros(0)
        return columns, G, B, blocks, A

    def solve(self, pattern: MixedPattern, data: np.ndarray, b: np.ndarray, dense: bool = True):
        """x with A x = b, A the mixed matrix; None when the factorisation meets a zero pivot or the
        solution is not finite (the caller diagnoses). Up to DENSE_MAX unknowns a dense LU, unless it
        is singular to working precision (reciprocal condition number below RCOND_MIN): then, as
        before this module, SuperLU on the structure of the nonzeros, whose threshold pivoting
        is the reference for such systems. Beyond, SuperLU on the fixed pattern (ORDERING, computed at
        the pattern's first factorisation and reused: MixedPattern.reorder), a pattern without
        multipliers in SuperLU's symmetric mode (SYMMETRIC_PIVOT), the others with partial pivoting."""
        if dense and pattern.N <= DENSE_MAX:  # (dense False: the dense LU said SINGULAR already)
            x, outcome = dense_lu.solve_dense(data, pattern.flat, pattern.N, b, RCOND_MIN)
            if outcome != dense_lu.SINGULAR:
                return x if outcome == dense_lu.SOLVED else None
        with warnings.catch_warnings():
            warnings.simplefilter("error", spla.MatrixRankWarning)
            try:
                pivoting = SYMMETRIC_MODE if pattern.symmetric else {}
                if pattern.N > DENSE_MAX and pattern.order is None:
                    pattern.csc.data = data
                    lu = spla.splu(pattern.csc, permc_spec=ORDERING, **pivoting)
                    x = lu.solve(b)
                    pattern.reorder(lu.perm_c)
                elif pattern.N > DENSE_MAX:
                    gather, columns = pattern.order
                    pattern.ordered_csc.data = data[gather]
                    x = np.empty(pattern.N)
                    lu = spla.splu(pattern.ordered_csc, permc_spec="NATURAL", **pivoting)
                    x[columns] = lu.solve(b[columns] if pattern.symmetric else b)
                else:  # singular to working precision: SuperLU's threshold pivoting decides
                    x = spla.spsolve(pattern.sparse(data), b)
            except (np.linalg.LinAlgError, RuntimeError, spla.MatrixRankWarning):
                return None
        return x if np.isfinite(x).all() else None


_NO_SLOTS, _NO_VALUES = np.zeros(0, dtype=np.int64), np.zeros(0)


#: a multiplier equation is redundant with the imposed dofs when what it adds on the free dofs is at
#: most this fraction of its row
REDUNDANT = 1e-8


def redundant_equations(B: np.ndarray, columns: np.ndarray, on_free: np.ndarray, blocks) -> np.ndarray:
    """(n_m,) bool: multiplier equations whose rows B (n_m, k) on ``columns`` (n_m, k) add nothing
    on the free dofs (``on_free`` (n_m, k)) to the equations before them in their node's block
    (``blocks``: (rows, block size) per term): the row's free part, less its projection on the free
    parts of the earlier rows of the block, is at most REDUNDANT of the whole row (Euclidean norms;
    the loop :func:`_redundant_rows`).

    A node sticking where its tangential dofs are imposed (SDNV105's tilt: O1 with DX held on a
    table node whose DX is held) has a stick row whose free part is the normal row's, scaled by the
    tangent's round-off angle (1e-6): two equations on one free quantity, whose mixed system is
    singular to working precision (reciprocal condition 1e-44), not merely an equation on imposed
    dofs alone."""
    paired = np.zeros(B.shape[0], dtype=np.bool_)  # the tangent row of a 2-row block
    start = 0
    for rows, size in blocks:
        if size == 2:
            paired[start + 1:start + rows:2] = True
        start += rows
    out = np.empty(B.shape[0], dtype=np.bool_)
    _redundant_rows(B, columns, on_free, paired, REDUNDANT, out)
    return out


@compiled.loop(cache=True, error_model="numpy")
def _redundant_rows(B, columns, on_free, paired, tolerance, out):
    """The test of :func:`redundant_equations`, row by row: ``paired[i]`` marks a tangent row whose
    normal row is row i - 1. Sums of squares run from the first term on, as numpy's row sums of up
    to 7 terms do (the same bits as the vectorised form this replaced)."""
    n, k = B.shape
    for i in range(n):
        whole = B[i, 0] * B[i, 0]
        for j in range(1, k):
            whole += B[i, j] * B[i, j]
        fi0 = B[i, 0] if on_free[i, 0] else 0.0
        own = fi0 * fi0
        for j in range(1, k):
            f = B[i, j] if on_free[i, j] else 0.0
            own += f * f
        own = np.sqrt(own)
        if paired[i]:
            same = True
            for j in range(k):
                if columns[i, j] != columns[i - 1, j]:
                    same = False
            if same:
                fn0 = B[i - 1, 0] if on_free[i - 1, 0] else 0.0
                nn, nt = fn0 * fn0, fn0 * fi0
                for j in range(1, k):
                    fn = B[i - 1, j] if on_free[i - 1, j] else 0.0
                    ft = B[i, j] if on_free[i, j] else 0.0
                    nn += fn * fn
                    nt += fn * ft
                along = nt / nn if nn > 0 else 0.0
                r0 = fi0 - along * fn0
                rest = r0 * r0
                for j in range(1, k):
                    fn = B[i - 1, j] if on_free[i - 1, j] else 0.0
                    ft = B[i, j] if on_free[i, j] else 0.0
                    r = ft - along * fn
                    rest += r * r
                own = np.sqrt(rest)
        out[i] = own <= tolerance * np.sqrt(whole)




def _entries(parts) -> tuple[np.ndarray, np.ndarray]:
    """(slots, values) of the force terms' matrix entries, term after term (np.add.at's order)."""
    if not parts:
        return _NO_SLOTS, _NO_VALUES
    return (np.concatenate([np.asarray(at, dtype=np.int64) for at, _ in parts]),
            np.concatenate([np.asarray(values, dtype=float) for _, values in parts]))


@compiled.loop(cache=True, error_model="numpy")
def _combined_data(cells, k_whole, k_map, nnz, md_map, mass_damping, c_v, at, values, c_m, mass, w, w_rows, row):
    """J's data (nnz,) for a number c_v (:meth:`IterationMatrix.data`): the cells' c_k K + c_v C on the
    union pattern (in place when it is the model's own), plus c_v times the mass damping, plus the force
    terms' entries ``values`` at ``at`` in order; J = c_m M + w tangent (w per row when ``w_rows``)."""
    if k_whole:
        tangent = cells
    else:
        tangent = np.zeros(nnz)
        for p in range(k_map.size):
            tangent[k_map[p]] = cells[p]
    for p in range(md_map.size):
        tangent[md_map[p]] = tangent[md_map[p]] + c_v * mass_damping[p]
    for p in range(at.size):
        tangent[at[p]] += values[p]
    out = np.empty(nnz)
    for p in range(nnz):
        out[p] = c_m * mass[p] + (w[row[p]] if w_rows else w[0]) * tangent[p]
    return out


@compiled.loop(cache=True, error_model="numpy")
def _split_data(K_data, C_data, k_map, nnz, md_map, mass_damping, k_at, k_values, c_at, c_values, c_k, c_v, col, c_m,
                mass, w, w_rows, row):
    """J's data (nnz,) for c_v per dof (:meth:`IterationMatrix.data`): K and C on the union pattern, the
    mass damping added to C, the force terms' entries to K and C in order; tangent = c_k K + C c_v[col],
    J = c_m M + w tangent (w per row when ``w_rows``)."""
    K, C = np.zeros(nnz), np.zeros(nnz)
    for p in range(k_map.size):
        K[k_map[p]] = K_data[p]
        C[k_map[p]] = C_data[p]
    for p in range(md_map.size):
        C[md_map[p]] = C[md_map[p]] + mass_damping[p]
    for p in range(k_at.size):
        K[k_at[p]] += k_values[p]
    for p in range(c_at.size):
        C[c_at[p]] += c_values[p]
    out = np.empty(nnz)
    for p in range(nnz):
        tangent = c_k * K[p] + C[p] * c_v[col[p]]
        out[p] = c_m * mass[p] + (w[row[p]] if w_rows else w[0]) * tangent
    return out


@compiled.loop(cache=True, error_model="numpy")
def _mixed_data(J, free_slots, G, B, on_free, A, slot, nnz, weight, weights, columns):
    """The mixed matrix's CSC data (nnz,) (:meth:`NewtonSystem.assemble`): J_ff, then -w G_f^T (w the
    number ``weight``, or ``weights`` per dof of the row's columns when given), B_f and A, each value
    added at its ``slot`` in that order (as numpy's bincount of the concatenated values)."""
    data = np.zeros(nnz)
    p = 0
    for q in range(free_slots.size):
        data[slot[p]] += J[free_slots[q]]
        p += 1
    n_m, k = G.shape
    for i in range(n_m):
        for j in range(k):
            if on_free[i, j]:
                data[slot[p]] += -(weights[columns[i, j]] * G[i, j]) if weights.size else -weight * G[i, j]
                p += 1
    for i in range(n_m):
        for j in range(k):
            if on_free[i, j]:
                data[slot[p]] += B[i, j]
                p += 1
    for q in range(A.size):
        data[slot[p]] += A[q]
        p += 1
    return data


@compiled.loop(cache=True, error_model="numpy")
def trivial_equations(A, row_start, row_size, B, columns, on_free, paired, out):
    """The multiplier equations a Newton correction makes trivial (A_ii = 1, c_i = lam_i: the multiplier set
    to zero, fem.time.newton.solve_increment): those whose row of A (``row_size[i]`` entries from
    ``row_start[i]`` in A's data) is zero, an equation on the displacements alone, and that
    :func:`_redundant_rows` finds redundant with the supports. Fills ``out`` (n_m,) and returns whether any
    is (the redundancy test runs only when some row of A is zero)."""
    n_m = out.size
    any_kinematic = False
    for r in range(n_m):
        s = abs(A[row_start[r]])
        for j in range(1, row_size[r]):
            s += abs(A[row_start[r] + j])
        out[r] = s == 0.0
        any_kinematic = any_kinematic or out[r]
    if not any_kinematic:
        return False
    redundant = np.empty(n_m, dtype=np.bool_)
    _redundant_rows(B, columns, on_free, paired, REDUNDANT, redundant)
    found = False
    for r in range(n_m):
        out[r] = out[r] and redundant[r]
        found = found or out[r]
    return found


#: the outcome of :func:`_mixed_correction` beyond DENSE_MAX unknowns (SuperLU's to solve)
NOT_DENSE = -1


@compiled.loop(calls=("fem.time.dense_lu",), cache=True, error_model="numpy")
def _mixed_correction(J, free_slots, G, B, on_free, A, slot, nnz, weight, weights, columns, row_start, row_size,
                      paired, a_diagonal, lam, R_free, c, flat, N, dense, rcond_min, data, b, x):
    """The mixed system of a Newton correction and, when ``dense``, its solution (NewtonSystem.correction):
    fills ``data`` (nnz,) by :func:`_mixed_data` and b (N,) = -[R_free; c]; an equation whose row of A
    is zero (kinematic) and that :func:`_redundant_rows` finds redundant gets A_ii = 1 added and
    c_i = lam_i (its multiplier set to zero, fem.time.newton.solve_increment); then the dense LU
    (fem.time.dense_lu.solve_dense) writes x (N,). Returns its outcome, NOT_DENSE when not ``dense``."""
    filled = _mixed_data(J, free_slots, G, B, on_free, A, slot, nnz, weight, weights, columns)
    for p in range(nnz):
        data[p] = filled[p]
    nf, n_m = R_free.size, c.size
    for i in range(nf):
        b[i] = -R_free[i]
    for r in range(n_m):
        b[nf + r] = -c[r]
    trivial = np.empty(n_m, dtype=np.bool_)
    if trivial_equations(A, row_start, row_size, B, columns, on_free, paired, trivial):
        for r in range(n_m):
            if trivial[r]:
                data[a_diagonal[r]] += 1.0
                b[nf + r] = -lam[r]
    if not dense:
        return NOT_DENSE
    solution, outcome = dense_lu.solve_dense(data, flat, N, b, rcond_min)
    for i in range(N):
        x[i] = solution[i]
    return outcome


@compiled.warm_up
def _load_compiled_loops() -> None:
    """Call each loop once in the types of a run, when a run starts (fem.compiled.load): numba loads
    them from its cache before the run reports "running", not at its first step."""
    x, at = np.zeros(2), np.arange(2, dtype=np.int64)
    _combined_data(x.copy(), True, at, 2, _NO_SLOTS, _NO_VALUES, 1.0, _NO_SLOTS, _NO_VALUES, 1.0, x, np.ones(1),
                   False, at)
    _split_data(x, x, at, 2, _NO_SLOTS, _NO_VALUES, _NO_SLOTS, _NO_VALUES, _NO_SLOTS, _NO_VALUES, 1.0, x, at, 1.0, x,
                np.ones(1), False, at)
    rows = np.zeros((1, 2))
    # 8 values (2 of J, 2 of G, 2 of B, 2 of A) into one slot: every slot index in bounds (no bounds check)
    _mixed_data(x, at, rows, rows, np.ones((1, 2), dtype=np.bool_), x, np.zeros(8, dtype=np.int64), 1, 1.0,
                _NO_VALUES, np.zeros((1, 2), dtype=np.int64))
    B = np.ones((2, 2))
    _redundant_rows(B, np.zeros((2, 2), dtype=np.int64), np.ones((2, 2), dtype=np.bool_), np.array([False, True]),
                    REDUNDANT, np.empty(2, dtype=np.bool_))
    trivial_equations(np.zeros(4), np.array([0, 2], dtype=np.int64), np.full(2, 2, dtype=np.int64), B,
                      np.zeros((2, 2), dtype=np.int64), np.ones((2, 2), dtype=np.bool_), np.array([False, True]),
                      np.empty(2, dtype=np.bool_))
    # a 2 x 2 system: one free dof, one multiplier whose row of A is zero (kinematic, redundant-tested)
    one = np.ones((1, 1))
    _mixed_correction(np.array([2.0]), np.zeros(1, dtype=np.int64), one, one, np.ones((1, 1), dtype=np.bool_),
                      np.zeros(1), np.array([0, 2, 1, 3], dtype=np.int64), 4, 1.0, _NO_VALUES,
                      np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64),
                      np.zeros(1, dtype=np.bool_), np.array([3], dtype=np.int64), np.zeros(1), np.ones(1), np.ones(1),
                      np.array([0, 2, 1, 3], dtype=np.int64), 2, True, RCOND_MIN, np.empty(4), np.empty(2),
                      np.empty(2))
