"""Markdown tables of the reports (report.md, convergence.md): every cell escaped, so that a '|' in a
label, a quantity or a message (``max |R_T|/R_N``) stays text and its row keeps its columns.

    md_table(["quantity", "value"], [("max |R_T|/R_N", "0.31")])
    -> ["| quantity | value |", "|---|---|", "| max \\|R_T\\|/R_N | 0.31 |"]

The caller formats its numbers; a cell is ``str()`` of what it is given.
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

_PIPE = re.compile(r"(?<!\\)\|")  # a '|' not escaped already


def md_cell(text) -> str:
    """``text`` (any value, as ``str()``) as the text of a table cell: each '|' as '\\|' (one already
    escaped stays as it is: escaping twice changes nothing), line breaks as spaces."""
    return _PIPE.sub(r"\\|", " ".join(str(text).splitlines()))


def md_row(cells: Iterable) -> str:
    """A table row, ``| a | b |``, each cell through :func:`md_cell`."""
    return "| " + " | ".join(md_cell(c) for c in cells) + " |"


def md_table(header: Sequence, rows: Iterable[Iterable]) -> list[str]:
    """The lines of a table: the header row, the rule (``|---|---|``), a line a row (:func:`md_row`)."""
    return [md_row(header), "|" + "---|" * len(header), *(md_row(r) for r in rows)]
