"""Bodies of several element types in one mesh: each body meshed with its own element type, order and
size by gmsh, its named edges kept as line groups, the bodies sharing no node (contact problems).

gmsh sets the element order and the recombination into quadrangles for a whole model; a TRIA6 statue on a
QUA4 plinth needs both. Here each body is meshed in a model of its own (or, for a user's own gmsh geometry,
the geometry is meshed once per element type and each body taken from the pass of its type), and the
bodies are then written together, one surface group per body and one line group per named edge, as a
msh 4.1 file that :func:`fem.mesh.read.read_mesh` (and gmsh, meshio, ParaView) reads.

    from meshes.bodies import Polygon, Rectangle, write_bodies

    write_bodies("statue.msh", [
        Rectangle("PLINTH", 0.0, 0.0, 0.8, 0.3, element="QUA4", size=0.1,
                  edges={"PLINTH_BASE": "bottom", "PLINTH_TOP": "top"}),
        Polygon("STATUE", [(0.2, 0.3), (0.6, 0.3), (0.5, 1.0), (0.3, 1.0)], element="TRIA6", size=0.08,
                edges={"STATUE_BASE": 0}),
    ])

Element types (the names of Code_Aster and of :mod:`fem.mesh`): ``TRIA3`` and ``TRIA6`` (triangles of
order 1 and 2), ``QUA4`` and ``QUA8`` (quadrangles, the second of order 2 without the centre node).
Lengths in metres.
"""
from __future__ import annotations

import math
import pathlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

#: element type -> (order, recombined into quadrangles, gmsh's surface element type, gmsh's line type)
ELEMENTS = {"TRIA3": (1, False, 2, 1), "TRIA6": (2, False, 9, 8), "QUA4": (1, True, 3, 1), "QUA8": (2, True, 16, 8)}
#: a rectangle's edges by name: the index of the edge in its corner order (counter-clockwise from (x0, y0))
SIDES = {"bottom": 0, "right": 1, "top": 2, "left": 3}


def _element(owner: str, element: str) -> str:
    if element not in ELEMENTS:
        raise ValueError(f"{owner}: element {element!r} is not one of {', '.join(ELEMENTS)}")
    return element


def _positive(owner: str, name: str, value: float) -> float:
    value = float(value)
    if not (value > 0.0 and math.isfinite(value)):
        raise ValueError(f"{owner}: {name} must be positive and finite, got {value}")
    return value


@dataclass(frozen=True)
class Polygon:
    """A body bounded by the polygon ``corners`` (counter-clockwise, [m]), meshed with ``element`` of about
    ``size`` [m]; ``edges``: line group name -> edge index k (the edge from corner k to corner k + 1, the
    last back to corner 0) or a sequence of them. A quadrangle polygon of element QUA4/QUA8 is meshed as a
    structured grid (``structured``, default for 4 corners), any other one unstructured."""

    name: str
    corners: Sequence[tuple[float, float]]
    element: str = "QUA4"
    size: float = 0.1
    edges: Mapping[str, int | Sequence[int]] = field(default_factory=dict)
    structured: bool | None = None

    def __post_init__(self) -> None:
        owner = f"body {self.name}"
        corners = tuple((float(x), float(y)) for x, y in self.corners)
        if len(corners) < 3 or not all(math.isfinite(c) for xy in corners for c in xy):
            raise ValueError(f"{owner}: corners must be at least 3 finite (x, y) points, got {self.corners!r}")
        area = 0.5 * sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1]))
        if not area > 0.0:
            raise ValueError(f"{owner}: the corners must go round counter-clockwise (signed area {area:g} m^2)")
        object.__setattr__(self, "corners", corners)
        object.__setattr__(self, "element", _element(owner, self.element))
        object.__setattr__(self, "size", _positive(owner, "size", self.size))
        edges = {}
        for group, which in dict(self.edges).items():
            ks = (which,) if isinstance(which, int) else tuple(which)
            if not ks or not all(isinstance(k, int) and 0 <= k < len(corners) for k in ks):
                raise ValueError(f"{owner}: edges[{group!r}] must be edge indices 0..{len(corners) - 1}, got {which!r}")
            edges[group] = ks
        object.__setattr__(self, "edges", edges)

    def add_to_gmsh(self) -> tuple[int, dict[str, list[int]]]:
        """Add the polygon to the current gmsh model (geo kernel, synchronised): its surface tag and its
        edge groups' curve tags."""
        import gmsh

        geo = gmsh.model.geo
        points = [geo.addPoint(x, y, 0.0, self.size) for x, y in self.corners]
        lines = [geo.addLine(a, b) for a, b in zip(points, points[1:] + points[:1])]
        surface = geo.addPlaneSurface([geo.addCurveLoop(lines)])
        _, quads, _, _ = ELEMENTS[self.element]
        structured = self.structured if self.structured is not None else (quads and len(points) == 4)
        if structured and len(points) == 4:  # opposite edges the same number of elements
            lengths = [math.dist(a, b) for a, b in zip(self.corners, self.corners[1:] + self.corners[:1])]
            for k, line in enumerate(lines):
                geo.mesh.setTransfiniteCurve(line, max(2, round(max(lengths[k], lengths[(k + 2) % 4]) / self.size)) + 1)
            geo.mesh.setTransfiniteSurface(surface, cornerTags=points)
        if quads:
            geo.mesh.setRecombine(2, surface)
        geo.synchronize()
        return surface, {group: [lines[k] for k in ks] for group, ks in self.edges.items()}


def Rectangle(name: str, x0: float, y0: float, width: float, height: float, element: str = "QUA4", size: float = 0.1,
              edges: Mapping[str, str | Sequence[str]] | None = None) -> Polygon:
    """The rectangle [x0, x0 + width] x [y0, y0 + height] [m] as a :class:`Polygon`; ``edges``: line group
    name -> side ("bottom", "right", "top", "left") or a sequence of sides."""
    width, height = _positive(f"body {name}", "width", width), _positive(f"body {name}", "height", height)
    sides = {}
    for group, which in (edges or {}).items():
        names = (which,) if isinstance(which, str) else tuple(which)
        unknown = [s for s in names if s not in SIDES]
        if unknown:
            raise ValueError(f"body {name}: edges[{group!r}]: {unknown[0]!r} is not one of {', '.join(SIDES)}")
        sides[group] = tuple(SIDES[s] for s in names)
    corners = [(x0, y0), (x0 + width, y0), (x0 + width, y0 + height), (x0, y0 + height)]
    return Polygon(name, corners, element, size, sides)


@dataclass
class _Meshed:
    """One body's mesh, ready to be written: coordinates (n, 3), its element type, connectivity (node
    indices into coordinates), and its line groups' connectivities."""

    name: str
    element: str
    coordinates: list = field(default_factory=list)
    cells: list = field(default_factory=list)
    lines: dict = field(default_factory=dict)


def _take(name: str, element: str, surfaces: Sequence[int], curves: Mapping[str, Sequence[int]]) -> _Meshed:
    """The nodes and elements of ``surfaces`` and of each line group's ``curves`` in the current (meshed)
    gmsh model, renumbered from 0 over the nodes they use."""
    import gmsh

    _, _, surface_type, line_type = ELEMENTS[element]
    tags, coords, _ = gmsh.model.mesh.getNodes()
    where = {int(t): k for k, t in enumerate(tags)}
    used: dict[int, int] = {}
    body = _Meshed(name, element)

    def renumbered(node_tags, per_cell):
        out = []
        for c in range(0, len(node_tags), per_cell):
            cell = []
            for t in node_tags[c:c + per_cell]:
                t = int(t)
                if t not in used:
                    used[t] = len(used)
                    k = where[t]
                    body.coordinates.append((coords[3 * k], coords[3 * k + 1], 0.0))
                cell.append(used[t])
            out.append(cell)
        return out

    for s in surfaces:
        types, _, nodes = gmsh.model.mesh.getElements(2, s)
        for kind, node_tags in zip(types, nodes):
            if kind != surface_type:
                raise ValueError(f"body {name}: gmsh made elements of type {kind}, not {element} (type {surface_type})")
            body.cells += renumbered(node_tags, gmsh.model.mesh.getElementProperties(kind)[3])
    for group, group_curves in curves.items():
        cells = []
        for c in group_curves:
            types, _, nodes = gmsh.model.mesh.getElements(1, c)
            for kind, node_tags in zip(types, nodes):
                if kind == line_type:
                    cells += renumbered(node_tags, gmsh.model.mesh.getElementProperties(kind)[3])
        body.lines[group] = cells
    return body


def _mesh_options(element: str) -> None:
    import gmsh

    order, quads, _, _ = ELEMENTS[element]
    gmsh.option.setNumber("Mesh.ElementOrder", order)
    gmsh.option.setNumber("Mesh.SecondOrderIncomplete", 1 if element == "QUA8" else 0)
    gmsh.option.setNumber("Mesh.RecombineAll", 1 if quads else 0)
    gmsh.option.setNumber("Mesh.Algorithm", 8 if quads else 6)  # Frontal-Delaunay for quads / for triangles


def _write(path: pathlib.Path, bodies: Sequence[_Meshed]) -> pathlib.Path:
    """Write ``bodies`` as one msh 4.1 ASCII file: a discrete surface and a surface group per body, a
    discrete curve and a line group per edge group; each body its own nodes."""
    import gmsh

    names = [b.name for b in bodies] + [g for b in bodies for g in b.lines]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"group names given twice: {', '.join(twice)}")
    gmsh.model.add("bodies")
    offset, curve = 0, 0
    for k, body in enumerate(bodies, start=1):
        _, _, surface_type, line_type = ELEMENTS[body.element]
        gmsh.model.addDiscreteEntity(2, k)
        tags = list(range(offset + 1, offset + len(body.coordinates) + 1))
        gmsh.model.mesh.addNodes(2, k, tags, [c for xyz in body.coordinates for c in xyz])
        gmsh.model.mesh.addElementsByType(k, surface_type, [], [offset + 1 + n for cell in body.cells for n in cell])
        gmsh.model.addPhysicalGroup(2, [k], name=body.name)
        for group, cells in body.lines.items():
            curve += 1
            gmsh.model.addDiscreteEntity(1, curve)
            gmsh.model.mesh.addElementsByType(curve, line_type, [], [offset + 1 + n for cell in cells for n in cell])
            gmsh.model.addPhysicalGroup(1, [curve], name=group)
        offset += len(body.coordinates)
    gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
    gmsh.option.setNumber("Mesh.Binary", 0)
    gmsh.option.setNumber("Mesh.SaveAll", 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    gmsh.write(str(path))
    return path


def _session(work: Callable[[], pathlib.Path]) -> pathlib.Path:
    import gmsh

    started = not gmsh.isInitialized()
    if started:
        gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("Geometry.AutoCoherence", 0)  # touching bodies keep their own points
        return work()
    finally:
        if started:
            gmsh.finalize()


def write_bodies(path, bodies: Sequence[Polygon]) -> pathlib.Path:
    """Mesh each of ``bodies`` (:class:`Polygon`, :func:`Rectangle`) with its own element type and size and
    write them together to the msh 4.1 file ``path`` (module docstring): a surface group per body named
    as the body, a line group per named edge. Returns the path."""
    import gmsh

    path = pathlib.Path(path)

    def work():
        meshed = []
        for body in bodies:
            gmsh.model.add(body.name)
            surface, curves = body.add_to_gmsh()
            _mesh_options(body.element)
            gmsh.model.mesh.generate(2)
            meshed.append(_take(body.name, body.element, [surface], curves))
            gmsh.model.remove()
        return _write(path, meshed)

    return _session(work)


def write_bodies_from_gmsh(path, geometry, elements: Mapping[str, str], size: float | None = None) -> pathlib.Path:
    """A user's own gmsh geometry ``geometry`` (a .geo or .brep/.step file, its surface groups the bodies
    and its line groups their named edges) meshed with an element type per body, ``elements``: surface
    group name -> element type; written to the msh 4.1 file ``path`` (module docstring). The geometry is
    meshed once per element type, each body taken from the pass of its type with the line groups on its
    boundary; ``size`` [m], if given, bounds the element size (else the geometry's own sizes). Returns
    the path."""
    import gmsh

    path, geometry = pathlib.Path(path), pathlib.Path(geometry)
    if not geometry.is_file():
        raise ValueError(f"{geometry}: no such gmsh geometry file")
    for name, element in elements.items():
        _element(f"body {name}", element)

    def work():
        meshed = {}
        for element in dict.fromkeys(elements.values()):
            gmsh.open(str(geometry))
            groups = {gmsh.model.getPhysicalName(d, t): (d, t) for d, t in gmsh.model.getPhysicalGroups()}
            missing = [n for n in elements if groups.get(n, (0,))[0] != 2]
            if missing:
                raise ValueError(f"{geometry}: no surface group {missing[0]!r} (its surface groups: "
                                 f"{', '.join(sorted(n for n, (d, _) in groups.items() if d == 2))})")
            if size is not None:
                gmsh.option.setNumber("Mesh.MeshSizeMax", _positive(str(geometry), "size", size))
            _mesh_options(element)
            gmsh.model.mesh.generate(2)
            for name in (n for n, e in elements.items() if e == element):
                surfaces = list(gmsh.model.getEntitiesForPhysicalGroup(2, groups[name][1]))
                boundary = {abs(t) for _, t in gmsh.model.getBoundary([(2, s) for s in surfaces], oriented=False)}
                curves = {g: [c for c in gmsh.model.getEntitiesForPhysicalGroup(1, t) if c in boundary]
                          for g, (d, t) in groups.items() if d == 1}
                meshed[name] = _take(name, element, surfaces, {g: cs for g, cs in curves.items() if cs})
            gmsh.clear()
        return _write(path, [meshed[n] for n in elements])

    return _session(work)
