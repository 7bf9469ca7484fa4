"""fem.compiled: loops compiled by numba on first use, not at import (start-up, issue 40).

* importing a case script loads neither numba nor the libraries only some runs use (meshio, h5py,
  matplotlib, Dask, scipy.optimize, scipy.integrate), in a new process;
* a loop's first call puts numba's dispatcher in its module's namespace in place of every loop of the
  module, and a loop calling another one of its module runs compiled (or, under NUMBA_DISABLE_JIT=1,
  the plain functions take their place);
* fem.compiled.load runs the registered warm-ups once;
* a run (fem.run.lifecycle.Run.start) has loaded the contact loops before it reports ``running``.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ON_USE = ("numba", "meshio", "h5py", "matplotlib", "distributed", "scipy.optimize", "scipy.integrate")


def _run(code: str, **env) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, **env}, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize("case", ["shaking_table", "sdnv105a", "problem_file"])
def test_importing_a_case_loads_no_library_a_run_may_not_need(case):
    loaded = _run(f"""
        import sys
        import cases.{case}
        print(' '.join(m for m in {ON_USE!r} if m in sys.modules))
    """)
    assert loaded == "", f"cases.{case} imports {loaded} at start-up"


MODULE = '''
import numpy as np
from fem import compiled

@compiled.loop(cache=False)
def square(x):
    return x * x

@compiled.loop(cache=False)
def sum_of_squares(a):
    s = 0.0
    for x in a:
        s += square(x)
    return s

warmed = []

@compiled.warm_up
def _warm():
    warmed.append(float(sum_of_squares(np.ones(2))))
'''


def _module_check(tmp_path, disable_jit: str) -> str:
    (tmp_path / "loops_under_test.py").write_text(MODULE)
    return _run(f"""
        import sys
        import numpy as np
        import loops_under_test as m
        from fem import compiled
        before = type(m.square).__name__, 'numba' in sys.modules
        value = m.sum_of_squares(np.arange(4.0))   # 0 + 1 + 4 + 9, square called from a loop
        after = type(m.square).__name__, type(m.sum_of_squares).__name__
        compiled.load(); compiled.load()
        print(before, value, after, m.warmed)
    """, NUMBA_DISABLE_JIT=disable_jit, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))


def test_a_loop_is_compiled_on_first_use_with_the_loops_it_calls(tmp_path):
    assert _module_check(tmp_path, "0") == "('_Loop', False) 14.0 ('CPUDispatcher', 'CPUDispatcher') [2.0]"


def test_without_jit_the_plain_functions_take_the_loops_place(tmp_path):
    assert _module_check(tmp_path, "1") == "('_Loop', False) 14.0 ('function', 'function') [2.0]"


def test_a_module_named_in_calls_is_imported_when_its_loops_are_loaded(tmp_path):
    """A loop's ``calls=`` may name a module nothing has imported yet: loading its loops imports it
    (before, a KeyError)."""
    (tmp_path / "loops_under_test.py").write_text(MODULE)
    out = _run("""
        import sys
        from fem import compiled
        imported = 'loops_under_test' in sys.modules
        table = compiled._loaded('loops_under_test')
        print(imported, sorted(table), 'loops_under_test' in sys.modules)
    """, NUMBA_DISABLE_JIT="0", PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    assert out == "False ['square', 'sum_of_squares'] True"


def test_a_run_has_its_contact_loops_loaded_when_it_reports_running(tmp_path):
    said = _run(f"""
        import json, pathlib
        import contact.zone, contact.multipliers
        from fem.run import lifecycle
        from fem.compiled import _Loop
        out = lifecycle.prepare_output(pathlib.Path({str(tmp_path / 'out')!r}))
        before = [isinstance(vars(m)[name], _Loop) for m, name in ((contact.zone, 'segment_rows'),
                                                                 (contact.equations, 'revise_statuses'))]
        run = lifecycle.Run.start(out, 'test', 'test', 'custom', {{}}, quiet=True)
        status = json.loads((out / 'summary.json').read_text())['status']
        after = [isinstance(vars(m)[name], _Loop) for m, name in ((contact.zone, 'segment_rows'),
                                                                (contact.equations, 'revise_statuses'))]
        run.finish('complete')
        print(before, status, after)
    """)
    assert said.splitlines()[-1] == "[True, True] running [False, False]"


CALLEE = '''
from fem import compiled

@compiled.loop(cache=True)
def g(x):
    return x + {step}
'''
CALLER = '''
from fem import compiled
import callee_under_test

@compiled.loop(cache=True, calls=("callee_under_test",))
def f(x):
    return 2.0 * callee_under_test.g(x)
'''
PROBE = """
    import caller_under_test as a
    value = a.f(1.0)
    print(value, sum(a.f.stats.cache_misses.values()), sum(a.f.stats.cache_hits.values()))
"""


def test_a_cached_loop_is_compiled_again_when_a_module_it_calls_changes(tmp_path):
    """The caller's machine code (its callee inlined) comes from numba's cache in a second process, and
    is compiled again once the callee's file changes: the new callee is what runs."""
    callee = tmp_path / "callee_under_test.py"
    callee.write_text(CALLEE.format(step=1.0))
    (tmp_path / "caller_under_test.py").write_text(CALLER)
    path = os.pathsep.join([str(tmp_path), str(ROOT)])
    assert _run(PROBE, PYTHONPATH=path) == "4.0 1 0"  # compiled: 2 (1 + 1)
    assert _run(PROBE, PYTHONPATH=path) == "4.0 0 1"  # from the cache
    callee.write_text(CALLEE.format(step=2.0))
    stat = callee.stat()
    os.utime(callee, (stat.st_atime, stat.st_mtime + 10.0))  # a later edit, whatever the clock's grain
    assert _run(PROBE, PYTHONPATH=path) == "6.0 1 0"  # stale: compiled again, with the new callee
    assert _run(PROBE, PYTHONPATH=path) == "6.0 0 1"


def test_a_second_run_loads_every_loop_from_the_cache(tmp_path):
    """A run in a new process after another one compiles nothing: every loop it calls (contact, continuum,
    Newmark, the Newton system's fills, the dense LU bound to LAPACK by name) comes from numba's cache
    (NUMBA_DEBUG_CACHE: "data loaded", never "data saved"). The first run may compile (a fresh checkout:
    about 15 s, docs/performance.md); the second pays none of it."""
    command = [sys.executable, "cases/shaking_table.py", "--excitation", "sine-pulse", "--amplitude-g", "0.3",
               "--frequency-hz", "2", "--t-end", "0.15", "--no-paraview", "--quiet"]
    said = []
    for k in range(2):
        done = subprocess.run([*command, "--out", str(tmp_path / f"run{k}")], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "NUMBA_DEBUG_CACHE": "1", "NUMBA_DISABLE_JIT": "0"}, timeout=900)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        said.append(done.stdout + done.stderr)
    loaded = said[1].count("[cache] data loaded")
    assert loaded >= 20, said[1][-2000:]  # the loops of a run, each loaded
    assert "[cache] data saved" not in said[1], [line for line in said[1].splitlines() if "saved" in line][:5]
