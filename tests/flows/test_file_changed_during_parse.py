"""A file written after the plan stat'ed it is rejected, not loaded: the parsers read the file's path after the
raw archive has read, hashed and kept its bytes, so a write in between would load other bytes than those kept.

The write here restores the planned bytes, so the archive's hash still matches the plan and only the parse-time
check (:func:`flows.ingest_read.changed_since_plan`) can tell: a real file in a real home, no parser replaced.
"""

import os
import shutil
import time
from pathlib import Path

from scorehouse.flows.ingest_plan import plan_files
from scorehouse.flows.ingest_read import FileChangedError, changed_since_plan, read_files
from scorehouse.warehouse.storage import Warehouse

FIXTURES = Path(__file__).parents[1] / "transforms" / "fixtures" / "mteb-formats" / "results"
MODEL = "openai__text-embedding-3-small"


def planned(home: Path, file: Path):  # noqa: ANN201
    (plan,) = plan_files(Warehouse(home), [file], [str(file)], None, None, False, False)
    return plan


def rewrite_same_bytes(file: Path) -> None:
    data = file.read_bytes()
    time.sleep(0.02)  # past the file system's time step: the write gets a new change time
    file.write_bytes(data)


def test_an_untouched_file_is_unchanged_and_a_rewritten_one_is_changed(tmp_path: Path):
    folder = tmp_path / "results"
    shutil.copytree(FIXTURES / MODEL, folder / MODEL)
    file = folder / MODEL / "1" / "DBPedia.json"
    plan = planned(tmp_path / "home", file)
    assert not changed_since_plan(plan)
    rewrite_same_bytes(file)
    assert changed_since_plan(plan)
    os.unlink(file)
    assert changed_since_plan(plan)  # gone: its bytes cannot be the ones kept


def test_a_file_written_between_the_archive_and_the_parse_is_rejected_as_changed(tmp_path: Path):
    folder = tmp_path / "results"
    shutil.copytree(FIXTURES / MODEL, folder / MODEL)
    file = folder / MODEL / "1" / "DBPedia.json"
    home = tmp_path / "home"
    warehouse = Warehouse(home)
    plan = planned(home, file)
    rewrite_same_bytes(file)  # the archive will hash the planned bytes: only the parse-time check sees the write
    ((outcome, load),) = read_files(warehouse, [plan], None, None, False, False)
    assert outcome.status == "rejected" and load is None
    assert "changed while it was being parsed" in outcome.error and str(file) in outcome.error

    fresh = planned(home, file)  # ingested again, as the error says, it loads
    ((outcome, load),) = read_files(warehouse, [fresh], None, None, False, False)
    assert outcome.status == "loaded" and load is not None
    assert issubclass(FileChangedError, OSError) and FileChangedError.retryable
