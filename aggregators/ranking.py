"""Method scores to the contract's ranking table (ranks and ties).

Every method returns one score per system, higher is better; this module turns
those scores into the ``system, score, rank, tied`` table of the contract.
Scores that differ by no more than a relative 1e-9 are a tie: sums of the same
numbers in another order differ in the last bits, and a tie must not depend on
the order of the voters.  Systems with a NaN score (nothing to rank them on)
come last, tied with each other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from scorehouse.aggregators.schemas import RANKING_SCHEMA, SCORE, SYSTEM

TIE_TOLERANCE = 1e-9


def tie_classes(scores: np.ndarray) -> np.ndarray:
    """Rank of each score (1 = highest), tied scores sharing the smallest rank; along the last axis, so a
    batch of rankings (a bootstrap's resamples x systems) is ranked at once.

    Scores are tied when consecutive sorted values differ by no more than
    ``TIE_TOLERANCE`` relative to their magnitude (at least 1).  NaN ranks last.
    """
    scores = np.asarray(scores, dtype=float)
    n = scores.shape[-1] if scores.ndim else 0
    if n == 0:
        return np.empty(scores.shape, dtype=np.int64)
    key = np.where(np.isnan(scores), -np.inf, scores)
    order = np.argsort(-key, axis=-1, kind="stable")  # highest first, equal scores in system order
    ordered = np.take_along_axis(key, order, axis=-1)
    nan_sorted = np.take_along_axis(np.isnan(scores), order, axis=-1)
    with np.errstate(invalid="ignore"):  # -inf - -inf between two NaN slots
        gap = np.abs(np.diff(ordered, axis=-1))
        scale = np.maximum(1.0, np.maximum(np.abs(ordered[..., :-1]), np.abs(ordered[..., 1:])))
        new_class = ~(gap <= TIE_TOLERANCE * scale)
    new_class &= ~(nan_sorted[..., :-1] & nan_sorted[..., 1:])
    new_class |= nan_sorted[..., :-1] != nan_sorted[..., 1:]
    starts = np.concatenate((np.ones(scores.shape[:-1] + (1,), dtype=bool), new_class), axis=-1)
    positions = np.broadcast_to(np.arange(1, n + 1), scores.shape)
    first_of_class = np.maximum.accumulate(np.where(starts, positions, 0), axis=-1)
    ranks = np.empty(scores.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, first_of_class, axis=-1)
    return ranks


def snap_ties(scores: np.ndarray) -> np.ndarray:
    """``scores`` with every tie class of :func:`tie_classes` set to its highest value (NaN stays NaN); along the
    last axis, so the groups x systems scores of a two-step run are snapped at once.

    What a score passes on when it feeds another computation (a two-step
    run's second step): scores the tie rule calls equal become exactly equal,
    so float noise cannot break the tie later.
    """
    scores = np.asarray(scores, dtype=float)
    ranks = tie_classes(scores)
    rows = ranks.reshape(-1, scores.shape[-1]) if scores.ndim else ranks.reshape(1, 0)
    slots = rows + (scores.shape[-1] + 1) * np.arange(rows.shape[0])[:, None]  # each row's classes apart
    top = np.full(rows.shape[0] * (scores.shape[-1] + 1), -np.inf)
    np.maximum.at(top, slots.ravel(), np.where(np.isnan(scores), -np.inf, scores).ravel())
    return np.where(np.isnan(scores), np.nan, top[slots].reshape(scores.shape))


def ranking_table(systems: Sequence[str], scores: np.ndarray) -> pl.DataFrame:
    """The contract's ranking table for ``systems`` scored by ``scores``."""
    scores = np.asarray(scores, dtype=float)
    ranks = tie_classes(scores)
    counts = np.bincount(ranks, minlength=len(ranks) + 1)
    return pl.DataFrame(
        {
            SYSTEM: list(systems),
            SCORE: scores,
            "rank": ranks,
            "tied": counts[ranks] > 1,
        },
        schema=RANKING_SCHEMA,
    ).sort("rank", SYSTEM)
