"""Hoeffding confidence intervals on the imputed pairwise probabilities of partial rankings.

Himmi, Irurozki, Noiry, Clémençon and Colombo (2023), "Towards More Robust NLP
System Evaluation: Handling Missing Scores in Benchmarks", arXiv:2305.10284:
the pairwise matrix of :mod:`aggregators.borda_partial` estimates, for every
ordered pair (a, b), the probability that a beats b; Hoeffding's inequality
bounds how far a mean of independent [0, 1] variables strays from its
expectation: ``P(|mean - E| >= t) <= 2 exp(-2 m t^2)`` over ``m`` voters,
so ``t = sqrt(ln(2 / delta) / (2 m))`` gives a ``1 - delta`` interval.

Which ``m``.  Only the voters that scored both systems and did not tie them
(``n``) carry an observed verdict on the pair; the others contribute an
imputed value.  The half-width uses ``m = n``: fewer than the voters the
estimate averages over, so the interval is wider than Hoeffding requires for
the imputed estimate and stays valid for it, while a pair seen on few voters
gets the wide interval its little evidence deserves.  With unequal weights
the weighted mean behaves like ``N_eff = (sum w)^2 / sum w^2`` equal voters
(Hoeffding for weighted sums), so ``m = min(n, N_eff)``; with equal weights
that is ``n``.  When ``n = 0`` there is no evidence: the half-width is
``inf``, the interval [0, 1] and 1/2 never lies outside it.  Voters of
weight 0 count in neither ``n`` nor the estimate.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.aggregators.borda_partial import pairwise_probabilities
from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.profile import build_profile
from scorehouse.aggregators.schemas import CONFIDENCE_SCHEMA


def check_delta(delta: float) -> None:
    """Raise :class:`InvalidParameterError` unless ``0 < delta < 1``."""
    valid = isinstance(delta, (int, float, np.integer, np.floating)) and not isinstance(delta, bool)
    if not (valid and 0 < delta < 1):
        raise InvalidParameterError(
            f"pairwise_confidence: parameter 'delta' must be a number in the open interval (0, 1) "
            f"(the probability that an interval misses), got {delta!r}"
        )


def hoeffding_table(
    systems: tuple[str, ...], probabilities: np.ndarray, informative: np.ndarray, effective: float, delta: float
) -> pl.DataFrame:
    """The :data:`CONFIDENCE_SCHEMA` table of ``probabilities[a, b]`` with Hoeffding intervals over ``min(n, N_eff)``."""
    evidence = np.minimum(informative, effective)
    with np.errstate(divide="ignore"):
        half_width = np.sqrt(np.log(2.0 / delta) / (2.0 * evidence))
    a, b = np.nonzero(~np.eye(len(systems), dtype=bool))
    names = np.asarray(systems, dtype=object)
    p = probabilities[a, b]
    h = half_width[a, b]
    lower = np.clip(p - h, 0.0, 1.0)
    upper = np.clip(p + h, 0.0, 1.0)
    return pl.DataFrame(
        {
            "system_a": names[a].tolist(),
            "system_b": names[b].tolist(),
            "probability": p,
            "n": informative[a, b],
            "half_width": h,
            "lower": lower,
            "upper": upper,
            "excludes_half": (lower > 0.5) | (upper < 0.5),
        },
        schema=CONFIDENCE_SCHEMA,
    )


def pairwise_confidence(ballots: pl.DataFrame, delta: float = 0.05) -> pl.DataFrame:
    """One row per ordered pair of systems: P(a beats b) with its Hoeffding ``1 - delta`` interval.

    Columns: ``system_a, system_b, probability`` (the imputed probability that
    a beats b, as used by ``borda_partial``), ``n`` (voters that scored both
    and did not tie them), ``half_width``, ``lower``, ``upper`` (the interval,
    clipped to [0, 1]) and ``excludes_half`` (1/2 lies outside the interval:
    the data tell a from b at level ``delta``).  Sorted by ``system_a,
    system_b``.  See the module docstring for the choice of ``n`` and for
    ``n = 0``.  ``delta`` must lie in the open interval (0, 1).
    """
    check_delta(delta)
    profile = build_profile(ballots)
    probabilities, informative = pairwise_probabilities(profile)
    weights = profile.weights
    effective_voters = weights.sum() ** 2 / np.square(weights).sum()
    return hoeffding_table(profile.systems, probabilities, informative, effective_voters, delta)
