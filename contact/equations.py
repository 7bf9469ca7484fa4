"""A contact node's statuses and equations, and a zone's rows, as compiled loops (contact.multipliers says
what they compute; fem.compiled how they are compiled): shared by the contact term's own iterate
(contact.multipliers.MultiplierContact) and the compiled Newton loop of a step (contact.newton_loop), so that
neither imports the other's module for them.

Each is plain Python compiled by ``numba.njit(cache=True)`` on first use, the same code under
``NUMBA_DISABLE_JIT=1``; tests/test_contact_compiled.py checks both against the vectorised numpy forms.
"""
from __future__ import annotations

import math

import numpy as np

from fem import compiled

from contact.state import OPEN, SLIP, STICK
import contact.zone as zone_loops

#: the placeholder of an absent node mask (TrialContact.held / free is None) in the compiled loops
NO_MASK = np.zeros(0, dtype=np.bool_)


# ------------------------------------------------------------------------------------ compiled loops
# They fill arrays the caller allocates and return nothing or a number: a tuple of arrays boxed by
# numba on return meets a signal handler that raised (fem.time.interrupt) as "SystemError: ...
# returned a result with an exception set", where a run must stop cleanly.
@compiled.loop(cache=True, error_model="numpy")
def sign(x):
    """np.sign: +-1, 0 at 0, NaN kept."""
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    if x == 0.0:
        return 0.0
    return x


@compiled.loop(cache=True, error_model="numpy")
def interleave_rows(dofs, wn, wt, gap, dofs2, G, gap_inf):
    """Fills the rows of the multiplier unknowns (R_N, R_T) of each node, interleaved: dofs2
    (2 n_s, m) and G (2 n_s, m), the normal row of node i at 2 i, its tangent row at 2 i + 1; and the
    normal measure of the geometry gap_inf (n_s,), the gap with +inf where it is not finite (unpaired)."""
    ns, m = wn.shape
    for i in range(ns):
        for k in range(m):
            dofs2[2 * i, k] = dofs[i, k]
            dofs2[2 * i + 1, k] = dofs[i, k]
            G[2 * i, k] = wn[i, k]
            G[2 * i + 1, k] = wt[i, k]
        gap_inf[i] = gap[i] if math.isfinite(gap[i]) else np.inf


#: the placeholders of the plane of a zone of master segments, and of the segments of a rigid plane's
NO_PLANE, NO_SEGMENTS = np.zeros(4), np.zeros((0, 2), dtype=np.int64)


@compiled.loop(calls=("contact.zone",), cache=True, error_model="numpy")
def zone_rows(points, u, slave, segments, plane, extension, clearance, gap, normal, tangent, master, xi, dofs, wn, wt,
              dofs2, G, gap_inf):
    """The geometry of a zone in x = X + u and its rows, in one call: against the rigid plane
    ``plane`` = (px, py, nx, ny) when ``segments`` is empty (contact.zone.plane_geometry, plane_rows;
    master -1, xi 0), else against the master ``segments`` (contact.zone.segment_geometry, segment_rows;
    master the nodes of each slave node's segment); then :func:`interleave_rows`. Fills gap, normal,
    tangent, master, xi (ContactGeometry's arrays), dofs, wn, wt (ContactGeometry.local_rows) and dofs2,
    G, gap_inf: the same values as those functions called one after the other."""
    ns = slave.size
    if segments.shape[0] == 0:
        px, py, nx, ny = plane[0], plane[1], plane[2], plane[3]
        zone_loops.plane_geometry(points, u, slave, px, py, nx, ny, clearance, gap, normal, tangent)
        for i in range(ns):
            master[i, 0], master[i, 1], xi[i] = -1, -1, 0.0
        zone_loops.plane_rows(slave, normal, tangent, dofs, wn, wt)
    else:
        best = np.empty(ns, dtype=np.int64)
        every = np.empty((ns, 2), dtype=np.int64)  # each slave node among every segment
        for i in range(ns):
            every[i, 0], every[i, 1] = 0, segments.shape[0]
        zone_loops.segment_geometry(points, u, slave, segments, every, extension, clearance, gap, normal, tangent,
                                    best, xi)
        for i in range(ns):
            master[i, 0], master[i, 1] = segments[best[i], 0], segments[best[i], 1]
        zone_loops.segment_rows(slave, master, xi, normal, tangent, dofs, wn, wt)
    interleave_rows(dofs, wn, wt, gap, dofs2, G, gap_inf)


@compiled.loop(cache=True, error_model="numpy")
def row_increments(dofs, values, u, u0, out):
    """out[r] = sum_k values[r, k] (u - u0)[dofs[r, k]]: the slip increment ds = Gt (u - u0),
    summed in the order numpy's einsum (:class:`fem.model.sparsity.SparseRows`) takes on two SIMD
    lanes, the even and the odd terms apart, then together: there, the same bits as the product."""
    n, m = values.shape
    for r in range(n):
        even, odd = 0.0, 0.0
        for k in range(0, m, 2):
            c = dofs[r, k]
            even += values[r, k] * (u[c] - u0[c])
        for k in range(1, m, 2):
            c = dofs[r, k]
            odd += values[r, k] * (u[c] - u0[c])
        out[r] = even + odd


@compiled.loop(cache=True, error_model="numpy")
def same_vector(a, b):
    """a == b entry by entry (np.array_equal of two vectors of the same size)."""
    for i in range(a.size):
        if a[i] != b[i]:
            return False
    return True


@compiled.loop(cache=True, error_model="numpy")
def revise_statuses(old, f_old, lam, gap, ds, held, has_held, free, has_free, mu, rho_n, rho_t,
                    gap_tolerance, augmented, changes, new, direction, changed):
    """New statuses and friction directions (contact.multipliers.MultiplierContact.update) from the old ones,
    the multipliers lam = (R_N, R_T) interleaved, the gap g (+inf unpaired) and the slip increment
    ds. Fills ``new`` and ``direction`` (n_s,), counts the changes in ``changes``, writes the indices
    of the nodes that changed at the start of ``changed`` (n_s,) and returns how many changed.

    Normal status: "augmented" closed when R~_N = R_N - rho_n g > 0 (or >= 0 for a closed node);
    "lagrange" an open node closes when g < -gap_tolerance, a closed one opens when R_N < 0, with
    R~_N, R~_T the multipliers of a closed node and the trial forces -rho_n g, -rho_t ds of an open
    one. ``held`` nodes stay closed, ``free`` ones open. mu = 0: closed nodes slip, direction 0.
    Otherwise over = |R~_T| > mu max(R~_N, 0) (1 + 1e-10); a slipping node (SLIP with a direction
    f != 0) keeps slipping along f unless its slip reverses (ds f > 0; "augmented" also when
    sign(R~_T) != f or not over); any other closed node slips along sign(R~_T) when over, else sticks.
    """
    n = old.size
    n_changed = 0
    for i in range(n):
        rn, rt = lam[2 * i], lam[2 * i + 1]
        g, s = gap[i], ds[i]
        if augmented:
            rn_aug, rt_aug = rn - rho_n * g, rt - rho_t * s
            # a closed node stays closed at R~_N = 0 (touching, no force yet: a body laid on another)
            closed = rn_aug > 0 or (old[i] != OPEN and rn_aug >= 0)
        elif old[i] == OPEN:
            closed = g < -gap_tolerance
            rn_aug, rt_aug = -rho_n * g, -rho_t * s
        else:
            closed = rn >= 0
            rn_aug, rt_aug = rn, rt
        if has_held and held[i]:
            closed = True
        if has_free and free[i]:
            closed = False
        status, f = OPEN, 0.0
        if closed and mu == 0:
            status = SLIP
        elif closed:
            cap = rn_aug if (rn_aug > 0.0 or rn_aug != rn_aug) else 0.0  # np.maximum(R~_N, 0)
            over = abs(rt_aug) > mu * cap * (1 + 1e-10)
            f_new = sign(rt_aug)
            # a frictionless "slip" (no direction yet, e.g. after a mu = 0 phase) is decided afresh
            slipping = old[i] == SLIP and f_old[i] != 0
            reverses = s * f_old[i] > 0
            if not slipping:
                slips = over
            elif augmented:
                slips = not (reverses or f_new != f_old[i]) and over
            else:
                slips = not reverses
            if slips:
                status, f = SLIP, (f_old[i] if slipping else f_new)
            else:
                status = STICK
        new[i], direction[i] = status, f
        if status != old[i]:
            changes[i] += 1
            changed[n_changed] = i
            n_changed += 1
    return n_changed


@compiled.loop(cache=True, error_model="numpy")
def linearize_equations(status, f, lam, gap, ds, held, has_held, mu, rho_n, rho_t, row_factor, G, residual, Du, Dl):
    """The node equations (the table of the module docstring) and their derivatives, with g = 0
    where the gap is not finite. Residuals (interleaved, 2 n_s): open R_N, R_T; stick rho_n g,
    rho_t ds; slip rho_n g, R_T - mu f (R_N - rho_n g); a slipping node held closed under traction
    (R_N - rho_n g <= 0) has no friction force (R_T). d/d(unknown) (2 n_s, m): the rows ``G``
    (interleaved normal, tangent) times rho_n (closed), rho_t (stick), plus mu f rho_n times the
    normal row in the tangent equation (slip), all times ``row_factor``. d/dlam: 2 x 2 blocks
    [[d res_n/d R_N, 0], [d res_t/d R_N, d res_t/d R_T]]. Fills residual (2 n_s,), Du (the values of
    d/d(unknown), 2 n_s x m) and Dl (n_s, 2, 2)."""
    ns = status.size
    m = G.shape[1]
    for i in range(ns):
        rn, rt = lam[2 * i], lam[2 * i + 1]
        g = gap[i] if math.isfinite(gap[i]) else 0.0
        closed, stick, slip = status[i] != OPEN, status[i] == STICK, status[i] == SLIP
        # the slip cap mu (R_N - rho_n g) is never negative: a node held closed under traction
        # (release "located" or "delayed") has no friction force
        cap_on = slip and not (has_held and held[i] and (rn - rho_n * g) <= 0)
        residual[2 * i] = rho_n * g if closed else rn
        if stick:
            residual[2 * i + 1] = rho_t * ds[i]
        elif cap_on:
            residual[2 * i + 1] = rt - mu * f[i] * (rn - rho_n * g)
        else:
            residual[2 * i + 1] = rt
        on_n = (rho_n if closed else 0.0) * row_factor
        on_t = (rho_t if stick else 0.0) * row_factor
        on_slip = (mu * f[i] * rho_n if cap_on else 0.0) * row_factor
        for k in range(m):
            Du[2 * i, k] = on_n * G[2 * i, k]
            Du[2 * i + 1, k] = on_t * G[2 * i + 1, k] + on_slip * G[2 * i, k]
        Dl[i, 0, 0] = 0.0 if closed else 1.0
        Dl[i, 0, 1] = 0.0
        Dl[i, 1, 0] = -mu * f[i] if cap_on else 0.0
        Dl[i, 1, 1] = 0.0 if stick else 1.0


@compiled.loop(cache=True, error_model="numpy")
def iterate_equations(update, status, f_old, lam, gap, ds, held, has_held, free, has_free, mu, rho_n, rho_t,
                      gap_tolerance, augmented, row_factor, columns, G, changes, new, direction, changed, residual, Du,
                      Dl, force):
    """One Newton iterate of a contact term (contact.multipliers.MultiplierContact.iterate): when ``update``, the
    statuses revised by :func:`revise_statuses` into ``new`` and ``direction`` (else copied from
    ``status`` and ``f_old``); the equations of those statuses by :func:`linearize_equations`; and the
    resisting force ``force`` (n_dofs,) = -G^T lam, G the interleaved rows (``columns``, ``G``)
    (2 n_s, m), summed row after row as numpy's bincount does, then negated. Returns the number of
    nodes whose status changed (their indices at the start of ``changed``)."""
    count = 0
    if update:
        count = revise_statuses(status, f_old, lam, gap, ds, held, has_held, free, has_free, mu, rho_n, rho_t,
                                gap_tolerance, augmented, changes, new, direction, changed)
    else:
        for i in range(status.size):
            new[i], direction[i] = status[i], f_old[i]
    linearize_equations(new, direction, lam, gap, ds, held, has_held, mu, rho_n, rho_t, row_factor, G, residual, Du,
                        Dl)
    for c in range(force.size):
        force[c] = 0.0
    n, m = G.shape
    for r in range(n):
        for k in range(m):
            force[columns[r, k]] += G[r, k] * lam[r]
    for c in range(force.size):
        force[c] = -force[c]
    return count


@compiled.warm_up
def _load_compiled_loops() -> None:
    """Call each loop once on two nodes, in the types of a run, when a run starts (fem.compiled.load;
    numba loads it from its cache, or compiles it once per checkout): not at a run's first step
    (contact.zone._load_compiled_loops says why)."""
    dofs, values, u = np.zeros((2, 2), dtype=np.int64), np.ones((2, 2)), np.zeros(2)
    gap, lam, status = np.array([0.0, np.inf]), np.zeros(4), np.array([OPEN, SLIP])
    dofs2, G, gap_inf, ds = np.empty((4, 2), dtype=np.int64), np.empty((4, 2)), np.empty(2), np.empty(2)
    interleave_rows(dofs, values, values, gap, dofs2, G, gap_inf)
    points, slave = np.zeros((3, 2)), np.array([0, 1], dtype=np.int64)
    points[2, 0] = 1.0
    for m, segments, plane in ((2, NO_SEGMENTS, np.array([0.0, 0.0, 0.0, 1.0])), (6, np.array([[1, 2]]), NO_PLANE)):
        zone_rows(points, np.zeros(6), slave, segments, plane, 0.5, 0.0, np.empty(2), np.empty((2, 2)),
                  np.empty((2, 2)), np.empty((2, 2), dtype=np.int64), np.empty(2), np.empty((2, m), dtype=np.int64),
                  np.empty((2, m)), np.empty((2, m)), np.empty((4, m), dtype=np.int64), np.empty((4, m)), np.empty(2))
    row_increments(dofs, values, u, u, ds)
    same_vector(u, u)
    for held in (NO_MASK, np.ones(2, dtype=np.bool_)):
        revise_statuses(status, np.ones(2), lam, gap_inf, ds, held, held.size > 0, held, held.size > 0, 0.3, 1.0,
                        1.0, 0.0, True, np.zeros(2, dtype=np.int64), np.empty(2, dtype=np.int64), np.empty(2),
                        np.empty(2, dtype=np.int64))
        linearize_equations(status, np.ones(2), lam, gap_inf, ds, held, held.size > 0, 0.3, 1.0, 1.0, 1.0, G,
                            np.empty(4), np.empty((4, 2)), np.empty((2, 2, 2)))
        iterate_equations(True, status, np.ones(2), lam, gap_inf, ds, held, held.size > 0, held, held.size > 0, 0.3,
                          1.0, 1.0, 0.0, True, 1.0, dofs2, G, np.zeros(2, dtype=np.int64), np.empty(2, dtype=np.int64),
                          np.empty(2), np.empty(2, dtype=np.int64), np.empty(4), np.empty((4, 2)),
                          np.empty((2, 2, 2)), np.empty(4))
