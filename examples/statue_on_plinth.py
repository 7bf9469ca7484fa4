"""A statue of TRIA6 elements on a plinth of QUA4 elements, the plinth held at its base, under a one-sine
pulse of 0.8 g at 2 Hz: the statue (a trapezoid 0.4 m wide at its base, 0.2 m at its top, 0.7 m high)
lifts once the table's acceleration passes g d / h_c = 0.643 g (d = 0.2 m from its centroid to a base
corner, h_c = 0.311 m its centroid's height), at t = asin(0.643 / 0.8) / (2 pi 2 Hz) = 0.074 s, and rocks.

    python examples/statue_on_plinth.py [OUT]    # the mesh (statue_on_plinth.msh in OUT), then the run

The mesh: meshes.bodies, each body with its own element type and size, its named edges as line groups.
"""
import sys
from pathlib import Path

from contact.laws import Lagrange
from fem import BaseMotion, Body, ElasticMaterial, EventSteps, Pair, Preload, Problem, Support, simulate
from fem.loads.base_motion import SinePulse
from fem.problem import g
from meshes.bodies import Polygon, Rectangle, write_bodies


def write_mesh(path):
    """The plinth (QUA4, 0.8 x 0.3 m) and the statue on it (TRIA6): the mesh file ``path``."""
    return write_bodies(path, [
        Rectangle("PLINTH", 0.0, 0.0, 0.8, 0.3, element="QUA4", size=0.1,
                  edges={"PLINTH_BASE": "bottom", "PLINTH_TOP": "top"}),
        Polygon("STATUE", [(0.2, 0.3), (0.6, 0.3), (0.5, 1.0), (0.3, 1.0)], element="TRIA6", size=0.08,
                edges={"STATUE_BASE": 0}),
    ])


def problem(mesh, young: float = 3e10) -> Problem:
    stone = ElasticMaterial(young=young, poisson=0.2, density=2500.0, rayleigh_stiffness=1e-4)
    return Problem(mesh, mass="redistributed", bodies=[Body("PLINTH", stone), Body("STATUE", stone)],
                   supports=[Support("PLINTH_BASE")], pairs=[Pair("STATUE_BASE", "PLINTH_TOP", Lagrange(mu=0.8))])


def run(out: Path, duration: float = 1.0, quiet: bool = False, young: float = 3e10):
    mesh = write_mesh(Path(out) / "statue_on_plinth.msh")
    shake = BaseMotion(duration, x=SinePulse(amplitude=0.8 * g, frequency=2.0), name="shake")
    return simulate(problem(mesh, young), [Preload(), shake], out=out, quiet=quiet, case="statue_on_plinth",
                    steps=EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7))


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/statue_on_plinth")
    outcome = run(out)
    print(f"{outcome.status} at t = {outcome.t_reached:.4g} s, {len(outcome.impacts)} impacts, energy books "
          f"{outcome.energy['relative_error']:.1e} of the input; see {out}/report.md")
    sys.exit(0 if outcome.status == "complete" else 1)
