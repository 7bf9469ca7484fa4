"""rockfem, installed: :func:`fem.problem.command.main` (every flag and exit code in its docstring and
``rockfem --help``) given the contact package's laws (:data:`cases.problem_file.CONTACT`).

    rockfem run stack.toml
    python -m cases.problem_file.cli run stack.toml          (the same as rockfem)
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import sys
from pathlib import Path

from cases.problem_file import CONTACT  # noqa: E402
from fem.problem.command import Command, main as command_main  # noqa: E402

#: this file runs the command as a process: a sweep's points run ``python THIS run FILE ...``
COMMAND = Command(CONTACT, Path(__file__).resolve())


def main(argv=None) -> int:
    """``rockfem ARGS``: the exit code (fem.run.lifecycle.execute)."""
    return command_main(argv, COMMAND)


if __name__ == "__main__":
    sys.exit(main())
