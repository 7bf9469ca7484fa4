"""A problem stated in a TOML file: ``load(path, overrides) -> ProblemFile`` (the Problem, its stages,
its steps and the run's settings), every mistake refused on one line naming the file, the key and its line.

    mesh = "bricks_on_plinth.msh"       # gmsh file, relative to this file's folder
    mass = "redistributed"              # consistent | lumped | redistributed (default consistent)
    gravity = 9.81                      # optional, default fem.constants.GRAVITY [m/s^2]
    thickness = 1.0                     # optional [m]
    [materials.stone]                   # any number of named materials (fem.model.material.ElasticMaterial)
    young = 3e10                        # Pa
    poisson = 0.2
    density = 2500.0                    # kg/m^3
    rayleigh_stiffness = 1e-4           # AMOR_ALPHA [s], optional (0); rayleigh_mass: AMOR_BETA [1/s] (0)
    [[bodies]]                          # name, overturn_angle [rad] optional; none (nor materials) when there
                                        # are point_masses: a problem of discrete masses (SDND's)
    group = "BRICK_1"
    material = "stone"
    [[supports]]                        # components optional, default ["x", "y"]
    group = "FLOOR_BASE"
    [[pairs]]                           # and the keys of the law's own fields (contact.laws): penalty:
    slave = "BRICK_1_BOTTOM"            # normal_stiffness (required), normal_damping, tangential_stiffness,
    master = "PLINTH_TOP"               # tangential_damping, tension_allowed (false); augmented: coef_cont,
                                        # coef_frot. Or a rigid plane:
    law = "lagrange"                    # plane = { point = [0.0, 0.0], normal = [0.0, 1.0] }; law: lagrange
    mu = 0.7                            # (default), augmented, penalty, moreau_jean, buckling; mu required
    clearance = 0.0                     # (buckling has none); clearance: Code_Aster's JEU [m] (optional, 0)
    [[pairs]]                           # the slave's node i against node i of another node group (Code_Aster
    slave = "N02"                       # BI_PLAN, contact.zone.BiPlane): biplane = { other, direction ([1, 0]),
    biplane = { other = "N03", direction = [1.0, 0.0], dist_1 = 5.0, dist_2 = 5.0 }     # dist_1, dist_2 (0) }
    law = "buckling"                    # DIS_CHOC FLAMBAGE (contact.laws.Buckling): stiffness, critical_force,
    stiffness = 0.5                     # post_force required; plateau, fall, damping, fall_damping [numbers],
    critical_force = 1.0                # post_displacements, post_stiffnesses, post_dampings [lists of numbers],
    post_force = 0.5                    # criterion ("INCLUS" or "EXCLUS") optional
    [[springs]]                         # springs and dashpots (fem.problem.Spring) from each node of group to
    group = "NO1"                       # the ground, or to the nodes of other: stiffness = [kx, ky] [N/m],
    stiffness = [1e4, 1e4]              # damping = [cx, cy] [N s/m] (both [0, 0]), other, name optional
    [[stages]]
    kind = "preload"                    # steps (5), friction (each pair's own), duration (1), name ("preload"),
                                        # hold: supports of the preload only, [{ group = "O1", components = ["x"] }],
                                        # newton = { rela = 1e-6, maxi = 1e-3, max_iterations = 40 } (keys left
                                        # out: fem.stage.phase.NewtonSettings' defaults; without: the run's;
                                        # predictor: "constant_velocity", "constant_acceleration" or "none")
    [[stages]]                          # a dynamic gravity ramp (fem.problem.SelfWeight), first or after another
    kind = "self_weight"                # stage: gravity from 0 at start to full at ramp_end, held to end (absolute
    start = -1.0                        # times [s], start < ramp_end, start < end) with the run's steps and scheme;
    ramp_end = -0.8                     # name ("self-weight"), hold as the preload's; friction (each pair's own)
    end = 0.0                           # and newton (the run's) of this stage, as the preload's
    [[stages]]                          # nodes (one-node groups) turned rigidly about pivot by angle * ramp(t)
    kind = "tilt"                       # [rad] (fem.problem.Tilt) to end [s]; start: from the state the stage
    start = -1.05                       # before reached then (optional: where it ended); ramp: linear between
    end = 0.0                           # its points (fem.loads.functions.PiecewiseLinear), constant outside;
    angle = 0.05                        # name ("tilt"), hold, friction, newton as the self-weight's
    nodes = ["C1", "O1"]
    pivot = "O"
    ramp = { times = [-1.05, -0.5], values = [0.0, 1.0] }
    [[stages]]                          # displacements value * ramp(t) [m] imposed (fem.problem.ImposedMotion;
    kind = "imposed_motion"             # without ramp: constant) to end [s]; start, name ("imposed motion"),
    end = 0.0                           # hold, friction, newton as the tilt's
    motions = [{ group = "C1", component = "x", value = -0.008, ramp = { times = [-1.0, 0.0], values = [0, 1] } }]
    [[stages]]                          # the bodies let go at rest where the stage before left them, to end [s]
    kind = "release"                    # (fem.problem.Release); name ("release"), friction, newton, start,
                                        # velocity = { GROUP = [vx, vy] }, acceleration ("equilibrium", "zero")
    end = 0.2
    [[stages]]
    kind = "base_motion"                # name (default "base motion"), duration [s], newton (as a tilt's), x and y optional:
    name = "shake"                      # a record (baseline, peak_g optional), or a closed form of
    duration = 4.0                      # fem.loads.base_motion.base_motion, amplitude [m/s^2] or amplitude_g [g];
    x = { record = "records/h_v.csv", column = 1, units = "m/s2", scale = 1.0 }
    y = { kind = "sine-pulse", amplitude_g = 0.5, frequency = 2.0 }    # scale (a factor) optional
    [steps]                             # optional: events (fem.time.stepping.EventSteps: dt, dt_fine, tolerance,
    kind = "events"                     # archive_every, fine_after, lookahead, growth) | uniform (dt,
    dt = 1e-3                           # archive_every, alpha, theta) | windows (fem.problem.Windows: rows =
    dt_fine = 1e-4                      # [[t_start, t_end, dt, alpha, fine(, modified)], ...], refine_dt,
    tolerance = 1e-7                    # refine_alpha, refine_after, settle, watch, archive_every, theta);
                                        # | central_differences (fem.problem.CentralDifferences: dt, modes:
                                        # the N lowest modes, else the physical dofs, archive_every);
                                        # without [steps]: EventSteps(1e-3, 1e-4, tolerance 1e-7)
    [steps.release]                     # or, instead of one spec for every stage, a table per stage named by the
    kind = "uniform"                    # stage's name (its name key, else its kind's default: "self-weight",
    dt = 1e-4                           # "tilt", "imposed motion", "release", "base motion"); a stage not named
                                        # takes EventSteps(1e-3, 1e-4, tolerance 1e-7). Not both in one file.
    [scheme]                            # optional: HHT alpha (-0.1), Moreau-Jean theta (0.55), alpha_fine: HHT alpha
                                        # of the fine event-driven steps (-0.2; docs/problem.md, "Reactions that
                                        # alternate": 0 lets contact reactions alternate step to step)
    [output]                            # optional: out (results/<file stem>, from the current dir), paraview
                                        # (false), format: "xdmf" (NAME.xdmf + NAME.h5) or "pvd" (a .vtu a step)
    [point_masses]                      # optional: node or line group = mass [kg] at each of its nodes
    [node_groups]                       # optional: NAME = [GROUP, ...], a node group of the groups' nodes

Overrides ``("KEY.PATH", "VALUE")`` change the parsed file before anything is built: the value read as TOML
(``0.5``, ``true``, ``"lumped"``; other text as a string), the key dotted, a segment after a list picking an
entry by its ``name`` (bodies also by ``group``, pairs by ``slave``, supports and springs by ``group``, unnamed
stages by ``kind``) or its index: ``stages.shake.x.scale``, ``pairs.BRICK_1_BOTTOM.mu``, ``bodies.0.material``,
``steps.dt``, ``steps.release.dt``.

Every mistake is a one-line :class:`fem.ranges.BadInput`: ``stack.toml: line 12: pairs[1].mu: expected a number
>= 0, got "high"`` (a key set by an override names it instead of its line); so are the library's refusals
(:meth:`ProblemFile.refusal`: a group the mesh does not have, ...). Every number is also checked against the
physical range of its kind (fem/ranges.py: ``stack.toml: line 13: materials.stone.young: 1e-300 Pa is outside the
physical range [1, 1e16] Pa of a material's Young's modulus: ...``), a scaled record or closed form against the
100 g of a record's samples (named by its ``scale``), and each stage's step against the stage (``steps.dt: 1 s is
longer than the stage 'shake' it cuts (its duration, 0.1 s): ...``): all before anything is written.

This module is the reader's face (users call it as :func:`cases.problem_file.load`, which hands it the
contact package's laws); the work is done in fem/problem/file/syntax.py (where keys stand,
the readers of a value and their wording, overrides), fem/problem/file/build.py (the objects the
file states, :func:`build`) and fem/problem/file/result.py (:class:`ProblemFile`, :func:`translate`).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Sequence

from fem.problem.file.build import BIPLANE, BODY, DEFAULT_STEPS, MATERIAL, PAIR, SPRING, STEPS, ContactCatalogue, build
from fem.problem.file.motion import CLOSED_FORMS, RECORD
from fem.problem.file.result import STAGE_KINDS, TOP, ProblemFile, labels, translate
from fem.problem.file.syntax import (LISTS, REQUIRED, Source, apply_override, field_named, key_lines, key_text,
                                              missing, num, parse_value, shown, tab, tables, text)
from fem.ranges import BadInput

__all__ = ["BIPLANE", "BODY", "CLOSED_FORMS", "ContactCatalogue", "DEFAULT_STEPS", "LISTS", "MATERIAL", "PAIR",
           "RECORD", "REQUIRED", "SPRING", "STAGE_KINDS", "STEPS", "TOP", "ProblemFile", "Source", "apply_override",
           "build", "field_named", "key_lines", "key_text", "labels", "load", "missing", "num", "parse_value",
           "shown", "tab", "tables", "text", "translate"]


def _syntax(name: str, err: tomllib.TOMLDecodeError) -> BadInput:
    m = re.search(r"^(.*) \(at line (\d+), column (\d+)\)$", str(err))
    return BadInput(f"{name}: line {m[2]}: not valid TOML: {m[1]} (column {m[3]})" if m else
                    f"{name}: not valid TOML: {err}")


def load(path, overrides: Sequence = (), contact: ContactCatalogue | None = None) -> ProblemFile:
    """Read the problem file ``path``, apply ``overrides`` (``(KEY.PATH, VALUE)`` pairs, or triples whose
    third item names where they came from, ``--set`` by default) and build it (:func:`build`) with the
    contact laws and masters of ``contact`` (:func:`cases.problem_file.load` gives the contact package's;
    None: a file with no pairs only); every mistake a one-line :class:`fem.ranges.BadInput` (module
    docstring)."""
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8")
        data = tomllib.loads(source)
    except FileNotFoundError:
        raise BadInput(f"{path}: no such problem file") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not a text file (UTF-8): a problem file is TOML") from None
    except OSError as err:
        raise BadInput(f"{path}: cannot be read ({err.strerror or err})") from None
    except tomllib.TOMLDecodeError as err:
        raise _syntax(str(path), err) from None
    src = Source(path, source)
    for item in overrides:
        key, value, *origin = item
        apply_override(src, data, str(key), str(value), *origin)
    return build(src, data, contact if contact is not None else ContactCatalogue({}, None, None))
