"""The README and docs/: the README stays short and opens with the two commands; every relative link,
image and anchor resolves; every script a quoted command runs exists; every table keeps its columns."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README] + DOCS

INSTALL_AND_RUN = 'pip install -e . && python cases/sdnv105a.py'
INSTALL_AND_TEST = 'pip install -e ".[test,docs]" && python -m pytest -q'


def _prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans (where links and headings live)."""
    out, fence = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence:
            out.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lowercase, punctuation other than '-' and '_' dropped, spaces to '-'."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a Markdown file, repeated headings numbered as GitHub does."""
    seen: dict[str, int] = {}
    found = set()
    fence = False
    for line in path.read_text().splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(path: Path) -> list[str]:
    """The targets of every Markdown link and image in prose (not in code)."""
    return re.findall(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", _prose(path.read_text()))


def test_readme_is_short_and_opens_with_the_two_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= 250, f"README.md has {len(text.splitlines())} lines (at most 250)"
    first = re.search(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)
    assert first, "README.md has no fenced code block"
    assert INSTALL_AND_RUN in first.group(1) and INSTALL_AND_TEST in first.group(1), first.group(1)


def test_the_docs_have_an_index_naming_every_page():
    index = ROOT / "docs" / "README.md"
    assert index.exists()
    named = {Path(t.split("#")[0]).name for t in links(index)}
    missing = [p.name for p in DOCS if p.name not in ("README.md", "index.md") and p.name not in named]
    assert not missing, f"docs/README.md does not list {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page):
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http(s):, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with anchor #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


SCRIPT = re.compile(r"\bpython3?\s+((?:cases|benchmarks|examples)/[\w./-]+?\.py)\b")


def _script_exists(name: str) -> bool:
    """A quoted script exists; an upper-case run in its file name (cases/CASE.py, sdnv105X.py) is a
    placeholder, which must stand for at least one script that exists."""
    parent, _, base = name.rpartition("/")
    if not re.search(r"[A-Z]", base):
        return (ROOT / name).is_file()
    pattern = re.sub(r"[A-Z]+", "*", base)
    return any(p.is_file() for p in (ROOT / parent).glob(pattern))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_quoted_command_names_a_script_that_exists(page):
    names = SCRIPT.findall(page.read_text())
    missing = sorted({n for n in names if not _script_exists(n)})
    assert not missing, f"{page.relative_to(ROOT)} quotes commands of scripts that do not exist: {missing}"


def test_the_readme_quotes_the_case_scripts_it_is_about():
    assert {"cases/sdnv105a.py", "cases/shaking_table.py"} <= set(SCRIPT.findall(README.read_text()))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_table_row_has_the_columns_of_its_header(page):
    """A '|' inside a cell must be escaped ('\\|'), even within backticks (GitHub splits on it there)."""
    bad, header, fence = [], None, False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
        if fence or not line.startswith("|"):
            header = None
            continue
        cells = len(re.findall(r"(?<!\\)\|", line.rstrip()))
        if header is None:
            header = cells
        elif cells != header:
            bad.append(f"line {number}: {cells - 1} cells, its header {header - 1}")
    assert not bad, f"{page.relative_to(ROOT)}: " + "; ".join(bad)


def test_the_readme_says_why_numba_is_a_dependency():
    lines = [line for line in README.read_text().splitlines() if "numba" in line and "docs/dependencies.md" in line]
    assert any(re.search(r"\bcompile", line) for line in lines), "no line of README.md says why numba, with a link"


def test_the_checks_above_can_fail(tmp_path):
    """The link, anchor and script rules catch what they are for."""
    page = tmp_path / "page.md"
    page.write_text("# A heading: `--flag` (x, y)\n\n[ok](#a-heading---flag-x-y) [bad](#nope) [gone](missing.md)\n"
                    "`python cases/no_such_case.py`\n| a | b |\n|---|---|\n| `x | y` | z |\n")
    assert "a-heading---flag-x-y" in anchors(page)
    assert links(page) == ["#a-heading---flag-x-y", "#nope", "missing.md"]
    assert SCRIPT.findall(page.read_text()) == ["cases/no_such_case.py"]
    assert not _script_exists("cases/no_such_case.py") and _script_exists("cases/sdnv105X.py")
    assert not _script_exists("cases/nothingX.py")


def _sphinx(source: Path, conf: Path, out: Path):
    """``python -m sphinx -W`` (warnings as errors) of ``source`` with the configuration folder ``conf``
    into ``out``; skipped where Sphinx and myst-parser are not installed, except in CI (CI=true), which
    installs the docs extra and must build."""
    import importlib.util
    import os
    import subprocess
    import sys

    if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_parser") is None:
        if os.environ.get("CI"):
            pytest.fail('Sphinx or myst-parser is missing: CI installs ".[test,docs]"')
        pytest.skip('the docs extra is not installed (pip install -e ".[docs]")')
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-c", str(conf), "-b", "html",
                           str(source), str(out)], capture_output=True, text=True, timeout=600, cwd=ROOT)


def test_the_documentation_builds_with_warnings_as_errors(tmp_path):
    """The site (docs/conf.py: the README, docs/, the glossary, the gallery and the API reference from the
    docstrings) builds with every warning an error: a broken link or reference, a page in no table of
    contents, a docstring autodoc cannot import."""
    done = _sphinx(ROOT, ROOT / "docs", tmp_path / "html")
    assert done.returncode == 0, done.stderr[-3000:]
    api = (tmp_path / "html" / "docs" / "api.html").read_text()
    for name in ("fem.problem.Problem", "contact.laws.Lagrange", "fem.loads.base_motion.SinePulse",
                 "meshes.bodies.write_bodies", "cases.problem_file.load"):
        assert f'id="{name}"' in api, name


def test_the_documentation_build_fails_on_a_broken_link(tmp_path):
    """The same configuration on a page that links to a page that does not exist: the build fails."""
    source = tmp_path / "src"
    (source / "docs").mkdir(parents=True)
    (source / "README.md").write_text("# Top\n")
    (source / "docs" / "index.md").write_text("# Index\n\n[gone](missing.md)\n\n```{toctree}\n/README\n```\n")
    done = _sphinx(source, ROOT / "docs", tmp_path / "html")
    assert done.returncode != 0 and "missing" in done.stderr, done.stderr[-2000:]


def test_every_example_is_in_the_gallery():
    gallery = (ROOT / "docs" / "gallery.md").read_text()
    examples = sorted(p for p in (ROOT / "examples").rglob("*") if p.suffix in (".py", ".toml"))
    assert examples
    missing = [str(p.relative_to(ROOT)) for p in examples
               if f"../{p.relative_to(ROOT).as_posix()}" not in gallery]
    assert not missing, f"docs/gallery.md does not show {missing}"
