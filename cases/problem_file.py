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
    [[bodies]]                          # name, overturn_angle [rad] optional
    group = "BRICK_1"
    material = "stone"
    [[supports]]                        # components optional, default ["x", "y"]
    group = "FLOOR_BASE"
    [[pairs]]                           # and the keys of the law's own fields (contact.laws): penalty:
    slave = "BRICK_1_BOTTOM"            # normal_stiffness (required), normal_damping, tangential_stiffness,
    master = "PLINTH_TOP"               # tangential_damping; augmented: coef_cont, coef_frot. Or a rigid plane:
    law = "lagrange"                    # plane = { point = [0.0, 0.0], normal = [0.0, 1.0] }; law: lagrange
    mu = 0.7                            # (default), augmented, penalty, moreau_jean; mu required
    [[stages]]
    kind = "preload"                    # steps (5), friction (each pair's own), duration (1), name ("preload"),
                                        # hold: supports of the preload only, [{ group = "O1", components = ["x"] }]
    [[stages]]
    kind = "base_motion"                # name (default "base motion"), duration [s], x and y optional:
    name = "shake"                      # a record (baseline, peak_g optional), or a closed form of
    duration = 4.0                      # fem.loads.base_motion.base_motion, amplitude [m/s^2] or amplitude_g [g];
    x = { record = "records/h_v.csv", column = 1, units = "m/s2", scale = 1.0 }
    y = { kind = "sine-pulse", amplitude_g = 0.5, frequency = 2.0 }    # scale (a factor) optional
    [steps]                             # optional: events (fem.time.stepping.EventSteps: dt, dt_fine, tolerance,
    kind = "events"                     # archive_every, fine_after, lookahead, growth) | uniform (dt,
    dt = 1e-3                           # archive_every); without [steps]: EventSteps(1e-3, 1e-4, tolerance 1e-7)
    dt_fine = 1e-4
    tolerance = 1e-7
    [scheme]                            # optional: HHT alpha (0), Moreau-Jean theta (0.55)
    [output]                            # optional: out (results/<file stem>, from the current dir), paraview
    [point_masses]                      # optional: node or line group = mass [kg] at each of its nodes

Overrides ``("KEY.PATH", "VALUE")`` change the parsed file before anything is built: the value read as TOML
(``0.5``, ``true``, ``"lumped"``; other text as a string), the key dotted, a segment after a list picking an
entry by its ``name`` (bodies also by ``group``, pairs by ``slave``, supports by ``group``, unnamed stages by
``kind``) or its index: ``stages.shake.x.scale``, ``pairs.BRICK_1_BOTTOM.mu``, ``bodies.0.material``, ``steps.dt``.

Every mistake is a one-line :class:`fem.ranges.BadInput`: ``stack.toml: line 12: pairs[1].mu: expected a number
>= 0, got "high"`` (a key set by an override names it instead of its line); so are the library's refusals
(:meth:`ProblemFile.refusal`: a group the mesh does not have, ...).
"""
from __future__ import annotations

import bisect
import contextlib
import dataclasses
import inspect
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from contact.laws import LAWS
from contact.zone import RigidPlane
from fem.constants import GRAVITY
from fem.loads import base_motion as bm
from fem.model.mass import MASS_KINDS
from fem.model.material import ElasticMaterial
from fem.problem import BaseMotion, Body, EventSteps, Pair, Preload, Problem, Support, Uniform, assemble
from fem.ranges import BadInput, number

TOP = ("mesh", "mass", "gravity", "thickness", "materials", "bodies", "supports", "pairs", "stages", "steps",
       "scheme", "output", "point_masses")
LISTS = {"bodies": ("name", "group"), "pairs": ("name", "slave"), "stages": ("name",), "supports": ("group",)}
MATERIAL = ("young", "poisson", "density", "rayleigh_stiffness", "rayleigh_mass")
BODY = ("group", "material", "name", "overturn_angle")
PAIR = ("slave", "master", "plane", "law", "mu", "name")
LAW_FIELDS = {name: tuple(f.name for f in dataclasses.fields(cls)) for name, cls in LAWS.items()}
#: closed-form base motions (fem.loads.base_motion.base_motion's kinds other than "record")
CLOSED_FORMS = {"harmonic": bm.Harmonic, "sine-pulse": bm.SinePulse, "cosine-pulse": bm.CosinePulse, "ramp": bm.Ramp}
RECORD = ("record", "kind", "column", "units", "scale", "baseline", "peak_g")
STEPS = {"events": EventSteps, "uniform": Uniform}
DEFAULT_STEPS = EventSteps(dt=1e-3, dt_fine=1e-4, tolerance=1e-7)  # simulate()'s
_REQUIRED = object()
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key_text(path: Sequence) -> str:
    """``("pairs", 1, "mu")`` -> ``pairs[1].mu`` (a name that is no bare TOML key quoted)."""
    text = ""
    for seg in path:
        seg = f"[{seg}]" if isinstance(seg, int) else seg if _BARE.match(seg) else json.dumps(seg)
        text += seg if not text or seg.startswith("[") else f".{seg}"
    return text


def shown(value) -> str:
    """A value as TOML writes it: ``"high"``, ``true``, ``0.5``, ``[1, 2]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return number(value) if math.isfinite(value) else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key_text((k,))} = {shown(v)}" for k, v in value.items()) + " }" if value else "{}"
    return str(value)


def _segments(key: str) -> list[str]:
    """The segments of a TOML key (dotted, quoted or bare)."""
    return ["".join(m) for m in re.findall(r'"([^"]*)"|\'([^\']*)\'|([^.\s"\']+)', key)]


_PART = r"""(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[A-Za-z0-9_-]+)"""  # a key's segment: quoted or bare
_KEY = re.compile(rf"{_PART}(?:[ \t]*\.[ \t]*{_PART})*")
_STRING = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_SPACE = re.compile(r"(?:\s|#[^\n]*)*")


class _Lines:
    """The walk of :func:`key_lines` over a (valid) TOML text: headers, keys, inline tables, arrays."""

    def __init__(self, text: str) -> None:
        self.text, self.k, self.found, self.arrays = text, 0, {}, {}
        self.breaks = [m.start() for m in re.finditer("\n", text)]

    def line(self) -> int:
        return bisect.bisect_right(self.breaks, self.k - 1) + 1

    def skip(self, newlines: bool = True) -> None:
        self.k = (_SPACE if newlines else re.compile(r"[ \t]*")).match(self.text, self.k).end()

    def note(self, path: tuple, start: int = 1) -> None:
        for j in range(start, len(path) + 1):
            self.found.setdefault(path[:j], self.line())

    def key(self, prefix: tuple) -> tuple:
        m = _KEY.match(self.text, self.k)
        path = prefix + tuple(_segments(m.group(0)) if m else ())
        self.note(path, len(prefix) + 1)
        self.k = m.end() if m else self.k + 1
        return path

    def value(self, path: tuple) -> None:
        self.skip(newlines=False)
        text, c = self.text, self.text[self.k:self.k + 1]
        if c in ("[", "{"):
            self.k, index, close = self.k + 1, 0, "]" if c == "[" else "}"
            while self.k < len(text):
                self.skip()
                if text.startswith(close, self.k):
                    break
                if c == "[":
                    self.found.setdefault(path + (index,), self.line())
                    self.value(path + (index,))
                else:
                    self.key_value(path)
                self.skip()
                if not text.startswith(",", self.k):
                    break
                self.k, index = self.k + 1, index + 1
            self.k += 1
        elif c and c in "\"'":
            self.k = m.end() if (m := _STRING.match(text, self.k)) else len(text)
        else:
            self.k = re.compile(r"[^,\]}\n#]*").match(text, self.k).end()

    def key_value(self, prefix: tuple) -> None:
        path = self.key(prefix)
        self.skip(newlines=False)
        self.k += self.text.startswith("=", self.k)
        self.value(path)

    def walk(self) -> dict:
        prefix, text = (), self.text
        while True:
            self.skip()
            if self.k >= len(text):
                return self.found
            if text.startswith("[", self.k):
                double = text.startswith("[[", self.k)
                self.k += 2 if double else 1
                self.skip(newlines=False)
                segs = _segments(_KEY.match(text, self.k).group(0)) if _KEY.match(text, self.k) else []
                path, plain = (), ()
                for seg in segs[:-1] if double else segs:
                    path, plain = path + (seg,), plain + (seg,)
                    path += (self.arrays[plain] - 1,) if plain in self.arrays else ()
                if double and segs:
                    path, plain = path + (segs[-1],), tuple(segs)
                    self.note(path)
                    self.arrays[plain] = self.arrays.get(plain, 0) + 1
                    path += (self.arrays[plain] - 1,)
                self.note(path)
                self.found[path], prefix = self.line(), path
                self.k = (text.find("\n", self.k) + 1) or len(text)
            else:
                start = self.k
                self.key_value(prefix)
                self.k = max(self.k, start + 1)


def key_lines(text: str) -> dict[tuple, int]:
    """The line of every table header and every key of a valid TOML text, by path (str keys, int indices
    of arrays): tables, arrays of tables, dotted keys, inline tables, arrays (of inline tables) over lines."""
    return _Lines(text).walk()


class Source:
    """The file a problem came from: its name, the line of each key, the keys overrides set."""

    def __init__(self, path: Path, text: str = "") -> None:
        self.path, self.name = Path(path), str(path)
        self.lines = key_lines(text)
        self.set_by: dict[tuple, str] = {}  # path -> "--set KEY=VALUE"

    @staticmethod
    def _nearest(found: dict, path: Sequence):
        """``found`` of ``path``, else of its nearest ancestor there (None: none is)."""
        return next((found[tuple(path[:k])] for k in range(len(path), 0, -1) if tuple(path[:k]) in found), None)

    def line(self, path: Sequence) -> int | None:
        return self._nearest(self.lines, path)

    def origin(self, path: Sequence) -> str | None:
        return self._nearest(self.set_by, path)

    def refuse(self, path: Sequence, what: str, line_of: Sequence | None = None) -> BadInput:
        """``file: line N: key: what`` (``file: key (--set ...): what`` for a key an override set)."""
        key = key_text(path)
        origin = self.origin(path if line_of is None else line_of)
        if origin is not None:
            return BadInput(f"{self.name}: {key} ({origin}): {what}" if key else f"{self.name} ({origin}): {what}")
        line = self.line(path if line_of is None else line_of)
        where = f"line {line}: " if line is not None else ""
        return BadInput(f"{self.name}: {where}{key}: {what}" if key else f"{self.name}: {where}{what}")


def _bounds(integer: bool, low, high, open_low: bool, open_high: bool) -> str:
    base = "an integer" if integer else "a number"
    if low is not None and high is not None:
        return f"{base} in {'(' if open_low else '['}{number(low)}, {number(high)}{')' if open_high else ']'}"
    if low is not None:
        return f"{base} {'>' if open_low else '>='} {number(low)}"
    return base if high is None else f"{base} {'<' if open_high else '<='} {number(high)}"


def _missing(src: Source, table: dict, path: tuple, key: str, need: str):
    raise src.refuse(path + (key,), f"missing (expected {need})", line_of=path)  # at the line of its table


def num(src: Source, table: dict, path: tuple, key: str, default=_REQUIRED, low=None, high=None,
        open_low: bool = False, open_high: bool = False, integer: bool = False, finite: bool = True):
    """``table[key]``: a number (an integer) within the bounds; ``default`` when absent."""
    need = _bounds(integer, low, high, open_low, open_high) + ("" if finite else " (inf allowed)")
    if key not in table:
        return _missing(src, table, path, key, need) if default is _REQUIRED else default
    v = table[key]
    ok = isinstance(v, int if integer else (int, float)) and not isinstance(v, bool) \
        and (-1e300 <= v <= 1e300 or (not finite and isinstance(v, float) and math.isinf(v)))  # no NaN, no 10**400
    ok = ok and (low is None or (v > low if open_low else v >= low)) and (high is None or (v < high if open_high
                                                                                          else v <= high))
    if not ok:
        odd = isinstance(v, float) and not math.isfinite(v)  # inf >= 0 holds: say finite
        raise src.refuse(path + (key,), f"expected {need.replace('a number', 'a finite number') if odd else need}, "
                                        f"got {shown(v)}")
    return v if integer else float(v)


def text(src: Source, table: dict, path: tuple, key: str, default=_REQUIRED, choices: Sequence | None = None):
    """``table[key]``: a non-empty string (one of ``choices``); ``default`` when absent."""
    need = f"one of {', '.join(shown(c) for c in choices)}" if choices else "a string"
    if key not in table:
        return _missing(src, table, path, key, need) if default is _REQUIRED else default
    v = table[key]
    if not isinstance(v, str) or not v.strip() or (choices and v not in choices):
        raise src.refuse(path + (key,), f"expected {need}, got {shown(v)}")
    return v


def tab(src: Source, value, path: tuple, known: Sequence[str], example: str = "") -> dict:
    """``value``, a table whose keys are all ``known``."""
    if not isinstance(value, dict):
        raise src.refuse(path, f"expected a table{example}, got {shown(value)}")
    for key in value:
        if key not in known:
            raise src.refuse(path + (key,), f"unknown key (known: {', '.join(known)})")
    return value


def tables(src: Source, data: dict, key: str, required: bool, path: tuple = ()) -> list:
    """``data[key]``: an array of tables (``[[key]]``), possibly empty unless ``required``."""
    v = data.get(key, [])
    if not isinstance(v, list) or not all(isinstance(e, dict) for e in v):
        raise src.refuse(path + (key,), f"expected an array of tables ([[{key}]] entries), got {shown(v)}")
    if required and not v:
        raise src.refuse(path + (key,), f"missing (expected at least one [[{key}]] entry)", line_of=path or None)
    return v


def _field_named(message: str, names: Sequence[str]) -> str | None:
    """The field a library message is about: the one it starts with after ``Owner: `` (longest first)."""
    quoted = re.search(r"parameter '([^']+)'", message)
    rest = quoted.group(1) if quoted else message.split(": ", 1)[-1]
    return next((n for n in sorted(names, key=len, reverse=True) if rest.startswith(n)), None)


def parse_value(value: str):
    """An override's text as a TOML value; text that is none (a bare word) as a string."""
    try:
        parsed = tomllib.loads(f"v = {value}")
        return parsed["v"] if list(parsed) == ["v"] else value
    except tomllib.TOMLDecodeError:
        return value


def _select(src: Source, entries: list, path: tuple, seg: str, label: str) -> int:
    fields = LISTS.get(path[-1] if path else "", ())
    found = [i for i, e in enumerate(entries) if isinstance(e, dict) and any(e.get(f) == seg for f in fields)]
    if not found and path == ("stages",):
        found = [i for i, e in enumerate(entries) if isinstance(e, dict) and "name" not in e and e.get("kind") == seg]
    if len(found) > 1:
        raise BadInput(f"{src.name}: {label}: {seg!r} is {' and '.join(key_text(path + (i,)) for i in found)}: "
                       f"give the index")
    if found:
        return found[0]
    if seg.isdigit() and int(seg) < len(entries):
        return int(seg)
    names = sorted({str(e.get(f)) for e in entries if isinstance(e, dict) for f in fields if f in e})
    by = f"by {' or '.join(fields)}: {', '.join(names) or 'none'}; or " if fields else ""
    raise BadInput(f"{src.name}: {label}: {key_text(path)} has no entry {seg!r} ({by}an index from 0 to "
                   f"{len(entries) - 1})" if entries else f"{src.name}: {label}: {key_text(path)} is empty")


def apply_override(src: Source, data: dict, key: str, value: str, origin: str = "--set") -> None:
    """Set ``key`` (dotted, list entries by name or index) to ``value`` read as TOML, in ``data``."""
    label = f"{origin} {key}={value}"
    segs = key.split(".")
    if not key.strip() or any(not s.strip() for s in segs):
        raise BadInput(f"{src.name}: {label}: expected KEY.PATH=VALUE, KEY.PATH dotted names (e.g. pairs.0.mu=0.6)")
    new = parse_value(value)
    node, path = data, ()
    for k, seg in enumerate(segs):
        if isinstance(node, list):
            i = _select(src, node, path, seg, label)
        elif isinstance(node, dict):
            i = seg
            if k < len(segs) - 1 and seg not in node:
                if not path and seg in LISTS:
                    raise BadInput(f"{src.name}: {label}: the file has no [[{seg}]] entry")
                node[seg] = {}
                src.set_by[path + (seg,)] = label  # a table the override made
        else:
            raise BadInput(f"{src.name}: {label}: {key_text(path)} is {shown(node)}, it has no key {seg!r}")
        path += (i,)
        parent, node = node, node[i] if k < len(segs) - 1 else None
    parent[i] = new
    src.set_by[path] = label


@dataclass(frozen=True)
class ProblemFile:
    """A problem file read and built: the :class:`fem.problem.Problem`, its stages and steps, the scheme
    (``alpha``, ``theta``), the output folder ``out`` and ``paraview``, and ``data``, the parsed TOML with
    the overrides applied (JSON-able: what a run records as its parameters)."""

    path: Path
    problem: Problem
    stages: tuple
    steps: object
    alpha: float
    theta: float
    out: Path
    paraview: bool
    data: dict
    source: Source = field(repr=False, compare=False)

    def refusal(self, err: Exception, out_given: bool = False) -> BadInput:
        """The library's refusal ``err`` (``bodies.BRICK_1.group: ...``) in the file's terms (``stack.toml:
        line 9: bodies[0].group: ...``); ``out_given``: the output folder came from ``--out``."""
        return translate(self.source, self.data, str(err), out_given)

    @contextlib.contextmanager
    def refusals(self, out_given: bool = False):
        """Inside the block, a BadInput of the library comes out in the file's terms (:meth:`refusal`)."""
        try:
            yield
        except BadInput as err:
            raise self.refusal(err, out_given) from None

    def assemble(self):
        """:func:`fem.problem.assemble` of the problem, its refusals in the file's terms."""
        with self.refusals():
            return assemble(self.problem)


def _labels(data: dict, section: str) -> list[str]:
    """The label of each entry of a list as the library names it (Body.label, Pair.label, ...)."""
    entries = data.get(section) if isinstance(data.get(section), list) else []
    label = {"bodies": lambda e: e.get("name") or e.get("group"), "supports": lambda e: e.get("group"),
             "pairs": lambda e: e.get("name") or f"{e.get('slave')}/{e.get('master', 'plane')}",
             "stages": lambda e: e.get("name") or ("preload" if e.get("kind") == "preload" else "base motion")}
    return [str(label[section](e if isinstance(e, dict) else {})) for e in entries]


def _library_path(data: dict, head: str) -> tuple | None:
    """The file's path of a key as the library names it (``bodies.BRICK_1.group``, ``stages[1]``, ``mesh``)."""
    for section in ("bodies", "pairs", "supports", "stages"):
        if head == section:
            return (section,)
        m = re.fullmatch(rf"{section}\[(\d+)\](?:\.(.+))?", head)
        if m:
            return (section, int(m.group(1)), *(m.group(2).split(".") if m.group(2) else ()))
        if head.startswith(section + "."):
            rest = head[len(section) + 1:]
            for i, label in enumerate(_labels(data, section)):
                if rest == label:
                    return (section, i, "group") if section == "supports" else (section, i)
                if rest.startswith(label + "."):
                    return (section, i, *rest[len(label) + 1:].split("."))
    if head.startswith("point_masses."):
        return ("point_masses", head.split(".", 1)[1])
    if head in ("alpha", "theta"):
        return ("scheme", head)
    if head.split(".")[0] in TOP:
        return tuple(head.split("."))
    return None


def translate(src: Source, data: dict, message: str, out_given: bool = False) -> BadInput:
    """A library message ``KEY: what`` as one line in the file's terms (unchanged but for the file's name
    when its key is not one of the file's)."""
    head, sep, what = message.partition(": ")
    if sep and head.startswith("out "):
        if out_given:
            return BadInput(f"--{message}")
        return src.refuse(("output", "out"), f"{head[4:]}: {what}")
    if sep and head.startswith("mesh "):
        return src.refuse(("mesh",), f"{head[5:]}: {what}")
    path = _library_path(data, head) if sep else None
    if path is None:
        return BadInput(message if message.startswith(src.name) else f"{src.name}: {message}")
    return src.refuse(path, what)


def _material(src: Source, value, path: tuple) -> ElasticMaterial:
    t = tab(src, value, path, MATERIAL)
    kw = {"young": num(src, t, path, "young", low=0, open_low=True),
          "poisson": num(src, t, path, "poisson", low=-1, high=0.5, open_low=True, open_high=True),
          "density": num(src, t, path, "density", low=0, open_low=True),
          "rayleigh_stiffness": num(src, t, path, "rayleigh_stiffness", 0.0, low=0),
          "rayleigh_mass": num(src, t, path, "rayleigh_mass", 0.0, low=0)}
    try:
        return ElasticMaterial(**kw)
    except ValueError as err:
        raise src.refuse(path, str(err)) from None


def _law(src: Source, t: dict, path: tuple):
    law = text(src, t, path, "law", "lagrange", choices=tuple(LAWS))
    own = LAW_FIELDS[law]
    known = PAIR + tuple(f for f in own if f not in PAIR)
    for key in t:
        if key not in known:
            laws = [n for n, f in LAW_FIELDS.items() if key in f]
            if laws:
                raise src.refuse(path + (key,), f"only for law {' or '.join(shown(n) for n in laws)} (this pair's "
                                                f"law is {shown(law)})")
            raise src.refuse(path + (key,), f"unknown key (known: {', '.join(known)})")
    kw = {f.name: num(src, t, path, f.name, _REQUIRED if f.name == "mu" or f.default is dataclasses.MISSING else
                      f.default, low=0, open_low=f.name in ("normal_stiffness", "coef_cont", "coef_frot"))
          for f in dataclasses.fields(LAWS[law])}
    try:
        return LAWS[law](**kw)
    except ValueError as err:
        key = _field_named(str(err), own)
        raise src.refuse(path + ((key,) if key else ("law",)), str(err)) from None


def _plane(src: Source, value, path: tuple) -> RigidPlane:
    t = tab(src, value, path, ("point", "normal"), " { point = [x, y], normal = [nx, ny] }")
    xy = {}
    for key in ("point", "normal"):
        v = t[key] if key in t else _missing(src, t, path, key, "[x, y]")
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                            and math.isfinite(x) for x in v)):
            raise src.refuse(path + (key,), f"expected two finite numbers [x, y], got {shown(v)}")
        xy[key] = (float(v[0]), float(v[1]))
    if xy["normal"] == (0.0, 0.0):
        raise src.refuse(path + ("normal",), "the normal must not be [0, 0]: it points from the plane toward the slave")
    return RigidPlane(xy["point"], xy["normal"])


def _motion(src: Source, value, path: tuple, folder: Path):
    """A base-motion component: a record or a closed form (module docstring)."""
    example = ' (e.g. { record = "a.csv", column = 1 } or { kind = "sine-pulse", amplitude_g = 0.5, frequency = 2.0 })'
    if not isinstance(value, dict):
        raise src.refuse(path, f"expected a table{example}, got {shown(value)}")
    if "record" in value:
        t = tab(src, value, path, RECORD)
        text(src, t, path, "kind", "record", choices=("record",))
        name = text(src, t, path, "record")
        file = folder / name
        if not file.is_file():
            raise src.refuse(path + ("record",), f"no such record file {str(file)!r}")
        kw = {"column": num(src, t, path, "column", 1, low=1, integer=True)}
        kw.update({k: text(src, t, path, k, choices=c) for k, c in (("units", ("m/s2", "g")),
                                                                    ("baseline", ("polynomial", "none"))) if k in t})
        kw.update({k: num(src, t, path, k, low=0 if k == "peak_g" else None, open_low=True) for k in ("scale", "peak_g")
                   if k in t})
        try:
            return bm.read_record(file, **kw)
        except ValueError as err:
            key = "column" if f"column {kw['column']} asked" in str(err) else "record"
            raise src.refuse(path + (key,), str(err)) from None
    kind = text(src, value, path, "kind", choices=("record", *CLOSED_FORMS))
    if kind == "record":
        raise src.refuse(path + ("record",), f"missing (expected the record file: record = \"FILE\"){example}",
                         line_of=path)
    params = [n for n in inspect.signature(CLOSED_FORMS[kind]).parameters if not n.startswith("_")]
    t = tab(src, value, path, ("kind", *params, "amplitude_g", "scale"))
    if "amplitude" in params and ("amplitude" in t) == ("amplitude_g" in t):
        what = "give amplitude [m/s^2] or amplitude_g [g], not both" if "amplitude" in t else \
            "missing (expected amplitude [m/s^2] or amplitude_g [g])"
        raise src.refuse(path + ("amplitude",), what, line_of=path if "amplitude" not in t else None)
    kw = {}
    for name, p in inspect.signature(CLOSED_FORMS[kind]).parameters.items():
        if name in t:
            kw[name] = num(src, t, path, name, finite=name != "amplitude")
        elif p.default is inspect.Parameter.empty and name != "amplitude":
            _missing(src, t, path, name, "a number")
    if "amplitude_g" in t:
        kw["amplitude"] = num(src, t, path, "amplitude_g") * bm.STANDARD_GRAVITY
    try:
        history = bm.base_motion(kind, **kw)
    except ValueError as err:
        key = _field_named(str(err), params)
        key = "amplitude_g" if key == "amplitude" and "amplitude_g" in t else key
        raise src.refuse(path + ((key,) if key else ()), str(err)) from None
    return bm.scaled(history, num(src, t, path, "scale")) if "scale" in t else history


def _stage(src: Source, t: dict, path: tuple, folder: Path):
    kind = text(src, t, path, "kind", choices=("preload", "base_motion"))
    if kind == "preload":
        tab(src, t, path, ("kind", "name", "steps", "friction", "duration", "hold"))
        if path[-1] != 0:
            raise src.refuse(path + ("kind",), "a preload comes first (it starts from the unloaded mesh): make it "
                                               "the first [[stages]]")
        hold = tables(src, t, "hold", False, path)
        return Preload(steps=num(src, t, path, "steps", 5, low=1, high=1000, integer=True),
                       friction=num(src, t, path, "friction", None, low=0),
                       duration=num(src, t, path, "duration", 1.0, low=0, open_low=True),
                       hold=tuple(_support(src, h, path + ("hold", i)) for i, h in enumerate(hold)),
                       name=text(src, t, path, "name", "preload"))
    tab(src, t, path, ("kind", "name", "duration", "x", "y"))
    duration = num(src, t, path, "duration", low=0, open_low=True)
    x, y = (_motion(src, t[c], path + (c,), folder) if c in t else None for c in ("x", "y"))
    return BaseMotion(duration, x, y, text(src, t, path, "name", "base motion"))


def _steps(src: Source, data: dict):
    if "steps" not in data:
        return DEFAULT_STEPS
    path = ("steps",)
    kind = text(src, data["steps"] if isinstance(data["steps"], dict) else {}, path, "kind", "events",
                choices=tuple(STEPS))
    cls = STEPS[kind]
    names = tuple(f.name for f in dataclasses.fields(cls))
    t = tab(src, data["steps"], path, ("kind", *names))
    kw = {}
    for f in dataclasses.fields(cls):
        if f.name == "archive_every":
            kw[f.name] = num(src, t, path, f.name, f.default, low=1, integer=True)
        elif f.default is dataclasses.MISSING or f.name in t:
            strict = f.name in ("dt", "dt_fine", "tolerance")
            kw[f.name] = num(src, t, path, f.name, low=0 if strict else None, open_low=strict)
    try:
        return cls(**kw)
    except ValueError as err:
        key = _field_named(str(err), names)
        raise src.refuse(path + ((key,) if key else ()), str(err)) from None


def _support(src: Source, t: dict, p: tuple) -> Support:
    tab(src, t, p, ("group", "components"))
    components = t.get("components", ["x", "y"])
    if not (isinstance(components, list) and components and all(c in ("x", "y") for c in components)
            and len(set(components)) == len(components)):
        raise src.refuse(p + ("components",), f'expected ["x"], ["y"] or ["x", "y"], got {shown(components)}')
    return Support(text(src, t, p, "group"), tuple(components))


def _unique(src: Source, data: dict, section: str) -> None:
    labels = _labels(data, section)
    for j, label in enumerate(labels):
        if label in labels[:j]:
            i = labels.index(label)
            key = "name" if "name" in data[section][j] else ("group" if section == "bodies" else "slave")
            raise src.refuse((section, j, key), f"{label!r} is also {key_text((section, i))}'s label: give one a "
                                                f"(different) name")


def build(src: Source, data: dict) -> ProblemFile:
    """The objects ``data`` (a parsed problem file, overrides applied) states, every mistake refused."""
    tab(src, data, (), TOP)
    folder = src.path.parent
    mesh = text(src, data, (), "mesh")
    if not (folder / mesh).is_file():
        raise src.refuse(("mesh",), f"no such file {str(folder / mesh)!r}")
    mass = text(src, data, (), "mass", "consistent", choices=MASS_KINDS)
    gravity = num(src, data, (), "gravity", GRAVITY, low=0)
    thickness = num(src, data, (), "thickness", 1.0, low=0, open_low=True)
    materials = data.get("materials")
    if not isinstance(materials, dict) or not materials:
        raise src.refuse(("materials",), "missing (expected at least one [materials.NAME] table)"
                         if materials is None else f"expected tables [materials.NAME], got {shown(materials)}")
    made = {name: _material(src, m, ("materials", name)) for name, m in materials.items()}
    bodies = []
    for i, t in enumerate(tables(src, data, "bodies", required=True)):
        p = ("bodies", i)
        tab(src, t, p, BODY)
        group, material = text(src, t, p, "group"), text(src, t, p, "material")
        if material not in made:
            raise src.refuse(p + ("material",), f"no material {material!r} (defined: {', '.join(made)})")
        if group in (groups := [b.group for b in bodies]):
            raise src.refuse(p + ("group",), f"{group!r} is also {key_text(('bodies', groups.index(group)))}'s group")
        angle = num(src, t, p, "overturn_angle", None, low=0, high=math.pi, open_low=True, open_high=True)
        bodies.append(Body(group, made[material], angle, text(src, t, p, "name", None)))
    supports = [_support(src, t, ("supports", i)) for i, t in enumerate(tables(src, data, "supports", False))]
    pairs, schemes = [], []
    for i, t in enumerate(tables(src, data, "pairs", required=False)):
        p = ("pairs", i)
        slave = text(src, t, p, "slave")
        law = _law(src, t, p)
        if ("master" in t) == ("plane" in t):
            raise src.refuse(p + ("master",), "give master (a line group) or plane = { point = [x, y], normal = [nx, "
                             "ny] }, not both" if "master" in t else "missing (expected master, a line group, or "
                             "plane = { point = [x, y], normal = [nx, ny] })", line_of=p if "master" not in t else None)
        master = text(src, t, p, "master") if "master" in t else _plane(src, t["plane"], p + ("plane",))
        if schemes and law.scheme != schemes[0][1]:
            raise src.refuse(p + ("law",), f"{shown(t.get('law', 'lagrange'))} cannot be mixed with the law of "
                             f"{key_text(('pairs', schemes[0][0]))}: velocity-level (moreau_jean) and position-level "
                             f"laws need different time schemes")
        schemes.append((i, law.scheme))
        pairs.append(Pair(slave, master, law, text(src, t, p, "name", None)))
    _unique(src, data, "bodies")
    _unique(src, data, "pairs")
    masses = data.get("point_masses", {})
    masses = tab(src, masses, ("point_masses",), tuple(masses) if isinstance(masses, dict) else ())
    point_masses = {g: num(src, masses, ("point_masses",), g, low=0) for g in masses}
    stages = tuple(_stage(src, t, ("stages", i), folder) for i, t in enumerate(tables(src, data, "stages", True)))
    steps = _steps(src, data)
    scheme = tab(src, data.get("scheme", {}), ("scheme",), ("alpha", "theta"))
    alpha = num(src, scheme, ("scheme",), "alpha", 0.0, low=-1 / 3, high=0.0)
    theta = num(src, scheme, ("scheme",), "theta", 0.55, low=0.5, high=1.0)
    output = tab(src, data.get("output", {}), ("output",), ("out", "paraview"))
    out = Path(text(src, output, ("output",), "out", str(Path("results") / src.path.stem)))
    paraview = output.get("paraview", False)
    if not isinstance(paraview, bool):
        raise src.refuse(("output", "paraview"), f"expected true or false, got {shown(paraview)}")
    try:
        problem = Problem(folder / mesh, bodies, supports, pairs, gravity, mass, thickness, point_masses)
    except (BadInput, ValueError) as err:
        raise translate(src, data, str(err)) from None
    return ProblemFile(src.path, problem, stages, steps, alpha, theta, out, paraview, data, src)


def _syntax(name: str, err: tomllib.TOMLDecodeError) -> BadInput:
    m = re.search(r"^(.*) \(at line (\d+), column (\d+)\)$", str(err))
    return BadInput(f"{name}: line {m[2]}: not valid TOML: {m[1]} (column {m[3]})" if m else
                    f"{name}: not valid TOML: {err}")


def load(path, overrides: Sequence = ()) -> ProblemFile:
    """Read the problem file ``path``, apply ``overrides`` (``(KEY.PATH, VALUE)`` pairs, or triples whose
    third item names where they came from, ``--set`` by default) and build it (:func:`build`); every
    mistake a one-line :class:`fem.ranges.BadInput` (module docstring)."""
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
    return build(src, data)
