"""Contact between bodies: pairing, gaps, Lagrange, penalty and augmented-Lagrangian laws (issue 3)."""
