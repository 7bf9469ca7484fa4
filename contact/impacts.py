"""Contact at the velocity level for the Moreau-Jean theta-scheme (non-smooth contact dynamics,
LMGC90 / Siconos style): Signorini's condition on the normal velocity with a no-rebound impact
law, Coulomb's law on the impulses.

For a contact that is closed or predicted to close within the step (gap at the midpoint
prediction u0 + dt/2 v0 <= 0: the "index set"), with U_N, U_T the normal and tangential relative
velocities at the end of the step and P_N, P_T the impulses over the step::

    U_N + e U_N,0 >= 0,  P_N >= 0,  (U_N + e U_N,0) P_N = 0          (e = 0: no rebound)
    |P_T| <= mu P_N;  U_T = 0 if |P_T| < mu P_N, else P_T = -mu P_N U_T / |U_T|

Contacts outside the index set carry no impulse. The equations and statuses are those of
:class:`contact.multipliers.MultiplierContact` with the gap replaced by dt U_N and the slip
increment by dt U_T (both in metres), and the multipliers are the mean forces over the step,
R = P / dt [N]; impulses are R dt and are reported as such by the integrator.
"""
from __future__ import annotations

import numpy as np

from contact.multipliers import MultiplierContact, TrialContact


class VelocityContact(MultiplierContact):
    """Lagrange contact of a zone at the velocity level (use with the Theta scheme)."""

    impulsive = True  # the multipliers are the step's mean forces: the work is R_1 . [g]

    def __init__(self, model, zone, friction: float = 0.0, gap_tolerance: float = 1e-14) -> None:
        super().__init__(model, zone, friction=friction, method="lagrange", gap_tolerance=gap_tolerance)
        self.dt = np.nan
        self.candidate = np.zeros(zone.size, dtype=bool)

    def prepare_step(self, dt: float, u0: np.ndarray, v0: np.ndarray) -> None:
        """Index set of the step: contacts closed now or whose gap at the midpoint prediction
        u0 + dt/2 v0 is not positive."""
        self.dt = dt
        predicted = self.zone.geometry(self.points, u0 + 0.5 * dt * v0).gap
        self.candidate = (predicted <= self.gap_tolerance) | (self._status != 0)

    def measures(self, trial: TrialContact, u: np.ndarray, v: np.ndarray):
        geo, Gn, Gt = self.rows(u)
        normal = np.where(self.candidate & np.isfinite(geo.gap), self.dt * (Gn @ v), np.inf)
        return geo, normal, self.dt * (Gt @ v), (Gn, Gt), self.dt


def velocity_contact_from(contact: MultiplierContact) -> VelocityContact:
    """A velocity-level contact continuing a position-level one (same zone, friction, committed
    statuses, multipliers and cumulated slip), e.g. to release with the theta-scheme a block
    preloaded with HHT."""
    new = VelocityContact(contact.model, contact.zone, friction=contact._default_friction,
                          gap_tolerance=contact.gap_tolerance)
    new.friction = contact.friction
    new._lam, new._status = contact._lam.copy(), contact._status.copy()
    new._direction, new._slip = contact._direction.copy(), contact._slip.copy()
    new._state, new._time = contact._state, contact._time
    return new
