"""The layout shows the pipeline, and stays that way (issue 28 item 4).

* Import direction: cases -> contact, meshes -> fem; fem imports neither contact, meshes nor cases;
  contact imports no case and no mesh generator; the exact references (contact/references/) import
  nothing of this repository but each other.
* Floors inside fem: a module imports only its own floor or a lower one, so that the path
  mesh -> model -> loads -> stage -> time -> io -> run -> studies reads from the folder names:

      0 fem.constants, fem.ranges   constants, physical ranges, BadInput;
        fem.compiled                loops compiled by numba on first use
      1 fem.mesh                    mesh data, gmsh reading, mesh checks
      2 fem.model                   elements, continuum kernels, materials, masses, assembly
      3 fem.loads                   time functions, loads and supports, base motion
      4 fem.stage                   a phase's physics, schemes, state, term protocols, energy books
      5 fem.time                    Newton, the integrators, event-driven steps, progress, signals
      6 fem.io                      result writers, the run recorder, the output folder
      7 fem.run                     the run lifecycle and command line of a case
      8 fem.studies                 parameter studies on Dask
      9 fem.problem                 a user's problem on their group names, its stages, simulate()
* No import cycle between modules; no private name (``_x``) imported from another module; no
  ``sys.path`` edit anywhere; every module at most MAX_LINES lines (under cases/ CASES_MAX_LINES, and no
  ``_common`` module: a family's shared pieces are a package); one gravity constant.
"""
from __future__ import annotations

import ast
import inspect
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fem", "contact", "meshes", "cases")
FLOORS = (("fem.constants", "fem.ranges", "fem.compiled"), ("fem.mesh",), ("fem.model",), ("fem.loads",), ("fem.stage",),
          ("fem.time",), ("fem.io",), ("fem.run",), ("fem.studies",), ("fem.problem",))
MAX_LINES = 700
#: the case scripts and their family packages: a module that grows past this is a library piece to move
#: into fem/, contact/ or a family package, or a problem to state as data (issue 41)
CASES_MAX_LINES = 500



def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_files() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


MODULES = {module_name(p): p for p in source_files()}


def imports(path: Path, top_level_only: bool = False) -> list[tuple[str, str, int]]:
    """(imported module, imported name or "", line) for every import of this repository's packages
    in ``path``; ``from pkg import mod`` resolves to the module ``pkg.mod`` when it is one."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else ast.walk(tree)
    found = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in PACKAGES:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.append((full, "", node.lineno) if full in MODULES else (node.module, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, "", node.lineno) for a in node.names if a.name.split(".")[0] in PACKAGES]
        elif top_level_only and isinstance(node, (ast.If, ast.Try)):  # guarded top-level imports
            found += [i for sub in node.body for i in _imports_of(sub)]
    return found


def _imports_of(node) -> list[tuple[str, str, int]]:
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] in PACKAGES:
        return [(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module, "", node.lineno)
                for a in node.names]
    if isinstance(node, ast.Import):
        return [(a.name, "", node.lineno) for a in node.names if a.name.split(".")[0] in PACKAGES]
    return []


def floor(module: str) -> int | None:
    for i, names in enumerate(FLOORS):
        if any(module == n or module.startswith(n + ".") for n in names):
            return i
    return None


def test_the_scanner_sees_the_imports_it_judges():
    """The checks below are only as good as the scanner: it finds a known import of each kind."""
    found = {m for m, _, _ in imports(ROOT / "fem" / "time" / "dynamics.py")}
    assert "fem.stage.phase" in found and "fem.model.assembly" in found
    found = {m for m, _, _ in imports(ROOT / "cases" / "sdnv105a.py")}
    assert "cases.sdnv105.case" in found and "cases.early_exit" in found
    assert len(MODULES) > 70


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_one_way(module):
    path = MODULES[module]
    wrong = []
    for target, _, line in imports(path):
        top = target.split(".")[0]
        if module.startswith("contact.references"):
            ok = target.startswith("contact.references")
        elif module.startswith("fem"):
            ok = top == "fem"
        elif module.startswith("contact"):
            ok = top in ("fem", "contact")
        elif module.startswith("meshes"):
            ok = top in ("fem", "meshes")
        else:
            ok = True
        if ok and module.startswith("fem") and floor(module) is not None and floor(target) is not None:
            ok = floor(target) <= floor(module)
        if not ok:
            wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_every_fem_module_has_a_floor():
    assert [m for m in MODULES if m.startswith("fem.") and floor(m) is None] == []


def test_no_import_cycle():
    """Module-level imports form no cycle (a function-level import is deferred, not a cycle)."""
    graph = {m: {t for t, _, _ in imports(p, top_level_only=True) if t in MODULES and t != m}
             for m, p in MODULES.items()}
    state: dict[str, int] = {}

    def visit(m, stack):
        state[m] = 1
        for t in graph[m]:
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(t):] + [t]))
            if t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])


def test_no_private_name_crosses_a_module():
    crossing = [f"{MODULES[m].relative_to(ROOT)}:{line} imports {target}.{name}"
                for m in MODULES for target, name, line in imports(MODULES[m]) if name.startswith("_")]
    assert crossing == []


def test_no_sys_path_edit_anywhere():
    edits = []
    for p in ROOT.rglob("*.py"):
        if ".git" in p.parts or "egg-info" in str(p) or p == Path(__file__).resolve():
            continue
        for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
            if re.search(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=", line):
                edits.append(f"{p.relative_to(ROOT)}:{i}")
    assert edits == []


def test_no_module_over_the_size_limit():
    over = {str(p.relative_to(ROOT)): n for p in source_files() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert over == {}, f"modules over {MAX_LINES} lines: split them"


def test_no_case_module_over_500_lines_and_no_shared_piece_named_common():
    cases = sorted((ROOT / "cases").rglob("*.py"))
    over = {str(p.relative_to(ROOT)): n for p in cases if (n := len(p.read_text().splitlines())) > CASES_MAX_LINES}
    assert over == {}, f"case modules over {CASES_MAX_LINES} lines: move their library pieces out"
    assert not [p.name for p in cases if p.stem.endswith("_common")], "a shared piece goes into a family package"


def test_one_gravity_constant():
    """9.81 is written once, in fem/constants.py; the references (which import nothing of fem) default
    to the same value."""
    from contact.references import incline, overturning, rocking, rocking_base
    from fem.constants import GRAVITY

    written = []
    for p in source_files():
        if p.is_relative_to(ROOT / "contact" / "references"):
            continue
        with open(p) as f:
            written += [f"{p.relative_to(ROOT)}:{tok.start[0]}" for tok in tokenize.generate_tokens(f.readline)
                        if tok.type == tokenize.NUMBER and tok.string in ("9.81", "9.80665")]
    assert written == ["fem/constants.py:6"]
    defaults = [prm.default for mod in (rocking, rocking_base, overturning, incline) for _, f in inspect.getmembers(mod)
                if inspect.isfunction(f) or inspect.isclass(f)
                for name, prm in inspect.signature(f).parameters.items() if name == "g"]
    assert len(defaults) >= 8 and set(defaults) == {GRAVITY}


def test_the_studies_share_one_launcher():
    """A case is started as a process of a study in one place, fem.studies.tasks.launch (a sweep's
    points, a convergence study's levels, the spectrum's FE runs): no other module of the library or
    the cases calls subprocess.Popen (``--help`` read by subprocess.run is not a run)."""
    starts = [f"{p.relative_to(ROOT)}:{i}" for p in source_files()
              if p.is_relative_to(ROOT / "fem") or p.is_relative_to(ROOT / "cases")
              for i, line in enumerate(p.read_text().splitlines(), 1) if "subprocess.Popen(" in line
              and not line.lstrip().startswith(("def ", "#"))]
    assert [s.split(":")[0] for s in starts] == ["fem/studies/tasks.py"], starts
