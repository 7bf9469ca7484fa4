"""Contact laws as data: what a user names for a contact pair, each able to build its term.

A pair of :class:`fem.problem.Problem` holds one of these; the simulation calls ``law.build(model,
slave, master, located, clearance)`` once, with the slave line or node group, the master line
group, a :class:`contact.zone.RigidPlane` or a :class:`contact.zone.BiPlane`, the pair's clearance
(JEU [m]), and whether the contact nodes carry no mass (``located``: a
redistributed mass, whose contact events are located inside their step). ``law.scheme`` says which
time scheme the law needs: ``"newmark"`` (Newmark/HHT, position-level laws) or ``"theta"``
(Moreau–Jean, the velocity-level law).

==================== ============================================= ==========================
law                  Code_Aster                                    term
==================== ============================================= ==========================
:class:`Lagrange`     DEFI_CONTACT DISCRETE, ALGO LAGRANGIEN        multipliers, active set
:class:`Augmented`    DEFI_CONTACT CONTINUE (augmented Lagrangian)   multipliers, semi-smooth
:class:`Penalty`      DIS_CHOC shock springs (DIS_CONTACT)          force term at the slave nodes
:class:`MoreauJean`   (LMGC90, Siconos: velocity-level impacts)      multipliers at the velocity
:class:`Buckling`     DIS_CHOC RELATION='FLAMBAGE'                  force term at the slave nodes
==================== ============================================= ==========================

Each carries its own Coulomb coefficient ``mu`` (>= 0; the buckling element has none): friction
belongs to a pair, not to a stage.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from contact.impacts import VelocityContact, velocity_contact_from
from contact.multipliers import MultiplierContact
from contact.penalty import ShockLaw, ShockSprings
from contact.buckling import BucklingLaw
from contact.zone import BiPlane, RigidPlane, zone_of
from fem import ranges


def _coulomb(owner: str, mu) -> None:
    if isinstance(mu, bool) or not isinstance(mu, (int, float)) or not math.isfinite(mu) or mu < 0:
        raise ValueError(f"{owner}: the Coulomb coefficient mu must be a finite number >= 0, got {mu!r}")
    ranges.FRICTION.check(f"{owner}: mu", mu)


def _in_ranges(law, kinds: dict) -> None:
    """Each field of ``law`` named in ``kinds`` within its physical range (fem.ranges; a list of numbers
    number by number): BadInput ``Owner: field VALUE UNIT is outside the physical range ...``. A value
    that is no finite number >= 0 is left to the law's own checks (their messages name its keyword)."""
    def signed_right(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0

    owner = type(law).__name__
    for name, kind in kinds.items():
        value = getattr(law, name)
        for x in value if isinstance(value, (tuple, list)) else (value,):
            if signed_right(x):
                kind.check(f"{owner}: {name}", x)


def multiplier_term(model, slave: str, master, located: bool, clearance: float = 0.0, **law) -> MultiplierContact:
    """A :class:`contact.multipliers.MultiplierContact` of the pair (``law``: friction, method and its
    coefficients; ``clearance`` JEU [m]), its events located inside their step when the contact nodes
    are massless."""
    term = MultiplierContact(model, zone_of(model.mesh, slave, master, clearance), **law)
    if located:
        term.closing = term.release = "located"
    return term


@dataclass(frozen=True)
class Lagrange:
    """Frictional contact with Lagrange multipliers and an active set (Code_Aster DISCRETE).

    mu : Coulomb coefficient. The events are Code_Aster's ("immediate") unless the contact nodes are
    massless (``located``), then located inside their step (README "Mass redistribution")."""

    mu: float = 0.0
    scheme = "newmark"

    def __post_init__(self) -> None:
        _coulomb("Lagrange", self.mu)

    def build(self, model, slave: str, master, located: bool = False, clearance: float = 0.0) -> MultiplierContact:
        return multiplier_term(model, slave, master, located, clearance, friction=self.mu, method="lagrange")


@dataclass(frozen=True)
class Augmented:
    """Frictional contact with the augmented Lagrangian (Code_Aster CONTINUE): ``coef_cont``,
    ``coef_frot`` (dimensionless, > 0) scale the mean slave stiffness into the augmentation."""

    mu: float = 0.0
    coef_cont: float = 1.0
    coef_frot: float = 1.0
    scheme = "newmark"

    def __post_init__(self) -> None:
        _coulomb("Augmented", self.mu)
        for name in ("coef_cont", "coef_frot"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"Augmented: {name} must be a finite number > 0, got {value!r}")
        _in_ranges(self, {"coef_cont": ranges.AUGMENTATION, "coef_frot": ranges.AUGMENTATION})

    def build(self, model, slave: str, master, located: bool = False, clearance: float = 0.0) -> MultiplierContact:
        return multiplier_term(model, slave, master, located, clearance, friction=self.mu, method="augmented",
                               coef_cont=self.coef_cont, coef_frot=self.coef_frot)


@dataclass(frozen=True)
class Penalty:
    """Penalty shock springs at the slave nodes (Code_Aster DIS_CHOC, material DIS_CONTACT):
    ``normal_stiffness`` RIGI_NOR [N/m] (> 0), ``normal_damping`` AMOR_NOR [N s/m],
    ``tangential_stiffness`` RIGI_TAN [N/m], ``tangential_damping`` AMOR_TAN [N s/m], ``mu`` COULOMB;
    ``tension_allowed``: the element acts while the node penetrates even when its damper pulls
    (contact.penalty.ShockLaw; SDNV105 b's), else it carries compression only."""

    normal_stiffness: float
    mu: float = 0.0
    normal_damping: float = 0.0
    tangential_stiffness: float = 0.0
    tangential_damping: float = 0.0
    tension_allowed: bool = False
    scheme = "newmark"

    def __post_init__(self) -> None:
        _coulomb("Penalty", self.mu)
        ShockLaw(self.normal_stiffness, self.normal_damping, self.tangential_stiffness, self.tangential_damping,
                 self.mu)  # refuses a bad stiffness or damping now, naming it
        _in_ranges(self, {"normal_stiffness": ranges.STIFFNESS, "normal_damping": ranges.DASHPOT,
                          "tangential_stiffness": ranges.STIFFNESS_OR_ZERO, "tangential_damping": ranges.DASHPOT})

    def build(self, model, slave: str, master, located: bool = False, clearance: float = 0.0) -> ShockSprings:
        law = ShockLaw(self.normal_stiffness, self.normal_damping, self.tangential_stiffness,
                       self.tangential_damping, self.mu, tension_allowed=self.tension_allowed)
        return ShockSprings(model, zone_of(model.mesh, slave, master, clearance), law)


@dataclass(frozen=True)
class MoreauJean:
    """Frictional contact at the velocity level, for the Moreau–Jean theta-scheme (SDNV105 D): the
    impacts are velocity jumps with Newton's restitution 0. The pair is built at the position level
    for a quasi-static preload and continued at the velocity level by :meth:`for_theta`."""

    mu: float = 0.0
    scheme = "theta"

    def __post_init__(self) -> None:
        _coulomb("MoreauJean", self.mu)

    def build(self, model, slave: str, master, located: bool = False, clearance: float = 0.0) -> MultiplierContact:
        return multiplier_term(model, slave, master, False, clearance, friction=self.mu, method="lagrange")

    @staticmethod
    def for_theta(term) -> VelocityContact:
        """The velocity-level term continuing ``term`` (same statuses, multipliers and slip)."""
        return term if isinstance(term, VelocityContact) else velocity_contact_from(term)


@dataclass(frozen=True)
class Buckling(BucklingLaw):
    """Code_Aster's DIS_CHOC with RELATION='FLAMBAGE' (:class:`contact.buckling.BucklingLaw`: RIGI_NOR,
    FNOR_CRIT, FNOR_POST_FL, LARG_PLAT, ENFO_FL, the post-buckling tables, the dampings), a normal force
    only; as a pair's law each number also within its physical range (fem.ranges)."""

    def __post_init__(self) -> None:
        # the ranges first: the law's tables divide by differences of its lengths (1e300 m overflow them)
        _in_ranges(self, {"stiffness": ranges.STIFFNESS, "critical_force": ranges.FORCE, "post_force": ranges.FORCE,
                          "plateau": ranges.LENGTH_OR_ZERO, "fall": ranges.LENGTH_OR_ZERO,
                          "post_displacements": ranges.LENGTH_OR_ZERO, "post_stiffnesses": ranges.STIFFNESS,
                          "damping": ranges.DASHPOT, "fall_damping": ranges.DASHPOT,
                          "post_dampings": ranges.DASHPOT})
        super().__post_init__()

#: the law of each name a problem file may use (cases/problem_file/__init__.py)
LAWS = {"lagrange": Lagrange, "augmented": Augmented, "penalty": Penalty, "moreau_jean": MoreauJean,
        "buckling": Buckling}
