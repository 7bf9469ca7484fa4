"""What a body is made of: reference elements, continuum kernels, materials, masses, assembly (floor 2)."""
