"""Bootstrap: resampled counts vs resampled profiles, coverage on synthetic Gumbel benchmarks."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

from scorehouse.aggregators import InvalidParameterError, bootstrap, build_profile
from scorehouse.aggregators.bootstrapping import _counts_by_voters, _voter_draws, tie_groups
from scorehouse.aggregators.pairwise import pair_counts
from scorehouse.aggregators.profile import Profile
from tests.aggregators.strategies_paired import ballots_from_matrix, pairformance_ballots, score_matrices


def gumbel_benchmark(rng, n_systems, n_voters, phi):
    """Colombo et al. (2022): system i scores Gumbel(phi * i, 1), so the truth is known.

    Two independent Gumbel(mu, 1) differ by a logistic variable, so
    P(i beats j) = sigmoid(mu_i - mu_j): Bradley-Terry with log-strengths mu.
    """
    mu = phi * np.arange(n_systems)
    return ballots_from_matrix(mu + rng.gumbel(size=(n_voters, n_systems))), mu - mu.mean()


def coverage(resample, repetitions=150):
    rng = np.random.default_rng(2022)
    covered_scores, covered_ranks = [], []
    true_rank = 5 - np.arange(5)
    for rep in range(repetitions):
        ballots, theta = gumbel_benchmark(rng, 5, 100, 0.1)
        table = bootstrap("bradley_terry", ballots, n_resamples=200, seed=rep, resample=resample).sort("system")
        covered_scores.append((table["score_low"].to_numpy() <= theta) & (theta <= table["score_high"].to_numpy()))
        covered_ranks.append((table["rank_best"].to_numpy() <= true_rank) & (true_rank <= table["rank_worst"].to_numpy()))
    return np.mean(covered_scores), np.mean(covered_ranks)


def test_voter_bootstrap_covers_truth_at_nominal_rate():
    scores, ranks = coverage("voters")
    # 750 intervals, correlated within a benchmark: about 4 standard errors of slack.
    assert abs(scores - 0.95) < 0.035
    # Integer rank intervals are conservative; they must not undercover.
    assert ranks >= 0.95 - 0.02


def test_pair_bootstrap_undercovers_instance_level_data():
    # The documented limitation: per-pair multinomials ignore the correlation of one voter's comparisons.
    scores, _ = coverage("pairs", repetitions=100)
    assert scores < 0.9


@settings(max_examples=30, deadline=None)
@given(score_matrices(max_voters=10, max_systems=4), st.integers(0, 2**31))
def test_counts_of_multiplicities_equal_counts_of_resampled_profiles(scores, seed):
    scores[0, np.isnan(scores).all(axis=0)] = 1.0
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, 4, size=scores.shape[0]).astype(float)
    profile = build_profile(ballots_from_matrix(scores, weights))
    draws = rng.integers(0, scores.shape[0], size=(3, scores.shape[0]))
    multiplicity = np.stack([np.bincount(d, minlength=scores.shape[0]) for d in draws]).astype(float)
    batched = _counts_by_voters(profile, multiplicity)
    for b, draw in enumerate(draws):
        sample = Profile(profile.systems, tuple(profile.voters[v] for v in draw), profile.scores[draw], profile.weights[draw], ("",) * draw.size)
        direct = pair_counts(sample)
        np.testing.assert_allclose(batched.wins[b], direct.wins)
        np.testing.assert_allclose(batched.ties[b], direct.ties)
        np.testing.assert_array_equal(batched.voters[b], direct.voters)


def test_two_step_resamples_within_groups():
    scores = np.arange(24.0).reshape(8, 3)
    # voters v000-v002 in group a, v003-v007 in group b (three systems each)
    ballots = ballots_from_matrix(scores).with_columns(group=pl.Series(np.repeat(["a", "b"], [9, 15])))
    profile = build_profile(ballots)
    draws = _voter_draws(profile, 50, True, np.random.default_rng(0))
    groups = np.asarray(profile.groups)[draws]
    assert (groups[:, :3] == "a").all() and (groups[:, 3:] == "b").all()
    table = bootstrap("elo", ballots, n_resamples=20, two_step=True, across="bradley_terry")
    assert table["system"].to_list() == ["s2", "s1", "s0"]


@settings(max_examples=100)
@given(st.lists(st.tuples(st.integers(1, 8), st.integers(0, 4)), min_size=1, max_size=8))
def test_tie_groups_are_the_components_of_overlapping_intervals(intervals):
    best = np.array([b for b, _ in intervals])
    worst = best + np.array([w for _, w in intervals])
    overlap = (best[:, None] <= worst[None, :]) & (best[None, :] <= worst[:, None])
    _, labels = connected_components(overlap, directed=False)
    groups = tie_groups(best, worst)
    assert ((groups[:, None] == groups[None, :]) == (labels[:, None] == labels[None, :])).all()
    assert groups[np.argmin(best)] == 1


def test_deterministic_for_a_seed_and_method_agnostic():
    ballots = pairformance_ballots()
    first = bootstrap("bradley_terry", ballots, n_resamples=100, seed=4)
    assert first.equals(bootstrap("bradley_terry", ballots, n_resamples=100, seed=4))
    assert not first.equals(bootstrap("bradley_terry", ballots, n_resamples=100, seed=5))
    assert first.columns == ["system", "score", "rank", "tied", "score_low", "score_high", "rank_best", "rank_worst", "tie_group"]
    assert (first["score_low"] <= first["score_high"]).all() and (first["rank_best"] <= first["rank_worst"]).all()
    trueskill = bootstrap("trueskill", ballots, n_resamples=20, seed=1)
    assert trueskill.equals(bootstrap("trueskill", ballots, n_resamples=20, seed=1))


def test_non_convergence_is_warned():
    with pytest.warns(RuntimeWarning, match="not converged"):
        bootstrap("bradley_terry", pairformance_ballots(), n_resamples=5, max_iter=2)


@pytest.mark.parametrize(
    "params, name",
    [({"n_resamples": 1}, "n_resamples"), ({"level": 1.0}, "level"), ({"resample": "rows"}, "resample"), ({"resample": "pairs", "two_step": True}, "pairs")],
)
def test_bad_parameters_are_named(params, name):
    with pytest.raises(InvalidParameterError, match=name):
        bootstrap("bradley_terry", pairformance_ballots(), **params)


def test_pairs_only_for_count_methods():
    with pytest.raises(InvalidParameterError, match=r"\['bradley_terry'"):
        bootstrap("elo", pairformance_ballots(), resample="pairs")
