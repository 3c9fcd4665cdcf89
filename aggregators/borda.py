"""Borda count over voters' rankings.

Borda (1781), "Mémoire sur les élections au scrutin"; used to rank NLP systems
by Colombo et al. (2022, "What are the best systems? New perspectives on NLP
benchmarking", NeurIPS), where it is the approximation of the Kemeny
consensus, and by Rofin et al. (2023, "Vote'n'Rank", EACL).

Each voter gives a system as many points as there are systems it scored
strictly lower, plus, for the systems it tied with it:

* ``ties="average"``: half a point per tied system (the mean points of the
  tied block's positions: the Kendall-consistent convention);
* ``ties="min"``: a full point per tied system (the points of the best of the
  block's positions);
* ``ties="max"``: nothing (the points of the worst position, ``n - max-rank``:
  the convention of the Vote'n'Rank code, which its reference numbers use).

Points are multiplied by the voter's weight and summed.  With
``ties="average"`` (the default) a Condorcet loser scores below the average
and is never ranked first; with ``"min"`` or ``"max"`` it can be.
"""

from __future__ import annotations

import numpy as np

from aggregators.positions import positional_scores
from aggregators.profile import Profile
from aggregators.registry import register


def borda_vector(n: int) -> np.ndarray:
    """Borda's scoring vector ``(n-1, n-2, ..., 0)``."""
    return np.arange(n - 1, -1, -1, dtype=float)


@register(
    "borda",
    view="ranks",
    handles_missing=False,
    citation=(
        "Borda (1781), Mémoire sur les élections au scrutin; Colombo et al. (2022), What are the best "
        "systems? New perspectives on NLP benchmarking, NeurIPS"
    ),
    properties=("anonymous", "neutral", "unanimity", "condorcet_loser", "monotone"),
)
def borda(profile: Profile, *, ties: str = "average") -> np.ndarray:
    """Weighted Borda count: points for every system scored lower, tied systems per ``ties``."""
    return positional_scores(profile, "borda", borda_vector(len(profile.systems)), ties)
