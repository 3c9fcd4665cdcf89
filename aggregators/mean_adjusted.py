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


# Voters per block of the information matrices' product: bounds the voters x systems² outer products at 32 MB.
BLOCK_CELLS = 4_000_000


def _information(observed: np.ndarray, weights: np.ndarray, n_scored: np.ndarray) -> np.ndarray:
    """``C`` of the module docstring for every row of ``weights`` (batch x voters): batch x systems x systems."""
    n = observed.shape[1]
    spread = np.zeros((weights.shape[0], n * n))
    block = max(1, BLOCK_CELLS // (n * n))
    for start in range(0, observed.shape[0], block):  # a loop over blocks of voters, not voters
        rows = slice(start, start + block)
        pairs = (observed[rows, :, None] * observed[rows, None, :]).reshape(-1, n * n)
        spread += (weights[:, rows] / n_scored[rows]) @ pairs
    information = -spread.reshape(-1, n, n)
    information[:, np.arange(n), np.arange(n)] += weights @ observed
    return information


def adjusted_means(profile: Profile, multiplicity: np.ndarray) -> Scored:
    """The adjusted means (batch x systems) of the voters each drawn ``multiplicity[b, v]`` times (batch x voters).

    Every sum of the fit is linear in the voters' weights, so voter ``v`` drawn ``m`` times is voter ``v`` with
    ``m`` times its weight: one row of ones is the method itself, and the rows of a bootstrap fit every resample
    in one batch (:mod:`aggregators.bootstrapping`), equal to refitting on the drawn voters.
    """
    n_systems = len(profile.systems)
    counted = profile.observed & (profile.weights > 0)[:, None]
    voters = counted.any(1)
    weights = multiplicity[:, voters] * profile.weights[voters]
    drawn = weights.sum(1) > 0
    adjusted = np.full((multiplicity.shape[0], n_systems), np.nan)
    notes: tuple[str, ...] = ()
    if not drawn.all():  # no counted score at all (every voter of weight 0): no system has a mean
        notes += ("mean_adjusted: no counted score; every system ranked last",)
    if not drawn.any():
        return Scored(adjusted, notes)
    weights = weights[drawn]
    observed = counted[voters].astype(float)
    scores = np.where(counted[voters], profile.scores[voters], 0.0)
    n_scored = observed.sum(1)
    information = _information(observed, weights, n_scored)
    residual = weights @ ((scores - (scores.sum(1) / n_scored)[:, None]) * observed)
    scale = np.maximum(1.0, np.abs(information).max(axis=(1, 2)))
    # the components of "scored by a common voter" can differ between resamples: found per resample (a few hundred)
    component = np.stack([_components(np.abs(c) > 1e-12 * s) for c, s in zip(information, scale, strict=True)])
    same = component[:, :, None] == component[:, None, :]
    effects = np.linalg.solve(information + same, residual[..., None])[..., 0]
    voter_effects = (scores.sum(1)[None, :] - effects @ observed.T) / n_scored
    means = effects + (weights * voter_effects).sum(1, keepdims=True) / weights.sum(1, keepdims=True)
    unscored = (weights > 0) @ observed == 0
    means[unscored] = np.nan  # NaN ranks last
    adjusted[drawn] = means
    names = np.asarray(profile.systems)
    for lost, labels in zip(unscored, component, strict=True):  # each row's notes: a loop over resamples
        if lost.any():
            notes += (f"mean_adjusted: no counted score for {', '.join(names[lost])}; ranked last",)
        parts = np.unique(labels[~lost]).size
        if parts > 1:
            notes += (f"mean_adjusted: the systems fall into {parts} groups with no voter scoring systems of two of "
                      f"them; scores of different groups are not comparable",)
    return Scored(adjusted, tuple(dict.fromkeys(notes)))


@register(
    "mean_adjusted",
    view="scores",
    handles_missing=True,
    citation=CITATION,
    properties=("anonymous", "neutral"),
    resampled=adjusted_means,
)
def mean_adjusted(profile: Profile) -> Scored:
    """Weighted mean over every voter, each missing score filled in by a voter + system additive model.

    Equal to ``mean`` on complete ballots.  A system without a counted score has no mean and ranks last
    (a note names it).
    """
    fitted = adjusted_means(profile, np.ones((1, len(profile.voters))))
    return Scored(fitted.scores[0], fitted.notes)
