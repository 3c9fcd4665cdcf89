"""What a home's raw archive holds, read from its layout by hand (pyarrow and file names, not warehouse.raw_archive).

The archive is the files of their own, ``raw/<sha[:2]>/<sha256><suffixes>``, and the packs of committed batches,
``raw/packs/<batch>.parquet`` (sha256, name, bytes) with a manifest ``loads/<batch>.parquet``.  A pack without a
manifest is not part of it; hidden files (``.<name>.<pid>.tmp``) are copies aside.
"""

from pathlib import Path

import pyarrow.parquet as pq


def committed(home: Path) -> set[str]:
    return {p.stem for p in home.glob("loads/*.parquet")}


def packs(home: Path) -> list[Path]:
    """Every pack file in place, committed or not."""
    return sorted(home.glob("raw/packs/*.parquet"))


def archived_bytes(home: Path) -> dict[str, bytes]:
    """sha256 -> bytes of everything the archive holds: its files of their own and its committed packs' rows."""
    found = {p.name[:64]: p.read_bytes() for p in home.glob("raw/??/*") if not p.name.startswith(".")}
    for pack in packs(home):
        if pack.stem in committed(home):
            rows = pq.read_table(pack).to_pydict()
            found.update(zip(rows["sha256"], rows["bytes"], strict=True))
    return found


def asides(home: Path) -> list[str]:
    """The names of the hidden copies aside under ``raw/`` (files and packs not yet renamed into place)."""
    return sorted(p.name for p in (home / "raw").rglob(".*") if p.is_file())


def raw_files(home: Path) -> list[Path]:
    """Every file under ``raw/``, hidden or not."""
    return sorted(p for p in (home / "raw").rglob("*") if p.is_file())
