"""SDNV105 modeling A: rocking block, QUA4 mesh with the table, Lagrange contact with Coulomb
friction (Code_Aster DISCRETE / LAGRANGIEN), HHT with fine steps around the five impacts.

Run:  python cases/sdnv105a.py [--out results/sdnv105a] [--help for every parameter]
Reproduces every phase of SDNV105 (docs/references.md, "SDNV105's phases": self-weight, tilt by DX(C1),
release at rest, free rocking to 0.33 s) and compares with Code_Aster's tests (report.md).
"""

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import sys

from cases.sdnv105.case import run_case

if __name__ == "__main__":
    sys.exit(run_case("a", description=__doc__))
