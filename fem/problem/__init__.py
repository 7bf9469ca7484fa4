"""A user's problem, stated on the mesh's own group names, and its simulation (floor 9 of fem).

    from fem.problem import Problem, Body, Support, Pair, Preload, BaseMotion, EventSteps, simulate
    from contact.laws import Lagrange

The contact laws come from :mod:`contact.laws` (fem never imports contact: a pair holds its law).
"""
from fem.problem.checks import Check
from fem.problem.definition import Assembled, Body, Pair, Problem, Spring, Support, assemble
from fem.problem.simulate import Outcome, Settings, run_stages, simulate
from fem.problem.stages import BaseMotion, ImposedMotion, Preload, Release, SelfWeight, Tilt
from fem.problem.steps import CentralDifferences, Uniform, Windows
from fem.time.stepping import EventSteps

__all__ = ["Assembled", "BaseMotion", "Body", "Check", "CentralDifferences", "EventSteps", "ImposedMotion", "Outcome", "Pair", "Preload", "Problem",
           "Release", "SelfWeight", "Settings", "Spring", "Support", "Tilt", "Uniform", "Windows", "assemble", "run_stages",
           "simulate"]
