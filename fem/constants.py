"""Physical constants shared by the whole code: one value each, imported, never retyped."""

#: gravity [m/s^2]: the value of SDNV105 and of the one-dof benchmarks (Code_Aster's 9.81), also the g
#: in which records given in g are converted. The exact references of contact/references import nothing
#: of fem; their default g is checked equal to this one (tests/test_layout.py).
GRAVITY = 9.81
