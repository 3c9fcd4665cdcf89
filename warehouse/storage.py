"""The warehouse home on disk: raw archive, Parquet partitions, quarantine, load manifests.

Layout under ``home``::

    raw/packs/<batch>.parquet                  every ingested file, byte for byte: a batch's small files in a pack,
    raw/<sha[:2]>/<sha256><suffixes>           the others in a file of their own (warehouse.raw_archive)
    scores/benchmark=B/level=L/<batch>.parquet hive partitions, one file per batch of loads
    coverage/<batch>.parquet                   what the loads scored (warehouse.schema.COVERAGE)
    quarantine/<batch>.parquet                 rows that failed validation, with the reason and file
    systems/<batch>.parquet                    what the files say about their systems (warehouse.schema.SYSTEMS)
    segment_layouts/<batch>.parquet            where WMT segment files put their documents (SEGMENT_LAYOUTS)
    battles/benchmark=B/<load>.parquet         pairwise battles (warehouse.schema.BATTLES), one file per load
    battles_quarantine/<load>.parquet          battles that failed validation, with the reason
    rejected/<sha256>.parquet                  files that could not be parsed at all
    loads/<batch>.parquet                      the manifests of the batch's loads, written last
    catalog.duckdb                             views over all of the above (warehouse.catalog)

A load is one input file; a batch is the loads committed together
(:meth:`Warehouse.write_loads`), so many small files make a few Parquet files
rather than four each.  Every row keeps its ``load_id`` and every manifest row
its ``batch_id``; a batch of one load is named by the load id (the layout from
before batches).  A batch becomes visible only when its manifest exists: the
scores and quarantine files are written first, each aside and renamed into
place, and the manifest last (the coverage just before it).  A crash at any
point leaves either no manifest or a complete batch; the files of a batch that
never committed are removed by the next writer (:meth:`Warehouse.remove_uncommitted`),
so no view reads them.  Writers take an exclusive lock on ``.lock``.  Every
write and the lock go through :mod:`warehouse.atomic`.
"""

from __future__ import annotations

import copy
import hashlib
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from scorehouse.aggregators.errors import UsageError
from scorehouse.warehouse import atomic
from scorehouse.warehouse.integrity import hashes_folder, record_hashes
from scorehouse.warehouse.names import check_benchmark_name, resolve_home
from scorehouse.warehouse.raw_archive import RawStage, archived_hashes, stage_raw
from scorehouse.warehouse.schema import (
    SEGMENT_LAYOUTS,
    BATTLES,
    BATTLES_QUARANTINE,
    COVERAGE,
    LOADS,
    METRIC_RULES,
    QUARANTINE,
    REJECTED,
    SCORES,
    SYSTEMS,
    concat_conformed,
    conform,
)
from scorehouse.warehouse.sql import files_relation, loads_relation, query_files

@dataclass(frozen=True)
class LoadRecord:
    """What the manifest of one load says."""

    load_id: str
    source: str
    file_name: str
    sha256: str
    format: str
    parser_version: int
    benchmark: str
    rows_in: int
    rows_landed: int
    rows_quarantined: int
    reverts: str | None = None  # the earlier load of the same bytes this one makes current again
    columns: str | None = None  # the column mapping it was read with, as JSON (LOADS)

    def frame(self, loaded_at: datetime, batch: str | None = None) -> pl.DataFrame:
        """The manifest row, in the batch ``batch`` (default: a batch of this load alone)."""
        return manifest_frame([(self, loaded_at)], batch or self.load_id)


def manifest_frame(records: list[tuple[LoadRecord, datetime]], batch: str) -> pl.DataFrame:
    """The manifest rows (:data:`LOADS`) of loads made at their times, in the batch ``batch``: one frame built
    from all the rows (a frame per row costs a query plan each, thousands per batch of small files)."""
    rows = [{**record.__dict__, "loaded_at": loaded_at, "batch_id": batch} for record, loaded_at in records]
    return conform(pl.DataFrame(rows, schema={c: LOADS[c] for c in rows[0]}), LOADS)


@dataclass(frozen=True)
class NewLoad:
    """One load to commit: its manifest, validated scores and quarantine, when it was made, and system metadata."""

    record: LoadRecord
    scores: pl.DataFrame
    quarantine: pl.DataFrame
    loaded_at: datetime
    systems: pl.DataFrame | None = None  # what the file says about its systems (SYSTEMS), when it says anything
    segment_layouts: pl.DataFrame | None = None  # where a WMT segment file puts its documents (SEGMENT_LAYOUTS)


def batch_id(load_ids: list[str]) -> str:
    """The name of the files of a batch of loads: the load id for one, a hash of the sorted ids for several.

    Derived from the loads, so a retried batch overwrites its own files.
    """
    if len(load_ids) == 1:
        return load_ids[0]
    return hashlib.sha256("|".join(sorted(load_ids)).encode()).hexdigest()[:20]


class OutputInsideHomeError(UsageError, ValueError):
    """An output file (``sql --output``, ``export --output``) that would land inside the warehouse home."""


class Warehouse:
    """A warehouse home directory.  Only this package touches it."""

    def __init__(self, home: str | Path | None = None) -> None:
        self.home = resolve_home(home).resolve()
        self._raw_stage: RawStage | None = None

    @property
    def catalog_path(self) -> Path:
        return self.home / "catalog.duckdb"

    def dir(self, name: str) -> Path:
        return self.home / name

    def check_outside(self, output: Path, option: str) -> Path:
        """``output`` when it is outside the home, else :class:`OutputInsideHomeError`.

        Only scorehouse writes inside the home: a user's file there could replace a snapshot
        or a manifest (snapshots are immutable) or be read by a view.  Symbolic links are
        followed (a link out of the home to a folder in it is still the home).
        """
        resolved = Path(output).expanduser().resolve()
        if resolved == self.home or resolved.is_relative_to(self.home):
            raise OutputInsideHomeError(
                f"{option} {output} is inside the warehouse home {self.home}, where only scorehouse writes "
                f"(it could replace a snapshot or a manifest); write the file somewhere else"
            )
        return Path(output)

    @contextmanager
    def write_lock(self, wait: bool = True) -> Iterator[bool]:
        """Serialise writers: one process at a time changes the warehouse.  Yields whether the lock
        was taken (always, unless ``wait`` is False and another process holds it)."""
        with atomic.file_lock(self.home / ".lock", wait=wait) as taken:
            yield taken

    @property
    def raw_stage(self) -> RawStage:
        """The bytes read for the raw archive that no commit archived yet (:class:`warehouse.raw_archive.RawStage`):
        an ingest batch's own (:meth:`for_batch`), else this object's, made when first used."""
        if self._raw_stage is None:
            self._raw_stage = RawStage(self.home, self.archived_raw())
        return self._raw_stage

    def for_batch(self, archived: frozenset[str] | None = None) -> Warehouse:
        """This home with a raw stage of its own, for one ingest batch: the bytes its files are read into until its
        commit archives them.  ``archived``: the batch's hashes the archive holds (None: read them here)."""
        batch = copy.copy(self)
        batch._raw_stage = RawStage(self.home, self.archived_raw() if archived is None else archived)
        return batch

    def archived_raw(self) -> frozenset[str]:
        """The sha256 of every file the raw archive holds (:func:`warehouse.raw_archive.archived_hashes`)."""
        return archived_hashes(self.home, self.committed_batches())

    def archive_raw(self, path: Path, planned: str | None = None) -> str:
        """Read ``path`` once into the raw stage (:meth:`warehouse.raw_archive.RawStage.take`); the sha256 of its bytes.

        A hash other than ``planned`` (the run's plan's) says the file changed: the caller rejects it, with these bytes
        kept under their own hash.  The bytes join the archive with the record that names them, just before the
        manifest of their load (:meth:`write_loads`: a pack of the batch; :meth:`write_battles_load`) or with their
        rejection (:meth:`record_rejected`); those of a file that never committed (a full disk, a failure, a skipped
        file) go with the batch (:meth:`discard_raw`), and a killed run's copies aside with the next ingest
        (:meth:`remove_dead_raw`).
        """
        return self.raw_stage.take(path, planned)

    def discard_raw(self) -> None:
        """Drop the raw stage's bytes that no commit archived (the batch is over)."""
        self.raw_stage.discard()

    def remove_dead_raw(self) -> None:
        """Remove the raw copies and packs aside of ingests that were killed before their commit (their process is gone)."""
        atomic.remove_dead_asides(self.dir("raw").glob("*/.*.tmp"))

    @contextmanager
    def staged_raw(self, sha: str, file_name: str) -> Iterator[Path]:
        """The archived bytes of ``sha`` seen under ``file_name``'s own folder and file name.

        Parsers read names from both (a COCO team folder, a WMT language pair), so re-parsing
        archived bytes needs them back even when the original file is gone.  A symbolic link to the file of its
        own, or a copy of the bytes from their pack, in a scratch folder of the home (visible to workers sharing the
        home), removed afterwards (:func:`warehouse.raw_archive.stage_raw`).
        """
        original = Path(file_name)
        scratch = Path(tempfile.mkdtemp(prefix=".reparse-", dir=self.home))
        try:
            staged = scratch.joinpath(*original.parent.parts[-2:], original.name)  # formats read up to 2 folders
            staged.parent.mkdir(parents=True, exist_ok=True)
            stage_raw(self.home, sha, self.committed_batches(), staged)
            yield staged
        finally:
            shutil.rmtree(scratch)

    def write_loads(self, loads: list[NewLoad]) -> None:
        """Write a batch of loads: their partitions, quarantine, system metadata and coverage, then their manifests
        (the commit point).

        All rows of a (benchmark, level) go to one file, whichever load they come from (each row
        keeps its ``load_id``).  The caller holds the write lock.
        """
        if not loads:
            return
        batch = batch_id([new.record.load_id for new in loads])
        self.remove_uncommitted()
        # one chunk, not one per load: the Parquet writes and the coverage take 15-40 % less on contiguous columns
        scores = concat_conformed([new.scores for new in loads], SCORES)
        partition_names(scores)
        written: list[Path] = []  # the batch's files, their content hashes recorded before the manifest

        def put(frame: pl.DataFrame, path: Path) -> None:
            atomic.write_parquet(frame, path)
            written.append(path)

        parts = partitions_in_order(scores)
        for (benchmark, level), part in parts:
            put(part.drop("level"), self.score_path(benchmark, level, batch))
        quarantine = concat_conformed([new.quarantine for new in loads], QUARANTINE)
        if quarantine.height:
            put(quarantine, self.dir("quarantine") / f"{batch}.parquet")
        systems = [conform(new.systems, SYSTEMS).with_columns(load_id=pl.lit(new.record.load_id))
                   for new in loads if new.systems is not None and new.systems.height]
        if systems:
            put(pl.concat(systems), self.dir("systems") / f"{batch}.parquet")
        layouts = [conform(new.segment_layouts, SEGMENT_LAYOUTS).with_columns(load_id=pl.lit(new.record.load_id))
                   for new in loads if new.segment_layouts is not None and new.segment_layouts.height]
        if layouts:
            put(pl.concat(layouts), self.dir("segment_layouts") / f"{batch}.parquet")
        ordered = pl.concat([part for _, part in parts]) if parts else scores.with_columns(level=pl.lit(None, pl.String))
        put(coverage_of(ordered), self.dir("coverage") / f"{batch}.parquet")  # in the parts' order, as read back
        written += self.raw_stage.pack(batch, (new.record.sha256 for new in loads))
        record_hashes(self.home, "loads", batch, written)
        manifests = manifest_frame([(new.record, new.loaded_at) for new in loads], batch)
        atomic.write_parquet(manifests, self.dir("loads") / f"{batch}.parquet")

    def committed_batches(self) -> frozenset[str]:
        """The batches whose manifests exist (a batch is committed when its manifest is)."""
        folder = self.dir("loads")
        return frozenset(p.stem for p in folder.glob("*.parquet")) if folder.is_dir() else frozenset()

    def remove_uncommitted(self) -> None:
        """Remove the scores, battles, coverage, quarantine, system, layout and raw pack files of batches that have no
        manifest.

        Called under the write lock, when no writer is between its first file and its manifest:
        such files are a crashed writer's.  A later batch may hold the same loads, and every
        view reads all files of a folder, so they would be read twice.
        """
        committed = self.committed_batches()
        folders = [self.dir("coverage"), self.dir("quarantine"), self.dir("systems"), self.dir("segment_layouts"),
                   self.dir("battles_quarantine"), self.dir("raw") / "packs", hashes_folder(self.home, "loads"),
                   *self.dir("scores").glob("benchmark=*/level=*"),
                   *self.dir("battles").glob("benchmark=*")]
        for folder in folders:
            for path in folder.glob("*.parquet"):
                if path.stem not in committed:
                    path.unlink(missing_ok=True)

    def write_battles_load(self, record: LoadRecord, battles: pl.DataFrame, quarantine: pl.DataFrame) -> None:
        """Write one load of battles and its quarantine, then its manifest (the commit point), as :meth:`write_loads`.

        Battles are partitioned by benchmark only (a battle has no level).  The load's coverage
        is empty (it scored nothing): every load has one, so the rank flow never backfills it.
        """
        self.remove_uncommitted()
        battles = conform(battles, BATTLES)
        written: list[Path] = []  # the load's files, their content hashes recorded before the manifest
        for (benchmark,), part in battles.group_by("benchmark"):
            written.append(self.battles_path(check_benchmark_name(benchmark), record.load_id))
            atomic.write_parquet(part, written[-1])
        if quarantine.height:
            written.append(self.dir("battles_quarantine") / f"{record.load_id}.parquet")
            atomic.write_parquet(conform(quarantine, BATTLES_QUARANTINE), written[-1])
        written.append(self.dir("coverage") / f"{record.load_id}.parquet")
        atomic.write_parquet(pl.DataFrame(schema=COVERAGE), written[-1])
        record_hashes(self.home, "loads", record.load_id, written)
        self.raw_stage.keep([record.sha256])  # a file of its own: one load, one file, pack or not
        atomic.write_parquet(record.frame(datetime.now(UTC)), self.dir("loads") / f"{record.load_id}.parquet")

    def battles_path(self, benchmark: str, load_id: str) -> Path:
        return self.dir("battles") / f"benchmark={benchmark}" / f"{load_id}.parquet"

    def score_path(self, benchmark: str, level: str, load_id: str) -> Path:
        return self.dir("scores") / f"benchmark={benchmark}" / f"level={level}" / f"{load_id}.parquet"

    def segment_layouts(self) -> pl.DataFrame:
        """The stored layouts of WMT segment files (:data:`warehouse.schema.SEGMENT_LAYOUTS`) of the current
        loads, with the ``source`` of each (a new load of the same source replaces its layouts)."""
        schema = {**SEGMENT_LAYOUTS, "source": pl.String()}
        files = sorted(self.dir("segment_layouts").glob("*.parquet"))
        if not files:
            return pl.DataFrame(schema=schema)
        current = self.manifests().filter(pl.col("is_current")).select("load_id", "source")
        return conform(pl.read_parquet(files, glob=False).join(current, on="load_id"), schema)

    def manifests(self) -> pl.DataFrame:
        """Every committed load's manifest, with ``is_current``: the catalog's ``loads`` view, read from the files.

        The catalog may not exist yet or be about to be rebuilt (it is built from
        this), so the view's SQL (:func:`warehouse.sql.loads_relation`) runs
        on the manifests directly, sorted by load id.
        """
        frame = query_files(f"SELECT * FROM ({loads_relation(self.home)}) ORDER BY load_id")
        return conform(frame, LOADS).with_columns(frame.get_column("is_current"))

    def current_coverage(self) -> pl.DataFrame:
        """The coverage (:data:`COVERAGE`) of the current loads, backfilled for batches written before it existed."""
        return conform(self.coverage_scan().collect(), COVERAGE)

    def coverage_scan(self) -> pl.LazyFrame:
        """:meth:`current_coverage` as a scan, for readers that keep a few columns or a summary of it (the
        coverage has a row per scored (task, metric, system): tens of millions for MTEB's subsets).

        One file per batch, read once however many of its loads are current.
        """
        current = self.manifests().filter("is_current")
        paths = self.coverage_files(current)
        if not paths:
            return pl.DataFrame(schema=COVERAGE).lazy()
        loads = current.get_column("load_id").implode()
        return pl.scan_parquet(paths, glob=False).select(list(COVERAGE)).filter(pl.col("load_id").is_in(loads))

    def coverage_relation(self, manifests: pl.DataFrame | None = None) -> str:
        """:meth:`coverage_scan` as a DuckDB SELECT over the coverage files (run by :func:`warehouse.sql.query_files`),
        for aggregates of the whole coverage: DuckDB pushes a query's filters and columns into the scan and keeps
        its memory to the groups it makes, where Polars' streaming unique of MTEB's coverage held 3.2 GB and a
        collect of it 15 GB.  ``manifests``: every manifest (:meth:`manifests`), when the caller has them already.

        The rows of loads no longer current are filtered out where the files hold some: a probe of every row's load
        id, a third of the time of an aggregate over MTEB's 41 M rows, for nothing when each of their loads is current.
        """
        manifests = self.manifests() if manifests is None else manifests
        current = manifests.filter("is_current")
        coverage = files_relation(self.coverage_files(current), COVERAGE)
        read = current.get_column("batch_id").implode()
        if manifests.filter(~pl.col("is_current") & pl.col("batch_id").is_in(read)).height == 0:
            return f"SELECT * FROM ({coverage})"
        return (f"SELECT * FROM ({coverage}) "
                f"WHERE load_id IN (SELECT load_id FROM ({loads_relation(self.home)}) WHERE is_current)")

    def coverage_files(self, current: pl.DataFrame) -> list[Path]:
        """The coverage files of the batches of the ``current`` manifests, each written first from its scores when
        the batch was committed before coverage existed; their rows of other loads are not current."""
        paths = []
        for batch in sorted(current.get_column("batch_id").unique().to_list()):
            path = self.dir("coverage") / f"{batch}.parquet"
            if not path.exists():  # idempotent: any writer computes the same file
                files = sorted(self.dir("scores").glob(f"benchmark=*/level=*/{batch}.parquet"), key=partition_key)
                scores = [
                    conform(pl.read_parquet(f, glob=False), SCORES).with_columns(level=pl.lit(f.parent.name.removeprefix("level=")))
                    for f in files
                ]
                leveled = pl.concat(scores) if scores else conform(pl.DataFrame(schema=SCORES), SCORES).with_columns(
                    level=pl.lit(None, dtype=pl.String))
                atomic.write_parquet(coverage_of(leveled), path)
            paths.append(path)
        return paths

    def declare_metric_rules(self, rules: pl.DataFrame) -> None:
        """Put ``rules`` (:data:`METRIC_RULES`) first in ``declared_metric_rules.csv``, replacing earlier rules
        of the same (benchmark, task, metric) patterns.  The caller holds the write lock."""
        path = self.home / DECLARED_RULES_NAME
        rules = conform(rules, METRIC_RULES)
        if path.exists():
            earlier = conform(pl.read_csv(path, schema=METRIC_RULES), METRIC_RULES)
            rules = pl.concat([rules, earlier.join(rules, on=["benchmark", "task", "metric"], how="anti")])
        atomic.write_text(rules.write_csv(), path)

    def record_rejected(self, file: str, sha: str, line: int | None, reason: str) -> None:
        """Remember a file that could not be parsed, with its bytes in the raw archive: a file of their own, written
        now (the batch's pack may never come), unless archived already (a load that committed, all quarantined)."""
        self.raw_stage.keep([sha])
        frame = pl.DataFrame(
            [{"file": file, "sha256": sha, "line": line, "reason": reason, "rejected_at": datetime.now(UTC)}],
            schema=REJECTED,
        )
        atomic.write_parquet(frame, self.dir("rejected") / f"{sha}.parquet")

    def forget_rejected(self, shas: Iterable[str]) -> None:
        """Files that now parse (e.g. with --format) are no longer rejected: the record of each of ``shas`` is
        replaced by one of no rows, not removed, since a catalog built before lists the file by name and a reader of
        that catalog must not find it gone (its ``rejected_files`` view then shows no row for it, the state after).
        The records are listed once, not looked for file by file (a batch lands up to 2,000 files)."""
        folder = self.dir("rejected")
        recorded = {p.stem for p in folder.glob("*.parquet")} if folder.is_dir() else set()
        for sha in dict.fromkeys(shas):
            if sha in recorded:
                atomic.write_parquet(pl.DataFrame(schema=REJECTED), folder / f"{sha}.parquet")


def partition_names(scores: pl.DataFrame) -> list[str]:
    """The benchmarks of ``scores``, each checked to name a partition folder (:mod:`warehouse.names`)."""
    return [check_benchmark_name(name) for name in scores.get_column("benchmark").unique().to_list()]


def partitions_in_order(scores: pl.DataFrame) -> list[tuple[tuple[str, str], pl.DataFrame]]:
    """The rows of each (benchmark, level) of ``scores``, with their ``level``, in the order of their keys, each part
    in row order: how a batch's score files are written, and read back in the same order (:func:`partition_key`).

    A batch of one benchmark and level (every batch of an MTEB ingest) is its own part, not a copy of it: the
    level is read from the null count of ``instance`` (kept by the column, not counted).
    """
    benchmarks = scores.get_column("benchmark").unique()
    without_instance = scores.get_column("instance").null_count()
    if benchmarks.len() == 1 and without_instance in (0, scores.height):
        level = "task" if without_instance else "instance"
        return [((benchmarks[0], level), scores.with_columns(level=pl.lit(level, pl.String)))]
    leveled = scores.with_columns(
        level=pl.when(pl.col("instance").is_null()).then(pl.lit("task")).otherwise(pl.lit("instance"))
    )
    parts = leveled.partition_by("benchmark", "level", as_dict=True, maintain_order=True)
    return sorted(parts.items())


def partition_key(path: Path) -> tuple[str, str]:
    """(benchmark, level) of a score file ``scores/benchmark=B/level=L/<batch>.parquet``: its files sort as the
    parts of :func:`partitions_in_order` (a path sorts otherwise when a name holds a character before ``/``)."""
    return path.parent.parent.name.removeprefix("benchmark="), path.parent.name.removeprefix("level=")


def coverage_of(leveled: pl.DataFrame) -> pl.DataFrame:
    """Rows and null scores per (load, benchmark, level, task, metric, system) of scores with ``level``.

    When no key repeats (every load of task-level scores: validation quarantines a second row of the same
    system and voter within a load, :mod:`transforms.validate`) each row is its key's only row, and the coverage
    is a projection of the rows, in their order: the group-by and sort of 6 text keys cost a fifth of the CPU of
    an MTEB ingest for nothing.  Equal keys hash equally, so as many distinct hashes as rows proves the keys
    distinct (a collision only sends the frame to the grouping).  Otherwise (instance-level scores) the rows are
    grouped, in key order.
    """
    keys = ["load_id", "benchmark", "level", "task", "metric", "system"]
    if leveled.select(keys).hash_rows().n_unique() == leveled.height:
        single = leveled.select(*keys, rows=pl.lit(1, pl.Int64), nulls=pl.col("score").is_null().cast(pl.Int64))
        return conform(single, COVERAGE)
    # Lazy: the query engine's group-by is 2-5x faster here than the eager one (2M rows, 6 string keys).
    counts = leveled.lazy().group_by(keys).agg(rows=pl.len(), nulls=pl.col("score").null_count()).collect()
    return conform(counts, COVERAGE).sort(keys)


BUNDLED_RULES = Path(__file__).parent / "defaults" / "metric_rules.csv"
USER_RULES_NAME = "metric_rules.csv"
DECLARED_RULES_NAME = "declared_metric_rules.csv"


def metric_rule_files(warehouse: Warehouse) -> list[Path]:
    """The metric rule files in precedence order: the user's (``<home>/metric_rules.csv``), the directions declared
    at ingest (``<home>/declared_metric_rules.csv``, :meth:`Warehouse.declare_metric_rules`), the bundled defaults."""
    home = warehouse.home
    return [f for f in (home / USER_RULES_NAME, home / DECLARED_RULES_NAME, BUNDLED_RULES) if f.exists()]


def read_metric_rules(warehouse: Warehouse) -> list[tuple[str, pl.DataFrame]]:
    """The metric rule files in precedence order (:func:`metric_rule_files`), read with their lines."""
    return [(str(f), _rules_with_lines(f)) for f in metric_rule_files(warehouse)]


def _rules_with_lines(path: Path) -> pl.DataFrame:
    """A rules file's rows (text cells) with ``line``, the file line each rule is on, so an error
    can point at it.  Comment (``#``) and blank lines are not rules; when a quoted cell spans
    lines the count no longer matches and ``line`` is left null."""
    rules = pl.read_csv(path, infer_schema=False, comment_prefix="#")
    rules = rules.filter(~pl.all_horizontal(pl.all().is_null()))  # Polars reads a blank line as a row of nulls
    text_lines = path.read_text(encoding="utf-8-sig").splitlines()
    data = [n for n, line in enumerate(text_lines, start=1) if line.strip() and not line.startswith("#")][1:]
    lines = data if len(data) == rules.height else [None] * rules.height
    return rules.with_columns(line=pl.Series(lines, dtype=pl.Int64))
