"""Progress on stderr, on a log file and on a terminal: a run's line (fem.run.lifecycle.ProgressLine,
fed by fem.time.progress's step announcements) and a sweep's (fem.studies.progress.SweepProgress).

A log file or a pipe gets plain lines (no carriage return, no escape code), one every ``every``
seconds, none during the first ``delay``; a terminal gets one line redrawn in place by rich at most
four times a second, ended (a newline) when the run or the sweep ends, whatever ended it; no thread
is started for it. The clocks are the tests' own."""
from __future__ import annotations

import io
import itertools
import re
import signal
import threading

import pytest

from fem.run import lifecycle
from fem.run.lifecycle import ProgressLine, Run, execute, prepare_output
from fem.stage.phase import ConvergenceError
from fem.studies.progress import SweepProgress
from fem.time import progress
from fem.time.interrupt import Interrupted

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal(io.StringIO):
    def isatty(self):
        return True


class FakeClock:
    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def a_terminal_that_redraws(monkeypatch):
    """TERM as on a usual terminal (a dumb one gets plain lines, as a log file)."""
    monkeypatch.setenv("TERM", "xterm-256color")


def shown(stream: io.StringIO) -> list[str]:
    """What a terminal shows, line by line: the escape codes left out, each redraw a line of its own."""
    return [part for part in re.split(r"[\r\n]", ANSI.sub("", stream.getvalue())) if part.strip()]


def redraws(stream: io.StringIO) -> int:
    """How many times the live line was drawn: once, then a carriage return for each redraw."""
    return (1 + stream.getvalue().count("\r")) if stream.getvalue() else 0


# ----------------------------------------------------------------------------------- a run
def test_a_log_file_gets_a_plain_line_every_every_seconds_and_none_during_the_delay():
    """A step every 0.25 s of wall time for 100 s (400 steps to t_end = 10 s): silent for the first 30 s,
    then a line at 30, 50, 70 and 90 s; the time left is the rate of the last 10 s (0.1 s a second)."""
    clock, log = FakeClock(), io.StringIO()
    line = ProgressLine("sdnv105a", t_end=10.0, stream=log, delay=30.0, every=20.0, clock=clock)
    with progress.listening(line):
        for k in range(1, 401):
            clock.now = 0.25 * k
            progress.step("release", 0.025 * k)
            if clock.now < 30.0:
                assert log.getvalue() == ""
    line.close()
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text and text.endswith("\n")
    lines = text.splitlines()
    assert [re.search(r"t = (\S+) s", x).group(1) for x in lines] == ["3", "5", "7", "9"]
    assert lines[0] == "sdnv105a: release, t = 3 s of 10 s, 120 steps, 4 steps/s, about 70 s left"
    assert lines[-1] == "sdnv105a: release, t = 9 s of 10 s, 360 steps, 4 steps/s, about 10 s left"


def _left_range(text: str) -> tuple[float, float]:
    """(low, high) [s] of ``about A to B left`` or ``about A left`` (s, min, h)."""
    m = re.search(r"about (\S+ \S+?)(?: to (\S+ \S+?))? left", text)
    def seconds(x):
        value, unit = x.split()
        return float(value) * {"s": 1, "min": 60, "h": 3600}[unit]
    return seconds(m.group(1)), seconds(m.group(2) or m.group(1))


def test_the_time_left_of_a_run_whose_pace_changes_tenfold_is_a_range_that_holds_it_and_does_not_swing():
    """An event-driven run: 10 s of wall time at 1 s simulated a second (coarse steps), 10 s at 0.1 (fine
    steps around an impact), and so on, to t_end = 44 s (80 s of wall time). From the first full cycle on
    each line's range holds the true time left, and its upper end never grows (a new user saw 7 s, then
    69 min, within one run, from the last ten seconds' pace alone)."""
    clock, log = FakeClock(), io.StringIO()
    line = ProgressLine("pulse", t_end=44.0, stream=log, delay=0.0, every=2.0, clock=clock)
    rate = lambda w: 1.0 if int(w // 10) % 2 == 0 else 0.1  # noqa: E731
    truth, t, w, dw = {}, 0.0, 0.0, 0.05
    with progress.listening(line):
        while t < 44.0 - 1e-9:
            w += dw
            t = min(t + rate(w - dw) * dw, 44.0)
            clock.now = w
            progress.step("shake", t)
            truth[round(w, 6)] = t
    line.close()
    lines = [x for x in log.getvalue().splitlines() if "left" in x]
    end = max(truth)
    highs = []
    for x in lines:
        at = float(re.search(r"t = (\S+) s of", x).group(1))
        when = min(k for k, v in truth.items() if v >= at - 1e-9)  # the wall time this line was printed at
        if when < 20.0:
            continue
        low, high = _left_range(x)
        left = end - when
        assert low * 0.95 - 1 <= left <= high * 1.05 + 1, (x, left)  # minutes and seconds are rounded
        highs.append(high)
    assert len(highs) > 10 and all(b <= a + 1 for a, b in zip(highs, highs[1:]))
    assert any(" to " in x for x in lines)


def test_a_terminal_gets_one_line_redrawn_at_most_four_times_a_second_and_close_ends_it():
    clock, tty = FakeClock(), Terminal()
    threads = set(threading.enumerate())
    line = ProgressLine("sdnv105a", t_end=1.0, stream=tty, delay=2.0, clock=clock, width=100)
    with progress.listening(line):
        for k in range(1, 101):  # a step every 1/16 s: 100 steps in 6.25 s
            clock.now = k / 16
            progress.step("release", k / 100)
            if clock.now < 2.0:
                assert tty.getvalue() == ""
            assert set(threading.enumerate()) == threads  # rich refreshes only when told: no thread of its own
    assert "\n" not in tty.getvalue()  # one line, redrawn in place
    assert redraws(tty) <= 4 * (6.25 - 2.0) + 1  # not one a step (69 after the delay)
    last = shown(tty)[-1]
    assert last.startswith("sdnv105a: release") and "t = 1 s of 1 s, 100 steps, 16 steps/s" in last
    line.close()
    assert tty.getvalue().endswith("\n") and shown(tty)[-1].startswith("sdnv105a: release")
    assert "left" not in shown(tty)[-1]  # the last state: no time left to tell
    ended = tty.getvalue()
    line.close()
    line("release", 1.0)
    assert tty.getvalue() == ended  # nothing after close
    assert set(threading.enumerate()) == threads


def test_a_terminal_line_without_an_end_time_has_a_spinner_and_the_time_reached():
    clock, tty = FakeClock(), Terminal()
    line = ProgressLine("stack", t_end=None, stream=tty, delay=0.0, clock=clock, width=100)
    for k in range(1, 41):
        clock.now = k / 8
        line("base motion", k / 10)
    line.close()
    last = shown(tty)[-1]
    assert last.startswith("stack: base motion") and "t = 4 s, 40 steps" in last and " of " not in last


def test_a_run_that_ends_before_the_delay_writes_nothing_even_on_a_terminal():
    clock, tty = FakeClock(), Terminal()
    line = ProgressLine("x", t_end=1.0, stream=tty, delay=2.0, clock=clock, width=100)
    for k in range(10):
        clock.now = k / 10
        line("release", k / 10)
    line.close()
    assert tty.getvalue() == ""


@pytest.mark.parametrize("terminal", [False, True])
def test_a_closed_stream_does_not_stop_the_run(terminal):
    stream = Terminal() if terminal else io.StringIO()
    clock = FakeClock()
    line = ProgressLine("x", t_end=1.0, stream=stream, delay=0.0, every=0.0, clock=clock, width=100)
    stream.close()
    for k in range(1, 20):
        clock.now = k / 2
        line("release", k / 20)
    line.close()


@pytest.mark.parametrize("ending, code", [("complete", 0), ("interrupted", 130), ("failed", 1)])
def test_the_terminal_line_is_ended_however_the_run_ends(tmp_path, monkeypatch, ending, code):
    """Through execute and Run (not --quiet): the line is drawn, then ended by a newline before the
    run's last word, on success, on a signal and on a failure alike."""
    tty = Terminal()
    clock = itertools.count(0.0, 0.5).__next__  # half a second a step
    monkeypatch.setattr(lifecycle, "ProgressLine", lambda label, t_end: ProgressLine(
        label, t_end, stream=tty, delay=0.0, clock=clock, width=100))

    def body(argv):
        run = Run.start(prepare_output(tmp_path / "out"), "demo", "python cases/demo.py", "benchmark", {},
                        t_end=1.0, quiet=False)
        for k in range(1, 6):
            progress.step("release", 0.1 * k)
        assert not tty.getvalue().endswith("\n")
        if ending == "interrupted":
            raise Interrupted(signal.SIGINT)
        if ending == "failed":
            raise ConvergenceError("Newton did not converge")
        run.finish("complete")
        return 0

    assert execute(body, []) == code
    assert tty.getvalue().endswith("\n")
    assert "demo: release" in shown(tty)[-1] and "t = 0.5 s of 1 s, 5 steps" in shown(tty)[-1]


def test_quiet_runs_have_no_progress_line(tmp_path):
    run = Run.start(prepare_output(tmp_path / "out"), "demo", "python cases/demo.py", "benchmark", {}, t_end=1.0,
                    quiet=True)
    assert run.progress is None
    run.finish("complete")


# ----------------------------------------------------------------------------------- a sweep
def finished(progress_: SweepProgress, label: str, status: str, wall: float, counts: dict) -> None:
    progress_.point({"label": label, "status": status, "message": None, "wall_s": wall}, counts)


def test_a_sweep_on_a_log_file_writes_a_line_a_point_and_its_state_when_quiet_for_every_seconds():
    clock, log = FakeClock(), io.StringIO()
    sweep = SweepProgress(4, stream=log, parallelism=2, clock=clock, every=20.0)
    sweep.started("a")
    sweep.started("b")
    for t in range(0, 19):  # the sweep's poll: nothing to say for 20 s
        clock.now = float(t)
        sweep.update({"complete": 0})
    assert log.getvalue() == ""
    clock.now = 20.0
    sweep.update({"complete": 0})
    assert log.getvalue() == "sweep 0/4: 0 complete, 2 running, 2 waiting\n"
    clock.now = 30.0
    sweep.ended("a")
    finished(sweep, "a", "complete", 30.0, {"complete": 1})
    for t in range(31, 50):  # a line 10 s ago: the next state line at 50 s
        clock.now = float(t)
        sweep.update({"complete": 1})
    clock.now = 50.0
    sweep.update({"complete": 1})
    sweep.close()
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.splitlines()[1:] == ["[1/4] a: complete, 30.0 s",
                                     "sweep 1/4: 1 complete, 1 running, 2 waiting, about 30 s left"]  # (3 x 30 - 30) / 2


def test_a_sweep_on_a_terminal_redraws_its_bar_when_a_count_changes_else_when_its_text_does():
    clock, tty = FakeClock(), Terminal()
    threads = set(threading.enumerate())
    sweep = SweepProgress(4, stream=tty, parallelism=2, clock=clock, width=100)
    sweep.started("a")
    for _ in range(50):  # the same state, the same instant: drawn once
        sweep.update({"complete": 0})
    assert redraws(tty) == 1 and shown(tty)[-1].startswith("sweep ")
    assert shown(tty)[-1].endswith("0/4: 0 complete, 1 running, 3 waiting")
    clock.now = 5.0
    sweep.update({"complete": 0})  # later, but the same text: not drawn again
    assert redraws(tty) == 1
    sweep.started("b")
    sweep.update({"complete": 0})  # a count changed: at once
    assert redraws(tty) == 2 and shown(tty)[-1].endswith("0/4: 0 complete, 2 running, 2 waiting")
    clock.now = 10.0
    sweep.ended("a")
    finished(sweep, "a|1", "complete", 10.0, {"complete": 1})
    assert shown(tty)[-2] == "[1/4] a|1: complete, 10.0 s"  # the point's line, above the bar
    assert shown(tty)[-1].startswith("sweep ")  # below it, the bar: (3 x 10 s - the 5 s b has run) / 2 workers
    assert shown(tty)[-1].endswith("1/4: 1 complete, 1 running, 2 waiting, about 12 s left")
    assert set(threading.enumerate()) == threads
    sweep.close()
    assert tty.getvalue().endswith("\n") and "1/4: 1 complete" in shown(tty)[-1]
    ended = tty.getvalue()
    sweep.close()
    sweep.update({"complete": 1})
    assert tty.getvalue() == ended


def test_a_quiet_sweep_writes_nothing_on_a_terminal_either():
    tty = Terminal()
    sweep = SweepProgress(2, stream=tty, quiet=True, clock=FakeClock())
    sweep.update({"complete": 0})
    finished(sweep, "x", "complete", 1.0, {"complete": 1})
    sweep.close()
    assert tty.getvalue() == ""
