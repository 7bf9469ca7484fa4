"""SDND108: a mass bouncing on an elastic (a) or absorbing (b) ground under gravity.

Code_Aster SDND108 (docs/references.md, "SDND108"): a point mass m = 1 kg starts
h = 2 m above the ground (the gap JEU) with velocity V0 = -1 m/s (downward), under gravity
g = 10 m/s^2. The ground is a shock element DIS_CHOC / DIS_CONTACT of stiffness RIGI_NOR = 100 N/m,
plus AMOR_NOR = 5 N s/m in modeling b. Code_Aster's DZ is the vertical displacement, here u_y
(DZ = -2 m when the mass touches the ground).

Closed form (contact.references.bounce.Bounce: the benchmark's analytic reference, reproducing every
Code_Aster reference to >= 9 digits): free fall to t_fall = (V0 + sqrt(V0^2 + 2 g h))/g = 0.540312 s,
impact at sqrt(41) m/s; in contact a damped oscillator m p'' + c p' + k p = m g about the static sag;
detachment when the penetration returns to zero (the reference's criterion: the damper may pull,
ShockLaw(tension_allowed=True)) at 0.885456 s (a), 0.924039 s (b), rebounding at 6.403124 m/s (a,
perfectly elastic) and 1.931377 m/s (b); then free flight. --zero-force-detachment: the element lets go
when K p + C p' reaches 0 (ShockLaw(tension_allowed=False)); in b that is 0.86570 s at 2.836 m/s,
still 0.14 m inside the ground, inconsistent with the Code_Aster references (they assume the
penetration criterion). The K_T_D_N = 1e4 N/m declared on Code_Aster's element does not act (the
fall time is the free-fall one), so no spring is modelled. The problem (:func:`problem_of`): the
mass on NO1, the shock as a pair with a Penalty law on the plane y = 0, clearance h.

Integrator (DYNA_NON_LINE)
--------------------------
Default: HHT with MODI_EQUI = 'NON' (Newmark with gamma = 1/2 - alpha, beta = (1 - alpha)^2/4,
equilibrium at t_{n+1}) and alpha = -0.1, Code_Aster's default since 2020-03-19 (it was -0.3 when
the test was created; the test values were updated then). --scheme average: average acceleration
(trapezoidal rule, no numerical damping: the elastic bounce returns sqrt(41) m/s). HHT 'NON' has
first-order numerical damping ~ -alpha w dt / 2 per radian: it loses ~0.3 % of the rebound speed
of a at the reference steps, hence the rebound check's tolerance 1e-2 with HHT, 1e-3 otherwise.
Newton: RESI_GLOB_RELA 1e-6 (Code_Aster uses RESI_REFE_RELA 1e-5 with EFFORT_REFE 1 N, the same
1e-5 N here where the forces in play are ~10 N); steps cut by 4 on failure.

Time stepping (one Release stage of fem.problem, its steps fem.problem.Windows): by default the
Code_Aster time list, as windows: 100 steps to the fall time,
200 (a) / 500 (b) to the detachment time, 25 (a) / 20 (b) to 1.0 s, 20 to 1.1 s (then 0.005 s steps
if --t-end is later), the instants being the closed-form ones of the given parameters (the
benchmark's: Code_Aster's TempsChute and TempsDecol). The steps then land on the fall and
detachment instants, as in Code_Aster. --dt: uniform steps instead (the run still stops at 1.0 and
1.1 s so that the displacements there are step values; at the fall and detachment instants the
displacement is interpolated: cubic Hermite on (u, v) of the surrounding steps, exact in free flight).

Measured: fall_time (the free-flight parabola of the last step before contact, which the Newmark
family integrates exactly, solved for y = -h), detach_time (zero of the penetration, or of
K p + C p' with --zero-force-detachment, linear between steps), rebound_velocity (velocity at
detach_time, linear between steps), u_at (DZ at 1.0 and 1.1 s), DZ at the reference fall and
detachment instants.

Checks (summary.json ``checks``): fall and detachment times vs the closed form (1e-3 relative),
rebound speed vs the closed form (1e-3 average acceleration, 1e-2 HHT), DZ at the fall time
(tolerance 1e-6) and detachment time (1e-2) (not with --dt: those instants are then inside steps),
at 1.0 s (1e-2) and 1.1 s (2e-2 a, 1e-2 b): the Code_Aster
TEST_RESU references, tolerances and computed values (VALE_CALC, with alpha = -0.1) with the
benchmark's parameters, the closed form otherwise (same tolerances).

Configuration: 'benchmark' when m, k, c, h, V0, g are the modeling's and the detachment is at zero
penetration (whatever the scheme, alpha, steps or t_end), else 'custom': the Code_Aster rows are
dropped and DZ is checked against the closed form of the run's own parameters and detachment
criterion. An HHT alpha in (-1, -1/3) runs with a warning line (first order, strong damping).

Outputs in --out (an earlier run's files are removed first): summary.json (fem.run.lifecycle header: status,
configuration, command, version, parameters; then the measurements and checks), history.csv (t, u,
v, a, penetration, force, status, energy beside the run's own columns: Newton iterations, the
ground's contact columns, energy books; written as the run goes), sdnd108.png (DZ with the closed
form, and the ground force, vs time). Exit codes: fem.run.lifecycle (2: bad input, one line naming the flag;
1: Newton failed, history on disk; 130/143: interrupted).

Run:  python cases/sdnd108.py --modeling a|b [--scheme hht|average] [--alpha -0.1] [--dt DT]
      [--zero-force-detachment] [--t-end 1.1] [--out results/sdnd108<modeling>] [--quiet] [--force]
      (--help for all)
"""


if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cases.one_dof.case import (NODE, all_passed, check, check_budget, crossing, departures,  # noqa: E402
                                  parser, print_checks, run_stage, start_run, validate)

from contact.laws import Penalty  # noqa: E402
from contact.references.bounce import Bounce  # noqa: E402
from contact.zone import RigidPlane  # noqa: E402
from fem.io import output_folder  # noqa: E402
from fem.mesh.mesh import Mesh  # noqa: E402
from fem.problem import Pair, Problem, Release, Settings, Support, Windows, assemble  # noqa: E402
from fem.stage.phase import NewtonSettings  # noqa: E402
from fem.time.march import march  # noqa: E402
from fem import ranges  # noqa: E402
from fem.run.lifecycle import BadInput, add_run_flags, count_steps, execute, finite  # noqa: E402

MODELINGS = ("a", "b")
SCHEMES = ("hht", "average")
BENCHMARK = {
    "a": dict(mass=1.0, k=100.0, c=0.0, height=2.0, v0=-1.0, g=10.0),
    "b": dict(mass=1.0, k=100.0, c=5.0, height=2.0, v0=-1.0, g=10.0),
}
#: steps of the Code_Aster time list: to the fall time, to the detachment time, to 1.0 s, to 1.1 s
STEPS = {"a": (100, 200, 25, 20), "b": (100, 500, 20, 20)}
#: sdnd108a/b.comm: TempsChute, TempsDecol, and the TEST_RESU rows on DZ(NO1):
#: (label, instant, VALE_REFE, PRECISION, VALE_CALC with alpha = -0.1)
ASTER = {
    "a": dict(fall=0.54031242374329, detach=0.88545615307643, tests=(
        ("fall", -2.0, 1e-6, -2.000000000000044),
        ("detach", -2.0, 1e-2, -2.0003798910306614),
        ("1.0", -1.332162981855, 1e-2, -1.334898142185521),
        ("1.1", -0.856394405035, 2e-2, -0.8611856407223184))),
    "b": dict(fall=0.54031242374, detach=0.92403882542, tests=(
        ("fall", -2.0, 1e-6, -2.0),
        ("detach", -2.0, 1e-2, -2.006350261330867),
        ("1.0", -1.88214079833, 1e-2, -1.888144497885116),
        ("1.1", -1.81496422497, 1e-2, -1.820548635131636))),
}
TIME_TOL = 1e-3


# ------------------------------------------------------------------------------ time list
def reference_schedule(cf: Bounce, modeling: str, t_end: float) -> list[tuple[float, float, float]]:
    """Code_Aster's time list as (t_start, t_end, dt) phases, cut at t_end (0.005 s steps after
    1.1 s). ValueError when the instants are not in the order fall < detachment < 1.0 s."""
    tf, td = cf.fall_time, cf.detach_time
    if td is None or not (0.0 < tf < td < 1.0):
        when = "never" if td is None else f"at {td:.6g} s"
        raise ValueError(f"the reference time list needs fall ({tf:.6g} s) < detachment ({when}) < 1.0 s; "
                         "give --dt for uniform steps")
    n = STEPS[modeling]
    points = (0.0, tf, td, 1.0, 1.1)
    phases = [(a, b, (b - a) / k) for a, b, k in zip(points[:-1], points[1:], n)]
    if t_end > 1.1:
        phases.append((1.1, t_end, phases[-1][2]))
    out = []
    for a, b, dt in phases:
        if a >= t_end:
            break
        out.append((a, min(b, t_end), dt))
    return out


def uniform_schedule(dt: float, t_end: float) -> list[tuple[float, float, float]]:
    """Uniform steps, the run broken at 1.0 and 1.1 s (where DZ is tested)."""
    points = [0.0] + [x for x in (1.0, 1.1) if x < t_end] + [t_end]
    return [(a, b, dt) for a, b in zip(points[:-1], points[1:])]


# ------------------------------------------------------------------------------ simulation
@dataclass(frozen=True)
class Run:
    t: np.ndarray
    u: np.ndarray
    v: np.ndarray
    a: np.ndarray
    penetration: np.ndarray
    force: np.ndarray
    status: np.ndarray
    energy: np.ndarray
    steps: int
    newton_iterations: int
    substeps: int
    wall_s: float


HISTORY_COLUMNS = ("t", "u", "v", "a", "penetration", "force", "status", "energy")


def problem_of(mass: float, k: float, c: float, height: float, g: float, zero_force: bool = False) -> Problem:
    """The benchmark as a problem: the point mass on NO1 (DX blocked) under gravity g along -y, its
    shock element (RIGI_NOR k, AMOR_NOR c) ``height`` above the ground plane y = 0 (the pair's clearance,
    JEU), letting go at zero penetration (the reference's criterion: the damper may pull) or, with
    ``zero_force``, when its force vanishes."""
    mesh = Mesh(points=np.zeros((1, 2)), node_groups={NODE: np.array([0])})
    ground = Penalty(k, normal_damping=c, tension_allowed=not zero_force)
    return Problem(mesh, bodies=(), point_masses={NODE: mass}, gravity=g, supports=[Support(NODE, ("x",))],
                   pairs=[Pair(NODE, RigidPlane((0.0, 0.0), (0.0, 1.0)), ground, name="ground", clearance=height)])


@dataclass
class BounceColumns:
    """The case's history columns (an observer of fem.problem.Settings): DZ = u_y, its velocity and
    acceleration, the penetration p = -gap, the ground force, the element's status, the energy
    m v^2/2 + m g y + k max(p, 0)^2/2; the shock's state as committed at that step."""

    assembled: object
    mass: float
    k: float
    g: float

    def columns(self) -> list[str]:
        return list(HISTORY_COLUMNS[1:])

    def observe(self, result) -> dict:
        s = self.assembled.terms[0].state()
        y, vy = float(result.state.u[1]), float(result.state.v[1])
        p = -float(s.gap[0])
        energy = 0.5 * self.mass * vy**2 + self.mass * self.g * y + 0.5 * self.k * max(p, 0.0) ** 2
        return dict(u=y, v=vy, a=float(result.state.a[1]), penetration=p, force=float(s.rn[0]),
                    status=float(s.status[0]), energy=energy)


def simulate(mass: float, k: float, c: float, height: float, v0: float, g: float,
             schedule: list[tuple[float, float, float]], scheme="hht", alpha: float = -0.1,
             zero_force: bool = False, history: Path | None = None) -> Run:
    """Integrate the bounce over the windows ``schedule`` [(t_start, t_end, dt)] (fem.problem.run_stages:
    a Release launching the mass at v0, HHT ``alpha`` with MODI_EQUI 'NON' or average acceleration);
    write ``history`` as it goes if given. A Newton failure or an interruption is raised (everything up
    to it on disk)."""
    assembled = assemble(problem_of(mass, k, c, height, g, zero_force))
    a = alpha if scheme == "hht" else 0.0
    steps = Windows(rows=[(t0, t1, dt, a, False) for t0, t1, dt in schedule], settle=False, archive_every=1)
    launch = Release(schedule[-1][1], velocity={NODE: (0.0, v0)}, start=0.0, newton=NewtonSettings())
    columns = BounceColumns(assembled, mass, k, g)
    outcome = run_stage(assembled, launch, Settings(steps=steps, observers=(columns,), march=march), history)
    h, stats = outcome.histories[launch.name], outcome.stats
    return Run(*(np.asarray(h[col], dtype=float) for col in HISTORY_COLUMNS), steps=int(stats["steps"]),
               newton_iterations=int(stats["newton_iterations"]),
               substeps=int(stats["steps"] + stats["subdivisions"]), wall_s=float(stats["wall_s"]))


# ------------------------------------------------------------------------------ measurements
def value_at(run: Run, t: float) -> float | None:
    """DZ at t: the step value when a step ends there, else the cubic Hermite interpolant of (u, v)
    at the two surrounding steps (exact in free flight, where the motion is a parabola)."""
    if not run.t[0] - 1e-12 <= t <= run.t[-1] + 1e-12:
        return None
    i = int(np.argmin(np.abs(run.t - t)))
    if abs(run.t[i] - t) <= 1e-9 * max(1.0, abs(t)):
        return float(run.u[i])
    j = int(np.searchsorted(run.t, t))  # run.t[j - 1] < t < run.t[j]
    h = run.t[j] - run.t[j - 1]
    s = (t - run.t[j - 1]) / h
    h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
    return float(h00 * run.u[j - 1] + h10 * h * run.v[j - 1] + h01 * run.u[j] + h11 * h * run.v[j])


def measure(run: Run, height: float, g: float, k: float, c: float, zero_force: bool) -> dict:
    """fall_time, detach_time, rebound_velocity (None when not reached)."""
    p = run.penetration
    touching = np.flatnonzero(p >= 0)
    out = dict(fall_time=None, detach_time=None, rebound_velocity=None)
    if touching.size == 0 or touching[0] == 0:
        return out
    j = int(touching[0])
    i = j - 1  # last step in free flight: y_i + v_i s - g s^2/2 = -h (exact for the Newmark family)
    y, v = run.u[i], run.v[i]
    disc = max(v * v + 2 * g * (y + height), 0.0)
    out["fall_time"] = float(run.t[i] + (v + math.sqrt(disc)) / g)
    signal = k * p + c * (-run.v) if zero_force else p  # p' = -v_y
    for m in range(j + 1, run.t.size):
        if signal[m - 1] > 0 and signal[m] <= 0:
            td = crossing(run.t[m - 1], run.t[m], signal[m - 1], signal[m])
            out["detach_time"] = float(td)
            out["rebound_velocity"] = float(np.interp(td, run.t[m - 1:m + 1], run.v[m - 1:m + 1]))
            break
    return out


# ------------------------------------------------------------------------------ checks
def build_checks(run: Run, measured: dict, cf: Bounce, modeling: str, scheme: str, benchmark: bool,
                 uniform: bool = False) -> list[dict]:
    """Checks of the events the run covers. With uniform steps (``uniform``) DZ at the fall and
    detachment instants is not checked: those instants fall inside the steps where the contact
    starts and ends, so DZ there is an interpolation (the time checks cover them)."""
    criterion = "zero force" if cf.zero_force else "zero penetration"
    t_end = run.t[-1] + 1e-9
    checks = []  # only what the run covers
    if cf.fall_time <= t_end:
        checks.append(check("fall time [s]", measured["fall_time"], cf.fall_time, TIME_TOL, "closed form"))
    if cf.detach_time is not None and cf.detach_time <= t_end:
        checks.append(check("detachment time [s]", measured["detach_time"], cf.detach_time, TIME_TOL,
                            f"closed form ({criterion})"))
        tol = 1e-3 if scheme == "average" else 1e-2
        checks.append(check("rebound velocity [m/s]", measured["rebound_velocity"], cf.rebound_velocity, tol,
                            f"closed form ({criterion})",
                            note="" if scheme == "average" else "HHT 'NON' damps ~0.3 % of it at the reference steps"))
    aster = ASTER[modeling]
    instants = {"fall": cf.fall_time, "detach": cf.detach_time, "1.0": 1.0, "1.1": 1.1}
    if benchmark:
        instants.update(fall=aster["fall"], detach=aster["detach"])
    names = {"fall": "fall time", "detach": "detachment time", "1.0": "1.0 s", "1.1": "1.1 s"}
    for key, ref, tol, calc in aster["tests"]:
        t = instants[key]
        if t is None or t > t_end or (uniform and key in ("fall", "detach")):
            continue
        value = value_at(run, t)
        label = f"DZ at {names[key]} [m]"
        if benchmark:
            checks.append(check(label, value, ref, tol, f"sdnd108{modeling}.comm TEST_RESU", calc,
                                note="Code_Aster value with HHT alpha -0.1"))
        else:
            closed = cf.position(t)
            if closed is not None:
                checks.append(check(label, value, closed, tol, f"closed form ({criterion}); tol of sdnd108{modeling}"))
    return checks


# ------------------------------------------------------------------------------ command line
def parse_args(argv=None):
    """The command line (:class:`fem.run.lifecycle.CaseParser`: a bad flag or value raises fem.run.lifecycle.BadInput)."""
    p = parser("sdnd108.py", __doc__)
    p.add_argument("--modeling", choices=MODELINGS, default="a", help="a: elastic ground; b: absorbing ground")
    p.add_argument("--mass", type=finite, default=1.0, help="mass m [kg]")
    p.add_argument("--k", type=finite, default=100.0, help="ground stiffness RIGI_NOR [N/m]")
    p.add_argument("--c", type=finite, default=None,
                   help="ground damping AMOR_NOR [N s/m] (default: 0 for a, 5 for b)")
    p.add_argument("--height", type=finite, default=2.0, help="initial height above the ground, JEU [m]")
    p.add_argument("--v0", type=finite, default=-1.0, help="initial vertical velocity [m/s] (negative: downward)")
    p.add_argument("--g", type=finite, default=10.0, help="gravity [m/s^2] (acting downward)")
    p.add_argument("--dt", type=finite, default=None,
                   help="uniform time step [s] (default: Code_Aster's time list, see the description)")
    p.add_argument("--t-end", type=finite, default=1.1, help="end of the run [s]")
    p.add_argument("--scheme", choices=SCHEMES, default="hht",
                   help="hht: HHT with MODI_EQUI 'NON' (the reference); average: average acceleration")
    p.add_argument("--alpha", type=finite, default=-0.1,
                   help="HHT alpha in (-1, 0] (Code_Aster default -0.1 since 2020, -0.3 before); outside "
                        "[-1/3, 0] the scheme is first order and damps strongly (a warning is printed)")
    p.add_argument("--zero-force-detachment", action="store_true",
                   help="the element lets go when K p + C p' = 0 (default: when the penetration returns to 0, "
                        "the damper may pull, as the reference assumes)")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default results/sdnd108<modeling>); an earlier run's files in it are "
                        "removed first")
    add_run_flags(p)
    return p.parse_args(argv)


def check_input(args, c: float) -> tuple[Bounce, list[tuple[float, float, float]], list[str]]:
    """Refuse impossible values (fem.run.lifecycle.BadInput, the message in the flags' own names and units).
    Returns the closed form of the run's parameters, the time steps as phases, and warnings (one
    line each) for input that is usable but suspicious."""
    validate([
        ("--mass", args.mass, ">0", "kg"), ("--k", args.k, ">0", "N/m"), ("--c", c, ">=0", "N s/m"),
        ("--height", args.height, ">0", "m"), ("--v0", args.v0, "finite", "m/s"), ("--g", args.g, ">0", "m/s^2"),
        ("--dt", args.dt, ">0", "s"), ("--t-end", args.t_end, ">0", "s"), ("--alpha", args.alpha, "finite", ""),
    ])
    warnings = []
    if args.scheme == "hht":
        if not -1.0 < args.alpha <= 0.0:
            raise BadInput(f"--alpha must lie in (-1, 0] (Code_Aster's HHT convention), got {args.alpha:g}")
        if args.alpha < -1.0 / 3.0:
            warnings.append(f"--alpha {args.alpha:g} is outside [-1/3, 0]: HHT is then first-order accurate and "
                            "damps strongly (Code_Aster's default is -0.1)")
    ranges.check_all([("--mass", args.mass, ranges.MASS), ("--k", args.k, ranges.STIFFNESS), ("--c", c, ranges.DASHPOT),
                      ("--height", args.height, ranges.LENGTH), ("--v0", args.v0, ranges.VELOCITY),
                      ("--g", args.g, ranges.GRAVITY), ("--t-end", args.t_end, ranges.DURATION),
                      ("--dt", args.dt, ranges.TIME_STEP)])
    if args.dt is not None and args.dt > args.t_end:
        raise BadInput(f"--dt ({args.dt:g} s) must not exceed --t-end ({args.t_end:g} s)")
    # the shortest physical time scale: the contact on the ground spring, pi sqrt(m / k)
    ranges.check_step("--dt", args.dt, args.t_end, "--t-end",
                      [("the contact's duration pi sqrt(m / k)", math.pi * math.sqrt(args.mass / args.k),
                        "--mass, --k")])
    physics = "--mass, --k, --c, --height, --v0, --g"
    cf = Bounce(mass=args.mass, k=args.k, c=c, height=args.height, v0=args.v0, g=args.g,
                zero_force=args.zero_force_detachment)
    try:
        with np.errstate(all="ignore"):
            derived = [cf.impact_speed, cf.fall_time, cf.omega, cf.zeta]
            duration = cf.contact_duration
    except (ValueError, ArithmeticError, RuntimeError):
        derived = [math.inf]
    if not all(math.isfinite(x) for x in derived) or cf.fall_time <= 0 or cf.omega <= 0 or \
            (duration is not None and not math.isfinite(duration)):
        raise BadInput(f"{physics}: the closed-form bounce (fall time, impact speed, ground frequency, detachment) "
                       "overflows or cannot be solved in double precision for these values")
    if args.dt is not None:
        schedule = uniform_schedule(args.dt, args.t_end)
    else:
        try:
            schedule = reference_schedule(cf, args.modeling, args.t_end)
        except ValueError:
            td = cf.detach_time
            when = "never leaves the ground" if td is None else f"leaves the ground at {td:.6g} s"
            raise BadInput(f"with these {physics} the mass lands at {cf.fall_time:.6g} s and {when}: Code_Aster's "
                           "time list needs landing < detachment < 1.0 s; give --dt for uniform steps") from None
    return cf, schedule, warnings


def main(argv=None) -> int:
    """Run SDND108 (exit codes: fem.run.lifecycle.execute)."""
    return execute(_main, argv)


def _main(argv) -> int:
    args = parse_args(argv)
    c = args.c if args.c is not None else BENCHMARK[args.modeling]["c"]
    cf, schedule, warnings = check_input(args, c)
    steps = "--dt {:g} s".format(args.dt) if args.dt is not None else "Code_Aster's time list"
    check_budget(count_steps(schedule), 450.0, args.force, f"{steps} to --t-end {args.t_end:g} s",
                 "a larger --dt or a shorter --t-end")
    params = dict(mass=args.mass, k=args.k, c=c, height=args.height, v0=args.v0, g=args.g)
    ref = BENCHMARK[args.modeling]
    changed = departures(params, ref) + (["--zero-force-detachment"] if args.zero_force_detachment else [])
    benchmark = not changed

    out = args.out if args.out is not None else Path(f"results/sdnd108{args.modeling}")
    record = start_run(out, f"sdnd108{args.modeling}", "cases/sdnd108.py", argv,
                       "benchmark" if benchmark else "custom",
                       {"modeling": args.modeling, **params, "t_end": args.t_end, "dt": args.dt,
                        "scheme": args.scheme, "alpha": args.alpha,
                        "detachment": "zero force" if args.zero_force_detachment else "zero penetration"},
                       t_end=args.t_end, quiet=args.quiet)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    run = simulate(**params, schedule=schedule, scheme=args.scheme, alpha=args.alpha,
                   zero_force=args.zero_force_detachment, history=out / "history.csv")
    measured = measure(run, args.height, args.g, args.k, c, args.zero_force_detachment)
    u_at = {key: value_at(run, float(key)) for key in ("1.0", "1.1") if float(key) <= run.t[-1] + 1e-9}
    checks = build_checks(run, measured, cf, args.modeling, args.scheme, benchmark, uniform=args.dt is not None)
    scheme = ({"name": "HHT", "alpha": args.alpha, "modified_equilibrium": False,
               "beta": (1 - args.alpha) ** 2 / 4, "gamma": 0.5 - args.alpha,
               "note": "MODI_EQUI 'NON'; Code_Aster's default alpha is -0.1 since 2020-03-19 (-0.3 before)"}
              if args.scheme == "hht" else
              {"name": "average acceleration", "beta": 0.25, "gamma": 0.5})
    summary = {
        "benchmark_parameters": benchmark,
        "departures": changed,
        "references": (f"Code_Aster's TEST_RESU (sdnd108{args.modeling}.comm) and the closed form" if benchmark else
                       "the closed form for this run's parameters and detachment criterion (Code_Aster's values "
                       "apply to the benchmark's only)"),
        "warnings": warnings,
        "scheme": scheme,
        "schedule": [{"t_start": a, "t_end": b, "dt": dt, "steps": int(round((b - a) / dt))}
                     for a, b, dt in schedule],
        "fall_time": measured["fall_time"],
        "detach_time": measured["detach_time"],
        "rebound_velocity": measured["rebound_velocity"],
        "u_at": u_at,
        "u_at_reference_instants": {"fall": value_at(run, ASTER[args.modeling]["fall"] if benchmark else cf.fall_time),
                                    "detach": (value_at(run, ASTER[args.modeling]["detach"] if benchmark
                                                        else cf.detach_time) if cf.detach_time else None)},
        "closed_form": {"fall_time": cf.fall_time, "impact_speed": cf.impact_speed, "detach_time": cf.detach_time,
                        "contact_duration": cf.contact_duration, "rebound_velocity": cf.rebound_velocity,
                        "u_at": {"1.0": cf.position(1.0), "1.1": cf.position(1.1)}},
        "energy_final_minus_initial": float(run.energy[-1] - run.energy[0]),
        "run": {"steps": run.steps, "newton_iterations": run.newton_iterations, "substeps": run.substeps,
                "wall_s": run.wall_s},
        "checks": checks,
        "all_passed": all_passed(checks),
    }
    _plot(out / "sdnd108.png", run, cf, measured, args)
    summary = record.finish("complete", summary)

    sname = f"HHT alpha {args.alpha:g} (MODI_EQUI 'NON')" if args.scheme == "hht" else "average acceleration"
    steps = "Code_Aster time list " + "/".join(str(int(round((b - a) / dt))) for a, b, dt in schedule) \
        if args.dt is None else f"uniform dt {args.dt:g} s"
    print(f"SDND108{args.modeling} ({summary['configuration']} configuration): m = {args.mass:g} kg, "
          f"k = {args.k:g} N/m, c = {c:g} N s/m, h = {args.height:g} m, v0 = {args.v0:g} m/s, g = {args.g:g} m/s^2; "
          f"{sname}, {steps}; detachment at {'zero force' if args.zero_force_detachment else 'zero penetration'}")
    print(f"{run.steps} steps, {run.newton_iterations} Newton iterations, {run.substeps} sub-steps, "
          f"{run.wall_s:.2f} s")

    def show(x):
        return "-" if x is None else f"{x:.9g}"

    print(f"fall time {show(measured['fall_time'])} s (closed form {show(cf.fall_time)}), detachment "
          f"{show(measured['detach_time'])} s ({show(cf.detach_time)}), rebound velocity "
          f"{show(measured['rebound_velocity'])} m/s ({show(cf.rebound_velocity)}); DZ(1.0) {show(u_at.get('1.0'))}, "
          f"DZ(1.1) {show(u_at.get('1.1'))} m")
    print_checks(checks)
    if not benchmark:
        print(f"custom configuration ({', '.join(changed)}): the references are the closed form for this run's "
              f"parameters; Code_Aster's values apply to the benchmark's only")
    print(f"all checks passed: {'yes' if summary['all_passed'] else 'NO'}")
    print(f"results: {out}/summary.json, history.csv, sdnd108.png")
    return 0


def _plot(path: Path, run: Run, cf: Bounce, measured: dict, args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tt = np.linspace(0.0, run.t[-1], 600)
    closed = [cf.position(x) for x in tt]
    closed = np.array([np.nan if x is None else x for x in closed])
    fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ax0.plot(run.t, run.u, ".", ms=2, label=f"this code ({args.scheme})")
    ax0.plot(tt, closed, "k-", lw=0.8, label="closed form")
    ax0.axhline(-args.height, color="0.5", ls="--", lw=0.8, label="ground")
    for key, style in (("fall_time", ":"), ("detach_time", "-.")):
        if measured[key] is not None:
            ax0.axvline(measured[key], color="r", ls=style, lw=0.8, label=key.replace("_", " "))
    ax0.set(ylabel="DZ [m]", title=f"SDND108{args.modeling}: mass bouncing on an "
                                   f"{'elastic' if args.modeling == 'a' else 'absorbing'} ground")
    ax0.legend(fontsize=8)
    ax1.plot(run.t, run.force, lw=1)
    ax1.set(xlabel="t [s]", ylabel="ground force R_N [N]")
    fig.tight_layout()
    output_folder.save_figure(fig, path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
