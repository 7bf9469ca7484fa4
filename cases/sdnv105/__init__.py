"""SDNV105, the rocking graphite block (Code_Aster), modelings a to d: what the case scripts cases/sdnv105a.py ... sdnv105d.py and cases/sdnv105_preload.py share."""
