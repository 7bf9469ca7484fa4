"""Time integration: the Newton core, Newmark/HHT, Moreau-Jean, central differences, event-driven steps,
step notifications and clean signals (floor 5)."""
