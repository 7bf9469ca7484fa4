"""Finite-element core: mesh, elements, materials, assembly, time integration, results."""
