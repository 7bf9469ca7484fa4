"""Parameter studies on Dask (floor 8)."""
