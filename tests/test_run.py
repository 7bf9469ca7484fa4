"""fem.run.lifecycle: the run lifecycle every case script shares (output folder, status, exit codes,
resource bounds, progress line, command line). Library-level checks; the scripts' own behaviour
is checked over every script in tests/test_contract.py and as subprocesses in tests/test_sdnv105_run.py."""
import io
import json
import os
import signal

import pytest

from fem.io import output_folder

from fem.time import progress
from fem.time.dynamics import ConvergenceError
from fem.time.interrupt import Interrupted
from fem.run.lifecycle import (BadInput, CaseParser, ProgressLine, Run, add_run_flags, check_resources, count_steps, estimate, execute,
                     finite, prepare_output)


def _start(out, **kw):
    return Run.start(out, "demo", "python cases/demo.py", "benchmark", {"dt": 1e-3}, t_end=1.0, quiet=True, **kw)


def test_summary_says_running_from_the_start_then_the_final_status(tmp_path):
    run = _start(prepare_output(tmp_path / "out"))
    first = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert first["status"] == "running"
    assert {"case", "command", "version", "configuration", "parameters"} <= set(first)
    progress.step("release", 0.25)
    progress.step("release", 0.5)
    final = run.finish("complete", {"checks": [1.0, float("nan")]})
    written = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert written == final | {"checks": [1.0, None]}  # NaN written as null, valid JSON
    assert written["status"] == "complete" and written["t_reached"] == 0.5 and written["phase_reached"] == "release"


def test_a_run_removes_only_the_files_its_predecessor_listed(tmp_path):
    """The previous run's summary.json lists what it wrote; the next run removes those when it
    starts, and nothing else: not a user's notes.txt, not a CSV or PNG it did not list."""
    out = tmp_path / "out"
    out.mkdir()
    listed = ["summary.json", "report.md", "history.csv", "solution.pvd", "solution_000001.vtu", "plot.png"]
    for name in listed:
        (out / name).write_text("old")
    (out / "summary.json").write_text(json.dumps({"status": "complete", "files": listed}))
    for name in ("notes.txt", "data.csv", "figure.png", "mine.vtu"):
        (out / name).write_text("mine")
    prepare_output(out)
    assert (out / "report.md").exists()  # claiming removes nothing: a refused run leaves the folder as it was
    run = _start(out)
    run.finish("complete")
    assert sorted(p.name for p in out.iterdir()) == ["data.csv", "figure.png", "mine.vtu", "notes.txt", "summary.json"]
    assert json.loads((out / "summary.json").read_text())["files"] == ["summary.json"]


def test_a_folder_without_a_summary_is_not_cleared(tmp_path):
    (tmp_path / "data.csv").write_text("a user's file")
    _start(prepare_output(tmp_path)).finish("complete")
    assert (tmp_path / "data.csv").read_text() == "a user's file"


@pytest.mark.parametrize("setup, message", [
    (lambda p: p.write_text("x"), "exists and is not a folder"),
    (lambda p: (p / "summary.json").mkdir(parents=True), "summary.json exists and is not a file"),
])
def test_unusable_output_folders_are_refused(tmp_path, setup, message):
    target = tmp_path / "out"
    setup(target)
    with pytest.raises(BadInput, match=message):
        prepare_output(target)


def test_output_under_proc_is_refused():
    with pytest.raises(BadInput, match="--out /proc/rockfem-test: cannot create the folder"):
        prepare_output("/proc/rockfem-test")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_is_refused(tmp_path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(BadInput, match="not writable"):
            prepare_output(tmp_path)
    finally:
        tmp_path.chmod(0o700)


@pytest.mark.parametrize("argv, message", [
    (["--dt", "-1e-3"], None),  # read as a number (argparse alone calls it a missing argument)
    (["--dt", "inf"], "argument --dt: must be a finite number, got 'inf'"),
    (["--dt", "nan"], "argument --dt: must be a finite number, got 'nan'"),
    (["--dt", "x"], "argument --dt: expected a number, got 'x'"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_case_parser_gives_one_line_errors_and_reads_negative_numbers(argv, message):
    p = CaseParser(prog="demo")
    p.add_argument("--dt", type=finite, default=1.0)
    if message is None:
        assert p.parse_args(argv).dt == -1e-3
    else:
        with pytest.raises(BadInput) as err:
            p.parse_args(argv)
        assert str(err.value) == message


def _exit_code_of(exc, tmp_path, capsys):
    def body(argv):
        _start(prepare_output(tmp_path / "out"))
        progress.step("release", 0.125)
        raise exc
    code = execute(body, [])
    err = capsys.readouterr().err
    return code, err, json.loads((tmp_path / "out" / "summary.json").read_text())


@pytest.mark.parametrize("exc, code, status", [
    (Interrupted(signal.SIGINT), 130, "interrupted"),
    (Interrupted(signal.SIGTERM), 143, "interrupted"),
    (ConvergenceError("release", 0.125, 1e-5, 1.0, 3, "y", (0.0, 0.0), 40), 1, "failed"),
    (OSError(28, "No space left on device", "/x/history.csv"), 1, "failed"),
    (RuntimeError("a defect"), 1, "failed"),
])
def test_execute_maps_each_failure_to_its_exit_code_status_and_one_line(exc, code, status, tmp_path, capsys):
    got, err, summary = _exit_code_of(exc, tmp_path, capsys)
    assert got == code
    assert summary["status"] == status and summary["t_reached"] == 0.125
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    if isinstance(exc, OSError):
        assert "cannot write /x/history.csv: No space left on device" in err
    if type(exc) is RuntimeError:
        assert (tmp_path / "out" / "traceback.txt").is_file()


def test_bad_input_before_the_run_exits_2_and_leaves_no_new_folder(tmp_path, capsys):
    target = tmp_path / "new"

    def body(argv):
        prepare_output(target)
        output_folder.write_text(target / "mesh.msh", "generated")  # as meshes.generate writes it
        raise BadInput("--mesh m.msh: unmerged duplicate nodes")

    assert execute(body, []) == 2
    assert capsys.readouterr().err == "error: --mesh m.msh: unmerged duplicate nodes\n"
    assert not target.exists()


def test_resources_are_refused_with_the_estimate():
    with pytest.raises(BadInput, match=r"500,000,000,000 time steps, more than the limit"):
        check_resources(estimate(1, 0, 1, count_steps([(0.0, 0.5, 1e-12)])))
    huge = estimate(nodes=1e10, cells=1e10, nodes_per_cell=4, steps=10)
    assert huge.memory > 1e14
    with pytest.raises(BadInput, match="of memory available"):
        check_resources(huge)
    check_resources(huge, force=True)  # --force runs anyway
    check_resources(estimate(25, 12, 4, 5000))  # the benchmark mesh passes


def test_progress_line_reports_phase_time_rate_and_time_left():
    stream = io.StringIO()
    line = ProgressLine("sdnv105a", t_end=1.0, stream=stream, delay=0.0, every=0.0)
    with progress.listening(line):
        for k in range(1, 6):
            progress.step("release", 0.1 * k)
    text = stream.getvalue().splitlines()
    assert len(text) == 5 and not stream.isatty()
    assert text[-1].startswith("sdnv105a: release, t = 0.5 s of 1 s, 5 steps,")
    assert "steps/s" in text[-1] and "left" in text[-1]


def test_progress_line_is_silent_during_its_delay():
    stream = io.StringIO()
    line = ProgressLine("x", t_end=1.0, stream=stream, delay=3600.0)
    for k in range(100):
        line("release", k / 100)
    assert stream.getvalue() == ""


def test_a_signal_inside_held_waits_for_the_block_to_end():
    """fem.time.interrupt.held: a SIGINT during the block (a step being recorded and announced) is
    raised when the block ends, after all of it ran; outside held it is raised at once."""
    import os
    import signal

    from fem.time.interrupt import Interrupted, catch_signals, held

    done = []
    with catch_signals():
        with pytest.raises(Interrupted) as caught:
            with held():
                os.kill(os.getpid(), signal.SIGINT)
                done.append("recorded")
                done.append("announced")
        assert caught.value.exit_code == 130 and done == ["recorded", "announced"]
        with pytest.raises(Interrupted):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # the handler runs between two bytecodes
                pass


def _checked_body(tmp_path, checks, strict):
    def body(argv):
        p = CaseParser(prog="demo")
        add_run_flags(p)
        p.parse_args(argv)
        run = _start(prepare_output(tmp_path / "out"))
        run.finish("complete", {"checks": checks})
        return 0
    return execute(body, ["--strict"] if strict else [])


@pytest.mark.parametrize("strict", [False, True])
def test_strict_exits_1_when_a_graded_check_fails_and_the_console_ends_with_the_tally(tmp_path, capsys, strict):
    checks = [{"quantity": "KE", "passed": True}, {"quantity": "t1", "within_tolerance": False},
              {"quantity": "info", "passed": None}]
    code = _checked_body(tmp_path, checks, strict)
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "1 of 2 checks met"
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert (s["status"], s["checks_met"], s["checks_graded"]) == ("complete", 1, 2)
    assert code == (1 if strict else 0)
    assert (err == "") is (not strict) and ("t1" in err) is strict


def test_strict_with_every_check_met_exits_0(tmp_path, capsys):
    assert _checked_body(tmp_path, [{"quantity": "KE", "passed": True}], True) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 of 1 checks met"


def test_warnings_are_counted_in_the_summary_not_printed_by_the_hundred(tmp_path, capsys):
    import logging
    import warnings

    import numpy as np

    def body(argv):
        run = _start(prepare_output(tmp_path / "out"))
        progress.step("release", 0.1)
        for _ in range(300):
            np.log(np.zeros(1))  # RuntimeWarning: divide by zero
            logging.getLogger("fem.demo").warning("a suspicious step")
        warnings.warn("once", UserWarning)
        run.finish("complete")
        return 0

    assert execute(body, []) == 0
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("note: 601 warning(s)")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    listed = {w["message"]: w["count"] for w in summary["warnings_counted"]}
    assert listed == {"divide by zero encountered in log": 300, "a suspicious step": 300, "once": 1}


def test_a_state_that_overflows_ends_the_run_failed(tmp_path, capsys):
    import numpy as np

    def body(argv):
        _start(prepare_output(tmp_path / "out"))
        progress.step("release", 0.25)
        x = np.array([1e300])
        for _ in range(3):
            x = x * x  # a state that grows past 1.8e308
        return 0

    assert execute(body, []) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "overflow" in err and "Traceback" not in err
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["status"] == "failed" and "overflow at t = 0.25 s" in s["message"]


def test_a_started_run_keeps_its_files_when_its_summary_cannot_be_written(tmp_path, capsys, monkeypatch):
    """A full disk when the final summary.json is written: the run fails (exit 1) and what it
    computed stays on disk; only a run that never started leaves the folder as it was found."""
    import fem.run.lifecycle

    def body(argv):
        run = _start(prepare_output(tmp_path / "out"))
        output_folder.write_text(tmp_path / "out" / "history.csv", "t\n0\n")
        progress.step("release", 0.5)

        def full_disk(path, data):
            raise OSError(28, "No space left on device", str(path))

        monkeypatch.setattr(fem.run.lifecycle, "write_json", full_disk)
        run.finish("complete")
        return 0

    assert execute(body, []) == 1
    assert (tmp_path / "out" / "history.csv").read_text() == "t\n0\n"
    assert not (tmp_path / "out" / output_folder.LOCK).exists()
    assert "No space left on device" in capsys.readouterr().err
