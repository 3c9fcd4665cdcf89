"""TrueSkill against the reference `trueskill` package on the same game sequence."""

import sys

import numpy as np
import pytest
import trueskill as reference

from scorehouse.aggregators import InvalidBallotsError, InvalidParameterError, aggregate, build_profile
from scorehouse.aggregators.pairwise import games
from tests.aggregators.strategies_paired import ballots_from_matrix, pairformance_ballots


def reference_ratings(sequence, n, environment):
    ratings = [environment.create_rating() for _ in range(n)]
    for a, b, result in zip(sequence.first.tolist(), sequence.second.tolist(), sequence.result.tolist()):
        if result == 1.0:
            ratings[a], ratings[b] = reference.rate_1vs1(ratings[a], ratings[b], env=environment)
        elif result == 0.0:
            ratings[b], ratings[a] = reference.rate_1vs1(ratings[b], ratings[a], env=environment)
        else:
            ratings[a], ratings[b] = reference.rate_1vs1(ratings[a], ratings[b], drawn=True, env=environment)
    return np.array([r.mu for r in ratings]), np.array([r.sigma for r in ratings])


def coarse_ballots(seed):
    """Scores on a grid of 4 values: many draws; a strong and a weak system for upsets."""
    rng = np.random.default_rng(seed)
    scores = np.clip(np.round(rng.normal(loc=[0, 0.5, 1, 2.5], size=(40, 4))), -1, 2)
    scores[rng.random(scores.shape) < 0.1] = np.nan
    scores[0] = 0.0
    return ballots_from_matrix(scores)


@pytest.mark.parametrize("ballots", [pairformance_ballots(), coarse_ballots(0), coarse_ballots(1)])
@pytest.mark.parametrize("settings", [{}, {"mu": 10.0, "sigma": 4.0, "beta": 3.0, "tau": 0.2, "draw_probability": 0.3}])
def test_matches_reference_package(ballots, settings):
    profile = build_profile(ballots)
    sequence = games(profile).shuffled(np.random.default_rng(5))  # the order seed=5 plays
    environment = reference.TrueSkill(**settings, backend="scipy")
    mu, sigma = reference_ratings(sequence, len(profile.systems), environment)
    by_mu = aggregate("trueskill", ballots, seed=5, **settings).sort("system")
    conservative = aggregate("trueskill", ballots, seed=5, rank_by="conservative", **settings).sort("system")
    np.testing.assert_allclose(by_mu["score"].to_numpy(), mu, rtol=0, atol=1e-9)
    np.testing.assert_allclose(conservative["score"].to_numpy(), mu - 3 * sigma, rtol=0, atol=1e-9)


def test_unequal_weights_are_refused():
    ballots = ballots_from_matrix(np.eye(3), weights=np.array([1.0, 2.0, 1.0]))
    with pytest.raises(InvalidBallotsError, match="voter 'v001' has weight 2.0"):
        aggregate("trueskill", ballots)


def test_bad_rank_by_is_named():
    with pytest.raises(InvalidParameterError, match="'rank_by'"):
        aggregate("trueskill", pairformance_ballots(), rank_by="sigma")


def test_the_corrections_are_the_truncated_gaussian_moments_and_import_nothing(monkeypatch):
    from scipy.special import log_ndtr, ndtr
    from scipy.stats import truncnorm

    from scorehouse.aggregators.trueskill_rating import _draw_corrections, _win_corrections

    t, e = 0.3, 0.2
    # a win: Z given Z > e - t, so v = E[Z], w = 1 - Var[Z]; a draw (t >= 0): Z given |Z + t| < e, likewise.
    win, draw = truncnorm(e - t, np.inf), truncnorm(-e - t, e - t)
    monkeypatch.setitem(sys.modules, "scipy.special", None)  # an import in the per-game code would fail now
    np.testing.assert_allclose(_win_corrections(t, e, log_ndtr), (win.mean(), 1 - win.var()), rtol=1e-9)
    np.testing.assert_allclose(_draw_corrections(t, e, ndtr), (draw.mean(), 1 - draw.var()), rtol=1e-9)
