"""Instance-level long Parquet: the layout of :mod:`transforms.parsers.instance_long` as Parquet.

``System, Utterance, <score columns...>``, one row per (system, instance), as
``scorehouse synth`` writes it and as large instance-level dumps are best
shipped.  Recognised by the Parquet magic bytes ``PAR1`` and those two first
columns.  Label swap, text columns and naming are those of the CSV layout;
scores stay numbers (a Parquet file has typed columns, so there is no text to
validate and no line numbers: ``line`` is null).  The file is read with a
lazy scan that keeps only the needed columns.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.instance_long import LABELS, TEXT_COLUMN, rows_of

MAGIC = b"PAR1"


def columns_of(path: Path) -> dict[str, pl.DataType] | None:
    """The Parquet schema of ``path``, or None when it is not readable Parquet."""
    try:
        return dict(pl.read_parquet_schema(path))
    except (pl.exceptions.PolarsError, OSError):
        return None


def sniff(path: Path, head: bytes) -> bool:
    if head[:4] != MAGIC:
        return False
    schema = columns_of(path)
    return schema is not None and tuple(list(schema)[:2]) == LABELS


def parquet_schema(path: Path) -> dict[str, pl.DataType]:
    """The Parquet schema of ``path`` (:func:`columns_of`); an unreadable file is a ParseError saying so."""
    schema = columns_of(path)
    if schema is None:
        raise ParseError(path, "not a readable Parquet file (truncated or corrupt?); re-export it")
    return schema


def parse(path: Path, benchmark: str | None) -> Parsed:
    schema = parquet_schema(path)
    if tuple(list(schema)[:2]) != LABELS:
        raise ParseError(path, "the first two columns are not System, Utterance")
    scores = [c for c in list(schema)[2:] if not TEXT_COLUMN.match(c)]
    not_numeric = [c for c in scores if not schema[c].is_numeric()]
    if not_numeric:
        raise ParseError(
            path, f"score column(s) {not_numeric} are not numeric ({schema[not_numeric[0]]}); "
            "write scores as numbers, or name text columns Context/Fact/Source/hyp/ref"
        )
    frame = pl.scan_parquet(path, glob=False).select(
        pl.col(*LABELS).cast(pl.String),
        *(pl.col(c) for c in list(schema)[2:] if TEXT_COLUMN.match(c)),
        *(pl.col(c).cast(pl.Float64) for c in scores),
        line=pl.lit(None, dtype=pl.Int64),
    ).collect()
    return rows_of(path, frame, benchmark)


register_format(
    Format(
        name="instance-parquet",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="instance-level long Parquet: System, Utterance, one numeric column per metric (scorehouse synth)",
    )
)
