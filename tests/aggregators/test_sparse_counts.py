"""Pair counts of sparse profiles (many systems, each voter scoring a few) against brute force."""

import itertools

import numpy as np
import pytest

from scipy.stats import rankdata

from scorehouse.aggregators.borda_partial import observed_ranks
from scorehouse.aggregators.pairwise import MIN_SHARED_VOTERS, co_scored, weighted_pair_counts


def brute_force(scores, weights):
    n = scores.shape[1]
    wins, ties = np.zeros((weights.shape[1], n, n)), np.zeros((weights.shape[1], n, n))
    both = np.zeros((n, n), dtype=np.int64)
    for v, row in enumerate(scores):
        for a, b in itertools.product(range(n), repeat=2):
            if np.isnan(row[a]) or np.isnan(row[b]):
                continue
            both[a, b] += 1
            wins[:, a, b] += weights[v] * (row[a] > row[b])
            ties[:, a, b] += weights[v] * (row[a] == row[b])
    return wins, ties, both


def sparse_profile(rng, n_voters, n_systems, density, shared):
    """Integer scores (ties happen); ``shared`` voters per task pattern, the rest scattered."""
    scores = rng.integers(0, 4, size=(n_voters, n_systems)).astype(float)
    masks = rng.random((max(1, n_voters // max(shared, 1)), n_systems)) < density
    pattern = masks[np.arange(n_voters) // max(shared, 1) % len(masks)]
    scattered = rng.random((n_voters, n_systems)) < density
    observed = np.where(rng.random(n_voters)[:, None] < 0.5, pattern, scattered)
    return np.where(observed, scores, np.nan)


@pytest.mark.parametrize("seed", range(12))
def test_sparse_counts_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    shared = MIN_SHARED_VOTERS if seed % 2 else 1  # voters sharing a set of systems, or all scattered
    scores = sparse_profile(rng, 3 * MIN_SHARED_VOTERS, 9, density=0.2 + 0.06 * seed, shared=shared)
    weights = np.column_stack([rng.integers(0, 4, scores.shape[0]).astype(float), np.ones(scores.shape[0])])
    wins, ties = weighted_pair_counts(scores, weights)
    expected_wins, expected_ties, both = brute_force(scores, weights)
    np.testing.assert_allclose(wins, expected_wins)
    np.testing.assert_allclose(ties, expected_ties)
    np.testing.assert_array_equal(co_scored(scores), both)


def test_shared_and_scattered_paths_agree_with_the_dense_count():
    """The same voters counted as one shared set, as scattered voters, and densely (no system missing)."""
    rng = np.random.default_rng(7)
    full = rng.normal(size=(MIN_SHARED_VOTERS, 6)).round(1)
    columns = np.array([0, 2, 3])
    sparse_scores = np.full_like(full, np.nan)
    sparse_scores[:, columns] = full[:, columns]
    weights = rng.random((MIN_SHARED_VOTERS, 1))
    shared = weighted_pair_counts(sparse_scores, weights)  # one shared set of MIN_SHARED_VOTERS voters
    scattered = weighted_pair_counts(sparse_scores[:-1], weights[:-1])  # one voter fewer: scattered
    dense = weighted_pair_counts(full[:, columns], weights)
    last = weighted_pair_counts(sparse_scores[-1:], weights[-1:])
    for wins in (shared[0], scattered[0] + last[0]):
        np.testing.assert_allclose(wins[np.ix_([0], columns, columns)], dense[0])
        assert not wins[:, [1, 4, 5]].any() and not wins[:, :, [1, 4, 5]].any()


@pytest.mark.parametrize("seed", range(6))
def test_observed_ranks_are_scipys_average_ranks(seed):
    rng = np.random.default_rng(seed)
    scores = sparse_profile(rng, 40, 12, density=0.3 + 0.1 * seed, shared=4)
    voter, system, ranks = observed_ranks(scores)
    expected = rankdata(-scores, method="average", axis=1, nan_policy="omit")
    assert sorted(zip(voter.tolist(), system.tolist())) == sorted(zip(*np.nonzero(~np.isnan(scores))))
    np.testing.assert_allclose(ranks, expected[voter, system])
