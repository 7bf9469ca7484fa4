"""SDND105: one-dof mass hitting a wall with a buckling (Code_Aster FLAMBAGE) shock law.

Reproduces ../shared/reference/one_dof_impacts.md §3 in physical coordinates with the implicit
Newmark average-acceleration scheme (Code_Aster uses modal explicit schemes for a-d; modeling e
uses physical coordinates, as here). The law is :class:`contact.buckling.BucklingLaw`.

Modelings (defaults; every law parameter can be changed on the command line)
------------------------------------------------------------------------------
a  M = 1 kg at the origin, v0 = 2 m/s toward a rigid plane of normal (-1, 0) through its initial
   position (contact from t = 0, zero gap: Code_Aster's JEU puts the obstacle there), K = 1 N/m,
   F_crit = 1 N, F_post = 0.5 N, no plateau, no fall, no table (the force drops from F_crit to
   F_post at p = 1 m; unloading stiffness F_post / p1 = 0.5 N/m). 0 -> 12 s.
b  Two 1 kg masses N02 at x = -5 m (v = +2 m/s) and N03 at x = +5 m (v = -2 m/s) with a buckling
   element between them (Code_Aster BI_PLAN_Y, DIST_1 = DIST_2 = 5 m: zero gap at t = 0) acting on
   their relative approach, K = 0.5 N/m, F_crit = 1 N, F_post = 0.5 N. By symmetry each mass takes
   half of the relative crush, and each sees the law of modeling a (relative crush 2 x for a mass
   displacement x, force 0.5 * 2 x = x): INST_FLAMB = pi/6, per-mass residual crush 3 m (the
   reference's ECRAS_RESI at N03); the relative values (twice) are reported too. 0 -> 12 s.
c  M = 1 kg, v0 = 2.828427125 m/s (4 J), K = 1, F_crit = 1, F_post = 0.5, LARG_PLAT = 1 m,
   ENFO_FL = 1 m, DEPL_POST_FL = [2, 3, 4, 5] m, RIGI_POST_FL = [0.2, 0.15, 0.125, 0.1] N/m.
   0 -> 9 s; references: max compression 6.5 m, residual crush 3.1 m, VX(9 s) = -1.303840481 m/s
   (the free-flight speed sqrt(1.7); at 9 s the mass is still, just, in contact, which is why
   Code_Aster finds -1.302827 and this code -1.30287).
d  c + AMOR_NOR = 10, AMOR_FL = 5, AMOR_POST_FL = [5, 5, 5, 5] N s/m, CRIT_AMOR 'INCLUS' (or
   --crit-amor EXCLUS). Non-regression only in Code_Aster: its values are printed for comparison.

Time stepping: Newmark average acceleration, step --dt, with a finer step --dt-fine inside
--fine-window (default around the buckling instant of a and b, where the force of a zero-length
fall jumps from F_crit to F_post: the trapezoidal rule averages the jump over one step, an energy
error up to (F_crit - F_post) v dt / 2). Newton stops on an absolute residual (RESI_GLOB_MAXI),
see ``newton_settings``.

Outputs in --out (default results/sdnd105<modeling>): history.csv (t, displacement and velocity
of the masses, penetration, force, max and residual crush, energies), summary.json (t_buckle,
max_compression, residual_crush, rebound_velocity, checks against the references), sdnd105.png
(force vs penetration with the law's envelope; displacement vs time). A table of results against
references is printed.

Run:  python cases/sdnd105.py --modeling c [--dt 1e-3] [--out DIR] [--help for every parameter]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from contact.buckling import BucklingLaw, BucklingShocks, node_pairs
from contact.zone import RigidPlane, node_zone
from fem.dynamics import ConvergenceError, NewtonSettings, Phase, State, run_phases
from fem.loads import ImposedDisplacement
from fem.mesh import Mesh
from fem.model import Model
from fem.recorder import NodeProbe, RunRecorder
from fem.schemes import Newmark

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
    """The reference parameters of a modeling (one_dof_impacts.md §3)."""
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
    """Reference values of a modeling (one_dof_impacts.md §3; code_aster_tests.json for VALE_CALC).
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


def check(value: float, ref: Reference) -> dict:
    """A check row: rel_error is |value - ref| / |ref| (absolute error when the reference is 0,
    Code_Aster's ABSOLU criterion)."""
    err = abs(value - ref.value)
    rel = err / abs(ref.value) if ref.value != 0 else err
    return {"quantity": ref.quantity, "value": value, "reference": ref.value, "rel_error": rel,
            "tolerance": ref.tolerance, "criterion": ref.criterion, "passed": bool(rel <= ref.tolerance),
            "source": ref.source, "aster_value": ref.aster_value}


# ------------------------------------------------------------------------------ model
def newton_settings(config: Sdnd105Config) -> NewtonSettings:
    """Absolute residual criterion (RESI_GLOB_MAXI). The relative one cannot be used here: once the
    mass flies free the only force is M a, itself round-off, so the relative scale vanishes. The
    tolerance is 1e-9 F_crit, raised above the round-off of M a = M (u - u_pred) / (beta dt^2)."""
    dt_min = min(config.dt, config.dt_fine) if config.fine_window[1] > config.fine_window[0] else config.dt
    u_scale = 10.0 + abs(config.v0) * config.t_end
    noise = 64.0 * np.finfo(float).eps * config.mass * u_scale / (0.25 * dt_min * dt_min)
    return NewtonSettings(rela=None, maxi=max(1e-9 * config.f_crit, noise), max_iterations=30)


def phases(config: Sdnd105Config) -> list[Phase]:
    """Coarse / fine / coarse phases (the fine window clipped to the run)."""
    groups = ("N02", "N03") if config.two_masses else ("N02",)
    kw = dict(scheme=Newmark(), constraints=tuple(ImposedDisplacement(g, "y") for g in groups),
              newton=newton_settings(config))
    t0, t1 = (max(0.0, config.fine_window[0]), min(config.t_end, config.fine_window[1]))
    cuts = [(0.0, t0, config.dt), (t0, t1, config.dt_fine), (t1, config.t_end, config.dt)] if t1 > t0 else \
        [(0.0, config.t_end, config.dt)]
    names = ("coarse-1", "fine", "coarse-2") if len(cuts) == 3 else ("run",)
    return [Phase(n, a, b, dt, **kw) for n, (a, b, dt) in zip(names, cuts) if b > a]


def build(config: Sdnd105Config):
    """Mesh, model, buckling term and initial state of a configuration."""
    if not (np.isfinite(config.mass) and config.mass > 0):
        raise ValueError(f"mass must be > 0 kg, got {config.mass}")
    if not np.isfinite(config.v0):
        raise ValueError(f"initial velocity must be finite, got {config.v0}")
    if not (np.isfinite(config.t_end) and config.t_end > 0):
        raise ValueError(f"t_end must be > 0 s, got {config.t_end}")
    law = config.law()
    if config.two_masses:
        mesh = Mesh(points=np.array([[-5.0, 0.0], [5.0, 0.0]]),
                    node_groups={"N02": np.array([0]), "N03": np.array([1])})
        model = Model(mesh, {}, point_masses={"N02": config.mass, "N03": config.mass})
        zone = node_pairs(mesh, "N02", "N03", direction=(1.0, 0.0), dist_1=5.0, dist_2=5.0)
        v = np.array([config.v0, 0.0, -config.v0, 0.0])
    else:
        mesh = Mesh(points=np.zeros((1, 2)), node_groups={"N02": np.array([0])})
        model = Model(mesh, {}, point_masses={"N02": config.mass})
        zone = node_zone(mesh, "N02", RigidPlane((0.0, 0.0), (-1.0, 0.0)))
        v = np.array([config.v0, 0.0])
    term = BucklingShocks(model, zone, law)
    return mesh, model, term, State(0.0, np.zeros(model.n_dofs), v)


# ------------------------------------------------------------------------------ run
@dataclass
class Sdnd105Result:
    config: Sdnd105Config
    history: dict[str, np.ndarray]
    summary: dict
    term: BucklingShocks = field(repr=False)


def _hermite_at(t, x, v, tq: float) -> float:
    """Cubic Hermite interpolation of x (with derivative v) at tq."""
    k = int(np.clip(np.searchsorted(t, tq) - 1, 0, len(t) - 2))
    h = t[k + 1] - t[k]
    s = (tq - t[k]) / h
    return float((2 * s**3 - 3 * s**2 + 1) * x[k] + (s**3 - 2 * s**2 + s) * h * v[k]
                 + (-2 * s**3 + 3 * s**2) * x[k + 1] + (s**3 - s**2) * h * v[k + 1])


def simulate(config: Sdnd105Config, out: Path | None = None) -> Sdnd105Result:
    """Run a configuration; with ``out``, write history.csv there as the run goes."""
    mesh, model, term, start = build(config)
    run = phases(config)
    extra_columns = ("penetration", "force", "max_crush", "residual_crush", "branch")
    probes = [NodeProbe("ux_N02", "N02", "u", "x"), NodeProbe("vx_N02", "N02", "v", "x")]
    if config.two_masses:
        probes += [NodeProbe("ux_N03", "N03", "u", "x"), NodeProbe("vx_N03", "N03", "v", "x")]

    def extra(_result):
        s = term.buckling_state()
        return {"penetration": float(s.penetration[0]), "force": float(s.force[0]),
                "max_crush": float(s.max_crush[0]), "residual_crush": float(s.residual_crush[0]),
                "branch": float(s.branch[0])}

    rows: list[dict] = []
    recorder = RunRecorder(model, out if out is not None else Path("."), probes, write_series=False,
                           extra_columns=extra_columns, extra=extra) if out is not None else None
    try:
        for result in run_phases(model, run, start, [term]):
            if recorder is not None:
                row = recorder.record(result)
            else:
                s = result.state
                row = {"t": s.t, "iterations": result.iterations, "ux_N02": s.u[0], "vx_N02": s.v[0],
                       **extra(result), "ke": model.kinetic_energy(s.v), "term_work": s.energies.term_work}
                if config.two_masses:
                    row.update(ux_N03=s.u[2], vx_N03=s.v[2])
            rows.append(row)
    finally:
        stats = recorder.run_statistics() if recorder is not None else {}
        if recorder is not None:
            recorder.close()
    history = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
    return Sdnd105Result(config, history, _summarise(config, history, term, stats), term)


def _summarise(config: Sdnd105Config, h: dict[str, np.ndarray], term: BucklingShocks, stats: dict) -> dict:
    s = term.buckling_state()
    share = 0.5 if config.two_masses else 1.0  # b: each mass takes half of the relative crush
    summary = {
        "modeling": config.modeling,
        "t_buckle": float(s.t_buckle[0]),
        "max_compression": share * float(s.max_crush[0]),
        "residual_crush": share * float(s.residual_crush[0]),
        "rebound_velocity": float(h["vx_N02"][-1]),
        "rebound_velocity_time": float(h["t"][-1]),
        "final_force": float(s.force[0]),
    }
    if config.two_masses:
        summary.update(relative_max_compression=float(s.max_crush[0]),
                       relative_residual_crush=float(s.residual_crush[0]),
                       symmetry_error=float(np.max(np.abs(h["ux_N02"] + h["ux_N03"]))))
    if h["t"][-1] >= T_RETURN:
        summary["dx_at_return_time"] = _hermite_at(h["t"], h["ux_N02"], h["vx_N02"], T_RETURN)
    ke0 = 0.5 * config.mass * config.v0**2 * (2 if config.two_masses else 1)
    ke = 0.5 * config.mass * (h["vx_N02"][-1] ** 2 + (h["vx_N03"][-1] ** 2 if config.two_masses else 0.0))
    summary["energy"] = {"initial_kinetic": ke0, "final_kinetic": ke,
                         "law_work": float(h["term_work"][-1]),
                         "law_envelope_work_to_max": float(term.law.envelope_work(s.max_crush[0])),
                         "law_released_energy": float(term.law.released_energy(s.max_crush[0]))}
    refs = references(config) if config == _reference_config(config) else []
    summary["checks"] = [check(summary[r.quantity], r) for r in refs if r.quantity in summary]
    summary["config"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(config).items()}
    summary["run"] = stats
    return summary


def _reference_config(config: Sdnd105Config) -> Sdnd105Config:
    """The configuration with the modeling's reference law and mass/velocity, keeping the numerical
    settings (dt, window, t_end) and CRIT_AMOR: references apply only when the physics is theirs."""
    ref = default_config(config.modeling)
    return replace(ref, crit_amor=config.crit_amor, dt=config.dt, dt_fine=config.dt_fine,
                   fine_window=config.fine_window, t_end=config.t_end)


# ------------------------------------------------------------------------------ command line
KEYWORD_FLAGS = {"RIGI_NOR": "--kn", "FNOR_CRIT": "--f-crit", "FNOR_POST_FL": "--f-post", "LARG_PLAT": "--plateau",
                 "ENFO_FL": "--fall", "DEPL_POST_FL": "--depl-post", "RIGI_POST_FL": "--rigi-post",
                 "AMOR_NOR": "--amor-nor", "AMOR_FL": "--amor-fl", "AMOR_POST_FL": "--amor-post"}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--modeling", choices=MODELINGS, default="a", help="SDND105 modeling (default a)")
    p.add_argument("--out", type=Path, default=None, help="output folder (default results/sdnd105<modeling>)")
    p.add_argument("--mass", type=float, help="mass of each body [kg]")
    p.add_argument("--v0", type=float, help="initial velocity toward the wall [m/s] (b: +v0 and -v0)")
    p.add_argument("--kn", type=float, help="RIGI_NOR [N/m]")
    p.add_argument("--f-crit", type=float, help="FNOR_CRIT [N]")
    p.add_argument("--f-post", type=float, help="FNOR_POST_FL [N]")
    p.add_argument("--plateau", type=float, help="LARG_PLAT [m]")
    p.add_argument("--fall", type=float, help="ENFO_FL [m]")
    p.add_argument("--depl-post", type=float, nargs="*", help="DEPL_POST_FL [m] (residual crushes)")
    p.add_argument("--rigi-post", type=float, nargs="*", help="RIGI_POST_FL [N/m]")
    p.add_argument("--amor-nor", type=float, help="AMOR_NOR [N s/m]")
    p.add_argument("--amor-fl", type=float, help="AMOR_FL [N s/m] (default AMOR_NOR)")
    p.add_argument("--amor-post", type=float, nargs="*", help="AMOR_POST_FL [N s/m] (default AMOR_FL)")
    p.add_argument("--crit-amor", choices=("INCLUS", "EXCLUS"), help="CRIT_AMOR")
    p.add_argument("--dt", type=float, help="time step [s]")
    p.add_argument("--dt-fine", type=float, help="time step inside the fine window [s]")
    p.add_argument("--fine-window", type=float, nargs=2, metavar=("T0", "T1"),
                   help="window of the fine step [s] (T1 <= T0: none)")
    p.add_argument("--t-end", type=float, help="end of the run [s]")
    return p.parse_args(argv)


def config_from_args(args: argparse.Namespace) -> Sdnd105Config:
    cfg = default_config(args.modeling)
    names = {"mass": "mass", "v0": "v0", "kn": "kn", "f_crit": "f_crit", "f_post": "f_post", "plateau": "plateau",
             "fall": "fall", "amor_nor": "amor_nor", "amor_fl": "amor_fl", "crit_amor": "crit_amor", "dt": "dt",
             "dt_fine": "dt_fine", "t_end": "t_end"}
    changes = {field_: getattr(args, arg) for arg, field_ in names.items() if getattr(args, arg) is not None}
    for arg in ("depl_post", "rigi_post", "amor_post"):
        if getattr(args, arg) is not None:
            changes[arg] = tuple(getattr(args, arg))
    if args.fine_window is not None:
        changes["fine_window"] = tuple(args.fine_window)
    return replace(cfg, **changes)


def main(argv=None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2, message printed)
        return int(exc.code or 0)
    out = args.out if args.out is not None else Path(f"results/sdnd105{args.modeling}")
    try:
        config = config_from_args(args)
        for flag, value, unit in (("--mass", config.mass, "kg"), ("--dt", config.dt, "s"),
                                  ("--dt-fine", config.dt_fine, "s"), ("--t-end", config.t_end, "s")):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{flag} must be > 0 {unit}, got {value:g}")
        if not math.isfinite(config.v0):
            raise ValueError(f"--v0 must be finite, got {config.v0:g}")
        build(config)  # validates the law (messages name the Code_Aster keyword)
        phases(config)
    except ValueError as err:  # BucklingLaw, ContactError, Phase and Model errors are ValueErrors
        flags = [f for k, f in KEYWORD_FLAGS.items() if k in str(err)]
        print(f"error: {err}" + (f" (command line: {', '.join(flags)})" if flags else ""), file=sys.stderr)
        return 2
    try:
        result = simulate(config, out)
    except ConvergenceError as err:
        print(f"error: {err}\nresults up to the failure are in {out}", file=sys.stderr)
        return 1
    summary = result.summary
    (out / "summary.json").write_text(json.dumps(_json_safe(summary), indent=2))
    _plot(result, out / "sdnd105.png")
    _print_table(result)
    print(f"results: {out}/summary.json, history.csv, sdnd105.png")
    return 0


def _json_safe(obj):
    """NaN and infinities as null (strict JSON)."""
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _print_table(result: Sdnd105Result) -> None:
    s, cfg = result.summary, result.config
    run = s.get("run", {})
    window = (f"{cfg.dt_fine:g} s in [{cfg.fine_window[0]:g}, {cfg.fine_window[1]:g}] s"
              if cfg.fine_window[1] > cfg.fine_window[0] else "no fine window")
    print(f"SDND105 {cfg.modeling}: t = 0 -> {cfg.t_end:g} s, dt = {cfg.dt:g} s ({window}), "
          f"{run.get('steps', '?')} steps, {run.get('newton_iterations', '?')} Newton iterations, "
          f"{run.get('wall_s', float('nan')):.1f} s")
    print(f"{'quantity':22s} {'this code':>16s} {'reference':>16s} {'error':>10s} {'tol':>8s}  ")
    for c in s["checks"]:
        kind = "abs" if c["criterion"] == "ABSOLU" else "rel"
        print(f"{c['quantity']:22s} {c['value']:16.9g} {c['reference']:16.9g} {c['rel_error']:10.2e} "
              f"{c['tolerance']:8.0e}  {'ok' if c['passed'] else 'FAIL'} ({kind}; {c['source']})")
    shown = {c["quantity"] for c in s["checks"]}
    for key in ("t_buckle", "max_compression", "residual_crush", "rebound_velocity"):
        if key not in shown:
            print(f"{key:22s} {s[key]:16.9g} {'-':>16s}")


def _plot(result: Sdnd105Result, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h, law = result.history, result.config.law()
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    p = np.linspace(0.0, max(1.05 * float(np.max(h["penetration"])), law.d1 * 1.05), 600)
    ax[0].plot(p, law.envelope(p)[0], "k--", lw=1, label="envelope (first loading)")
    ax[0].plot(h["penetration"], h["force"], lw=1.5, label="computed path")
    ax[0].set(xlabel="penetration p [m]" + (" (relative)" if result.config.two_masses else ""),
              ylabel="normal force F [N]", title=f"SDND105 {result.config.modeling}: buckling law",
              xlim=(min(0.0, float(np.min(h["penetration"]))), p[-1]), ylim=(0, 1.1 * law.critical_force))
    ax[0].legend()
    ax[1].plot(h["t"], h["ux_N02"], label="DX(N02)")
    if result.config.two_masses:
        ax[1].plot(h["t"], h["ux_N03"], label="DX(N03)")
    ax[1].set(xlabel="t [s]", ylabel="displacement [m]", title="displacement of the mass")
    ax[1].axhline(0.0, color="0.7", lw=0.8)
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
