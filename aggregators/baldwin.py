"""Baldwin's method: repeatedly eliminate the systems with the lowest Borda score.

Baldwin (1926), "The technique of the Nanson preferential majority system of
election", Proceedings of the Royal Society of Victoria; one of the
Vote'n'Rank procedures (Rofin et al., 2023, "Vote'n'Rank: Revision of
Benchmarking with Social Choice Theory", EACL).

Each round computes the weighted Borda count (:mod:`aggregators.borda`, same
``ties``) among the systems still in the race and eliminates all systems
tied at the lowest score; it stops when the remaining systems all have the
same score (they are the winners).  The score of a system is the number of
rounds it survived, so systems eliminated together tie and the winners rank
first.

With ``ties="average"`` (the default) a system's Borda score is
``sum_y (W + margin(x, y)) / 2`` over the other remaining systems ``y``, so a
Condorcet winner always scores above the round's average and is never
eliminated, and a Condorcet loser scores below it and never wins: the method
is Condorcet-consistent and Condorcet-loser-consistent.  With ``"min"`` or
``"max"`` the voters' ties distort the scores and neither property holds.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.borda import borda_points
from scorehouse.aggregators.parameters import check_choice
from scorehouse.aggregators.positions import TIES, weighted_totals
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.ranking import tie_classes
from scorehouse.aggregators.registry import register


@register(
    "baldwin",
    view="ranks",
    handles_missing=False,
    citation=(
        "Baldwin (1926), The technique of the Nanson preferential majority system of election, "
        "Proceedings of the Royal Society of Victoria; Rofin et al. (2023), Vote'n'Rank, EACL"
    ),
    properties=("anonymous", "neutral", "unanimity", "condorcet_consistent", "condorcet_loser"),
)
def baldwin(profile: Profile, *, ties: str = "average") -> np.ndarray:
    """Rounds survived under iterated elimination of the lowest Borda score."""
    check_choice("baldwin", "ties", ties, TIES)
    remaining = np.arange(len(profile.systems))
    survived = np.zeros(len(profile.systems))
    rounds = 0
    while len(remaining) > 1:
        points = borda_points(profile.scores[:, remaining], ties)
        totals = weighted_totals(profile.weights, points)
        classes = tie_classes(totals)
        lowest = classes == classes.max()
        if lowest.all():
            break
        survived[remaining[lowest]] = rounds
        remaining = remaining[~lowest]
        rounds += 1
    survived[remaining] = rounds
    return survived
