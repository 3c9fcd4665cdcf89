"""Plurality: one point for each voter's top system.

The simplest positional rule, one of the Vote'n'Rank procedures (Rofin et
al., 2023, "Vote'n'Rank: Revision of Benchmarking with Social Choice Theory",
EACL): scoring vector ``(1, 0, ..., 0)``, times the voter's weight.

When a voter ties several systems at the top, ``ties`` decides (see
:mod:`aggregators.positions`):

* ``"average"`` (default): the point is split, ``1/k`` to each of the ``k``
  systems tied first, so every voter hands out exactly one point;
* ``"min"``: each of them gets the full point;
* ``"max"``: none of them gets it (the convention of the Vote'n'Rank code,
  which only counts a voter's sole best system).
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.positions import positional_scores
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import register


@register(
    "plurality",
    view="ranks",
    handles_missing=False,
    citation="Rofin et al. (2023), Vote'n'Rank: Revision of Benchmarking with Social Choice Theory, EACL",
    properties=("anonymous", "neutral", "unanimity", "monotone"),
)
def plurality(profile: Profile, *, ties: str = "average") -> np.ndarray:
    """Weighted number of voters that rank the system first (top ties per ``ties``)."""
    vector = np.zeros(len(profile.systems))
    vector[0] = 1.0
    return positional_scores(profile, "plurality", vector, ties)
