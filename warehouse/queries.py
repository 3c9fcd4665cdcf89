"""Reads of the catalog that the flows need, as polars frames."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.warehouse.battle_filters import as_utc
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.schema import BATTLES, METRICS, SCORES
from scorehouse.warehouse.storage import Warehouse

METRIC_COLUMNS = ", ".join(f'"{c}"' for c in METRICS)  # "group" is an SQL keyword


def benchmark_scores(
    warehouse: Warehouse, benchmark: str, level: str, ranked_only: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The current scores of one benchmark at one level, and the catalog entries of its metrics.

    ``ranked_only`` reads the voters a method ranks and nothing else: the (task, metric) keys the
    catalog marks ``is_ranked`` and their entries.  The names of the ranked metrics go to the scan
    as a predicate DuckDB pushes into the Parquet reader (MTEB ranks ``main_score`` of each task's
    headline: its other metrics are skipped there), and the exact keys as a semi-join, which streams:
    the unranked rows (per-subset and secondary metrics, tens of millions for MTEB) are never held.
    """
    ranked = " AND is_ranked" if ranked_only else ""
    with connect(warehouse) as con:
        metrics = query_frame(con, f"SELECT {METRIC_COLUMNS} FROM metrics WHERE benchmark = ?{ranked}", [benchmark])
        if ranked_only:
            names = sorted(set(metrics.get_column("metric").to_list())) if metrics.height else []
            marks = ", ".join("?" for _ in names) or "NULL"
            sql = (f"SELECT {', '.join(f's.{c}' for c in SCORES)} FROM scores AS s "
                   f"SEMI JOIN (SELECT task, metric FROM metrics WHERE benchmark = ? AND is_ranked) AS m USING (task, metric) "
                   f"WHERE s.benchmark = ? AND s.level = ? AND s.metric IN ({marks})")
            scores = query_frame(con, sql, [benchmark, benchmark, level, *names])
        else:
            scores = query_frame(con, f"SELECT {', '.join(SCORES)} FROM scores WHERE benchmark = ? AND level = ?",
                                 [benchmark, level])
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


# What the ranking of battles reads (:func:`read_battles`): the battle, then what it can be filtered by.
BATTLE_READ = ("model_a", "model_b", "winner", "outcome", "tstamp", "judge", "category", "language", "instance")


class NoBattlesError(ScorehouseError, LookupError):
    """A benchmark that holds no battles: ingest a battles file into it, or rank one that has them."""


def _values(value: str | Sequence[str] | None) -> list[str] | None:
    """A filter's accepted values: one value or several; None for no filter."""
    return None if value is None else [value] if isinstance(value, str) else list(value)


def read_battles(
    home_or_warehouse: Warehouse | str | Path,
    benchmark: str,
    *,
    judge: str | Sequence[str] | None = None,
    category: str | Sequence[str] | None = None,
    language: str | Sequence[str] | None = None,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
) -> pl.DataFrame:
    """The current battles of ``benchmark`` (columns :data:`BATTLE_READ`), in the order they were fought.

    ``judge``, ``category`` and ``language`` keep the battles with one of the given values;
    ``since`` (inclusive) and ``until`` (exclusive) keep those whose ``tstamp`` is in the window
    (a battle without a time stamp is in no window).  The filters are SQL on the ``battles``
    view, so DuckDB prunes the benchmark's partition and pushes them into the Parquet scan.
    Ordered by ``tstamp`` (battles without one last), then by load (oldest first) and by the
    battle's place in its file: the sequence Elo-style ratings replay.  Raises
    :class:`NoBattlesError` naming the benchmarks that have battles when ``benchmark`` has none.
    """
    warehouse = home_or_warehouse if isinstance(home_or_warehouse, Warehouse) else Warehouse(home_or_warehouse)
    conditions, parameters = ["b.benchmark = ?"], [benchmark]
    for column, value in (("judge", judge), ("category", category), ("language", language)):
        accepted = _values(value)
        if accepted is not None:
            conditions.append(f"b.{column} IN ({', '.join('?' for _ in accepted) or 'NULL'})")
            parameters += accepted
    for operator, bound in ((">=", since), ("<", until)):
        if bound is not None:
            conditions.append(f"b.tstamp {operator} ?")
            parameters.append(as_utc(bound))
    with connect(warehouse) as con:
        con.execute("SET TimeZone = 'UTC'")
        frame = query_frame(
            con,
            f"""SELECT {', '.join(f'b.{c}' for c in BATTLE_READ)}
                FROM battles AS b JOIN loads AS l USING (load_id)
                WHERE {' AND '.join(conditions)}
                ORDER BY b.tstamp NULLS LAST, l.loaded_at, b.load_id, b.source_row""",
            parameters,
        )
        if frame.height == 0:  # none kept: say so when the benchmark has no battles at all (a scan of every load)
            held = query_frame(con, "SELECT DISTINCT benchmark FROM battles ORDER BY benchmark").get_column("benchmark")
            if benchmark not in held.to_list():
                which = ", ".join(held.to_list()) or "none yet (ingest a file with --format battles)"
                raise NoBattlesError(f"benchmark {benchmark!r} has no battles; benchmarks with battles: {which}")
    return frame.select(pl.col(c).cast(BATTLES[c]) for c in BATTLE_READ)


def battle_loads(warehouse: Warehouse) -> dict[str, tuple[str, ...]]:
    """Every benchmark holding battles, with the loads its current battles come from (sorted)."""
    with connect(warehouse) as con:
        frame = query_frame(con, "SELECT DISTINCT benchmark, load_id FROM battles ORDER BY benchmark, load_id")
    loads: dict[str, tuple[str, ...]] = {}
    for benchmark, load_id in frame.iter_rows():
        loads[benchmark] = (*loads.get(benchmark, ()), load_id)
    return loads


def benchmark_systems(warehouse: Warehouse, benchmark: str) -> pl.DataFrame:
    """What the current loads say about the systems of ``benchmark`` (the ``systems`` view; no rows if nothing)."""
    with connect(warehouse) as con:
        return query_frame(con, "SELECT * FROM systems WHERE benchmark = ? ORDER BY system", [benchmark])
