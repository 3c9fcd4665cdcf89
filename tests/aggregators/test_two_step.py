"""Two-step aggregation (rank inside each group, then across the groups) against direct loops.

The reference follows the definition in ``aggregators.two_step``: each group's
ballots are scored on their own (systems without a score in the group left
out), each group becomes one second-step voter of weight 1 (a group whose
voters all weigh 0 takes no part), and a system the group did not score is
missing from that ballot (a group that scores nothing casts an all-missing
ballot).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorehouse.aggregators import REGISTRY, AggregationError, InvalidBallotsError, Voters, aggregate, build_profile, finish_partitioned
from tests.aggregators import references
from tests.aggregators.conftest import ballots

# Copeland reads missing scores (pairs a voter did not score are not compared); Borda needs complete ballots.
REFERENCES = {
    "copeland": (references.copeland, True),
    "borda": (lambda table: references.borda(table, "average"), False),
}


def outcome(compute):  # noqa: ANN001, ANN201 - a thunk; its result or the class of its refusal
    try:
        return compute()
    except AggregationError as error:
        return type(error)


def two_step_reference(table: pl.DataFrame, score) -> dict[str, float]:  # noqa: ANN001 - a reference from REFERENCES
    rows = []
    for group in sorted(set(table["group"])):
        part = table.filter(pl.col("group") == group)
        if part["weight"].sum() == 0:
            continue
        scored = part.filter(pl.col("score").is_not_null())
        points = score(scored) if scored.height else {}
        for system in sorted(set(table["system"])):
            rows.append({"voter": group, "system": system, "score": points.get(system), "weight": 1.0})
    return score(pl.DataFrame(rows, schema_overrides={"score": pl.Float64}))


@pytest.mark.parametrize("name", sorted(REFERENCES))
@given(data=st.data())
def test_two_step_matches_the_definition(name, data):
    score, missing = REFERENCES[name]
    table = data.draw(ballots(groups=True, missing=missing, min_voters=2))
    got = dict(aggregate(name, table, two_step=True).select("system", "score").iter_rows())
    expected = two_step_reference(table, score)
    assert got == pytest.approx(expected, abs=1e-9)


def test_exact_ties_survive_the_step_between_levels():
    # level 1 gives a and d 1.8125 and 1.8124999999999998 (float noise); both are 2.5 at level 2
    table = pl.DataFrame(
        {"voter": ["v0", "v0", "v1", "v1", "v1"], "system": ["b", "c", "a", "b", "d"], "score": [1.0, 0.0, 1.0, 0.0, 1.0]}
    )
    got = aggregate("borda_partial", table, two_step=True)
    assert got.filter(pl.col("system").is_in(["a", "d"]))["score"].to_list() == [2.5, 2.5]
    assert got.filter(pl.col("system").is_in(["a", "d"]))["rank"].to_list() == [1, 1]


@pytest.mark.parametrize("name", ["mean", "borda", "borda_partial", "copeland"])
def test_a_group_whose_voters_all_weigh_zero_takes_no_part(name):
    table = pl.DataFrame(
        {
            "voter": ["t1", "t1", "t2", "t2", "ax", "ax"],
            "system": ["a", "b", "a", "b", "a", "b"],
            "score": [2.0, 1.0, 3.0, 1.0, -1.0, 5.0],
            "weight": [1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
            "group": ["T1", "T1", "T2", "T2", "AX", "AX"],
        }
    )
    without = table.filter(pl.col("group") != "AX")
    assert aggregate(name, table, two_step=True).equals(aggregate(name, without, two_step=True))


def test_every_group_weighs_the_same_by_default_and_group_weight_sets_it():
    # T1 is split into two halves of weight 0.5; it still weighs as much as T2
    table = pl.DataFrame(
        {
            "voter": ["h1", "h1", "h2", "h2", "t2", "t2"],
            "system": ["a", "b", "a", "b", "a", "b"],
            "score": [90.0, 80.0, 70.0, 80.0, 60.0, 90.0],
            "weight": [0.5, 0.5, 0.5, 0.5, 1.0, 1.0],
            "group": ["T1", "T1", "T1", "T1", "T2", "T2"],
        }
    )
    means = dict(aggregate("mean", table, two_step=True).select("system", "score").iter_rows())
    assert means == pytest.approx({"a": (80.0 + 60.0) / 2, "b": (80.0 + 90.0) / 2})
    heavy = table.with_columns(group_weight=pl.when(pl.col("group") == "T1").then(3.0).otherwise(1.0))
    means = dict(aggregate("mean", heavy, two_step=True).select("system", "score").iter_rows())
    assert means == pytest.approx({"a": (3 * 80.0 + 60.0) / 4, "b": (3 * 80.0 + 90.0) / 4})


def test_a_group_weight_that_varies_inside_a_group_is_refused():
    table = pl.DataFrame(
        {"voter": ["h1", "h2"], "system": ["a", "a"], "score": [1.0, 2.0], "group": ["T", "T"], "group_weight": [1.0, 2.0]}
    )
    with pytest.raises(InvalidBallotsError, match="group 'T' has more than one group_weight"):
        aggregate("mean", table, two_step=True)


@pytest.mark.parametrize("name", ["mean", "borda"])
@given(table=ballots(groups=True, min_voters=2), data=st.data())
def test_partition_wise_two_step_follows_the_group_weights(name, table, data):
    """The partition-wise two-level finish weighs groups by the same rule as the whole-table run."""
    names = sorted(set(table["group"]))
    chosen = dict(zip(names, data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=len(names),
                                                 max_size=len(names)))))
    table = table.with_columns(group_weight=pl.col("group").replace_strict(chosen, return_dtype=pl.Float64))
    profile = build_profile(table)
    codes = np.searchsorted(names, profile.groups)
    voters = Voters(profile.systems, profile.scores, profile.weights, codes, tuple(names),
                    np.array([chosen[g] for g in names]))
    got = outcome(lambda: finish_partitioned(name, REGISTRY[name].partition.partial(voters), two_step=True).ranking)
    expected = outcome(lambda: aggregate(name, table, two_step=True))
    if isinstance(expected, type):
        assert got is expected
    else:
        assert dict(got.select("system", "score").iter_rows()) == pytest.approx(
            dict(expected.select("system", "score").iter_rows()), nan_ok=True)
