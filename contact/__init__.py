"""Contact between bodies: the laws a pair names (laws.py), pairing and gaps (zone.py), Lagrange,
augmented-Lagrangian, penalty, buckling and velocity-level terms, impact post-processing, and apart
from them the exact references (references/: numpy and scipy only)."""
