"""Case scripts run end to end and their numbers are asserted."""
import json
from pathlib import Path

import meshio
import numpy as np
import pytest

from fem.material import ElasticMaterial
from fem.mesh_io import read_mesh
from fem.model import Model
from fem.results import read_history, read_pvd
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
    # the run is at rest at the end: HHT alpha = -0.3 has damped the ramp transient
    h = read_history(tmp_path / "history.csv")
    assert h["ke"][-1] < 1e-12
    assert h["t"][0] == -1.95 and h["t"][-1] == pytest.approx(-0.825)
    assert h["t"].size == 151
    # ParaView series: archived every 10 steps plus the initial state, physical times
    steps = read_pvd(tmp_path / "solution.pvd")
    assert len(steps) == 16
    np.testing.assert_allclose([t for t, _ in steps], -1.95 + 0.0075 * np.r_[0:151:10], atol=1e-12)
    last = meshio.read(steps[-1][1])
    assert last.point_data["displacement"].shape == (25, 3)
    assert (tmp_path / "preload.png").stat().st_size > 0


@pytest.mark.parametrize("flags, message", [
    (["--young", "-1"], "--young (block Young's modulus) must be > 0 Pa, got -1"),
    (["--dt", "0"], "--dt (time step) must be > 0 s, got 0"),
    (["--dt", "-1e-3"], "--dt (time step) must be > 0 s, got -0.001"),
    (["--poisson", "0.5"], "--poisson"),
    (["--alpha", "0.2"], "--alpha"),
    (["--t-end", "-2"], "--t-end"),
    (["--mesh", "missing.msh"], "--mesh missing.msh: no such file"),
])
def test_case_rejects_bad_input(tmp_path, capsys, flags, message):
    """Refused before anything is written, one line naming the flag (fem.run exit code 2)."""
    case = load_case("sdnv105_preload")
    assert case.main(["--out", str(tmp_path / "out"), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_sdnv105_preload_custom(tmp_path):
    """Another block modulus: a custom run, the 1-D column recomputed for it, no Code_Aster value."""
    case = load_case("sdnv105_preload")
    assert case.main(["--out", str(tmp_path), "--young", "3e11", "--quiet"]) == 0
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["status"] == "complete" and s["configuration"] == "custom" and s["departures"] == ["--young"]
    assert s["dy_C1_code_aster"] is None
    assert [c["source"] for c in s["checks"]] == ["M g (static equilibrium)", "1-D column -rho g (2l)^2 / (2E)"]
    assert s["dy_C1_column_1d"] == pytest.approx(-1450 * 9.81 * 0.8**2 / (2 * 3e11), rel=1e-12)
    assert all(c["within_tolerance"] for c in s["checks"])


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
