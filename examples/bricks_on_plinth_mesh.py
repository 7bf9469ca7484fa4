"""Mesh of three bricks stacked on a plinth standing on a shaking table (gmsh Python API).

Writes a 2D gmsh mesh (msh 4.1 ASCII) of five rectangular bodies, lengths in metres:

=========  =================  ===============
body       x [m]              y [m]
=========  =================  ===============
FLOOR      -0.3 .. 1.1        -0.1 .. 0.0      (the shaking table)
PLINTH      0.0 .. 0.8         0.0 .. 0.2
BRICK_1     0.1 .. 0.7         0.2 .. 0.5      (0.6 x 0.3, centred on x = 0.4)
BRICK_2     0.2 .. 0.6         0.5 .. 0.9      (0.4 x 0.4)
BRICK_3     0.3 .. 0.5         0.9 .. 1.2      (0.2 x 0.3)
=========  =================  ===============

Each body is its own surface with its own points and lines, meshed on its own with a structured
(transfinite, recombined) QUAD4 mesh: bodies touch along their interfaces but share no node
(coincident but distinct nodes on each side, as a contact problem needs).

Physical groups:

* surfaces (dim 2): FLOOR, PLINTH, BRICK_1, BRICK_2, BRICK_3;
* lines (dim 1), the contact surfaces: FLOOR_TOP, PLINTH_BOTTOM, PLINTH_TOP, BRICK_1_BOTTOM,
  BRICK_1_TOP, BRICK_2_BOTTOM, BRICK_2_TOP, BRICK_3_BOTTOM;
* line (dim 1) FLOOR_BASE: the floor's bottom edge, where the table is held.

Run ``python bricks_on_plinth_mesh.py [out.msh]``; the default output is ``bricks_on_plinth.msh``
next to this script.
"""
from __future__ import annotations

import pathlib
import sys

import gmsh

#: the bodies, bottom first: name -> (x_min, x_max, y_min, y_max) [m]
BODIES = {
    "FLOOR": (-0.3, 1.1, -0.1, 0.0),
    "PLINTH": (0.0, 0.8, 0.0, 0.2),
    "BRICK_1": (0.1, 0.7, 0.2, 0.5),
    "BRICK_2": (0.2, 0.6, 0.5, 0.9),
    "BRICK_3": (0.3, 0.5, 0.9, 1.2),
}

#: the line groups: name -> (body, edge)
EDGES = {
    "FLOOR_BASE": ("FLOOR", "bottom"),
    "FLOOR_TOP": ("FLOOR", "top"),
    "PLINTH_BOTTOM": ("PLINTH", "bottom"),
    "PLINTH_TOP": ("PLINTH", "top"),
    "BRICK_1_BOTTOM": ("BRICK_1", "bottom"),
    "BRICK_1_TOP": ("BRICK_1", "top"),
    "BRICK_2_BOTTOM": ("BRICK_2", "bottom"),
    "BRICK_2_TOP": ("BRICK_2", "top"),
    "BRICK_3_BOTTOM": ("BRICK_3", "bottom"),
}


def add_rectangle(x0: float, x1: float, y0: float, y1: float, h: float) -> tuple[int, dict[str, int]]:
    """Add a rectangle [x0, x1] x [y0, y1] [m] with its own four points and four lines, and make it
    a structured QUAD4 patch of about round(width / h) x round(height / h) elements (at least 2 each
    way; h [m] the element size).

    Returns the surface tag and the line tags by edge ("bottom", "right", "top", "left").
    """
    geo = gmsh.model.geo
    p1 = geo.addPoint(x0, y0, 0.0)
    p2 = geo.addPoint(x1, y0, 0.0)
    p3 = geo.addPoint(x1, y1, 0.0)
    p4 = geo.addPoint(x0, y1, 0.0)
    edges = {
        "bottom": geo.addLine(p1, p2),
        "right": geo.addLine(p2, p3),
        "top": geo.addLine(p3, p4),
        "left": geo.addLine(p4, p1),
    }
    loop = geo.addCurveLoop([edges["bottom"], edges["right"], edges["top"], edges["left"]])
    surface = geo.addPlaneSurface([loop])

    nx = max(2, round((x1 - x0) / h))  # elements along x
    ny = max(2, round((y1 - y0) / h))  # elements along y
    for edge in ("bottom", "top"):
        geo.mesh.setTransfiniteCurve(edges[edge], nx + 1)  # number of nodes
    for edge in ("right", "left"):
        geo.mesh.setTransfiniteCurve(edges[edge], ny + 1)
    geo.mesh.setTransfiniteSurface(surface, cornerTags=[p1, p2, p3, p4])
    geo.mesh.setRecombine(2, surface)  # quadrangles instead of triangles
    return surface, edges


def write_mesh(path: str | pathlib.Path, h: float = 0.05) -> pathlib.Path:
    """Mesh the floor, the plinth and the three bricks and write the msh 4.1 ASCII file ``path``.

    Parameters
    ----------
    path : the ``.msh`` file to write (parent folders are created).
    h : element size [m] (default 0.05 m).

    Returns
    -------
    pathlib.Path : the path written.
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    gmsh.initialize()
    try:
        gmsh.option.setNumber("General.Terminal", 0)  # silent
        gmsh.model.add("bricks_on_plinth")
        # keep coincident points of touching bodies distinct: the interfaces are contact surfaces
        gmsh.option.setNumber("Geometry.AutoCoherence", 0)

        surfaces, lines = {}, {}
        for name, (x0, x1, y0, y1) in BODIES.items():
            surfaces[name], lines[name] = add_rectangle(x0, x1, y0, y1, h)
        gmsh.model.geo.synchronize()

        for name, surface in surfaces.items():
            gmsh.model.addPhysicalGroup(2, [surface], name=name)
        for name, (body, edge) in EDGES.items():
            gmsh.model.addPhysicalGroup(1, [lines[body][edge]], name=name)

        gmsh.model.mesh.generate(2)
        gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
        gmsh.option.setNumber("Mesh.Binary", 0)
        gmsh.write(str(path))
    finally:
        gmsh.finalize()
    return path


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).with_name("bricks_on_plinth.msh")
    print(f"wrote {write_mesh(out)}")
