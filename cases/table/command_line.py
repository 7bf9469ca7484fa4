"""The shaking table's command line (cases/shaking_table.py): every flag, its default and its help, parsed
into the run's :class:`cases.table.config.Config` (:func:`parse_args`)."""
from __future__ import annotations

from pathlib import Path

from cases.table.config import MODELINGS, Config
from fem.io.animation import add_animate_flag, check_animate_flag
from fem.run.lifecycle import BadInput, CaseParser, add_run_flags, add_series_flag, finite
from fem.stage.phase import PREDICTORS

EXCITATIONS = ("harmonic", "sine-pulse", "cosine-pulse", "ramp", "record")


def parse_args(argv=None, description: str = "") -> tuple[Config, object]:
    """The run's configuration from the command line (``description``: the script's, for --help), and the flags."""
    d = Config()
    p = CaseParser(prog="shaking_table.py", description=description)
    p.add_argument("--modeling", choices=sorted(MODELINGS), default="a",
                   help="contact as SDNV105's modeling: a Lagrange (default), c augmented Lagrangian, d theta-scheme")
    p.add_argument("--excitation", choices=EXCITATIONS, default="harmonic", help="the table's acceleration history")
    p.add_argument("--amplitude-g", type=finite, default=None,
                   help="peak table acceleration [g] (default 0.5; a record is scaled to it when given)")
    p.add_argument("--frequency-hz", type=finite, default=2.0, help="harmonic and pulse frequency [Hz]")
    p.add_argument("--cycles", type=finite, default=3.0, help="harmonic: number of cycles")
    p.add_argument("--smooth-start", type=finite, default=0.0,
                   help="harmonic: raised-cosine ramp-in [s] (0: a sin(wt) from t = 0)")
    p.add_argument("--ramp-time", type=finite, default=0.1, help="ramp: smooth rise (and fall) time [s]")
    p.add_argument("--hold-time", type=finite, default=0.2, help="ramp: time the acceleration is held [s]")
    p.add_argument("--record", type=Path, default=None,
                   help="accelerogram: CSV of t [s], a, or PEER .AT2 (baseline-corrected, fem.loads.base_motion)")
    p.add_argument("--record-units", choices=("m/s2", "g"), default=None,
                   help="units of the record's accelerations (default m/s2 for CSV, g for .AT2)")
    p.add_argument("--direction", choices=("horizontal", "vertical"), default="horizontal",
                   help="direction of the table motion (the rigid reference is for horizontal motion only)")
    p.add_argument("--width", type=finite, default=d.width, help="block width 2b [m]")
    p.add_argument("--height", type=finite, default=d.height, help="block height 2l [m]")
    p.add_argument("--blocks", type=int, default=d.blocks,
                   help="number of blocks stacked on the table, each --width x --height (default 1)")
    p.add_argument("--mu", type=finite, default=d.mu, help="Coulomb coefficient block-table")
    p.add_argument("--mu-joint", type=finite, default=None,
                   help="Coulomb coefficient between stacked blocks (default --mu)")
    p.add_argument("--young", type=finite, default=d.young, help="block Young's modulus [Pa]")
    p.add_argument("--poisson", type=finite, default=d.poisson, help="block Poisson's ratio")
    p.add_argument("--rho", type=finite, default=d.rho, help="block density [kg/m^3]")
    p.add_argument("--amor-alpha", type=finite, default=d.amor_alpha, help="block stiffness damping AMOR_ALPHA [s]")
    p.add_argument("--table-young", type=finite, default=d.table_young, help="table Young's modulus [Pa]")
    p.add_argument("--table-amor-alpha", type=finite, default=d.table_amor_alpha, help="table AMOR_ALPHA [s]")
    p.add_argument("--t-end", type=finite, default=None,
                   help="end of the run [s] (default: the motion's duration + 1 s)")
    p.add_argument("--dt", type=finite, default=d.dt, help="largest time step [s] (d: the uniform step)")
    p.add_argument("--dt-fine", type=finite, default=None,
                   help="time step through contact events [s] (default --dt / 10; not with --modeling d)")
    p.add_argument("--alpha", type=finite, default=d.alpha,
                   help=f"HHT alpha of the coarse steps, in [-1/3, 0] (default {d.alpha:g}; 0: Newmark average "
                        f"acceleration, whose contact reactions alternate step to step: docs/problem.md)")
    p.add_argument("--alpha-fine", type=finite, default=d.alpha_fine,
                   help=f"HHT alpha of the fine steps through contact events (default {d.alpha_fine:g})")
    p.add_argument("--theta", type=finite, default=d.theta, help="modeling d: theta of the Moreau-Jean scheme")
    p.add_argument("--mass", choices=("consistent", "redistributed"), default=None,
                   help="mass matrix: redistributed (default for a, c: the block's base nodes massless, its mass, "
                        "centre and inertia kept; impacts converge with dt) or consistent (Code_Aster's; d's only)")
    p.add_argument("--tolerance", type=finite, default=d.tolerance,
                   help="bound of the local error indicator of the coarse steps [m] (fem.time.stepping)")
    p.add_argument("--predictor", choices=PREDICTORS, default=d.predictor,
                   help="the first Newton iterate of a step (fem.stage.phase.NewtonSettings): constant_velocity "
                        "(default; massless dofs at the step start), constant_acceleration (Newmark's "
                        "extrapolation: 1.8 times the iterations here) or none (the step start): the same answer "
                        "to the Newton tolerance")
    p.add_argument("--mesh", type=Path, default=None, help="gmsh .msh with the SDNV105 group names")
    p.add_argument("--archive-every", type=int, default=d.archive_every, help="ParaView output every N steps")
    p.add_argument("--no-paraview", action="store_true", help="skip the ParaView series (faster)")
    add_animate_flag(p, "the excitation, in the table's frame")
    p.add_argument("--out", type=Path, default=d.out,
                   help="output folder (an earlier run's files in it are removed first)")
    add_run_flags(p)
    add_series_flag(p)
    a = p.parse_args(argv)
    check_animate_flag(a)
    if a.modeling == "d" and a.dt_fine is not None:
        raise BadInput("--dt-fine: modeling d takes uniform steps of --dt")
    config = Config(modeling=a.modeling, excitation=a.excitation, amplitude_g=a.amplitude_g,
                    frequency_hz=a.frequency_hz, cycles=a.cycles, smooth_start=a.smooth_start,
                    ramp_time=a.ramp_time, hold_time=a.hold_time, record=a.record, record_units=a.record_units,
                    direction=a.direction, width=a.width, height=a.height, blocks=a.blocks, mu=a.mu,
                    mu_joint=a.mu_joint, young=a.young,
                    poisson=a.poisson, rho=a.rho, amor_alpha=a.amor_alpha, table_young=a.table_young,
                    table_amor_alpha=a.table_amor_alpha, t_end=a.t_end, dt=a.dt, dt_fine=a.dt_fine,
                    alpha=a.alpha, alpha_fine=a.alpha_fine, theta=a.theta,
                    mass=a.mass if a.mass is not None else ("consistent" if a.modeling == "d" else "redistributed"),
                    tolerance=a.tolerance, mesh=a.mesh, out=a.out, archive_every=a.archive_every,
                    paraview=not a.no_paraview, predictor=a.predictor)
    return config, a
