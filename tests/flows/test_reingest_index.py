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
from scorehouse.warehouse.integrity import sha256_of
from scorehouse.warehouse.storage import Warehouse

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


def older_copy(folder: Path, name: str) -> Path:
    """Another result of ``1/<name>`` (no mteb version, as that one) in the revision folder ``0``: superseded by
    the one in ``1``, the greater folder name."""
    doc = json.loads((folder / "1" / name).read_text(encoding="utf-8"))
    doc["test"] = {"ndcg_at_10": 0.25}
    (folder / "0").mkdir(exist_ok=True)
    (folder / "0" / name).write_text(json.dumps(doc), encoding="utf-8")
    return folder / "0" / name


def test_skipped_and_rejected_files_are_known_from_the_index_until_a_file_beside_them_changes(tmp_path: Path):
    model = tmp_path / "results" / MODEL
    shutil.copytree(FIXTURES / MODEL, model)
    superseded = older_copy(model, "DBPedia.json")
    broken = model / "1" / "Broken.json"
    broken.write_text('{"mteb_version": "1.12.0", "scores": {"test": [', encoding="utf-8")
    notes = model / "1" / "notes.log"
    notes.write_text("a run log beside the scores\n", encoding="utf-8")
    home = tmp_path / "home"
    time.sleep(RACY_NS / 1e9 + 0.5)
    first = {Path(f.path).name + f.path.split("/")[-2]: (f.status, f.error) for f in
             ingest_flow([str(model.parent)], home=str(home)).files}
    assert first["DBPedia.json0"][0] == "skipped" and "superseded copy" in first["DBPedia.json0"][1]
    assert first["Broken.json1"][0] == "rejected" and first["notes.log1"][0] == "skipped"

    files = sorted(p for p in model.rglob("*") if p.is_file())
    walked = {f: f.name for f in files}
    planned = {p.path: p for p in plan_files(Warehouse(home), files, [str(f) for f in files], None, None, False,
                                              False, None, walked)}
    assert {p.action for p in planned.values()} == {"unchanged", "known"}
    assert {path for path, p in planned.items() if p.action == "known"} == {superseded, broken, notes}
    again = {Path(f.path).name + f.path.split("/")[-2]: (f.status, f.error) for f in
             ingest_flow([str(model.parent)], home=str(home)).files}
    assert again == {**first, **{k: ("unchanged", None) for k, (s, _) in first.items() if s == "loaded"}}

    # given by name rather than found in a folder, the unrecognised file is an error, not the skip recorded
    planned = plan_files(Warehouse(home), [notes], [str(notes)], None, None, False, False)
    assert planned[0].action == "read"
    # another --benchmark is another reading: the skip is decided again
    planned = plan_files(Warehouse(home), files, [str(f) for f in files], None, "other", False, False, None, walked)
    assert planned[files.index(superseded)].action == "read"

    # a new copy beside them: every file of the model is decided again, and the copy it supersedes now is said
    newest = model / "2" / "DBPedia.json"
    newest.parent.mkdir()
    doc = json.loads((model / "1" / "DBPedia.json").read_text(encoding="utf-8"))
    newest.write_text(json.dumps({**doc, "mteb_version": "9.0.0"}), encoding="utf-8")
    files = sorted(p for p in model.rglob("*") if p.is_file())
    planned = {p.path: p for p in plan_files(Warehouse(home), files, [str(f) for f in files], None, None, False,
                                              False, None, {f: f.name for f in files})}
    assert planned[superseded].action == "read" and planned[broken].action == "read"
    outcomes = {f.path: f for f in ingest_flow([str(model.parent)], home=str(home)).files}
    assert outcomes[str(superseded)].status == "skipped" and "2/DBPedia.json" in outcomes[str(superseded)].error


def test_an_index_written_before_outcomes_were_recorded_is_read_as_rows_of_loads(tmp_path: Path):
    folder = tmp_path / "results" / MODEL
    shutil.copytree(FIXTURES / MODEL, folder)
    home = tmp_path / "home"
    time.sleep(RACY_NS / 1e9 + 0.5)
    ingest_flow([str(folder.parent)], home=str(home))
    index = home / "file_index.parquet"
    pl.read_parquet(index).drop("outcome", "message", "reading").write_parquet(index)  # the earlier layout
    files = sorted(folder.rglob("*.json"))
    assert all(p.indexed and p.action == "unchanged" for p in plans(home, files))
    assert read_index(home).get_column("outcome").null_count() == 2
