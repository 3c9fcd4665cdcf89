"""MTEB result files: ``results/<org>__<model>/<revision>/<TaskName>.json``.

The public MTEB results repository (Muennighoff et al., "MTEB: Massive Text
Embedding Benchmark", EACL 2023; embeddings-benchmark/results) in both of its
result-file formats:

- current (mteb >= 1.11): ``{"task_name", "mteb_version", "evaluation_time",
  "scores": {SPLIT: [{"hf_subset", "languages", "main_score", <metric>: value}]}}``;
- early (mteb 1.0-1.10): ``{"mteb_dataset_name", "mteb_version", SPLIT:
  {<metric>: value, "evaluation_time"}}``, or ``SPLIT: {SUBSET: {<metric>: value}}``.

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
  land unranked and the file says so.

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

import functools
import json
import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, NotScoresError, Parsed, ParseError, rows_frame
from scorehouse.transforms.parsers.json_dump import JsonNumber, load_json
from scorehouse.warehouse.schema import SYSTEMS

BENCHMARK = "mteb"
HEADLINE = "main_score"
EXTERNAL = "external"
SPLIT_PREFERENCE = ("test", "validation", "dev")
EARLY_HEADER = ("mteb_dataset_name", "mteb_version", "dataset_revision", "evaluation_time", "kg_co2_emissions")
# task_name comes last in current files, often beyond the sniffed head; "scores" comes early.
SNIFF = re.compile(rb'"(mteb_dataset_name|scores|task_name)"\s*:')


def sniff(path: Path, head: bytes) -> bool:
    return path.suffix == ".json" and path.name != "model_meta.json" and b'"mteb_version"' in head and bool(SNIFF.search(head))


def read_result(path: Path) -> dict:
    doc = load_json(path, what="an MTEB result")[1]
    if not isinstance(doc, dict) or "mteb_version" not in doc:
        raise ParseError(path, "not an MTEB result: no top-level mteb_version")
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
    return version_of_bytes(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=1 << 16)
def version_of_bytes(path: Path, modified_ns: int, size: int) -> tuple[int, ...]:
    """:func:`result_version` of the file as it is (its time and size are part of the key, so a changed
    file is read again): every result of a model is compared with its copies in the other
    revision folders, and every ``model_meta.json`` with all of them, so each is read once."""
    try:
        return version_key(read_result(path).get("mteb_version"))
    except ParseError:
        return ()


def preference(path: Path) -> tuple:
    """The sort key of a revision folder's copy of a result: greater is preferred (:func:`revision_key`)."""
    return revision_key(path.parent, result_version(path))


def chosen_copy(path: Path) -> Path:
    """The preferred copy of ``path``'s result among its model's revision folders."""
    copies = [p for p in path.parent.parent.glob(f"*/{path.name}") if p.is_file() and p != path]
    return max([path, *copies], key=preference)


def system_of(path: Path) -> str:
    """The system of a file under ``results/<org>__<model>/<revision>/``: ``org/model``."""
    return path.parent.parent.name.replace("__", "/", 1)


def flatten(value: object, name: str) -> list[tuple[str, str | None]]:
    """Numeric leaves of ``value`` as (dotted name, the number as published); text and booleans are not scores."""
    if isinstance(value, dict):
        return [cell for key, inner in value.items() for cell in flatten(inner, f"{name}.{key}")]
    if isinstance(value, list):
        return [cell for i, inner in enumerate(value) for cell in flatten(inner, f"{name}[{i}]")]
    if value is None:
        return [(name, None)]
    return [(name, str(value))] if isinstance(value, JsonNumber) else []


def subsets_of(doc: dict) -> tuple[str, dict[str, list[dict]], dict]:
    """(task name, split -> subset entries each with ``hf_subset``, file-level fields) of either format."""
    if "scores" in doc and isinstance(doc["scores"], dict):
        splits = {s: [e for e in entries if isinstance(e, dict)] for s, entries in doc["scores"].items()
                  if isinstance(entries, list)}
        header = {k: v for k, v in doc.items() if k != "scores"}
        return str(doc.get("task_name")), splits, header
    splits = {}
    header = {k: v for k, v in doc.items() if k in EARLY_HEADER}
    for split, body in doc.items():
        if split in EARLY_HEADER or not isinstance(body, dict):
            continue
        nested = {k: v for k, v in body.items() if isinstance(v, dict)}
        if nested:
            outer = {k: v for k, v in body.items() if not isinstance(v, dict)}
            splits[split] = [{"hf_subset": k, **v} for k, v in nested.items()]
            if outer:  # the split's own fields (its evaluation_time): kept with the split
                splits[split].append({"hf_subset": None, **outer})
        else:
            splits[split] = [{"hf_subset": "default", **body}]
    return str(doc.get("mteb_dataset_name")), splits, header


def evaluation_split(splits: dict[str, list[dict]]) -> str | None:
    return next((s for s in SPLIT_PREFERENCE if s in splits), next(iter(splits), None))


def cells(task: str, splits: dict[str, list[dict]], header: dict) -> tuple[list[tuple[str, str, str | None]], bool]:
    """(task, metric, value) of every kept field, and whether the file has a headline."""
    main = evaluation_split(splits)
    out = [(task, metric, value) for key, inner in header.items() if key not in EARLY_HEADER[:3]
           for metric, value in flatten(inner, key)]
    for split, entries in splits.items():
        base = task if split == main else f"{task}@{split}"
        named = [e for e in entries if e.get("hf_subset") is not None]
        for entry in entries:
            subset = entry.get("hf_subset")
            own = base if subset is None or len(named) == 1 else f"{base}/{subset}"
            for key, inner in entry.items():
                if key == "hf_subset" or (key == HEADLINE and own == task):
                    continue  # a name; or the headline below, which is this subset's main_score
                out.extend((own, metric, value) for metric, value in flatten(inner, key))
    headline = [e.get(HEADLINE) for e in splits.get(main, []) if e.get("hf_subset") is not None]
    numbers = [float(v) for v in headline if isinstance(v, JsonNumber)]
    has_headline = bool(headline) and len(numbers) == len(headline)
    if has_headline:
        out.append((task, HEADLINE, repr(float(sum(numbers) / len(numbers)))))
    return out, has_headline


def parse(path: Path, benchmark: str | None) -> Parsed:
    doc = read_result(path)
    chosen = chosen_copy(path)
    if chosen != path:
        raise NotScoresError(
            path,
            f"superseded copy of this model's {path.stem} result: {chosen.parent.name}/{chosen.name} is the one "
            "loaded (one result per model and task: a run by the benchmark over an external one, then the newest "
            "mteb_version, then the greater revision folder)",
        )
    task, splits, header = subsets_of(doc)
    if task == "None":
        task = path.stem
    found, has_headline = cells(task, splits, header)
    if not found:
        raise ParseError(path, "an MTEB result without any numeric score; is it complete?")
    system = system_of(path)
    tasks, metrics, values = (list(c) for c in zip(*found, strict=True))
    rows = rows_frame(benchmark or BENCHMARK, tasks, metrics, None, [system] * len(found), values, None)
    problems = [f"revision {path.parent.name} (mteb {doc.get('mteb_version')})"]
    if not has_headline:
        problems.append(f"no main_score in the {evaluation_split(splits)!r} split: {task} has no ranked headline")
    return Parsed(rows, tuple(problems))


register_format(
    Format(
        name="mteb-results",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="MTEB results/<model>/<revision>/<Task>.json, early and current mteb formats",
        folder_levels=2,
    )
)


META = "model_meta.json"


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
