"""report.md of a simulation: what was run, what happened to each body and pair, the impacts, the
energy books and the checks, in Markdown tables whose cells are escaped (a '|' in a label stays text)."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Mapping, Sequence

from fem.io import output_folder
from fem.io.markdown import md_cell, md_table

#: impacts listed in the report (all of them are in summary.json)
LISTED_IMPACTS = 30


def cell(x, digits: int = 6) -> str:
    """A table cell: numbers to ``digits`` significant digits, None as '–', '|' escaped."""
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return md_cell(x)


def table(header: Sequence[str], rows: Sequence[Sequence]) -> list[str]:
    """A Markdown table (fem.io.markdown), every cell through :func:`cell`, and an empty line."""
    return md_table([cell(h) for h in header], [[cell(x) for x in row] for row in rows]) + [""]


def _stage_line(stage) -> str:
    """One line of the stages' list: what the stage does and until when."""
    kind = type(stage).__name__
    own = "" if getattr(stage, "friction", None) is None else f", friction {stage.friction:g}"
    own += "" if getattr(stage, "gravity", None) is None else f", gravity ({stage.gravity[0]:g}, {stage.gravity[1]:g})"
    if kind == "Preload":
        return f"{stage.name}: gravity ramped in {stage.steps} static steps{own}"
    if kind == "BaseMotion":
        moving = ", ".join(f"{c}: {type(h).__name__}" for c, h in stage.components()) or "still base"
        return f"{stage.name}: {stage.duration:g} s, {moving}{own}"
    if kind == "SelfWeight":
        return f"{stage.name}: gravity ramped from {stage.start:g} to {stage.ramp_end:g} s, held to {stage.end:g} s{own}"
    if kind == "Tilt":
        what = f"{', '.join(stage.nodes)} turned by {stage.angle:g} rad about {stage.pivot}"
    elif kind == "ImposedMotion":
        what = f"{len(stage.motions)} imposed displacement(s)"
    else:
        launched = dict(getattr(stage, "velocity", {}) or {})
        what = ("let go, " + ", ".join(f"{g} at ({v[0]:g}, {v[1]:g}) m/s" for g, v in launched.items())
                + " (the rest at rest)") if launched else "let go at rest"
        if getattr(stage, "acceleration", "equilibrium") == "zero":
            what += " with zero acceleration"
    start = "" if getattr(stage, "start", None) is None else f" from {stage.start:g} s"
    return f"{stage.name}: {what}{start} to {stage.end:g} s{own}"


def steps_text(steps) -> str:
    """The steps as the report states them: a spec's kind and fields, or each stage's."""
    if isinstance(steps, Mapping):
        return "; ".join(f"{name}: {steps_text(spec)}" for name, spec in steps.items())
    fields = ", ".join(f"{f.name} {getattr(steps, f.name)}" for f in dataclasses.fields(steps)) \
        if dataclasses.is_dataclass(steps) else repr(steps)
    return f"{type(steps).__name__} ({fields})"


def write_report(path: Path, summary: dict, stages, steps) -> None:
    """Write ``report.md`` from the run's (final) summary."""
    overturned = {True: "yes", False: "no", None: "undecided"}
    lines = [f"# {summary.get('case', 'problem')}: {summary['status']}", ""]
    if summary.get("message"):
        lines += [f"Stopped: {cell(summary['message'])}", ""]
    lines += [f"Reached t = {cell(summary.get('t_reached'))} s. Steps: {cell(steps_text(steps))}.", "",
              "## Stages", ""]
    lines += [f"- {_stage_line(s)}" for s in stages] + [""]
    lines += ["## Bodies", ""]
    lines += table(["body", "max |rotation| [rad]", "overturning angle [rad]", "overturned", "at [s]"],
                   [(k, b["max_rotation"], b["limit"], overturned[b["overturned"]], b["overturned_at"])
                    for k, b in summary.get("bodies", {}).items()])
    lines += ["A body is overturned when its rotation reaches its overturning angle; it did not overturn when "
              "the run completed and it never rotated past a quarter of that angle; otherwise the run has not "
              "decided (undecided).", "", "## Contact pairs", ""]
    lines += table(["pair", "largest gap [m]", "impacts"],
                   [(k, p["max_gap"], p["impacts"]) for k, p in summary.get("pairs", {}).items()])
    impacts = summary.get("impacts", [])
    lines += ["## Impacts", ""]
    if impacts:
        lines += table(["time [s]", "pair", "nodes landing", "lift before [m]"],
                       [(i["time"], i["pair"], i["nodes"], i["lift"]) for i in impacts[:LISTED_IMPACTS]])
        if len(impacts) > LISTED_IMPACTS:
            lines += [f"... and {len(impacts) - LISTED_IMPACTS} more (summary.json).", ""]
    else:
        lines += ["None (a node closing after it lifted by more than 1e-6 m).", ""]
    energy = summary.get("energy") or {}
    if energy:
        lines += ["## Energy books (the last dynamic stage)", ""]
        lines += table(["term", "value [J]"], [(k, v) for k, v in energy.items() if k != "relative_error"])
        lines += [f"Largest error of the books over the input: {cell(energy['relative_error'], 3)}.", ""]
    lines += ["## Checks", ""]
    lines += table(["quantity", "value", "tolerance", "met"],
                   [(c["quantity"], c["value"], c["tolerance"], c["within_tolerance"]) for c in summary.get("checks", [])])
    output_folder.write_text(path, "\n".join(lines))
