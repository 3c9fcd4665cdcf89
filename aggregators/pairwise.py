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

from aggregators.profile import Profile

CHUNK_CELLS = 1 << 22  # voters x systems x systems booleans compared at a time (4 MiB): stays in cache


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


def weighted_pair_counts(scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted win and tie counts between every two systems, over the voters that scored both.

    ``scores`` is voters x systems (NaN = missing), ``weights`` is voters x q
    (q weightings at once).  Returns ``wins`` and ``ties`` of shape
    q x systems x systems: ``wins[c, i, j]`` is the sum of ``weights[v, c]``
    over the voters with ``scores[v, i] > scores[v, j]``, ``ties[c, i, j]``
    over the voters that scored both equally (the diagonal counts the voters
    that scored ``i``).  NaN compares false, so a voter that lacks either
    system counts in neither.

    Blocks of voters are compared all pairs at once and summed with
    ``einsum`` (plain C loops): BLAS products of these tall, thin matrices
    gain nothing from threads and, on a busy machine, their spinning threads
    made them a hundred times slower.
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
