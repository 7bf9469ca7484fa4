"""SDNV105, phase 1: gravity preload of the graphite block on its table (self-weight).

Reproduces the self-weight phase of SDNV105 (docs/references.md, "SDNV105's phases"): gravity ramped from 0 at
t = -1.95 s to 1 at t = -1.65 s, dynamic run to t = -0.825 s with HHT alpha = -0.3 (MODI_EQUI =
'NON'), dt = 0.0075 s, Newton RESI_GLOB_MAXI 2e-3 / RESI_GLOB_RELA 1e-6 / 40 iterations,
total-Lagrangian kinematics (GROT_GDEP), Rayleigh AMOR_ALPHA 1e-4 s (block) and 1.6e-3 s (table).

Contact between block and table is the subject of a later issue: until it lands, the block base
rests on a frictionless rigid support (DY = 0 on CONHAUT, which is what a rigid table with
frictionless contact imposes), with DX(O1) = 0 as in the benchmark. The table is computed too,
under its own weight, on its supports (DY = 0 on CTGROUND, DX = 0 on S1).

Checked at the end of the run (``checks`` in summary.json), when the run reaches the end of the
benchmark's phase (-0.825 s, the block at rest under its full weight; an earlier --t-end gets no
verdict): vertical reaction under the block = block weight M g (to 1e-8); DY(C1) against the 1-D
column solution -rho g (2l)^2 / (2E), recomputed for the run's rho and E (to 0.5 %: the 2 x 4
reference mesh is 0.3 % off; no verdict on another mesh, or beyond small strains, rho g (2l) / E >=
1e-3); and, in the benchmark configuration
only, against Code_Aster's value (to 0.5 %; it also contains the table's compliance, absent here).

Configuration: ``benchmark`` when the block and table parameters (--young, --poisson, --rho,
--amor-alpha, --table-amor-alpha) and the mesh (none given, or a file identical to the checked-in
meshes/sdnv105_quad4.msh) are SDNV105's, whatever the time step, HHT alpha, end time or kinematics;
else ``custom``, in which Code_Aster's value is neither shown nor graded.

Outputs in --out: history.csv (DY(C1), reactions, energies per step), solution.xdmf (ParaView),
summary.json (fem.run.lifecycle: status, configuration, command, version, parameters; then the values and
checks), and a plot preload.png.

Exit codes (fem.run.lifecycle): 0 done; 2 invalid input (one line naming the flag: a non-positive modulus,
density or time step, a Poisson's ratio outside (-1, 0.5), negative damping, an HHT alpha outside
(-1, 0], an end time not after -1.95 s, a mesh that cannot be read or lacks a group, a run too
large); 1 a Newton failure (histories up to it on disk, summary.json ``failed``); 130 / 143
interrupted.

Run:  python cases/sdnv105_preload.py [--out results/sdnv105_preload] [--help for every parameter]
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import argparse
import filecmp
import math
import sys
from pathlib import Path

import numpy as np

from fem import ranges
from fem.io.results import series_format
from fem.constants import GRAVITY
from fem.io import output_folder
from fem.io.recorder import NodeProbe
from fem.mesh.check import check_mesh
from fem.mesh.read import read_mesh
from fem.model.material import ElasticMaterial
from fem.problem import Body, Problem, SelfWeight, Support, Uniform, assemble
from fem.problem.simulate import Settings, run_stages
from fem.run.lifecycle import (BadInput, CaseParser, Estimate, Run, add_run_flags, add_series_flag, check_resources, command_line,
                               estimate, execute, finite, prepare_output)
from fem.stage.phase import NewtonSettings
from meshes.generate import reference_mesh_path

G = GRAVITY
ASTER_DY_C1_MIN = -7.62369114e-9  # sdnv105a, VALE_CALC of DY(C1) min in the self-weight phase
T_START, T_RAMP_END, T_END = -1.95, -1.65, -0.825  # the benchmark's self-weight phase [s]
TABLE = dict(young=1.0e14, poisson=0.3, density=2500.0)
#: the benchmark's value of every flag that changes the physical problem
BENCHMARK = {"young": 6.0e11, "poisson": 0.2, "rho": 1450.0, "amor_alpha": 1.0e-4, "table_amor_alpha": 1.6e-3}
CELL_GROUPS = ("BLOCK", "GROUN")
NODE_GROUPS = ("CTGROUND", "S1", "O1", "CONHAUT", "C1", "O", "A")
#: tolerances of the checks (relative): the support reaction is static equilibrium at rest; the 2 x 4
#: reference mesh gives DY(C1) 0.3 % off the 1-D column and 0.4 % off Code_Aster (which has the table)
TOLERANCES = {"reaction": 1e-8, "column": 5e-3, "code_aster": 5e-3}
#: the 1-D column solution is linear: graded only while the base strain rho g (2l) / E is below this
SMALL_STRAIN = 1e-3


def parse_args(argv=None) -> argparse.Namespace:
    p = CaseParser(prog="sdnv105_preload.py", description=__doc__)
    p.add_argument("--mesh", type=Path, default=None, help="gmsh .msh with groups BLOCK, GROUN, CONHAUT, "
                   "CTGROUND, S1, O1, C1, O, A (default: the checked-in reference mesh)")
    p.add_argument("--out", type=Path, default=Path("results/sdnv105_preload"),
                   help="output folder; an earlier run's files in it are removed first")
    p.add_argument("--young", type=finite, default=BENCHMARK["young"], help="block Young's modulus [Pa]")
    p.add_argument("--poisson", type=finite, default=BENCHMARK["poisson"], help="block Poisson's ratio [-]")
    p.add_argument("--rho", type=finite, default=BENCHMARK["rho"], help="block density [kg/m^3]")
    p.add_argument("--amor-alpha", type=finite, default=BENCHMARK["amor_alpha"], help="block AMOR_ALPHA [s]")
    p.add_argument("--table-amor-alpha", type=finite, default=BENCHMARK["table_amor_alpha"],
                   help="table AMOR_ALPHA [s]")
    p.add_argument("--dt", type=finite, default=0.0075, help="time step [s]")
    p.add_argument("--alpha", type=finite, default=-0.3, help="HHT alpha (Code_Aster convention, in (-1, 0])")
    p.add_argument("--t-end", type=finite, default=T_END, help=f"end of the phase [s], after {T_START}")
    p.add_argument("--kinematics", choices=("total_lagrangian", "small_strain"), default="total_lagrangian")
    add_run_flags(p)
    add_series_flag(p)
    return p.parse_args(argv)


def check_args(a: argparse.Namespace) -> None:
    """Raise :class:`fem.run.lifecycle.BadInput` naming the first flag out of its range, in the flags' own names
    and units (the command line has refused non-finite numbers)."""
    checks = [
        (a.young > 0, f"--young (block Young's modulus) must be > 0 Pa, got {a.young:g}"),
        (-1.0 < a.poisson < 0.5, f"--poisson (block Poisson's ratio) must lie in (-1, 0.5), got {a.poisson:g}"),
        (a.rho > 0, f"--rho (block density) must be > 0 kg/m^3, got {a.rho:g}"),
        (a.amor_alpha >= 0, f"--amor-alpha (block AMOR_ALPHA) must be >= 0 s, got {a.amor_alpha:g}"),
        (a.table_amor_alpha >= 0, f"--table-amor-alpha (table AMOR_ALPHA) must be >= 0 s, got {a.table_amor_alpha:g}"),
        (a.dt > 0, f"--dt (time step) must be > 0 s, got {a.dt:g}"),
        (-1.0 < a.alpha <= 0.0, f"--alpha (HHT, Code_Aster convention) must lie in (-1, 0], got {a.alpha:g}"),
        (a.t_end > T_START, f"--t-end must be after the start of the phase, {T_START} s, got {a.t_end:g}"),
    ]
    for ok, message in checks:
        if not ok:
            raise BadInput(message)
    if a.mesh is not None and not a.mesh.is_file():
        raise BadInput(f"--mesh {a.mesh}: {'not a file' if a.mesh.exists() else 'no such file'}")
    check_ranges(a)


#: the phase's physical time scale: the gravity ramp (T_START to T_RAMP_END); a longer step loads
#: the block in one jump instead of the benchmark's quasi-static ramp
RAMP = T_RAMP_END - T_START


def check_ranges(a: argparse.Namespace) -> None:
    """Every number against its physical range (fem.ranges), the step against the phase and its
    gravity ramp, the block's strain under its weight, and the --mesh file read (unreadable, NaN or
    absurd coordinates refused): all before the output folder is touched."""
    ranges.check_all([("--young", a.young, ranges.YOUNG), ("--poisson", a.poisson, ranges.POISSON),
                      ("--rho", a.rho, ranges.DENSITY), ("--amor-alpha", a.amor_alpha, ranges.RAYLEIGH_ALPHA),
                      ("--table-amor-alpha", a.table_amor_alpha, ranges.RAYLEIGH_ALPHA),
                      ("--t-end", a.t_end, ranges.INSTANT)])
    ranges.check_step("--dt", a.dt, a.t_end - T_START, f"the phase from {T_START} s to --t-end",
                      [("the gravity ramp", RAMP, f"{T_START} s to {T_RAMP_END} s")])
    height = 0.80  # the reference mesh's block
    if a.mesh is not None:
        try:
            mesh = read_mesh(a.mesh)
        except ValueError as err:  # MeshError is a ValueError
            raise BadInput(f"--mesh {a.mesh}: {err}") from None
        if "BLOCK" in mesh.cell_groups:
            height = float(np.ptp(mesh.points[mesh.nodes("BLOCK"), 1]))
    ranges.check_self_weight("--rho, --young" + (", --mesh" if a.mesh is not None else ""), a.rho * G * height,
                             a.young)


def resources(a: argparse.Namespace) -> Estimate:
    """fem.run.lifecycle.estimate before the mesh is read: 25 nodes and 12 QUA4 for the reference mesh, else
    bounds from the file size (a .msh line is >= 30 bytes a node, >= 60 a cell, as
    cases/sdnv105/case.py counts); one step per --dt from -1.95 s (a float: a subnormal --dt gives
    inf, refused); the history is written as the run goes (a few hundred bytes a step kept)."""
    nodes, cells = 25.0, 12.0
    if a.mesh is not None:
        size = a.mesh.stat().st_size
        nodes, cells = size / 30.0, size / 60.0
    return estimate(nodes, cells, 4, (a.t_end - T_START) / a.dt, row_bytes=500.0)


def departures(a: argparse.Namespace) -> list[str]:
    """Flags whose value makes the problem differ from SDNV105's (empty: the benchmark)."""
    changed = [f"--{k.replace('_', '-')}" for k, v in BENCHMARK.items()
               if not math.isclose(getattr(a, k), v, rel_tol=1e-12, abs_tol=0.0)]
    if a.mesh is not None and not filecmp.cmp(a.mesh, reference_mesh_path("sdnv105_quad4"), shallow=False):
        changed.append("--mesh")
    return changed


def load_mesh(a: argparse.Namespace):
    """The mesh, with every group the phase and probes need; a refusal names --mesh."""
    path = a.mesh or reference_mesh_path("sdnv105_quad4")
    try:
        mesh = read_mesh(path)
        missing = [g for g in CELL_GROUPS if g not in mesh.cell_groups]
        missing += [g for g in NODE_GROUPS if g not in mesh.node_groups]
        if missing:
            raise ValueError(f"lacks the group(s) {', '.join(missing)} (needs cell groups {', '.join(CELL_GROUPS)} "
                             f"and node groups {', '.join(NODE_GROUPS)})")
        for name in ("C1", "O", "A", "O1"):
            mesh.node(name)
        warnings = check_mesh(mesh, supported_groups=("CTGROUND", "S1", "O1", "CONHAUT"))
    except ValueError as err:  # MeshError is a ValueError
        raise BadInput(f"--mesh {path}: {err}") from None
    for warning in warnings:
        print(f"warning: --mesh {path}: {warning}", file=sys.stderr)
    return mesh


def _check(quantity: str, value: float, reference: float | None, tolerance: float, source: str,
           graded: bool, note: str = "") -> dict:
    rel = abs(value / reference - 1.0) if reference else None
    return {"quantity": quantity, "value": value, "reference": reference, "source": source, "rel_error": rel,
            "tolerance": tolerance, "within_tolerance": (rel <= tolerance) if graded and rel is not None else None,
            "note": note}


def _main(argv) -> int:
    args = parse_args(argv)
    check_args(args)
    check_resources(resources(args), force=args.force)
    out = prepare_output(args.out)
    changed = departures(args)
    configuration = "custom" if changed else "benchmark"
    mesh = load_mesh(args)
    block = ElasticMaterial(args.young, args.poisson, args.rho, rayleigh_stiffness=args.amor_alpha)
    table = ElasticMaterial(**TABLE, rayleigh_stiffness=args.table_amor_alpha)
    # the block on a frictionless rigid support (DY = 0 on its base, DX(O1) = 0), the table on its own
    problem = Problem(mesh, bodies=[Body("BLOCK", block), Body("GROUN", table)], gravity=G,
                      supports=[Support("CTGROUND", ("y",)), Support("S1", ("x",)), Support("O1", ("x",)),
                                Support("CONHAUT", ("y",))], kinematics=args.kinematics)
    assembled = assemble(problem)
    stage = SelfWeight(T_START, T_RAMP_END, args.t_end, name="self-weight")
    parameters = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
                  if k not in ("quiet", "force")}
    record = Run.start(out, "sdnv105_preload", command_line("cases/sdnv105_preload.py", argv), configuration,
                       parameters, t_end=args.t_end, quiet=args.quiet)

    probes = (NodeProbe("dy_C1", "C1", "u", "y"), NodeProbe("dx_C1", "C1", "u", "x"),
              NodeProbe("ry_O", "O", "reaction", "y"), NodeProbe("ry_A", "A", "reaction", "y"))
    base_dofs = 2 * mesh.nodes("CONHAUT") + 1
    settings = Settings(steps=Uniform(args.dt, archive_every=10), alpha=args.alpha, paraview=True, probes=probes,
                        kinetic_group="BLOCK", newton=NewtonSettings(rela=1e-6, maxi=2e-3, max_iterations=40))
    outcome = run_stages(assembled, [stage], out, settings)
    # a Newton failure or an interruption goes on to fem.run.lifecycle.execute: every step before it is in
    # history.csv and solution.pvd
    outcome.reraise()
    stats = {k: outcome.stats[k] for k in ("wall_s", "steps", "newton_iterations", "subdivisions")}
    state = outcome.state

    height = float(np.ptp(mesh.points[mesh.nodes("BLOCK"), 1]))
    width = float(np.ptp(mesh.points[mesh.nodes("BLOCK"), 0]))
    weight = args.rho * G * width * height
    dy_c1 = float(state.u[2 * mesh.node("C1") + 1])
    dy_1d = -args.rho * G * height**2 / (2 * args.young)
    reaction = float(state.reactions[base_dofs].sum())
    at_rest = state.t >= T_END - 1e-9
    why = "" if at_rest else (f"the run stops at {state.t:.6g} s, before the end of the benchmark's phase "
                              f"({T_END} s): the block is not at rest under its full weight")
    reference_mesh = "--mesh" not in changed
    small_strain = args.rho * G * height / args.young < SMALL_STRAIN
    column_note = why or ("" if reference_mesh else "tolerance established on the reference mesh: no verdict") or (
        "" if small_strain else f"rho g (2l) / E >= {SMALL_STRAIN:g}: the linear column solution does not apply")
    checks = [
        _check("base reaction [N]", reaction, weight, TOLERANCES["reaction"], "M g (static equilibrium)", at_rest, why),
        _check("DY(C1) [m]", dy_c1, dy_1d, TOLERANCES["column"], "1-D column -rho g (2l)^2 / (2E)",
               at_rest and reference_mesh and small_strain, column_note),
    ]
    benchmark = configuration == "benchmark"
    if benchmark:
        checks.append(_check("DY(C1) [m]", dy_c1, ASTER_DY_C1_MIN, TOLERANCES["code_aster"],
                             "Code_Aster sdnv105a (with the table)", at_rest, why))
    summary = {
        "departures": changed,
        "final_time": state.t,
        "block_weight_N": weight,
        "base_reaction_N": reaction,
        "reaction_rel_error": abs(reaction - weight) / weight,
        "dy_C1": dy_c1,
        "dy_C1_column_1d": dy_1d,
        "dy_C1_code_aster": ASTER_DY_C1_MIN if benchmark else None,
        "checks": checks,
        "run": stats,
    }
    _plot(out)
    record.finish("complete", summary)
    print(f"SDNV105 self-weight phase ({configuration} configuration{': ' + ', '.join(changed) if changed else ''}), "
          f"t = {stage.start} -> {state.t:.4g} s, {stats['steps']} steps, "
          f"{stats['newton_iterations']} Newton iterations, {stats['wall_s']:.2f} s")
    print(f"{'quantity':28s} {'this code':>14s} {'reference':>14s} {'rel. diff':>10s} {'ok':>3s}")
    for c in checks:
        ok = {True: "yes", False: "NO", None: "-"}[c["within_tolerance"]]
        print(f"{c['quantity']:28s} {c['value']:14.6e} {c['reference']:14.6e} {c['rel_error']:10.2e} {ok:>3s}  "
              f"({c['source']})")
    for note in dict.fromkeys(c["note"] for c in checks if c["note"]):
        print(f"no verdict: {note}")
    if not benchmark:
        print(f"custom configuration ({', '.join(changed)}): Code_Aster's value applies to the benchmark's "
              f"parameters only and is not compared")
    print(f"results: {out}/solution.{series_format()} (ParaView), history.csv, summary.json, preload.png")
    return 0


def main(argv=None) -> int:
    """Run the case (exit codes: fem.run.lifecycle)."""
    return execute(_main, argv)


def _plot(out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fem.io.results import read_history

    h = read_history(out / "history.csv")
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(h["t"], h["dy_C1"] * 1e9)
    ax[0].set(xlabel="t [s]", ylabel="DY(C1) [nm]", title="top-centre settlement")
    ax[1].plot(h["t"], h["ry_O"], label="R_y(O)")
    ax[1].plot(h["t"], h["ry_A"], label="R_y(A)")
    ax[1].set(xlabel="t [s]", ylabel="reaction [N]", title="corner reactions")
    ax[1].legend()
    fig.tight_layout()
    output_folder.save_figure(fig, out / "preload.png", dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
