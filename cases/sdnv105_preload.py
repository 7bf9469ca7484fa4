"""SDNV105, phase 1: gravity preload of the graphite block on its table (self-weight).

Reproduces the self-weight phase of ../shared/reference/sdnv105.md §1.3: gravity ramped from 0 at
t = -1.95 s to 1 at t = -1.65 s, dynamic run to t = -0.825 s with HHT alpha = -0.3 (MODI_EQUI =
'NON'), dt = 0.0075 s, Newton RESI_GLOB_MAXI 2e-3 / RESI_GLOB_RELA 1e-6 / 40 iterations,
total-Lagrangian kinematics (GROT_GDEP), Rayleigh AMOR_ALPHA 1e-4 s (block) and 1.6e-3 s (table).

Contact between block and table is the subject of a later issue: until it lands, the block base
rests on a frictionless rigid support (DY = 0 on CONHAUT, which is what a rigid table with
frictionless contact imposes), with DX(O1) = 0 as in the benchmark. The table is computed too,
under its own weight, on its supports (DY = 0 on CTGROUND, DX = 0 on S1).

Checked at the end of the run: vertical reaction under the block = block weight; DY(C1) against
the 1-D column solution -rho g (2l)^2 / (2E) and Code_Aster's value (which also contains the
table's compliance, absent here).

Outputs in --out: history.csv (DY(C1), reactions, energies per step), solution.pvd (ParaView),
summary.json, and a plot preload.png.

Run:  python cases/sdnv105_preload.py [--out results/sdnv105_preload] [--help for every parameter]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from fem.dynamics import ConvergenceError, NewtonSettings, Phase, State, integrate
from fem.functions import PiecewiseLinear
from fem.loads import Gravity, ImposedDisplacement
from fem.material import ElasticMaterial
from fem.mesh_io import read_mesh
from fem.model import Model
from fem.recorder import NodeProbe, RunRecorder
from fem.schemes import HHT
from meshes.generate import reference_mesh_path

G = 9.81
ASTER_DY_C1_MIN = -7.62369114e-9  # sdnv105a, VALE_CALC of DY(C1) min in the self-weight phase


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mesh", type=Path, default=None, help="gmsh .msh with groups BLOCK, GROUN, CONHAUT, "
                   "CTGROUND, S1, O1, C1 (default: the checked-in reference mesh)")
    p.add_argument("--out", type=Path, default=Path("results/sdnv105_preload"), help="output folder")
    p.add_argument("--young", type=float, default=6.0e11, help="block Young's modulus [Pa]")
    p.add_argument("--poisson", type=float, default=0.2, help="block Poisson's ratio [-]")
    p.add_argument("--rho", type=float, default=1450.0, help="block density [kg/m^3]")
    p.add_argument("--amor-alpha", type=float, default=1.0e-4, help="block AMOR_ALPHA [s]")
    p.add_argument("--table-amor-alpha", type=float, default=1.6e-3, help="table AMOR_ALPHA [s]")
    p.add_argument("--dt", type=float, default=0.0075, help="time step [s]")
    p.add_argument("--alpha", type=float, default=-0.3, help="HHT alpha (Code_Aster convention, <= 0)")
    p.add_argument("--t-end", type=float, default=-0.825, help="end of the phase [s]")
    p.add_argument("--kinematics", choices=("total_lagrangian", "small_strain"), default="total_lagrangian")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        block = ElasticMaterial(args.young, args.poisson, args.rho, rayleigh_stiffness=args.amor_alpha)
        table = ElasticMaterial(1.0e14, 0.3, 2500.0, rayleigh_stiffness=args.table_amor_alpha)
        phase = Phase(
            "self-weight", -1.95, args.t_end, args.dt, HHT(args.alpha, modified_equilibrium=False),
            gravity=Gravity((0.0, -G), PiecewiseLinear((-1.95, -1.65), (0.0, 1.0))),
            constraints=(
                ImposedDisplacement("CTGROUND", "y"), ImposedDisplacement("S1", "x"),
                ImposedDisplacement("O1", "x"), ImposedDisplacement("CONHAUT", "y"),
            ),
            newton=NewtonSettings(rela=1e-6, maxi=2e-3, max_iterations=40),
            archive_every=10,
        )
        mesh = read_mesh(args.mesh or reference_mesh_path("sdnv105_quad4"))
        model = Model(mesh, {"BLOCK": block, "GROUN": table}, kinematics=args.kinematics)
    except ValueError as err:  # MeshError is a ValueError
        print(f"error: {err}", file=sys.stderr)
        return 2

    probes = [NodeProbe("dy_C1", "C1", "u", "y"), NodeProbe("dx_C1", "C1", "u", "x"),
              NodeProbe("ry_O", "O", "reaction", "y"), NodeProbe("ry_A", "A", "reaction", "y")]
    base_dofs = 2 * mesh.nodes("CONHAUT") + 1
    with RunRecorder(model, args.out, probes, kinetic_group="BLOCK") as rec:
        try:
            for result in integrate(model, phase, State.at_rest(model.n_dofs, -1.95)):
                rec.record(result)
        except ConvergenceError as err:
            print(f"error: {err}\nresults up to t = {rec.last.state.t:.6g} s are in {args.out}", file=sys.stderr)
            return 1
        stats = rec.run_statistics()
    state = rec.last.state

    height = np.ptp(mesh.points[mesh.nodes("BLOCK"), 1])
    width = np.ptp(mesh.points[mesh.nodes("BLOCK"), 0])
    weight = args.rho * G * width * height
    dy_c1 = float(state.u[2 * mesh.node("C1") + 1])
    dy_1d = -args.rho * G * height**2 / (2 * args.young)
    reaction = float(state.reactions[base_dofs].sum())
    summary = {
        "final_time": state.t,
        "block_weight_N": weight,
        "base_reaction_N": reaction,
        "reaction_rel_error": abs(reaction - weight) / weight,
        "dy_C1": dy_c1,
        "dy_C1_column_1d": dy_1d,
        "dy_C1_code_aster": ASTER_DY_C1_MIN,
        "run": stats,
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    _plot(args.out)
    print(f"SDNV105 self-weight phase, t = {phase.t_start} -> {state.t:.4g} s, {stats['steps']} steps, "
          f"{stats['newton_iterations']} Newton iterations, {stats['wall_s']:.2f} s")
    print(f"{'quantity':28s} {'this code':>14s} {'reference':>14s} {'rel. diff':>10s}")
    print(f"{'base reaction [N]':28s} {reaction:14.6f} {weight:14.6f} {abs(reaction / weight - 1):10.2e}  (M g)")
    print(f"{'DY(C1) [m]':28s} {dy_c1:14.6e} {dy_1d:14.6e} {abs(dy_c1 / dy_1d - 1):10.2e}  (1-D column)")
    print(f"{'DY(C1) [m]':28s} {dy_c1:14.6e} {ASTER_DY_C1_MIN:14.6e} {abs(dy_c1 / ASTER_DY_C1_MIN - 1):10.2e}"
          "  (Code_Aster, with table)")
    print(f"results: {args.out}/solution.pvd (ParaView), history.csv, summary.json, preload.png")
    return 0


def _plot(out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fem.results import read_history

    h = read_history(out / "history.csv")
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(h["t"], h["dy_C1"] * 1e9)
    ax[0].set(xlabel="t [s]", ylabel="DY(C1) [nm]", title="top-centre settlement")
    ax[1].plot(h["t"], h["ry_O"], label="R_y(O)")
    ax[1].plot(h["t"], h["ry_A"], label="R_y(A)")
    ax[1].set(xlabel="t [s]", ylabel="reaction [N]", title="corner reactions")
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(out / "preload.png", dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
