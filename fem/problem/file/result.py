"""A problem file built (:class:`ProblemFile`) and the library's refusals in the file's terms
(:func:`translate`: ``bodies.BRICK_1.group: ...`` -> ``stack.toml: line 9: bodies[0].group: ...``).
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from fem.problem.file.keys import keys
from fem.problem.file.syntax import Source
from fem.problem import (BaseMotion, Check, Collapse, EnergyCreation, ImposedMotion, Preload, Problem, Release, SelfWeight, Tilt,
                         assemble)
from fem.problem.physics import stage_end
from fem.problem.simulate import Settings
from fem.ranges import BadInput
from fem.run.lifecycle import Estimate, count_steps, estimate

#: the keys of a problem file's top level
TOP = keys("(top level)")
#: the stage of each ``kind`` of [[stages]] (its class's ``name``: the default label of an unnamed one)
STAGE_KINDS = {"preload": Preload, "self_weight": SelfWeight, "base_motion": BaseMotion, "tilt": Tilt,
               "imposed_motion": ImposedMotion, "release": Release}


@dataclass(frozen=True)
class ProblemFile:
    """A problem file read and built: the :class:`fem.problem.Problem`, its stages and steps (one spec, or a
    mapping from stage names to specs), the scheme (``alpha``, ``theta``, ``alpha_fine``: the fine event-driven
    steps' alpha, None: alpha), the output folder ``out``, ``paraview`` and the series' format
    ``output_format`` ("xdmf" or "pvd"), and ``data``, the parsed TOML with the overrides applied (JSON-able:
    what a run records as its parameters)."""

    path: Path
    problem: Problem
    stages: tuple
    steps: object
    alpha: float
    theta: float
    alpha_fine: float | None
    out: Path
    paraview: bool
    data: dict
    source: Source = field(repr=False, compare=False)
    output_format: str = "xdmf"
    checks: tuple = ()  # fem.problem.checks.Check s of its [[checks]]
    energy_creation: EnergyCreation | None = None  # its [energy_creation]
    collapse: Collapse | None = None  # its [collapse]

    def estimate(self, mesh) -> Estimate:
        """:func:`fem.run.lifecycle.estimate` of its run on ``mesh`` (a :class:`fem.mesh.mesh.Mesh`): the bodies'
        cells, the preloads' static steps and the steps of every dynamic stage, from its start (its own, or
        where the stage before ended) to its end, of its steps spec's dt (a Windows spec: each window's dt
        over its part of the stage). An event-driven run takes at least these, and finer ones near impacts."""
        blocks = [mesh.cell_groups[b.group] for b in self.problem.bodies if b.group in mesh.cell_groups]
        cells = sum(len(b) for b in blocks)
        per_cell = max((b.connectivity.shape[1] for b in blocks), default=4)
        settings, t, steps = Settings(steps=self.steps), 0.0, 0.0
        for s in self.stages:
            if isinstance(s, Preload):
                t, steps = 0.0, steps + s.steps
                continue
            start = t if getattr(s, "start", None) is None else s.start
            t = stage_end(s, start)
            spec = settings.steps_for(s.name)
            rows = getattr(spec, "rows", None) or [(start, t, spec.dt)]
            steps += count_steps([(max(r[0], start), min(r[1], t), r[2]) for r in rows])
        return estimate(len(mesh.points), cells, per_cell, steps)

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


def labels(data: dict, section: str) -> list[str]:
    """The label of each entry of a list as the library names it (Body.label, Pair.label, ...)."""
    entries = data.get(section) if isinstance(data.get(section), list) else []
    label = {"bodies": lambda e: e.get("name") or e.get("group"), "supports": lambda e: e.get("group"),
             "pairs": lambda e: e.get("name") or f"{e.get('slave')}/{e.get('master', _other(e))}",
             "springs": lambda e: e.get("name") or (e.get("group") if e.get("other") is None
                                                    else f"{e.get('group')}-{e.get('other')}"),
             "stages": lambda e: e.get("name") or STAGE_KINDS.get(e.get("kind"), BaseMotion).name,
             "checks": _check_label}
    return [str(label[section](e if isinstance(e, dict) else {})) for e in entries]


def _check_label(entry: dict) -> str:
    """A [[checks]] entry's label as fem.problem.checks.Check names it (its name, or one made of its fields)."""
    if entry.get("name"):
        return str(entry["name"])
    fields = {k: (tuple(v) if k == "window" else v) for k, v in entry.items() if k in Check.__dataclass_fields__}
    try:
        return Check(**fields).label
    except (BadInput, TypeError):
        return ""


def _other(pair: dict) -> str:
    """A pair's master as the library labels it without a master group: its biplane's other group, or plane."""
    biplane = pair.get("biplane")
    return biplane.get("other", "plane") if isinstance(biplane, dict) else "plane"


def _in_file(data: dict, path: tuple) -> tuple:
    """``path`` as the file states it: a pair's master given as ``biplane = { other = ... }``."""
    if len(path) == 3 and path[0] == "pairs" and path[2] == "master" and "master" not in data["pairs"][path[1]] \
            and isinstance(data["pairs"][path[1]].get("biplane"), dict):
        return "pairs", path[1], "biplane", "other"
    return path


def _library_path(data: dict, head: str) -> tuple | None:
    """The file's path of a key as the library names it (``bodies.BRICK_1.group``, ``stages[1]``, ``mesh``)."""
    for section in ("bodies", "pairs", "supports", "springs", "stages", "checks"):
        if head == section:
            return (section,)
        m = re.fullmatch(rf"{section}\[(\d+)\](?:\.(.+))?", head)
        if m:
            return (section, int(m.group(1)), *(m.group(2).split(".") if m.group(2) else ()))
        if head.startswith(section + "."):
            rest = head[len(section) + 1:]
            for i, label in enumerate(labels(data, section)):
                if rest == label:
                    return (section, i, "group") if section == "supports" else (section, i)
                if rest.startswith(label + "."):
                    return _in_file(data, (section, i, *rest[len(label) + 1:].split(".")))
    if head.startswith("point_masses."):
        return ("point_masses", head.split(".", 1)[1])
    if head.startswith("node_groups."):
        return ("node_groups", head.split(".", 1)[1])
    if head in ("alpha", "theta", "alpha_fine"):
        return ("scheme", head)
    if m := re.fullmatch(r"steps\['(.+)'\]", head):  # simulate's Settings: steps['STAGE']
        return ("steps", m.group(1))
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
