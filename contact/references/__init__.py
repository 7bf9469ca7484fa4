"""Exact references (rigid rocking, rocking on a moving table, overturning, nonlinear normal modes):
numpy and scipy only, nothing of fem or of the contact laws, so that they check the FE code independently."""
