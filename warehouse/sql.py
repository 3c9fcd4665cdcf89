"""SQL over the warehouse's files, and the one definition of "the newest".

Which row of a key is current is decided here once, as a SQL window, for
every table that keeps history:

* a load is current when it is the newest of its source (file name, format, benchmark);
* where two current loads score the same cell, the newer load's row is current;
* where two current loads describe the same system of a benchmark, the newer load's row is current;
* the latest snapshot of a (benchmark, level, method, parameters), and the
  latest analysis of a (benchmark, level, experiment), is the newest one.

"Newest" is the latest timestamp, ties broken by the larger id, so the
choice never depends on the order files are read in.  The catalog's views
(:mod:`warehouse.catalog`) are built from these rules; code that must run
without the catalog (while it is being built, or before a rebuild makes a new
manifest visible: :meth:`warehouse.storage.Warehouse.manifests`,
:func:`warehouse.snapshots.previous_snapshot`) runs the same SQL on an
in-memory DuckDB over the same files (:func:`query_files`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from scorehouse.warehouse.schema import LOADS, UNVERSIONED_PARSER

DUCKDB_TYPES = {
    pl.String: "VARCHAR",
    pl.Float64: "DOUBLE",
    pl.Int64: "BIGINT",
    pl.Boolean: "BOOLEAN",
}


@dataclass(frozen=True)
class Newest:
    """The rows of a table that are the newest of their ``key``, ordered newest first by ``order`` (descending)."""

    key: tuple[str, ...]
    order: tuple[str, ...]

    def window(self) -> str:
        """``row_number()`` among the rows of the same key, 1 = the newest."""
        keys = ", ".join(quoted(c) for c in self.key)
        order = ", ".join(f"{quoted(c)} DESC" for c in self.order)
        return f"row_number() OVER (PARTITION BY {keys} ORDER BY {order})"

    def latest(self, relation: str) -> str:
        """A SELECT of the newest row of every key of ``relation`` (a SELECT)."""
        return f"SELECT * FROM ({relation}) QUALIFY {self.window()} = 1"


# The sources of loads of homes older than format 4, renamed by its migration (warehouse.source_renames).
RENAMES_FILE = "source_renames.parquet"
LOAD = Newest(("source",), ("loaded_at", "load_id"))
SCORE_CELL = Newest(("benchmark", "level", "task", "metric", "instance", "system"), ("loaded_at", "load_id"))
SYSTEM = Newest(("benchmark", "system"), ("loaded_at", "load_id"))
SNAPSHOT = Newest(("benchmark", "level", "method", "parameters"), ("created_at", "snapshot_id"))
ANALYSIS = Newest(("benchmark", "level", "experiment"), ("created_at", "analysis_id"))


def quoted(column: str) -> str:
    """A column name as a SQL identifier (``group`` is a keyword)."""
    return '"' + column.replace('"', '""') + '"'


def sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


# What DuckDB's globs read as patterns: a folder's own such characters are escaped as a class of one.
GLOB_CHARACTERS = frozenset("[]*?{}")


def sql_glob(directory: Path, pattern: str) -> str:
    """The files matching ``pattern`` under ``directory``, as a SQL literal for ``read_parquet``.

    The folder's own glob characters (a home at ``runs [2024]``) are escaped (``[[]``), so they
    match themselves; before, such a home committed a load and then failed every command with
    "No files found that match the pattern".
    """
    return sql_literal(f"{glob_escaped(directory)}/{pattern}")


def glob_escaped(directory: Path) -> str:
    """``directory`` as a DuckDB glob that matches itself only (its glob characters as classes of one)."""
    return "".join(f"[{c}]" if c in GLOB_CHARACTERS else c for c in str(directory))


def duckdb_type(dtype: pl.DataType) -> str:
    if isinstance(dtype, pl.List):
        return duckdb_type(dtype.inner) + "[]"
    if isinstance(dtype, pl.Datetime):
        return "TIMESTAMPTZ" if dtype.time_zone else "TIMESTAMP"
    return DUCKDB_TYPES[dtype.base_type()]


def empty_relation(schema: dict[str, pl.DataType], extra: tuple[str, ...] = ()) -> str:
    """A SELECT of no rows with ``schema``'s typed columns, plus VARCHAR columns ``extra``."""
    columns = [f"CAST(NULL AS {duckdb_type(t)}) AS {c}" for c, t in schema.items()]
    columns += [f"CAST(NULL AS VARCHAR) AS {c}" for c in extra]
    return f"SELECT {', '.join(columns)} WHERE false"


def relation(
    files: str, directory: Path, schema: dict[str, pl.DataType], hive: bool = False, by_name: bool = False,
    batches: frozenset[str] | None = None,
) -> str:
    """A SELECT over the Parquet files matching ``files`` in ``directory`` now, or an empty typed one.

    The files are listed when the SQL is made, never globbed when it runs: a catalog's views read
    the files of the committed state it was built from, not a mixture with files committed since
    (a load manifest committed after the build made an older load no longer current while the new
    load's scores were not listed: a reader counted rows of no committed state).  ``batches``: only
    the files named by these batches (a batch's quarantine is written before its manifest).
    ``by_name``: the files are read by column name over the typed empty relation, so files written
    before a column of ``schema`` existed read it as null.
    """
    extra = ("level",) if hive else ()
    found = sorted(directory.glob(files))
    if batches is not None:
        found = [f for f in found if f.stem in batches]
    if not found:
        return empty_relation(schema, extra)
    options = (", hive_partitioning = true" if hive else "") + (", union_by_name = true" if by_name else "")
    read = f"SELECT * FROM read_parquet({listed(found)}{options})"
    return f"{empty_relation(schema, extra)} UNION ALL BY NAME {read}" if by_name else read


def listed(files: list[Path]) -> str:
    """``files`` as a DuckDB list of paths, each glob-escaped: DuckDB reads a list's items as globs too."""
    return "[" + ", ".join(sql_literal(glob_escaped(f)) for f in files) + "]"


def files_relation(files: list[Path], schema: dict[str, pl.DataType], extra: tuple[str, ...] = ()) -> str:
    """A SELECT over exactly ``files`` (Parquet; hive-partitioned when ``extra`` names partition columns),
    or an empty typed one."""
    if not files:
        return empty_relation(schema, extra)
    return f"SELECT * FROM read_parquet({listed(files)}{', hive_partitioning = true' if extra else ''})"


def loads_relation(home: Path, renamed: bool = True) -> str:
    """Every load manifest under ``home`` with ``is_current`` (:data:`LOAD`): the ``loads`` view.

    Manifests are read by column name: one written before a column of :data:`LOADS` existed
    reads it as null (a plain ``read_parquet`` over mixed files would drop the column), and
    ``parser_version`` as :data:`UNVERSIONED_PARSER`, ``batch_id`` as the load id (one file per load).
    A load whose source the migration to home format 4 renamed (:mod:`warehouse.source_renames`) has that
    source, when ``renamed``.
    """
    manifests = relation("*.parquet", home / "loads", LOADS, by_name=True)
    versioned = (f"SELECT * REPLACE (coalesce(parser_version, {UNVERSIONED_PARSER}) AS parser_version, "
                 f"coalesce(batch_id, load_id) AS batch_id) FROM ({manifests})")
    renames = home / RENAMES_FILE
    if renamed and renames.exists():
        versioned = (f"SELECT m.* REPLACE (coalesce(r.source, m.source) AS source) FROM ({versioned}) AS m "
                     f"LEFT JOIN read_parquet({sql_literal(glob_escaped(renames))}) AS r USING (load_id)")
    return f"SELECT *, {LOAD.window()} = 1 AS is_current FROM ({versioned})"


def query_files(sql: str, parameters: list | None = None, frames: dict[str, pl.DataFrame] | None = None) -> pl.DataFrame:
    """Run ``sql`` (over Parquet files, not the catalog) on an in-memory DuckDB; a Polars frame.

    ``frames`` are small tables the query reads by name (a selection of tasks, the ranked metrics).
    The session's time zone is UTC so that timestamps come back as they were written.
    """
    import duckdb

    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        for name, frame in (frames or {}).items():
            con.register(name, frame.to_arrow())
        return pl.from_arrow(con.sql(sql, params=parameters).to_arrow_table())
