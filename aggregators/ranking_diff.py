"""What changed between two rankings of the same benchmark.

The rank change of a system is its rank in ``before`` minus its rank in
``after`` (positive = it moved up).  Systems only in ``after`` entered, those
only in ``before`` left.  Kendall tau-b and top-k agreement are computed on
the common systems (see :mod:`aggregators.compare`); with fewer than two
common systems they are null.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from scorehouse.aggregators.compare import kendall_tau, top_k_agreement


@dataclass(frozen=True)
class RankingDiff:
    changes: pl.DataFrame  # system, rank_before, rank_after, change, score_before, score_after
    entered: tuple[str, ...]
    left: tuple[str, ...]
    kendall_tau: float | None
    top_k: int
    top_k_agreement: float | None


def diff_rankings(before: pl.DataFrame, after: pl.DataFrame, *, top_k: int = 3) -> RankingDiff:
    """Compare two ranking tables (``system, score, rank, tied``)."""
    joined = before.select("system", rank_before="rank", score_before="score").join(
        after.select("system", rank_after="rank", score_after="score"), on="system", how="full", coalesce=True
    )
    entered = joined.filter(pl.col("rank_before").is_null()).get_column("system").sort().to_list()
    left = joined.filter(pl.col("rank_after").is_null()).get_column("system").sort().to_list()
    common = joined.drop_nulls(["rank_before", "rank_after"])
    changes = common.with_columns(change=pl.col("rank_before") - pl.col("rank_after")).select(
        "system", "rank_before", "rank_after", "change", "score_before", "score_after"
    ).sort("rank_after", "system")
    comparable = common.height >= 2
    return RankingDiff(
        changes=changes,
        entered=tuple(entered),
        left=tuple(left),
        kendall_tau=kendall_tau(before, after) if comparable else None,
        top_k=top_k,
        top_k_agreement=top_k_agreement(before, after, top_k) if comparable else None,
    )
