"""Partitions of the current scores: what the rank flow reads one at a time.

A partition is a set of whole tasks of one (benchmark, level): ranks never
cross a (task, metric, instance) voter, so every partition can be ranked
alone and the results added up.  Tasks are packed into partitions of about
:data:`PARTITION_ROWS` scores and at most about :data:`PARTITION_CELLS` cells
of the partition's dense matrix (its voters times the systems its tasks
score: when tasks have their own systems, a partition of many tasks is far
wider than any of them), so memory stays bounded whatever the size and shape
of the benchmark.  Everything is planned from the loads' coverage (no scan of the
scores); a partition is read straight from its loads' Parquet files (a batch's
file also holds other loads: rows are kept by task and load), unless
two current loads score the same task, when the ``scores`` view settles which
row is current.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from scorehouse.warehouse.catalog import connect
from scorehouse.warehouse.schema import COVERAGE, METRICS, SCORES, conform
from scorehouse.warehouse.sql import query_files, sql_literal
from scorehouse.warehouse.storage import Warehouse

PARTITION_ROWS = 4_000_000
PARTITION_CELLS = 8_000_000


@dataclass(frozen=True)
class Partition:
    """Whole tasks of one (benchmark, level) and the Parquet files that hold them."""

    benchmark: str
    level: str
    tasks: tuple[str, ...]
    files: tuple[str, ...]
    loads: tuple[str, ...]  # the current loads whose rows of these tasks the files hold
    shared: bool  # some task is scored by two current loads: read through the scores view
    rows: int


@dataclass(frozen=True)
class BenchmarkShape:
    """What a (benchmark, level) holds, from the coverage: its ranked systems, loads and partitions."""

    benchmark: str
    level: str
    systems: tuple[str, ...]
    load_ids: tuple[str, ...]
    partitions: tuple[Partition, ...]
    may_miss: bool  # a ranked (task, metric) lacks a system, has null scores or uneven row counts


def benchmark_shape(
    warehouse: Warehouse, benchmark: str, level: str, metrics: pl.DataFrame, coverage: pl.DataFrame | None = None,
    partition_rows: int = PARTITION_ROWS, partition_cells: int = PARTITION_CELLS, systems: tuple[str, ...] | None = None,
    tasks: tuple[str, ...] | None = None,
) -> BenchmarkShape:
    """Plan the partitions of ``benchmark`` at ``level`` (``coverage`` defaults to the warehouse's current one), of
    the rows of ``systems`` and ``tasks`` only when given (a rank's --min-coverage and voter selection: the tasks
    left out are not read).

    Summed by DuckDB as the coverage files are scanned (:meth:`Warehouse.coverage_relation`), the benchmark,
    level and selection pushed into the scan: what is held is a row per task and per ranked (task, metric,
    system), never the coverage (collecting MTEB's took 15.6 GB).  The ranked metrics are the catalog's as
    resolved: a key without a row is not planned as ranked, and its rows are refused when the partition is made
    dense.
    """
    manifests = warehouse.manifests()
    current = manifests.filter("is_current")
    frames = {"ranked": metrics.filter((pl.col("benchmark") == benchmark) & pl.col("is_ranked"))
              .select("task", "metric").unique()}
    where = ["benchmark = $benchmark", "level = $level"]
    if coverage is not None:
        frames["given"] = conform(coverage, COVERAGE)
    if systems is not None:
        frames["chosen_systems"] = pl.DataFrame({"system": list(systems)}, schema={"system": pl.String()})
        where.append("system IN (SELECT system FROM chosen_systems)")
    if tasks is not None:
        frames["chosen_tasks"] = pl.DataFrame({"task": list(tasks)}, schema={"task": pl.String()})
        where.append("task IN (SELECT task FROM chosen_tasks)")
    source = "SELECT * FROM given" if coverage is not None else warehouse.coverage_relation(manifests)
    mine = f"SELECT task, metric, system, load_id, rows, nulls FROM ({source}) WHERE {' AND '.join(where)}"
    parameters = {"benchmark": benchmark, "level": level}
    per_task = query_files(
        f"""SELECT task, CAST(sum(rows) AS BIGINT) AS rows, list(DISTINCT load_id) AS load_id,
                   list(DISTINCT system) AS systems
            FROM ({mine}) GROUP BY task ORDER BY task""", parameters, frames)
    # Per ranked (task, metric, system): its row counts' range and its nulls (two loads may score a cell).
    cells = query_files(
        f"""SELECT task, metric, system, min(rows) AS fewest, max(rows) AS most, sum(nulls) AS nulls
            FROM ({mine}) SEMI JOIN ranked USING (task, metric) GROUP BY ALL""", parameters, frames)
    systems = tuple(sorted(cells.get_column("system").unique().to_list()))
    per_cell = cells.group_by("task", "metric").agg(
        pl.len().alias("systems"), (pl.col("fewest").min() < pl.col("most").max()).alias("uneven"),
        pl.col("nulls").sum().alias("nulls"),
    )
    may_miss = per_cell.filter(
        (pl.col("systems") < len(systems)) | pl.col("uneven") | (pl.col("nulls") > 0)
    ).height > 0
    batches = dict(current.select("load_id", "batch_id").iter_rows())
    partitions: list[Partition] = []
    batch: list[dict] = []
    rows, voters, columns = 0, 0.0, set()
    for task in per_task.iter_rows(named=True):  # a loop over tasks (tens to thousands)
        task["load_id"] = sorted(task["load_id"])
        task_voters = task["rows"] / max(1, len(task["systems"]))  # about: a voter scores each of its task's systems
        wider = columns | set(task["systems"])
        if batch and (rows + task["rows"] > partition_rows or (voters + task_voters) * len(wider) > partition_cells):
            partitions.append(_partition(warehouse, benchmark, level, batch, batches))
            batch, rows, voters, wider = [], 0, 0.0, set(task["systems"])
        batch.append(task)
        rows, voters, columns = rows + task["rows"], voters + task_voters, wider
    if batch:
        partitions.append(_partition(warehouse, benchmark, level, batch, batches))
    return BenchmarkShape(
        benchmark=benchmark,
        level=level,
        systems=systems,
        load_ids=tuple(sorted({load for task in per_task.get_column("load_id").to_list() for load in task})),
        partitions=tuple(partitions),
        may_miss=may_miss,
    )


def _partition(
    warehouse: Warehouse, benchmark: str, level: str, tasks: list[dict], batches: dict[str, str],
) -> Partition:
    """``batches`` maps each current load to the batch whose files hold its rows (a load it lacks: its own)."""
    loads = sorted({load for t in tasks for load in t["load_id"]})
    return Partition(
        benchmark=benchmark,
        level=level,
        tasks=tuple(t["task"] for t in tasks),
        files=tuple(str(warehouse.score_path(benchmark, level, b)) for b in sorted({batches.get(load, load) for load in loads})),
        loads=tuple(loads),
        shared=any(len(t["load_id"]) > 1 for t in tasks),
        rows=sum(t["rows"] for t in tasks),
    )


def _read_shared(warehouse: Warehouse, partition: Partition) -> pa.Table:
    """A partition some task of which two current loads score: through the ``scores`` view, which settles the current row."""
    marks = ", ".join("?" for _ in partition.tasks)
    with connect(warehouse) as con:
        return con.sql(
            f"SELECT {', '.join(SCORES)} FROM scores WHERE benchmark = ? AND level = ? AND task IN ({marks})",
            params=[partition.benchmark, partition.level, *partition.tasks],
        ).to_arrow_table()


def read_partition(warehouse: Warehouse, partition: Partition) -> pl.DataFrame:
    """The current scores (:data:`SCORES`) of ``partition``'s tasks, as a Polars frame of strings."""
    if partition.shared:
        return conform(pl.from_arrow(_read_shared(warehouse, partition)), SCORES)
    frame = pl.scan_parquet(list(partition.files), glob=False).select(list(SCORES))
    return frame.filter(pl.col("task").is_in(list(partition.tasks)) & pl.col("load_id").is_in(list(partition.loads))).collect()


def read_partition_arrow(warehouse: Warehouse, partition: Partition, systems: tuple[str, ...] | None = None) -> pa.Table:
    """As :func:`read_partition`, as Arrow with the string columns dictionary-encoded; the rows of ``systems``
    only when given (the systems a rank keeps, ``--min-coverage``).

    Parquet stores the key columns dictionary-encoded; reading them as such
    keeps every row a small integer index into a few distinct names instead of
    a decoded string (what :func:`transforms.dense.dense_partition` needs, and
    several times cheaper at millions of rows).  A batch's file can hold tasks
    of other partitions and rows of other loads: rows are kept by task and load,
    decided once per distinct name.
    """
    import pyarrow.compute as pc  # ~0.1 s: loaded by instance-level ranks only, not by every command that plans one

    strings = [c for c, t in SCORES.items() if t == pl.String]
    if partition.shared:
        table = _read_shared(warehouse, partition)
        table = pa.table({c: pc.dictionary_encode(table.column(c)) if c in strings else table.column(c) for c in SCORES})
        keep = np.ones(table.num_rows, dtype=bool)
    else:
        table = pq.read_table(list(partition.files), columns=list(SCORES), read_dictionary=strings, partitioning=None)
        keep = _in_set(table.column("task"), partition.tasks) & _in_set(table.column("load_id"), partition.loads)
    if systems is not None:
        keep &= _in_set(table.column("system"), systems)
    return table if keep.all() else table.filter(pa.array(keep))


def _in_set(column: pa.ChunkedArray, values: tuple[str, ...]) -> np.ndarray:
    """Whether each row of a dictionary-encoded ``column`` is one of ``values``, decided once per distinct name."""
    import pyarrow.compute as pc  # as in read_partition_arrow, its only caller: loaded already

    wanted = pa.array(values, pa.string())
    keep = [
        pc.is_in(chunk.dictionary, value_set=wanted).to_numpy(zero_copy_only=False)[chunk.indices.to_numpy()]
        for chunk in column.chunks
    ]
    return np.concatenate(keep) if keep else np.zeros(0, dtype=bool)


def current_fingerprints(warehouse: Warehouse, benchmarks: list[str]) -> dict[tuple[str, str], str]:
    """The input fingerprint (:func:`warehouse.snapshots.input_fingerprint`) of each (benchmark, score level) now:
    the loads of its current coverage at that level and the catalog entries of its metrics.

    The one rule of "the inputs a ranking used": the rank records it, the reconciliation and the report
    compare with it.  Read from the coverage, without a score: it costs the same for MTEB as for GLUE.
    """
    from scorehouse.warehouse.snapshots import input_fingerprint

    if not benchmarks:
        return {}
    named = ", ".join(sql_literal(b) for b in benchmarks)  # a few names: pushed into the scan as an IN filter
    loads = query_files(f"SELECT DISTINCT benchmark, level, load_id FROM ({warehouse.coverage_relation()}) "
                        f"WHERE benchmark IN ({named})")
    metrics = {b: read_metrics(warehouse, b) for b in benchmarks}
    return {(b, level): input_fingerprint(ids, metrics[b])
            for b, level, ids in loads.group_by("benchmark", "level").agg("load_id").iter_rows()}


def battle_fingerprint(load_ids: tuple[str, ...] | list[str]) -> str:
    """The input fingerprint of a benchmark's battles: the loads of its current battles (a battle has no metric,
    so no catalog entry); recorded by a battles or arena snapshot and compared with by the reconciliation."""
    from scorehouse.warehouse.snapshots import input_fingerprint

    return input_fingerprint(list(load_ids), pl.DataFrame(schema=METRICS))


def read_metrics(warehouse: Warehouse, benchmark: str) -> pl.DataFrame:
    """The metric catalog entries (:data:`METRICS`) of ``benchmark``."""
    path = warehouse.home / "metrics.parquet"
    if not path.exists():
        return pl.DataFrame(schema=METRICS)
    return conform(pl.read_parquet(path, glob=False).filter(pl.col("benchmark") == benchmark), METRICS)


def coverage_levels(warehouse: Warehouse) -> pl.DataFrame:
    """Every (benchmark, level) with current scores and its number of systems, from the coverage (summed as
    it is scanned: the coverage itself is never held)."""
    return (
        warehouse.coverage_scan().group_by("benchmark", "level")
        .agg(pl.col("system").n_unique().alias("systems"), pl.col("nulls").sum().cast(pl.Int64).alias("missing"))
        .sort("benchmark", "level")
        .collect(engine="streaming")
    )
