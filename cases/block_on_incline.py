"""Block on an inclined table: Coulomb stick or slide of the SDNV105 block (or any size).

What it illustrates
-------------------
The SDNV105 graphite block (0.36 m x 0.80 m, E 6e11 Pa, nu 0.2, rho 1450 kg/m^3, AMOR_ALPHA 1e-4 s)
rests on its table (E 1e14 Pa, nu 0.3, rho 2500 kg/m^3, AMOR_ALPHA 1.6e-3 s, DY = 0 on CTGROUND,
DX = 0 on S1); the support is inclined by beta. The slope is modelled by rotating gravity into the
table frame, g = 9.81 (sin beta, -cos beta): the mesh stays horizontal and the slope points along +x.
A rigid block on a Coulomb slope sticks when tan beta <= mu and otherwise slides down with the
constant acceleration a = g (sin beta - mu cos beta) (the block's width and height do not enter).
The run checks that the contact machinery (Lagrange active set, augmented Lagrangian, or penalty
shock springs) reproduces both regimes.

Phases
------
1. ``settle`` (t = -0.1 -> 0 s, HHT alpha = -0.3, dt = 0.01 s): the normal component of gravity
   (0, -g cos beta) only, ramped over 0.05 s then held; frictionless contact and DX(O1) = 0 (the
   SDNV105 self-weight anchor), so the block is pressed onto the table with no tangential load.
   A dynamic phase (not Static): the augmented method reopens the nodes touching at zero gap at
   its first iteration (R_N - rho_n g = 0), and a static step would then be singular (the block
   floats); the mass keeps the dynamic step regular until the contacts close.
2. ``release`` (t = 0 -> --dt, the step cut in 20) then ``slope`` (--dt -> --t-end, step --dt),
   HHT --alpha (default -0.1, SDNV105's release value; 0 = Newmark average acceleration): the full
   rotated gravity, friction --mu, DX(O1) released. They start from the settled displacement at
   rest with zero acceleration, the state of a block at rest on the slope. ``State.released``
   is not used: it recomputes the acceleration from equilibrium with the contact forces of the
   frictionless settled state, i.e. a0 = g sin beta for the whole block, sticking base included;
   with the trapezoidal rule that start-up error never decays and, on the SDNV105 block at
   20 deg / mu 0.9, makes the block rock and lose contact. With a0 = 0 the only start-up error,
   when the block slides, is a rigid translation: a velocity offset (1 - gamma) a h over the
   first step h, made small by cutting that step in 20 (as SDNV105 starts its release with fine
   steps). High-frequency HHT damping removes the elastic ringing of the step load.

Measured: the block's centre-of-mass x-displacement and velocity (mass-weighted mean of the block
nodes, through the consistent mass matrix), the tangential displacement of O and A relative to the
table since the release (``slip_O``, ``slip_A``, along +x, whether the node is sliding, sticking or
lifted: at mu = 0.3 the uphill corner O lifts by a few nanometres as the friction moment shifts
the pressure downhill), the sums of R_N and R_T (friction force along +x on the block) over the
base nodes, and the largest slip of the contact law (``max_law_slip``: cumulated in the SLIP
status only; for the penalty law it excludes the elastic pre-slip of the tangential springs). The
acceleration is the slope of a least-squares line through the centre-of-mass velocity over the
sliding part (the steps after the release where no base node sticks and at least one slips; all
the steps after the release when the block sticks); a line also absorbs the start-up velocity
offset. The block sticks when a base node is in the STICK status at the end (a lightly loaded
corner may slip locally, e.g. the uphill node of a penalty base, while the block as a whole sticks;
a sliding block has every loaded node in SLIP).

Tipping: a block sticks or slides without rocking only while the resultant base force stays
inside the base: tan beta < width / height at rest, mu < width / height when sliding (with a
margin for the dynamic start). The SDNV105 block (0.36 x 0.80) would tip before sliding at
mu = 0.9; use e.g. --width 0.8 --height 0.36 there.

Contact methods (``--method``)
------------------------------
* ``lagrange`` / ``augmented``: :class:`contact.multipliers.MultiplierContact` of CONHAUT (block
  base, slave) against CONBAS (table top, master), node-to-segment.
* ``penalty``: :class:`contact.penalty.ShockSprings` (Code_Aster DIS_CHOC) at every CONHAUT node
  against CONBAS, node-to-segment, with RIGI_NOR = 3e10 N/m and RIGI_TAN = 1e10 N/m per node, no
  damping. RIGI_NOR is SDNV105 b's value: under the block's weight (4097 N over 5 nodes) the
  penetration is 4097 / (5 x 3e10) = 2.7e-8 m, negligible against the mesh (0.02 m) and below the
  1e-7 m slip scale of the checks; the contact frequency sqrt(5 RIGI_NOR / M) / 2 pi = 3 kHz is
  far above anything the slope excites and the stiffness is 1/10 or less of the block's own
  nodal stiffness (3e11 - 8e12 N/m), so Newton stays well conditioned. RIGI_TAN = 1e10 N/m keeps
  the elastic pre-slip of a sticking node below mu R_N / RIGI_TAN = 0.9 x 820 / 1e10 = 7e-8 m
  (it is elastic, not slip).
  At the Coulomb cap the penalty law gives exactly R_T = mu R_N, so the sliding acceleration does
  not depend on either stiffness; only the equilibrium penetration and pre-slip do.

Outputs in --out (default results/block_on_incline)
---------------------------------------------------
* ``summary.json``: sticks, acceleration (measured) and analytic_acceleration [m/s^2], mu,
  angle_deg, method, max slips, final R_N / R_T sums, run statistics (steps, Newton iterations per
  phase, subdivisions, wall time);
* ``history.csv``: t, ux_com, vx_com (block centre of mass), slip_O, slip_A (along +x since the
  release), rn_sum, rt_sum (friction along +x on the block), n_slip, n_stick (base nodes slipping,
  sticking), iterations; one row per step of every phase (t < 0: settling);
* ``slip.png``: slip of O and A after the release against the analytic 0.5 a t^2.

Run::

    python cases/block_on_incline.py                       # 20 deg, mu 0.9: sticks
    python cases/block_on_incline.py --angle-deg 30 --mu 0.3 --method augmented   # slides
    python cases/block_on_incline.py --angle-deg 45 --width 0.8 --height 0.36 --method penalty
    python cases/block_on_incline.py --help                # every parameter

Invalid input (angle outside [0, 90) deg, mu < 0, dt <= 0, t_end <= 0, non-positive sizes or
element counts) exits with code 2 and a message naming the flag; a Newton failure exits with 1.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from contact.multipliers import MultiplierContact
from contact.penalty import ShockLaw, ShockSprings
from contact.state import SLIP, STICK
from contact.zone import contact_zone
from fem.dynamics import ConvergenceError, NewtonSettings, Phase, State, integrate
from fem.functions import ramp
from fem.loads import Gravity, ImposedDisplacement
from fem.material import ElasticMaterial
from fem.mesh_io import read_mesh
from fem.model import Model
from fem.results import HistoryWriter
from fem.schemes import HHT, Newmark
from meshes.generate import block_on_table, reference_mesh_path

G = 9.81
BLOCK = dict(young=6.0e11, poisson=0.2, density=1450.0, rayleigh_stiffness=1.0e-4)
TABLE = dict(young=1.0e14, poisson=0.3, density=2500.0, rayleigh_stiffness=1.6e-3)
REFERENCE_SIZE = (0.36, 0.80)  # width, height of the SDNV105 block [m]
PENALTY = dict(normal_stiffness=3.0e10, tangential_stiffness=1.0e10)  # RIGI_NOR, RIGI_TAN [N/m]
METHODS = ("lagrange", "augmented", "penalty")
SETTLE_START, SETTLE_RAMP_END, SETTLE_DT = -0.1, -0.05, 0.01
RELEASE_SUBSTEPS = 20  # the first step after the release is cut in this many (see the docstring)
COLUMNS = ("t", "ux_com", "vx_com", "slip_O", "slip_A", "rn_sum", "rt_sum", "n_slip", "n_stick", "iterations")


class InputError(ValueError):
    """A command-line value out of its range (the message names the flag)."""


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--angle-deg", type=float, default=20.0, help="slope angle beta [deg], in [0, 90)")
    p.add_argument("--mu", type=float, default=0.9, help="Coulomb friction coefficient, >= 0")
    p.add_argument("--method", choices=METHODS, default="lagrange", help="contact method")
    p.add_argument("--t-end", type=float, default=0.1, help="duration after the release [s], > 0")
    p.add_argument("--dt", type=float, default=0.0025, help="time step after the release [s], > 0")
    p.add_argument("--alpha", type=float, default=-0.1,
                   help="HHT alpha after the release (0: Newmark average acceleration), in (-1, 0]")
    p.add_argument("--width", type=float, default=REFERENCE_SIZE[0], help="block width [m], > 0")
    p.add_argument("--height", type=float, default=REFERENCE_SIZE[1], help="block height [m], > 0")
    p.add_argument("--nx", type=int, default=None,
                   help="block elements across (even; default 4); any of --nx/--ny/--width/--height "
                        "other than the SDNV105 values generates a uniform mesh with gmsh")
    p.add_argument("--ny", type=int, default=None, help="block elements along the height (default 2)")
    p.add_argument("--out", type=Path, default=Path("results/block_on_incline"), help="output folder")
    p.add_argument("--no-plot", action="store_true", help="skip slip.png")
    return p.parse_args(argv)


def check_args(args: argparse.Namespace) -> None:
    """Raise InputError naming the first flag whose value is out of range."""

    def finite(name, value):
        if not math.isfinite(value):
            raise InputError(f"{name} must be a finite number, got {value}")

    finite("--angle-deg", args.angle_deg)
    if not 0.0 <= args.angle_deg < 90.0:
        raise InputError(f"--angle-deg must lie in [0, 90) degrees, got {args.angle_deg:g}")
    finite("--mu", args.mu)
    if args.mu < 0:
        raise InputError(f"--mu (friction coefficient) must be >= 0, got {args.mu:g}")
    for flag, value in (("--dt", args.dt), ("--t-end", args.t_end), ("--width", args.width),
                        ("--height", args.height)):
        finite(flag, value)
        if not value > 0:
            raise InputError(f"{flag} must be > 0, got {value:g}")
    if not -1.0 < args.alpha <= 0.0:
        raise InputError(f"--alpha (HHT) must lie in (-1, 0], got {args.alpha:g}")
    for flag, value in (("--nx", args.nx), ("--ny", args.ny)):
        if value is not None and value < 1:
            raise InputError(f"{flag} must be >= 1, got {value}")
    if args.nx is not None and args.nx % 2:
        raise InputError(f"--nx must be even (the mesh has a base-centre node O1), got {args.nx}")


def analytic_acceleration(angle_deg: float, mu: float) -> float:
    """Rigid block on a Coulomb slope: g (sin beta - mu cos beta) if tan beta > mu, else 0 [m/s^2]."""
    beta = math.radians(angle_deg)
    return G * (math.sin(beta) - mu * math.cos(beta)) if math.tan(beta) > mu else 0.0


def build_mesh(args: argparse.Namespace):
    """The SDNV105 reference mesh, or a uniform block-on-table mesh of the requested size."""
    reference = (args.width, args.height) == REFERENCE_SIZE and args.nx is None and args.ny is None
    if reference:
        return read_mesh(reference_mesh_path("sdnv105_quad4"))
    with tempfile.TemporaryDirectory() as tmp:
        path = block_on_table(Path(tmp) / "block.msh", half_width=args.width / 2, height=args.height,
                              layout="refined", nx=args.nx or 4, ny=args.ny or 2, element="quad4")
        return read_mesh(path)


def build_contact(model: Model, zone, method: str, mu: float):
    """The contact term of the block base against the table top."""
    if method == "penalty":
        return ShockSprings(model, zone, ShockLaw(friction=mu, **PENALTY))
    return MultiplierContact(model, zone, friction=mu, method=method)


def phases(args: argparse.Namespace) -> tuple[Phase, ...]:
    """The settling phase (normal gravity, frictionless, DX(O1) = 0), then the release on the
    slope: its first step --dt cut into RELEASE_SUBSTEPS steps, then steps of --dt."""
    beta = math.radians(args.angle_deg)
    table = (ImposedDisplacement("CTGROUND", "y"), ImposedDisplacement("S1", "x"))
    settle = Phase("settle", SETTLE_START, 0.0, SETTLE_DT, HHT(-0.3),
                   gravity=Gravity((0.0, -G * math.cos(beta)), ramp(SETTLE_START, SETTLE_RAMP_END)),
                   constraints=table + (ImposedDisplacement("O1", "x"),), friction=0.0,
                   newton=NewtonSettings(rela=1e-8, max_iterations=40))
    scheme = Newmark() if args.alpha == 0 else HHT(args.alpha)
    common = dict(gravity=Gravity((G * math.sin(beta), -G * math.cos(beta))), constraints=table,
                  friction=args.mu, newton=NewtonSettings(rela=1e-8, max_iterations=40))
    t_fine = min(args.dt, args.t_end)
    release = Phase("release", 0.0, t_fine, t_fine / RELEASE_SUBSTEPS, scheme, **common)
    if t_fine >= args.t_end:
        return settle, release
    return settle, release, Phase("slope", t_fine, args.t_end, args.dt, scheme, **common)


def fit_acceleration(t: np.ndarray, v: np.ndarray) -> float:
    """Slope of the least-squares line through (t, v) [m/s^2] (0 for fewer than 2 points)."""
    if t.size < 2:
        return 0.0
    return float(np.polyfit(t, v, 1)[0])


def run(args: argparse.Namespace) -> dict:
    """Build, run both phases, write history.csv; return the summary (raises ConvergenceError)."""
    mesh = build_mesh(args)
    model = Model(mesh, {"BLOCK": ElasticMaterial(**BLOCK), "GROUN": ElasticMaterial(**TABLE)})
    zone = contact_zone(mesh, "CONHAUT", "CONBAS")
    contact = build_contact(model, zone, args.method, args.mu)
    schedule = phases(args)

    block_nodes = mesh.nodes("BLOCK")
    ones_x = np.zeros(model.n_dofs)
    ones_x[2 * block_nodes] = 1.0
    mass_x = model.mass @ ones_x  # nodal masses of the block's x dofs (consistent mass row sums)
    mass = float(mass_x.sum())
    base = contact.zone.slave
    k_o, k_a = (int(np.flatnonzero(base == mesh.node(name))[0]) for name in ("O", "A"))

    rows: list[dict] = []
    stats = {"steps": 0, "newton_iterations": 0, "subdivisions": 0, "iterations_per_phase": {},
             "min_iterations_per_step": {}}
    start = time.perf_counter()
    u_release = None
    max_law_slip = 0.0  # largest |slip of the contact law since the release| over the base nodes [m]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    state = State.at_rest(model.n_dofs, SETTLE_START)
    with HistoryWriter(out / "history.csv", COLUMNS) as history:
        for i, phase in enumerate(schedule):
            if phase.name == "release":
                # at rest on the slope, zero acceleration (see the module docstring: not
                # State.released, whose acceleration would ignore the friction about to act)
                u_release = state.u.copy()
                law_slip_at_release = contact.state().slip.copy()
                state = State(0.0, u_release, np.zeros(model.n_dofs), np.zeros(model.n_dofs))
            iterations = []
            for k, result in enumerate(integrate(model, phase, state, [contact])):
                state = result.state
                if k > 0:
                    iterations.append(result.iterations)
                    stats["subdivisions"] += result.substeps - 1
                elif i > 0:
                    continue  # the state at a phase start is the last one of the previous phase
                cs = contact.state()
                along_x = cs.tangent[:, 0]
                if u_release is None:
                    slide = np.zeros(base.size)
                else:  # tangential displacement of the base nodes relative to the table since the release
                    max_law_slip = max(max_law_slip, float(np.abs(cs.slip - law_slip_at_release).max()))
                    geo = zone.geometry(mesh.points, state.u)
                    slide = (geo.tangent_rows(model.n_dofs) @ (state.u - u_release)) * geo.tangent[:, 0]
                row = {"t": state.t, "ux_com": float(mass_x @ state.u) / mass,
                       "vx_com": float(mass_x @ state.v) / mass, "slip_O": float(slide[k_o]),
                       "slip_A": float(slide[k_a]), "rn_sum": float(cs.rn.sum()),
                       "rt_sum": float((cs.rt * along_x).sum()),
                       "n_slip": float(np.count_nonzero(cs.status == SLIP)),
                       "n_stick": float(np.count_nonzero(cs.status == STICK)),
                       "iterations": float(result.iterations)}
                history.append(row)
                rows.append(row)
            stats["steps"] += len(iterations)
            stats["newton_iterations"] += int(sum(iterations))
            stats["iterations_per_phase"][phase.name] = int(sum(iterations))
            stats["min_iterations_per_step"][phase.name] = int(min(iterations))
    stats["wall_s"] = time.perf_counter() - start

    h = {c: np.array([r[c] for r in rows]) for c in COLUMNS}
    after = h["t"] > 0
    sliding = after & (h["n_slip"] > 0) & (h["n_stick"] == 0)
    sticks = bool(h["n_stick"][-1] > 0)
    window = sliding if np.count_nonzero(sliding) >= 3 else after
    a_meas = fit_acceleration(h["t"][window], h["vx_com"][window])
    a_ref = analytic_acceleration(args.angle_deg, args.mu)
    beta = math.radians(args.angle_deg)
    return {
        "sticks": sticks,
        "acceleration": a_meas,
        "analytic_acceleration": a_ref,
        "acceleration_rel_error": abs(a_meas - a_ref) / abs(a_ref) if a_ref else None,
        "mu": args.mu,
        "angle_deg": args.angle_deg,
        "method": args.method,
        "t_end": args.t_end,
        "dt": args.dt,
        "width": args.width,
        "height": args.height,
        "block_mass_kg": mass,
        "normal_weight_N": mass * G * math.cos(beta),
        "rn_sum_final_N": float(h["rn_sum"][-1]),
        "rn_sum_mean_N": float(h["rn_sum"][after].mean()),
        "rt_sum_final_N": float(h["rt_sum"][-1]),
        "max_abs_slip_O": float(np.abs(h["slip_O"][after]).max()),
        "max_abs_slip_A": float(np.abs(h["slip_A"][after]).max()),
        "slip_O_final": float(h["slip_O"][-1]),
        "slip_A_final": float(h["slip_A"][-1]),
        "analytic_slip_final": 0.5 * a_ref * float(h["t"][-1]) ** 2,
        "max_law_slip": max_law_slip,
        "ux_com_final": float(h["ux_com"][-1]),
        "fit_steps": int(np.count_nonzero(window)),
        "run": stats,
    }


def plot_slip(out: Path, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fem.results import read_history

    h = read_history(out / "history.csv")
    after = h["t"] >= 0
    t = h["t"][after]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(t, h["slip_O"][after] * 1e3, "o-", ms=3, label="slip at O")
    ax.plot(t, h["slip_A"][after] * 1e3, "x--", ms=4, label="slip at A")
    tt = np.linspace(0.0, t.max(), 200)
    ax.plot(tt, 0.5 * summary["analytic_acceleration"] * tt**2 * 1e3, "k:", label="0.5 a t$^2$ (rigid, Coulomb)")
    ax.set(xlabel="time after release [s]", ylabel="slip along the slope [mm]",
           title=f"beta = {summary['angle_deg']:g} deg, mu = {summary['mu']:g}, {summary['method']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "slip.png", dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a malformed flag (2)
        return int(exc.code or 0)
    try:
        check_args(args)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    margin = args.width / 2  # table overhang on the downhill side (block_on_table's default extent)
    a_ref = analytic_acceleration(args.angle_deg, args.mu)
    if 0.5 * a_ref * args.t_end**2 > margin:
        print(f"warning: the block would slide {0.5 * a_ref * args.t_end**2:.3g} m, beyond the table's end "
              f"({margin:g} m downhill): its base loses contact there", file=sys.stderr)
    try:
        summary = run(args)
    except ConvergenceError as err:
        print(f"error: {err}\nresults up to the failure are in {args.out}/history.csv", file=sys.stderr)
        return 1
    except ValueError as err:  # mesh generation or model parameters (MeshError, ContactError)
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = Path(args.out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    if not args.no_plot:
        plot_slip(out, summary)
    a, a_ref = summary["acceleration"], summary["analytic_acceleration"]
    print(f"block on a {args.angle_deg:g} deg slope, mu = {args.mu:g} (tan beta = "
          f"{math.tan(math.radians(args.angle_deg)):.4f}), {args.method}: "
          f"{'sticks' if summary['sticks'] else 'slides'}")
    print(f"{'quantity':32s} {'this run':>14s} {'analytic':>14s}")
    print(f"{'acceleration [m/s^2]':32s} {a:14.6g} {a_ref:14.6g}"
          + (f"   rel. diff {abs(a - a_ref) / abs(a_ref):.2e}" if a_ref else ""))
    for name in ("O", "A"):
        print(f"{f'slip at {name} at t_end [m]':32s} {summary[f'slip_{name}_final']:14.6g} "
              f"{summary['analytic_slip_final']:14.6g}")
    print(f"{'sum R_N [N]':32s} {summary['rn_sum_final_N']:14.6g} {summary['normal_weight_N']:14.6g}")
    print(f"{'sum R_T along +x [N]':32s} {summary['rt_sum_final_N']:14.6g} "
          f"{-summary['block_mass_kg'] * (G * math.sin(math.radians(args.angle_deg)) - a_ref):14.6g}")
    run_stats = summary["run"]
    print(f"{run_stats['steps']} steps, {run_stats['newton_iterations']} Newton iterations "
          f"({', '.join(f'{k}: {v}' for k, v in run_stats['iterations_per_phase'].items())}), "
          f"{run_stats['subdivisions']} subdivisions, {run_stats['wall_s']:.2f} s; results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
