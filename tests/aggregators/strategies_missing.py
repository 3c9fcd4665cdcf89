"""Hypothesis strategies and the brute-force reference for the missing-score methods.

Kept apart from ``conftest.py`` (written by the registry-wide tests) so the two
can grow independently.  The reference enumerates every complete ranking of the
systems and keeps those compatible with a voter's partial ranking: it shares
no code with :mod:`aggregators.borda_partial`.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
from hypothesis import strategies as st


def system_names(n: int) -> list[str]:
    return [f"s{i:02d}" for i in range(n)]  # zero-padded: name order = column order


def voter_names(n: int) -> list[str]:
    return [f"v{i:03d}" for i in range(n)]


@st.composite
def partial_profiles(draw, max_systems: int = 7, max_voters: int = 4):
    """``(scores, weights)``: a voters x systems matrix with NaN holes and ties, and voter weights.

    Scores come from a few values so that ties are frequent; at least one
    weight is positive (an all-zero profile is an error, tested apart).
    """
    n = draw(st.integers(1, max_systems))
    n_voters = draw(st.integers(1, max_voters))
    rows = []
    for _ in range(n_voters):
        row = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0]), min_size=n, max_size=n))
        holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        rows.append([np.nan if hole else float(x) for x, hole in zip(row, holes)])
    weights = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n_voters, max_size=n_voters))
    if not any(weights):
        weights[draw(st.integers(0, n_voters - 1))] = 1.0
    return np.array(rows, dtype=float).reshape(n_voters, n), np.array(weights)


@st.composite
def complete_profiles(draw, max_systems: int = 7, max_voters: int = 6):
    """``(scores, weights)``: complete strict rankings (each voter a permutation), positive weights."""
    n = draw(st.integers(2, max_systems))
    n_voters = draw(st.integers(1, max_voters))
    scores = np.array([draw(st.permutations(range(n))) for _ in range(n_voters)], dtype=float)
    weights = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n_voters, max_size=n_voters)))
    return scores, weights


def to_ballots(scores: np.ndarray, weights: np.ndarray) -> pl.DataFrame:
    """Long ballots of a dense matrix; NaN cells become null scores."""
    n_voters, n = scores.shape
    return pl.DataFrame(
        {
            "voter": np.repeat(voter_names(n_voters), n),
            "system": np.tile(system_names(n), n_voters),
            "score": scores.ravel(),
            "weight": np.repeat(weights, n),
        }
    ).with_columns(pl.col("score").fill_nan(None))


def enumerate_compatible(scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean over voters of the average over all compatible complete rankings.

    Returns ``P[i, j]`` (share of compatible rankings with i above j) and the
    expected Borda points (systems ranked below).  A complete ranking is
    compatible with a voter when every pair the voter scored differently
    keeps its order; pairs it tied or did not score are free, so every way of
    breaking ties and of placing unscored systems is counted once.
    """
    n_voters, n = scores.shape
    rankings = np.array(list(itertools.permutations(range(n))))  # rankings[r, place] = system
    place = np.argsort(rankings, axis=1)  # place[r, system], 0 = top
    above = place[:, :, None] < place[:, None, :]
    probabilities = np.zeros((n, n))
    points = np.zeros(n)
    for v in range(n_voters):
        compatible = np.ones(len(rankings), dtype=bool)
        for i in range(n):
            for j in range(n):
                if scores[v, i] > scores[v, j]:  # False when either is NaN
                    compatible &= above[:, i, j]
        probabilities += weights[v] * above[compatible].mean(axis=0)
        points += weights[v] * (n - 1 - place[compatible]).mean(axis=0)
    return probabilities / weights.sum(), points / weights.sum()
