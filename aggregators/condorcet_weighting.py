"""Voter weights that make a system the Condorcet winner, by linear programming.

Rofin et al. (2023, "Vote'n'Rank: Revision of Benchmarking with Social
Choice Theory", EACL, case study "Condorcet search") ask which task weights
would make a given system win: the weights ``w`` (non-negative, summing to 1,
optionally within per-voter bounds) under which the system is the Condorcet
winner of the weighted majority relation of :mod:`aggregators.majority`.
``margin="weak"`` (default, the paper's Eq. 2, ``G_m w >= 0``): no other
system beats it, ties allowed; ``margin="strict"``: it beats every other
system.

Voter ``v``'s vote on the pair (system ``x``, other ``y``) is
``d_v = +1`` if it scored ``x`` higher, ``-1`` if lower, ``0`` if it tied them
or did not score both; ``x`` beats ``y`` under ``w`` when the margin
``sum_v w_v d_v`` is positive.  The linear program maximises the smallest
margin ``t`` over the other systems (``scipy.optimize.linprog``, HiGHS); weights
exist exactly when the optimum ``t`` is positive (strict) or not negative
(weak), and the optimal weights are returned (they make the system win by the
widest possible smallest margin) with the systems that tie it under them.
The weights of the ballots themselves are ignored: they are what is sought.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.majority import MARGIN_TOLERANCE
from scorehouse.aggregators.parameters import check_choice
from scorehouse.aggregators.profile import Profile, build_profile

MARGINS = ("weak", "strict")


@dataclass(frozen=True)
class CondorcetWeighting:
    """Voter weights under which a system is the Condorcet winner, and the systems that tie it under them.

    ``weights`` is a ``voter, weight`` table (weights >= 0 summing to 1) that
    can replace the ballots' weight column; ``tied`` names the systems whose
    weighted margin against the winner is zero (always empty when strict).
    """

    weights: pl.DataFrame
    tied: tuple[str, ...]


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
) -> tuple[np.ndarray, np.ndarray]:
    """The weights maximising the system's smallest margin, and its margin against every other system."""
    from scipy.optimize import linprog

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
    return weights, votes @ weights


def _wins(margins: np.ndarray, margin: str) -> bool:
    """Whether the margins against the other systems make a winner (``margin`` = weak or strict)."""
    if not margins.size:
        return True
    smallest = float(margins.min())
    return smallest > MARGIN_TOLERANCE if margin == "strict" else smallest >= -MARGIN_TOLERANCE


def _tied(profile: Profile, system: int, margins: np.ndarray) -> tuple[str, ...]:
    others = [name for index, name in enumerate(profile.systems) if index != system]
    return tuple(others[k] for k in np.flatnonzero(np.abs(margins) <= MARGIN_TOLERANCE))


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
    margin: str = "weak",
) -> CondorcetWeighting | None:
    """Voter weights under which ``system`` is the Condorcet winner, or None if none exist.

    ``bounds`` maps voters to ``(low, high)`` limits on their weight (default
    ``(0, 1)``).  ``margin="weak"`` (default, Rofin et al. 2023, Eq. 2): no
    other system beats ``system``; ``"strict"``: it beats every other system.
    The weights returned maximise the smallest winning margin.
    """
    check_choice("condorcet_weights", "margin", margin, MARGINS)
    profile = build_profile(ballots)
    index = _system_index(profile, system)
    weights, margins = _max_min_margin(profile, index, _weight_bounds(profile, bounds))
    if not _wins(margins, margin):
        return None
    return CondorcetWeighting(
        weights=pl.DataFrame({"voter": list(profile.voters), "weight": weights}),
        tied=_tied(profile, index, margins),
    )


def prospective_winners(
    ballots: pl.DataFrame, bounds: Mapping[str, tuple[float, float]] | None = None, margin: str = "weak"
) -> pl.DataFrame:
    """The systems that some admissible voter weights make the Condorcet winner (``margin`` as above).

    One row per such system (``system``, and ``tied``: the systems that tie it
    under the weights :func:`condorcet_weights` returns), in name order.
    """
    check_choice("prospective_winners", "margin", margin, MARGINS)
    profile = build_profile(ballots)
    limits = _weight_bounds(profile, bounds)
    rows = []
    for index, system in enumerate(profile.systems):  # one linear program per system
        _, margins = _max_min_margin(profile, index, limits)
        if _wins(margins, margin):
            rows.append((system, list(_tied(profile, index, margins))))
    return pl.DataFrame(rows, schema={"system": pl.String, "tied": pl.List(pl.String)}, orient="row")
