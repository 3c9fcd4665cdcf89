"""Re-ingest proportional to what changed (issue 27): files known by the file index are neither hashed nor sniffed.

Real files in a real home; what the plan took from the index is read off the plans (``indexed``), what
the run did off its outcomes.  A file rewritten in place with its old size and modification time
restored has a new change time, so it is hashed and its new bytes are loaded.
"""

import json
import os
import shutil
import time
from pathlib import Path

import polars as pl

from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.ingest_plan import plan_files
from scorehouse.warehouse.file_index import RACY_NS, read_index
from scorehouse.warehouse.storage import Warehouse, sha256_of

FIXTURES = Path(__file__).parents[1] / "transforms" / "fixtures" / "mteb-formats" / "results"
MODEL = "openai__text-embedding-3-small"


def plans(home: Path, files: list[Path]):  # noqa: ANN201
    return plan_files(Warehouse(home), files, [str(f) for f in files], None, None, False, False)


def test_known_files_are_recognised_from_their_stat_and_a_rewritten_one_is_read(tmp_path: Path):
    folder = tmp_path / "results"
    shutil.copytree(FIXTURES / MODEL, folder / MODEL)
    files = sorted(folder.rglob("*.json"))
    home = tmp_path / "home"
    time.sleep(RACY_NS / 1e9 + 0.5)  # older than the racy window when first indexed
    first = ingest_flow([str(folder)], home=str(home))
    assert [f.status for f in first.files] == ["loaded", "loaded"]
    assert all(p.indexed and p.action == "unchanged" for p in plans(home, files))

    # the same size and modification time, other bytes: only the change time tells
    changed = folder / MODEL / "1" / "DBPedia.json"
    before = changed.stat()
    text = changed.read_text(encoding="utf-8")
    changed.write_text(text.replace("0.3997", "0.4997"), encoding="utf-8")
    os.utime(changed, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert changed.stat().st_size == before.st_size and changed.stat().st_mtime_ns == before.st_mtime_ns
    planned = {p.path.name: p for p in plans(home, files)}
    assert planned["AmazonReviewsClassification.json"].indexed and not planned["DBPedia.json"].indexed
    assert planned["DBPedia.json"].action == "read"
    again = {Path(f.path).name: f.status for f in ingest_flow([str(folder)], home=str(home)).files}
    assert again == {"AmazonReviewsClassification.json": "unchanged", "DBPedia.json": "loaded"}
    # indexed with the stat taken before its hash: trusted next time unless it was written within the racy window
    # of that stat (then hashed again by every ingest); either way it is found unchanged
    row = read_index(home).filter(pl.col("path") == str(changed)).row(0, named=True)
    assert (row["sha256"], row["ctime_ns"]) == (sha256_of(changed), changed.stat().st_ctime_ns)
    planned = {p.path.name: p for p in plans(home, files)}
    assert planned["DBPedia.json"].indexed == (row["ctime_ns"] < row["indexed_ns"] - RACY_NS)
    assert planned["DBPedia.json"].action == "unchanged"


def test_a_file_index_row_of_another_format_is_not_taken_for_a_given_format(tmp_path: Path):
    folder = tmp_path / "results" / MODEL / "1"
    folder.mkdir(parents=True)
    (folder / "DBPedia.json").write_text(json.dumps({"test": {"ndcg_at_10": 0.3}, "mteb_dataset_name": "DBPedia"}))
    time.sleep(RACY_NS / 1e9 + 0.5)
    home = tmp_path / "home"
    ingest_flow([str(folder.parent.parent)], home=str(home))
    # --format given: the plan uses it, and a load of that format does not exist, so the file is read
    planned = plan_files(Warehouse(home), [folder / "DBPedia.json"], [str(folder / "DBPedia.json")],
                         "user-table", None, False, False)
    assert planned[0].indexed and planned[0].action == "read"
