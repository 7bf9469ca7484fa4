"""What every case script shares around its physics: the command line, the output folder, the run's
status, resource bounds, progress on stderr, and the map from what went wrong to an exit code.

Exit codes (:func:`execute`)
----------------------------
==== ====================================================================================
0    the run completed (its checks may still have failed: read ``summary.json``, or pass
     ``--strict``); an SDNV105 run's energy books agree with it to 1 % of its potential drop
1    the run failed: Newton did not converge, a singular system, a floating-point overflow,
     a result file that could not be written, an input refused only after the run started;
     ``summary.json`` says ``status: failed`` with the message. Also a run whose results
     contradict it (SDNV105: a tilt that left the block strained, energy books that miss), and
     a completed run under ``--strict`` with a graded check not met
2    bad input, refused before anything ran: a flag, a mesh file, the output folder (one
     another live run holds included), a run larger than the machine (see
     :func:`check_resources`); one line on stderr; nothing written, nothing removed
130  interrupted by SIGINT (Ctrl-C), 143 by SIGTERM: ``status: interrupted``, histories and
     ParaView series up to the last converged step are on disk
==== ====================================================================================

``summary.json`` is written with ``status: running`` when the run starts (so a folder whose run was
killed outright never looks finished), and replaced atomically at the very end, after the report
and figures, with ``status`` one of ``complete``, ``interrupted``, ``failed``; it always holds
``case``, ``command`` (the exact command line), ``version`` (of the package), ``configuration``
(``benchmark`` when every parameter that changes the physics is the benchmark's, else ``custom``),
``parameters``, ``files`` (every file the run wrote, :mod:`fem.io.output_folder`), ``warnings_counted``
(gathered, counted) and ``checks_met`` of ``checks_graded``.

A run never mixes its files with an older run's and never removes a file no run wrote: see
:mod:`fem.io.output_folder` (the lock, the list, the umask).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import re
import shlex
import sys
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from fem import compiled
from fem.io import output_folder
from fem.io.results import SERIES_FORMATS, use_series_format
from fem.ranges import BadInput
from fem.run.progress_line import ProgressLine

from fem.time import progress
from fem.stage.phase import ConvergenceError
from fem.time.interrupt import Interrupted, catch_signals

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
STATUSES = ("running", "complete", "interrupted", "failed")
SUMMARY = output_folder.SUMMARY


# ----------------------------------------------------------------------------------- command line
_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE)


class CaseParser(argparse.ArgumentParser):
    """argparse for case scripts: a bad flag or value raises :class:`BadInput` with argparse's one-line
    message (no usage block), and a negative number in exponent form (``--dt -1e-3``) is read as a
    value, not as an unknown flag, so that the range check can name it."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NUMBER

    def error(self, message: str):  # argparse's hook for every parse error
        raise BadInput(message)

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, after refusing an empty folder or file name (``--out ''`` would be read as
        the current directory by ``Path('')``)."""
        argv = list(sys.argv[1:] if args is None else args)
        for k, arg in enumerate(argv):
            if arg == "--":
                break
            name, eq, value = arg.partition("=")
            if name in self._option_string_actions and self._option_string_actions[name].type is Path:
                given = value if eq else (argv[k + 1] if k + 1 < len(argv) else None)
                if given is not None and given.strip() == "":
                    self.error(f"{name} is empty: name a folder or file (e.g. {name} ./results)")
        return super().parse_known_args(argv, namespace)


def finite(text: str) -> float:
    """argparse ``type``: a finite float (``nan``, ``inf`` refused with the flag's name)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def add_run_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every case has: --quiet (no progress line), --force (run past the resource bounds)."""
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    parser.add_argument("--force", action="store_true",
                        help="run even when the estimated memory or step count exceeds the limits")
    add_strict_flag(parser)


class _SeriesFormat(argparse.Action):
    """``--output-format FMT``: the time series of the run are written in FMT
    (fem.io.results.use_series_format); :func:`execute` sets "xdmf" back at each run's start."""

    def __call__(self, parser, namespace, values, option_string=None):
        use_series_format(values)
        setattr(namespace, self.dest, values)


def add_series_flag(parser: argparse.ArgumentParser) -> None:
    """The flag of the cases that write ParaView series: --output-format xdmf (default) or pvd."""
    parser.add_argument("--output-format", choices=SERIES_FORMATS, default=None, action=_SeriesFormat,
                        help="ParaView series: xdmf (default; NAME.xdmf + NAME.h5 a series, whatever the steps) "
                             "or pvd (NAME.pvd + one NAME_NNNNNN.vtu a step, safer against a killed process)")


def require(ok: bool, message: str) -> None:
    """Raise :class:`BadInput` with ``message`` unless ``ok``."""
    if not ok:
        raise BadInput(message)


def require_all(checks: Sequence[tuple[bool, str]]) -> None:
    """Raise :class:`BadInput` with the message of the first ``(ok, message)`` that is not ok."""
    for ok, message in checks:
        require(ok, message)


def check_materials(makers: Sequence[tuple[str, Callable[[], object]]]) -> None:
    """Build each material of ``(flags, make)``: materials validate themselves (E > 0, rho > 0,
    -1 < nu < 0.5, damping >= 0) and their messages name the material's fields, so a ValueError
    becomes a :class:`BadInput` that says which flags they come from."""
    for flags, make in makers:
        try:
            make()
        except ValueError as err:
            raise BadInput(f"{flags}: {err}") from None


def command_line(script: str, argv: Sequence[str] | None) -> str:
    """The command as a user would retype it: ``python cases/x.py --flag value ...``."""
    args = sys.argv[1:] if argv is None else list(argv)
    return shlex.join(["python", script, *args])


def version() -> str:
    """The installed package's version (``pyproject.toml``)."""
    try:
        from importlib.metadata import version as _version

        return _version("rockfem")
    except Exception:  # not installed (running from a bare checkout)
        return "unknown"


# ----------------------------------------------------------------------------------- output folder
def prepare_output(out: Path, flag: str = "--out") -> Path:
    """Claim ``out`` as this run's folder (:func:`fem.io.output_folder.claim`): refuse, as
    :class:`BadInput` naming ``flag``, an empty name, an existing file, a folder that cannot be
    created or written, a summary.json that is a folder, a folder another live run holds; create
    it if missing and take its lock. Nothing in it is removed here: the files an earlier run
    listed are removed when the run starts (:meth:`Run.start`), so a run refused before it starts
    leaves the folder as it was."""
    try:
        return output_folder.claim(out, flag)
    except output_folder.FolderRefused as err:
        raise BadInput(str(err)) from None


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, Path):
        return str(x)
    return x


def write_json(path: Path, data: dict) -> None:
    """``data`` as indented JSON, replaced atomically (numpy scalars converted, NaN and infinities
    written as null, paths as strings)."""
    output_folder.write_text(Path(path), json.dumps(_jsonable(data), indent=2, allow_nan=False) + "\n")


# ----------------------------------------------------------------------------------- resources
#: a run of more steps than this is refused unless --force (modeling A: about 4 ms a step, so
#: 2e6 steps is two hours; the one-dof cases keep every row in memory)
MAX_STEPS = 2_000_000


def available_memory() -> int:
    """Bytes the run may use: MemAvailable of /proc/meminfo, bounded by a cgroup v2 memory limit
    when one is set (8 GiB when neither can be read)."""
    available = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if limit != "max":
            room = int(limit) - used
            available = room if available is None else min(available, room)
    except (OSError, ValueError):
        pass
    return available if available is not None else 8 << 30


@dataclass(frozen=True)
class Estimate:
    """What a run will need, estimated before meshing or assembling.

    Memory model [bytes] (upper bounds, measured on this code's QUA4/TRIA6 kernels): element
    kernels 400 (2 n_e)^2 per cell (vectorised arrays of shape (cells, quadrature points, 2 n_e,
    2 n_e) and their temporaries); sparse matrices 12 bytes a non-zero, n_nz = cells (2 n_e)^2
    before summation, six matrices (K, C, M, the Newton matrix, its free block, the mixed system);
    the sparse factor 40 n_nz (fill of a 2-D nested-dissection / COLAMD ordering); histories kept
    in memory ``row_bytes`` a step.
    """

    dofs: int
    cells: int
    nonzeros: int
    steps: int
    memory: int

    def describe(self) -> str:
        return (f"{_size(self.memory)} for {self.dofs:,} dofs, {self.cells:,} cells, {self.nonzeros:,} matrix "
                f"non-zeros, {self.steps:,} steps")


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.3g} {unit}"
        n /= 1000.0
    return f"{n:.3g} PB"


def estimate(nodes: float, cells: float, nodes_per_cell: int, steps: float, row_bytes: float = 2000.0) -> Estimate:
    """:class:`Estimate` of a run of ``steps`` steps on a mesh of ``nodes`` nodes and ``cells``
    cells of ``nodes_per_cell`` nodes (floats accepted so that absurd sizes do not overflow)."""
    local = (2 * nodes_per_cell) ** 2
    nnz = float(cells) * local
    memory = 400.0 * local * float(cells) + 6 * 12.0 * nnz + 40.0 * nnz + row_bytes * float(steps) + 16.0 * nodes
    big = lambda x: int(min(x, 9e18))  # noqa: E731
    return Estimate(big(2 * nodes), big(cells), big(nnz), big(steps), big(memory))


def check_resources(est: Estimate, force: bool = False, max_steps: int = MAX_STEPS, what: str = "this run",
                    unit: str = "time steps", remedy: str = "a larger --dt, a shorter --t-end") -> None:
    """Refuse (:class:`BadInput`) a run whose step count exceeds ``max_steps`` or whose estimated
    memory exceeds the memory available, unless ``force``. The message reads in the case's terms:
    ``what`` needs N ``unit`` (``--dt 1e-12 s to --t-end 0.5 s needs 500,000,000,000 time steps``),
    ``remedy`` names the flags that reduce it (``--force`` is added)."""
    if force:
        return
    count = (f"{est.steps:,}" if est.steps < 9e18 else "more than 9e18")
    if est.steps > max_steps:
        raise BadInput(f"{what} needs {count} {unit}, more than the limit of {max_steps:,} ({remedy}, or --force)")
    room = available_memory()
    if est.memory > room:
        raise BadInput(f"{what} needs about {est.describe()}: more than the {_size(room)} of memory available "
                       f"(a coarser mesh, {remedy}, or --force)")


def count_steps(spans: Sequence[tuple[float, float, float]]) -> float:
    """Number of steps of phases given as (t_start, t_end, dt), as a float (no overflow)."""
    total = 0.0
    for t0, t1, dt in spans:
        if t1 > t0:
            n = (t1 - t0) / dt
            total += math.ceil(n - 1e-9) if math.isfinite(n) else math.inf  # dt 1e-320 overflows: inf
    return total


# ----------------------------------------------------------------------------------- run lifecycle
class Run:
    """The record of one run in its output folder: removes the files the folder's previous run
    listed and writes ``summary.json`` with ``status: running`` at :meth:`start`, follows the
    converged steps (time reached, progress line), and writes the final summary last, after every
    other file (:meth:`final` composes it, the case writes its report and figures, :meth:`close`
    writes it; :meth:`finish` does both for a case with nothing to write after)."""

    current: "Run | None" = None

    def __init__(self, out: Path, case: str, command: str, configuration: str, parameters: dict,
                 t_end: float | None, quiet: bool) -> None:
        if configuration not in ("benchmark", "custom"):
            raise ValueError(f"configuration must be 'benchmark' or 'custom', got {configuration!r}")
        self.out, self.case, self.command = Path(out), case, command
        self.header = {"case": case, "status": "running", "configuration": configuration, "command": command,
                       "version": version(), "parameters": parameters}
        self.status = "running"
        self.strict = _requested["strict"]  # --strict, as parsed in this execute
        self.phase: str | None = None
        self.t_reached: float | None = None
        self.pending: dict | None = None
        self.written: dict | None = None
        self.progress = None if quiet else ProgressLine(case, t_end)
        self._listener = progress.listening(self._step)

    @classmethod
    def start(cls, out: Path, case: str, command: str, configuration: str, parameters: dict,
              t_end: float | None = None, quiet: bool = False) -> "Run":
        """Begin a run in the folder ``out`` claimed by :func:`prepare_output`: the files its
        previous run listed are removed (no other), then summary.json says ``running``. The compiled
        loops of the modules imported so far are loaded first (fem.compiled.load): a running run
        reaches its first step without waiting for numba."""
        compiled.load()
        run = cls(out, case, command, configuration, parameters, t_end, quiet)
        output_folder.clear_previous()
        output_folder.note(run.out / SUMMARY)
        write_json(run.out / SUMMARY, {**run.header, "files": output_folder.written()})
        run._listener.__enter__()
        cls.current = run
        return run

    def _step(self, phase: str, t: float) -> None:
        self.phase, self.t_reached = phase, t
        if self.progress is not None:
            self.progress(phase, t)

    @property
    def configuration(self) -> str:
        return self.header["configuration"]

    def _stop_listening(self) -> None:
        if self._listener is not None:
            self._listener.__exit__(None, None, None)
            self._listener = None
            if self.progress is not None:
                self.progress.close()

    def final(self, status: str, summary: dict | None = None, message: str | None = None) -> dict:
        """The final summary, not yet written: the header, ``status``, ``message`` (why it
        stopped), ``t_reached`` [s] and ``phase_reached``, ``summary``, the tally of its graded
        checks (``checks_met`` of ``checks_graded``). Kept as pending: a signal before
        :meth:`close` writes it with status ``interrupted``."""
        if status not in STATUSES[1:]:
            raise ValueError(f"final status must be one of {STATUSES[1:]}, got {status!r}")
        self._stop_listening()
        data = {**self.header, "status": status, "message": message, "t_reached": self.t_reached,
                "phase_reached": self.phase, **(summary or {})}
        data["status"] = status
        met, graded = tally(graded_rows(data))
        data["checks_met"], data["checks_graded"] = met, graded
        self.pending = data
        return data

    def close(self, data: dict | None = None) -> dict:
        """Write ``data`` (default: the pending :meth:`final`) as summary.json, with the files the
        run wrote (``files``) and the warnings gathered (``warnings_counted``). Returns what was written."""
        data = dict(self.pending if data is None else data)
        self._stop_listening()
        data["warnings_counted"] = gathered_warnings()
        data["files"] = output_folder.written()
        write_json(self.out / SUMMARY, data)
        self.status, self.pending, self.written = data["status"], None, data
        output_folder.release()  # the run is over: its folder is free for the next one
        return data

    def finish(self, status: str, summary: dict | None = None, message: str | None = None) -> dict:
        """:meth:`final` then :meth:`close`: for a case that writes nothing after its summary."""
        return self.close(self.final(status, summary, message))


def results_line(out: Path, files: Sequence[str], listed: Sequence[str] = ("report.md", "summary.json",
                                                                          "history.csv")) -> str:
    """The console's line saying where a run's results are: the ``listed`` files among those it wrote
    (``files``: summary.json's list), then its ParaView series if it wrote one; never a file it did
    not write (``--no-paraview`` writes no series)."""
    names = [name for name in listed if name in files]
    names += [f"solution.{fmt} for ParaView" for fmt in SERIES_FORMATS if f"solution.{fmt}" in files]
    return f"results: {out}/ ({', '.join(names)})"


def verdict(check: dict) -> bool | None:
    """A check row's verdict: ``passed`` or ``within_tolerance`` (True, False, or None for a row
    shown for information)."""
    value = check.get("passed", check.get("within_tolerance")) if isinstance(check, dict) else None
    return None if value is None else bool(value)


def graded_rows(data: dict) -> list:
    """A summary's check rows: ``checks``, then ``run_checks`` (a case that keeps its own checks list puts
    there the checks every run of fem.problem makes: each pair's penetration and reaction alternation)."""
    return [*(data.get("checks") or []), *(data.get("run_checks") or [])]


def tally(checks) -> tuple[int, int]:
    """(met, graded) over a ``checks`` list: graded rows have a verdict, met rows passed."""
    verdicts = [verdict(c) for c in (checks or [])]
    graded = [v for v in verdicts if v is not None]
    return sum(graded), len(graded)


_requested = {"strict": False}  # --strict as parsed in this execute (read by Run)


class _StrictAction(argparse.Action):
    """--strict: sets ``args.strict`` and asks the run started next in this :func:`execute` to
    exit 1 when a graded check fails."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True)
        _requested["strict"] = True


def add_strict_flag(parser: argparse.ArgumentParser) -> None:
    """--strict (every case has it, through :func:`add_run_flags`)."""
    parser.add_argument("--strict", action=_StrictAction,
                        help="exit 1 when a graded check fails (Code_Aster's NOOK); without it a completed run "
                             "exits 0 and its checks are in summary.json")


# ----------------------------------------------------------------------------------- warnings
class _WarningBook:
    """Warnings of a run (Python warnings, numpy's floating-point warnings, library log records
    at WARNING and above), counted by message instead of printed by the hundred: summary.json
    lists each with its count; stderr gets one line."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], int] = {}

    def add(self, kind: str, message: str) -> None:
        key = (kind, message.strip().splitlines()[0][:300] if message.strip() else kind)
        if key in self.counts or len(self.counts) < 50:
            self.counts[key] = self.counts.get(key, 0) + 1

    def listed(self) -> list[dict]:
        return [{"kind": k, "message": m, "count": n} for (k, m), n in self.counts.items()]

    def total(self) -> int:
        return sum(self.counts.values())


_book = _WarningBook()


def gathered_warnings() -> list[dict]:
    """The warnings gathered so far in this :func:`execute` (kind, message, count)."""
    return _book.listed()


class _BookHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            _book.add(f"log {record.name}", record.getMessage())
        except Exception:  # a log record that cannot be formatted must not stop the run
            pass


@contextlib.contextmanager
def _gathering_warnings():
    """Inside the block: warnings.warn and numpy's floating-point warnings counted in the book
    (not printed), library log records at WARNING counted (not printed); floating-point overflow
    raises FloatingPointError (a state that overflows is a failed run, never a complete one)."""
    global _book
    _book = _WarningBook()
    root = logging.getLogger()
    saved_handlers = root.handlers[:]
    root.handlers = [_BookHandler(logging.WARNING)]
    try:
        with warnings.catch_warnings():  # restores showwarning and the filters on exit
            warnings.simplefilter("always")
            warnings.showwarning = lambda message, category, *args, **kw: _book.add(category.__name__,
                                                                                     str(message))
            with np.errstate(over="raise"):
                yield
    finally:
        root.handlers = saved_handlers


def _say(text: str) -> None:
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _close_current(status: str, message: str) -> str:
    """Finish the current run (if still running) with ``status``, keeping what it had composed;
    returns where its files are."""
    run = Run.current
    if run is None:
        return ""
    if run.status == "running":
        try:
            if run.pending is not None:
                run.close({**run.pending, "status": status, "message": message})
            else:
                run.finish(status, message=message)
        except OSError:
            run._stop_listening()
            Run.current = None
            return f"; summary.json could not be written in {run.out}"
    return f"; results up to t = {run.t_reached:.6g} s are in {run.out}" if run.t_reached is not None else \
        f"; see {run.out}"


def _report_checks(run: "Run | None", code: int) -> int:
    """After a body that returned ``code``: the console's last line ``N of M checks met`` (a
    completed run with graded checks), and exit 1 under ``--strict`` when one is not met."""
    data = None if run is None else run.written
    if data is None or data.get("status") != "complete":
        return code
    met, graded = data.get("checks_met", 0), data.get("checks_graded", 0)
    if graded:
        try:
            print(f"{met} of {graded} checks met", flush=True)
        except (OSError, ValueError):
            pass
    if run.strict and met < graded and code == EXIT_OK:
        failed = [str(c.get("quantity", c.get("name", "?"))) for c in graded_rows(data) if verdict(c) is False]
        _say(f"error: --strict: {graded - met} of {graded} checks not met ({', '.join(failed[:5])}"
             f"{', ...' if len(failed) > 5 else ''}); see {run.out}/summary.json")
        return EXIT_FAILED
    return code


def execute(body: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Run a case's ``body(argv)`` and map what goes wrong to an exit code and one line on stderr
    (module docstring). ``body`` starts its :class:`Run` and finishes it on success; a run left
    ``running`` by an exception is finished here with the matching status. The output folder's
    lock is released at the end; a run refused before it started leaves no file behind."""
    Run.current = None
    _requested["strict"] = False
    use_series_format("xdmf")  # a run's --output-format holds for that run only
    code = EXIT_FAILED
    with catch_signals(), _gathering_warnings():
        try:
            code = body(argv)
            code = _report_checks(Run.current, code)  # the run body(argv) started, if any
        except SystemExit as stop:  # --help
            code = stop.code if isinstance(stop.code, int) else 0
        except BadInput as err:
            code = _refuse_or_fail(str(err))
        except Interrupted as stop:
            where = _close_current("interrupted", str(stop))
            _say(f"{stop}{where} (status: interrupted)")
            code = stop.exit_code
        except ConvergenceError as err:
            where = _close_current("failed", str(err))
            _say(f"error: the run failed: {err}{where} (status: failed)")
            code = EXIT_FAILED
        except BrokenPipeError:  # stdout closed by the reader (| head): nothing left to tell
            _close_current("failed", "standard output closed")
            sys.stdout = open(os.devnull, "w")
            code = EXIT_FAILED
        except OSError as err:
            code = _refuse_or_fail(f"cannot write {err.filename or 'a result file'}: {err.strerror or err}")
        except MemoryError:
            where = _close_current("failed", "out of memory")
            _say(f"error: out of memory (a smaller mesh or fewer steps, see --force){where} (status: failed)")
            code = EXIT_FAILED
        except (FloatingPointError, OverflowError) as err:  # numpy's (errstate over='raise') and Python's
            message = (f"floating-point overflow ({err}): the input drives a quantity past 1.8e308; check the "
                       f"magnitudes of the flags")
            if Run.current is None:
                _say(f"error: {message}")
                code = EXIT_BAD_INPUT
            else:
                where = _close_current("failed", f"floating-point overflow at t = {Run.current.t_reached} s ({err})")
                _say(f"error: the run failed: floating-point overflow ({err}){where} (status: failed)")
                code = EXIT_FAILED
        except ValueError as err:  # a mesh, contact or material refused by the library
            code = _refuse_or_fail(str(err))
        except Exception as err:  # a defect of this code: keep the traceback beside the results
            run = Run.current
            detail = str(err) or repr(err)
            kept = ""
            if run is not None:
                try:
                    output_folder.write_text(run.out / "traceback.txt", traceback.format_exc())
                    kept = " (traceback in traceback.txt)"
                except OSError:
                    pass
            where = _close_current("failed", f"internal error: {type(err).__name__}: {detail}") + kept
            _say(f"internal error: {type(err).__name__}: {detail}{where}")
            code = EXIT_FAILED
        finally:
            started = Run.current is not None
            if started:
                Run.current._stop_listening()
                Run.current = None
            output_folder.release()  # a folder whose run never started is left as it was found
            total = _book.total()
            if total and started:
                _say(f"note: {total} warning(s) during the run, listed in summary.json (first: "
                     f"{_book.listed()[0]['message'][:120]})")
    return code


def _refuse_or_fail(message: str) -> int:
    """A refusal before the run started: one line, exit 2 (its folder left as it was). After it
    started: the run is failed, exit 1: its summary says why."""
    if Run.current is None:
        _say(f"error: {message}")
        return EXIT_BAD_INPUT
    where = _close_current("failed", message)
    _say(f"error: {message}{where} (status: failed)")
    return EXIT_FAILED
