"""Write docs/problem_keys.md, the reference of every problem-file key, from the reader's own list of keys
(fem.problem.file.keys): ``python docs/problem_keys.py``. tests/test_problem_keys.py checks the page is
this output."""
from pathlib import Path

from fem.problem.file.keys import markdown

if __name__ == "__main__":
    page = Path(__file__).with_suffix(".md")
    page.write_text(markdown())
    print(f"wrote {page}")
