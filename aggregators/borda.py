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

The points of complete voters are computed by :func:`borda_points`, the one
function behind the whole-table count, its partition form (the weighted
points summed per group over the voters that scored every system, one- and
two-level) and Baldwin's rounds.
"""

from __future__ import annotations

import numpy as np
from scorehouse.aggregators.ranks import rankdata

from scorehouse.aggregators.parameters import check_choice
from scorehouse.aggregators.partition_forms import complete_voters_form
from scorehouse.aggregators.positions import TIES, weighted_totals
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import Scored, register

# Twice the points system i gets from system j: (i's flags, j's flags as 2 minus) per ties rule,
# from the int8 flags gt = x_i > x_j and ge = x_i >= x_j.
_TWICE = {
    "average": (lambda gt, ge: gt + ge, lambda gt, ge: gt + ge),
    "min": (lambda gt, ge: 2 * ge, lambda gt, ge: 2 * gt),
    "max": (lambda gt, ge: 2 * gt, lambda gt, ge: 2 * ge),
}


# Points per tied system, as a multiple of one point.
_PER_TIE = {"average": 0.5, "min": 1.0, "max": 0.0}


def borda_points(scores: np.ndarray, ties: str = "average") -> np.ndarray:
    """Each voter's Borda points: systems scored lower, plus per tied system 1/2, 1 or 0 (``ties``).

    ``scores`` is voters x systems without missing cells.  Two ways to the
    same exact numbers, chosen by shape.  Many voters (instance level): one
    vectorised pass over the voters per pair of systems, where the int8 flags
    ``x_i > x_j`` and ``x_i >= x_j`` give twice i's points from j (average:
    their sum; min: twice the second; max: twice the first) and j gets 2 minus
    twice its loss to i, so integer sums give twice the points exactly;
    systems-major rows keep every pass contiguous (at 15 systems about 5x
    faster than comparing all pairs at once, and faster than sorting every
    voter).  Few voters and many systems (task level, Baldwin's rounds): the
    per-voter ranks, ``min-rank - 1`` systems lower and ``max-rank -
    min-rank`` others tied, where the pair passes would cost a call each.
    """
    n_voters, n = scores.shape
    if n_voters < n * n:
        low, high = (rankdata(scores, method=m) for m in ("min", "max"))
        return (low - 1.0) + _PER_TIE[ties] * (high - low)
    to_i, from_j = _TWICE[ties]
    by_system = np.ascontiguousarray(scores.T)
    twice = np.zeros((n, n_voters), dtype=np.int32)
    for i in range(n):  # a loop over pairs of systems, each pass over every voter
        for j in range(i + 1, n):
            gt = (by_system[i] > by_system[j]).view(np.int8)
            ge = (by_system[i] >= by_system[j]).view(np.int8)
            twice[i] += to_i(gt, ge)
            twice[j] -= from_j(gt, ge)
    twice += 2 * np.arange(n, dtype=np.int32)[:, None]  # the "2 minus" of every pair where the system is j
    return (0.5 * twice).T


def _resampled_borda(profile: Profile, multiplicity: np.ndarray, *, ties: str = "average") -> Scored:
    """The Borda counts of every resample of the (complete) voters: each voter's points counted once, weighted
    by how often each resample drew it."""
    check_choice("borda", "ties", ties, TIES)
    return Scored((multiplicity * profile.weights) @ borda_points(profile.scores, ties))


@register(
    "borda",
    view="ranks",
    handles_missing=False,
    citation=(
        "Borda (1781), Mémoire sur les élections au scrutin; Colombo et al. (2022), What are the best "
        "systems? New perspectives on NLP benchmarking, NeurIPS"
    ),
    properties=("anonymous", "neutral", "unanimity", "condorcet_loser", "monotone"),
    partition=complete_voters_form(
        "borda", per_voter=borda_points, within=lambda sums, weight: sums, parameters={"ties": ("average",)}
    ),
    resampled=_resampled_borda,
)
def borda(profile: Profile, *, ties: str = "average") -> np.ndarray:
    """Weighted Borda count: points for every system scored lower, tied systems per ``ties``."""
    check_choice("borda", "ties", ties, TIES)
    return weighted_totals(profile.weights, borda_points(profile.scores, ties))
