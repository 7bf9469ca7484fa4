"""Mesh data, gmsh reading and mesh checks (floor 1 of fem: imports only fem.constants and fem.ranges)."""
