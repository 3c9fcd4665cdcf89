"""The format version of a warehouse home, and the migration of older homes.

``<home>/format.json`` holds ``{"format": N}``.  A home without it was written before the record
(format 1: no content hashes, :mod:`warehouse.integrity`).  Readers read any known format as it
is (a read-only home is never changed); the first writer migrates it, under the write lock:

* 1 -> 2: record the content hashes of every committed load batch and snapshot as their files
  are now, then write ``format.json`` last (each record is written aside and renamed, so a
  migration stopped halfway is finished by the next writer, and ``format.json`` says it is done).
* 2 -> 3: nothing is rewritten.  Format 3 archives a batch's small files in a raw pack
  (:mod:`warehouse.raw_archive`); the files of their own that older homes hold stay and are read
  first.  The record is what changes: code of format 2 looks for files of their own only, and
  refuses a home of format 3 rather than miss the bytes in its packs.  Ingest migrates a home
  before its first batch (:func:`flows.ingest.ingest_files`), so no pack lands in a home of format 2.
* 3 -> 4: a load's source is the file's place (its path below the folder it was found in), no longer its bare
  name: before, files of one name in many folders (a ``results.json`` per model) superseded each other, and only
  the last was current.  Manifests are not rewritten: :func:`warehouse.source_renames.record_renames` writes the
  new source of each load that was superseded only by such a clash, and the loads view reads it.

A home of a newer format than this code knows is refused with :class:`HomeFormatError`.
"""

from __future__ import annotations

import json

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.warehouse import atomic
from scorehouse.warehouse.integrity import record_missing
from scorehouse.warehouse.source_renames import record_renames
from scorehouse.warehouse.storage import Warehouse

HOME_FORMAT = 4
FORMAT_FILE = "format.json"
# Folders of a load batch's files, named <batch>.parquet (warehouse.storage), as globs under the home.
BATCH_FILES = ("scores/benchmark=*/level=*", "battles/benchmark=*", "coverage", "quarantine", "systems",
               "segment_layouts", "battles_quarantine")


class HomeFormatError(ScorehouseError, RuntimeError):
    """A home written by a newer scorehouse than this one: upgrade scorehouse to open it."""


def home_format(warehouse: Warehouse) -> int:
    """The format of the home: :data:`HOME_FORMAT` or older (1 when it has no record)."""
    path = warehouse.home / FORMAT_FILE
    if not path.exists():
        return 1
    found = json.loads(path.read_text(encoding="utf-8"))["format"]
    if found > HOME_FORMAT:
        raise HomeFormatError(f"{warehouse.home} is a warehouse of format {found}, newer than this scorehouse "
                              f"reads ({HOME_FORMAT}); upgrade scorehouse to open it")
    return found


def migrate(warehouse: Warehouse) -> bool:
    """Bring the home to :data:`HOME_FORMAT` (the caller holds the write lock); True when it migrated."""
    if home_format(warehouse) == HOME_FORMAT:
        return False
    home = warehouse.home
    batches = {batch: [f for pattern in BATCH_FILES for f in sorted(home.glob(f"{pattern}/{batch}.parquet"))]
               for batch in warehouse.committed_batches()}
    record_missing(home, "loads", batches)
    snapshots = {p.stem: sorted(home.glob(f"snapshots/benchmark=*/snapshot={p.stem}/*.parquet"))
                 for p in warehouse.dir("snapshot_manifests").glob("*.parquet")}
    record_missing(home, "snapshots", snapshots)
    record_renames(warehouse)
    atomic.write_json({"format": HOME_FORMAT}, home / FORMAT_FILE)
    return True
