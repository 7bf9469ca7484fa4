"""Masonry assemblies as bodies of :mod:`meshes.bodies`: a running-bond wall, an arch of voussoirs, a
column of drums, an array of bricks; each block a :class:`meshes.bodies.Polygon` meshed on its own (its
own element type and size, no node shared with another block), and the joints between blocks found from
the geometry, so that a whole problem's contacts are stated in one line.

    from meshes.assemblies import running_bond_wall, write, pairs
    from contact.laws import Lagrange

    wall = running_bond_wall(3, 4, element="TRIA6", base_element="QUA4")
    mesh = write(wall, "wall.msh")
    problem = Problem(mesh, bodies=[Body(b.name, stone) for b in wall.bodies],
                      supports=[Support(g) for g in wall.held],
                      pairs=pairs(wall, Lagrange(mu=0.7), head_clearance=1e-6))   # (pairs: why the clearance)

Lengths in metres; x to the right, y up (gravity along -y).

Names. Every block is a surface group named after it: ``BRICK_<course>_<k>`` (courses counted from 1 at
the bottom, bricks from 1 at the left), ``VOUSSOIR_<k>`` (from 1 at the left springing), ``DRUM_<k>`` (from
1 at the bottom), ``BRICK_<row>_<column>`` for an array, ``BASE``, ``ABUTMENT_L`` and ``ABUTMENT_R``. Each
side of a block is a line group named ``<BLOCK>_<SIDE>``: a rectangle's (and an abutment's) ``BOTTOM``,
``RIGHT``, ``TOP``, ``LEFT``; a voussoir's ``INTRADOS``, ``EXTRADOS``, ``JOINT_A`` (the radial joint on
the side of the left springing) and ``JOINT_B`` (on the side of the right one).

Joints. :func:`joints` pairs every two edges of different blocks that lie on one line (within ``tol``)
face to face (opposite directions: the blocks on either side) and overlap over more than ``tol``: one
:class:`Joint` per such pair of edges, its overlap segment kept. A brick of a running bond resting on two
bricks has two joints. Slave and master: the master is the face whose outward normal points up (n_y > 0),
or, for a vertical joint, to the right (n_x > 0): the master is the lower block's face (the left one's
for a vertical joint) and the slave the face of the block above (or to the right); in an arch the
voussoir nearer its springing is the master, an abutment's top the master of a springing. The rule reads
the normals only, so it holds for any polygons, and it is the examples' (a statue's base the slave on its
plinth's top, a brick's bottom on the brick below): the block that carries the load gives the segments
the upper block's nodes are pressed onto (node to segment). Both senses are accepted by the engine.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fem.problem.interfaces import facing
from meshes.bodies import Polygon, write_bodies

#: a rectangle's sides by edge index, counter-clockwise from its bottom-left corner
RECTANGLE_SIDES = ("BOTTOM", "RIGHT", "TOP", "LEFT")
#: |n_y| of a joint's unit normal at most this: the joint is vertical (its master the left block's face)
VERTICAL = 1e-9


@dataclass(frozen=True)
class Joint:
    """Two faces of two blocks in contact face to face: the line groups ``slave`` (the face of the block
    above, or to the right) and ``master`` (the lower, or left, block's face; module docstring), the blocks
    ``slave_body`` and ``master_body``, and the segment ``start`` -> ``end`` [m] over which the faces
    overlap (along the master face's direction, its block on the left)."""

    slave: str
    master: str
    slave_body: str
    master_body: str
    start: tuple[float, float]
    end: tuple[float, float]

    @property
    def length(self) -> float:
        """The overlap's length [m]."""
        return math.dist(self.start, self.end)

    @property
    def vertical(self) -> bool:
        """The joint stands vertical (a head joint): its normal's y component at most VERTICAL."""
        return abs(self.end[0] - self.start[0]) <= VERTICAL * self.length


@dataclass(frozen=True)
class Assembly:
    """Blocks and their joints: ``bodies`` (:class:`meshes.bodies.Polygon`), ``joints`` (:class:`Joint`,
    :func:`joints` of the bodies) and ``held``, the line groups to hold (a :class:`fem.problem.Support`
    each): the base's bottom, or without a base the faces that rest on the ground."""

    bodies: tuple[Polygon, ...]
    joints: tuple[Joint, ...]
    held: tuple[str, ...] = ()

    def body(self, name: str) -> Polygon:
        """The block named ``name``."""
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(f"no block {name!r} in the assembly")


def block(name: str, corners, sides: Sequence[str], element: str, size: float) -> Polygon:
    """The polygon ``corners`` (counter-clockwise [m]) named ``name``, edge k the line group
    ``<name>_<sides[k]>`` (a side named for several edges gathers them)."""
    edges: dict[str, list[int]] = {}
    for k, side in enumerate(sides):
        edges.setdefault(f"{name}_{side}", []).append(k)
    return Polygon(name, corners, element, size, edges)


def rectangle(name: str, x: tuple[float, float], y: tuple[float, float], element: str, size: float) -> Polygon:
    """The rectangle [x0, x1] x [y0, y1] [m] named ``name``, its sides ``<name>_BOTTOM/_RIGHT/_TOP/_LEFT``."""
    (x0, x1), (y0, y1) = x, y
    return block(name, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], RECTANGLE_SIDES, element, size)


def _positive(owner: str, **values) -> None:
    for key, value in values.items():
        if isinstance(value, bool) or not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{owner}: {key} must be a positive finite number, got {value!r}")


def _count(owner: str, **values) -> None:
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{owner}: {key} must be an integer >= 1, got {value!r}")


def _edge_group(body: Polygon, k: int) -> str | None:
    """The line group of edge ``k`` of ``body``: of the groups holding it, the one of fewest edges."""
    holding = [(len(ks), g) for g, ks in body.edges.items() if k in ks]
    return min(holding)[1] if holding else None


def joints(bodies: Sequence[Polygon], tol: float = 1e-9) -> tuple[Joint, ...]:
    """Every joint between ``bodies``: each pair of edges of two different bodies that lie on one line
    (both ends of each within ``tol`` [m] of the other's line), run in opposite directions (face to face,
    the bodies on either side) and overlap over more than ``tol`` [m]. The master is the face whose outward
    normal points up, or right for a vertical joint (module docstring). In the bodies' order; an edge that
    meets another body but belongs to no line group is refused (ValueError naming it). The facing test is
    fem.problem.interfaces.facing's, the one contact found from a mesh (fem.problem.Contact) uses."""
    owner, first, second = [], [], []
    for i, b in enumerate(bodies):
        c = b.corners
        for k in range(len(c)):
            owner.append((i, k))
            first.append(c[k])
            second.append(c[(k + 1) % len(c)])
    if not owner:
        return ()
    a, z = np.array(first, dtype=float), np.array(second, dtype=float)
    found = []
    for e, f, lo, hi in zip(*facing(a, z, np.array([i for i, _ in owner]), tol)[:4]):
        u = (z[e] - a[e]) / np.hypot(*(z[e] - a[e]))
        n = np.array([u[1], -u[0]])  # outward: the body is on the left of its edges
        up = n[1] > VERTICAL or (abs(n[1]) <= VERTICAL and n[0] > 0.0)  # edge e is the master
        master, slave = (e, int(f)) if up else (int(f), e)
        names = []
        for edge in (slave, master):
            body, k = bodies[owner[edge][0]], owner[edge][1]
            group = _edge_group(body, k)
            if group is None:
                other = bodies[owner[master if edge == slave else slave][0]].name
                raise ValueError(f"body {body.name}: its edge {k} meets body {other} but belongs to no line "
                                 "group: name it in the polygon's edges")
            names.append(group)
        p, q = a[e] + lo * u, a[e] + hi * u
        if not up:  # along the master face's own direction
            p, q = q, p
        found.append(((owner[master][0], owner[slave][0]),
                      Joint(names[0], names[1], bodies[owner[slave][0]].name, bodies[owner[master][0]].name,
                            (float(p[0]), float(p[1])), (float(q[0]), float(q[1])))))
    return tuple(j for _, j in sorted(found, key=lambda x: x[0]))


def _assembly(bodies: list[Polygon], held: Sequence[str]) -> Assembly:
    return Assembly(tuple(bodies), joints(bodies), tuple(held))


def running_bond_wall(courses: int, bricks: int, brick: tuple[float, float] = (0.4, 0.2), x0: float = 0.0,
                      y0: float = 0.0, element: str = "QUA4", size: float | None = None, base: bool = True,
                      base_element: str | None = None) -> Assembly:
    """A dry (mortarless) running-bond wall of ``courses`` courses, ``bricks`` bricks long, bricks
    ``brick`` = (length L, height H) [m], its bottom-left corner at (x0, y0).

    Courses 1, 3, 5, ... (from the bottom): ``bricks`` whole bricks ``BRICK_<c>_1`` ... ``BRICK_<c>_<bricks>``;
    courses 2, 4, ...: a half brick (L/2) at each end and ``bricks`` - 1 whole bricks between them,
    ``BRICK_<c>_1`` ... ``BRICK_<c>_<bricks + 1>``, so that both ends of the wall are straight and every head
    joint stands on the middle of a brick below. The wall is bricks L long, courses H high; its bricks'
    area courses bricks L H. ``base``: a slab ``BASE`` under the wall, H thick, wider by L/2 on each side
    (x0 - L/2 to x0 + (bricks + 1/2) L, y0 - H to y0), meshed with ``base_element`` (default ``element``),
    its bottom ``BASE_BOTTOM`` held; without it the first course's bottoms are held.
    ``size``: the element size (default H/2: a brick's length then holds an even number of elements when
    L/H is an integer, and a head joint above falls on a node of the face below)."""
    _count("running_bond_wall", courses=courses, bricks=bricks)
    length, height = brick
    _positive("running_bond_wall", brick_length=length, brick_height=height)
    size = height / 2 if size is None else size
    half = length / 2

    def at(m: int) -> float:  # the m-th half-brick line from the wall's left end
        return x0 + m * half

    bodies = []
    if base:
        bodies.append(rectangle("BASE", (at(-1), at(2 * bricks + 1)), (y0 - height, y0), base_element or element, size))
    for c in range(1, courses + 1):
        y = (y0 + (c - 1) * height, y0 + c * height)
        lines = list(range(0, 2 * bricks + 1, 2)) if c % 2 else [0, *range(1, 2 * bricks, 2), 2 * bricks]
        for k, (m0, m1) in enumerate(zip(lines, lines[1:]), start=1):
            bodies.append(rectangle(f"BRICK_{c}_{k}", (at(m0), at(m1)), y, element, size))
    held = ["BASE_BOTTOM"] if base else [f"{b.name}_BOTTOM" for b in bodies if b.name.startswith("BRICK_1_")]
    return _assembly(bodies, held)


def arch(n: int, radius: float, thickness: float, opening: float = math.pi, element: str = "QUA4",
         size: float | None = None, abutments: bool = True, chords: int = 1, base_element: str | None = None,
         base: bool = True) -> Assembly:
    """A circular arch of ``n`` voussoirs, centre (0, 0), centre-line radius R = ``radius``, thickness
    t = ``thickness`` (intrados radius R - t/2, extrados R + t/2) [m], symmetric about the y axis: its
    springings on the radial lines at angles (pi + opening)/2 (left) and (pi - opening)/2 (right) from the
    x axis, 0 < ``opening`` <= pi [rad]; the joints radial, dividing the opening into n equal angles
    delta = opening / n. ``VOUSSOIR_1`` is at the left springing.

    Each voussoir's intrados and extrados are ``chords`` straight chords of their arcs (default 1: a
    quadrangle, meshed as a structured grid by QUA4/QUA8, its joints exact radial segments); its area
    R t chords sin(delta / chords) is that of the annular sector, R t delta, short by the relative
    1 - sin(x)/x ~ x^2/6, x = delta / chords (1.6 % for delta = pi/10). The faces in contact are the joints,
    which the chords leave exact.

    ``abutments``: a block under each springing, ``ABUTMENT_L`` and ``ABUTMENT_R``: its top the springing
    joint, its sides vertical down to t below the lower springing point, on a slab ``BASE`` t thick that
    reaches t beyond the abutments' outer sides, its bottom ``BASE_BOTTOM`` held; both meshed with
    ``base_element`` (default ``element``). ``base=False``: no slab, the abutments' bottoms
    ``ABUTMENT_L_BOTTOM`` and ``ABUTMENT_R_BOTTOM`` held (abutments that do not move: the arch's own
    strength, as the limit analysis of an arch on fixed springings states it; the slab's abutments, t
    square, overturn under the thrust of a thin semicircle). Without abutments the springing joints ``VOUSSOIR_1_JOINT_A``
    and ``VOUSSOIR_<n>_JOINT_B`` are held (or made to touch a ground of one's own)."""
    _count("arch", n=n, chords=chords)
    _positive("arch", radius=radius, thickness=thickness, opening=opening)
    if not opening <= math.pi:
        raise ValueError(f"arch: opening must be at most pi (a semicircle), got {opening!r} rad")
    if not thickness < 2 * radius:
        raise ValueError(f"arch: thickness {thickness!r} m must be below the diameter 2 radius {2 * radius!r} m")
    size = thickness / 2 if size is None else size
    inner, outer = radius - thickness / 2, radius + thickness / 2
    # psi: the angle from the y axis, + to the left; (n - 2k) opening / 2n is exactly odd about the crown
    psis = [(n - 2 * k) * opening / (2 * n) for k in range(n + 1)]

    def on(r: float, psi: float) -> tuple[float, float]:
        return -r * math.sin(psi), r * math.cos(psi)

    bodies = []
    for k in range(1, n + 1):
        a, b = psis[k - 1], psis[k]  # a > b: from the left springing's side to the right one's
        arc = [a + (b - a) * j / chords for j in range(chords)] + [b]
        corners = [on(inner, psi) for psi in arc] + [on(outer, psi) for psi in reversed(arc)]
        sides = ["INTRADOS"] * chords + ["JOINT_B"] + ["EXTRADOS"] * chords + ["JOINT_A"]
        bodies.append(block(f"VOUSSOIR_{k}", corners, sides, element, size))
    if not abutments:
        return _assembly(bodies, ["VOUSSOIR_1_JOINT_A", f"VOUSSOIR_{n}_JOINT_B"])
    bottom = min(on(inner, psis[0])[1], on(outer, psis[0])[1]) - thickness
    (xi, yi), (xo, yo) = on(inner, psis[0]), on(outer, psis[0])
    element_b = base_element or element
    bodies.append(block("ABUTMENT_L", [(xo, bottom), (xi, bottom), (xi, yi), (xo, yo)], RECTANGLE_SIDES,
                        element_b, size))
    (xi, yi), (xo, yo) = on(inner, psis[-1]), on(outer, psis[-1])
    bodies.append(block("ABUTMENT_R", [(xi, bottom), (xo, bottom), (xo, yo), (xi, yi)], RECTANGLE_SIDES,
                        element_b, size))
    if not base:
        return _assembly(bodies, ["ABUTMENT_L_BOTTOM", "ABUTMENT_R_BOTTOM"])
    bodies.append(rectangle("BASE", (-xo - thickness, xo + thickness), (bottom - thickness, bottom), element_b, size))
    return _assembly(bodies, ["BASE_BOTTOM"])


def column(drums: int, width: float, height: float, element: str = "QUA4", size: float | None = None,
           base: bool = True, x0: float = 0.0, y0: float = 0.0, base_element: str | None = None) -> Assembly:
    """A column of ``drums`` drums ``DRUM_1`` (bottom) ... ``DRUM_<drums>``, each ``width`` x ``height`` [m],
    stacked centred on the vertical x = x0 from y = y0. ``base``: a slab ``BASE`` under it, ``height``
    thick and wider by width/2 on each side (x0 - width to x0 + width), meshed with ``base_element``
    (default ``element``), ``BASE_BOTTOM`` held; without it ``DRUM_1_BOTTOM`` is held. ``size``: the element
    size (default a quarter of the smaller of width and height)."""
    _count("column", drums=drums)
    _positive("column", width=width, height=height)
    size = min(width, height) / 4 if size is None else size
    x = (x0 - width / 2, x0 + width / 2)
    bodies = [rectangle("BASE", (x0 - width, x0 + width), (y0 - height, y0), base_element or element, size)] if base else []
    bodies += [rectangle(f"DRUM_{k}", x, (y0 + (k - 1) * height, y0 + k * height), element, size)
               for k in range(1, drums + 1)]
    return _assembly(bodies, ["BASE_BOTTOM" if base else "DRUM_1_BOTTOM"])


def brick_array(rows: int, cols: int, brick: tuple[float, float] = (0.25, 0.25), gap: float = 0.0,
                row_gap: float = 0.0, x0: float = 0.0, y0: float = 0.0, element: str = "QUA4",
                size: float | None = None, base: bool = True, base_element: str | None = None) -> Assembly:
    """A regular array of ``rows`` x ``cols`` bricks ``brick`` = (width B, height H) [m] (a reactor core's
    columns of bricks): ``BRICK_<row>_<col>`` (rows from 1 at the bottom, columns from 1 at the left) with
    its bottom-left corner at (x0 + (col - 1)(B + gap), y0 + (row - 1)(H + row_gap)). ``gap``: the clearance
    between neighbouring columns [m] (>= 0; > 0: no joint across it); ``row_gap``: between rows (default 0,
    the bricks of a column stacked on each other; > 0 only for an array out of gravity's plane, the upper
    rows otherwise resting on nothing). ``base``: a slab ``BASE`` under the array, H thick, wider by B/2 on
    each side, meshed with ``base_element`` (default ``element``), ``BASE_BOTTOM`` held; without it the
    first row's bottoms are held. ``size``: default a quarter of the smaller of B and H."""
    _count("brick_array", rows=rows, cols=cols)
    width, height = brick
    _positive("brick_array", brick_width=width, brick_height=height)
    for key, value in (("gap", gap), ("row_gap", row_gap)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"brick_array: {key} must be a finite number >= 0, got {value!r}")
    size = min(width, height) / 4 if size is None else size
    right = x0 + cols * width + (cols - 1) * gap
    bodies = [rectangle("BASE", (x0 - width / 2, right + width / 2), (y0 - height, y0), base_element or element,
                        size)] if base else []
    for r in range(1, rows + 1):
        y = y0 + (r - 1) * (height + row_gap)
        for c in range(1, cols + 1):
            x = x0 + (c - 1) * (width + gap)
            bodies.append(rectangle(f"BRICK_{r}_{c}", (x, x + width), (y, y + height), element, size))
    held = ["BASE_BOTTOM"] if base else [f"BRICK_1_{c}_BOTTOM" for c in range(1, cols + 1)]
    return _assembly(bodies, held)


def write(assembly: Assembly, path):
    """Mesh the assembly's blocks, each with its own element type and size, and write them to the msh 4.1
    file ``path`` (:func:`meshes.bodies.write_bodies`): a surface group per block, a line group per side.
    Returns the path."""
    return write_bodies(path, assembly.bodies)


def pairs(assembly: Assembly, law, head_clearance: float = 0.0) -> tuple:
    """A :class:`fem.problem.Pair` of every joint of ``assembly`` (slave, master as the joint states them),
    all with the contact law ``law`` (:mod:`contact.laws`, e.g. ``Lagrange(mu=0.7)``); two joints between
    the same two line groups make one pair. ``head_clearance``: the clearance (Code_Aster's JEU) [m] of the
    vertical joints (a wall's head joints, an array's joints between columns, an arch's crown joint when n
    is even), 0 (tight) by default. Where a head joint ends on a bed joint
    three blocks meet at a point, and the node-to-segment conditions of multiplier laws (Lagrange,
    Augmented) there, the two blocks stuck to the one below and pressed together, are redundant: the
    preload's matrix is singular. A head clearance of a micrometre (above the joints' Poisson closure
    under self-weight, 0.2 rho g h L / E ~ 3e-8 m for a 0.4 m brick under a 1 m wall) leaves them open
    at rest; penalty laws need none."""
    from fem.problem.definition import Pair

    seen = {}
    for j in assembly.joints:
        seen.setdefault((j.slave, j.master), head_clearance if j.vertical else 0.0)
    return tuple(Pair(slave, master, law, clearance=c) for (slave, master), c in seen.items())
