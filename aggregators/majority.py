"""The weighted majority relation shared by the pairwise social-choice rules.

``wins[i, j]`` is the total weight of the voters that scored both ``i`` and
``j`` and gave ``i`` the strictly higher score; ``ties[i, j]`` the weight of
those that scored both and gave them the same score.  A voter that did not
score both systems says nothing about the pair, which is how Condorcet,
Copeland, Minimax and Kemeny handle missing scores (Rofin et al., 2023,
"Vote'n'Rank: Revision of Benchmarking with Social Choice Theory", EACL,
compare two systems on the tasks where both have a score).

``i`` beats ``j`` when ``wins[i, j] > wins[j, i]`` by more than a relative
``MARGIN_TOLERANCE`` of the total voter weight: sums of float weights in
another order differ in the last bits, and a tie must stay a tie.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorehouse.aggregators.pairwise import pair_counts
from scorehouse.aggregators.profile import Profile

MARGIN_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Majority:
    """Weighted pairwise counts of a profile and the majority relation they give."""

    wins: np.ndarray
    ties: np.ndarray
    total_weight: float

    @property
    def margins(self) -> np.ndarray:
        """``wins[i, j] - wins[j, i]``: positive when ``i`` beats ``j``."""
        return self.wins - self.wins.T

    @property
    def beats(self) -> np.ndarray:
        """Boolean matrix: ``beats[i, j]`` when ``i`` beats ``j`` in the weighted majority."""
        return self.margins > MARGIN_TOLERANCE * max(self.total_weight, 1.0)

    def condorcet_winner(self) -> int | None:
        """Index of the system that beats every other system, or None."""
        n = self.wins.shape[0]
        winners = np.flatnonzero(self.beats.sum(axis=1) == n - 1)
        return int(winners[0]) if len(winners) else None

    def condorcet_loser(self) -> int | None:
        """Index of the system every other system beats, or None."""
        n = self.wins.shape[0]
        losers = np.flatnonzero(self.beats.sum(axis=0) == n - 1)
        return int(losers[0]) if len(losers) else None


def majority(profile: Profile) -> Majority:
    """Weighted win and tie counts of every ordered pair of systems (:func:`aggregators.pairwise.pair_counts`)."""
    counts = pair_counts(profile)
    return Majority(wins=counts.wins, ties=counts.ties, total_weight=float(profile.weights.sum()))
