"""Twenty readers beside real writers: none waits on a writer, and each answer is a committed state (issue 25).

"Waits on a writer" is made measurable without timing a loaded machine: a reader either takes
the writer lock without blocking or does not take it at all, and a process that blocks on the
lock says so on stderr (:func:`warehouse.atomic.file_lock`).  So (1) twenty readers of a stale
catalog run while this process holds the writer lock for their whole run, and must all finish
(a reader that waited on the lock would never finish), and (2) twenty readers query again and
again while real ``scorehouse ingest`` writers parse, validate and commit 200,000 scores, and
none may say it waited.  Each answer must be the row count of a committed state, never a mixture.
The latencies beside a no-writer baseline are measured by ``benchmarks/bench_concurrency.py``.
"""

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.storage import Warehouse

READERS = 20
WRITER_ROWS = 200_000  # a user table whose parse and validation take seconds beside twenty readers
SYSTEMS = 50
COUNT = "SELECT count(*) AS n FROM scores"
COLUMNS = ("--system", "model", "--task", "dataset", "--score", "acc")


def user_table(path: Path, rows: int, seed: int) -> Path:
    """A user table of ``rows`` scores: SYSTEMS systems, each scored once on every task."""
    path.parent.mkdir(parents=True, exist_ok=True)
    index = pl.Series(np.arange(rows))
    pl.DataFrame({
        "model": "sys" + (index % SYSTEMS).cast(pl.String),
        "dataset": "task" + (index // SYSTEMS).cast(pl.String),
        "acc": np.random.default_rng(seed).random(rows),
    }).write_csv(path)
    return path


def scorehouse(home: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "scorehouse", "--home", str(home), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})


def finished(process: subprocess.Popen, timeout: float = 300) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def ingest(home: Path, table: Path, benchmark: str = "mine") -> None:
    code, _, err = finished(scorehouse(home, "ingest", str(table), "--benchmark", benchmark, *COLUMNS))
    assert code == 0, err


def counted(answer: tuple[int, str, str]) -> int:
    code, out, err = answer
    assert code == 0, err
    assert "waiting for" not in err, err  # the lock's own report of a wait
    return int(out.splitlines()[1])


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with a small table of the benchmark ``mine`` (1,000 scores) ingested and ranked."""
    home = tmp_path / "home"
    ingest(home, user_table(tmp_path / "first" / "scores.csv", 1_000, seed=1))
    assert finished(scorehouse(home, "rank"))[0] == 0
    return home


def test_twenty_readers_of_a_stale_catalog_finish_while_a_writer_holds_the_lock(home: Path, tmp_path: Path) -> None:
    old_catalog = tmp_path / "catalog.duckdb"
    shutil.copyfile(home / "catalog.duckdb", old_catalog)
    ingest(home, user_table(tmp_path / "second" / "more.csv", 20_000, seed=2), "more")
    # The writer committed and died before its catalog rebuild: the catalog is the one of before.
    shutil.copyfile(old_catalog, home / "catalog.duckdb")
    private = tmp_path / "tmp"
    private.mkdir()
    with Warehouse(home).write_lock():  # held for the readers' whole run: a reader that waited would never end
        readers = [scorehouse(home, "sql", COUNT, "--format", "csv", env={"TMPDIR": str(private)})
                   for _ in range(READERS)]
        answers = [finished(reader, timeout=600) for reader in readers]
    assert [counted(answer) for answer in answers] == [21_000] * READERS
    assert list(private.iterdir()) == []  # each private catalog went with its reader


@pytest.mark.slow  # twenty reader processes in a loop on two cores: a minute or two
def test_twenty_readers_beside_real_writers_read_committed_states_and_never_wait(home: Path, tmp_path: Path) -> None:
    states = {1_000, 1_000 + WRITER_ROWS, 2_000 + WRITER_ROWS}  # before, after the first writer, after the second
    big = user_table(tmp_path / "big" / "big.csv", WRITER_ROWS, seed=3)
    corrected = user_table(tmp_path / "corrected" / "scores.csv", 2_000, seed=4)  # same file name: replaces the first
    done = threading.Event()
    answers: list[tuple[int, str, str]] = []

    def read() -> None:
        while True:  # each reader queries at least once after the writers are done
            last = done.is_set()
            answers.append(finished(scorehouse(home, "sql", COUNT, "--format", "csv")))
            if last:
                return

    readers = [threading.Thread(target=read) for _ in range(READERS)]
    for reader in readers:
        reader.start()
    try:
        ingest(home, big, "more")
        ingest(home, corrected)
    finally:
        done.set()
        for reader in readers:
            reader.join()
    seen = [counted(answer) for answer in answers]
    assert set(seen) <= states, sorted(set(seen) - states)
    assert seen.count(2_000 + WRITER_ROWS) >= READERS  # every reader's last answer is the final state
    listing = finished(scorehouse(home, "snapshots"))
    assert listing[0] == 0 and "waiting for" not in listing[2]


def test_a_catalog_answers_the_committed_state_it_was_built_from(home: Path, tmp_path: Path) -> None:
    """A reader that found the catalog current and queries it just after a writer commits reads the state of
    before, not a mixture: before, the ``loads`` view read the manifests on disk at query time, so a load
    replacing the first one made the first one's rows not current, while the new rows were not listed yet."""
    old_catalog = tmp_path / "catalog.duckdb"
    shutil.copyfile(home / "catalog.duckdb", old_catalog)
    ingest(home, user_table(tmp_path / "corrected" / "scores.csv", 2_000, seed=4))
    shutil.copyfile(old_catalog, home / "catalog.duckdb")  # what a reader connected just before the commit reads
    with connect(Warehouse(home)) as con:
        assert query_frame(con, COUNT).item() == 1_000
        assert query_frame(con, "SELECT count(*) FROM loads WHERE is_current").item() == 1
