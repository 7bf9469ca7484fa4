"""SDND101: mass-spring system released against a rigid plane (shock post-processing).

Code_Aster SDND101 modeling A (its tests in cases/reference/code_aster_tests.json; docs/one_dof.md): a mass m = 100 kg on a
spring k = 1e4 N/m to the ground starts at rest position with velocity v0 = 1 m/s toward a rigid plane
through its initial position (gap 0); a shock element DIS_CHOC of stiffness K = 1e6 N/m acts while
the penetration p = x is positive::

    m x'' + k x + K max(x, 0) = 0,    x(0) = 0,  x'(0) = v0

Closed form (the benchmark's analytic reference, contact.references.shock.ClosedForm): each contact
is half a period of the oscillator (k + K, m), entered and left at p = 0 with speed v0: omega_c =
sqrt((k + K)/m) = 100.499 rad/s, duration pi/omega_c = 0.031260 s, F_max = K v0/omega_c = 9950.4 N
at mid-contact, impulse 2 K v0/omega_c^2 = 198.02 N s; then half a free period pi/omega_0 (omega_0 =
sqrt(k/m) = 10 rad/s) on the ground spring alone, so shock n starts at (n - 1)(pi/omega_c +
pi/omega_0) (shock 2 at 0.34542 s, its peak at 0.36105 s) with impact velocity -v0 (along the plane
normal).

Model (:func:`problem_of`, a fem.problem.Problem run by fem.problem.run_stages): one node NO1 (point
mass, DY blocked as Code_Aster blocks DY, DZ), the ground spring (a Spring), the shock element as a
pair with a Penalty law against the rigid plane x = 0 with outward normal (-1, 0) (RigidPlane), gap
JEU 0 (Code_Aster's PLAN_Z obstacle with JEU 1 at origin -1); one Release stage gives the mass v0.

--method modal (default, the reference's scheme): DYNA_VIBRA on the modal basis, i.e. central
differences on the generalised coordinate of the one mode of (k, m) (fem.problem.CentralDifferences
with modes=1: fem.time.explicit), the shock force computed on the physical displacement and projected.
DY must be blocked: with k in x and y the two modes are degenerate (10 rad/s) and "the first mode"
could be the y one. Explicit: stable for dt < 2/omega_c = 0.0199 s (checked).
--method direct: implicit Newmark average acceleration (trapezoidal rule) on the physical dofs
(fem.problem.Uniform steps with alpha 0, Newton at RESI_GLOB_RELA 1e-6).

Shock table (POST_DYNA_MODA_T, OPTION 'IMPACT', force threshold 0) -- definitions used here
--------------------------------------------------------------------------------------------
``shocks`` (checked; fem.problem.shocks, the table any problem's shock checks read): contact start and end
are the zero crossings of the *signed* penetration, interpolated linearly between steps; duration = end -
start; impulse = trapezoidal integral of R_N over [start, steps in contact, end] with R_N = 0 at the
interpolated ends; F_max and its instant are the vertex of the parabola through the largest sample and its
two neighbours (the sampled maximum if a neighbour is out of contact); impact velocity = the normal velocity
(along the plane normal, negative when approaching) interpolated at the start. ``shocks_sampled``: the same table from
contact.shocks.detect_shocks on the R_N samples as they are (Code_Aster's POST_DYNA_MODA_T way:
F_max and instant at the largest sample).

Why: R_N is clipped at 0 outside contact, so ``detect_shocks`` interpolating the force to its
threshold 0 always lands on the last open sample -- contact starts and ends are snapped outward to
the step grid. At dt = 5e-4 that makes shock 2 last 64 dt = 0.0320 s (+2.4 %, outside Code_Aster's
1 % tolerance; Code_Aster itself reports 63 dt = 0.0315 s). Feeding ``detect_shocks`` the force
extended by K p (negative) outside contact makes its crossing interpolation work. The sampled
maximum is within tolerance at 5e-4 (shock 1 at 0.0155 s, -0.8 % of 0.01563 s; F_max sampling
error <= (omega_c dt)^2/8 = 3e-4), but it is not a smooth function of dt (the peak falls anywhere
between two samples), so errors do not decrease steadily with dt; the parabola vertex does.
With the sampled table the modal run reproduces Code_Aster's computed F_MAX (9952.685590457,
9954.7807740037 N) and IMPULSION (198.09273674733 N s, the trapezoid of the samples) to 1e-12: the
scheme is Code_Aster's, step for step. Code_Aster's V_IMPACT of shock 2 (-1.0003141755606 m/s) is the
leap-frog half-step velocity (u_{n+1} - u_n)/dt of the step entering contact (what fem.problem.shocks, and so
cases/sdnd101.toml, reports: first order in dt); here the reported (full-step) velocity is interpolated at the
start, second order (-1.000304 sampled, -1.000135 refined).

Checks (summary.json ``checks``; Code_Aster rows only with the benchmark's m, k, K, v0): the
Code_Aster test values and tolerances of sdnd101a.comm (shock 1 INSTANT, F_MAX; shock 2 INSTANT,
F_MAX, T_CHOC, IMPULSION, V_IMPACT; F_MAX_ABS), the document's shock 1 T_CHOC, IMPULSION, V_IMPACT
(not tested in the file; the shock 2 tolerances are used), and for every complete shock the closed
form: instant (1e-3), F_max, duration, impulse (0.5 %), impact velocity -v0 (1e-3), and the number
of complete shocks.

Configuration: 'benchmark' when m, k, K, v0 are the benchmark's (whatever dt, t_end, method),
else 'custom' (no Code_Aster test; the closed form is that of the run's own parameters). Code_Aster
tests of a shock that ends after --t-end are left out.

Outputs in --out (an earlier run's files are removed first): summary.json (fem.run.lifecycle header: status,
configuration, command, version, parameters; then the shock tables and checks), history.csv (t, u,
v, penetration, force, energy per step beside the run's own columns: Newton iterations, the pair's
contact columns, energy books; written as the run goes), sdnd101.png (displacement and
shock force vs time), convergence.csv with --convergence N (the run repeated at dt/2, ..., dt/2^N:
errors vs the closed form and observed orders). Exit codes: fem.run.lifecycle (2: bad input, one line naming
the flag, e.g. a run of more steps than fem.run.lifecycle.MAX_STEPS counting the --convergence reruns; 1: a
failed run, history on disk; 130/143: interrupted).

Run:  python cases/sdnd101.py [--method modal|direct] [--dt 5e-4] [--t-end 0.5] [--convergence 3]
      [--out results/sdnd101] [--quiet] [--force] (--help for every parameter)
"""


if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cases.one_dof.case import (NODE, all_passed, check, check_budget, departures, parser,  # noqa: E402
                                  print_checks, run_stage, start_run, validate)

from contact.laws import Penalty  # noqa: E402
from contact.references.shock import ClosedForm  # noqa: E402
from contact.shocks import detect_shocks  # noqa: E402
from contact.zone import RigidPlane  # noqa: E402
from fem.io import output_folder  # noqa: E402
from fem.io.results import HistoryWriter  # noqa: E402
from fem.mesh.mesh import Mesh  # noqa: E402
from fem.problem.shocks import shock_table  # noqa: E402
from fem.problem import (CentralDifferences, Pair, Problem, Release, Settings, Spring, Support, Uniform,  # noqa: E402
                         assemble)
from fem import ranges  # noqa: E402
from fem.run.lifecycle import BadInput, add_run_flags, count_steps, execute, finite  # noqa: E402

METHODS = ("modal", "direct")
BENCHMARK = dict(mass=100.0, k=1.0e4, k_shock=1.0e6, v0=1.0)
SOURCE_FILE = "sdnd101a.comm TEST_TABLE"
SOURCE_DOC = "SDND101 doc §3.3 (tol of shock 2)"
# (label, shock number or None for the global table, field, reference, tolerance, Code_Aster VALE_CALC, source)
ASTER_TESTS = (
    ("shock 1 INSTANT [s]", 1, "instant", 0.01563, 1e-2, 0.0155, SOURCE_FILE),
    ("shock 1 F_MAX [N]", 1, "f_max", 9950.0, 1e-3, 9952.685590457, SOURCE_FILE),
    ("shock 1 T_CHOC [s]", 1, "duration", 0.03126, 1e-2, None, SOURCE_DOC),
    ("shock 1 IMPULSION [N s]", 1, "impulse", 198.05, 1e-3, None, SOURCE_DOC),
    ("shock 1 V_IMPACT [m/s]", 1, "v_impact", -1.0, 1e-3, None, SOURCE_DOC),
    ("shock 2 INSTANT [s]", 2, "instant", 0.361, 1e-3, 0.361, SOURCE_FILE),
    ("shock 2 F_MAX [N]", 2, "f_max", 9950.0, 1e-3, 9954.7807740037, SOURCE_FILE),
    ("shock 2 T_CHOC [s]", 2, "duration", 0.03126, 1e-2, 0.0315, SOURCE_FILE),
    ("shock 2 IMPULSION [N s]", 2, "impulse", 198.05, 1e-3, 198.09273674733, SOURCE_FILE),
    ("shock 2 V_IMPACT [m/s]", 2, "v_impact", -1.0, 1e-3, -1.0003141755606, SOURCE_FILE),
    ("F_MAX_ABS [N]", None, "f_max_abs", 9950.0, 1e-3, 9954.7807740037, SOURCE_FILE),
)
#: tolerances of the closed-form checks (relative)
CLOSED_FORM_TOL = dict(instant=1e-3, f_max=5e-3, duration=5e-3, impulse=5e-3, v_impact=1e-3)
SHOCK_FIELDS = ("instant", "f_max", "duration", "impulse", "v_impact")


# ------------------------------------------------------------------------------ simulation
@dataclass(frozen=True)
class Run:
    """Histories (n,) of one run: t, displacement u [m], velocity v [m/s], penetration p [m],
    shock force R_N [N], energy (kinetic + ground spring + shock) [J]; statistics."""

    t: np.ndarray
    u: np.ndarray
    v: np.ndarray
    penetration: np.ndarray
    force: np.ndarray
    energy: np.ndarray
    steps: int
    newton_iterations: int
    wall_s: float


HISTORY_COLUMNS = ("t", "u", "v", "penetration", "force", "energy")


def problem_of(mass: float, k: float, k_shock: float) -> Problem:
    """The benchmark as a problem: the point mass on NO1 (DY blocked), its ground spring k in x and y,
    a shock of stiffness K against the rigid plane x = 0 whose normal (-1, 0) points toward the mass
    (gap JEU 0), no gravity."""
    mesh = Mesh(points=np.zeros((1, 2)), node_groups={NODE: np.array([0])})
    return Problem(mesh, bodies=(), point_masses={NODE: mass}, gravity=0.0, supports=[Support(NODE, ("y",))],
                   springs=[Spring(NODE, (k, k), name="ground")],
                   pairs=[Pair(NODE, RigidPlane((0.0, 0.0), (-1.0, 0.0)), Penalty(k_shock), name="shock")])


@dataclass
class ShockColumns:
    """The case's history columns (an observer of fem.problem.Settings): displacement u and velocity v
    along x, the penetration p = -gap, the shock force R_N, the energy m v^2/2 + k u^2/2 + K max(p, 0)^2/2
    of the mass, its spring and the shock; the shock's state as committed at that step."""

    assembled: object
    mass: float
    k: float
    k_shock: float

    def columns(self) -> list[str]:
        return list(HISTORY_COLUMNS[1:])

    def observe(self, result) -> dict:
        s = self.assembled.terms[0].state()
        x, xd = float(result.state.u[0]), float(result.state.v[0])
        p = -float(s.gap[0])
        energy = 0.5 * self.mass * xd**2 + 0.5 * self.k * x**2 + 0.5 * self.k_shock * max(p, 0.0) ** 2
        return dict(u=x, v=xd, penetration=p, force=float(s.rn[0]), energy=energy)


def simulate(mass: float, k: float, k_shock: float, v0: float, dt: float, t_end: float,
             method: str = "modal", history: Path | None = None) -> Run:
    """Integrate SDND101 from x = 0, x' = v0 to t_end (fem.problem.run_stages: a Release launching the
    mass, modal central differences or Newmark steps); write ``history`` (CSV) as it goes if given.
    A Newton failure or an interruption is raised (everything up to it on disk)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {METHODS}")
    assembled = assemble(problem_of(mass, k, k_shock))
    steps = CentralDifferences(dt, modes=1) if method == "modal" else Uniform(dt, archive_every=1, alpha=0.0)
    launch = Release(t_end, velocity={NODE: (v0, 0.0)}, start=0.0)
    columns = ShockColumns(assembled, mass, k, k_shock)
    outcome = run_stage(assembled, launch, Settings(steps=steps, observers=(columns,)), history)
    h = outcome.histories[launch.name]
    return Run(*(np.asarray(h[c], dtype=float) for c in HISTORY_COLUMNS), steps=int(outcome.stats["steps"]),
               newton_iterations=int(outcome.stats["newton_iterations"]), wall_s=float(outcome.stats["wall_s"]))


# ------------------------------------------------------------------------------ shock tables
def shock_tables(run: Run) -> tuple[list[dict], list[dict]]:
    """(refined, sampled) shock tables, each a list of dicts with instant, f_max, duration, impulse,
    v_impact, start, end, complete: refined, fem.problem.shocks's (any problem's shock checks); sampled,
    contact.shocks.detect_shocks on the force samples (Code_Aster's way). See the module docstring."""
    t, p, f = run.t, run.penetration, run.force
    vn = -run.v  # velocity along the plane normal (-1, 0)

    def complete(s) -> bool:  # seen from its start (or from zero penetration at t0) to its end
        return bool(s.end < t[-1] and (s.start > t[0] or p[0] <= 0.0))

    sampled = []
    for s in detect_shocks(t, f, vn):
        row = {key: getattr(s, key) for key in (*SHOCK_FIELDS, "start", "end")}
        row["complete"] = complete(s)
        sampled.append(row)
    # the node's velocity read at the start (second order; the table's own, the gap's rate over the step
    # entering contact, is Code_Aster's V_IMPACT, first order in dt)
    refined = [{"instant": s["instant"], "f_max": s["force"], "duration": s["duration"], "impulse": s["impulse"],
                "v_impact": float(np.interp(s["start"], t, vn)), "start": s["start"], "end": s["end"],
                "complete": s["complete"]}
               for s in shock_table(t, f, -p)]
    return refined, sampled


def closed_form_errors(shocks: list[dict], cf: ClosedForm, n: int = 2) -> dict:
    """Relative errors of the first n complete shocks vs the closed form: {field: [err_1, ...]}
    (instant: absolute error [s] / contact duration)."""
    out = {key: [] for key in SHOCK_FIELDS}
    done = [s for s in shocks if s["complete"]][:n]
    for i, s in enumerate(done, start=1):
        ref = cf.shock(i)
        for key in SHOCK_FIELDS:
            scale = cf.duration if key == "instant" else abs(ref[key])
            out[key].append((s[key] - ref[key]) / scale)
    return out


def convergence(params: dict, dt: float, levels: int, t_end: float, method: str) -> dict:
    """Rerun at dt, dt/2, ..., dt/2^levels; per level the largest |error| over the first two shocks
    of F_max, duration, impulse (relative to the closed form) and the instant (over the contact
    duration), and the observed orders log2(e(dt)/e(dt/2))."""
    cf = ClosedForm(**params)
    rows = []
    for i in range(levels + 1):
        h = dt / 2**i
        run = simulate(**params, dt=h, t_end=t_end, method=method)
        refined, _ = shock_tables(run)
        errors = closed_form_errors(refined, cf)
        row = {"dt": h, "steps": run.steps, "wall_s": run.wall_s}
        for key in ("instant", "f_max", "duration", "impulse"):
            row[key] = max(abs(e) for e in errors[key]) if errors[key] else None
        rows.append(row)
    orders = {}
    for key in ("instant", "f_max", "duration", "impulse"):
        orders[key] = [math.log2(a[key] / b[key]) if a[key] and b[key] else None for a, b in zip(rows[:-1], rows[1:])]
    return {"method": method, "rows": rows, "orders": orders}


# ------------------------------------------------------------------------------ checks
def build_checks(shocks: list[dict], f_max_abs: float, cf: ClosedForm, t_end: float, benchmark: bool) -> list[dict]:
    """The checks of the events the run covers: Code_Aster's tests of a shock that the closed form
    completes by t_end (benchmark parameters only), the closed form of every complete shock (for the
    run's own m, k, K, v0), and the number of complete shocks."""
    checks = []
    complete = [s for s in shocks if s["complete"]]
    expected = cf.complete_shocks(t_end)
    if benchmark:
        for label, n, field, ref, tol, aster, source in ASTER_TESTS:
            if (n or 1) > expected:
                continue  # a shock after the end of this run
            if n is None:
                value = f_max_abs
            elif len(complete) >= n:
                value = complete[n - 1][field]
            else:
                value = None  # due by t_end but not found: fails
            checks.append(check(label, value, ref, tol, source, aster))
    units = dict(instant="s", f_max="N", duration="s", impulse="N s", v_impact="m/s")
    for i, s in enumerate(complete, start=1):
        ref = cf.shock(i)
        for field in SHOCK_FIELDS:
            checks.append(check(f"shock {i} {field} [{units[field]}]", s[field], ref[field], CLOSED_FORM_TOL[field],
                                "closed form"))
    checks.append(check("complete shocks in the run", len(complete), expected, 0.0, "closed form"))
    return checks


# ------------------------------------------------------------------------------ command line
def parse_args(argv=None):
    """The command line (:class:`fem.run.lifecycle.CaseParser`: a bad flag or value raises fem.run.lifecycle.BadInput)."""
    p = parser("sdnd101.py", __doc__)
    p.add_argument("--mass", type=finite, default=BENCHMARK["mass"], help="mass m [kg] (M_T_D_N)")
    p.add_argument("--k", type=finite, default=BENCHMARK["k"], help="ground spring stiffness k [N/m] (K_T_D_N)")
    p.add_argument("--k-shock", type=finite, default=BENCHMARK["k_shock"], help="shock stiffness K [N/m] (RIGI_NOR)")
    p.add_argument("--v0", type=finite, default=BENCHMARK["v0"], help="initial velocity toward the plane [m/s]")
    p.add_argument("--dt", type=finite, default=5e-4, help="time step [s]")
    p.add_argument("--t-end", type=finite, default=0.5, help="end of the run [s]")
    p.add_argument("--method", choices=METHODS, default="modal",
                   help="modal: central differences on the 1-mode basis (the reference); "
                        "direct: implicit average-acceleration Newmark on the physical dofs")
    p.add_argument("--convergence", type=int, default=0, metavar="N",
                   help="also rerun at dt/2, ..., dt/2^N and write convergence.csv (default 0: no)")
    p.add_argument("--out", type=Path, default=Path("results/sdnd101"),
                   help="output folder (an earlier run's files in it are removed first)")
    add_run_flags(p)
    return p.parse_args(argv)


def check_input(args) -> ClosedForm:
    """Refuse impossible values (fem.run.lifecycle.BadInput, the message in the flags' own names and units);
    returns the closed form of the run's parameters."""
    if args.convergence > ranges.HALVINGS.high:  # before validate(): 10**400 levels overflow a float
        ranges.HALVINGS.check("--convergence", args.convergence)
    validate([
        ("--mass", args.mass, ">0", "kg"), ("--k", args.k, ">=0", "N/m"), ("--k-shock", args.k_shock, ">0", "N/m"),
        ("--v0", args.v0, ">0", "m/s (toward the plane)"), ("--dt", args.dt, ">0", "s"),
        ("--t-end", args.t_end, ">0", "s"), ("--convergence", args.convergence, ">=0", "levels"),
    ])
    ranges.check_all([("--mass", args.mass, ranges.MASS), ("--k", args.k, ranges.STIFFNESS_OR_ZERO),
                      ("--k-shock", args.k_shock, ranges.STIFFNESS), ("--v0", args.v0, ranges.SPEED),
                      ("--t-end", args.t_end, ranges.DURATION), ("--dt", args.dt, ranges.TIME_STEP)])
    if args.dt > args.t_end:
        raise BadInput(f"--dt ({args.dt:g} s) must not exceed --t-end ({args.t_end:g} s)")
    cf = ClosedForm(mass=args.mass, k=args.k, k_shock=args.k_shock, v0=args.v0)
    try:
        derived = (cf.omega_c, cf.duration, cf.f_max, cf.impulse, cf.omega_0)
    except ArithmeticError:  # a float power that overflows
        derived = (math.inf,)
    if not all(math.isfinite(x) for x in derived) or cf.omega_c <= 0 or cf.f_max <= 0:
        raise BadInput(f"--mass {args.mass:g} kg, --k {args.k:g} N/m, --k-shock {args.k_shock:g} N/m, --v0 "
                       f"{args.v0:g} m/s: the contact frequency sqrt((k + K)/m), the peak force or the impulse "
                       "overflows or vanishes in double precision")
    limit = 2.0 / cf.omega_c
    if args.method == "modal" and args.dt >= limit:
        raise BadInput(f"--dt {args.dt:g} s is beyond the stability limit of the central differences, "
                       f"2 sqrt(--mass / (--k + --k-shock)) = {limit:.4g} s; use a smaller --dt or --method direct")
    # the shortest physical time scale: the shock itself, pi sqrt(m / (k + K)) (a longer step skips it)
    ranges.check_step("--dt", args.dt, args.t_end, "--t-end",
                      [("the shock's duration pi sqrt(m / (k + K))", cf.duration, "--mass, --k, --k-shock")])
    return cf


def total_steps(dt: float, t_end: float, levels: int) -> float:
    """Steps of the run and of its --convergence reruns at dt/2, ..., dt/2^levels."""
    if levels > 64:  # as many as the sum below, without looping over the levels
        return count_steps([(0.0, t_end, dt)]) * 2.0 ** min(levels + 1, 1000)
    return sum(count_steps([(0.0, t_end, dt / 2**i)]) for i in range(levels + 1))


def main(argv=None) -> int:
    """Run SDND101 (exit codes: fem.run.lifecycle.execute)."""
    return execute(_main, argv)


def _main(argv) -> int:
    args = parse_args(argv)
    cf = check_input(args)
    levels = f" and --convergence {args.convergence} (reruns at dt/2^k)" if args.convergence else ""
    check_budget(total_steps(args.dt, args.t_end, args.convergence), 400.0, args.force,
                 f"--dt {args.dt:g} s to --t-end {args.t_end:g} s{levels}",
                 "a larger --dt, a shorter --t-end" + (", fewer --convergence levels" if args.convergence else ""))
    params = dict(mass=args.mass, k=args.k, k_shock=args.k_shock, v0=args.v0)
    changed = departures(params, BENCHMARK)
    benchmark = not changed
    out = args.out
    record = start_run(out, "sdnd101", "cases/sdnd101.py", argv, "benchmark" if benchmark else "custom",
                       {**params, "dt": args.dt, "t_end": args.t_end, "method": args.method,
                        "convergence": args.convergence}, t_end=args.t_end, quiet=args.quiet)
    run = simulate(**params, dt=args.dt, t_end=args.t_end, method=args.method, history=out / "history.csv")
    shocks, sampled = shock_tables(run)
    f_max_abs = max((s["f_max"] for s in shocks), default=0.0)
    checks = build_checks(shocks, f_max_abs, cf, args.t_end, benchmark)
    conv = convergence(params, args.dt, args.convergence, args.t_end, args.method) if args.convergence else None
    energy_drift = float(np.max(np.abs(run.energy / run.energy[0] - 1.0)))

    summary = {
        "benchmark_parameters": benchmark,
        "departures": changed,
        "references": ("Code_Aster's tests (sdnd101a.comm, document) and the closed form" if benchmark else
                       "the closed form for this run's m, k, K, v0 (Code_Aster's tests apply to the benchmark's "
                       "parameters only)"),
        "scheme": ("central differences on the modal basis (1 mode, DY blocked)" if args.method == "modal"
                   else "implicit Newmark average acceleration (beta 1/4, gamma 1/2) on the physical dofs"),
        "closed_form": {"omega_c": cf.omega_c, "omega_0": cf.omega_0, "duration": cf.duration, "f_max": cf.f_max,
                        "impulse": cf.impulse, "period": cf.period if math.isfinite(cf.period) else None},
        "shocks": shocks,
        "f_max_abs": f_max_abs,
        "shock_definition": "start/end: zero crossings of the signed penetration (linear between steps); impulse: "
                            "trapezoid of R_N with 0 at start/end; F_max, instant: parabola through the largest "
                            "sample and its neighbours; v_impact: normal velocity at the start",
        "shocks_sampled": sampled,
        "f_max_abs_sampled": float(np.max(np.abs(run.force))),
        "energy_max_relative_drift": energy_drift,
        "run": {"steps": run.steps, "newton_iterations": run.newton_iterations, "wall_s": run.wall_s},
        "checks": checks,
        "all_passed": all_passed(checks),
    }
    if conv is not None:
        summary["convergence"] = conv
        _write_convergence(out / "convergence.csv", conv)
    _plot(out / "sdnd101.png", run, shocks, cf, args.method)
    summary = record.finish("complete", summary)

    print(f"SDND101 ({args.method}, {summary['configuration']} configuration), m = {args.mass:g} kg, "
          f"k = {args.k:g} N/m, K = {args.k_shock:g} N/m, v0 = {args.v0:g} m/s, dt = {args.dt:g} s, "
          f"0 -> {args.t_end:g} s: {run.steps} steps, {run.wall_s:.2f} s"
          + (f", {run.newton_iterations} Newton iterations" if args.method == "direct" else ""))
    print(f"closed form: omega_c = {cf.omega_c:.6f} rad/s, duration {cf.duration:.6f} s, F_max {cf.f_max:.2f} N, "
          f"impulse {cf.impulse:.4f} N s")
    print(f"{'shock':>5s} {'instant [s]':>12s} {'F_max [N]':>11s} {'T_CHOC [s]':>11s} {'impulse':>10s} "
          f"{'V_IMPACT':>10s} {'start':>10s} {'end':>10s}   (sampled: instant, F_max, T_CHOC, impulse)")
    def cell(x, spec: str) -> str:  # an unfinished shock has no end, duration or impulse: "-"
        return format(x, spec) if x is not None else format("-", f">{spec.split('.')[0]}")

    for i, (s, r) in enumerate(zip(shocks, sampled), start=1):
        flag = "" if s["complete"] else "  (incomplete: still in contact at the end)"
        print(f"{i:5d} {s['instant']:12.6f} {s['f_max']:11.3f} {cell(s['duration'], '11.6f')} "
              f"{cell(s['impulse'], '10.4f')} {s['v_impact']:10.6f} {s['start']:10.6f} {cell(s['end'], '10.6f')}   "
              f"({r['instant']:.4f}, {r['f_max']:.3f}, {r['duration']:.4f}, {r['impulse']:.4f}){flag}")
    print_checks(checks)
    if not benchmark:
        print(f"custom configuration ({', '.join(changed)}): the references are the closed form for this run's "
              f"parameters; Code_Aster's tests apply to the benchmark's m, k, K, v0 only")
    if conv is not None:
        print(f"convergence ({args.method}), largest |error| over shocks 1-2 (instant: over the contact duration):")
        print(f"{'dt':>10s} {'instant':>10s} {'F_max':>10s} {'duration':>10s} {'impulse':>10s}")
        for row in conv["rows"]:
            print(f"{row['dt']:10.3e} " + " ".join("         -" if row[key] is None else f"{row[key]:10.2e}"
                                                   for key in ("instant", "f_max", "duration", "impulse")))
        print("observed orders: " + "; ".join(f"{key} " + ", ".join("-" if o is None else f"{o:.2f}" for o in orders)
                                              for key, orders in conv["orders"].items()))
    print(f"all checks passed: {'yes' if summary['all_passed'] else 'NO'}")
    print(f"results: {out}/summary.json, history.csv, sdnd101.png" + (", convergence.csv" if conv else ""))
    return 0


def _write_convergence(path: Path, conv: dict) -> None:
    with HistoryWriter(path, ("dt", "steps", "instant", "f_max", "duration", "impulse")) as w:
        for row in conv["rows"]:
            w.append({key: (math.nan if row[key] is None else row[key])
                      for key in ("dt", "steps", "instant", "f_max", "duration", "impulse")})


def _plot(path: Path, run: Run, shocks: list[dict], cf: ClosedForm, method: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ax0.plot(run.t, run.u * 1e3, lw=1)
    ax0.axhline(0.0, color="k", lw=0.8, ls="--", label="plane (gap 0)")
    ax0.set(ylabel="displacement DX [mm]", title=f"SDND101 ({method}): mass-spring against a rigid plane")
    ax0.legend(loc="lower right", fontsize=8)
    ax1.plot(run.t, run.force, lw=1, label="shock force R_N")
    for s in shocks:
        ax1.plot([s["instant"]], [s["f_max"]], "rx")
    ax1.axhline(cf.f_max, color="0.5", lw=0.8, ls=":", label=f"closed form F_max = {cf.f_max:.1f} N")
    ax1.set(xlabel="t [s]", ylabel="R_N [N]")
    ax1.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    output_folder.save_figure(fig, path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
