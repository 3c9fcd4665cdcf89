"""Which input files an ingest has to read, decided before any task runs, and the batches they are read in.

A file whose bytes are already loaded the way this run would load them is
``unchanged``: found with one join of every file's candidate load ids against
the load manifests, not one lookup (or one task) per file.  A file whose path,
size, modification and change times and inode match the file index of the home
(:mod:`warehouse.file_index`: it says why the change time makes this safe) is
neither hashed nor sniffed: its hash and format are the index's.  Every other
file is hashed (sha256) and its format detected, and is indexed once its load is
committed or found (:func:`indexed_rows`).  A file skipped or rejected for what its
bytes are is indexed too, with that outcome: it is ``known`` next time, and not read
again (:func:`settled_outcomes` says when the outcome still stands).

The rules are those of one file at a time (load ids: :mod:`flows.lineage`),
decided against the warehouse as it was when the run started, so two files of
one run that share a source (the same name given twice) are each decided against
the loads before the run (the later one is then refused, :func:`flows.ingest.one_load_per_source`):

- bytes loaded by the current parser version of their format (or by an older
  one, without ``--reparse``) are unchanged, unless their source has since been
  corrected by another load (other bytes, or the same bytes read with another
  column mapping) that is not this load's own revert: then the file is read again as a revert
  (:func:`flows.lineage.revert_id`) that makes the old load current again;
- two files of one run with the same bytes, format, benchmark and folder are
  one load: the first is read, the others share its outcome;
- everything else is read and loaded, in batches of at most
  :data:`BATCH_FILES` files and :data:`BATCH_BYTES` bytes (a larger file is a
  batch of its own): one task per batch, whose loads are committed together
  (:meth:`warehouse.storage.Warehouse.write_loads`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, replace
from collections.abc import Mapping
from pathlib import Path, PurePath
from types import MappingProxyType

import polars as pl

from scorehouse.transforms.parsers import FORMATS, Format, choose_format
from scorehouse.flows.lineage import folder_of, load_id_of, revert_id
from scorehouse.warehouse.file_index import FILE_INDEX, known_files, stat_frame
from scorehouse.warehouse.schema import UNVERSIONED_PARSER
from scorehouse.warehouse.integrity import sha256_of
from scorehouse.warehouse.storage import Warehouse

# A batch: 2,000 MTEB results parse in about 3 s and hold about 600,000 rows (some 150 MB in memory);
# 32 MB of text is a large WMT segment file, whose rows alone take a few hundred MB.
BATCH_FILES = 2_000
BATCH_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class FilePlan:
    """One input file and what the run does with it."""

    path: Path
    origin: str  # the file the bytes came from (``path`` may be a staged copy of the raw archive)
    sha: str
    size: int
    action: str  # "read"; "unchanged" (``load_id`` names its load); "same" as the file ``same_as`` of this run;
    # "known": skipped or rejected as the file index says (``outcome``, ``message``), not read again
    format: str | None = None  # of an unchanged load
    load_id: str | None = None  # of an unchanged load, or the revert to make
    parser_version: int | None = None  # of an unchanged load
    reverts: str | None = None  # the load a read makes current again
    same_as: int | None = None  # index of the file of this run with the same load
    in_folder: bool = False  # found by walking a folder (an unrecognised text file there is skipped, not rejected)
    place: str = ""  # the file as a source: its path relative to the folder it was found in, or its name (places)
    indexed: bool = False  # hash and format taken from the file index (not read this run)
    stat: tuple[int, ...] = ()  # the file's (mtime_ns, ctime_ns, inode, stated_ns) before it was hashed
    outcome: str | None = None  # of a "known" file: "skipped" or "rejected"
    message: str | None = None  # of a "known" file: what the report says of it


def plan_files(
    warehouse: Warehouse, paths: list[Path], origins: list[str], format: str | None, benchmark: str | None,
    trust_pickle: bool, reparse: bool, columns: dict[str, str] | None = None,
    walked: Mapping[Path, str] = MappingProxyType({}), manifests: pl.DataFrame | None = None,
    placed: Mapping[Path, str] = MappingProxyType({}),
) -> list[FilePlan]:
    """What to do with each of ``paths`` (module docstring), in their order; ``columns`` is the column mapping
    the files are read with (part of a load's identity, :func:`flows.lineage.load_id_of`); ``walked`` are the
    files found by walking a folder (``in_folder``), each with its place there (:func:`places`), ``placed`` the
    place of other files that have one (a re-parse's staged copy: its load's); ``manifests`` the home's load
    manifests, when the caller read them already."""
    stats = stat_frame(paths, time.time_ns())  # before any hash: a file changed after it does not match later
    known = known_files(warehouse.home, stats)
    indexed = dict(zip(known.get_column("file").to_list(), known.select("sha256", "format").rows(), strict=True))
    in_folder = [p in walked for p in paths]
    settled = settled_outcomes(paths, in_folder, known, reading_keys(format, benchmark, trust_pickle, columns))
    shas = [indexed[i][0] if i in indexed else sha256_of(p) for i, p in enumerate(paths)]
    manifests = warehouse.manifests() if manifests is None else manifests
    counts = pl.Series(shas, dtype=pl.String).value_counts()
    repeated = {sha for sha, n in counts.iter_rows() if n > 1}
    known_shas = set(manifests.get_column("sha256").to_list()) | repeated
    candidates = []  # (file, version, current version, load id, format) of every file whose bytes may be loaded
    for i, (path, sha) in enumerate(zip(paths, shas, strict=True)):
        if sha not in known_shas:
            continue
        fmt = format_of(path, format, trust_pickle, indexed[i][1] if i in indexed else None)
        if fmt is None:
            continue
        folder = folder_of(path, fmt)
        for version in range(fmt.parser_version, UNVERSIONED_PARSER - 1, -1):
            candidates.append((i, version, fmt.parser_version,
                               load_id_of(sha, fmt.name, benchmark, folder, version, columns), fmt.name, sha))
    sizes = stats.get_column("size").to_list()
    stated = stats.select("mtime_ns", "ctime_ns", "inode", "indexed_ns").rows()
    named = places(paths, origins, {**placed, **walked})
    plans = [FilePlan(p, o, s, n, "read", in_folder=f, place=w, indexed=i in indexed, stat=t)
             for i, (p, o, s, n, f, w, t) in enumerate(zip(paths, origins, shas, sizes, in_folder, named, stated,
                                                            strict=True))]
    for i, (outcome, message) in settled.items():
        if str(paths[i]) == origins[i]:  # a staged copy of the raw archive is re-parsed, never taken as known
            plans[i] = replace(plans[i], action="known", outcome=outcome, message=message)
    if not candidates:
        return plans
    frame = pl.DataFrame(candidates, schema=["file", "version", "current", "load_id", "format", "sha256"], orient="row")
    reverts: dict[str, int] = {}  # revert load id -> the file of this run that makes it
    for row in _decide(frame, manifests, reparse).iter_rows(named=True):
        plan = plans[row["file"]]
        if row["action"] == "unchanged":
            plans[row["file"]] = replace(plan, action="unchanged", format=row["format"], load_id=row["load_id"],
                                         parser_version=row["version"])
        elif row["action"] == "revert":
            load_id = revert_id(row["load_id"], row["current_id"])
            first = reverts.setdefault(load_id, row["file"])
            plans[row["file"]] = (replace(plan, load_id=load_id, reverts=row["load_id"]) if first == row["file"]
                                  else replace(plan, action="same", same_as=first))
        elif row["action"] == "same":
            plans[row["file"]] = replace(plan, action="same", same_as=row["first"])
    return plans


def places(paths: list[Path], origins: list[str], walked: Mapping[Path, str]) -> list[str]:
    """Each file as a source (what a load's ``source`` names, :func:`flows.ingest_read.source_name`): a file found
    by walking a folder is its path relative to that folder (``walked``), so fifty model folders that each hold a
    ``results.json`` are fifty sources; a file given by name (or an inbox's file) is its name, as is the staged copy
    of a re-parse, named after the file it came from (``origins``)."""
    return [walked.get(path) or PurePath(origin).name for path, origin in zip(paths, origins, strict=True)]


def reading_keys(format: str | None, benchmark: str | None, trust_pickle: bool,
                 columns: dict[str, str] | None) -> dict[bool, str]:
    """What a skip or rejection of a file was decided under, for a file found by walking a folder (True) or given
    by name (False): the options of the run and the parser version of every format (a new parser may read it)."""
    parsers = sorted((f.name, f.parser_version) for f in FORMATS.values())
    return {in_folder: hashlib.sha256(json.dumps([format, benchmark, trust_pickle, columns, parsers, in_folder],
                                                 sort_keys=True).encode()).hexdigest()[:16]
            for in_folder in (False, True)}


def settled_outcomes(paths: list[Path], in_folder: list[bool], known: pl.DataFrame,
                     keys: dict[bool, str]) -> dict[int, tuple[str, str]]:
    """The files (by place) the index says were skipped or rejected as this run would (``keys[in_folder[i]]``):
    their outcome and message.

    Whether a file is skipped may depend on the files beside it (an MTEB result superseded by its copy in
    another revision folder, a ``model_meta.json`` by the results of another): a recorded outcome stands only
    when every file of this run under the same folder two levels up is known to the index unchanged.
    """
    scopes = [p.parent.parent for p in paths]
    found = set(known.get_column("file").to_list())
    changed = {scope for i, scope in enumerate(scopes) if i not in found}
    out = {}
    for i, outcome, message, reading in known.filter(pl.col("outcome").is_not_null()).select(
            "file", "outcome", "message", "reading").iter_rows():
        if reading == keys[in_folder[i]] and scopes[i] not in changed:
            out[i] = (outcome, message)
    return out


def format_of(path: Path, format: str | None, trust_pickle: bool, indexed: str | None) -> Format | None:
    """The format ``path`` is read with: ``format`` if given, else the one the file index recorded for its bytes,
    else detected; None when it cannot be told (the file's read says what is wrong with it)."""
    try:
        if format is None and indexed in FORMATS:
            return choose_format(path, format=indexed, trust_pickle=trust_pickle)
        return choose_format(path, format=format, trust_pickle=trust_pickle)
    except Exception:  # noqa: BLE001 - the read of the file says what is wrong with it
        return None


def indexed_rows(plans: list[FilePlan], formats: list[str | None], settled: list[tuple[str, str] | None],
                 keys: dict[bool, str]) -> pl.DataFrame:
    """File-index rows (:data:`warehouse.file_index.FILE_INDEX`) of the plans read this run whose loads exist
    (``formats[i]`` is the format of plan ``i``'s load, None when it has none) or whose outcome follows from
    their bytes (``settled[i]``: skipped or rejected, and the message; None otherwise), with the stat taken
    before the hash: a file changed since then has a newer change time, so it does not match next time.
    ``keys`` are the run's :func:`reading_keys`."""
    chosen = [(p, f, o) for p, f, o in zip(plans, formats, settled, strict=True)
              if (f is not None or o is not None) and p.action != "known" and str(p.path) == p.origin
              and not (p.indexed and f is not None)]
    columns = ("mtime_ns", "ctime_ns", "inode", "indexed_ns")
    return pl.DataFrame(
        {
            "path": [os.path.abspath(p.path) for p, _, _ in chosen],
            "size": [p.size for p, _, _ in chosen],
            **{c: [p.stat[k] for p, _, _ in chosen] for k, c in enumerate(columns)},
            "sha256": [p.sha for p, _, _ in chosen],
            "format": [f for _, f, _ in chosen],
            "outcome": [o[0] if o else None for _, _, o in chosen],
            "message": [o[1] if o else None for _, _, o in chosen],
            "reading": [keys[p.in_folder] if o else None for p, _, o in chosen],
        },
        schema=FILE_INDEX,
    )


def _decide(candidates: pl.DataFrame, manifests: pl.DataFrame, reparse: bool) -> pl.DataFrame:
    """Per file with a candidate load: ``unchanged``, ``revert`` (of ``load_id``, superseded by ``current_id``),
    ``same`` (as the earlier file ``first`` of the run) or ``read``; one join against the manifests."""
    sources = manifests.select("load_id", "source")
    current = manifests.filter("is_current").select("source", current_id="load_id", current_reverts="reverts")
    found = (
        candidates.join(sources, on="load_id", how="left")
        .filter(pl.col("source").is_not_null())
        .sort("file", "version", descending=[False, True])
        .unique("file", keep="first", maintain_order=True)
        .filter((pl.col("version") == pl.col("current")) | ~pl.lit(reparse))
        .join(current, on="source", how="left")
    )
    # Superseded: the source's current load is another one, and not this load's own revert.  It may hold the
    # same bytes: the same file read with another column mapping.
    superseded = pl.col("current_id").is_not_null() & (pl.col("current_id") != pl.col("load_id")) & (
        pl.col("current_reverts").is_null() | (pl.col("current_reverts") != pl.col("load_id")))
    found = found.select("file", "version", "load_id", "format", "current_id",
                         action=pl.when(superseded).then(pl.lit("revert")).otherwise(pl.lit("unchanged")))
    # Files of this run whose bytes no manifest holds yet, and would make the same load: the first one reads it.
    fresh = candidates.filter(pl.col("version") == pl.col("current")).join(found.select("file"), on="file", how="anti")
    same = fresh.with_columns(first=pl.col("file").min().over("load_id")).filter(pl.col("file") != pl.col("first"))
    same = same.select("file", "version", "load_id", "format", current_id=pl.lit(None, pl.String),
                       action=pl.lit("same"), first="first")
    return pl.concat([found.with_columns(first=pl.lit(None, pl.Int64)), same], how="vertical_relaxed").sort("file")


def batches(plans: list[FilePlan], max_files: int = BATCH_FILES, max_bytes: int = BATCH_BYTES) -> list[list[FilePlan]]:
    """The plans to read, in order, cut into batches of at most ``max_files`` files and ``max_bytes`` bytes.

    A file whose place an earlier file of the run has (two files given by name with one name) joins that file's
    batch, beyond the limits: a batch finds the files of one run that would supersede each other
    (:func:`flows.ingest.commit_batch`), and batches may run apart (``--runner dask``).
    """
    out: list[list[FilePlan]] = []
    batch_of: dict[str, list[FilePlan]] = {}
    size = 0
    for plan in (p for p in plans if p.action == "read"):
        if plan.place in batch_of:
            batch_of[plan.place].append(plan)
            continue
        if not out or len(out[-1]) >= max_files or (out[-1] and size + plan.size > max_bytes):
            out.append([])
            size = 0
        out[-1].append(plan)
        batch_of[plan.place] = out[-1]
        size += plan.size
    return out
