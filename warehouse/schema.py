"""The one source of column names and dtypes of every table scorehouse keeps.

Pure: imports polars only, so ``transforms`` may use it without touching disk
or DuckDB.  Everything else refers to these dictionaries instead of spelling
column names again.
"""

from __future__ import annotations

import polars as pl

# What a parser emits: one row per published cell, value still as text so that
# validation (not the parser) decides what is a usable number (or Float64 from
# a typed format, see parsed_schema).  ``value`` is
# null for a cell the dump marks as missing ("-", empty); ``line`` is the
# 1-based line of the source file the cell came from (null where the format
# has no lines, e.g. pickles).
PARSED_ROWS: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "task": pl.String(),
    "metric": pl.String(),
    "instance": pl.String(),
    "system": pl.String(),
    "value": pl.String(),
    "line": pl.Int64(),
}


def parsed_schema(rows: pl.DataFrame) -> dict[str, pl.DataType]:
    """:data:`PARSED_ROWS` for ``rows``: ``value`` stays Float64 when a typed format gave numbers.

    Formats with typed columns (Parquet) have no text to validate; turning
    their numbers into text and back would only cost time (and digits).
    """
    if "value" in rows.columns and rows.schema["value"].is_float():
        return {**PARSED_ROWS, "value": pl.Float64()}
    return PARSED_ROWS


# The canonical long table.  ``instance`` is null for task-level rows;
# ``score`` is the raw published value (direction lives in METRICS), null for a
# cell the dump marks as missing.
SCORES: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "task": pl.String(),
    "metric": pl.String(),
    "instance": pl.String(),
    "system": pl.String(),
    "score": pl.Float64(),
    "load_id": pl.String(),
}

# Hive partition keys of the scores table, outermost first.
SCORE_PARTITIONS: tuple[str, ...] = ("benchmark", "level")
LEVELS: tuple[str, ...] = ("task", "instance")

# The metric catalog: how to read each (benchmark, task, metric).
METRICS: dict[str, pl.DataType] = {
    "benchmark": pl.String(),
    "task": pl.String(),
    "metric": pl.String(),
    "higher_is_better": pl.Boolean(),
    "is_ranked": pl.Boolean(),
    "weight": pl.Float64(),
    "group": pl.String(),
}

# Rules that resolve into METRICS rows: the same columns, where benchmark, task
# and metric are glob patterns; the first matching rule wins.
METRIC_RULES: dict[str, pl.DataType] = {**METRICS, "note": pl.String()}

# Rows that could not be used, with where they came from and why.
QUARANTINE: dict[str, pl.DataType] = {
    **PARSED_ROWS,
    "file": pl.String(),
    "reason": pl.String(),
    "load_id": pl.String(),
}

# What one load scored, per (benchmark, level, task, metric, system): written
# with the load, so the catalog and the rank flow learn the shape of the
# warehouse (its partitions, systems, metrics, missing cells) without a scan
# of every score.
COVERAGE: dict[str, pl.DataType] = {
    "load_id": pl.String(),
    "benchmark": pl.String(),
    "level": pl.String(),
    "task": pl.String(),
    "metric": pl.String(),
    "system": pl.String(),
    "rows": pl.Int64(),
    "nulls": pl.Int64(),
}

# One row per ingested file.  ``parser_version`` is the format's parser version that made the load.
LOADS: dict[str, pl.DataType] = {
    "load_id": pl.String(),
    "source": pl.String(),
    "file_name": pl.String(),
    "sha256": pl.String(),
    "format": pl.String(),
    "parser_version": pl.Int64(),
    "benchmark": pl.String(),
    "rows_in": pl.Int64(),
    "rows_landed": pl.Int64(),
    "rows_quarantined": pl.Int64(),
    "loaded_at": pl.Datetime("us", "UTC"),
}
# Manifests written before parsers had versions have no ``parser_version``: they read as 1, the
# version every format started at (a version-1 load id is the id those loads already have).
UNVERSIONED_PARSER = 1


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """An empty frame with ``schema``."""
    return pl.DataFrame(schema=schema)


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``frame`` with exactly ``schema``'s columns, in order, cast to its dtypes.

    Raises ``KeyError`` naming the absent columns: a programming error, not
    bad input, since every producer builds its frames from these schemas.
    """
    absent = [c for c in schema if c not in frame.columns]
    if absent:
        raise KeyError(f"frame lacks the column(s) {absent} of its schema")
    return frame.select(pl.col(c).cast(t) for c, t in schema.items())
