"""The reports' Markdown tables (fem.io.markdown): a cell holding a '|' stays one cell (escaped '\\|'),
its row keeps the header's columns; the shaking table's report shows its ``max |R_T|/R_N`` row."""
from __future__ import annotations

import re

import pytest

from fem.io.markdown import md_cell, md_row, md_table
from fem.problem.report import cell, table

UNESCAPED = re.compile(r"(?<!\\)\|")


def columns(line: str) -> int:
    """The separators of a table line that Markdown splits on (a '|' not escaped)."""
    return len(UNESCAPED.findall(line))


def test_a_cell_with_a_pipe_keeps_the_row_to_the_header_columns():
    header = ["quantity", "this code", "rigid block"]
    lines = md_table(header, [("max |R_T|/R_N", 0.31, "0.3"), ("a | b\nc", "|", "")])
    assert lines[:2] == ["| quantity | this code | rigid block |", "|---|---|---|"]
    assert lines[2] == "| max \\|R_T\\|/R_N | 0.31 | 0.3 |"
    assert lines[3] == "| a \\| b c | \\| |  |"  # a line break would end the row: a space
    assert all(columns(line) == columns(lines[0]) == 4 for line in lines)
    # the cells read back: split on the separators, unescaped
    cells = [c.strip().replace("\\|", "|") for c in UNESCAPED.split(lines[2])[1:-1]]
    assert cells == ["max |R_T|/R_N", "0.31", "0.3"]


def test_escaping_twice_changes_nothing():
    assert md_cell("max |R_T|/R_N") == "max \\|R_T\\|/R_N" == md_cell(md_cell("max |R_T|/R_N"))
    assert md_row([cell("x|y"), cell(0.123456789), cell(None), cell(True)]) == "| x\\|y | 0.123457 | – | yes |"
    assert table(["max |rotation| [rad]"], [["a|b"]]) == ["| max \\|rotation\\| [rad] |", "|---|", "| a\\|b |", ""]


def test_a_markdown_renderer_reads_one_cell_where_the_pipe_is():
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt().enable("table").render("\n".join(md_table(["check", "value"],
                                                                              [("max |R_T|/R_N", "0.31")])) + "\n")
    assert re.findall(r"<td>(.*?)</td>", html) == ["max |R_T|/R_N", "0.31"]


def test_the_shaking_table_report_keeps_its_friction_row(tmp_path):
    """The row named ``max |R_T|/R_N`` (and a check and an impact holding a '|') is a row of three
    columns, like every row of every table of the report."""
    from cases.table.config import Config
    from cases.table.report import write_report

    rigid = {"applies": True, "uplift_onset": 0.1, "uplift_time": 0.11, "overturn_time": None,
             "max_friction_ratio": 0.3, "max_rotation": 0.01, "overturn_verdict": {"verdict": "no", "reason": "r"},
             "impacts": [{"time": 0.2, "corner": "A", "ke_before": 1.0, "ke_after": 0.5}]}
    summary = {"command": "python cases/shaking_table.py", "version": "0.1.0", "status": "complete",
               "run": {"steps": 10, "newton_iterations": 20, "wall_s": 1.0}, "rigid_body": rigid,
               "uplift_onset": 0.1, "uplift_time": 0.11, "overturn_time": None, "max_friction_ratio": 0.31,
               "max_rotation": [0.01], "overturn_verdict": {"verdict": "no", "reason": "r"}, "slid": False,
               "checks": [{"quantity": "max |R_T|/R_N", "value": 0.31, "reference": 0.3, "tolerance": 0.05,
                           "within_tolerance": True}],
               "impacts": [{"time": 0.2, "corner": "A|B", "ke_before": 1.0, "ke_after": 0.5}]}
    write_report(tmp_path, Config(), summary)
    text = (tmp_path / "report.md").read_text()
    assert "| max \\|R_T\\|/R_N | 0.31 | 0.3 |" in text
    assert "| max \\|R_T\\|/R_N | 0.31 | 0.3 | 0.05 | yes |" in text
    assert "| 0.200000 | A\\|B | 1 | 0.5 |" in text
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        header = columns(line) if header is None else header
        assert columns(line) == header, line
