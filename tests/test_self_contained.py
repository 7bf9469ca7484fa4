"""The repository stands alone (issue 41): no file of it, and so no ``--help`` (the scripts' docstrings),
names a path outside it, and the copy of Code_Aster's test values is the file it was copied from.

A path is outside when it is absolute under a machine's own folders (/work, /check, /home,
/root) or relative (``../x``) and, read from the folder of the file that names it (the way a
Markdown link, a TOML ``mesh`` key or a docstring's "beside this file" is read), leaves the repository;
or when it names the project's private reference folder (``shared/reference``, ``shared/seeds``), which
users do not have. A cluster's shared disk in an example command (``--out /shared/study``) is the
user's own path and allowed.
"""
from __future__ import annotations

import hashlib
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".json", ".yml", ".yaml", ".rst", ".sh", ""}
ABSOLUTE = re.compile(r"(?<![\w.])/(?:work|check|home|root)/[\w.-]+")
RELATIVE = re.compile(r"(?<![\w/.])((?:\.\./)+[\w.-][\w./-]*)")
PRIVATE = re.compile(r"shared/(?:reference|seeds)\b|\.\./shared\b")
#: SHA-256 of Code_Aster's test values as the project received them (its private reference folder's
#: code_aster_tests.json, 2026-11-29): the copy in cases/reference/ is that file, byte for byte
CODE_ASTER_TESTS_SHA256 = "cb71190cd71bd4c6258148d8d9d9ba17285723919c2ca8d6369e8b24e1f60ff2"


def tracked_text_files() -> list[Path]:
    """The repository's files (git's list; every file under the root but caches when git is absent)."""
    try:
        names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        files = [ROOT / n for n in names.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in ROOT.rglob("*") if p.is_file() and "__pycache__" not in p.parts and ".git" not in p.parts]
    return [p for p in files if p.suffix in TEXT or p.name in {".ci", "run"} or p.parent.name == ".ci"]


def outside_paths(path: Path, text: str) -> list[str]:
    """The paths ``text`` (the file ``path``) names outside the repository: "line: path" each."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        hits = ABSOLUTE.findall(line) + PRIVATE.findall(line)
        for rel in RELATIVE.findall(line):
            target = (path.parent / rel).resolve()
            if target != ROOT and ROOT not in target.parents:
                hits.append(rel)
        found += [f"{path.relative_to(ROOT)}:{number}: {h}" for h in hits]
    return found


def test_no_file_names_a_path_outside_the_repository():
    files = [p for p in tracked_text_files() if p.exists() and p.resolve() != Path(__file__).resolve()]
    assert len(files) > 100  # the walk found the repository
    bad = [hit for p in files for hit in outside_paths(p, p.read_text(errors="replace"))]
    assert not bad, "\n".join(bad)


def test_the_rule_sees_each_kind_of_outside_path():
    here = ROOT / "docs" / "x.md"
    assert outside_paths(here, "see ../README.md and ../meshes/a.msh") == []  # inside: docs/.. is the root
    assert len(outside_paths(here, "see ../../elsewhere/notes.md")) == 1  # leaves the root
    assert len(outside_paths(ROOT / "tests" / "t.py", "(../shared/reference/sdnv105.md §1.2)")) >= 1  # private
    assert len(outside_paths(here, "the file /work/shared/x.md")) >= 1
    assert outside_paths(here, "--out /shared/study on the cluster") == []


def test_the_code_aster_test_values_are_the_copy_received():
    data = (ROOT / "cases" / "reference" / "code_aster_tests.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == CODE_ASTER_TESTS_SHA256
