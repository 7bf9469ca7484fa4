"""The configuration of a bar-impact run (cases/bar_impact.py): each set-up's reference data and
defaults (:data:`REFERENCE`, :data:`AREA`, :data:`DEFAULT_NX`), the run's resolved parameters
(:class:`Config`), the flags checked against their ranges with their defaults resolved
(:func:`resolve`, :func:`check_ranges`) and the flags that depart from the set-up's reference data
(:func:`departures`)."""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from cases.bar.checks import SAFE_RELEASE
from fem import ranges
from fem.run.lifecycle import BadInput

#: the reference data of each set-up (flags --length, --young, --rho, --velocity, --gap) and its section
REFERENCE = {
    "wall": dict(length=0.2, young=2.0e11, rho=8000.0, velocity=100.0, gap=2.0e-3),
    "periodic": dict(length=1.0, young=1.0, rho=1.0, velocity=0.0, gap=0.0),
}
AREA = {"wall": 4.0e-4, "periodic": 1.0}  # section [m^2]: SDNV100's 2 cm x 2 cm; unit section
DEFAULT_NX = {"wall": 80, "periodic": 40}
WIDTH_OVER_LENGTH = 0.1  # strip width / bar length (2 cm for SDNV100's 0.2 m)
PENALTY_FACTOR = 100.0  # total penalty stiffness / (E A / h)
HHT_ALPHA = -0.1


@dataclass(frozen=True)
class Config:
    """The run's resolved parameters (SI)."""

    setup: str
    length: float
    young: float
    rho: float
    poisson: float
    velocity: float
    gap: float
    nx: int
    dt: float
    t_end: float
    method: str
    mass: str
    mass_given: bool
    release: str  # resolved: immediate / delayed, or "none" (penalty, theta)
    scheme: str
    alpha: float | None
    area: float
    width: float
    thickness: float
    paraview: bool

    @property
    def c(self) -> float:
        """Bar wave speed sqrt(E / rho) [m/s]."""
        return math.sqrt(self.young / self.rho)

    @property
    def h(self) -> float:
        """Element length L / nx [m]."""
        return self.length / self.nx

    @property
    def transit(self) -> float:
        """L / c [s]."""
        return self.length / self.c

    @property
    def penalty_stiffness(self) -> float:
        """Total penalty stiffness PENALTY_FACTOR E A / h [N/m] (half at each end node)."""
        return PENALTY_FACTOR * self.young * self.area / self.h


def _positive(flag: str, value: float, unit: str) -> None:
    if not value > 0:
        raise BadInput(f"{flag} must be > 0 {unit}, got {value:g}")


def check_ranges(args: argparse.Namespace, length: float, young: float, rho: float, velocity: float, gap: float,
                 dt: float, t_end: float, c: float) -> None:
    """The resolved values against their physical ranges (fem.ranges; the signs, and --length,
    --young, --rho, are checked before), the step against the run and the wave's transit L/c."""
    if args.setup == "wall":
        ranges.check_all([("--velocity", velocity, ranges.SPEED), ("--gap", gap, ranges.GAP)])
    if args.t_end is None and t_end not in ranges.DURATION:
        flags = "--gap, --velocity, --length, --young, --rho" if args.setup == "wall" else "--length, --young, --rho"
        rule = "gap / velocity + 4 L / c" if args.setup == "wall" else "12 L / c"
        raise BadInput(f"{flags}: the default --t-end ({rule} = {t_end:.4g} s) is outside the physical range "
                       f"{ranges.DURATION.interval()} of a {ranges.DURATION.name}: give --t-end")
    ranges.check("--t-end", t_end, ranges.DURATION)
    flags = "--length, --young, --rho"
    ranges.check_step("--dt" if args.dt is not None else "--dt (default h / 2c)", dt, t_end, "--t-end",
                      [("the wave's transit of the bar L / c", length / c, flags)])


def resolve(args: argparse.Namespace) -> Config:
    """Check the flags (fem.run.lifecycle.BadInput naming the first one out of range) and resolve defaults."""
    setup = args.setup
    ref = REFERENCE[setup]
    if setup == "periodic":
        for flag, value in (("--velocity", args.velocity), ("--gap", args.gap)):
            if value is not None:
                raise BadInput(f"{flag} belongs to --setup wall: the periodic set-up starts at rest from "
                               "u = (L - x)/2, with no velocity and no gap")
    length = ref["length"] if args.length is None else args.length
    young = ref["young"] if args.young is None else args.young
    rho = ref["rho"] if args.rho is None else args.rho
    velocity = ref["velocity"] if args.velocity is None else args.velocity
    gap = ref["gap"] if args.gap is None else args.gap
    _positive("--length", length, "m")
    _positive("--young", young, "Pa")
    _positive("--rho", rho, "kg/m^3")
    if not -1.0 < args.poisson < 0.5:
        raise BadInput(f"--poisson must lie in (-1, 0.5), got {args.poisson:g}")
    ranges.check_all([("--length", length, ranges.LENGTH), ("--young", young, ranges.YOUNG),
                      ("--rho", rho, ranges.DENSITY)])
    if setup == "wall":
        _positive("--velocity", velocity, "m/s (the speed towards the wall)")
        if not gap >= 0:
            raise BadInput(f"--gap must be >= 0 m, got {gap:g}")
    method = args.method
    if args.mass is None:
        mass = "consistent" if method == "theta" else "redistributed"
    else:
        mass = args.mass
    if method == "theta" and mass == "redistributed":
        raise BadInput("--mass redistributed cannot be used with --method theta: the Moreau-Jean scheme needs a "
                       "mass on every dof (use --mass consistent or lumped)")
    nx = DEFAULT_NX[setup] if args.nx is None else args.nx
    if nx < 1:
        raise BadInput(f"--nx must be an integer >= 1, got {nx}")
    ranges.check("--nx", nx, ranges.ELEMENTS)
    if mass == "redistributed" and nx < 2:
        raise BadInput(f"--nx must be >= 2 with --mass redistributed (the massless end needs two rows of nodes "
                       f"with mass), got {nx}")
    if method in ("penalty", "theta"):
        if args.release != "auto":
            raise BadInput(f"--release applies to --method lagrange or augmented, not {method} (no release rule)")
        release = "none"
    else:
        release = args.release if args.release != "auto" else (
            SAFE_RELEASE if mass == "redistributed" else "immediate")
    if method == "theta" and args.scheme != "newmark":
        raise BadInput("--scheme hht cannot be used with --method theta (the Moreau-Jean theta-method is the "
                       "time scheme)")
    if args.alpha is not None:
        if args.scheme != "hht":
            raise BadInput(f"--alpha applies to --scheme hht only, got --alpha {args.alpha:g} with --scheme "
                           f"{args.scheme}")
        if not -1.0 < args.alpha <= 0.0:
            raise BadInput(f"--alpha must lie in (-1, 0] (HHT), got {args.alpha:g}")
    alpha = (HHT_ALPHA if args.alpha is None else args.alpha) if args.scheme == "hht" else None
    c = math.sqrt(young / rho)
    if not (math.isfinite(c) and c > 0):
        raise BadInput(f"--young {young:g} Pa, --rho {rho:g} kg/m^3: the wave speed sqrt(E/rho) overflows or "
                       "vanishes in double precision")
    h = length / nx
    dt = h / (2.0 * c) if args.dt is None else args.dt
    _positive("--dt", dt, "s")
    if args.t_end is None:
        t_end = (gap / velocity + 4.0 * length / c) if setup == "wall" else 12.0 * length / c
    else:
        t_end = args.t_end
    _positive("--t-end", t_end, "s")
    width = WIDTH_OVER_LENGTH * length
    area = AREA[setup]
    check_ranges(args, length, young, rho, velocity, gap, dt, t_end, c)
    if not all(math.isfinite(x) and x > 0 for x in (dt, t_end, h, width, area / width)):
        raise BadInput(f"--length {length:g} m, --nx {nx}: the element size or the strip's thickness is not a "
                       "usable number")
    return Config(setup, float(length), float(young), float(rho), float(args.poisson), float(velocity), float(gap),
                  int(nx), float(dt), float(t_end), method, mass, args.mass is not None, release, args.scheme, alpha,
                  area, width, area / width, not args.no_paraview)


def departures(cfg: Config) -> list[str]:
    """Flags whose value differs from the set-up's reference data (relative 1e-12)."""
    ref = dict(REFERENCE[cfg.setup], poisson=0.0)
    return [f"--{key}" for key in ("length", "young", "rho", "poisson", "velocity", "gap")
            if not math.isclose(getattr(cfg, key), ref[key], rel_tol=1e-12, abs_tol=0.0)]
