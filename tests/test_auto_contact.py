"""Contact among bodies found from the mesh (fem.problem.Contact, a problem file's [[contacts]]; the search:
fem.problem.interfaces), instead of a pair stated per joint.

* The two-block stack on its table (examples/stack_of_two.toml, its record scaled by 8 so that the blocks
  rock, 0.02 rad in 0.6 s): the contacts found are the stated pairs' groups node for node, and the run is
  the stated pairs' run: every history column equal to 1e-9 (measured: to the bit; the pairs' columns under
  their new names, SLAVE/MASTER).
* The three bricks on their plinth (examples/bricks_on_plinth.toml): the four interfaces found are the four
  stated pairs, slave and master groups node for node (a brick's whole bottom on the whole top of the
  body under it, a wider one), stated in Python and in the file alike.
* A running-bond wall (meshes.assemblies): the interfaces found on its mesh join exactly the blocks its
  builder's geometry joins, a brick resting on two bricks below included; a head joint's master is the
  left brick's face.
* A stated pair and a contact joining the same two bodies, a body the problem does not have: refused on
  one line naming the key.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cases.problem_file import load
from contact.laws import Lagrange, Penalty
from fem.model.material import ElasticMaterial
from fem.problem import Body, Contact, Problem, Support, Uniform, assemble, simulate
from fem.ranges import BadInput
from meshes.assemblies import running_bond_wall, write

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _nodes(mesh, group: str) -> list[int]:
    return sorted(np.unique(mesh.cell_groups[group].connectivity).tolist())


def _found_as_stated(stated: Problem, found) -> dict:
    """Stated pair label -> found pair label, each found pair's slave and master groups holding the nodes of
    the stated pair's (asserted)."""
    mesh = found.mesh
    out = {}
    for p in stated.pairs:
        match = [q for q in found.problem.pairs
                 if _nodes(mesh, q.slave) == _nodes(mesh, p.slave) and _nodes(mesh, q.master) == _nodes(mesh, p.master)]
        assert len(match) == 1, p.label
        out[p.label] = match[0].label
    assert len(found.problem.pairs) == len(stated.pairs)
    return out


def test_the_stack_found_from_the_mesh_runs_as_its_stated_pairs():
    pf = load(EXAMPLES / "stack_of_two.toml", [("stages.shake.duration", "0.6"), ("stages.shake.x.scale", "8"),
                                                ("stages.shake.y.scale", "8")])
    stated = pf.problem
    laws = {p.name: p.law for p in stated.pairs}
    found = replace(stated, pairs=(), contacts=(Contact(laws["table"], ("GROUN", "BLOCK_1")),
                                                Contact(laws["joint"], ("BLOCK_1", "BLOCK_2"))))
    names = _found_as_stated(stated, assemble(found))
    assert names == {"table": "BLOCK_1/GROUN", "joint": "BLOCK_2/BLOCK_1"}
    settings = dict(steps=pf.steps, alpha=pf.alpha, alpha_fine=pf.alpha_fine, theta=pf.theta)
    one, two = simulate(stated, pf.stages, **settings), simulate(found, pf.stages, **settings)
    assert one.status == two.status == "complete"
    h1, h2 = one.history, two.history
    assert np.max(np.abs(h1["theta[BLOCK_2]"])) > 0.01  # the blocks rock: contacts open and close
    pair_columns = ("n_closed", "max_gap", "rn", "friction_demand", "penetration")  # the body "table" is a pair's name too
    for column, values in h1.items():
        quantity, _, label = column.rstrip("]").partition("[")
        other = f"{quantity}[{names[label]}]" if quantity in pair_columns and label in names else column
        np.testing.assert_allclose(h2[other], values, rtol=0, atol=1e-9, err_msg=column)
    search = two.contact_search["contacts"]
    assert [c["pairs"] for c in search] == [["BLOCK_1/GROUN"], ["BLOCK_2/BLOCK_1"]]
    assert all(c["interfaces"] == 1 and c["facing_edge_pairs"] > 0 for c in search)


def _bricks_file(tmp_path: Path) -> Path:
    """examples/bricks_on_plinth.toml with its four pairs replaced by one [[contacts]] table."""
    text = (EXAMPLES / "bricks_on_plinth.toml").read_text()
    start = text.index("pairs = [")
    end = text.index("\n\n", start)
    text = text[:start] + 'contacts = [{ law = "lagrange", mu = 0.7 }]' + text[end:]
    text = text.replace('mesh = "bricks_on_plinth.msh"', f'mesh = "{(EXAMPLES / "bricks_on_plinth.msh").as_posix()}"')
    text = text.replace('"records/', f'"{(EXAMPLES / "records").as_posix()}/')
    path = tmp_path / "bricks_auto.toml"
    path.write_text(text)
    return path


def test_the_bricks_on_their_plinth_find_their_four_stated_pairs(tmp_path):
    stated = load(EXAMPLES / "bricks_on_plinth.toml").problem
    in_python = replace(stated, pairs=(), contacts=(Contact(Lagrange(mu=0.7)),))
    names = _found_as_stated(stated, assemble(in_python))
    assert sorted(names.values()) == ["BRICK_1/PLINTH", "BRICK_2/BRICK_1", "BRICK_3/BRICK_2", "PLINTH/FLOOR"]
    in_file = load(_bricks_file(tmp_path)).problem
    assert in_file.contacts == (Contact(Lagrange(mu=0.7)),) and in_file.pairs == ()
    assert _found_as_stated(stated, assemble(in_file)) == names


def test_a_wall_finds_the_joints_its_geometry_has(tmp_path):
    wall = running_bond_wall(3, 3)
    stone = ElasticMaterial(young=3e10, poisson=0.2, density=2500.0)
    problem = Problem(write(wall, tmp_path / "wall.msh"), [Body(b.name, stone) for b in wall.bodies],
                      [Support(g) for g in wall.held], contacts=[Contact(Lagrange(mu=0.7))])
    found = assemble(problem)
    joined = {(j.slave_body, j.master_body) for j in wall.joints}
    assert {tuple(q.label.split("/")) for q in found.problem.pairs} == joined
    assert ("BRICK_2_2", "BRICK_1_1") in joined and ("BRICK_2_2", "BRICK_1_2") in joined  # on two bricks below
    assert ("BRICK_1_2", "BRICK_1_1") in joined  # a head joint: the left brick's face is the master
    [record] = found.contact_search["contacts"]
    assert record["interfaces"] == len(joined) and record["candidate_edge_pairs"] >= record["facing_edge_pairs"] > 0


def test_a_body_joined_twice_or_unknown_is_refused(tmp_path):
    stated = load(EXAMPLES / "bricks_on_plinth.toml").problem
    with pytest.raises(BadInput, match="contacts: the bodies BRICK_1 and PLINTH are joined by the stated pair"):
        assemble(replace(stated, pairs=stated.pairs[1:2], contacts=(Contact(Lagrange(mu=0.7), ("PLINTH", "BRICK_1")),)))
    with pytest.raises(BadInput, match="contacts.bodies: 'WALL' is not a body of the problem"):
        replace(stated, contacts=(Contact(Lagrange(mu=0.7), ("WALL",)),))
    path = _bricks_file(tmp_path)
    path.write_text(path.read_text().replace('contacts = [{ law = "lagrange", mu = 0.7 }]',
                                             'contacts = [{ law = "lagrange", mu = 0.7, bodies = ["BRICK_9"] }]'))
    with pytest.raises(BadInput, match=r"line \d+: contacts\[0\].bodies\[0\]: 'BRICK_9' is not a body's group"):
        load(path)


def test_blocks_touching_at_a_corner_only_are_not_joined(tmp_path):
    """A block LOW on the ground and a block HIGH on a pillar beside it, HIGH's bottom-left corner on LOW's
    top-right one: LOW's top and HIGH's bottom lie on one line, face to face, but meet at a point: no interface
    between them; HIGH rests on the pillar, both LOW and the pillar on the ground."""
    from meshes.bodies import Rectangle, write_bodies

    mesh = write_bodies(tmp_path / "corner.msh", [
        Rectangle("GROUND", -1.0, -0.5, 4.0, 0.5, size=0.5, edges={"GROUND_BOTTOM": "bottom"}),
        Rectangle("LOW", 0.0, 0.0, 1.0, 1.0, size=0.5), Rectangle("PILLAR", 1.5, 0.0, 0.5, 1.0, size=0.5),
        Rectangle("HIGH", 1.0, 1.0, 1.0, 1.0, size=0.5)])
    stone = ElasticMaterial(young=3e10, poisson=0.2, density=2500.0)
    problem = Problem(mesh, [Body(g, stone) for g in ("GROUND", "LOW", "PILLAR", "HIGH")], [Support("GROUND_BOTTOM")],
                      contacts=[Contact(Lagrange(mu=0.7))])
    found = assemble(problem)
    assert {q.label for q in found.problem.pairs} == {"LOW/GROUND", "PILLAR/GROUND", "HIGH/PILLAR"}
    # the pillar's whole top is HIGH's master; HIGH's slave its bottom's edges over the pillar alone
    mesh = found.mesh
    assert mesh.points[_nodes(mesh, "HIGH>PILLAR"), 0].min() == pytest.approx(1.5)
    assert sorted(mesh.points[_nodes(mesh, "PILLAR<HIGH"), 0]) == pytest.approx([1.5, 1.75, 2.0])


@pytest.mark.parametrize("law", [Lagrange(mu=0.8), Penalty(1e10, mu=0.8, tangential_stiffness=1e10)],
                         ids=["lagrange", "penalty"])
def test_a_merged_contact_runs_as_its_pairs(tmp_path, law):
    """Contact(merge=True): the joints of an arch of 7 voussoirs as one term give the run of one pair a
    joint (the same contact points, each on its own joint's master): the voussoirs' rotations to 1e-12 rad
    under a ramp to collapse, the same collapse multiplier and the same hinges, named joint by joint; one
    pair in the problem, its slave the line group of every joint's slave edges."""
    from cases.masonry_arch import arch_stages
    from fem.problem import Collapse
    from meshes.assemblies import arch

    vault = arch(7, 1.0, 0.2, size=10.0, base=False)
    mesh = write(vault, tmp_path / "arch.msh")
    stone = ElasticMaterial(young=2e10, poisson=0.2, density=2500.0)
    runs = []
    for merge in (False, True):
        problem = Problem(mesh, bodies=[Body(b.name, stone) for b in vault.bodies],
                          supports=[Support(g) for g in vault.held], contacts=[Contact(law, merge=merge)])
        assembled = assemble(problem)
        assert len(assembled.problem.pairs) == (1 if merge else 8)
        runs.append(simulate(problem, arch_stages(ramp_g=2.0, ramp_time=1.0), steps=Uniform(5e-3), collapse=Collapse()))
    one, two = runs
    assert one.status == two.status == "complete" and one.collapse["collapsed"] is True
    assert two.collapse["hinges"] == one.collapse["hinges"] and len(one.collapse["hinges"]) == 4
    assert two.collapse["collapse_multiplier"] == one.collapse["collapse_multiplier"]
    assert list(two.pairs) == ["CONTACT_1"] and two.contact_search["contacts"][0]["merged_into"] == "CONTACT_1"
    for column, values in one.history.items():
        if column.startswith("theta["):
            np.testing.assert_allclose(two.history[column], values, rtol=0, atol=1e-12, err_msg=column)


def test_a_merged_wall_presses_each_corner_on_its_own_joints(tmp_path):
    """A two-course wall under its weight with penalty joints, merged and pair by pair: the same preloaded
    displacements to round-off. Where a head joint ends on a bed joint a brick's corner node is a slave
    of both joints: merged, it is two contact points, each pairing on its own joint's master only."""
    from fem import Preload

    wall = running_bond_wall(2, 3, size=0.2)
    mesh = write(wall, tmp_path / "wall.msh")
    stone = ElasticMaterial(young=1e10, poisson=0.2, density=2000.0)
    law = Penalty(1e8, mu=0.7, tangential_stiffness=1e8)
    states = []
    for merge in (False, True):
        problem = Problem(mesh, bodies=[Body(b.name, stone) for b in wall.bodies],
                          supports=[Support(g) for g in wall.held], contacts=[Contact(law, merge=merge)])
        out = simulate(problem, [Preload()])
        assert out.status == "complete", out.message
        states.append(out.state.u)
    zone = assemble(problem).terms[0].zone
    assert zone.slave.size > np.unique(zone.slave).size  # corner nodes on two joints: a point on each
    scale = np.abs(states[0]).max()
    assert scale > 0 and np.abs(states[1] - states[0]).max() <= 1e-9 * scale


def test_the_wall_example_states_205_bricks_in_30_lines(tmp_path):
    """examples/masonry_wall.py: at most 30 lines; its wall assembles into 205 bricks on a held base, its 575
    joints found and merged into the one pair JOINTS, its record 10 s with a vertical component."""
    import importlib.util

    path = EXAMPLES / "masonry_wall.py"
    assert len(path.read_text().splitlines()) <= 30
    spec = importlib.util.spec_from_file_location("masonry_wall", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    wall = example.wall
    problem = Problem(write(wall, tmp_path / "wall.msh"), bodies=[Body(b.name, example.stone) for b in wall.bodies],
                      supports=[Support(g) for g in wall.held], contacts=[example.joints])
    assembled = assemble(problem)
    assert len(wall.bodies) == 206 and [p.label for p in assembled.problem.pairs] == ["JOINTS"]
    assert assembled.contact_search["contacts"][0]["interfaces"] == 575 == len(assembled.terms[0].zone.joints)
    assert example.shake.duration == 10.0 and example.shake.y is not None


@pytest.mark.slow
def test_the_bricks_on_their_plinth_found_from_the_mesh_run_as_their_stated_pairs():
    """examples/bricks_on_plinth.toml's first 0.6 s at 8 times its record (the top bricks lift, rock and land:
    an impact), its four stated pairs against one Contact over every body: the same history to 1e-9, pair
    columns matched by their groups. (Its record alone moves nothing in 0.6 s; a slow test: 1,246 steps.)"""
    pf = load(EXAMPLES / "bricks_on_plinth.toml", [("stages.shake.duration", "0.6"), ("stages.shake.x.scale", "8"),
                                                    ("stages.shake.y.scale", "8")])
    stated = pf.problem
    found = replace(stated, pairs=(), contacts=(Contact(Lagrange(mu=0.7)),))
    names = _found_as_stated(stated, assemble(found))
    settings = dict(steps=pf.steps, alpha=pf.alpha, alpha_fine=pf.alpha_fine, theta=pf.theta)
    one, two = simulate(stated, pf.stages, **settings), simulate(found, pf.stages, **settings)
    assert one.status == two.status == "complete" and one.impacts and one.bodies["BRICK_3"]["max_rotation"] > 1e-3
    pair_columns = ("n_closed", "max_gap", "rn", "friction_demand", "penetration")
    for column, values in one.history.items():
        quantity, _, label = column.rstrip("]").partition("[")
        other = f"{quantity}[{names[label]}]" if quantity in pair_columns and label in names else column
        np.testing.assert_allclose(two.history[other], values, rtol=0, atol=1e-9, err_msg=column)
