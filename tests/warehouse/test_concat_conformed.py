"""concat_conformed: frames of a schema one after another, whatever order or dtypes their columns come in."""

from __future__ import annotations

import polars as pl
import pytest

from scorehouse.warehouse.schema import SCORES, concat_conformed

ROWS = [("b", "t", "m", None, "s1", 0.5, "L1"), ("b", "t", "m", None, "s2", None, "L1")]


def frame(columns: list[str], dtypes: dict[str, pl.DataType] | None = None, extra: bool = False) -> pl.DataFrame:
    """ROWS with ``columns`` in that order, cast to ``dtypes`` where given, with an extra column when asked."""
    whole = pl.DataFrame(ROWS, schema=SCORES, orient="row").select(columns)
    whole = whole.with_columns(pl.col(c).cast(t) for c, t in (dtypes or {}).items())
    return whole.with_columns(note=pl.lit("x")) if extra else whole


@pytest.mark.parametrize("second", [
    frame(list(SCORES)),  # the same columns: one check on the whole
    frame(list(reversed(SCORES))),  # another order
    frame(list(SCORES), {"score": pl.Float32}),  # another dtype
    frame(list(SCORES), extra=True),  # a column more
])
def test_rows_in_order_with_exactly_the_schema(second: pl.DataFrame):
    whole = concat_conformed([frame(list(SCORES)), second], SCORES)
    assert whole.schema == pl.Schema(SCORES)
    assert whole.rows() == ROWS + ROWS
    assert whole.n_chunks() == 1


def test_a_missing_column_is_named():
    with pytest.raises(KeyError, match="score"):
        concat_conformed([frame(list(SCORES)), frame([c for c in SCORES if c != "score"])], SCORES)
