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


def warehouse_summary(warehouse: Warehouse) -> pl.DataFrame:
    """What is in the warehouse: per (benchmark, level) the distinct systems, tasks, metrics, instances, scores, missing."""
    with connect(warehouse) as con:
        return query_frame(
            con,
            """SELECT benchmark, level,
                      count(DISTINCT system) AS systems,
                      count(DISTINCT task) AS tasks,
                      count(DISTINCT metric) AS metrics,
                      count(DISTINCT instance) AS instances,
                      count(*) AS scores,
                      count(*) FILTER (WHERE score IS NULL) AS missing
               FROM scores GROUP BY ALL ORDER BY ALL""",
        )


def snapshot_listing(warehouse: Warehouse, benchmark: str | None = None) -> pl.DataFrame:
    """Every ranking snapshot (optionally of one benchmark) with its lineage, oldest first per method."""
    where = "WHERE benchmark = ?" if benchmark else ""
    with connect(warehouse) as con:
        return query_frame(
            con,
            f"""SELECT snapshot_id, created_at, benchmark, level, method, parameters, n_systems, n_voters,
                       previous_snapshot_id
                FROM snapshots {where} ORDER BY benchmark, level, method, created_at""",
            [benchmark] if benchmark else None,
        )


def latest_diff_pairs(
    warehouse: Warehouse, benchmark: str | None = None, method: str | None = None
) -> list[tuple[str, str]]:
    """(previous, latest) snapshot ids: each latest snapshot paired with the one it superseded.

    The latest snapshots are :func:`latest_snapshot_ids`'s, in its order; those
    without a previous snapshot of the same key (a first ranking) have no pair.
    """
    latest = latest_snapshot_ids(warehouse, benchmark)
    with connect(warehouse) as con:
        lineage = query_frame(con, "SELECT snapshot_id, method, previous_snapshot_id FROM snapshots")
    previous = {
        snapshot: before
        for snapshot, snapshot_method, before in lineage.iter_rows()
        if before is not None and (method is None or snapshot_method == method)
    }
    return [(previous[s], s) for s in latest if s in previous]
