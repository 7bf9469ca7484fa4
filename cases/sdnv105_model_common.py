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

from contact.multipliers import MultiplierContact
from contact.penalty import ShockLaw, ShockSprings
from contact.zone import RigidPlane, contact_zone, node_zone
from fem.mesh.mesh import Mesh
from fem.mesh.check import check_mesh
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.run.lifecycle import BadInput
from cases.sdnv105_config_common import Config


@dataclass
class Study:
    """Everything built for a run."""

    config: Config
    mesh: object
    model: Model
    contact: object  # MultiplierContact or ShockSprings
    contact_index: dict[str, int]  # position of O, A in the contact state arrays
    warnings: tuple[str, ...] = ()  # suspicious but usable input (printed, not fatal)


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


def build(config: Config) -> Study:
    """Mesh, model and contact of a modeling."""
    spec = config.spec
    mesh = _mesh_for(config, config.out)
    warnings = []
    regions = {"BLOCK": config.block_material()}
    if spec.with_table:
        regions["GROUN"] = config.table_material()
    elif "GROUN" in mesh.cell_groups:
        warnings.append(f"--mesh {config.mesh}: its table (region GROUN) is ignored: modeling {config.modeling} "
                        f"has no table, the block's corners hit a rigid floor through shock springs")
    # a crack (unmerged duplicate nodes) or a floating part would make the system singular: refuse
    # it here, naming the nodes (fem.mesh.check); b's block is held by its three shock springs
    used = Mesh(mesh.points, {k: v for k, v in mesh.cell_groups.items() if k in regions or v.dim == 1},
                mesh.node_groups)
    try:
        warnings += check_mesh(used, ("CTGROUND", "S1") if spec.with_table else ("O", "O1", "A"),
                               (("CONHAUT", "CONBAS"),) if spec.with_table else ())
    except ValueError as err:
        raise BadInput(f"--mesh {config.mesh}: {err}" if config.mesh is not None else str(err)) from None
    redistributed = config.mass == "redistributed"
    # the block's contact nodes (CONHAUT) lose their mass; the table keeps its consistent mass: its
    # contact nodes lie one element above its supported base (all its other nodes are collinear, no
    # affine stencil exists) and the table is 167 times stiffer than the block (README)
    model = Model(mesh, regions, mass=config.mass, massless=("CONHAUT",) if redistributed else ())
    if spec.contact == "penalty":
        # modeling b (sdnv105.md §1.4): DIS_CHOC at O, A, O1 against the floor y = 0. Sticking
        # stiffness: the file's RIGI_TAN = 1e7 N/m makes the released block oscillate on its pivot
        # spring at ~25 Hz (RN(O) 4181 N, VY(O) -1911 N), which Code_Aster's b values do not show;
        # a sticking spring as stiff as RIGI_NOR reproduces them (RN(O) 3608 N vs 3604, KE max
        # 7.2826 J at 0.054375 s vs 7.2831 J at 0.054375 s), so that is the default (--rigi-tan).
        law = ShockLaw(normal_stiffness=config.rigi_nor, normal_damping=config.amor_nor,
                       tangential_stiffness=config.rigi_tan, tangential_damping=config.amor_tan, friction=config.mu)
        mesh.node_groups["SHOCK_NODES"] = np.concatenate([mesh.nodes(n) for n in ("O", "O1", "A")])
        zone = node_zone(mesh, "SHOCK_NODES", RigidPlane((0.0, 0.0), (0.0, 1.0)))
        contact = ShockSprings(model, zone, law)
    else:
        zone = contact_zone(mesh, "CONHAUT", "CONBAS")
        method = "augmented" if spec.contact == "augmented" else "lagrange"
        contact = MultiplierContact(model, zone, friction=config.mu, method=method)
    slave = contact.zone.slave
    contact_index = {name: int(np.flatnonzero(slave == mesh.node(name))[0]) for name in ("O", "A")}
    return Study(config, mesh, model, contact, contact_index, tuple(warnings))


def contact_node_name(study: Study, k: int | None) -> str:
    """The name of contact node ``k`` (index in the contact's slave arrays): its one-node group of
    the mesh (O, O10, O1, O11, A), else its node number."""
    if k is None:
        return "-"
    node = int(study.contact.zone.slave[k])
    names = [g for g, nodes in study.mesh.node_groups.items() if len(nodes) == 1 and int(nodes[0]) == node]
    return names[0] if names else f"{node}"
