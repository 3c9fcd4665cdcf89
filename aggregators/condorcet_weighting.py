"""Voter weights that make a system the Condorcet winner, by linear programming.

Rofin et al. (2023, "Vote'n'Rank: Revision of Benchmarking with Social
Choice Theory", EACL, case study "Condorcet search") ask which task weights
would make a given system win: the weights ``w`` (non-negative, summing to 1,
optionally within per-voter bounds) under which the system strictly beats
every other system in the weighted majority relation of
:mod:`aggregators.majority`.

Voter ``v``'s vote on the pair (system ``x``, other ``y``) is
``d_v = +1`` if it scored ``x`` higher, ``-1`` if lower, ``0`` if it tied them
or did not score both; ``x`` beats ``y`` under ``w`` when the margin
``sum_v w_v d_v`` is positive.  The linear program maximises the smallest
margin ``t`` over the other systems (``scipy.optimize.linprog``, HiGHS); weights
exist exactly when the optimum ``t`` is positive, and the optimal weights are
returned (they make the system win by the widest possible smallest margin).
The weights of the ballots themselves are ignored: they are what is sought.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl
from scipy.optimize import linprog

from aggregators.errors import InvalidParameterError
from aggregators.majority import MARGIN_TOLERANCE
from aggregators.profile import Profile, build_profile


def pairwise_votes(profile: Profile, system: int) -> np.ndarray:
    """``d[k, v]``: +1 / -1 / 0 vote of voter ``v`` on ``system`` against the ``k``-th other system."""
    scores = profile.scores
    others = np.delete(np.arange(len(profile.systems)), system)
    # NaN differences have sign NaN: a voter that did not score both casts 0
    return np.nan_to_num(np.sign(scores[:, [system]] - scores[:, others]).T, nan=0.0)


def _weight_bounds(profile: Profile, bounds: Mapping[str, tuple[float, float]] | None) -> list[tuple[float, float]]:
    limits = {voter: (0.0, 1.0) for voter in profile.voters}
    for voter, pair in (bounds or {}).items():
        if voter not in limits:
            raise InvalidParameterError(
                f"condorcet_weights: bounds name voter {voter!r}, which is not in the ballots; "
                f"voters: {', '.join(profile.voters)}"
            )
        low, high = pair
        if not (np.isfinite(low) and np.isfinite(high) and 0.0 <= low <= high <= 1.0):
            raise InvalidParameterError(
                f"condorcet_weights: bounds of voter {voter!r} must satisfy 0 <= low <= high <= 1, "
                f"got ({low!r}, {high!r})"
            )
        limits[voter] = (float(low), float(high))
    lows, highs = zip(*(limits[v] for v in profile.voters))
    if sum(lows) > 1.0 or sum(highs) < 1.0:
        raise InvalidParameterError(
            f"condorcet_weights: no weights summing to 1 fit the bounds (lower bounds sum to {sum(lows)!r}, "
            f"upper bounds to {sum(highs)!r}); widen the bounds"
        )
    return [limits[v] for v in profile.voters]


def _max_min_margin(
    profile: Profile, system: int, limits: list[tuple[float, float]]
) -> tuple[np.ndarray, float]:
    votes = pairwise_votes(profile, system)
    n_others, n_voters = votes.shape
    # variables: the voter weights, then t; maximise t <=> minimise -t
    objective = np.zeros(n_voters + 1)
    objective[-1] = -1.0
    upper = np.hstack([-votes, np.ones((n_others, 1))])  # t - d_k . w <= 0 for every other system k
    equality = np.hstack([np.ones((1, n_voters)), np.zeros((1, 1))])
    result = linprog(
        objective,
        A_ub=upper if n_others else None,
        b_ub=np.zeros(n_others) if n_others else None,
        A_eq=equality,
        b_eq=[1.0],
        bounds=[*limits, (None, 1.0)],
        method="highs",
    )
    if result.status != 0:
        raise RuntimeError(f"linprog failed on a feasible, bounded program: {result.message}")
    lows, highs = np.array(limits).T
    weights = np.clip(result.x[:n_voters], lows, highs)
    margin = float((votes @ weights).min()) if n_others else 1.0
    return weights, margin


def _system_index(profile: Profile, system: str) -> int:
    if system not in profile.systems:
        raise InvalidParameterError(
            f"condorcet_weights: system {system!r} is not in the ballots; systems: {', '.join(profile.systems)}"
        )
    return profile.systems.index(system)


def condorcet_weights(
    ballots: pl.DataFrame,
    system: str,
    bounds: Mapping[str, tuple[float, float]] | None = None,
) -> pl.DataFrame | None:
    """Voter weights under which ``system`` is the strict Condorcet winner, or None if none exist.

    ``bounds`` maps voters to ``(low, high)`` limits on their weight (default
    ``(0, 1)``).  Returns a ``voter, weight`` table (weights >= 0 summing to 1,
    the ones maximising the smallest winning margin) that can replace the
    ballots' weight column.
    """
    profile = build_profile(ballots)
    index = _system_index(profile, system)
    weights, margin = _max_min_margin(profile, index, _weight_bounds(profile, bounds))
    if margin <= MARGIN_TOLERANCE:
        return None
    return pl.DataFrame({"voter": list(profile.voters), "weight": weights})


def prospective_winners(
    ballots: pl.DataFrame, bounds: Mapping[str, tuple[float, float]] | None = None
) -> list[str]:
    """The systems that some admissible voter weights make the strict Condorcet winner."""
    profile = build_profile(ballots)
    limits = _weight_bounds(profile, bounds)
    return [
        system
        for index, system in enumerate(profile.systems)
        if _max_min_margin(profile, index, limits)[1] > MARGIN_TOLERANCE
    ]
