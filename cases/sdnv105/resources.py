"""SDNV105 — what a run will cost, before anything is built (:func:`resource_estimate`).

Its steps (the preload phases, the release at its fine step inside the windows and its coarse step
outside) and memory from the mesh's size (the checked-in meshes, a --mesh file's size, or the
--nx x --ny mesh counted from the flags, :func:`refined_mesh_size`), for
fem.run.lifecycle.check_resources.
"""
from __future__ import annotations

from fem.run.lifecycle import Estimate, count_steps, estimate
from cases.sdnv105.config import Config
from cases.sdnv105.phases import SCHEDULES, schedule


def resource_estimate(config: Config) -> Estimate:
    """Steps of the run (preload phases, then the release at its fine step inside the windows and
    its coarse step outside) and memory, before anything is built (the SDNV105 meshes have 25 to
    a few hundred nodes unless --mesh says otherwise)."""
    steps = count_steps([(-1.95, -0.825, 0.0075), (-1.05, 0.0, 0.0075)])
    windows = list(schedule(SCHEDULES.get(config.modeling, SCHEDULES["a"]), config.t_end))
    fine = sum(w.t_end - w.t_start for w in windows if w.step == "fine")
    if config.spec.contact == "theta":
        steps += count_steps([(0.0, config.t_end, config.dt)])
    else:
        steps += count_steps([(0.0, fine, config.dt_fine), (0.0, max(config.t_end - fine, 0.0), config.dt)])
    nodes, cells = 60, 40
    if config.nx is not None:
        nodes, cells = refined_mesh_size(config)
    elif config.mesh is not None:
        try:
            size = config.mesh.stat().st_size
        except OSError:
            size = 0
        nodes, cells = size / 30.0, size / 60.0  # a .msh line is >= 30 bytes a node, >= 60 a cell
    return estimate(nodes, cells, 8 if config.modeling == "b" else 4, steps, row_bytes=4000.0)


def refined_mesh_size(config: Config) -> tuple[float, float]:
    """Nodes and surface cells of the --nx x --ny mesh (meshes.generate.refined_block_grid and
    refined_table_grid), from the flags alone, as floats (absurd counts do not overflow and are
    refused by the resource check before gmsh runs): the block's nx x ny quadrilaterals (b: two
    TRIA6 each, with mid-side nodes), and for a table nx / 2 + nx + nx / 2 columns of the block's
    element width, about max(1, 0.08 m / (width / nx)) rows deep."""
    nx, ny = float(min(config.nx, 10**300)), float(min(config.ny, 10**300))
    if not config.spec.with_table:  # b: TRIA6 block only
        return (2.0 * nx + 1.0) * (2.0 * ny + 1.0), 2.0 * nx * ny
    deep = max(1.0, 0.08 * nx / config.width)
    return (nx + 1.0) * (ny + 1.0) + (2.0 * nx + 1.0) * (deep + 1.0), nx * ny + 2.0 * nx * deep
