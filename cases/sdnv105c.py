"""SDNV105 modeling C: rocking block on the table, QUA4 mesh, augmented-Lagrangian contact with
Coulomb friction (Code_Aster CONTINUE, a semi-smooth Newton on the Alart-Curnier functions).

Schedule of c (docs/references.md, "SDNV105 b and c"): self-weight and tilt frictionless (as its
test file), mu 0.9 from the release; coarse dt 0.0025 s, fine 1e-5 s around the impacts with HHT
alpha -0.2. Code_Aster stops c at 0.145 s (two impacts); this script continues to 0.33 s (five
impacts) with the windows the file defines.

Run:  python cases/sdnv105c.py [--out results/sdnv105c] [--help for every parameter]
"""

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import sys

from cases.sdnv105.case import run_case

if __name__ == "__main__":
    sys.exit(run_case("c", description=__doc__))
