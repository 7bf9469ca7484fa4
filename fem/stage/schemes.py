"""Implicit time-integration schemes of the Newmark family, in Code_Aster's conventions.

All schemes update displacement and velocity with Newmark's formulas::

    u1 = u0 + dt v0 + dt^2 ((1/2 - beta) a0 + beta a1)
    v1 = v0 + dt ((1 - gamma) a0 + gamma a1)

and differ in where equilibrium is written (``alpha_f``, Hilber-Hughes-Taylor)::

    M a1 + (1 + alpha_f) g(u1, v1, t1) - alpha_f g(u0, v0, t0) = 0,   g = f_int + f_damp - f_ext

=========================================  ===============================  =========  ==============
scheme                                     beta, gamma                      alpha_f    high-frequency
                                                                                       spectral radius
=========================================  ===============================  =========  ==============
average acceleration (trapezoidal)         1/4, 1/2                         0          1 (no damping)
Newmark, general                           beta, gamma                      0
HHT, MODI_EQUI='OUI' (Hilber et al. 1977)  (1-alpha)^2/4, 1/2 - alpha       alpha      (1+alpha)/(1-alpha)
modified average acceleration,             (1-alpha)^2/4, 1/2 - alpha       0          see tests
MODI_EQUI='NON' (Code_Aster, SDNV105)
=========================================  ===============================  =========  ==============

alpha is Code_Aster's HHT ``ALPHA`` (<= 0; -1/3 <= alpha <= 0 keeps second order for 'OUI' and
unconditional stability; SDNV105 also uses -0.6 in its quasi-static tilt phase). Reference: Hilber,
Hughes, Taylor, Earthquake Eng. Struct. Dyn. 5 (1977) 283-292; Code_Aster R5.05.05.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Newmark:
    """Newmark scheme; default average acceleration (beta = 1/4, gamma = 1/2)."""

    beta: float = 0.25
    gamma: float = 0.5

    def __post_init__(self) -> None:
        if not (self.beta > 0 and self.gamma >= 0):
            raise ValueError(f"Newmark needs beta > 0 and gamma >= 0, got beta={self.beta}, gamma={self.gamma}")

    @property
    def alpha_f(self) -> float:
        return 0.0


@dataclass(frozen=True)
class HHT:
    """Hilber-Hughes-Taylor alpha scheme (Code_Aster SCHEMA='HHT').

    Attributes
    ----------
    alpha : Code_Aster ALPHA, in (-1, 0]. Outside [-1/3, 0] the scheme is first order and damps strongly
        (logged at INFO level: the benchmark's tilt phase uses -0.6 on purpose; a case script taking alpha
        from its user warns there).
    modified_equilibrium : MODI_EQUI. True ('OUI'): equilibrium at the alpha-weighted time (classical
        HHT). False ('NON'): "modified average acceleration", Newmark with the same beta, gamma and
        equilibrium at t_{n+1}.
    """

    alpha: float = -0.1
    modified_equilibrium: bool = False

    def __post_init__(self) -> None:
        if not (-1.0 < self.alpha <= 0.0):
            raise ValueError(f"HHT alpha must lie in (-1, 0], got {self.alpha}")
        if self.alpha < -1.0 / 3.0:
            logger.info("HHT alpha = %g is outside [-1/3, 0]: first-order accuracy, strong damping", self.alpha)

    @property
    def beta(self) -> float:
        return (1.0 - self.alpha) ** 2 / 4.0

    @property
    def gamma(self) -> float:
        return 0.5 - self.alpha

    @property
    def alpha_f(self) -> float:
        return self.alpha if self.modified_equilibrium else 0.0


@dataclass(frozen=True)
class Static:
    """Quasi-static steps (Code_Aster STAT_NON_LINE): no inertia, no damping force, velocity and
    acceleration kept at zero; time only drives the load functions."""

    @property
    def alpha_f(self) -> float:
        return 0.0


@dataclass(frozen=True)
class Theta:
    """Moreau-Jean theta-method (velocity formulation, Code_Aster/LMGC90 "theta-scheme")::

        M (v1 - v0) = dt ((1 - theta) F0 + theta F1) + P,     u1 = u0 + dt ((1 - theta) v0 + theta v1)

    with F the smooth forces (external minus internal and damping) and P the contact impulses over
    the step, from velocity-level Signorini-Coulomb conditions (see contact.impacts). theta in
    [1/2, 1]: 1/2 conserves energy in smooth motion, theta > 1/2 dissipates high frequencies
    (LMGC90 commonly uses 0.5 to 0.55). First order in the presence of impacts, by design.
    """

    theta: float = 0.55

    def __post_init__(self) -> None:
        if not (0.5 <= self.theta <= 1.0):
            raise ValueError(f"theta must lie in [0.5, 1], got {self.theta}")

    @property
    def alpha_f(self) -> float:
        return 0.0


Scheme = Newmark | HHT | Static | Theta
