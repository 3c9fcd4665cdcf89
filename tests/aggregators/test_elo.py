"""Elo against a hand-computed three-game example and a plain reference loop."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.aggregators import InvalidParameterError, aggregate, build_profile
from scorehouse.aggregators.pairwise import games
from tests.aggregators.strategies_paired import ballots_from_matrix, score_matrices


def reference_elo(scores, weights, order, k=20.0, scale=400.0):
    """Elo over the (voter, a, b) games of ``order``; weights scale k relative to their mean."""
    rating = {s: 1500.0 for s in range(scores.shape[1])}
    for v, a, b in order:
        result = 1.0 if scores[v, a] > scores[v, b] else 0.5 if scores[v, a] == scores[v, b] else 0.0
        expected = 1.0 / (1.0 + 10.0 ** ((rating[b] - rating[a]) / scale))
        delta = k * weights[v] / np.mean(weights) * (result - expected)
        rating[a] += delta
        rating[b] -= delta
    return np.array([rating[s] for s in sorted(rating)])


def natural_order(scores):
    n = scores.shape[1]
    return [
        (v, a, b)
        for v in range(scores.shape[0])
        for a in range(n)
        for b in range(a + 1, n)
        if not (np.isnan(scores[v, a]) or np.isnan(scores[v, b]))
    ]


def test_three_games_by_hand():
    # One voter: s0 = 3 beats s1 = 2 and s2 = 2; s1 ties s2.  k = 20, scale 400, start 1500.
    ranking = aggregate("elo", ballots_from_matrix(np.array([[3.0, 2.0, 2.0]])), shuffle=False).sort("system")
    # game 1, s0 beats s1: E = 0.5, both move 20 * 0.5 = 10 -> s0 1510, s1 1490
    # game 2, s0 (1510) beats s2 (1500): E = 1 / (1 + 10^(-10/400)) = 0.514387..., step 20 * (1 - E)
    e2 = 1 / (1 + 10 ** (-10 / 400))
    s0, s2 = 1510 + 20 * (1 - e2), 1500 - 20 * (1 - e2)
    # game 3, s1 (1490) ties s2 (1490.2877...): E = 1 / (1 + 10^((s2 - 1490) / 400)), step 20 * (0.5 - E)
    e3 = 1 / (1 + 10 ** ((s2 - 1490) / 400))
    s1, s2 = 1490 + 20 * (0.5 - e3), s2 - 20 * (0.5 - e3)
    assert math.isclose(s0, 1519.71225, abs_tol=1e-5) and math.isclose(s2, 1490.27947, abs_tol=1e-5)
    np.testing.assert_allclose(ranking["score"].to_numpy(), [s0, s1, s2], rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(score_matrices(max_voters=8), st.integers(0, 2**31))
def test_natural_order_equals_reference(scores, seed):
    scores[0, np.isnan(scores).all(axis=0)] = 1.0
    weights = np.random.default_rng(seed).integers(1, 4, size=scores.shape[0]).astype(float)
    ranking = aggregate("elo", ballots_from_matrix(scores, weights), shuffle=False, k=32.0).sort("system")
    expected = reference_elo(scores, weights, natural_order(scores), k=32.0)
    np.testing.assert_allclose(ranking["score"].to_numpy(), expected, atol=1e-9)


def test_seeded_permutations_average_the_seeded_orders():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(15, 4))
    ballots = ballots_from_matrix(scores)
    order = natural_order(scores)
    # The documented order: successive permutations of the natural order drawn from default_rng(seed).
    draws = np.random.default_rng(11)
    shuffled = [[order[g] for g in draws.permutation(len(order))] for _ in range(5)]
    expected = np.mean([reference_elo(scores, np.ones(15), o) for o in shuffled], axis=0)
    ranking = aggregate("elo", ballots, permutations=5, seed=11).sort("system")
    np.testing.assert_allclose(ranking["score"].to_numpy(), expected, atol=1e-9)
    assert aggregate("elo", ballots, seed=11).equals(aggregate("elo", ballots, seed=11))
    assert not aggregate("elo", ballots, seed=11).equals(aggregate("elo", ballots, seed=12))


def test_games_played_equal_the_pair_counts():
    scores = np.array([[1.0, 2.0, np.nan], [2.0, 2.0, 0.0]])
    sequence = games(build_profile(ballots_from_matrix(scores)))
    assert sequence.first.size == len(natural_order(scores)) == 4


@pytest.mark.parametrize(
    "params, name",
    [({"shuffle": False, "permutations": 3}, "permutations"), ({"permutations": 0}, "permutations"), ({"scale": 0.0}, "scale"), ({"k": -1.0}, "k")],
)
def test_bad_parameters_are_named(params, name):
    with pytest.raises(InvalidParameterError, match=f"'{name}'"):
        aggregate("elo", ballots_from_matrix(np.eye(3)), **params)


def test_a_voter_of_weight_zero_changes_nothing_over_300_random_cases():
    """Issue 26: its weight once entered the mean that scales k, and its games the shuffled orders."""
    rng = np.random.default_rng(26)
    for _ in range(300):
        scores = rng.normal(size=(6, 4))
        weights = rng.integers(1, 4, size=6).astype(float)
        with_zero = np.vstack([scores, rng.normal(size=(1, 4))])
        params = {"permutations": 3, "seed": int(rng.integers(1000))}
        alone = aggregate("elo", ballots_from_matrix(scores, weights), **params)
        padded = aggregate("elo", ballots_from_matrix(with_zero, np.append(weights, 0.0)), **params)
        np.testing.assert_allclose(padded["score"].to_numpy(), alone["score"].to_numpy(), atol=1e-9)


def test_weights_scale_k_relative_to_the_counted_voters_in_the_natural_order():
    scores = np.array([[3.0, 2.0, 1.0], [1.0, 3.0, 2.0], [2.0, 1.0, 3.0]])
    weights = np.array([1.0, 3.0, 0.0])
    ranking = aggregate("elo", ballots_from_matrix(scores, weights), shuffle=False).sort("system")
    counted = [(v, a, b) for v, a, b in natural_order(scores) if weights[v] > 0]
    expected = reference_elo(scores[:2], weights[:2], counted)  # the mean of the counted weights: 2
    np.testing.assert_allclose(ranking["score"].to_numpy(), expected, atol=1e-9)
