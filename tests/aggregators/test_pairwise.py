"""The pairwise view against a brute-force count over voters and pairs."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.aggregators import build_profile
from scorehouse.aggregators.pairwise import games, pair_counts
from tests.aggregators.strategies_paired import ballots_from_matrix, score_matrices


def brute_force_counts(scores, weights):
    n = scores.shape[1]
    wins, ties, voters = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for v, row in enumerate(scores):
        for a, b in itertools.permutations(range(n), 2):
            if np.isnan(row[a]) or np.isnan(row[b]):
                continue
            voters[a, b] += 1
            wins[a, b] += weights[v] * (row[a] > row[b])
            ties[a, b] += weights[v] * (row[a] == row[b])
    return wins, ties, voters


@settings(max_examples=60, deadline=None)
@given(score_matrices(), st.integers(0, 2**31))
def test_counts_equal_brute_force(scores, seed):
    weights = np.random.default_rng(seed).integers(0, 4, size=scores.shape[0]).astype(float)
    weights[0] = max(weights[0], 1.0)  # ballots whose weights are all 0 are rejected: no voter would count
    if np.isnan(scores).all(axis=0).any():  # a system nobody scored does not appear in ballots
        scores[0, np.isnan(scores).all(axis=0)] = 1.0
    profile = build_profile(ballots_from_matrix(scores, weights))
    counts = pair_counts(profile)
    wins, ties, voters = brute_force_counts(scores, weights)
    np.testing.assert_allclose(counts.wins, wins)
    np.testing.assert_allclose(counts.ties, ties)
    np.testing.assert_array_equal(counts.voters, voters)
    np.testing.assert_allclose(counts.credit + counts.credit.T, wins + wins.T + ties)


def test_games_in_natural_order():
    scores = np.array([[3.0, 1.0, np.nan], [2.0, 2.0, 5.0]])
    sequence = games(build_profile(ballots_from_matrix(scores, np.array([1.0, 2.0]))))
    played = list(zip(sequence.first.tolist(), sequence.second.tolist(), sequence.result.tolist(), sequence.weight.tolist()))
    # voter v000: only (s0, s1) is scored by both; voter v001: (s0,s1) tie, (s0,s2) and (s1,s2) lost.
    assert played == [(0, 1, 1.0, 1.0), (0, 1, 0.5, 2.0), (0, 2, 0.0, 2.0), (1, 2, 0.0, 2.0)]
