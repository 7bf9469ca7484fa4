"""A phase of a run: its physics and solver settings, the state, the term protocols, the schemes and the
energy books (floor 4; contact laws implement its protocols)."""
