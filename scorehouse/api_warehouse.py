"""``scorehouse.Warehouse``: a warehouse home from a notebook, through the same flows the commands run.

Each method calls a flow or a catalog read as a plain function, in this process
(:mod:`scorehouse.runtime`, without a Prefect API: nothing is started, nothing left running), and
returns pandas frames, or Polars ones with ``frames="polars"``.  The flows and the catalog are
imported by the methods that use them, so ``scorehouse.rank`` on a table in memory loads neither.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.api_tables import ArgumentError, as_kind, check_kind, score_table

RANKING_COLUMNS = ("benchmark", "level", "method", "two_step", "snapshot_id", "system", "rank", "score", "tied")


class IngestRejectedError(ScorehouseError):
    """The warehouse refused the table (its columns or names do not fit): the message says why."""


class RankRefusedError(ScorehouseError):
    """The method asked for refused to rank a benchmark (a bad parameter, ballots it cannot rank)."""


class Warehouse:
    """The warehouse at ``home`` (created on the first ingest): ingest tables, rank them, query them.

    ``frames`` is the kind of table the methods return: ``"pandas"`` (default) or ``"polars"``.

    >>> import tempfile, pandas as pd, scorehouse
    >>> folder = tempfile.TemporaryDirectory()
    >>> home = scorehouse.Warehouse(folder.name)
    >>> leaderboard = pd.DataFrame({"system": ["a", "b", "c"], "t1": [0.9, 0.5, 0.1], "t2": [0.2, 0.7, 0.1]})
    >>> home.ingest(leaderboard, benchmark="toy")
    6
    >>> home.rank(method="borda")[["benchmark", "method", "system", "rank", "score"]]
      benchmark method system  rank  score
    0       toy  borda      a     1    3.0
    1       toy  borda      b     1    3.0
    2       toy  borda      c     3    0.0
    >>> home.sql("SELECT system, count(*) AS n FROM scores GROUP BY system ORDER BY system")
      system  n
    0      a  2
    1      b  2
    2      c  2
    >>> folder.cleanup()
    """

    def __init__(self, home: str | Path, *, frames: str = "pandas") -> None:
        from scorehouse.warehouse.storage import Warehouse as Home

        if not isinstance(home, (str, Path)):
            raise ArgumentError(f"home must be a path (str or pathlib.Path), got {home!r}")
        check_kind(frames)
        self.home = Home(home).home
        self.frames = frames

    def __repr__(self) -> str:
        return f"Warehouse({str(self.home)!r})"

    def ingest(
        self,
        data: Any,
        benchmark: str,
        *,
        system: str = "system",
        task: str = "task",
        score: str = "score",
        metric: str | None = None,
        instance: str | None = None,
        higher_is_better: bool | None = None,
    ) -> int:
        """Ingest a long or wide table (read as :func:`scorehouse.rank` reads it) as ``benchmark``; the rows landed.

        The table is written to a Parquet file and ingested as ``scorehouse ingest FILE --benchmark
        BENCHMARK --system ... --score ...`` does (format ``user-table``): archived, validated (rows
        that cannot be used are quarantined, see ``sql("SELECT * FROM quarantine")``), and the same
        table ingested twice is loaded once (the second time lands 0 rows).  ``higher_is_better``
        declares the direction of every metric of the table (default: the bundled metric rules, which
        know the published metrics and take higher as better otherwise).
        """
        from scorehouse.flows.ingest import ingest_flow

        if not isinstance(benchmark, str):
            raise ArgumentError(f"benchmark must name the benchmark (a str), got {benchmark!r}")
        if higher_is_better is not None and not isinstance(higher_is_better, bool):
            raise ArgumentError(f"higher_is_better must be True, False or None, got {higher_is_better!r}")
        table = score_table(data, system=system, task=task, score=score, metric=metric, instance=instance)
        with tempfile.TemporaryDirectory(prefix="scorehouse-ingest-") as folder:
            # Named after the benchmark: a long table without a task column gets the file's name as task.
            path = Path(folder) / f"{benchmark}.parquet"
            table.frame.write_parquet(path)
            report = ingest_flow([str(path)], str(self.home), format="user-table", benchmark=benchmark,
                                 columns=table.columns, higher_is_better=higher_is_better)
        rejected = report.rejected_files
        if rejected:
            raise IngestRejectedError(f"benchmark {benchmark!r}: the table was not ingested: {rejected[0].error}")
        return sum(f.rows_landed for f in report.files)

    def rank(
        self,
        benchmarks: str | Sequence[str] | None = None,
        *,
        method: str | None = None,
        level: str | None = None,
        two_step: bool = False,
        params: Mapping[str, Any] | None = None,
        intervals: bool = False,
        bootstrap: Mapping[str, Any] | None = None,
    ) -> Any:
        """Rank the warehouse's benchmarks (all by default) into snapshots and return their rankings.

        Runs the rank flow (``scorehouse rank``): ``method`` with ``params`` (and ``two_step``), or the
        default methods of each benchmark's level when ``method`` is None; ``level`` is ``task``,
        ``instance`` or ``battles`` (default: each benchmark's natural level).  A snapshot is computed
        once: ranking unchanged data again returns the stored one.  Returns ``benchmark, level, method,
        two_step, snapshot_id, system, rank, score, tied``, one row per system of every snapshot (its
        parameters are in :meth:`snapshots`).

        ``intervals=True`` adds bootstrap intervals of each ranking (the voters, or the battles,
        resampled: :func:`scorehouse.aggregators.bootstrap`): ``score_low, score_high, rank_best,
        rank_worst, tie_group``; ``bootstrap`` passes its ``n_resamples``, ``level`` and ``seed``.
        """
        from scorehouse.flows.rank import rank_flow
        from scorehouse.flows.rank_intervals import ranking_intervals
        from scorehouse.transforms.rank_plan import MethodRun

        names = [benchmarks] if isinstance(benchmarks, str) else benchmarks
        if names is not None and not all(isinstance(n, str) for n in names):
            raise ArgumentError(f"benchmarks must be a benchmark name or a list of them, got {benchmarks!r}")
        if method is None and (params or two_step):
            raise ArgumentError(f"params={params!r} and two_step={two_step!r} go with a method: name it with method=")
        if bootstrap is not None and not intervals:
            raise ArgumentError(f"bootstrap={bootstrap!r} sets up the intervals: pass intervals=True with it")
        runs = None if method is None else [MethodRun(method, dict(params or {}), two_step)]
        outcomes = rank_flow(home=str(self.home), benchmarks=list(names) if names else None, level=level, runs=runs)
        tables = []
        for outcome in outcomes:
            for done in outcome.methods:
                if method is not None and (done.error or done.skipped):  # the method asked for did not rank
                    raise RankRefusedError(f"benchmark {outcome.benchmark!r}: {done.run.label}: {done.error or done.skipped}")
                if done.error:  # one of the default methods refused: the others' rankings are still worth having
                    warnings.warn(f"benchmark {outcome.benchmark!r}: {done.run.label}: {done.error}", stacklevel=2)
                if done.ranking is None:
                    continue
                ranking = done.ranking
                if intervals:
                    ranking = ranking_intervals(self._home(), outcome.benchmark, outcome.level, done.run,
                                                dict(bootstrap or {}), outcome.selection)
                tables.append(ranking.with_columns(
                    benchmark=pl.lit(outcome.benchmark), level=pl.lit(outcome.level), method=pl.lit(done.run.method),
                    two_step=pl.lit(done.run.two_step), snapshot_id=pl.lit(done.snapshot_id),
                ).select(*RANKING_COLUMNS, pl.exclude(RANKING_COLUMNS)))
        return self._frame(pl.concat(tables, how="diagonal") if tables else pl.DataFrame())

    def sql(self, query: str) -> Any:
        """The result of one read-only SQL query on the catalog (``scorehouse sql``): the views ``scores``,
        ``metrics``, ``snapshots``, ``rankings``, ``latest_rankings``, ``battles``, ``quarantine``, ..."""
        from scorehouse.warehouse.catalog import user_query

        if not isinstance(query, str):
            raise ArgumentError(f"query must be SQL text, got {query!r}")
        return self._frame(user_query(self._current(), query))

    def snapshots(self, benchmark: str | None = None) -> Any:
        """Every ranking snapshot (of one benchmark, or all) with its lineage, oldest first per method."""
        from scorehouse.warehouse.queries import snapshot_listing

        return self._frame(snapshot_listing(self._current(), benchmark))

    def latest_rankings(self, benchmark: str | None = None) -> Any:
        """The rankings of the newest snapshot of every (benchmark, level, method, parameters), by rank."""
        where = "" if benchmark is None else f"WHERE benchmark = {sql_text(benchmark)}"
        return self.sql(f"SELECT * FROM latest_rankings {where} ORDER BY benchmark, level, method, parameters, rank, system")

    def _home(self) -> Any:
        from scorehouse.warehouse.storage import Warehouse as Home

        return Home(self.home)

    def _current(self) -> Any:
        """The home, its catalog rebuilt first when it does not match the committed loads (as every command does)."""
        from scorehouse.flows.catalog_state import ensure_current_catalog

        home = self._home()
        ensure_current_catalog(home)
        return home

    def _frame(self, frame: pl.DataFrame) -> Any:
        return as_kind(frame, self.frames)


def sql_text(value: str) -> str:
    """``value`` as an SQL string literal."""
    from scorehouse.warehouse.sql import sql_literal

    if not isinstance(value, str):
        raise ArgumentError(f"benchmark must be a benchmark name (a str), got {value!r}")
    return sql_literal(value)
