"""What each ingested file was, by its path and file-system identity: an ingest with nothing new reads no file.

``<home>/file_index.parquet`` has a row per file an ingest loaded or found unchanged: its absolute
path, size, modification and change times (ns), inode, the sha256 of its bytes and the format it
was read with; and per file it skipped or rejected for what its bytes are, that outcome and why.  The next ingest stats every file (one system call each, no read) and takes the hash
and format of a file whose size, times and inode all match its row; only the others are hashed and
sniffed.  The change time (``ctime``) is what makes this safe: any write, rename or restore of a
file sets it to the present and no user call can set it back, so a file rewritten with its old size
and modification time, or restored with ``cp -p`` or ``touch -d``, does not match.  A row whose
change time is within :data:`RACY_NS` of the moment the file was indexed is not trusted (the file
may have changed again within the file system's time resolution: git's "racy" rule), so such a
file is hashed again (:func:`record_files`).
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from scorehouse.warehouse import atomic

FILE_INDEX: dict[str, pl.DataType] = {
    "path": pl.String(),
    "size": pl.Int64(),
    "mtime_ns": pl.Int64(),
    "ctime_ns": pl.Int64(),
    "inode": pl.Int64(),
    "sha256": pl.String(),
    "format": pl.String(),
    "indexed_ns": pl.Int64(),  # when the file was stat'ed and hashed
    # A file without a load: "skipped" (it holds no scores) or "rejected" (it cannot be read), with the
    # report's ``message``, decided under the options and parsers ``reading`` names (flows.ingest_plan).
    "outcome": pl.String(),
    "message": pl.String(),
    "reading": pl.String(),
}
# Rows written before a file without a load was indexed lack these columns: they are rows of loads.
OUTCOME_COLUMNS = ("outcome", "message", "reading")
STAT_KEY = ("path", "size", "mtime_ns", "ctime_ns", "inode")
# Two seconds: coarser than the timestamp resolution of any file system a home is kept on (FAT's is 2 s).
RACY_NS = 2_000_000_000


def index_path(home: Path) -> Path:
    return home / "file_index.parquet"


def stat_frame(paths: list[Path], stated_ns: int) -> pl.DataFrame:
    """The :data:`STAT_KEY` of each of ``paths`` (absolute, not resolved), and when they were stat'ed."""
    stats = [os.stat(p) for p in paths]  # a system call per file: the one cost that grows with the files
    return pl.DataFrame(
        {
            "path": [os.path.abspath(p) for p in paths],
            "size": [s.st_size for s in stats],
            "mtime_ns": [s.st_mtime_ns for s in stats],
            "ctime_ns": [s.st_ctime_ns for s in stats],
            "inode": [s.st_ino for s in stats],
            "indexed_ns": [stated_ns] * len(stats),
        },
        schema={c: FILE_INDEX[c] for c in (*STAT_KEY, "indexed_ns")},
    )


def read_index(home: Path) -> pl.DataFrame:
    path = index_path(home)
    if not path.exists():
        return pl.DataFrame(schema=FILE_INDEX)
    index = pl.read_parquet(path)
    return index.with_columns(pl.lit(None, pl.String).alias(c) for c in OUTCOME_COLUMNS if c not in index.columns)


def known_files(home: Path, stats: pl.DataFrame) -> pl.DataFrame:
    """``stats``' rows (with their place, ``file``) whose file matches its index row and was not racy: their
    ``sha256``, ``format`` and, for a file without a load, its :data:`OUTCOME_COLUMNS`."""
    index = read_index(home).filter(pl.col("ctime_ns") < pl.col("indexed_ns") - RACY_NS)
    return stats.with_row_index("file").join(index.select(*STAT_KEY, "sha256", "format", *OUTCOME_COLUMNS),
                                             on=list(STAT_KEY))


def record_files(home: Path, rows: pl.DataFrame) -> None:
    """Add or replace (by path) the index rows of ``rows`` (:data:`FILE_INDEX`); call under the write lock.

    A row the index holds already (all but ``indexed_ns`` equal) is kept as it was, so an ingest with
    nothing new writes nothing; a file indexed within the racy window then stays racy, and is hashed
    by each ingest (the files written in the last seconds before an ingest: a few).
    """
    if rows.height == 0:
        return
    index = read_index(home)
    same = [c for c in FILE_INDEX if c != "indexed_ns"]
    new = rows.select(list(FILE_INDEX)).join(index.select(same), on=same, how="anti", nulls_equal=True)
    if new.height == 0:
        return
    merged = pl.concat([index.join(new.select("path"), on="path", how="anti"), new], how="vertical_relaxed")
    atomic.write_parquet(merged, index_path(home))
