"""Mesh size from the command line (issue 9): ``python -m meshes.generate --layout refined --nx NX
--ny NY --out FILE.msh`` and ``--nx NX --ny NY`` on the SDNV105 scripts, which generate a uniform
block into the run's folder and say so in summary.json and report.md; the stepping time of a run
(fem.io.recorder.timed_steps, summary.json's ``run.stepping_s``). The scripts run as subprocesses, as
a user runs them.

The contract rows of the --nx / --ny flags (tests/test_contract.py requires a run of every flag of
every script's --help) are :data:`CONTRACT_FLAG_RUNS`, imported there::

    from test_mesh_size_cli import CONTRACT_FLAG_RUNS as MESH_SIZE_FLAG_RUNS
    FLAG_RUNS += [FlagRun(script, name, argv, check) for script, name, argv, check in MESH_SIZE_FLAG_RUNS]
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

import numpy as np
import pytest

from contact.references import rocking
from fem.mesh.read import read_mesh
from fem.io.recorder import timed_steps
from meshes.generate import reference_mesh_path
from test_sdnv105_run import _run, _summary

ROOT = Path(__file__).resolve().parents[1]
WIDTH, HEIGHT, DEPTH = 0.36, 0.80, 0.08
#: node groups of the benchmark's 4-column layout that a uniform block has not (its columns at b -+ b/9)
REFERENCE_ONLY = {"O10", "O11", "C10", "C11"}


def generate(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m meshes.generate args`` from ``cwd`` (the checkout on the path, installed or not)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "meshes.generate", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd, env=env)


def table_rows(nx: int) -> int:
    """Rows of the refined layout's table: its depth over the block's element width, at least one."""
    return max(1, round(DEPTH / (WIDTH / nx)))


def refined_nodes(nx: int, ny: int, element: str = "quad4", with_table: bool = True) -> int:
    """Nodes of meshes.generate's refined layout, counted by hand: the block's (nx + 1) (ny + 1)
    grid (TRIA6: (2 nx + 1) (2 ny + 1) with the mid-side nodes); the table below it has nx / 2 +
    nx + nx / 2 columns of the block's element width and :func:`table_rows` rows (QUA4)."""
    block = (2 * nx + 1) * (2 * ny + 1) if element == "tri6" else (nx + 1) * (ny + 1)
    return block + ((2 * nx + 1) * (table_rows(nx) + 1) if with_table else 0)


def assert_one_error_line(proc: subprocess.CompletedProcess, *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert all(w in lines[0] for w in words), (words, lines[0])
    return lines[0]


# ----------------------------------------------------------------------------------- meshes.generate
@pytest.mark.parametrize("nx, ny, element, table, reference", [
    (4, 8, "quad4", "--with-table", "sdnv105_quad4"),
    (6, 3, "quad4", "--with-table", "sdnv105_quad4"),
    (4, 8, "tri6", "--no-table", "sdnv105_block_tri6"),
])
def test_the_command_line_writes_the_refined_mesh(nx, ny, element, table, reference, tmp_path):
    """The file is read by fem.mesh.read.read_mesh, with the reference mesh's cell groups and node
    groups (but the four nodes of its off-centre columns), the node and cell counts of (nx, ny), the
    block [0, 0.36] x [0, 0.80] with O1 at its base centre; stdout names the file and the counts."""
    out = tmp_path / "sub" / "block.msh"
    proc = generate("--layout", "refined", "--nx", str(nx), "--ny", str(ny), "--element", element, table,
                    "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    mesh = read_mesh(out)
    ref = read_mesh(reference_mesh_path(reference))
    assert set(mesh.cell_groups) == set(ref.cell_groups)
    assert set(mesh.node_groups) == set(ref.node_groups) - REFERENCE_ONLY
    with_table = table == "--with-table"
    assert mesh.n_nodes == refined_nodes(nx, ny, element, with_table)
    cells = nx * ny * (2 if element == "tri6" else 1)
    assert len(mesh.cells("BLOCK").connectivity) == cells
    assert mesh.cells("BLOCK").cell_type == ("triangle6" if element == "tri6" else "quad")
    assert len(mesh.cells("CONHAUT").connectivity) == nx
    xy = mesh.points[mesh.nodes("BLOCK"), :2]
    np.testing.assert_allclose([xy.min(axis=0), xy.max(axis=0)], [[0.0, 0.0], [WIDTH, HEIGHT]], atol=1e-15)
    np.testing.assert_allclose(mesh.points[mesh.node("O1"), :2], [WIDTH / 2, 0.0], atol=1e-15)
    total = cells + (2 * nx * table_rows(nx) if with_table else 0)
    assert len(proc.stdout.splitlines()) == 1 and proc.stdout.startswith(f"{out}: {mesh.n_nodes} nodes, {total} cells")


OUT = "OUT"  # replaced by a file in the test's folder


@pytest.mark.parametrize("args, words", [
    (["--layout", "refined", "--nx", "3", "--ny", "8", "--out", OUT], ("--nx", "even", "got nx = 3")),
    (["--layout", "refined", "--nx", "0", "--ny", "8", "--out", OUT], ("--nx", ">= 1", "got 0")),
    (["--layout", "refined", "--nx", "-4", "--ny", "8", "--out", OUT], ("--nx", ">= 1")),
    (["--layout", "refined", "--nx", "4", "--ny", "0", "--out", OUT], ("--ny", ">= 1")),
    (["--layout", "reference", "--nx", "8", "--out", OUT], ("--nx", "--layout refined")),
    (["--element", "hex8", "--out", OUT], ("--element", "invalid choice", "hex8")),
    (["--layout", "refined", "--nx", "4", "--out", "/proc/rockfem/block.msh"], ("--out /proc/rockfem/block.msh",)),
    (["--layout", "refined", "--nx", "4", "--out", "block.vtk"], ("--out", ".msh")),
    (["--layout", "refined", "--nx", "4"], ("--out", "required")),
])
def test_bad_input_is_one_line_and_exit_2(args, words, tmp_path):
    args = [str(tmp_path / "block.msh") if a == OUT else a for a in args]
    assert_one_error_line(generate(*args, cwd=tmp_path), *words)
    assert list(tmp_path.iterdir()) == []  # nothing written


# ----------------------------------------------------------------------------------- SDNV105 --nx --ny
def test_sdnv105a_runs_on_a_refined_block_and_says_so(tmp_path):
    """--nx 4 --ny 8 to 3 ms after the release: the mesh generated into the run's folder (the
    summary's file, node and dof counts, the report's Mesh line); a departure from the benchmark
    (custom: no Code_Aster value), graded against the rigid block of the benchmark's own geometry;
    the stepping time inside the wall time."""
    out = tmp_path / "a"
    proc = _run("a", "--nx", "4", "--ny", "8", "--t-end", "0.003", "--no-paraview", "--out", str(out), cwd=tmp_path,
                timeout=60)
    assert proc.returncode == 0, proc.stderr
    s = _summary(out)
    assert s["status"] == "complete" and s["configuration"] == "custom" and s["departures"] == ["--nx", "--ny"]
    assert (s["parameters"]["nx"], s["parameters"]["ny"], s["parameters"]["mesh"]) == (4, 8, None)
    mesh = read_mesh(out / "mesh.msh")
    assert mesh.n_nodes == refined_nodes(4, 8)
    assert s["mesh"] == {"source": "generated", "file": str(out / "mesh.msh"), "layout": "refined",
                         "element": "quad4", "with_table": True, "nx": 4, "ny": 8, "benchmark_mesh": False,
                         "nodes": mesh.n_nodes, "cells": 40, "dofs": 2 * mesh.n_nodes}
    report = (out / "report.md").read_text()
    assert f"Mesh: a uniform block of 4 x 8 QUA4 on the table (--nx 4 --ny 8: not the benchmark's mesh), " \
           f"generated into `{out / 'mesh.msh'}` ({mesh.n_nodes} nodes, 40 cells, {2 * mesh.n_nodes} dofs)." in report
    rigid = rocking.rock(WIDTH / 2, HEIGHT / 2, 0.01, model="nonlinear", n_impacts=1)
    assert s["checks"][0]["reference_rigid"] == pytest.approx(rigid.impact_times[0], rel=1e-12)
    assert all(c["code_aster"] is None for c in s["checks"])
    run = s["run"]
    assert 0.0 < run["stepping_s"] < run["wall_s"] and run["steps"] > 300


def test_the_benchmark_run_records_its_mesh():
    """Without --nx/--ny the run's mesh is the checked-in one (what summary.json says of it)."""
    from cases.sdnv105 import case as common

    for modeling, name in (("a", "sdnv105_quad4"), ("b", "sdnv105_block_tri6")):
        source = common.mesh_source(common.Config(modeling))
        assert source["source"] == "benchmark" and Path(source["file"]) == reference_mesh_path(name)
        assert common.Config(modeling).departures() == []


@pytest.mark.parametrize("args, words", [
    (["--nx", "3", "--ny", "8"], ("--nx", "even", "got 3")),
    (["--nx", "4", "--ny", "8", "--mesh", str(reference_mesh_path("sdnv105_quad4"))], ("--nx/--ny", "--mesh")),
    (["--nx", "4"], ("--nx and --ny go together", "only --nx")),
    (["--ny", "0", "--nx", "4"], ("--ny", ">= 1")),
])
def test_sdnv105_bad_mesh_size_is_one_line_and_exit_2(args, words, tmp_path):
    proc = _run("a", *args, "--out", str(tmp_path / "out"), cwd=tmp_path, timeout=120)
    assert_one_error_line(proc, *words)
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


# ----------------------------------------------------------------------------------- stepping time
def test_the_stepping_time_is_the_time_inside_the_generator(monkeypatch):
    """timed_steps counts the time spent computing each result (10 ms a step here), not the caller's
    between two results (30 ms), and passes the generator's return value on. The clock is a fake
    one advanced by the generator and by the caller, so that the sums are exact on any machine."""
    import fem.io.recorder

    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(fem.io.recorder, "time", SimpleNamespace(perf_counter=lambda: clock.now))

    def steps():
        for k in range(5):
            clock.now += 0.01
            yield k
        return "spans"

    recorder = SimpleNamespace(stepping_s=None)
    wrapped = timed_steps(recorder, steps())
    got = []
    while True:
        try:
            got.append(next(wrapped))
        except StopIteration as done:
            value = done.value
            break
        clock.now += 0.03
    assert got == list(range(5)) and value == "spans"
    assert recorder.stepping_s == pytest.approx(0.05, abs=1e-12)  # the caller's 0.15 s is not counted


# ----------------------------------------------------------------------------------- contract rows
def _check_contract_run(modeling: str, nx: int, ny: int) -> Callable:
    def check(result) -> None:
        """tests/test_contract.py's Result: the run completed on the nx x ny block it generated."""
        assert result.code == 0, result.err
        s = result.summary()
        assert s["status"] == "complete" and s["departures"] == ["--nx", "--ny"]
        assert (s["parameters"]["nx"], s["parameters"]["ny"]) == (nx, ny)
        mesh = read_mesh(result.folder / "mesh.msh")
        element, table = ("tri6", False) if modeling == "b" else ("quad4", True)
        assert mesh.n_nodes == refined_nodes(nx, ny, element, table) == s["mesh"]["nodes"]
        assert ("GROUN" in mesh.cell_groups) is table
        assert s["mesh"]["dofs"] == 2 * mesh.n_nodes and s["run"]["stepping_s"] > 0
        assert f"Mesh: a uniform block of {nx} x {ny}" in (result.folder / "report.md").read_text()
    return check


#: (script, name, argv, check) of tests/test_contract.py's FLAG_RUNS: --nx and --ny of each SDNV105
#: script, to 3 ms after the release (3 to 4 s each)
CONTRACT_FLAG_RUNS = [
    (f"sdnv105{m}", "mesh-size", ("--nx", str(nx), "--ny", str(ny), "--t-end", "0.003", "--no-paraview", "--quiet"),
     _check_contract_run(m, nx, ny))
    for m, nx, ny in (("a", 2, 4), ("b", 4, 8), ("c", 4, 8), ("d", 4, 8))
]

