"""Where the tests find the project and their fixtures, whatever tier folder they are in."""

from pathlib import Path

TESTS = Path(__file__).parent
ROOT = TESTS.parent  # the project: pyproject.toml, README.md, docs/, .ci/
FIXTURES = TESTS / "fixtures"
SAVES = FIXTURES / "saves"  # saves written by earlier versions, one per schema and case
