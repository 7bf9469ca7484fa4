"""Node groups made of the mesh's groups (fem.problem.Problem.node_groups, the problem file's [node_groups]):
Code_Aster's DEFI_GROUP UNION, so that a pair's slave, a support or a spring may gather nodes of several groups
(SDNV105 b's shock springs at O, A and O1: cases/sdnv105b.toml, run against its case script in
tests/test_sdnv105_problem_files_bcd.py).

* Three point masses, two of them (P, Q) gathered in FEET on penalty springs of stiffness K on a rigid floor,
  the third held: statically each foot sinks by its own weight over K, m g / K (to round-off), the held
  one not at all. Without the group the pair has no slave; with R left out of it, R (unsupported in y)
  would float: the group is exactly the union asked.
* A name the mesh has already, a group it does not have, or anything but a list of names is refused on one
  line naming ``node_groups.NAME`` (in a file: its line).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cases.problem_file import load
from contact.laws import Penalty
from contact.zone import RigidPlane
from fem.mesh.mesh import Mesh
from fem.problem import Pair, Preload, Problem, Support, assemble, simulate
from fem.problem.definition import with_node_groups
from fem.ranges import BadInput

G, K = 9.81, 1e6
MASSES = {"P": 2.0, "Q": 3.0, "R": 5.0}


def three_nodes() -> Mesh:
    return Mesh(np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.5]]), {}, {g: np.array([i]) for i, g in enumerate(MASSES)})


def feet_problem(node_groups) -> Problem:
    return Problem(three_nodes(), bodies=(), point_masses=MASSES, gravity=G,
                   supports=[Support("P", ("x",)), Support("Q", ("x",)), Support("R", ("x", "y"))],
                   pairs=[Pair("FEET", RigidPlane((0.0, 0.0), (0.0, 1.0)), Penalty(K), name="floor")],
                   node_groups=node_groups)


def test_each_foot_of_the_group_sinks_by_its_own_weight_over_the_stiffness():
    out = simulate(feet_problem({"FEET": ("P", "Q")}), [Preload()])
    assert out.status == "complete", out.message
    uy = out.state.u.reshape(-1, 2)[:, 1]
    np.testing.assert_allclose(uy, [-MASSES["P"] * G / K, -MASSES["Q"] * G / K, 0.0], rtol=1e-12, atol=1e-18)


def test_the_group_is_the_union_of_its_parts_nodes():
    mesh = with_node_groups(three_nodes(), {"FEET": ("R", "P", "P")})
    assert mesh.node_groups["FEET"].tolist() == [0, 2]
    assert "FEET" not in three_nodes().node_groups  # the mesh given is left as it was
    assert assemble(feet_problem({"FEET": ("P", "Q")})).terms[0].zone.slave.tolist() == [0, 1]


@pytest.mark.parametrize("groups, said", [
    ({"P": ("Q",)}, "node_groups.P: the mesh has a group of that name already"),
    ({"FEET": ("P", "S")}, "node_groups.FEET: the mesh has no group 'S'; it has: P, Q, R"),
])
def test_a_name_taken_or_a_part_missing_is_refused_naming_the_group(groups, said):
    with pytest.raises(BadInput, match=said.replace("(", r"\(")):
        assemble(feet_problem(groups))


@pytest.mark.parametrize("parts", ["P", (), ("P", 3)])
def test_anything_but_a_list_of_names_is_refused(parts):
    with pytest.raises(BadInput, match="node_groups.FEET: expected a list of group names"):
        feet_problem({"FEET": parts})


FILE = """mesh = "{mesh}"
gravity = 9.81
bodies = [{{ group = "BLOCK", material = "graphite" }}]

[node_groups]
CORNERS = {corners}

[materials]
graphite = {{ young = 6e11, poisson = 0.2, density = 1450.0 }}

[[pairs]]
slave = "CORNERS"
plane = {{ point = [0.0, 0.0], normal = [0.0, 1.0] }}
law = "penalty"
normal_stiffness = 3e10
tangential_stiffness = 3e10
mu = 0.9

[[stages]]
kind = "preload"
"""


def _file(tmp_path, corners: str):
    mesh = Path(__file__).resolve().parents[1] / "meshes" / "sdnv105_block_tri6.msh"
    path = tmp_path / "corners.toml"
    path.write_text(FILE.format(mesh=mesh.as_posix(), corners=corners))
    return path


def test_a_file_gathers_the_corners_in_one_slave(tmp_path):
    pf = load(_file(tmp_path, '["O", "A"]'))
    assert pf.problem.node_groups == {"CORNERS": ("O", "A")}
    assembled = pf.assemble()
    mesh = assembled.mesh
    assert sorted(assembled.terms[0].zone.slave.tolist()) == sorted([mesh.node("O"), mesh.node("A")])


@pytest.mark.parametrize("corners, said", [
    ('"O"', 'line 6: node_groups.CORNERS: expected a list of group names (e.g. ["O", "A"]), got "O"'),
    ('["O", "Z"]', "node_groups.CORNERS: the mesh has no group 'Z'"),
])
def test_a_file_names_the_key_of_a_wrong_group(tmp_path, corners, said):
    with pytest.raises(BadInput, match=said.replace("(", r"\(").replace("[", r"\[").replace(")", r"\)")):
        load(_file(tmp_path, corners)).assemble()
