"""borda_partial against an exhaustive enumeration of compatible rankings, plain Borda and real XTREME data."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scorehouse.aggregators import InvalidBallotsError, InvalidParameterError, aggregate, build_profile, pairwise_probabilities
from scorehouse.aggregators.ranking import tie_classes
from tests.aggregators.strategies_missing import (
    complete_profiles,
    enumerate_compatible,
    partial_profiles,
    system_names,
    to_ballots,
)

XTREME = Path(__file__).resolve().parents[2] / "data/bundled/MissingDataRanking/example_data_cli/xtreme_missing.csv"


def ranks_of(table: pl.DataFrame, systems: list[str]) -> list[int]:
    by_system = dict(zip(table["system"], table["rank"]))
    return [by_system[s] for s in systems]


@settings(max_examples=60, deadline=None)
@given(partial_profiles(max_systems=7, max_voters=4))
def test_matrix_and_ranking_equal_the_enumeration_of_compatible_rankings(profile):
    scores, weights = profile
    expected_p, expected_points = enumerate_compatible(scores, weights)
    ballots = to_ballots(scores, weights)
    probabilities, _ = pairwise_probabilities(build_profile(ballots))
    np.testing.assert_allclose(probabilities, expected_p, atol=1e-12)
    ranking = aggregate("borda_partial", ballots)
    systems = system_names(scores.shape[1])
    assert ranks_of(ranking, systems) == tie_classes(expected_points).tolist()
    np.testing.assert_allclose(
        [dict(zip(ranking["system"], ranking["score"]))[s] for s in systems], expected_points, atol=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(complete_profiles())
def test_complete_ballots_without_ties_rank_like_plain_borda(profile):
    scores, weights = profile
    n_voters, n = scores.shape
    wins = np.zeros((n, n))
    for v in range(n_voters):
        for i in range(n):
            for j in range(n):
                wins[i, j] += weights[v] * (scores[v, i] > scores[v, j])
    borda = wins.sum(axis=1)
    ranking = aggregate("borda_partial", to_ballots(scores, weights))
    systems = system_names(n)
    assert ranks_of(ranking, systems) == tie_classes(borda).tolist()
    by_system = dict(zip(ranking["system"], ranking["score"]))
    np.testing.assert_allclose([by_system[s] for s in systems], borda / weights.sum())


@settings(max_examples=60, deadline=None)
@given(partial_profiles(max_systems=6, max_voters=5))
def test_informative_counts_equal_direct_counting(profile):
    scores, weights = profile
    n_voters, n = scores.shape
    expected = np.zeros((n, n), dtype=int)
    for v in range(n_voters):
        for i in range(n):
            for j in range(n):
                both = not np.isnan(scores[v, i]) and not np.isnan(scores[v, j])
                expected[i, j] += weights[v] > 0 and both and scores[v, i] != scores[v, j]
    _, informative = pairwise_probabilities(build_profile(to_ballots(scores, weights)))
    np.testing.assert_array_equal(informative, expected)


@settings(max_examples=40, deadline=None)
@given(partial_profiles(max_systems=6, max_voters=4), st.data())
def test_raising_a_score_never_lowers_that_system_nor_raises_another(profile, data):
    scores, weights = profile
    observed = np.argwhere(~np.isnan(scores))
    assume(len(observed) > 0)
    v, i = observed[data.draw(st.integers(0, len(observed) - 1))]
    raised = scores.copy()
    raised[v, i] += data.draw(st.sampled_from([0.5, 1.0, 5.0]))
    before = pairwise_probabilities(build_profile(to_ballots(scores, weights)))[0].sum(axis=1)
    after = pairwise_probabilities(build_profile(to_ballots(raised, weights)))[0].sum(axis=1)
    assert after[i] >= before[i] - 1e-12
    assert np.all(np.delete(after, i) <= np.delete(before, i) + 1e-12)


def test_absent_rows_are_the_same_as_null_scores():
    ballots = pl.DataFrame(
        {
            "voter": ["t1"] * 3 + ["t2"] * 3,
            "system": ["a", "b", "c"] * 2,
            "score": [3.0, None, 1.0, None, 2.0, 2.0],
        }
    )
    dropped = ballots.filter(pl.col("score").is_not_null())
    assert aggregate("borda_partial", ballots).equals(aggregate("borda_partial", dropped))


def test_a_voter_with_holes_weighs_as_much_as_a_complete_one():
    # voter t2 saw only a and c; its matrix still sums to 1 per pair, like t1's
    ballots = pl.DataFrame(
        {"voter": ["t1"] * 3 + ["t2"] * 2, "system": ["a", "b", "c", "a", "c"], "score": [1.0, 2.0, 3.0, 5.0, 4.0]}
    )
    probabilities, _ = pairwise_probabilities(build_profile(ballots))
    np.testing.assert_allclose(probabilities + probabilities.T, 1 - np.eye(3))
    # t2: a first of k=2, b unseen lands above a with probability 1/3, above c with 2/3
    np.testing.assert_allclose(probabilities[0], [0, (0 + 2 / 3) / 2, (0 + 1) / 2])


def test_all_zero_weights_are_an_error():
    ballots = pl.DataFrame({"voter": ["t1", "t1"], "system": ["a", "b"], "score": [1.0, 2.0], "weight": [0.0, 0.0]})
    with pytest.raises(InvalidBallotsError, match="weight 0"):
        aggregate("borda_partial", ballots)


def xtreme_ballots() -> pl.DataFrame:
    """XTREME with 8 blanked cells: voters = the four task columns, higher is better.

    The leaderboard's own ``Score`` column is an average of the tasks, not a
    task, so it does not vote.
    """
    table = pl.read_csv(XTREME)
    table = table.rename({c: c.strip() for c in table.columns})
    tasks = ["Classification", "Structured Prediction", "Question Answering", "Sentence Retrieval"]
    return table.unpivot(index="Model", on=tasks, variable_name="voter", value_name="score").rename(
        {"Model": "system"}
    )


def test_xtreme_missing_expected_points_computed_by_hand():
    # Expected points of a system in one task: (k - r) observed systems below it plus, for each of
    # the 15 - k unobserved systems, 1 - r / (k + 1); an unobserved system gets (15 - 1) / 2 = 7.
    # k per task: Classification 10, Structured Prediction 15, Question Answering 13, Sentence
    # Retrieval 15.  Ranks read off the CSV (Turing ties Unicoder at 93.7 in Sentence Retrieval).
    ranking = aggregate("borda_partial", xtreme_ballots())
    score = dict(zip(ranking["system"], ranking["score"]))
    rank = dict(zip(ranking["system"], ranking["rank"]))
    turing = "Turing ULR v5 Alexander v-team Microsoft"
    stilts = "X-STILTs Phang et al. New York University"
    xlm = "XLM\tXTREME Team\tAlphabet  CMU\t-"
    anon5 = "Anonymous5 Anonymous5 Anonymous5"
    expected = {
        # Cls r=1 of 10; SP r=2 of 15; QA r=1 of 13; SR r=2.5 of 15 (tie at 2-3)
        turing: (9 + 5 * (1 - 1 / 11)) + 13 + (12 + 2 * (1 - 1 / 14)) + 12.5,
        # Cls r=10 of 10; SP r=13; QA r=12 of 13; SR r=13
        stilts: (0 + 5 * (1 - 10 / 11)) + 2 + (1 + 2 * (1 - 12 / 14)) + 2,
        # Cls unobserved; SP r=15; QA r=13 of 13; SR r=14
        xlm: 7 + 0 + (0 + 2 * (1 - 13 / 14)) + 1,
        # Cls unobserved; SP r=14; QA unobserved; SR r=15
        anon5: 7 + 1 + 7 + 0,
    }
    for system, points in expected.items():
        assert score[system] == pytest.approx(points / 4), system
    assert rank[turing] == 1
    assert rank[stilts] == 15  # last: it has no hole to be lifted by
    assert rank[anon5] < rank[xlm]  # the imputation lifts Anonymous5 above XLM


def test_xtreme_missing_pairs_computed_by_hand():
    profile = build_profile(xtreme_ballots())
    probabilities, informative = pairwise_probabilities(profile)
    index = {s: i for i, s in enumerate(profile.systems)}
    turing, cofe = index["Turing ULR v5 Alexander v-team Microsoft"], index["CoFe HFL iFLYTEK"]
    xlm, anon5 = index["XLM\tXTREME Team\tAlphabet  CMU\t-"], index["Anonymous5 Anonymous5 Anonymous5"]
    # Turing beats CoFe on Cls, SP and QA, loses on SR
    assert probabilities[turing, cofe] == pytest.approx(3 / 4)
    assert informative[turing, cofe] == 4
    # Cls both unseen: 1/2; SP 66.9 > 65.6: 1; QA Anonymous5 unseen above XLM (r=13 of 13): 13/14; SR 18.0 < 44.7: 0
    assert probabilities[anon5, xlm] == pytest.approx((1 / 2 + 1 + 13 / 14 + 0) / 4)
    assert informative[anon5, xlm] == 2


def paper_two_level(scores: np.ndarray, weights: np.ndarray, group_of: list[int]) -> np.ndarray:
    """Himmi et al.'s two-level Borda by enumeration: every system ranked in every task, then Borda.

    Level 1: each task's expected Borda points over all systems (compatible
    complete rankings enumerated).  Level 2: each task's Borda points of that
    ranking (ties share: strictly worse systems + half the tied ones), mean
    over the tasks whose voters weigh something, every task the same.
    """
    totals = []
    for g in sorted(set(group_of)):
        rows = [v for v, h in enumerate(group_of) if h == g]
        if weights[rows].sum() == 0:
            continue
        _, points = enumerate_compatible(scores[rows], weights[rows])
        points = np.round(points, 9)  # enumeration sums are exact up to float noise; the tie rule removes it
        below = (points[:, None] > points[None, :]).sum(axis=1)
        tied = (points[:, None] == points[None, :]).sum(axis=1) - 1
        totals.append(below + 0.5 * tied)
    return np.mean(totals, axis=0)


@settings(max_examples=60, deadline=None)
@given(partial_profiles(max_systems=5, max_voters=5), st.data())
def test_two_level_ranks_every_system_in_every_task_as_in_the_paper(profile, data):
    scores, weights = profile
    group_of = data.draw(st.lists(st.integers(0, 2), min_size=len(weights), max_size=len(weights)))
    ballots = to_ballots(scores, weights).with_columns(
        group=pl.col("voter").replace_strict(dict(zip(sorted(set(to_ballots(scores, weights)["voter"])),
                                                      [f"task{g}" for g in group_of])))
    )
    got = aggregate("borda_partial", ballots, two_step=True)
    expected = paper_two_level(scores, weights, group_of)
    systems = system_names(scores.shape[1])
    np.testing.assert_allclose([dict(zip(got["system"], got["score"]))[s] for s in systems], expected, atol=1e-9)
    assert ranks_of(got, systems) == tie_classes(expected).tolist()


def test_two_level_can_leave_unscored_systems_out_of_a_task():
    # task A scores a > b, not c; task B scores c > a > b.
    ballots = pl.DataFrame(
        {"voter": ["A", "A", "B", "B", "B"], "system": ["a", "b", "c", "a", "b"], "score": [2.0, 1.0, 3.0, 2.0, 1.0],
         "group": ["A", "A", "B", "B", "B"]}
    )
    # "impute" (the paper): A's expected points a 5/3, c 1, b 1/3 (c above a with probability 1/3), so A
    # ranks a > c > b (Borda 2, 1, 0); B ranks c > a > b (2, 1, 0); level 2 averages the two
    imputed = dict(aggregate("borda_partial", ballots, two_step=True).select("system", "score").iter_rows())
    assert imputed == pytest.approx({"a": 1.5, "b": 0.0, "c": 1.5})
    # "drop": A ranks a > b only and level 2 imputes c into A's ballot: a 5/3, b 1/3, c 1 from A
    dropped = dict(aggregate("borda_partial", ballots, two_step=True, unscored="drop").select("system", "score").iter_rows())
    assert dropped == pytest.approx({"a": (5 / 3 + 1) / 2, "b": (1 / 3 + 0) / 2, "c": (1 + 2) / 2})
    with pytest.raises(InvalidParameterError, match="unscored='impute' needs a method that handles missing"):
        aggregate("borda", ballots.drop_nulls(), two_step=True, unscored="impute")
    with pytest.raises(InvalidParameterError, match="only applies with two_step=True"):
        aggregate("borda_partial", ballots, unscored="drop")
