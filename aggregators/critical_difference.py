"""Average ranks and the Nemenyi critical difference (Demšar 2006, JMLR 7:1-30), for critical-difference diagrams.

Over N voters that score every one of k systems, each voter ranks the systems
(1 = best, ties get the average of the ranks they span) and a system's
average rank is the mean over the voters.  Two systems differ significantly at
level ``alpha`` when their average ranks differ by at least

    CD = q_alpha * sqrt(k (k + 1) / (6 N)),

q_alpha being the studentized range statistic for k groups and infinite
degrees of freedom divided by sqrt(2) (Demšar's Table 5a).  The systems a
voter did not score are left out, since the test needs complete data: the
result names the systems it kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy.stats import rankdata, studentized_range

from scorehouse.aggregators.errors import AggregationError


@dataclass(frozen=True)
class CriticalDifference:
    """Systems by average rank (best first), the critical difference, and the groups it cannot tell apart."""

    systems: tuple[str, ...]
    average_ranks: tuple[float, ...]
    critical_difference: float
    voters: int
    alpha: float
    cliques: tuple[tuple[int, int], ...]  # (first, last) positions in ``systems``: maximal runs within CD of each other


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """q_alpha of the Nemenyi test for k systems: the studentized range quantile over sqrt(2)."""
    if k < 2 or not 0 < alpha < 1:
        raise AggregationError(f"the Nemenyi test needs k >= 2 systems and 0 < alpha < 1; got k={k}, alpha={alpha}")
    return float(studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))


def critical_difference(ballots: pl.DataFrame, alpha: float = 0.05) -> CriticalDifference:
    """Average ranks of the systems that every voter scored, and the Nemenyi CD (module docstring).

    ``ballots``: voter, system, score (higher is better, null = missing).  Raises
    :class:`AggregationError` when fewer than two systems are complete or there are fewer than two voters.
    """
    wide = ballots.filter(pl.col("score").is_not_null()).pivot(
        on="system", index="voter", values="score", aggregate_function="first"
    )
    systems = sorted(c for c in wide.columns if c != "voter")
    voters = wide.height
    if voters < 2:
        raise AggregationError(f"a critical difference needs at least 2 voters; got {voters}")
    matrix = wide.select(systems).to_numpy().astype(float)
    complete = ~np.isnan(matrix).any(axis=0)
    kept = [s for s, keep in zip(systems, complete) if keep]
    if len(kept) < 2:
        raise AggregationError(f"a critical difference needs 2 systems scored by every voter; {len(kept)} are")
    ranks = rankdata(-matrix[:, complete], method="average", axis=1)
    average = ranks.mean(axis=0)
    order = np.lexsort((np.array(kept), average))
    average, kept = average[order], [kept[i] for i in order]
    k = len(kept)
    cd = nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6 * voters)))
    # the last system within CD of each one; a run is a clique unless the one before reaches as far
    reach = np.searchsorted(average, average + cd, side="left") - 1
    cliques = tuple((i, int(reach[i])) for i in range(k) if reach[i] > i and (i == 0 or reach[i] > reach[i - 1]))
    return CriticalDifference(tuple(kept), tuple(float(a) for a in average), cd, voters, alpha, cliques)
