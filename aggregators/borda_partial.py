"""Borda over partial rankings: missing scores imputed by uniform compatible permutations.

Himmi, Irurozki, Noiry, Clémençon and Colombo (2023), "Towards More Robust NLP
System Evaluation: Handling Missing Scores in Benchmarks", arXiv:2305.10284
(Findings of EMNLP 2024).

A voter that scored ``k`` of the ``n`` systems gives a partial ranking.  Every
complete ranking of the ``n`` systems that agrees with it (the observed systems
keep their order, ties between observed systems go either way, the unobserved
ones land anywhere) is taken as equally likely, and the voter's pairwise matrix
``P_v[i, j]`` is the probability that ``i`` lands above ``j``:

* both observed: 1 or 0 when their scores differ, 1/2 when they tie;
* both unobserved: 1/2;
* ``i`` observed at rank ``r`` among the ``k`` observed (1 = best), ``j``
  unobserved: ``j`` lands above ``i`` with probability ``r / (k + 1)``,
  because ``j`` falls into one of the ``k + 1`` gaps between the observed
  systems with equal probability, and ``r`` of those gaps are above ``i``.

Ties.  Every tie-breaking order of the observed systems is one linear order
with the same number (``n! / k!``) of completions, so the uniform compatible
permutation is a uniform tie-break followed by a uniform completion.  Inside a
block of ``t`` tied systems after ``a`` better ones, a system's rank is
uniform on ``a + 1 .. a + t``; the probability ``r / (k + 1)`` is linear in
``r``, so averaging over the tie-breaks is exact with the *average* rank
``a + (t + 1) / 2`` (:func:`aggregators.ranks.rankdata`, ``method="average"``).

Normalisation.  Every voter's matrix has ``P_v[i, j] + P_v[j, i] = 1`` for
every pair, whatever it observed, so each voter carries the same total mass
``n (n - 1) / 2`` as a complete voter.  The profile's matrix is the weighted
mean ``P = sum_v w_v P_v / sum_v w_v``: ``P[i, j]`` is the probability that
``i`` beats ``j`` for a voter drawn with probability proportional to its
weight, and ``P + P.T = 1`` off the diagonal.  The Borda score of a system is
its row sum, the expected number of systems it beats (between 0 and n - 1).

Closed form, no enumeration: after one per-voter sort (the average ranks),
the observed-vs-unobserved terms depend only on ``r`` and ``k``, so they and
the unobserved-vs-unobserved term are products ``A.T @ B`` of voters x systems
matrices (indicators weighted by ``w_v`` and ``r / (k + 1)``); the
observed-vs-observed term is accumulated by
:func:`aggregators.pairwise.weighted_pair_counts` over blocks of voters.  Time is linear in the cells plus ``voters x systems^2`` for the
accumulation; memory is a few voters x systems matrices.

Partition form: :func:`probability_sums` (the numerator of ``P``) and the
total weight add up over disjoint sets of voters, so a benchmark is summed
partition by partition and finished by :func:`probability_matrix`, as the
whole-table method is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from aggregators.ranks import rankdata

from aggregators.errors import InvalidBallotsError
from aggregators.pairwise import weighted_pair_counts
from aggregators.partial import Partial, Voters
from aggregators.profile import Profile
from aggregators.registry import PartitionForm, Scored, register

CITATION = (
    "Himmi, Irurozki, Noiry, Clémençon, Colombo (2023). Towards More Robust NLP System "
    "Evaluation: Handling Missing Scores in Benchmarks. arXiv:2305.10284"
)


def cross_sum(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``left.T @ right`` for voters x systems matrices, without BLAS (see :func:`weighted_pair_counts`)."""
    return np.einsum("vi,vj->ij", left, right)


def require_positive_weight(total: float, n_voters: int) -> float:
    """``total`` (the voters' total weight), or :class:`InvalidBallotsError` when it is zero."""
    if total <= 0:
        raise InvalidBallotsError(
            f"all {n_voters} voters have weight 0, so no voter counts; "
            f"give at least one voter a positive weight"
        )
    return total


def probability_matrix(probability_sum: np.ndarray, total_weight: float) -> np.ndarray:
    """``P = sum_v w_v P_v / sum_v w_v`` from its numerator (:func:`probability_sums`), diagonal 0."""
    probabilities = probability_sum / total_weight
    np.fill_diagonal(probabilities, 0.0)
    return probabilities


def pairwise_probabilities(profile: Profile) -> tuple[np.ndarray, np.ndarray]:
    """The imputed pairwise matrix ``P`` and the informative-voter counts (see the module docstring).

    ``P[i, j]`` is the weighted mean over voters of the probability that ``i``
    ranks above ``j`` in a uniformly drawn complete ranking compatible with the
    voter's partial ranking (diagonal 0).  ``n_informative[i, j]`` is the
    number of voters with positive weight that scored both ``i`` and ``j``
    and did not tie them: the voters whose verdict on the pair was observed
    rather than imputed.  Raises :class:`InvalidBallotsError` if every weight is 0.
    """
    total = require_positive_weight(float(profile.weights.sum()), len(profile.voters))
    wins, ties = weighted_pair_counts(profile.scores, np.column_stack([profile.weights, profile.weights > 0]))
    probabilities = probability_matrix(probability_sums(profile.scores, profile.weights, wins[0], ties[0]), total)
    n_informative = np.rint(wins[1] + wins[1].T).astype(np.int64)
    return probabilities, n_informative


def probability_sums(scores: np.ndarray, weights: np.ndarray, wins: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """``sum_v w_v P_v`` (diagonal not meaningful): the numerator of :func:`pairwise_probabilities`.

    ``wins`` and ``ties`` are :func:`weighted_pair_counts` of ``scores`` weighted by
    ``weights``.  Sums over disjoint sets of voters add up, so a benchmark can
    be summed partition by partition.
    """
    observed = ~np.isnan(scores)
    n_observed = observed.sum(axis=1)
    ranks = rankdata(-scores, method="average", nan_policy="omit")
    # P(an unobserved system lands above this observed one) = r / (k + 1); 0 on missing cells.
    above = np.where(observed, ranks / (n_observed + 1)[:, None], 0.0)
    seen = observed.astype(float)
    weighted_missing = weights[:, None] * (1.0 - seen)
    observed_over_missing = cross_sum(seen - above, weighted_missing)
    missing_over_observed = cross_sum(weighted_missing, above)
    both_missing = 0.5 * cross_sum(1.0 - seen, weighted_missing)
    both_observed = wins + 0.5 * ties
    return observed_over_missing + missing_over_observed + both_missing + both_observed


def _partial_sums(voters: Voters) -> Partial:
    """One partition's ``sum_v w_v P_v`` and total weight (the partition form's combinable sums)."""
    scores, weights = np.asarray(voters.scores, dtype=float), np.asarray(voters.weights, dtype=float)
    wins, ties = weighted_pair_counts(scores, weights[:, None])
    return Partial(
        systems=tuple(voters.systems),
        n_voters=scores.shape[0],
        n_counted=scores.shape[0],
        weight=float(weights.sum()),
        totals={"probability": probability_sums(scores, weights, wins[0], ties[0])},
    )


def _finish_sums(partial: Partial, params: Mapping[str, Any], two_step: bool) -> Scored:
    total = require_positive_weight(partial.weight, partial.n_voters)
    return Scored(probability_matrix(partial.total("probability"), total).sum(axis=1))


@register(
    "borda_partial",
    view="ranks",
    handles_missing=True,
    citation=CITATION,
    properties=("anonymous", "neutral", "unanimity", "monotone"),
    partition=PartitionForm(partial=_partial_sums, finish=_finish_sums),
)
def borda_partial(profile: Profile) -> np.ndarray:
    """Borda count on partial rankings, missing scores imputed by uniform compatible permutations.

    The score of a system is its expected Borda points: the row sum of
    :func:`pairwise_probabilities`, i.e. the expected number of systems it
    beats for a voter drawn in proportion to its weight.  On complete ballots
    without ties it is the plain Borda count divided by the total weight.
    """
    probabilities, _ = pairwise_probabilities(profile)
    return probabilities.sum(axis=1)
