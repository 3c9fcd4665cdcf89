"""Fixtures of the flow tests: small real leaderboards ingested into a fresh warehouse."""

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TABLES = REPO / "data" / "bundled" / "vote_and_rank" / "tables"
SUPERGLUE = TABLES / "leaderboards - SuperGLUE.csv"
VALUE = TABLES / "leaderboards - VALUE.csv"


@pytest.fixture
def dumps(tmp_path: Path) -> Path:
    """A folder with copies of two real leaderboards the test may edit."""
    folder = tmp_path / "dumps"
    folder.mkdir()
    for source in (SUPERGLUE, VALUE):
        shutil.copyfile(source, folder / source.name)
    return folder


def snapshot_files(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.glob("snapshot*/**/*.parquet"))}
