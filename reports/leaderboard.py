"""Leaderboards side by side: one row per system, one column per method.

Systems are ordered by the first method's ranking.  Each cell shows the rank,
the score and an arrow with the rank change against the mean ranking (when a
mean was computed): ``↑2`` = two places higher than by the mean.
"""

from __future__ import annotations

import polars as pl

from scorehouse.transforms.rank_plan import MethodRun

REFERENCE_METHOD = "mean"


def rank_change_arrow(rank: int | None, reference: int | None) -> str:
    if rank is None or reference is None:
        return ""
    change = reference - rank
    return "=" if change == 0 else (f"↑{change}" if change > 0 else f"↓{-change}")


def side_by_side(rankings: list[tuple[MethodRun, pl.DataFrame]]) -> pl.DataFrame:
    """Long rankings of several methods → the wide leaderboard table (strings, ready to print)."""
    if not rankings:
        return pl.DataFrame()
    reference = next((r for m, r in rankings if m.method == REFERENCE_METHOD), None)
    table = rankings[0][1].select("system")
    for method_run, ranking in rankings:
        joined = ranking.select("system", "rank", "score")
        if reference is not None:
            joined = joined.join(reference.select("system", pl.col("rank").alias("_ref")), on="system", how="left")
        else:
            joined = joined.with_columns(_ref=pl.lit(None, dtype=pl.Int64))
        cell = joined.select(
            "system",
            pl.struct("rank", "score", "_ref")
            .map_elements(
                lambda c: f"{c['rank']:>3} {c['score']:>9.4g} {rank_change_arrow(c['rank'], c['_ref'])}".rstrip(),
                return_dtype=pl.String,
            )
            .alias(method_run.label),
        )
        table = table.join(cell, on="system", how="full", coalesce=True)
    return table
