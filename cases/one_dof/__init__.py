"""The one-degree-of-freedom cases (cases/sdnd101.py, sdnd105.py, sdnd108.py, sdnd122.py): their command line and SDND105's modelings and report."""
