"""Weighted median of the scores.

The robust counterpart of the mean among the score aggregations compared by
Colombo et al. (2022, "What are the best systems? New perspectives on NLP
benchmarking", NeurIPS).

Definition (weighted median).  Sort a system's scores ``x_1 <= ... <= x_V``
with their voters' weights and let ``F(x)`` be the total weight of the scores
``<= x`` and ``W`` the total weight.  The *lower* weighted median is the
smallest score with ``F >= W / 2``, the *upper* one the smallest score with
``F > W / 2``; the median is their midpoint.  With equal weights this is the
ordinary median (the mean of the two middle scores for an even count), and
with integer weights it is the ordinary median of the list in which each
score is repeated weight times.  Voters of weight 0 do not count.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import register

# F and W/2 are sums of float weights: "equal" means within this relative distance.
HALF_TOLERANCE = 1e-12


def weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted median of every column of ``values`` (voters x systems), see the module docstring."""
    order = np.argsort(values, axis=0, kind="stable")
    sorted_values = np.take_along_axis(values, order, axis=0)
    cumulative = np.cumsum(np.asarray(weights, dtype=float)[order], axis=0)
    half = cumulative[-1] / 2.0
    slack = HALF_TOLERANCE * cumulative[-1]
    lower = np.argmax(cumulative >= half - slack, axis=0)
    upper = np.argmax(cumulative > half + slack, axis=0)
    columns = np.arange(values.shape[1])
    return (sorted_values[lower, columns] + sorted_values[upper, columns]) / 2.0


@register(
    "median",
    view="scores",
    handles_missing=False,
    citation="Colombo et al. (2022), What are the best systems? New perspectives on NLP benchmarking, NeurIPS",
    properties=("anonymous", "neutral", "unanimity", "monotone"),
)
def median(profile: Profile) -> np.ndarray:
    """Weighted median of each system's scores (midpoint of the lower and upper weighted medians)."""
    return weighted_median(profile.scores, profile.weights)
