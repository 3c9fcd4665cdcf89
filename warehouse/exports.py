"""Exports of ranking snapshots: CSV, Parquet and JSON (the HTML report is rendered in reports.report).

Every format holds the same long table, one row per (snapshot, system):
snapshot metadata (id, benchmark, level, method, parameters, created_at, code
version) followed by the ranking (system, score, rank, tied).  Reading an
export back and keeping the ranking columns of one snapshot gives that
snapshot's ranking exactly.  Files are written aside and renamed into place.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from warehouse.snapshots import SNAPSHOT_RANKING, read_snapshot
from warehouse.storage import Warehouse

EXPORT_FORMATS = ("csv", "parquet", "json")
METADATA_COLUMNS = ("snapshot_id", "benchmark", "level", "method", "parameters", "created_at", "code_version")


class ExportError(ValueError):
    """The export cannot be written as asked (unknown format, no snapshots); change the request."""


def export_table(warehouse: Warehouse, snapshot_ids: list[str]) -> pl.DataFrame:
    """The long export table of the given snapshots, in the order given."""
    if not snapshot_ids:
        raise ExportError("nothing to export: no snapshot ids given (rank first, or use --latest)")
    frames = []
    for snapshot in snapshot_ids:
        manifest, ranking = read_snapshot(warehouse, snapshot)
        meta = {c: manifest[c] for c in METADATA_COLUMNS}
        frames.append(ranking.select(*(pl.lit(v).alias(c) for c, v in meta.items()), *SNAPSHOT_RANKING))
    return pl.concat(frames, how="vertical")


def write_export(table: pl.DataFrame, fmt: str, output: Path) -> Path:
    """Write ``table`` as ``fmt`` to ``output`` atomically; return the path."""
    if fmt not in EXPORT_FORMATS:
        raise ExportError(f"--format must be one of {EXPORT_FORMATS} or html, got {fmt!r}")
    with _written_aside(output) as aside:
        if fmt == "csv":
            table.write_csv(aside)
        elif fmt == "parquet":
            table.write_parquet(aside)
        else:
            table.write_json(aside)
    return output


def write_text_atomic(text: str, output: Path) -> Path:
    """Write ``text`` as UTF-8 to ``output`` atomically (aside, then renamed); return the path."""
    with _written_aside(Path(output)) as aside:
        aside.write_text(text, encoding="utf-8")
    return Path(output)


@contextmanager
def _written_aside(output: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``output``; rename it onto ``output`` once written.

    A failure while writing removes the temporary file and leaves ``output`` as it was.
    """
    output.parent.mkdir(parents=True, exist_ok=True)
    aside = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    try:
        yield aside
    except BaseException:
        aside.unlink(missing_ok=True)
        raise
    os.replace(aside, output)


def read_export(path: Path, fmt: str) -> pl.DataFrame:
    """Read an export back with the dtypes it was written with."""
    if fmt == "parquet":
        return pl.read_parquet(path)
    if fmt == "json":
        frame = pl.read_json(path)
    else:
        frame = pl.read_csv(path, schema_overrides={"parameters": pl.String, "system": pl.String})
    return frame.with_columns(
        pl.col("created_at").cast(pl.String).str.to_datetime(time_zone="UTC", time_unit="us"),
        *(pl.col(c).cast(t) for c, t in SNAPSHOT_RANKING.items()),
    )
