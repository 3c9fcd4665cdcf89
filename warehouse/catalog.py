"""The DuckDB catalog: views over the warehouse's Parquet files and manifests.

The catalog file holds views and one small table (the resolved metric catalog),
never scores, so it is cheap to rebuild: it is written aside and renamed over
the old one after every change, and a reader holding the old file keeps a
consistent picture until it reconnects.  A reader that finds it stale and
cannot replace it at once (a writer holds the lock, or the home is read-only)
builds its own in a private temporary folder and reads that
(:func:`build_private_catalog`): readers never wait for writers.

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
    the resolved metric catalog (:data:`warehouse.schema.METRICS`), as
    :func:`transforms.catalog.resolve_metrics` wrote it: every field filled.
``oriented_scores``
    scores with their catalog entry and ``oriented`` (higher is better); the
    entry is read as resolved (no default here), and ``group`` is the voter's
    group by :data:`warehouse.schema.GROUP_KEYS`, as in the ballots.  The
    catalog resolves the keys of the scores current when it is built, so a
    score loaded after the last rebuild appears here once it is rebuilt.
``task_ranks``, ``instance_ranks``
    per-voter ranks of the ranked metrics (same as :func:`transforms.ballots.rank_table`).
``pairwise_counts``
    wins, ties and losses of every ordered pair of systems per benchmark and level.
``loads``
    one row per load with ``is_current``.
``snapshots``, ``latest_snapshots``, ``rankings``, ``latest_rankings``
    snapshot manifests; the newest snapshot per (benchmark, level, method,
    parameters) of the benchmarks a current load holds rows of (none for a
    benchmark whose loads were all forgotten); every snapshot's ranking in long form (filter on
    ``snapshot_id`` to time-travel), with ``n_voters``, the voters that
    scored each system; the rankings of the latest snapshots.
``snapshot_coverage``
    per snapshot, the voters that scored each system and each pair of
    systems (:data:`warehouse.schema.SNAPSHOT_COVERAGE`).
``snapshot_intervals``
    per snapshot, the bootstrap intervals of each system's score and rank that ``rank`` stored with it
    (:data:`warehouse.schema.SNAPSHOT_INTERVALS`, with ``snapshot`` and ``benchmark``; no rows for a
    snapshot without them).
``systems``
    what the current loads say about their systems (:data:`warehouse.schema.SYSTEMS`, MTEB's
    ``model_meta.json``), one row per (benchmark, system): the newer load's where two describe it.
``quarantine``, ``rejected_files``
    rows and whole files that could not be used, with the reason.
``battles``, ``battles_quarantine``
    the pairwise battles of the current loads (:data:`warehouse.schema.BATTLES`; every current
    load's battles count, none replaces another's), and the battles that could not be used.
``analyses``, ``latest_analyses``, ``analysis_results``, ``analysis_summaries``, ``method_pairs``, ``method_moves``
    analysis manifests, the newest per (benchmark, level, experiment), and
    their tables (:mod:`warehouse.analyses`), each table row with its
    ``analysis_id``, benchmark, level and experiment.

Which row is "the newest" (current load, current cell, latest snapshot or
analysis) is defined once, in :mod:`warehouse.sql`.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.aggregators.schemas import MOVES_SCHEMA, PAIRS_SCHEMA, SUMMARY_SCHEMA, TABLE_SCHEMA
from scorehouse.warehouse.schema import (
    ANALYSIS_MANIFEST,
    BATTLES,
    BATTLES_QUARANTINE,
    GROUP_KEYS,
    METRICS,
    QUARANTINE,
    REJECTED,
    SCORES,
    SNAPSHOT_COVERAGE,
    SNAPSHOT_INTERVALS,
    SNAPSHOT_MANIFEST,
    SYSTEMS,
    VOTER_KEYS,
    VOTER_SEPARATOR,
    conform,
)
from scorehouse.warehouse.integrity import CHECKED, check_files, recorded_hashes
from scorehouse.warehouse.snapshots import SNAPSHOT_RANKING
from scorehouse.warehouse.atomic import write_parquet, written_aside
from scorehouse.warehouse.sql import (
    ANALYSIS,
    SCORE_CELL,
    SNAPSHOT,
    SYSTEM,
    empty_relation,
    files_relation,
    loads_relation,
    quoted,
    relation,
    sql_literal,
    glob_escaped,
    query_files,
    sql_glob,
)
from scorehouse.warehouse.storage import Warehouse, metric_rule_files


class WarehouseMissingError(ScorehouseError, FileNotFoundError):
    """There is no catalog at the warehouse home yet: ingest something first."""

    exit_code = 2

class CatalogWriteError(ScorehouseError, OSError):
    """DuckDB could not write a catalog file (a full disk, a read-only folder)."""

    retryable = True


class RefusedQueryError(ScorehouseError, ValueError):
    """A ``scorehouse sql`` input that is not one query, or that reaches outside the warehouse, or fails."""


def _rank_view(name: str, level: str) -> str:
    """Per-voter competition ranks (1 = best, ties share the smallest rank, null when missing)."""
    keys = ", ".join(("benchmark", *VOTER_KEYS[level]))
    return f"""CREATE VIEW {name} AS
        SELECT {keys}, system, score,
               CASE WHEN oriented IS NULL THEN NULL
                    ELSE rank() OVER (PARTITION BY {keys} ORDER BY oriented DESC NULLS LAST) END AS rank,
               count(oriented) OVER (PARTITION BY {keys}) AS n_ranked
        FROM oriented_scores WHERE level = '{level}' AND is_ranked"""


def _snapshot_files(warehouse: Warehouse, name: str, schema: dict[str, pl.DataType], damaged: frozenset[str]) -> str:
    """Every committed snapshot's ``name`` file (its benchmark and snapshot from the folder names) that is
    not damaged, or no rows.  Listed one by one: a file without a manifest, or damaged, is never read."""
    files = [f for f in committed_files(warehouse) if f.name == name and f.parent.name.startswith("snapshot=")
             and f.relative_to(warehouse.home).as_posix() not in damaged]
    return files_relation(files, schema, ("benchmark", "snapshot"))


def _score_files(warehouse: Warehouse, damaged: frozenset[str]) -> str:
    """The committed score files (their batch has a manifest) that are not damaged, one by one."""
    files = [f for f in committed_files(warehouse) if f.parent.name.startswith("level=")
             and f.relative_to(warehouse.home).as_posix() not in damaged]
    return files_relation(files, SCORES, ("level",))


def _voter_group_sql() -> str:
    """The group of a voter by its ``level`` (:data:`warehouse.schema.GROUP_KEYS`), as a SQL expression."""
    separator = sql_literal(VOTER_SEPARATOR)
    cases = " ".join(
        f"WHEN {sql_literal(level)} THEN concat_ws({separator}, {', '.join(quoted(c) for c in keys)})"
        for level, keys in GROUP_KEYS.items()
    )
    return f"CASE level {cases} END"


def shared_partitions(warehouse: Warehouse) -> pl.DataFrame:
    """The (benchmark, level, task, system) partitions that more than one current load scores, sorted.

    By system as well as task: a cell is scored by two loads only if its task and system are, and
    a benchmark of one file per system and task (MTEB: every task scored by hundreds of loads, one
    per model) then has none, so no row goes through the newest-row window.  Summed by DuckDB as the
    coverage is scanned (a row per scored cell of MTEB's: 41 M; 2.4 s of CPU, where Polars' streaming
    group-by took 3.9 s).
    """
    schema = {"benchmark": pl.String(), "level": pl.String(), "task": pl.String(), "system": pl.String()}
    shared = query_files(f"SELECT benchmark, level, task, system FROM ({warehouse.coverage_relation()}) "
                         "GROUP BY ALL HAVING count(DISTINCT load_id) > 1 ORDER BY ALL")
    return conform(shared, schema)


def _scores_view(shared: pl.DataFrame) -> str:
    current = "SELECT h.*, l.loaded_at FROM scores_history AS h JOIN loads AS l USING (load_id) WHERE l.is_current"
    if shared.height == 0:
        return f"CREATE VIEW scores AS SELECT * EXCLUDE (loaded_at) FROM ({current})"
    keys = ", ".join(
        f"({sql_literal(b)}, {sql_literal(lv)}, {sql_literal(t)}, {sql_literal(s)})"
        for b, lv, t, s in shared.select("benchmark", "level", "task", "system").iter_rows()
    )
    using = "USING (benchmark, level, task, system)"
    return f"""CREATE VIEW scores AS
        WITH current AS ({current}), shared(benchmark, level, task, system) AS (VALUES {keys})
        SELECT * EXCLUDE (loaded_at) FROM current ANTI JOIN shared {using}
        UNION ALL
        SELECT * EXCLUDE (loaded_at) FROM ({SCORE_CELL.latest(f"SELECT c.* FROM current AS c SEMI JOIN shared {using}")})"""


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
    pattern = f"benchmark=*/analysis=*/{table}.parquet"
    if any((home / "analyses").glob(pattern)):
        tables = f"SELECT * EXCLUDE (benchmark) FROM read_parquet({sql_glob(home / 'analyses', pattern)}, hive_partitioning = true)"
    else:
        tables = empty_relation(schema, ("analysis",))
    return f"""CREATE VIEW {view} AS
        SELECT m.analysis_id, m.benchmark, m.level, m.experiment AS analysis_experiment, t.* EXCLUDE (analysis)
        FROM ({tables}) AS t JOIN analyses AS m ON m.analysis_id = t.analysis"""


def view_statements(warehouse: Warehouse, damaged: frozenset[str] = frozenset()) -> list[str]:
    """The CREATE VIEW statements of the catalog, in dependency order (after the ``metrics`` table);
    the ``damaged`` files (paths relative to the home, :mod:`warehouse.integrity`) are left out."""
    home = warehouse.home
    committed = warehouse.committed_batches()
    raw_scores = _score_files(warehouse, damaged)
    score_columns = ", ".join(f"s.{c}" for c in SCORES)
    raw_battles = relation("benchmark=*/*.parquet", home / "battles", BATTLES, hive=True, by_name=True)
    battle_columns = ", ".join(f"b.{c}" for c in BATTLES)
    return [
        f"CREATE VIEW loads AS {loads_relation(home)}",
        f"""CREATE VIEW scores_history AS
            SELECT {score_columns}, s.level
            FROM ({raw_scores}) AS s JOIN loads AS l USING (load_id)""",
        _scores_view(shared_partitions(warehouse)),
        # Scores joined to their catalog entry and oriented higher-is-better: what ranks are taken on.
        f"""CREATE VIEW oriented_scores AS
            SELECT s.*, m.higher_is_better, m.is_ranked, m.weight, {_voter_group_sql()} AS "group", m.group_weight,
                   CASE WHEN m.higher_is_better THEN s.score ELSE -s.score END AS oriented
            FROM scores AS s JOIN metrics AS m USING (benchmark, task, metric)""",
        _rank_view("task_ranks", "task"),
        _rank_view("instance_ranks", "instance"),
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
        f"CREATE VIEW snapshots AS {relation('*.parquet', home / 'snapshot_manifests', SNAPSHOT_MANIFEST)}",
        # A benchmark no current load holds anything of (every load forgotten) has no latest ranking: its old
        # snapshots stay in snapshots and rankings, and are not shown as current.
        f"""CREATE VIEW latest_snapshots AS {SNAPSHOT.latest('SELECT * FROM snapshots')}
            AND benchmark IN (SELECT unnest(string_split(benchmark, ',')) FROM loads
                              WHERE is_current AND rows_landed > 0)""",
        f"CREATE VIEW snapshot_coverage AS {_snapshot_files(warehouse, 'coverage.parquet', SNAPSHOT_COVERAGE, damaged)}",
        f"CREATE VIEW snapshot_intervals AS {_snapshot_files(warehouse, 'intervals.parquet', SNAPSHOT_INTERVALS, damaged)}",
        # n_voters: the voters that scored the system (null for a snapshot stored without coverage).
        f"""CREATE VIEW rankings AS
            SELECT m.snapshot_id, m.created_at, m.benchmark, m.level, m.method, m.parameters,
                   r.system, r.score, r.rank, r.tied, c.n_voters
            FROM ({_snapshot_files(warehouse, 'ranking.parquet', SNAPSHOT_RANKING, damaged)}) AS r
            JOIN snapshots AS m ON m.snapshot_id = r.snapshot
            LEFT JOIN snapshot_coverage AS c
              ON c.snapshot = r.snapshot AND c.system = r.system AND c.other = r.system""",
        "CREATE VIEW latest_rankings AS SELECT * FROM rankings WHERE snapshot_id IN (SELECT snapshot_id FROM latest_snapshots)",
        f"""CREATE VIEW systems AS SELECT * EXCLUDE (loaded_at) FROM ({SYSTEM.latest(
            f"SELECT s.*, l.loaded_at FROM ({relation('*.parquet', home / 'systems', {**SYSTEMS, 'load_id': pl.String()})}) "
            "AS s JOIN loads AS l USING (load_id) WHERE l.is_current")})""",
        f"CREATE VIEW quarantine AS {relation('*.parquet', home / 'quarantine', QUARANTINE, batches=committed)}",
        f"CREATE VIEW rejected_files AS {relation('*.parquet', home / 'rejected', REJECTED)}",
        f"""CREATE VIEW battles AS
            SELECT {battle_columns} FROM ({raw_battles}) AS b JOIN loads AS l USING (load_id) WHERE l.is_current""",
        f"CREATE VIEW battles_quarantine AS "
        f"{relation('*.parquet', home / 'battles_quarantine', BATTLES_QUARANTINE, by_name=True, batches=committed)}",
        f"CREATE VIEW analyses AS {relation('*.parquet', home / 'analysis_manifests', ANALYSIS_MANIFEST)}",
        f"CREATE VIEW latest_analyses AS {ANALYSIS.latest('SELECT * FROM analyses')}",
        *(_analysis_view(home, table) for table in ANALYSIS_VIEWS),
    ]


def query_frame(con, sql: str, parameters: list | None = None) -> pl.DataFrame:  # noqa: ANN001
    """Run ``sql`` on a DuckDB connection and return a polars frame (DuckDB 2 has no ``execute().pl()``)."""
    return pl.from_arrow(con.sql(sql, params=parameters).to_arrow_table())


def current_metric_keys(warehouse: Warehouse) -> pl.DataFrame:
    """Distinct (benchmark, task, metric) of the current scores, read from the loads' coverage, sorted.

    A DuckDB query: its distinct stays within a few hundred MB on the whole MTEB results repository
    (41 M coverage rows, 685,000 keys), where Polars' streaming unique of the same scan held 3.2 GB.
    """
    schema = {"benchmark": pl.String(), "task": pl.String(), "metric": pl.String()}
    keys = query_files(
        f"SELECT DISTINCT benchmark, task, metric FROM ({warehouse.coverage_relation()}) ORDER BY benchmark, task, metric")
    return conform(keys, schema)


# Folders whose Parquet files' names say what the views show: the load manifests (a load is
# committed when its manifest exists), the snapshot and analysis manifests (written last, after
# their tables), and the quarantine and rejected files (a view is empty until the first exists).
STATE_FOLDERS = ("loads", "snapshot_manifests", "analysis_manifests", "quarantine", "rejected", "battles_quarantine")
STATE_VIEW = "catalog_state"
CHECKED_TABLE = "checked_files"  # the cache of file checks (warehouse.integrity.CHECKED)
DAMAGED_TABLE = "damaged_files"  # the files left out of the views, with the reason (warehouse.integrity.DAMAGED)


def committed_state(warehouse: Warehouse) -> str:
    """A fingerprint of what the catalog is a function of, cheap enough to check on every command.

    The home's own path (the views name files by absolute path, so a copied or restored home
    must rebuild its catalog to read only itself), the names of the committed manifests and of
    the quarantine and rejected files (each name is a content hash or a load id: a new name is
    new content), the bytes of the metric rule files, and the size and modification time of
    every score and snapshot file (one changed in place is checked against its hash again).
    Lists eight folders, stats their files and reads two small CSV files and the home's format record; never a
    data file.
    """
    digest = hashlib.sha256(str(warehouse.home).encode())
    for folder in STATE_FOLDERS:
        path = warehouse.dir(folder)
        names = sorted(n for n in os.listdir(path) if n.endswith(".parquet") and not n.startswith(".")) if path.is_dir() else []
        digest.update(f"\n{folder}:{','.join(names)}".encode())
    for rules in metric_rule_files(warehouse):
        digest.update(f"\n{rules}:".encode() + rules.read_bytes())
    record = warehouse.home / "format.json"  # a migrated home (its loads' sources renamed) is read anew
    digest.update(b"\nformat:" + (record.read_bytes() if record.exists() else b""))
    for path in committed_files(warehouse):  # a file changed in place (by hand) is checked again (warehouse.integrity)
        stat = path.stat()
        digest.update(f"{path.relative_to(warehouse.home)}={stat.st_size}.{stat.st_mtime_ns};".encode())
    return digest.hexdigest()


def committed_files(warehouse: Warehouse) -> list[Path]:
    """The score files of committed batches and the files of committed snapshots (what the views list one by one)."""
    batches = warehouse.committed_batches()
    snapshots = {p.stem for p in warehouse.dir("snapshot_manifests").glob("*.parquet")}
    scores = [f for f in sorted(warehouse.dir("scores").glob("benchmark=*/level=*/*.parquet")) if f.stem in batches]
    return scores + [f for f in sorted(warehouse.dir("snapshots").glob("benchmark=*/snapshot=*/*.parquet"))
                     if f.parent.name.removeprefix("snapshot=") in snapshots]


# Catalogs this process built aside for reading (home -> file): see :func:`build_private_catalog`.
_PRIVATE_CATALOGS: dict[Path, Path] = {}


def catalog_file(warehouse: Warehouse) -> Path:
    """The catalog this process reads: its private one when it built one for the home, else the home's."""
    return _PRIVATE_CATALOGS.get(warehouse.home, warehouse.catalog_path)


def catalog_state(warehouse: Warehouse) -> str | None:
    """The committed state the catalog read was built from; None when there is none or it predates the record."""
    import duckdb

    path = catalog_file(warehouse)
    if not path.exists():
        return None
    with duckdb.connect(str(path), read_only=True) as con:
        try:
            return con.sql(f"SELECT fingerprint FROM {STATE_VIEW}").fetchall()[0][0]
        except duckdb.CatalogException:
            return None


def catalog_is_current(warehouse: Warehouse) -> bool:
    """True when the catalog was built from exactly the committed loads, snapshots, analyses and rules of now."""
    return catalog_state(warehouse) == committed_state(warehouse)


def rebuild_catalog(warehouse: Warehouse, metrics: pl.DataFrame) -> pl.DataFrame:
    """Write the metric catalog, then build the views aside and swap the home's catalog file in.

    Run under the write lock, so the committed state read first is the one the views show;
    it is stored with them (the ``catalog_state`` view) for :func:`catalog_is_current`.
    A private catalog this process read until now is dropped: the home's is current.
    """
    state = committed_state(warehouse)
    write_parquet(metrics, warehouse.home / "metrics.parquet")
    with written_aside(warehouse.catalog_path) as aside:
        damaged = build_catalog(warehouse, metrics, state, aside)
    _PRIVATE_CATALOGS.pop(warehouse.home, None)
    return damaged


def build_private_catalog(warehouse: Warehouse, metrics: pl.DataFrame) -> pl.DataFrame:
    """Build a catalog of the home in a private temporary folder and read it from now on; the damaged files.

    For a reader that finds the home's catalog stale and cannot take the writer lock at once
    (a writer holds it: readers never wait) or at all (a read-only or copied home): it writes
    nothing in the home.  The folder is removed when the process exits.
    """
    folder = Path(tempfile.mkdtemp(prefix="scorehouse-catalog-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "catalog.duckdb"
    damaged = build_catalog(warehouse, metrics, committed_state(warehouse), path)
    _PRIVATE_CATALOGS[warehouse.home] = path
    return damaged


def build_catalog(warehouse: Warehouse, metrics: pl.DataFrame, state: str, path: Path) -> pl.DataFrame:
    """Write the catalog of ``state`` to ``path`` (a new file): the metric table, the file checks, the views,
    the state; return the damaged files (:func:`warehouse.integrity.check_files`), left out of the views.

    DuckDB's write-ahead log beside it is removed whatever happens (before, a failed build
    left one ``.tmp.wal`` file per try).  DuckDB reads a ``?`` in a database path as the start of
    connection options (the log of ``runs?/catalog.duckdb`` went to ``runs.wal?/catalog.duckdb``), so
    a catalog for such a path is built in a private temporary folder and copied there; reading it
    (read-only, no log) works.
    """
    import duckdb

    if "?" in str(path):  # DuckDB reads it as the start of options, and writes its log elsewhere: build aside
        with tempfile.TemporaryDirectory(prefix="scorehouse-catalog-") as private:
            damaged = build_catalog(warehouse, metrics, state, Path(private) / "catalog.duckdb")
            shutil.copyfile(Path(private) / "catalog.duckdb", path)
        return damaged
    damaged, checked = check_files(warehouse.home, recorded_hashes(warehouse.home), previous_checks(warehouse))
    try:
        with duckdb.connect(str(path)) as con:
            for table, frame in (("metrics", metrics.select(list(METRICS))), (CHECKED_TABLE, checked), (DAMAGED_TABLE, damaged)):
                con.register("frame", frame.to_arrow())
                con.execute(f"CREATE TABLE {table} AS SELECT * FROM frame")
                con.unregister("frame")
            for statement in view_statements(warehouse, frozenset(damaged.get_column("file").to_list())):
                con.execute(statement)
            con.execute(f"CREATE VIEW {STATE_VIEW} AS SELECT {sql_literal(state)} AS fingerprint")
    except duckdb.IOException as error:  # a full disk, a read-only folder: an OSError like any other write's
        raise CatalogWriteError(f"cannot write the catalog {path}: {first_line(error)}") from error
    finally:
        path.with_name(path.name + ".wal").unlink(missing_ok=True)
    return damaged


def previous_checks(warehouse: Warehouse) -> pl.DataFrame:
    """The file checks the catalog read now recorded (:data:`warehouse.integrity.CHECKED`); none before the first."""
    import duckdb

    path = catalog_file(warehouse)
    if path.exists():
        with duckdb.connect(str(path), read_only=True) as con:
            try:
                return query_frame(con, f"SELECT * FROM {CHECKED_TABLE}")
            except duckdb.CatalogException:  # a catalog from before the checks
                pass
    return pl.DataFrame(schema=CHECKED)


def connect(warehouse: Warehouse, read_only: bool = True):  # noqa: ANN201 - duckdb is imported lazily
    """A DuckDB connection to the catalog (read-only by default): this process's private one when it built one."""
    import duckdb

    path = catalog_file(warehouse)
    if not path.exists():
        raise WarehouseMissingError(
            f"no warehouse catalog at {warehouse.catalog_path}; run 'scorehouse ingest PATH' first "
            f"(or point --home / $SCOREHOUSE_HOME at an existing warehouse)"
        )
    return duckdb.connect(str(path), read_only=read_only)


DEFAULT_QUERY_TIMEOUT = 60.0  # seconds a ``scorehouse sql`` query may run (``--timeout``)


def memory_limit() -> str:
    """DuckDB's memory limit for a user query: half the machine's memory (DuckDB's default is 80%)."""
    return f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') // 2 // (1 << 20)}MiB"


def user_query(warehouse: Warehouse, sql: str, timeout: float = DEFAULT_QUERY_TIMEOUT) -> pl.DataFrame:
    """Run one user query (``scorehouse sql``) on the catalog, unable to write or to read outside the home.

    Allowed: exactly one statement, and it must be a query (SELECT, WITH … SELECT, FROM …,
    DESCRIBE, SHOW, SUMMARIZE, VALUES).  The connection is read-only; once it is open,
    DuckDB's ``enable_external_access`` is turned off with the home as the only
    ``allowed_directories`` (the views read the warehouse's Parquet files, and nothing
    else may be read: ``read_text('/etc/passwd')`` is refused), and ``lock_configuration``
    refuses any ``SET`` that would undo it.  ``COPY``, ``EXPORT DATABASE``, ``ATTACH``,
    ``CREATE``, ``INSERT``, ``SET``, ``INSTALL``/``LOAD`` and several statements are refused
    before anything runs.  Every refusal or failure is a :class:`RefusedQueryError`: one line.

    Bounded: a query still running after ``timeout`` seconds is interrupted; DuckDB may use half
    the machine's memory (:func:`memory_limit`) and spills to a private temporary folder, never
    into the home (DuckDB's default spill folder is beside the catalog), removed afterwards.
    """
    import duckdb

    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as error:
        raise RefusedQueryError(f"not valid SQL: {first_line(error)}") from None
    if len(statements) != 1:
        raise RefusedQueryError(f"give exactly one query; got {len(statements)} statements")
    if statements[0].type != duckdb.StatementType.SELECT:
        raise RefusedQueryError(
            f"only queries are allowed (the catalog is read-only); got a {statements[0].type.name} statement"
        )
    with connect(warehouse) as con, tempfile.TemporaryDirectory(prefix="scorehouse-spill-") as spill:
        con.execute(f"SET memory_limit = {sql_literal(memory_limit())}")
        con.execute(f"SET temp_directory = {sql_literal(spill)}")
        # The views name the home's files by globs, where its own glob characters are escaped
        # (:func:`warehouse.sql.sql_glob`): DuckDB checks the glob as written, so both spellings are allowed.
        allowed = sorted({str(warehouse.home) + os.sep, glob_escaped(warehouse.home) + os.sep})
        con.execute(f"SET allowed_directories = [{', '.join(map(sql_literal, allowed))}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        timer = threading.Timer(timeout, con.interrupt)
        timer.start()
        try:
            return query_frame(con, sql)
        except duckdb.InterruptException:
            raise RefusedQueryError(f"the query ran longer than {timeout:g} s and was stopped; narrow it, "
                                    f"or give more time with --timeout SECONDS") from None
        except duckdb.Error as error:
            raise RefusedQueryError(first_line(error)) from None
        finally:
            timer.cancel()


def first_line(error: Exception) -> str:
    """The first line of a DuckDB error: what went wrong, without the query echo."""
    return str(error).strip().splitlines()[0]
