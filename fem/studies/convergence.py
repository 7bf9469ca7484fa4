"""The measures of a convergence study in the time step or the mesh, on the sequences of values of its
levels (finest last): differences, their ratios, observed orders, Richardson estimates, the convergence
criterion and its tolerances, whether the levels make the same impacts, whether a level creates energy.
Pure functions of numbers; the definitions and their reasons are in docs/convergence.md (a study of
SDNV105's impacts: cases/convergence.py)."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

QUANTITIES = {"instant": ("time", "t", "s"), "ke_before": ("ke_before", "KE", "J")}
CONTRACTION = 0.6  # |d_last| <= CONTRACTION |d_prev|
INSTANT_TOLERANCE = 3e-4  # s: both differences below it
KE_TOLERANCE = 0.02  # of the finest level's value: both differences below it
ROUND_OFF = 1e-6  # of the potential-energy drop: energy creation beyond round-off
MATCH_WINDOW = 0.01  # s: two levels' impacts within it are the same impact (detect_impacts merges chatter within it)


def as_array(values) -> np.ndarray:
    """``values`` as an array of floats, NaN for a missing value (None)."""
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def differences(values) -> np.ndarray:
    """d_j = P_{j+1} - P_j (NaN where a value is missing)."""
    return np.diff(as_array(values))


def difference_ratios(values) -> np.ndarray:
    """|d_{j+1}| / |d_j| for the successive differences of ``values`` (NaN where d_j = 0 or missing)."""
    d = np.abs(differences(values))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(d[:-1] > 0, d[1:] / np.where(d[:-1] > 0, d[:-1], 1.0), np.nan)


def _order_of_three(a: float, b: float, h0: float, h1: float, h2: float) -> float:
    """p with |d_0| / |d_1| = a / b for P = P* + C h^p sampled at h0 > h1 > h2."""
    r0, r1 = h0 / h1, h1 / h2
    if math.isclose(r0, r1, rel_tol=1e-9):
        return math.log(a / b) / math.log(r0)
    l0, l1 = math.log(r0), math.log(r1)

    def log_g(p):  # log((h0^p - h1^p) / (h1^p - h2^p)), continuous through p = 0
        if p == 0.0:
            return math.log(l0 / l1)
        return p * l1 + math.log(math.expm1(p * l0) / math.expm1(p * l1))

    target = math.log(a / b)
    lo, hi = -30.0, 30.0
    f_lo, f_hi = log_g(lo) - target, log_g(hi) - target
    if f_lo * f_hi > 0:  # beyond |p| = 30: no meaningful order
        return math.inf if f_hi < 0 else -math.inf
    for _ in range(200):  # bisection: log_g is increasing in p
        mid = 0.5 * (lo + hi)
        f_mid = log_g(mid) - target
        if f_mid == 0 or hi - lo < 1e-13:
            return mid
        lo, f_lo, hi = (mid, f_mid, hi) if f_mid * f_lo > 0 else (lo, f_lo, mid)
    return 0.5 * (lo + hi)


def observed_orders(values, h) -> np.ndarray:
    """Observed order p_j of each three successive levels j, j+1, j+2 (h decreasing; cases/convergence.py's
    docstring). NaN where a value or h is missing or h does not decrease, or a difference is zero
    and the other not (+inf when d_{j+1} = 0 alone: the sequence stopped moving; -inf when d_j = 0
    alone)."""
    v, h = as_array(values), as_array(h)
    d = np.diff(v)
    out = np.full(max(v.size - 2, 0), np.nan)
    for j in range(out.size):
        a, b = abs(d[j]), abs(d[j + 1])
        h0, h1, h2 = h[j:j + 3]
        if not (np.all(np.isfinite([a, b, h0, h1, h2])) and h0 > h1 > h2 > 0) or a == b == 0:
            continue
        out[j] = math.inf if b == 0 else -math.inf if a == 0 else _order_of_three(a, b, h0, h1, h2)
    return out


def richardson(values, h, orders=None) -> np.ndarray:
    """Richardson estimate of the converged value from each three successive levels (an estimate:
    P* ~ P_{j+2} + d_{j+1} / ((h_{j+1}/h_{j+2})^p - 1)), NaN unless the observed order p is positive
    and finite and both differences have the same sign; P_{j+2} itself when the last difference is 0."""
    v, h = as_array(values), as_array(h)
    p = observed_orders(v, h) if orders is None else as_array(orders)
    d = np.diff(v)
    out = np.full(p.size, np.nan)
    for j in range(p.size):
        if p[j] == math.inf and d[j + 1] == 0:
            out[j] = v[j + 2]
        elif np.isfinite(p[j]) and p[j] > 0 and d[j] * d[j + 1] > 0:
            out[j] = v[j + 2] + d[j + 1] / ((h[j + 1] / h[j + 2]) ** p[j] - 1.0)
    return out


def criterion(values, tolerance: float, contraction: float = CONTRACTION) -> dict:
    """The issue's criterion on the three last (finest) values: converged when |d_last| <=
    contraction |d_prev|, or when |d_prev| and |d_last| are both below ``tolerance`` (absolute,
    in the quantity's unit). ``converged`` None with fewer than three values; False when one of
    the three is missing."""
    v = as_array(values)
    if v.size < 3:
        return {"converged": None, "d_prev": None, "d_last": None, "ratio": None, "tolerance": tolerance,
                "reason": "three levels are needed"}
    last = v[-3:]
    if not np.all(np.isfinite(last)):
        return {"converged": False, "d_prev": None, "d_last": None, "ratio": None, "tolerance": tolerance,
                "reason": "missing at one of the three finest levels"}
    d_prev, d_last = float(last[1] - last[0]), float(last[2] - last[1])
    ratio = abs(d_last) / abs(d_prev) if d_prev != 0 else (0.0 if d_last == 0 else math.inf)
    contracting = abs(d_last) <= contraction * abs(d_prev)
    small = abs(d_prev) < tolerance and abs(d_last) < tolerance
    if contracting:
        reason = f"|d_last| = {abs(d_last):.3g} <= {contraction:g} |d_prev| = {contraction * abs(d_prev):.3g}"
    elif small:
        reason = f"|d_prev| = {abs(d_prev):.3g} and |d_last| = {abs(d_last):.3g} both below {tolerance:.3g}"
    else:
        reason = (f"|d_last| = {abs(d_last):.3g} > {contraction:g} |d_prev| = {contraction * abs(d_prev):.3g}"
                  f"{'' if abs(d_last) < tolerance and abs(d_prev) < tolerance else f', not both below {tolerance:.3g}'}")
    return {"converged": bool(contracting or small), "d_prev": d_prev, "d_last": d_last, "ratio": ratio,
            "tolerance": tolerance, "contracting": bool(contracting), "below_tolerance": bool(small), "reason": reason}


def tolerance_of(quantity: str, values) -> float:
    """The criterion's absolute threshold: 0.3 ms for the instant, 2 % of |finest value| for KE."""
    if quantity == "instant":
        return INSTANT_TOLERANCE
    finest = as_array(values)[-1] if len(values) else math.nan
    return KE_TOLERANCE * abs(finest) if np.isfinite(finest) else math.nan


def same_impacts(sequences: Sequence[Sequence[tuple[float, str]]], labels: Sequence[str],
                 t_end: float | None = None, window: float = MATCH_WINDOW) -> dict:
    """Whether every level makes the same impacts: ``sequences[j]`` is level j's list of (instant,
    corner); each is matched against the last (finest) level, impact by impact within ``window``
    seconds. Impacts later than ``t_end - window`` are left out (at another level they may fall
    after the end). Returns ``same`` (bool), per-level ``counts`` and ``corners`` (e.g. "AOAO"), and
    ``differences``: one sentence per bounce missing or extra at a level, and per corner that differs."""
    cut = math.inf if t_end is None else t_end - window
    seqs = [[(float(t), str(c)) for t, c in s if t <= cut] for s in sequences]
    out = {"same": True, "counts": [len(s) for s in seqs], "corners": ["".join(c for _, c in s) for s in seqs],
           "left_out_after": None if t_end is None else cut, "differences": []}
    if not seqs:
        return out
    ref, ref_label = seqs[-1], labels[-1]
    for seq, label in zip(seqs[:-1], labels[:-1]):
        used: set[int] = set()
        for t, c in seq:
            free = [(abs(t - tr), i) for i, (tr, _) in enumerate(ref) if i not in used and abs(t - tr) <= window]
            if not free:
                out["differences"].append(f"{label}: an impact at {t:.5f} s on {c} that {ref_label} does not make")
                continue
            i = min(free)[1]
            used.add(i)
            if ref[i][1] != c:
                out["differences"].append(f"{label}: the impact at {t:.5f} s is on {c}, on {ref[i][1]} at "
                                          f"{ref_label} ({ref[i][0]:.5f} s)")
        for i, (tr, cr) in enumerate(ref):
            if i not in used:
                out["differences"].append(f"{label}: no impact near {tr:.5f} s, where {ref_label} has one on {cr}")
    out["same"] = (not out["differences"] and len(set(out["counts"])) == 1 and len(set(out["corners"])) == 1)
    if out["same"] is False and not out["differences"]:  # matched pairwise yet different sequences
        out["differences"].append("the corner sequences differ: " + ", ".join(
            f"{lab} {cor or '-'}" for lab, cor in zip(labels, out["corners"])))
    return out


def energy_creation(ke_max: float | None, potential_drop: float | None, contact_work: float | None,
                    friction_work: float | None = None, numerical_dissipation: float | None = None,
                    round_off: float = ROUND_OFF, initial_energy: float | None = None,
                    damping: float | None = None) -> dict:
    """Whether a level creates energy: its largest kinetic energy after the release exceeds every
    energy the run started with, the potential-energy drop plus ``initial_energy`` (the strain and
    kinetic energy at the release [J]; None: 0, a level whose summary does not say), by more than
    ``round_off`` of the drop, or one of its books of energy taken (contact, friction, time scheme)
    is below -round_off x drop. ``created`` None when the level has no drop to compare with.

    ``damping`` (the damping's book [J]): the time scheme's book is judged with it. A dissipative scheme
    (HHT, gamma = 1/2 - alpha > 1/2) and a stiffness-proportional damping take the same high frequencies
    an impact excites, and the books split what they take by a convention: the damping's book is the
    trapezoidal work of C v with the scheme's v, the scheme's what is left. With SDNV105's damping, HHT
    -0.1 at 1.25e-5 s books -0.545 J for the scheme in the first impact's step, +1.95 J for the damping;
    without the damping (--amor-alpha 0 --table-amor-alpha 0, 2.5e-5 s) the same scheme books +4.54 J
    over the run and the block's energy falls at every impact (docs/convergence.md)."""
    if potential_drop is None or not potential_drop > 0:
        return {"created": None, "reasons": ["no potential-energy drop"]}
    reasons = []
    start = max(initial_energy or 0.0, 0.0)
    if ke_max is not None and ke_max > potential_drop * (1 + round_off) + start:
        reasons.append(f"kinetic energy {ke_max:.6g} J > potential-energy drop {potential_drop:.6g} J"
                       + (f" + energy at the release {start:.4g} J" if start else ""))
    scheme = ("time scheme's dissipation", numerical_dissipation)
    if damping is not None and numerical_dissipation is not None:
        scheme = ("time scheme's dissipation and the damping's together", numerical_dissipation + damping)
    for book, value in (("contact work", contact_work), ("friction work", friction_work), scheme):
        if value is not None and value < -round_off * potential_drop:
            reasons.append(f"{book} {value:.4g} J < 0 (energy given back)")
    return {"created": bool(reasons), "reasons": reasons}


def initial_energy(summary: dict | None) -> float | None:
    """Strain and kinetic energy [J] of a level's model at the release, from its summary.json:
    ``energy.initial_energy``, or for a summary written before it, the strain energy the tilt left
    (``tilt.strain_energy_end``, the block at rest). None when neither is there."""
    s = summary or {}
    e = s.get("energy") or {}
    if e.get("initial_energy") is not None:
        return float(e["initial_energy"])
    tilt = s.get("tilt") or {}
    return None if tilt.get("strain_energy_end") is None else float(tilt["strain_energy_end"])
