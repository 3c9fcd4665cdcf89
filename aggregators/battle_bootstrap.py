"""Bootstrap intervals of a ranking from battles: the battles are the sample.

Efron (1979), "Bootstrap methods: another look at the jackknife", Ann. Statist.
7(1); resampling the battles with replacement is how arena leaderboards put
intervals on their Bradley–Terry ratings (Chiang et al. (2024), "Chatbot Arena:
An Open Platform for Evaluating LLMs by Human Preference", ICML).

A method whose battles form goes through the counts depends on the battles only
through how many fell in each (pair, outcome) cell, so a resample is one
multinomial draw of the number of battles in every cell with the observed
proportions — exactly the counts of ``n`` battles drawn with replacement — and
the method refits on a batch of resampled counts at once (leading axes of
:class:`aggregators.pairwise.PairCounts`).  Battles of unequal weight count in
their cell with the cell's mean weight (exact when the weights are equal, the
usual case).  A method that plays the battles in order refits on each
resample's battles, drawn with replacement and kept in play order.

The intervals and the rank intervals are those of
:func:`aggregators.bootstrapping.bootstrap` (:func:`aggregators.bootstrapping.interval_table`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from scorehouse.aggregators.battle_ranking import battles_form, fit_battles
from scorehouse.aggregators.battles import Battles, battle_games, build_battles
from scorehouse.aggregators.bootstrapping import check_resampling, interval_table, outcome_counts
from scorehouse.aggregators.registry import Scored, method_info

RESAMPLES_PER_BATCH = 100  # counts of 100 resamples at a time: memory O(100 x systems^2), not O(n_resamples x ...)


def _cells(battles: Battles) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The occupied (pair, outcome) cells: pair ends ``a < b``, outcome (0 a won, 1 tie, 2 b won), count, mean weight."""
    n = len(battles.systems)
    games = battle_games(battles)
    outcome = np.rint(2.0 * (1.0 - games.result)).astype(np.int64)
    cell = (games.first * n + games.second) * 3 + outcome
    count = np.bincount(cell, minlength=3 * n * n)
    occupied = np.flatnonzero(count)
    weight = np.bincount(cell, weights=games.weight, minlength=3 * n * n)[occupied] / count[occupied]
    pair, outcome = np.divmod(occupied, 3)
    return pair // n, pair % n, outcome, count[occupied], weight


def _counts_resamples(
    name: str, battles: Battles, params: Mapping[str, Any], n_resamples: int, rng: np.random.Generator
) -> Scored:
    """Scores of every resample from multinomial draws of the (pair, outcome) cells, fitted batch by batch."""
    n = len(battles.systems)
    first, second, outcome, count, weight = _cells(battles)
    a, b = np.triu_indices(n, k=1)
    slot = np.full((n, n), -1)
    slot[a, b] = np.arange(a.size)
    where = slot[first, second]
    # occupied cells come in pair order, so each pair's cells are one run: summed with reduceat
    runs = np.flatnonzero(np.r_[True, where[1:] != where[:-1]])
    scores, notes = [], []
    for start in range(0, n_resamples, RESAMPLES_PER_BATCH):  # a loop over batches of resamples
        size = min(RESAMPLES_PER_BATCH, n_resamples - start)
        drawn = rng.multinomial(battles.size, count / battles.size, size=size)
        per_outcome = np.zeros((size, a.size, 3))
        per_outcome[:, where, outcome] = drawn * weight
        voters = np.zeros((size, n, n), dtype=np.int64)
        voters[:, first[runs], second[runs]] = np.add.reduceat(drawn, runs, axis=1)
        voters[:, second[runs], first[runs]] = voters[:, first[runs], second[runs]]
        output = method_info(name).from_counts(outcome_counts(battles.systems, a, b, per_outcome, voters), **params)
        scores.append(np.asarray(output.scores if isinstance(output, Scored) else output, dtype=float))
        notes.extend(output.notes if isinstance(output, Scored) else ())
    return Scored(np.concatenate(scores), tuple(dict.fromkeys(notes)))


def _sequence_resamples(
    name: str, battles: Battles, params: Mapping[str, Any], n_resamples: int, rng: np.random.Generator
) -> Scored:
    """Scores of every resample of the battles drawn with replacement, kept in play order."""
    scores, notes = [], []
    for _ in range(n_resamples):  # one refit per resample: the method plays the battles in order
        result, _ = fit_battles(name, battles.subset(np.sort(rng.integers(0, battles.size, battles.size))), params)
        scores.append(result.scores)
        notes.extend(result.notes)
    return Scored(np.array(scores), tuple(dict.fromkeys(notes)))


def resampled_battle_scores(
    name: str, battles: Battles, params: Mapping[str, Any], *, n_resamples: int, seed: int
) -> Scored:
    """Scores (resamples x systems) of method ``name`` on ``n_resamples`` bootstrap resamples of ``battles``.

    ``params`` are every parameter of the method (as :func:`aggregators.battle_ranking.fit_battles`
    returns them).  Deterministic for a given ``seed``.
    """
    rng = np.random.default_rng(seed)
    if battles_form(name).through == "counts":
        return _counts_resamples(name, battles, params, n_resamples, rng)
    return _sequence_resamples(name, battles, params, n_resamples, rng)


def bootstrap_battles(
    name: str,
    battles: pl.DataFrame,
    params: Mapping[str, Any] | None = None,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    bothbad: str = "tie",
) -> pl.DataFrame:
    """Point ranking of method ``name`` on a battles table with bootstrap score and rank intervals.

    The columns are those of :func:`aggregators.bootstrapping.bootstrap`:
    ``system, score, rank, tied, score_low, score_high, rank_best, rank_worst,
    tie_group``.  Notes of the fits are issued as warnings.
    """
    check_resampling(n_resamples, level)
    valid = build_battles(battles, bothbad=bothbad)
    point, effective = fit_battles(name, valid, dict(params or {}))
    resampled = resampled_battle_scores(name, valid, effective, n_resamples=n_resamples, seed=seed)
    return interval_table(name, valid.systems, point, resampled, level)


