"""meshes.bodies: bodies of several element types in one mesh (issue 41 item 4).

The statue of examples/statue_on_plinth.py: a trapezoid of TRIA6 (0.4 m at its base, 0.2 m at its top,
0.7 m high, area 0.21 m^2) on a QUA4 plinth (0.8 x 0.3 m) held at its base, built by the helper in at most
15 lines. Checks:

1. The mesh: each body of its own element type, the bodies' areas exact (straight-sided elements tile
   the polygons: 1e-12 relative, round-off), no node shared between bodies, each edge group on its edge
   and as long as it.
2. The run: at rest under gravity the contact carries the statue's weight rho g A = 5150.25 N (1e-6
   relative: the preload's static equilibrium, its residual at Code_Aster's 1e-6 stopping test); under a
   0.8 g one-sine pulse at 2 Hz the statue, nearly rigid (E = 6e11 Pa), rocks as a rigid body on its base
   corner: its base keeps one node in contact from t* = asin(g d / (y_c a_p)) / w = 0.07427 s (d = 0.2 m,
   y_c = 0.3111 m; within 1 ms: the fine steps are 0.1 ms, and the elastic base settles for a few), and
   its rotation at 0.12 and 0.15 s is the rigid body's about that corner (I_P theta'' = m a (d sin theta +
   y_c cos theta) - m g (d cos theta - y_c sin theta), integrated by scipy from t*; within 2 %: the rigid
   and the E = 1e13 Pa statue differ by 0.8 % at 0.12 s, a rotation growing as (t - t*)^3 after the onset
   shifts 2 % with a 0.3 ms later onset). The energy books close within 1 %.
3. A user's own gmsh geometry (a .geo of two rectangles) meshed with an element type per body (TRIA3 and
   QUA8), its line groups kept on the body whose boundary holds them.
4. Refusals: a clockwise polygon, an unknown element type, a name given twice, a group the geometry lacks.
"""
from __future__ import annotations

import csv
import importlib.util
import inspect
import math

import numpy as np
import pytest

from fem.mesh.read import read_mesh, signed_areas
from meshes.bodies import Polygon, Rectangle, write_bodies, write_bodies_from_gmsh
from helpers import CASES

EXAMPLE = CASES.parent / "examples" / "statue_on_plinth.py"
STATUE = [(0.2, 0.3), (0.6, 0.3), (0.5, 1.0), (0.3, 1.0)]


def example():
    spec = importlib.util.spec_from_file_location("statue_on_plinth", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def polygon_properties(corners):
    """Area, centroid and polar moment about corners[0] (per unit mass) of a polygon, by the shoelace sums."""
    x0, y0 = corners[0]
    pts = [(x - x0, y - y0) for x, y in corners]
    area = cx = cy = ixx = iyy = 0.0
    for (xa, ya), (xb, yb) in zip(pts, pts[1:] + pts[:1]):
        c = xa * yb - xb * ya
        area += c / 2
        cx += (xa + xb) * c / 6
        cy += (ya + yb) * c / 6
        ixx += (ya * ya + ya * yb + yb * yb) * c / 12
        iyy += (xa * xa + xa * xb + xb * xb) * c / 12
    return area, cx / area, cy / area, (ixx + iyy) / area


def cell_areas(points, block):
    """The signed areas of a block's cells as the mesh reader checks them (fem.mesh.read.signed_areas)."""
    return signed_areas(points, block.cell_type, block.connectivity)


@pytest.fixture(scope="module")
def statue_mesh(tmp_path_factory):
    return read_mesh(example().write_mesh(tmp_path_factory.mktemp("statue") / "statue.msh"))


def test_the_statue_is_built_in_at_most_15_lines():
    source = inspect.getsource(example().write_mesh)
    assert len(source.strip().splitlines()) <= 15


def test_each_body_its_element_type_its_area_its_own_nodes(statue_mesh):
    m = statue_mesh
    assert m.cell_groups["STATUE"].cell_type == "triangle6" and m.cell_groups["PLINTH"].cell_type == "quad"
    assert m.cell_groups["STATUE_BASE"].cell_type == "line3" and m.cell_groups["PLINTH_TOP"].cell_type == "line"
    for body, area in (("STATUE", polygon_properties(STATUE)[0]), ("PLINTH", 0.24)):
        a = cell_areas(m.points, m.cell_groups[body])
        assert np.all(a > 0) and a.sum() == pytest.approx(area, rel=1e-12)
    assert not set(m.node_groups["STATUE"]) & set(m.node_groups["PLINTH"])
    for group, y, (x0, x1) in (("STATUE_BASE", 0.3, (0.2, 0.6)), ("PLINTH_TOP", 0.3, (0.0, 0.8)),
                               ("PLINTH_BASE", 0.0, (0.0, 0.8))):
        nodes = m.points[m.node_groups[group]]
        assert np.allclose(nodes[:, 1], y, atol=1e-12)
        assert nodes[:, 0].min() == pytest.approx(x0, abs=1e-12) and nodes[:, 0].max() == pytest.approx(x1, abs=1e-12)
        ends = m.points[m.cell_groups[group].connectivity[:, :2]]
        assert np.sum(np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)) == pytest.approx(x1 - x0, rel=1e-12)


@pytest.fixture(scope="module")
def rocking(tmp_path_factory):
    out = tmp_path_factory.mktemp("statue_run")
    outcome = example().run(out, duration=0.15, quiet=True, young=6e11)
    with open(out / "history.csv") as f:
        rows = list(csv.DictReader(f))
    return outcome, rows


def test_the_contact_carries_the_statue_weight(rocking):
    _, rows = rocking
    area = polygon_properties(STATUE)[0]
    assert float(rows[0]["rn[STATUE_BASE/PLINTH_TOP]"]) == pytest.approx(2500.0 * 9.81 * area, rel=1e-6)


def test_the_statue_rocks_as_a_rigid_body_on_its_base_corner(rocking):
    from scipy.integrate import solve_ivp

    outcome, rows = rocking
    assert outcome.status == "complete" and outcome.energy["relative_error"] <= 0.01
    _, d, yc, ip = polygon_properties(STATUE)
    g, a_p, w = 9.81, 0.8 * 9.81, 4.0 * math.pi
    t_star = math.asin(g * d / (yc * a_p)) / w
    assert t_star == pytest.approx(0.07427, abs=1e-5)
    single = [float(r["t"]) for r in rows if float(r["n_closed[STATUE_BASE/PLINTH_TOP]"]) == 1.0]
    assert single and t_star <= single[0] <= t_star + 1e-3

    def rigid(t, s):
        th, om = s
        a = a_p * math.sin(w * t)
        return [om, (a * (d * math.sin(th) + yc * math.cos(th)) - g * (d * math.cos(th) - yc * math.sin(th))) / ip]

    sol = solve_ivp(rigid, (t_star, 0.15), [0.0, 0.0], rtol=1e-11, atol=1e-15, dense_output=True)
    times = np.array([float(r["t"]) for r in rows])
    theta = np.array([float(r["theta[STATUE]"]) for r in rows])
    for t in (0.12, 0.15):
        k = int(np.argmin(np.abs(times - t)))
        assert abs(times[k] - t) < 1e-6
        assert theta[k] == pytest.approx(sol.sol(t)[0], rel=0.02)


GEO = """
SetFactory("Built-in");
Point(1) = {0, 0, 0, 0.1}; Point(2) = {1, 0, 0, 0.1}; Point(3) = {1, 0.2, 0, 0.1}; Point(4) = {0, 0.2, 0, 0.1};
Point(5) = {0.3, 0.2, 0, 0.1}; Point(6) = {0.7, 0.2, 0, 0.1}; Point(7) = {0.7, 0.6, 0, 0.1}; Point(8) = {0.3, 0.6, 0, 0.1};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Line(5) = {5, 6}; Line(6) = {6, 7}; Line(7) = {7, 8}; Line(8) = {8, 5};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Curve Loop(2) = {5, 6, 7, 8}; Plane Surface(2) = {2};
Physical Surface("BASE") = {1}; Physical Surface("BOX") = {2};
Physical Curve("BASE_TOP") = {3}; Physical Curve("BOX_BOTTOM") = {5}; Physical Curve("BASE_BOTTOM") = {1};
"""


def test_a_users_gmsh_geometry_with_an_element_type_per_body(tmp_path):
    geo = tmp_path / "two.geo"
    geo.write_text(GEO)
    m = read_mesh(write_bodies_from_gmsh(tmp_path / "two.msh", geo, {"BASE": "TRIA3", "BOX": "QUA8"}))
    assert m.cell_groups["BASE"].cell_type == "triangle" and m.cell_groups["BOX"].cell_type == "quad8"
    assert m.cell_groups["BASE_TOP"].cell_type == "line" and m.cell_groups["BOX_BOTTOM"].cell_type == "line3"
    assert cell_areas(m.points, m.cell_groups["BASE"]).sum() == pytest.approx(0.2, rel=1e-12)
    assert cell_areas(m.points, m.cell_groups["BOX"]).sum() == pytest.approx(0.16, rel=1e-12)
    assert not set(m.node_groups["BASE"]) & set(m.node_groups["BOX"])
    assert set(m.node_groups["BOX_BOTTOM"]) <= set(m.node_groups["BOX"])
    assert set(m.node_groups["BASE_TOP"]) <= set(m.node_groups["BASE"])


def test_refusals_name_the_body_and_the_problem(tmp_path):
    with pytest.raises(ValueError, match="STATUE: the corners must go round counter-clockwise"):
        Polygon("STATUE", STATUE[::-1], element="TRIA6")
    with pytest.raises(ValueError, match="PLINTH: element 'QUA9' is not one of"):
        Rectangle("PLINTH", 0, 0, 1, 1, element="QUA9")
    with pytest.raises(ValueError, match="PLINTH: edges\\['TOP'\\]: 'up' is not one of"):
        Rectangle("PLINTH", 0, 0, 1, 1, edges={"TOP": "up"})
    with pytest.raises(ValueError, match="group names given twice: A"):
        write_bodies(tmp_path / "x.msh", [Rectangle("A", 0, 0, 1, 1), Rectangle("B", 0, 1, 1, 1, edges={"A": "top"})])
    geo = tmp_path / "two.geo"
    geo.write_text(GEO)
    with pytest.raises(ValueError, match="no surface group 'STATUE'"):
        write_bodies_from_gmsh(tmp_path / "y.msh", geo, {"STATUE": "TRIA6"})
    assert not (tmp_path / "x.msh").exists() and not (tmp_path / "y.msh").exists()  # nothing written
