"""Minimax (Simpson–Kramer) by winning votes.

Simpson (1969), "On defining areas of voter choice", Quarterly Journal of
Economics, and Kramer (1977); one of the Vote'n'Rank procedures (Rofin et
al., 2023, "Vote'n'Rank: Revision of Benchmarking with Social Choice Theory",
EACL), with its default "winning votes" strength.  A system's worst defeat is
the largest weighted number of voters that prefer an opponent to it, among
the opponents that beat it in the weighted majority of
:mod:`aggregators.majority`; a system nobody beats has no defeat (0).  The
score is minus the worst defeat, so the system with the mildest worst defeat
wins.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.majority import majority
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import register


@register(
    "minimax",
    view="pairwise",
    handles_missing=True,
    citation=(
        "Simpson (1969), On defining areas of voter choice, Quarterly Journal of Economics; "
        "Rofin et al. (2023), Vote'n'Rank, EACL"
    ),
    properties=("anonymous", "neutral", "unanimity", "condorcet_consistent", "monotone"),
)
def minimax(profile: Profile) -> np.ndarray:
    """Minus the winning votes of the strongest opponent that beats the system (0 when unbeaten)."""
    counts = majority(profile)
    defeats = np.where(counts.beats, counts.wins, 0.0)  # defeats[j, i]: votes of j over i when j beats i
    return 0.0 - defeats.max(axis=0, initial=0.0)  # 0.0 - x: an unbeaten system scores 0, not -0
