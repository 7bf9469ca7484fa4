"""The objects a problem file states, built from its parsed table (:func:`build`): materials, contact laws
(the buckling element's too), rigid planes and obstacles between node groups, clearances, springs, base
motions, stages, steps (central differences too), supports, the :class:`fem.problem.Problem`; every mistake
refused on one line naming the file, the key and its line (fem/problem/file/__init__.py).

fem never imports contact: the contact laws a pair names, the rigid plane and the node-to-node obstacle
are the :class:`ContactCatalogue` the caller hands :func:`build` (cases.problem_file hands contact's).
"""
from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

from fem.problem.file.checks import read_checks
from fem.problem.file.motion import motion
from fem.problem.file.keys import LAW_RANGES, MATERIAL_RANGES, STEP_RANGES, keys
from fem.problem.file.result import STAGE_KINDS, TOP, ProblemFile, labels, translate
from fem.problem.file.syntax import (REQUIRED, Source, field_named, key_text, missing, num, ranged, shown,
                                              tab, tables, text)
from fem.constants import GRAVITY
from fem.loads.applied import ImposedDisplacement
from fem.loads.functions import PiecewiseLinear
from fem.model.mass import MASS_KINDS
from fem.model.material import ElasticMaterial
from fem.problem import (BaseMotion, Body, CentralDifferences, Contact, EventSteps, Pair, Preload, Problem, Spring,
                         Support, Uniform, Windows)
from fem.problem.definition import load_mesh
from fem.problem.collapse import Collapse
from fem.problem.observe import EnergyCreation
from fem.problem.stages import CONTACT_EVENTS
from fem.problem.physics import check_stages, check_steps
from fem.problem.simulate import ALPHA, ALPHA_FINE
from fem.io.results import SERIES_FORMATS
from fem import ranges as r
from fem.ranges import BadInput
from fem.stage.phase import PREDICTORS, NewtonSettings

#: the known keys of each table, from the file's one list of keys and their meanings (fem/problem/file/keys.py)
MATERIAL = keys("[materials.NAME]")
BODY = keys("[[bodies]]")
PAIR = keys("[[pairs]]")
CONTACT = keys("[[contacts]]")
PLANE = keys("plane = { ... }")
SUPPORT = keys("[[supports]]")
MOTION = keys("motions = [{ ... }]")
RAMP_KEYS = keys("ramp = { ... }")
PRELOAD = keys('[[stages]] kind = "preload"')
BASE_MOTION = keys('[[stages]] kind = "base_motion"')
SCHEME = keys("[scheme]")
OUTPUT = keys("[output]")
ENERGY_CREATION = keys("[energy_creation]")
COLLAPSE = keys("[collapse]")


@dataclasses.dataclass(frozen=True)
class ContactCatalogue:
    """What a problem file's pairs may name, from the contact package (fem never imports it): ``laws``,
    law name -> its class (a frozen dataclass whose init fields are the pair's keys; ``scheme`` and
    ``build`` as fem.problem.Pair needs); ``rigid_plane(point, normal)`` and ``biplane(other, direction,
    dist_1, dist_2)`` the masters a pair may give instead of a line group; ``buckling_criteria`` the
    choices of a ``criterion`` field."""

    laws: dict
    rigid_plane: object
    biplane: object
    buckling_criteria: tuple = ()

    @property
    def law_fields(self) -> dict[str, tuple[str, ...]]:
        """law name -> its keys (the class's init fields), in order."""
        return {name: tuple(f.name for f in dataclasses.fields(cls) if f.init) for name, cls in self.laws.items()}
#: the fields of a law that are > 0 (the others: >= 0), lists of numbers, and the field of each Code_Aster
#: keyword the buckling law's refusals name
POSITIVE = ("normal_stiffness", "coef_cont", "coef_frot", "stiffness", "critical_force", "post_force")
NUMBER_LISTS = ("post_displacements", "post_stiffnesses", "post_dampings")
KEYWORDS = {"RIGI_NOR": "stiffness", "FNOR_CRIT": "critical_force", "FNOR_POST_FL": "post_force",
            "LARG_PLAT": "plateau", "ENFO_FL": "fall", "DEPL_POST_FL": "post_displacements",
            "RIGI_POST_FL": "post_stiffnesses", "AMOR_NOR": "damping", "AMOR_FL": "fall_damping",
            "AMOR_POST_FL": "post_dampings", "CRIT_AMOR": "criterion"}
BIPLANE = keys("biplane = { ... }")  # contact.zone.BiPlane
SPRING = keys("[[springs]]")  # fem.problem.Spring
STEPS = {"events": EventSteps, "uniform": Uniform, "windows": Windows, "central_differences": CentralDifferences}
DEFAULT_STEPS = EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7)  # simulate()'s
#: the bounds of a number of a steps table (num's keywords; any other number: finite)
STEP_BOUNDS = {**{k: {"low": 0, "open_low": True} for k in ("dt", "dt_fine", "tolerance", "refine_dt", "refine_after")},
               **{k: {"low": -1, "high": 0, "open_low": True} for k in ("alpha", "refine_alpha")},
               "theta": {"low": 0.5, "high": 1.0}, "archive_every": {"low": 1, "integer": True},
               "modes": {"low": 1, "integer": True}}
#: the keys of each stage kind in time (besides kind and name), in the order a refusal lists them
TIMED = {kind: tuple(k for k in keys(f'[[stages]] kind = "{kind}"') if k not in ("kind", "name"))
         for kind in ("self_weight", "tilt", "imposed_motion", "release")}
NEWTON = keys("newton = { ... }")  # fem.stage.phase.NewtonSettings
ROW = "[t_start, t_end, dt, alpha, fine] or [t_start, t_end, dt, alpha, fine, modified]"
RAMP = "{ times = [t0, t1, ...], values = [v0, v1, ...] }"



def _material(src: Source, value, path: tuple) -> ElasticMaterial:
    t = tab(src, value, path, MATERIAL)
    ranges = MATERIAL_RANGES
    kw = {"young": num(src, t, path, "young", low=0, open_low=True, kind=ranges["young"]),
          "poisson": num(src, t, path, "poisson", low=-1, high=0.5, open_low=True, open_high=True, kind=ranges["poisson"]),
          "density": num(src, t, path, "density", low=0, open_low=True, kind=ranges["density"]),
          "rayleigh_stiffness": num(src, t, path, "rayleigh_stiffness", 0.0, low=0, kind=ranges["rayleigh_stiffness"]),
          "rayleigh_mass": num(src, t, path, "rayleigh_mass", 0.0, low=0, kind=ranges["rayleigh_mass"])}
    try:
        return ElasticMaterial(**kw)
    except ValueError as err:
        raise src.refuse(path, str(err)) from None


def _law(src: Source, t: dict, path: tuple, contact: ContactCatalogue, table: tuple = PAIR):
    """The pair's law: its name (``law``) and its own fields, each key of another law refused naming it;
    ``table``: the keys of the table it is in ([[pairs]] or [[contacts]])."""
    LAWS, LAW_FIELDS = contact.laws, contact.law_fields
    if not LAWS:
        raise src.refuse(path, "a pair, but the reader was given no contact laws: load the file with "
                               "cases.problem_file.load (or fem.problem.file.load(..., contact=...))")
    law = text(src, t, path, "law", "lagrange", choices=tuple(LAWS))
    own = LAW_FIELDS[law]
    known = tuple(k for k in table if k != "mu" or k in own) + tuple(f for f in own if f not in table)
    for key in t:
        if key not in known:
            laws = [n for n, f in LAW_FIELDS.items() if key in f]
            if laws:
                raise src.refuse(path + (key,), f"only for law {' or '.join(shown(n) for n in laws)} (this pair's "
                                                f"law is {shown(law)})")
            raise src.refuse(path + (key,), f"unknown key (known: {', '.join(known)})")
    kw = {}
    for f in dataclasses.fields(LAWS[law]):
        if not f.init or (f.name in NUMBER_LISTS and f.name not in t):
            continue
        if f.name in NUMBER_LISTS:
            kw[f.name] = _numbers(src, t, path, f.name, empty=True, kind=LAW_RANGES.get(f.name))
        elif f.name == "criterion":
            kw[f.name] = text(src, t, path, f.name, f.default, choices=contact.buckling_criteria)
        elif isinstance(f.default, bool):
            kw[f.name] = _flag(src, t, path, f.name, f.default)
        else:
            kw[f.name] = num(src, t, path, f.name, REQUIRED if f.name == "mu" or f.default is dataclasses.MISSING
                             else f.default, low=0, open_low=f.name in POSITIVE, kind=LAW_RANGES.get(f.name))
    try:
        return LAWS[law](**kw)
    except ValueError as err:
        named = re.search(rf"\b({'|'.join(KEYWORDS)})\b", str(err))
        key = KEYWORDS[named.group(1)] if named else field_named(str(err), own)
        raise src.refuse(path + ((key,) if key else ("law",)), str(err)) from None


def _xy(src: Source, t: dict, path: tuple, key: str, default=REQUIRED, low=None, kind=None) -> tuple:
    """``t[key]``: two finite numbers [x, y] (each >= ``low``, then within the physical range ``kind``:
    fem.ranges); ``default`` when absent."""
    need = "two finite numbers [x, y]" + ("" if low is None else f" >= {low}")
    if key not in t:
        return missing(src, t, path, key, need) if default is REQUIRED else default
    v = t[key]
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                        and math.isfinite(x) and (low is None or x >= low) for x in v)):
        raise src.refuse(path + (key,), f"expected {need}, got {shown(v)}")
    for x in v:
        ranged(src, path + (key,), x, kind)
    return float(v[0]), float(v[1])


def _plane(src: Source, value, path: tuple, rigid_plane):
    t = tab(src, value, path, PLANE, " { point = [x, y], normal = [nx, ny] }")
    point, normal = _xy(src, t, path, "point", kind=r.COORDINATE), _xy(src, t, path, "normal")
    if normal == (0.0, 0.0):
        raise src.refuse(path + ("normal",), "the normal must not be [0, 0]: it points from the plane toward the slave")
    return rigid_plane(point, normal)


def _biplane(src: Source, value, path: tuple, biplane):
    """An obstacle between node groups (Code_Aster BI_PLAN): the slave's node i against node i of ``other``."""
    t = tab(src, value, path, BIPLANE, ' { other = "GROUP", direction = [dx, dy], dist_1 = 0.0, dist_2 = 0.0 }')
    other = text(src, t, path, "other")
    direction = _xy(src, t, path, "direction", (1.0, 0.0))
    if direction == (0.0, 0.0):
        raise src.refuse(path + ("direction",), "the direction must not be [0, 0]: the obstacle's normal (NORM_OBST)")
    return biplane(other, direction, num(src, t, path, "dist_1", 0.0, low=0, kind=r.GAP),
                   num(src, t, path, "dist_2", 0.0, low=0, kind=r.GAP))


def _master(src: Source, t: dict, p: tuple, contact: ContactCatalogue):
    """A pair's master: a line group (``master``), a rigid plane (``plane``) or node groups (``biplane``)."""
    given = [k for k in ("master", "plane", "biplane") if k in t]
    forms = 'master (a line group), plane = { point = [x, y], normal = [nx, ny] } or biplane = { other = "GROUP" }'
    if len(given) != 1:
        raise src.refuse(p + (given[0] if given else "master",), f"give one of {forms}, not both {given[0]} and "
                         f"{given[1]}" if given else f"missing (expected {forms})", line_of=p if not given else None)
    if "master" in t:
        return text(src, t, p, "master")
    if "plane" in t:
        return _plane(src, t["plane"], p + ("plane",), contact.rigid_plane)
    return _biplane(src, t["biplane"], p + ("biplane",), contact.biplane)


def _spring(src: Source, t: dict, p: tuple) -> Spring:
    """Springs and dashpots from the nodes of ``group`` to the ground or to the nodes of ``other``."""
    tab(src, t, p, SPRING)
    return Spring(text(src, t, p, "group"), _xy(src, t, p, "stiffness", (0.0, 0.0), low=0, kind=r.STIFFNESS_OR_ZERO),
                  _xy(src, t, p, "damping", (0.0, 0.0), low=0, kind=r.DASHPOT), text(src, t, p, "other", None),
                  text(src, t, p, "name", None))


def _stage(src: Source, t: dict, path: tuple, folder: Path):
    kind = text(src, t, path, "kind", choices=tuple(STAGE_KINDS))
    if kind == "preload":
        tab(src, t, path, PRELOAD)
        if path[-1] != 0:
            raise src.refuse(path + ("kind",), "a preload comes first (it starts from the unloaded mesh): make it "
                                               "the first [[stages]]")
        hold = tables(src, t, "hold", False, path)
        return Preload(steps=num(src, t, path, "steps", 5, low=1, high=1000, integer=True),
                       friction=num(src, t, path, "friction", None, low=0, kind=r.FRICTION),
                       duration=num(src, t, path, "duration", 1.0, low=0, open_low=True, kind=r.DURATION),
                       hold=_hold(src, hold, path), newton=_newton(src, t, path),
                       name=text(src, t, path, "name", "preload"))
    if kind in TIMED:
        return _timed(src, t, path, kind)
    tab(src, t, path, BASE_MOTION)
    duration = num(src, t, path, "duration", low=0, open_low=True, kind=r.DURATION)
    x, y = (motion(src, t[c], path + (c,), folder) if c in t else None for c in ("x", "y"))
    return BaseMotion(duration, x, y, text(src, t, path, "name", "base motion"), newton=_newton(src, t, path),
                      contact_events=text(src, t, path, "contact_events", None, choices=CONTACT_EVENTS))


def _timed(src: Source, t: dict, path: tuple, kind: str):
    """A stage in absolute time (module docstring): SelfWeight, Tilt, ImposedMotion or Release."""
    cls, keys = STAGE_KINDS[kind], TIMED[kind]
    tab(src, t, path, ("kind", "name", *keys))
    kw = {k: num(src, t, path, k, None if k == "start" and kind != "self_weight" else REQUIRED, kind=r.INSTANT)
          for k in ("start", "ramp_end", "end") if k in keys}
    if kind == "tilt":
        kw.update(angle=num(src, t, path, "angle"), nodes=_names(src, t, path, "nodes", '["C1", "O1"]'),
                  pivot=text(src, t, path, "pivot"),
                  ramp=_ramp(src, t["ramp"] if "ramp" in t else missing(src, t, path, "ramp", RAMP), path + ("ramp",)))
    if kind == "imposed_motion":
        kw["motions"] = tuple(_imposed(src, m, path + ("motions", i))
                              for i, m in enumerate(tables(src, t, "motions", True, path)))
    if "hold" in keys:
        kw["hold"] = _hold(src, tables(src, t, "hold", False, path), path)
    if kind == "release":
        kw["acceleration"] = text(src, t, path, "acceleration", "equilibrium", choices=("equilibrium", "zero"))
        velocity = t.get("velocity", {})
        if not isinstance(velocity, dict):
            raise src.refuse(path + ("velocity",), f"expected a table {{ GROUP = [vx, vy] }} [m/s], got {shown(velocity)}")
        kw["velocity"] = {g: _numbers(src, velocity, path + ("velocity",), g, kind=r.VELOCITY) for g in velocity}
    name = kw["name"] = text(src, t, path, "name", cls.name)
    kw.update(friction=num(src, t, path, "friction", None, low=0, kind=r.FRICTION), newton=_newton(src, t, path),
              contact_events=text(src, t, path, "contact_events", None, choices=CONTACT_EVENTS))
    try:
        return cls(**kw)
    except BadInput as err:  # "stages.NAME.KEY: what", or "stages.NAME: start before ... end": at the later time,
        head, _, what = str(err).partition(": ")  # or at start if set by --set
        if head != f"stages.{name}":
            raise src.refuse(path + _keys(head.removeprefix(f"stages.{name}")), what) from None
        later = "ramp_end" if kw["start"] >= kw.get("ramp_end", math.inf) else "end"
        key = "start" if src.origin(path + ("start",)) and not src.origin(path + (later,)) else later
        raise src.refuse(path + (key,), what) from None


def _keys(rest: str) -> tuple:
    """``.rows[1].dt`` -> ``("rows", 1, "dt")``: the keys of a library message's head after its owner."""
    return tuple(int(k[1:-1]) if k.startswith("[") else k for k in re.findall(r"\[\d+\]|[^.\[\]]+", rest))


def _numbers(src: Source, t: dict, path: tuple, key: str, empty: bool = False, kind=None) -> tuple:
    """``t[key]``: a list of finite numbers (each within the physical range ``kind``: fem.ranges)."""
    v = t[key] if key in t else missing(src, t, path, key, "a list of numbers")
    if not (isinstance(v, list) and (v or empty) and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                         and math.isfinite(x) for x in v)):
        raise src.refuse(path + (key,), f"expected a list of finite numbers, got {shown(v)}")
    for i, x in enumerate(v):
        ranged(src, path + (key, i), x, kind)
    return tuple(float(x) for x in v)


def _ramp(src: Source, value, path: tuple) -> PiecewiseLinear:
    """A multiplier of time (fem.loads.functions.PiecewiseLinear: linear between its points, constant outside)."""
    t = tab(src, value, path, RAMP_KEYS, f" {RAMP}")
    times, values = _numbers(src, t, path, "times", kind=r.INSTANT), _numbers(src, t, path, "values")
    if any(b <= a for a, b in zip(times, times[1:])):
        raise src.refuse(path + ("times",), f"expected strictly increasing times [s], got {shown(t['times'])}")
    if len(values) != len(times):
        raise src.refuse(path + ("values",), f"expected as many values as times ({len(times)}), got {len(values)}")
    return PiecewiseLinear(times, values)


def _names(src: Source, t: dict, path: tuple, key: str, example: str) -> tuple:
    """``t[key]``: a non-empty list of group names."""
    v = t[key] if key in t else missing(src, t, path, key, f"a list of node group names, e.g. {example}")
    if not (isinstance(v, list) and v and all(isinstance(n, str) and n.strip() for n in v)):
        raise src.refuse(path + (key,), f"expected a list of node group names (e.g. {example}), got {shown(v)}")
    return tuple(v)


def _imposed(src: Source, m: dict, p: tuple) -> ImposedDisplacement:
    """An imposed displacement: value [m] times its ramp (none: constant)."""
    tab(src, m, p, MOTION)
    ramp = {"function": _ramp(src, m["ramp"], p + ("ramp",))} if "ramp" in m else {}
    return ImposedDisplacement(text(src, m, p, "group"), text(src, m, p, "component", choices=("x", "y")),
                               num(src, m, p, "value", kind=r.DISPLACEMENT), **ramp)


def _newton(src: Source, t: dict, path: tuple) -> NewtonSettings | None:
    """The stage's Newton settings (its ``newton`` table; the keys left out NewtonSettings' defaults), or None."""
    if "newton" not in t:
        return None
    p = path + ("newton",)
    n = tab(src, t["newton"], p, NEWTON, " { rela = 1e-6, maxi = 1e-3, max_iterations = 40 }")
    kinds = {"rela": r.RELATIVE_TOLERANCE, "maxi": r.FORCE}  # RESI_GLOB_RELA; RESI_GLOB_MAXI [N]
    kw = {k: num(src, n, p, k, low=0, open_low=True, kind=kinds[k]) for k in ("rela", "maxi") if k in n}
    if "max_iterations" in n:
        kw["max_iterations"] = num(src, n, p, "max_iterations", low=1, integer=True, kind=r.NEWTON_ITERATIONS)
    if "predictor" in n:  # the first iterate of a step (NewtonSettings.predictor)
        kw["predictor"] = text(src, n, p, "predictor", choices=PREDICTORS)
    return NewtonSettings(**kw)


def _flag(src: Source, t: dict, path: tuple, key: str, default: bool) -> bool:
    v = t.get(key, default)
    if not isinstance(v, bool):
        raise src.refuse(path + (key,), f"expected true or false, got {shown(v)}")
    return v


def _hold(src: Source, hold: list, path: tuple) -> tuple:
    """The supports of the stage at ``path`` only (its ``hold`` tables, each as a [[supports]] entry)."""
    return tuple(_support(src, h, path + ("hold", i)) for i, h in enumerate(hold))


def _steps(src: Source, data: dict, stages: tuple):
    """One spec for every stage (``[steps]`` with its kind), or one per stage (``[steps.STAGE]`` tables, a
    stage not named taking DEFAULT_STEPS): a mapping from stage names to specs."""
    if "steps" not in data:
        return DEFAULT_STEPS
    steps = data["steps"]
    tabled = [k for k, v in steps.items() if isinstance(v, dict)] if isinstance(steps, dict) else []
    if not tabled:
        return _watched(src, data, {("steps",): _spec(src, steps, ("steps",))})[("steps",)]
    named = {s.name: s for s in stages}
    for key, value in steps.items():
        if not isinstance(value, dict):
            raise src.refuse(("steps", key), f"beside the table {key_text(('steps', tabled[0]))} of a stage: give "
                             f"[steps] one spec for every stage (kind and its keys) or a [steps.STAGE] table per "
                             f"stage, not both")
        if key not in named:
            raise src.refuse(("steps", key), f"names no stage; the stages are {', '.join(shown(n) for n in named)}")
        if isinstance(named[key], Preload):
            raise src.refuse(("steps", key), "a preload has no time steps (its own steps: static increments)")
    specs = _watched(src, data, {("steps", key): _spec(src, value, ("steps", key)) for key, value in steps.items()})
    return {path[-1]: spec for path, spec in specs.items()}


def _spec(src: Source, value, path: tuple):
    """The steps spec of the table at ``path``: EventSteps, Uniform or Windows (module docstring)."""
    kind = text(src, value if isinstance(value, dict) else {}, path, "kind", "events", choices=tuple(STEPS))
    cls = STEPS[kind]
    names = tuple(f.name for f in dataclasses.fields(cls))
    t = tab(src, value, path, ("kind", *names))
    kw = {}
    for f in dataclasses.fields(cls):
        if f.name == "rows":
            kw["rows"] = _rows(src, t, path)
        elif f.name == "settle":
            kw["settle"] = _flag(src, t, path, "settle", f.default)
        elif f.name == "watch" and "watch" in t:
            kw["watch"] = _names(src, t, path, "watch", '["O", "A"]')
        elif f.name != "watch" and (f.default is dataclasses.MISSING or f.name in t):
            kw[f.name] = num(src, t, path, f.name, **STEP_BOUNDS.get(f.name, {}), kind=STEP_RANGES.get(f.name))
    try:
        return cls(**kw)
    except ValueError as err:  # EventSteps: "EventSteps: KEY ...", Uniform and Windows: "steps.KEY[i]: what"
        head, sep, what = str(err).partition(": ")
        if sep and head.startswith("steps") and isinstance(err, BadInput):
            raise src.refuse(path + _keys(head.removeprefix("steps")), what) from None
        key = field_named(str(err), names)
        raise src.refuse(path + ((key,) if key else ()), str(err)) from None


def _rows(src: Source, t: dict, path: tuple) -> list:
    """A Windows schedule: rows of numbers, then true or false (fine, and modified if given)."""
    rows = t["rows"] if "rows" in t else missing(src, t, path, "rows", f"a list of windows {ROW}")
    if not isinstance(rows, list) or not rows:
        raise src.refuse(path + ("rows",), f"expected a list of windows {ROW}, got {shown(rows)}")
    for i, r in enumerate(rows):
        if not (isinstance(r, list) and len(r) in (5, 6)
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in r[:4])
                and all(isinstance(x, bool) for x in r[4:])):
            raise src.refuse(path + ("rows", i), f"expected {ROW} (numbers [s], then true or false), got {shown(r)}")
    return [(*(float(x) for x in r[:4]), *r[4:]) for r in rows]


def _watched(src: Source, data: dict, specs: dict) -> dict:
    """``specs`` (path -> spec) once the node groups a Windows spec watches are found in the mesh (read here
    only then: the run would find out at the stage's start)."""
    watched = [(path, i, g) for path, s in specs.items() for i, g in enumerate(getattr(s, "watch", None) or ())]
    if watched:
        try:
            groups = {**load_mesh(src.path.parent / data["mesh"]).node_groups, **_node_groups(src, data)}
        except BadInput as err:
            raise translate(src, data, str(err)) from None
        for path, i, g in watched:
            if g not in groups:
                raise src.refuse(path + ("watch", i), f"the mesh has no node group {g!r}")
    return specs


def _support(src: Source, t: dict, p: tuple) -> Support:
    tab(src, t, p, SUPPORT)
    components = t.get("components", ["x", "y"])
    if not (isinstance(components, list) and components and all(c in ("x", "y") for c in components)
            and len(set(components)) == len(components)):
        raise src.refuse(p + ("components",), f'expected ["x"], ["y"] or ["x", "y"], got {shown(components)}')
    return Support(text(src, t, p, "group"), tuple(components))


def _unique(src: Source, data: dict, section: str) -> None:
    names = labels(data, section)
    for j, label in enumerate(names):
        if label in names[:j]:
            i = names.index(label)
            key = "name" if "name" in data[section][j] else ("slave" if section == "pairs" else "group")
            raise src.refuse((section, j, key), f"{label!r} is also {key_text((section, i))}'s label: give one a "
                                                f"(different) name")


def build(src: Source, data: dict, contact: ContactCatalogue) -> ProblemFile:
    """The objects ``data`` (a parsed problem file, overrides applied) states, every mistake refused; the
    pairs' laws and masters from ``contact``."""
    tab(src, data, (), TOP)
    folder = src.path.parent
    mesh = text(src, data, (), "mesh")
    if not (folder / mesh).is_file():
        raise src.refuse(("mesh",), f"no such file {str(folder / mesh)!r}")
    mass = text(src, data, (), "mass", "consistent", choices=MASS_KINDS)
    gravity = num(src, data, (), "gravity", GRAVITY, low=0, kind=r.GRAVITY_OR_ZERO)
    thickness = num(src, data, (), "thickness", 1.0, low=0, open_low=True, kind=r.LENGTH)
    masses = data.get("point_masses", {})
    masses = tab(src, masses, ("point_masses",), tuple(masses) if isinstance(masses, dict) else ())
    point_masses = {g: num(src, masses, ("point_masses",), g, low=0, kind=r.MASS_OR_ZERO) for g in masses}
    node_groups = _node_groups(src, data)
    materials = data.get("materials", None if data.get("bodies") or not point_masses else {})
    if not isinstance(materials, dict) or (not materials and data.get("bodies")):
        raise src.refuse(("materials",), f"missing (expected at least one [materials.NAME] table"
                         f"{'' if data.get('bodies') else ', or point_masses = { GROUP = kg } without bodies'})"
                         if materials is None else f"expected tables [materials.NAME], got {shown(materials)}")
    made = {name: _material(src, m, ("materials", name)) for name, m in materials.items()}
    bodies = []
    for i, t in enumerate(tables(src, data, "bodies", required=not point_masses)):
        p = ("bodies", i)
        tab(src, t, p, BODY)
        group, material = text(src, t, p, "group"), text(src, t, p, "material")
        if material not in made:
            raise src.refuse(p + ("material",), f"no material {material!r} (defined: {', '.join(made)})")
        if group in (groups := [b.group for b in bodies]):
            raise src.refuse(p + ("group",), f"{group!r} is also {key_text(('bodies', groups.index(group)))}'s group")
        angle = num(src, t, p, "overturn_angle", None, low=0, high=math.pi, open_low=True, open_high=True)
        bodies.append(Body(group, made[material], angle, text(src, t, p, "name", None),
                           text(src, t, p, "mass", None, choices=MASS_KINDS)))
    supports = [_support(src, t, ("supports", i)) for i, t in enumerate(tables(src, data, "supports", False))]
    pairs, schemes = [], []
    for i, t in enumerate(tables(src, data, "pairs", required=False)):
        p = ("pairs", i)
        slave = text(src, t, p, "slave")
        law = _law(src, t, p, contact)
        master = _master(src, t, p, contact)
        if schemes and law.scheme != schemes[0][1]:
            raise src.refuse(p + ("law",), f"{shown(t.get('law', 'lagrange'))} cannot be mixed with the law of "
                             f"{key_text(('pairs', schemes[0][0]))}: velocity-level (moreau_jean) and position-level "
                             f"laws need different time schemes")
        schemes.append((i, law.scheme))
        pairs.append(Pair(slave, master, law, text(src, t, p, "name", None),
                          num(src, t, p, "clearance", 0.0, kind=r.GAP, signed=True)))
    contacts = [_contact(src, t, ("contacts", i), contact, [b.group for b in bodies])
                for i, t in enumerate(tables(src, data, "contacts", required=False))]
    if contacts and len({c.law.scheme for c in contacts} | set(s for _, s in schemes)) > 1:
        raise src.refuse(("contacts",), "velocity-level (moreau_jean) and position-level laws cannot be mixed in "
                                        "one problem: they need different time schemes")
    springs = [_spring(src, t, ("springs", i)) for i, t in enumerate(tables(src, data, "springs", False))]
    for section in ("bodies", "pairs", "springs"):
        _unique(src, data, section)
    stages = tuple(_stage(src, t, ("stages", i), folder) for i, t in enumerate(tables(src, data, "stages", True)))
    try:
        check_stages(stages)
    except BadInput as err:
        raise translate(src, data, str(err)) from None
    steps = _steps(src, data, stages)
    try:  # each step within the stage it cuts (what simulate checks again)
        check_steps(stages, lambda name: steps.get(name, DEFAULT_STEPS) if isinstance(steps, dict) else steps,
                    isinstance(steps, dict))
    except BadInput as err:
        raise translate(src, data, str(err)) from None
    scheme = tab(src, data.get("scheme", {}), ("scheme",), SCHEME)
    alpha = num(src, scheme, ("scheme",), "alpha", ALPHA, low=-1 / 3, high=0.0)
    theta = num(src, scheme, ("scheme",), "theta", 0.55, low=0.5, high=1.0)
    alpha_fine = num(src, scheme, ("scheme",), "alpha_fine", ALPHA_FINE, low=-1 / 3, high=0.0)
    output = tab(src, data.get("output", {}), ("output",), OUTPUT)
    out = Path(text(src, output, ("output",), "out", str(Path("results") / src.path.stem)))
    paraview = _flag(src, output, ("output",), "paraview", False)
    series = text(src, output, ("output",), "format", "xdmf", choices=SERIES_FORMATS)
    try:
        problem = Problem(folder / mesh, bodies, supports, pairs, gravity, mass, thickness, point_masses,
                          springs=springs, node_groups=node_groups, contacts=contacts)
    except (BadInput, ValueError) as err:
        raise translate(src, data, str(err)) from None
    return ProblemFile(src.path, problem, stages, steps, alpha, theta, alpha_fine, out, paraview, data, src, series,
                       read_checks(src, data), _energy_creation(src, data, stages), _collapse(src, data))


def _contact(src: Source, t: dict, p: tuple, contact: ContactCatalogue, groups: list[str]) -> Contact:
    """A [[contacts]] table: its law (with the law's own keys), the bodies' groups, tolerance, clearance."""
    law = _law(src, t, p, contact, CONTACT)
    bodies = t.get("bodies", [])
    if not (isinstance(bodies, list) and all(isinstance(b, str) and b for b in bodies)):
        raise src.refuse(p + ("bodies",), f'expected a list of bodies\' groups (e.g. ["BRICK_1", "BRICK_2"]), got {shown(bodies)}')
    for k, b in enumerate(bodies):
        if b not in groups:
            raise src.refuse(p + ("bodies", k), f"{b!r} is not a body's group; the bodies: {', '.join(groups) or 'none'}")
    tolerance = num(src, t, p, "tolerance", None, low=0, open_low=True, kind=r.LENGTH)
    name = t.get("name")
    if name is not None and not (isinstance(name, str) and name.strip()):
        raise src.refuse(p + ("name",), f"expected a non-empty name, got {shown(name)}")
    return Contact(law, tuple(bodies), tolerance, num(src, t, p, "clearance", 0.0, kind=r.GAP, signed=True),
                   _flag(src, t, p, "merge", False), name)


def _node_groups(src: Source, data: dict) -> dict:
    """[node_groups]: NAME = [GROUP, ...], a node group gathering the nodes of the groups listed
    (fem.problem.Problem.node_groups: whether the mesh has them is checked when it is read)."""
    given = data.get("node_groups", {})
    given = tab(src, given, ("node_groups",), tuple(given) if isinstance(given, dict) else ())
    out = {}
    for name, parts in given.items():
        if not (isinstance(parts, list) and parts and all(isinstance(g, str) and g for g in parts)):
            raise src.refuse(("node_groups", name), f'expected a list of group names (e.g. ["O", "A"]), got {shown(parts)}')
        out[name] = tuple(parts)
    return out


def _collapse(src: Source, data: dict) -> Collapse | None:
    """[collapse]: the blocks' motion at which the assembly has collapsed, at which its collapse began,
    and whether the run stops there (fem.problem.Collapse; an empty table takes its defaults)."""
    if "collapse" not in data:
        return None
    path = ("collapse",)
    t = tab(src, data["collapse"], path, COLLAPSE)
    default = Collapse()
    displacement = num(src, t, path, "displacement", default.displacement, low=0, high=10, open_low=True)
    onset = num(src, t, path, "onset", default.onset, low=0, high=10, open_low=True)
    stop = _flag(src, t, path, "stop", default.stop)
    try:
        return Collapse(displacement, onset, stop)
    except BadInput as err:
        raise src.refuse(path + ("onset",), str(err).split(": ", 1)[1]) from None


def _energy_creation(src: Source, data: dict, stages) -> EnergyCreation | None:
    """[energy_creation]: its scale [J], limit and the stages it watches (fem.problem.EnergyCreation)."""
    if "energy_creation" not in data:
        return None
    path = ("energy_creation",)
    t = tab(src, data["energy_creation"], path, ENERGY_CREATION)
    scale = num(src, t, path, "scale", low=0, open_low=True, kind=r.ENERGY)
    limit = num(src, t, path, "limit", 0.01, low=0, high=1, open_low=True)
    names, watched = [s.name for s in stages], t.get("stages")
    if watched is not None:
        if not (isinstance(watched, list) and watched and all(isinstance(n, str) for n in watched)):
            raise src.refuse(path + ("stages",), f'expected a list of stage names (e.g. ["release"]), got {shown(watched)}')
        for name in watched:
            if name not in names:
                raise src.refuse(path + ("stages",), f"{name!r} names no stage; the stages are "
                                                     f"{', '.join(map(repr, names))}")
    return EnergyCreation(scale, limit, None if watched is None else tuple(watched))
