"""Positional scoring: the points a voter gives each system for its place.

A positional rule gives the system a voter places at position ``k`` (1 = best)
``vector[k - 1]`` points; Borda, Plurality, Dowdall and the Threshold rule are
positional rules.  A tie puts several systems on a block of positions
``a..b`` (``a`` = 1 + the number of systems scored strictly higher, ``b`` =
``a`` + the number of other systems tied with it), and ``ties`` says which
points the block shares:

* ``"average"``: the mean of ``vector[a-1 .. b-1]``, so a voter hands out the
  same total whatever its ties;
* ``"min"``: the points of the best position of the block, ``vector[a-1]``;
* ``"max"``: the points of the worst position of the block, ``vector[b-1]``
  (Vote'n'Rank's Borda, ``n - max-rank``).

Missing scores get no position and no points.  Positions are computed per
voter among the systems it scored, over all voters at once.
"""

from __future__ import annotations

import numpy as np
from scorehouse.aggregators.ranks import rankdata

from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.parameters import check_choice

TIES = ("average", "min", "max")


def position_blocks(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best and worst position of each cell's tie block, per voter (row).

    Returns float arrays ``(best, worst)`` shaped like ``scores``: ``best`` is
    1 + the number of systems the voter scored strictly higher, ``worst`` is
    the number scored higher or equal.  NaN where the score is missing.
    """
    negated = -np.asarray(scores, dtype=float)
    best = rankdata(negated, method="min", nan_policy="omit")
    worst = rankdata(negated, method="max", nan_policy="omit")
    return best, worst


def positional_points(scores: np.ndarray, vector: np.ndarray, ties: str) -> np.ndarray:
    """Points of every (voter, system) cell under the positional rule ``vector``.

    ``vector`` has one entry per position (at least as many as systems);
    missing cells get 0 points.
    """
    vector = np.asarray(vector, dtype=float)
    best, worst = position_blocks(scores)
    observed = ~np.isnan(best)
    a = np.where(observed, best, 1).astype(np.int64)
    b = np.where(observed, worst, 1).astype(np.int64)
    if ties == "min":
        points = vector[a - 1]
    elif ties == "max":
        points = vector[b - 1]
    else:
        # cumulative[k] = sum of the first k entries; the block a..b sums to cumulative[b] - cumulative[a-1]
        cumulative = np.concatenate(([0.0], np.cumsum(vector)))
        points = (cumulative[b] - cumulative[a - 1]) / (b - a + 1)
    return np.where(observed, points, 0.0)


def weighted_totals(weights: np.ndarray, per_voter: np.ndarray) -> np.ndarray:
    """Column sums of ``weights[v] * per_voter[v, s]``.

    Summed along the voter axis of the full product rather than by a matrix
    product, so every system's total adds the same voters in the same order:
    systems whose per-voter points are equal get bit-identical totals.
    """
    return (np.asarray(weights, dtype=float)[:, None] * per_voter).sum(axis=0)


def positional_scores(profile: Profile, method: str, vector: np.ndarray, ties: str) -> np.ndarray:
    """Weighted totals of the positional rule ``vector`` for ``method`` (checks ``ties``)."""
    check_choice(method, "ties", ties, TIES)
    return weighted_totals(profile.weights, positional_points(profile.scores, vector, ties))
