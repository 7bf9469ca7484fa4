"""SDND105: one-dof mass hitting a wall with a buckling (Code_Aster FLAMBAGE) shock law.

Reproduces Code_Aster's SDND105 (its tests in cases/reference/code_aster_tests.json; docs/one_dof.md) in physical coordinates with the implicit
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
error up to (F_crit - F_post) v dt / 2; with other parameters the default window moves with the
closed-form buckling instant). Newton stops on an absolute residual (RESI_GLOB_MAXI), see
``newton_settings``. The run is one fem.problem Release launching the masses (:func:`build`), in
the windows of :func:`steps`.

Configuration and references: the run is 'benchmark' when the mass, v0 and every law parameter are
the modeling's (whatever dt, the window, t_end or CRIT_AMOR), and is then checked against the
references below (events after --t-end left out, listed in ``references_left_out``). Otherwise it is
'custom': Code_Aster's values are not graded; without damping every quantity is checked against the
closed form for the run's own parameters (:class:`ClosedForm`: energy balance to the maximum crush,
harmonic unloading, with the modeling's tolerances); with damping (d) there is no closed form and no
check.

Outputs in --out (default results/sdnd105<modeling>; an earlier run's files are removed first):
history.csv (t, Newton iterations, displacement and velocity of the masses, the pair's columns of
fem.problem, penetration, force, max and residual crush, branch, the energy books; written as the run
goes), summary.json (fem.run.lifecycle header: status, configuration, command, version, parameters;
then t_buckle, max_compression, residual_crush, rebound_velocity, checks),
sdnd105.png (force vs penetration with the law's envelope; displacement vs time). A table of
results against references is printed. Exit codes: fem.run.lifecycle (2: bad input, one line naming the flag;
1: Newton failed, history on disk; 130/143: interrupted).

Run:  python cases/sdnd105.py --modeling c [--dt 1e-3] [--out DIR] [--quiet] [--force] [--help for every
      parameter]
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import math
import re
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from cases.one_dof.case import check_budget, parser, run_stage, start_run, validate  # noqa: E402
from cases.one_dof.sdnd105_modelings import MODELINGS, ClosedForm, Sdnd105Config, default_config, departures  # noqa: E402
from cases.one_dof.sdnd105_report import print_table, summarise  # noqa: E402

from contact.buckling import BucklingShocks  # noqa: E402
from contact.zone import BiPlane, RigidPlane  # noqa: E402
from fem.io import output_folder  # noqa: E402
from fem.io.recorder import NodeProbe  # noqa: E402
from fem.mesh.mesh import Mesh  # noqa: E402
from fem.problem import Assembled, Pair, Problem, Release, Settings, Support, Windows, assemble  # noqa: E402
from fem import ranges  # noqa: E402
from fem.run.lifecycle import BadInput, add_run_flags, count_steps, execute, finite  # noqa: E402
from fem.time.dynamics import NewtonSettings  # noqa: E402


# ------------------------------------------------------------------------------ model
def newton_settings(config: Sdnd105Config) -> NewtonSettings:
    """Absolute residual criterion (RESI_GLOB_MAXI). The relative one cannot be used here: once the
    mass flies free the only force is M a, itself round-off, so the relative scale vanishes. The
    tolerance is 1e-9 F_crit, raised above the round-off of M a = M (u - u_pred) / (beta dt^2)."""
    dt_min = min(config.dt, config.dt_fine) if config.fine_window[1] > config.fine_window[0] else config.dt
    u_scale = 10.0 + abs(config.v0) * config.t_end
    noise = 64.0 * np.finfo(float).eps * config.mass * u_scale / (0.25 * dt_min * dt_min)
    return NewtonSettings(rela=None, maxi=max(1e-9 * config.f_crit, noise), max_iterations=30)


def spans(config: Sdnd105Config) -> list[tuple[str, float, float, float]]:
    """(name, t_start, t_end, dt) of the coarse / fine / coarse windows (the fine window clipped to
    the run; none when T1 <= T0)."""
    t0, t1 = (max(0.0, config.fine_window[0]), min(config.t_end, config.fine_window[1]))
    cuts = [(0.0, t0, config.dt), (t0, t1, config.dt_fine), (t1, config.t_end, config.dt)] if t1 > t0 else \
        [(0.0, config.t_end, config.dt)]
    names = ("coarse-1", "fine", "coarse-2") if len(cuts) == 3 else ("run",)
    return [(n, a, b, dt) for n, (a, b, dt) in zip(names, cuts) if b > a]


def steps(config: Sdnd105Config) -> Windows:
    """The windows of :func:`spans` (fem.problem.Windows): uniform steps in each, Newmark average
    acceleration (HHT alpha 0), no refinement, no settling, every step archived."""
    return Windows(rows=[(a, b, dt, 0.0, name == "fine") for name, a, b, dt in spans(config)], refine_dt=None,
                   settle=False, archive_every=1)


def build(config: Sdnd105Config) -> tuple[Problem, Release]:
    """The problem of a configuration (fem.problem: point masses held in y, a buckling pair against a
    rigid plane or, for two masses, between N02 and N03) and the stage that launches the masses."""
    if not (np.isfinite(config.mass) and config.mass > 0):
        raise ValueError(f"mass must be > 0 kg, got {config.mass}")
    if not np.isfinite(config.v0):
        raise ValueError(f"initial velocity must be finite, got {config.v0}")
    if not (np.isfinite(config.t_end) and config.t_end > 0):
        raise ValueError(f"t_end must be > 0 s, got {config.t_end}")
    if config.two_masses:
        mesh = Mesh(points=np.array([[-5.0, 0.0], [5.0, 0.0]]),
                    node_groups={"N02": np.array([0]), "N03": np.array([1])})
        master = BiPlane("N03", direction=(1.0, 0.0), dist_1=5.0, dist_2=5.0)
        velocity = {"N02": (config.v0, 0.0), "N03": (-config.v0, 0.0)}
    else:
        mesh = Mesh(points=np.zeros((1, 2)), node_groups={"N02": np.array([0])})
        master = RigidPlane((0.0, 0.0), (-1.0, 0.0))
        velocity = {"N02": (config.v0, 0.0)}
    problem = Problem(mesh, bodies=(), point_masses={g: config.mass for g in velocity},
                      supports=[Support(g, ("y",)) for g in velocity], pairs=[Pair("N02", master, config.law())],
                      gravity=0.0)
    launch = Release(config.t_end, velocity=velocity, start=0.0, newton=newton_settings(config))
    return problem, launch


# ------------------------------------------------------------------------------ run
@dataclass
class Sdnd105Result:
    config: Sdnd105Config
    history: dict[str, np.ndarray]
    summary: dict
    term: BucklingShocks = field(repr=False)


#: the buckling element's history columns (BucklingColumns)
BUCKLING_COLUMNS = ("penetration", "force", "max_crush", "residual_crush", "branch")


class BucklingColumns:
    """The buckling element's state after each step as history columns (an observer of
    fem.problem.Settings): penetration [m] (b: relative), force [N], committed maximum and residual
    crush [m], branch of the law (contact.buckling)."""

    def __init__(self, assembled: Assembled) -> None:
        self.assembled = assembled

    def columns(self) -> list[str]:
        return list(BUCKLING_COLUMNS)

    def observe(self, _result) -> dict:
        s = self.assembled.terms[0].buckling_state()
        return {"penetration": float(s.penetration[0]), "force": float(s.force[0]),
                "max_crush": float(s.max_crush[0]), "residual_crush": float(s.residual_crush[0]),
                "branch": float(s.branch[0])}


def simulate(config: Sdnd105Config, out: Path | None = None) -> Sdnd105Result:
    """Run a configuration (fem.problem.run_stages: one Release launching the masses, the steps of
    :func:`steps`); with ``out``, write history.csv there as the run goes (else into a temporary
    folder). A Newton failure or an interruption is raised, everything up to it on disk."""
    problem, launch = build(config)
    assembled = assemble(problem)
    probes = [NodeProbe("ux_N02", "N02", "u", "x"), NodeProbe("vx_N02", "N02", "v", "x")]
    if config.two_masses:
        probes += [NodeProbe("ux_N03", "N03", "u", "x"), NodeProbe("vx_N03", "N03", "v", "x")]
    settings = Settings(steps=steps(config), probes=tuple(probes), observers=(BucklingColumns(assembled),))
    outcome = run_stage(assembled, launch, settings, None if out is None else Path(out) / "history.csv")
    history = {k: np.asarray(v, dtype=float) for k, v in outcome.histories[launch.name].items()}
    stats = {k: outcome.stats[k] for k in ("wall_s", "steps", "newton_iterations", "subdivisions")}
    term = assembled.terms[0]
    return Sdnd105Result(config, history, summarise(config, history, term, stats), term)


# ------------------------------------------------------------------------------ command line
KEYWORD_FLAGS = {"RIGI_NOR": "--kn", "FNOR_CRIT": "--f-crit", "FNOR_POST_FL": "--f-post", "LARG_PLAT": "--plateau",
                 "ENFO_FL": "--fall", "DEPL_POST_FL": "--depl-post", "RIGI_POST_FL": "--rigi-post",
                 "AMOR_NOR": "--amor-nor", "AMOR_FL": "--amor-fl", "AMOR_POST_FL": "--amor-post",
                 "CRIT_AMOR": "--crit-amor"}
_KEYWORD = re.compile(r"\b(" + "|".join(KEYWORD_FLAGS) + r")\b( \()?")


def law_message(message: str) -> str:
    """A BucklingLaw message in the command line's terms: each Code_Aster keyword becomes its flag,
    the keyword kept in parentheses (``RIGI_NOR (normal stiffness) must be ...`` ->
    ``--kn (RIGI_NOR, normal stiffness) must be ...``)."""
    def flag(match):
        key = match.group(1)
        return f"{KEYWORD_FLAGS[key]} ({key}, " if match.group(2) else f"{KEYWORD_FLAGS[key]} ({key})"
    return _KEYWORD.sub(flag, message)


def parse_args(argv=None):
    """The command line (:class:`fem.run.lifecycle.CaseParser`: a bad flag or value raises fem.run.lifecycle.BadInput)."""
    p = parser("sdnd105.py", __doc__)
    p.add_argument("--modeling", choices=MODELINGS, default="a", help="SDND105 modeling (default a)")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default results/sdnd105<modeling>); an earlier run's files in it are "
                        "removed first")
    p.add_argument("--mass", type=finite, help="mass of each body [kg]")
    p.add_argument("--v0", type=finite, help="initial velocity toward the wall [m/s] (b: +v0 and -v0)")
    p.add_argument("--kn", type=finite, help="RIGI_NOR [N/m]")
    p.add_argument("--f-crit", type=finite, help="FNOR_CRIT [N]")
    p.add_argument("--f-post", type=finite, help="FNOR_POST_FL [N]")
    p.add_argument("--plateau", type=finite, help="LARG_PLAT [m]")
    p.add_argument("--fall", type=finite, help="ENFO_FL [m]")
    p.add_argument("--depl-post", type=finite, nargs="*", help="DEPL_POST_FL [m] (residual crushes)")
    p.add_argument("--rigi-post", type=finite, nargs="*", help="RIGI_POST_FL [N/m]")
    p.add_argument("--amor-nor", type=finite, help="AMOR_NOR [N s/m]")
    p.add_argument("--amor-fl", type=finite, help="AMOR_FL [N s/m] (default AMOR_NOR)")
    p.add_argument("--amor-post", type=finite, nargs="*", help="AMOR_POST_FL [N s/m] (default AMOR_FL)")
    p.add_argument("--crit-amor", choices=("INCLUS", "EXCLUS"), help="CRIT_AMOR")
    p.add_argument("--dt", type=finite, help="time step [s]")
    p.add_argument("--dt-fine", type=finite, help="time step inside the fine window [s]")
    p.add_argument("--fine-window", type=finite, nargs=2, metavar=("T0", "T1"),
                   help="window of the fine step [s] (T1 <= T0: none; default a, b: around the buckling "
                        "instant, moved with it when the parameters are not the benchmark's)")
    p.add_argument("--t-end", type=finite, help="end of the run [s]")
    add_run_flags(p)
    return p.parse_args(argv)


def config_from_args(args) -> Sdnd105Config:
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


def check_ranges(config: Sdnd105Config) -> None:
    """Every number against its physical range (fem.ranges; the signs and the law's own rules are
    checked before), the steps against the run and the duration of an elastic shock on the law's
    stiffest branch, pi sqrt(m_r / k) (m_r = m, or m / 2 for modeling b's two masses)."""
    r = ranges
    r.check_all([("--mass", config.mass, r.MASS), ("--v0", config.v0, r.SPEED), ("--kn", config.kn, r.STIFFNESS),
                 ("--f-crit", config.f_crit, r.FORCE), ("--f-post", config.f_post, r.FORCE),
                 ("--plateau", config.plateau, r.GAP), ("--fall", config.fall, r.GAP),
                 ("--depl-post", config.depl_post, r.GAP), ("--rigi-post", config.rigi_post, r.STIFFNESS),
                 ("--amor-nor", config.amor_nor, r.DASHPOT), ("--amor-fl", config.amor_fl, r.DASHPOT),
                 ("--amor-post", config.amor_post, r.DASHPOT), ("--fine-window", config.fine_window, r.INSTANT),
                 ("--t-end", config.t_end, r.DURATION)])
    reduced = config.mass / 2 if config.two_masses else config.mass
    stiffest = max((config.kn, *config.rigi_post))
    shock = [("an elastic shock's duration pi sqrt(m / k)", math.pi * math.sqrt(reduced / stiffest),
              "--mass, --kn" + (", --rigi-post" if config.rigi_post else ""))]
    r.check_step("--dt", config.dt, config.t_end, "--t-end", shock)
    t0, t1 = max(0.0, config.fine_window[0]), min(config.t_end, config.fine_window[1])
    if t1 > t0:  # the fine window (spans())
        r.check("--fine-window (its part inside the run)", t1 - t0, r.DURATION)
        r.check_step("--dt-fine", config.dt_fine, t1 - t0, "--fine-window T1 - T0 inside the run", shock)


def check_input(config: Sdnd105Config) -> None:
    """Refuse impossible values (fem.run.lifecycle.BadInput, the message in the flags' own names and units;
    the law's own checks are re-worded with the flags)."""
    validate([("--mass", config.mass, ">0", "kg"), ("--v0", config.v0, ">0", "m/s (toward the wall)"),
              ("--dt", config.dt, ">0", "s"), ("--dt-fine", config.dt_fine, ">0", "s"),
              ("--t-end", config.t_end, ">0", "s")])
    try:
        config.law()
    except ValueError as err:
        raise BadInput(law_message(str(err))) from None
    except ArithmeticError:  # the law's table overflows: name the flag out of its range, or all of them
        check_ranges(config)
        raise BadInput("--kn, --f-crit, --f-post, --plateau, --fall, --depl-post, --rigi-post: the buckling law's "
                       "table overflows in double precision for these values") from None
    check_ranges(config)
    closed = ClosedForm(config)
    if closed.applies:
        try:
            solution = closed.solve()
            ok = all(math.isfinite(x) for x in solution.values() if x is not None)
        except (ValueError, ArithmeticError, RuntimeError):
            ok = False
        if not ok:
            raise BadInput("--mass, --v0 and the law's flags: the closed-form motion (energy balance, crush, "
                           "rebound) overflows or cannot be solved in double precision for these values")


def centre_window(config: Sdnd105Config) -> Sdnd105Config:
    """The default fine window of a and b moved with the closed-form buckling instant when the
    parameters are not the benchmark's (the window brackets pi/6 for the benchmark's)."""
    if config.modeling not in ("a", "b") or not departures(config):
        return config
    closed = ClosedForm(config)
    t_buckle = closed.solve()["t_buckle"] if closed.applies else None
    if t_buckle is None:
        return config
    shift = t_buckle - math.pi / 6
    return replace(config, fine_window=(config.fine_window[0] + shift, config.fine_window[1] + shift))


def main(argv=None) -> int:
    """Run SDND105 (exit codes: fem.run.lifecycle.execute)."""
    return execute(_main, argv)


def _main(argv) -> int:
    args = parse_args(argv)
    config = config_from_args(args)
    check_input(config)
    if args.fine_window is None:
        config = centre_window(config)
    cuts = spans(config)
    fine = f" (--dt-fine {config.dt_fine:g} s in --fine-window)" if len(cuts) > 1 or cuts[0][0] == "fine" else ""
    check_budget(count_steps([(a, b, dt) for _, a, b, dt in cuts]), 2000.0, args.force,
                 f"--dt {config.dt:g} s{fine} to --t-end {config.t_end:g} s",
                 "a larger --dt" + (" or --dt-fine, a shorter --t-end or --fine-window" if fine else
                                    " or a shorter --t-end"))
    out = args.out if args.out is not None else Path(f"results/sdnd105{args.modeling}")
    parameters = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(config).items()}
    record = start_run(out, f"sdnd105{args.modeling}", "cases/sdnd105.py", argv,
                       "custom" if departures(config) else "benchmark", parameters, t_end=config.t_end,
                       quiet=args.quiet)
    result = simulate(config, out)
    _plot(result, out / "sdnd105.png")
    result.summary.update(record.finish("complete", result.summary))
    print_table(result)
    print(f"results: {out}/summary.json, history.csv, sdnd105.png")
    return 0


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
    output_folder.save_figure(fig, path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
