"""Closed form of SDND108: a mass dropped onto an elastic or absorbing ground, its first bounce
(Code_Aster SDND108; docs/references.md, "SDND108").

SI units: mass m [kg], ground stiffness k (RIGI_NOR) [N/m], ground damping c (AMOR_NOR) [N s/m], drop
height h (the gap JEU) [m], initial vertical velocity V0 [m/s] (signed, negative downward), gravity g
[m/s^2] along -y; the position y [m] (Code_Aster's DZ) is 0 at the start and -h on the ground; the
penetration p [m] into the ground is positive in contact. The benchmark: m = 1, k = 100, h = 2,
V0 = -1, g = 10; c = 0 (modeling a), 5 (modeling b).

Free fall::

    y(t) = V0 t - g t^2 / 2,    v_i = sqrt(V0^2 + 2 g h),    t_fall = (V0 + v_i) / g

(v_i = sqrt(41) m/s, t_fall = 0.540312 s). Contact, from p = 0 and p' = v_i, a damped oscillator about
the static sag m g / k (a matrix exponential when zeta >= 1)::

    m p'' + c p' + k p = m g,    p = m g / k + exp(-zeta w tau) (A cos(w_d tau) + B sin(w_d tau)),
    w = sqrt(k / m),  zeta = c / (2 m w),  w_d = w sqrt(1 - zeta^2),  tau = t - t_fall

Detachment when the penetration returns to zero (the reference's criterion: the damper may pull), or,
with ``zero_force``, when the ground force k p + c p' reaches zero: the first root of that signal,
bracketed on a grid over one damped period (20 / w when overdamped) and refined by Brent's method;
none there: the mass never leaves. The benchmark's: 0.885456 s
(a) and 0.924039 s (b) at zero penetration, rebound speeds -p' = 6.403124 m/s (a, elastic) and
1.931377 m/s (b); at zero force in b, 0.86570 s and 2.836 m/s, 0.14 m still inside the ground. Then free
flight from the detachment state (p_d, v_r) until the next landing::

    y(t) = -h - p_d + v_r (t - t_detach) - g (t - t_detach)^2 / 2
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import expm
from scipy.optimize import brentq


@dataclass(frozen=True)
class Bounce:
    """Closed-form first bounce. v0 is signed (negative: downward); zero_force selects the
    detachment criterion K p + C p' = 0 instead of p = 0."""

    mass: float
    k: float
    c: float
    height: float
    v0: float
    g: float
    zero_force: bool = False

    @property
    def impact_speed(self) -> float:
        return math.sqrt(self.v0**2 + 2 * self.g * self.height)

    @property
    def fall_time(self) -> float:
        return (self.v0 + self.impact_speed) / self.g

    @property
    def omega(self) -> float:
        return math.sqrt(self.k / self.mass)

    @property
    def zeta(self) -> float:
        return self.c / (2 * self.mass * self.omega)

    def penetration(self, tau: float) -> tuple[float, float]:
        """(p, p') at tau after the impact (closed form for zeta < 1, matrix exponential otherwise)."""
        w, z = self.omega, self.zeta
        if z >= 1:
            ps = self.mass * self.g / self.k
            A = np.array([[0.0, 1.0], [-w * w, -2 * z * w]])
            x = expm(A * tau) @ np.array([-ps, self.impact_speed])
            return ps + float(x[0]), float(x[1])
        wd = w * math.sqrt(1 - z * z)
        ps = self.mass * self.g / self.k
        a = -ps
        b = (self.impact_speed + z * w * a) / wd
        e = math.exp(-z * w * tau)
        c, s = math.cos(wd * tau), math.sin(wd * tau)
        p = ps + e * (a * c + b * s)
        dp = e * ((-z * w * a + wd * b) * c + (-z * w * b - wd * a) * s)
        return p, dp

    def _signal(self, tau: float) -> float:
        p, dp = self.penetration(tau)
        return self.k * p + self.c * dp if self.zero_force else p

    @functools.cached_property
    def contact_duration(self) -> float | None:
        """Time from impact to detachment [s], None if the mass never leaves (zeta >= 1, or the
        first return of the signal stays positive: later ones are smaller)."""
        if self.zeta >= 1 and not self.zero_force:
            return None  # overdamped: p overshoots the static sag at most once, from below
        window = 2 * math.pi / (self.omega * math.sqrt(1 - self.zeta**2)) if self.zeta < 1 else 20 / self.omega
        grid = np.linspace(0.0, window, 4001)[1:]
        values = np.array([self._signal(x) for x in grid])
        neg = np.flatnonzero(values <= 0)
        if neg.size == 0:
            return None
        i = int(neg[0])
        lo = grid[i - 1] if i > 0 else 1e-12 * grid[0]
        return brentq(self._signal, lo, grid[i], xtol=1e-15, rtol=1e-15)

    @property
    def detach_time(self) -> float | None:
        d = self.contact_duration
        return None if d is None else self.fall_time + d

    @property
    def detach_state(self) -> tuple[float, float] | None:
        """(penetration, upward velocity) at detachment."""
        d = self.contact_duration
        if d is None:
            return None
        p, dp = self.penetration(d)
        return p, -dp

    @property
    def rebound_velocity(self) -> float | None:
        s = self.detach_state
        return None if s is None else s[1]

    def position(self, t: float) -> float | None:
        """DZ(t) up to the next landing (None after it)."""
        tf = self.fall_time
        if t <= tf:
            return self.v0 * t - 0.5 * self.g * t * t
        td = self.detach_time
        if td is None or t <= td:
            return -self.height - self.penetration(t - tf)[0]
        p, vr = self.detach_state
        s = t - td
        landing = (vr + math.sqrt(max(vr * vr - 2 * self.g * p, 0.0))) / self.g  # back at y = -h
        return -self.height - p + vr * s - 0.5 * self.g * s * s if s <= landing else None
