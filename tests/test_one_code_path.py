"""One code path: a whole run with numba's loops compiled and the same run with NUMBA_DISABLE_JIT=1, where
every loop of fem.compiled runs as the Python it is written in, give the same histories byte for byte.

The loops (the continuum's forces and cell matrices, the contact geometry, statuses and equations, the
Newmark kinematics and HHT residual, the residual norms, the Newton matrix and mixed fills, the dense LU
by LAPACK, and the Newton loop of a step that calls them all, contact.newton_loop) are written once, as
plain Python compiled by numba without fast-math: the arithmetic is the
same IEEE operations in the same order either way, so any difference is a second path (a loop that
behaves otherwise compiled, a branch taken only in one mode). The runs: a shaking-table sine pulse
(uplift and landing, HHT) and SDNV105 A to 0.03 s of its free rocking (self-weight, tilt, release,
Lagrange contact with friction, every phase). This is the suite's stated uncompiled subset, with the
equality tests of tests/test_contact_compiled.py and tests/test_continuum_compiled.py, which run their
loops both ways.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

RUNS = {
    "shaking-table pulse": ["cases/shaking_table.py", "--excitation", "sine-pulse", "--amplitude-g", "0.3",
                            "--frequency-hz", "2", "--t-end", "0.4"],
    "sdnv105a": ["cases/sdnv105a.py", "--t-end", "0.03"],
}


def _run(args: list[str], out: Path, disable_jit: bool) -> None:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1" if disable_jit else "0")
    done = subprocess.run([sys.executable, *args, "--no-paraview", "--quiet", "--out", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.mark.parametrize("name", RUNS)
def test_a_run_uncompiled_is_the_compiled_run_byte_for_byte(name, tmp_path):
    compiled, plain = tmp_path / "compiled", tmp_path / "uncompiled"
    _run(RUNS[name], compiled, disable_jit=False)
    _run(RUNS[name], plain, disable_jit=True)
    histories = sorted(p.name for p in compiled.glob("*history.csv"))
    assert histories and histories == sorted(p.name for p in plain.glob("*history.csv"))
    for history in histories:
        assert len((compiled / history).read_text().splitlines()) > 2, history  # steps, not a header
        assert (plain / history).read_text() == (compiled / history).read_text(), history
    assert len((compiled / "history.csv").read_text().splitlines()) > 200  # the dynamic stage's steps
