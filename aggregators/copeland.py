"""Copeland's method: pairwise wins minus pairwise losses.

Copeland (1951), "A reasonable social welfare function", University of
Michigan seminar notes; one of the Vote'n'Rank procedures (Rofin et al.,
2023, "Vote'n'Rank: Revision of Benchmarking with Social Choice Theory",
EACL), in its "wins minus losses" form.  Wins and losses are those of the
weighted majority relation of :mod:`aggregators.majority` (two systems
compared on the voters that scored both); a majority tie counts for neither.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.majority import majority
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import register


@register(
    "copeland",
    view="pairwise",
    handles_missing=True,
    citation=(
        "Copeland (1951), A reasonable social welfare function, University of Michigan; "
        "Rofin et al. (2023), Vote'n'Rank, EACL"
    ),
    properties=("anonymous", "neutral", "unanimity", "condorcet_consistent", "condorcet_loser", "monotone"),
)
def copeland(profile: Profile) -> np.ndarray:
    """Number of systems beaten minus number of systems beating it in the weighted majority."""
    beats = majority(profile).beats
    return beats.sum(axis=1) - beats.sum(axis=0).astype(float)
