"""partitions_in_order against a grouping of the rows one by one in Python: one part per (benchmark, level) in key
order, each part's rows in their order, for batches of one partition (returned whole) and of several."""

from __future__ import annotations

import random

import polars as pl
import pytest

from scorehouse.warehouse.schema import SCORES
from scorehouse.warehouse.storage import partitions_in_order


def grouped(frame: pl.DataFrame) -> dict[tuple[str, str], list[tuple]]:
    """The reference: each row appended to its (benchmark, level) in row order; keys sorted."""
    parts: dict[tuple[str, str], list[tuple]] = {}
    for row in frame.iter_rows():
        named = dict(zip(frame.columns, row, strict=True))
        level = "task" if named["instance"] is None else "instance"
        parts.setdefault((named["benchmark"], level), []).append(row)
    return dict(sorted(parts.items()))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("benchmarks", "levels"), [(["mteb"], ["task"]), (["b"], ["instance"]),
                                                    (["b", "a-b"], ["task"]), (["b"], ["task", "instance"]),
                                                    (["b", "c", "b-x"], ["task", "instance"])])
def test_each_partition_in_key_order_with_its_rows_in_order(seed: int, benchmarks: list[str], levels: list[str]):
    rng = random.Random(seed)
    rows = [(rng.choice(benchmarks), f"t{rng.randrange(3)}", "m", None if rng.choice(levels) == "task" else f"i{n}",
             f"s{rng.randrange(4)}", rng.random(), f"L{rng.randrange(2)}") for n in range(rng.randrange(1, 40))]
    frame = pl.DataFrame(rows, schema=SCORES, orient="row")
    parts = partitions_in_order(frame)
    want = grouped(frame)
    assert [key for key, _ in parts] == list(want)
    for key, part in parts:
        assert part.get_column("level").unique().to_list() == [key[1]]
        assert part.drop("level").rows() == want[key]


def test_no_rows_no_parts():
    assert partitions_in_order(pl.DataFrame(schema=SCORES)) == []
