"""Sphinx configuration of rockfem's documentation: the Markdown pages of docs/ (myst-parser), the API
reference from the docstrings (autodoc), the glossary and the examples' gallery.

    pip install -e ".[docs]" && python -m sphinx -W -c docs -b html . docs/_build/html

The source folder is the repository's root, so that the pages' links to the README, to the case scripts
and to the figures resolve as they do on a code host; only the README and docs/ are read. autodoc imports
the packages as Python finds them: run it from the repository's root (``python -m`` puts the current
folder first) or with the project installed.
"""
from __future__ import annotations

project = "rockfem"
author = "the rockfem developers"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
root_doc = "docs/index"
source_suffix = {".md": "markdown"}
include_patterns = ["README.md", "docs/**"]
exclude_patterns = ["docs/_build"]
myst_heading_anchors = 3
html_theme = "alabaster"
nitpicky = False

autodoc_member_order = "bysource"
autodoc_typehints = "signature"


def _plain_text(app, what, name, obj, options, lines):
    """The docstrings are plain text (formulas in ASCII, aligned columns, ``|x|``): shown as they are written,
    a literal block each, rather than parsed as reStructuredText."""
    if any(line.strip() for line in lines):
        body = [("    " + line) if line.strip() else "" for line in lines]
        lines[:] = ["::", "", *body, ""]


def setup(app):
    app.connect("autodoc-process-docstring", _plain_text)
