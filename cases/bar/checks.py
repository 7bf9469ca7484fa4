"""What a bar-impact run (cases/bar_impact.py) is checked against: the closed forms of its two set-ups
(:func:`exact`, :func:`exact_stress`, :func:`sample_times`), the quantities measured from its histories
(:func:`measure`: the contacts, the rebound, the energies, the contact stress's L2 error) and the check
rows with their tolerances (:func:`checks`, :func:`energy_claim`). ``cfg`` is the run's resolved
configuration (``cases.bar.config.Config``)."""
from __future__ import annotations

import math

import numpy as np

SAFE_RELEASE = "delayed"  # the release rule that never creates energy, used by auto with the redistributed mass
MERGE = 0.5  # contacts closer than MERGE L / c are one contact
CONTACT_THRESHOLD = 1e-9  # compressive contact stress above this fraction of the reference: in contact
# tolerances of the checks (cases/bar_impact.py's docstring; tests/test_bar_impact.py holds the runs to the same)
ENERGY_GAIN_TOL = 1e-8  # round-off of the energy identity over a few thousand steps (measured 1e-14)
REBOUND_TOL, STRESS_TOL = 0.02, 0.05
L2_TOL, FINAL_ENERGY_TOL = 0.25, 0.04


# ----------------------------------------------------------------------------------- exact solutions
def exact(cfg: Config) -> dict:
    """Closed-form values of the set-up (docs/references.md: the elastic bar against a rigid wall, the
    periodic bar with a unilateral end) [SI]."""
    c, L, A = cfg.c, cfg.length, cfg.area
    if cfg.setup == "wall":
        t0 = cfg.gap / cfg.velocity
        return {"contact_start": t0, "contact_duration": 2 * L / c, "contact_end": t0 + 2 * L / c,
                "mean_contact_stress": cfg.rho * c * cfg.velocity, "rebound_velocity": cfg.velocity,
                "initial_energy": 0.5 * cfg.rho * A * L * cfg.velocity**2, "energy_ratio": 1.0, "wave_speed": c}
    return {"contact_start": L / c, "contact_duration": L / c, "period": 3 * L / c,
            "mean_contact_stress": 0.5 * cfg.young, "rebound_velocity": 0.5 * c,
            "initial_energy": cfg.young * A * L / 8.0, "energy_ratio": 1.0, "wave_speed": c,
            "end_displacement_initial": 0.5 * L}


def exact_stress(cfg: Config, t: np.ndarray) -> np.ndarray:
    """Exact contact stress sigma(0, t) (compressive positive) [Pa] at the times t (n,)."""
    t = np.asarray(t, dtype=float)
    ex = exact(cfg)
    if cfg.setup == "wall":
        on = (t > ex["contact_start"]) & (t < ex["contact_end"])
        return np.where(on, ex["mean_contact_stress"], 0.0)
    phase = np.mod(t / cfg.transit, 3.0)
    return np.where((phase > 1.0) & (phase < 2.0), 0.5 * cfg.young, 0.0)


def sample_times(cfg: Config) -> list[float]:
    """The instants where energy_after_contacts is read (cases/bar_impact.py's docstring), up to t_end."""
    if cfg.setup == "wall":
        times = [exact(cfg)["contact_end"] + cfg.transit]
    else:
        times = [(3 * k + 2.5) * cfg.transit for k in range(int(cfg.t_end / (3 * cfg.transit)) + 1)]
    return [t for t in times if t <= cfg.t_end * (1 + 1e-12)]


# ----------------------------------------------------------------------------------- post-processing
def contacts_of(t: np.ndarray, sigma: np.ndarray, cfg: Config) -> list[dict]:
    """The contacts of a stress history (cases/bar_impact.py's docstring): start, end, duration [s], mean stress
    [Pa], steps."""
    threshold = CONTACT_THRESHOLD * exact(cfg)["mean_contact_stress"]
    idx = np.flatnonzero(sigma > threshold)
    if not idx.size:
        return []
    groups = np.split(idx, np.flatnonzero(np.diff(t[idx]) > MERGE * cfg.transit) + 1)
    out = []
    for g in groups:
        first, last = int(g[0]), int(g[-1])
        start = float(t[first - 1]) if first > 0 else float(t[0])
        out.append({"start": start, "end": float(t[last]), "duration": float(t[last]) - start,
                    "mean_stress": float(sigma[first:last + 1].mean()), "steps": last - first + 1})
    return out


def nearest(t: np.ndarray, when: float) -> int:
    return int(np.argmin(np.abs(t - when)))


def measure(cfg: Config, h: dict) -> dict:
    """The summary quantities (cases/bar_impact.py's docstring) from the histories ``h`` (arrays)."""
    t, sigma, total = h["t"], h["contact_stress"], h["total_energy"]
    e0 = float(total[0])
    contacts = contacts_of(t, sigma, cfg)
    first = contacts[0] if contacts else None
    rebound = None
    if cfg.setup == "wall":
        acting = np.flatnonzero(np.abs(sigma) > CONTACT_THRESHOLD * exact(cfg)["mean_contact_stress"])
        if acting.size and acting[-1] + 1 < t.size:
            rebound = float(h["v_bar"][acting[-1] + 1:].mean())
    elif first is not None:
        window = (t >= first["end"] + 0.25 * cfg.transit) & (t <= first["end"] + 0.75 * cfg.transit)
        if window.any():
            rebound = float(h["v_end"][window].mean())
    ex_sigma = exact_stress(cfg, t)
    norm = float(np.sum(ex_sigma**2))
    l2 = math.sqrt(float(np.sum((sigma - ex_sigma) ** 2)) / norm) if norm > 0 else None
    samples = sample_times(cfg)
    after = [float(total[nearest(t, s)] / e0) for s in samples] if e0 > 0 else []
    stress_steps = np.concatenate([sigma[np.flatnonzero((t >= c["start"]) & (t <= c["end"]))[1:]]
                                   for c in contacts]) if contacts else np.zeros(0)
    return {
        "contact_start": first["start"] if first else None,
        "contact_duration": first["duration"] if first else None,
        "mean_contact_stress": float(stress_steps.mean()) if stress_steps.size else None,
        "rebound_velocity": rebound,
        "initial_energy": e0,
        "max_energy_ratio": float(total.max() / e0) if e0 > 0 else None,
        "final_energy_ratio": float(total[-1] / e0) if e0 > 0 else None,
        "contact_stress_l2_error": l2,
        "energy_after_contacts": after,
        "energy_after_contacts_times": [float(t[nearest(t, s)]) for s in samples],
        "contacts": contacts,
        "min_contact_stress": float(sigma.min()),
        "max_contact_stress": float(sigma.max()),
    }


def check_row(quantity: str, value, reference: float, tolerance: float | None, kind: str, source: str,
              note: str = "") -> dict:
    """One ``checks`` row. kind: "absolute" |value - reference| <= tolerance; "relative" the same
    over |reference|; "at most" value <= reference + tolerance. passed is None (no verdict) without
    a tolerance or a value."""
    if value is None or not math.isfinite(value):
        error = rel = None
    else:
        error = abs(value - reference)
        rel = error / abs(reference) if reference != 0 else error
    passed = None
    if tolerance is not None and error is not None:
        passed = bool({"absolute": error <= tolerance, "relative": rel <= tolerance,
                       "at most": value <= reference + tolerance}[kind])
    row = {"quantity": quantity, "value": value, "reference": reference, "error": error, "rel_error": rel,
           "tolerance": tolerance, "kind": kind, "passed": passed, "source": source}
    if note:
        row["note"] = note
    return row


def energy_claim(cfg: Config) -> tuple[bool, str]:
    """Whether the energy identity guarantees no energy gain for this run, and why (not)."""
    if cfg.method in ("lagrange", "augmented") and cfg.mass == "redistributed" and cfg.release == SAFE_RELEASE \
            and cfg.scheme == "newmark":
        return True, "redistributed mass, delayed release, trapezoidal rule: every step has [E] <= 0"
    if cfg.release == "immediate":
        return False, "no claim: the immediate release creates energy at openings (contact/multipliers.py)"
    if cfg.method == "penalty":
        return False, "no claim: the trapezoidal rule does not conserve the energy of a piecewise-linear spring"
    if cfg.method == "theta":
        return False, "no claim: theta = 1/2 conserves smooth motion; the impacts dissipate"
    return False, "no claim for this scheme / mass / release"


def checks(cfg: Config, m: dict, ex: dict) -> list[dict]:
    wave_ok = cfg.poisson == 0.0
    wave_note = "" if wave_ok else f"--poisson {cfg.poisson:g}: the strip is not a 1-D bar, shown without a verdict"
    src1 = "1-D wave theory (docs/references.md)"
    src2 = "Dabaghi et al. 2014 (docs/references.md)"
    rows = []
    claim, why = energy_claim(cfg)
    rows.append(check_row("max energy ratio (total / initial)", m["max_energy_ratio"], 1.0,
                          ENERGY_GAIN_TOL if claim else None, "at most",
                          "energy identity (contact/multipliers.py)", why))
    start_tol = cfg.dt
    duration_tol = 2 * cfg.dt + cfg.h / cfg.c
    if cfg.setup == "wall":
        rows += [
            check_row("contact start [s]", m["contact_start"], ex["contact_start"], start_tol, "absolute",
                      "rigid flight: gap / V", "tolerance dt (the step over which contact begins)"),
            check_row("contact duration [s]", m["contact_duration"], ex["contact_duration"],
                      duration_tol if wave_ok else None, "absolute", src1,
                      wave_note or "tolerance 2 dt + h/c (the steps at both ends, one element transit)"),
            check_row("rebound velocity [m/s]", m["rebound_velocity"], ex["rebound_velocity"],
                      REBOUND_TOL if wave_ok else None, "relative", src1, wave_note),
            check_row("mean contact stress [Pa]", m["mean_contact_stress"], ex["mean_contact_stress"],
                      STRESS_TOL if wave_ok else None, "relative", src1, wave_note),
        ]
    else:
        rows += [
            check_row("final energy ratio", m["final_energy_ratio"], 1.0, FINAL_ENERGY_TOL if wave_ok else None,
                      "relative", src2, wave_note or "the discrete scheme loses energy at each contact"),
            check_row("contact stress L2 error", m["contact_stress_l2_error"], 0.0, L2_TOL if wave_ok else None,
                      "at most", src2, wave_note or "relative L2 error of sigma(0, t) over the step times"),
        ]
    return rows
