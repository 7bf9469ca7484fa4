"""Linear elastic (Saint-Venant-Kirchhoff) plane-stress material with Rayleigh damping."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem import ranges


#: the physical range of each field (fem.ranges): a body may be a support's rigid proxy (1e14 Pa)
RANGES = {"young": ranges.MATERIAL_YOUNG, "poisson": ranges.POISSON, "density": ranges.DENSITY,
          "rayleigh_stiffness": ranges.RAYLEIGH_ALPHA, "rayleigh_mass": ranges.RAYLEIGH_BETA}


@dataclass(frozen=True)
class ElasticMaterial:
    """Isotropic elastic material, plane stress.

    Attributes
    ----------
    young : Young's modulus E [Pa], > 0.
    poisson : Poisson's ratio nu, in (-1, 0.5).
    density : mass density rho [kg/m^3], > 0.
    rayleigh_stiffness : Code_Aster AMOR_ALPHA [s], >= 0: damping stress alpha * D : dE/dt
        (C = alpha K in small strain).
    rayleigh_mass : Code_Aster AMOR_BETA [1/s], >= 0: damping force beta * M v.

    Beyond these signs, each field's physical range (:data:`RANGES`, fem.ranges) is checked by
    :meth:`check_ranges`, which a problem's body calls (fem.problem.Body).
    """

    young: float
    poisson: float
    density: float
    rayleigh_stiffness: float = 0.0
    rayleigh_mass: float = 0.0

    def __post_init__(self) -> None:
        checks = [
            (np.isfinite(self.young) and self.young > 0, f"Young's modulus must be > 0 Pa, got {self.young}"),
            (
                np.isfinite(self.poisson) and -1.0 < self.poisson < 0.5,
                f"Poisson's ratio must lie in (-1, 0.5), got {self.poisson}",
            ),
            (np.isfinite(self.density) and self.density > 0, f"density must be > 0 kg/m^3, got {self.density}"),
            (
                np.isfinite(self.rayleigh_stiffness) and self.rayleigh_stiffness >= 0,
                f"Rayleigh stiffness coefficient AMOR_ALPHA must be >= 0 s, got {self.rayleigh_stiffness}",
            ),
            (
                np.isfinite(self.rayleigh_mass) and self.rayleigh_mass >= 0,
                f"Rayleigh mass coefficient AMOR_BETA must be >= 0 1/s, got {self.rayleigh_mass}",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)

    def check_ranges(self, key: str = "ElasticMaterial") -> None:
        """Refuse (BadInput ``KEY.young: 1e-300 Pa is outside the physical range ...``) a field outside its
        physical range (:data:`RANGES`, fem.ranges), and a wave speed sqrt(E / rho) out of double precision
        (fem.ranges.check_magnitude). Not done on construction: a case script builds its materials
        (fem.run.lifecycle.check_materials) before it checks its flags' ranges, naming each flag; a
        problem's Body calls it (fem.problem.Body)."""
        for name, kind in RANGES.items():
            ranges.check_key(f"{key}.{name}", getattr(self, name), kind)
        ranges.check_magnitude("the wave speed sqrt(young / density)", f"{key}.young, {key}.density",
                               [(self.young, 0.5), (self.density, -0.5)])

    def plane_stress_matrix(self) -> np.ndarray:
        """Hooke matrix D (3, 3) [Pa] in Voigt order (xx, yy, xy) with engineering shear strain 2 E_xy."""
        E, nu = self.young, self.poisson
        c = E / (1.0 - nu**2)
        return c * np.array([[1.0, nu, 0.0], [nu, 1.0, 0.0], [0.0, 0.0, 0.5 * (1.0 - nu)]])
