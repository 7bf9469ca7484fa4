"""The project's copy of the Code_Aster test values is the shared reference file, unchanged."""
from pathlib import Path

import pytest

COPY = Path(__file__).resolve().parents[1] / "cases" / "reference" / "code_aster_tests.json"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "code_aster_tests.json"


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/reference is not beside this checkout")
def test_copy_of_code_aster_tests_is_identical():
    assert COPY.read_bytes() == SHARED.read_bytes()
