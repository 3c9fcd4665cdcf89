"""runs and repeated, against a scan of the column value by value and a Python repetition."""

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorehouse.transforms.slices import RunsError, repeated, runs


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


@given(st.lists(st.tuples(st.text(max_size=3), st.integers(0, 5)), max_size=10))
def test_repeated_spreads_each_value_over_its_count(pairs):
    values = pl.Series([value for value, _ in pairs], dtype=pl.String)
    counts = [n for _, n in pairs]
    assert repeated(values, counts).to_list() == [value for value, n in pairs for _ in range(n)]
    assert repeated(values, pl.Series(counts, dtype=pl.UInt32)).to_list() == [value for value, n in pairs for _ in range(n)]
