"""build_profile: the dense matrix by direct filling, and the errors of the integer-coded checks."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.aggregators import InvalidBallotsError, build_profile


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["t2", "t10", "a", "Z"]), st.sampled_from(["m1", "m0", "b", "é"]), st.one_of(st.none(), st.floats(-5, 5))),
        min_size=1,
        max_size=16,
        unique_by=lambda row: row[:2],
    ),
    st.randoms(),
)
def test_matrix_is_filled_by_name_order_whatever_the_row_order(rows, random):
    shuffled = rows[:]
    random.shuffle(shuffled)
    profile = build_profile(pl.DataFrame(shuffled, schema={"voter": pl.String, "system": pl.String, "score": pl.Float64}, orient="row"))
    voters = sorted({r[0] for r in rows})
    systems = sorted({r[1] for r in rows})
    assert profile.voters == tuple(voters) and profile.systems == tuple(systems)
    expected = np.full((len(voters), len(systems)), np.nan)
    for voter, system, score in rows:
        expected[voters.index(voter), systems.index(system)] = np.nan if score is None else score
    np.testing.assert_array_equal(profile.scores, expected)


def test_weights_and_groups_are_per_voter():
    ballots = pl.DataFrame(
        {
            "voter": ["y", "x", "y", "x"],
            "system": ["a", "a", "b", "b"],
            "score": [1.0, 2.0, 3.0, 4.0],
            "weight": [2.0, 0.5, 2.0, 0.5],
            "group": ["g2", "g1", "g2", "g1"],
        }
    )
    profile = build_profile(ballots)
    assert profile.voters == ("x", "y")
    np.testing.assert_array_equal(profile.weights, [0.5, 2.0])
    assert profile.groups == ("g1", "g2")


def test_the_first_duplicate_in_name_order_is_named_with_its_count():
    ballots = pl.DataFrame(
        {"voter": ["z", "z", "b", "b", "b"], "system": ["s", "s", "q", "q", "q"], "score": [1.0, 1.0, 2.0, 2.0, 2.0]}
    )
    with pytest.raises(InvalidBallotsError, match="voter 'b' scores system 'q' 3 times"):
        build_profile(ballots)


@pytest.mark.parametrize("column, values", [("weight", [1.0, 2.0]), ("group", ["g", "h"])])
def test_a_voter_with_two_weights_or_groups_is_named(column, values):
    ballots = pl.DataFrame({"voter": ["ok", "bad", "bad"], "system": ["a", "a", "b"], "score": [1.0, 2.0, 3.0]})
    ballots = ballots.with_columns(pl.Series(column, [values[0], *values]))
    with pytest.raises(InvalidBallotsError, match="voter 'bad' has more than one weight or group"):
        build_profile(ballots)
