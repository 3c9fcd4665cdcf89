"""runs: each value's rows as one slice, against a scan of the column value by value."""

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorehouse.transforms.slices import RunsError, runs


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d", "", "é"]), st.integers(1, 4)), max_size=8, unique_by=lambda r: r[0]))
def test_each_values_rows_are_its_slice(blocks):
    column = pl.Series("load_id", [value for value, n in blocks for _ in range(n)], dtype=pl.String)
    frame = pl.DataFrame({"load_id": column, "row": range(column.len())})
    found = runs(column)
    assert list(found) == [value for value, _ in blocks]
    for value, (offset, length) in found.items():
        assert frame.slice(offset, length).get_column("row").to_list() == [
            i for i, v in enumerate(column.to_list()) if v == value]


def test_a_value_in_two_places_is_refused():
    column = pl.Series("file", [0, 0, 1, 0], dtype=pl.UInt32)
    with pytest.raises(RunsError, match="'file' are not next to each other"):
        runs(column)
