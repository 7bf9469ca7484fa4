"""A user's problem, stated on the mesh's own group names, and its simulation (floor 9 of fem).

    from fem.problem import Problem, Body, Support, Pair, Preload, BaseMotion, EventSteps, simulate
    from contact.laws import Lagrange

The contact laws come from :mod:`contact.laws` (fem never imports contact: a pair holds its law).

Accelerations are in m/s^2; ``g`` (9.81 m/s^2, :data:`fem.constants.GRAVITY`) is the unit of those given
in g, the same in Python and in a problem file: ``SinePulse(amplitude=0.6 * g, frequency=2.0)`` is TOML's
``{ kind = "sine-pulse", amplitude_g = 0.6, frequency = 2.0 }`` (and ``amplitude = 5.886``, in m/s^2, is
both), ``read_record(path, units="g")`` its ``units = "g"``.
"""
from fem.constants import GRAVITY as g
from fem.problem.checks import Check
from fem.problem.collapse import Collapse
from fem.problem.definition import Assembled, Body, Contact, Pair, Problem, Spring, Support, assemble
from fem.problem.observe import EnergyCreation
from fem.problem.simulate import Outcome, Settings, run_stages, simulate
from fem.problem.stages import BaseMotion, ImposedMotion, Preload, Release, SelfWeight, Tilt
from fem.problem.steps import CentralDifferences, Uniform, Windows
from fem.time.stepping import EventSteps

__all__ = ["Assembled", "BaseMotion", "Body", "Check", "CentralDifferences", "Collapse", "Contact", "EnergyCreation", "EventSteps", "ImposedMotion", "Outcome", "Pair", "Preload", "Problem",
           "Release", "SelfWeight", "Settings", "Spring", "Support", "Tilt", "Uniform", "Windows", "assemble", "g", "run_stages",
           "simulate"]
