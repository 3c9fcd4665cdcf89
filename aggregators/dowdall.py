"""Dowdall: ``1/k`` points for the system a voter places ``k``-th.

A positional rule with the harmonic scoring vector ``(1, 1/2, ..., 1/n)``, one
of the Vote'n'Rank procedures (Rofin et al., 2023, "Vote'n'Rank: Revision of
Benchmarking with Social Choice Theory", EACL), times the voter's weight.
Systems a voter ties share points per ``ties`` (see
:mod:`aggregators.positions`): ``"average"`` (default) gives each the mean of
``1/k`` over the tied positions, ``"min"`` the points of the best of them
(``1 / min-rank``: the convention of the Vote'n'Rank code), ``"max"`` the
points of the worst.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.positions import positional_scores
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import register


@register(
    "dowdall",
    view="ranks",
    handles_missing=False,
    citation="Rofin et al. (2023), Vote'n'Rank: Revision of Benchmarking with Social Choice Theory, EACL",
    properties=("anonymous", "neutral", "unanimity", "monotone"),
)
def dowdall(profile: Profile, *, ties: str = "average") -> np.ndarray:
    """Weighted sum of 1/position over voters (tied positions per ``ties``)."""
    return positional_scores(profile, "dowdall", 1.0 / np.arange(1, len(profile.systems) + 1), ties)
