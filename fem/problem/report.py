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


def _with_unit(value, unit) -> str:
    """A value and its unit (``0.166 rad``), '–' for none."""
    return cell(value) if value is None or not unit else f"{cell(value)} {unit}"


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
    bodies = summary.get("bodies", {})
    lines += table(["body", "max |rotation| [rad]", "overturning angle [rad]", "uplift at [s]", "overturned", "at [s]"],
                   [(k, b["max_rotation"], b["limit"], b.get("uplift_time"),
                     "no verdict (held)" if (b.get("overturn_verdict") or {}).get("verdict") == "none"
                     else overturned[b["overturned"]], b["overturned_at"]) for k, b in bodies.items()])
    lines += [f"- {k}: {b['overturn_verdict']['reason']}." for k, b in bodies.items() if b.get("overturn_verdict")]
    lines += ["", "A body is overturned when its rotation reaches its overturning angle; it did not overturn only "
              "when that is proven (the base still from the run's end on and the body's energy below the barrier "
              "to its unstable equilibrium, or nothing lifted and the rest of the motion below the uplift "
              "acceleration: fem/problem/verdicts.py); otherwise undecided. A body holding a support gets no verdict.",
              "", "## Contact pairs", ""]
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
    rows = summary.get("checks", [])
    lines += table(["check", "value", "reference", "tolerance", "error", "met", "source"],
                   [(c["quantity"], _with_unit(c["value"], c.get("unit")), c.get("reference"),
                     f"{cell(c['tolerance'], 3)} {c.get('criterion', 'absolute')}", c.get("error"),
                     c["within_tolerance"], c.get("source", "this code's rule") + (f" ({c['note']})" if c.get("note") else ""))
                    for c in rows])
    met = sum(c["within_tolerance"] is True for c in rows)
    graded = sum(c["within_tolerance"] is not None for c in rows)
    lines += [f"{met} of {graded} checks met. A relative tolerance bounds |value - reference| / |reference|, an "
              f"absolute one |value - reference|; a check the run has no value for is not met.", ""]
    lines += round_off_section(summary.get("round_off"))
    output_folder.write_text(path, "\n".join(lines))


def round_off_section(entry: dict | None) -> list[str]:
    """The round-off ensemble's section (fem.studies.round_off; none without one): per stated check the
    values of the runs, their spread and how many runs meet it."""
    if not entry:
        return []
    lines = ["## Round-off ensemble", "",
             f"The run repeated with {entry['input']} moved by -{entry['ulps']} ... +{entry['ulps']} units in the last "
             f"place: {entry['runs']} of {entry['asked']} runs ({entry['status']}). A check whose runs disagree is "
             f"decided by the rounding of the arithmetic, not by the model: "
             f"{', '.join(entry['decided_by_round_off']) or 'none here'}.", ""]
    lines += table(["check", "min", "median", "max", "spread", "met"],
                   [(r["quantity"], r["min"], r["median"], r["max"], r["spread"], f"{r['met']} of {r['graded']}")
                    for r in entry["checks"]])
    lines += [f"{len(entry['failed'])} runs failed: {'; '.join(entry['failed'])}.", ""] if entry["failed"] else []
    return lines
