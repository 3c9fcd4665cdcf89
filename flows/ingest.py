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
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from scorehouse import runtime
from scorehouse.aggregators.errors import NotFoundError, ScorehouseError
from scorehouse.transforms.catalog import declared_rules
from scorehouse.transforms.parsers import FORMATS, Format, ParseError, UnrecognisedFormatError, choose_format
from scorehouse.transforms.parsers.base import BATTLES_TABLE, SCORES_TABLE, NotScoresError, Parsed
from scorehouse.transforms.segment_layouts import reconcile
from scorehouse.transforms.validate import reason_counts_per, validate_loads
from scorehouse.transforms.validate_battles import ValidatedBattles, validate_battles
from scorehouse.flows.catalog_state import checked_metric_rules, ensure_current_catalog
from scorehouse.flows.common import refresh_catalog
from scorehouse.flows.ingest_plan import BATCH_FILES, FilePlan, batches, indexed_rows, plan_files, reading_keys
from scorehouse.flows.lineage import (
    ReparseError, benchmark_option, folder_of, lineage_notices, load_id_of, mapping_of, stale_loads,
)
from scorehouse.flows.progress import progress as progress_of
from scorehouse.warehouse.file_index import record_files
from scorehouse.warehouse.names import check_benchmark_name
from scorehouse.warehouse.schema import QUARANTINE, SCORES
from scorehouse.warehouse.storage import LoadRecord, NewLoad, RawMissingError, Warehouse

# Files in a data folder that document it rather than hold scores.
DOCUMENT_NAMES = ("readme", "provenance", "license", "licence", "notice", "changelog")


@dataclass
class FileOutcome:
    """What happened to one input file."""

    path: str
    status: str  # "loaded", "unchanged", "skipped" (a known file without scores), "rejected"
    load_id: str | None = None
    format: str | None = None
    benchmarks: tuple[str, ...] = ()
    rows_in: int = 0
    rows_landed: int = 0
    rows_quarantined: int = 0
    quarantine_reasons: dict[str, int] = field(default_factory=dict)  # rows per reason class
    problems: tuple[str, ...] = ()
    error: str | None = None
    parser_version: int | None = None  # of the load made or found
    reparsed: bool = False  # re-derived from the raw archive by ``--reparse``
    settled: bool = False  # skipped or rejected for what its bytes are: the same file is not read again


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
    """None for a regular file (or a link to one); otherwise what ``path`` is, said for the report.

    Only regular files are read: a FIFO or a device (a link to ``/dev/zero``) would make a read hang or never end.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a broken symbolic link"
    if stat.S_ISREG(mode):
        return None
    kinds = {stat.S_ISFIFO: "a FIFO (named pipe)", stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device",
             stat.S_ISSOCK: "a socket", stat.S_ISDIR: "a folder"}
    return next((name for test, name in kinds.items() if test(mode)), "not a regular file")


def walk_folder(folder: Path) -> tuple[list[Path], list[FileOutcome]]:
    """The files under ``folder`` (sorted, hidden ones left out) and the entries skipped with why.

    Symbolic links that lead out of ``folder`` are not followed (a link may point anywhere:
    reading it would ingest, and archive, what the folder does not hold).
    """
    root = folder.resolve()
    files: list[Path] = []
    skipped: list[FileOutcome] = []
    for entry in sorted(folder.rglob("*")):
        if entry.name.startswith("."):
            continue
        if not entry.resolve().is_relative_to(root):
            skipped.append(FileOutcome(str(entry), "skipped", error=f"{entry}: a symbolic link leading out of {folder}; not followed"))
            continue
        kind = what_it_is(entry)
        if kind is None:
            files.append(entry)
        elif kind != "a folder":
            skipped.append(FileOutcome(str(entry), "skipped", error=f"{entry}: {kind}, not a regular file; not read"))
    return files, skipped


def expand_paths(paths: list[str | Path]) -> tuple[list[Path], list[Path], list[FileOutcome]]:
    """Files to ingest (folders walked, sorted), documentation files skipped, and entries that are not
    regular files (FIFOs, devices, broken links, links out of a given folder), skipped with what they are."""
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
                skipped.append(FileOutcome(str(path), "skipped", error=f"{path}: {kind}, not a regular file; not read"))
        else:
            raise NotFoundError(f"no such file or folder: {path}")
    documents = [f for f in files if f.stem.lower().startswith(DOCUMENT_NAMES) and f.suffix.lower() in (".md", ".txt", "")]
    return [f for f in files if f not in documents], documents, skipped


def source_name(path: Path, fmt: Format) -> str:
    """The file as a source: its name, with its folder for formats that take names from it."""
    folder = fmt.folder(path)
    return path.name if folder is None else f"{folder}/{path.name}"


def load_record(
    path: Path, fmt: Format, parsed: Parsed, load_id: str, sha: str, origin: str, reverts: str | None = None,
    columns: dict[str, str] | None = None,
) -> tuple[LoadRecord, tuple[str, ...]]:
    """The manifest of the load of ``path`` (row counts of the validation to come) from what ``fmt`` parsed,
    and the problems to report; ``origin`` is the file it came from, ``reverts`` the earlier load of the same
    bytes this load makes current again, ``columns`` the user's column mapping (role -> the file's column)
    for formats that take one.  Raises when the rows cannot name a partition."""
    named = parsed.benchmarks
    for name in named:  # each names a partition folder (a query of the rows' benchmarks per file, not two)
        check_benchmark_name(name)
    benchmarks = ",".join(named)
    record = LoadRecord(
        load_id=load_id,
        source=f"{fmt.name}:{benchmarks}:{source_name(path, fmt)}",
        file_name=origin,
        sha256=sha,
        format=fmt.name,
        parser_version=fmt.parser_version,
        benchmark=benchmarks,
        rows_in=parsed.rows.height,
        rows_landed=0,
        rows_quarantined=0,
        reverts=reverts,
        columns=json.dumps(columns, sort_keys=True) if columns else None,
    )
    problems = parsed.problems + ((f"reverts its source to load {reverts}",) if reverts else ())
    return record, problems


def rejected(
    warehouse: Warehouse, origin: str, sha: str, error: Exception, reparse: bool, in_folder: bool = False,
) -> FileOutcome:
    """The outcome of a file whose bytes could not be read, detected, parsed or named: recorded, never raised.

    Only this file's bytes were being read, so whatever it raised (a parse error, a Polars
    cast of a malformed column, a benchmark name that cannot name a partition, an input
    limit, an unreadable or corrupt stream) is this file's rejection with the reason, and
    the other files of the run go on.  A file recognised as holding no scores is skipped, and so is a file
    ``in_folder`` (found by walking a folder given to ingest, or an inbox) that no format recognises and that
    reads as text or bears no score extension: folders of results hold run logs and settings beside the
    scores.  Given by name, such a file stays an error.
    """
    settled = isinstance(error, ParseError)  # the bytes' fault (or the options'), not a passing I/O error
    if isinstance(error, NotScoresError):
        return FileOutcome(origin, "skipped", error=error.message_for(origin), reparsed=reparse, settled=settled)
    if isinstance(error, UnrecognisedFormatError) and in_folder and error.skippable:
        return FileOutcome(origin, "skipped", error=f"{origin}: not a score file (unrecognised)",
                           reparsed=reparse, settled=settled)
    if isinstance(error, ParseError):
        line, problem, message = error.line, error.problem, error.message_for(origin)
    else:
        line, problem = None, f"{type(error).__name__}: {error}"
        message = f"{origin}: {problem}"
    warehouse.record_rejected(origin, sha, line, problem)
    return FileOutcome(origin, "rejected", error=message, reparsed=reparse, settled=settled)


@dataclass(frozen=True)
class ParsedFile:
    """A file's load before validation: its manifest, what the parser read, and when (its ``loaded_at``)."""

    record: LoadRecord
    parsed: Parsed
    read_at: datetime


class FileChangedError(ScorehouseError, OSError):
    """A file whose bytes changed between the plan of the run and its read."""

    retryable = True


@dataclass(frozen=True)
class Prepared:
    """A file of a batch archived and its format chosen: what its parse needs."""

    plan: FilePlan
    fmt: Format
    load_id: str


def prepare_file(
    warehouse: Warehouse, plan: FilePlan, format: str | None, benchmark: str | None, trust_pickle: bool, reparse: bool,
    columns: dict[str, str] | None,
) -> Prepared | FileOutcome:
    """Archive one file and choose its format and load id; its rejection when that fails."""
    sha = warehouse.archive_raw(plan.path)
    if sha != plan.sha:
        error = FileChangedError(f"the file changed while it was being ingested; ingest {plan.origin} again")
        return rejected(warehouse, plan.origin, sha, error, reparse, plan.in_folder)
    try:
        fmt = choose_format(plan.path, format=format, trust_pickle=trust_pickle)
        load_id = plan.load_id or load_id_of(
            sha, fmt.name, benchmark, folder_of(plan.path, fmt), fmt.parser_version, columns)
    except Exception as error:  # noqa: BLE001 - any failure on this file's bytes is its rejection
        return rejected(warehouse, plan.origin, sha, error, reparse, plan.in_folder)
    return Prepared(plan, fmt, load_id)


def parse_prepared(
    prepared: list[Prepared], benchmark: str | None, columns: dict[str, str] | None,
) -> list[Parsed | Exception]:
    """What each prepared file parses to, or what it raised: the files of a format that reads batches
    (:attr:`transforms.parsers.base.Format.parse_batch`) in one call, the others one by one."""
    out: list[Parsed | Exception | None] = [None] * len(prepared)
    together: dict[str, list[int]] = {}
    alone: list[int] = []
    for i, item in enumerate(prepared):
        if item.fmt.parse_batch is not None and not columns:
            together.setdefault(item.fmt.name, []).append(i)
        else:
            alone.append(i)
    # The batches first: what they read is then known to the files read alone (an MTEB model_meta.json compares
    # the versions of its model's results, :func:`transforms.parsers.mteb.result_version`).
    for places in together.values():
        fmt = prepared[places[0]].fmt
        try:
            results: list[Parsed | Exception] = list(fmt.parse_batch([prepared[i].plan.path for i in places], benchmark))
        except Exception as error:  # noqa: BLE001 - a failure of the batch parser is each of its files' rejection
            results = [error] * len(places)
        for i, result in zip(places, results, strict=True):
            out[i] = result
    for i in alone:
        try:
            out[i] = prepared[i].fmt.read(prepared[i].plan.path, benchmark, columns)
        except Exception as error:  # noqa: BLE001 - any failure on this file's bytes is its rejection
            out[i] = error
    return out


def read_files(
    warehouse: Warehouse, plans: list[FilePlan], format: str | None, benchmark: str | None, trust_pickle: bool,
    reparse: bool, columns: dict[str, str] | None = None,
) -> list[tuple[FileOutcome, ParsedFile | None]]:
    """The files of a batch: each archived and parsed; its outcome and the load to commit (None when there is none).

    Bytes already loaded by an older parser version of the format were planned
    ``unchanged`` unless ``reparse`` (:mod:`flows.ingest_plan`); a file read here
    makes a load of the current version, or the revert its plan names.  ``columns`` maps roles to the
    file's columns (``--model-a COL``, ``--system COL`` ...; read by a format that takes a mapping,
    ``battles`` or ``user-table``): part of the load's identity, so the same bytes read with another
    mapping are another load.
    """
    steps = [prepare_file(warehouse, plan, format, benchmark, trust_pickle, reparse, columns) for plan in plans]
    prepared = [step for step in steps if isinstance(step, Prepared)]
    parsed = dict(zip(map(id, prepared), parse_prepared(prepared, benchmark, columns), strict=True))
    out: list[tuple[FileOutcome, ParsedFile | None]] = []
    for step in steps:
        if isinstance(step, FileOutcome):
            out.append((step, None))
            continue
        plan, result = step.plan, parsed[id(step)]
        try:
            if isinstance(result, Exception):
                raise result
            record, problems = load_record(plan.path, step.fmt, result, step.load_id, plan.sha, plan.origin,
                                           plan.reverts, columns)
        except Exception as error:  # noqa: BLE001 - any failure on this file's bytes is its rejection
            out.append((rejected(warehouse, plan.origin, plan.sha, error, reparse, plan.in_folder), None))
            continue
        outcome = FileOutcome(
            plan.origin, "loaded", record.load_id, record.format, tuple(record.benchmark.split(",")), record.rows_in,
            problems=problems, parser_version=record.parser_version, reparsed=reparse,
        )
        out.append((outcome, ParsedFile(record, result, datetime.now(UTC))))
    return out


@runtime.step(io=True)
def ingest_batch(
    warehouse: Warehouse, plans: list[FilePlan], format: str | None, benchmark: str | None, trust_pickle: bool,
    reparse: bool = False, columns: dict[str, str] | None = None,
) -> list[FileOutcome]:
    """A batch of files as one task run: each archived, parsed and validated, then all committed together.

    One task run per batch rather than per file: Prefect's bookkeeping of a
    run (about 0.3 s) costs more than reading a small file, and a batch is one
    unit to retry or to send to a Dask worker.  A format of many small files
    reads the batch's files in one call (:func:`parse_prepared`); either way a
    file that cannot be parsed is that file's outcome (``rejected``), never
    the batch's; the rows of the batch are validated at once, each within its
    own load (:func:`transforms.validate.validate_loads`).  Files of battles
    are validated and committed each as a load of its own beside the scores
    (:meth:`warehouse.storage.Warehouse.write_battles_load`).  Retried only on I/O
    errors, and safely: the archive is content-addressed and the batch's files
    are named by its loads and written atomically.
    """
    read = read_files(warehouse, plans, format, benchmark, trust_pickle, reparse, columns)
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
        pl.Series([index for index, _ in held], dtype=pl.UInt32).repeat_by(
            pl.Series([column.len() for _, column in held], dtype=pl.UInt32)).explode(),
    ) if held else {}
    for index, (outcome, record, _) in enumerate(landed):
        warehouse.forget_rejected(record.sha256)
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


def fail_all_quarantined(warehouse: Warehouse, outcome: FileOutcome, record: LoadRecord) -> None:
    """A file whose every row was quarantined is a failure (``rejected``: exit 1), not "loaded": nothing of it can be
    ranked, so it was most likely read the wrong way (a numeric judgement without ``--winner-scale``).  Its rows stay
    in the quarantine view with their reasons."""
    reasons = ", ".join(f"{reason} ({n})" for reason, n in sorted(outcome.quarantine_reasons.items(), key=lambda r: -r[1]))
    view = "battles_quarantine" if outcome.format == "battles" else "quarantine"
    problem = f"every one of its {record.rows_quarantined} row(s) was quarantined: {reasons}; see the {view} view"
    warehouse.record_rejected(outcome.path, record.sha256, None, problem)
    outcome.status, outcome.error = "rejected", f"{outcome.path}: {problem}"


def reconciled_layouts(
    warehouse: Warehouse, scores: list[tuple[FileOutcome, ParsedFile]]
) -> list[tuple[FileOutcome, ParsedFile]]:
    """The WMT segment files among ``scores`` checked, in order, against the stored layouts and each other.

    What a disagreement does is :func:`transforms.segment_layouts.reconcile`'s rule; the outcome
    reports it.  A file is not checked against the loads of its own source, which it replaces
    (a corrected file must not be judged by the file it corrects).  Files numbered globally go
    first: their positions are what they say, where a file numbered per document infers them.
    """
    if not any(new.parsed.segment_layouts is not None for _, new in scores):
        return scores
    known = warehouse.segment_layouts()
    checked = list(scores)
    for index in sorted(range(len(scores)), key=lambda i: inferred_positions(scores[i][1].parsed)):
        outcome, new = scores[index]  # a loop over files: each is checked against the ones before it
        others = known.filter(pl.col("source") != new.record.source).drop("source")
        parsed, problems = reconcile(new.parsed, others)
        if parsed.segment_layouts is not None:
            mine = parsed.segment_layouts.with_columns(source=pl.lit(new.record.source))
            known = pl.concat([known.filter(pl.col("source") != new.record.source), mine])
        outcome.problems = outcome.problems + problems
        checked[index] = (outcome, replace(new, parsed=parsed))
    return checked


def inferred_positions(parsed: Parsed) -> bool:
    """Whether a file numbers some test set per document (its positions are inferred from its documents' order)."""
    layouts = parsed.segment_layouts
    return layouts is not None and bool((layouts.get_column("numbering") == "per-document").any())


def battle_load(new: ParsedFile) -> tuple[LoadRecord, ValidatedBattles]:
    """A file of battles validated: its manifest with the row counts, and its battles and quarantine."""
    checked = validate_battles(new.parsed.rows, file=new.record.file_name, load_id=new.record.load_id)
    return replace(new.record, rows_landed=checked.battles.height, rows_quarantined=checked.quarantine.height), checked


def validated_loads(parsed: list[ParsedFile]) -> list[NewLoad]:
    """The parsed files of scores validated together: their loads, with their manifests' row counts.

    Rows whose values are numbers (typed formats) and rows of text are validated apart: one value column each.
    """
    typed = [new.parsed.rows.schema["value"].is_float() for new in parsed]
    scores, quarantine = {}, {}
    for kind in set(typed):
        group = [new for new, t in zip(parsed, typed, strict=True) if t == kind]
        heights = pl.Series([new.parsed.rows.height for new in group], dtype=pl.UInt32)
        rows = pl.concat([new.parsed.rows for new in group], how="diagonal_relaxed").with_columns(
            # each load's name repeated over its rows: two columns for the batch, not two per file
            file=pl.Series([new.record.file_name for new in group], dtype=pl.String).repeat_by(heights).explode(),
            load_id=pl.Series([new.record.load_id for new in group], dtype=pl.String).repeat_by(heights).explode(),
        )
        checked = validate_loads(rows)
        scores.update(checked.scores.partition_by("load_id", as_dict=True, maintain_order=True))
        quarantine.update(checked.quarantine.partition_by("load_id", as_dict=True, maintain_order=True))
    out = []
    no_scores, no_quarantine = pl.DataFrame(schema=SCORES), pl.DataFrame(schema=QUARANTINE)  # once, not per load
    for new in parsed:
        key = (new.record.load_id,)
        landed, held = scores.get(key, no_scores), quarantine.get(key, no_quarantine)
        record = replace(new.record, rows_landed=landed.height, rows_quarantined=held.height)
        out.append(NewLoad(record, landed, held, new.read_at, new.parsed.systems, new.parsed.segment_layouts))
    return out


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
    walked: set[Path] | frozenset[Path] = frozenset(),
) -> list[FileOutcome]:
    """Ingest ``files`` in order, with optional progress on stderr (:mod:`flows.progress`), counted in files.

    The files already loaded are found first, for all files at once (:func:`flows.ingest_plan.plan_files`);
    the others are read in batches of up to ``batch_files`` files, one task each, submitted to the flow's
    task runner with ``parallel``.  The metric rules are checked first: a bad rules file raises
    :class:`transforms.catalog.MetricRulesError` before any file is archived or loaded, rather than at the
    catalog rebuild after the loads committed.  ``origins`` are the files the bytes came from when
    ``files`` are staged copies of the raw archive; ``walked`` are the files found by walking a folder
    (:func:`rejected`).
    """
    checked_metric_rules(warehouse)
    plans = plan_files(warehouse, files, origins or [str(f) for f in files], format, benchmark, trust_pickle, reparse,
                       columns, walked)
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
    work = [(warehouse, batch, format, benchmark, trust_pickle, reparse, columns) for batch in grouped]
    with progress_of("ingest", len(plans), progress and not parallel) as done:
        for plan in plans:
            if plan.action in ("unchanged", "known"):
                done(f"{plan.path.name} {plan.outcome or plan.action}")
        if parallel:
            results = runtime.map_steps(ingest_batch, work, True)
        else:
            results = []
            for arguments in work:
                results.append(runtime.call(ingest_batch, *arguments))
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
    formats = [o.format if o.status in ("loaded", "unchanged") else None for o in outcomes]
    settled = [(o.status, o.error) if o.settled and o.status in ("skipped", "rejected") else None for o in outcomes]
    with warehouse.write_lock():
        record_files(warehouse.home, indexed_rows(plans, formats, settled,
                                                  reading_keys(format, benchmark, trust_pickle, columns)))
    return outcomes


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
                                             reparse=True, origins=[load["file_name"]], columns=mapping_of(load)))
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
    (:mod:`flows.ingest_plan`; 1 reads each file in a task of its own, with the same outcome).
    """
    if benchmark is not None:
        check_benchmark_name(benchmark)  # before anything starts: it would name every file's partition
    warehouse = Warehouse(home)
    files, documents, skipped = expand_paths(paths)
    report = IngestReport(skipped_documents=[str(d) for d in documents])
    walked = set(files) - {Path(p) for p in paths}
    report.files = skipped + ingest_files(warehouse, files, format, benchmark, trust_pickle, progress, parallel,
                                          batch_files=batch_files, columns=columns, walked=walked)
    if higher_is_better is not None:
        declare_directions(warehouse, report.files, higher_is_better)
    if reparse:
        report.files += reparse_stale(warehouse, trust_pickle)
    else:
        report.stale_loads = stale_loads(warehouse).height
    refresh_catalog_after(warehouse, report.files)
    log_outcome(report.files)
    return report
