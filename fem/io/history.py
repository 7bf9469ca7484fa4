"""CSV time histories: :class:`HistoryWriter` writes a CSV file (header line of column names, then
one line per ``append``, floats printed with 17 significant digits so they read back bit-exact) and
flushes after every line; :func:`read_history` reads it back as ``{column: array}``."""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from fem.io import output_folder

logger = logging.getLogger(__name__)

__all__ = ["HistoryWriter", "read_history"]


class HistoryWriter:
    """CSV time histories, one line per step, flushed as it goes.

    Parameters
    ----------
    path : str or path-like
        The CSV file, overwritten; its folder is created if missing.
    columns : sequence of str
        Column names, e.g. ``["t", "ux_C1", "RN_total"]`` (units belong in the names or the
        documentation; values are SI). Written at once as the header line.

    Notes
    -----
    Values are printed with ``format(x, ".17g")`` so they read back bit-exact. Each line is
    flushed to the operating system as soon as it is appended, so the file holds every row of a
    run that crashes.
    """

    def __init__(self, path: str | os.PathLike, columns: Sequence[str]):
        columns = [str(c) for c in columns]
        if not columns:
            raise ValueError("columns is empty")
        bad = [c for c in columns if not c or any(ch in c for ch in ',"\n\r') or c != c.strip()]
        if bad:
            raise ValueError(
                f"column names must be non-empty, without commas, quotes, newlines or "
                f"surrounding spaces: {bad}"
            )
        dup = sorted({c for c in columns if columns.count(c) > 1})
        if dup:
            raise ValueError(f"columns listed more than once: {dup}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.columns: tuple[str, ...] = tuple(columns)
        self._colset = frozenset(columns)
        self._line = ",".join(["%.17g"] * len(columns)) + "\n"
        self.n_rows = 0
        self._f = output_folder.open_new(self.path, "w", encoding="utf-8", newline="")
        self._f.write(",".join(self.columns) + "\n")
        self._f.flush()
        logger.info("history %s opened, columns %s", self.path, list(self.columns))

    @property
    def closed(self) -> bool:
        return self._f.closed

    def append(self, row: Mapping[str, float]) -> None:
        """Write one line.

        Parameters
        ----------
        row : mapping column -> float
            Exactly one value per column (any extra key is an error).

        Raises
        ------
        ValueError
            Naming the missing columns or the unknown keys.
        RuntimeError
            The writer is closed.
        """
        if self._f.closed:
            raise RuntimeError(f"history {self.path} is closed")
        if row.keys() != self._colset:
            missing = [c for c in self.columns if c not in row]
            if missing:
                raise ValueError(f"history row is missing column(s) {missing} (file {self.path})")
            extra = sorted(str(k) for k in row if k not in self._colset)
            raise ValueError(
                f"history row has unknown key(s) {extra}; columns are {list(self.columns)}"
            )
        # "%.17g" % x is format(x, ".17g"), one format for the whole line
        line = self._line % tuple(map(float, map(row.__getitem__, self.columns)))
        try:
            self._f.write(line)
            self._f.flush()
        except OSError as err:  # a full disk: name the file (the error from write() names none)
            raise OSError(err.errno, err.strerror, str(self.path)) from None
        self.n_rows += 1

    def close(self) -> None:
        """Close the file (idempotent)."""
        if not self._f.closed:
            try:
                self._f.close()
            except OSError as err:  # the line a full disk refused is still buffered
                raise OSError(err.errno, err.strerror, str(self.path)) from None
            logger.info("history %s closed after %d row(s)", self.path, self.n_rows)

    def __enter__(self) -> "HistoryWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close()


def read_history(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Read a CSV written by :class:`HistoryWriter`.

    Parameters
    ----------
    path : str or path-like
        The CSV file.

    Returns
    -------
    dict of str -> ndarray
        Column name -> float64 array of shape (n_rows,), in header order.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the file has no header or a complete line with the wrong number of fields.

    Notes
    -----
    A last line without its newline and with too few fields (a run killed while writing it) is
    dropped with a warning.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"history file not found: {path}")
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise ValueError(f"{path}: no header line")
    columns = [c.strip() for c in lines[0].split(",")]
    rows: list[list[float]] = []
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != len(columns):
            if i == len(lines) and not text.endswith("\n"):
                logger.warning("%s: dropping incomplete last line %d", path, i)
                break
            raise ValueError(
                f"{path}, line {i}: {len(fields)} fields, expected {len(columns)} ({columns})"
            )
        try:
            rows.append([float(v) for v in fields])
        except ValueError as e:
            raise ValueError(f"{path}, line {i}: {e}") from None
    data = np.array(rows, dtype=float).reshape(len(rows), len(columns))
    return {c: data[:, j].copy() for j, c in enumerate(columns)}
