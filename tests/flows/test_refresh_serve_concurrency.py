"""Scheduled ingestion (one refresh) and concurrent writers; serving on a schedule: tests/runtime/test_serve.py."""

import gzip
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scorehouse.flows.refresh import refresh_flow
from tests.flows.conftest import REPO, SUPERGLUE, VALUE
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.storage import Warehouse

WMT_BLEU = REPO / "data" / "bundled" / "wmt20-metrics" / "final-metric-scores" / "baselines" / "BLEU.sys.score.gz"


def cli(home: Path, *args: str, log: Path) -> subprocess.Popen:
    env = {**os.environ, "SCOREHOUSE_HOME": str(home)}
    out = open(log, "w")  # noqa: SIM115 - closed with the process
    return subprocess.Popen([sys.executable, "-m", "scorehouse", *args], cwd=REPO, env=env, stdout=out, stderr=out)


def corrupt_gzip(path: Path) -> None:
    """A WMT dump cut off in the middle of its gzip stream, as an interrupted download leaves it."""
    data = WMT_BLEU.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(EOFError):
        gzip.decompress(path.read_bytes())


def test_refresh_ranks_the_good_dump_quarantines_the_corrupt_one_then_does_nothing(tmp_path):
    inbox, home = tmp_path / "inbox", str(tmp_path / "wh")
    inbox.mkdir()
    shutil.copyfile(VALUE, inbox / VALUE.name)
    corrupt_gzip(inbox / "BLEU.sys.score.gz")
    report = refresh_flow(inbox=str(inbox), home=home)
    statuses = {Path(f.path).name: f.status for f in report.files}
    assert statuses == {VALUE.name: "loaded", "BLEU.sys.score.gz": "rejected"}
    assert "BLEU.sys.score.gz" in next(f.error for f in report.files if f.status == "rejected")
    assert [o.benchmark for o in report.ranked] == ["value"]
    assert all(m.snapshot_id for o in report.ranked for m in o.methods if not m.skipped)
    assert (inbox / "processed" / VALUE.name).exists() and (inbox / "rejected" / "BLEU.sys.score.gz").exists()
    assert not any(p.is_file() and not p.name.startswith(".") for p in inbox.iterdir())  # no dump left
    with connect(Warehouse(home)) as con:
        assert query_frame(con, "SELECT file FROM rejected_files").item().endswith("BLEU.sys.score.gz")
    state = sorted(str(p) for p in Path(home).rglob("*") if p.name != ".lock")
    again = refresh_flow(inbox=str(inbox), home=home)
    assert again.nothing_new and not again.ranked
    assert sorted(str(p) for p in Path(home).rglob("*") if p.name != ".lock") == state


def test_two_rank_processes_at_once_finish_and_readers_are_never_blocked(tmp_path):
    home = tmp_path / "wh"
    ingest = cli(home, "ingest", str(SUPERGLUE), str(VALUE), log=tmp_path / "p0.log")
    assert ingest.wait(timeout=300) == 0
    writers = [
        cli(home, "rank", "--method", "mean", "--method", "borda", "--method", "borda_partial", log=tmp_path / "p1.log"),
        cli(home, "rank", "--method", "copeland", "--method", "minimax", "--method", "borda_partial", log=tmp_path / "p2.log"),
    ]
    reads = 0
    while any(w.poll() is None for w in writers):
        with connect(Warehouse(home)) as con:  # must never fail or see a half-written snapshot
            query_frame(con, "SELECT count(*) FROM rankings")
            query_frame(con, "SELECT * FROM scores LIMIT 5")
        reads += 1
        time.sleep(0.05)
    assert [w.returncode for w in writers] == [0, 0], (tmp_path / "p1.log").read_text() + (tmp_path / "p2.log").read_text()
    assert reads > 0
    with connect(Warehouse(home)) as con:
        per_method = query_frame(con, "SELECT method, count(DISTINCT snapshot_id) AS n FROM snapshots GROUP BY method ORDER BY method")
        assert per_method.rows() == [(m, 2) for m in ("borda", "borda_partial", "copeland", "mean", "minimax")]
        complete = query_frame(con, "SELECT count(*) FROM snapshots WHERE snapshot_id NOT IN (SELECT snapshot_id FROM rankings)")
        assert complete.item() == 0
    assert not list(home.rglob("*.tmp"))
