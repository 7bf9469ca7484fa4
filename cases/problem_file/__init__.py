"""A problem stated in a TOML file, read with the contact package's laws: ``load(path, overrides)`` is
:func:`fem.problem.file.load` given :data:`CONTACT` (the laws a pair may name, the rigid plane and the
node-to-node obstacle); every key of the file: docs/problem_keys.md; the ``rockfem`` command:
fem.problem.command, installed by cases/problem_file/cli.py with these laws.

fem never imports contact, so the reader (fem.problem.file) takes the contact side as data; this is
where the two meet.
"""
from __future__ import annotations

from typing import Sequence

from contact.buckling import CRITERIA
from contact.laws import LAWS
from contact.zone import BiPlane, RigidPlane
from fem.problem import file as reader
from fem.problem.file import ContactCatalogue, ProblemFile, key_lines

#: what a problem file's pairs may name: the contact laws (contact.laws.LAWS), a rigid plane and an
#: obstacle between node groups (contact.zone), the buckling law's damping criteria
CONTACT = ContactCatalogue(laws=LAWS, rigid_plane=RigidPlane, biplane=BiPlane, buckling_criteria=CRITERIA)

__all__ = ["CONTACT", "ProblemFile", "key_lines", "load"]


def load(path, overrides: Sequence = ()) -> ProblemFile:
    """The problem file ``path`` with ``overrides`` applied, read by :func:`fem.problem.file.load` with the
    contact package's laws (:data:`CONTACT`); every mistake a one-line :class:`fem.ranges.BadInput`."""
    return reader.load(path, overrides, contact=CONTACT)
