"""Exports of ranking snapshots: CSV, Parquet and JSON (the HTML report is rendered in reports.report).

Every format holds the same long table, one row per (snapshot, system):
snapshot metadata (id, benchmark, level, method, parameters, created_at, code
version) followed by the ranking (system, score, rank, tied).  Reading an
export back and keeping the ranking columns of one snapshot gives that
snapshot's ranking exactly.  Files are written aside and renamed into place
(:mod:`warehouse.atomic`).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.warehouse.atomic import written_aside
from scorehouse.warehouse.snapshots import SNAPSHOT_RANKING, read_snapshot
from scorehouse.warehouse.storage import Warehouse

EXPORT_FORMATS = ("csv", "parquet", "json")
METADATA_COLUMNS = ("snapshot_id", "benchmark", "level", "method", "parameters", "created_at", "code_version")


class ExportError(ScorehouseError, ValueError):
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
    with written_aside(output) as aside:
        if fmt == "csv":
            table.write_csv(aside)
        elif fmt == "parquet":
            table.write_parquet(aside)
        else:
            table.write_json(aside)
    return output


def read_export(path: Path, fmt: str) -> pl.DataFrame:
    """Read an export back with the dtypes it was written with."""
    if fmt == "parquet":
        return pl.read_parquet(path, glob=False)
    if fmt == "json":
        frame = pl.read_json(path)
    else:
        frame = pl.read_csv(path, schema_overrides={"parameters": pl.String, "system": pl.String})
    return frame.with_columns(
        pl.col("created_at").cast(pl.String).str.to_datetime(time_zone="UTC", time_unit="us"),
        *(pl.col(c).cast(t) for c, t in SNAPSHOT_RANKING.items()),
    )
