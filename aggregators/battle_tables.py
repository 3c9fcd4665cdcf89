"""Pairwise tables from battles: win probabilities with Hoeffding intervals, and paired tests.

Both read a pair's battles through its counts (:func:`aggregators.battles.battle_counts`):

- :func:`pairwise_confidence_battles` is :func:`aggregators.pairwise_confidence`
  on battles: the probability that ``a`` beats ``b`` is its credit (ties half)
  over the weight of their battles — observed, nothing imputed; 1/2 for a pair
  that never battled, with the interval [0, 1] — and ``n`` counts their
  battles that were not ties, the evidence rule of
  :mod:`aggregators.pairwise_intervals` (Hoeffding, 1963).
- :func:`paired_tests_battles` is :func:`aggregators.paired_tests` on one voter
  per battle (winner 1, loser 0, a tie 1/2 each): a pair's differences are +1
  ``wins`` times, 0 ``ties`` times and -1 ``losses`` times, so the t test, the
  sign test, the mean and the median follow from the counts, and Wilcoxon's and
  Mood's tests run on those differences per pair.  Every battle counts once, so
  the battles must all weigh the same.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl

from scorehouse.aggregators.battles import Battles, battle_counts, build_battles
from scorehouse.aggregators.errors import InvalidBattlesError
from scorehouse.aggregators.paired_testing import check_alpha, pair_test_table, per_pair_tests, sign_test, t_from_moments
from scorehouse.aggregators.pairwise_intervals import check_delta, hoeffding_table


def _unweighted(battles: Battles) -> Battles:
    return replace(battles, weight=np.ones(battles.size))


def pairwise_confidence_battles(battles: pl.DataFrame, delta: float = 0.05, *, bothbad: str = "tie") -> pl.DataFrame:
    """One row per ordered pair: the observed P(a beats b) with its Hoeffding ``1 - delta`` interval.

    The columns of :func:`aggregators.pairwise_confidence` (see the module docstring).
    """
    check_delta(delta)
    valid = build_battles(battles, bothbad=bothbad)
    credit = battle_counts(valid).credit
    n = len(valid.systems)
    decided = valid.result != 0.5  # the interval counts the battles of a pair that one side won
    won = np.bincount(valid.first[decided] * n + valid.second[decided], minlength=n * n).reshape(n, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        probability = np.where(credit + credit.T > 0, credit / (credit + credit.T), 0.5)
    effective = valid.weight.sum() ** 2 / np.square(valid.weight).sum()
    return hoeffding_table(valid.systems, probability, won + won.T, effective, delta)


def _median(wins: np.ndarray, ties: np.ndarray, losses: np.ndarray) -> np.ndarray:
    """The median of ``wins`` times +1, ``ties`` times 0 and ``losses`` times -1, per pair (NaN when empty)."""
    n = wins + ties + losses

    def value(k: np.ndarray) -> np.ndarray:  # the k-th smallest difference (0-based)
        return np.where(k < losses, -1.0, np.where(k < losses + ties, 0.0, 1.0))

    low, high = value((n - 1) // 2), value(n // 2)
    return np.where(n > 0, (low + high) / 2.0, np.nan)


def paired_tests_battles(battles: pl.DataFrame, *, alpha: float = 0.05, bothbad: str = "tie") -> pl.DataFrame:
    """Every pair of systems compared on their battles, with Holm-adjusted paired tests.

    The columns of :func:`aggregators.paired_tests`, for one voter per battle
    (see the module docstring).
    """
    check_alpha(alpha)
    valid = build_battles(battles, bothbad=bothbad)
    if np.ptp(valid.weight) > 0:
        raise InvalidBattlesError(
            f"paired tests count every battle once, but battles weigh from {valid.weight.min()} to "
            f"{valid.weight.max()}; drop the weight column"
        )
    counts = battle_counts(_unweighted(valid))
    first, second = np.triu_indices(len(valid.systems), k=1)
    wins = np.rint(counts.wins[first, second]).astype(np.int64)
    losses = np.rint(counts.wins[second, first]).astype(np.int64)
    ties = np.rint(counts.ties[first, second]).astype(np.int64)
    n = wins + ties + losses
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (wins - losses) / n
        sd = np.sqrt((wins + losses - n * mean**2) / (n - 1))
    differences = np.array([1.0, 0.0, -1.0])
    # scipy's Wilcoxon and Mood tests take one sample at a time: a loop over pairs (their data, O(battles) in all).
    per_pair = np.array(
        [
            per_pair_tests((d + 1.0) / 2.0, (1.0 - d) / 2.0, d)
            for d in (np.repeat(differences, (w, t, lo)) for w, t, lo in zip(wins, ties, losses))
        ]
    ).reshape(first.size, 4)
    results = {"t": t_from_moments(mean, sd, n), "sign": sign_test(wins, losses)}
    systems = (tuple(valid.systems[a] for a in first), tuple(valid.systems[b] for b in second))
    return pair_test_table(systems, (n, wins, ties, losses), mean, _median(wins, ties, losses), results, per_pair, alpha)
