"""The reference of every problem-file key (docs/problem_keys.md) and the reader share one list of keys
(fem/problem/file/keys.py, issue 41).

1. The page is the generator's output, so a key added to the list is on the page.
2. The keys the reader accepts in a table are the keys the list documents for it: a file with one more
   key is refused, and the refusal lists the known keys, which must be the documented ones, in order
   (a reader with its own list would drift and fail here).
3. The keys that come from classes (each contact law's, each closed-form motion's, each steps kind's
   fields) each have their line.
"""
from __future__ import annotations

import dataclasses

import pytest

from cases.problem_file import load
from cases.problem_file import CONTACT
from fem.problem.file.build import STEPS
from fem.problem.file.motion import CLOSED_FORMS
from fem.problem.file.keys import TABLES, keys, markdown
from fem.ranges import BadInput
from helpers import CASES, pulse_problem

PAGE = CASES.parent / "docs" / "problem_keys.md"
CHECK = """[[checks]]
quantity = "rotation"
of = "BLOCK"
measure = "max_abs"
reference = 0.1
tolerance = 0.5
source = "a guess"
"""


def test_the_page_is_the_generators_output():
    assert PAGE.read_text() == markdown(), "run: python docs/problem_keys.py"


def test_every_table_and_key_is_on_the_page():
    page = PAGE.read_text()
    for t in TABLES:
        assert f"## `{t.place}`" in page
        for key, meaning in t.keys:
            assert meaning and f"| `{key}` | {meaning}" in page, (t.place, key)


@pytest.mark.parametrize("override, place", [
    ("colour", "(top level)"),
    ("materials.graphite.colour", "[materials.NAME]"),
    ("bodies.BLOCK.colour", "[[bodies]]"),
    ("supports.CTGROUND.colour", "[[supports]]"),
    ("stages.0.colour", '[[stages]] kind = "preload"'),
    ("stages.shake.colour", '[[stages]] kind = "base_motion"'),
    ("stages.shake.newton", "newton = { ... }"),
    ("scheme.colour", "[scheme]"),
    ("output.colour", "[output]"),
    ("checks.0.colour", "[[checks]]"),
])
def test_the_reader_knows_exactly_the_documented_keys(tmp_path, override, place):
    path = pulse_problem(tmp_path, CHECK)
    if place == "newton = { ... }":
        edits = [(override, "{ colour = 1 }")]
    else:
        edits = [(override, "1")]
    with pytest.raises(BadInput) as refused:
        load(path, edits)
    assert f"unknown key (known: {', '.join(keys(place))})" in str(refused.value)


def test_the_pulse_file_loads_unedited(tmp_path):
    """The refusals above come from the one key added (the file itself loads)."""
    assert load(pulse_problem(tmp_path, CHECK)).checks


def test_every_law_field_has_its_line():
    common = set(keys("[[pairs]]"))
    for law, fields in CONTACT.law_fields.items():
        own = set(keys(f'[[pairs]] law = "{law}"')) if any(t.place == f'[[pairs]] law = "{law}"' for t in TABLES) else set()
        assert set(fields) <= common | own, (law, set(fields) - common - own)


def test_every_closed_form_and_steps_field_has_its_line():
    motion = set(keys("x = { kind = ... }"))
    for kind, cls in CLOSED_FORMS.items():
        assert {f.name for f in dataclasses.fields(cls) if f.init} <= motion, kind
    for kind, cls in STEPS.items():
        assert {f.name for f in dataclasses.fields(cls) if f.init} <= set(keys(f'[steps] kind = "{kind}"')), kind
