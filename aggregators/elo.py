"""Elo ratings from the sequence of pairwise games.

Elo (1978), "The Rating of Chessplayers, Past and Present": every system starts
at ``initial``; after a game between ``a`` and ``b`` with result ``S`` (1 win,
0.5 tie, 0 loss for ``a``) both move by ``k * (S - E)``, where
``E = 1 / (1 + 10 ** ((R_b - R_a) / scale))`` is a's expected result.  Used to
rank NLP systems from instance-level comparisons by Peyrard et al. (2021),
"Better than Average: Paired Evaluation of NLP Systems", ACL.

The games are every pairwise outcome of the ballots
(:func:`aggregators.pairwise.games`).  Elo depends on their order, which the
ballots do not define, so by default they are played in a random order drawn
from ``seed`` (the i-th order is the i-th ``numpy.random.default_rng(seed).permutation``
of the natural order), and the ratings after ``permutations`` such orders are
averaged to reduce that dependence.  ``shuffle=False`` plays them in the natural order (voter by
voter, pairs in system order).  A voter's weight scales the ``k`` of its games
(relative to the mean weight of the voters that count, so equal weights change nothing).
A voter (or battle) of weight 0 does not count at all: its games are left out before
the orders are drawn and its weight is not in the mean, so adding one changes nothing.

Battles form: the battles in play order (:func:`aggregators.battles.battle_games`),
not shuffled by default (``shuffle=False``): their order is real, so the ratings
are the arena's online Elo; a battle's weight scales its ``k`` the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from scorehouse.aggregators.battles import Battles, battle_games
from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.pairwise import Games, games
from scorehouse.aggregators.parameters import check_range
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import BattlesForm, Scored, register

NAME = "elo"


def play(sequence: Games, n: int, *, k: float, scale: float, initial: float) -> np.ndarray:
    """Final Elo ratings of ``n`` systems after playing ``sequence`` in order."""
    rating = [float(initial)] * n
    step = (k * sequence.weight).tolist()
    # Each update needs the ratings the previous game left: inherently sequential.
    for a, b, result, kw in zip(sequence.first.tolist(), sequence.second.tolist(), sequence.result.tolist(), step):
        expected = 1.0 / (1.0 + 10.0 ** ((rating[b] - rating[a]) / scale))
        delta = kw * (result - expected)
        rating[a] += delta
        rating[b] -= delta
    return np.array(rating)


def counted_games(sequence: Games) -> Games:
    """The games of ``sequence`` with a weight > 0: a voter of weight 0 plays no game, so it cannot move the
    others' games in a shuffled order."""
    keep = sequence.weight > 0
    if keep.all():
        return sequence
    return Games(sequence.first[keep], sequence.second[keep], sequence.result[keep], sequence.weight[keep])


def mean_counted(weights: np.ndarray) -> float:
    """The mean weight of the voters (or battles) that count (weight > 0); 0 when none does."""
    counted = weights[weights > 0]
    return float(counted.mean()) if counted.size else 0.0


def check_order(method: str, shuffle: bool, permutations: int) -> None:
    """Validate the game-order parameters shared by the sequential ratings."""
    if isinstance(permutations, bool) or not isinstance(permutations, (int, np.integer)) or permutations < 1:
        raise InvalidParameterError(
            f"method {method!r}: parameter 'permutations' must be an integer >= 1, got {permutations!r}"
        )
    if not shuffle and permutations != 1:
        raise InvalidParameterError(
            f"method {method!r}: shuffle=False plays the one natural order, so parameter 'permutations' must be 1, "
            f"got permutations={permutations!r}; use shuffle=True to average random orders"
        )


def orders(sequence: Games, *, shuffle: bool, permutations: int, seed: int) -> list[Games]:
    """The game sequences to play: ``sequence`` as it is, or ``permutations`` seeded shuffles of it."""
    if not shuffle:
        return [sequence]
    rng = np.random.default_rng(seed)
    return [sequence.shuffled(rng) for _ in range(permutations)]


def ratings(
    sequence: Games,
    n: int,
    mean_weight: float,
    *,
    k: float,
    scale: float,
    initial: float,
    shuffle: bool,
    permutations: int,
    seed: int,
) -> np.ndarray:
    """Elo ratings of ``n`` systems after ``sequence``, averaged over its orders (:func:`orders`).

    ``mean_weight`` is the mean weight of the voters (or battles) the games
    come from: a game's ``k`` is ``k`` times its weight relative to it.
    """
    check_range(NAME, "k", k, low=0.0)
    check_range(NAME, "scale", scale, low=0.0)
    if scale == 0:
        raise InvalidParameterError(f"method {NAME!r}: parameter 'scale' must be > 0, got {scale!r}")
    check_range(NAME, "initial", initial)
    check_order(NAME, shuffle, permutations)
    relative_k = k / mean_weight if mean_weight > 0 else 0.0
    sequence = counted_games(sequence)
    played = [
        play(order, n, k=relative_k, scale=scale, initial=initial)
        for order in orders(sequence, shuffle=shuffle, permutations=permutations, seed=seed)
    ]
    return np.mean(played, axis=0)


def _fit_battles(battles: Battles, params: Mapping[str, Any]) -> Scored:
    return Scored(ratings(battle_games(battles), len(battles.systems), mean_counted(battles.weight), **params))


@register(
    NAME,
    view="pairwise",
    handles_missing=True,
    stochastic=True,
    citation=(
        "Elo (1978), The Rating of Chessplayers, Past and Present; Peyrard et al. (2021), "
        "Better than Average: Paired Evaluation of NLP Systems, ACL"
    ),
    # Not anonymous nor neutral: the games are played in an order derived from the
    # voter and system names, and Elo's result depends on the order of the games.
    battles=BattlesForm(fit=_fit_battles, through="sequence", defaults={"shuffle": False}),
)
def elo(
    profile: Profile,
    *,
    k: float = 20.0,
    scale: float = 400.0,
    initial: float = 1500.0,
    shuffle: bool = True,
    permutations: int = 1,
    seed: int = 0,
) -> np.ndarray:
    """Elo ratings after every pairwise game, averaged over ``permutations`` seeded game orders."""
    return ratings(
        games(profile), len(profile.systems), mean_counted(profile.weights), k=k, scale=scale, initial=initial,
        shuffle=shuffle, permutations=permutations, seed=seed,
    )
