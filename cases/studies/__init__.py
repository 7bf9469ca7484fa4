"""The parameter studies' own pieces: the convergence study's levels, measures, analysis and report (cases/convergence.py) and the fragility fit (cases/fragility.py)."""
