"""Readers never wait for writers, and a read-only or copied home is readable (issue 25, cases 3 and 4).

Before, ``sql`` on a stale catalog took the writer lock to rebuild it, waiting as long as a
writer held it; on read-only media it failed with ``OSError: [Errno 30] ... /.lock``.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from scorehouse.warehouse.storage import Warehouse

COUNT_RANKINGS = "SELECT count(*) AS n FROM latest_rankings"


def scorehouse(home: Path, *args: str, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorehouse", "--home", str(home), *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def ranking_rows(home: Path) -> int:
    return sum(pl.read_parquet(p).height for p in home.glob("snapshots/*/*/ranking.parquet"))


def test_a_reader_of_a_stale_catalog_does_not_wait_for_the_writer_lock(old_home: Path, tmp_path: Path) -> None:
    private = tmp_path / "tmp"
    private.mkdir()
    with Warehouse(old_home).write_lock():  # a writer holds the lock for as long as the reader runs
        started = time.monotonic()
        done = scorehouse(old_home, "sql", COUNT_RANKINGS, "--format", "csv", timeout=60, env={"TMPDIR": str(private)})
        took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == str(ranking_rows(old_home))
    assert "waiting for" not in done.stderr
    assert took < 30  # the process itself (Python, Polars, DuckDB) starts in a few seconds; no wait on the lock
    assert list(private.iterdir()) == []  # the catalog built aside went with the process
    assert not list(old_home.glob(".*.tmp*"))


@pytest.fixture
def read_only_home(old_home: Path, tmp_path: Path):
    """``old_home`` bind-mounted read-only (needs root); skipped, saying why, where mounting fails."""
    mount = tmp_path / "read-only"
    mount.mkdir()
    bind = subprocess.run(["mount", "--bind", str(old_home), str(mount)], capture_output=True, text=True)
    if bind.returncode != 0:
        pytest.skip(f"cannot bind-mount a folder here (needs root): {bind.stderr.strip()}")
    try:
        remount = subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], capture_output=True, text=True)
        if remount.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {remount.stderr.strip()}")
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_copied_home_on_read_only_media_is_readable(read_only_home: Path, old_home: Path, tmp_path: Path) -> None:
    with pytest.raises(OSError):
        (read_only_home / "probe").write_text("")
    private = tmp_path / "tmp"
    private.mkdir()
    env = {"TMPDIR": str(private)}
    done = scorehouse(read_only_home, "sql", COUNT_RANKINGS, "--format", "csv", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == str(ranking_rows(old_home))
    listing = scorehouse(read_only_home, "snapshots", env=env)
    assert listing.returncode == 0, listing.stderr
    assert all(p.stem in listing.stdout for p in old_home.glob("snapshot_manifests/*.parquet"))
    assert list(private.iterdir()) == []
