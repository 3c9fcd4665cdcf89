"""Fixtures of the reliability tests: a real home written by an earlier scorehouse, copied to play with."""

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# SuperGLUE's leaderboard ingested and ranked (default methods) by the code of main at fc6837a,
# before the home recorded a format version: what a user's existing home looks like.
HOME_FORMAT_1 = FIXTURES / "home_format_1"


@pytest.fixture
def old_home(tmp_path: Path) -> Path:
    """A fresh copy of :data:`HOME_FORMAT_1` (its catalog names the folder it was made in, so it is stale here)."""
    home = tmp_path / "home"
    shutil.copytree(HOME_FORMAT_1, home)
    return home
