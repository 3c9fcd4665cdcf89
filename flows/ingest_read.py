"""The batch read of an ingest: each file of a batch archived, its format chosen, parsed, and recorded.

What a file comes to before validation (:class:`ParsedFile`: its manifest and rows) or why it has
none (its :class:`FileOutcome`: skipped or rejected, with the reason).  The steps, in order:

- :func:`prepare_file` archives the bytes (content-addressed) and chooses the format and load id;
- :func:`parse_prepared` parses the prepared files: those of a format that reads batches in one call
  (MTEB results), the others one by one;
- :func:`read_files` records each file's manifest (:func:`load_record`) or its rejection (:func:`rejected`).

Any failure on one file's bytes is that file's outcome, never the batch's.  The flow that runs a
batch and commits it is :mod:`flows.ingest`; the batch's validation is :mod:`flows.ingest_validate`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.transforms.parsers import Format, ParseError, UnrecognisedFormatError, choose_format
from scorehouse.transforms.parsers.base import NotScoresError, Parsed
from scorehouse.flows.ingest_plan import FilePlan
from scorehouse.flows.lineage import folder_of, load_id_of
from scorehouse.warehouse.names import check_benchmark_name
from scorehouse.warehouse.storage import LoadRecord, Warehouse


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
    replaced: str | None = None  # the earlier run's current load of its source that this load superseded


def source_name(place: str, path: Path, fmt: Format) -> str:
    """The file as a source: its place (:func:`flows.ingest_plan.places`: its path relative to the folder it was
    found in, or its name); for formats that take names from their folders, those folders and its name, whatever
    folder it was found in (an MTEB result is its model's, its revision's and its task's)."""
    folder = fmt.folder(path)
    return place if folder is None else f"{folder}/{path.name}"


def source_of(fmt: Format, benchmarks: str, place: str, path: Path) -> str:
    """A load's ``source``: what a later load of the same file supersedes (the loads view's newest per source)."""
    return f"{fmt.name}:{benchmarks}:{source_name(place, path, fmt)}"


def place_of(source: str) -> str:
    """The place of a load's ``source`` (:func:`source_of`; a benchmark name holds no colon)."""
    return source.split(":", 2)[2]


def load_record(
    path: Path, fmt: Format, parsed: Parsed, load_id: str, sha: str, origin: str, reverts: str | None = None,
    columns: dict[str, str] | None = None, place: str | None = None,
) -> tuple[LoadRecord, tuple[str, ...]]:
    """The manifest of the load of ``path`` (row counts of the validation to come) from what ``fmt`` parsed,
    and the problems to report; ``origin`` is the file it came from, ``reverts`` the earlier load of the same
    bytes this load makes current again, ``columns`` the user's column mapping (role -> the file's column)
    for formats that take one, ``place`` the file as a source (its name when None).  Raises when the rows
    cannot name a partition."""
    named = parsed.benchmarks
    for name in named:  # each names a partition folder (a query of the rows' benchmarks per file, not two)
        check_benchmark_name(name)
    benchmarks = ",".join(named)
    record = LoadRecord(
        load_id=load_id,
        source=source_of(fmt, benchmarks, place or path.name, path),
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
    held: tuple[bytes, int, int] | None = None  # its bytes as the batch read them, and the file's mtime_ns and size


def changed_since_plan(plan: FilePlan) -> bool:
    """Whether ``plan``'s file was written after the plan stat'ed it (its change time, modification time or inode
    differ), so the parse may have read other bytes than the archive hashed and kept: the parsers read paths,
    after the archive's own read."""
    try:
        now = os.stat(plan.path)
    except OSError:
        return True
    return (now.st_mtime_ns, now.st_ctime_ns, now.st_ino) != tuple(plan.stat[:3])


def prepare_file(
    warehouse: Warehouse, plan: FilePlan, format: str | None, benchmark: str | None, trust_pickle: bool, reparse: bool,
    columns: dict[str, str] | None,
) -> Prepared | FileOutcome:
    """Archive one file and choose its format and load id; its rejection when that fails."""
    sha = warehouse.archive_raw(plan.path, plan.sha)
    if sha != plan.sha:
        error = FileChangedError(f"the file changed while it was being ingested; ingest {plan.origin} again")
        return rejected(warehouse, plan.origin, sha, error, reparse, plan.in_folder)
    held = warehouse.raw_stage.held_bytes(sha)
    try:
        fmt = choose_format(plan.path, format=format, trust_pickle=trust_pickle, data=None if held is None else held[0])
        load_id = plan.load_id or load_id_of(
            sha, fmt.name, benchmark, folder_of(plan.path, fmt), fmt.parser_version, columns)
    except Exception as error:  # noqa: BLE001 - any failure on this file's bytes is its rejection
        return rejected(warehouse, plan.origin, sha, error, reparse, plan.in_folder)
    return Prepared(plan, fmt, load_id, held)


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
            results: list[Parsed | Exception] = list(fmt.parse_batch(
                [prepared[i].plan.path for i in places], benchmark, [prepared[i].held for i in places]))
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
    for step in prepared:
        if changed_since_plan(step.plan):
            parsed[id(step)] = FileChangedError(
                f"the file changed while it was being parsed; ingest {step.plan.origin} again")
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
                                           plan.reverts, columns, plan.place)
        except Exception as error:  # noqa: BLE001 - any failure on this file's bytes is its rejection
            out.append((rejected(warehouse, plan.origin, plan.sha, error, reparse, plan.in_folder), None))
            continue
        outcome = FileOutcome(
            plan.origin, "loaded", record.load_id, record.format, tuple(record.benchmark.split(",")), record.rows_in,
            problems=problems, parser_version=record.parser_version, reparsed=reparse,
        )
        out.append((outcome, ParsedFile(record, result, datetime.now(UTC))))
    return out
