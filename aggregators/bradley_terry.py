"""Bradley–Terry strengths fitted by maximum likelihood on the pairwise win counts.

The model (Bradley and Terry, 1952) says system ``a`` beats ``b`` with
probability ``p_a / (p_a + p_b)``.  The maximum-likelihood strengths are found
with the minorization–maximization (MM) iteration of Hunter (2004), "MM
algorithms for generalized Bradley–Terry models", Annals of Statistics 32(1):

    p_a <- W_a / sum_b N_ab / (p_a + p_b)

where ``W_a`` is the credit of ``a`` (wins, plus half of every tie) and
``N_ab`` the number of comparisons between ``a`` and ``b``.  Peyrard et al.
(2021), "Better than Average: Paired Evaluation of NLP Systems", ACL, rank
systems by these strengths fitted on instance-level comparisons.

The maximum-likelihood estimate exists only when the win graph is strongly
connected (Hunter's assumption 1): a system that never wins would get strength
0, and the iteration would creep towards it forever.  ``prior`` adds a virtual
``prior`` win of every system over every other (default 0.5: one virtual tie
per pair), which makes the estimate exist and unique for any data; it is a
posterior mode rather than a plain maximum-likelihood estimate, and its effect
vanishes as the number of comparisons grows.  ``prior=0`` gives the plain
estimate and is refused, with the culprit named, when it does not exist.

The score is the log-strength, centred to mean zero.

Partition form: the counts of :func:`aggregators.pairwise.count_pairs` add up
over disjoint sets of voters, so a benchmark is counted partition by
partition and fitted once by :func:`bradley_terry_counts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.sparse.csgraph import connected_components

from aggregators.errors import InvalidParameterError
from aggregators.pairwise import PairCounts, count_pairs, pair_counts
from aggregators.parameters import check_range
from aggregators.partial import Partial, Voters
from aggregators.profile import Profile
from aggregators.registry import PartitionForm, Scored, register

NAME = "bradley_terry"


def _require_connected(credit: np.ndarray, systems: tuple[str, ...]) -> None:
    """Refuse ``prior=0`` on data whose maximum-likelihood estimate does not exist."""
    for index in np.ndindex(credit.shape[:-2]):
        graph = credit[index] > 0
        n_parts, labels = connected_components(graph, directed=True, connection="strong")
        if n_parts > 1:
            # A part that beats no system outside it has its strengths run off to 0.
            outside = labels[:, None] != labels[None, :]
            beats_out = np.bincount(labels, weights=(graph & outside).sum(1), minlength=n_parts)
            stuck = np.flatnonzero(beats_out == 0)[0]
            losers = [systems[s] for s in np.flatnonzero(labels == stuck)]
            where = f" in bootstrap resample {index}" if index else ""
            raise InvalidParameterError(
                f"method {NAME!r}: with prior=0 the maximum-likelihood strengths do not exist{where}: "
                f"the win graph falls into {n_parts} parts and {losers} never beat the rest "
                f"(or were never compared); use prior > 0 (default 0.5)"
            )


def fit_log_strengths(
    credit: np.ndarray, *, prior: float, tol: float, max_iter: int
) -> tuple[np.ndarray, int, float]:
    """MM fit of Bradley–Terry on ``credit[..., a, b]`` (a's wins over b, ties halved).

    Vectorised over leading axes.  Returns the centred log-strengths, the
    number of iterations and the last maximal change of a log-strength (below
    ``tol`` when converged).
    """
    n = credit.shape[-1]
    if n == 1:  # nothing to compare: the one centred log-strength is 0
        return np.zeros(credit.shape[:-1]), 0, 0.0
    credit = credit + prior * (1.0 - np.eye(n))
    comparisons = credit + np.swapaxes(credit, -1, -2)
    total = credit.sum(-1)
    strength = np.full(credit.shape[:-1], 1.0 / n)
    change = np.inf
    iteration = 0
    while iteration < max_iter and change >= tol:
        iteration += 1
        pair_sum = strength[..., :, None] + strength[..., None, :]
        updated = total / (comparisons / pair_sum).sum(-1)
        updated /= updated.sum(-1, keepdims=True)  # the scale is free; keep it fixed
        change = float(np.max(np.abs(np.log(updated) - np.log(strength))))
        strength = updated
    log_strength = np.log(strength)
    return log_strength - log_strength.mean(-1, keepdims=True), iteration, change


def _check(prior: float, tol: float, max_iter: int) -> None:
    check_range(NAME, "prior", prior, low=0.0)
    check_range(NAME, "tol", tol, low=0.0)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise InvalidParameterError(
            f"method {NAME!r}: parameter 'max_iter' must be an integer >= 1, got {max_iter!r}"
        )
    if tol == 0:
        raise InvalidParameterError(f"method {NAME!r}: parameter 'tol' must be > 0, got {tol!r}")


def bradley_terry_counts(
    counts: PairCounts, *, prior: float = 0.5, tol: float = 1e-9, max_iter: int = 10_000
) -> Scored:
    """Bradley–Terry log-strengths from pairwise counts (leading batch axes allowed)."""
    _check(prior, tol, max_iter)
    credit = counts.credit
    if prior == 0:
        _require_connected(credit, counts.systems)
    scores, iterations, change = fit_log_strengths(credit, prior=prior, tol=tol, max_iter=max_iter)
    notes = ()
    if change >= tol:
        notes = (
            f"{NAME}: not converged after max_iter={max_iter} MM iterations "
            f"(last change of a log-strength {change:.3g} >= tol={tol}); raise max_iter or tol",
        )
    return Scored(scores, notes)


def _partial_counts(voters: Voters) -> Partial:
    """One partition's pairwise counts (the partition form's combinable sums)."""
    counts = count_pairs(voters.systems, voters.scores, voters.weights)
    return Partial(
        systems=tuple(voters.systems),
        n_voters=voters.scores.shape[0],
        n_counted=voters.scores.shape[0],
        weight=float(np.sum(voters.weights)),
        totals={"wins": counts.wins, "ties": counts.ties, "voters": counts.voters},
    )


def _finish_counts(partial: Partial, params: Mapping[str, Any], two_step: bool) -> Scored:
    counts = PairCounts(partial.systems, partial.total("wins"), partial.total("ties"), partial.total("voters"))
    return bradley_terry_counts(counts, **params)


@register(
    NAME,
    view="pairwise",
    handles_missing=True,
    citation=(
        "Bradley & Terry (1952), Biometrika 39; Hunter (2004), MM algorithms for generalized "
        "Bradley-Terry models, Ann. Statist. 32(1); Peyrard et al. (2021), Better than Average: "
        "Paired Evaluation of NLP Systems, ACL"
    ),
    properties=("anonymous", "neutral"),
    from_counts=bradley_terry_counts,
    partition=PartitionForm(
        partial=_partial_counts,
        finish=_finish_counts,
        parameters={"prior": None, "tol": None, "max_iter": None},
    ),
)
def bradley_terry(
    profile: Profile, *, prior: float = 0.5, tol: float = 1e-9, max_iter: int = 10_000
) -> Scored:
    """Bradley–Terry maximum-likelihood log-strengths (MM) on the pairwise win/tie counts.

    ``prior``: virtual wins of every system over every other (0.5 = one virtual
    tie per pair) so that systems that never win keep a finite strength;
    ``tol``: stop when no log-strength moves by more than this;
    ``max_iter``: give up (with a note) after this many iterations.
    """
    return bradley_terry_counts(pair_counts(profile), prior=prior, tol=tol, max_iter=max_iter)
