"""What every case script shares around its physics: the command line, the output folder, the run's
status, resource bounds, progress on stderr, and the map from what went wrong to an exit code.

Exit codes (:func:`execute`)
----------------------------
==== ====================================================================================
0    the run completed (its checks may still have failed: read ``summary.json``); an SDNV105
     run's energy books agree with it to 1 % of its potential-energy drop
1    the run failed: Newton did not converge, a singular system, a result file that could not
     be written; ``summary.json`` says ``status: failed`` with the message. Also a run whose
     results contradict it, one ``error:`` line on stderr saying how: SDNV105 stops after a tilt
     that left the block strained (``status: failed``, ``tilt.passed`` false), and a completed
     SDNV105 run whose energy books miss by more than 1 % of its potential-energy drop keeps
     ``status: complete`` with ``energy_check.passed`` false (its files are all written)
2    bad input, refused before anything ran: a flag, a mesh file, the output folder, a run
     larger than the machine (see :func:`check_resources`); one line on stderr
130  interrupted by SIGINT (Ctrl-C), 143 by SIGTERM: ``status: interrupted``, histories and
     ParaView series up to the last converged step are on disk
==== ====================================================================================

``summary.json`` is written first with ``status: running`` (so a folder whose run was killed
outright never looks finished), then replaced atomically at the end with ``status`` one of
``complete``, ``interrupted``, ``failed``; it always holds ``case``, ``command`` (the exact command
line), ``version`` (of the package), ``configuration`` (``benchmark`` when every parameter that
changes the physics is the benchmark's, else ``custom``) and ``parameters``.

A run never mixes its files with an older run's: :func:`prepare_output` removes the files an
earlier run wrote in the folder (the folder is recognised by its ``summary.json``) before anything
new is written; other files are left alone.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import shutil
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from . import progress
from .dynamics import ConvergenceError
from .interrupt import Interrupted, catch_signals

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
STATUSES = ("running", "complete", "interrupted", "failed")
SUMMARY = "summary.json"
#: the files a case writes in its folder; :func:`prepare_output` removes these (and only these)
OUTPUT_PATTERNS = ("summary.json", "report.md", "*.csv", "*.png", "*.pvd", "*.vtu", "mesh.msh", "traceback.txt",
                   ".*.tmp", ".*.vtu.tmp")


class BadInput(ValueError):
    """Input refused before the run: the message names the flag or file and the problem."""


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
def _is_run_folder(folder: Path) -> bool:
    summary = folder / SUMMARY
    if not summary.is_file():
        return False
    try:
        data = json.loads(summary.read_text())
    except (OSError, ValueError):
        return True  # a summary cut short by a crash: still ours
    return isinstance(data, dict)


_created: list[Path] = []  # folders made by prepare_output in this process, removed if the input is refused


def _discard_created() -> None:
    """Remove the folders :func:`prepare_output` created for a run refused before it started, when
    they hold nothing but this code's own files (a generated mesh)."""
    for folder in reversed(_created):
        try:
            if all(p.is_dir() or any(p.match(pattern) for pattern in OUTPUT_PATTERNS) for p in folder.rglob("*")):
                shutil.rmtree(folder)
        except OSError:
            pass
    _created.clear()


def prepare_output(out: Path, flag: str = "--out") -> Path:
    """Make ``out`` an empty-of-old-results, writable folder, or raise :class:`BadInput` naming
    ``flag`` (an existing file, a folder that cannot be created or written, a summary.json that is
    a folder). Files of an earlier run (``OUTPUT_PATTERNS``, and the folder is recognised by its
    summary.json) are removed; anything else is left alone."""
    out = Path(out)
    if not out.exists():  # remember the outermost folder this call creates
        top = out
        while not top.parent.exists() and top.parent != top:
            top = top.parent
        _created.append(top)
    if out.exists() and not out.is_dir():
        raise BadInput(f"{flag} {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BadInput(f"{flag} {out}: cannot create the folder ({err.strerror or err})") from None
    summary = out / SUMMARY
    if summary.exists() and not summary.is_file():
        raise BadInput(f"{flag} {out}: {summary} exists and is not a file")
    if not os.access(out, os.W_OK | os.X_OK):
        raise BadInput(f"{flag} {out}: the folder is not writable")
    try:
        if _is_run_folder(out):
            for pattern in OUTPUT_PATTERNS:
                for path in out.glob(pattern):
                    if path.is_file() or path.is_symlink():
                        path.unlink()
        probe = out / f".write-test-{os.getpid()}"
        probe.write_text("x")
        probe.unlink()
    except OSError as err:
        raise BadInput(f"{flag} {out}: the folder is not writable ({err.strerror or err})") from None
    return out


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
    from .results import _atomic_write_text

    path = Path(path)
    _atomic_write_text(path, json.dumps(_jsonable(data), indent=2, allow_nan=False) + "\n")


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


# ----------------------------------------------------------------------------------- progress
class ProgressLine:
    """Progress of a run on stderr: case, phase, simulated time reached, steps, steps per second,
    time left (from the simulated-time rate over the last ten seconds). Silent for the first
    ``delay`` seconds; on a terminal one line rewritten in place four times a second, otherwise a
    plain line every ``every`` seconds."""

    def __init__(self, label: str, t_end: float | None, stream=None, delay: float = 2.0, every: float = 20.0):
        self.label, self.t_end = label, t_end
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.delay, self.every = delay, (0.25 if self.tty else every)
        self.start = self.last_print = time.monotonic()
        self.steps = 0
        self.samples: list[tuple[float, float]] = []
        self.printed = False

    def __call__(self, phase: str, t: float) -> None:
        self.steps += 1
        now = time.monotonic()
        if now - self.start < self.delay or now - self.last_print < self.every:
            return
        self.samples = [s for s in self.samples if now - s[0] <= 10.0] + [(now, t)]
        self.last_print = now
        elapsed = now - self.start
        text = f"{self.label}: {phase}, t = {t:.6g} s"
        if self.t_end is not None:
            text += f" of {self.t_end:g} s"
        text += f", {self.steps} steps, {self.steps / elapsed:.0f} steps/s"
        (w0, t0) = self.samples[0]
        if self.t_end is not None and now > w0 and t > t0:
            left = (self.t_end - t) / ((t - t0) / (now - w0))
            text += f", about {left:.0f} s left"
        try:
            if self.tty:
                self.stream.write("\r" + text[:160].ljust(100))
            else:
                self.stream.write(text + "\n")
            self.stream.flush()
            self.printed = True
        except (OSError, ValueError):
            pass  # a closed stderr must not stop the run

    def close(self) -> None:
        if self.tty and self.printed:
            with_newline = "\r" + " " * 100 + "\r"
            try:
                self.stream.write(with_newline)
                self.stream.flush()
            except (OSError, ValueError):
                pass


# ----------------------------------------------------------------------------------- run lifecycle
class Run:
    """The record of one run in its output folder: writes ``summary.json`` with ``status: running``
    at :meth:`start`, follows the converged steps (time reached, progress line), and writes the
    final summary with its status at :meth:`finish`."""

    current: "Run | None" = None

    def __init__(self, out: Path, case: str, command: str, configuration: str, parameters: dict,
                 t_end: float | None, quiet: bool) -> None:
        if configuration not in ("benchmark", "custom"):
            raise ValueError(f"configuration must be 'benchmark' or 'custom', got {configuration!r}")
        self.out, self.case, self.command = Path(out), case, command
        self.header = {"case": case, "status": "running", "configuration": configuration, "command": command,
                       "version": version(), "parameters": parameters}
        self.status = "running"
        self.phase: str | None = None
        self.t_reached: float | None = None
        self.progress = None if quiet else ProgressLine(case, t_end)
        self._listener = progress.listening(self._step)

    @classmethod
    def start(cls, out: Path, case: str, command: str, configuration: str, parameters: dict,
              t_end: float | None = None, quiet: bool = False) -> "Run":
        """Begin a run in the prepared folder ``out`` (see :func:`prepare_output`)."""
        run = cls(out, case, command, configuration, parameters, t_end, quiet)
        write_json(run.out / SUMMARY, run.header)
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

    def finish(self, status: str, summary: dict | None = None, message: str | None = None) -> dict:
        """Write the final ``summary.json``: the header, ``status``, ``message`` (why it stopped),
        ``t_reached`` [s] and ``phase_reached``, then ``summary``. Returns what was written."""
        if status not in STATUSES[1:]:
            raise ValueError(f"final status must be one of {STATUSES[1:]}, got {status!r}")
        self._stop_listening()
        self.status = status
        data = {**self.header, "status": status, "message": message, "t_reached": self.t_reached,
                "phase_reached": self.phase, **(summary or {})}
        data["status"] = status
        write_json(self.out / SUMMARY, data)
        return data


def _say(text: str) -> None:
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _close_current(status: str, message: str) -> str:
    """Finish the current run (if still running) with ``status``; returns where its files are."""
    run = Run.current
    if run is None:
        return ""
    if run.status == "running":
        try:
            run.finish(status, message=message)
        except OSError:
            run._stop_listening()
            Run.current = None
            return f"; summary.json could not be written in {run.out}"
    return f"; results up to t = {run.t_reached:.6g} s are in {run.out}" if run.t_reached is not None else \
        f"; see {run.out}"


def execute(body: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Run a case's ``body(argv)`` and map what goes wrong to an exit code and one line on stderr
    (module docstring). ``body`` starts its :class:`Run` and finishes it on success; a run left
    ``running`` by an exception is finished here with the matching status."""
    Run.current = None
    _created.clear()
    with catch_signals():
        try:
            return body(argv)
        except SystemExit as stop:  # --help
            return stop.code if isinstance(stop.code, int) else 0
        except BadInput as err:
            if Run.current is None:
                _discard_created()
            _close_current("failed", str(err))
            _say(f"error: {err}")
            return EXIT_BAD_INPUT
        except Interrupted as stop:
            if Run.current is None:  # stopped before the run began: nothing worth keeping
                _discard_created()
            where = _close_current("interrupted", str(stop))
            _say(f"{stop}{where} (status: interrupted)")
            return stop.exit_code
        except ConvergenceError as err:
            where = _close_current("failed", str(err))
            _say(f"error: the run failed: {err}{where} (status: failed)")
            return EXIT_FAILED
        except BrokenPipeError:  # stdout closed by the reader (| head): nothing left to tell
            _close_current("failed", "standard output closed")
            sys.stdout = open(os.devnull, "w")
            return EXIT_FAILED
        except OSError as err:
            name = err.filename or "a result file"
            message = f"cannot write {name}: {err.strerror or err}"
            if Run.current is None:
                _say(f"error: {message}")
                return EXIT_BAD_INPUT
            where = _close_current("failed", message)
            _say(f"error: {message}{where} (status: failed)")
            return EXIT_FAILED
        except MemoryError:
            where = _close_current("failed", "out of memory")
            _say(f"error: out of memory (a smaller mesh or fewer steps, see --force){where} (status: failed)")
            return EXIT_FAILED
        except ValueError as err:  # a mesh, contact or material refused by the library
            if Run.current is None or Run.current.t_reached is None:
                if Run.current is None:
                    _discard_created()
                _close_current("failed", str(err))
                _say(f"error: {err}")
                return EXIT_BAD_INPUT
            where = _close_current("failed", str(err))
            _say(f"error: {err}{where} (status: failed)")
            return EXIT_FAILED
        except Exception as err:  # a defect of this code: keep the traceback beside the results
            run = Run.current
            where = _close_current("failed", f"internal error: {type(err).__name__}: {err}")
            if run is not None:
                try:
                    (run.out / "traceback.txt").write_text(traceback.format_exc())
                    where += " (traceback in traceback.txt)"
                except OSError:
                    pass
            _say(f"internal error: {type(err).__name__}: {err}{where}")
            return EXIT_FAILED
        finally:
            if Run.current is not None:
                Run.current._stop_listening()
                Run.current = None
