"""The Newton system on fixed patterns (fem.time.newton_system) solves the same equations as the plain
scipy.sparse formulation it replaced (sums, products, bmat and J[free][:, free] rebuilt at every
iteration), iteration by iteration, along real runs.

Every mixed system a run solves is rebuilt here the plain way, from the same iteration matrix and
linearisations, and compared: the matrices entry by entry (the same sums in the same order: equal
to 1e-13 of the largest entry of their block), the corrections by their backward error on the
plain system and by the forward bound of the two solvers (_check). The runs cover the HHT weights of
a redistributed (massless) contact surface, located events, friction in stick and slip, the
contact equations that are redundant with an imposed dof (SDNV105's tilt, O1 with DX imposed),
the Moreau-Jean theta path (modeling D), a force term with its own derivatives (modeling B), a
system large enough for the sparse path (an 8 x 16 block) and one without multipliers, factorised
in SuperLU's symmetric mode (an 11-brick wall on one penalty term).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import fem.time.dynamics as dynamics
import fem.time.theta as theta
from fem.time.newton import redundant_equations
from fem.time.newton_system import RCOND_MIN

CASES = Path(__file__).resolve().parents[1] / "cases"
from cases.sdnv105 import case as common  # noqa: E402


def _plain_system(system, J, lins, trials, c, force_weight):
    """The mixed matrix and right-hand side built as before fem.time.newton_system: scipy.sparse
    products, vstack, block_diag, bmat and fancy indexing."""
    free = system.matrix.free
    Jm = system.matrix.matrix(J)
    if not lins:
        return Jm[free][:, free].toarray(), c
    G = sp.vstack([lin.force_rows.tocsr() for lin in lins]).tocsc()
    B_all = sp.vstack([lin.d_du.tocsr() for lin in lins]).tocsc()
    B = B_all[:, free]
    A = sp.block_diag([sp.block_diag(list(lin.d_dlam)) for lin in lins]).tocsr()
    # the redundancy rule is the equations' (fem.time.newton.redundant_equations), not the linear algebra's
    values = [lin.d_du.values for lin in lins]
    columns = np.concatenate([lin.d_du.columns for lin in lins])
    on_free = np.isin(columns, free)
    blocks = [(lin.d_dlam.shape[0] * lin.d_dlam.shape[1], lin.d_dlam.shape[1]) for lin in lins]
    redundant = np.flatnonzero(redundant_equations(np.concatenate(values), columns, on_free, blocks)
                               & (abs(A).sum(axis=1).A1 == 0))
    c = c.copy()
    if redundant.size:
        lam_all = np.concatenate([trial.lam for trial in trials])
        A = A + sp.csr_matrix((np.ones(redundant.size), (redundant, redundant)), shape=A.shape)
        c[redundant] = lam_all[redundant]
    Gt = G[:, free].T
    if np.ndim(force_weight) == 0:
        Gt = -force_weight * Gt
    else:
        Gt = sp.diags(-np.asarray(force_weight)[free]) @ Gt
    return sp.bmat([[Jm[free][:, free], Gt], [B, A]]).toarray(), c


@pytest.fixture
def compared(monkeypatch):
    """Wrap fem.time.newton.solve_increment where the steps call it: every call is compared with the plain formulation.
    Yields the list of (largest matrix mismatch, correction mismatch or None, rcond). The steps run the Python
    loop (contact.newton_loop.ENABLED False), whose sparse fill this checks; the compiled loop's dense fill
    gives the same runs byte for byte (tests/test_newton_loop.py)."""
    from contact import newton_loop

    monkeypatch.setattr(newton_loop, "ENABLED", False)
    seen = []
    solve = dynamics.solve_increment

    def checked(system, J, R_free, lins, trials, c, force_weight, where="Newton correction"):
        lam0 = [trial.lam.copy() for trial in trials]
        plain, c_plain = _plain_system(system, J, lins, trials, c, force_weight)
        pattern, data, *_ = system.assemble(J, lins, force_weight)
        x = solve(system, J, R_free, lins, trials, c, force_weight, where)
        nf = R_free.size
        mixed = pattern.sparse(data).toarray()
        redundant = np.flatnonzero(np.diag(plain)[nf:] != np.diag(mixed)[nf:])
        mixed[nf + redundant, nf + redundant] = plain[nf + redundant, nf + redundant]  # the redundancy test's ones
        worst = 0.0
        for rows in (slice(0, nf), slice(nf, None)):
            for cols in (slice(0, nf), slice(nf, None)):
                scale = np.abs(plain[rows, cols]).max(initial=0.0)
                if scale:
                    worst = max(worst, np.abs(plain[rows, cols] - mixed[rows, cols]).max() / scale)
        rcond = 1.0 / np.linalg.cond(plain, 1)
        forward = backward = None
        if np.isfinite(x).all():
            full = np.concatenate([x] + [trial.lam - l for trial, l in zip(trials, lam0)])
            b = -np.concatenate([R_free, c_plain])
            backward = (np.abs(plain @ full - b).max()
                        / (np.abs(plain).sum(axis=1).max() * np.abs(full).max() + np.abs(b).max()))
            if rcond >= RCOND_MIN:
                reference = spla.spsolve(sp.csc_matrix(plain), b)
                forward = np.abs(full - reference).max() / np.abs(reference).max()
        seen.append((worst, backward, forward, rcond))
        return x

    monkeypatch.setattr(dynamics, "solve_increment", checked)  # the Newmark/HHT step
    monkeypatch.setattr(theta, "solve_increment", checked)  # the theta step
    yield seen


def _check(seen, at_least: int):
    """Matrices equal to 1e-13; every correction an accurate solution of the plain system (normwise
    backward error <= 1e-14, LU with partial pivoting gives a small multiple of 1.1e-16); where
    both solvers are trusted, the two corrections within the forward bound of such a solve,
    1e-12 / rcond (a kappa * u bound with a margin of 1e4): the tilt's systems have rcond down to
    2e-20, where SuperLU and LAPACK legitimately differ."""
    assert len(seen) >= at_least
    worst = max(w for w, _, _, _ in seen)
    assert worst <= 1e-13, f"mixed matrices differ by {worst:.2e} of their block's largest entry"
    backward = [b for _, b, _, _ in seen if b is not None]
    assert len(backward) >= 0.9 * len(seen)
    assert max(backward) <= 1e-14, f"backward error {max(backward):.2e}"
    for _, _, forward, rcond in seen:
        if forward is not None:
            assert forward <= 1e-12 / rcond, (forward, rcond)


@pytest.mark.parametrize("modeling, flags, at_least", [
    # self-weight, tilt (O1 sticking with DX imposed: redundant and near-redundant rows), release
    ("a", ["--t-end", "0.01"], 300),
    # HHT with a massless contact surface, located landings and releases through the first impact
    ("a", ["--mass", "redistributed", "--alpha", "-0.1", "--dt", "2e-4", "--dt-fine", "2e-4",
           "--t-end", "0.06"], 300),
    # Moreau-Jean theta with velocity-level contact
    ("d", ["--t-end", "0.06"], 100),
    # a 408-unknown system: SuperLU on the fixed pattern (fem.time.newton_system.DENSE_MAX)
    ("a", ["--nx", "8", "--ny", "16", "--t-end", "0.002"], 20),
    # shock springs: a force term with its own d/du and d/dv in the iteration matrix
    ("b", ["--t-end", "0.01"], 50),
])
def test_the_newton_system_solves_the_plain_formulation(compared, tmp_path, modeling, flags, at_least):
    code = common.run_case(modeling, ["--out", str(tmp_path / "run"), "--no-paraview", "--quiet", *flags])
    assert code == 0
    _check(compared, at_least)


def test_a_system_without_multipliers_is_solved_in_superlus_symmetric_mode(compared, tmp_path, monkeypatch):
    """The 11-brick wall (one merged penalty term: no multipliers; 250 free unknowns, past DENSE_MAX):
    every SuperLU factorisation in symmetric mode, the first on the pattern as assembled, the next on its
    rows and columns permuted alike (MixedPattern.reorder), and every correction the plain system's
    solution (_check: backward error 1e-14, forward within the bound of a pivoted solve)."""
    from contact.laws import Penalty
    from fem import BaseMotion, Body, ElasticMaterial, Preload, Problem, Support, Uniform, read_record, simulate
    from fem.problem import Contact
    from fem.time import newton_system
    from meshes.assemblies import running_bond_wall, write

    modes = []
    splu = newton_system.spla.splu

    def recorded(A, **kw):
        modes.append((kw.get("permc_spec"), kw.get("options", {}).get("SymmetricMode", False)))
        return splu(A, **kw)

    monkeypatch.setattr(newton_system.spla, "splu", recorded)
    wall = running_bond_wall(courses=2, bricks=5, brick=(0.4, 0.2), size=0.2)
    stone = ElasticMaterial(young=1e10, poisson=0.2, density=2000.0)
    problem = Problem(write(wall, tmp_path / "wall.msh"), bodies=[Body(b.name, stone) for b in wall.bodies],
                      supports=[Support(g) for g in wall.held],
                      contacts=[Contact(Penalty(1e8, mu=0.7, tangential_stiffness=1e8), merge=True)])
    record = Path(__file__).resolve().parents[1] / "examples" / "records" / "synthetic_10s_h_v.csv"
    shake = BaseMotion(0.02, x=read_record(record, column=1, scale=2.5), y=read_record(record, column=2, scale=2.5))
    assert simulate(problem, [Preload(), shake], steps=Uniform(2e-3)).status == "complete"
    assert {mode for _, mode in modes} == {True}
    assert ("NATURAL", True) in modes and modes[0][0] != "NATURAL"
    _check(compared, 20)


def test_force_terms_outside_the_pattern_grow_it():
    """Derivatives of a force term that couple dofs no element couples (a spring between two bodies
    met for the first time) are added to the iteration matrix's pattern, and kept: J equals
    c_M M + w (c_K K + C c_v) summed the plain way, at every call, entries of earlier terms included, and
    when a call's matrices have the structures of the call before (their slots kept, not searched)."""
    from fem.model.material import ElasticMaterial
    from fem.model.assembly import Model
    from fem.time.newton_system import IterationMatrix

    from helpers import GRAPHITE, grid_mesh

    model = Model(grid_mesh(2, 2), {"BLOCK": ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-4)})
    n = model.n_dofs
    matrix = IterationMatrix(model, np.arange(n))
    rng = np.random.default_rng(0)
    u, v = 1e-6 * rng.standard_normal(n), 1e-3 * rng.standard_normal(n)
    forces = model.evaluate(u, v)
    plain = model.forces(u, v, tangent=True)

    def spring(i, j, k):  # d_du of a spring k between dofs i and j
        return sp.csr_matrix(([k, -k, -k, k], ([i, i, j, j], [i, j, i, j])), shape=(n, n))

    far = (0, n - 1)  # opposite corners of the mesh: no element holds both
    assert not np.isin(far[0] * n + far[1], matrix.keys)
    tangents = [(spring(*far, 1e9), spring(*far, 1e3))]
    for step in range(3):  # the third call meets the second's structures: their slots are kept
        J = matrix.data(forces, tangents, 7.0, 1.1, 0.5, 3.0)
        K = plain.stiffness + tangents[0][0] + (tangents[1][0] if step else 0)
        C = plain.damping_matrix + tangents[0][1]
        expected = (7.0 * model.mass + 1.1 * (0.5 * K + 3.0 * C)).toarray()
        np.testing.assert_allclose(matrix.matrix(J).toarray(), expected, rtol=1e-13, atol=1e-13 * np.abs(expected).max())
        tangents = [tangents[0], (spring(1, n - 2, 2e9), None)]  # a second pairing; the first stays


def _redundant_vectorised(B, columns, on_free, blocks, tolerance=1e-8):
    """The definition of fem.time.newton.redundant_equations in numpy's vectorised form."""
    free_part = np.where(on_free, B, 0.0)
    own = np.sqrt((free_part * free_part).sum(axis=1))
    start = 0
    for rows, size in blocks:
        if size == 2 and rows:
            Fn, Ft = free_part[start:start + rows:2], free_part[start + 1:start + rows:2]
            same = (columns[start:start + rows:2] == columns[start + 1:start + rows:2]).all(axis=1)
            nn = (Fn * Fn).sum(axis=1)
            along = np.where(nn > 0, (Fn * Ft).sum(axis=1) / np.where(nn > 0, nn, 1.0), 0.0)
            rest = Ft - along[:, None] * Fn
            own[start + 1:start + rows:2] = np.where(same, np.sqrt((rest * rest).sum(axis=1)),
                                                     own[start + 1:start + rows:2])
        start += rows
    return own <= tolerance * np.sqrt((B * B).sum(axis=1))


def test_the_redundancy_loop_decides_as_its_vectorised_definition():
    """Random blocks of 1- and 2-row equations (rows of up to 6 dofs, some on imposed dofs, some tangent
    rows a round-off multiple of their normal row, some rows zero): the compiled loop and the vectorised
    definition flag the same equations, and some are flagged."""
    rng = np.random.default_rng(1)
    flagged = 0
    for _ in range(500):
        blocks, Bs, Cs, Fs = [], [], [], []
        for _term in range(int(rng.integers(1, 3))):
            size, nodes, k = int(rng.integers(1, 3)), int(rng.integers(1, 5)), 6
            rows = size * nodes
            B = rng.standard_normal((rows, k)) * 10 ** rng.uniform(-3, 12)
            C = rng.integers(0, 10, (rows, k))
            if size == 2:
                for r in range(0, rows, 2):
                    if rng.random() < 0.7:
                        C[r + 1] = C[r]
                    if rng.random() < 0.3:
                        B[r + 1] = B[r] * rng.choice([1e-9, 1e-6, 0.5]) + rng.standard_normal(k) * rng.choice([0, 1e-20])
            if rng.random() < 0.2:
                B[rng.integers(0, rows)] = 0.0
            blocks.append((rows, size))
            Bs.append(B), Cs.append(C), Fs.append(rng.random((rows, k)) < 0.8)
        B, C, F = np.concatenate(Bs), np.concatenate(Cs), np.concatenate(Fs)
        expected = _redundant_vectorised(B, C, F, blocks)
        assert np.array_equal(redundant_equations(B, C, F, blocks), expected)
        flagged += expected.any()
    assert 100 < flagged < 500


def test_the_largest_entry_is_numpys_with_its_nans():
    """fem.time.newton.largest_abs, the residuals' and scales' max |v_i|, is numpy's np.abs(v).max() on
    vectors spanning 600 decades, with NaN and infinite entries, contiguous or strided: the same floats,
    NaN wherever numpy gives NaN (a non-finite residual is refused on it)."""
    from fem.time.newton import largest_abs
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 100):
        for _ in range(100):
            v = rng.standard_normal(2 * n)[::2] * 10 ** rng.uniform(-300, 300, n)
            if rng.random() < 0.3:
                v[rng.integers(0, n)] = rng.choice([np.nan, -np.inf])
            expected, got = float(np.abs(v).max()), largest_abs(v)
            assert got == expected or (np.isnan(expected) and np.isnan(got))


def test_the_momentum_norms_are_the_residuals_and_their_scale():
    """fem.time.newton.momentum_norms (the Newmark/HHT iterate's check, one compiled pass) gives what
    residuals and residual_scale give: R[free], (M a + g)[cdofs], ||R_free||, ||c|| and the scale of the
    forces in play, over vectors spanning 600 decades, with NaN and infinite entries (NaN where the
    residual has one; the scale ignores a NaN after its first vector, as Python's max does), without
    multiplier equations, without imposed dofs."""
    from fem.time.newton import NewtonFailure, momentum_norms, residual_scale, residuals
    from fem.stage.phase import MultiplierLinearization
    rng = np.random.default_rng(4)

    def vector(n):
        v = rng.standard_normal(n) * 10 ** rng.uniform(-300, 300, n)
        if n and rng.random() < 0.2:
            v[rng.integers(0, n)] = rng.choice([np.nan, np.inf, -np.inf])
        return v

    nans = 0
    for _ in range(400):
        n = int(rng.integers(1, 30))
        R, Ma, g, f_ext, f_int, f_damp, f_terms = (vector(n) for _ in range(7))
        free = np.flatnonzero(rng.random(n) < 0.7)
        cdofs = np.setdiff1d(np.arange(n), free)
        c = vector(int(rng.integers(0, 5)))
        lins = [MultiplierLinearization(None, c, None, None)] if c.size else []
        try:
            R_free_want, _, res, res_c = residuals(R, free, lins, 0)
        except NewtonFailure:  # a non-finite residual: the caller raises on the norms below as residuals does
            R_free_want, res, res_c = R[free], np.nan, np.nan
        reactions_want = (Ma + g)[cdofs]
        scale = residual_scale(f_ext, reactions_want, f_int, f_damp, f_terms, Ma)
        R_free, reactions_c, norms = np.empty(free.size), np.empty(cdofs.size), np.empty(3)
        momentum_norms(R, free, c, Ma, g, cdofs, f_ext, f_int, f_damp, f_terms, R_free, reactions_c, norms)
        assert R_free.tobytes() == R_free_want.tobytes() and reactions_c.tobytes() == reactions_want.tobytes()
        if np.isfinite(res + res_c):
            assert (norms[0], norms[1]) == (res, res_c)
        else:
            assert not np.isfinite(norms[0] + norms[1])
            nans += 1
        assert norms[2] == scale or (np.isnan(norms[2]) and np.isnan(scale))
    assert 20 < nans < 380  # both kinds of iterate were seen


def test_the_mass_product_is_scipys_bit_for_bit():
    """fem.time.newmark.mass_times (M v_n of a step's start) gives the bits of scipy's M @ x: each row
    summed from zero in storage order, on matrices whose entries span 20 decades (another order moves
    the last bits of such sums), int32 indices as scipy stores them."""
    import scipy.sparse as sp
    from fem.time.newmark import mass_times
    rng = np.random.default_rng(9)
    for n in (1, 7, 60):
        M = sp.random(n, n, density=0.4, random_state=rng, format="csr")
        M.data *= 10 ** rng.uniform(-10, 10, M.nnz)
        x = rng.standard_normal(n) * 10 ** rng.uniform(-10, 10, n)
        assert mass_times(M.indptr, M.indices, M.data, x).tobytes() == (M @ x).tobytes()
