"""Ingest in batches (issue 13, item 5): the warehouse is the same whatever the batch size.

The same folder (MTEB results of models with several revisions, two leaderboards, one
with a quarantined cell, an unparseable file, a byte-identical copy) is ingested with every
file in a task of its own and with batches; scores, quarantine, manifests and rejected
files must be equal, and a second run must find every file unchanged and write nothing.
"""

import shutil
from pathlib import Path

import polars as pl
import pytest

from scorehouse.flows.ingest import ingest_flow
from tests.flows.conftest import REPO, SUPERGLUE, VALUE
from scorehouse.warehouse.catalog import connect, query_frame

MTEB = REPO / "data" / "bundled" / "mteb-results-sample" / "results"
MODELS = ("intfloat__multilingual-e5-large", "jinaai__jina-embeddings-v3", "sentence-transformers__LaBSE")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dumps")
    for model in MODELS:
        shutil.copytree(MTEB / model, root / "results" / model)
    shutil.copyfile(VALUE, root / VALUE.name)
    (root / "copy").mkdir()
    shutil.copyfile(VALUE, root / "copy" / VALUE.name)  # the same bytes, format and benchmark: one load
    text = SUPERGLUE.read_text(encoding="utf-8").replace(",91,98.6/99.2,", ",not-a-number,98.6/99.2,", 1)
    (root / SUPERGLUE.name).write_text(text, encoding="utf-8")
    (root / "broken.json").write_text('{"mteb_version": "1.12", "scores": ', encoding="utf-8")
    return root


def contents(home: Path) -> dict[str, pl.DataFrame]:
    """What a user sees of the warehouse, less the times and the batch names."""
    queries = {
        "loads": "SELECT * EXCLUDE (loaded_at, batch_id) FROM loads",
        "scores": "SELECT * FROM scores_history",
        "current": "SELECT * FROM scores",
        "quarantine": "SELECT * FROM quarantine",
        "rejected": "SELECT * EXCLUDE (rejected_at) FROM rejected_files",
    }
    with connect_home(home) as con:
        return {name: query_frame(con, sql).sort(pl.all()) for name, sql in queries.items()}


def connect_home(home: Path):  # noqa: ANN201
    from scorehouse.warehouse.storage import Warehouse

    return connect(Warehouse(home))


def test_batched_and_one_file_per_task_ingests_make_the_same_warehouse(folder, tmp_path):
    alone = ingest_flow([str(folder)], home=str(tmp_path / "alone"), batch_files=1)
    batched = ingest_flow([str(folder)], home=str(tmp_path / "batched"), batch_files=7)

    files = len([p for p in folder.rglob("*") if p.is_file()])
    assert len(alone.files) == len(batched.files) == files
    assert [(f.path, f.status, f.load_id, f.rows_landed, f.rows_quarantined) for f in alone.files] == [
        (f.path, f.status, f.load_id, f.rows_landed, f.rows_quarantined) for f in batched.files
    ]
    statuses = {f.status for f in batched.files}
    assert statuses == {"loaded", "unchanged", "skipped", "rejected"}  # every path was taken
    one, many = contents(tmp_path / "alone"), contents(tmp_path / "batched")
    for name in one:
        assert one[name].equals(many[name]), name
    assert "not-a-number" in many["quarantine"].get_column("value").to_list()
    assert many["rejected"].get_column("file").to_list() == [str(folder / "broken.json")]
    assert many["scores"].height > 10_000
    # one manifest file per load alone; a few for the batches, each listing its loads
    loads = many["loads"].height
    assert len(list((tmp_path / "alone" / "loads").glob("*.parquet"))) == loads
    assert len(list((tmp_path / "batched" / "loads").glob("*.parquet"))) < loads / 3


def test_a_second_run_finds_every_file_unchanged_and_writes_nothing(folder, tmp_path):
    home = tmp_path / "home"
    first = ingest_flow([str(folder)], home=str(home))
    written = sorted(p for p in home.rglob("*.parquet"))
    again = ingest_flow([str(folder)], home=str(home))
    loaded = [f.path for f in first.files if f.status == "loaded"]
    assert loaded and all(f.status == "unchanged" for f in again.files if f.path in loaded)
    assert [f.load_id for f in again.files if f.path in loaded] == [f.load_id for f in first.files if f.path in loaded]
    assert sorted(p for p in home.rglob("*.parquet")) == written


@pytest.mark.parametrize("batch_files", [1, 2000])
def test_a_path_given_twice_reports_the_load_once_and_the_repeat_unchanged(tmp_path, batch_files):
    report = ingest_flow([str(VALUE), str(VALUE)], home=str(tmp_path / "home"), batch_files=batch_files)
    first, second = report.files
    assert (first.status, second.status) == ("loaded", "unchanged")
    assert first.rows_in > 0 and second.rows_in == 0  # the rows are the first's, counted once
    assert first.load_id == second.load_id
