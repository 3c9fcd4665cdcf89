"""pairwise_confidence: counts and half-widths by direct computation, coverage on simulated voters."""

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from scipy.stats import norm

from scorehouse.aggregators import InvalidParameterError, pairwise_confidence
from tests.aggregators.strategies_missing import enumerate_compatible, partial_profiles, system_names, to_ballots


@settings(max_examples=50, deadline=None)
@given(partial_profiles(max_systems=5, max_voters=5))
def test_rows_counts_and_half_widths_by_direct_computation(profile):
    scores, weights = profile
    weights = (weights > 0).astype(float)  # equal weights: the half-width uses n itself
    if not weights.any():
        weights[0] = 1.0
    n_voters, n = scores.shape
    delta = 0.1
    expected_p, _ = enumerate_compatible(scores, weights)
    table = pairwise_confidence(to_ballots(scores, weights), delta=delta)
    names = system_names(n)
    assert table.height == n * (n - 1)
    assert table.select("system_a", "system_b").rows() == [(a, b) for a in names for b in names if a != b]
    for row in table.iter_rows(named=True):
        i, j = names.index(row["system_a"]), names.index(row["system_b"])
        count = sum(
            weights[v] > 0
            and not np.isnan(scores[v, i])
            and not np.isnan(scores[v, j])
            and scores[v, i] != scores[v, j]
            for v in range(n_voters)
        )
        assert row["n"] == count
        assert row["probability"] == pytest.approx(expected_p[i, j], abs=1e-12)
        if count == 0:
            assert row["half_width"] == math.inf
            assert (row["lower"], row["upper"], row["excludes_half"]) == (0.0, 1.0, False)
        else:
            half = math.sqrt(math.log(2 / delta) / (2 * count))
            assert row["half_width"] == pytest.approx(half)
            assert row["lower"] == pytest.approx(max(0.0, expected_p[i, j] - half))
            assert row["upper"] == pytest.approx(min(1.0, expected_p[i, j] + half))
            assert row["excludes_half"] == (abs(expected_p[i, j] - 0.5) > half)


def test_unequal_weights_use_the_effective_number_of_voters():
    # weights 1 and 3 on two complete voters: N_eff = 4^2 / (1 + 9) = 1.6 < n = 2
    ballots = pl.DataFrame(
        {"voter": ["x", "x", "y", "y"], "system": ["a", "b"] * 2, "score": [2.0, 1.0, 1.0, 2.0], "weight": [1.0, 1.0, 3.0, 3.0]}
    )
    row = pairwise_confidence(ballots, delta=0.2).row(0, named=True)
    assert (row["system_a"], row["system_b"], row["n"]) == ("a", "b", 2)
    assert row["probability"] == pytest.approx(1 / 4)
    assert row["half_width"] == pytest.approx(math.sqrt(math.log(2 / 0.2) / (2 * 1.6)))


@pytest.mark.parametrize("delta", [0, 1, -0.1, 1.5, float("nan"), "0.05", True, None])
def test_delta_outside_the_open_unit_interval_is_refused(delta):
    ballots = pl.DataFrame({"voter": ["x", "x"], "system": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InvalidParameterError) as error:
        pairwise_confidence(ballots, delta=delta)
    assert "'delta'" in str(error.value) and f"got {delta!r}" in str(error.value)


def test_intervals_cover_the_true_probability_at_least_at_the_nominal_rate():
    # Two systems; per voter a ~ N(0.3, 1) and b ~ N(0, 1), each score missing with probability
    # 0.3.  A voter that saw both gives 1[a > b]; any other voter gives 1/2 (one unseen system
    # lands above the one seen with probability 1/(1+1)).  So the imputed probability has the
    # expectation q p + (1 - q) / 2 with q = 0.7^2 and p = P(a > b) = Phi(0.3 / sqrt 2).
    rng = np.random.default_rng(7)
    delta, replications, n_voters, missing = 0.2, 300, 30, 0.3
    p = norm.cdf(0.3 / math.sqrt(2))
    q = (1 - missing) ** 2
    truth = q * p + (1 - q) / 2
    covered = 0
    for _ in range(replications):
        scores = rng.normal(size=(n_voters, 2)) + [0.3, 0.0]
        scores[rng.random(scores.shape) < missing] = np.nan
        row = pairwise_confidence(to_ballots(scores, np.ones(n_voters)), delta=delta).row(0, named=True)
        covered += row["lower"] <= truth <= row["upper"]
    # Hoeffding guarantees at least 1 - delta; allow three binomial standard deviations
    assert covered / replications >= 1 - delta - 3 * math.sqrt(delta * (1 - delta) / replications)


def test_a_clear_difference_on_many_voters_excludes_one_half():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(400, 2)) + [1.0, 0.0]
    table = pairwise_confidence(to_ballots(scores, np.ones(400)), delta=0.05)
    assert table.get_column("excludes_half").to_list() == [True, True]
    assert table.row(0, named=True)["lower"] > 0.5
