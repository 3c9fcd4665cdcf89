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

Closed form from the scores that exist, no enumeration.  Write
``P_v[i, j] = 1/2 + D_v[i, j]``.  With ``a_vi = 1/2 - r_vi / (k_v + 1)`` for an
observed ``i`` (0 otherwise), ``D_v[i, j]`` is ``a_vi`` when only ``i`` is
observed, ``-a_vj`` when only ``j`` is, ``win - 1/2`` (1/2, 0 or -1/2) when
both are, and 0 when neither is.  Summed over voters:

    sum_v w_v P_v[i, j] = W / 2 + A_i - A_j + B[i, j]

with ``W`` the total weight, ``A_i = sum_v w_v a_vi`` and ``B`` a sum over the
voters that scored both ``i`` and ``j`` only: ``wins + ties / 2 - co / 2 -
C + C.T`` where ``co`` is their weight and ``C[i, j] = sum_v w_v a_vi`` over
them.  ``wins`` and ``ties`` come from
:func:`aggregators.pairwise.weighted_pair_counts` and ``C`` is a sparse
product, so the cost is the sum over voters of ``k_v^2``, not voters x
systems^2 (a system that is not in a partition at all contributes nothing).

Partition form: ``A``, ``B`` (:func:`imputation_sums`) and the total weight
add up over disjoint sets of voters, and over partitions that score different
systems (a system a partition lacks has zeros there), so a benchmark is summed
partition by partition and finished by :func:`probability_sums` and
:func:`probability_matrix`, as the whole-table method is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from scorehouse.aggregators.errors import InvalidBallotsError
from scorehouse.aggregators.pairwise import weighted_pair_counts
from scorehouse.aggregators.partial import Partial, Voters
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import PartitionForm, Scored, register

CITATION = (
    "Himmi, Irurozki, Noiry, Clémençon, Colombo (2023). Towards More Robust NLP System "
    "Evaluation: Handling Missing Scores in Benchmarks. arXiv:2305.10284"
)


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
    pairs, above = imputation_sums(profile.scores, profile.weights, wins[0], ties[0])
    probabilities = probability_matrix(probability_sums(pairs, above, total), total)
    n_informative = np.rint(wins[1] + wins[1].T).astype(np.int64)
    return probabilities, n_informative


def observed_ranks(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scored cells (voter, system) and each one's average rank among its voter's scores (1 = best).

    One sort of the scored cells by voter, then score descending: a cell's
    rank is its position in its voter's run, averaged over a run of equal
    scores (scipy's ``rankdata(method="average")`` of every row, without
    touching the missing cells).
    """
    voter, system = np.nonzero(~np.isnan(scores))
    values = scores[voter, system]
    order = np.lexsort((-values, voter))
    voter, system, values = voter[order], system[order], values[order]
    position = np.arange(voter.size) - np.searchsorted(voter, voter) + 1
    run_starts = np.ones(voter.size, dtype=bool)
    run_starts[1:] = (voter[1:] != voter[:-1]) | (values[1:] != values[:-1])
    run = np.cumsum(run_starts) - 1
    run_sizes = np.bincount(run)
    return voter, system, position[run_starts][run] + (run_sizes[run] - 1) / 2


def imputation_sums(
    scores: np.ndarray, weights: np.ndarray, wins: np.ndarray, ties: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``B`` (systems x systems) and ``A`` (per system) of the module docstring, for these voters.

    ``wins`` and ``ties`` are :func:`weighted_pair_counts` of ``scores``
    weighted by ``weights``.  Both sums add up over disjoint sets of voters.
    Only the scored cells are visited: ``C`` is a product of sparse matrices.
    """
    from scipy import sparse

    n_voters, n = scores.shape
    voter, system, ranks = observed_ranks(scores)
    n_observed = np.bincount(voter, minlength=n_voters)
    # a_vi = 1/2 - P(an unobserved system lands above observed i) = 1/2 - r / (k + 1)
    lead = weights[voter] * (0.5 - ranks / (n_observed[voter] + 1))
    shape = (n_voters, n)
    seen = sparse.csr_array((np.ones(voter.size), (voter, system)), shape=shape)
    imputed = np.asarray((sparse.csr_array((lead, (voter, system)), shape=shape).T @ seen).toarray())
    co_weight = wins + wins.T + ties
    above = np.bincount(system, weights=lead, minlength=n)
    return wins + 0.5 * ties - 0.5 * co_weight - imputed + imputed.T, above


def probability_sums(pairs: np.ndarray, above: np.ndarray, total_weight: float) -> np.ndarray:
    """``sum_v w_v P_v`` (diagonal not meaningful) from :func:`imputation_sums` and the total weight."""
    return 0.5 * total_weight + above[:, None] - above[None, :] + pairs


def voter_points(scores: np.ndarray) -> np.ndarray:
    """Each voter's expected Borda points of each system (voters x systems): the row sums of its ``P_v``.

    Summing the module docstring's ``P_v[i, j]`` over ``j``: an observed ``i`` at average rank ``r`` among
    the voter's ``k`` scores gets ``n - r (n + 1) / (k + 1)`` (``k - r`` from the observed systems, ``1 - r /
    (k + 1)`` from each unobserved one); an unobserved ``i`` gets ``(n - 1) / 2``.  The method's scores are
    the weighted mean of these rows, which is what makes its bootstrap a matrix product.
    """
    n_voters, n = scores.shape
    voter, system, ranks = observed_ranks(scores)
    n_observed = np.bincount(voter, minlength=n_voters)
    points = np.full((n_voters, n), (n - 1) / 2)
    points[voter, system] = n - ranks * (n + 1) / (n_observed[voter] + 1)
    return points


def _resampled(profile: Profile, multiplicity: np.ndarray) -> Scored:
    """The scores on every resample of the voters (``multiplicity``: resamples x voters): weighted means of
    :func:`voter_points`, the ranks computed once for all resamples."""
    weights = multiplicity * profile.weights
    totals = weights.sum(1)
    require_positive_weight(float(totals.min(initial=1.0)), len(profile.voters))
    return Scored(weights @ voter_points(profile.scores) / totals[:, None])


def _partial_sums(voters: Voters) -> Partial:
    """One partition's ``A``, ``B`` and total weight (the partition form's combinable sums)."""
    scores, weights = np.asarray(voters.scores, dtype=float), np.asarray(voters.weights, dtype=float)
    wins, ties = weighted_pair_counts(scores, weights[:, None])
    pairs, above = imputation_sums(scores, weights, wins[0], ties[0])
    return Partial(
        systems=tuple(voters.systems),
        n_voters=scores.shape[0],
        n_counted=scores.shape[0],
        weight=float(weights.sum()),
        totals={"pairs": pairs, "above": above},
    )


def _finish_sums(partial: Partial, params: Mapping[str, Any], two_step: bool) -> Scored:
    total = require_positive_weight(partial.weight, partial.n_voters)
    sums = probability_sums(partial.total("pairs"), partial.total("above"), total)
    return Scored(probability_matrix(sums, total).sum(axis=1))


@register(
    "borda_partial",
    view="ranks",
    handles_missing=True,
    citation=CITATION,
    properties=("anonymous", "neutral", "unanimity", "monotone"),
    partition=PartitionForm(partial=_partial_sums, finish=_finish_sums),
    resampled=_resampled,
    imputes_in_groups=True,  # two-level: every system ranked in every task under the imputation (Himmi et al.)
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
