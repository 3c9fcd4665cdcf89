"""Weighted Pythagorean means of the scores: arithmetic, geometric, harmonic.

The utilitarian baseline every leaderboard uses (the arithmetic mean) and the
two other Pythagorean means discussed as alternatives by Rofin et al. (2023,
"Vote'n'Rank: Revision of Benchmarking with Social Choice Theory", EACL) and
Colombo et al. (2022, "What are the best systems? New perspectives on NLP
benchmarking", NeurIPS).  Each voter counts with its weight:

* mean: ``sum_v w_v s_v / sum_v w_v``
* geometric_mean: ``exp(sum_v w_v log s_v / sum_v w_v)``
* harmonic_mean: ``sum_v w_v / sum_v (w_v / s_v)``

The geometric and harmonic means are only defined for positive scores; a
score <= 0 raises :class:`NonPositiveScoresError` rather than being replaced
by a tiny value, which would decide the ranking by an arbitrary constant.

The arithmetic mean's partition form (one- and two-level, over the voters
that scored every system) finishes with :func:`mean_of_sums`, the function
the whole-table mean ends with.
"""

from __future__ import annotations

import numpy as np

from aggregators.errors import NonPositiveScoresError
from aggregators.partition_forms import complete_voters_form
from aggregators.positions import weighted_totals
from aggregators.profile import Profile
from aggregators.registry import register

PROPERTIES = ("anonymous", "neutral", "unanimity", "monotone")
CITATION = (
    "Rofin et al. (2023), Vote'n'Rank: Revision of Benchmarking with Social Choice Theory, EACL; "
    "Colombo et al. (2022), What are the best systems? New perspectives on NLP benchmarking, NeurIPS"
)


def _require_positive(profile: Profile, method: str) -> None:
    bad = np.argwhere(profile.scores <= 0)
    if len(bad):
        v, s = bad[0]
        raise NonPositiveScoresError(
            f"method {method!r} needs positive scores but voter {profile.voters[v]!r} gives system "
            f"{profile.systems[s]!r} the score {float(profile.scores[v, s])} ({len(bad)} scores are <= 0); "
            f"use 'mean', or shift the scores explicitly (for example add a constant to that voter's "
            f"scores) so that every score is positive"
        )


def mean_of_sums(weighted_sums: np.ndarray, weight: np.ndarray | float) -> np.ndarray:
    """The weighted mean from the weighted sum of the values and the total weight."""
    return weighted_sums / weight


def _weighted_mean(profile: Profile, values: np.ndarray) -> np.ndarray:
    return mean_of_sums(weighted_totals(profile.weights, values), profile.weights.sum())


@register(
    "mean",
    view="scores",
    handles_missing=False,
    citation=CITATION,
    properties=PROPERTIES,
    partition=complete_voters_form("mean", per_voter=lambda scores: scores, within=mean_of_sums, parameters={}),
)
def mean(profile: Profile) -> np.ndarray:
    """Weighted arithmetic mean of each system's scores."""
    return _weighted_mean(profile, profile.scores)


@register("geometric_mean", view="scores", handles_missing=False, citation=CITATION, properties=PROPERTIES)
def geometric_mean(profile: Profile) -> np.ndarray:
    """Weighted geometric mean of each system's scores (positive scores only)."""
    _require_positive(profile, "geometric_mean")
    return np.exp(_weighted_mean(profile, np.log(profile.scores)))


@register("harmonic_mean", view="scores", handles_missing=False, citation=CITATION, properties=PROPERTIES)
def harmonic_mean(profile: Profile) -> np.ndarray:
    """Weighted harmonic mean of each system's scores (positive scores only)."""
    _require_positive(profile, "harmonic_mean")
    return 1.0 / _weighted_mean(profile, 1.0 / profile.scores)
