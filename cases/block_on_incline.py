"""Block on an inclined table: Coulomb stick or slide of the SDNV105 block (or any size).

What it illustrates
-------------------
The SDNV105 graphite block (0.36 m x 0.80 m, E 6e11 Pa, nu 0.2, rho 1450 kg/m^3, AMOR_ALPHA 1e-4 s)
rests on its table (E 1e14 Pa, nu 0.3, rho 2500 kg/m^3, AMOR_ALPHA 1.6e-3 s, DY = 0 on CTGROUND,
DX = 0 on S1); the support is inclined by beta. The slope is modelled by rotating gravity into the
table frame, g = 9.81 (sin beta, -cos beta): the mesh stays horizontal and the slope points along +x.
A rigid block on a Coulomb slope sticks when tan beta <= mu and otherwise slides down with the
constant acceleration a = g (sin beta - mu cos beta) (contact.references.incline). The run checks that
the contact machinery (Lagrange, augmented Lagrangian or penalty springs) reproduces both regimes.

Stages (fem.problem: a SelfWeight, a Release, a BaseMotion without motion; one history.csv)
------------------------------------------------------------------------------------------
1. ``settle`` (t = -0.1 -> 0 s, HHT alpha = -0.3, dt = 0.01 s): the normal component of gravity
   (0, -g cos beta) only, ramped over 0.05 s then held; frictionless contact and DX(O1) = 0 (the
   SDNV105 self-weight anchor), so the block is pressed onto the table with no tangential load; a
   dynamic phase, not Static (why: docs/one_dof.md).
2. ``release`` (t = 0 -> --dt, the step cut in 20) then ``slope`` (--dt -> --t-end, step --dt),
   HHT --alpha (default -0.1, SDNV105's release value; 0 = Newmark average acceleration): the full
   rotated gravity, friction --mu, DX(O1) released. They start from the settled displacement at
   rest with zero acceleration (``Release(acceleration="zero")``), the state of a block at rest on
   the slope. The equilibrium start is not used: its a0 = g sin beta for the whole block, sticking
   base included, is a start-up error that never decays with the trapezoidal rule (the SDNV105
   block at 20 deg / mu 0.9 rocks and loses contact); with a0 = 0 a sliding block only lags by
   (1 - gamma) a h over the first step h, made small by cutting that step in 20 (docs/one_dof.md).

Measured: the block's centre-of-mass x-displacement and velocity (mass-weighted mean of the block
nodes, through the consistent mass matrix), the tangential displacement of O and A relative to the
table since the release (``slip_O``, ``slip_A``, along +x, whether the node slides, sticks or lifts),
the sums of R_N and R_T (friction along +x on the block) over the base nodes, and the contact law's
largest slip (``max_law_slip``: cumulated in the SLIP status only, not the penalty pre-slip).

Stick or slide (cases.incline.verdict; why so: docs/one_dof.md)
---------------------------------------------------------------
The verdict reads the second half of the run after the release (the ``window``, after the start-up
transient): the block slides when its base (the mean of ``slip_O`` and ``slip_A``) slips relative
to the table by more than s_stick = max(1e-7 m, mu R_N,max / RIGI_TAN) there (R_N,max: the most
loaded base node at the release), and sticks otherwise; the acceleration is the slope of a
least-squares line through the centre-of-mass velocity over the sliding steps or the window (criterion,
window, threshold and slips: summary.json ``stick_slide``, printed).

Tipping: a block sticks or slides without rocking only while the resultant base force stays inside
the base: tan beta < width / height at rest, mu < width / height when sliding (with a margin for the
dynamic start). The SDNV105 block (0.36 x 0.80) would tip before sliding at mu = 0.9; use e.g.
--width 0.8 --height 0.36 there.

Contact methods (``--method``)
------------------------------
* ``lagrange`` / ``augmented``: :class:`contact.multipliers.MultiplierContact` of CONHAUT (block
  base, slave) against CONBAS (table top, master), node-to-segment.
* ``penalty``: :class:`contact.penalty.ShockSprings` (Code_Aster DIS_CHOC) at every CONHAUT node
  against CONBAS, node-to-segment, with RIGI_NOR = 3e10 N/m (SDNV105 b's) and RIGI_TAN = 1e10 N/m
  per node, no damping (why these values: docs/one_dof.md). At the Coulomb cap it gives exactly
  R_T = mu R_N, so the sliding acceleration depends on neither stiffness.

Outputs in --out (default results/block_on_incline)
---------------------------------------------------
* ``summary.json`` (fem.run.lifecycle: ``status``, ``configuration``, ``command``, ``version``,
  ``parameters``): sticks, regime and analytic_regime, acceleration (measured) and
  analytic_acceleration [m/s^2], ``stick_slide`` (criterion, window, threshold, slips), mu, angle_deg,
  method, max slips, final R_N / R_T sums, run statistics (steps, Newton iterations per phase,
  subdivisions, wall time);
* ``history.csv``: t, ux_com, vx_com (block centre of mass), slip_O, slip_A (along +x since the
  release), rn_sum, rt_sum (friction along +x on the block), n_slip, n_stick (base nodes slipping,
  sticking), iterations; one row per step of every phase (t < 0: settling), written as the run goes;
* ``slip.png``: slip of O and A after the release against the analytic 0.5 a t^2.

Configuration: always ``custom``: no Code_Aster test copied here has a block on a slope; the
reference of every run is the closed-form Coulomb solution for its own angle and mu.

Run::

    python cases/block_on_incline.py                       # 20 deg, mu 0.9: sticks
    python cases/block_on_incline.py --angle-deg 30 --mu 0.3 --method augmented   # slides
    python cases/block_on_incline.py --angle-deg 45 --width 0.8 --height 0.36 --method penalty
    python cases/block_on_incline.py --help                # every parameter

Exit codes (fem.run.lifecycle): 0 done; 2 invalid input (angle outside [0, 90) deg, mu < 0, dt <= 0,
t_end <= 0, non-positive sizes or element counts, a mesh or run too large for the machine: one line
naming the flag), before anything is written; 1 a Newton failure (the history up to it is on disk,
summary.json says ``failed``); 130 / 143 interrupted.
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import argparse
import math
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

from fem.constants import GRAVITY
from contact.laws import Augmented, Lagrange, Penalty
from cases.incline.verdict import stick_or_slide, stick_threshold
from contact.references.incline import analytic_acceleration, sticks_on_slope
from contact.state import SLIP, STICK
from fem.io import output_folder
from fem import ranges
from fem.model.material import ElasticMaterial
from fem.mesh.read import read_mesh
from fem.problem import (BaseMotion, Body, Pair, Problem, Release, SelfWeight, Settings, Support, Uniform, assemble,
                         run_stages)
from fem.stage.phase import NewtonSettings
from fem.time.march import march
from fem.run.lifecycle import (BadInput, CaseParser, Estimate, Run, add_run_flags, check_resources, command_line,
                     count_steps, estimate, execute, finite, prepare_output)
from meshes.generate import block_on_table, reference_mesh_path

G = GRAVITY
BLOCK = dict(young=6.0e11, poisson=0.2, density=1450.0, rayleigh_stiffness=1.0e-4)
TABLE = dict(young=1.0e14, poisson=0.3, density=2500.0, rayleigh_stiffness=1.6e-3)
REFERENCE_SIZE = (0.36, 0.80)  # width, height of the SDNV105 block [m]
TABLE_DEPTH = 0.08  # block_on_table's default table thickness [m]
PENALTY = dict(normal_stiffness=3.0e10, tangential_stiffness=1.0e10)  # RIGI_NOR, RIGI_TAN [N/m]
METHODS = ("lagrange", "augmented", "penalty")
SETTLE_START, SETTLE_RAMP_END, SETTLE_DT = -0.1, -0.05, 0.01
RELEASE_SUBSTEPS = 20  # the first step after the release is cut in this many (see the docstring)
COLUMNS = ("t", "ux_com", "vx_com", "slip_O", "slip_A", "rn_sum", "rt_sum", "n_slip", "n_stick", "iterations")


def parse_args(argv=None) -> argparse.Namespace:
    p = CaseParser(prog="block_on_incline.py", description=__doc__)
    p.add_argument("--angle-deg", type=finite, default=20.0, help="slope angle beta [deg], in [0, 90)")
    p.add_argument("--mu", type=finite, default=0.9, help="Coulomb friction coefficient, >= 0")
    p.add_argument("--method", choices=METHODS, default="lagrange", help="contact method")
    p.add_argument("--t-end", type=finite, default=0.1, help="duration after the release [s], > 0")
    p.add_argument("--dt", type=finite, default=0.0025, help="time step after the release [s], > 0")
    p.add_argument("--alpha", type=finite, default=-0.1,
                   help="HHT alpha after the release (0: Newmark average acceleration), in (-1, 0]")
    p.add_argument("--width", type=finite, default=REFERENCE_SIZE[0], help="block width [m], > 0")
    p.add_argument("--height", type=finite, default=REFERENCE_SIZE[1], help="block height [m], > 0")
    p.add_argument("--nx", type=int, default=None,
                   help="block elements across (even; default 4); any of --nx/--ny/--width/--height "
                        "other than the SDNV105 values generates a uniform mesh with gmsh")
    p.add_argument("--ny", type=int, default=None, help="block elements along the height (default 2)")
    p.add_argument("--out", type=Path, default=Path("results/block_on_incline"),
                   help="output folder; an earlier run's files in it are removed first")
    p.add_argument("--no-plot", action="store_true", help="skip slip.png")
    add_run_flags(p)
    return p.parse_args(argv)


def check_args(args: argparse.Namespace) -> None:
    """Raise :class:`fem.run.lifecycle.BadInput` naming the first flag whose value is out of range (the
    command line has refused non-finite numbers already)."""
    if not 0.0 <= args.angle_deg < 90.0:
        raise BadInput(f"--angle-deg must lie in [0, 90) degrees, got {args.angle_deg:g}")
    if args.mu < 0:
        raise BadInput(f"--mu (friction coefficient) must be >= 0, got {args.mu:g}")
    for flag, value, unit in (("--dt", args.dt, "s"), ("--t-end", args.t_end, "s"), ("--width", args.width, "m"),
                              ("--height", args.height, "m")):
        if not value > 0:
            raise BadInput(f"{flag} must be > 0 {unit}, got {value:g}")
    if not -1.0 < args.alpha <= 0.0:
        raise BadInput(f"--alpha (HHT) must lie in (-1, 0], got {args.alpha:g}")
    for flag, value in (("--nx", args.nx), ("--ny", args.ny)):
        if value is not None and value < 1:
            raise BadInput(f"{flag} must be an integer >= 1, got {value}")
    if args.nx is not None and args.nx % 2:
        raise BadInput(f"--nx must be even (the mesh has a base-centre node O1), got {args.nx}")
    ranges.check_all([("--nx", args.nx, ranges.ELEMENTS), ("--ny", args.ny, ranges.ELEMENTS)])
    ranges.check_all([("--mu", args.mu, ranges.FRICTION), ("--t-end", args.t_end, ranges.DURATION),
                      ("--width", args.width, ranges.BLOCK_SIZE), ("--height", args.height, ranges.BLOCK_SIZE)])
    # the slope's only time scale is the run itself (the block sticks or slides at a constant rate)
    ranges.check_step("--dt", args.dt, args.t_end, "--t-end")


def is_reference_mesh(args: argparse.Namespace) -> bool:
    """The checked-in SDNV105 mesh (default size, no --nx/--ny) rather than a generated one."""
    return (args.width, args.height) == REFERENCE_SIZE and args.nx is None and args.ny is None


def mesh_size(args: argparse.Namespace) -> tuple[float, float]:
    """Nodes and surface cells of the mesh :func:`build_mesh` makes, from the flags alone (floats,
    so that absurd counts do not overflow): the reference mesh has 25 nodes and 12 QUA4; the
    generated one (meshes.generate.block_on_table, layout 'refined') an nx x ny block and a table
    of nx / 2 + nx + nx / 2 columns (elements of the block's width / nx, table from -b to 3b)
    and max(1, round(0.08 m / (width / nx))) rows, block and table meshed separately."""
    if is_reference_mesh(args):
        return 25.0, 12.0
    nx, ny = float(min(args.nx or 4, 10**300)), float(min(args.ny or 2, 10**300))
    deep = max(1.0, TABLE_DEPTH * nx / args.width)  # inf for an absurdly thin block: refused
    columns = 2.0 * max(1.0, nx / 2.0) + nx  # left overhang, block base, right overhang
    nodes = (nx + 1.0) * (ny + 1.0) + (columns + 1.0) * (deep + 1.0)
    cells = nx * ny + columns * deep
    return nodes, cells


def resources(args: argparse.Namespace) -> Estimate:
    """What the run needs (fem.run.lifecycle.estimate), from the flags, before any mesh is generated: QUA4
    cells, the settling steps, the release step cut in RELEASE_SUBSTEPS, the slope steps; every
    history row (a dict of 10 floats, about 2 kB) is kept in memory for the fit."""
    nodes, cells = mesh_size(args)
    t_fine = min(args.dt, args.t_end)
    settle = count_steps([(SETTLE_START, 0.0, SETTLE_DT)])
    # floats, not math.ceil: a subnormal --dt gives inf steps, refused by check_resources
    steps = settle + RELEASE_SUBSTEPS + max(0.0, (args.t_end - t_fine) / args.dt)
    return estimate(nodes, cells, 4, steps, row_bytes=2000.0)


#: the mesh generator's argument names -> the flags they come from
_GENERATOR_NAMES = {"half_width": "--width / 2", "height": "--height", "nx": "--nx", "ny": "--ny"}


def _in_flag_names(message: str) -> str:
    pattern = r"\b(" + "|".join(_GENERATOR_NAMES) + r")\b"
    return re.sub(pattern, lambda m: _GENERATOR_NAMES[m.group(1)], message)


def build_mesh(args: argparse.Namespace):
    """The SDNV105 reference mesh, or a uniform block-on-table mesh of the requested size (a refusal
    of the generator is reported in the flags' names)."""
    if is_reference_mesh(args):
        return read_mesh(reference_mesh_path("sdnv105_quad4"))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            path = block_on_table(Path(tmp) / "block.msh", half_width=args.width / 2, height=args.height,
                                  layout="refined", nx=args.nx or 4, ny=args.ny or 2, element="quad4")
            return read_mesh(path)
        except ValueError as err:  # argument checks of the generator, MeshError of the reader
            raise BadInput(f"the block mesh for --width {args.width:g} --height {args.height:g} --nx "
                           f"{args.nx or 4} --ny {args.ny or 2}: {_in_flag_names(str(err))}") from None


#: Newton's first iterate: Newmark's extrapolation u0 + dt v0 + dt^2/2 a0 (not the library's default, the
#: extrapolated velocity): the block rests or slides with a uniform acceleration, which the extrapolation
#: predicts exactly, and the regimes' tests were set on its path (from the extrapolated velocity the
#: penalty run at mu = 0.3, 10 deg cuts none of the 18 sub-steps it cuts here, and the 5-point
#: acceleration fit of the sticking block vibrating on its springs reads -1.9e-3 m/s^2, not -1.4e-4)
NEWTON = NewtonSettings(rela=1e-8, max_iterations=40, predictor="constant_acceleration")


def problem_of(args: argparse.Namespace, mesh) -> Problem:
    """The block on its table (fem.problem): DY held on CTGROUND, DX on S1, the block's base on the
    table's top with the contact method's law and --mu."""
    if args.method == "penalty":
        law = Penalty(PENALTY["normal_stiffness"], args.mu, tangential_stiffness=PENALTY["tangential_stiffness"],
                      tension_allowed=True)
    else:
        law = Augmented(args.mu) if args.method == "augmented" else Lagrange(args.mu)
    return Problem(mesh, [Body("BLOCK", ElasticMaterial(**BLOCK)), Body("GROUN", ElasticMaterial(**TABLE))],
                   [Support("CTGROUND", ("y",)), Support("S1", ("x",))], [Pair("CONHAUT", "CONBAS", law, name="base")],
                   gravity=G)


def stages(args: argparse.Namespace) -> tuple:
    """The settling stage (normal gravity, frictionless, DX(O1) = 0), then the release on the slope
    at rest with zero acceleration (module docstring) to --dt, and the slope to --t-end; and each
    stage's steps: the release's --dt cut into RELEASE_SUBSTEPS steps, then steps of --dt."""
    beta = math.radians(args.angle_deg)
    slope = (G * math.sin(beta), -G * math.cos(beta))
    t_fine = min(args.dt, args.t_end)
    run = [SelfWeight(SETTLE_START, SETTLE_RAMP_END, 0.0, hold=[Support("O1", ("x",))], friction=0.0, newton=NEWTON,
                      gravity=(0.0, -G * math.cos(beta)), name="settle"),
           Release(t_fine, friction=args.mu, newton=NEWTON, gravity=slope, acceleration="zero", name="release")]
    steps = {"settle": Uniform(SETTLE_DT, alpha=-0.3), "release": Uniform(t_fine / RELEASE_SUBSTEPS, alpha=args.alpha)}
    if t_fine < args.t_end:
        run.append(BaseMotion(args.t_end - t_fine, gravity=slope, name="slope"))
        steps["slope"] = Uniform(args.dt, alpha=args.alpha)
    return tuple(run), steps


class SlopeColumns:
    """The case's history columns (COLUMNS; an observer of fem.problem.Settings): the block's centre of
    mass along x, the tangential displacement of O and A relative to the table since the release, the
    sums of R_N and R_T (along +x) over the base, the slipping and sticking nodes; and, at the release,
    its displacement, the law's slip and the largest R_N of a base node."""

    def __init__(self, assembled) -> None:
        self.assembled = assembled
        model, mesh = assembled.model, assembled.mesh
        ones_x = np.zeros(model.n_dofs)
        ones_x[2 * mesh.nodes("BLOCK")] = 1.0
        self.mass_x = model.mass @ ones_x  # nodal masses of the block's x dofs (consistent mass row sums)
        self.mass = float(self.mass_x.sum())
        base = assembled.terms[0].zone.slave
        self.k_o, self.k_a = (int(np.flatnonzero(base == mesh.node(name))[0]) for name in ("O", "A"))
        self.u_release = None
        self.law_slip_at_release = None
        self.rn_node_max = 0.0  # largest normal force on a base node at the release [N]
        self.max_law_slip = 0.0  # largest |slip of the contact law since the release| over the base nodes [m]
        self._last = None  # (u, law slip, largest R_N) of the last settling row: the release starts there

    def columns(self) -> list[str]:
        return [c for c in COLUMNS if c not in ("t", "iterations")]

    def observe(self, result) -> dict:
        contact = self.assembled.terms[0]
        cs, state = contact.state(), result.state
        if result.phase == "settle":
            self._last = (state.u.copy(), cs.slip.copy(), float(cs.rn.max()))
        elif self.u_release is None:
            self.u_release, self.law_slip_at_release, self.rn_node_max = self._last
        if self.u_release is None:
            slide = np.zeros(cs.slip.size)
        else:  # tangential displacement of the base nodes relative to the table since the release
            self.max_law_slip = max(self.max_law_slip, float(np.abs(cs.slip - self.law_slip_at_release).max()))
            geo = contact.zone.geometry(self.assembled.mesh.points, state.u)
            slide = (geo.tangent_rows(self.assembled.model.n_dofs) @ (state.u - self.u_release)) * geo.tangent[:, 0]
        return {"ux_com": float(self.mass_x @ state.u) / self.mass, "vx_com": float(self.mass_x @ state.v) / self.mass,
                "slip_O": float(slide[self.k_o]), "slip_A": float(slide[self.k_a]), "rn_sum": float(cs.rn.sum()),
                "rt_sum": float((cs.rt * cs.tangent[:, 0]).sum()),
                "n_slip": float(np.count_nonzero(cs.status == SLIP)),
                "n_stick": float(np.count_nonzero(cs.status == STICK))}


def fit_acceleration(t: np.ndarray, v: np.ndarray) -> float:
    """Slope of the least-squares line through (t, v) [m/s^2] (0 for fewer than 2 points)."""
    if t.size < 2:
        return 0.0
    return float(np.polyfit(t, v, 1)[0])


def run(args: argparse.Namespace, mesh=None) -> dict:
    """Build (unless ``mesh`` is given), run the stages writing history.csv in --out as it goes
    (fem.problem.run_stages, the three stages into one history), and return the summary (a
    ConvergenceError or an interruption propagates, the history up to it on disk)."""
    mesh = build_mesh(args) if mesh is None else mesh
    assembled = assemble(problem_of(args, mesh))
    run_stages_, steps = stages(args)
    columns = SlopeColumns(assembled)
    outcome = run_stages(assembled, run_stages_, Path(args.out), Settings(
        steps=steps, newton=NEWTON, observers=(columns,), body_watches=(), march=march,
        histories={s.name: "history" for s in run_stages_}))
    outcome.reraise()
    stats = {key: outcome.stats[key] for key in ("steps", "newton_iterations", "subdivisions")}
    stats["iterations_per_phase"], stats["min_iterations_per_step"] = {}, {}
    for stage in run_stages_:
        iterations = outcome.histories[stage.name]["iterations"][1 if stage.name == "settle" else 0:]
        stats["iterations_per_phase"][stage.name] = int(iterations.sum())
        stats["min_iterations_per_step"][stage.name] = int(iterations.min())
    stats["wall_s"] = outcome.stats["wall_s"]
    h = {c: np.concatenate([outcome.histories[s.name][c] for s in run_stages_]) for c in COLUMNS}
    rn_node_max, max_law_slip, mass = columns.rn_node_max, columns.max_law_slip, columns.mass
    after = h["t"] > 0
    verdict = stick_or_slide(h, args.t_end, stick_threshold(args.mu, rn_node_max, PENALTY["tangential_stiffness"]))
    fit = verdict.pop("fit_mask")
    a_meas = fit_acceleration(h["t"][fit], h["vx_com"][fit])
    a_ref = analytic_acceleration(args.angle_deg, args.mu, g=G)
    beta = math.radians(args.angle_deg)
    sticks = verdict["sticks"]
    analytic_sticks = sticks_on_slope(args.angle_deg, args.mu)
    verdict["rn_node_max_N"] = rn_node_max
    weight_n = mass * G * math.cos(beta)
    return {
        "checks": _checks(sticks, analytic_sticks, a_meas, a_ref, float(h["rn_sum"][-1]), weight_n, args.method),
        "sticks": sticks,
        "regime": "sticks" if sticks else "slides",
        "analytic_regime": "sticks" if analytic_sticks else "slides",
        "regime_as_analytic": sticks == analytic_sticks,
        "stick_slide": verdict,
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
        "normal_weight_N": weight_n,
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
        "fit_steps": int(np.count_nonzero(fit)),
        "run": stats,
    }


# tolerances of the checks (tests/test_block_on_incline.py holds the runs to the same): the
# acceleration fitted over the second half of a sliding run, 1 % (the penalty springs' ringing,
# averaged out by the fit, and HHT's first-order velocity error at this step); the normal
# reaction's sum against the weight's normal component, 1e-3 (Newton's tolerance against the
# table's own vibration), 5e-3 with the penalty law (its springs still ring at t_end)
ACCELERATION_TOLERANCE = 1e-2


def _checks(sticks: bool, analytic_sticks: bool, a: float, a_ref: float, rn_sum: float, weight_n: float,
            method: str) -> list[dict]:
    """The run against the rigid block on a Coulomb slope (every run is custom: no benchmark):
    regime (stick or slide, as tan beta <= mu), sliding acceleration g (sin beta - mu cos beta), sum
    of the normal reactions = m g cos beta."""
    rn_tol = 5e-3 if method == "penalty" else 1e-3

    def row(quantity, value, reference, tolerance, rel):
        return {"quantity": quantity, "value": value, "reference": reference, "rel_error": rel,
                "tolerance": tolerance, "source": "rigid block on a Coulomb slope (closed form)",
                "code_aster": None, "within_tolerance": rel is not None and rel <= tolerance}

    rows = [row("regime (1 = sticks)", float(sticks), float(analytic_sticks), 0.0, float(sticks != analytic_sticks)),
            row("sum R_N at t_end [N]", rn_sum, weight_n, rn_tol, abs(rn_sum - weight_n) / weight_n)]
    if not analytic_sticks:
        rows.append(row("sliding acceleration [m/s^2]", a, a_ref, ACCELERATION_TOLERANCE, abs(a - a_ref) / abs(a_ref)))
    return rows


def plot_slip(out: Path, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fem.io.results import read_history

    h = read_history(out / "history.csv")
    after = h["t"] >= 0
    t = h["t"][after]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(t, h["slip_O"][after] * 1e3, "o-", ms=3, label="slip at O")
    ax.plot(t, h["slip_A"][after] * 1e3, "x--", ms=4, label="slip at A")
    tt = np.linspace(0.0, t.max(), 200)
    ax.plot(tt, 0.5 * summary["analytic_acceleration"] * tt**2 * 1e3, "k:", label="0.5 a t$^2$ (rigid, Coulomb)")
    ax.set(xlabel="time after release [s]", ylabel="slip along the slope [mm]",
           title=f"beta = {summary['angle_deg']:g} deg, mu = {summary['mu']:g}, {summary['method']}: "
                 f"{summary['regime']}")
    ax.legend()
    fig.tight_layout()
    output_folder.save_figure(fig, out / "slip.png", dpi=120)
    plt.close(fig)


def parameters(args: argparse.Namespace) -> dict:
    """Every flag of the run (summary.json ``parameters``)."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k not in ("quiet", "force")}


def report(summary: dict) -> None:
    """The verdict, its criterion and the table against the analytic solution, on stdout."""
    a, a_ref, ss = summary["acceleration"], summary["analytic_acceleration"], summary["stick_slide"]
    angle, mu = summary["angle_deg"], summary["mu"]
    print(f"block on a {angle:g} deg slope, mu = {mu:g} (tan beta = {math.tan(math.radians(angle)):.4f}), "
          f"{summary['method']}: {summary['regime']} (analytic: {summary['analytic_regime']})")
    t0, t1 = ss["window_s"]
    print(f"criterion: {ss['criterion']}; the base slipped {ss['slip_in_window_m']:.3g} m there "
          f"(and {ss['startup_slip_m']:.3g} m before the window)")
    where = "sliding steps" if ss["fit_on"].startswith("sliding") else f"t = {t0:.6g}-{t1:.6g} s"
    print(f"{'quantity':36s} {'this run':>14s} {'analytic':>14s}")
    line = f"{f'acceleration [m/s^2] ({where})':36s} {a:14.6g} {a_ref:14.6g}"
    if a_ref:
        line += f"   rel. diff {abs(a - a_ref) / abs(a_ref):.2e}"
    elif summary["sticks"] and ss["acceleration_resolution"] is not None:
        line += f"   (sticking: any sliding acceleration is below {ss['acceleration_resolution']:.2g})"
    print(line)
    for name in ("O", "A"):
        print(f"{f'slip at {name} at t_end [m]':36s} {summary[f'slip_{name}_final']:14.6g} "
              f"{summary['analytic_slip_final']:14.6g}")
    print(f"{'sum R_N [N]':36s} {summary['rn_sum_final_N']:14.6g} {summary['normal_weight_N']:14.6g}")
    print(f"{'sum R_T along +x [N]':36s} {summary['rt_sum_final_N']:14.6g} "
          f"{-summary['block_mass_kg'] * (G * math.sin(math.radians(angle)) - a_ref):14.6g}")
    run_stats = summary["run"]
    print(f"{run_stats['steps']} steps, {run_stats['newton_iterations']} Newton iterations "
          f"({', '.join(f'{k}: {v}' for k, v in run_stats['iterations_per_phase'].items())}), "
          f"{run_stats['subdivisions']} subdivisions, {run_stats['wall_s']:.2f} s")


def _main(argv) -> int:
    args = parse_args(argv)
    check_args(args)
    check_resources(resources(args), force=args.force)
    out = prepare_output(args.out)
    margin = args.width / 2  # table overhang on the downhill side (block_on_table's default extent)
    a_ref = analytic_acceleration(args.angle_deg, args.mu, g=G)
    if 0.5 * a_ref * args.t_end**2 > margin:
        print(f"warning: the block would slide {0.5 * a_ref * args.t_end**2:.3g} m, beyond the table's end "
              f"({margin:g} m downhill): its base loses contact there", file=sys.stderr)
    mesh = build_mesh(args)
    # no benchmark of a block on a slope exists (module docstring): every run is "custom"
    record = Run.start(out, "block_on_incline", command_line("cases/block_on_incline.py", argv), "custom",
                       parameters(args), t_end=args.t_end, quiet=args.quiet)
    summary = run(args, mesh)
    if not args.no_plot:
        plot_slip(out, summary)
    summary = record.finish("complete", summary)
    report(summary)
    print(f"results: {out}/ (summary.json, history.csv{'' if args.no_plot else ', slip.png'})")
    return 0


def main(argv=None) -> int:
    """Run the case (exit codes: fem.run.lifecycle)."""
    return execute(_main, argv)


if __name__ == "__main__":
    sys.exit(main())
