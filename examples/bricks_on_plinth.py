"""Three bricks on a plinth on a shaking table, under a horizontal and a vertical record together.

    python examples/bricks_on_plinth_mesh.py     # the geometry, with its own group names (once)
    python examples/bricks_on_plinth.py [OUT]    # the run: OUT/report.md, summary.json, history.csv
"""
import sys
from pathlib import Path

from contact.laws import Lagrange
from fem import BaseMotion, Body, ElasticMaterial, EventSteps, Pair, Preload, Problem, Support, read_record, simulate

HERE = Path(__file__).parent
stone = ElasticMaterial(young=3e10, poisson=0.2, density=2500.0, rayleigh_stiffness=1e-4)
floor = ElasticMaterial(young=3e12, poisson=0.2, density=2500.0, rayleigh_stiffness=1e-4)
record = HERE / "records" / "synthetic_h_v.csv"

problem = Problem(
    HERE / "bricks_on_plinth.msh", mass="redistributed",
    bodies=[Body("FLOOR", floor)] + [Body(g, stone) for g in ("PLINTH", "BRICK_1", "BRICK_2", "BRICK_3")],
    supports=[Support("FLOOR_BASE")],
    pairs=[Pair("PLINTH_BOTTOM", "FLOOR_TOP", Lagrange(mu=0.7)),
           Pair("BRICK_1_BOTTOM", "PLINTH_TOP", Lagrange(mu=0.7)),
           Pair("BRICK_2_BOTTOM", "BRICK_1_TOP", Lagrange(mu=0.7)),
           Pair("BRICK_3_BOTTOM", "BRICK_2_TOP", Lagrange(mu=0.7))])
shake = BaseMotion(3.0, x=read_record(record, column=1, scale=2.0), y=read_record(record, column=2, scale=2.0),
                   name="shake")
steps = EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7)

if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/bricks_on_plinth")
    outcome = simulate(problem, [Preload(), shake], out=out, quiet=False, case="bricks_on_plinth", steps=steps)
    print(f"{outcome.status} at t = {outcome.t_reached:.4g} s, {len(outcome.impacts)} impacts, energy books "
          f"{outcome.energy['relative_error']:.1e} of the input; overturned: "
          f"{', '.join(k for k, b in outcome.bodies.items() if b['overturned']) or 'none'}; see {out}/report.md")
    sys.exit(0 if outcome.status == "complete" else 1)
