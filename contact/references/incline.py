"""A rigid block on an incline with Coulomb friction: its regime and its sliding acceleration (the
reference of cases/block_on_incline.py; docs/one_dof.md).

Closed form (SI units: slope angle beta [deg] given, friction coefficient mu, gravity g [m/s^2])::

    sticks   iff  tan beta <= mu
    a = g (sin beta - mu cos beta)  [m/s^2]  down the slope when it slides, 0 when it sticks

(the block's width and height do not enter; the sum of the normal reactions is m g cos beta, the
friction force m (g sin beta - a) up the slope). A block that slides from rest at the release moves
a t^2 / 2 [m] relative to the table.
"""
from __future__ import annotations

import math


def sticks_on_slope(angle_deg: float, mu: float) -> bool:
    """Rigid block on a Coulomb slope: it sticks iff tan beta <= mu."""
    return math.tan(math.radians(angle_deg)) <= mu


def analytic_acceleration(angle_deg: float, mu: float, g: float = 9.81) -> float:
    """Rigid block on a Coulomb slope: g (sin beta - mu cos beta) if tan beta > mu, else 0 [m/s^2]."""
    beta = math.radians(angle_deg)
    return g * (math.sin(beta) - mu * math.cos(beta)) if math.tan(beta) > mu else 0.0
