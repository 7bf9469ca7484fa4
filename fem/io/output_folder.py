"""A run's output folder: the only files a run removes are files a run of this code wrote there.

Lifecycle (one folder a process at a time; :mod:`fem.run.lifecycle` drives it)::

    claim(out)        refuse an unusable folder (BadInput-style ValueError naming the flag),
                      create it if missing, take its lock; nothing else is touched
    note(path)        every file the run writes is noted (the writers of fem.io.results,
                      write_text, save_figure do it), in memory and in the lock's journal
    clear_previous()  when the run starts: remove the files the previous run listed in its
                      summary.json ("files") or, if it was killed, in its stale lock's journal;
                      never any other file (a user's notes.txt or data.csv stay)
    release()         drop the lock (and, if the run never started, the files it noted and
                      the folders this process created, left empty: a refused run leaves the
                      folder as it was found)

The lock ``.rockfem.lock`` holds one line ``pid <pid> start <process start time>`` followed by
the names (relative to the folder) of the files the run has written so far, one a line, flushed
as they are noted: a second run into a folder in use is refused naming the first's pid; a lock
whose process is gone (or whose pid now belongs to another process: the start time differs) is
stale and taken over, and its journal tells which files the killed run wrote::

    pid 12345 start 8812734
    summary.json
    history.csv
    solution_000000.vtu

Files are written with the permissions of ``open()`` under the process's umask (0644 for a
umask of 022), atomic replacements included (``tempfile.mkstemp`` makes 0600 files; they are
widened to the umask before they replace the target).
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

LOCK = ".rockfem.lock"
SUMMARY = "summary.json"


class FolderRefused(ValueError):
    """The output folder cannot be used; the message names the flag and the problem."""


# ------------------------------------------------------------------------------- permissions
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0o666 without the umask's bits."""
    return 0o666 & ~_umask()


# ------------------------------------------------------------------------------- the active folder
@dataclass
class Folder:
    """The folder a run writes in: its path, the outermost folder this process created for it
    (None: it existed), the lock's open journal, the files noted so far (relative names, in the
    order written), whether the run started (:func:`clear_previous`) and the files a killed
    predecessor's stale lock listed."""

    path: Path
    created: Path | None
    journal: object = None
    files: list[str] = field(default_factory=list)
    started: bool = False
    inherited: list[str] = field(default_factory=list)
    thread: int = field(default_factory=threading.get_ident)

    def relative(self, path: Path) -> str | None:
        """``path`` relative to the folder, or None when it lies outside it."""
        try:
            return Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(self.path))).as_posix()
        except ValueError:
            return None


_active: Folder | None = None


def note(path: str | os.PathLike) -> None:
    """Record that the run wrote ``path`` (a file inside the active folder; anything else, or no
    active folder, is ignored): listed in summary.json at the end and in the lock's journal now.
    Only the thread that claimed the folder notes: files written by other threads (a study's
    workers, each point a run of its own with its own folder and list) are not this run's."""
    folder = _active
    if folder is None or threading.get_ident() != folder.thread:
        return
    name = folder.relative(Path(path))
    if name is None or name in ("", ".", LOCK) or name in folder.files:
        return
    folder.files.append(name)
    if folder.journal is not None:
        try:
            folder.journal.write(name + "\n")
            folder.journal.flush()
        except (OSError, ValueError):
            pass  # the journal is a safety net: a full disk must not stop the run here


def written() -> list[str]:
    """The files the active run has written (relative names), summary.json first."""
    folder = _active
    if folder is None:
        return []
    return sorted(folder.files, key=lambda name: (name != SUMMARY, name))


# ------------------------------------------------------------------------------- atomic writes
@contextlib.contextmanager
def atomic_target(path: Path, suffix: str = ".tmp") -> Iterator[str]:
    """A temporary file name in the folder of ``path``, moved onto ``path`` (``os.replace``) when
    the block succeeds and removed when it fails: readers see the old or the new complete file,
    never a partial one. The file gets the umask's mode (as ``open`` would) and is noted."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=suffix)
    except OSError as err:
        raise OSError(err.errno, err.strerror, str(path)) from None
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except OSError as err:  # name the file the reader knows, not the temporary one
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise OSError(err.errno, err.strerror, str(path)) from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    note(path)


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8, ``\\n`` line ends) and note it."""
    path = Path(path)
    with atomic_target(path, ".tmp") as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def save_figure(fig, path: str | os.PathLike, **kwargs) -> None:
    """``fig.savefig(path, **kwargs)`` atomically (the format from ``path``'s suffix) and note it."""
    path = Path(path)
    fmt = kwargs.pop("format", path.suffix.lstrip(".") or None)
    with atomic_target(path, ".tmp" + path.suffix) as tmp:
        fig.savefig(tmp, format=fmt, **kwargs)


def open_new(path: str | os.PathLike, mode: str = "w", **kwargs):
    """``open(path, mode)`` for a file the run writes as it goes (a CSV history), noted."""
    handle = open(path, mode, **kwargs)
    note(path)
    return handle


# ------------------------------------------------------------------------------- the lock
def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat (the process's start time in clock ticks), None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()[19]


def _alive(pid: int, start: str | None) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: treat the lock as held
    now = _start_time(pid)
    return now is None or start is None or now == start


def _read_lock(lock: Path) -> tuple[int, str | None, list[str]]:
    """(pid, start time, journal names) of a lock file; pid 0 when unreadable."""
    try:
        lines = lock.read_text(errors="replace").splitlines()
    except OSError:
        return 0, None, []
    if not lines:
        return 0, None, []
    words = lines[0].split()
    try:
        pid = int(words[1]) if words[:1] == ["pid"] else 0
    except (IndexError, ValueError):
        pid = 0
    start = words[3] if len(words) >= 4 and words[2] == "start" else None
    return pid, start, [line for line in lines[1:] if line]


def _take_lock(folder: Path, flag: str) -> tuple[object, list[str]]:
    """Create the lock (O_EXCL) with this process's pid; a stale lock is taken over and its
    journal returned. Raises FolderRefused when a live process holds it."""
    lock = folder / LOCK
    inherited: list[str] = []
    for _ in range(5):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, file_mode())
        except FileExistsError:
            pid, start, names = _read_lock(lock)
            if pid == os.getpid():
                raise FolderRefused(f"{flag} {folder}: already in use by this process") from None
            if _alive(pid, start):
                raise FolderRefused(f"{flag} {folder}: in use by another run (pid {pid}); wait for it to end or "
                                    f"choose another folder") from None
            inherited += names
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock)  # stale: its process is gone
            continue
        except OSError as err:
            raise FolderRefused(f"{flag} {folder}: the folder is not writable ({err.strerror or err})") from None
        handle = os.fdopen(fd, "w", encoding="utf-8")
        handle.write(f"pid {os.getpid()} start {_start_time(os.getpid())}\n")
        handle.flush()
        return handle, inherited
    raise FolderRefused(f"{flag} {folder}: its lock {LOCK} keeps changing (another run starting?)")


# ------------------------------------------------------------------------------- lifecycle
def claim(out: str | os.PathLike, flag: str = "--out") -> Path:
    """Make ``out`` this process's output folder: refuse (FolderRefused naming ``flag``) an empty
    name, an existing non-folder, a folder that cannot be created or written, a summary.json
    that is not a file, a folder in use by another run; create it if missing; take its lock.
    No other file is created, changed or removed."""
    global _active
    if str(out).strip() == "":
        raise FolderRefused(f"{flag} is empty: name a folder (the current directory is never used as a run's "
                            f"folder: use {flag} ./NAME)")
    out = Path(out)
    if _active is not None:
        if Path(os.path.abspath(out)) == Path(os.path.abspath(_active.path)):
            return out
        release()  # one run a process: claiming another folder ends the previous run's claim
    if out.exists() and not out.is_dir():
        raise FolderRefused(f"{flag} {out}: exists and is not a folder")
    created = None
    if not out.exists():
        top = out
        while not top.parent.exists() and top.parent != top:
            top = top.parent
        created = top
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise FolderRefused(f"{flag} {out}: cannot create the folder ({err.strerror or err})") from None
    summary = out / SUMMARY
    if summary.exists() and not summary.is_file():
        _remove_created(created)
        raise FolderRefused(f"{flag} {out}: {summary} exists and is not a file")
    if not os.access(out, os.W_OK | os.X_OK):
        _remove_created(created)
        raise FolderRefused(f"{flag} {out}: the folder is not writable")
    try:
        journal, inherited = _take_lock(out, flag)
    except FolderRefused:
        _remove_created(created)
        raise
    _active = Folder(out, created, journal, inherited=inherited)
    return out


def _listed_by_previous(folder: Folder) -> list[str]:
    """The files the previous run says it wrote: summary.json's ``files`` (a run of this code),
    plus a killed run's journal taken over with the lock."""
    names: list[str] = list(folder.inherited)
    summary = folder.path / SUMMARY
    try:
        data = json.loads(summary.read_text())
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and isinstance(data.get("files"), list):
        names += [n for n in data["files"] if isinstance(n, str)]
    return names


def _safe_member(folder: Path, name: str) -> Path | None:
    """``folder / name`` when ``name`` is a relative path whose folder lies inside ``folder`` (no
    '..', no absolute path, no symbolic link leading out of it); else None."""
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.name == LOCK:
        return None
    path = folder / rel
    root, parent = os.path.realpath(folder), os.path.realpath(path.parent)
    if parent != root and not parent.startswith(root + os.sep):
        return None
    return path


def clear_previous() -> None:
    """At the start of the run: remove the files the previous run in this folder listed (those
    this run has already written excepted). Sub-folders left empty by the removal are removed too;
    nothing unlisted is touched."""
    folder = _active
    if folder is None or folder.started:
        return
    folder.started = True
    emptied = set()
    for name in dict.fromkeys(_listed_by_previous(folder)):
        if name in folder.files:
            continue
        path = _safe_member(folder.path, name)
        if path is None or not (path.is_file() or path.is_symlink()):
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            if path.parent != folder.path:
                emptied.add(path.parent)
    for sub in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            sub.rmdir()  # only if empty
    folder.inherited.clear()


def _remove_created(created: Path | None) -> None:
    if created is None:
        return
    for sub in sorted((p for p in [created, *created.rglob("*")] if p.is_dir()), key=lambda p: len(p.parts),
                      reverse=True):
        with contextlib.suppress(OSError):
            sub.rmdir()


def release() -> None:
    """Drop the lock. A run that never started (refused after its folder was claimed) also
    removes the files it noted and the folders this process created for it, left empty; a run
    that started keeps every file it wrote, whatever stopped it."""
    global _active
    folder = _active
    if folder is None:
        return
    _active = None
    discard = not folder.started
    if folder.journal is not None:
        with contextlib.suppress(OSError, ValueError):
            folder.journal.close()
    if discard:
        for name in folder.files:
            path = _safe_member(folder.path, name)
            if path is not None:
                with contextlib.suppress(OSError):
                    path.unlink()
    lock = folder.path / LOCK
    pid, _, _ = _read_lock(lock)
    if pid == os.getpid():
        with contextlib.suppress(OSError):
            lock.unlink()
    if discard:
        _remove_created(folder.created)
