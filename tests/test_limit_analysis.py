"""contact/references/limit_analysis.py: Livesley's equilibrium LP for rigid blocks on no-tension
Coulomb joints, against closed forms (one block, a two-block column), Milankovitch's minimum thickness
of the semicircular arch, an independent thrust-line computation, and the equilibrium of its answer.

Closed forms
------------
* One block w x h on the ground, load lambda W along +x at the centroid (height h/2). Base joint
  resultant: N = W, S = -lambda W, its moment about the base centre lambda W h/2, so the thrust sits
  at e = lambda h/2 from the centre; e <= w/2 (no tension) and |S| <= mu N give
  lambda = min(w/h, mu). The endpoint shears split in proportion to the normals, so the two limits
  are independent. Overturning: the thrust at the leeward corner (x = +w/2 for +x), the windward
  endpoint force zero; sliding: |S| = mu N.
* Two blocks, centred: bottom w1 x h1 (weight W1), top w2 x h2 (W2), interface c = min(w1, w2).
  Each joint's resultant follows from the statics of the blocks above it (the column is statically
  determinate in resultants), so lambda is the least of the joint limits:
  - top joint: N = W2, moment about its centre lambda W2 h2/2 <= W2 c/2  ->  lambda <= c/h2
    (the top block overturning about the interface's leeward corner);
  - base: N = W1 + W2, moment lambda (W1 h1/2 + W2 (h1 + h2/2)) <= (W1 + W2) w1/2
    ->  lambda <= (W1 + W2) w1 / (W1 h1 + W2 (2 h1 + h2)) (the whole column about the base's
    leeward corner);
  - sliding at either joint: S/N = lambda <= mu (both joints reach it together).
  Identical blocks: min(w/h, 2 w/(4 h), mu) = min(w/(2h), mu).

Minimum thickness of the semicircular arch (radial joints, mu = inf), computed by this module
(bisection to 1e-5, upper end of the bracket; in brackets the limit to 1e-9):
n = 9: 0.10214 (0.1021343), n = 15: 0.10627 (0.1062658), n = 27: 0.10678 (0.1067764),
n = 51: 0.10738 (0.1073737), n = 101: 0.10745 (0.1074508); n = 201 gives 0.107465. They increase
towards Milankovitch's 0.1075 from below: a finite n only constrains the thrust line at n + 1 sections.
Under a horizontal load lambda W (n = 27): lambda = 0.40798 (t/R = 0.25), 0.28409 (0.20),
0.14510 (0.15), four hinges alternating extrados/intrados.

Tolerances
----------
* multipliers of the closed forms to 1e-9: the simplex returns a vertex, the solution of a small
  square system with O(1) coefficients (round-off ~1e-15); 1e-9 leaves room for HiGHS's feasibility
  tolerance 1e-10 on the scaled unknowns, and is far below any modelling difference (a hinge at the
  wrong corner changes lambda by O(1)).
* equilibrium residual 1e-9 of the total weight: the LP's equality rows hold to its feasibility
  tolerance 1e-10 (scaled by the total weight); the recomputation is independent (moments about the
  origin, frames written from the geometry, not taken from the module).
* minimum thickness: the bisection tolerance is 1e-5 and its answer lies in [t_min, t_min + 1e-5];
  successive values differ by >= 7e-5, so the strict monotonicity is decided; within 1 % of 0.1075
  (the brief; the n = 101 value is 0.05 % below); the recorded values to 2e-5 (two bisection widths:
  a flip of the last decisions by the LP tolerance moves the result by at most that); the independent
  thrust-line bisection (same 1e-5) to 2e-5.
"""
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from contact.references import limit_analysis as la
from contact.references.limit_analysis import (MILANKOVITCH, Joint, block_on_ground, collapse_multiplier, column,
                                               horizontal_live_load, minimum_thickness, polygon_block,
                                               semicircular_arch, stands, voussoir)

INF = math.inf


# --- 1. one block ----------------------------------------------------------------------------------
@pytest.mark.parametrize("w, h, mu", [(1.0, 2.0, INF), (1.0, 2.0, 0.8), (0.5, 3.0, 0.4), (2.0, 1.0, INF),
                                      (1.0, 2.0, 0.3), (2.0, 1.0, 0.6), (3.0, 1.0, 1.5), (0.4, 0.5, 0.2)])
@pytest.mark.parametrize("direction", [1.0, -1.0])
def test_one_block_overturns_or_slides(w, h, mu, direction):
    blocks, joints = block_on_ground(w, h, mu, unit_weight=2.5)
    state = collapse_multiplier(blocks, joints, direction=direction)
    assert state.multiplier == pytest.approx(min(w / h, mu), rel=0, abs=1e-9)
    if w / h < mu:  # overturning: the thrust at the leeward corner, no sliding
        assert state.hinges == ((0, "q" if direction > 0 else "p"),) and state.sliding == ()
        corner = joints[0].q if direction > 0 else joints[0].p
        assert corner == (direction * w / 2, 0.0)
    else:
        assert state.sliding == (0,) and state.hinges == ()


def test_frictionless_block_and_vertical_live_loads():
    """mu = 0: no horizontal load is carried; a vertical live load +W lifts the block at lambda = 1
    (the joint opens); a downward one never collapses it (lambda unbounded)."""
    assert collapse_multiplier(*block_on_ground(1.0, 2.0, 0.0)).multiplier == 0.0
    blocks, joints = block_on_ground(1.0, 2.0)
    weight = blocks[0].weight
    up = collapse_multiplier(blocks, joints, live_load=[(0.0, weight)])
    assert up.multiplier == pytest.approx(1.0, abs=1e-9) and up.open == (0,)
    assert collapse_multiplier(blocks, joints, live_load=[(0.0, -weight)]).multiplier == INF


def test_a_block_leaning_out_of_its_base_cannot_stand():
    """Centroid (1.5, 1) beyond the base [0, 1]: no lambda = 0 equilibrium. Pushed back (-x) the
    feasible lambdas are an interval away from 0: the multiplier must still be None."""
    blocks = [polygon_block([(0, 0), (1, 0), (3, 2), (2, 2)])]
    joints = [Joint(0, None, (0.0, 0.0), (1.0, 0.0))]
    assert blocks[0].centroid == pytest.approx((1.5, 1.0)) and blocks[0].weight == pytest.approx(2.0)
    assert not stands(blocks, joints)
    for direction in (1.0, -1.0):
        state = collapse_multiplier(blocks, joints, direction=direction)
        assert state.multiplier is None and not state.stands
    assert stands(*block_on_ground(1.0, 2.0, 0.3))


# --- 2. two-block column ---------------------------------------------------------------------------
def column_multiplier(w1, h1, w2, h2, mu):
    """The closed form of the module docstring; returns (lambda, governing joint or None: sliding)."""
    W1, W2, c = w1 * h1, w2 * h2, min(w1, w2)
    limits = {1: c / h2, 0: (W1 + W2) * w1 / (W1 * h1 + W2 * (2 * h1 + h2))}
    joint = min(limits, key=limits.get)
    return (limits[joint], joint) if limits[joint] < mu else (mu, None)


@pytest.mark.parametrize("w1, h1, w2, h2, mu", [
    (1.0, 2.0, 1.0, 2.0, INF), (1.0, 2.0, 1.0, 2.0, 0.2), (1.0, 1.0, 1.0, 1.0, INF), (0.5, 1.0, 0.5, 1.0, 0.3),
    (1.2, 1.0, 0.6, 1.5, INF), (1.2, 1.0, 0.6, 1.5, 0.3), (0.8, 1.0, 1.2, 0.5, INF), (0.8, 1.0, 1.2, 0.5, 0.4)])
def test_two_block_column(w1, h1, w2, h2, mu):
    expected, joint = column_multiplier(w1, h1, w2, h2, mu)
    if (w1, h1) == (w2, h2):
        assert expected == pytest.approx(min(w1 / (2 * h1), mu), abs=1e-15)
    state = collapse_multiplier(*column([w1, w2], [h1, h2], mu))
    assert state.multiplier == pytest.approx(expected, rel=0, abs=1e-9)
    if joint is None:
        assert state.sliding == (0, 1) and state.hinges == ()
    else:
        assert state.hinges == ((joint, "q"),) and state.sliding == ()


def test_the_cases_cover_every_mechanism():
    """The parameter sets above include a top-block overturning, a whole-column one and sliding."""
    assert column_multiplier(1.2, 1.0, 0.6, 1.5, INF)[1] == 1
    assert column_multiplier(0.8, 1.0, 1.2, 0.5, INF)[1] == 0
    assert column_multiplier(0.8, 1.0, 1.2, 0.5, 0.4)[1] is None


# --- 3. minimum thickness of the semicircular arch -------------------------------------------------
RECORDED = {9: 0.10214, 15: 0.10627, 27: 0.10678, 51: 0.10738, 101: 0.10745}


def test_minimum_thickness_increases_towards_milankovitch():
    values = [minimum_thickness(n) for n in RECORDED]
    assert all(a < b for a, b in zip(values, values[1:])), values
    assert all(v < MILANKOVITCH + 1e-5 for v in values)
    assert abs(values[-1] - MILANKOVITCH) < 0.01 * MILANKOVITCH
    assert values == pytest.approx(list(RECORDED.values()), rel=0, abs=2e-5)


def sector(ri, ro, th0, th1):
    """Weight (unit weight 1) and centroid x of an annular sector: integrals of r dr dtheta."""
    area = (th1 - th0) * (ro**2 - ri**2) / 2
    return area, (ro**3 - ri**3) / 3 * (math.sin(th1) - math.sin(th0)) / area


def thrust_line_stands(n, ratio):
    """Independent test of standing for even n (a crown joint): by symmetry (mirror-average of any
    admissible state) a horizontal crown thrust H >= 0 at height y_c in [ri, ro]. Joint k at theta_k
    carries, onto the part above it, F = (-H, W_k); with M_k(r) the moment of H and the weights above
    about the joint point at radius r, the thrust crosses the joint within [ri, ro] iff M_k(ri) <= 0
    <= M_k(ro). Unknowns (H, m = H y_c): M_k(r) = -m + H r sin(th) + r cos(th) W_k - sum W_i x_i."""
    ri, ro = 1 - ratio / 2, 1 + ratio / 2
    theta = [k * math.pi / n for k in range(n // 2 + 1)]
    rows, rhs = [[ri, -1.0], [-ro, 1.0]], [0.0, 0.0]  # H ri <= m <= H ro
    for k in range(n // 2):
        parts = [sector(ri, ro, theta[i], theta[i + 1]) for i in range(k, n // 2)]
        weight, moment = sum(w for w, _ in parts), sum(w * x for w, x in parts)
        s, c = math.sin(theta[k]), math.cos(theta[k])
        rows.append([ri * s, -1.0]), rhs.append(moment - ri * c * weight)  # M_k(ri) <= 0
        rows.append([-ro * s, 1.0]), rhs.append(ro * c * weight - moment)  # -M_k(ro) <= 0
    res = linprog([0.0, 0.0], A_ub=rows, b_ub=rhs, bounds=[(0, None), (None, None)], method="highs")
    return res.status == 0


@pytest.mark.parametrize("n", [10, 20])
def test_minimum_thickness_matches_an_independent_thrust_line(n):
    lo, hi = 0.05, 0.2
    while hi - lo > 1e-5:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if thrust_line_stands(n, mid) else (mid, hi)
    assert minimum_thickness(n) == pytest.approx(hi, abs=2e-5)


# --- 4. the arch under a horizontal load -----------------------------------------------------------
def test_arch_stands_and_its_multiplier_falls_with_the_thickness():
    n = 27
    assert stands(*semicircular_arch(n, 0.15)) and not stands(*semicircular_arch(n, 0.09))
    ratios = [0.25, 0.20, 0.15, 0.12, 0.108]
    multipliers = [collapse_multiplier(*semicircular_arch(n, r)).multiplier for r in ratios]
    assert all(a > b > 0 for a, b in zip(multipliers, multipliers[1:])), multipliers
    assert multipliers[:3] == pytest.approx([0.40798, 0.28409, 0.14510], abs=1e-5)
    assert multipliers[-1] < 0.01  # 0.0046: just above t_min = 0.10678
    assert collapse_multiplier(*semicircular_arch(n, 0.106)).multiplier is None


def test_arch_hinges_form_a_mirrored_four_hinge_mechanism():
    n = 27
    blocks, joints = semicircular_arch(n, 0.15)
    right, left = (collapse_multiplier(blocks, joints, direction=d) for d in (1.0, -1.0))
    assert right.multiplier == pytest.approx(left.multiplier, abs=1e-9)
    assert len(right.hinges) == 4 and [e for _, e in right.hinges] == ["q", "p", "q", "p"]
    assert right.hinges[0] == (0, "q")  # the leeward springing, extrados
    assert sorted((n - j, e) for j, e in right.hinges) == sorted(left.hinges)


def test_voussoir_weight_and_centroid_match_a_fine_polygon():
    th = np.linspace(0.3, 0.7, 401)
    ring = [(r * math.cos(t), r * math.sin(t)) for r, angles in ((1.1, th), (0.9, th[::-1])) for t in angles]
    fine, exact = polygon_block(ring, 3.0), voussoir(1.0, 0.2, 0.3, 0.7, 3.0)
    assert exact.weight == pytest.approx(fine.weight, rel=1e-5)
    assert exact.centroid == pytest.approx(fine.centroid, rel=1e-6)


# --- 5. equilibrium of the LP's answer -------------------------------------------------------------
def cross(a, b):
    return a[0] * b[1] - a[1] * b[0]


def arch_frame(joint, n, k):
    """Radial joint k from intrados p to extrados q; normal into voussoir a (the one of larger angle,
    except at the last springing where a lies below)."""
    t = np.subtract(joint.q, joint.p) / np.linalg.norm(np.subtract(joint.q, joint.p))
    normal = np.array([-t[1], t[0]])
    return (-normal if k == n else normal), t


@pytest.mark.parametrize("case", ["arch", "arch_friction", "column", "block"])
def test_returned_forces_balance_every_block(case):
    if case.startswith("arch"):
        n = 27
        blocks, joints = semicircular_arch(n, 0.15, mu=0.5 if case == "arch_friction" else INF)
        frames = [arch_frame(j, n, k) for k, j in enumerate(joints)]
    else:
        blocks, joints = column([1.0, 0.6], [1.5, 1.0], 0.4) if case == "column" else block_on_ground(1.0, 2.0, 0.3)
        frames = [(np.array([0.0, 1.0]), np.array([1.0, 0.0]))] * len(joints)
    live = horizontal_live_load(blocks, -1.0)
    state = collapse_multiplier(blocks, joints, live_load=live)
    assert state.multiplier > 0
    force = np.array([[0.0, -b.weight] for b in blocks]) + state.multiplier * live
    moment = np.array([cross(b.centroid, f) for b, f in zip(blocks, force)])
    total = sum(b.weight for b in blocks)
    for joint, (normal, tangent), N, S in zip(joints, frames, state.normal, state.shear):
        assert np.all(N >= -1e-9 * total)
        if joint.mu < INF:
            assert np.all(np.abs(S) <= joint.mu * N + 1e-9 * total)
        for point, n_k, s_k in zip((joint.p, joint.q), N, S):
            f = n_k * normal + s_k * tangent
            for block, sign in ((joint.a, 1.0), (joint.b, -1.0)):
                if block is not None:
                    force[block] += sign * f
                    moment[block] += sign * cross(point, f)
    assert np.abs(force).max() < 1e-9 * total and np.abs(moment).max() < 1e-9 * total


def test_an_assembly_of_polygons_is_its_own_limit_analysis():
    """of_assembly: the builder's arch on held abutments stands from the sectors' minimum thickness within
    0.2 % (its voussoirs are quadrangles, their area short by 1 - sin(x)/x); on the slab's t-square
    abutments, free blocks, it needs t/R 0.136: the abutments tip under the thrust first. A held body is
    the ground whatever its name; its joints are labelled as the pairs fem.problem.Contact finds."""
    from meshes.assemblies import arch

    blocks, joints, names, labels = la.of_assembly(arch(15, 1.0, 0.12, base=False), 0.8)
    assert names == [f"VOUSSOIR_{k}" for k in range(1, 16)] and len(joints) == 16
    assert "VOUSSOIR_1/ABUTMENT_L" in labels and sum(j.b is None for j in joints) == 2
    held = la.thinnest(lambda r: la.of_assembly(arch(15, 1.0, r, base=False), 0.8), bracket=(0.05, 0.3))
    assert held == pytest.approx(la.minimum_thickness(15, mu=0.8), rel=0.002)
    on_slab = la.thinnest(lambda r: la.of_assembly(arch(15, 1.0, r), 0.8), bracket=(0.05, 0.3))
    assert on_slab == pytest.approx(0.1359, abs=2e-4)
