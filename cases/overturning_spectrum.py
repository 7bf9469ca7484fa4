"""Overturning spectrum: a block under one-sine table pulses, FE runs beside the rigid block, as a map.

    python cases/overturning_spectrum.py                        # the rigid map and 16 FE points
    python cases/overturning_spectrum.py --model rigid --frequency-ratios 0.5:6:12 --amplitude-ratios 1:8:15
    python cases/overturning_spectrum.py --scheduler tcp://HOST:8786 --out /shared/spectrum -- --dt 5e-4

The table's acceleration is one full sine, a_p sin(omega_p t) for 0 <= t <= 2 pi / omega_p
(Zhang and Makris 2001, "Rocking response of free-standing blocks under cycloidal pulses", J. Eng.
Mech. 127; docs/references.md, "A rigid block rocking on a moving base"). The grid is in their coordinates:
``--frequency-ratios`` omega_p / p (p = sqrt(3 g / (4 R)), R the half diagonal) and
``--amplitude-ratios`` a_p / (g tan alpha) (tan alpha = width / height: the block lifts above 1);
each as ``v1,v2,...`` or ``start:stop:count``. Every point falls in one of three modes: the block
survives, overturns after impacts, or overturns without impact.

* **Rigid** (contact.references.overturning, fast, in this process): the exact rigid rocking (no sliding,
  Housner's impacts), decided for good (after the pulse the block's energy tells whether it can
  still overturn); its boundaries between modes are located by bisection at each grid frequency
  (to 1e-3 in amplitude ratio) and on ``--map-frequencies`` frequencies over the map (the curves
  drawn). A check: the rigid grid's modes are those its own boundaries imply.
* **FE** (``--model both``, the default): cases/shaking_table.py at every point (modeling a,
  redistributed mass, ``--excitation sine-pulse`` with ``--frequency-hz`` and ``--amplitude-g`` from
  the ratios, ``--width``, ``--height``, ``--mu``, ``--dt``, ``--no-paraview``), each its own process
  on a Dask worker (fem.studies.sweep, as cases/sweep.py: a LocalCluster, ``--workers``, or ``--scheduler
  tcp://HOST:PORT``; ``--time-limit`` a point; a rerun completes only the missing points). A point
  runs to the rigid block's overturning time + 0.5 s, or the pulse's end + 1 s for a rigid survivor.
  Its mode: overturned (|theta| >= 2 alpha) after at least one impact of a base corner, without one,
  or not. The flags after ``--`` go to every FE point (``--dt-fine``, ``--alpha``, ``--mesh`` ...).
  A check per point where the rigid block's friction demand (max |R_T| / R_N) is below ``--mu``:
  the FE mode is the rigid one. Where it is not, the rigid reference does not apply (sliding).

Outputs in --out (default results/overturning_spectrum): ``spectrum.csv`` (a row a point: ratios,
frequency [Hz], amplitude [g], end time, rigid mode, impacts, overturn time, max rotation, friction
demand, whether it is compared; FE status, mode, impacts, overturn time, max rotation, slid, agree,
folder), ``boundaries.csv`` (the rigid boundaries at the grid's and the map's frequencies),
``spectrum.png`` (the map: rigid and FE side by side, the rigid boundaries drawn on both),
``report.md``, ``summary.json`` (fem.run.lifecycle), ``fe/`` (the FE sweep: results.csv, points/<name>/ with
each run's files). Exit codes as every case (fem.run.lifecycle); 1 if an FE point did not complete.
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cases.studies.spectrum_report import plot
from fem.constants import GRAVITY
from contact.references import overturning as ov  # noqa: E402
from contact.references.rocking import RigidBlock  # noqa: E402
from fem.io import output_folder  # noqa: E402
from fem.io.markdown import md_table  # noqa: E402
from fem.studies import sweep  # noqa: E402
from fem.time.interrupt import Interrupted  # noqa: E402
from fem import ranges  # noqa: E402
from fem.run.lifecycle import (EXIT_FAILED, BadInput, CaseParser, Run, add_run_flags, check_resources,  # noqa: E402
                     command_line, execute, finite, prepare_output, require_all)

G = GRAVITY  # [m/s^2], fem.constants
CASE = Path(__file__).resolve().parent / "shaking_table.py"
#: flags of shaking_table.py the study sets itself
RESERVED = ("excitation", "frequency-hz", "amplitude-g", "t-end", "width", "height", "mu", "dt", "no-paraview",
            "out", "quiet", "blocks", "cycles", "direction", "record", "help")
#: an FE run that ended before its outcome was decided: no mode, no verdict on its comparison
UNDECIDED = "undecided"
SHORT_NAMES = {ov.SURVIVE: "S", ov.OVERTURN_AFTER_IMPACTS: "A", ov.OVERTURN_WITHOUT_IMPACT: "W", UNDECIDED: "?"}
AFTER_OVERTURN = 0.5  # s an FE point runs past the rigid block's overturning
AFTER_PULSE = 2.0  # s an FE point runs past the pulse when the rigid block survives: long enough for an impact
# after its highest swing to decide it (with 1 s, (4, 3) ended at 0.998 of the barrier, undecided)
BOUNDARY_TOL = 1e-3  # bisection of the boundaries, in amplitude ratio
#: an FE point this close to a rigid boundary (a fraction of the boundary's amplitude ratio) gets no verdict:
#: the FE block is elastic and damped, its impacts are not Housner's, so its own boundary need not sit on
#: the rigid one. Measured: at omega_p/p = 4 the rigid boundary is 3.058 and at 3.0 (1.9 % below it) the FE
#: block overturns after its impacts at dt 1e-3, 5e-4 and 2.5e-4 s alike (HHT -0.1 / -0.2)
NEAR_BOUNDARY = 0.05
BOUNDARY_SCAN = 30  # amplitude ratios scanned at a frequency before the bisections


@dataclass(frozen=True)
class Config:
    model: str = "both"
    frequency_ratios: tuple = (1.0, 2.0, 3.0, 4.0)
    amplitude_ratios: tuple = (1.3, 2.0, 3.0, 4.5)
    map_frequencies: int = 24
    width: float = 0.36
    height: float = 0.80
    mu: float = 0.9
    dt: float = 1e-3
    fixed: tuple = ()
    out: Path = Path("results/overturning_spectrum")

    @property
    def block(self) -> RigidBlock:
        return RigidBlock(self.width / 2, self.height / 2, g=G)

    def frequency_hz(self, ratio: float) -> float:
        """f = omega_p / (2 pi) = ratio p / (2 pi) [Hz]."""
        return ratio * self.block.p / (2 * math.pi)

    def amplitude_g(self, ratio: float) -> float:
        """a_p / g = ratio tan(alpha) [-]."""
        return ratio * self.width / self.height


def _ratios(flag: str, text: str, limit: int | None = None) -> tuple:
    try:  # (more than limit values refused before any is made)
        numbers = tuple(float(v) for v in sweep.parse_values(text, f"{flag} {text}", limit))
    except sweep.TooManyPoints:
        raise
    except (BadInput, ValueError):
        raise BadInput(f"{flag} {text}: expected v1,v2,... or start:stop:count of distinct numbers") from None
    if not all(math.isfinite(v) and v > 0 for v in numbers):
        raise BadInput(f"{flag} {text}: every ratio must be a finite number > 0")
    return tuple(sorted(numbers))


def parse_args(argv):
    argv, fixed = sweep.split_fixed(sys.argv[1:] if argv is None else argv)
    d = Config()
    p = CaseParser(prog="overturning_spectrum.py", description=__doc__.split("\n\n")[0],
                   epilog="Flags after -- are given to every FE point (cases/shaking_table.py).")
    p.add_argument("--model", choices=("rigid", "both"), default=d.model,
                   help="rigid: the rigid block alone (fast); both: and the FE runs (default)")
    p.add_argument("--frequency-ratios", default="1,2,3,4", help="omega_p / p: v1,v2,... or start:stop:count")
    p.add_argument("--amplitude-ratios", default="1.3,2,3,4.5",
                   help="a_p / (g tan alpha): v1,v2,... or start:stop:count")
    p.add_argument("--map-frequencies", type=int, default=d.map_frequencies,
                   help="frequencies at which the rigid boundaries are drawn across the map (0: none)")
    p.add_argument("--width", type=finite, default=d.width, help="block width 2b [m]")
    p.add_argument("--height", type=finite, default=d.height, help="block height 2l [m]")
    p.add_argument("--mu", type=finite, default=d.mu, help="Coulomb coefficient block-table of the FE runs")
    p.add_argument("--dt", type=finite, default=d.dt, help="largest time step of the FE runs [s]")
    p.add_argument("--out", type=Path, default=d.out, help="output folder")
    sweep.add_cluster_flags(p)
    add_run_flags(p)
    a = p.parse_args(argv)
    limit = sweep.point_limit(a.force)
    config = Config(model=a.model, frequency_ratios=_ratios("--frequency-ratios", a.frequency_ratios, limit),
                    amplitude_ratios=_ratios("--amplitude-ratios", a.amplitude_ratios, limit),
                    map_frequencies=a.map_frequencies, width=a.width, height=a.height, mu=a.mu, dt=a.dt,
                    fixed=tuple(fixed), out=a.out)
    require_all([
        (a.width > 0, f"--width must be > 0 m, got {a.width:g}"),
        (a.height > 0, f"--height must be > 0 m, got {a.height:g}"),
        (a.width in ranges.BLOCK_SIZE, ranges.BLOCK_SIZE.refusal("--width", a.width)),
        (a.height in ranges.BLOCK_SIZE, ranges.BLOCK_SIZE.refusal("--height", a.height)),
        (a.height <= 0 or a.width / a.height < math.sqrt(2), "--width / --height must be below sqrt(2): a squatter block has no "
                                            "rocking impacts (Housner's e = 1 - 3/2 sin^2 alpha <= 0)"),
        (a.mu >= 0, f"--mu must be >= 0, got {a.mu:g}"),
        (a.dt > 0, f"--dt must be > 0 s, got {a.dt:g}"),
        (0 <= a.map_frequencies <= 400, f"--map-frequencies must be in [0, 400], got {a.map_frequencies}"),
        (a.model == "both" or not fixed, "flags after -- go to the FE runs: not with --model rigid"),
    ])
    check_ranges(config, a)
    return config, a


def check_ranges(cfg: Config, a) -> None:
    """Every number against its physical range (fem.ranges): the block, the friction, the time
    limit, and the pulses the grid asks for (frequency ratio x p / 2 pi within fem.ranges.FREQUENCY,
    amplitude ratio x tan(alpha) within fem.ranges.TABLE_ACCELERATION, as cases/shaking_table.py
    would refuse them); --dt against the block's rocking time scale 1/p and the shortest pulse."""
    r = ranges
    r.check_all([("--width", cfg.width, r.BLOCK_SIZE), ("--height", cfg.height, r.BLOCK_SIZE),
                 ("--mu", cfg.mu, r.FRICTION),
                 ("--time-limit", a.time_limit if a.time_limit > 0 else None, r.WALL_TIME),  # <= 0: fem.studies.sweep's
                 ("--workers", a.workers if a.workers is not None and a.workers >= 1 else None, r.WORKERS)])
    p = cfg.block.p
    for ratio in (min(cfg.frequency_ratios), max(cfg.frequency_ratios)):
        f = cfg.frequency_hz(ratio)
        if f not in r.FREQUENCY:
            raise BadInput(f"--frequency-ratios {r.number(ratio)}: the pulse's frequency ratio x p / (2 pi) = "
                           f"{f:.4g} Hz (p = {p:.4g} rad/s of --width, --height) is outside the physical range "
                           f"{r.FREQUENCY.interval()} of a {r.FREQUENCY.name}")
    ratio = max(cfg.amplitude_ratios)
    peak = cfg.amplitude_g(ratio)
    if peak not in r.TABLE_ACCELERATION:
        raise BadInput(f"--amplitude-ratios {r.number(ratio)}: the pulse's peak ratio x --width / --height = "
                       f"{peak:.4g} g is outside the physical range {r.TABLE_ACCELERATION.interval()} of a "
                       f"{r.TABLE_ACCELERATION.name}: {r.TABLE_ACCELERATION.why}")
    r.check_step("--dt", cfg.dt, None, scales=[
        ("the block's rocking time scale 1/p = sqrt(4R / 3g)", 1.0 / p, "--width, --height"),
        ("the shortest pulse, 2 pi / (ratio p)", 2 * math.pi / (max(cfg.frequency_ratios) * p),
         "--frequency-ratios, --width, --height")])


def check_fe_flags(cfg: Config) -> None:
    """The FE points' command line (the flags after -- included) through cases/shaking_table.py's own
    parser and validation, in this process, for the grid's highest frequency and amplitude (the
    shortest pulse, the largest acceleration): a value it would refuse is refused here, before
    anything runs, naming the flag."""
    from cases import shaking_table

    fr, ar = max(cfg.frequency_ratios), max(cfg.amplitude_ratios)
    point = ["--frequency-hz", repr(cfg.frequency_hz(fr)), "--amplitude-g", repr(cfg.amplitude_g(ar)),
             "--t-end", repr(2 * math.pi / (fr * cfg.block.p) + AFTER_PULSE)]
    try:
        config, _ = shaking_table.parse_args([*point, *fe_task(cfg, 1.0, False).fixed])
        config.validate()
        config = config.resolved(config.history())
        config.validate()
    except BadInput as err:
        raise BadInput(f"{err} (an FE point's flags, given to cases/shaking_table.py)") from None


# ----------------------------------------------------------------------------------- rigid
@dataclass(frozen=True)
class GridPoint:
    """A point of the grid and the rigid block's decided response there. ``t_end``: how long its FE
    run goes [s], the rigid overturning time + AFTER_OVERTURN, or the pulse's end + AFTER_PULSE."""

    index: int
    frequency_ratio: float
    amplitude_ratio: float
    rigid: ov.PulseResponse
    t_end: float


def rigid_grid(cfg: Config) -> list[GridPoint]:
    """The rigid block's decided response at every grid point, amplitude-major (the last axis,
    frequency, fastest)."""
    b, l, p = cfg.width / 2, cfg.height / 2, cfg.block.p
    points = []
    for ar in cfg.amplitude_ratios:
        for fr in cfg.frequency_ratios:
            r = ov.pulse_response(b, l, fr, ar, g=G)
            t_end = (r.overturn_time + AFTER_OVERTURN if r.overturn_time is not None
                     else 2 * math.pi / (fr * p) + AFTER_PULSE)
            points.append(GridPoint(len(points), fr, ar, r, t_end))
    return points


def rigid_boundaries(cfg: Config, frequencies) -> dict:
    """{frequency ratio: boundaries} over amplitude ratios 1 to 1.15 x the grid's largest."""
    b, l = cfg.width / 2, cfg.height / 2
    top = max(1.15 * max(cfg.amplitude_ratios), 1.5)
    return {fr: ov.boundaries(b, l, fr, (1.0, top), scan=BOUNDARY_SCAN, tol=BOUNDARY_TOL, g=G) for fr in frequencies}


def map_frequencies(cfg: Config) -> np.ndarray:
    lo, hi = map_range(cfg)[0]
    return np.linspace(max(lo, 0.05), hi, cfg.map_frequencies)


def map_range(cfg: Config):
    f, a = cfg.frequency_ratios, cfg.amplitude_ratios
    return (0.8 * min(f), 1.1 * max(f)), (0.0, 1.15 * max(max(a), 1.3))


# ----------------------------------------------------------------------------------- FE
def fe_points(cfg: Config, grid: list[GridPoint]) -> list[sweep.Point]:
    return [sweep.Point(g.index, (("frequency-hz", f"{cfg.frequency_hz(g.frequency_ratio):.10g}"),
                                  ("amplitude-g", f"{cfg.amplitude_g(g.amplitude_ratio):.10g}"),
                                  ("t-end", f"{g.t_end:.6g}")))
            for g in grid]


def fe_task(cfg: Config, time_limit: float, force: bool) -> sweep.CaseCommand:
    fixed = ["--excitation", "sine-pulse", "--width", repr(cfg.width), "--height", repr(cfg.height),
             "--mu", repr(cfg.mu), "--dt", repr(cfg.dt), "--no-paraview", *cfg.fixed]
    return sweep.CaseCommand(str(CASE), tuple([*fixed, "--force"] if force else fixed), time_limit)


def fe_mode(row: dict) -> str | None:
    """The mode of an FE row (None unless complete; ``UNDECIDED`` when the run ended before its
    outcome was decided: the shaking table's ``overturned`` is null then)."""
    if row.get("status") != "complete":
        return None
    if row.get("overturned") is None:
        return UNDECIDED
    if not row.get("overturned"):
        return ov.SURVIVE
    return ov.OVERTURN_AFTER_IMPACTS if (row.get("impacts") or 0) > 0 else ov.OVERTURN_WITHOUT_IMPACT


def fe_rows(folder: Path, task: sweep.CaseCommand, points: list[sweep.Point]) -> dict:
    """{point index: its FE row}, from the records this study's task made (a record of other flags,
    left by an earlier study in the folder, is not this point's)."""
    rows = {}
    for point in points:
        record = sweep.current_record(task, point, folder / "points" / point.name)
        if record is not None:
            rows[point.index] = {"status": record.get("status"), "message": record.get("message"),
                                 "folder": str(folder / "points" / point.name), **(record.get("figures") or {})}
    return rows


# ----------------------------------------------------------------------------------- results
def table(cfg: Config, grid: list[GridPoint], fe: dict | None) -> list[dict]:
    """spectrum.csv's rows."""
    out = []
    for g in grid:
        r = g.rigid
        row = {"frequency_ratio": g.frequency_ratio, "amplitude_ratio": g.amplitude_ratio,
               "frequency_hz": cfg.frequency_hz(g.frequency_ratio), "amplitude_g": cfg.amplitude_g(g.amplitude_ratio),
               "t_end": g.t_end, "rigid_mode": r.mode, "rigid_impacts": r.impacts,
               "rigid_overturn_time": r.overturn_time, "rigid_max_rotation": r.max_rotation,
               "rigid_friction_demand": r.max_friction_ratio, "compared": bool(r.max_friction_ratio < cfg.mu)}
        if fe is not None:
            f = fe.get(g.index, {})
            mode = fe_mode(f)
            row.update({"fe_status": f.get("status", "not run"), "fe_message": f.get("message"), "fe_mode": mode,
                        "fe_impacts": f.get("impacts"), "fe_overturn_time": f.get("overturn_time"),
                        "fe_max_rotation": f.get("max_rotation"), "fe_slid": f.get("slid"),
                        "agree": None if mode in (None, UNDECIDED) else mode == r.mode, "fe_folder": f.get("folder")})
        out.append(row)
    return out


def checks(grid: list[GridPoint], bounds: dict, rows: list[dict], fe: bool) -> list[dict]:
    """The rigid grid against its own boundaries; per compared point, the FE mode against the rigid."""
    implied = [ov.mode_between(bounds[g.frequency_ratio], g.amplitude_ratio, BOUNDARY_TOL) for g in grid]
    off = [g for g, mode in zip(grid, implied) if mode not in (None, g.rigid.mode)]
    on_boundary = implied.count(None)
    out = [{"quantity": "rigid grid points whose mode is not the one its boundaries imply", "value": len(off),
            "reference": 0, "rel_error": None, "tolerance": 0, "passed": not off,
            "note": f"{on_boundary} point(s) within {BOUNDARY_TOL:g} of a boundary not counted"}]
    if fe:
        for row in rows:
            if row["compared"]:
                near = [b.amplitude_ratio for b in bounds.get(row["frequency_ratio"], ())
                        if abs(row["amplitude_ratio"] - b.amplitude_ratio) <= NEAR_BOUNDARY * b.amplitude_ratio]
                check = {"quantity": f"mode at omega_p/p = {row['frequency_ratio']:g}, "
                                     f"a_p/(g tan alpha) = {row['amplitude_ratio']:g}",
                         "value": row["fe_mode"], "reference": row["rigid_mode"], "rel_error": None,
                         "tolerance": None,
                         "passed": None if row["fe_mode"] == UNDECIDED or near else row["agree"] is True}
                if near:
                    check["note"] = (f"within {100 * NEAR_BOUNDARY:g} % of the rigid boundary at {near[0]:.4g}: "
                                     f"no verdict (the elastic block's own boundary need not sit on the rigid one)")
                out.append(check)
    return out


def boundary_rows(bounds: dict, where: str) -> list[dict]:
    return [{"where": where, "frequency_ratio": fr, "amplitude_ratio": bd.amplitude_ratio, "below": bd.below_mode,
             "above": bd.above_mode, "bracket_low": bd.bracket[0], "bracket_high": bd.bracket[1]}
            for fr, bds in bounds.items() for bd in bds]


def grid_text(cfg: Config, rows: list[dict], fe: bool) -> list[str]:
    """The modes as a table: amplitude ratios down (largest first), frequency ratios across; each
    cell rigid / FE (S survive, A after impacts, W without impact, - not complete, * not compared)."""
    by = {(r["amplitude_ratio"], r["frequency_ratio"]): r for r in rows}
    grid_rows = []
    for a in sorted(cfg.amplitude_ratios, reverse=True):
        cells = [f"{a:g}"]
        for f in cfg.frequency_ratios:
            r = by[(a, f)]
            text = SHORT_NAMES[r["rigid_mode"]]
            if fe:
                text += " / " + (SHORT_NAMES[r["fe_mode"]] if r["fe_mode"] else "-")
                if r["agree"] is False:
                    text = f"**{text}**"
            cells.append(text + ("" if r["compared"] else "*"))
        grid_rows.append(cells)
    return md_table(["a_p/(g tan α) \\ ω_p/p", *(f"{f:g}" for f in cfg.frequency_ratios)], grid_rows)


def write_report(out: Path, cfg: Config, summary: dict, rows: list[dict], fe: bool) -> None:
    block = cfg.block
    lines = [f"# Overturning spectrum — one-sine pulse, block {cfg.width:g} x {cfg.height:g} m", "",
             f"Command: `{summary['command']}` (rockfem {summary['version']}). Status: **{summary['status']}**.", "",
             f"alpha = {block.alpha:.6g} rad (tan alpha = {math.tan(block.alpha):.4g}), p = {block.p:.6g} rad/s, "
             f"Housner's e = {block.housner_r:.4g}. Friction mu = {cfg.mu:g} (FE). Rigid: contact.references.overturning "
             f"(exact rocking, no sliding); FE: cases/shaking_table.py, modeling a, --dt {cfg.dt:g}.", "",
             "Each cell: rigid" + (" / FE" if fe else "") + " (S survive, A overturn after impacts, W overturn "
             "without impact, - FE run not complete; * the rigid block needs more friction than mu: not compared; "
             "bold: they differ).", ""]
    lines += grid_text(cfg, rows, fe)
    lines += ["", "## Checks", ""]
    lines += md_table(["check", "value", "reference", "passed"],
                      [(c["quantity"], c["value"], c["reference"],
                       {True: "yes", False: "no", None: "no verdict"}[c["passed"]]) for c in summary["checks"]])
    lines += ["", "Files: spectrum.csv, boundaries.csv, spectrum.png" + (", fe/results.csv and fe/points/ (each FE "
                                                                          "run's folder)" if fe else "") + "."]
    output_folder.write_text(out / "report.md", "\n".join(lines) + "\n")


# ----------------------------------------------------------------------------------- main
def main(argv=None) -> int:
    return execute(_main, argv)


def _main(argv) -> int:
    cfg, a = parse_args(argv)
    fe = cfg.model == "both"
    workers = sweep.local_workers(a) if fe else 0
    n = len(cfg.frequency_ratios) * len(cfg.amplitude_ratios)
    if fe:
        sweep.check_flags(CASE, {"after --": sweep.option_names(cfg.fixed)}, RESERVED)
        check_fe_flags(cfg)
    check_resources(sweep.estimate(n, workers), force=a.force, max_steps=sweep.MAX_POINTS, what="this study",
                    unit="points", remedy="fewer ratios or --workers")
    if fe:  # an unreachable scheduler is refused before the folder is touched
        sweep.check_scheduler(a.scheduler)
    prepare_output(cfg.out)
    parameters = {"model": cfg.model, "frequency_ratios": list(cfg.frequency_ratios),
                  "amplitude_ratios": list(cfg.amplitude_ratios), "map_frequencies": cfg.map_frequencies,
                  "width": cfg.width, "height": cfg.height, "mu": cfg.mu, "dt": cfg.dt, "fixed": list(cfg.fixed),
                  "workers": a.workers, "scheduler": a.scheduler, "time_limit": a.time_limit, "force": a.force}
    record = Run.start(cfg.out, "overturning_spectrum", command_line("cases/overturning_spectrum.py", argv), "custom",
                       parameters, quiet=True)
    say = (lambda text: None) if a.quiet else (lambda text: print(f"spectrum: {text}", file=sys.stderr, flush=True))
    say(f"rigid block at {n} points")
    grid = rigid_grid(cfg)
    bounds = rigid_boundaries(cfg, cfg.frequency_ratios)
    say(f"rigid boundaries at {cfg.map_frequencies} frequencies for the map")
    curve_bounds = rigid_boundaries(cfg, map_frequencies(cfg))
    curves = ov.curves(list(curve_bounds.values()))
    sweep.write_csv(cfg.out / "boundaries.csv", boundary_rows(bounds, "grid") + boundary_rows(curve_bounds, "map"))
    outcome, status, stop, fe_results = None, "complete", None, None
    if fe:
        points, task = fe_points(cfg, grid), fe_task(cfg, a.time_limit, a.force)
        (cfg.out / "fe" / "points").mkdir(parents=True, exist_ok=True)
        try:
            outcome = sweep.sweep_on_cluster(points, task, cfg.out / "fe", a.scheduler,
                                             workers, a.quiet, "cases/shaking_table.py")
        except Interrupted as signal_stop:
            outcome, status, stop = signal_stop.outcome, "interrupted", signal_stop
        fe_results = fe_rows(cfg.out / "fe", task, points)
    rows = table(cfg, grid, fe_results)
    sweep.write_csv(cfg.out / "spectrum.csv", rows)
    plot(cfg.out / "spectrum.png", cfg, rows, curves, fe, frequencies=map_frequencies(cfg), limits=map_range(cfg))
    results = {"block": {"alpha": cfg.block.alpha, "p": cfg.block.p, "housner_e": cfg.block.housner_r},
               "modes": {f"{r['frequency_ratio']:g},{r['amplitude_ratio']:g}": [r["rigid_mode"], r.get("fe_mode")]
                         for r in rows},
               "compared": sum(r["compared"] for r in rows),
               "agree": sum(r.get("agree") is True for r in rows if r["compared"]),
               "fe": outcome.record() if outcome is not None else None,
               "checks": checks(grid, bounds, rows, fe)}
    summary = record.final(status, results, message=None if stop is None else str(stop))
    write_report(cfg.out, cfg, summary, rows, fe)
    summary = record.close()  # summary.json last
    if stop is not None:
        raise stop
    print("\n".join(grid_text(cfg, rows, fe)))
    print(f"spectrum: results in {cfg.out}/ (report.md, spectrum.png, spectrum.csv)")  # the tally: fem.run.lifecycle
    missing = outcome.incomplete() if outcome is not None else None
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main())
