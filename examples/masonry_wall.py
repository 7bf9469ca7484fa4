"""A dry running-bond wall of 205 bricks (10 courses of 0.4 x 0.2 m) on a shaking table, 10 s of a record at 0.88 g.

    python examples/masonry_wall.py [OUT]     # OUT (results/masonry_wall): summary.json, animation.gif and .png
"""
import sys
import tempfile
from pathlib import Path

from contact.laws import Penalty
from fem import BaseMotion, Body, ElasticMaterial, Preload, Problem, Support, Uniform, read_record, simulate
from fem.io.animation import animate_run
from fem.problem import Collapse, Contact
from meshes.assemblies import running_bond_wall, write

record = Path(__file__).parent / "records" / "synthetic_10s_h_v.csv"
wall = running_bond_wall(courses=10, bricks=20, brick=(0.4, 0.2), size=0.2)
stone = ElasticMaterial(young=1e10, poisson=0.2, density=2000.0)
joints = Contact(Penalty(1e8, mu=0.7, tangential_stiffness=1e8), merge=True, name="JOINTS")
shake = BaseMotion(10.0, x=read_record(record, column=1, scale=2.5), y=read_record(record, column=2, scale=2.5))

if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/masonry_wall")
    with tempfile.TemporaryDirectory() as tmp:
        problem = Problem(write(wall, Path(tmp) / "wall.msh"), bodies=[Body(b.name, stone) for b in wall.bodies],
                          supports=[Support(g) for g in wall.held], contacts=[joints])
        outcome = simulate(problem, [Preload(), shake], out=out, quiet=False, case="masonry_wall", paraview=True,
                           steps=Uniform(2e-3, alpha=-0.3, archive_every=25), collapse=Collapse(stop=False))
    animate_run(out, "gif", title="running-bond wall, 205 bricks", still=True)
    print(f"{outcome.status} at t = {outcome.t_reached:.4g} s; collapsed: {outcome.collapse['collapsed']}; energy "
          f"books {outcome.energy['relative_error']:.1e} of the input; wall {outcome.stats['wall_s']:.0f} s; see {out}")
