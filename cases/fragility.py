"""Fragility study: ground-motion records x PGA scales, a block on a shaking table, FE runs beside the rigid block.

    python cases/fragility.py                                    # 5 records x 8 PGAs, FE and rigid
    python cases/fragility.py --model rigid --scales 0.3:3:28 --rotation-threshold 0.1
    python cases/fragility.py --records a.csv,b.AT2 --scales 0.5,1,2 --scheduler tcp://HOST:8786 -- --dt 5e-4

Every record (``--records``: files of columns t [s], a [m/s^2], or PEER .AT2; the default, five synthetic
ones, examples/records/fragility/make_records.py: Kanai-Tajimi filtered white noise in a Jennings
envelope, 4 s, seeds 2901-2905, w_g 8 to 19 rad/s) is scaled to every peak ground acceleration of
``--scales`` (PGA in g, ``v1,v2,...`` or ``start:stop:count``; default 0.4 to 2.5 g, from below the
uplift acceleration g tan(alpha) = 0.45 g of SDNV105's 0.36 x 0.80 m block to where the rigid block
overturns under every record), after the baseline correction of fem.loads.base_motion.read_record: the
PGA is the table's peak. Each point runs to the record's end + 1 s (the shaking table's default) and
gets three outcomes: the block overturned, it lifted (a base corner 1e-6 m above the table), its peak
rotation exceeded ``--rotation-threshold`` (rad, default 0.1, a quarter of alpha; an overturned block did; at
0.05 rad the rigid block's outcomes on the default grid are perfectly separated, none up to 0.6 g and all
from 0.8 g, and its fit undetermined). The rigid block lifts exactly when the PGA exceeds g tan(alpha),
whatever the record: its uplift fragility is a step there (beta = 0), and its fit says ``separated``.

* **Rigid** (``--model rigid`` or ``both``, in this process): the rigid block under the same table motion,
  cases/table/summary.rigid_reference (contact.references.rocking_base.rock_under_base_motion,
  exact rocking, Housner's impacts, no sliding; its overturning verdict decided after the motion on a
  still table), with the shaking table's own Config of that point.
* **FE** (``--model fe`` or ``both``, the default): cases/shaking_table.py at every point (``--excitation record
  --record FILE --amplitude-g PGA --t-end T --no-paraview``), each its own process on a Dask worker
  (fem.studies.sweep: a LocalCluster, ``--workers``, or ``--scheduler tcp://HOST:PORT``; ``--time-limit`` a
  point; a rerun completes only the missing points). The flags after ``--`` go to every FE point (``--mu``,
  ``--dt``, ``--width`` ...) and to the shaking table's Config the rigid block is computed with. An FE
  outcome is undecided when the run's own verdict is (``overturned`` null): left out of the fit.

Per measure and per model, the lognormal fragility P(PGA) = Phi(ln(PGA / theta) / beta), theta and beta by
maximum likelihood on the binomial outcomes of the stripes (Baker 2015, Earthquake Spectra 31(1),
"multiple stripes"; fem/studies/fragility.py), with their standard errors; an undetermined fit (all
outcomes equal, a perfect separation, a falling probability) is said so, with where theta lies, and no theta.

Outputs in --out (default results/fragility): ``points.csv`` (a row a record x PGA: the rigid and FE outcomes
per measure, the FE status), ``fragility.png`` (the fitted curves FE and rigid per measure, the observed
fractions per PGA as points), ``report.md``, ``summary.json`` (fem.run.lifecycle: the fits, the stripes, the
checks), ``fe/`` (the FE sweep: results.csv, points/<record>_pga=<PGA>/ with each run's files). Exit codes as
every case (fem.run.lifecycle); 1 if an FE point did not complete.
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import math
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from fem.studies import fragility as fit
from cases.studies.fragility_report import fit_lines, plot, write_report
from cases.table.summary import rigid_reference
from fem import ranges
from fem.run.lifecycle import (EXIT_FAILED, BadInput, CaseParser, Run, add_run_flags, check_resources,
                               command_line, execute, finite, prepare_output, require_all)
from fem.studies import sweep
from fem.time.interrupt import Interrupted

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "cases" / "shaking_table.py"
RECORDS = tuple(ROOT / "examples" / "records" / "fragility" / f"kt_{k}.csv" for k in range(1, 6))
SCALES = "0.4,0.6,0.8,1,1.25,1.5,2,2.5"
#: flags of shaking_table.py the study sets itself (or that make no sense for a record on one block)
RESERVED = ("excitation", "record", "amplitude-g", "t-end", "no-paraview", "out", "quiet", "strict", "help",
            "direction", "blocks", "frequency-hz", "cycles", "smooth-start", "ramp-time", "hold-time")
MEASURES = ("overturning", "uplift", "rotation")
MODELS = ("fe", "rigid")
_NAME_SAFE = re.compile(r"[^A-Za-z0-9.+=-]+")


@dataclass(frozen=True)
class Config:
    model: str = "both"
    records: tuple = RECORDS
    scales: tuple = (0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5)
    rotation_threshold: float = 0.1
    fixed: tuple = ()
    out: Path = Path("results/fragility")

    @property
    def fe(self) -> bool:
        return self.model in ("fe", "both")

    @property
    def rigid(self) -> bool:
        return self.model in ("rigid", "both")


def _scales(text: str, limit: int) -> tuple:
    try:
        values = tuple(float(v) for v in sweep.parse_values(text, f"--scales {text}", limit))
    except sweep.TooManyPoints:
        raise
    except (BadInput, ValueError):
        raise BadInput(f"--scales {text}: expected PGA values in g, v1,v2,... or start:stop:count of distinct "
                       f"numbers") from None
    if not all(math.isfinite(v) and v > 0 for v in values):
        raise BadInput(f"--scales {text}: every PGA must be a finite number > 0 (in g)")
    if len(set(values)) != len(values):
        raise BadInput(f"--scales {text}: a PGA is repeated")
    for v in values:
        if v not in ranges.TABLE_ACCELERATION:
            raise BadInput(f"--scales {ranges.number(v)}: outside the physical range {ranges.TABLE_ACCELERATION.interval()}"
                           f" of a {ranges.TABLE_ACCELERATION.name}: {ranges.TABLE_ACCELERATION.why}")
    return tuple(sorted(values))


def _records(text: str, limit: int) -> tuple:
    names = [v.strip() for v in text.split(",")]
    if not text.strip() or not all(names):
        raise BadInput(f"--records {text}: empty name (expected FILE1,FILE2,...)")
    if len(names) > limit:
        raise sweep.TooManyPoints(f"--records: {len(names):,} records, more than the limit of {limit:,}")
    paths = tuple(Path(n).resolve() for n in names)
    if len(set(paths)) != len(paths):
        raise BadInput(f"--records {text}: a record is repeated")
    for name, path in zip(names, paths):
        if not path.is_file():
            raise BadInput(f"--records {name}: no such record file")
    return paths


def parse_args(argv):
    argv, fixed = sweep.split_fixed(sys.argv[1:] if argv is None else argv)
    d = Config()
    p = CaseParser(prog="fragility.py", description=__doc__.split("\n\n")[0],
                   epilog="Flags after -- are given to every FE point (cases/shaking_table.py) and to the "
                          "shaking table's Config of the rigid block.")
    p.add_argument("--records", default=None, metavar="FILE1,FILE2,...",
                   help="ground-motion records, columns t [s], a [m/s^2] or PEER .AT2 (default: the five of "
                        "examples/records/fragility/)")
    p.add_argument("--scales", default=SCALES, help=f"PGA values [g]: v1,v2,... or start:stop:count (default {SCALES})")
    p.add_argument("--model", choices=("rigid", "fe", "both"), default=d.model,
                   help="rigid: the rigid block alone (fast); fe: the FE runs alone; both (default)")
    p.add_argument("--rotation-threshold", type=finite, default=d.rotation_threshold,
                   help=f"peak rotation [rad] of the third measure (default {d.rotation_threshold:g})")
    p.add_argument("--out", type=Path, default=d.out, help="output folder")
    sweep.add_cluster_flags(p)
    add_run_flags(p)
    a = p.parse_args(argv)
    limit = sweep.point_limit(a.force)
    records = RECORDS if a.records is None else _records(a.records, limit)
    config = Config(model=a.model, records=records, scales=_scales(a.scales, limit),
                    rotation_threshold=a.rotation_threshold, fixed=tuple(fixed), out=a.out)
    require_all([
        (a.rotation_threshold > 0, f"--rotation-threshold must be > 0 rad, got {a.rotation_threshold:g}"),
        (a.model != "rigid" or not fixed, "flags after -- go to the FE runs: not with --model rigid"),
    ])
    ranges.check_all([("--time-limit", a.time_limit if a.time_limit > 0 else None, ranges.WALL_TIME),
                      ("--workers", a.workers if a.workers is not None and a.workers >= 1 else None, ranges.WORKERS)])
    return config, a


# ----------------------------------------------------------------------------------- a point
def point_run(cfg: Config, record: Path, pga: float):
    """The shaking table's Config (resolved: its --t-end the record's end + 1 s) and the table's motion
    of a point, through cases/shaking_table.py's own parser and checks, in this process: what the FE run
    is given (the flags after -- included) and what the rigid block is computed with. A value it
    refuses is refused here, before anything runs, naming the flag."""
    from cases import shaking_table

    args = ["--excitation", "record", "--record", str(record), "--amplitude-g", repr(pga), "--no-paraview",
            *cfg.fixed]
    try:
        config, _ = shaking_table.parse_args(args)
        config.validate()
        history = config.history()
        config = config.resolved(history)
        config.validate()
    except BadInput as err:
        text = str(err)
        if text.startswith("--record "):
            raise BadInput("--records " + text[len("--record "):]) from None
        raise BadInput(f"{text} (an FE point's flags, given to cases/shaking_table.py)") from None
    return config, history


@dataclass(frozen=True)
class Block:
    width: float
    height: float

    @property
    def tan_alpha(self) -> float:
        return self.width / self.height

    @property
    def overturn_angle(self) -> float:
        """2 alpha [rad]: where the shaking table and the rigid block say it overturned."""
        return 2.0 * math.atan2(self.width, self.height)


def check_points(cfg: Config) -> tuple[Block, dict]:
    """Every record at the smallest and the largest PGA through :func:`point_run` (the flags, the
    record file, its peak after scaling); the block; {record: the point's --t-end [s]}. The rotation
    threshold must lie below the overturn angle."""
    t_ends, block = {}, None
    for record in cfg.records:
        for pga in sorted({cfg.scales[0], cfg.scales[-1]}):
            config, _ = point_run(cfg, record, pga)
            t_ends[record] = config.t_end
            block = Block(config.width, config.height)
    if not cfg.rotation_threshold < block.overturn_angle:
        raise BadInput(f"--rotation-threshold must be below the overturn angle 2 alpha = {block.overturn_angle:.4g} "
                       f"rad of the block (an FE run stops there), got {cfg.rotation_threshold:g}")
    return block, t_ends


@dataclass(frozen=True)
class RecordPoint(sweep.Point):
    """A point of the FE sweep whose folder is named after its record and PGA (``kt_1_pga=0.8``)."""

    tag: str = ""

    @property
    def name(self) -> str:
        return self.tag or super().name


@dataclass
class GridPoint:
    index: int
    record: Path
    tag: str  # the record's name in the tables
    pga: float
    t_end: float
    rigid: dict | None = None
    fe: dict | None = None


def grid(cfg: Config, t_ends: dict) -> list[GridPoint]:
    """Record-major (PGA fastest); a record's name is its file's stem (``-k`` added for a repeated stem)."""
    stems = [r.stem for r in cfg.records]
    tags = [s if stems.count(s) == 1 else f"{s}-{k + 1}" for k, s in enumerate(stems)]
    return [GridPoint(i * len(cfg.scales) + j, record, tag, pga, t_ends[record])
            for i, (record, tag) in enumerate(zip(cfg.records, tags)) for j, pga in enumerate(cfg.scales)]


# ----------------------------------------------------------------------------------- outcomes
def outcomes(overturned, lifted: bool, max_rotation, threshold: float) -> dict:
    """The three measures of one analysis (True, False, None: undecided): an overturned block lifted
    and exceeded the threshold; a rotation above it is decided whatever the verdict; below it, it is
    decided only when the block is decided not to overturn."""
    rotation = (max_rotation is not None and max_rotation > threshold) or overturned is True
    return {"overturning": overturned, "uplift": bool(lifted or overturned is True),
            "rotation": True if rotation else (False if overturned is False else None)}


def rigid_point(cfg: Config, g: GridPoint) -> dict:
    """The rigid block at a point (cases/table/summary.rigid_reference on the point's own
    shaking-table Config and motion), its outcomes."""
    config, history = point_run(cfg, g.record, g.pga)
    r = rigid_reference(config, history)
    return {"overturned": r["overturned"], "uplift_time": r["uplift_time"], "max_rotation": r["max_rotation"],
            "overturn_time": r["overturn_time"], "friction_demand": r["max_friction_ratio"],
            "compared": bool(r["applies"]),
            **outcomes(r["overturned"], r["uplift_time"] is not None, r["max_rotation"], cfg.rotation_threshold)}


def fe_points(grid_points: list[GridPoint]) -> list[RecordPoint]:
    return [RecordPoint(g.index, (("record", str(g.record)), ("amplitude-g", repr(g.pga)), ("t-end", f"{g.t_end:.10g}")),
                        _NAME_SAFE.sub("_", f"{g.tag}_pga={g.pga:.6g}")) for g in grid_points]


def fe_task(cfg: Config, time_limit: float, force: bool) -> sweep.CaseCommand:
    fixed = ["--excitation", "record", "--no-paraview", *cfg.fixed]
    return sweep.CaseCommand(str(CASE), tuple([*fixed, "--force"] if force else fixed), time_limit)


def fe_point(cfg: Config, folder: Path, task: sweep.CaseCommand, point: RecordPoint) -> dict:
    """The FE row of a point from the record this study's task made (a record of other flags, left by
    an earlier study in the folder, is not this point's): status, outcomes (None unless complete)."""
    record = sweep.current_record(task, point, folder / "points" / point.name)
    if record is None:
        return {"status": "not run"}
    f = record.get("figures") or {}
    out = {"status": record.get("status"), "message": record.get("message"), "wall_s": record.get("wall_s"),
           "folder": str(folder / "points" / point.name), "overturned": f.get("overturned"),
           "uplift_time": f.get("uplift_time"), "max_rotation": f.get("max_rotation"),
           "overturn_time": f.get("overturn_time"), "slid": f.get("slid"),
           "rigid_overturned": f.get("rigid_body.overturned"), "rigid_max_rotation": f.get("rigid_body.max_rotation")}
    if out["status"] == "complete":
        out.update(outcomes(out["overturned"], out["uplift_time"] is not None, out["max_rotation"],
                            cfg.rotation_threshold))
    else:
        out.update({m: None for m in MEASURES})
    return out


# ----------------------------------------------------------------------------------- results
def table(grid_points: list[GridPoint]) -> list[dict]:
    """points.csv's rows."""
    rows = []
    for g in grid_points:
        r, f = g.rigid or {}, g.fe or {"status": "not run"}
        rows.append({"record": g.tag, "pga_g": g.pga, "t_end": g.t_end,
                     **{f"rigid_{m}": r.get(m) for m in MEASURES},
                     "rigid_max_rotation": r.get("max_rotation"), "rigid_overturn_time": r.get("overturn_time"),
                     "rigid_friction_demand": r.get("friction_demand"), "compared": r.get("compared"),
                     "fe_status": f.get("status"), **{f"fe_{m}": f.get(m) for m in MEASURES},
                     "fe_max_rotation": f.get("max_rotation"), "fe_overturn_time": f.get("overturn_time"),
                     "fe_slid": f.get("slid"), "fe_wall_s": f.get("wall_s"), "fe_message": f.get("message"),
                     "record_file": str(g.record), "fe_folder": f.get("folder")})
    return rows


def fits(cfg: Config, rows: list[dict]) -> dict:
    """{measure: {model: the fit's record, with its stripes and the analyses left out}}."""
    out = {}
    for measure in MEASURES:
        out[measure] = {}
        for model in MODELS:
            if not getattr(cfg, model):
                continue
            key = f"{model}_{measure}"
            decided = [r for r in rows if r[key] is not None]
            levels, n, z = fit.stripes([r["pga_g"] for r in decided], [r[key] for r in decided])
            result = fit.fit_lognormal(levels, n, z) if levels.size else fit.fit_lognormal([1.0], [0], [0])
            out[measure][model] = {**result.record(), "left_out": len(rows) - len(decided),
                                   "stripes_pga": levels.tolist(), "stripes_n": n.tolist(), "stripes_z": z.tolist()}
    return out


def checks(cfg: Config, block: Block, grid_points: list[GridPoint], rows: list[dict]) -> list[dict]:
    """Graded: below the uplift acceleration no block lifts (rigid: exactly, |a| <= g tan alpha at every
    sample of the record; FE: its elastic block neither); the rigid block computed here is the one each
    FE run computed for itself (the same function on the same Config and motion: its verdict, its peak
    rotation to 1e-9). Shown: per measure, how often FE and rigid agree where the rigid block's
    friction demand is below mu."""
    out = []
    low = [r for r in rows if r["pga_g"] <= block.tan_alpha]
    for model in MODELS:
        decided = [r for r in low if r[f"{model}_uplift"] is not None]
        if getattr(cfg, model) and decided:
            lifted = sum(bool(r[f"{model}_uplift"]) for r in decided)
            out.append({"quantity": f"{model} analyses that lift at PGA <= g tan alpha = {block.tan_alpha:.4g} g",
                        "value": lifted, "reference": 0, "rel_error": None, "tolerance": 0, "passed": lifted == 0,
                        "note": f"of {len(decided)}"})
    if not (cfg.fe and cfg.rigid):
        return out
    both = [g for g in grid_points if g.rigid and g.fe and g.fe["status"] == "complete"]
    if both:
        same = sum(_same_rigid(g.rigid, g.fe) for g in both)
        out.append({"quantity": "FE runs whose own rigid reference is the one computed here (overturned, max "
                                "rotation to 1e-9)", "value": same, "reference": len(both), "rel_error": None,
                    "tolerance": 0, "passed": same == len(both)})
    for measure in MEASURES:
        pairs = [r for r in rows if r["compared"] and r[f"fe_{measure}"] is not None
                 and r[f"rigid_{measure}"] is not None]
        agree = sum(r[f"fe_{measure}"] == r[f"rigid_{measure}"] for r in pairs)
        out.append({"quantity": f"{measure}: FE outcome = rigid outcome where the rigid block's friction demand "
                                f"is below mu", "value": agree, "reference": len(pairs), "rel_error": None,
                    "tolerance": None, "passed": None, "note": "shown, not graded"})
    return out


def _same_rigid(rigid: dict, fe: dict) -> bool:
    mine, theirs = rigid.get("max_rotation"), fe.get("rigid_max_rotation")
    close = mine is not None and theirs is not None and abs(mine - theirs) <= 1e-9 * max(abs(mine), 1e-12)
    return close and fe.get("rigid_overturned") == rigid.get("overturned")


# ----------------------------------------------------------------------------------- main
def main(argv=None) -> int:
    return execute(_main, argv)


def _main(argv) -> int:
    started = time.perf_counter()
    cfg, a = parse_args(argv)
    workers = sweep.local_workers(a) if cfg.fe else 0
    if cfg.fe:
        sweep.check_flags(CASE, {"after --": sweep.option_names(cfg.fixed)}, RESERVED)
    block, t_ends = check_points(cfg)
    n = len(cfg.records) * len(cfg.scales)
    check_resources(sweep.estimate(n, workers), force=a.force, max_steps=sweep.MAX_POINTS, what="this study",
                    unit="points", remedy="fewer records or scales, or --workers")
    if cfg.fe:  # an unreachable scheduler is refused before the folder is touched
        sweep.check_scheduler(a.scheduler)
    prepare_output(cfg.out)
    parameters = {"model": cfg.model, "records": [str(p) for p in cfg.records], "scales": list(cfg.scales),
                  "rotation_threshold": cfg.rotation_threshold, "fixed": list(cfg.fixed), "workers": a.workers,
                  "scheduler": a.scheduler, "time_limit": a.time_limit, "force": a.force}
    record = Run.start(cfg.out, "fragility", command_line("cases/fragility.py", argv), "custom", parameters, quiet=True)
    say = (lambda text: None) if a.quiet else (lambda text: print(f"fragility: {text}", file=sys.stderr, flush=True))
    points = grid(cfg, t_ends)
    outcome, status, stop, fe_wall = None, "complete", None, None
    if cfg.rigid:
        say(f"rigid block at {n} points")
        for g in points:
            g.rigid = rigid_point(cfg, g)
    if cfg.fe:
        fe_list, task = fe_points(points), fe_task(cfg, a.time_limit, a.force)
        (cfg.out / "fe" / "points").mkdir(parents=True, exist_ok=True)
        fe_started = time.perf_counter()
        try:
            outcome = sweep.sweep_on_cluster(fe_list, task, cfg.out / "fe", a.scheduler, workers, a.quiet,
                                             "cases/shaking_table.py")
        except Interrupted as signal_stop:
            outcome, status, stop = signal_stop.outcome, "interrupted", signal_stop
        fe_wall = time.perf_counter() - fe_started
        for g, point in zip(points, fe_list):
            g.fe = fe_point(cfg, cfg.out / "fe", task, point)
    rows = table(points)
    sweep.write_csv(cfg.out / "points.csv", rows)
    fitted = fits(cfg, rows)
    plot(cfg.out / "fragility.png", cfg, block, fitted)
    results = {"block": {"width": block.width, "height": block.height, "tan_alpha": block.tan_alpha,
                         "uplift_acceleration_g": block.tan_alpha, "overturn_angle": block.overturn_angle},
               "records": [{"name": g.tag, "file": str(g.record), "t_end": g.t_end} for g in points
                           if g.pga == cfg.scales[0]],
               "fits": fitted, "fe": outcome.record() if outcome is not None else None, "fe_wall_s": fe_wall,
               "wall_s": time.perf_counter() - started, "checks": checks(cfg, block, points, rows)}
    summary = record.final(status, results, message=None if stop is None else str(stop))
    write_report(cfg.out, cfg, block, summary, rows, fitted, points)
    record.close()  # summary.json last
    if stop is not None:
        raise stop
    print("\n".join(fit_lines(cfg, fitted)))
    print(f"fragility: results in {cfg.out}/ (report.md, fragility.png, points.csv)")
    missing = outcome.incomplete() if outcome is not None else None
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main())
