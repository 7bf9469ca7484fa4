"""Case scripts run end to end and their numbers are asserted.

The command line of every script (bad input, --force, custom configurations, every flag) is
tests/test_contract.py; here the self-weight phase of SDNV105 on its own, and the reference meshes.
"""
import json
from pathlib import Path

import meshio
import numpy as np
import pytest

from fem.model.material import ElasticMaterial
from fem.mesh.read import read_mesh
from fem.model.assembly import Model
from fem.io.results import read_history, read_series
from meshes.generate import reference_mesh_path

from helpers import GRAPHITE, load_case, rotation

CASES = Path(__file__).resolve().parents[1] / "cases"


def test_sdnv105_preload(tmp_path):
    case = load_case("sdnv105_preload")
    assert case.main(["--out", str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    # contact-free stand-in: the base support carries exactly the block weight
    assert summary["reaction_rel_error"] < 1e-10
    # DY(C1): the 1-D column value -rho g (2l)^2/(2E) up to the Poisson/base-restraint effect of a
    # 2 x 4 mesh (0.3 %), and Code_Aster's value (which includes the table) to 0.5 %
    assert summary["dy_C1"] == pytest.approx(summary["dy_C1_column_1d"], rel=5e-3)
    assert summary["dy_C1"] == pytest.approx(summary["dy_C1_code_aster"], rel=5e-3)
    assert summary["status"] == "complete" and summary["configuration"] == "benchmark"
    assert [c["within_tolerance"] for c in summary["checks"]] == [True, True, True]
    # the run is at rest at the end: HHT alpha = -0.3 has damped the ramp transient (0.825 s of
    # constant load after the 0.3 s ramp): the last steps no longer move C1 (1e-9 of its settlement;
    # read from DY(C1), not from the energy columns, which are being renamed)
    h = read_history(tmp_path / "history.csv")
    assert np.abs(np.diff(h["dy_C1"][-10:])).max() < 1e-9 * abs(h["dy_C1"][-1])
    assert h["t"][0] == -1.95 and h["t"][-1] == pytest.approx(-0.825)
    assert h["t"].size == 151
    # ParaView series: archived every 10 steps plus the initial state, physical times
    steps = read_series(tmp_path / "solution.xdmf")
    assert len(steps) == 16
    np.testing.assert_allclose([t for t, _ in steps], -1.95 + 0.0075 * np.r_[0:151:10], atol=1e-12)
    last = steps[-1][1]
    assert last.point_data["displacement"].shape == (25, 3)
    assert (tmp_path / "preload.png").stat().st_size > 0


@pytest.mark.parametrize("name", ["sdnv105_quad4", "sdnv105_block_tri6"])
@pytest.mark.parametrize("theta", [0.01, 1.0])
def test_rigid_rotation_of_the_reference_block(name, theta):
    """The benchmark's own meshes: a rigid rotation of the block about O gives no internal force
    (total Lagrangian); the small-strain model does."""
    mesh = read_mesh(reference_mesh_path(name))
    model = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)})
    nodes = mesh.nodes("BLOCK")
    u = np.zeros(model.n_dofs)
    X = mesh.points[nodes]
    u.reshape(-1, 2)[nodes] = X @ rotation(theta).T - X
    area = 0.36 * 0.80
    assert np.abs(model.forces(u, tangent=False).internal).max() < 1e-9 * GRAPHITE["young"] * area
    lin = Model(mesh, {"BLOCK": ElasticMaterial(**GRAPHITE)}, kinematics="small_strain")
    assert np.abs(lin.forces(u, tangent=False).internal).max() > 1e-3 * (1 - np.cos(theta)) * GRAPHITE["young"] * area
