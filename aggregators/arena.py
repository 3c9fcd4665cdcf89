"""The leaderboard arena readers expect: Elo-scale Bradley–Terry ratings, bootstrap intervals, tied ranks.

Chiang et al. (2024), "Chatbot Arena: An Open Platform for Evaluating LLMs by
Human Preference", ICML, publish Bradley–Terry strengths on the Elo scale with
95% bootstrap intervals and a rank that marks which systems the data cannot
order.  Here:

- Rating.  Bradley–Terry's score is the natural-log strength ``t``
  (:mod:`aggregators.bradley_terry`); on the Elo scale, where a difference of
  400 means odds of 10 to 1, it is ``400 · log10(p) = 400 / ln(10) · t``.
  The scale needs an anchor: by default the mean rating is 1000 (the log
  strengths are centred), which singles out no system; with
  ``anchor=<system>`` that system is 1000 in the fit and in every resample
  (its interval is then the point 1000, and the others' intervals are
  relative to it, as when a leaderboard pins a reference model).
- Interval.  The percentile interval at ``level`` (default 95%) of the ratings
  over bootstrap resamples of the battles
  (:func:`aggregators.battle_bootstrap.resampled_battle_scores`).
- Rank.  ``rank`` is the rank of the rating (1 = best, equal ratings tie);
  ``rank_ub``, the "statistically tied" rank arena leaderboards show, is
  1 + the number of systems whose lower bound lies above this system's upper
  bound: the best rank the system cannot be excluded from.
- ``n_battles`` and ``win_rate`` (credit over battles, ties half, weighted) per system.
- Notes.  What the fit and its resamples noted (a comparison graph in several
  components, whose ratings are not comparable; a fit that did not converge),
  each once.

:func:`arena_matrices` gives the pairwise win-rate and battle-count matrices
as a tidy table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.aggregators.battle_bootstrap import resampled_battle_scores
from scorehouse.aggregators.battle_ranking import fit_battles
from scorehouse.aggregators.battles import battle_counts, build_battles, played_matrix
from scorehouse.aggregators.bootstrapping import check_resampling, score_intervals
from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.ranking import tie_classes

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of natural-log strength
CENTRE = 1000.0
METHOD = "bradley_terry"


def elo_scale(log_strength: np.ndarray, anchor: int | None) -> np.ndarray:
    """Ratings ``1000 + 400 / ln(10) · (t - t_anchor)`` (``t_anchor`` the mean when ``anchor`` is None), per row."""
    reference = log_strength.mean(-1, keepdims=True) if anchor is None else log_strength[..., anchor, None]
    return CENTRE + ELO_PER_NAT * (log_strength - reference)


def statistical_rank(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``1 +`` the number of systems whose lower bound is above each system's upper bound."""
    order = np.sort(lower)
    return 1 + lower.size - np.searchsorted(order, upper, side="right")


@dataclass(frozen=True)
class ArenaLeaderboard:
    """The leaderboard table and the notes of the fits behind it."""

    table: pl.DataFrame
    notes: tuple[str, ...]
    systems: tuple[str, ...]
    played: np.ndarray  # battles of each pair of ``systems``, each system's own on the diagonal


def arena_leaderboard(
    battles: pl.DataFrame,
    *,
    anchor: str | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    bothbad: str = "tie",
    level: float = 0.95,
) -> ArenaLeaderboard:
    """One row per system: ``system, rating, lower, upper, rank, rank_ub, n_battles, win_rate``, best first.

    See the module docstring for the rating, its anchor, the ranks and the notes.
    Bradley–Terry runs with its default parameters; deterministic for a given ``seed``.
    """
    check_resampling(n_resamples, level)
    valid = build_battles(battles, bothbad=bothbad)
    if anchor is not None and anchor not in valid.systems:
        raise InvalidParameterError(
            f"arena_leaderboard: anchor {anchor!r} is not a system of the battles; "
            f"use one of {list(valid.systems)[:10]}{' ...' if len(valid.systems) > 10 else ''} or None (mean 1000)"
        )
    where = None if anchor is None else valid.systems.index(anchor)
    point, params = fit_battles(METHOD, valid, {})
    resampled = resampled_battle_scores(METHOD, valid, params, n_resamples=n_resamples, seed=seed)
    rating = elo_scale(point.scores, where)
    lower, upper = score_intervals(elo_scale(resampled.scores, where), level)
    counts = battle_counts(valid)
    credit = counts.credit
    played = played_matrix(counts)
    table = pl.DataFrame(
        {
            "system": list(valid.systems),
            "rating": rating,
            "lower": lower,
            "upper": upper,
            "rank": tie_classes(rating),
            "rank_ub": statistical_rank(lower, upper),
            "n_battles": played.diagonal(),
            "win_rate": credit.sum(1) / (credit + credit.T).sum(1),
        }
    ).sort("rank", "system")
    return ArenaLeaderboard(table, tuple(dict.fromkeys(point.notes + resampled.notes)), valid.systems, played)


def arena_matrices(battles: pl.DataFrame, *, bothbad: str = "tie") -> pl.DataFrame:
    """One row per ordered pair of systems: ``system_a, system_b, battles, win_rate`` (NaN without battles).

    ``win_rate`` is the weighted credit of ``system_a`` against ``system_b``
    (ties half) over their battles' weight; ``battles`` counts their battles.
    Sorted by ``system_a, system_b``.
    """
    counts = battle_counts(build_battles(battles, bothbad=bothbad))
    credit = counts.credit
    with np.errstate(invalid="ignore", divide="ignore"):  # pairs without battles: NaN
        rate = credit / (credit + credit.T)
    a, b = np.nonzero(~np.eye(len(counts.systems), dtype=bool))
    systems = np.asarray(counts.systems, dtype=object)
    return pl.DataFrame(
        {
            "system_a": systems[a].tolist(),
            "system_b": systems[b].tolist(),
            "battles": counts.voters[a, b].astype(np.int64),
            "win_rate": rate[a, b],
        },
        schema={"system_a": pl.String, "system_b": pl.String, "battles": pl.Int64, "win_rate": pl.Float64},
    )
