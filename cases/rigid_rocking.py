"""SDNV105, rigid-body reference: event-driven rocking of a rigid block on a rigid floor.

The block (half width b, half height l) is released at rest from a tilt theta about corner O and
rocks without sliding or bouncing; each impact swaps the pivot with the document's (Housner's)
law omega+ = (1 - 3 b^2/(2 R^2)) omega- or a given restitution coefficient (contact/rocking.py).
Printed: impact instants, kinetic energy before/after each impact, corner uplifts and velocities,
pivot reactions, percussions, and the comparison with the instants and energies listed in
../shared/reference/sdnv105.md §1.3 / §1.7 (benchmark document §2.2, Tables 2.1 and 2.3), together
with the three rigid-body models (nonlinear = exact, linear = linear in the angle, constant =
constant restoring torque) and the document's own recurrence (first instant of the linear model,
intervals 2 t1 r^k).

Run:  python cases/rigid_rocking.py [--model nonlinear|linear|constant] [--restitution E]
      [--out results/rigid_rocking] [--help for every parameter]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from contact import rocking as rk

SDNV105 = dict(b=0.18, l=0.40, theta=0.01, g=9.81)
ASTER_A = {  # sdnv105a v11.2.27 VALE_CALC (sdnv105.md §1.7), for orientation only (elastic FE run)
    "ke_max": (7.289736173, 4.738465960, 2.817711457, 1.8034412, 1.187753743),
    "t_ke_max": (0.0544, 0.14151, 0.20858, 0.2621, 0.30544),
    "RN_O_max_0.01_0.05": 3599.52291, "RN_A_max_0.06_0.12": 3597.96788,
    "percussion_A_1": 41.8904640727,
}
ASTER_C = {"RX_O_min_0.01_0.05": -1137.17203, "RX_A_max_0.06_0.12": 1141.50695382,
           "IX_A_1": 11.291926528, "IY_A_1": 41.93008415}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--half-width", type=float, default=SDNV105["b"], help="b [m] (SDNV105: 0.18)")
    p.add_argument("--half-height", type=float, default=SDNV105["l"], help="l [m] (SDNV105: 0.40)")
    p.add_argument("--theta", type=float, default=SDNV105["theta"], help="initial tilt [rad] (0.01)")
    p.add_argument("--rho", type=float, default=1450.0, help="density [kg/m^3]")
    p.add_argument("--thickness", type=float, default=1.0, help="thickness [m]")
    p.add_argument("--g", type=float, default=SDNV105["g"], help="gravity [m/s^2]")
    p.add_argument("--impacts", type=int, default=5, help="number of impacts")
    p.add_argument("--restitution", type=float, default=None,
                   help="coefficient e on the angular velocity, omega+ = e omega- "
                        "(default: the document's law 1 - 3 b^2/(2 R^2))")
    p.add_argument("--model", choices=rk.MODELS, default="nonlinear", help="rocking equation")
    p.add_argument("--out", type=Path, default=Path("results/rigid_rocking"), help="output folder")
    return p.parse_args(argv)


def _is_sdnv105(a) -> bool:
    return (math.isclose(a.half_width, SDNV105["b"]) and math.isclose(a.half_height, SDNV105["l"])
            and math.isclose(a.theta, SDNV105["theta"]) and math.isclose(a.g, SDNV105["g"]))


def main(argv=None) -> int:
    a = parse_args(argv)
    kw = dict(g=a.g, rho=a.rho, thickness=a.thickness, n_impacts=a.impacts)
    try:
        res = rk.rock(a.half_width, a.half_height, a.theta, restitution=a.restitution, model=a.model, **kw)
        models = {m: rk.rock(a.half_width, a.half_height, a.theta, model=m, **kw) for m in rk.MODELS}
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    blk = res.block
    n = len(res.impact_times)
    fo = rk.first_order_reactions(blk)
    t1_lin = rk.linear_first_impact(a.half_width, a.half_height, a.theta, a.g)
    ke_doc = blk.weight * blk.b * a.theta  # document's E_kin = M g b theta_in
    r = blk.housner_r
    doc_rigid = rk.document_recurrence(t1_lin, ke_doc, r, r, a.impacts)
    doc_restit = rk.document_recurrence(t1_lin, ke_doc, rk.DOC_RESTIT_TIME, rk.DOC_RESTIT_ENERGY, a.impacts)

    print(f"rigid block b = {blk.b} m, l = {blk.l} m, M = {blk.mass:.4f} kg, R = {blk.R:.6f} m, "
          f"alpha = {blk.alpha:.6f} rad, J_O = {blk.J_O:.5f} kg m^2, theta_in = {a.theta} rad")
    print(f"model = {res.model}; impact law: {res.restitution_law}; e = {res.restitution:.6f} "
          f"(energy ratio {res.restitution**2:.7f})")
    print(f"{'k':>2s} {'t_k [s]':>11s} {'corner':>6s} {'omega-':>10s} {'omega+':>10s} {'KE- [J]':>9s} "
          f"{'KE+ [J]':>9s} {'V_corner-':>10s} {'I_N [Ns]':>9s} {'I_lift':>7s} {'I_T [Ns]':>9s} "
          f"{'uplift [m]':>11s} {'RN max':>8s} {'RN min':>8s} {'|RT| max':>8s}")
    for k in range(n):
        print(f"{k + 1:2d} {res.impact_times[k]:11.7f} {res.impact_corner[k]:>6s} {res.omega_before[k]:10.6f} "
              f"{res.omega_after[k]:10.6f} {res.ke_before[k]:9.6f} {res.ke_after[k]:9.6f} "
              f"{res.corner_velocity_before[k]:10.6f} {res.percussion_normal[k]:9.4f} "
              f"{res.percussion_lift[k]:7.3f} {res.percussion_tangential[k]:9.4f} {res.uplift[k]:11.4e} "
              f"{res.rn_max[k]:8.2f} {res.rn_min[k]:8.2f} {res.rt_abs_max[k]:8.2f}")
    print("(uplift, RN, RT: over the flight that ends with impact k; flight 1 starts at the release)")
    print(f"first-order reactions (phi = 0, phi' = 0): R_N = {fo['R_N']:.2f} N, |R_T| = {fo['R_T_abs']:.2f} N, "
          f"ratio {fo['ratio']:.4f}" + (" (document 3579.25 / 1149.79 / 0.3212)" if _is_sdnv105(a) else ""))
    print(f"first instant, closed form of the linear-in-angle equation: {t1_lin:.9f} s"
          + (" (document 0.05440978)" if _is_sdnv105(a) else ""))

    print("\nimpact instants [s] by model, and the document's recurrence t1 + 2 t1 (r + r^2 + ...)")
    print(f"{'k':>2s} " + " ".join(f"{m:>11s}" for m in rk.MODELS) + f" {'doc recurr.':>11s} {'doc r=0.77':>11s}")
    for k in range(a.impacts):
        row = " ".join(f"{models[m].impact_times[k]:11.7f}" if k < len(models[m].impact_times) else f"{'-':>11s}"
                       for m in rk.MODELS)
        print(f"{k + 1:2d} {row} {doc_rigid[0][k]:11.7f} {doc_restit[0][k]:11.7f}")

    summary = {
        "parameters": vars(a) | {"out": str(a.out)},
        "block": {"mass": blk.mass, "R": blk.R, "alpha": blk.alpha, "J_G": blk.J_G, "J_O": blk.J_O,
                  "housner_r": r, "p": blk.p, "lambda": blk.lam},
        "result": res.summary(),
        "models": {m: {"impact_times": list(models[m].impact_times), "ke_before": list(models[m].ke_before),
                       "uplift": list(models[m].uplift), "percussion_normal": list(models[m].percussion_normal),
                       "corner_velocity_before": list(models[m].corner_velocity_before)}
                   for m in rk.MODELS},
        "first_order_reactions": fo,
        "linear_first_impact": t1_lin,
        "ke_first_order": ke_doc,
        "ke_exact_drop": float(blk.potential(a.theta, "nonlinear")),
        "document_recurrence_rigid": {"impact_times": list(doc_rigid[0]), "ke": list(doc_rigid[1])},
        "document_recurrence_restitution": {"impact_times": list(doc_restit[0]), "ke": list(doc_restit[1]),
                                            "time_ratio": rk.DOC_RESTIT_TIME,
                                            "energy_ratio": rk.DOC_RESTIT_ENERGY},
    }

    if _is_sdnv105(a) and a.impacts >= 2:
        nl = models["nonlinear"]
        w1, w2 = nl.window_extremes(0.01, 0.05), nl.window_extremes(0.06, 0.12)
        m = min(a.impacts, 5)
        e_fit = rk.fit_restitution(rk.DOC_RESTIT_TIMES[1], a.half_width, a.half_height, a.theta, impact=2,
                                   model="nonlinear", g=a.g, rho=a.rho, thickness=a.thickness)
        fitted = rk.rock(a.half_width, a.half_height, a.theta, restitution=e_fit, model="nonlinear",
                         g=a.g, rho=a.rho, thickness=a.thickness, n_impacts=m)
        e79 = rk.rock(a.half_width, a.half_height, a.theta, restitution=rk.DOC_RESTIT_ENERGY, model="constant",
                      g=a.g, rho=a.rho, thickness=a.thickness, n_impacts=m)
        gaps = [nl.impact_times[k] - rk.DOC_RIGID_TIMES[k] for k in range(m)]
        summary["sdnv105"] = {
            "document_rigid_times": list(rk.DOC_RIGID_TIMES), "document_rigid_ke": list(rk.DOC_RIGID_KE),
            "document_restitution_times": list(rk.DOC_RESTIT_TIMES),
            "document_restitution_ke": list(rk.DOC_RESTIT_KE),
            "comment_set_1": list(rk.DOC_COMMENT_SET_1), "comment_set_2": list(rk.DOC_COMMENT_SET_2),
            "nonlinear_minus_document_rigid_times": gaps,
            "window_0.01_0.05": w1, "window_0.06_0.12": w2,
            "restitution_fit_nonlinear_t2": e_fit, "fitted_times": list(fitted.impact_times),
            "fitted_ke": list(fitted.ke_before),
            "constant_model_e079_ke": list(e79.ke_before),
            "constant_model_e079_corner_velocity": list(e79.corner_velocity_before),
            "constant_model_e079_uplift": list(e79.uplift),
            "code_aster_a": ASTER_A, "code_aster_c": ASTER_C,
        }
        print("\nagainst the benchmark document (SDNV105 geometry)")
        print(f"{'k':>2s} {'doc rigid':>10s} {'nonlinear':>10s} {'gap [ms]':>9s} {'comment 1':>10s} {'constant':>10s}"
              f" {'comment 2':>10s} {'doc restit':>10s} {'e fit':>10s} {'doc KE':>8s} {'nl KE':>8s} {'const KE':>8s}"
              f" {'doc KE e':>8s} {'KE e=.79':>8s}")
        for k in range(m):
            print(f"{k + 1:2d} {rk.DOC_RIGID_TIMES[k]:10.6f} {nl.impact_times[k]:10.6f} {gaps[k] * 1e3:9.3f} "
                  f"{rk.DOC_COMMENT_SET_1[k]:10.6f} {models['constant'].impact_times[k]:10.6f} "
                  f"{rk.DOC_COMMENT_SET_2[k]:10.5f} {rk.DOC_RESTIT_TIMES[k]:10.6f} {fitted.impact_times[k]:10.6f} "
                  f"{rk.DOC_RIGID_KE[k]:8.5f} {nl.ke_before[k]:8.5f} {models['constant'].ke_before[k]:8.5f} "
                  f"{rk.DOC_RESTIT_KE[k]:8.4f} {e79.ke_before[k]:8.4f}")
        print(f"e fit = {e_fit:.5f}: restitution on omega with which the exact model puts impact 2 at "
              f"{rk.DOC_RESTIT_TIMES[1]} s; the document's set uses 0.77 for the intervals and 0.79 for energies")
        print(f"window 0.01-0.05 (pivot O): RN max {w1['R_N_max']:.2f} N at t = {w1['t_R_N_max']:.3f} "
              f"(doc 3580, Aster a {ASTER_A['RN_O_max_0.01_0.05']:.2f}); R_T in [{w1['R_T_min']:.2f}, "
              f"{w1['R_T_max']:.2f}] N (Aster c RX(O) min {ASTER_C['RX_O_min_0.01_0.05']:.2f}, opposite sign "
              f"convention); max |RT|/RN {w1['R_T_over_R_N_max']:.4f}")
        print(f"window 0.06-0.12 (pivot A): RN max {w2['R_N_max']:.2f} N at t = {w2['t_R_N_max']:.4f} "
              f"(Aster a {ASTER_A['RN_A_max_0.06_0.12']:.2f}); R_T in [{w2['R_T_min']:.2f}, {w2['R_T_max']:.2f}] N "
              f"(Aster c RX(A) max {ASTER_C['RX_A_max_0.06_0.12']:.2f})")
        print(f"percussion at impact 1 on A: nonlinear {nl.percussion_normal[0]:.3f} N s, constant-torque "
              f"{models['constant'].percussion_normal[0]:.3f} N s (document 48.73); tangential "
              f"{abs(nl.percussion_tangential[0]):.3f} / {abs(models['constant'].percussion_tangential[0]):.3f} "
              f"N s (document 15.65)")

    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"\nresults: {a.out}/summary.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
