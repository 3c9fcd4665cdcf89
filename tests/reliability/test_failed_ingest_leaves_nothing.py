"""An ingest that fails or is killed before its commit leaves no raw bytes behind (issue 25, case 3).

Before, every file was copied into ``raw/`` under its final name before it was parsed: a full disk
or a killed ingest left the copies (15 MB on the reporter's disk) that no load or rejection names.
Now a copy is made aside and joins the archive with the record that names it; a killed run's
copies are removed by the next ingest.  The full-disk case is in ``test_disk_full.py``.
"""

import os
import subprocess
import sys
from pathlib import Path

import polars as pl

from tests.reliability.test_concurrent_readers import ingest, user_table

KILLER = Path(__file__).with_name("killer.py")


def archived(home: Path) -> tuple[set[str], list[str]]:
    """The sha256 of every file in the raw archive, and the names of the hidden (aside) files there."""
    files = [p for p in (home / "raw").rglob("*") if p.is_file()]
    return {p.name[:64] for p in files if not p.name.startswith(".")}, [p.name for p in files if p.name.startswith(".")]


def named(home: Path) -> set[str]:
    """The sha256 the committed load manifests and the rejections name."""
    records = [*home.glob("loads/*.parquet"), *home.glob("rejected/*.parquet")]
    return set(pl.concat([pl.read_parquet(p, glob=False).select("sha256") for p in records]).get_column("sha256"))


def test_an_ingest_killed_between_its_raw_copy_and_its_commit_leaves_no_raw_bytes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ingest(home, user_table(tmp_path / "first" / "scores.csv", 1_000, seed=1))
    killed = user_table(tmp_path / "killed" / "more.csv", 5_000, seed=2)
    # SIGKILLed just before its first rename into the home: the first file of its commit
    run = subprocess.run([sys.executable, str(KILLER), "1", "before", "--home", str(home), "ingest", str(killed),
                          "--benchmark", "more", "--system", "model", "--task", "dataset", "--score", "acc"],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "SCOREHOUSE_KILL_UNDER": str(home)})
    assert run.returncode == -9, run.stderr
    shas, asides = archived(home)
    assert asides, "the killed ingest made no raw copy: the test does not reach the window"
    assert shas == named(home)  # the copy never joined the archive

    ingest(home, user_table(tmp_path / "third" / "other.csv", 1_000, seed=3), "other")  # the next writer
    shas, asides = archived(home)
    assert asides == []
    assert shas == named(home) and len(shas) == 2

    ingest(home, killed, "more")  # and the killed file ingests as if nothing happened
    assert archived(home) == (named(home), [])
    assert len(named(home)) == 3
