"""Score means and the weighted median against NumPy / SciPy and the repeated-list median."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import gmean, hmean

from scorehouse.aggregators import InvalidParameterError, NonPositiveScoresError, aggregate, run
from tests.aggregators import references
from tests.aggregators.conftest import ballots


def matrix(table: pl.DataFrame):
    systems, weight, scores = references.as_dicts(table)
    voters = sorted(scores)
    values = np.array([[scores[v][s] for s in systems] for v in voters])
    return systems, values, np.array([weight[v] for v in voters])


def scores_of(name: str, table: pl.DataFrame) -> dict[str, float]:
    return dict(aggregate(name, table).select("system", "score").iter_rows())


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("mean", lambda x, w: np.average(x, weights=w)),
        ("geometric_mean", lambda x, w: gmean(x, weights=w)),
        ("harmonic_mean", lambda x, w: hmean(x, weights=w)),
    ],
)
@given(table=ballots(min_voters=2))
def test_weighted_means_match_scipy(name, reference, table):
    systems, values, weights = matrix(table)
    got = scores_of(name, table)
    for s, system in enumerate(systems):
        assert got[system] == pytest.approx(reference(values[:, s], weights), rel=1e-12)


@given(table=ballots(weighted=False, max_voters=8))
def test_median_with_equal_weights_is_numpy_median(table):
    systems, values, _ = matrix(table)
    got = scores_of("median", table)
    assert got == {system: pytest.approx(np.median(values[:, s])) for s, system in enumerate(systems)}


@given(table=ballots(), data=st.data())
def test_median_with_integer_weights_is_the_median_of_the_repeated_scores(table, data):
    voters = sorted(set(table["voter"]))
    counts = {v: data.draw(st.integers(0, 4)) for v in voters}
    counts[voters[0]] = max(counts[voters[0]], 1)
    table = table.with_columns(pl.col("voter").replace_strict(counts, return_dtype=pl.Float64).alias("weight"))
    systems, values, weights = matrix(table)
    got = scores_of("median", table)
    for s, system in enumerate(systems):
        repeated = np.repeat(values[:, s], weights.astype(int))
        assert got[system] == pytest.approx(np.median(repeated))


@pytest.mark.parametrize("name", ["geometric_mean", "harmonic_mean"])
@pytest.mark.parametrize("bad", [0.0, -1.5])
def test_non_positive_scores_are_refused_with_voter_and_system(name, bad):
    table = pl.DataFrame({"voter": ["t1", "t1", "t2", "t2"], "system": ["a", "b", "a", "b"], "score": [1.0, 2.0, bad, 3.0]})
    with pytest.raises(NonPositiveScoresError, match=r"voter 't2'.*system 'a'.*'mean'.*shift"):
        aggregate(name, table)
    assert aggregate("mean", table)["system"].to_list() == ["b", "a"]


@pytest.mark.parametrize("name", ["geometric_mean", "harmonic_mean"])
def test_a_voter_that_does_not_count_is_left_out_before_the_positivity_check(name):
    table = pl.DataFrame(
        {"voter": ["t1", "t1", "ax", "ax"], "system": ["a", "b", "a", "b"], "score": [1.0, 2.0, -0.4, 3.0],
         "weight": [1.0, 1.0, 0.0, 0.0]}
    )
    assert aggregate(name, table)["score"].to_list() == pytest.approx([2.0, 1.0])


@pytest.mark.parametrize(("name", "reference"), [("geometric_mean", gmean), ("harmonic_mean", hmean)])
def test_drop_voter_leaves_out_the_voters_with_a_non_positive_score(name, reference):
    table = pl.DataFrame(
        {"voter": ["t1", "t1", "t2", "t2", "t3", "t3"], "system": ["a", "b"] * 3,
         "score": [1.0, 2.0, 0.0, 3.0, 4.0, 1.0], "weight": [1.0, 1.0, 1.0, 1.0, 2.0, 2.0]}
    )
    result = run(name, table, params={"nonpositive": "drop-voter"})
    got = dict(result.ranking.select("system", "score").iter_rows())
    assert got == pytest.approx({"a": reference([1.0, 4.0], weights=[1, 2]), "b": reference([2.0, 1.0], weights=[1, 2])})
    assert any("t2" in note for note in result.notes)
    with pytest.raises(InvalidParameterError, match="nonpositive"):
        aggregate(name, table, nonpositive="shift")


def test_optimality_gap_is_the_mean_shortfall_from_the_target():
    # Vote'n'Rank's definition by hand: weighted mean of min(score, gamma) - gamma, gamma = 95
    table = pl.DataFrame(
        {"voter": ["t1", "t1", "t2", "t2"], "system": ["a", "b", "a", "b"], "score": [100.0, 93.0, 88.0, 93.0],
         "weight": [2.0, 2.0, 1.0, 1.0]}
    )
    got = dict(aggregate("optimality_gap", table, target=95).select("system", "score").iter_rows())
    assert got == pytest.approx({"a": (2 * 0.0 + (88 - 95)) / 3, "b": (2 * (93 - 95) + (93 - 95)) / 3})
    assert aggregate("mean", table)["system"][0] == "a"  # the mean buys a's shortfall back with its surplus
    assert aggregate("optimality_gap", table, target=95)["system"][0] == "b"


def test_optimality_gap_needs_a_target():
    table = pl.DataFrame({"voter": ["t1", "t1"], "system": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InvalidParameterError, match="'target'.*no default"):
        aggregate("optimality_gap", table)
    with pytest.raises(InvalidParameterError, match="'target'"):
        aggregate("optimality_gap", table, target=float("nan"))
