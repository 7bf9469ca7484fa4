"""Each body its own mass matrix (fem.problem.Body.mass; issue 28: "bodies (material, mass option
consistent / lumped / redistributed)").

Two SDNV105 blocks stacked on a table (examples/stack_of_two.msh): the table consistent, the lower
block HRZ-lumped, the upper one redistributed (the slave nodes of its joint massless). Whatever its
kind, each body keeps the rigid-body inertia of its consistent mass: the kinetic energy of every rigid
motion, hence its mass, centre of mass and polar moment of inertia (fem.model.mass: P reproduces affine
fields; HRZ lumping scales the diagonal to the element's mass and keeps the centre of a symmetric
element). Then: the lumped block's mass is diagonal, the table's is not, the upper block's joint nodes
carry no mass and its joint's contact events are located (massless nodes), the table's pair is not.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from contact.laws import Lagrange
from fem.model.mass import inertia_invariants
from fem.model.material import ElasticMaterial
from fem.problem import Body, Pair, Problem, Support, assemble
from fem.ranges import BadInput

MESH = Path(__file__).resolve().parents[1] / "examples" / "stack_of_two.msh"
GRAPHITE = ElasticMaterial(6e11, 0.2, 1450.0)
TABLE = ElasticMaterial(1e14, 0.3, 2500.0)
PAIRS = [Pair("CONHAUT", "CONBAS", Lagrange(0.9), name="table"),
         Pair("JOINT_1_ESCL", "JOINT_1_MAIT", Lagrange(0.6), name="joint")]


def stack(table=None, lower=None, upper=None, mass="consistent"):
    return assemble(Problem(MESH, [Body("GROUN", TABLE, mass=table), Body("BLOCK_1", GRAPHITE, mass=lower),
                                   Body("BLOCK_2", GRAPHITE, mass=upper)],
                            [Support("CTGROUND")], PAIRS, mass=mass))


def dofs(a, group) -> np.ndarray:
    nodes = np.unique(a.mesh.cell_groups[group].connectivity) if group in a.mesh.cell_groups else a.mesh.nodes(group)
    return (2 * nodes[:, None] + np.arange(2)).ravel()


def test_each_body_keeps_its_rigid_inertia_whatever_its_mass_kind():
    mixed, consistent = stack(lower="lumped", upper="redistributed"), stack()
    points = mixed.mesh.points[:, :2]
    got = {b: inertia_invariants(mixed.model.mass, points, dofs(mixed, b)) for b in ("GROUN", "BLOCK_1", "BLOCK_2")}
    want = {b: inertia_invariants(consistent.model.mass, points, dofs(consistent, b)) for b in got}
    for body in got:
        for key in ("mass", "x", "y") if body == "BLOCK_1" else ("mass", "x", "y", "inertia"):
            assert got[body][key] == pytest.approx(want[body][key], rel=1e-12, abs=1e-12), (body, key)
    # the lumped block: the polar moment of its nodal masses about its centre, above the consistent one's
    x = dofs(mixed, "BLOCK_1")[0::2]
    m = mixed.model.mass.diagonal()[x]
    r2 = np.sum((points[x // 2] - [got["BLOCK_1"]["x"], got["BLOCK_1"]["y"]]) ** 2, axis=1)
    assert got["BLOCK_1"]["inertia"] == pytest.approx(float(m @ r2), rel=1e-12)
    assert got["BLOCK_1"]["inertia"] > want["BLOCK_1"]["inertia"]


def test_the_kinds_are_the_bodies_own():
    a = stack(lower="lumped", upper="redistributed")
    M = a.model.mass.tocsr()
    lower, table = dofs(a, "BLOCK_1"), dofs(a, "GROUN")
    block = M[lower][:, lower]
    assert abs(block - np.diag(block.diagonal())).max() == 0  # lumped: diagonal
    table_block = M[table][:, table]
    assert abs(table_block - np.diag(table_block.diagonal())).max() > 0  # consistent: not
    joint = dofs(a, "JOINT_1_ESCL")
    assert set(a.model.massless_dofs.tolist()) == set(joint.tolist())
    assert abs(M[joint]).max() == 0
    table_term, joint_term = a.terms
    assert (table_term.closing, joint_term.closing) == ("immediate", "located")
    # the problem's kind for the bodies that state none
    b = stack(upper="consistent", mass="redistributed")
    assert set(b.model.massless_dofs.tolist()) == set(dofs(b, "CONHAUT").tolist())
    assert stack(table="lumped", lower="lumped", upper="lumped").model.mass_kind == "lumped"


def test_a_wrong_mass_kind_is_refused_naming_the_body():
    with pytest.raises(BadInput, match=r"bodies\.BLOCK_2\.mass: 'diagonal' is not one of consistent, lumped, "
                                       r"redistributed"):
        stack(upper="diagonal")


def test_a_problem_file_states_a_bodys_mass():
    """The TOML key bodies[].mass (cases/problem_file/__init__.py): read into Body.mass; a wrong kind refused on
    one line naming the key."""
    from cases import problem_file

    example = MESH.with_suffix(".toml")
    pf = problem_file.load(example, [("bodies.BLOCK_2.mass", "lumped")])
    assert {b.group: b.mass for b in pf.problem.bodies} == {"GROUN": None, "BLOCK_1": None, "BLOCK_2": "lumped"}
    with pytest.raises(BadInput, match=r"bodies\[2\]\.mass.*expected one of \"consistent\", \"lumped\", "
                                       r"\"redistributed\", got \"diagonal\""):
        problem_file.load(example, [("bodies.BLOCK_2.mass", "diagonal")])
