"""rockfem's finite-element engine, in floors (README "What is here"): mesh, model, loads, stage, time,
io, run, studies, problem. The public face for a problem of one's own::

    from fem import Problem, Body, Support, Pair, Preload, BaseMotion, EventSteps, simulate
    from contact.laws import Lagrange          # the laws a pair names (fem never imports contact)
"""
from fem.loads.base_motion import CosinePulse, Harmonic, Ramp, SinePulse, read_record
from fem.model.material import ElasticMaterial
from fem.problem import (BaseMotion, Body, CentralDifferences, EventSteps, ImposedMotion, Outcome, Pair, Preload, Problem, Release,
                         SelfWeight, Spring, Support, Tilt, Uniform, Windows, assemble, simulate)

__all__ = ["BaseMotion", "Body", "CentralDifferences", "CosinePulse", "ElasticMaterial", "EventSteps", "Harmonic", "ImposedMotion", "Outcome",
           "Pair", "Preload", "Problem", "Ramp", "Release", "SelfWeight", "SinePulse", "Spring", "Support", "Tilt", "Uniform",
           "Windows", "assemble", "read_record", "simulate"]
