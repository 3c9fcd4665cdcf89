"""scorehouse.aggregators.ranks.rankdata against scipy.stats.rankdata, the rule it replaces (ties, NaN, 1-D and 2-D)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from scorehouse.aggregators.ranks import rankdata

# Few distinct values, so ties are common; NaN among them.
CELLS = st.sampled_from([0.0, 1.0, 1.5, -2.0, 3.0, np.nan])


@given(arrays(float, st.tuples(st.integers(1, 6), st.integers(1, 9)), elements=CELLS),
       st.sampled_from(["average", "min", "max"]), st.sampled_from(["omit", "propagate"]))
def test_rows_rank_as_scipy_ranks_them(values, method, nan_policy):
    expected = stats.rankdata(values, method=method, axis=1, nan_policy=nan_policy)
    np.testing.assert_array_equal(rankdata(values, method=method, nan_policy=nan_policy), expected)


@given(arrays(float, st.integers(1, 12), elements=CELLS.filter(lambda v: not np.isnan(v))),
       st.sampled_from(["average", "min", "max"]))
def test_a_vector_ranks_as_scipy_ranks_it(values, method):
    np.testing.assert_array_equal(rankdata(values, method=method), stats.rankdata(values, method=method))


def test_a_hand_worked_row():
    # 3 < 5 = 5 < 9, NaN: ranks 1, 2-3 shared, 4
    row = [5.0, 3.0, np.nan, 5.0, 9.0]
    np.testing.assert_array_equal(rankdata(row, "min", "omit"), [2, 1, np.nan, 2, 4])
    np.testing.assert_array_equal(rankdata(row, "max", "omit"), [3, 1, np.nan, 3, 4])
    np.testing.assert_array_equal(rankdata(row, "average", "omit"), [2.5, 1, np.nan, 2.5, 4])
    assert np.isnan(rankdata(row)).all()


def test_unknown_rules_are_named():
    with pytest.raises(ValueError, match="unknown tie rule 'dense'"):
        rankdata([1.0], method="dense")
    with pytest.raises(ValueError, match="unknown nan_policy 'raise'"):
        rankdata([1.0], nan_policy="raise")
