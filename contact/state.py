"""What every contact method reports per contact node after a converged step."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OPEN, STICK, SLIP = 0, 1, 2
STATUS_NAMES = ("open", "stick", "slip")


@dataclass(frozen=True)
class ContactState:
    """Per slave node (arrays of shape (n_s,); forces are forces, not impulses).

    nodes : node indices.
    status : OPEN (0), STICK (1) or SLIP (2).
    gap : normal gap [m] (negative: penetration).
    rn : normal reaction on the slave [N], >= 0 in compression (Code_Aster RN).
    rt : tangential reaction on the slave along the master tangent t [N].
    slip : cumulated tangential slip along t since the start of the run [m].
    normal, tangent : (n_s, 2) master unit normal and tangent.
    """

    nodes: np.ndarray
    status: np.ndarray
    gap: np.ndarray
    rn: np.ndarray
    rt: np.ndarray
    slip: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray

    @property
    def force(self) -> np.ndarray:
        """Global contact force on each slave node, (n_s, 2) [N] (Code_Aster RX, RY)."""
        return self.rn[:, None] * self.normal + self.rt[:, None] * self.tangent
