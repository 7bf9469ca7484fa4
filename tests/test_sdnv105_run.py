"""What an SDNV105 run guarantees on the command line (README "What a run guarantees"): honest
configuration and references for custom parameters, clean interruption by SIGINT / SIGTERM, one-line
refusals of bad input and unusable output folders, a run that cannot write its results says so.
The scripts run as subprocesses, as a user runs them."""
import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from contact.references import rocking
from fem.io.results import read_history, read_series
from helpers import history_past, wait_for

ROOT = Path(__file__).resolve().parents[1]


def _script(modeling: str) -> str:
    return str(ROOT / "cases" / f"sdnv105{modeling}.py")


def _run(modeling, *args, timeout=120, **kw):
    return subprocess.run([sys.executable, _script(modeling), *args], capture_output=True, text=True,
                          timeout=timeout, **kw)


def _summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def test_sliding_block_is_a_custom_run_graded_by_no_inapplicable_reference(tmp_path):
    """--mu 0: the pivot slides (physically right). The run is custom, shows no Code_Aster value, its
    rigid-block references are those of its own parameters and carry no verdict (the rigid
    reference assumes a sticking pivot: the rigid block needs |RT|/RN = 0.32 before its first impact)."""
    out = tmp_path / "mu0"
    proc = _run("a", "--mu", "0", "--t-end", "0.06", "--no-paraview", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    s = _summary(out)
    assert s["status"] == "complete" and s["configuration"] == "custom" and s["departures"] == ["--mu"]
    assert s["command"].endswith("sdnv105a.py --mu 0 --t-end 0.06 --no-paraview --out " + str(out))
    rigid = rocking.rock(0.18, 0.40, 0.01, model="nonlinear", n_impacts=1)
    assert s["checks"] and all(c["code_aster"] is None and c["within_tolerance"] is None for c in s["checks"])
    assert s["checks"][0]["reference_rigid"] == pytest.approx(rigid.impact_times[0], rel=1e-9)
    assert "NO" not in proc.stdout.split()
    report = (out / "report.md").read_text()
    assert "Configuration: **custom**" in report and "does not apply" in report
    assert "--mu 0 --t-end 0.06" in report  # the exact command line


def test_other_tilt_in_d_is_checked_against_the_rigid_block_at_that_tilt(tmp_path):
    """d at tilt 0.02 rad to 0.42 s: five impacts against the rigid block at 0.02 rad (its first
    kinetic energy is 14.42 J, not the benchmark tilt's 7.29 J), every verdict a pass."""
    out = tmp_path / "d02"
    proc = _run("d", "--tilt-angle", "0.02", "--t-end", "0.42", "--no-paraview", "--out", str(out), timeout=240)
    assert proc.returncode == 0, proc.stderr
    s = _summary(out)
    assert s["configuration"] == "custom" and all(c["code_aster"] is None for c in s["checks"])
    rigid = rocking.rock(0.18, 0.40, 0.02, model="nonlinear", n_impacts=5)
    ke = [c for c in s["checks"] if c["quantity"].startswith("KE before impact")]
    assert [c["reference_rigid"] for c in ke] == pytest.approx(list(rigid.ke_before), rel=1e-9)
    assert ke[0]["reference_rigid"] == pytest.approx(14.42, abs=0.01)
    assert all(c["within_tolerance"] is True for c in s["checks"]), s["checks"]


def _interrupt_during_release(tmp_path, sig):
    """Start modeling A to 1 s (a run of several times its 0.33 s default, so that the signal falls
    in the stepping on any machine), wait until its history holds a row past 0.01 s after the
    release, then send ``sig``."""
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, _script("a"), "--no-paraview", "--t-end", "1", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: history_past(out / "history.csv", 0.01), "the release's history past t = 0.01 s", proc=proc)
    finally:
        proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    return proc.returncode, stderr, out


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_the_run_cleanly(tmp_path, sig, code):
    returncode, stderr, out = _interrupt_during_release(tmp_path, sig)
    assert returncode == code, stderr
    assert "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1 and signal.Signals(sig).name in stderr
    s = _summary(out)
    assert s["status"] == "interrupted" and s["t_reached"] is not None
    history = out / ("history.csv" if s["t_reached"] >= 0 else "selfweight_history.csv")
    h = read_history(history)
    assert h["t"][-1] == pytest.approx(s["t_reached"], abs=1e-12) or s["phase_reached"] == "tilt"
    assert np.all(np.isfinite(h["t"]))


@pytest.mark.parametrize("args, message", [
    (["--dt", "inf"], "argument --dt: must be a finite number"),
    (["--dt-fine", "inf"], "argument --dt-fine: must be a finite number"),
    (["--mu", "inf"], "argument --mu: must be a finite number"),
    (["--height", "inf"], "argument --height: must be a finite number"),
    (["--dt", "-1e-3"], "--dt must be > 0 s, got -0.001"),
    (["--t-end", "inf"], "argument --t-end: must be a finite number"),
    (["--t-end", "1e5"], "time steps, more than the limit"),
    (["--t-end", "1e6"], "--t-end 1e6 s is outside the physical range [1e-12, 1e5] s of a duration"),
    (["--dt-fine", "0.01"], "--dt-fine (0.01 s) must not exceed --dt (0.0025 s)"),
    (["--out", "/proc/rockfem"], "--out /proc/rockfem: cannot create the folder"),
    (["--mesh", "missing.msh"], "--mesh missing.msh:"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    proc = _run("a", *args, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ") and message in proc.stderr
    assert list(tmp_path.iterdir()) == []  # no empty results folder left behind


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_text("a file"), "exists and is not a folder"),
    (lambda p: (p / "summary.json").mkdir(parents=True), "summary.json exists and is not a file"),
])
def test_unusable_output_folder_is_refused_before_the_run(tmp_path, make, message):
    target = tmp_path / "out"
    make(target)
    proc = _run("b", "--out", str(target), timeout=30)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr


def test_a_full_disk_during_the_run_is_one_line_naming_the_file(tmp_path):
    """Files limited to 64 kB (RLIMIT_FSIZE, the kernel then refuses writes with EFBIG as a full
    disk refuses them with ENOSPC): the history outgrows it during the self-weight phase."""
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64_000, 64_000))

    out = tmp_path / "full"
    proc = _run("a", "--no-paraview", "--out", str(out), preexec_fn=limit, timeout=60)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "cannot write" in proc.stderr and "history.csv" in proc.stderr
    assert _summary(out)["status"] == "failed"


def test_short_benchmark_run_is_quiet_and_archives_every_phase_as_asked(tmp_path):
    """No warning for the benchmark's own phases (the tilt's HHT alpha -0.6); --archive-every applies to
    the self-weight and tilt series too; a window the run does not reach gets no verdict."""
    out = tmp_path / "short"
    proc = _run("a", "--t-end", "0.003", "--archive-every", "50", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    s = _summary(out)
    assert s["status"] == "complete" and s["configuration"] == "benchmark"
    # self-weight: 150 steps of 7.5e-3 s from -1.95 to -0.825 s: archived at 50, 100, 150 and the start
    assert len(read_series(out / "selfweight.xdmf")) == 4
    late = [c for c in s["checks"] if c["window"] == "t > 0.28"]
    assert late and all(c["value"] is None and c["within_tolerance"] is None for c in late)


def test_a_table_mesh_given_to_b_is_warned(tmp_path):
    proc = _run("b", "--mesh", str(ROOT / "meshes" / "sdnv105_quad4.msh"), "--t-end", "0.003", "--no-paraview",
                "--out", str(tmp_path / "b"), timeout=60)
    assert "warning: --mesh" in proc.stderr and "GROUN" in proc.stderr


def _with_duplicate_node(source: Path, target: Path, region_entity_dim: int = 2) -> int:
    """Copy a gmsh 4.1 ASCII mesh, giving the first surface element one of its upper nodes as a new,
    coincident but unmerged node (a crack at that point). Returns the original node's tag."""
    lines = source.read_text().splitlines()
    n0 = lines.index("$Nodes")
    n_blocks, n_nodes, lo, hi = map(int, lines[n0 + 1].split())
    coords, k = {}, n0 + 2
    for _ in range(n_blocks):  # read every node's coordinates
        dim, tag, _param, count = map(int, lines[k].split())
        tags = [int(x) for x in lines[k + 1:k + 1 + count]]
        for j, t in enumerate(tags):
            coords[t] = lines[k + 1 + count + j]
        k += 1 + 2 * count
    e0 = lines.index("$Elements")
    k = e0 + 2
    while True:  # the first element block of dimension 2
        dim, entity, _type, count = map(int, lines[k].split())
        if dim == region_entity_dim:
            break
        k += 1 + count
    element = lines[k + 1].split()
    nodes = [int(x) for x in element[1:5]]
    old = max(nodes, key=lambda t: float(coords[t].split()[1]))  # an upper node: off the contact line
    new = hi + 1
    lines[k + 1] = " ".join(element[:1] + [str(new if t == old else t) for t in map(int, element[1:])])
    lines[n0 + 1] = f"{n_blocks + 1} {n_nodes + 1} {lo} {new}"
    end = lines.index("$EndNodes")
    lines[end:end] = [f"2 {entity} 0 1", str(new), coords[old]]
    target.write_text("\n".join(lines) + "\n")
    return old


def test_a_crack_in_the_mesh_is_refused_naming_its_nodes(tmp_path):
    """An unmerged duplicate node inside the block (point 4 of the issue: scipy used to warn 'Matrix is
    exactly singular' and the run exited 0): exit 2 before the run, one line naming the nodes."""
    mesh = tmp_path / "cracked.msh"
    _with_duplicate_node(ROOT / "meshes" / "sdnv105_quad4.msh", mesh)
    proc = _run("a", "--mesh", str(mesh), "--out", str(tmp_path / "out"), timeout=30)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "unmerged duplicate nodes" in proc.stderr and "nodes " in proc.stderr
    assert not (tmp_path / "out").exists()
