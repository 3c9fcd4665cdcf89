"""A full disk is a named error, leaves no temporary file, and readers keep working (issue 25, case 3).

Before, ingest exited with three ``OSError 28`` tracebacks, and a rank whose snapshots committed
but whose catalog rebuild failed made every ``sql`` and ``snapshots`` fail with a DuckDB traceback.
Runs on a small tmpfs, which needs root to mount: skipped, saying why, where the mount fails.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.rankings import SUPERGLUE
from tests.reliability.test_failed_ingest_leaves_nothing import archived, named

REPO = Path(__file__).resolve().parents[2]
GLUE = SUPERGLUE.with_name("leaderboards - GLUE.csv")


def scorehouse(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorehouse", "--home", str(home), *args], capture_output=True,
                          text=True, timeout=600, cwd=REPO)


@pytest.fixture
def small_disk(tmp_path: Path):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def fill(disk: Path, leave: int) -> None:
    """Fill ``disk`` up to ``leave`` bytes free."""
    free = shutil.disk_usage(disk).free
    with open(disk / "filler", "wb") as handle:
        handle.write(b"\0" * max(free - leave, 0))


def temporary_files(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if ".tmp" in p.name]


def test_a_full_disk_is_named_leaves_no_temporary_file_and_keeps_readers_working(small_disk: Path, tmp_path: Path) -> None:
    home = small_disk / "home"
    small = tmp_path / SUPERGLUE.name
    small.write_text("".join(SUPERGLUE.read_text(encoding="utf-8").splitlines(keepends=True)[:7]), encoding="utf-8")
    assert scorehouse(home, "ingest", str(small)).returncode == 0
    assert scorehouse(home, "rank").returncode == 0

    fill(small_disk, leave=16 * 1024)  # room for some of GLUE's batch files (its bytes are held until its pack), not all
    ingest = scorehouse(home, "ingest", str(GLUE))
    assert ingest.returncode == 1
    assert "no space left on the disk" in ingest.stderr
    assert temporary_files(home) == []
    assert archived(home) == (named(home), [])  # no raw bytes of the file that did not commit

    (small_disk / "filler").unlink()
    # The batch's files written before the disk filled (no manifest) change the catalog's state: a reader rebuilds it.
    assert scorehouse(home, "sql", "SELECT 1").returncode == 0
    fill(small_disk, leave=24 * 1024)  # a snapshot fits (a few KiB), a new catalog does not
    (home / "snapshot_manifests").mkdir(exist_ok=True)
    before = set((home / "snapshot_manifests").iterdir())
    rank = scorehouse(home, "rank", "--method", "borda", "--param", "borda.ties=max")
    assert rank.returncode == 1, rank.stderr[-2000:]
    assert "no space left on the disk" in rank.stderr
    assert temporary_files(home) == []
    new = set((home / "snapshot_manifests").iterdir()) - before
    assert new, "the snapshot did not commit: the test does not reach the catalog rebuild"

    for args in (("sql", "SELECT count(DISTINCT snapshot_id) AS n FROM rankings", "--format", "csv"), ("snapshots",)):
        read = scorehouse(home, *args)
        assert read.returncode == 0, read.stderr[-2000:]
        assert "Traceback" not in read.stderr
    counted = scorehouse(home, "sql", "SELECT count(DISTINCT snapshot_id) AS n FROM rankings", "--format", "csv")
    assert int(counted.stdout.splitlines()[1]) == len(list((home / "snapshot_manifests").iterdir()))
    assert temporary_files(home) == []
