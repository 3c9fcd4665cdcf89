"""A batch's rows cut into the rows of each of its files or loads as slices (views of the same buffers), not copies,
and a value per file or load spread over its rows.

The rows of a batch are built file after file and validated and written together again: cutting them into a frame
per file or load with ``partition_by`` copied the whole batch, twice per batch, for frames that are only read.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import ScorehouseError


class RunsError(ScorehouseError, ValueError):
    """A column whose equal values are not next to each other: it cannot be cut into one slice per value (a bug of
    the caller, which must sort the rows first; a retry cannot help)."""


def runs(column: pl.Series) -> dict[object, tuple[int, int]]:
    """(offset, length) of the rows of each value of ``column``, whose equal values must be next to each other
    (``frame.slice(offset, length)`` is then that value's rows, in order); :class:`RunsError` when they are not."""
    counted = column.rle().struct.unnest()
    lengths = counted.get_column("len")
    offsets = lengths.cum_sum() - lengths
    values = counted.get_column("value").to_list()
    out = dict(zip(values, zip(offsets.to_list(), lengths.to_list(), strict=True), strict=True))
    if len(out) < len(values):
        raise RunsError(f"the rows of a value of {column.name!r} are not next to each other: they cannot be one slice")
    return out


def repeated(values: pl.Series, counts: Sequence[int] | pl.Series) -> pl.Series:
    """Each of ``values`` repeated its count of ``counts`` times, in order (a load's name over its rows).

    A gather of each value's place, repeated by NumPy: ``repeat_by(...).explode()`` builds a list per value and
    took 7-10x longer on a batch's million rows of names.
    """
    places = np.repeat(np.arange(values.len(), dtype=np.uint32), np.asarray(counts, dtype=np.int64))
    return values.gather(places)
