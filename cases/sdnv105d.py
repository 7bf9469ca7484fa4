"""SDNV105 modeling D: rocking block on the table, QUA4 mesh, Lagrange contact with Coulomb
friction in a Moreau-Jean theta-scheme (non-smooth contact dynamics as in LMGC90): velocity-level
Signorini condition with a no-rebound impact law on the contacts that close, Coulomb's law on the
impulses, uniform time step (default 1e-4 s, theta 0.55), no refinement around the impacts.

The self-weight and tilt phases are those of modeling A (HHT, position-level contact); the
release and the rocking use the theta-scheme.

Run:  python cases/sdnv105d.py [--theta 0.55] [--dt 1e-4] [--help for every parameter]
"""

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import sys

from cases.sdnv105.case import run_case

if __name__ == "__main__":
    sys.exit(run_case("d", description=__doc__))
