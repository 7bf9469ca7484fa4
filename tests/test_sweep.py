"""Parameter studies on Dask (fem.studies.sweep, cases/sweep.py): grids, the results table, failures,
interruption and rerun, a scheduler and workers started by hand, a worker killed mid-sweep.

The points are SDND101 runs (cases/sdnd101.py: a 100 kg mass on a 1e4 N/m spring hitting a shock
spring K at velocity v0; docs/references.md, "SDND101"): about 1.7 s each, and their rows can be
checked against the closed form of the same point, which catches a row given another point's
figures. The peak shock force is F_max = K x_max, x_max = v0 / omega_c, omega_c = sqrt((k + K) / m).
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fem.studies import sweep
from fem.run.lifecycle import BadInput
from helpers import wait_for

ROOT = Path(__file__).resolve().parents[1]
SWEEP = ROOT / "cases" / "sweep.py"
M, K_SPRING = 100.0, 1e4  # SDND101's mass [kg] and spring [N/m]


def f_max(k_shock: float, v0: float) -> float:
    """SDND101's peak shock force [N]: K v0 / sqrt((k + K) / m)."""
    return k_shock * v0 / math.sqrt((K_SPRING + k_shock) / M)


def sweep_process(args, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(SWEEP), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def run_sweep(args, timeout=300) -> tuple[int, str, str]:
    proc = sweep_process(args)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def rows(folder: Path) -> list[dict]:
    return sweep.read_results(folder / "results.csv")


def complete_rows(folder: Path) -> list[dict]:
    try:
        return [r for r in rows(folder) if r["status"] == "complete"]
    except (OSError, KeyError):
        return []


def running_points(folder: Path) -> list[Path]:
    found = []
    for summary in (folder / "points").glob("*/summary.json"):
        try:
            if json.loads(summary.read_text())["status"] == "running":
                found.append(summary.parent)
        except (OSError, ValueError, KeyError):
            pass
    return found


def assert_sdnd101_rows(table: list[dict], k_values, v_values) -> None:
    """One complete row a point, in grid order (the last axis fastest), each with its own point's
    figures: the closed form of its K and v0 to round-off, and the run's peak force within 1 % of it
    (central differences at dt = 5e-4 s resolve the shock's half period pi / omega_c >= 0.03 s with
    60 steps or more: the case's own checks hold it to 0.1 % at the benchmark's K)."""
    expected = [(k, v) for k in k_values for v in v_values]
    assert [(r["k-shock"], r["v0"]) for r in table] == expected
    for r in table:
        k, v = float(r["k-shock"]), float(r["v0"])
        assert r["status"] == "complete" and r["exit_code"] == "0" and r["message"] == ""
        assert float(r["closed_form.f_max"]) == pytest.approx(f_max(k, v), rel=1e-12)
        assert float(r["f_max_abs"]) == pytest.approx(f_max(k, v), rel=1e-2)
        assert float(r["wall_s"]) > 0 and int(r["checks"]) >= 1
        summary = json.loads((Path(r["folder"]) / "summary.json").read_text())
        assert summary["parameters"]["k_shock"] == k and summary["parameters"]["v0"] == v


# ----------------------------------------------------------------------------------- the grid
def test_axis_values_ranges_and_refusals():
    assert sweep.parse_axis("mu=0.3,0.6, 0.9") == ("mu", ("0.3", "0.6", "0.9"))
    assert sweep.parse_axis("--dt=1e-3") == ("dt", ("1e-3",))
    name, values = sweep.parse_axis("amplitude-g=0.4:1.2:5")
    assert name == "amplitude-g" and [float(v) for v in values] == pytest.approx([0.4, 0.6, 0.8, 1.0, 1.2], abs=1e-15)
    assert sweep.parse_axis("x=2:9:1") == ("x", ("2.0",))
    for bad, words in (("mu", "NAME="), ("mu=", "empty"), ("mu=1,,2", "empty"), ("mu=1,1", "repeated"),
                       ("1mu=2", "NAME="), ("v=0:1:x", "start:stop:count"), ("v=0:1:0", "count"),
                       ("v=0:inf:3", "finite")):
        with pytest.raises(BadInput, match=words):
            sweep.parse_axis(bad)


def test_grid_is_the_product_of_its_axes_last_fastest():
    points = sweep.grid([("mu", ("0.3", "0.6")), ("dt", ("1e-3", "5e-4", "2e-4"))])
    assert [p.values for p in points] == [(("mu", a), ("dt", b)) for a in ("0.3", "0.6") for b in ("1e-3", "5e-4", "2e-4")]
    assert [p.index for p in points] == list(range(6))
    assert points[4].flags() == ["--mu", "0.6", "--dt", "5e-4"] and points[4].name == "mu=0.6_dt=5e-4"
    assert len({p.name for p in points}) == 6
    with pytest.raises(BadInput, match="twice"):
        sweep.grid([("mu", ("1",)), ("mu", ("2",))])


def test_the_point_count_is_checked_before_any_point_is_built(tmp_path):
    """(Defect 1) An axis's count and the product of the axes' lengths are checked first: a
    billion-value axis and a grid of 10^19 points are refused at once, naming the flag and the count."""
    with pytest.raises(sweep.TooManyPoints, match=r"--grid v0=0:1:1000000000: 1,000,000,000 values, more than "
                                                  r"the limit of 100,000 points \(fewer values, or --force\)"):
        sweep.parse_axis("v0=0:1:1000000000", limit=sweep.MAX_POINTS)
    assert len(sweep.parse_axis("v0=0:1:100000", limit=sweep.MAX_POINTS)[1]) == 100_000
    huge = [("a", range(10**5)), ("b", range(10**5)), ("c", range(10**9))]  # lengths known, nothing built
    with pytest.raises(sweep.TooManyPoints, match=r"--grid 100,000 \(a\) x 100,000 \(b\) x 1,000,000,000 \(c\): "
                                                  r"10,000,000,000,000,000,000 points"):
        sweep.grid(huge, limit=sweep.MAX_POINTS)
    assert len(sweep.grid([("a", ("1", "2")), ("b", ("3",))], limit=2)) == 2
    rows = tmp_path / "points.csv"
    rows.write_text("v0\n" + "".join(f"{k}\n" for k in range(6)))
    with pytest.raises(sweep.TooManyPoints, match=f"--points {rows}: more than the limit of 5 points"):
        sweep.read_points(rows, limit=5)
    assert len(sweep.read_points(rows, limit=6)) == 6
    assert sweep.point_limit(False) == sweep.MAX_POINTS <= sweep.point_limit(True)


def limited_memory():
    """preexec_fn: at most 4 GB of address space (the refusal needs less than 1.5 GB), so that a
    grid built in full (the defect this guards against) ends in a MemoryError instead of taking a
    shared machine's memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


@pytest.mark.parametrize("grid, words", [
    (["v0=0:1:1000000000"], "--grid v0=0:1:1000000000: 1,000,000,000 values"),
    (["v0=0:1:100000", "k-shock=1e5:1e6:100000"], "--grid 100,000 (v0) x 100,000 (k-shock): 10,000,000,000 points"),
])
def test_a_grid_past_the_limit_is_one_line_exit_2_before_anything_is_built(tmp_path, grid, words):
    """(Defect 1) On main the first grid was still being built after 100 s; here it is refused at
    once (the ceiling only ends the test if that comes back)."""
    args = ["sdnd101", *[x for g in grid for x in ("--grid", g)], "--out", tmp_path / "s"]
    proc = sweep_process(args, preexec_fn=limited_memory, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2 and out == ""
    assert err.splitlines() == [f"error: {words}, more than the limit of 100,000 points (fewer values, or --force)"]
    assert list(tmp_path.iterdir()) == []


def test_point_names_are_safe_folder_names():
    odd = sweep.Point(3, (("record", "/data/el centro.csv"),))
    assert odd.name == "record=_data_el_centro.csv"
    long = sweep.Point(7, tuple((f"flag{i}", "0.123456789") for i in range(10)))
    assert long.name.startswith("p0007-") and len(long.name) == 16


def test_points_from_a_csv(tmp_path):
    f = tmp_path / "points.csv"
    f.write_text("--mu,dt\n0.3,1e-3\n0.6,\n\n")
    points = sweep.read_points(f)
    assert [p.values for p in points] == [(("mu", "0.3"), ("dt", "1e-3")), (("mu", "0.6"),)]
    for text, words in (("mu\n", "at least one row"), ("mu,mu\n1,2\n", "distinct"), ("mu,dt\n1\n", "row 2"),
                        ("mu\n1\n1\n", "repeated")):
        f.write_text(text)
        with pytest.raises(BadInput, match=words):
            sweep.read_points(f)
    with pytest.raises(BadInput, match="cannot read"):
        sweep.read_points(tmp_path / "missing.csv")


def test_summary_figures_flatten_what_a_table_can_hold():
    summary = {"case": "shaking_table", "command": "python ...", "parameters": {"mu": 0.9}, "status": "complete",
               "overturned": True, "overturn_time": None, "max_rotation": [0.84], "max_joint_gap": [0.0, 1e-3],
               "run": {"steps": 1330, "wall_s": 8.07}, "rigid_body": {"overturned": True, "curve_t": list(range(900)),
                                                                        "impacts": [{"time": 0.4}]},
               "impacts": [{"time": 0.46}, {"time": 0.49}], "checks": [{"passed": True}, {"within_tolerance": False}],
               "departures": []}
    fig = sweep.summary_figures(summary)
    assert fig == {"overturned": True, "overturn_time": None, "max_rotation": 0.84, "max_joint_gap[0]": 0.0,
                   "max_joint_gap[1]": 1e-3, "run.steps": 1330, "run.wall_s": 8.07, "rigid_body.overturned": True,
                   "rigid_body.impacts": 1, "rigid_body.impacts[0].time": 0.4, "impacts": 2, "impacts[0].time": 0.46,
                   "impacts[1].time": 0.49, "checks": 2, "checks_failed": 1, "departures": None}
    many = sweep.summary_figures({"impacts": [{"time": 0.1 * k, "corner": "A"} for k in range(9)]})
    assert many == {"impacts": 9}  # beyond MAX_LIST records: their count alone
    ungraded = sweep.summary_figures({"checks": [{"value": 1.0, "passed": None}, {"value": 2.0, "passed": False}]})
    assert ungraded == {"checks": 2, "checks_failed": 1}  # a check without a verdict has not failed
    assert sweep.summary_figures({"impacts": []})["impacts"] == 0


class Terminal(io.StringIO):
    def isatty(self):
        return True


class FakeClock:
    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def bars(stream: io.StringIO) -> list[str]:
    """The progress bar's states written on a terminal stream (each redrawn in place, rich's colour and
    cursor codes left out): ``sweep ━━━━╺━━━ 2/6: 1 complete, ...``."""
    return [part.strip() for part in re.split(r"[\r\n]", ANSI.sub("", stream.getvalue()))
            if part.strip().startswith("sweep ")]


def test_progress_lines_and_counts():
    """A line a finished point; on a terminal the bar: the counts of each status, running, waiting."""
    plain, tty = io.StringIO(), Terminal()
    for stream in (plain, tty):
        progress = sweep.SweepProgress(6, stream=stream, parallelism=2, clock=FakeClock())
        progress.started("mu=0.9")
        progress.started("mu=1.2")
        progress.point({"label": "mu=0.3", "status": "complete", "message": None, "wall_s": 4.0},
                       {"complete": 1, "failed": 0})
        progress.point({"label": "mu=0.6", "status": "failed", "message": "--mu must be >= 0", "wall_s": 0.5},
                       {"complete": 1, "failed": 1})
    assert plain.getvalue() == ("[1/6] mu=0.3: complete, 4.0 s\n"
                                "[2/6] mu=0.6: failed (--mu must be >= 0), 0.5 s\n")
    assert bars(tty)[-1].startswith("sweep ") and "2/6: 1 complete, 1 failed, 2 running, 2 waiting" in bars(tty)[-1]
    assert "[2/6] mu=0.6: failed (--mu must be >= 0), 0.5 s\n" in ANSI.sub("", tty.getvalue())  # above the bar
    quiet = io.StringIO()
    sweep.SweepProgress(2, stream=quiet, quiet=True).point({"label": "x", "status": "complete", "message": None,
                                                           "wall_s": 1.0}, {"complete": 1})
    assert quiet.getvalue() == ""


def test_time_left_is_the_mean_wall_time_times_the_points_left_over_the_workers():
    """(Defect 6) The completed points' mean wall time times the points left, less what the running
    ones have run already, over the parallelism (never more than the points left)."""
    assert sweep.time_left([], 5, 2) is None  # nothing finished yet: no estimate
    assert sweep.time_left([3.0, 5.0], 4, 2) == 8.0  # 4 s a point, 4 points on 2 workers
    assert sweep.time_left([4.0], 4, 2, running_for=[1.0, 3.0]) == 6.0  # (16 - 4) / 2
    assert sweep.time_left([4.0], 1, 2) == 4.0  # one point left runs on one worker
    assert sweep.time_left([4.0], 1, 2, running_for=[9.0]) == 0.0  # past the mean: about done
    assert sweep.time_left([4.0], 0, 2) == 0.0
    # decreasing as time passes (the running points' clocks) and as points complete
    estimates = [sweep.time_left([4.0], left, 2, running_for=[t, t]) for left, t in ((6, 0), (6, 1), (6, 3), (4, 0))]
    assert estimates == sorted(estimates, reverse=True) and len(set(estimates)) == 4


def test_progress_counts_running_points_by_their_starts_and_ends_on_a_fake_clock():
    """(Defect 6) Running: the points whose start was announced and whose end was not, never more
    than the workers' threads (a point restarted after its worker died announces a second start);
    the time left on the bar decreases as the clock runs and as points complete."""
    clock, tty = FakeClock(), Terminal()
    progress = sweep.SweepProgress(6, stream=tty, parallelism=2, clock=clock)
    counts = {"complete": 0, "failed": 0}
    for name in ("a", "b", "c"):  # c: announced before the end of a (a worker lost with a on it)
        progress.event((0.0, {"point": name, "state": "started"}))
    assert progress.running() == 2
    progress.update(counts)
    assert "0/6: 0 complete, 2 running, 4 waiting" in bars(tty)[-1] and "left" not in bars(tty)[-1]
    progress.event((0.0, {"point": "a", "state": "ended"}))
    progress.event((0.0, {"point": "c", "state": "ended"}))
    assert progress.running() == 1
    clock.now += 4.0
    counts = {"complete": 1, "failed": 0}
    progress.point({"label": "a", "status": "complete", "message": None, "wall_s": 4.0}, counts)
    progress.started("d")  # b has run 4 s, d 0 s: (4 * 5 - 4 - 0) / 2 = 8 s
    assert progress.time_left(counts) == 8.0
    left = [progress.time_left(counts)]
    for _ in range(3):
        clock.now += 1.0  # d runs on: 7.5, 7, 6.5 s
        left.append(progress.time_left(counts))
    progress.ended("b")
    counts = {"complete": 2, "failed": 0}
    progress.point({"label": "b", "status": "complete", "message": None, "wall_s": 7.0}, counts)
    left.append(progress.time_left(counts))  # mean 5.5 s, 4 left, d has run 3 s: (22 - 3) / 2
    assert left == [8.0, 7.5, 7.0, 6.5, 9.5]  # a slower point raised the mean: the estimate follows it
    progress.ended("d")
    progress.update(counts)
    assert "2/6: 2 complete, 0 running, 4 waiting, about 11 s left" in bars(tty)[-1]  # 5.5 * 4 / 2


def test_no_dashboard_address_where_nothing_serves_one():
    class Client:
        dashboard_link = "http://127.0.0.1:1/status"  # nothing listens on port 1

    assert sweep.dashboard(Client()) is None


def release_event(gate: str, name: str) -> str:
    """The name of the Dask event that releases the point ``name`` held by :class:`HoldTask` (named after the
    test's gate folder, so that no two tests share one)."""
    return f"{gate}/release-{name}"


class HoldTask:
    """A task that holds a worker thread until the test sets its point's release event (a Dask
    ``distributed.Event``: the worker blocks on it, with a ceiling of 600 s for a loaded machine),
    counting the points inside it at once (a file a point, in the test's gate folder)."""

    def __init__(self, gate: str):
        self.gate = gate

    def identity(self, point):
        return ["hold", *point.flags()]

    def __call__(self, point, folder, stop_file):
        from distributed import Event

        inside = Path(self.gate) / f"inside-{point.name}"
        inside.write_text("")
        try:
            if not Event(release_event(self.gate, point.name)).wait(timeout=600):
                raise AssertionError(f"timed out after 600 s waiting for the test to release {point.name}")
        finally:
            inside.unlink()
        return {"status": "complete", "message": None, "exit_code": 0, "wall_s": 1.0, "figures": {}}


def test_a_real_sweep_counts_as_running_only_the_points_started_on_its_two_workers(tmp_path):
    """(Defect 6) A LocalCluster of 2 single-threaded workers and 6 points held by the test: the
    bar's running count is never more than 2 (on main it said 4: the futures sent to the workers,
    two a worker, not the points running) and is the number of points inside the task once the
    workers' announcements have arrived."""
    import threading

    from distributed import Event

    gate = tmp_path / "gate"
    gate.mkdir()
    (tmp_path / "s" / "points").mkdir(parents=True)
    points = sweep.grid([("x", tuple(str(k) for k in range(6)))])
    client, cluster = sweep.connect(None, 2)
    tty = Terminal()
    progress = sweep.SweepProgress(6, stream=tty)
    outcome = {}
    try:
        runner = threading.Thread(target=lambda: outcome.update(done=sweep.run_sweep(
            points, HoldTask(str(gate)), tmp_path / "s", client, progress=progress, poll=0.05)))
        runner.start()
        try:
            for k in range(6):  # release the points one at a time, once two are inside (or the last ones)
                inside = min(2, 6 - k)
                wait_for(lambda: len(list(gate.glob("inside-*"))) == inside, f"{inside} points inside", timeout=120,
                         proc=runner)
                wait_for(lambda: bars(tty) and f" {inside} running" in bars(tty)[-1], f"{inside} running", timeout=120,
                         proc=runner)
                Event(release_event(str(gate), f"x={k}"), client=client).set()
        finally:
            for k in range(6):
                Event(release_event(str(gate), f"x={k}"), client=client).set()
            runner.join(120)
    finally:
        client.close()
        cluster.close()
    assert outcome["done"].complete == 6
    counts = [int(re.search(r"(\d+) running", bar).group(1)) for bar in bars(tty)]
    assert counts and max(counts) <= 2, counts


# ----------------------------------------------------------------------------------- LocalCluster
def test_a_2x3_grid_on_a_local_cluster_has_six_complete_rows(tmp_path):
    code, out, err = run_sweep(["sdnd101", "--grid", "k-shock=1e5,1e6", "--grid", "v0=0.5,1,2", "--workers", "2",
                                "--out", tmp_path / "s"])
    assert code == 0, err
    assert_sdnd101_rows(rows(tmp_path / "s"), ("1e5", "1e6"), ("0.5", "1", "2"))
    s = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert s["status"] == "complete" and s["complete"] == 6 and s["reused"] == 0 and s["checks"][0]["passed"]
    assert s["where"] == "a LocalCluster of 2 workers"
    assert "6 points: 6 complete" in out
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert len(progress) == 6 and progress[-1].startswith("[6/6]")


def test_a_failing_point_is_a_row_with_its_message_and_the_others_complete(tmp_path):
    code, out, err = run_sweep(["sdnd101", "--grid", "k-shock=1e6,-1,1e5", "--quiet", "--out", tmp_path / "s"])
    assert code == 1
    assert err.splitlines() == [f"sweep: 3 points: 2 complete, 1 failed ({tmp_path / 's' / 'results.csv'})"]
    table = rows(tmp_path / "s")
    failed = [r for r in table if r["status"] != "complete"]
    assert [r["k-shock"] for r in failed] == ["-1"] and failed[0]["status"] == "failed"
    assert failed[0]["exit_code"] == "2" and "--k-shock must be > 0" in failed[0]["message"]
    assert [r["status"] for r in table] == ["complete", "failed", "complete"]
    for r in table:
        if r["status"] == "complete":
            assert float(r["f_max_abs"]) == pytest.approx(f_max(float(r["k-shock"]), 1.0), rel=1e-2)
    s = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert s["status"] == "complete" and s["not_complete"] == 1 and s["checks"][0]["passed"] is False


def test_a_point_past_the_time_limit_is_stopped_and_keeps_its_files(tmp_path):
    """--time-limit 20: the run to 600 s (1.2 million steps, minutes on any machine) is sent SIGINT,
    records where it stopped (summary interrupted, history up to t_reached) and is a timeout row;
    the short one (0.05 s, 100 steps) completes well within the limit even on a loaded machine."""
    code, out, err = run_sweep(["sdnd101", "--grid", "t-end=0.05,600", "--time-limit", "20", "--quiet",
                                "--out", tmp_path / "s"])
    assert code == 1
    short, long = rows(tmp_path / "s")
    assert short["status"] == "complete", short
    assert long["status"] == "timeout" and "time limit of 20 s reached" in long["message"]
    assert long["exit_code"] == "130"
    summary = json.loads((Path(long["folder"]) / "summary.json").read_text())
    assert summary["status"] == "interrupted" and 0 < summary["t_reached"] < 600
    assert (Path(long["folder"]) / "history.csv").exists()


def test_ctrl_c_keeps_finished_rows_and_a_rerun_completes_only_the_missing_points(tmp_path):
    out = tmp_path / "s"
    args = ["sdnd101", "--grid", "v0=0.5,1,1.5,2", "--workers", "1", "--out", out, "--", "--t-end", "2"]
    proc = sweep_process(args)
    try:
        wait_for(lambda: complete_rows(out) and running_points(out), "a complete row and a running point", timeout=120,
                 proc=proc)
    finally:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "interrupted by SIGINT" in _last_said(err)
    s = json.loads((out / "summary.json").read_text())
    done = complete_rows(out)
    assert s["status"] == "interrupted" and s["complete"] == len(done) >= 1 and s["not_complete"] == 4 - len(done)
    stopped = [r for r in rows(out) if r["status"] == "interrupted" and r["exit_code"] == "130"]
    assert stopped, "the point running at Ctrl-C records that it was stopped"
    assert json.loads((Path(stopped[0]["folder"]) / "summary.json").read_text())["status"] == "interrupted"
    before = {r["point"]: (Path(r["folder"]) / "point.json").stat().st_mtime_ns for r in done}

    code, stdout, err = run_sweep(args)
    assert code == 0, err
    assert f"4 complete ({len(done)} reused" in stdout
    assert [r["status"] for r in rows(out)] == ["complete"] * 4
    for r in rows(out):  # the points complete before Ctrl-C were not run again
        if r["point"] in before:
            assert (Path(r["folder"]) / "point.json").stat().st_mtime_ns == before[r["point"]]
    assert len([line for line in err.splitlines() if line.startswith("[")]) == 4 - len(done)
    assert json.loads((out / "summary.json").read_text())["reused"] == len(done)


def test_a_quiet_sweep_whose_points_all_fail_says_so_on_one_line(tmp_path):
    """(Defect 3) --quiet: no progress, but a sweep with a point not complete ends with one line on
    stderr (the counts and the table), and the exit code 1."""
    out = tmp_path / "s"
    code, stdout, err = run_sweep(["sdnd101", "--grid", "k-shock=-1,-2,-3", "--workers", "2", "--quiet", "--out", out])
    assert code == 1
    assert err.splitlines() == [f"sweep: 3 points: 0 complete, 3 failed ({out / 'results.csv'})"]
    assert [r["status"] for r in rows(out)] == ["failed"] * 3
    assert "3 points: 0 complete (0 reused from an earlier run), 3 not complete" in stdout


def point_records(folder: Path) -> dict:
    """{point name: its point.json} of the points that have one."""
    found = {}
    for path in (folder / "points").glob("*/point.json"):
        try:
            found[path.parent.name] = json.loads(path.read_text())
        except (OSError, ValueError):
            pass
    return found


def test_sigterm_keeps_the_row_of_every_point_finished_before_the_sweep_exits(tmp_path):
    """(Defect 4) SIGTERM right as a point finishes (its point.json says complete, its row may not
    be in the table yet): every point that finished before the sweep exited is a row with the
    status its point.json records, and the counts in summary.json are those of the table. (On main
    the point finished meanwhile was left out of results.csv.)"""
    out = tmp_path / "s"
    proc = sweep_process(["sdnd101", "--grid", "v0=0.5,1,1.5,2,2.5,3", "--workers", "2", "--out", out,
                          "--", "--t-end", "2"])
    try:
        wait_for(lambda: any(r.get("status") == "complete" for r in point_records(out).values()),
                 "a point's point.json saying complete", timeout=180, poll=0.005, proc=proc)
    finally:
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 143, err
    records, table = point_records(out), {r["point"]: r for r in rows(out)}
    assert any(r["status"] == "complete" for r in records.values())
    assert sorted(table) == sorted(records), "a point that finished is missing from results.csv"
    for name, record in records.items():
        code = "" if record["exit_code"] is None else str(record["exit_code"])
        assert (table[name]["status"], table[name]["exit_code"]) == (record["status"], code), name
    assert all(r["status"] in ("complete", "interrupted") for r in table.values()), table
    s = json.loads((out / "summary.json").read_text())
    statuses = [r["status"] for r in table.values()]
    assert s["status"] == "interrupted" and s["complete"] == statuses.count("complete")
    assert s["interrupted"] == statuses.count("interrupted") and s["failed"] == 0
    assert s["not_run"] == 6 - len(table)
    assert f"sweep: {sweep.SweepOutcome.of(6, s, 0, out / 'results.csv').describe()}" in err


def _last_said(err: str) -> str:
    """The last line of a run's stderr but the warnings' note, which fem.run.lifecycle prints after
    everything (a loaded machine's Dask may book a heartbeat warning: "note: 1 warning(s) during the run")."""
    lines = [line for line in err.splitlines() if not line.startswith("note: ")]
    return lines[-1] if lines else ""


def test_sigterm_interrupts_the_running_points_and_a_rerun_runs_them_again(tmp_path):
    """(Defect 5) The points running when the sweep gets SIGTERM are stopped with SIGTERM: each is
    an ``interrupted`` row with exit code 143 (not ``failed``), its folder says interrupted, and the
    counts say so; the same command again runs them again (from t = 0: a case does not resume), seen
    as both folders running afresh (a rerun that completes: the Ctrl-C test above)."""
    out = tmp_path / "s"
    args = ["sdnd101", "--grid", "v0=0.5,1", "--workers", "2", "--out", out, "--", "--t-end", "40"]
    proc = sweep_process(args)
    try:
        wait_for(lambda: len(running_points(out)) == 2, "both points running", timeout=180, proc=proc)
    finally:
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 143 and "interrupted by SIGTERM" in _last_said(err), err
    table = rows(out)
    assert [(r["status"], r["exit_code"]) for r in table] == [("interrupted", "143")] * 2, table
    for r in table:
        assert r["message"].startswith("stopped with the sweep")
        point = json.loads((Path(r["folder"]) / "summary.json").read_text())
        assert point["status"] == "interrupted" and 0 < point["t_reached"] < 40
    s = json.loads((out / "summary.json").read_text())
    assert (s["status"], s["complete"], s["failed"], s["interrupted"], s["not_run"]) == ("interrupted", 0, 0, 2, 0)
    assert f"sweep: 2 points: 0 complete, 2 interrupted ({out / 'results.csv'})" in err.splitlines()

    proc = sweep_process(args)  # the same command: neither interrupted point is reused
    try:
        wait_for(lambda: len(running_points(out)) == 2, "both points running again", timeout=180, proc=proc)
    finally:
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 143, err
    assert json.loads((out / "summary.json").read_text())["reused"] == 0
    assert [(r["status"], r["exit_code"]) for r in rows(out)] == [("interrupted", "143")] * 2


def test_a_changed_fixed_flag_runs_the_points_again(tmp_path):
    """A point is reused only for the same case and flags: its point.json records them."""
    out = tmp_path / "s"
    assert run_sweep(["sdnd101", "--grid", "v0=1", "--quiet", "--out", out, "--", "--t-end", "0.05"])[0] == 0
    code, stdout, _ = run_sweep(["sdnd101", "--grid", "v0=1", "--quiet", "--out", out, "--", "--t-end", "0.1"])
    assert code == 0 and "(0 reused" in stdout
    assert json.loads((out / "points" / "v0=1" / "summary.json").read_text())["t_reached"] == pytest.approx(0.1)


def test_flags_after_the_separator_are_checked_like_the_grid(tmp_path):
    """(The contract's refusals add --out at the end, after any --: these are checked here.)"""
    for fixed, words in ((["--v0", "2"], "--v0 is given both --grid and after --"),
                         (["--bogus", "1"], "after -- --bogus: cases/sdnd101.py has no such flag"),
                         (["--out", "x"], "after -- --out: the study sets it itself")):
        code, out, err = run_sweep(["sdnd101", "--grid", "v0=1", "--out", tmp_path / "s", "--", *fixed])
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert err.startswith(f"error: {words}"), err
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------------- a scheduler
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(*args) -> subprocess.Popen:
    module = {"scheduler": "distributed.cli.dask_scheduler", "worker": "distributed.cli.dask_worker"}[args[0]]
    return subprocess.Popen([sys.executable, "-m", module, *args[1:]], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


@contextlib.contextmanager
def dask_cluster(workers: int = 2, port: int | None = None):
    """``dask scheduler`` and ``workers`` × ``dask worker --nthreads 1 --no-nanny`` on localhost,
    as a user starts them by hand; yields (address, worker processes)."""
    from distributed import Client

    port = port or free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_dask("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")]
    try:
        wait_for(lambda: _listening(port), "the scheduler", timeout=60, poll=0.2, proc=procs[0])
        for _ in range(workers):
            procs.append(_dask("worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"))
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=120)
        yield address, procs[1:]
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def listener(answer: bytes | None):
    """A TCP port on localhost that accepts and then says nothing (``answer`` None: a host that does
    not answer) or sends ``answer`` (what is not a Dask scheduler: a web server's reply). Yields
    its address."""
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)
            if answer is not None:
                with contextlib.suppress(OSError):
                    conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for conn in accepted:
            conn.close()


def test_an_unreachable_scheduler_is_one_line_exit_2_and_nothing_written(tmp_path):
    """(Defect 2) Nothing listening, a host that accepts and never answers, and one that answers
    as a web server: each refused within the connect timeout (10 s) on one line naming the address,
    exit 2, no traceback, nothing from Dask's loggers, and the output folder never made. (On main:
    the folder was made, the silent host hung, the web server was "out of memory" with a
    Client.__del__ traceback.)"""
    closed = f"tcp://127.0.0.1:{free_port()}"
    with listener(None) as silent, listener(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") as web:
        addresses = {"closed": closed, "silent": silent, "web": web}
        start = time.monotonic()
        procs = {name: sweep_process(["sdnd101", "--grid", "v0=1", "--scheduler", address, "--out",
                                      tmp_path / name / "s"]) for name, address in addresses.items()}
        results = {}
        try:
            for name, proc in procs.items():
                results[name] = (*proc.communicate(timeout=120), time.monotonic() - start)
        finally:
            for proc in procs.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
    words = {"closed": "cannot connect within 10 s", "silent": "no answer within 12 s",
             "web": "what answers there is not a Dask scheduler"}
    for name, (out, err, elapsed) in results.items():
        assert procs[name].returncode == 2 and out == "", (name, err)
        assert len(err.splitlines()) == 1, err
        assert err.startswith(f"error: --scheduler {addresses[name]}: {words[name]}"), err
        assert elapsed < 60, (name, elapsed)  # the connect timeout is 10 s: a ceiling with a wide margin
    assert list(tmp_path.iterdir()) == []


def test_the_grid_against_a_scheduler_and_two_workers(tmp_path):
    with dask_cluster(2) as (address, _):
        code, out, err = run_sweep(["sdnd101", "--grid", "k-shock=1e5,1e6", "--grid", "v0=0.5,1,2",
                                    "--scheduler", address, "--out", tmp_path / "s"])
    assert code == 0, err
    assert_sdnd101_rows(rows(tmp_path / "s"), ("1e5", "1e6"), ("0.5", "1", "2"))
    s = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert s["where"] == address and s["complete"] == 6


def test_a_worker_killed_mid_sweep_loses_no_row_and_the_sweep_completes(tmp_path):
    """SIGKILL to a worker while it runs a point: Dask runs that point again on the other worker,
    the rows finished before are untouched, and the killed worker's case process does not live on
    (it dies with its worker: PR_SET_PDEATHSIG)."""
    import psutil

    out = tmp_path / "s"
    with dask_cluster(2) as (address, workers):
        proc = sweep_process(["sdnd101", "--grid", "v0=0.5,1,1.5,2,2.5,3", "--scheduler", address, "--out", out,
                              "--", "--t-end", "2"])
        try:
            victim = wait_for(lambda: complete_rows(out) and next(
                (w for w in workers if psutil.Process(w.pid).children(recursive=True)), None),
                "a finished row and a worker running a point", timeout=120, proc=proc)
            orphans = psutil.Process(victim.pid).children(recursive=True)
            before = {r["point"]: (Path(r["folder"]) / "point.json").read_text() for r in complete_rows(out)}
            victim.kill()
            victim.wait()
            _, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, err
    table = rows(out)
    assert [r["status"] for r in table] == ["complete"] * 6
    for r in table:
        if r["point"] in before:
            assert (Path(r["folder"]) / "point.json").read_text() == before[r["point"]]
    for p in orphans:
        assert not p.is_running() or p.status() == psutil.STATUS_ZOMBIE, "a case outlived its killed worker"


# ----------------------------------------------------------------------------------- contract rows
# tests/test_contract.py runs these as it runs every script's (in its process, --out added):
# a short run (the run of --grid, --workers, --time-limit, --quiet, --force) and the refusals.
CONTRACT_SHORT = (["sdnd101", "--grid", "t-end=0.05,0.1", "--grid", "v0=0.5", "--workers", "2", "--time-limit",
                   "600", "--quiet", "--force"], "custom")
CONTRACT_IMPOSSIBLE = [
    (["sdnd101", "--grid", "nosuch=1"], ("--nosuch", "no such flag")),
    (["sdnd101", "--grid", "v0"], ("--grid v0", "NAME=")),
    (["sdnd101", "--grid", "v0=1,1"], ("--grid", "repeated")),
    (["sdnd101", "--grid", "v0=0:1:0"], ("--grid", "count")),
    (["sdnd101", "--grid", "out=1"], ("--out", "sets it itself")),
    (["sdnd101", "--grid", "v0=1", "--grid", "v0=2"], ("--grid", "twice")),
    (["sdnd101"], ("--grid", "--points")),
    (["sdnd101", "--points", "missing.csv"], ("--points missing.csv", "cannot read")),
    (["sdnd101", "--grid", "v0=1", "--workers", "0"], ("--workers", ">= 1")),
    (["sdnd101", "--grid", "v0=1", "--workers", "1", "--scheduler", "tcp://127.0.0.1:1"], ("--workers", "--scheduler")),
    (["sdnd101", "--grid", "v0=1", "--scheduler", "localhost:8786"], ("--scheduler", "tcp://")),
    (["sdnd101", "--grid", "v0=1", "--time-limit", "0"], ("--time-limit", "> 0")),
    (["nosuchcase", "--grid", "v0=1"], ("CASE nosuchcase", "not a case")),
    (["sweep", "--grid", "v0=1"], ("CASE sweep", "not a case")),
]
POINTS_CSV = ROOT / "tests" / "data" / "sweep_points.csv"  # k-shock,v0: 1e6,0.5 and 1e5,1
CONTRACT_PORT = free_port()


def check_short(result) -> None:
    """--grid (2 points), --workers 2 (the summary says so), --time-limit (kept), --quiet (nothing
    on stderr), --force (given to every point: its command ends with it)."""
    assert result.code == 0 and result.err == "", result.err
    s = result.summary()
    assert s["parameters"]["workers"] == 2 and s["parameters"]["time_limit"] == 600 and s["parameters"]["force"]
    assert s["where"] == "a LocalCluster of 2 workers"
    table = rows(result.folder)
    assert [(r["t-end"], r["status"]) for r in table] == [("0.05", "complete"), ("0.1", "complete")]
    for r in table:
        point = json.loads((Path(r["folder"]) / "summary.json").read_text())
        assert "--v0 0.5 --force --out" in point["command"] and point["t_reached"] == pytest.approx(float(r["t-end"]))


def check_points_on_a_scheduler(result) -> None:
    """--points (the CSV's rows, in its order) sent to --scheduler (a scheduler and a worker)."""
    assert result.code == 0, result.err
    s = result.summary()
    assert s["where"] == f"tcp://127.0.0.1:{CONTRACT_PORT}"
    table = rows(result.folder)
    assert [(r["k-shock"], r["v0"]) for r in table] == [("1e6", "0.5"), ("1e5", "1")]
    for r in table:
        assert float(r["f_max_abs"]) == pytest.approx(f_max(float(r["k-shock"]), float(r["v0"])), rel=1e-2)


CONTRACT_FLAG_RUNS = [
    ("grid-local", tuple(CONTRACT_SHORT[0]), check_short, None),
    ("points-scheduler", ("sdnd101", "--points", str(POINTS_CSV), "--scheduler", f"tcp://127.0.0.1:{CONTRACT_PORT}",
                          "--quiet"), check_points_on_a_scheduler, lambda: dask_cluster(1, CONTRACT_PORT)),
]
