"""Tiny hand-checkable meshes built in memory, shared by the tests (no gmsh needed)."""
from __future__ import annotations

import importlib.util
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fem.mesh.mesh import CellBlock, Mesh

CASES = Path(__file__).resolve().parents[1] / "cases"


def rockfem_script() -> str | None:
    """The ``rockfem`` console script of the python running the tests: beside ``sys.executable`` (a
    virtual environment's python run without activating it has its scripts there, not on PATH), else
    on PATH; None if neither."""
    import os
    import shutil
    import sys

    folder = Path(sys.executable).parent
    for name in ("rockfem", "rockfem.exe"):
        if (folder / name).is_file() and os.access(folder / name, os.X_OK):
            return str(folder / name)
    return shutil.which("rockfem")


def load_case(name: str):
    """The case module ``cases.<name>`` (``cases`` is an installed package)."""
    return importlib.import_module(f"cases.{name}")

def assert_parameters(summary: dict, **expected) -> None:
    """summary.json's ``parameters`` hold exactly the values given (floats to 1e-15 relative:
    the command line's text parsed back)."""
    import pytest

    for key, value in expected.items():
        got = summary["parameters"][key]
        if isinstance(value, float):
            assert got == pytest.approx(value, rel=1e-15), key
        else:
            assert got == value, key


GRAPHITE = dict(young=6.0e11, poisson=0.2, density=1450.0)


def grid_mesh(nx: int, ny: int, width: float = 0.36, height: float = 0.80, element: str = "quad",
              distort: float = 0.0, seed: int = 0, x0: float = 0.0, y0: float = 0.0) -> Mesh:
    """Structured nx x ny grid of [x0, x0+width] x [y0, y0+height] as one cell group "BLOCK".

    element : "quad" (QUA4), "triangle" (TRIA3, each quad split along its 0-2 diagonal) or
        "triangle6" (TRIA6, same split, mid-side nodes at edge mid-points).
    distort : random interior-node perturbation as a fraction of the cell size (boundary nodes
        stay on the boundary), applied before mid-side nodes are placed.

    Node groups: BASE (y = y0), TOP (y = y0 + height), LEFT (x = x0), O (corner x0, y0),
    A (x0 + width, y0), O1 (base centre, nx even), C1 (top centre, nx even).
    """
    x = np.linspace(x0, x0 + width, nx + 1)
    y = np.linspace(y0, y0 + height, ny + 1)
    X, Y = np.meshgrid(x, y, indexing="ij")
    pts = np.column_stack([X.ravel(), Y.ravel()])
    if distort:
        rng = np.random.default_rng(seed)
        interior = (X.ravel() > x0) & (X.ravel() < x0 + width) & (Y.ravel() > y0) & (Y.ravel() < y0 + height)
        h = np.array([width / nx, height / ny])
        pts[interior] += distort * h * rng.uniform(-1, 1, size=(interior.sum(), 2))
    idx = np.arange((nx + 1) * (ny + 1)).reshape(nx + 1, ny + 1)
    q = np.stack([idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]], axis=-1).reshape(-1, 4)
    if element == "quad":
        block = CellBlock("quad", q)
    else:
        tri = np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]])
        if element == "triangle":
            block = CellBlock("triangle", tri)
        elif element == "triangle6":
            edges = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
            key = np.sort(edges, axis=1)
            uniq, inv = np.unique(key, axis=0, return_inverse=True)
            mids = 0.5 * (pts[uniq[:, 0]] + pts[uniq[:, 1]])
            mid_ids = len(pts) + inv.reshape(3, -1).T
            pts = np.vstack([pts, mids])
            block = CellBlock("triangle6", np.hstack([tri, mid_ids]))
        else:
            raise ValueError(element)
    tol = 1e-12
    groups = {
        "BASE": np.flatnonzero(np.abs(pts[:, 1] - y0) < tol),
        "TOP": np.flatnonzero(np.abs(pts[:, 1] - y0 - height) < tol),
        "LEFT": np.flatnonzero(np.abs(pts[:, 0] - x0) < tol),
        "O": np.array([idx[0, 0]]),
        "A": np.array([idx[-1, 0]]),
    }
    if nx % 2 == 0:
        groups["O1"] = np.array([idx[nx // 2, 0]])
        groups["C1"] = np.array([idx[nx // 2, -1]])
    return Mesh(pts, {"BLOCK": block}, groups)


def rotation(theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def wait_for(predicate, what: str, *, proc, timeout: float = 600.0, poll: float = 0.02):
    """Wait for the event ``predicate()`` (a file, a row, a line) made by ``proc`` (a subprocess.Popen,
    or a threading.Thread doing the work) and return its value; fail after ``timeout`` s (a ceiling
    for a loaded machine, not a schedule). Between two looks the wait blocks on ``proc`` for at most
    ``poll`` s, so that its end ends the wait at once (the value is then the predicate's, false if the
    event never came). No fixed sleep: a wait between processes that has no process or thread to
    block on takes an event of its own (tests/test_sweep.py: a Dask ``distributed.Event``)."""
    import time

    def ended() -> bool:
        return proc.poll() is not None if hasattr(proc, "poll") else not proc.is_alive()

    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or ended():
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        if hasattr(proc, "poll"):
            try:
                proc.wait(timeout=poll)
            except subprocess.TimeoutExpired:
                pass
        else:
            proc.join(poll)


def history_past(path: Path, t: float) -> bool:
    """The CSV history ``path`` exists and its last complete row is at a time > ``t`` [s] (rows
    are flushed as they are appended, so a run's progress can be watched from outside)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return False
    for line in reversed(lines[1:]):
        try:
            return float(line.split(",")[0]) > t
        except ValueError:  # a row cut short by the writer
            continue
    return False


def pulse_problem(folder: Path, extra: str = "", name: str = "block.toml") -> Path:
    """examples/block_on_table_pulse.toml copied into ``folder`` (its mesh path made absolute, no ParaView
    series) with ``extra`` TOML appended ([[checks]] ...): the path of the copy."""
    root = CASES.parent
    text = (root / "examples" / "block_on_table_pulse.toml").read_text()
    text = text.replace('"../meshes/', f'"{(root / "meshes").as_posix()}/').replace("paraview = true", "paraview = false")
    path = Path(folder) / name
    path.write_text(text + ("\n" + extra if extra else ""))
    return path


def pulse_example_problem():
    """examples/block_on_table_pulse.toml's problem stated in Python (its stages and steps aside): the SDNV105
    graphite block on its table, redistributed mass, Lagrange contact with friction 0.9."""
    from contact.laws import Lagrange
    from fem.model.material import ElasticMaterial
    from fem.problem import Body, Pair, Problem, Support

    return Problem(CASES.parent / "meshes" / "sdnv105_quad4.msh", mass="redistributed",
                   bodies=[Body("BLOCK", ElasticMaterial(6e11, 0.2, 1450.0, 1e-4)),
                           Body("GROUN", ElasticMaterial(1e14, 0.3, 2500.0, 1.6e-3))],
                   supports=[Support("CTGROUND", ("y",)), Support("S1", ("x",))],
                   pairs=[Pair("CONHAUT", "CONBAS", Lagrange(mu=0.9), name="base")])


def refusal(path: Path, overrides=()) -> str:
    """The one-line BadInput that loading the problem file ``path`` (with ``overrides``) raises."""
    import pytest

    from cases.problem_file import load
    from fem.ranges import BadInput

    with pytest.raises(BadInput) as caught:
        load(path, overrides)
    message = str(caught.value)
    assert "\n" not in message
    return message


def stand_in_ffmpeg(tmp_path: Path, monkeypatch, script: str) -> Path:
    """A stand-in ``ffmpeg`` first on PATH for the test: ``script`` (a Python script, ``{python}`` replaced by
    this interpreter) written to ``tmp_path/bin/ffmpeg`` and made executable. Returns its folder."""
    import os
    import sys

    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "ffmpeg").write_text(script.format(python=sys.executable))
    (folder / "ffmpeg").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return folder


@dataclass
class PairState:
    """What fem.problem.observe.PairWatch reads of a contact term's state(): per slave node the status
    (0 open), gap [m], reactions rn, rt [N] and the mesh node."""

    status: np.ndarray
    gap: np.ndarray
    rn: np.ndarray
    rt: np.ndarray
    nodes: np.ndarray


def file_and_case(problem: Path, script: Path, folder: Path, strict: bool = True) -> tuple[dict, dict]:
    """The summary.json of ``rockfem run problem`` (``--strict`` unless told otherwise) and of the case script
    ``script``, each run at once as a user runs it (subprocesses, quiet, into ``folder`` / "file" and "case");
    either exiting non-zero fails the test with its stderr."""
    import json
    import subprocess
    import sys

    runs = {"file": [sys.executable, "-m", "cases.problem_file.cli", "run", str(problem), *(["--strict"] if strict else []),
                     "--quiet", "--out", str(folder / "file")],
            "case": [sys.executable, str(script), "--no-paraview", "--quiet", "--out", str(folder / "case")]}
    procs = {k: subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=folder)
             for k, cmd in runs.items()}
    out = {}
    for k, p in procs.items():
        _, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, (problem.name, k, stderr[-2000:])
        out[k] = json.loads((folder / k / "summary.json").read_text())
    return out["file"], out["case"]
