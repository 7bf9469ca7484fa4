"""SDNV105 — what a run reports in words: report.md and the table printed at its end.

report.md (:func:`write_report`: the checks beside the references and Code_Aster's values, the tilt,
the impacts, the rigid-body reference, the energy balance, energy created at contact events, the
round-off ensemble) and the console summary (:func:`print_table`), both from summary.json's content.
"""
from __future__ import annotations

from pathlib import Path

from fem.io import output_folder
from fem.io.markdown import md_table
from fem.studies.round_off import decided_by_round_off
from cases.sdnv105.config import Config


def _fmt(x, digits=6):
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "**no**"
    if isinstance(x, (list, tuple)):
        return " / ".join(_fmt(v, 3) for v in x)
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:.{digits}g}"
    return f"{x:.{digits - 1}e}"


def describe_mesh(mesh: dict) -> str:
    """summary.json's ``mesh`` in words, for report.md."""
    names = {"quad4": "QUA4", "tri6": "TRIA6"}
    size = f"{mesh['nodes']} nodes, {mesh['cells']} cells, {mesh['dofs']} dofs"
    if mesh["source"] == "benchmark":
        return f"the benchmark's, `{mesh['file']}` ({size})"
    if mesh["source"] == "--mesh":
        return (f"`{mesh['file']}` (--mesh; {'the benchmark' if mesh['benchmark_mesh'] else 'not the benchmark'}'s "
                f"mesh; {size})")
    table = "on the table" if mesh["with_table"] else "without the table"
    if mesh["layout"] == "refined":
        return (f"a uniform block of {mesh['nx']} x {mesh['ny']} {names.get(mesh['element'], mesh['element'])} "
                f"{table} (--nx {mesh['nx']} --ny {mesh['ny']}: not the benchmark's mesh), generated into "
                f"`{mesh['file']}` ({size})")
    return f"the benchmark's layout for this block, generated into `{mesh['file']}` ({size})"


def _creation_lines(creation: dict | None) -> list[str]:
    """report.md's paragraph on the energy created at contact events (summary energy_creation)."""
    if not creation:
        return []
    largest = creation["largest"]
    limit = f"{100 * creation['limit']:g} % of the energy scale {creation['scale']:.4g} J ({creation['scale_is']})"
    if largest is None:
        return [f"Energy created at contact events: none ({creation['events']} events; every one took energy; "
                f"the limit is {limit}).", ""]
    return [f"Energy created at contact events: the largest, {largest['created']:.4g} J "
            f"({100 * largest['fraction']:.3g} %) given back by the contact over the event from "
            f"{largest['t_start']:.6g} s, measured at {largest['t']:.6g} s, node {largest['node']} "
            f"({creation['events']} events); {'within' if creation['passed'] else '**beyond**'} the limit of {limit}"
            f"{'' if creation['passed'] else ': the run stopped there (status failed)'}. Net over an event, "
            f"the contact and friction work can only take energy; what a position-level contact under "
            f"Code_Aster's immediate rules gives back when a node opens is measured here.", ""]


def _round_off_section(ensemble: dict | None) -> list[str]:
    """report.md's "Round-off" section (--round-off), empty without an ensemble."""
    if not ensemble:
        return []
    lines = ["", "## Round-off", "",
             f"The run repeated with the tilt angle moved by -{ensemble['ulps']} ... +{ensemble['ulps']} units in the "
             f"last place ({ensemble['runs']} runs of {ensemble['asked']}"
             f"{', interrupted' if ensemble['status'] == 'interrupted' else ''}"
             f"{'; failed: ' + '; '.join(ensemble['failed']) if ensemble['failed'] else ''}; histories in "
             f"round_off/). A check whose runs disagree on the verdict is decided by the rounding of the arithmetic, "
             f"not by the model: "
             f"{', '.join(ensemble['decided_by_round_off']) or 'none here'}.", ""]
    lines += md_table(["quantity", "window", "min", "median", "max", "spread", "runs within tol."],
                      [(r["quantity"], r["window"], _fmt(r["min"]), _fmt(r["median"]), _fmt(r["max"]),
                        _fmt(r["spread"], 2), f"{r['met']}/{r['graded']}" if r["graded"] else "–")
                       for r in ensemble["checks"]])
    return lines


def write_report(out: Path, config: Config, summary: dict) -> Path:
    """report.md: the checks as a table, ours beside the references and Code_Aster's value."""
    spec = config.spec
    lines = [f"# SDNV105{config.modeling.upper()} — {spec.description}", "",
             f"Command: `{summary['command']}` (rockfem {summary['version']}; every parameter in summary.json). "
             f"Run: {summary['run']['steps']} steps, {summary['run']['newton_iterations']} Newton iterations, "
             f"{summary['run']['subdivisions']} sub-steps, {summary['run']['wall_s']:.1f} s.", "",
             *([f"Mesh: {describe_mesh(summary['mesh'])}.", ""] if summary.get("mesh") else []),
             *([f"Steps of the release: **{summary['steps']['kind']}** ({summary['steps']['chosen_by']}): "
                f"{summary['steps']['description']}; --dt {summary['steps']['dt']:g} s, --dt-fine "
                f"{summary['steps']['dt_fine']:g} s.", ""] if summary.get("steps") else []),
             f"Status: **{summary['status']}**. Configuration: **{summary['configuration']}**.", ""]
    if summary["status"] == "interrupted":
        lines += [f"**The run was interrupted** ({summary['message']}) at t = {summary['t_reached']} s: the "
                  f"histories and ParaView series hold every step up to there; the checks below use what was "
                  f"computed and are not those of a finished run.", ""]
    elif summary.get("failure"):
        lines += [f"**The run stopped early**: {summary['failure']}", ""]
    books = summary.get("energy_check") or {}
    if books.get("passed") is False:
        lines += [f"**The run exited with code 1**: {books['message']} (see \"Energy balance of the release\").", ""]
    tilt = summary.get("tilt")
    if tilt:
        lines += [f"Tilt rule: **{tilt['rule']}** ({tilt['description']}). At the end of the tilt the block's axis "
                  f"O1-C1 has turned {tilt['rotation']:.6g} rad (asked {tilt['tilt_angle']:g}), DY(O) = "
                  f"{tilt['dy_O']:.3g} m, and the model stores {tilt['strain_energy_end']:.4g} J of strain energy "
                  f"({tilt['strain_energy_start']:.4g} J under self-weight before the tilt): "
                  f"{tilt['strain_energy_ratio']:.3g} of the rigid block's potential-energy drop "
                  f"{tilt['rigid_potential_drop']:.4g} J, {'within' if tilt['passed'] else '**above**'} the "
                  f"{100 * tilt['limit']:g} % limit.", ""]
    if summary["configuration"] == "custom":
        lines += [f"This run departs from the benchmark ({', '.join(summary['departures'])}): Code_Aster's values "
                  f"are those of the benchmark's parameters and do not apply, so the Code_Aster columns are empty. "
                  f"The references are the rigid block recomputed for this run's width, height, tilt and density "
                  f"(contact.references.rocking, exact nonlinear rocking and the document's impact law): the first impact, the "
                  f"kinetic energy before it and the friction the pivot needs"
                  f"{' (and every impact, modeling d having the rigid impact law)' if config.modeling == 'd' else ''}."
                  f" A verdict is given only where that reference applies.", ""]
    if config.modeling == "d" and summary["configuration"] == "benchmark":
        lines += ["No public Code_Aster file exists for modeling d: the table compares with modeling a's tests "
                  "and values. The theta-scheme's impact law (no rebound of the contact nodes, at the velocity "
                  "level) dissipates more per impact than a's elastic impacts; its reference is the rigid-body "
                  "rocking below (impact instants and kinetic energies).", ""]
    if summary["configuration"] == "benchmark":
        lines += ["References: `rigid` = the benchmark's rigid-body (or analytic) value, `restit.` = its value "
                  "estimated with a restitution coefficient, `Code_Aster` = the value Code_Aster computes "
                  "(VALE_CALC of the public test file). `error` is relative to the first reference; `within tol.` "
                  "applies Code_Aster's own tolerance(s) of the test file. Tangential reactions and percussions "
                  "are given with Code_Aster's sign (force of the block on the table); the histories hold the "
                  "force of the table on the block.", ""]
    checks = []
    for c in summary.get("checks", []):
        verdict = _fmt(c["within_tolerance"]) if c["within_tolerance"] is not None else "–"
        note = f" ({c['note']})" if c.get("note") else ""
        checks.append((c["quantity"], c["window"], _fmt(c["value"]), _fmt(c["reference_rigid"]),
                       _fmt(c["reference_restitution"]), _fmt(c["code_aster"]), _fmt(c["rel_error"], 3),
                       _fmt(c["rel_error_code_aster"], 3), f"{_fmt(c['tolerance'])} {c['criterion'][:3].lower()}",
                       f"{verdict}{note}"))
    lines += md_table(["quantity", "window", "this code", "rigid", "restit.", "Code_Aster", "error",
                       "error vs Code_Aster", "tolerance", "within tol."], checks)
    lines += _run_checks_section(summary.get("run_checks"))
    lines += _round_off_section(summary.get("round_off"))
    lines += ["", "## Impacts", ""]
    lines += md_table(["time [s]", "corner", "KE before [J]", "KE after [J]"],
                      [(f"{i['time']:.6f}", i["corner"], f"{i['ke_before']:.4f}", f"{i['ke_after']:.4f}")
                       for i in summary.get("impacts", [])])
    rigid = summary.get("rigid_body")
    if rigid:
        lines += ["", "## Rigid-body reference (event-driven, this geometry)", ""]
        lines += md_table(["impact", "time [s]", "KE before [J]", "KE after [J]"],
                          [(k + 1, f"{t:.6f}", f"{kb:.4f}", f"{ka:.4f}") for k, (t, kb, ka) in
                           enumerate(zip(rigid["impact_times"], rigid["ke_before"], rigid["ke_after"]))])
    e = summary.get("energy")
    if not e:  # stopped before the release
        output_folder.write_text(out / "report.md", "\n".join(lines))
        return out / "report.md"
    verdict = ("not graded (no potential-energy drop)" if books.get("passed") is None else
               f"{'within' if books['passed'] else '**beyond**'} the limit of {100 * books['limit']:g} % of the drop"
               f"{'' if books['passed'] else ': the run exits with code 1'}")
    lines += ["", "## Energy balance of the release", "",
              f"Energy books: {verdict}.", "",
              f"Potential-energy drop to the first impact {e['potential_drop']:.4f} J; largest balance error "
              f"{e['max_abs_error']:.4g} J ({100 * (e['relative_error'] or 0):.3g} % of the drop); dissipated by "
              f"Rayleigh damping {e['damping_dissipated']:.4g} J; taken by the normal contact {e['contact_work']:.4g} J "
              f"(negative: given back, the position-level Lagrange contact of A and C creates energy when a contact "
              f"opens) and by friction {e['friction_work']:.4g} J; "
              f"removed by the time scheme itself, from its own energy identity (HHT alpha < 0 in the impact "
              f"windows, theta > 1/2) "
              f"{e['numerical_dissipation']:.4g} J, i.e. without it the physical terms would miss "
              f"{100 * (e['relative_error_physical'] or 0):.3g} % of the drop.",
              "", *_creation_lines(summary.get("energy_creation"))]
    path = out / "report.md"
    output_folder.write_text(path, "\n".join(lines))
    return path


def _run_checks_section(rows) -> list[str]:
    """report.md's table of the checks every run makes (each pair's penetration and reaction alternation)."""
    if not rows:
        return []
    return (["", "Checks every run makes (docs/problem.md, \"The checks every run makes\"):", ""]
            + md_table(["check", "value", "bound", "met"],
                       [(c["quantity"], _fmt(c["value"]), _fmt(c["tolerance"]),
                         "–" if c["within_tolerance"] is None else _fmt(c["within_tolerance"])
                         + (f" ({c['note']})" if c.get("note") else "")) for c in rows]))


def print_table(summary: dict) -> None:
    """The run's summary printed at its end: the run, the tilt, the checks, the impacts, the round-off
    ensemble, the steps, the largest energy created at a contact event, the energy balance."""
    run_ = summary["run"]
    print(f"SDNV105{summary['modeling'].upper()} ({summary['configuration']} configuration"
          f"{'' if summary['status'] == 'complete' else ', ' + summary['status']}): {run_['steps']} steps, "
          f"{run_['newton_iterations']} Newton iterations, {run_['subdivisions']} sub-steps, {run_['wall_s']:.1f} s")
    tilt = summary.get("tilt")
    if tilt:
        print(f"tilt ({tilt['rule']} rule): block axis turned {tilt['rotation']:.6g} rad, strain energy at its end "
              f"{tilt['strain_energy_end']:.4g} J = {tilt['strain_energy_ratio']:.3g} of the rigid potential drop "
              f"{tilt['rigid_potential_drop']:.4g} J")
    checks = summary.get("checks") or []
    if checks:
        print(f"{'quantity':18s} {'window':16s} {'this code':>12s} {'reference':>12s} {'Code_Aster':>12s} "
              f"{'err':>8s} {'ok':>3s}")
        num = lambda x: f"{'-':>12s}" if x is None else f"{x:12.5g}"  # noqa: E731
        for c in checks:
            ok = {True: "yes", False: "NO", None: "-"}[c["within_tolerance"]]
            err = "-" if c["rel_error"] is None else f"{c['rel_error']:.2e}"
            print(f"{c['quantity']:18s} {c['window']:16s} {num(c['value'])} {num(c['reference_rigid'])} "
                  f"{num(c['code_aster'])} {err:>8s} {ok:>3s}")
        if summary["configuration"] == "custom":
            print(f"custom configuration ({', '.join(summary['departures'])}): references are the rigid block "
                  f"for this run's parameters; Code_Aster's values apply to the benchmark only")
    for c in summary.get("run_checks") or []:
        ok = {True: "yes", False: "NO", None: "-"}[c["within_tolerance"]]
        print(f"{c['quantity']}: {_fmt(c['value'])} (bound {_fmt(c['tolerance'])}) {ok}")
    for imp in summary.get("impacts", []):
        print(f"impact at {imp['time']:.5f} s on {imp['corner']}: KE {imp['ke_before']:.4f} -> {imp['ke_after']:.4f} J")
    ensemble = summary.get("round_off")
    if ensemble:
        decided = ", ".join(f"{r['quantity']} ({r['window']}) met in {r['met']}/{r['graded']}"
                            for r in decided_by_round_off(ensemble["checks"])) or "none"
        print(f"round-off ({ensemble['runs']} runs, tilt +-{ensemble['ulps']} ulps, {ensemble['status']}): "
              f"checks decided by round-off: {decided}")
    steps, created = summary.get("steps"), summary.get("energy_creation")
    if steps:
        print(f"steps: {steps['kind']} ({steps['chosen_by']})")
    if created and created["largest"] and created["largest"]["fraction"] > 1e-9:
        c = created["largest"]
        print(f"largest energy created at a contact event: {c['created']:.4g} J ({100 * c['fraction']:.3g} % of "
              f"{created['scale']:.4g} J, limit {100 * created['limit']:g} %) at {c['t']:.6g} s, node {c['node']}")
    if summary.get("energy"):
        e = summary["energy"]
        print(f"energy balance error {e['max_abs_error']:.3g} J = {100 * (e['relative_error'] or 0):.2f} % of the "
              f"potential drop {e['potential_drop']:.4f} J (damping {e['damping_dissipated']:.3f} J, contact "
              f"{e['contact_work']:.3f} J, friction {e['friction_work']:.3f} J, time scheme "
              f"{e['numerical_dissipation']:.3f} J)")
