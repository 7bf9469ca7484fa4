"""Time functions, loads and supports, base motion (floor 3)."""
