"""benchmarks/mutation_check.py stays alive: its mutations apply to the code as it is, and the tests
catch every one of them by an assertion.

* In the default suite (fast, no test run): every mutation's text occurs exactly once in its file
  (a line that moved must have its mutation moved with it), it changes that text, it names tests
  that exist, and every module with physics has at least one mutation.
* Marked slow (``.ci/run``'s ``pytest -m slow``): the check itself, ``--jobs 2`` (two scratch
  copies, one mutation each at a time, each mutation running only the fastest tests known to
  catch it): it must exit 0, with one "caught" line per mutation, none SURVIVED or STALE. Under CI
  (``CI`` set) without its unmutated baseline (``--no-baseline``): ``.ci/run`` has just run the whole
  default suite on the same commit, every test the mutations name among it, so a mutation cannot be
  "caught" by a test that fails unmutated there; run by hand, the baseline runs first. Measured on a
  two-core machine shared with the other slow tests (``pytest -m slow --durations``): 417 s with the
  baseline (its 91 test selections 127 s), 113 mutations.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "mutation_check.py"


def _load():
    spec = importlib.util.spec_from_file_location("mutation_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_check"] = module  # its dataclasses resolve their annotations through it
    spec.loader.exec_module(module)
    return module


mc = _load()

#: the modules with physics: each must have at least one mutation
PHYSICS = ("fem/model/continuum.py", "fem/model/elements.py", "fem/model/assembly.py", "fem/time/dynamics.py", "fem/time/theta.py",
           "fem/time/newton.py", "fem/model/mass.py", "fem/stage/energy.py", "fem/time/stepping.py", "fem/loads/base_motion.py",
           "fem/time/explicit.py", "contact/penalty.py", "contact/multipliers.py", "contact/equations.py",
           "contact/newton_loop.py", "contact/zone.py",
           "contact/shocks.py", "contact/buckling.py", "contact/references/rocking.py", "contact/references/rocking_base.py",
           "contact/references/overturning.py", "contact/references/nnm.py", "contact/impacts.py",
           "fem/problem/observe.py", "fem/problem/simulate.py")


@pytest.mark.parametrize("m", mc.MUTATIONS, ids=[m.name for m in mc.MUTATIONS])
def test_every_mutation_applies_to_the_code_as_it_is(m):
    why = mc.applies(m)
    assert not why, (f"mutation {m.name!r} is stale ({why}): update benchmarks/mutation_check.py to the "
                     "code as it is now (a line that moved to another module takes its mutation with it)")
    assert m.old != m.new
    for node in m.tests:
        path, _, name = node.partition("::")
        assert (ROOT / path).is_file(), f"mutation {m.name!r} names a missing test file {path}"
        if name:
            function = re.sub(r"\[.*\]$", "", name)
            assert re.search(rf"^def {re.escape(function)}\(", (ROOT / path).read_text(), re.M), (
                f"mutation {m.name!r} names a missing test {node}")


def test_the_list_covers_every_module_with_physics_and_names_are_unique():
    names = [m.name for m in mc.MUTATIONS]
    assert len(set(names)) == len(names)
    # the slow test reads the verdict of a mutation by its name at the start of a line
    assert not any(a != b and b.startswith(a + " ") for a in names for b in names)
    files = {m.file for m in mc.MUTATIONS}
    assert not set(PHYSICS) - files
    assert len(mc.MUTATIONS) >= 30


@pytest.mark.slow
def test_every_mutation_is_caught_by_an_assertion():
    ci = ["--no-baseline"] if os.environ.get("CI") else []  # the default suite ran just before (docstring)
    p = subprocess.run([sys.executable, str(SCRIPT), "--jobs", "2", *ci], cwd=ROOT, capture_output=True, text=True)
    report = p.stdout + p.stderr
    lines = p.stdout.splitlines()
    verdicts = {}
    for m in mc.MUTATIONS:
        mine = [line for line in lines if line[9:].startswith(m.name + " ")]
        assert len(mine) == 1, f"no verdict line for {m.name!r}:\n{report}"
        verdicts[m.name] = mine[0][:8].strip()
    assert all(v == "caught" for v in verdicts.values()), (
        "not caught: " + ", ".join(f"{n} ({v})" for n, v in verdicts.items() if v != "caught") + f"\n{report}")
    assert f"{len(mc.MUTATIONS)} of {len(mc.MUTATIONS)} mutations caught" in p.stdout, report
    assert p.returncode == 0, report
