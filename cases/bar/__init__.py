"""The bar impacts (cases/bar_impact.py): its configuration and what a run is checked against."""
