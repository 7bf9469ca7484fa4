"""Closed form of SDND101: a mass-spring oscillator released against a rigid plane through a shock spring
(Code_Aster SDND101; docs/references.md, "SDND101").

SI units: mass m [kg], ground spring k and shock stiffness K [N/m], velocity v0 [m/s] toward the plane,
which passes through the initial position (gap 0); x [m] is the displacement toward the plane, the
penetration p = x while it is positive::

    m x'' + k x + K max(x, 0) = 0,    x(0) = 0,  x'(0) = v0

Each contact is half a period of the oscillator (k + K, m), entered and left at p = 0 with speed v0::

    omega_c = sqrt((k + K) / m)       [rad/s]  (100.499 rad/s for the benchmark)
    duration = pi / omega_c           [s]      (0.031260 s)
    F_max = K v0 / omega_c            [N]      at mid-contact (9950.4 N)
    impulse = 2 K v0 / omega_c^2      [N s]    (198.02 N s)
    v_impact = -v0                    [m/s]    along the plane's outward normal

then half a free period pi / omega_0 on the ground spring alone (omega_0 = sqrt(k / m) = 10 rad/s), so
shock n (1-based) starts at (n - 1) (pi / omega_c + pi / omega_0) and peaks half a contact later (shock 2
at 0.34542 s, its peak at 0.36105 s). With k = 0 the mass never comes back: a single shock.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ClosedForm:
    """The benchmark's analytic solution for m, k, K, v0 (k = 0: a single shock)."""

    mass: float
    k: float
    k_shock: float
    v0: float

    @property
    def omega_c(self) -> float:
        return math.sqrt((self.k + self.k_shock) / self.mass)

    @property
    def omega_0(self) -> float:
        return math.sqrt(self.k / self.mass)

    @property
    def duration(self) -> float:
        return math.pi / self.omega_c

    @property
    def f_max(self) -> float:
        return self.k_shock * self.v0 / self.omega_c

    @property
    def impulse(self) -> float:
        return 2.0 * self.k_shock * self.v0 / self.omega_c**2

    @property
    def period(self) -> float:
        """Time between two shock starts [s] (inf when k = 0: the mass never comes back)."""
        return self.duration + math.pi / self.omega_0 if self.k > 0 else math.inf

    def start(self, n: int) -> float:
        """Start of shock n (1-based) [s]."""
        return 0.0 if n == 1 else (n - 1) * self.period

    def shock(self, n: int) -> dict:
        return dict(instant=self.start(n) + 0.5 * self.duration, f_max=self.f_max, duration=self.duration,
                    impulse=self.impulse, v_impact=-self.v0)

    def complete_shocks(self, t_end: float) -> int:
        """Number of shocks that end by t_end."""
        if self.duration > t_end:
            return 0
        if not math.isfinite(self.period):
            return 1
        return int(math.floor((t_end - self.duration) / self.period + 1e-9)) + 1
