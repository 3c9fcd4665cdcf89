"""Bradley–Terry strengths fitted by maximum likelihood on the pairwise win counts.

The model (Bradley and Terry, 1952) says system ``a`` beats ``b`` with
probability ``p_a / (p_a + p_b)``.  Peyrard et al. (2021), "Better than
Average: Paired Evaluation of NLP Systems", ACL, rank systems by these
strengths fitted on instance-level comparisons.  With ``t = log p``, ``W_a``
the credit of ``a`` (wins, plus half of every tie) and ``N_ab`` the number of
comparisons between ``a`` and ``b``, the log-likelihood is concave in ``t``
with gradient ``W_a - sum_b N_ab s(t_a - t_b)`` (``s`` the logistic function)
and Hessian minus the Laplacian of the weights ``N_ab s (1 - s)``; it is
maximised by Newton's method with a backtracking line search (Hunter, 2004,
"MM algorithms for generalized Bradley–Terry models", Annals of Statistics
32(1), studies the same likelihood; his MM iteration reaches the same
maximum, but needs thousands of iterations on sparse comparison graphs where
Newton needs a few dozen).

The maximum-likelihood estimate exists only when the win graph is strongly
connected (Hunter's assumption 1): a system that never wins would get strength
0, and the fit would run off towards it forever.  ``prior`` adds a virtual
``prior`` win of every system over every other (default 0.5: one virtual tie
per pair), which makes the estimate exist and unique for any data; it is a
posterior mode rather than a plain maximum-likelihood estimate, and its effect
vanishes as the number of comparisons grows.  ``prior=0`` gives the plain
estimate and is refused, with the culprit named, when it does not exist.

Disconnected comparisons.  When the systems fall into several components of
the comparison graph (two systems are linked when some voter of positive
weight scored both),
the data says nothing about how the strengths of different components
compare.  By default (``disconnected="separate"``) each component is fitted
alone (the prior links only the pairs of one component) and centred to mean
zero, and a note names the components: scores of different components are
not comparable.  ``disconnected="prior"`` links every pair through the prior,
as on a connected graph, so that the prior alone orders the components.

The score is the log-strength, centred to mean zero (per component).

Partition form: the counts of :func:`aggregators.pairwise.count_pairs` add up
over disjoint sets of voters, so a benchmark is counted partition by
partition and fitted once by :func:`bradley_terry_counts`.

Battles form: the counts of pairwise battles (:func:`aggregators.battles.battle_counts`),
fitted by :func:`bradley_terry_counts`; a numeric judgement counts as its fractional share of the
win (``fractional=True``: credit ``s`` to model_a and ``1 - s`` to model_b).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from scorehouse.aggregators.battles import Battles, battle_counts
from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.pairwise import PairCounts, count_pairs, pair_counts
from scorehouse.aggregators.parameters import check_range
from scorehouse.aggregators.partial import Partial, Voters
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import BattlesForm, PartitionForm, Scored, register

NAME = "bradley_terry"


def _require_connected(credit: np.ndarray, systems: tuple[str, ...]) -> None:
    """Refuse ``prior=0`` on data whose maximum-likelihood estimate does not exist."""
    from scipy.sparse.csgraph import connected_components

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


PROPAGATION_ROUNDS = 8  # min-label rounds before a graph of long paths is handed to scipy


def components(comparisons: np.ndarray) -> np.ndarray:
    """The component of every system in the graph of pairs with ``comparisons[..., a, b] > 0``.

    Labels 0, 1, ... in the order of each component's first system, for every
    graph of the leading axes.  Every system takes the smallest index among its
    neighbours until nothing changes (the fixed point labels each component by
    its first system); comparison graphs are dense, so a few vectorised rounds
    label a whole bootstrap batch, and the graphs still changing after
    ``PROPAGATION_ROUNDS`` are labelled by scipy one by one.
    """
    n = comparisons.shape[-1]
    adjacent = comparisons.reshape(-1, n, n) > 0
    label = np.broadcast_to(np.arange(n), adjacent.shape[:-1]).copy()
    changing = np.arange(adjacent.shape[0])
    for _ in range(PROPAGATION_ROUNDS):
        neighbours = np.where(adjacent[changing], label[changing, None, :], n).min(-1)
        smaller = np.minimum(label[changing], neighbours)
        moved = (smaller != label[changing]).any(-1)
        label[changing] = smaller
        changing = changing[moved]
        if changing.size == 0:
            break
    if changing.size:
        from scipy.sparse.csgraph import connected_components

        for graph in changing:  # long paths only: each labelled by its first system, as above
            found = connected_components(adjacent[graph], directed=False)[1]
            first = np.full(n, n)
            np.minimum.at(first, found, np.arange(n))
            label[graph] = first[found]
    starts_before = np.cumsum(label == np.arange(n), axis=-1) - 1
    return np.take_along_axis(starts_before, label, axis=-1).reshape(comparisons.shape[:-1])


class _PairCredit:
    """The credit of each pair ``a < b`` both ways, so the log-likelihood costs one ``logaddexp`` per pair."""

    def __init__(self, credit: np.ndarray) -> None:
        self.upper, self.lower = np.triu_indices(credit.shape[-1], k=1)
        self.backward = credit[..., self.lower, self.upper]
        self.both = credit[..., self.upper, self.lower] + self.backward

    def log_likelihood(self, log_strength: np.ndarray) -> np.ndarray:
        # sum over a != b of credit[a, b] log s(t_a - t_b); with d = t_a - t_b, log s(-d) = log s(d) - d
        difference = log_strength[..., self.upper] - log_strength[..., self.lower]
        return -(self.both * np.logaddexp(0.0, -difference) + self.backward * difference).sum(-1)


def fit_log_strengths(
    credit: np.ndarray, linked: np.ndarray, *, prior: float, tol: float, max_iter: int
) -> tuple[np.ndarray, int, float]:
    """Newton fit of Bradley–Terry on ``credit[..., a, b]`` (a's wins over b, ties halved).

    ``linked[..., a, b]`` says which pairs get the prior's virtual
    comparisons and which systems share a scale (a block of linked systems is
    centred to mean zero).  Vectorised over leading axes.  Returns the
    log-strengths, the number of iterations and the last maximal change of a
    log-strength (below ``tol`` when converged).
    """
    from scipy.special import expit

    n = credit.shape[-1]
    if n == 1:  # nothing to compare: the one centred log-strength is 0
        return np.zeros(credit.shape[:-1]), 0, 0.0
    linked = np.broadcast_to(linked, credit.shape) & ~np.eye(n, dtype=bool)
    same_scale = linked | np.eye(n, dtype=bool)
    # the mean over each system's block: removing it centres every block, and adding it makes the system solvable
    block_mean = same_scale / same_scale.sum(-1, keepdims=True)
    credit = credit + prior * linked
    comparisons = credit + np.swapaxes(credit, -1, -2)
    total = credit.sum(-1)
    log_strength = np.zeros(credit.shape[:-1])
    pairs = _PairCredit(credit)
    diagonal = np.arange(n)
    likelihood = pairs.log_likelihood(log_strength)
    change, iteration = np.inf, 0
    while iteration < max_iter and change >= tol:
        iteration += 1
        win = expit(log_strength[..., :, None] - log_strength[..., None, :])
        expected = comparisons * win
        gradient = total - expected.sum(-1)
        weight = expected * (1.0 - win)
        laplacian = -weight
        laplacian[..., diagonal, diagonal] = weight.sum(-1)
        step = np.linalg.solve(laplacian + block_mean, gradient[..., None])[..., 0]
        scale = np.ones(credit.shape[:-2])
        for _ in range(60):  # backtracking: halve the step until the likelihood does not drop
            trial = log_strength + scale[..., None] * step
            trial_likelihood = pairs.log_likelihood(trial)
            worse = trial_likelihood < likelihood - 1e-12 * np.abs(likelihood)
            if not worse.any():
                break
            scale = np.where(worse, scale / 2, scale)
        moved = trial - np.einsum("...ij,...j->...i", block_mean, trial)
        change = float(np.max(np.abs(moved - log_strength)))
        log_strength, likelihood = moved, trial_likelihood
    return log_strength, iteration, change


def _component_note(labels: np.ndarray, systems: tuple[str, ...], disconnected: str) -> str:
    sizes = np.bincount(labels)
    listed = "; ".join(
        f"{sizes[c]} system(s): {', '.join(systems[s] for s in np.flatnonzero(labels == c)[:5])}"
        + (", ..." if sizes[c] > 5 else "")
        for c in np.argsort(-sizes, kind="stable")[:5]
    )
    how = (
        "each is fitted and centred alone, so scores of different components are not comparable "
        "(pass disconnected='prior' to order them by the prior alone)"
        if disconnected == "separate"
        else "they are ordered by the prior alone"
    )
    return f"{NAME}: the comparison graph falls into {sizes.size} components ({listed}{'; ...' if sizes.size > 5 else ''}); {how}"


DISCONNECTED = ("separate", "prior")


def _check(prior: float, tol: float, max_iter: int, disconnected: str) -> None:
    check_range(NAME, "prior", prior, low=0.0)
    if disconnected not in DISCONNECTED:
        raise InvalidParameterError(
            f"method {NAME!r}: parameter 'disconnected' must be one of {DISCONNECTED}, got {disconnected!r}"
        )
    check_range(NAME, "tol", tol, low=0.0)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise InvalidParameterError(
            f"method {NAME!r}: parameter 'max_iter' must be an integer >= 1, got {max_iter!r}"
        )
    if tol == 0:
        raise InvalidParameterError(f"method {NAME!r}: parameter 'tol' must be > 0, got {tol!r}")


def bradley_terry_counts(
    counts: PairCounts, *, prior: float = 0.5, tol: float = 1e-9, max_iter: int = 10_000,
    disconnected: str = "separate",
) -> Scored:
    """Bradley–Terry log-strengths from pairwise counts (leading batch axes allowed)."""
    _check(prior, tol, max_iter, disconnected)
    credit = counts.credit
    if prior == 0:
        _require_connected(credit, counts.systems)
    compared = credit + np.swapaxes(credit, -1, -2)
    labels = components(compared)
    split = labels.max(-1, initial=0) > 0
    notes: tuple[str, ...] = ()
    if split.any():
        notes = (_component_note(labels[np.unravel_index(np.argmax(split), split.shape)], counts.systems, disconnected),)
    linked = labels[..., :, None] == labels[..., None, :] if disconnected == "separate" else np.ones(credit.shape, bool)
    scores, iterations, change = fit_log_strengths(credit, linked, prior=prior, tol=tol, max_iter=max_iter)
    if change >= tol:
        notes += (
            f"{NAME}: not converged after max_iter={max_iter} Newton iterations "
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


def _fit_battles(battles: Battles, params: Mapping[str, Any]) -> Scored:
    # A numeric judgement counts as its fractional share of the win (aggregators.battles).
    return bradley_terry_counts(battle_counts(battles, fractional=True), **params)


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
        parameters={"prior": None, "tol": None, "max_iter": None, "disconnected": None},
    ),
    battles=BattlesForm(fit=_fit_battles, through="counts"),
)
def bradley_terry(
    profile: Profile, *, prior: float = 0.5, tol: float = 1e-9, max_iter: int = 10_000,
    disconnected: str = "separate",
) -> Scored:
    """Bradley–Terry maximum-likelihood log-strengths (Newton) on the pairwise win/tie counts.

    ``prior``: virtual wins of every system over every other (0.5 = one virtual
    tie per pair) so that systems that never win keep a finite strength;
    ``tol``: stop when no log-strength moves by more than this;
    ``max_iter``: give up (with a note) after this many iterations;
    ``disconnected``: on a disconnected comparison graph, ``"separate"`` fits
    and centres each component alone (scores across components are not
    comparable; a note names the components), ``"prior"`` orders the
    components by the prior alone.
    """
    return bradley_terry_counts(
        pair_counts(profile), prior=prior, tol=tol, max_iter=max_iter, disconnected=disconnected
    )
