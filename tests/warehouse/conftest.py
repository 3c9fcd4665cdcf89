"""Fixtures of the warehouse tests: a fresh warehouse home and the bundled real dumps."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "data" / "bundled"
GLUE_CSV = BUNDLED / "vote_and_rank" / "tables" / "leaderboards - GLUE.csv"
VALUE_CSV = BUNDLED / "vote_and_rank" / "tables" / "leaderboards - VALUE.csv"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "warehouse"


def tree_state(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes: equal states mean an unchanged warehouse."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != ".lock"}
