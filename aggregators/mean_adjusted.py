"""The mean adjusted for the voters a system has: an additive model fitted to the scores that exist.

On a leaderboard with missing scores the plain mean over the voters a system has (``mean_available``)
rewards a system that lacks the hard tasks: on VALUE with cells removed its order fell to Kendall tau
0.2-0.33 to the leaderboard's own (docs/performance.md), because VALUE's tasks are on scales from
about 10 (retrieval recall) to over 100 (CIDEr).  ``mean_adjusted`` fits

    score[v, s] = a_v + b_s

to the observed scores by weighted least squares (voter ``v`` with weight ``w_v``; the two-way
additive model of an unbalanced design, Searle 1987 ch. 4), and ranks each system by

    b_s + sum_v w_v a_v / sum_v w_v,

the weighted mean it would have over every voter with its missing scores filled in by the model.
On a complete leaderboard that is exactly the weighted ``mean``; a voter's difficulty (``a_v``) no
longer lifts or lowers the systems that happen to have it.

The voter effects are eliminated first: with ``n_v`` systems scored by voter ``v`` and ``O`` the
observed cells, ``b`` solves the reduced normal equations ``C b = q``,
``C = diag(sum_v w_v O_vs) - O^T diag(w_v / n_v) O`` (the design's information matrix, a graph
Laplacian over the systems) and ``q_s = sum_v w_v O_vs (x_vs - mean of voter v)``.  ``C`` is singular
once per connected component of "scored by a common voter"; each component's effects are pinned to
sum to zero (adding ``1 1^T`` per component makes the system regular without moving the solution),
and a note names the components when there are several: scores of different components rest on
no common voter and are not comparable.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import Scored, register

CITATION = (
    "Searle (1987), Linear Models for Unbalanced Data, Wiley, ch. 4 (the two-way additive model without "
    "interaction); the leaderboard use: scorehouse issue 26"
)


def _components(linked: np.ndarray) -> np.ndarray:
    """The connected component of each system in the graph of ``linked`` (symmetric, systems x systems)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    return connected_components(csr_matrix(linked), directed=False)[1]


@register(
    "mean_adjusted",
    view="scores",
    handles_missing=True,
    citation=CITATION,
    properties=("anonymous", "neutral"),
)
def mean_adjusted(profile: Profile) -> Scored:
    """Weighted mean over every voter, each missing score filled in by a voter + system additive model.

    Equal to ``mean`` on complete ballots.  A system without a counted score has no mean and ranks last
    (a note names it).
    """
    counted = profile.observed & (profile.weights > 0)[:, None]
    voters = counted.any(1)
    if not voters.any():  # no counted score at all (every voter of weight 0): no system has a mean
        return Scored(np.full(len(profile.systems), np.nan), ("mean_adjusted: no counted score; every system ranked last",))
    observed, weights = counted[voters].astype(float), profile.weights[voters]
    scores = np.where(counted[voters], profile.scores[voters], 0.0)
    n_scored = observed.sum(1)
    voter_means = scores.sum(1) / n_scored
    information = np.diag(weights @ observed) - observed.T @ (observed * (weights / n_scored)[:, None])
    residual = ((scores - voter_means[:, None]) * observed * weights[:, None]).sum(0)
    component = _components(np.abs(information) > 1e-12 * max(1.0, float(np.abs(information).max(initial=0))))
    same = component[:, None] == component[None, :]
    effects = np.linalg.solve(information + same, residual)
    voter_effects = ((scores - effects[None, :]) * observed).sum(1) / n_scored
    adjusted = effects + (weights @ voter_effects) / weights.sum()
    unscored = ~counted.any(0)
    adjusted[unscored] = np.nan  # NaN ranks last
    notes: tuple[str, ...] = ()
    if unscored.any():
        notes += (f"mean_adjusted: no counted score for {', '.join(np.asarray(profile.systems)[unscored])}; "
                  f"ranked last",)
    parts = np.unique(component[~unscored]).size
    if parts > 1:
        notes += (f"mean_adjusted: the systems fall into {parts} groups with no voter scoring systems of two of "
                  f"them; scores of different groups are not comparable",)
    return Scored(adjusted, notes)
