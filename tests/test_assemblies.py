"""meshes.assemblies: masonry assemblies (a running-bond wall, an arch, a column, an array of bricks) as
bodies of meshes.bodies, their joints found from the geometry.

1. Geometry: no two blocks overlap (the area of each pair's intersection, by clipping one convex polygon
   by the other, at most 1e-12 of a block's area: the blocks touch along their joints, where the clipped
   polygon is degenerate and its area is round-off, ~1e-17 m^2 for 0.1 m^2 blocks), and they fill what
   they should: the wall's bricks courses x bricks x L H and their bounding box as much (a tiling of the
   wall's rectangle), a column's drums, an array's bricks, to 1e-12 relative (sums of products of
   lengths: round-off). The arch's voussoirs, quadrangles whose intrados and extrados are chords, have
   the area n R t sin(delta), delta = opening / n (1e-12 relative, round-off); the annular sector's
   opening R t exceeds it by the relative 1 - sin(delta)/delta (exact), below delta^2 / 6 (its Taylor
   bound); with 3 chords per arc, delta / 3 in place of delta.
2. Joints: counts against hand counts (below); each joint's two faces (found by their group names on the
   polygons) on one line (ends within 1e-12 m: the faces share corners computed by the same arithmetic,
   so round-off only), run in opposite directions, overlapping over the joint's own segment, of positive
   length; the master's outward normal up, or right for a vertical joint (the module's rule); an arch's
   joints radial, their line within 1e-12 m of the centre (sin and cos round-off on unit radii).
3. Mesh: a wall of TRIA6 bricks on a QUA4 base and an arch of QUA8 voussoirs on TRIA3 abutments and base,
   written and read back: every block a surface group of its element type, every face a line group, as
   many connected parts as blocks (no node shared), each joint's faces' nodes on its line (1e-12 m).
4. A problem: every block a Body, the base's bottom held, pairs(assembly, Lagrange(mu=0.7)): assemble
   accepts the groups and the pairs' orientation. A 2-course wall's preload: the vertical contact forces
   on the base carry the bricks' weight, and those between the courses the top course's, to 1e-6 relative
   (the preload's Newton stops at a residual of 1e-6 of the weight, RESI_GLOB_RELA). Its head joints
   get a micrometre clearance (pairs' head_clearance: tight head joints meet the bed joints at points
   where three blocks' multiplier conditions are redundant, and the preload's matrix is singular).
"""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from contact.laws import Lagrange
from fem import Body, ElasticMaterial, Preload, Problem, Support, assemble
from fem.constants import GRAVITY
from fem.mesh.read import read_mesh
from meshes.assemblies import Joint, arch, brick_array, column, joints, pairs, running_bond_wall, write
from meshes.bodies import Polygon, Rectangle

STONE = ElasticMaterial(young=3e10, poisson=0.2, density=2500.0)
CELL_TYPES = {"TRIA3": "triangle", "TRIA6": "triangle6", "QUA4": "quad", "QUA8": "quad8"}


# ------------------------------------------------------------------------------------------ plane geometry
def area(corners) -> float:
    """The signed area of a polygon (shoelace)."""
    return 0.5 * sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(corners, list(corners[1:]) + [corners[0]]))


def cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex(corners) -> bool:
    n = len(corners)
    return all(cross(corners[k], corners[(k + 1) % n], corners[(k + 2) % n]) >= 0 for k in range(n))


def clip(subject, window) -> list:
    """Sutherland-Hodgman: the part of ``subject`` inside the convex counter-clockwise polygon ``window``."""
    out = list(subject)
    for a, b in zip(window, list(window[1:]) + [window[0]]):
        if not out:
            break
        given, out = out, []
        for p, q in zip(given, given[1:] + given[:1]):
            inside_p, inside_q = cross(a, b, p) >= 0, cross(a, b, q) >= 0
            if inside_p:
                out.append(p)
            if inside_p != inside_q:
                dp, dq = cross(a, b, p), cross(a, b, q)
                s = dp / (dp - dq)
                out.append((p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])))
    return out


def overlap(p, q) -> float:
    piece = clip(p, q)
    return abs(area(piece)) if len(piece) >= 3 else 0.0


def faces(body: Polygon, group: str) -> list:
    """The segments of the line group ``group`` of ``body``."""
    c = body.corners
    return [(c[k], c[(k + 1) % len(c)]) for k in body.edges[group]]


def bodies_by_name(assembly) -> dict:
    return {b.name: b for b in assembly.bodies}


# --------------------------------------------------------------------------------------------- 1 geometry
BUILDS = {
    "wall 3x4": lambda: running_bond_wall(3, 4),
    "wall 4x3 no base": lambda: running_bond_wall(4, 3, brick=(0.3, 0.1), x0=1.0, y0=0.5, base=False),
    "arch 5": lambda: arch(5, 1.0, 0.2),
    "arch 6 of 2 rad": lambda: arch(6, 2.0, 0.3, opening=2.0),
    "arch 4 no abutments": lambda: arch(4, 1.5, 0.25, abutments=False),
    "column 3": lambda: column(3, 0.4, 0.6),
    "array 2x3": lambda: brick_array(2, 3),
    "array 3x2 gap": lambda: brick_array(3, 2, gap=0.01),
}


@pytest.mark.parametrize("name", BUILDS)
def test_the_blocks_do_not_overlap(name):
    blocks = BUILDS[name]().bodies
    assert all(convex(b.corners) for b in blocks)
    for i, p in enumerate(blocks):
        for q in blocks[i + 1:]:
            assert overlap(p.corners, q.corners) <= 1e-12 * min(area(p.corners), area(q.corners)), (p.name, q.name)


@pytest.mark.parametrize("courses, bricks, brick", [(3, 4, (0.4, 0.2)), (4, 3, (0.3, 0.1)), (1, 1, (0.5, 0.25))])
def test_the_wall_fills_its_rectangle(courses, bricks, brick):
    wall = running_bond_wall(courses, bricks, brick=brick, x0=0.3, y0=-0.1)
    length, height = brick
    laid = [b for b in wall.bodies if b.name.startswith("BRICK_")]
    assert len(laid) == courses * bricks + courses // 2  # the offset courses have one block more
    total = sum(area(b.corners) for b in laid)
    assert total == pytest.approx(courses * bricks * length * height, rel=1e-12)
    xs = [x for b in laid for x, _ in b.corners]
    ys = [y for b in laid for _, y in b.corners]
    assert (max(xs) - min(xs)) * (max(ys) - min(ys)) == pytest.approx(total, rel=1e-12)
    assert min(xs) == pytest.approx(0.3, abs=1e-12) and min(ys) == pytest.approx(-0.1, abs=1e-12)
    assert area(wall.body("BASE").corners) == pytest.approx((bricks + 1) * length * height, rel=1e-12)
    if courses >= 2:  # an offset course: a half brick at each end, whole bricks between
        widths = [b.corners[1][0] - b.corners[0][0] for b in laid if b.name.startswith("BRICK_2_")]
        assert widths == pytest.approx([length / 2] + [length] * (bricks - 1) + [length / 2], rel=1e-12)


@pytest.mark.parametrize("n, radius, thickness, opening, chords", [
    (5, 1.0, 0.2, math.pi, 1), (6, 2.0, 0.3, 2.0, 1), (12, 1.0, 0.1, math.pi, 1), (5, 1.0, 0.2, math.pi, 3)])
def test_the_arch_fills_its_ring_up_to_the_chords(n, radius, thickness, opening, chords):
    a = arch(n, radius, thickness, opening=opening, chords=chords)
    voussoirs = [b for b in a.bodies if b.name.startswith("VOUSSOIR_")]
    assert len(voussoirs) == n
    delta = opening / n / chords
    total = sum(area(b.corners) for b in voussoirs)
    assert total == pytest.approx(n * chords * radius * thickness * math.sin(delta), rel=1e-12)
    short = 1.0 - total / (opening * radius * thickness)
    assert short == pytest.approx(1.0 - math.sin(delta) / delta, abs=1e-12)
    assert 0.0 < short <= delta ** 2 / 6
    for b in voussoirs:  # every corner on the intrados or the extrados circle
        radii = sorted(math.hypot(x, y) for x, y in b.corners)
        assert radii == pytest.approx([radius - thickness / 2] * (chords + 1) + [radius + thickness / 2] * (chords + 1),
                                      abs=1e-12)
    left, right = a.body("VOUSSOIR_1").corners, a.body(f"VOUSSOIR_{n}").corners
    springing = math.atan2(left[0][1], left[0][0]), math.atan2(right[chords][1], right[chords][0])
    assert springing == pytest.approx(((math.pi + opening) / 2, (math.pi - opening) / 2), abs=1e-12)
    mirrored = sorted((round(-x, 12), round(y, 12)) for b in voussoirs for x, y in b.corners)
    assert mirrored == sorted((round(x, 12), round(y, 12)) for b in voussoirs for x, y in b.corners)


def test_the_column_and_the_array_fill_their_areas():
    col = column(3, 0.4, 0.6, x0=1.0)
    drums = [b for b in col.bodies if b.name.startswith("DRUM_")]
    assert sum(area(b.corners) for b in drums) == pytest.approx(3 * 0.4 * 0.6, rel=1e-12)
    assert all(sum(x for x, _ in b.corners) / 4 == pytest.approx(1.0, abs=1e-12) for b in drums)  # centred
    for gap in (0.0, 0.01):
        arr = brick_array(2, 3, gap=gap)
        bricks = [b for b in arr.bodies if b.name.startswith("BRICK_")]
        assert len(bricks) == 6 and sum(area(b.corners) for b in bricks) == pytest.approx(6 * 0.25 * 0.25, rel=1e-12)
        xs = [x for b in bricks for x, _ in b.corners]
        assert max(xs) - min(xs) == pytest.approx(3 * 0.25 + 2 * gap, rel=1e-12)


# ----------------------------------------------------------------------------------------------- 2 joints
# Hand counts. Wall 3 x 4 on a base: course 1 four bricks on the base (4), head joints 3 + 4 + 3 (courses
# of 4, 5 and 4 blocks), each bed between courses 8 overlaps (the course lines at 0, .2, .4, ..., 1.6 m cut
# it into 8 pieces, each a brick above on a brick below): 4 + 10 + 16 = 30; without the base 26.
# Arch of 5: 4 joints between voussoirs + 2 springings on the abutments + 2 abutments on the base = 8;
# without abutments 4. Column of 3: 2 between drums + 1 on the base = 3. Array 2 x 3 on a base: 3 on the
# base, 3 between the rows, 2 head joints in each row: 10; a gap between columns leaves 3 + 3 = 6; with a
# gap between rows too, only the 3 on the base.
COUNTS = [
    ("wall 3x4", lambda: running_bond_wall(3, 4), 30, 0),
    ("wall 3x4 no base", lambda: running_bond_wall(3, 4, base=False), 26, 0),
    ("arch 5", lambda: arch(5, 1.0, 0.2), 8, 6),
    ("arch 5 no abutments", lambda: arch(5, 1.0, 0.2, abutments=False), 4, 4),
    ("arch 4 of 2 rad", lambda: arch(4, 1.0, 0.2, opening=2.0), 7, 5),
    ("column 3", lambda: column(3, 0.4, 0.6), 3, 0),
    ("column 3 no base", lambda: column(3, 0.4, 0.6, base=False), 2, 0),
    ("array 2x3", lambda: brick_array(2, 3), 10, 0),
    ("array 2x3 gap", lambda: brick_array(2, 3, gap=0.01), 6, 0),
    ("array 2x3 gaps", lambda: brick_array(2, 3, gap=0.01, row_gap=0.01), 3, 0),
]


@pytest.mark.parametrize("name, build, count, radial", COUNTS, ids=[c[0].replace(" ", "_") for c in COUNTS])
def test_the_joints_are_the_hand_counted_faces_in_contact(name, build, count, radial):
    a = build()
    assert len(a.joints) == count
    named = bodies_by_name(a)
    for j in a.joints:
        assert isinstance(j, Joint) and j.slave_body != j.master_body and j.length > 1e-3
        (s0, s1), = faces(named[j.slave_body], j.slave)
        (m0, m1), = faces(named[j.master_body], j.master)
        d = np.subtract(m1, m0)
        u = d / np.hypot(*d)
        n = np.array([u[1], -u[0]])  # the master's outward normal
        for p in (s0, s1, j.start, j.end):  # the slave's face and the overlap on the master's line
            assert abs(np.dot(np.subtract(p, m0), n)) <= 1e-12
        assert np.dot(np.subtract(s1, s0), u) < 0  # face to face
        along = lambda p: float(np.dot(np.subtract(p, m0), u))  # noqa: E731
        lo = max(0.0, min(along(s0), along(s1)))
        hi = min(along(m1), max(along(s0), along(s1)))
        assert hi - lo == pytest.approx(j.length, abs=1e-12) and j.length > 0
        assert n[1] > 1e-9 or (abs(n[1]) <= 1e-9 and n[0] > 0)  # master below, or on the left
    centre = [j for j in a.joints if "VOUSSOIR" in j.slave_body]
    assert len(centre) == radial
    for j in centre:  # radial: the joint's line through the centre (0, 0)
        assert abs(cross((0.0, 0.0), j.start, j.end)) / j.length <= 1e-12


def test_the_wall_names_its_joints_as_masonry():
    wall = running_bond_wall(3, 4)
    found = {(j.slave, j.master) for j in wall.joints}
    assert ("BRICK_1_2_LEFT", "BRICK_1_1_RIGHT") in found  # a head joint: the right brick is the slave
    assert {("BRICK_2_2_BOTTOM", "BRICK_1_1_TOP"), ("BRICK_2_2_BOTTOM", "BRICK_1_2_TOP")} <= found  # on two
    assert ("BRICK_2_1_BOTTOM", "BRICK_1_1_TOP") in found and ("BRICK_1_4_BOTTOM", "BASE_TOP") in found
    beds = {}
    for j in wall.joints:
        if j.slave.endswith("_BOTTOM") and j.master != "BASE_TOP":
            beds[j.slave_body] = beds.get(j.slave_body, 0) + 1
    assert beds["BRICK_2_1"] == beds["BRICK_2_5"] == 1 and beds["BRICK_2_3"] == beds["BRICK_3_2"] == 2
    assert sum(j.vertical for j in wall.joints) == 10 and wall.held == ("BASE_BOTTOM",)
    assert running_bond_wall(2, 2, base=False).held == ("BRICK_1_1_BOTTOM", "BRICK_1_2_BOTTOM")
    assert arch(4, 1.0, 0.2, abutments=False).held == ("VOUSSOIR_1_JOINT_A", "VOUSSOIR_4_JOINT_B")


def test_any_polygons_get_their_joints():
    statue = Polygon("STATUE", [(0.2, 0.3), (0.6, 0.3), (0.5, 1.0), (0.3, 1.0)], edges={"STATUE_BASE": 0})
    plinth = Rectangle("PLINTH", 0.0, 0.0, 0.8, 0.3, edges={"PLINTH_TOP": "top", "PLINTH_BASE": "bottom"})
    (j,) = joints([statue, plinth])
    assert (j.slave, j.master) == ("STATUE_BASE", "PLINTH_TOP")
    assert sorted([j.start, j.end]) == [(0.2, 0.3), (0.6, 0.3)]
    corner = Rectangle("ASIDE", 0.8, 0.3, 0.2, 0.2, edges={"ASIDE_BOTTOM": "bottom"})  # touches a corner only
    apart = Rectangle("ABOVE", 0.0, 0.3 + 1e-6, 0.1, 0.1, edges={"ABOVE_BOTTOM": "bottom"})  # 1 um above
    ramp = Polygon("RAMP", [(0.0, 0.4), (0.1, 0.3), (0.15, 0.5), (0.0, 0.5)], edges={"RAMP_FOOT": 0})  # one end down
    assert joints([statue, plinth, corner, apart, ramp]) == (j,)
    same_side = Rectangle("OVER", 0.4, 0.0, 0.8, 0.3, edges={"OVER_BOTTOM": "bottom"})  # its bottom runs with the plinth's
    assert joints([Rectangle("PLINTH", 0.0, 0.0, 0.8, 0.3, edges={"PLINTH_BASE": "bottom"}), same_side]) == ()
    with pytest.raises(ValueError, match="body NAMELESS: its edge 0 meets body PLINTH but belongs to no line group"):
        joints([plinth, Rectangle("NAMELESS", 0.0, 0.3, 0.1, 0.1)])


# ------------------------------------------------------------------------------------------------- 3 mesh
@pytest.fixture(scope="module")
def meshes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("assemblies")
    wall = running_bond_wall(2, 3, element="TRIA6", base_element="QUA4")
    vault = arch(5, 1.0, 0.2, element="QUA8", base_element="TRIA3")
    return {name: (a, write(a, folder / f"{name}.msh")) for name, a in (("wall", wall), ("arch", vault))}


@pytest.mark.parametrize("name", ["wall", "arch"])
def test_the_mesh_has_every_block_and_face_and_no_shared_node(meshes, name):
    a, path = meshes[name]
    m = read_mesh(path)
    for b in a.bodies:
        assert m.cell_groups[b.name].cell_type == CELL_TYPES[b.element]
        for group in b.edges:
            assert m.cell_groups[group].dim == 1
    surfaces = [m.cell_groups[b.name].connectivity for b in a.bodies]
    rows = np.concatenate([np.repeat(c[:, 0], c.shape[1] - 1) for c in surfaces])
    cols = np.concatenate([c[:, 1:].ravel() for c in surfaces])
    parts, _ = connected_components(coo_matrix((np.ones(rows.size), (rows, cols)), shape=(m.n_nodes,) * 2),
                                    directed=False)
    used = np.unique(np.concatenate([c.ravel() for c in surfaces]))
    assert used.size == m.n_nodes and parts == len(a.bodies)
    for j in a.joints:
        d = np.subtract(j.end, j.start) / j.length
        for group in (j.slave, j.master):
            offsets = (m.points[np.unique(m.cell_groups[group].connectivity)] - j.start) @ np.array([d[1], -d[0]])
            assert np.abs(offsets).max() <= 1e-12


# ---------------------------------------------------------------------------------------------- 4 problem
def problem(assembly, mesh, **options) -> Problem:
    return Problem(mesh, bodies=[Body(b.name, STONE) for b in assembly.bodies],
                   supports=[Support(g) for g in assembly.held], pairs=pairs(assembly, Lagrange(mu=0.7), **options))


def test_a_wall_and_an_arch_make_a_problem(tmp_path, meshes):
    wall = running_bond_wall(3, 4)
    assembled = assemble(problem(wall, write(wall, tmp_path / "wall.msh")))
    assert len(assembled.terms) == len(wall.joints) == 30
    vault, path = meshes["arch"]
    assert len(assemble(problem(vault, path)).terms) == 8


def test_a_preloaded_wall_rests_its_weight_on_its_base(tmp_path):
    """(A bed face longer than the face it rests on leaves slave nodes unpaired, their gap infinite:
    fem.stage.energy.law_work leaves their step work out.)"""
    from fem.problem.simulate import Settings, run_stages

    wall = running_bond_wall(2, 3)
    assembled = assemble(problem(wall, write(wall, tmp_path / "wall.msh"), head_clearance=1e-6))
    with tempfile.TemporaryDirectory() as folder:
        outcome = run_stages(assembled, [Preload()], Path(folder), Settings())
    assert outcome.status == "complete", outcome.message
    course = STONE.density * GRAVITY * 3 * 0.4 * 0.2  # a course's weight [N] (unit thickness)
    carried = {"BASE_TOP": 0.0, "BRICK_1": 0.0}
    for pair, term in zip(assembled.problem.pairs, assembled.terms):
        lower = "BASE_TOP" if pair.master == "BASE_TOP" else pair.master[:7]
        if lower in carried and not pair.slave.endswith(("_LEFT", "_RIGHT")):
            carried[lower] += float(np.sum(np.asarray(term.state().force)[:, 1]))
    assert carried["BASE_TOP"] == pytest.approx(2 * course, rel=1e-6)
    assert carried["BRICK_1"] == pytest.approx(course, rel=1e-6)
