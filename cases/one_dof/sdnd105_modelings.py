"""SDND105's modelings and what a run of cases/sdnd105.py is checked against: the parameters of a run
(:class:`Sdnd105Config`) and of each modeling's benchmark (:func:`default_config`), the flags that make a run
depart from it (:func:`departures`), the reference values
(:func:`references`: Code_Aster's tests and the derived ones, a :func:`check` row each), and the
undamped closed form for any parameters (:class:`ClosedForm`, :func:`closed_form_checks`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq

from contact.buckling import BucklingLaw

MODELINGS = ("a", "b", "c", "d")
T_RETURN = math.pi / 6 + 2 * math.sqrt(3.0) + (math.pi + 6) / math.sqrt(2.0)  # a, b: back at x = 0


@dataclass(frozen=True)
class Sdnd105Config:
    """Every parameter of a run (SI). ``two_masses``: modeling b's BI_PLAN layout."""

    modeling: str
    mass: float = 1.0
    v0: float = 2.0
    kn: float = 1.0
    f_crit: float = 1.0
    f_post: float = 0.5
    plateau: float = 0.0
    fall: float = 0.0
    depl_post: tuple[float, ...] = ()
    rigi_post: tuple[float, ...] = ()
    amor_nor: float = 0.0
    amor_fl: float | None = None
    amor_post: tuple[float, ...] | None = None
    crit_amor: str = "INCLUS"
    dt: float = 1e-3
    dt_fine: float = 1e-4
    fine_window: tuple[float, float] = (0.0, 0.0)
    t_end: float = 12.0
    two_masses: bool = False

    def law(self) -> BucklingLaw:
        return BucklingLaw(self.kn, self.f_crit, self.f_post, self.plateau, self.fall, self.depl_post,
                           self.rigi_post, self.amor_nor, self.amor_fl, self.amor_post, self.crit_amor)


def default_config(modeling: str) -> Sdnd105Config:
    """The reference parameters of a modeling (docs/references.md, "SDND105")."""
    if modeling == "a":
        return Sdnd105Config("a", dt=1e-3, dt_fine=1e-4, fine_window=(0.4, 0.7), t_end=12.0)
    if modeling == "b":
        return Sdnd105Config("b", kn=0.5, dt=1e-3, dt_fine=2e-5, fine_window=(0.45, 0.6), t_end=12.0,
                             two_masses=True)
    if modeling in ("c", "d"):
        c = Sdnd105Config("c", v0=2.828427125, plateau=1.0, fall=1.0, depl_post=(2.0, 3.0, 4.0, 5.0),
                          rigi_post=(0.2, 0.15, 0.125, 0.1), dt=1e-3, t_end=9.0)
        if modeling == "c":
            return c
        return replace(c, modeling="d", amor_nor=10.0, amor_fl=5.0, amor_post=(5.0, 5.0, 5.0, 5.0))
    raise ValueError(f"unknown modeling {modeling!r}; choose from {MODELINGS}")


# ------------------------------------------------------------------------------ references
@dataclass(frozen=True)
class Reference:
    quantity: str  # summary key
    value: float
    tolerance: float
    criterion: str  # "RELATIF" or "ABSOLU"
    source: str
    aster_value: float | None = None  # Code_Aster's own result (VALE_CALC), when it tests the quantity


def references(config: Sdnd105Config) -> list[Reference]:
    """Reference values of a modeling (docs/references.md, "SDND105"; code_aster_tests.json for VALE_CALC).
    Code_Aster's tolerances; 'derived' rows follow from the seed's analytic chain."""
    m = config.modeling
    aster = "Code_Aster sdnd105{} ANALYTIQUE {}"
    if m == "a":
        return [
            Reference("t_buckle", math.pi / 6, 1e-3, "RELATIF", aster.format(m, "INST_FLAMB"), 0.523895026469),
            Reference("residual_crush", 3.0, 1e-3, "RELATIF", aster.format(m, "ECRAS_RESI"), 2.99863402847),
            Reference("dx_at_return_time", 0.0, 3e-3, "ABSOLU", aster.format(m, f"DX(N02) at t0 = {T_RETURN:.10g} s"),
                      -0.00205677193395),
            Reference("max_compression", 4.0, 1e-3, "RELATIF", "derived (seed 2.1.2: d_m = 1 + 3)"),
            Reference("rebound_velocity", -1.0 / math.sqrt(2.0), 1e-3, "RELATIF",
                      "derived (seed 2.1.4: v_d = omega_2 (d_m - d_p) = 1/sqrt(2), moving back)"),
        ]
    if m == "b":
        return [
            Reference("t_buckle", math.pi / 6, 1e-4, "RELATIF", aster.format(m, "INST_FLAMB (N02)"), 0.523599775598),
            Reference("residual_crush", 3.0, 1e-4, "RELATIF", aster.format(m, "ECRAS_RESI (N03)"), 3.00000741241),
            Reference("dx_at_return_time", 0.0, 1e-4, "ABSOLU", aster.format(m, f"DX(N02) at t0 = {T_RETURN:.10g} s"),
                      7.4534998622e-06),
            Reference("max_compression", 4.0, 1e-4, "RELATIF", "derived (per mass, as a)"),
            Reference("rebound_velocity", -1.0 / math.sqrt(2.0), 1e-4, "RELATIF", "derived (per mass, as a)"),
        ]
    if m == "c":
        return [
            Reference("max_compression", 6.5, 1e-3, "RELATIF", aster.format(m, "max DX(N02)"), 6.499347748088694),
            Reference("residual_crush", 3.1, 1e-3, "RELATIF", aster.format(m, "ECRAS_RESI"), 3.099608661584928),
            Reference("rebound_velocity", -1.303840481, 3e-3, "RELATIF", aster.format(m, "VX(N02) at 9 s"),
                      -1.302827092772978),
            Reference("t_buckle", math.asin(1.0 / 2.828427125), 1e-3, "RELATIF",
                      "derived (p = v0 sin t reaches F_crit/K = 1)"),
        ]
    if m == "d":  # non-regression in Code_Aster (explicit modal scheme): its value is the reference here
        src = "Code_Aster sdnd105d NON_REGRESSION value, CRIT_AMOR={} ({})"
        if config.crit_amor == "INCLUS":
            return [Reference("residual_crush", 2.544849276272065, 1e-3, "RELATIF",
                              src.format("INCLUS", "ECRAS_RESI"), 2.544849276272065),
                    Reference("rebound_velocity", -0.097283454062147, 5e-3, "RELATIF",
                              src.format("INCLUS", "VX(N02) at 9 s"), -0.097283454062147)]
        return [Reference("rebound_velocity", -0.02620966562606413, 5e-3, "RELATIF",
                          src.format("EXCLUS", "VX(N02) at 9 s"), -0.02620966562606413)]
    return []


def check(value: float | None, ref: Reference, note: str = "") -> dict:
    """A check row: rel_error is |value - ref| / |ref| (absolute error when the reference is 0,
    Code_Aster's ABSOLU criterion); passed is None when there is no value to grade."""
    if value is None or not math.isfinite(value):
        rel, passed = None, None
    else:
        err = abs(value - ref.value)
        rel = err / abs(ref.value) if ref.value != 0 else err
        passed = bool(rel <= ref.tolerance)
    row = {"quantity": ref.quantity, "value": value, "reference": ref.value, "rel_error": rel,
           "tolerance": ref.tolerance, "criterion": ref.criterion, "passed": passed,
           "source": ref.source, "aster_value": ref.aster_value}
    if note:
        row["note"] = note
    return row


# ------------------------------------------------------------------------------ closed form
@dataclass(frozen=True)
class ClosedForm:
    """The undamped motion for any parameters (the analytic chain of the reference, generalised).

    Relative coordinate p (the penetration; b: the relative crush of the two masses, reduced mass
    M/2 and approach speed 2 v0), energy E = mu V^2 / 2:

    * elastic until p1 = F_crit/K: p = (V/w) sin(w t), w = sqrt(K/mu); buckling at
      t_buckle = asin(p1 w / V)/w when V/w > p1 (else no buckling: p_max = V/w, elastic bounce);
    * loading on the envelope to p_max with envelope_work(p_max) = E (energy balance), the time to
      it by quadrature of dp / v(p) on each linear piece of the envelope;
    * unloading on the line of stiffness k_u(p_max) to the residual crush r(p_max): a quarter
      period pi/(2 w_u), w_u = sqrt(k_u/mu), leaving at V_r = (p_max - r) w_u (the released
      energy); then free flight, back at x = 0 (a, b) r/V_r later.

    Per-mass values (``share`` = 1/2 for b) are what the summary reports. With damping there is
    no closed form (``applies`` is False).
    """

    config: Sdnd105Config

    @property
    def applies(self) -> bool:
        law = self.config.law()
        return law.damping == 0 and not np.any(law.damping_table > 0)

    @property
    def share(self) -> float:
        return 0.5 if self.config.two_masses else 1.0

    @property
    def reduced_mass(self) -> float:
        return self.config.mass * self.share

    @property
    def approach_speed(self) -> float:
        return self.config.v0 / self.share

    def solve(self) -> dict:
        """t_buckle (None without buckling), max_compression, residual_crush, rebound speed (per
        mass), the instants of the maximum, of separation and of the return to x = 0 [s]."""
        law, mu, V = self.config.law(), self.reduced_mass, self.approach_speed
        energy = 0.5 * mu * V * V
        K, p1 = law.stiffness, law.p1
        w = math.sqrt(K / mu)
        force = lambda p: float(law.envelope(p)[0])  # noqa: E731
        if V / w <= p1:
            t_buckle, p_max, t_max = None, V / w, 0.5 * math.pi / w
        else:
            t_buckle = math.asin(p1 * w / V) / w
            hi = law.d1 + energy / law.post_force + p1  # envelope_work(hi) > energy
            p_max = brentq(lambda p: float(law.envelope_work(p)) - energy, p1, hi, xtol=1e-14 * hi, rtol=1e-15)
            edges = [p1, *sorted({b for b in (law.d0, law.d1) if p1 < b < p_max}), p_max]
            t_max = t_buckle
            for a, b in zip(edges[:-1], edges[1:]):
                if b < p_max:  # speed bounded away from 0
                    t_max += quad(lambda p: 1.0 / math.sqrt(max(V * V - 2 * float(law.envelope_work(p)) / mu,
                                                                1e-300)), a, b, epsabs=0.0, epsrel=1e-12)[0]
                else:  # p = p_max - s^2 on a linear piece: v = s sqrt((F(p) + F(p_max))/mu), no singularity
                    t_max += quad(lambda s: 2.0 / math.sqrt((force(p_max - s * s) + force(p_max)) / mu), 0.0,
                                  math.sqrt(p_max - a), epsabs=0.0, epsrel=1e-12)[0]
        r = float(law.residual(p_max)[0])
        w_u = math.sqrt(float(law.unloading_stiffness(p_max)) / mu)
        t_sep = t_max + 0.5 * math.pi / w_u
        v_r = (p_max - r) * w_u
        return {"t_buckle": t_buckle, "max_compression": self.share * p_max, "residual_crush": self.share * r,
                "rebound_speed": self.share * v_r, "max_compression_time": t_max, "separation_time": t_sep,
                "return_time": t_sep + r / v_r, "unloading_omega": w_u}

    @staticmethod
    def velocity(solution: dict, t: float) -> float | None:
        """Velocity of mass N02 at t >= the maximum compression (None before it): harmonic
        unloading, then free flight at the rebound speed (moving back: negative)."""
        t_max = solution["max_compression_time"]
        if t < t_max:
            return None
        phase = min(solution["unloading_omega"] * (t - t_max), 0.5 * math.pi)
        return -solution["rebound_speed"] * math.sin(phase)


def closed_form_checks(config: Sdnd105Config, summary: dict, solution: dict) -> tuple[list[dict], list[str]]:
    """Checks of a custom configuration against the closed form for its own parameters, for the
    quantities the modeling's references test and the run covers (tolerances of the modeling's
    references). Returns the rows and notes on the quantities left out."""
    tolerances = {r.quantity: (r.tolerance, r.criterion) for r in references(default_config(config.modeling))}
    source = "closed form, this run's parameters"
    t_end = config.t_end * (1 + 1e-12)
    rows, notes = [], []

    def add(quantity, reference, note=""):
        tol, criterion = tolerances.get(quantity, (1e-3, "RELATIF"))
        rows.append(check(summary.get(quantity), Reference(quantity, reference, tol, criterion, source), note))

    if "t_buckle" in tolerances:
        if solution["t_buckle"] is None:
            notes.append("t_buckle: the element does not buckle (V/w <= F_crit/K)")
        elif solution["t_buckle"] <= t_end:
            add("t_buckle", solution["t_buckle"])
    if solution["max_compression_time"] <= t_end:
        add("max_compression", solution["max_compression"])
        add("residual_crush", solution["residual_crush"])
    else:
        notes.append(f"max_compression, residual_crush: the maximum comes at {solution['max_compression_time']:.6g} s, "
                     "after --t-end")
    v = ClosedForm.velocity(solution, config.t_end)
    if v is not None and abs(v) >= 0.5 * solution["rebound_speed"]:
        add("rebound_velocity", v, note=f"velocity at --t-end = {config.t_end:g} s"
            + ("" if config.t_end >= solution["separation_time"] else
               f" (still unloading: the mass leaves at {solution['separation_time']:.6g} s)"))
    elif v is None:
        notes.append(f"rebound_velocity: --t-end is before the maximum compression "
                     f"({solution['max_compression_time']:.6g} s)")
    else:
        notes.append("rebound_velocity: at --t-end the unloading has just begun (velocity below half the rebound "
                     f"speed; the mass leaves the element at {solution['separation_time']:.6g} s)")
    if "dx_at_return_time" in tolerances:
        if "dx_at_return_time" in summary:
            add("dx_at_return_time", 0.0,
                note=f"DX(N02) at the closed-form return time {solution['return_time']:.10g} s")
        else:
            notes.append(f"dx_at_return_time: the mass is back at x = 0 at {solution['return_time']:.6g} s, after "
                         "--t-end")
    return rows, notes


#: the flags of the parameters that make the physical problem (crit_amor aside: d has references
#: for both criteria, and it changes nothing without damping)
PHYSICS_FLAGS = {"mass": "--mass", "v0": "--v0", "kn": "--kn", "f_crit": "--f-crit", "f_post": "--f-post",
                 "plateau": "--plateau", "fall": "--fall", "depl_post": "--depl-post", "rigi_post": "--rigi-post",
                 "amor_nor": "--amor-nor", "amor_fl": "--amor-fl", "amor_post": "--amor-post"}


def _physics(config: Sdnd105Config) -> dict:
    """The physical parameters with the law's defaults resolved (AMOR_FL = AMOR_NOR, ...)."""
    law = config.law()
    return {"mass": (config.mass,), "v0": (config.v0,), "kn": (law.stiffness,), "f_crit": (law.critical_force,),
            "f_post": (law.post_force,), "plateau": (law.plateau,), "fall": (law.fall,),
            "depl_post": tuple(law.post_displacements), "rigi_post": tuple(law.post_stiffnesses),
            "amor_nor": (law.damping,), "amor_fl": (float(law.damping_table[0]),),
            "amor_post": tuple(float(x) for x in law.damping_table[1:])}


def departures(config: Sdnd105Config) -> list[str]:
    """Flags whose value makes the run differ physically from the modeling's benchmark (empty: the
    benchmark's problem, whatever dt, the fine window, t_end or CRIT_AMOR)."""
    mine, ref = _physics(config), _physics(default_config(config.modeling))
    return [PHYSICS_FLAGS[k] for k in PHYSICS_FLAGS
            if len(mine[k]) != len(ref[k])
            or not all(math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0) for a, b in zip(mine[k], ref[k]))]
