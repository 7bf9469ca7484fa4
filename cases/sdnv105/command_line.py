"""SDNV105 — the command line of the four modelings' scripts (cases/sdnv105a.py ... sdnv105d.py): every flag,
its default and its help, parsed into the run's :class:`cases.sdnv105.config.Config` (:func:`parse_args`)."""
from __future__ import annotations

import argparse
from pathlib import Path

from cases.sdnv105.config import CONTACT_EVENTS, MODELINGS, TILT_RULES, Config
from fem.io.animation import add_animate_flag, check_animate_flag
from fem.run.lifecycle import CaseParser, add_run_flags, add_series_flag, finite


def parse_args(modeling: str, argv=None, description: str = "") -> tuple[Config, argparse.Namespace]:
    """The run's configuration from the command line, and the run flags (--quiet, --force)."""
    m = MODELINGS[modeling]
    p = CaseParser(prog=f"sdnv105{modeling}.py", description=description)
    p.add_argument("--width", type=finite, default=0.36, help="block width 2b [m]")
    p.add_argument("--height", type=finite, default=0.80, help="block height 2l [m]")
    p.add_argument("--tilt-angle", type=finite, default=0.01,
                   help="initial tilt [rad] about corner O (0.01: the benchmark's DX(C1) = -0.008 m)")
    p.add_argument("--tilt-rule", choices=list(TILT_RULES), default="auto",
                   help="how the tilt is imposed: code_aster = DX(C1) = -tilt * height with DX(O1) held "
                        "(b: DX(O)), Code_Aster's small-angle push; exact = C1 and O1 (b: C1 and O) follow a "
                        "rigid rotation about O; auto (default) = code_aster for the benchmark's block and "
                        "tilt, exact otherwise")
    p.add_argument("--mu", type=finite, default=0.9, help="Coulomb coefficient after the self-weight phase")
    p.add_argument("--young", type=finite, default=6.0e11, help="block Young's modulus [Pa]")
    p.add_argument("--poisson", type=finite, default=0.2, help="block Poisson's ratio")
    p.add_argument("--rho", type=finite, default=1450.0, help="block density [kg/m^3]")
    p.add_argument("--amor-alpha", type=finite, default=1.0e-4, help="block AMOR_ALPHA [s]")
    p.add_argument("--table-young", type=finite, default=1.0e14, help="table Young's modulus [Pa]")
    p.add_argument("--table-amor-alpha", type=finite, default=1.6e-3, help="table AMOR_ALPHA [s]")
    p.add_argument("--t-end", type=finite, default=None, help=f"end of the release run [s] (default {m.t_end})")
    p.add_argument("--dt", type=finite, default=None, help=f"coarse time step of the release [s] (default {m.dt})")
    if modeling != "d":  # d integrates with uniform steps of --dt
        p.add_argument("--dt-fine", type=finite, default=None,
                       help=f"time step around impacts [s] (default {m.dt_fine})")
    if modeling == "d":
        p.add_argument("--theta", type=finite, default=0.55, help="theta of the Moreau-Jean scheme, in [0.5, 1]")
    if modeling == "b":
        p.add_argument("--rigi-nor", type=finite, default=3.0e10, help="shock spring RIGI_NOR [N/m]")
        p.add_argument("--rigi-tan", type=finite, default=3.0e10,
                       help="shock spring stiffness while sticking [N/m]; the benchmark states RIGI_TAN = 1e7, "
                            "Code_Aster's values are reproduced with a stiff sticking spring (docs/departures.md)")
        p.add_argument("--amor-nor", type=finite, default=9.0e6, help="shock spring AMOR_NOR [N s/m]")
        p.add_argument("--amor-tan", type=finite, default=1.0e4, help="shock spring AMOR_TAN [N s/m]")
    if modeling in ("a", "c"):
        p.add_argument("--mass", choices=("consistent", "redistributed"), default="consistent",
                       help="mass matrix: Code_Aster's consistent mass (default), or redistributed: the block's "
                            "base nodes massless, its mass, centre and inertia kept (fem.model.mass)")
        p.add_argument("--contact-events", choices=list(CONTACT_EVENTS), default="auto",
                       help="when the release's contacts close and open: immediate = Code_Aster's rule (at the "
                            "end of the step); located = at their instant inside the step; auto (default) = "
                            "located with --mass redistributed, immediate otherwise (docs/convergence.md)")
    if modeling != "d":
        p.add_argument("--alpha", type=finite, default=None,
                       help="HHT alpha of every release step, in [-1/3, 0] (0: Newmark's average acceleration); "
                            "default: the benchmark's, -0.1 / -0.2 in the fine windows and around detected "
                            "impacts, 0 in the coarse steps. One alpha for uniform-step studies "
                            "(cases/convergence.py)")
        steps = p.add_mutually_exclusive_group()
        steps.add_argument("--auto-steps", action="store_true",
                           help="instead of the benchmark's windows, fem.time.stepping's event-driven steps: --dt-fine "
                                "from before a predicted impact and for 3 ms after any contact opening or closing, "
                                "steps growing (x2 a step) to --dt elsewhere (the default of a custom run)")
        steps.add_argument("--benchmark-steps", action="store_true",
                           help="the benchmark's windows even on a custom run (whose default is --auto-steps): "
                                "they are placed for the benchmark's impacts, not this run's")
    p.add_argument("--mesh", type=Path, default=None, help="gmsh .msh with the benchmark's group names")
    p.add_argument("--nx", type=int, default=None,
                   help="instead of the benchmark's mesh, a uniform block of NX (even) elements across, generated "
                        f"into --out as mesh.msh ({'TRIA6, no table' if modeling == 'b' else 'QUA4, with the table'}"
                        "; meshes.generate, layout refined); with --ny, not with --mesh; a departure from the "
                        "benchmark")
    p.add_argument("--ny", type=int, default=None, help="block elements up (with --nx)")
    p.add_argument("--archive-every", type=int, default=10, help="ParaView output every N steps of a phase")
    p.add_argument("--no-paraview", action="store_true", help="skip the ParaView series (faster)")
    add_animate_flag(p, "the release")
    p.add_argument("--round-off", type=int, default=0, metavar="K",
                   help="also run the case with the tilt angle moved by +-1 ... +-K units in the last place "
                        "(2K runs more, histories in OUT/round_off/) and report, per check, the spread and "
                        "how many runs meet the test: a check on which they disagree is decided by the "
                        "rounding of the arithmetic, not by the model (docs/sdnv105.md, Round-off)")
    p.add_argument("--out", type=Path, default=None,
                   help=f"output folder (default results/sdnv105{modeling}); an earlier run's files in it are "
                        f"removed first")
    add_run_flags(p)
    add_series_flag(p)
    a = p.parse_args(argv)
    check_animate_flag(a)
    config = Config(modeling=modeling, width=a.width, height=a.height, tilt_angle=a.tilt_angle,
                    tilt_rule=a.tilt_rule, mu=a.mu,
                    young=a.young, poisson=a.poisson, rho=a.rho, amor_alpha=a.amor_alpha,
                    table_young=a.table_young, table_amor_alpha=a.table_amor_alpha, t_end=a.t_end, dt=a.dt,
                    dt_fine=getattr(a, "dt_fine", None), theta=getattr(a, "theta", 0.55),
                    alpha=getattr(a, "alpha", None), contact_events=getattr(a, "contact_events", "auto"),
                    auto_steps=getattr(a, "auto_steps", False), benchmark_steps=getattr(a, "benchmark_steps", False),
                    mass=getattr(a, "mass", "consistent"), mesh=a.mesh,
                    nx=a.nx, ny=a.ny, out=a.out, archive_every=a.archive_every, paraview=not a.no_paraview,
                    round_off=a.round_off,
                    **({"rigi_nor": a.rigi_nor, "rigi_tan": a.rigi_tan, "amor_nor": a.amor_nor,
                        "amor_tan": a.amor_tan} if modeling == "b" else {}))
    return config, a
