"""SDNV105 — the mesh and the model of a run (:func:`build` -> :class:`Study`).

Which mesh the run uses (the modeling's checked-in mesh, a --mesh file, or one generated for another
block or for --nx/--ny), its checks, the block's and the table's materials, the mass, and the contact
(Lagrange or augmented multipliers on the table, b's shock springs on a rigid floor); the names of the
contact nodes for messages.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from contact.laws import Augmented, Lagrange, MoreauJean, Penalty
from contact.zone import RigidPlane
from fem.mesh.mesh import Mesh
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.problem import Assembled, Body, Pair, Problem, Support, assemble
from fem.run.lifecycle import BadInput
from cases.sdnv105.config import Config, G


@dataclass
class Study:
    """Everything built for a run: the configuration, the problem (fem.problem: the block, the table,
    the supports and the contact pair on the mesh's group names) and what it assembles to."""

    config: Config
    problem: Problem
    assembled: Assembled
    contact_index: dict[str, int]  # position of O, A in the contact state arrays

    @property
    def mesh(self):
        return self.assembled.mesh

    @property
    def model(self) -> Model:
        return self.assembled.model

    @property
    def contact(self):
        """The contact term (MultiplierContact, ShockSprings; a VelocityContact once d's release began)."""
        return self.assembled.terms[0]

    @property
    def warnings(self) -> tuple[str, ...]:
        """Suspicious but usable input (printed, not fatal)."""
        return self.assembled.warnings


def _element(config: Config) -> str:
    """The cell type of the modeling's mesh, for a generated one (meshes.generate)."""
    return "tri6" if config.spec.mesh.endswith("tri6") else "quad4"


def mesh_source(config: Config) -> dict:
    """Which mesh the run uses, before it is built: ``source`` "benchmark" (the checked-in mesh of
    the modeling), "--mesh" (a file given), "generated" (the benchmark's layout for another block,
    or with --nx/--ny a uniform block, written into the output folder as mesh.msh); ``file``,
    ``layout``, ``element``, ``nx``, ``ny``, ``with_table`` where they apply."""
    spec = config.spec
    if config.mesh is not None:
        return {"source": "--mesh", "file": str(config.mesh)}
    if config.nx is None and config.default_geometry:
        from meshes.generate import reference_mesh_path

        return {"source": "benchmark", "file": str(reference_mesh_path(spec.mesh)), "layout": "reference",
                "element": _element(config), "with_table": spec.with_table}
    out = config.out if config.out is not None else config.resolved().out
    refined = config.nx is not None
    return {"source": "generated", "file": str(out / "mesh.msh"), "layout": "refined" if refined else "reference",
            "element": _element(config), "with_table": spec.with_table,
            **({"nx": config.nx, "ny": config.ny} if refined else {})}


def _mesh_for(config: Config, out: Path):
    if config.mesh is not None:
        try:
            return read_mesh(config.mesh)
        except ValueError as err:
            raise BadInput(f"--mesh {config.mesh}: {err}") from None
    spec = config.spec
    if config.nx is None and config.default_geometry:
        from meshes.generate import reference_mesh_path

        return read_mesh(reference_mesh_path(spec.mesh))
    from meshes.generate import block_on_table

    layout = ({"layout": "refined", "nx": config.nx, "ny": config.ny} if config.nx is not None
              else {"layout": "reference"})
    try:
        path = block_on_table(out / "mesh.msh", half_width=config.width / 2, height=config.height,
                              element=_element(config), with_table=spec.with_table, **layout)
    except ValueError as err:  # the flags are checked (Config.validate): should gmsh's side refuse, name them
        raise BadInput(f"the mesh of --width {config.width:g} --height {config.height:g}"
                       f"{'' if config.nx is None else f' --nx {config.nx} --ny {config.ny}'}: {err}") from None
    return read_mesh(path)


def problem_of(config: Config, mesh: Mesh) -> Problem:
    """The modeling as a problem (fem.problem): the block (and for a, c, d the table, DY held on CTGROUND,
    DX on S1) and one contact pair: CONHAUT on CONBAS with Lagrange multipliers (a, d; d's continued at
    the velocity level for its release: MoreauJean), the augmented Lagrangian (c), or b's three shock
    springs O, A, O1 on the rigid floor y = 0 (docs/references.md, "SDNV105 b and c"; group
    SHOCK_NODES added to ``mesh``)."""
    spec = config.spec
    bodies = [Body("BLOCK", config.block_material())]
    supports = []
    if spec.with_table:
        bodies.append(Body("GROUN", config.table_material()))
        supports = [Support("CTGROUND", ("y",)), Support("S1", ("x",))]
    if spec.contact == "penalty":
        # modeling b: DIS_CHOC at O, A, O1 against the floor y = 0. Sticking stiffness: the file's
        # RIGI_TAN = 1e7 N/m makes the released block oscillate on its pivot spring at ~25 Hz (RN(O)
        # 4181 N, VY(O) -1911 N), which Code_Aster's b values do not show; a sticking spring as stiff as
        # RIGI_NOR reproduces them (RN(O) 3608 N vs 3604, KE max 7.2826 J at 0.054375 s vs 7.2831 J at
        # 0.054375 s), so that is the default (--rigi-tan).
        mesh.node_groups["SHOCK_NODES"] = np.concatenate([mesh.nodes(n) for n in ("O", "O1", "A")])
        law = Penalty(config.rigi_nor, config.mu, config.amor_nor, config.rigi_tan, config.amor_tan,
                      tension_allowed=True)
        pair = Pair("SHOCK_NODES", RigidPlane((0.0, 0.0), (0.0, 1.0)), law, name="base")
    else:
        law = (Augmented(config.mu) if spec.contact == "augmented" else MoreauJean(config.mu)
               if spec.contact == "theta" else Lagrange(config.mu))
        pair = Pair("CONHAUT", "CONBAS", law, name="base")
    # the block's contact nodes (CONHAUT) lose their mass with --mass redistributed; the table keeps
    # its consistent mass: its contact nodes lie one element above its supported base (all its other
    # nodes are collinear, no affine stencil exists) and the table is 167 times stiffer (README)
    return Problem(mesh, bodies, supports, [pair], gravity=G, mass=config.mass)


def build(config: Config) -> Study:
    """Mesh, problem, model and contact of a modeling (BadInput naming --mesh for a mesh that cannot
    make the problem: a crack, a floating part, a missing group)."""
    spec = config.spec
    mesh = _mesh_for(config, config.out)
    warnings = []
    if not spec.with_table and "GROUN" in mesh.cell_groups:
        warnings.append(f"--mesh {config.mesh}: its table (region GROUN) is ignored: modeling {config.modeling} "
                        f"has no table, the block's corners hit a rigid floor through shock springs")
    problem = problem_of(config, mesh)
    try:
        assembled = assemble(problem)
    except BadInput as err:
        text = str(err).removeprefix("mesh: ")
        raise BadInput(f"--mesh {config.mesh}: {text}" if config.mesh is not None else text) from None
    assembled.warnings = tuple(warnings) + tuple(assembled.warnings)
    slave = assembled.terms[0].zone.slave  # (its contact events are the stages': phases.preload_events)
    contact_index = {name: int(np.flatnonzero(slave == mesh.node(name))[0]) for name in ("O", "A")}
    return Study(config, problem, assembled, contact_index)
