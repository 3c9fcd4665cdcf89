"""An ingest that fails or is killed before its commit leaves no raw bytes behind (issue 25, case 3).

Before, every file was copied into ``raw/`` under its final name before it was parsed: a full disk
or a killed ingest left the copies (15 MB on the reporter's disk) that no load or rejection names.
Now a batch's bytes are held until its commit, which writes them in a raw pack aside and renames it
into place just before the batch's manifest; a pack without a manifest is no part of the archive and
is removed by the next writer, and a killed run's pack aside by the next ingest.  The full-disk case
is in ``test_disk_full.py``.
"""

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.raw_layout import archived_bytes, asides, committed, packs
from tests.reliability.test_concurrent_readers import ingest, user_table

KILLER = Path(__file__).with_name("killer.py")


def archived(home: Path) -> tuple[set[str], list[str]]:
    """The sha256 of every file the raw archive holds, and the names of the hidden (aside) files under ``raw/``."""
    return set(archived_bytes(home)), asides(home)


def named(home: Path) -> set[str]:
    """The sha256 the committed load manifests and the rejections name."""
    records = [*home.glob("loads/*.parquet"), *home.glob("rejected/*.parquet")]
    return {sha for p in records for sha in pl.read_parquet(p, glob=False).get_column("sha256")}


@pytest.mark.parametrize("when", ["before", "after"])
def test_an_ingest_killed_around_its_raw_pack_leaves_no_raw_bytes(tmp_path: Path, when: str) -> None:
    """Killed just before the rename of its pack (the pack is aside), or just after it (the pack is in place and
    its manifest never comes)."""
    home = tmp_path / "home"
    first = user_table(tmp_path / "first" / "scores.csv", 1_000, seed=1)
    ingest(home, first)
    killed = user_table(tmp_path / "killed" / "more.csv", 5_000, seed=2)
    run = subprocess.run([sys.executable, str(KILLER), "1", when, "--home", str(home), "ingest", str(killed),
                          "--benchmark", "more", "--system", "model", "--task", "dataset", "--score", "acc"],
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "SCOREHOUSE_KILL_UNDER": str(home), "SCOREHOUSE_KILL_ONTO": "/raw/packs/"})
    assert run.returncode == -9, run.stderr
    shas, aside = archived(home)
    if when == "before":
        assert aside, "the killed ingest wrote no pack aside: the test does not reach the window"
    else:
        assert [p.stem for p in packs(home) if p.stem not in committed(home)], "no pack in place without its manifest"
    assert shas == named(home)  # the killed batch's bytes never joined the archive

    ingest(home, user_table(tmp_path / "third" / "other.csv", 1_000, seed=3), "other")  # the next writer
    assert archived(home) == (named(home), [])
    assert len(named(home)) == 2
    assert {p.stem for p in packs(home)} <= committed(home)  # the uncommitted pack is gone

    ingest(home, killed, "more")  # and the killed file ingests as if nothing happened
    assert archived(home) == (named(home), [])
    assert len(named(home)) == 3
    held = archived_bytes(home)
    assert sorted(held.values()) == sorted(p.read_bytes() for p in (first, killed, tmp_path / "third" / "other.csv"))
