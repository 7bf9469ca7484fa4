"""Clear messages where a user's mistake or a helper program's failure once gave a misleading one.

* A contact pair whose slave and master groups lie in one body: refused before anything is written,
  naming the pair, its groups and the body (it was "a floating part or unmerged duplicate nodes").
* A mesh file that is not a gmsh mesh (text, a PNG renamed, an empty file): one line naming the file
  and what is wrong, meshio's message or its error's type (the reason was empty).
* ``--animate mp4`` with an ffmpeg that fails: a completed run stays complete, exit 0, with one
  ``warning: the animation was not written: ...`` line and ``animation_error`` in summary.json (it
  was turned into a failed run, exit 1).
* ``--no-paraview``: the console's ``results:`` line names only files the run wrote (it named
  ``solution.xdmf for ParaView``).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from contact.laws import Lagrange
from fem import Body, ElasticMaterial, Pair, Preload, Problem, Support, simulate
from fem.io import animation, results
from fem.mesh.mesh import CellBlock, Mesh, MeshError
from fem.mesh.read import read_mesh
from fem.problem import BaseMotion, assemble
from fem.ranges import BadInput
from helpers import grid_mesh, load_case, stand_in_ffmpeg

ROOT = Path(__file__).resolve().parents[1]
MESH = ROOT / "meshes" / "sdnv105_quad4.msh"
GRAPHITE = ElasticMaterial(young=6e11, poisson=0.2, density=1450.0, rayleigh_stiffness=1e-4)
TABLE = ElasticMaterial(young=1e14, poisson=0.3, density=2500.0, rayleigh_stiffness=1.6e-3)


# --------------------------------------------------------------------- a pair inside one body
def _block_on_table(slave: str, master: str) -> Problem:
    """examples/block_on_table_pulse.toml's problem with the pair's groups given."""
    return Problem(MESH, bodies=[Body("BLOCK", GRAPHITE), Body("GROUN", TABLE)],
                   supports=[Support("CTGROUND", ("y",)), Support("S1", ("x",))],
                   pairs=[Pair(slave, master, Lagrange(mu=0.9))], mass="redistributed")


def test_a_pair_whose_groups_lie_in_one_body_is_refused_naming_them(tmp_path):
    """CONHAUT (the block's base) against CTBLO (the block's sides and base) instead of CONBAS (the
    table's top): the block would float; the message says why, before the output folder exists."""
    message = ("pairs.CONHAUT/CTBLO: slave CONHAUT and master CTBLO lie in one body (BLOCK): a contact pair "
               "joins two bodies (its slave on one, its master on the other)")
    with pytest.raises(BadInput) as info:
        assemble(_block_on_table("CONHAUT", "CTBLO"))
    assert str(info.value) == message
    out = tmp_path / "out"
    with pytest.raises(BadInput, match="lie in one body"):
        simulate(_block_on_table("CONHAUT", "CTBLO"), [Preload()], out=out)
    assert not out.exists()
    # the two sides on the table alone: the table named
    with pytest.raises(BadInput, match=r"^pairs\.CTTAB/CONBAS: slave CTTAB and master CONBAS lie in one body \(GROUN\)"):
        assemble(_block_on_table("CTTAB", "CONBAS"))
    assemble(_block_on_table("CONHAUT", "CONBAS"))  # the example's pair: block on table


def _stack(support_the_column: bool) -> Problem:
    """Two blocks stacked in one surface group BLOCK (two parts: the upper one's base nodes are its
    own), a pair from the upper base onto the lower top (the joint of shaking_table.py --blocks 2),
    and a separate supported table; ``support_the_column``: the lower block held at its base."""
    lower, upper, table = grid_mesh(2, 2), grid_mesh(2, 2, y0=0.8), grid_mesh(2, 1, width=1.0, height=0.2, x0=1.0)
    n1, n2 = lower.n_nodes, lower.n_nodes + upper.n_nodes
    points = np.vstack([lower.points, upper.points, table.points])
    top = lower.nodes("TOP")[np.argsort(lower.points[lower.nodes("TOP"), 0])]
    mesh = Mesh(points, {"BLOCK": CellBlock("quad", np.vstack([lower.cells("BLOCK").connectivity,
                                                                 upper.cells("BLOCK").connectivity + n1])),
                         "TABLE": CellBlock("quad", table.cells("BLOCK").connectivity + n2),
                         "LOWER_TOP": CellBlock("line", np.column_stack([top[:-1], top[1:]]))},
                {"UPPER_BASE": upper.nodes("BASE") + n1, "LOWER_BASE": lower.nodes("BASE"), "LOWER_TOP": top,
                 "TABLE_BASE": table.nodes("BASE") + n2})
    supports = [Support("TABLE_BASE")] + ([Support("LOWER_BASE")] if support_the_column else [])
    return Problem(mesh, bodies=[Body("BLOCK", GRAPHITE), Body("TABLE", TABLE)], supports=supports,
                   pairs=[Pair("UPPER_BASE", "LOWER_TOP", Lagrange(mu=0.5), name="joint")])


def test_a_pair_between_two_parts_of_one_group_joins_two_bodies():
    """Blocks stacked in one region are two bodies to a pair: their joint is accepted, and a column
    that floats is called a floating part, not a pair inside one body."""
    assemble(_stack(support_the_column=True))
    with pytest.raises(BadInput) as info:
        assemble(_stack(support_the_column=False))
    assert str(info.value).startswith("mesh: ") and "attached to no support" in str(info.value), str(info.value)
    assert "lie in one body" not in str(info.value)


def test_the_problem_file_names_the_pair_and_its_line(tmp_path):
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "cases.problem_file.cli", "run", str(ROOT / "examples" / "block_on_table_pulse.toml"),
                        "--set", 'pairs.base.master="CTBLO"', "--out", str(out), "--quiet"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "slave CONHAUT and master CTBLO lie in one body (BLOCK)" in lines[0], p.stderr
    assert "floating" not in p.stderr and not out.exists()


# --------------------------------------------------------------------- a file that is not a mesh
def test_a_file_that_is_not_a_mesh_is_refused_on_one_line_naming_it(tmp_path):
    text, png, empty = tmp_path / "x.msh", tmp_path / "picture.msh", tmp_path / "empty.msh"
    text.write_text("hello world\nthis is not a mesh\n")
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    empty.write_bytes(b"")
    said = {}
    for path in (text, png, empty):
        with pytest.raises(MeshError) as info:
            read_mesh(path)
        said[path] = str(info.value)
        assert said[path].startswith(f"{path}: not a gmsh mesh"), said[path]
        assert "\n" not in said[path] and said[path].count("(meshio: ") == 1, said[path]
        assert not said[path].endswith("(meshio: )"), said[path]  # a reason, never an empty one
    assert "it begins with 'hello world', not $MeshFormat (meshio: ReadError)" in said[text]
    assert "PNG" in said[png] and "codec can't decode" in said[png]  # meshio's own message
    assert "the file is empty" in said[empty]
    # a gmsh header over a broken body: meshio's message
    broken = tmp_path / "broken.msh"
    broken.write_text("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\ngarbage\n")
    with pytest.raises(MeshError, match=rf"^{broken}: not a gmsh mesh meshio can read \(meshio: \S"):
        read_mesh(broken)
    # a problem names the file once, as its mesh
    with pytest.raises(BadInput) as info:
        assemble(Problem(text, bodies=[Body("BLOCK", GRAPHITE)]))
    assert str(info.value) == f"mesh {text}: not a gmsh mesh: it begins with 'hello world', not $MeshFormat (meshio: ReadError)"


def _main(case: str, argv: list[str]) -> int:
    """A case script's exit code, run in this process (``sdnv105a``: cases.sdnv105.case.run_case)."""
    if case == "sdnv105a":
        return load_case("sdnv105.case").run_case("a", argv)
    return load_case(case).main(argv)


# --------------------------------------------------------------------- a failing ffmpeg
FAILING_FFMPEG = """#!{python}
import sys
sys.stdin.buffer.read()
sys.stderr.write("Unknown encoder 'libx264'\\n")
sys.exit(1)
"""


def _failing_ffmpeg(tmp_path, monkeypatch) -> None:
    """A stand-in ffmpeg first on PATH: it takes the frames, then exits 1 saying why on stderr."""
    stand_in_ffmpeg(tmp_path, monkeypatch, FAILING_FFMPEG)
    assert animation.available("mp4")


def test_a_failed_animation_is_a_note_with_its_reason(tmp_path, monkeypatch, capsys):
    _failing_ffmpeg(tmp_path, monkeypatch)
    series = tmp_path / "run"
    mesh = Mesh(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
                {"BLOCK": CellBlock("quad", np.array([[0, 1, 2, 3]]))}, {})
    with results.TimeSeriesWriter(series, mesh, ["BLOCK"]) as w:
        for k in range(3):
            w.write(0.01 * k, point_data={"displacement": np.full((4, 2), 1e-3 * k)})
    info, why = animation.animate_or_note(series, "mp4")
    assert info is None and why == "ffmpeg exited with status 1: Unknown encoder 'libx264'"
    assert capsys.readouterr().err.splitlines() == [f"warning: the animation was not written: {why}"]
    assert not [p.name for p in series.iterdir() if "animation" in p.name]  # nothing half-written left


@pytest.mark.parametrize("case, args", [
    ("shaking_table", ["--excitation", "sine-pulse", "--amplitude-g", "0.9", "--frequency-hz", "2.6", "--t-end", "0.05"]),
    ("sdnv105a", ["--t-end", "0.01"]),
])
def test_a_completed_run_whose_ffmpeg_fails_stays_complete(case, args, tmp_path, monkeypatch, capsys):
    _failing_ffmpeg(tmp_path, monkeypatch)
    out = tmp_path / "out"
    code = _main(case, [*args, "--animate", "mp4", "--quiet", "--out", str(out)])
    captured = capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    assert code == 0 and summary["status"] == "complete", captured.err
    assert summary["animation_error"] == "ffmpeg exited with status 1: Unknown encoder 'libx264'"
    warned = [line for line in captured.err.splitlines() if "animation" in line and line.startswith("warning:")]
    assert warned == [f"warning: the animation was not written: {summary['animation_error']}"], captured.err
    assert not [line for line in captured.err.splitlines() if line.startswith(("error", "internal error"))], captured.err
    assert "animation.mp4" not in summary["files"] and not (out / "animation.mp4").exists()
    assert not (out / "traceback.txt").exists()


# --------------------------------------------------------------------- --no-paraview's console
@pytest.mark.parametrize("case, args", [
    ("shaking_table", ["--excitation", "sine-pulse", "--amplitude-g", "0.9", "--frequency-hz", "2.6", "--t-end", "0.05"]),
    ("sdnv105a", ["--t-end", "0.01"]),
])
def test_the_console_names_only_the_files_the_run_wrote(case, args, tmp_path, capsys):
    out = tmp_path / "out"
    assert _main(case, [*args, "--no-paraview", "--quiet", "--out", str(out)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("results:")]
    assert len(lines) == 1
    assert "ParaView" not in lines[0] and "solution." not in lines[0], lines[0]
    named = [name.split()[0] for name in lines[0].split("(", 1)[1].rstrip(")").split(", ")]
    assert named and all((out / name).is_file() for name in named), lines[0]
    written = json.loads((out / "summary.json").read_text())["files"]
    assert set(named) <= set(written) and not any(f.startswith("solution") for f in written)
