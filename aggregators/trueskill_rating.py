"""TrueSkill ratings from the sequence of pairwise games.

Herbrich, Minka and Graepel (2007), "TrueSkill(TM): A Bayesian Skill Rating
System", NIPS.  Each system's skill is a Gaussian ``N(mu, sigma^2)``; a game's
performances are skill plus ``N(0, beta^2)`` noise; a draw means the
performances differ by less than the draw margin ``epsilon``.  For two players
the update is closed-form (the paper's Table 1, with the dynamics ``tau``
added to both variances first).  With ``c^2 = 2 beta^2 + sigma_a^2 + sigma_b^2``,
``t = (mu_winner - mu_loser) / c`` and ``e = epsilon / c``:

    mu_winner += sigma_winner^2 / c * v(t, e)      sigma^2 *= 1 - sigma^2 / c^2 * w(t, e)
    mu_loser  -= sigma_loser^2  / c * v(t, e)

with ``v, w`` the truncated-Gaussian corrections for a win or a draw.  The
draw margin follows from the draw probability:
``epsilon = sqrt(2) * beta * Phi^-1((draw_probability + 1) / 2)``.

The games and their (seeded) order are those of :mod:`aggregators.elo`.  The
score is ``mu``, or the conservative ``mu - 3 sigma`` with
``rank_by="conservative"``.  A game has no weight in TrueSkill, so voters must
all weigh the same.

Battles form: the battles in play order (:func:`aggregators.battles.battle_games`),
not shuffled by default; the battles must all weigh the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from scorehouse.aggregators.battles import Battles, battle_games
from scorehouse.aggregators.elo import check_order, orders
from scorehouse.aggregators.pairwise import Games, games
from scorehouse.aggregators.parameters import check_choice, check_range
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import BattlesForm, Scored, register

NAME = "trueskill"
MU = 25.0
SIGMA = MU / 3


def _pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _win_corrections(t: float, e: float, log_cdf: Callable[[float], float]) -> tuple[float, float]:
    """``v, w`` for a win: the mean and variance corrections of a Gaussian truncated at ``e``.

    ``log_cdf`` is the standard normal's log cdf (``scipy.special.log_ndtr``).
    """
    x = t - e
    # pdf/cdf in log space: cdf underflows long before the ratio stops being finite.
    v = math.exp(-0.5 * x * x - 0.5 * math.log(2.0 * math.pi) - float(log_cdf(x)))
    return v, v * (v + x)


def _draw_corrections(t: float, e: float, cdf: Callable[[float], float]) -> tuple[float, float]:
    """``v, w`` for a draw: a Gaussian truncated to ``[-e, e]``; ``cdf`` is the standard normal's (``scipy.special.ndtr``)."""
    t_abs = abs(t)
    lo, hi = -e - t_abs, e - t_abs
    mass = float(cdf(hi) - cdf(lo))
    v = (_pdf(lo) - _pdf(hi)) / mass
    w = v * v + (hi * _pdf(hi) - lo * _pdf(lo)) / mass
    return (-v if t < 0 else v), w


def play(
    sequence: Games, n: int, *, mu: float, sigma: float, beta: float, tau: float, draw_probability: float
) -> tuple[np.ndarray, np.ndarray]:
    """Means and standard deviations of ``n`` systems after playing ``sequence`` in order."""
    # Imported per call, not per game (8% of the play loop) nor with the module (commands that never rate).
    from scipy.special import log_ndtr, ndtr, ndtri

    means = [float(mu)] * n
    variances = [float(sigma) ** 2] * n
    margin = math.sqrt(2.0) * beta * float(ndtri((draw_probability + 1.0) / 2.0))
    tau2, beta2 = tau * tau, beta * beta
    # Each update needs the ratings the previous game left: inherently sequential.
    for a, b, result in zip(sequence.first.tolist(), sequence.second.tolist(), sequence.result.tolist()):
        if result == 0.0:
            a, b = b, a  # a is the winner from here on
        var_a, var_b = variances[a] + tau2, variances[b] + tau2
        c2 = 2.0 * beta2 + var_a + var_b
        c = math.sqrt(c2)
        t, e = (means[a] - means[b]) / c, margin / c
        v, w = _draw_corrections(t, e, ndtr) if result == 0.5 else _win_corrections(t, e, log_ndtr)
        means[a] += var_a / c * v
        means[b] -= var_b / c * v
        variances[a] = var_a * (1.0 - var_a / c2 * w)
        variances[b] = var_b * (1.0 - var_b / c2 * w)
    return np.array(means), np.sqrt(variances)


def ratings(
    sequence: Games,
    n: int,
    *,
    mu: float,
    sigma: float,
    beta: float,
    tau: float,
    draw_probability: float,
    rank_by: str,
    shuffle: bool,
    permutations: int,
    seed: int,
) -> np.ndarray:
    """TrueSkill scores of ``n`` systems after ``sequence``, averaged over its orders (:func:`aggregators.elo.orders`)."""
    check_range(NAME, "mu", mu)
    for parameter, value in (("sigma", sigma), ("beta", beta)):
        check_range(NAME, parameter, value, low=np.finfo(float).tiny)
    check_range(NAME, "tau", tau, low=0.0)
    # A draw must have positive probability: the data's ties are draws.
    check_range(NAME, "draw_probability", draw_probability, low=1e-12, high=1.0 - 1e-12)
    check_choice(NAME, "rank_by", rank_by, ("mu", "conservative"))
    check_order(NAME, shuffle, permutations)
    results = [
        play(order, n, mu=mu, sigma=sigma, beta=beta, tau=tau, draw_probability=draw_probability)
        for order in orders(sequence, shuffle=shuffle, permutations=permutations, seed=seed)
    ]
    means = np.mean([m for m, _ in results], axis=0)
    if rank_by == "mu":
        return means
    return means - 3.0 * np.mean([s for _, s in results], axis=0)


def _fit_battles(battles: Battles, params: Mapping[str, Any]) -> Scored:
    return Scored(ratings(battle_games(battles), len(battles.systems), **params))


@register(
    NAME,
    view="pairwise",
    handles_missing=True,
    stochastic=True,
    citation="Herbrich, Minka & Graepel (2007), TrueSkill: A Bayesian Skill Rating System, NIPS",
    handles_weights=False,
    battles=BattlesForm(fit=_fit_battles, through="sequence", defaults={"shuffle": False}),
)
def trueskill(
    profile: Profile,
    *,
    mu: float = MU,
    sigma: float = SIGMA,
    beta: float = SIGMA / 2,
    tau: float = SIGMA / 100,
    draw_probability: float = 0.10,
    rank_by: str = "mu",
    shuffle: bool = True,
    permutations: int = 1,
    seed: int = 0,
) -> np.ndarray:
    """TrueSkill two-player updates over every pairwise game, ranked by ``mu`` or ``mu - 3 sigma``."""
    return ratings(
        games(profile), len(profile.systems), mu=mu, sigma=sigma, beta=beta, tau=tau,
        draw_probability=draw_probability, rank_by=rank_by, shuffle=shuffle, permutations=permutations, seed=seed,
    )
