"""MTEB result files: ``results/<org>__<model>/<revision>/<TaskName>.json``.

The public MTEB results repository (Muennighoff et al., "MTEB: Massive Text
Embedding Benchmark", EACL 2023; embeddings-benchmark/results) in every
result-file format it holds (the fixtures of ``tests/data/mteb-formats`` have one of each):

- current (mteb 1.11 to 2.x): ``{"task_name", "mteb_version", "evaluation_time",
  "scores": {SPLIT: [{"hf_subset", "languages", "main_score", <metric>: value}]}}``;
  ``mteb_version`` is null in results copied from model cards (``external``); mteb 2.x adds
  ``date`` and ``evaluation_phases`` (numbers: kept, unranked); some 1.34-1.38 files repeat
  ``mteb_dataset_name`` or carry ``mteb_main_score``/``type``/``description`` (text: left out);
- early (mteb 0.0-1.10): ``{"mteb_dataset_name", "mteb_version", SPLIT:
  {<metric>: value, "evaluation_time"}}``, or ``SPLIT: {SUBSET: {<metric>: value}}``;
- earliest, copied from papers: the early layout without ``mteb_version``.

``model_meta.json`` is read by the format below (the systems view); mteb 2.x
``run_settings.jsonl`` holds no scores and is not claimed here.

Both are read into the same (split, subset, metric, value) cells, so the same
quantity has the same voter whichever format holds it.  Naming (benchmark
``mteb`` unless ``--benchmark``; system = the model folder, ``org__model`` read
``org/model``):

- the **evaluation split** is ``test`` if the file has it, else ``validation``,
  else ``dev``, else the first split of the file;
- the task's **headline** is task = ``TaskName``, metric = ``main_score``: the mean
  of ``main_score`` over the subsets of the evaluation split (as the official
  leaderboard averages them).  It is the only ranked voter of the task;
- every subset's own fields (``main_score`` included) are kept unranked under
  task ``TaskName/<subset>``, or under ``TaskName`` itself when the split has
  one subset; other splits under ``TaskName@<split>[/<subset>]``, unranked;
  file-level numbers (``evaluation_time``, ``kg_co2_emissions``) under ``TaskName``;
- nested objects and lists are flattened into ``field.key`` / ``field[i]``;
  text (``hf_subset``, ``languages``) is not a score and is left out;
- an early file without ``main_score`` (mteb 1.0) has no headline: its fields
  land unranked and the file says so;
- ``<revision>/experiments/<setting>/<Task>.json`` (runs with other model settings)
  is skipped: the model's result is the one of its revision folder.

Values are the JSON numbers as Float64 (text and booleans are not scores).  Files
are read in batches (:func:`parse_results`, :mod:`transforms.parsers.mteb_cells`).

**One result per (model, task).**  A model may hold ``<TaskName>.json`` in
several revision folders (commit hashes, ``no_revision_available``,
``external``).  The chosen one is, in order: a result the benchmark ran
(any folder but ``external``, whose results are copied from model cards) over
one it did not; then the newest ``mteb_version``; then the greater folder
name.  Every other copy is skipped as superseded (a skip, not an error), so
the early and the current file of one model and task never both land; the
chosen revision is the load's ``file_name``.
"""

from __future__ import annotations

import gc
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, NotScoresError, Parsed, ParseError, rows_frame
from scorehouse.transforms.parsers.json_dump import load_json
from scorehouse.transforms.parsers.mteb_cells import Cells, evaluation_split, subsets_of
from scorehouse.transforms.slices import runs
from scorehouse.warehouse.schema import PARSED_ROWS, SYSTEMS

BENCHMARK = "mteb"
EXTERNAL = "external"
EXPERIMENTS = "experiments"
META = "model_meta.json"
# task_name comes last in current files, often beyond the sniffed head; "scores" comes early.
SNIFF = re.compile(rb'"(mteb_dataset_name|scores|task_name)"\s*:')
LONE_SURROGATE = re.compile(rb"\\u[dD][89abAB][0-9a-fA-F]{2}")
# orjson reads no NaN; a file with NaN scores is read with each NaN as this text (:func:`nan_as_text`), read back
# as NaN by the cells of that file alone.
NAN_TEXT = "\x00NaN"
NAN_KEY = re.compile(rb"NaN\s*:")


def sniff(path: Path, head: bytes) -> bool:
    """A ``.json`` result: with ``mteb_version`` (every file since mteb 1.0) or the earliest files'
    ``mteb_dataset_name`` alone (results copied from papers carry no version)."""
    if path.suffix != ".json" or path.name == META:
        return False
    return (b'"mteb_version"' in head and bool(SNIFF.search(head))) or b'"mteb_dataset_name"' in head


def read_result(path: Path, data: bytes | None = None) -> tuple[dict, str | None]:
    """The document of an MTEB result file, and the text that stands for NaN in it (None: no text does);
    ParseError naming the line where it is not one.

    Numbers are read as floats (ints as ints): text and booleans are dropped by the cells, so nothing is
    lost by not keeping the numbers' spelling.  orjson reads strict JSON, about 8x faster than the
    standard decoder on these files, to the same objects but for an integer beyond 64 bits (read as its
    nearest float: its cell is that Float64 either way; tests/transforms/test_mteb_decoder.py).  A file
    with NaN scores (a fifth of the repository's files, half its bytes) is read by orjson too, each NaN
    as :data:`NAN_TEXT` (:func:`nan_as_text`).  What orjson refuses otherwise (Infinity, a byte order mark,
    a lone surrogate, a number out of range, deep nesting, anything not JSON) is read by the standard
    decoder as before, which also says where a file is not JSON.  ``data``: the file's bytes when the caller
    holds them (an ingest batch reads each file once), else read from ``path``.
    """
    raw = path.read_bytes() if data is None else data
    nan = None
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        doc = nan_as_text(raw)
        if doc is None:
            doc = standard_document(path, raw)
        else:
            nan = NAN_TEXT
    if not isinstance(doc, dict) or not ("mteb_version" in doc or "mteb_dataset_name" in doc):
        raise ParseError(path, "not an MTEB result: no top-level mteb_version or mteb_dataset_name")
    return doc, nan


def nan_as_text(raw: bytes) -> dict | None:
    """``raw`` read by orjson with every ``NaN`` read as the text :data:`NAN_TEXT`, when that reading is the
    standard decoder's but for it; None otherwise (the standard decoder reads the file).

    Every ``NaN`` of the bytes is spelled as a JSON string of that text.  One inside a string would end the string
    with a ``\\`` after it, which no JSON allows, so a document that still reads had them all as values or keys.
    A key (``NaN:``) is not JSON: refused.  Without a backslash in the file, no string of it holds the NUL the text
    starts with, and no escape runs into a ``NaN``.  A NaN named as the task, version or subset is left to the
    standard decoder too (its name is the number's text there).
    """
    if b"NaN" not in raw or b"\\" in raw or NAN_KEY.search(raw):
        return None
    try:
        doc = orjson.loads(raw.replace(b"NaN", b'"\\u0000NaN"'))
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict) or NAN_TEXT in (doc.get("task_name"), doc.get("mteb_dataset_name"), doc.get("mteb_version")):
        return None
    scores = doc.get("scores")
    entries = [e for split in scores.values() if isinstance(split, list) for e in split] if isinstance(scores, dict) else []
    if any(isinstance(e, dict) and e.get("hf_subset") == NAN_TEXT for e in entries):
        return None
    return doc


def standard_document(path: Path, raw: bytes) -> object:
    """``raw`` read by the standard C decoder (NaN and Infinity allowed, as the repository's files use them)."""
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as err:
        raise ParseError(path, f"not valid JSON ({err.msg}, column {err.colno}); an MTEB result is one JSON document",
                         err.lineno) from None
    except UnicodeDecodeError as err:
        raise ParseError(path, f"not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8") from None
    except RecursionError:
        raise ParseError(path, "objects nested too deeply for an MTEB result") from None
    if LONE_SURROGATE.search(raw):  # rare: only then is the whole document checked (a slow path)
        load_json(path, what="an MTEB result")
    return doc


def version_key(version: object) -> tuple[int, ...]:
    """``1.12.75`` -> (1, 12, 75); ``1.0.3.dev0`` -> (1, 0, 3); none or unreadable -> ()."""
    return tuple(int(p) for p in re.findall(r"\d+", str(version).split(".dev")[0])) if version else ()


def revision_key(folder: Path, version: tuple[int, ...]) -> tuple:
    """The sort key of a revision ``folder`` whose result was made by mteb ``version``: greater is preferred.

    The one revision rule (module docstring): a run by the benchmark over an ``external`` one, then the
    newest mteb version, then the greater folder name.
    """
    return (folder.name != EXTERNAL, version, folder.name)


def result_version(path: Path) -> tuple[int, ...]:
    """The mteb version of the result at ``path``; () for an unreadable one (never preferred: its own parse
    says what is wrong)."""
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in READ_VERSIONS:
        try:
            remember_version(key, version_key(read_result(path)[0].get("mteb_version")))
        except ParseError:
            return ()
    return READ_VERSIONS[key]


# (path, mtime_ns, size) -> the mteb version of the result file as it was then (a changed file has another key):
# every result of a model is compared with its copies in the other revision folders, and every
# ``model_meta.json`` with all of them, so each is read once, by the batch that parses it or by the comparison.
READ_VERSIONS: dict[tuple[Path, int, int], tuple[int, ...]] = {}
READ_VERSIONS_KEPT = 1 << 17  # about 30 MB; a repository of more results starts over (read again, not wrong)


def remember_version(key: tuple[Path, int, int], version: tuple[int, ...]) -> None:
    if len(READ_VERSIONS) >= READ_VERSIONS_KEPT:
        READ_VERSIONS.clear()
    READ_VERSIONS[key] = version


def copies_of(path: Path, revisions: dict[Path, dict[Path, frozenset[str]]]) -> list[Path]:
    """``path`` and its copies in its model's other revision folders (``revisions`` caches each model's folders with
    the names of their files: listed once per batch, not a stat per copy and file)."""
    model = path.parent.parent
    if model not in revisions:
        revisions[model] = {Path(e.path): frozenset(f.name for f in os.scandir(e.path) if f.is_file())
                            for e in os.scandir(model) if e.is_dir()}
    return [path, *(r / path.name for r, names in revisions[model].items() if r != path.parent and path.name in names)]


def chosen_copy(path: Path, versions: dict[Path, tuple[int, ...]],
                revisions: dict[Path, dict[Path, frozenset[str]]]) -> Path:
    """The preferred copy of ``path``'s result among its model's revision folders; ``versions`` holds the
    versions of documents read already (the batch's own), the others are read for theirs."""
    return max(copies_of(path, revisions),
               key=lambda p: revision_key(p.parent, versions[p] if p in versions else result_version(p)))


def system_of(path: Path) -> str:
    """The system of a file under ``results/<org>__<model>/<revision>/``: ``org/model``."""
    return path.parent.parent.name.replace("__", "/", 1)


def not_loaded(path: Path, chosen: Path) -> NotScoresError | None:
    """Why the result at ``path`` is skipped (an experiment's run, a superseded copy), or None."""
    if path.parent.parent.name == EXPERIMENTS:
        return NotScoresError(path, f"a run of the model with other settings ({EXPERIMENTS}/{path.parent.name}), "
                              "not the model's result: the results one folder up are the ones loaded")
    if chosen != path:
        return NotScoresError(
            path,
            f"superseded copy of this model's {path.stem} result: {chosen.parent.name}/{chosen.name} is the one "
            "loaded (one result per model and task: a run by the benchmark over an external one, then the newest "
            "mteb_version, then the greater revision folder)",
        )
    return None


def parse_results(
    paths: list[Path], benchmark: str | None, held: list[tuple[bytes, int, int] | None] | None = None,
) -> list[Parsed | ParseError]:
    """Each of ``paths`` (MTEB result files) as its rows, or the error or skip that is its outcome; ``held``: per
    file, its bytes as the caller read them with the file's mtime_ns and size then, or None (read the path).

    One pass over the batch (:class:`transforms.parsers.mteb_cells.Cells`): the leaves of every
    document go to one frame, cut by file at the end; per file only the revision rule and the
    entries' names run in Python.
    """
    with cycle_collection_paused():
        return parsed_batch(paths, benchmark, held or [None] * len(paths))


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Python's cycle collector paused while a batch's documents are read and walked: they hold no cycles, yet
    their million containers set off collections that scan them again and again (14 % of the parse's CPU,
    measured on 2,000-file batches).  Restored as it was, whatever happens."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parsed_batch(paths: list[Path], benchmark: str | None, held: list[tuple[bytes, int, int] | None],
                 ) -> list[Parsed | ParseError]:
    """:func:`parse_results`' work."""
    outcomes: list[Parsed | ParseError | None] = [None] * len(paths)
    docs: dict[int, dict] = {}
    nans: dict[int, str | None] = {}
    stats: dict[int, tuple[int, int]] = {}  # (mtime_ns, size) before the read: a file changed after it has another key
    for i, (path, bytes_read) in enumerate(zip(paths, held, strict=True)):
        try:
            if bytes_read is None:
                stat = path.stat()
                stats[i] = (stat.st_mtime_ns, stat.st_size)
                docs[i], nans[i] = read_result(path)
            else:
                stats[i] = bytes_read[1:]
                docs[i], nans[i] = read_result(path, bytes_read[0])
        except ParseError as error:
            outcomes[i] = error
            stats.pop(i)
    versions = {paths[i]: version_key(doc.get("mteb_version")) for i, doc in docs.items()}
    for i, (mtime_ns, size) in stats.items():
        remember_version((paths[i], mtime_ns, size), versions[paths[i]])
    revisions: dict[Path, dict[Path, frozenset[str]]] = {}
    cells = Cells()
    notes: dict[int, list[str]] = {}
    for i, doc in docs.items():
        path = paths[i]
        skip = not_loaded(path, chosen_copy(path, versions, revisions))
        if skip is not None:
            outcomes[i] = skip
            continue
        name, splits, header = subsets_of(doc)
        task = path.stem if name is None else str(name)
        notes[i] = [f"revision {path.parent.name} (mteb {doc.get('mteb_version')})"]
        if not cells.add(i, task, splits, header, nans[i]):
            notes[i].append(f"no main_score in the {evaluation_split(splits)!r} split: {task} has no ranked headline")
    leaves = cells.frame()
    systems = pl.Series([system_of(p) for p in paths], dtype=pl.String).gather(leaves.get_column("file"))
    rows = leaves.select(
        "file", benchmark=pl.lit(benchmark or BENCHMARK), task="task", metric="metric",
        instance=pl.lit(None, PARSED_ROWS["instance"]), system=systems, value="value", line=pl.lit(None, PARSED_ROWS["line"]),
    )
    by_file = runs(rows.get_column("file"))  # the cells are in file order
    rows = rows.drop("file")  # in the parsed rows' schema
    for i, problems in notes.items():
        if i not in by_file:
            outcomes[i] = ParseError(paths[i], "an MTEB result without any numeric score; is it complete?")
            continue
        outcomes[i] = Parsed(rows.slice(*by_file[i]), tuple(problems), benchmark=benchmark or BENCHMARK)
    return outcomes


def parse(path: Path, benchmark: str | None) -> Parsed:
    """One result file: :func:`parse_results` of a batch of one."""
    outcome = parse_results([path], benchmark)[0]
    if isinstance(outcome, ParseError):
        raise outcome
    return outcome


register_format(
    Format(
        name="mteb-results",
        parser_version=2,
        sniff=sniff,
        parse=parse,
        parse_batch=parse_results,
        description="MTEB results/<model>/<revision>/<Task>.json, every mteb format (0.0 to 2.x)",
        folder_levels=2,
    )
)


def sniff_model_meta(path: Path, head: bytes) -> bool:
    return path.name == META and b'"name"' in head and b'"revision"' in head


def folder_preference(folder: Path) -> tuple:
    """The sort key of a revision folder as a whole: :func:`revision_key` with the newest mteb version of its results."""
    versions = [result_version(p) for p in folder.glob("*.json") if p.name != META and p.is_file()]
    return revision_key(folder, max(versions, default=()))


def chosen_meta(path: Path) -> Path:
    """The preferred ``model_meta.json`` among its model's revision folders (:func:`folder_preference`)."""
    copies = [p for p in path.parent.parent.glob(f"*/{META}") if p.is_file() and p != path]
    return max([path, *copies], key=lambda p: folder_preference(p.parent))


# SYSTEMS column -> the model_meta.json fields it is read from, first present wins (older files name two differently).
META_FIELDS: dict[str, tuple[str, ...]] = {
    "release_date": ("release_date",),
    "n_parameters": ("n_parameters",),
    "memory_usage_mb": ("memory_usage_mb", "memory_usage"),
    "max_tokens": ("max_tokens",),
    "embed_dim": ("embed_dim",),
    "languages": ("languages",),
    "license": ("license",),
    "open_weights": ("open_weights", "open_source"),
    "framework": ("framework",),
    "reference": ("reference",),
    "adapted_from": ("adapted_from",),
}


def meta_value(doc: dict, names: tuple[str, ...], listed: bool) -> object:
    """The first of ``names`` that ``doc`` has: for a ``listed`` column a list of text (one text is a list of one);
    else text (a JSON number as published, a boolean as JSON), where a list or object is unreadable ("")."""
    value = next((doc[n] for n in names if n in doc), None)
    if listed and value is not None:
        return [str(v) for v in (value if isinstance(value, list) else [value]) if v is not None]
    if isinstance(value, list | dict):
        return ""
    return json.dumps(value) if isinstance(value, bool) else value


def typed_field(column: str) -> pl.Expr:
    """The text of a metadata field as its :data:`SYSTEMS` type; null where it is not of that type."""
    if SYSTEMS[column] == pl.Boolean:
        return pl.col(column).replace_strict({"true": True, "false": False}, default=None, return_dtype=pl.Boolean)
    if SYSTEMS[column] == pl.String:
        return pl.col(column).replace("", None)
    return pl.col(column).cast(SYSTEMS[column], strict=False)


def parse_model_meta(path: Path, benchmark: str | None) -> Parsed:
    """The system metadata of ``model_meta.json`` (:data:`warehouse.schema.SYSTEMS`), no scores.

    One row per (benchmark, system): of a model's several revision folders the one whose results the
    revision rule prefers (:func:`folder_preference`); the others are skipped as superseded.  A field
    whose value has another type than its column (``"n_parameters": "7B"``) is left null and said.
    """
    doc = load_json(path, what="an MTEB model_meta.json")[1]
    if not isinstance(doc, dict):
        raise ParseError(path, "MTEB model_meta.json is not a JSON object")
    chosen = chosen_meta(path)
    if chosen != path:
        raise NotScoresError(
            path,
            f"superseded metadata of this model: {chosen.parent.name}/{META} is the one loaded (the revision "
            "rule of the results: a run by the benchmark over an external one, then the newest mteb_version, "
            "then the greater revision folder)",
        )
    text = pl.DataFrame(
        {column: [meta_value(doc, names, SYSTEMS[column].is_nested())] for column, names in META_FIELDS.items()},
        schema={c: SYSTEMS[c] if SYSTEMS[c].is_nested() else pl.String() for c in META_FIELDS},
    )
    typed = text.select(typed_field(c) for c in META_FIELDS)
    unreadable = [c for c in META_FIELDS if typed[c].null_count() > text[c].null_count()]
    systems = typed.with_columns(
        benchmark=pl.lit(benchmark or BENCHMARK), system=pl.lit(system_of(path)), revision=pl.lit(path.parent.name),
    )
    problems = [f"model metadata of {system_of(path)!r}, revision {path.parent.name}"]
    if unreadable:
        problems.append(f"field(s) {unreadable} left null: their values are not of the field's type")
    return Parsed(rows_frame(benchmark or BENCHMARK, [], [], None, [], [], None), tuple(problems), systems=systems)


register_format(
    Format(
        name="mteb-model-meta",
        parser_version=2,
        sniff=sniff_model_meta,
        parse=parse_model_meta,
        description="MTEB model_meta.json beside the results: the model's metadata (the systems view)",
        folder_levels=2,
    )
)
