"""Weighted Pythagorean means of the scores: arithmetic, geometric, harmonic.

The utilitarian baseline every leaderboard uses (the arithmetic mean) and the
two other Pythagorean means discussed as alternatives by Rofin et al. (2023,
"Vote'n'Rank: Revision of Benchmarking with Social Choice Theory", EACL) and
Colombo et al. (2022, "What are the best systems? New perspectives on NLP
benchmarking", NeurIPS).  Each voter counts with its weight:

* mean: ``sum_v w_v s_v / sum_v w_v``
* geometric_mean: ``exp(sum_v w_v log s_v / sum_v w_v)``
* harmonic_mean: ``sum_v w_v / sum_v (w_v / s_v)``

The geometric and harmonic means are only defined for positive scores.
Voters of weight 0 (diagnostics such as GLUE's AX) do not count and are left
out before the check.  What happens to a score <= 0 on a counted voter is the
explicit parameter ``nonpositive``: ``"refuse"`` (default) raises
:class:`NonPositiveScoresError`; ``"drop-voter"`` leaves out every voter
(task) that gives some system a score <= 0 and says which in the notes.  A
score is never replaced by a tiny value or shifted by a constant, which would
decide the ranking by an arbitrary number.

The arithmetic mean's partition form (one- and two-level, over the voters
that scored every system) finishes with :func:`mean_of_sums`, the function
the whole-table mean ends with.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.errors import NonPositiveScoresError
from scorehouse.aggregators.parameters import check_choice
from scorehouse.aggregators.partition_forms import complete_voters_form
from scorehouse.aggregators.positions import weighted_totals
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import Scored, register

PROPERTIES = ("anonymous", "neutral", "unanimity", "monotone")
NONPOSITIVE = ("refuse", "drop-voter")
CITATION = (
    "Rofin et al. (2023), Vote'n'Rank: Revision of Benchmarking with Social Choice Theory, EACL; "
    "Colombo et al. (2022), What are the best systems? New perspectives on NLP benchmarking, NeurIPS"
)


def _positive_voters(profile: Profile, method: str, nonpositive: str) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """The scores and weights of the counted voters with positive scores, and notes on who was left out.

    Voters of weight 0 never count; a counted voter with a score <= 0 is
    refused or dropped as ``nonpositive`` says.
    """
    check_choice(method, "nonpositive", nonpositive, NONPOSITIVE)
    counted = profile.weights > 0
    bad = np.argwhere((profile.scores <= 0) & counted[:, None])
    if len(bad) and nonpositive == "refuse":
        v, s = bad[0]
        raise NonPositiveScoresError(
            f"method {method!r} needs positive scores but voter {profile.voters[v]!r} gives system "
            f"{profile.systems[s]!r} the score {float(profile.scores[v, s])} ({len(bad)} scores of counted voters "
            f"are <= 0); use 'mean', pass nonpositive='drop-voter' to leave such voters out, or shift the "
            f"scores explicitly (for example add a constant to that voter's scores) so that every score is positive"
        )
    dropped = np.unique(bad[:, 0])
    keep = counted.copy()
    keep[dropped] = False
    if not keep.any():
        raise NonPositiveScoresError(
            f"method {method!r}: every counted voter gives some system a score <= 0, so none is left; use 'mean'"
        )
    notes = (
        (f"nonpositive='drop-voter': left out voter(s) {', '.join(profile.voters[v] for v in dropped)} "
         f"with a score <= 0",)
        if dropped.size
        else ()
    )
    return profile.scores[keep], profile.weights[keep], notes


def mean_of_sums(weighted_sums: np.ndarray, weight: np.ndarray | float) -> np.ndarray:
    """The weighted mean from the weighted sum of the values and the total weight."""
    return weighted_sums / weight


def _weighted_mean(profile: Profile, values: np.ndarray) -> np.ndarray:
    return mean_of_sums(weighted_totals(profile.weights, values), profile.weights.sum())


def _resampled_mean(profile: Profile, multiplicity: np.ndarray) -> Scored:
    """The mean of every resample of the (complete) voters: weighted sums, one matrix product for all of them."""
    weights = multiplicity * profile.weights
    return Scored(mean_of_sums(weights @ profile.scores, weights.sum(1)[:, None]))


@register(
    "mean",
    view="scores",
    handles_missing=False,
    citation=CITATION,
    properties=PROPERTIES,
    partition=complete_voters_form("mean", per_voter=lambda scores: scores, within=mean_of_sums, parameters={}),
    resampled=_resampled_mean,
)
def mean(profile: Profile) -> np.ndarray:
    """Weighted arithmetic mean of each system's scores."""
    return _weighted_mean(profile, profile.scores)


@register("geometric_mean", view="scores", handles_missing=False, citation=CITATION, properties=PROPERTIES)
def geometric_mean(profile: Profile, *, nonpositive: str = "refuse") -> Scored:
    """Weighted geometric mean of each system's scores (positive scores of counted voters; see ``nonpositive``)."""
    scores, weights, notes = _positive_voters(profile, "geometric_mean", nonpositive)
    return Scored(np.exp(mean_of_sums(weighted_totals(weights, np.log(scores)), weights.sum())), notes)


@register("harmonic_mean", view="scores", handles_missing=False, citation=CITATION, properties=PROPERTIES)
def harmonic_mean(profile: Profile, *, nonpositive: str = "refuse") -> Scored:
    """Weighted harmonic mean of each system's scores (positive scores of counted voters; see ``nonpositive``)."""
    scores, weights, notes = _positive_voters(profile, "harmonic_mean", nonpositive)
    return Scored(1.0 / mean_of_sums(weighted_totals(weights, 1.0 / scores), weights.sum()), notes)


@register(
    "mean_available",
    view="scores",
    handles_missing=True,
    citation=CITATION + "; the 'average over the tasks a model has' of public leaderboards (scorehouse issue 26)",
    properties=("anonymous", "neutral", "unanimity"),
)
def mean_available(profile: Profile) -> Scored:
    """Weighted mean of each system's scores over the voters that scored it (its coverage is in the snapshot).

    ``sum_v w_v s_v / sum_v w_v`` over the voters ``v`` with a score for the system and weight > 0; a system
    without any has no mean and ranks last (a note names it).  Not monotone in the coverage: a system scored on
    easy voters only can outrank a better one scored on all; the rank flow ranks it only above a minimum
    coverage (``--min-coverage``).
    """
    counted = profile.observed & (profile.weights > 0)[:, None]
    weight = np.where(counted, profile.weights[:, None], 0.0)
    total = weight.sum(0)
    sums = (np.where(counted, profile.scores, 0.0) * weight).sum(0)
    unscored = total == 0
    means = np.where(unscored, np.nan, sums / np.where(unscored, 1.0, total))  # NaN ranks last
    notes = ((f"mean_available: no counted score for {', '.join(np.asarray(profile.systems)[unscored])}; ranked last",)
             if unscored.any() else ())
    return Scored(means, notes)
