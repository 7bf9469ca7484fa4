"""The compiled continuum kernels (fem/model/continuum.py: loops over quadrature points and cells,
numba.njit) against the numpy/einsum kernels they replaced, kept below as an independent reference,
and the physics the kernels must keep.

* Equality: forces, fields, tangent (K, C), combined tangent (c_k, c_v not 1) and strain energy on
  every element type (QUA4, TRIA3, TRIA6, QUA8), small and large strain, without damping, with
  per-cell AMOR_ALPHA (two fused regions, one undamped) and with AMOR_ALPHA but no velocity, at
  zero, rigid-translation, rigid-rotation and random states: 1e-12 of each array's max abs (where
  an array is round-off itself, the stress of a rigid rotation, of its scale at the state's
  displacement gradient).
* Compiled or not: the equality tests on QUA4 also run in a subprocess with NUMBA_DISABLE_JIT=1, where
  the same loops run as Python (one code path, no separate fallback).
* Physics not checked elsewhere (tests/test_model.py: assembled tangent by finite differences on
  QUA4/TRIA3/TRIA6, rigid rotation on QUA4/TRIA6; tests/test_elements.py: single-cell tangent in
  large strain, undamped patch tests): the Newton iteration matrix c_k K + c_v C of
  :func:`continuum.combined_tangent` by central differences on every element type and both
  kinematics; a rigid rotation's fields E, S, S_d zero to round-off on every element type; a
  patch test with damping: uniform F and velocity gradient give the exact S and S_d at every point
  and no interior internal or damping force.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np
import pytest

from fem.mesh.mesh import CellBlock
from fem.model import continuum
from fem.model.assembly import Model
from fem.model.continuum import KernelState
from fem.model.material import ElasticMaterial

from helpers import GRAPHITE, grid_mesh, rotation
from test_elements import quad8_patch

ROOT = Path(__file__).resolve().parents[1]
ELEMENTS = ("quad", "triangle", "triangle6", "quad8")
KINEMATICS = ("total_lagrangian", "small_strain")
STATES = ("zero", "translation", "rotation", "random")
RTOL = 1e-12

# -------------------------------------------------------- the einsum kernels replaced (reference)
_I2 = np.eye(2)


def ref_gradient(w, k):
    we = w[k.dofs]
    return np.einsum("aie,aJqe->iJqe", we - we[:1], k.grad)


def ref_stress(E, k, factor=1.0):
    S = (2.0 * factor * k.mu) * E
    trace = (factor * k.lam) * (E[0, 0] + E[1, 1])
    S[0, 0] += trace
    S[1, 1] += trace
    return S


def ref_nodal_forces(P, k):
    return np.einsum("iJqe,aJqe->aie", P * k.dvol, k.grad)


def ref_product(A, B):
    return np.einsum("iKqe,KJqe->iJqe", A, B)


def ref_transposed_product(A, B):
    return np.einsum("Kiqe,KJqe->iJqe", A, B)


def ref_strain_operator(F, k):
    g0, g1 = k.grad[:, None, 0], k.grad[:, None, 1]
    F0, F1 = F[None, :, 0], F[None, :, 1]
    nen = k.grad.shape[0]
    return np.stack([g0 * F0, g1 * F1, g1 * F0 + g0 * F1]).reshape(3, 2 * nen, *k.dvol.shape)


def ref_bt_d_b(Bw, B, k):
    lam, mu = k.lam, k.mu
    DB = np.stack([(lam + 2.0 * mu) * B[0] + lam * B[1], lam * B[0] + (lam + 2.0 * mu) * B[1], mu * B[2]])
    return np.einsum("kmqe,knqe->mne", Bw, DB)


def ref_geometric(S, k):
    nen, ne = k.grad.shape[0], k.grad.shape[-1]
    Gs = np.einsum("aIqe,IJqe,bJqe->abe", k.grad, S * k.dvol, k.grad)
    K = np.zeros((nen, 2, nen, 2, ne))
    K[:, 0, :, 0] = Gs
    K[:, 1, :, 1] = Gs
    return K.reshape(2 * nen, 2 * nen, ne)


def ref_evaluate(k, u, v, large):
    H = ref_gradient(u, k)
    Ht = H.transpose(1, 0, 2, 3)
    if large:
        F = H + _I2[:, :, None, None]
        E = 0.5 * (H + Ht + ref_transposed_product(H, H))
    else:
        F = None
        E = 0.5 * (H + Ht)
    S = ref_stress(E, k)
    f_int = ref_nodal_forces(S if F is None else ref_product(F, S), k)
    S_d = Hv = f_damp = None
    if v is not None and k.alpha is not None:
        Hv = ref_gradient(v, k)
        FtHv = Hv if F is None else ref_transposed_product(F, Hv)
        S_d = ref_stress(0.5 * (FtHv + FtHv.transpose(1, 0, 2, 3)), k, k.alpha)
        f_damp = ref_nodal_forces(S_d if F is None else ref_product(F, S_d), k)
    return f_int, f_damp, KernelState(F, E, S, S_d, Hv)


def _ref_operators(k, state):
    F = np.broadcast_to(_I2[:, :, None, None], state.E.shape) if state.F is None else state.F
    B = ref_strain_operator(F, k)
    return B, B * k.dvol


def _ref_initial_stress(k, state):
    if state.F is None:
        return None
    return ref_geometric(state.S if state.S_d is None else state.S + state.S_d, k)


def ref_tangent(k, state):
    B, Bw = _ref_operators(k, state)
    K_mat = ref_bt_d_b(Bw, B, k)
    G = _ref_initial_stress(k, state)
    K = K_mat if G is None else K_mat + G
    if k.alpha is None:
        return K, None
    if state.F is not None and state.Hv is not None:
        K = K + k.alpha * ref_bt_d_b(Bw, ref_strain_operator(state.Hv, k), k)
    return K, k.alpha * K_mat


def ref_combined_tangent(k, state, c_k, c_v):
    if k.alpha is None:
        K, _ = ref_tangent(k, state)
        return K if c_k == 1.0 else c_k * K
    B, Bw = _ref_operators(k, state)
    right = (c_k + c_v * k.alpha) * B
    if state.F is not None and state.Hv is not None:
        right += (c_k * k.alpha) * ref_strain_operator(state.Hv, k)
    K = ref_bt_d_b(Bw, right, k)
    G = _ref_initial_stress(k, state)
    return K if G is None else K + c_k * G


def ref_strain_energy(k, state):
    return 0.5 * float(np.einsum("ijqe,ijqe,qe->", state.S, state.E, k.dvol))


# ---------------------------------------------------------------------------------- models
def _mesh(element: str):
    """A distorted mesh of ``element`` cells, one group BLOCK (QUA8: curved interior edges)."""
    if element == "quad8":
        return quad8_patch(3, distort=0.3, bow=0.1, seed=2)
    return grid_mesh(3, 4, element=element, distort=0.3, seed=7)


def _two_regions(element: str, damped: bool, kinematics: str = "total_lagrangian") -> Model:
    """The mesh's cells as two regions fused into one kernel: graphite (AMOR_ALPHA 1e-4 s if
    ``damped``) and a softer undamped material (per-cell lam*, mu, alpha)."""
    mesh = _mesh(element)
    block = mesh.cell_groups["BLOCK"]
    half = block.connectivity.shape[0] // 2
    groups = {**mesh.cell_groups, "LOW": CellBlock(block.cell_type, block.connectivity[:half]),
              "HIGH": CellBlock(block.cell_type, block.connectivity[half:])}
    low = ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-4 if damped else 0.0)
    high = ElasticMaterial(young=2e9, poisson=0.3, density=1000.0)
    model = Model(replace(mesh, cell_groups=groups), {"LOW": low, "HIGH": high}, kinematics=kinematics)
    assert len(model.kernels) == 1
    return model


def _state(name: str, model: Model, rng) -> tuple[np.ndarray, np.ndarray]:
    """(u, v) [m, m/s]: zero; a rigid translation; a rigid rotation of 1 rad with a spin of 2 rad/s
    about a point off the mesh; random (strains of ~10 %)."""
    X = model.mesh.points
    n = model.n_dofs
    if name == "zero":
        return np.zeros(n), np.zeros(n)
    if name == "translation":
        return np.tile([3e-3, -2e-3], n // 2), np.tile([0.5, 1.5], n // 2)
    if name == "rotation":
        pivot = np.array([-0.2, 0.1])
        x = (X - pivot) @ rotation(1.0).T
        return (x + pivot - X).ravel(), (2.0 * np.column_stack([-x[:, 1], x[:, 0]])).ravel()
    return 0.02 * rng.standard_normal(n), rng.standard_normal(n)


def _assert_round_off(new, ref, what: str, floor: float = 0.0) -> None:
    """new equals ref to RTOL of max(|ref|, floor) (both None, or of the same shape)."""
    if ref is None or new is None:
        assert ref is None and new is None, what
        return
    new, ref = np.asarray(new), np.asarray(ref)
    assert new.shape == ref.shape, (what, new.shape, ref.shape)
    scale = max(float(np.abs(ref).max(initial=0.0)), floor)
    error = float(np.abs(new - ref).max(initial=0.0))
    assert error <= RTOL * scale, f"{what}: {error:.3e} > {RTOL:g} x {scale:.3e}"


def _floors(k, u, v) -> dict[str, float]:
    """Scales of the arrays at the state's gradients, for those that are round-off there (the
    stress-free rigid rotation): E ~ |grad u|, S ~ (lam* + 2 mu) |grad u|, S_d ~ alpha (lam* + 2 mu)
    |grad v| |F|, forces ~ stress |F| sum_q dV |grad N_a|, energy ~ stress |grad u| V."""
    h_u = float(np.abs(ref_gradient(u, k)).max())
    h_v = 0.0 if v is None else float(np.abs(ref_gradient(v, k)).max())
    stiffness = float((k.lam + 2.0 * k.mu).max())
    alpha = 0.0 if k.alpha is None else float(k.alpha.max())
    lever = float(np.einsum("qe,aJqe->ae", k.dvol, np.abs(k.grad)).max()) * (1.0 + h_u)
    stress, rate = stiffness * h_u, alpha * stiffness * h_v * (1.0 + h_u)
    return {"E": h_u, "S": stress, "S_d": rate, "f_int": stress * lever, "f_damp": rate * lever,
            "energy": stress * h_u * float(k.dvol.sum())}


# ------------------------------------------------------------------------------- equality
@pytest.mark.parametrize("kinematics", KINEMATICS)
@pytest.mark.parametrize("element", ELEMENTS)
def test_compiled_kernels_equal_the_einsum_reference(element, kinematics):
    large = kinematics == "total_lagrangian"
    rng = np.random.default_rng(3)
    c_k, c_v = 0.7, 3.0e3  # c_v alpha ~ 0.3: both parts of the iteration matrix count
    for damping in ("none", "stiffness", "stiffness, no velocity"):
        model = _two_regions(element, damped=damping != "none")
        k = model.kernels[0]
        for name in STATES:
            u, v = _state(name, model, rng)
            if damping.endswith("no velocity"):
                v = None
            floors = _floors(k, u, v) if name == "rotation" and large else {}
            where = f"{element} {kinematics} {damping} {name}"
            f_int, f_damp, state = continuum.evaluate(k, u, v, large)
            r_int, r_damp, ref = ref_evaluate(k, u, v, large)
            _assert_round_off(f_int, r_int, f"f_int {where}", floors.get("f_int", 0.0))
            _assert_round_off(f_damp, r_damp, f"f_damp {where}", floors.get("f_damp", 0.0))
            for field in ("F", "E", "S", "S_d", "Hv"):
                _assert_round_off(getattr(state, field), getattr(ref, field), f"{field} {where}",
                                  floors.get(field, 0.0))
            K, C = continuum.tangent(k, state)
            K_ref, C_ref = ref_tangent(k, ref)
            _assert_round_off(K, K_ref, f"K {where}")
            _assert_round_off(C, C_ref, f"C {where}")
            _assert_round_off(continuum.combined_tangent(k, state, c_k, c_v), ref_combined_tangent(k, ref, c_k, c_v),
                              f"c_k K + c_v C {where}")
            _assert_round_off(continuum.strain_energy(k, state), ref_strain_energy(k, ref), f"energy {where}",
                              floors.get("energy", 0.0))
            assert isinstance(continuum.strain_energy(k, state), float)


def test_the_scatter_is_numpys_bincount_bit_for_bit():
    """continuum.add_scattered (the forces' and the tangent's assembly) gives the bits of
    ``total += np.bincount(slots, values, minlength=n)``: each slot's values summed from zero in their
    order, then added (the order matters: another one moves the last bits of a sum of terms of
    mixed magnitudes, 1e-8 to 1e8 here, and -0.0 entries stay distinguishable)."""
    rng = np.random.default_rng(3)
    for n, m in ((7, 3), (10, 50), (300, 4000)):
        slots = rng.integers(0, n, m)
        values = rng.standard_normal(m) * 10.0 ** rng.integers(-8, 8, m)
        values[::7] = -0.0
        total = rng.standard_normal(n)
        total[::3], total[1::5] = 0.0, -0.0
        want = total.copy()
        want += np.bincount(slots, weights=values, minlength=n)
        got = total.copy()
        continuum.add_scattered(got, slots, values)
        assert got.tobytes() == want.tobytes()
        reordered = total.copy()
        continuum.add_scattered(reordered, slots[::-1], values[::-1])
        assert reordered.tobytes() != want.tobytes() or m < 10  # the test sees the order


def test_the_smallest_determinant_is_numpys_min_of_det_f():
    """continuum.smallest_determinant (the check that refuses an element turned inside out) is
    np.min(F_00 F_11 - F_01 F_10) over the points of a field: the same float over 10 decades, NaN
    where numpy gives NaN, and it sees the one inverted point among many."""
    from fem.model.assembly import jacobian
    rng = np.random.default_rng(6)
    for _ in range(300):
        nq, ne = int(rng.integers(1, 5)), int(rng.integers(1, 40))
        F = np.ascontiguousarray(rng.standard_normal((2, 2, nq, ne)) * 10 ** rng.uniform(-5, 5))
        if rng.random() < 0.1:
            F[rng.integers(0, 2), rng.integers(0, 2), rng.integers(0, nq), rng.integers(0, ne)] = np.nan
        want, got = float(np.min(jacobian(F))), continuum.smallest_determinant(F)
        assert got == want or (np.isnan(want) and np.isnan(got))
    F = np.zeros((2, 2, 4, 30))
    F[0, 0] = F[1, 1] = 1.0
    F[0, 0, 2, 17] = -0.5  # one point turned inside out
    assert continuum.smallest_determinant(F) == -0.5


def test_the_kernels_run_compiled_unless_numba_jit_is_disabled():
    """Compiled in the default suite; plain Python functions under NUMBA_DISABLE_JIT=1."""
    disabled = bool(numba.config.DISABLE_JIT)
    assert disabled == (os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"))
    for loop in (continuum._forces, continuum._cell_matrices, continuum._energy, continuum.add_scattered,
                 continuum.smallest_determinant):
        assert hasattr(loop, "py_func") != disabled


def test_the_loops_run_as_python_under_numba_disable_jit():
    """The equality tests on QUA4 in a subprocess with NUMBA_DISABLE_JIT=1: the same loops, run as
    Python, give the reference's results."""
    this = Path(__file__).relative_to(ROOT)
    nodes = [f"{this}::test_the_kernels_run_compiled_unless_numba_jit_is_disabled",
             f"{this}::test_the_scatter_is_numpys_bincount_bit_for_bit",
             f"{this}::test_the_smallest_determinant_is_numpys_min_of_det_f",
             *(f"{this}::test_compiled_kernels_equal_the_einsum_reference[quad-{kin}]" for kin in KINEMATICS)]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *nodes],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"{len(nodes)} passed" in done.stdout, done.stdout[-2000:]


# ---------------------------------------------------------------------------------- physics
@pytest.mark.parametrize("kinematics", KINEMATICS)
@pytest.mark.parametrize("element", ELEMENTS)
def test_combined_tangent_matches_central_differences(element, kinematics):
    """The Newton iteration matrix J = c_k d(f_int + f_damp)/du + c_v d f_damp/dv, assembled from
    :func:`continuum.combined_tangent` (ForceEvaluation.combined_tangent_data), against the central
    difference of f = f_int + f_damp along (c_k d, c_v d): (f(u + h c_k d, v + h c_v d) - f(u - h
    c_k d, v - h c_v d)) / 2 h, for random d at a random state (strains of a few %), relative error
    < 1e-6. f is cubic in (u, v) jointly, so the truncation error is O(h^2) (h = 1e-6 |u|: ~1e-12
    relative) and round-off ~ eps / (h / |u|) ~ 1e-10; a dropped term (initial stress |S| / E ~
    1e-2, the damping's u-derivative alpha |grad v| ~ 1e-3, c_v C ~ 0.3 c_k K) is far above."""
    model = _two_regions(element, damped=True, kinematics=kinematics)
    rng = np.random.default_rng(17)
    u, v = 0.02 * rng.standard_normal(model.n_dofs), rng.standard_normal(model.n_dofs)
    c_k, c_v = 0.7, 3.0e3
    J = model.pattern.matrix(model.evaluate(u, v).combined_tangent_data(c_k, c_v))

    def total(du, dv):
        ev = model.evaluate(u + du, v + dv)
        return ev.internal + ev.damping

    h = 1e-6 * np.abs(u).max()
    for _ in range(3):
        d = rng.standard_normal(model.n_dofs)
        fd = (total(h * c_k * d, h * c_v * d) - total(-h * c_k * d, -h * c_v * d)) / (2 * h)
        assert np.linalg.norm(J @ d - fd) < 1e-6 * np.linalg.norm(fd)


@pytest.mark.parametrize("element", ELEMENTS)
def test_a_rigid_rotation_is_stress_free_in_total_lagrangian(element):
    """u = (R - I) X for R a rotation of 1 rad, v = omega e_z x x (a spin of 2 rad/s): F = R, and at
    every point E, S and the damping stress S_d = alpha D sym(F^T grad v) vanish to round-off
    (1e-13 of |grad u|, (lam* + 2 mu) |grad u| and alpha (lam* + 2 mu) |grad v|), so do both nodal
    forces and the strain energy."""
    model = Model(_mesh(element), {"BLOCK": ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-4)})
    k = model.kernels[0]
    u, v = _state("rotation", model, None)
    f_int, f_damp, state = continuum.evaluate(k, u, v, large=True)
    scale = _floors(k, u, v)
    assert scale["E"] > 0.5 and scale["S_d"] > 0.0
    R = rotation(1.0)[:, :, None, None]
    assert np.abs(state.F - R).max() < 1e-13 * scale["E"]
    for name, value in (("E", state.E), ("S", state.S), ("S_d", state.S_d), ("f_int", f_int), ("f_damp", f_damp)):
        assert np.abs(value).max() < 1e-13 * scale[name], name
    assert abs(continuum.strain_energy(k, state)) < 1e-13 * scale["energy"]


@pytest.mark.parametrize("kinematics", KINEMATICS)
@pytest.mark.parametrize("element", ELEMENTS)
def test_uniform_strain_and_strain_rate_give_no_interior_force(element, kinematics):
    """Patch test with damping: u = (F - I) X and v = L X on a distorted mesh (QUA8 with curved
    interior edges), F a rotation of 0.5 rad times a stretch, L a velocity gradient. At every point
    S = D E (E = (F^T F - I) / 2, or sym(F - I) in small strain) and S_d = alpha D sym(F^T L) (L in
    small strain) to 1e-12, and the internal and damping forces vanish at the interior nodes to
    1e-10 of the boundary forces: the rules integrate grad N_a dV exactly and the fields are
    uniform."""
    large = kinematics == "total_lagrangian"
    mat = ElasticMaterial(**GRAPHITE, rayleigh_stiffness=1e-4)
    mesh = _mesh(element)
    model = Model(mesh, {"BLOCK": mat}, kinematics=kinematics)
    k = model.kernels[0]
    F = rotation(0.5) @ np.array([[1.02, 0.01], [0.0, 0.97]])
    L = np.array([[0.3, -1.2], [0.8, -0.5]])  # [1/s]
    u = (mesh.points @ (F - np.eye(2)).T).ravel()
    v = (mesh.points @ L.T).ravel()
    f_int, f_damp, state = continuum.evaluate(k, u, v, large)
    E = 0.5 * (F.T @ F - np.eye(2)) if large else 0.5 * (F + F.T) - np.eye(2)
    rate = 0.5 * (F.T @ L + L.T @ F) if large else 0.5 * (L + L.T)
    D = mat.plane_stress_matrix()
    for field, strain, factor in ((state.S, E, 1.0), (state.S_d, rate, mat.rayleigh_stiffness)):
        s = factor * D @ np.array([strain[0, 0], strain[1, 1], 2.0 * strain[0, 1]])
        expected = np.array([[s[0], s[2]], [s[2], s[1]]])[:, :, None, None]
        np.testing.assert_allclose(field, np.broadcast_to(expected, field.shape), rtol=0,
                                   atol=1e-12 * np.abs(s).max())
    x, y = mesh.points[:, 0], mesh.points[:, 1]
    boundary = np.isclose(x, x.min()) | np.isclose(x, x.max()) | np.isclose(y, y.min()) | np.isclose(y, y.max())
    interior = np.flatnonzero(~np.repeat(boundary, 2))
    assert interior.size >= 8
    for f in (f_int, f_damp):
        nodal = np.bincount(k.dofs.ravel(), weights=f.ravel(), minlength=model.n_dofs)
        assert np.abs(nodal[interior]).max() < 1e-10 * np.abs(nodal).max()
