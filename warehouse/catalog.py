"""The DuckDB catalog: views over the warehouse's Parquet files and manifests.

The catalog file holds views only, never data, so it is cheap to rebuild: it
is written aside and renamed over the old one after every change, and a
reader holding the old file keeps a consistent picture until it reconnects.

Views:

``scores``
    the current scores: for each source (file name, format, benchmark) only its
    newest load, and where two current loads score the same cell, the newer
    one.  Columns of :data:`warehouse.schema.SCORES` plus ``level``.  Only the
    (benchmark, level, task) partitions that two current loads share (read
    from the loads' coverage when the catalog is built) go through the
    newest-per-cell window: over a hundred million scores that window costs
    more than everything else, and disjoint loads cannot score a cell twice.
``scores_history``
    every committed load's rows, superseded ones included.
``metrics``
    the resolved metric catalog (:data:`warehouse.schema.METRICS`).
``oriented_scores``
    scores with their catalog entry and ``oriented`` (higher is better).
``task_ranks``, ``instance_ranks``
    per-voter ranks of the ranked metrics (same as :func:`transforms.ballots.rank_table`).
``pairwise_counts``
    wins, ties and losses of every ordered pair of systems per benchmark and level.
``loads``
    one row per load with ``is_current``.
``snapshots``, ``rankings``, ``latest_rankings``
    snapshot manifests; every snapshot's ranking in long form (filter on
    ``snapshot_id`` to time-travel); the newest snapshot per (benchmark,
    level, method, parameters).
``quarantine``, ``rejected_files``
    rows and whole files that could not be used, with the reason.
``analyses``, ``analysis_results``, ``analysis_summaries``, ``method_pairs``, ``method_moves``
    analysis manifests and their tables (:mod:`warehouse.analyses`), each
    table row with its ``analysis_id``, benchmark, level and experiment.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from warehouse.schema import LOADS, METRICS, QUARANTINE, SCORES, UNVERSIONED_PARSER
from aggregators.schemas import MOVES_SCHEMA, PAIRS_SCHEMA, SUMMARY_SCHEMA, TABLE_SCHEMA
from warehouse.analyses import ANALYSIS_MANIFEST
from warehouse.snapshots import SNAPSHOT_MANIFEST, SNAPSHOT_RANKING
from warehouse.storage import REJECTED, Warehouse, atomic_write_parquet

DUCKDB_TYPES = {
    pl.String: "VARCHAR",
    pl.Float64: "DOUBLE",
    pl.Int64: "BIGINT",
    pl.Boolean: "BOOLEAN",
}


class WarehouseMissingError(FileNotFoundError):
    """There is no catalog at the warehouse home yet: ingest something first."""


def _duckdb_type(dtype: pl.DataType) -> str:
    if isinstance(dtype, pl.List):
        return _duckdb_type(dtype.inner) + "[]"
    if isinstance(dtype, pl.Datetime):
        return "TIMESTAMPTZ" if dtype.time_zone else "TIMESTAMP"
    return DUCKDB_TYPES[dtype.base_type()]


def _sql_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _relation(files: str, directory: Path, schema: dict[str, pl.DataType], hive: bool = False) -> str:
    """A SELECT over the Parquet files matching ``files`` in ``directory``, or an empty typed one."""
    if any(directory.glob(files)):
        options = ", hive_partitioning = true" if hive else ""
        return f"SELECT * FROM read_parquet({_sql_path(directory / files)}{options})"
    return _typed_empty({**schema, "level": pl.String()} if hive else schema)


def _typed_empty(schema: dict[str, pl.DataType]) -> str:
    columns = ", ".join(f"CAST(NULL AS {_duckdb_type(t)}) AS {c}" for c, t in schema.items())
    return f"SELECT {columns} WHERE false"


def _loads_relation(home: Path) -> str:
    """Every load manifest, read by column name: manifests older than a column of
    :data:`LOADS` read it as null, and ``parser_version`` as :data:`UNVERSIONED_PARSER`."""
    relation = _typed_empty(LOADS)
    manifests = home / "loads"
    if any(manifests.glob("*.parquet")):
        files = _sql_path(manifests / "*.parquet")
        relation += f" UNION ALL BY NAME SELECT * FROM read_parquet({files}, union_by_name = true)"
    return f"SELECT * REPLACE (coalesce(parser_version, {UNVERSIONED_PARSER}) AS parser_version) FROM ({relation})"


def _rank_view(name: str, level: str, keys: str) -> str:
    """Per-voter competition ranks (1 = best, ties share the smallest rank, null when missing)."""
    instance = "instance, " if level == "instance" else ""
    return f"""CREATE VIEW {name} AS
        SELECT benchmark, task, metric, {instance}system, score,
               CASE WHEN oriented IS NULL THEN NULL
                    ELSE rank() OVER (PARTITION BY {keys} ORDER BY oriented DESC NULLS LAST) END AS rank,
               count(oriented) OVER (PARTITION BY {keys}) AS n_ranked
        FROM oriented_scores WHERE level = '{level}' AND is_ranked"""


def _snapshot_rankings(home: Path) -> str:
    files = home / "snapshots"
    if any(files.glob("benchmark=*/snapshot=*/ranking.parquet")):
        path = _sql_path(files / "benchmark=*/snapshot=*/ranking.parquet")
        return f"SELECT * FROM read_parquet({path}, hive_partitioning = true)"
    columns = ", ".join(f"CAST(NULL AS {_duckdb_type(t)}) AS {c}" for c, t in SNAPSHOT_RANKING.items())
    return f"SELECT {columns}, CAST(NULL AS VARCHAR) AS benchmark, CAST(NULL AS VARCHAR) AS snapshot WHERE false"


def _sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def shared_partitions(coverage: pl.DataFrame) -> pl.DataFrame:
    """The (benchmark, level, task) partitions that more than one current load scores."""
    return (
        coverage.group_by("benchmark", "level", "task")
        .agg(pl.col("load_id").n_unique().alias("loads"))
        .filter(pl.col("loads") > 1)
        .sort("benchmark", "level", "task")
    )


def _scores_view(shared: pl.DataFrame) -> str:
    current = "SELECT h.*, l.loaded_at FROM scores_history AS h JOIN loads AS l USING (load_id) WHERE l.is_current"
    if shared.height == 0:
        return f"CREATE VIEW scores AS SELECT * EXCLUDE (loaded_at) FROM ({current})"
    keys = ", ".join(
        f"({_sql_literal(b)}, {_sql_literal(lv)}, {_sql_literal(t)})"
        for b, lv, t in shared.select("benchmark", "level", "task").iter_rows()
    )
    return f"""CREATE VIEW scores AS
        WITH current AS ({current}), shared(benchmark, level, task) AS (VALUES {keys})
        SELECT * EXCLUDE (loaded_at) FROM current ANTI JOIN shared USING (benchmark, level, task)
        UNION ALL
        SELECT * EXCLUDE (newest, loaded_at) FROM (
            SELECT c.*, row_number() OVER (
                PARTITION BY c.benchmark, c.level, c.task, c.metric, c.instance, c.system
                ORDER BY c.loaded_at DESC, c.load_id DESC) AS newest
            FROM current AS c SEMI JOIN shared USING (benchmark, level, task))
        WHERE newest = 1"""


# Analysis table name -> (view name, schema): one view per kind of table, over every analysis.
ANALYSIS_VIEWS = {
    "results": ("analysis_results", TABLE_SCHEMA),
    "summary": ("analysis_summaries", SUMMARY_SCHEMA),
    "pairs": ("method_pairs", PAIRS_SCHEMA),
    "moves": ("method_moves", MOVES_SCHEMA),
}


def _analysis_view(home: Path, table: str) -> str:
    """Every analysis's ``table`` with the manifest's benchmark, level and experiment."""
    view, schema = ANALYSIS_VIEWS[table]
    files = home / "analyses" / f"benchmark=*/analysis=*/{table}.parquet"
    if any(files.parent.parent.parent.glob(f"benchmark=*/analysis=*/{table}.parquet")):
        relation = f"SELECT * EXCLUDE (benchmark) FROM read_parquet({_sql_path(files)}, hive_partitioning = true)"
    else:
        columns = ", ".join(f"CAST(NULL AS {_duckdb_type(t)}) AS {c}" for c, t in schema.items())
        relation = f"SELECT {columns}, CAST(NULL AS VARCHAR) AS analysis WHERE false"
    return f"""CREATE VIEW {view} AS
        SELECT m.analysis_id, m.benchmark, m.level, m.experiment AS analysis_experiment, t.* EXCLUDE (analysis)
        FROM ({relation}) AS t JOIN analyses AS m ON m.analysis_id = t.analysis"""


def view_statements(warehouse: Warehouse) -> list[str]:
    """The CREATE VIEW statements of the catalog, in dependency order."""
    home = warehouse.home
    raw_scores = _relation("benchmark=*/level=*/*.parquet", home / "scores", SCORES, hive=True)
    loads = _loads_relation(home)
    score_columns = ", ".join(f"s.{c}" for c in SCORES)
    return [
        f"""CREATE VIEW loads AS
            SELECT *, row_number() OVER (
                PARTITION BY source ORDER BY loaded_at DESC, load_id DESC) = 1 AS is_current
            FROM ({loads})""",
        f"""CREATE VIEW scores_history AS
            SELECT {score_columns}, s.level
            FROM ({raw_scores}) AS s JOIN loads AS l USING (load_id)""",
        _scores_view(shared_partitions(warehouse.current_coverage())),
        f"CREATE VIEW metrics AS {_relation('metrics.parquet', home, METRICS)}",
        # Scores joined to their catalog entry and oriented higher-is-better: what ranks are taken on.
        """CREATE VIEW oriented_scores AS
            SELECT s.*,
                   coalesce(m.higher_is_better, true) AS higher_is_better,
                   coalesce(m.is_ranked, true) AS is_ranked,
                   coalesce(m.weight, 1.0) AS weight,
                   coalesce(m."group", s.task) AS "group",
                   CASE WHEN coalesce(m.higher_is_better, true) THEN s.score ELSE -s.score END AS oriented
            FROM scores AS s LEFT JOIN metrics AS m USING (benchmark, task, metric)""",
        _rank_view("task_ranks", "task", "benchmark, task, metric"),
        _rank_view("instance_ranks", "instance", "benchmark, task, metric, instance"),
        # Win/tie/loss counts of every ordered pair over the ranked voters where both have a score.
        """CREATE VIEW pairwise_counts AS
            SELECT a.benchmark, a.level, a.system AS system_a, b.system AS system_b,
                   count(*) FILTER (WHERE a.oriented > b.oriented) AS wins,
                   count(*) FILTER (WHERE a.oriented = b.oriented) AS ties,
                   count(*) FILTER (WHERE a.oriented < b.oriented) AS losses
            FROM oriented_scores AS a JOIN oriented_scores AS b
              ON a.benchmark = b.benchmark AND a.level = b.level AND a.task = b.task
             AND a.metric = b.metric AND a.instance IS NOT DISTINCT FROM b.instance
             AND a.system <> b.system
            WHERE a.is_ranked AND a.oriented IS NOT NULL AND b.oriented IS NOT NULL
            GROUP BY ALL""",
        f"CREATE VIEW snapshots AS {_relation('*.parquet', home / 'snapshot_manifests', SNAPSHOT_MANIFEST)}",
        f"""CREATE VIEW rankings AS
            SELECT m.snapshot_id, m.created_at, m.benchmark, m.level, m.method, m.parameters,
                   r.system, r.score, r.rank, r.tied
            FROM ({_snapshot_rankings(home)}) AS r
            JOIN snapshots AS m ON m.snapshot_id = r.snapshot""",
        """CREATE VIEW latest_rankings AS
            SELECT * FROM rankings WHERE snapshot_id IN (
                SELECT snapshot_id FROM (
                    SELECT snapshot_id, row_number() OVER (
                        PARTITION BY benchmark, level, method, parameters
                        ORDER BY created_at DESC, snapshot_id DESC) AS newest
                    FROM snapshots)
                WHERE newest = 1)""",
        f"CREATE VIEW quarantine AS {_relation('*.parquet', home / 'quarantine', QUARANTINE)}",
        f"CREATE VIEW rejected_files AS {_relation('*.parquet', home / 'rejected', REJECTED)}",
        f"CREATE VIEW analyses AS {_relation('*.parquet', home / 'analysis_manifests', ANALYSIS_MANIFEST)}",
        *(_analysis_view(home, table) for table in ANALYSIS_VIEWS),
    ]


def query_frame(con, sql: str, parameters: list | None = None) -> pl.DataFrame:  # noqa: ANN001
    """Run ``sql`` on a DuckDB connection and return a polars frame (DuckDB 2 has no ``execute().pl()``)."""
    return pl.from_arrow(con.sql(sql, params=parameters).to_arrow_table())


def current_metric_keys(warehouse: Warehouse) -> pl.DataFrame:
    """Distinct (benchmark, task, metric) of the current scores, read from the loads' coverage."""
    return warehouse.current_coverage().select("benchmark", "task", "metric").unique().sort("benchmark", "task", "metric")


def rebuild_catalog(warehouse: Warehouse, metrics: pl.DataFrame) -> None:
    """Write the metric catalog, then build the views aside and swap the catalog file in."""
    import duckdb

    atomic_write_parquet(metrics, warehouse.home / "metrics.parquet")
    aside = warehouse.home / f".catalog.{os.getpid()}.duckdb.tmp"
    aside.unlink(missing_ok=True)
    with duckdb.connect(str(aside)) as con:
        for statement in view_statements(warehouse):
            con.execute(statement)
    os.replace(aside, warehouse.catalog_path)


def connect(warehouse: Warehouse, read_only: bool = True):  # noqa: ANN201 - duckdb is imported lazily
    """A DuckDB connection to the catalog (read-only by default)."""
    import duckdb

    if not warehouse.catalog_path.exists():
        raise WarehouseMissingError(
            f"no warehouse catalog at {warehouse.catalog_path}; run 'scorehouse ingest PATH' first "
            f"(or point --home / $SCOREHOUSE_HOME at an existing warehouse)"
        )
    return duckdb.connect(str(warehouse.catalog_path), read_only=read_only)
