"""Mesh generation (gmsh) for the SDNV105 geometry and the checked-in reference meshes."""
