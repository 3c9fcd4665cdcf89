"""The Condorcet rule: the system that beats every other one in the weighted majority.

Condorcet (1785), "Essai sur l'application de l'analyse à la probabilité des
décisions rendues à la pluralité des voix"; one of the Vote'n'Rank procedures
(Rofin et al., 2023, "Vote'n'Rank: Revision of Benchmarking with Social
Choice Theory", EACL).  The majority relation is the weighted one of
:mod:`aggregators.majority`: two systems are compared on the voters that
scored both, so missing scores are handled.

The Condorcet winner (score 1) ranks first and every other system ties
second (score 0); when there is no Condorcet winner all systems tie first.
Either way a note says which case it was.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.majority import majority
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import Scored, register


@register(
    "condorcet",
    view="pairwise",
    handles_missing=True,
    citation=(
        "Condorcet (1785), Essai sur l'application de l'analyse à la probabilité des décisions rendues à "
        "la pluralité des voix; Rofin et al. (2023), Vote'n'Rank, EACL"
    ),
    properties=("anonymous", "neutral", "unanimity", "condorcet_consistent", "monotone"),
)
def condorcet(profile: Profile) -> Scored:
    """1 for the Condorcet winner of the weighted majority, 0 for every other system."""
    winner = majority(profile).condorcet_winner()
    scores = np.zeros(len(profile.systems))
    if winner is None:
        return Scored(scores, ("no Condorcet winner: no system beats every other one, all systems tie",))
    scores[winner] = 1.0
    return Scored(scores, (f"{profile.systems[winner]!r} is the Condorcet winner",))
