"""Default methods by the data's shape, --min-coverage and mean_available (issue 26), each against a reference
written out here: a hand example, a loop over the cells, or a Kendall tau to a known truth (scipy)."""

import numpy as np
import polars as pl
from scipy.stats import kendalltau

from benchmarks.bench_sparse_defaults import plackett_luce_ballots
from scorehouse.aggregators import run
from scorehouse.transforms.rank_plan import (
    DEFAULT_MIN_COVERAGE, TASK_DEFAULTS, NotApplicable, VoterSelection, covered_ballots, default_note, default_runs,
    elo_without_timestamps, run_method,
)
from tests.aggregators.strategies_paired import ballots_from_matrix


def test_complete_leaderboards_keep_todays_defaults_and_sparse_ones_get_methods_that_handle_missing_scores():
    complete = default_runs("task", False)
    assert [r.method for r in complete] == list(TASK_DEFAULTS)
    assert {default_note(r) for r in complete} == {("a default method for complete data",)}
    assert "defaults" not in complete[0].parameters  # a note, so by name and by default are one series
    sparse = default_runs("task", True)
    assert [r.method for r in sparse] == ["mean", "mean_available", "borda_partial", "bradley_terry"]
    assert all(r.parameters["min_coverage"] == DEFAULT_MIN_COVERAGE == 0.5 for r in sparse)
    assert all(default_note(r) == ("a default method for missing scores data",) for r in sparse)
    assert [r.min_coverage for r in default_runs("task", True, 0.8)] == [0.8] * 4


def test_battles_default_to_bradley_terry_and_to_elo_only_with_time_stamps():
    assert [r.method for r in default_runs("battles", False)] == ["bradley_terry"]
    assert [r.method for r in default_runs("battles", False, timestamps=True)] == ["bradley_terry", "elo"]
    elo, note = elo_without_timestamps(default_runs("battles", False, timestamps=True)[1])
    assert elo.params == {"seed": 0, "shuffle": True, "permutations": 20}
    assert "no time stamps" in note
    asked, none = elo_without_timestamps(elo.__class__("elo", {"shuffle": False}))
    assert (asked.params, none) == ({"shuffle": False}, None)  # an order the user chose is kept


# A 4-task leaderboard (rows: voters): s0, s1, s2 scored on every task, s3 on 2 of 4 (half), s4 on 1 of 4.
SPARSE = np.array([
    [0.9, 0.8, 0.1, 0.95, 0.99],
    [0.7, 0.6, 0.2, 0.90, np.nan],
    [0.6, 0.5, 0.3, np.nan, np.nan],
    [0.8, 0.4, 0.2, np.nan, np.nan],
])


def test_systems_below_the_minimum_coverage_are_listed_not_ranked():
    ballots = ballots_from_matrix(SPARSE)
    kept, notes = covered_ballots(ballots, 0.5)
    assert sorted(kept.get_column("system").unique()) == ["s0", "s1", "s2", "s3"]
    assert notes == ("not ranked: 1 system(s) scored on fewer than 0.5 of the 4 voters (--min-coverage): s4 (1/4)",)
    assert covered_ballots(ballots, 0.0) == (ballots, ())



def test_a_voter_of_weight_zero_is_not_counted_in_the_coverage():
    ballots = ballots_from_matrix(SPARSE, np.array([1.0, 0.0, 1.0, 1.0]))
    _, notes = covered_ballots(ballots, 0.5)
    assert "s4 (1/3)" in notes[0] and "s3 (1/3)" in notes[0]  # s3's second score is on the weight-0 voter


def test_where_no_system_has_every_score_the_coverage_is_measured_against_the_best_covered_one():
    ballots = ballots_from_matrix(SPARSE[:, 3:])  # s3 on 2 of 4 voters, s4 on 1: half of s3's is 1
    assert covered_ballots(ballots, 0.5) == (ballots, ())
    kept, notes = covered_ballots(ballots, 0.6)
    assert kept.get_column("system").unique().to_list() == ["s0"]  # s3 renamed s0 by the slice
    assert notes == ("not ranked: 1 system(s) scored on fewer than 0.6 of the 2 voters (of 4) that the "
                     "best-covered system has (--min-coverage): s1 (1/2)",)


def reference_mean_available(scores: np.ndarray, weights: np.ndarray) -> list[float]:
    """A loop over every cell: the weighted mean of the scores a system has on the voters that count."""
    means = []
    for s in range(scores.shape[1]):
        total = weight = 0.0
        for v in range(scores.shape[0]):
            if not np.isnan(scores[v, s]) and weights[v] > 0:
                total += weights[v] * scores[v, s]
                weight += weights[v]
        means.append(total / weight if weight else np.nan)
    return means


def test_mean_available_is_the_weighted_mean_over_the_voters_a_system_has():
    rng = np.random.default_rng(4)
    for _ in range(50):
        scores = rng.normal(size=(6, 5))
        scores[rng.random(scores.shape) < 0.4] = np.nan
        weights = rng.integers(0, 3, size=6).astype(float)
        weights[0] = 1.0
        scores[0, :] = rng.normal(size=5)  # every system scored by a counted voter
        ranking = run("mean_available", ballots_from_matrix(scores, weights)).ranking.sort("system")
        np.testing.assert_allclose(ranking["score"].to_numpy(), reference_mean_available(scores, weights), atol=1e-12)


def test_every_sparse_default_is_close_to_a_known_plackett_luce_truth():
    """The issue's bar: tau >= 0.8 for every default on a sparse leaderboard of known truth (3 seeds)."""
    for seed in range(3):
        ballots, truth = plackett_luce_ballots(seed)
        for method_run in default_runs("task", True):
            try:
                ranking = run_method(ballots, "task", method_run).ranking
            except NotApplicable:
                continue  # mean: no complete system on this draw
            if ranking.height < 3:
                continue
            tau = kendalltau(ranking["score"].to_numpy(), [truth[s] for s in ranking["system"]]).statistic
            assert tau >= 0.8, (seed, method_run.method, tau)


def test_the_voters_of_the_selected_tasks_and_metrics_only():
    scores = pl.DataFrame({"task": ["mmlu", "mmlu", "gsm8k", "arc"], "metric": ["acc", "f1", "acc", "acc"]})
    assert VoterSelection(("m*", "arc")).select(scores).rows() == [("mmlu", "acc"), ("mmlu", "f1"), ("arc", "acc")]
    assert VoterSelection((), ("acc",)).select(scores).height == 3
    run_ = VoterSelection(("m*",), ("acc",)).recorded_in(default_runs("task", False)[0])
    assert run_.parameters["only_task"] == ["m*"] and run_.parameters["only_metric"] == ["acc"]
