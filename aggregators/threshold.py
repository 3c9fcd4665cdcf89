"""The Threshold rule: fewest last places, then fewest second-to-last, ...

The threshold aggregation of Aleskerov and co-authors, as defined by Rofin et
al. (2023, "Vote'n'Rank: Revision of Benchmarking with Social Choice Theory",
EACL): systems are compared by the weighted number of voters that put them last; ties are broken by the weighted
number that put them second to last, then third to last, ... up to second
(first places are never counted).  Vote'n'Rank computes the winners by
iterated elimination on exactly these counts; that is the lexicographic order
of the count vectors ``(c_n, c_{n-1}, ..., c_2)``, smaller first, which ranks
every system at once.

A system a voter ties with others is counted at the worst position of the
tied block (its max-rank), as in the Vote'n'Rank code: ties are penalised.
The score of a system is the number of systems lexicographically worse than
it; systems with equal count vectors tie.
"""

from __future__ import annotations

import numpy as np

from scorehouse.aggregators.positions import position_blocks
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.ranking import tie_classes
from scorehouse.aggregators.registry import register


def position_counts(profile: Profile) -> np.ndarray:
    """``counts[s, k-1]``: total weight of the voters placing system ``s`` at worst-position ``k``."""
    _, worst = position_blocks(profile.scores)
    n = len(profile.systems)
    cells = (np.arange(n)[None, :] * n + worst.astype(np.int64) - 1).ravel()
    weights = np.repeat(profile.weights, n)
    return np.bincount(cells, weights=weights, minlength=n * n).reshape(n, n)


@register(
    "threshold",
    view="ranks",
    handles_missing=False,
    citation="Rofin et al. (2023), Vote'n'Rank: Revision of Benchmarking with Social Choice Theory, EACL",
    properties=("anonymous", "neutral", "unanimity", "monotone"),
)
def threshold(profile: Profile) -> np.ndarray:
    """Lexicographic order of the weighted counts of last, second-to-last, ... places (fewer is better)."""
    counts = position_counts(profile)
    n = counts.shape[0]
    if n == 1:
        return np.zeros(1)
    # Per position, classes of equal counts (1 = fewest), so sums of the same
    # weights in another order still compare equal; then lexicographic order.
    classes = np.column_stack([tie_classes(-counts[:, k]) for k in range(1, n)])
    # lexsort sorts by its last key first: position n (the last column) decides first.
    order = np.lexsort(classes.T)
    ordered = classes[order]
    new_class = np.concatenate(([True], (ordered[1:] != ordered[:-1]).any(axis=1)))
    class_id = np.cumsum(new_class) - 1
    last_of_class = np.zeros(class_id[-1] + 1, dtype=np.int64)
    last_of_class[class_id] = np.arange(n)
    scores = np.empty(n)
    scores[order] = n - 1 - last_of_class[class_id]
    return scores
