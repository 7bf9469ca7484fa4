"""The compiled loops of the multiplier contact (ends of contact.zone and contact.multipliers) against
the vectorised numpy forms they replaced, written out below as the reference: the pairing and
measures of ContactZone.geometry (rigid plane and master segments, paired nodes, nodes beyond the
TOLE_PROJ_EXT extension, clearance), the rows of ContactGeometry.local_rows, the status revision of
MultiplierContact.update over every combination of old status, friction direction, held / free
masks, method and mu = 0, and the equations of MultiplierContact.linearize. Statuses must be equal,
values equal to round-off (1e-12 of each array's largest magnitude).

The same tests run once more in a subprocess with NUMBA_DISABLE_JIT=1, where the loops run as
plain Python: the one code path is proven to run uncompiled too.
"""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import contact.equations
import contact.multipliers
import contact.zone
from contact.equations import NO_MASK, linearize_equations, revise_statuses
from contact.multipliers import MultiplierContact
from contact.state import OPEN, SLIP, STICK
from contact.zone import ContactGeometry, ContactZone, RigidPlane

ROOT = Path(__file__).resolve().parents[1]
RTOL = 1e-12


def assert_close(actual, expected, what):
    """Equal shapes, the same non-finite entries, finite ones within RTOL of the largest magnitude."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    finite = np.isfinite(expected)
    assert np.array_equal(np.isfinite(actual), finite), f"{what}: non-finite entries differ"
    assert np.array_equal(actual[~finite], expected[~finite], equal_nan=True), f"{what}: inf/nan entries differ"
    scale = np.max(np.abs(expected[finite]), initial=0.0)
    worst = np.max(np.abs(actual[finite] - expected[finite]), initial=0.0)
    assert worst <= RTOL * scale, f"{what}: differs by {worst:.3e} (scale {scale:.3e})"


# ------------------------------------------------------------------ the numpy reference (the formulas before)
def reference_geometry(zone: ContactZone, points, u):
    """(gap, normal, tangent, master, xi) of ContactZone.geometry, vectorised."""
    x = points + u.reshape(-1, 2)
    xs = x[zone.slave]
    ns = zone.slave.size
    if zone.plane is not None:
        n = np.broadcast_to(np.asarray(zone.plane.normal), (ns, 2)).copy()
        t = np.column_stack([-n[:, 1], n[:, 0]])
        gap = (xs - np.asarray(zone.plane.point)) @ np.asarray(zone.plane.normal) + zone.clearance
        return gap, n, t, np.full((ns, 2), -1), np.zeros(ns)
    a, b = x[zone.segments[:, 0]], x[zone.segments[:, 1]]
    d = b - a
    dx, dy = d[:, 0], d[:, 1]
    length2 = dx * dx + dy * dy
    rx, ry = xs[:, 0, None] - a[:, 0], xs[:, 1, None] - a[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        xi = (rx * dx + ry * dy) / length2
        clamped = np.clip(xi, 0.0, 1.0)
        ox, oy = rx - clamped * dx, ry - clamped * dy
        best = np.argmin(np.sqrt(ox * ox + oy * oy), axis=1)
        xi_p = xi[np.arange(ns), best]
        xi_b = np.clip(xi_p, -zone.extension, 1.0 + zone.extension)
        db = d[best]
        t = db / np.sqrt(length2[best])[:, None]
        n = np.column_stack([t[:, 1], -t[:, 0]])
        gap = ((xs - a[best] - xi_b[:, None] * db) * n).sum(axis=1) + zone.clearance
    gap[xi_p != xi_b] = np.inf
    return gap, n, t, zone.segments[best], xi_b


def reference_local_rows(slave, master, xi, normal, tangent):
    if master.size == 0 or master[0, 0] < 0:
        return 2 * slave[:, None] + np.arange(2), normal.copy(), tangent.copy()
    nodes = np.column_stack([slave, master])
    dofs = (2 * nodes[:, :, None] + np.arange(2)).reshape(-1, 6)
    w = np.column_stack([np.ones_like(xi), xi - 1.0, -xi])[:, :, None]
    return dofs, (w * normal[:, None, :]).reshape(-1, 6), (w * tangent[:, None, :]).reshape(-1, 6)


def reference_statuses(old, f_old, lam, gap, ds, held, free, mu, rho_n, rho_t, gap_tolerance, augmented):
    """(status, direction, changed) of MultiplierContact.update, vectorised."""
    rn, rt = lam[0::2], lam[1::2]
    closing = old == OPEN
    with np.errstate(invalid="ignore"):
        if augmented:
            rn_aug, rt_aug = rn - rho_n * gap, rt - rho_t * ds
            closed = (rn_aug > 0) | ((old != OPEN) & (rn_aug >= 0))
        else:
            closed = np.where(closing, gap < -gap_tolerance, rn >= 0)
            rn_aug = np.where(closing, -rho_n * gap, rn)
            rt_aug = np.where(closing, -rho_t * ds, rt)
    if held is not None:
        closed = closed | held
    if free is not None:
        closed = closed & ~free
    if mu == 0:
        new, direction = np.where(closed, SLIP, OPEN), np.zeros(old.size)
    else:
        with np.errstate(invalid="ignore"):
            over = np.abs(rt_aug) > mu * np.maximum(rn_aug, 0.0) * (1 + 1e-10)
        f_new = np.sign(rt_aug)
        slipping = (old == SLIP) & (f_old != 0)
        reverses = ds * f_old > 0
        if augmented:
            stays_slip = slipping & ~(reverses | (f_new != f_old)) & over
        else:
            stays_slip = slipping & ~reverses
        new = np.where(closed, np.where(np.where(slipping, stays_slip, over), SLIP, STICK), OPEN)
        direction = np.where(new == SLIP, np.where(slipping, f_old, f_new), 0.0)
    return new, direction, np.flatnonzero(new != old)


def reference_equations(status, f, lam, gap, ds, held, mu, rho_n, rho_t, row_factor, G_values):
    """(residual, d_du values, d_dlam) of MultiplierContact.linearize, vectorised."""
    ns = status.size
    rn, rt = lam[0::2], lam[1::2]
    G_slip = np.zeros_like(G_values)
    G_slip[1::2] = G_values[0::2]
    gap = np.where(np.isfinite(gap), gap, 0.0)
    closed, stick, slip = status != OPEN, status == STICK, status == SLIP
    res_n = np.where(closed, rho_n * gap, rn)
    cap_on = slip if held is None else slip & ~(held & ((rn - rho_n * gap) <= 0))
    res_t = np.where(stick, rho_t * ds, np.where(cap_on, rt - mu * f * (rn - rho_n * gap), rt))
    on_rows = np.empty(2 * ns)
    on_rows[0::2] = np.where(closed, rho_n, 0.0)
    on_rows[1::2] = np.where(stick, rho_t, 0.0)
    slip_rows = np.zeros(2 * ns)
    slip_rows[1::2] = np.where(cap_on, mu * f * rho_n, 0.0)
    Du = (on_rows * row_factor)[:, None] * G_values + (slip_rows * row_factor)[:, None] * G_slip
    Dl = np.zeros((ns, 2, 2))
    Dl[:, 0, 0] = np.where(closed, 0.0, 1.0)
    Dl[:, 1, 0] = np.where(cap_on, -mu * f, 0.0)
    Dl[:, 1, 1] = np.where(stick, 0.0, 1.0)
    residual = np.empty(2 * ns)
    residual[0::2], residual[1::2] = res_n, res_t
    return residual, Du, Dl


# ------------------------------------------------------------------ random configurations
def segment_zone(rng, n_slave=30, clearance=0.0, extension=0.5, degenerate=False):
    """A wavy master polyline of 6 segments along x in [0, 3] and slave nodes scattered over
    [-1.2, 4.2] x [-0.2, 0.4] (some beyond the extension of the end segments); (points, zone)."""
    xm = np.linspace(0.0, 3.0, 7)
    master = np.column_stack([xm, 0.05 * rng.standard_normal(7)])
    if degenerate:  # a segment of zero length (its distance is NaN: np.argmin's choice)
        master[3] = master[2]
    slave = np.column_stack([rng.uniform(-1.2, 4.2, n_slave), rng.uniform(-0.2, 0.4, n_slave)])
    other = rng.standard_normal((3, 2))
    points = np.vstack([other[:1], master, slave, other[1:]])
    segments = np.column_stack([np.arange(1, 7), np.arange(2, 8)])[::-1, ::-1]  # oriented right to left
    zone = ContactZone(np.arange(8, 8 + n_slave), np.ascontiguousarray(segments), None, clearance, extension,
                       "SLAVE", "MASTER")
    return points, zone


def plane_zone(rng, n_slave=25, clearance=0.0):
    points = rng.uniform(-1.0, 1.0, (n_slave + 4, 2))
    plane = RigidPlane(tuple(rng.uniform(-0.5, 0.5, 2)), tuple(rng.standard_normal(2)))
    return points, ContactZone(np.arange(2, 2 + n_slave), None, plane, clearance, 0.5, "SLAVE", "rigid plane")


ZONES = [(kind, clearance) for kind in ("plane", "segments") for clearance in (0.0, 2.5e-3, -1e-2)]


def make_zone(kind, clearance, seed):
    rng = np.random.default_rng(seed)
    return plane_zone(rng, clearance=clearance) if kind == "plane" else segment_zone(rng, clearance=clearance)


# ------------------------------------------------------------------ geometry and rows
@pytest.mark.parametrize("kind, clearance", ZONES)
def test_geometry_and_rows_match_the_numpy_forms(kind, clearance):
    seen = {"paired inside": 0, "paired beyond an end": 0, "unpaired": 0}
    for seed in range(8):
        points, zone = make_zone(kind, clearance, seed)
        u = 0.05 * np.random.default_rng(100 + seed).standard_normal(points.size)
        geo = zone.geometry(points, u)
        assert isinstance(geo, ContactGeometry) and geo.slave is zone.slave
        expected = reference_geometry(zone, points, u)
        for name, got, want in zip(("gap", "normal", "tangent", "master", "xi"),
                                   (geo.gap, geo.normal, geo.tangent, geo.master, geo.xi), expected):
            assert_close(got, want, name)
        assert np.array_equal(geo.master, expected[3]) and geo.master.dtype == expected[3].dtype
        for got, want, name in zip(geo.local_rows(), reference_local_rows(zone.slave, *expected[3:], *expected[1:3]),
                                   ("dofs", "normal values", "tangent values")):
            assert_close(got, want, name)
            assert got.dtype == want.dtype
        finite = np.isfinite(geo.gap)
        seen["unpaired"] += int(np.sum(~finite))
        seen["paired beyond an end"] += int(np.sum(finite & ((geo.xi < 0) | (geo.xi > 1))))
        seen["paired inside"] += int(np.sum(finite & (geo.xi >= 0) & (geo.xi <= 1)))
    if kind == "segments":  # the configurations reach every case of the pairing
        assert min(seen.values()) > 0, seen
        for name in ("normal_rows", "tangent_rows"):  # the sparse rows are the local rows
            dofs, wn, wt = reference_local_rows(zone.slave, *expected[3:], *expected[1:3])
            dense = np.zeros((zone.size, points.size))
            np.add.at(dense, (np.arange(zone.size)[:, None], dofs), wn if name == "normal_rows" else wt)
            assert_close(getattr(geo, name)(points.size).toarray(), dense, name)


def test_the_clearance_adds_to_the_gap_and_the_extension_bounds_the_pairing():
    """Physics the kernels carry, independent of the reference: the clearance (JEU) shifts every
    finite gap by itself; a node projecting farther than ``extension`` beyond the end is unpaired."""
    for kind in ("plane", "segments"):
        points, zone = make_zone(kind, 0.0, 3)
        u = np.zeros(points.size)
        g0 = zone.geometry(points, u).gap
        shifted = ContactZone(zone.slave, zone.segments, zone.plane, 4e-3, zone.extension, "S", "M")
        g1 = shifted.geometry(points, u).gap
        finite = np.isfinite(g0)
        assert np.array_equal(finite, np.isfinite(g1))
        np.testing.assert_allclose(g1[finite] - g0[finite], 4e-3, rtol=1e-9, atol=1e-15)
    # one flat segment from (0, 0) to (1, 0) (body below): nodes above at x = -0.2, -0.6, 1.4, 1.6
    points = np.array([[1.0, 0.0], [0.0, 0.0], [-0.2, 0.1], [-0.6, 0.1], [1.4, -0.1], [1.6, 0.1]])
    zone = ContactZone(np.arange(2, 6), np.array([[0, 1]]), None, 0.0, 0.5, "S", "M")
    geo = zone.geometry(points, np.zeros(12))
    np.testing.assert_allclose(geo.normal, [[0.0, 1.0]] * 4, atol=1e-15)
    np.testing.assert_allclose(geo.gap[[0, 2]], [0.1, -0.1], rtol=1e-12)
    assert np.isinf(geo.gap[[1, 3]]).all() and (geo.gap[[1, 3]] > 0).all()
    np.testing.assert_allclose(geo.xi, [1.2, 1.5, -0.4, -0.5], rtol=1e-12)  # xi from the first node (1, 0)


def test_a_degenerate_master_segment_is_chosen_as_numpy_chose_it():
    """A zero-length segment has a NaN distance, which np.argmin picks: the loop does the same."""
    points, zone = segment_zone(np.random.default_rng(7), degenerate=True)
    u = np.zeros(points.size)
    geo = zone.geometry(points, u)
    expected = reference_geometry(zone, points, u)
    for name, got, want in zip(("gap", "normal", "tangent", "master", "xi"),
                               (geo.gap, geo.normal, geo.tangent, geo.master, geo.xi), expected):
        assert np.array_equal(got, want, equal_nan=True), name


# ------------------------------------------------------------------ status revision
STATUS_GRID = dict(old=(OPEN, STICK, SLIP), f_old=(-1.0, 0.0, 1.0), rn=(-1.0, 0.0, 0.4, 3.0),
                   rt=(-2.0, -0.3, 0.0, 0.3, 2.0), gap=(-2e-3, -1e-15, 0.0, 1e-4, 2e-3, np.inf),
                   ds=(-1e-4, 0.0, 1e-4), held=(False, True), free=(False, True))


def status_grid():
    """Every combination of STATUS_GRID, one node each."""
    rows = np.array(list(itertools.product(*STATUS_GRID.values())), dtype=float)
    cols = dict(zip(STATUS_GRID, rows.T))
    lam = np.empty(2 * rows.shape[0])
    lam[0::2], lam[1::2] = cols["rn"], cols["rt"]
    return (cols["old"].astype(np.int64), cols["f_old"], lam, cols["gap"], cols["ds"], cols["held"].astype(bool),
            cols["free"].astype(bool))


@pytest.mark.parametrize("method", ("lagrange", "augmented"))
@pytest.mark.parametrize("mu", (0.0, 0.3))
@pytest.mark.parametrize("masks", ("none", "held", "free", "both"))
def test_status_revision_matches_the_numpy_form_over_every_combination(method, mu, masks):
    old, f_old, lam, gap, ds, held, free = status_grid()
    held = held if masks in ("held", "both") else None
    free = free if masks in ("free", "both") else None
    rho_n, rho_t, tol = 1.3e3, 2.1e3, 1e-14
    expected = reference_statuses(old, f_old, lam, gap, ds, held, free, mu, rho_n, rho_t, tol, method == "augmented")
    changes = np.arange(old.size) % 3
    counted = changes.copy()
    n = old.size
    new, direction, changed = np.full(n, -7), np.full(n, np.nan), np.full(n, -7)  # every entry written
    count = revise_statuses(old, f_old, lam, gap, ds, NO_MASK if held is None else held, held is not None,
                            NO_MASK if free is None else free, free is not None, mu, rho_n, rho_t, tol,
                            method == "augmented", counted, new, direction, changed)
    changed = changed[:count]
    assert new.dtype == expected[0].dtype and np.array_equal(new, expected[0])
    assert np.array_equal(direction, expected[1])
    assert np.array_equal(changed, expected[2])
    assert np.array_equal(counted - changes, (expected[0] != old).astype(int))
    # every outcome occurs, so a rule that went wrong shows
    assert set(np.unique(expected[0])) == ({OPEN, SLIP} if mu == 0 else {OPEN, STICK, SLIP})
    if held is not None:
        assert np.all(new[held & ~free] != OPEN) if free is not None else np.all(new[held] != OPEN)
    if free is not None:
        assert np.all(new[free] == OPEN)


# ------------------------------------------------------------------ linearisation
@pytest.mark.parametrize("m", (2, 6))
@pytest.mark.parametrize("mu", (0.0, 0.45))
@pytest.mark.parametrize("held", (False, True))
@pytest.mark.parametrize("row_factor", (1.0, 3.7e-4))
def test_linearization_matches_the_numpy_form(m, mu, held, row_factor):
    rng = np.random.default_rng(m + 10 * int(held) + int(100 * mu))
    ns = 200
    status = rng.choice([OPEN, STICK, SLIP], ns).astype(np.int64)
    f = np.where(status == SLIP, rng.choice([-1.0, 1.0], ns), 0.0)
    lam = rng.standard_normal(2 * ns)
    gap = np.where(rng.random(ns) < 0.1, np.inf, 1e-3 * rng.standard_normal(ns))
    ds = 1e-4 * rng.standard_normal(ns)
    mask = rng.random(ns) < 0.5 if held else None
    G = rng.standard_normal((2 * ns, m))
    rho_n, rho_t = 2.3e4, 5.1e3
    expected = reference_equations(status, f, lam, gap, ds, mask, mu, rho_n, rho_t, row_factor, G)
    got = np.full(2 * ns, np.nan), np.full((2 * ns, m), np.nan), np.full((ns, 2, 2), np.nan)  # all written
    linearize_equations(status, f, lam, gap, ds, NO_MASK if mask is None else mask, mask is not None, mu, rho_n,
                        rho_t, row_factor, G, *got)
    for name, a, b in zip(("residual", "d_du", "d_dlam"), got, expected):
        assert_close(a, b, name)
    if held and mu > 0:  # a slipping node held closed under traction has no friction force
        traction = (status == SLIP) & mask & (lam[0::2] - rho_n * np.where(np.isfinite(gap), gap, 0.0) <= 0)
        assert traction.any()
        assert np.array_equal(got[0][1::2][traction], lam[1::2][traction])


# ------------------------------------------------------------------ MultiplierContact end to end
def fake_model(points):
    """What MultiplierContact reads of a model: the mesh points; no sets (stiffness scale 1)."""
    return SimpleNamespace(mesh=SimpleNamespace(points=points), sets=())


@pytest.mark.parametrize("kind, clearance", ZONES[::2] + ZONES[1::2][:1])
@pytest.mark.parametrize("method", ("lagrange", "augmented"))
def test_multiplier_contact_update_and_linearize_match_the_numpy_forms(kind, clearance, method):
    points, zone = make_zone(kind, clearance, 11)
    term = MultiplierContact(fake_model(points), zone, friction=0.35, method=method, coef_cont=1e3,
                                coef_frot=2e3)
    rng = np.random.default_rng(5)
    ns = zone.size
    u0 = 0.02 * rng.standard_normal(points.size)
    for it in range(6):
        trial = term.begin_step(u0)
        trial.status = rng.choice([OPEN, STICK, SLIP], ns).astype(np.int64)
        trial.direction = np.where(trial.status == SLIP, rng.choice([-1.0, 0.0, 1.0], ns), 0.0)
        trial.lam = rng.standard_normal(2 * ns)
        trial.held = rng.random(ns) < 0.3 if it % 2 else None
        trial.free = rng.random(ns) < 0.2 if it % 3 == 2 else None
        u = u0 + 0.01 * rng.standard_normal(points.size)
        gap, normal, tangent, master, xi = reference_geometry(zone, points, u)
        dofs, wn, wt = reference_local_rows(zone.slave, master, xi, normal, tangent)
        ds = np.einsum("rk,rk->r", wt, (u - u0)[dofs])
        old, f_old = trial.status.copy(), trial.direction.copy()
        expected = reference_statuses(old, f_old, trial.lam, gap, ds, trial.held, trial.free, term.friction,
                                      term.rho_n, term.rho_t, term.gap_tolerance, method == "augmented")
        changed = term.update(trial, u, None)
        assert np.array_equal(trial.status, expected[0]) and np.array_equal(trial.direction, expected[1])
        assert np.array_equal(changed, expected[2]) and np.array_equal(trial.changes, expected[0] != old)
        lin = term.linearize(trial, u, None)
        G = np.empty((2 * ns, wn.shape[1]))
        G[0::2], G[1::2] = wn, wt
        want = reference_equations(trial.status, trial.direction, trial.lam, gap, ds, trial.held, term.friction,
                                   term.rho_n, term.rho_t, 1.0, G)
        assert np.array_equal(lin.force_rows.columns, np.repeat(dofs, 2, axis=0))
        assert np.array_equal(lin.d_du.columns, lin.force_rows.columns)
        for name, a, b in zip(("rows", "residual", "d_du", "d_dlam"),
                              (lin.force_rows.values, lin.residual, lin.d_du.values, lin.d_dlam), (G, *want)):
            assert_close(a, b, name)
        geo, Gn, Gt = term.rows(u)
        assert_close(Gn.values, wn, "normal rows")
        assert_close(Gt.values, wt, "tangent rows")
        assert_close(geo.gap, gap, "gap")


@pytest.mark.parametrize("kind, clearance", ZONES[::2] + ZONES[1::2][:1])
@pytest.mark.parametrize("method", ("lagrange", "augmented"))
def test_one_iterate_is_update_linearize_and_the_force_in_one_call(kind, clearance, method):
    """MultiplierContact.iterate (one compiled pass, the Newton loop's call) gives bit for bit what
    update, linearize and -G^T lam (numpy's bincount) give one after the other: statuses, directions,
    status changes, equations and the resisting force, with and without the status revision, with
    held and free nodes."""
    points, zone = make_zone(kind, clearance, 11)
    rng = np.random.default_rng(8)
    ns = zone.size
    u0 = 0.02 * rng.standard_normal(points.size)
    one = MultiplierContact(fake_model(points), zone, friction=0.35, method=method, coef_cont=1e3, coef_frot=2e3)
    apart = MultiplierContact(fake_model(points), zone, friction=0.35, method=method, coef_cont=1e3, coef_frot=2e3)
    revised = 0
    for it in range(8):
        status = rng.choice([OPEN, STICK, SLIP], ns).astype(np.int64)
        direction = np.where(status == SLIP, rng.choice([-1.0, 0.0, 1.0], ns), 0.0)
        lam = rng.standard_normal(2 * ns)
        held = rng.random(ns) < 0.3 if it % 2 else None
        free = rng.random(ns) < 0.2 if it % 3 == 2 else None
        trials = [one.begin_step(u0), apart.begin_step(u0)]
        for trial in trials:
            trial.status, trial.direction, trial.lam = status.copy(), direction.copy(), lam.copy()
            trial.held, trial.free = held, free
        u = u0 + 0.01 * rng.standard_normal(points.size)
        update = it != 3
        lin, changed, force = one.iterate(trials[0], u.copy(), None, update)
        want_changed = apart.update(trials[1], u, None) if update else np.zeros(0, dtype=np.int64)
        want = apart.linearize(trials[1], u, None)
        want_force = -want.force_rows.transpose_times(trials[1].lam)
        revised += want_changed.size
        for name, a, b in (("status", trials[0].status, trials[1].status),
                           ("direction", trials[0].direction, trials[1].direction),
                           ("changes", trials[0].changes, trials[1].changes), ("changed", changed, want_changed),
                           ("columns", lin.force_rows.columns, want.force_rows.columns),
                           ("rows", lin.force_rows.values, want.force_rows.values),
                           ("residual", lin.residual, want.residual), ("d_du", lin.d_du.values, want.d_du.values),
                           ("d_dlam", lin.d_dlam, want.d_dlam), ("force", force, want_force)):
            assert a.shape == b.shape and a.tobytes() == b.tobytes(), name  # bit for bit, signs of zeros too
    assert revised > 0  # the statuses were revised somewhere: the comparison saw the rules act


@pytest.mark.parametrize("kind, clearance", ZONES)
def test_a_term_measures_its_zone_as_the_zone_does(kind, clearance):
    """The geometry and rows a contact term keeps (one compiled call, contact.equations.zone_rows) are
    bit for bit ContactZone.geometry and ContactGeometry.local_rows: gap, normal, tangent, master
    nodes, projection parameter, rows, with nodes paired inside, beyond an end and unpaired."""
    for seed in range(6):
        points, zone = make_zone(kind, clearance, seed)
        term = MultiplierContact(fake_model(points), zone, friction=0.2)
        u = 0.05 * np.random.default_rng(200 + seed).standard_normal(points.size)
        geo, Gn, Gt = term.rows(u)
        want = zone.geometry(points, u)
        dofs, wn, wt = want.local_rows()
        for name in ("slave", "gap", "normal", "tangent", "master", "xi"):
            a, b = getattr(geo, name), getattr(want, name)
            assert a.shape == b.shape and a.tobytes() == b.tobytes(), name
        for name, a, b in (("dofs", Gn.columns, dofs), ("normal rows", Gn.values, wn), ("tangent rows", Gt.values, wt),
                           ("tangent dofs", Gt.columns, dofs)):
            assert a.shape == b.shape and a.tobytes() == b.tobytes(), name


def test_the_geometry_cache_follows_the_values_of_u_not_the_array():
    """rows(u) reuses a geometry for an equal u only: an array changed in place is measured again,
    and a copy of an earlier u finds its geometry."""
    points, zone = make_zone("segments", 0.0, 2)
    term = MultiplierContact(fake_model(points), zone, friction=0.2)
    rng = np.random.default_rng(1)
    u = 0.01 * rng.standard_normal(points.size)
    first = term.rows(u)[0]
    assert term.rows(u.copy())[0] is first
    u_before = u.copy()
    u += 0.05 * rng.standard_normal(points.size)
    second = term.rows(u)[0]
    assert second is not first
    assert_close(second.gap, reference_geometry(zone, points, u)[0], "gap after an in-place change")
    assert term.rows(u_before)[0] is first
    trial = term.begin_step(u_before)
    geo, gap, ds, _, _ = term.measures(trial, u, None)
    gap[:] = -1.0  # the caller's own array: the cached geometry is untouched
    assert term.rows(u)[0] is second and np.isfinite(second.gap).any() and not (second.gap == -1.0).any()
    geo, gap, ds, _, _ = term.measures(trial, u, None)
    np.testing.assert_array_equal(gap, np.where(np.isfinite(second.gap), second.gap, np.inf))


def test_a_gap_that_is_not_finite_is_the_inf_of_an_unpaired_node():
    """measures() gives +inf wherever the geometry's gap is not finite (here NaN, from a NaN
    displacement of one slave node), and linearize() writes g = 0 there."""
    points, zone = make_zone("plane", 0.0, 4)
    term = MultiplierContact(fake_model(points), zone, friction=0.2)
    u = np.zeros(points.size)
    u[2 * zone.slave[3] + 1] = np.nan
    trial = term.begin_step(np.zeros(points.size))
    trial.status = np.full(zone.size, STICK)
    geo, gap, ds, _, _ = term.measures(trial, u, None)
    assert np.isnan(geo.gap[3]) and gap[3] == np.inf and np.isfinite(np.delete(gap, 3)).all()
    assert term.linearize(trial, u, None).residual[6] == 0.0  # rho_n g with g = 0


def test_kernels_run_compiled_unless_jit_is_disabled():
    """Under NUMBA_DISABLE_JIT=1 the loops are the plain Python functions; otherwise numba's."""
    disabled = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
    loops = {contact.zone: ("clip", "plane_geometry", "segment_geometry", "segment_rows", "plane_rows"),
             contact.equations: ("sign", "interleave_rows", "row_increments", "same_vector", "revise_statuses",
                                   "linearize_equations", "iterate_equations", "zone_rows")}
    for module, names in loops.items():
        for name in names:
            compiled = hasattr(getattr(module, name), "signatures")
            assert compiled != disabled, f"{module.__name__}.{name}"


def test_the_loops_return_no_arrays(monkeypatch):
    """The loops fill arrays the caller made and return nothing or a number: numba boxing a tuple of
    arrays on return can meet the exception of a signal handler (fem.time.interrupt) and fail with a
    SystemError, where a run stopped by Ctrl-C or SIGTERM must end cleanly."""
    loops = {contact.zone: ("plane_geometry", "segment_geometry", "segment_rows", "plane_rows"),
             contact.equations: ("interleave_rows", "row_increments", "same_vector", "revise_statuses",
                                   "linearize_equations", "iterate_equations", "zone_rows")}
    returned = []

    def recording(name, loop):
        def call(*args):
            returned.append((name, loop(*args)))
            return returned[-1][1]
        return call

    for module, names in loops.items():
        for name in names:
            monkeypatch.setattr(module, name, recording(name, getattr(module, name)))
    points, zone = make_zone("segments", 0.0, 6)
    term = MultiplierContact(fake_model(points), zone, friction=0.3)
    u = 0.01 * np.random.default_rng(2).standard_normal(points.size)
    trial = term.begin_step(np.zeros(points.size))
    trial.held = np.zeros(zone.size, dtype=bool)
    for w in (u, u, 2 * u):
        term.update(trial, w, None)
        term.linearize(trial, w, None)
        term.iterate(trial, w, None, True)
    dofs, wn, wt = zone.geometry(points, u).local_rows()  # the loops zone_rows calls, called from Python
    contact.equations.interleave_rows(dofs, wn, wt, np.zeros(zone.size), np.empty((2 * zone.size, 6), dtype=np.int64),
                                        np.empty((2 * zone.size, 6)), np.empty(zone.size))
    plane_points, plane = make_zone("plane", 0.0, 6)
    plane.geometry(plane_points, np.zeros(plane_points.size)).local_rows()
    assert {name for name, _ in returned} == {name for names in loops.values() for name in names}
    assert all(r is None or isinstance(r, (bool, int, np.integer, np.bool_)) for _, r in returned), returned


UNCOMPILED = ("geometry_and_rows or degenerate or clearance_adds or status_revision or linearization_matches "
              "or multiplier_contact_update or one_iterate or measures_its_zone or cache_follows or not_finite or return_no_arrays or kernels_run_compiled")


def test_the_same_tests_pass_with_the_loops_uncompiled():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                          str(Path(__file__).relative_to(ROOT)), "-k", UNCOMPILED],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout
