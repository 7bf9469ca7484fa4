"""Shaking table: a block (SDNV105's 0.36 x 0.80 m by default) on its table under a base motion.

    python cases/shaking_table.py --excitation sine-pulse --amplitude-g 1.2 --frequency-hz 2.6

The table's support moves rigidly with the acceleration history chosen (fem.loads.base_motion: harmonic,
one-sine or one-cosine pulse, a smooth ramp to a held acceleration, a recorded accelerogram). The
run is written in the table's frame, as Code_Aster's CALC_CHAR_SEISME (MONO_APPUI): the supports
stay fixed and every mass carries the d'Alembert force -M e a(t) (fem.loads.applied.InertialLoad), so
displacements are relative to the table and the table's own motion is in the history columns
``table_d``, ``table_v``, ``table_a``. Phases: the gravity preload (quasi-static, frictionless,
DX(O1) held as in SDNV105), then the excitation from rest at t = 0 with friction ``--mu``.

Steps: fem.time.stepping.EventSteps (fine steps ``--dt-fine`` from before a predicted impact and after
every contact opening or closing, coarse steps up to ``--dt`` elsewhere, bounded by the Newmark
local error indicator). Modeling d (Moreau-Jean) takes uniform steps of ``--dt``.

The block counts as **overturned** once ``|theta| >= 2 alpha`` (alpha = atan(b/l)): it is then
beyond its unstable equilibrium by alpha, and the run stops there. A run that ends before is
"not overturned" only when that is decided (summary ``overturn_verdict``: the table still from its
end on and the blocks' energy below the barrier, on the near side of alpha; or nothing lifted and
the rest of the motion below the uplift acceleration); otherwise, e.g. a block ending past alpha
and still tipping, the verdict is "undecided" (``overturned`` null), never "no". The rigid
reference is decided the same way, integrated on with the table still where the energy rule says
it overturns after the run's end (contact.references.overturning.still_table_outcome).

Stacks (``--blocks N``): N such blocks one on another (meshes.generate.stack_on_table), each joint
a node-to-segment contact with Coulomb friction ``--mu-joint`` (default ``--mu``) like the table's.
Block k counts as overturned at ``|theta_k| >= 2 atan(b / ((N - k + 1) l))``, 2 alpha of the block
and those on it as one body (the column's for the bottom block, its own for the top one).

Beside the FE results, ``summary.json`` has the rigid block rocking under the same table motion
(contact.references.rocking_base: exact nonlinear equation, Housner's impact law, sliding not modelled); for a
stack, the column as one rigid block, which it is while its joints stay shut.

The run's parameters and their checks are in cases/table/config.py, its summary and
verdicts in cases/table/summary.py, its report in cases/table/report.py.
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import logging
import math
import sys
from dataclasses import dataclass, replace

import numpy as np

from cases.table.command_line import parse_args
from cases.table.config import G, Config
from cases.table.report import plot, print_summary, write_report
from cases.table.summary import ENERGY_LIMIT, summarize
# re-exported (tests/test_overturn_verdicts.py reads them here)
from cases.table.summary import CURVE_POINTS, OVERTURN_MARGIN, rigid_reference  # noqa: F401
from contact.laws import Augmented, Lagrange, MoreauJean
from contact.output import ContactRecorder
from fem.io.animation import animate_or_note
from fem.io.recorder import NodeProbe
from fem.loads import base_motion as bm
from fem.mesh.check import check_mesh
from fem.mesh.mesh import Mesh
from fem.mesh.read import read_mesh
from fem.problem import Assembled, BaseMotion, Body, Pair, Preload, Problem, Support, assemble
from fem.problem.observe import CornerRotation
from fem.problem.simulate import Settings, body_watch, run_stages
from fem.run.lifecycle import (EXIT_FAILED, BadInput, Estimate, Run, check_resources, command_line, count_steps, estimate,
                               execute, prepare_output, results_line)
from fem.stage.phase import NewtonSettings, StepResult
from fem.time.interrupt import Interrupted
from fem.time.stepping import EventSteps

logger = logging.getLogger("shaking_table")

PRELOAD_START = -0.5  # s: the gravity preload runs from here to 0
PRELOAD_STEPS = 5


# ----------------------------------------------------------------------------------- model
@dataclass
class Joint:
    """A contact surface of the run: the table under block 1 (``suffix`` "") or joint k between
    blocks k and k + 1 (``suffix`` "_jk"), the run's term ``terms[index]`` (the theta-scheme continues
    it at the velocity level after the preload). corners: node group -> index in the term's slave
    arrays (the slave line's two end nodes)."""

    name: str
    suffix: str
    terms: list
    index: int
    corners: dict

    @property
    def term(self):
        return self.terms[self.index]


@dataclass(frozen=True)
class Block:
    """Block k of the column (1 = bottom): its base corners' and base centre's node groups, its
    region and the rotation at which it counts as overturned (Config.overturn_angle)."""

    k: int
    o: str
    a: str
    centre: str
    region: str
    overturn: float

    @property
    def theta_column(self) -> str:
        return "theta" if self.k == 1 else f"theta_{self.k}"

    @property
    def omega_column(self) -> str:
        return "omega" if self.k == 1 else f"omega_{self.k}"


@dataclass
class Study:
    config: Config
    history: bm.MotionHistory
    mesh: Mesh
    model: Model
    joints: list  # [Joint], the table first
    blocks: tuple  # (Block, ...), the bottom one first
    warnings: tuple = ()
    assembled: Assembled | None = None  # the problem (fem.problem) the run integrates

    @property
    def contacts(self) -> list:
        return [j.term for j in self.joints]


TABLE_GROUPS = ("BLOCK", "GROUN", "CONHAUT", "CONBAS", "CTGROUND", "O", "A", "O1")


def joint_groups(k: int) -> tuple[str, ...]:
    """Groups joint k of a stack needs (meshes.generate.stack_on_table names)."""
    return (f"JOINT_{k}_ESCL", f"JOINT_{k}_MAIT", f"BLOCK_{k}", f"BLOCK_{k + 1}", f"O_{k + 1}", f"A_{k + 1}",
            f"O1_{k + 1}")


def _mesh(config: Config):
    if config.mesh is not None:
        try:
            return read_mesh(config.mesh)
        except ValueError as err:
            raise BadInput(f"--mesh {config.mesh}: {err}") from None
    from meshes.generate import block_on_table, reference_mesh_path, stack_on_table

    if config.blocks > 1:
        return read_mesh(stack_on_table(config.out / "mesh.msh", ((config.width, config.height),) * config.blocks))
    if math.isclose(config.width, 0.36) and math.isclose(config.height, 0.80):
        return read_mesh(reference_mesh_path("sdnv105_quad4"))
    path = block_on_table(config.out / "mesh.msh", half_width=config.width / 2, height=config.height,
                          element="quad4", layout="reference", with_table=True)
    return read_mesh(path)


def _corners(mesh: Mesh, term, names: tuple[str, ...]) -> dict:
    """The slave line's end nodes among the node groups ``names`` -> their slave indices."""
    slave = term.zone.slave
    found = {n: np.flatnonzero(slave == mesh.node(n)) for n in names if n in mesh.node_groups}
    return {n: int(i[0]) for n, i in found.items() if i.size}


def build(config: Config, history: bm.MotionHistory) -> Study:
    """The run's problem (fem.problem: the block or the column and the table, the table's base held,
    a node-to-segment pair under each block) assembled, with its joints' corners and its blocks."""
    mesh = _mesh(config)
    needed = TABLE_GROUPS + tuple(g for k in range(1, config.blocks) for g in joint_groups(k))
    missing = [g for g in needed if g not in mesh.cell_groups and g not in mesh.node_groups]
    if missing:
        raise BadInput(f"--mesh {config.mesh}: no group {missing[0]!r} (needed: the SDNV105 names "
                       f"{', '.join(TABLE_GROUPS)}"
                       f"{'' if config.blocks == 1 else ' and those of meshes.generate.stack_on_table'})")
    regions = {"BLOCK": config.block_material(), "GROUN": config.table_material()}
    used = Mesh(mesh.points, {k: v for k, v in mesh.cell_groups.items() if k in regions or v.dim == 1},
                mesh.node_groups)
    surfaces = (("CONHAUT", "CONBAS"),) + tuple((f"JOINT_{k}_ESCL", f"JOINT_{k}_MAIT") for k in range(1, config.blocks))
    try:
        warnings = check_mesh(used, ("CTGROUND",), surfaces)
    except ValueError as err:
        raise BadInput(f"--mesh {config.mesh}: {err}" if config.mesh is not None else str(err)) from None
    law = {"lagrange": Lagrange, "augmented": Augmented, "theta": MoreauJean}[config.spec.method]
    pairs = [Pair(slave, master, law(mu=config.mu if k == 0 else config.joint_mu), name=f"joint {k}" if k else "table")
             for k, (slave, master) in enumerate(surfaces)]
    problem = Problem(mesh, bodies=[Body("BLOCK", regions["BLOCK"]), Body("GROUN", regions["GROUN"])],
                      supports=[Support("CTGROUND")], pairs=pairs, gravity=G, mass=config.mass)
    try:
        assembled = assemble(problem)
    except BadInput as err:
        raise BadInput(f"--mesh {config.mesh}: {err}") from None
    joints = []
    for k, term in enumerate(assembled.terms):
        names = ("O", "A") if k == 0 else (f"O_{k + 1}", f"A_{k + 1}", f"C_{k}", f"B_{k}")
        joints.append(Joint("table" if k == 0 else f"joint {k}", "" if k == 0 else f"_j{k}", assembled.terms, k,
                            _corners(mesh, term, names)))
    blocks = (Block(1, "O", "A", "O1", "BLOCK" if config.blocks == 1 else "BLOCK_1", config.overturn_angle(1)),) + \
        tuple(Block(k, f"O_{k}", f"A_{k}", f"O1_{k}", f"BLOCK_{k}", config.overturn_angle(k))
              for k in range(2, config.blocks + 1))
    return Study(config, history, mesh, assembled.model, joints, blocks, tuple(warnings), assembled)


def stages(study: Study) -> tuple:
    """The gravity preload (quasi-static, frictionless, DX(O1) of every block held as in SDNV105, from
    PRELOAD_START to 0), then the table's motion to t_end along --direction."""
    cfg = study.config
    preload = Preload(steps=PRELOAD_STEPS, friction=0.0, duration=-PRELOAD_START, name="gravity preload",
                      hold=tuple(Support(b.centre, ("x",)) for b in study.blocks),
                      newton=NewtonSettings(rela=1e-6, maxi=2e-3, max_iterations=40))
    component = "x" if cfg.direction == "horizontal" else "y"
    return preload, BaseMotion(cfg.t_end, **{component: study.history}, name="excitation")


def event_steps(config: Config) -> EventSteps:
    return EventSteps(dt=config.dt, dt_fine=config.dt_fine, tolerance=config.tolerance,
                      archive_every=config.archive_every)


# ----------------------------------------------------------------------------------- what is recorded
def block_kinematics(study: Study, block: Block) -> CornerRotation:
    """The rotation of a block from its base corners (fem.problem.observe.CornerRotation)."""
    return CornerRotation(study.mesh.points, study.mesh.node(block.o), study.mesh.node(block.a))


#: per contact surface (suffix "" for the table, "_jk" for joint k): friction_demand = |sum R_T| /
#: sum R_N over the surface (the block's, what the rigid reference reports; summary
#: max_friction_ratio outside the impacts, max_friction_ratio_impacts with them: at an impact the
#: corner may slip for an instant and the ratio reach mu); friction_ratio = the largest |R_T|/R_N of
#: a loaded closed node (<= mu by Coulomb's law; summary max_node_friction_ratio). Per corner (the
#: slave line's ends: O, A at the table, O_(k+1), A_(k+1) at joint k): gap, status, rn, rt, slip.
SURFACE_QUANTITIES = ("n_closed", "friction_ratio", "friction_demand")
CORNER_QUANTITIES = ("gap", "status", "rn", "rt", "slip")


def columns(study: Study) -> list[str]:
    out = ["table_a", "table_v", "table_d"]
    for b in study.blocks:
        out += [b.theta_column, b.omega_column]
    for j in study.joints:
        out += [f"{q}{j.suffix}" for q in SURFACE_QUANTITIES]
        out += [f"{q}_{c}" for c in j.corners for q in CORNER_QUANTITIES]
    return out


def _row_function(study: Study):
    kinematics = [(b, block_kinematics(study, b)) for b in study.blocks]
    history = study.history

    def extra(result: StepResult) -> dict:
        s = result.state
        row = {"table_a": float(history.acceleration(s.t)), "table_v": float(history.velocity(s.t)),
               "table_d": float(history.displacement(s.t))}
        for b, kin in kinematics:
            row[b.theta_column], row[b.omega_column] = kin(s.u, s.v)
        for j in study.joints:
            st = j.term.state()
            closed = st.status != 0
            loaded = closed & (st.rn > 0)
            ratio = float(np.max(np.abs(st.rt[loaded]) / st.rn[loaded])) if np.any(loaded) else 0.0
            rn_sum = float(np.sum(st.rn))
            row.update({f"n_closed{j.suffix}": float(np.count_nonzero(closed)), f"friction_ratio{j.suffix}": ratio,
                        f"friction_demand{j.suffix}": abs(float(np.sum(st.rt))) / rn_sum if rn_sum > 0 else 0.0})
            for name, k in j.corners.items():
                row.update({f"gap_{name}": float(st.gap[k]), f"status_{name}": float(st.status[k]),
                            f"rn_{name}": float(st.rn[k]), f"rt_{name}": float(st.rt[k]),
                            f"slip_{name}": float(st.slip[k])})
        return row

    return extra


@dataclass
class RunOutput:
    history: dict  # the excitation's columns, name -> (n,) array ({} if it never started)
    stats: dict
    spans: list
    failure: str | None = None
    interrupted: Interrupted | None = None
    overturned_at: float | None = None
    overturned_block: int | None = None
    pairs: dict | None = None  # the engine's per-pair measures (fem.problem.simulate.Outcome.pairs)
    pair_impacts: list | None = None  # the engine's impacts, by the rule of every run (fem.problem.observe)
    # the checks every run makes (fem.problem.simulate: each pair's penetration and reaction alternation,
    # the preload's end state), its energy books left to the case's own
    physical: list | None = None

    @property
    def status(self) -> str:
        return "interrupted" if self.interrupted else "failed" if self.failure else "complete"


class _ContactSeries:
    """The contact nodes' ParaView series (contact.output.ContactRecorder), opened at the first
    archived step of the excitation with the terms the run integrates then."""

    def __init__(self, study: Study) -> None:
        self.study, self.recorder = study, None

    def record(self, t: float, u) -> None:
        if self.recorder is None:
            self.recorder = ContactRecorder(self.study.mesh, {j.name: j.term for j in self.study.joints},
                                            self.study.config.out, history=False)
        self.recorder.record(t, u)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


class _Columns:
    """The case's history columns (:func:`columns`), an observer of fem.problem's run."""

    def __init__(self, study: Study) -> None:
        self.names, self.observe = columns(study), _row_function(study)

    def columns(self) -> list[str]:
        return self.names


def run(study: Study) -> RunOutput:
    """Preload, then the excitation to t_end (or overturning), by fem.problem.run_stages. Histories
    and ParaView series are written as the run goes; a failure or an interruption keeps everything up
    to it on disk."""
    cfg = study.config
    top = study.blocks[-1].k
    probe_node = "C1" if top == 1 else f"C1_{top}"
    probes = (NodeProbe(f"dx_{probe_node}", probe_node, "u", "x"), NodeProbe(f"dy_{probe_node}", probe_node, "u", "y")) \
        if probe_node in study.mesh.node_groups else ()
    watches = tuple(body_watch(f"block {b.k}", block_kinematics(study, b),
                               study.mesh.points[np.unique(study.mesh.cell_groups[b.region].connectivity)], G, b.overturn)
                    for b in study.blocks)
    contact_series = _ContactSeries(study) if cfg.paraview else None
    settings = Settings(steps=event_steps(cfg), alpha=cfg.alpha, alpha_fine=cfg.alpha_fine, theta=cfg.theta,
                        newton=replace(cfg.spec.newton, predictor=cfg.predictor), paraview=cfg.paraview, probes=probes, kinetic_group="BLOCK",
                        observers=(_Columns(study),), body_watches=watches,
                        step_bodies=tuple(b.region for b in study.blocks),
                        on_archived=contact_series.record if contact_series is not None else None)
    try:
        outcome = run_stages(study.assembled, stages(study), cfg.out, settings)
    finally:
        if contact_series is not None:
            contact_series.close()
    failure = None
    if outcome.status != "complete":
        failure = f"{'preload' if outcome.stage == 'gravity preload' else 'excitation'}: {outcome.message}"
    over = [(w["overturned_at"], b.k) for b, w in zip(study.blocks, outcome.bodies.values())
            if w["overturned_at"] is not None]
    stats = {k: outcome.stats[k] for k in ("steps", "newton_iterations", "subdivisions", "wall_s", "stepping_s")
             if k in outcome.stats}
    stats["fine_spans"] = len(outcome.spans)
    physical = [{**c, "rel_error": None} for c in outcome.run_checks]  # bounds, not references: no relative error
    return RunOutput(outcome.history, stats, outcome.spans, failure, outcome.interrupted, *(min(over) if over else (None, None)),
                     outcome.pairs, outcome.impacts, physical)


def resource_estimate(cfg: Config) -> Estimate:
    steps = PRELOAD_STEPS + count_steps([(0.0, cfg.t_end, cfg.dt)])
    nodes, cells = 25 + 15 * (cfg.blocks - 1), 12 + 8 * (cfg.blocks - 1)
    if cfg.mesh is not None:
        try:
            size = cfg.mesh.stat().st_size
        except OSError:
            size = 0
        nodes, cells = size / 30.0, size / 60.0
    return estimate(nodes, cells, 4, steps, row_bytes=4000.0)


def main(argv=None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return execute(_main, argv)


def _main(argv) -> int:
    config, flags = parse_args(argv, __doc__.split("\n\n")[0])
    config.validate()
    history = config.history()
    config = config.resolved(history)
    config.validate()
    check_resources(resource_estimate(config), force=flags.force)
    prepare_output(config.out)
    study = build(config, history)
    for warning in study.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    record = Run.start(config.out, "shaking_table", command_line("cases/shaking_table.py", argv), "custom",
                       config.parameters(), t_end=config.t_end, quiet=flags.quiet)
    output = run(study)
    summary = record.final(output.status, summarize(study, output), message=output.failure)
    R = output.history
    write_report(config.out, config, summary)
    if R:
        plot(config.out, R, summary)
        if flags.animate and output.interrupted is None:  # a failed run's steps are drawn too
            _, why = animate_or_note(config.out, flags.animate,
                                     [(i["time"], i["corner"]) for i in summary.get("impacts") or []],
                                     title="shaking table",
                                     note="in the table's frame: displacements relative to the table")
            if why is not None:  # a note, never a failed run: status and exit code unchanged
                summary = {**summary, "animation_error": why}
    summary = record.close(summary)  # summary.json last: a folder that says complete holds every file
    print_summary(summary)
    if output.interrupted is not None:
        raise output.interrupted
    if output.failure:
        print(f"error: {output.failure}; results up to the failure are in {config.out} (status: failed)",
              file=sys.stderr)
        return EXIT_FAILED
    books = (summary.get("energy") or {}).get("relative_error")
    if books is not None and books > ENERGY_LIMIT:
        print(f"error: the energy books miss by {100 * books:.3g} % of the table's input (limit "
              f"{100 * ENERGY_LIMIT:g} %; status: complete; see energy in {config.out}/summary.json)", file=sys.stderr)
        return EXIT_FAILED
    print(results_line(config.out, summary.get("files") or []))  # the files it wrote, no other
    return 0


if __name__ == "__main__":
    sys.exit(main())
