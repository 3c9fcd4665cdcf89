"""Leaderboards side by side: one row per system, one column per method, sorted by the first method.

Rows are in the order of the first method's ranking (ties by system name; systems it did not
rank last).  Each cell shows the rank, the score (4 significant digits) and an arrow with the rank
change against the mean ranking when a mean was computed: ``↑2`` = two places higher than by the mean.
"""

from __future__ import annotations

import polars as pl

from scorehouse.transforms.rank_plan import MethodRun

REFERENCE_METHOD = "mean"
ORDER = "_order"


def rank_change_arrow(rank: int | None, reference: int | None) -> str:
    """``=``, ``↑n`` or ``↓n``: the places gained against ``reference`` (empty where either is missing).

    The rule for one cell (the HTML report's); :func:`change_arrow` is the same rule over a column,
    and a test checks that the two agree.
    """
    if rank is None or reference is None:
        return ""
    change = reference - rank
    return "=" if change == 0 else (f"↑{change}" if change > 0 else f"↓{-change}")


def change_arrow(rank: pl.Expr, reference: pl.Expr) -> pl.Expr:
    """:func:`rank_change_arrow` over columns."""
    change = reference - rank
    return (
        pl.when(rank.is_null() | reference.is_null()).then(pl.lit(""))
        .when(change == 0).then(pl.lit("="))
        .when(change > 0).then(pl.format("↑{}", change))
        .otherwise(pl.format("↓{}", -change))
    )


def side_by_side(rankings: list[tuple[MethodRun, pl.DataFrame]]) -> pl.DataFrame:
    """Long rankings of several methods → the wide leaderboard table (strings, ready to print)."""
    if not rankings:
        return pl.DataFrame()
    reference = next((r for m, r in rankings if m.method == REFERENCE_METHOD), None)
    table = rankings[0][1].select("system", pl.col("rank").alias(ORDER))
    for method_run, ranking in rankings:
        joined = ranking.select("system", "rank", "score")
        ref = (reference.select("system", pl.col("rank").alias("_ref")) if reference is not None
               else ranking.select("system", pl.lit(None, dtype=pl.Int64).alias("_ref")))
        joined = joined.join(ref, on="system", how="left")
        cell = joined.select(
            "system",
            pl.concat_str(
                pl.col("rank").cast(pl.String).str.pad_start(3),
                pl.col("score").round_sig_figs(4).cast(pl.String).str.pad_start(9),
                change_arrow(pl.col("rank"), pl.col("_ref")),
                separator=" ",
            ).str.strip_chars_end().alias(method_run.label),
        )
        table = table.join(cell, on="system", how="full", coalesce=True)
    return table.sort(ORDER, "system", nulls_last=True).drop(ORDER)


def sorted_by(rankings: list[tuple[MethodRun, pl.DataFrame]]) -> str:
    """What :func:`side_by_side`'s rows are sorted by, said under the table."""
    return f"sorted by {rankings[0][0].label} (rank, then name)" if rankings else ""
