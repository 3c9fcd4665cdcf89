"""Reads of the catalog that the flows need, as polars frames."""

from __future__ import annotations

import polars as pl

from warehouse.catalog import connect, query_frame
from warehouse.schema import METRICS, SCORES
from warehouse.storage import Warehouse

METRIC_COLUMNS = ", ".join(f'"{c}"' for c in METRICS)  # "group" is an SQL keyword


def benchmark_scores(warehouse: Warehouse, benchmark: str, level: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The current scores of one benchmark at one level, and the catalog entries of its metrics."""
    with connect(warehouse) as con:
        scores = query_frame(
            con,
            f"SELECT {', '.join(SCORES)} FROM scores WHERE benchmark = ? AND level = ?",
            [benchmark, level],
        )
        metrics = query_frame(con, f"SELECT {METRIC_COLUMNS} FROM metrics WHERE benchmark = ?", [benchmark])
    return (
        scores.select(pl.col(c).cast(t) for c, t in SCORES.items()),
        metrics.select(pl.col(c).cast(t) for c, t in METRICS.items()),
    )


def latest_snapshot_ids(warehouse: Warehouse, benchmark: str | None = None) -> list[str]:
    """The newest snapshot of every (benchmark, level, method, parameters) (the ``latest_snapshots`` view),
    optionally of one benchmark."""
    where = "WHERE benchmark = ?" if benchmark else ""
    with connect(warehouse) as con:
        frame = query_frame(
            con,
            f"SELECT snapshot_id FROM latest_snapshots {where} ORDER BY benchmark, level, method, parameters",
            [benchmark] if benchmark else None,
        )
    return frame.get_column("snapshot_id").to_list() if frame.height else []


def latest_analysis_summary(warehouse: Warehouse, benchmark: str, level: str, experiment: str) -> pl.DataFrame:
    """The summary table of the newest analysis of ``experiment`` on a benchmark (empty if none)."""
    with connect(warehouse) as con:
        return query_frame(
            con,
            """SELECT s.* FROM analysis_summaries AS s
               WHERE s.analysis_id = (
                   SELECT analysis_id FROM latest_analyses WHERE benchmark = ? AND level = ? AND experiment = ?)""",
            [benchmark, level, experiment],
        )
