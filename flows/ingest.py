"""The ingest flow: files or folders in, committed loads and a fresh catalog out.

The files already loaded are found first, all at once (:mod:`flows.ingest_plan`);
the others are read in batches, one task run each: archive the bytes, parse,
validate, write the batch's loads (retried on I/O errors only: the same bytes
parse the same way; idempotent because every write goes to the batch's own
paths atomically).  A file that cannot be parsed is recorded as rejected and
the other files go on.
Re-ingesting the same bytes with the same format and benchmark is a no-op:
the load id is a hash of exactly those and of the format's parser version.
A file already loaded by an older parser version stays as it is unless
re-parsed (:mod:`flows.reparse`, ``--reparse``).

Where each step lives: the plan of the run (which files to read, in which
batches) is :mod:`flows.ingest_plan`; a batch's read (archive, parse, record) is
:mod:`flows.ingest_read`; its validation :mod:`flows.ingest_validate`; this module
runs the batches, commits each (:func:`ingest_batch`) and indexes the files.
"""

from __future__ import annotations

import errno
import gc
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

import polars as pl

from scorehouse import runtime
from scorehouse.aggregators.errors import NotFoundError
from scorehouse.transforms.catalog import declared_rules
from scorehouse.transforms.parsers import FORMATS
from scorehouse.transforms.parsers.base import BATTLES_TABLE, SCORES_TABLE
from scorehouse.transforms.slices import repeated
from scorehouse.transforms.validate import reason_counts_per
from scorehouse.flows.catalog_state import checked_metric_rules, ensure_current_catalog, has_committed
from scorehouse.flows.common import refresh_catalog
from scorehouse.flows.ingest_plan import BATCH_FILES, FilePlan, batches, indexed_rows, plan_files, reading_keys
from scorehouse.flows.ingest_read import FileOutcome, ParsedFile, place_of, read_files
from scorehouse.flows.ingest_validate import (
    battle_load, fail_all_quarantined, reconciled_layouts, validated_loads,
)
from scorehouse.flows.lineage import ReparseError, benchmark_option, lineage_notices, mapping_of, stale_loads
from scorehouse.flows.progress import progress as progress_of
from scorehouse.warehouse.file_index import record_files
from scorehouse.warehouse.home_format import HOME_FORMAT, home_format, migrate
from scorehouse.warehouse.names import check_benchmark_name
from scorehouse.warehouse.raw_archive import RawMissingError
from scorehouse.warehouse.storage import Warehouse

# Files in a data folder that document it rather than hold scores.
DOCUMENT_NAMES = ("readme", "provenance", "license", "licence", "notice", "changelog")
UNREADABLE = "a file without read permission"


@dataclass
class IngestReport:
    """The outcome of one ingest run."""

    files: list[FileOutcome] = field(default_factory=list)
    skipped_documents: list[str] = field(default_factory=list)
    stale_loads: int = 0  # current loads made by an older parser version, left as they are

    @property
    def notices(self) -> list[str]:
        """Loads re-parsed, or left to an older parser."""
        return lineage_notices(sum(f.status == "loaded" and f.reparsed for f in self.files), self.stale_loads)

    @property
    def rejected_files(self) -> list[FileOutcome]:
        return [f for f in self.files if f.status == "rejected"]

    @property
    def rows_quarantined(self) -> int:
        return sum(f.rows_quarantined for f in self.files)

    @property
    def ok(self) -> bool:
        """True when no file was rejected (:func:`files_ok`)."""
        return files_ok(self.files)


def files_ok(files: list[FileOutcome], strict: bool = False) -> bool:
    """Whether a run of these files succeeded: the one rule of the exit codes and of the flows' log level.

    Every file landed, was already there, or was skipped as holding no scores.
    Quarantined rows are warnings (they stay queryable in ``quarantine``), not a
    failure, unless ``strict``.
    """
    if any(f.status == "rejected" for f in files):
        return False
    return not (strict and any(f.rows_quarantined for f in files))


def log_outcome(files: list[FileOutcome]) -> None:
    """Log, in the flow run, rejected files as an error and quarantined rows as a warning (the run stays Completed)."""
    rejected = sum(f.status == "rejected" for f in files)
    quarantined = sum(f.rows_quarantined for f in files)
    if not files_ok(files):
        runtime.log_error(f"{rejected} file(s) rejected")
    if quarantined:
        runtime.log_warning(f"{quarantined} row(s) quarantined: see the quarantine view")


def what_it_is(path: Path) -> str | None:
    """None for a regular file (or a link to one) that can be read; otherwise what ``path`` is, said for the report.

    Only regular files are read: a FIFO or a device (a link to ``/dev/zero``) would make a read hang or never end.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a broken symbolic link"
    except OSError as error:  # a link loop (ELOOP), a folder without search permission ...
        return "a symbolic link loop" if error.errno == errno.ELOOP else f"not readable ({error.strerror})"
    if stat.S_ISREG(mode):
        return None if os.access(path, os.R_OK) else UNREADABLE
    kinds = {stat.S_ISFIFO: "a FIFO (named pipe)", stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device",
             stat.S_ISSOCK: "a socket", stat.S_ISDIR: "a folder"}
    return next((name for test, name in kinds.items() if test(mode)), "not a regular file")


def not_read(path: Path, kind: str) -> FileOutcome:
    """The outcome of an entry that is not read: skipped, saying what it is; a file the user may not read is
    rejected (its scores exist and did not land)."""
    if kind == UNREADABLE:
        return FileOutcome(str(path), "rejected", error=f"{path}: {kind}; not read")
    return FileOutcome(str(path), "skipped", error=f"{path}: {kind}, not a regular file; not read")


def walk_folder(folder: Path) -> tuple[list[Path], list[FileOutcome]]:
    """The files under ``folder`` (sorted, hidden ones left out) and the entries skipped with why.

    Symbolic links that lead out of ``folder`` are not followed (a link may point anywhere:
    reading it would ingest, and archive, what the folder does not hold), nor links to folders (a link
    to a parent is a cycle) or link loops: each is reported, and the walk goes on.
    """
    root = folder.resolve()
    files: list[Path] = []
    skipped: list[FileOutcome] = []
    for entry in sorted(folder.rglob("*")):  # rglob descends real folders only, never a link to one
        if entry.name.startswith("."):
            continue
        kind = what_it_is(entry)
        if kind == "a symbolic link loop":
            skipped.append(not_read(entry, kind))
        elif entry.is_symlink() and not entry.resolve().is_relative_to(root):  # rglob's own folders are in it
            skipped.append(FileOutcome(str(entry), "skipped", error=f"{entry}: a symbolic link leading out of {folder}; not followed"))
        elif kind == "a folder" and entry.is_symlink():
            skipped.append(FileOutcome(str(entry), "skipped", error=f"{entry}: a symbolic link to a folder; not followed "
                                       "(give the folder itself to ingest it)"))
        elif kind is None:
            files.append(entry)
        elif kind != "a folder":
            skipped.append(not_read(entry, kind))
    return files, skipped


def expand_paths(paths: list[str | Path]) -> tuple[list[Path], list[Path], list[FileOutcome]]:
    """Files to ingest (folders walked, sorted), documentation files found in a folder skipped (given by name, a
    README is read like any file), and entries that are not
    regular files (FIFOs, devices, broken links, link loops, links out of a given folder), skipped with what they
    are, or rejected when they cannot be read."""
    files: list[Path] = []
    skipped: list[FileOutcome] = []
    for path in map(Path, paths):
        if path.is_dir():
            found, passed = walk_folder(path)
            files.extend(found)
            skipped.extend(passed)
        elif path.exists() or path.is_symlink():
            kind = what_it_is(path)
            if kind is None:
                files.append(path)
            else:
                skipped.append(not_read(path, kind))
        else:
            raise NotFoundError(f"no such file or folder: {path}")
    named = {Path(p) for p in paths}
    documents = [f for f in files if f not in named and f.stem.lower().startswith(DOCUMENT_NAMES)
                 and f.suffix.lower() in (".md", ".txt", "")]
    return [f for f in files if f not in documents], documents, skipped


def no_scores_from_named(outcome: FileOutcome) -> FileOutcome:
    """A file given by name that was read and skipped as holding no scores, as a failure of the run: the user named it
    to be ingested.  Inside a folder, the same file is skipped and the run goes on.  (An entry given by name that is
    no regular file, a FIFO or a link loop, is not read: it stays skipped, reported.)"""
    why = (outcome.error or outcome.path).removeprefix(f"{outcome.path}: ")
    return replace(outcome, status="rejected", error=(
        f"{outcome.path}: given by name, it yields no scores ({why}); name its format (--format) or its columns "
        "(--system, --score or --score-columns ...), or leave it out"))


def walked_places(paths: list[str | Path], files: list[Path]) -> dict[Path, str]:
    """The files of ``files`` found by walking a folder of ``paths``, each with its path relative to that folder (the
    first such folder of ``paths``): its place as a source (:func:`flows.ingest_plan.places`)."""
    folders = [Path(p) for p in paths if Path(p).is_dir()]
    out: dict[Path, str] = {}
    for file in files:
        folder = next((f for f in folders if file.is_relative_to(f)), None)
        if folder is not None and file not in out:
            out[file] = file.relative_to(folder).as_posix()
    return out


@runtime.step(io=True)
def ingest_batch(
    warehouse: Warehouse, plans: list[FilePlan], format: str | None, benchmark: str | None, trust_pickle: bool,
    reparse: bool = False, columns: dict[str, str] | None = None, archived: frozenset[str] | None = None,
) -> list[FileOutcome]:
    """A batch of files as one task run: each archived, parsed and validated, then all committed together.

    One task run per batch rather than per file: Prefect's bookkeeping of a
    run (about 0.3 s) costs more than reading a small file, and a batch is one
    unit to retry or to send to a Dask worker.  A format of many small files
    reads the batch's files in one call (:func:`flows.ingest_read.parse_prepared`); either way a
    file that cannot be parsed is that file's outcome (``rejected``), never
    the batch's; the rows of the batch are validated at once, each within its
    own load (:func:`transforms.validate.validate_loads`).  Files of battles
    are validated and committed each as a load of its own beside the scores
    (:meth:`warehouse.storage.Warehouse.write_battles_load`).  Retried only on I/O
    errors, and safely: the archive is content-addressed and the batch's files
    are named by its loads and written atomically.  Each file's bytes are read once into the batch's raw stage
    and archived by the commit that names them (:mod:`warehouse.raw_archive`); ``archived``: the batch's hashes
    the raw archive holds already (None: read here).
    """
    batch = warehouse.for_batch(archived)
    try:
        return commit_batch(batch, plans, format, benchmark, trust_pickle, reparse, columns)
    finally:  # the bytes of files that did not commit (skipped, failed, a full disk) go with the batch
        batch.discard_raw()


def one_load_per_source(
    warehouse: Warehouse, read: list[tuple[FileOutcome, ParsedFile | None]], reparse: bool,
) -> list[tuple[FileOutcome, ParsedFile | None]]:
    """``read`` with each later file of a source the batch loads already rejected, naming both files: two files of one
    run that are one source (one name given twice, one path under two folders given), whose later load would
    supersede the earlier's in the same run and hide it (:func:`flows.ingest_plan.batches` puts the files of one
    place in one batch).  Not settled: ingested alone, or from a folder that tells them apart, the file loads."""
    first: dict[str, str] = {}
    out = []
    for outcome, new in read:
        if new is not None and first.setdefault(new.record.source, outcome.path) != outcome.path:
            problem = (f"the same source as {first[new.record.source]} in this run ({new.record.source}), so its load "
                       "would hide that one's: ingest the folder that holds both (a source is the path below the folder "
                       "given), or the two files in separate runs if one corrects the other")
            warehouse.record_rejected(outcome.path, new.record.sha256, None, problem)
            out.append((FileOutcome(outcome.path, "rejected", error=f"{outcome.path}: {problem}", reparsed=reparse),
                        None))
        else:
            out.append((outcome, new))
    return out


def commit_batch(
    warehouse: Warehouse, plans: list[FilePlan], format: str | None, benchmark: str | None, trust_pickle: bool,
    reparse: bool, columns: dict[str, str] | None,
) -> list[FileOutcome]:
    """:func:`ingest_batch`'s work: read the files, validate them outside the lock, commit them under it."""
    read = one_load_per_source(warehouse, read_files(warehouse, plans, format, benchmark, trust_pickle, reparse, columns),
                               reparse)
    outcomes = [outcome for outcome, _ in read]
    made = [(outcome, new) for outcome, new in read if new is not None]
    scores = [(outcome, new) for outcome, new in made if new.parsed.table == SCORES_TABLE]
    battles = [(outcome, battle_load(new)) for outcome, new in made if new.parsed.table == BATTLES_TABLE]
    if not made:
        return outcomes
    # Checked and validated outside the lock (readers and other writers never wait for it); the
    # lock is held to commit only.  Layouts stored by a batch committed meanwhile must be among
    # those the segment files are checked against: then the check is made again under the lock.
    before = warehouse.committed_batches()
    checked = reconciled_layouts(warehouse, scores)
    validated = validated_loads([new for _, new in checked]) if checked else []
    with warehouse.write_lock():
        if checked is not scores and warehouse.committed_batches() != before:
            checked = reconciled_layouts(warehouse, scores)
            validated = validated_loads([new for _, new in checked])
        scores = checked
        warehouse.write_loads(validated)
        for _, (record, checked) in battles:
            warehouse.write_battles_load(record, checked.battles, checked.quarantine)
    landed = [(outcome, new.record, new.quarantine) for (outcome, _), new in zip(scores, validated, strict=True)]
    landed += [(outcome, record, checked.quarantine) for outcome, (record, checked) in battles]
    held = [(index, quarantine.get_column("reason")) for index, (_, _, quarantine) in enumerate(landed) if quarantine.height]
    reasons = reason_counts_per(
        pl.concat([column for _, column in held]),
        repeated(pl.Series([index for index, _ in held], dtype=pl.UInt32), [column.len() for _, column in held]),
    ) if held else {}
    warehouse.forget_rejected(record.sha256 for _, record, _ in landed)  # first: a file all quarantined is recorded again
    for index, (outcome, record, _) in enumerate(landed):
        outcome.rows_landed, outcome.rows_quarantined = record.rows_landed, record.rows_quarantined
        outcome.quarantine_reasons = reasons.get(index, {})
        if record.rows_quarantined and not record.rows_landed:
            fail_all_quarantined(warehouse, outcome, record)
    return outcomes


def still_failed(warehouse: Warehouse, unchanged: list[FileOutcome]) -> None:
    """Mark rejected the ``unchanged`` files whose load quarantined every row: ingesting them again changes nothing,
    and is the same failure (:func:`fail_all_quarantined`), not a success."""
    if not unchanged:
        return
    empty = warehouse.manifests().filter(
        pl.col("load_id").is_in([o.load_id for o in unchanged]) & (pl.col("rows_landed") == 0)
        & (pl.col("rows_quarantined") > 0))
    counts = dict(empty.select("load_id", "rows_quarantined").iter_rows())
    for outcome in unchanged:
        if outcome.load_id in counts:
            outcome.status = "rejected"
            outcome.error = (f"{outcome.path}: already loaded, and every one of its {counts[outcome.load_id]} row(s) "
                             "was quarantined; see the quarantine views, and read it with other options")


@contextmanager
def kept_out_of_collections() -> Iterator[Callable[[], None]]:
    """The objects of a run made so far (its plans, each batch's outcomes: millions for MTEB's 104,000 files) kept
    out of Python's cycle collections until the run ends, by a function to call after each batch.

    They live until the end of the run, yet every full collection scanned them all again (0.3 s each, 6.5 s of the
    whole repository's ingest).  Each call collects what is garbage first (only the objects made since the last
    call are scanned), so no garbage cycle is kept; the objects go back to the collector when the run ends.
    """
    def keep() -> None:
        gc.collect()
        gc.freeze()

    keep()
    try:
        yield keep
    finally:
        gc.unfreeze()


def ingest_files(
    warehouse: Warehouse,
    files: list[Path],
    format: str | None,
    benchmark: str | None,
    trust_pickle: bool,
    progress: bool,
    parallel: bool = False,
    reparse: bool = False,
    origins: list[str] | None = None,
    batch_files: int = BATCH_FILES,
    columns: dict[str, str] | None = None,
    walked: Mapping[Path, str] = MappingProxyType({}),
    placed: Mapping[Path, str] = MappingProxyType({}),
) -> list[FileOutcome]:
    """Ingest ``files`` in order, with optional progress on stderr (:mod:`flows.progress`), counted in files.

    The files already loaded are found first, for all files at once (:func:`flows.ingest_plan.plan_files`);
    the others are read in batches of up to ``batch_files`` files, one task each, submitted to the flow's
    task runner with ``parallel``.  The metric rules are checked first: a bad rules file raises
    :class:`transforms.catalog.MetricRulesError` before any file is archived or loaded, rather than at the
    catalog rebuild after the loads committed.  ``origins`` are the files the bytes came from when
    ``files`` are staged copies of the raw archive; ``walked`` are the files found by walking a folder
    (:func:`rejected`), each with its place there (:func:`walked_places`); ``placed`` the place of other files
    (:func:`flows.ingest_plan.plan_files`).  A load that supersedes an earlier run's
    load of its source says which, in its outcome (``replaced``).
    """
    checked_metric_rules(warehouse)
    warehouse.remove_dead_raw()
    if files and has_committed(warehouse) and home_format(warehouse) < HOME_FORMAT:  # its sources, before the plan
        with warehouse.write_lock():
            migrate(warehouse)
    manifests = warehouse.manifests()
    plans = plan_files(warehouse, files, origins or [str(f) for f in files], format, benchmark, trust_pickle, reparse,
                       columns, walked, manifests, placed)
    # by the plan's place: the same path given twice is two plans, the second "same" as the first
    outcomes: list[FileOutcome | None] = [
        FileOutcome(p.origin, "unchanged", p.load_id, p.format, parser_version=p.parser_version)
        if p.action == "unchanged"
        else FileOutcome(p.origin, p.outcome, error=p.message, reparsed=reparse, settled=True)
        if p.action == "known" else None
        for p in plans
    ]
    still_failed(warehouse, [o for o in outcomes if o is not None])
    place = {id(plan): index for index, plan in enumerate(plans)}
    grouped = batches(plans, batch_files)
    if grouped and home_format(warehouse) < HOME_FORMAT:  # before the first raw pack, which older code cannot read
        with warehouse.write_lock():
            migrate(warehouse)
    archived = warehouse.archived_raw() if grouped else frozenset()  # once per run, not per batch
    work = [(warehouse, batch, format, benchmark, trust_pickle, reparse, columns,
             archived.intersection(plan.sha for plan in batch)) for batch in grouped]
    with progress_of("ingest", len(plans), progress and not parallel) as done, kept_out_of_collections() as keep:
        for plan in plans:
            if plan.action in ("unchanged", "known"):
                done(f"{plan.path.name} {plan.outcome or plan.action}")
        if parallel:
            results = runtime.map_steps(ingest_batch, work, True)
        else:
            results = []
            for arguments in work:
                results.append(runtime.call(ingest_batch, *arguments))
                keep()
                for outcome in results[-1]:
                    done(f"{Path(outcome.path).name} {outcome.status}")
        for batch, batch_outcomes in zip(grouped, results, strict=True):
            for plan, outcome in zip(batch, batch_outcomes, strict=True):
                outcomes[place[id(plan)]] = outcome
        for index, plan in enumerate(plans):
            if plan.action == "same":
                first = outcomes[plan.same_as]
                status = "unchanged" if first.status == "loaded" else first.status
                outcomes[index] = replace(first, path=plan.origin, status=status, benchmarks=(), rows_in=0,
                                          rows_landed=0, rows_quarantined=0, quarantine_reasons={}, problems=())
                done(f"{plan.path.name} {status}")
    outcomes = with_replaced(warehouse, outcomes, manifests)
    formats = [o.format if o.status in ("loaded", "unchanged") else None for o in outcomes]
    settled = [(o.status, o.error) if o.settled and o.status in ("skipped", "rejected") else None for o in outcomes]
    with warehouse.write_lock():
        record_files(warehouse.home, indexed_rows(plans, formats, settled,
                                                  reading_keys(format, benchmark, trust_pickle, columns)))
    return outcomes


def with_replaced(warehouse: Warehouse, outcomes: list[FileOutcome], before: pl.DataFrame) -> list[FileOutcome]:
    """``outcomes`` with each new load that replaced an earlier run's current load of its source saying which
    (``before``: the manifests as the run found them)."""
    loaded = {o.load_id for o in outcomes if o.status == "loaded" and o.load_id}
    if not loaded or before.height == 0:
        return outcomes
    sources = warehouse.manifests().filter(pl.col("load_id").is_in(list(loaded))).select("load_id", "source")
    earlier = before.filter("is_current").select("source", replaced="load_id", replaced_file="file_name")
    found = {load: (old, file) for load, old, file in sources.join(earlier, on="source").select(
        "load_id", "replaced", "replaced_file").iter_rows() if old != load}
    return [replace(o, replaced=f"load {found[o.load_id][0]} of {found[o.load_id][1]}") if o.load_id in found else o
            for o in outcomes]


def reparse_stale(warehouse: Warehouse, trust_pickle: bool) -> list[FileOutcome]:
    """Re-derive every current load an older parser made, from its archived bytes.

    Each load read on its raw bytes staged under the original file and folder names, so the original
    may be gone (tens of files, not instances: one batch each).
    """
    outcomes: list[FileOutcome] = []
    for load in stale_loads(warehouse).iter_rows(named=True):
        if FORMATS[load["format"]].needs_trust and not trust_pickle:
            outcomes.append(FileOutcome(
                load["file_name"], "skipped", load["load_id"], load["format"], parser_version=load["parser_version"],
                reparsed=True, error=f"{load['file_name']}: re-parsing it runs code; run 'scorehouse ingest --reparse --trust-pickle'",
            ))
            continue
        try:
            option = benchmark_option(load)
            with warehouse.staged_raw(load["sha256"], load["file_name"]) as staged:
                outcomes.extend(ingest_files(warehouse, [staged], load["format"], option, trust_pickle, False,
                                             reparse=True, origins=[load["file_name"]], columns=mapping_of(load),
                                             placed={staged: place_of(load["source"])}))
        except (ReparseError, RawMissingError) as error:
            outcomes.append(FileOutcome(load["file_name"], "rejected", load["load_id"], load["format"], error=str(error),
                                        parser_version=load["parser_version"], reparsed=True))
    return outcomes


def declare_directions(warehouse: Warehouse, files: list[FileOutcome], higher_is_better: bool) -> None:
    """Declare ``higher_is_better`` for every (benchmark, task, metric) the loads of ``files`` scored.

    Kept as metric rules of their own (:meth:`warehouse.storage.Warehouse.declare_metric_rules`), after the
    user's ``metric_rules.csv`` and before the bundled defaults; a later declaration of a key replaces the earlier.
    """
    loads = {f.load_id: f.path for f in files if f.status in ("loaded", "unchanged") and f.load_id}
    keys = warehouse.current_coverage().filter(pl.col("load_id").is_in(list(loads)))
    if keys.height == 0:
        return
    with warehouse.write_lock():
        warehouse.declare_metric_rules(declared_rules(keys, higher_is_better))


def refresh_catalog_after(warehouse: Warehouse, outcomes: list[FileOutcome]) -> None:
    """Rebuild the catalog when a file was loaded, when there is none yet (so queries work after any ingest),
    or when it does not match the committed state (a run that died between a commit and its rebuild)."""
    if any(f.status == "loaded" for f in outcomes) or not warehouse.catalog_path.exists():
        runtime.call(refresh_catalog, warehouse)
    else:
        ensure_current_catalog(warehouse)


@runtime.flow("ingest")
def ingest_flow(
    paths: list[str],
    home: str | None = None,
    format: str | None = None,
    benchmark: str | None = None,
    trust_pickle: bool = False,
    progress: bool = False,
    parallel: bool = False,
    reparse: bool = False,
    columns: dict[str, str] | None = None,
    higher_is_better: bool | None = None,
    batch_files: int = BATCH_FILES,
    places: dict[str, str] | None = None,
) -> IngestReport:
    """Ingest ``paths`` (files or folders) into the warehouse at ``home``.

    ``parallel`` submits one task per batch of files to the flow's task runner (see
    the runtime's --runner dask, :mod:`scorehouse.runtime`).  ``reparse`` then re-derives
    the current loads an older parser version made (:func:`reparse_stale`);
    without it the report counts them.  ``columns`` maps roles to the files' column names
    (role -> column, e.g. ``{"model_a": "left"}`` for battles, ``{"system": "model", ...}`` for a user's
    table, :mod:`transforms.parsers.user_table`) for formats that take a mapping;
    ``higher_is_better`` then declares the direction of every metric a user's table holds
    (:func:`declare_directions`).  ``batch_files`` bounds the files read per task
    (:mod:`flows.ingest_plan`; 1 reads each file in a task of its own, with the same outcome).  A file is a
    source by its place: its path below the folder of ``paths`` it was found in, or its name when given by name;
    ``places`` gives the place of files that the caller found by walking a folder itself (file -> place).
    """
    if benchmark is not None:
        check_benchmark_name(benchmark)  # before anything starts: it would name every file's partition
    warehouse = Warehouse(home)
    files, documents, skipped = expand_paths(paths)
    report = IngestReport(skipped_documents=[str(d) for d in documents])
    walked = {**walked_places(paths, files), **{Path(f): place for f, place in (places or {}).items()}}
    named = {str(Path(p)) for p in paths} - {str(f) for f in walked}
    report.files = skipped + [
        no_scores_from_named(f) if f.status == "skipped" and f.path in named else f
        for f in ingest_files(warehouse, files, format, benchmark, trust_pickle, progress, parallel,
                              batch_files=batch_files, columns=columns, walked=walked)]
    if higher_is_better is not None:
        declare_directions(warehouse, report.files, higher_is_better)
    if reparse:
        report.files += reparse_stale(warehouse, trust_pickle)
    else:
        report.stale_loads = stale_loads(warehouse).height
    refresh_catalog_after(warehouse, report.files)
    log_outcome(report.files)
    return report
