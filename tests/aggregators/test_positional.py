"""Borda, Plurality, Dowdall, Threshold and Baldwin against direct loops over voters."""

import polars as pl
import pytest
from hypothesis import given

from scorehouse.aggregators import InvalidParameterError, aggregate
from tests.aggregators import references
from tests.aggregators.conftest import ballots

TIES = ["average", "min", "max"]


def scores_of(name: str, table: pl.DataFrame, **params) -> dict[str, float]:
    return dict(aggregate(name, table, **params).select("system", "score").iter_rows())


def assert_scores(got: dict[str, float], expected: dict[str, float]) -> None:
    assert got == {s: pytest.approx(v, abs=1e-9) for s, v in expected.items()}


@pytest.mark.parametrize("ties", TIES)
@given(table=ballots())
def test_borda_matches_loop(ties, table):
    assert_scores(scores_of("borda", table, ties=ties), references.borda(table, ties))


@pytest.mark.parametrize("ties", TIES)
@given(table=ballots())
def test_plurality_matches_loop(ties, table):
    assert_scores(scores_of("plurality", table, ties=ties), references.positional(table, lambda k: float(k == 1), ties))


@pytest.mark.parametrize("ties", TIES)
@given(table=ballots())
def test_dowdall_matches_loop(ties, table):
    assert_scores(scores_of("dowdall", table, ties=ties), references.positional(table, lambda k: 1.0 / k, ties))


def test_tied_top_plurality_conventions():
    table = pl.DataFrame({"voter": ["t"] * 3, "system": ["a", "b", "c"], "score": [2.0, 2.0, 1.0]})
    assert scores_of("plurality", table) == {"a": 0.5, "b": 0.5, "c": 0.0}
    assert scores_of("plurality", table, ties="min") == {"a": 1.0, "b": 1.0, "c": 0.0}
    assert scores_of("plurality", table, ties="max") == {"a": 0.0, "b": 0.0, "c": 0.0}


@given(table=ballots(max_systems=5))
def test_threshold_winners_are_vote_n_rank_iteration(table):
    result = aggregate("threshold", table)
    assert set(result.filter(pl.col("rank") == 1)["system"]) == references.threshold_winners(table)


@given(table=ballots(max_systems=5))
def test_threshold_is_the_lexicographic_order_of_bad_places(table):
    systems, weight, scores = references.as_dicts(table)
    worst = {v: {x: b for x, (_, b) in references.blocks(own).items()} for v, own in scores.items()}
    n = len(systems)
    key = {
        x: tuple(sum(weight[v] for v in worst if worst[v][x] == k) for k in range(n, 1, -1)) for x in systems
    }
    expected_rank = {x: 1 + sum(key[y] < key[x] for y in systems) for x in systems}
    assert dict(aggregate("threshold", table).select("system", "rank").iter_rows()) == expected_rank


@pytest.mark.parametrize("ties", TIES)
@given(table=ballots(max_systems=5))
def test_baldwin_matches_loop(ties, table):
    assert_scores(scores_of("baldwin", table, ties=ties), references.baldwin_rounds(table, ties))


@pytest.mark.parametrize("name", ["borda", "plurality", "dowdall", "baldwin"])
def test_unknown_ties_value_is_rejected(name):
    table = pl.DataFrame({"voter": ["t"] * 2, "system": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(InvalidParameterError, match=r"'ties'.*'average', 'min', 'max'.*'mean'"):
        aggregate(name, table, ties="mean")
