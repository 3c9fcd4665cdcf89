"""coverage_of against a count made row by row in Python, on frames with and without repeated keys."""

from __future__ import annotations

import random
from collections import Counter

import polars as pl
import pytest

from scorehouse.warehouse.schema import COVERAGE
from scorehouse.warehouse.storage import coverage_of

KEYS = ["load_id", "benchmark", "level", "task", "metric", "system"]


def counted(frame: pl.DataFrame) -> pl.DataFrame:
    """The reference: rows and null scores per key, counted one row at a time."""
    rows, nulls = Counter(), Counter()
    for row in frame.iter_rows(named=True):
        key = tuple(row[k] for k in KEYS)
        rows[key] += 1
        nulls[key] += row["score"] is None
    return pl.DataFrame([(*key, n, nulls[key]) for key, n in rows.items()], schema=COVERAGE, orient="row")


def scores(seed: int, repeated: bool) -> pl.DataFrame:
    """Scores with ``level``: task-level rows whose keys are all distinct, or (``repeated``) also instance-level
    rows, several per key; a quarter of the scores null."""
    rng = random.Random(seed)
    keys = {(f"L{rng.randrange(4)}", rng.choice(["b", "b-x"]), "task", f"t{rng.randrange(6)}", f"m{rng.randrange(3)}",
             f"s{rng.randrange(8)}") for _ in range(150)}
    rows = [(*key, None if rng.random() < 0.25 else rng.random()) for key in sorted(keys)]
    if repeated:
        rows += [(f"L{rng.randrange(2)}", "b", "instance", "t0", "m0", f"s{rng.randrange(3)}",
                  None if rng.random() < 0.25 else rng.random()) for _ in range(60)]
    rng.shuffle(rows)
    return pl.DataFrame(rows, schema=[*KEYS, ("score", pl.Float64)], orient="row")


@pytest.mark.parametrize("repeated", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_coverage_of_counts_rows_and_nulls_per_key(seed, repeated):
    frame = scores(seed, repeated)
    got, want = coverage_of(frame), counted(frame)
    assert got.schema == pl.Schema(COVERAGE)
    assert got.sort(KEYS).equals(want.sort(KEYS))
    assert (got.get_column("rows").max() > 1) == repeated  # both the projection and the grouping are exercised
    assert got.get_column("nulls").sum() == frame.get_column("score").null_count() > 0
