"""The one rank-assignment function, against scipy's rankdata as the reference."""

import numpy as np
import polars as pl
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import rankdata

from scorehouse.aggregators.ranking import ranking_table, tie_classes

small_scores = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, -3.0, np.nan]), min_size=1, max_size=12)


@given(small_scores)
def test_tie_classes_equal_min_ranks_of_scipy(values):
    scores = np.array(values)
    expected = rankdata(np.where(np.isnan(scores), np.inf, -scores), method="min")
    assert tie_classes(scores).tolist() == expected.astype(int).tolist()


def test_sums_in_another_order_stay_tied():
    a = sum([0.1, 0.2, 0.3])
    b = sum([0.3, 0.2, 0.1])
    assert a != b  # the float sums differ in the last bit ...
    assert tie_classes(np.array([a, b, 0.0])).tolist() == [1, 1, 3]  # ... and still tie


def test_ranking_table_contract():
    table = ranking_table(["c", "a", "b", "d"], np.array([1.0, 2.0, 2.0, 0.5]))
    assert table.schema == pl.Schema({"system": pl.String, "score": pl.Float64, "rank": pl.Int64, "tied": pl.Boolean})
    assert table.rows() == [("a", 2.0, 1, True), ("b", 2.0, 1, True), ("c", 1.0, 3, False), ("d", 0.5, 4, False)]
