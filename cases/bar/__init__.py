"""The bar impacts (cases/bar_impact.py): what a run is checked against."""
