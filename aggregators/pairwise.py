"""The pairwise view: win / tie / loss counts and the game sequence of every pair of systems.

A voter compares systems ``a`` and ``b`` when it scored both; it prefers the one
with the higher score, and equal scores are a tie.  The counts are weighted by
the voters' weights.  This is the view of the paired evaluation of Peyrard et
al. (2021), "Better than Average: Paired Evaluation of NLP Systems", ACL.

Everything here is vectorised over voters; the only Python loops run over
blocks of voters (counts) or systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorehouse.aggregators.partial import Partial, Voters
from scorehouse.aggregators.profile import Profile

CHUNK_CELLS = 1 << 22  # voters x systems x systems booleans compared at a time (4 MiB): stays in cache
MIN_SHARED_VOTERS = 16  # voters sharing a set of scored systems that are counted together, densely


@dataclass(frozen=True)
class PairCounts:
    """Weighted pairwise outcomes between the systems of a profile.

    ``wins[..., a, b]`` is the total weight of the voters that score ``a`` above
    ``b``; ``ties[..., a, b]`` (symmetric) the weight of those that score them
    equal; ``voters[a, b]`` the unweighted number of voters that score both.
    The diagonal is zero.  Leading axes, when present, index bootstrap
    resamples of the same systems.
    """

    systems: tuple[str, ...]
    wins: np.ndarray
    ties: np.ndarray
    voters: np.ndarray

    @property
    def credit(self) -> np.ndarray:
        """Wins with a tie counted as half a win for each side."""
        return self.wins + 0.5 * self.ties


def outcome_matrices(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-voter boolean ``(voters, n, n)`` arrays: ``a`` beats ``b``, ``a`` ties ``b``.

    Missing scores (NaN) compare as neither; the diagonal is False.
    """
    above = scores[:, :, None] > scores[:, None, :]
    level = scores[:, :, None] == scores[:, None, :]
    n = scores.shape[1]
    level[:, np.arange(n), np.arange(n)] = False
    return above, level


def _dense_counts(scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Win and tie counts of voters that scored every column: all pairs at once, blocks of voters.

    Summed with ``einsum`` (plain C loops): BLAS products of these tall, thin
    matrices gain nothing from threads and, on a busy machine, their spinning
    threads made them a hundred times slower.
    """
    n_voters, n = scores.shape
    wins = np.zeros((weights.shape[1], n, n))
    ties = np.zeros((weights.shape[1], n, n))
    block = max(1, CHUNK_CELLS // max(1, n * n))
    for start in range(0, n_voters, block):  # blocks of voters: a few hundred passes, not one per voter
        part = scores[start : start + block]
        weight = weights[start : start + block]
        wins += np.einsum("vc,vij->cij", weight, part[:, :, None] > part[:, None, :])
        ties += np.einsum("vc,vij->cij", weight, part[:, :, None] == part[:, None, :])
    return wins, ties


def _scattered_counts(scores: np.ndarray, weights: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Win and tie counts from each voter's scored systems only, scattered into ``n x n`` bins.

    Voters are taken together by their number ``k`` of scored systems (a loop
    over the distinct ``k``, at most ``n``): their ``k`` scored columns are
    gathered into a voters x k matrix, compared all pairs at once, and summed
    into the global bins with ``bincount``.  Cost: ``sum over voters of k_v^2``.
    """
    observed = ~np.isnan(scores)
    scored = observed.sum(axis=1)
    wins = np.zeros((weights.shape[1], n * n))
    ties = np.zeros((weights.shape[1], n * n))
    for k in np.unique(scored[scored > 0]):
        rows = np.flatnonzero(scored == k)
        columns = np.nonzero(observed[rows])[1].reshape(rows.size, k)  # row-major: each voter's columns
        values = np.take_along_axis(scores[rows], columns, axis=1)
        block = max(1, CHUNK_CELLS // int(k * k))
        for start in range(0, rows.size, block):  # blocks of voters, as in the dense count
            cols, part = columns[start : start + block], values[start : start + block]
            cell = cols[:, :, None] * n + cols[:, None, :]
            for outcome, out in ((part[:, :, None] > part[:, None, :], wins), (part[:, :, None] == part[:, None, :], ties)):
                for c in range(weights.shape[1]):  # the q weightings: one or two
                    weight = np.broadcast_to(weights[rows[start : start + block], c, None, None], outcome.shape)
                    out[c] += np.bincount(cell[outcome], weights=weight[outcome], minlength=n * n)
    return wins.reshape(-1, n, n), ties.reshape(-1, n, n)


def weighted_pair_counts(scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted win and tie counts between every two systems, over the voters that scored both.

    ``scores`` is voters x systems (NaN = missing), ``weights`` is voters x q
    (q weightings at once).  Returns ``wins`` and ``ties`` of shape
    q x systems x systems: ``wins[c, i, j]`` is the sum of ``weights[v, c]``
    over the voters with ``scores[v, i] > scores[v, j]``, ``ties[c, i, j]``
    over the voters that scored both equally (the diagonal counts the voters
    that scored ``i``).  NaN compares false, so a voter that lacks either
    system counts in neither.

    The cost grows with the scores that exist, ``sum over voters of k_v^2``
    (``k_v`` the systems voter ``v`` scored), not with voters x systems^2:
    voters that scored the same set of systems (a task's voters, mostly) are
    counted together over that set's columns, and added into its rows and
    columns; the voters of rarer sets (fewer than :data:`MIN_SHARED_VOTERS`
    share it) are counted from their scored systems only
    (:func:`_scattered_counts`).
    """
    n_voters, n = scores.shape
    observed = ~np.isnan(scores)
    if observed.all():
        return _dense_counts(scores, weights)
    wins = np.zeros((weights.shape[1], n, n))
    ties = np.zeros((weights.shape[1], n, n))
    order, starts, sizes = _shared_sets(observed)
    for p in np.flatnonzero(sizes >= MIN_SHARED_VOTERS):  # a loop over shared sets of scored systems
        rows = order[starts[p] : starts[p] + sizes[p]]
        columns = np.flatnonzero(observed[rows[0]])
        shared = np.ix_(np.arange(weights.shape[1]), columns, columns)
        part_wins, part_ties = _dense_counts(scores[np.ix_(rows, columns)], weights[rows])
        wins[shared] += part_wins
        ties[shared] += part_ties
    rare = np.empty(n_voters, dtype=bool)
    rare[order] = np.repeat(sizes < MIN_SHARED_VOTERS, sizes)
    if rare.any():
        part_wins, part_ties = _scattered_counts(scores[rare], weights[rare], n)
        wins += part_wins
        ties += part_ties
    return wins, ties


def _shared_sets(observed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Voters grouped by the set of systems they scored: an order of the voters, each set's start in it and size.

    Each voter's set is packed into 64-bit words and the voters sorted by
    them (``lexsort``: far cheaper than ``unique`` over rows of bytes).
    """
    packed = np.packbits(observed, axis=1)
    packed = np.pad(packed, ((0, 0), (0, -packed.shape[1] % 8)))
    words = np.ascontiguousarray(packed).view(np.uint64)
    order = np.lexsort(words.T[::-1])
    ordered = words[order]
    starts = np.flatnonzero(np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)])
    return order, starts, np.diff(np.r_[starts, order.size])


def count_pairs(systems: tuple[str, ...], scores: np.ndarray, weights: np.ndarray) -> PairCounts:
    """Every pair's weighted wins and ties (and voters) over the voters that scored both.

    Counts of disjoint sets of voters add up, so a benchmark can be counted
    partition by partition (the partition form of ``bradley_terry``).
    """
    n = len(systems)
    wins, ties = weighted_pair_counts(scores, np.column_stack([weights, np.ones(scores.shape[0])]))
    voters = wins[1] + wins[1].T + ties[1]  # unweighted: the voters that scored both
    np.fill_diagonal(voters, 0.0)
    off_diagonal = 1.0 - np.eye(n)
    return PairCounts(systems=tuple(systems), wins=wins[0], ties=ties[0] * off_diagonal, voters=np.rint(voters).astype(np.int64))


def pair_counts(profile: Profile) -> PairCounts:
    """Count every pair's weighted wins and ties over the voters of ``profile`` that scored both."""
    return count_pairs(profile.systems, profile.scores, profile.weights)


@dataclass(frozen=True)
class Games:
    """Every pairwise outcome as a game, in the order they are played.

    Game ``g`` is between ``first[g]`` and ``second[g]`` (system indices,
    ``first < second``); ``result[g]`` is 1 when ``first`` won, 0.5 for a tie,
    0 when ``second`` won; ``weight[g]`` is the weight of the voter who cast it.
    """

    first: np.ndarray
    second: np.ndarray
    result: np.ndarray
    weight: np.ndarray

    def shuffled(self, rng: np.random.Generator) -> Games:
        order = rng.permutation(self.first.size)
        return Games(self.first[order], self.second[order], self.result[order], self.weight[order])


def games(profile: Profile) -> Games:
    """The games of ``profile`` in their natural order.

    Voters in profile order (sorted by name); within a voter, pairs ``(a, b)``
    with ``a < b`` in system order.  Only pairs the voter scored both of play.
    """
    scores = profile.scores
    a, b = np.triu_indices(scores.shape[1], k=1)
    left, right = scores[:, a], scores[:, b]
    played = ~(np.isnan(left) | np.isnan(right))
    voter, pair = np.nonzero(played)  # row-major: voter first, then pair order
    result = np.where(left > right, 1.0, np.where(left == right, 0.5, 0.0))[voter, pair]
    return Games(first=a[pair], second=b[pair], result=result, weight=profile.weights[voter])


def co_scored(scores: np.ndarray) -> np.ndarray:
    """``out[i, j]``: the number of voters that scored both ``i`` and ``j``; the diagonal, those that scored ``i``.

    A sparse product of the voters x systems indicator with itself: its cost
    is the sum over voters of ``k_v^2`` (``k_v`` the systems voter ``v`` scored).
    """
    from scipy import sparse

    seen = sparse.csr_array((~np.isnan(scores)).astype(np.int64))
    return np.asarray((seen.T @ seen).toarray(), dtype=np.int64)


def counted_coverage_partial(voters: Voters) -> Partial:
    """One partition's coverage as ``--min-coverage`` counts it: its voters of weight > 0 (``n_voters``) and, per
    system, how many of them score it (key ``"scored"``), as combinable sums."""
    counted = voters.weights > 0
    return Partial(
        systems=tuple(voters.systems),
        n_voters=int(counted.sum()),
        n_counted=int(counted.sum()),
        weight=float(np.sum(voters.weights)),
        totals={"scored": (~np.isnan(voters.scores[counted])).sum(0).astype(np.int64)},
    )


def coverage_partial(voters: Voters) -> Partial:
    """One partition's :func:`co_scored` counts as combinable sums (key ``"co_scored"``)."""
    return Partial(
        systems=tuple(voters.systems),
        n_voters=voters.scores.shape[0],
        n_counted=voters.scores.shape[0],
        weight=float(np.sum(voters.weights)),
        totals={"co_scored": co_scored(voters.scores)},
    )
