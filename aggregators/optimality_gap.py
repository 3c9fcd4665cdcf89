"""The optimality gap: how far a system falls short of a target level, on average over the voters.

Rofin et al. (2023, "Vote'n'Rank: Revision of Benchmarking with Social Choice
Theory", EACL; the rule ``optimality_gap`` of the paper's code): for a
target level ``gamma`` set by the user, a system's score is the weighted mean
over the voters of ``min(score, gamma) - gamma`` (0 at best, negative below the
target).  A score above the target earns nothing more, so a system cannot buy
back a shortfall on one task with a surplus on another.  The paper's
notebook (CS1) averages the gap over every column with weight 1, the
weight-0 diagnostics included; ours honours the voters' weights like every
other method, and unit weights on every column reproduce the notebook's
printed gaps (``benchmarks/published_bundled.py``).

``target`` has no default: it lives on the scale of the scores (the paper's
examples use 95 on 0-100 leaderboards), and a default would silently mean
nothing on another scale.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.parameters import check_range
from scorehouse.aggregators.positions import weighted_totals
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import register

CITATION = "Rofin et al. (2023), Vote'n'Rank: Revision of Benchmarking with Social Choice Theory, EACL"


@register(
    "optimality_gap",
    view="scores",
    handles_missing=False,
    citation=CITATION,
    properties=("anonymous", "neutral", "unanimity", "monotone"),
)
def optimality_gap(profile: Profile, *, target: float | None = None) -> np.ndarray:
    """Weighted mean shortfall from a target level ``target``: mean of ``min(score, target) - target``."""
    if target is None:
        raise InvalidParameterError(
            "method 'optimality_gap' needs the parameter 'target' (the level gamma a system should reach, on the "
            "scale of the scores, e.g. target=95 for 0-100 leaderboards); it has no default"
        )
    check_range("optimality_gap", "target", target)
    shortfall = np.minimum(profile.scores, target) - target
    return weighted_totals(profile.weights, shortfall) / profile.weights.sum()
