"""Content hashes of the committed files, recorded at commit and checked when the catalog is built.

Every commit records the SHA-256 and size of the files it wrote, just before its manifest (the
commit point), so a record exists exactly when the commit does::

    content_hashes/loads/<batch>.parquet        the score, coverage, quarantine ... files of a batch of loads
    content_hashes/snapshots/<id>.parquet       a snapshot's ranking, coverage and arena files

``file`` is the path relative to the home (a copied home keeps its records).  When the catalog is
built, every recorded file is checked (:func:`check_files`); a file whose size, modification time
and path are those of a file checked before is not hashed again (the check cache, kept in the
catalog), so a rebuild hashes only what is new or touched.  A file that is missing or does not
match is *damaged*: named in a warning and in the catalog's ``damaged_files`` view, left out of
the views (never deleted: it is the evidence), and never breaks the queries of the other files.

A home written before these records (format 1) has none: its files are read as they are until
the home is migrated (:func:`record_missing`), which records the files as they are then.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.warehouse import atomic

CONTENT_HASHES: dict[str, pl.DataType] = {"file": pl.String(), "sha256": pl.String(), "bytes": pl.Int64()}
# What a check found of a file as it is on disk (the cache of checks, kept in the catalog).
CHECKED: dict[str, pl.DataType] = {
    "file": pl.String(), "bytes": pl.Int64(), "mtime_ns": pl.Int64(), "sha256": pl.String(),
}
DAMAGED: dict[str, pl.DataType] = {"file": pl.String(), "reason": pl.String()}
KINDS = ("loads", "snapshots")


def hashes_folder(home: Path, kind: str) -> Path:
    return home / "content_hashes" / kind


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks of 1 MiB."""
    digest = hashlib.sha256()
    # unbuffered: a buffered file asks whether it is a terminal and sets a buffer up, a fifth of the cost of
    # hashing a small file (MTEB's 104,000: 2.6 -> 2.0 s)
    with open(path, "rb", buffering=0) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def record_hashes(home: Path, kind: str, name: str, files: list[Path]) -> None:
    """Record the content hashes of ``files`` (under ``home``) as commit ``name`` of ``kind``: call it just
    before writing the commit's manifest."""
    frame = pl.DataFrame(
        {"file": [f.relative_to(home).as_posix() for f in files], "sha256": [sha256_of(f) for f in files],
         "bytes": [f.stat().st_size for f in files]},
        schema=CONTENT_HASHES,
    )
    atomic.write_parquet(frame, hashes_folder(home, kind) / f"{name}.parquet")


def recorded_hashes(home: Path) -> pl.DataFrame:
    """Every recorded file of every commit (:data:`CONTENT_HASHES`)."""
    files = sorted(p for kind in KINDS for p in hashes_folder(home, kind).glob("*.parquet"))
    if not files:
        return pl.DataFrame(schema=CONTENT_HASHES)
    return pl.read_parquet(files, glob=False).select(pl.col(c).cast(t) for c, t in CONTENT_HASHES.items())


def check_files(home: Path, recorded: pl.DataFrame, cache: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The damaged files among ``recorded`` (:data:`DAMAGED`), and the checks made (:data:`CHECKED`, the new cache).

    A file whose (path, size, modification time) is in ``cache`` has the hash found then; any
    other is hashed now.
    """
    stats = [_stat(home / f) for f in recorded.get_column("file").to_list()]
    on_disk = recorded.select("file").with_columns(
        bytes=pl.Series([s[0] for s in stats], dtype=pl.Int64), mtime_ns=pl.Series([s[1] for s in stats], dtype=pl.Int64)
    )
    known = on_disk.join(cache.select(list(CHECKED)), on=["file", "bytes", "mtime_ns"], how="left")
    unknown = known.filter(pl.col("sha256").is_null() & pl.col("bytes").is_not_null())
    hashed = unknown.with_columns(sha256=pl.Series([sha256_of(home / f) for f in unknown.get_column("file")],
                                                   dtype=pl.String))
    checked = pl.concat([known.filter(pl.col("sha256").is_not_null()), hashed]).select(list(CHECKED))
    found = recorded.join(checked, on="file", how="left", suffix="_found")
    damaged = found.filter(pl.col("sha256_found").is_null() | (pl.col("sha256_found") != pl.col("sha256"))).select(
        "file",
        reason=pl.when(pl.col("bytes_found").is_null()).then(pl.lit("missing"))
        .otherwise(pl.lit("content does not match the hash recorded at its commit")),
    )
    return damaged.sort("file"), checked.sort("file")


def _stat(path: Path) -> tuple[int | None, int | None]:
    try:
        stat = path.stat()
    except OSError:
        return None, None
    return stat.st_size, stat.st_mtime_ns


def record_missing(home: Path, kind: str, commits: dict[str, list[Path]]) -> int:
    """Record the hashes of the files of ``commits`` (name -> files) that have no record yet; how many were
    recorded.  The migration of a home written before the records: its files are taken as they are."""
    missing = {name: files for name, files in commits.items()
               if not (hashes_folder(home, kind) / f"{name}.parquet").exists()}
    for name, files in missing.items():
        record_hashes(home, kind, name, [f for f in files if f.exists()])
    return len(missing)


def damaged_warning(damaged: pl.DataFrame, home: Path) -> list[str]:
    """One line per damaged file, naming it and what to do (never its content)."""
    return [f"warning: {home / f} is damaged ({reason}); it is left out of the views (not deleted): restore it "
            f"from a backup, or remove its commit" for f, reason in damaged.iter_rows()]




class DamagedFileError(ScorehouseError, ValueError):
    """A committed file whose bytes are not those recorded at its commit (changed or replaced by hand)."""


def check_commit(home: Path, kind: str, name: str, files: list[Path]) -> None:
    """Raise :class:`DamagedFileError` naming the first of ``files`` (of commit ``name``) that does not match its
    record; files of a commit recorded before the records (format 1) are taken as they are."""
    record = hashes_folder(home, kind) / f"{name}.parquet"
    if not record.exists():
        return
    recorded = dict(pl.read_parquet(record, glob=False).select("file", "sha256").iter_rows())
    for path in files:
        expected = recorded.get(path.relative_to(home).as_posix())
        if expected is not None and (not path.exists() or sha256_of(path) != expected):
            raise DamagedFileError(f"{path} is damaged (missing, or not the bytes recorded when it was committed); "
                                   f"restore it from a backup, or rank again to make a new snapshot")
