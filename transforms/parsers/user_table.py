"""Any table a user brings, read by the columns the user names (format ``user-table``).

No file is detected as this format: it is chosen by naming the columns on the
command line (``scorehouse ingest FILE --benchmark B --system COL ...``), and
the parser receives those names as a mapping role -> source column
(:data:`ROLES`).  Two shapes:

**Long**, ``score`` given: one score per row.
    ``system``   the column naming the system (required);
    ``task``     the column naming the task; absent: one task named after the
                 file (its name without ``.csv``/``.tsv``/``.jsonl``/``.parquet``/``.gz``);
    ``metric``   the column naming the metric; absent: one metric ``score``;
    ``instance`` the column naming the instance (item, segment): given, the
                 scores are instance-level, else task-level;
    ``score``    the column holding the score.

**Wide**, ``score_columns`` given: a glob (``*``, ``?``, ``[...]``) over the
column names, or several (``--score-columns`` repeated: a column matching any of
them; each must match one); every matching column (other than the named ones) holds scores,
and its name fills whichever of task and metric no column names: the task
when neither ``task`` nor ``metric`` is given (metric ``score``) or when
``metric`` is, the metric when ``task`` is.  Naming both leaves no place for
the column's name and is refused.

File types, by extension: ``.csv``, ``.tsv`` (both optionally ``.gz``, read
strictly with the line of every record, :mod:`transforms.parsers.text`; a TSV
whose header separates its names by blanks is read with every run of blanks and
tabs as one separator, so names and cells hold no blanks there),
``.jsonl``/``.ndjson`` (one JSON object per line, every value read as text: a
JSON number in Polars' spelling, ``1e-3`` as ``0.001``) and ``.parquet``
(typed: numeric score columns stay numbers, no lines).

A text score cell holding one of :data:`MISSING_MARKERS` (``NA``, ``N/A``,
``-``, ``NaN``, ``null``, ``None``, dashes, an empty cell; compared without
case) is a missing score: it lands with a null score, as the other formats'
missing markers do, and the parse notes count them.  Percentages (``85%``)
and thousands separators (``1,234``) are not numbers here: the first mixes
scales, the second reads as 1.234 where the comma is the decimal mark; they
are quarantined as non-numeric, to be fixed in the file.

Every cell becomes a row; validation (:mod:`transforms.validate`) quarantines
what cannot be used, as for every format (non-numeric scores, empty system,
task or metric names, duplicate and conflicting keys).  The parser itself
flags, with a reason, an instance-level row whose instance cell is empty
(it would otherwise land as a task-level score).  Options that do not fit the
file (a named column it lacks, a glob matching none, an unknown extension)
raise :class:`TableOptionsError` naming the file, the column and the columns
that exist.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.catalog import glob_regex
from scorehouse.transforms.parsers import gzip_damage, read_head, register_format, what_is_wrong
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError, header_said
from scorehouse.transforms.parsers.instance_parquet import parquet_schema
from scorehouse.transforms.parsers.leaderboard_table import is_missing_marker, missing_to_null
from scorehouse.transforms.parsers.text import json_lines, read_csv_records, read_text
from scorehouse.warehouse.schema import PARSER_REASON

# The roles a user names columns for, each with its command-line option.
ROLES: dict[str, str] = {
    "system": "--system",
    "task": "--task",
    "metric": "--metric",
    "instance": "--instance",
    "score": "--score",
    "score_columns": "--score-columns",
}
DEFAULT_METRIC = "score"
# Text cells that mean "no score" in the tables users export (R's NA, pandas' NaN, SQL's null, a dash).
MISSING_MARKERS: tuple[str, ...] = ("", "-", "\u2013", "\u2014", "NA", "N/A", "NaN", "null", "None")
LINE = "_scorehouse_line"  # the source line of a row, under a name no user column has
EMPTY_INSTANCE = "empty instance name"

# File type by extension (after a final ``.gz``): the delimiter of text tables, or the reader's name.
TABLE_TYPES: dict[str, str] = {".csv": ",", ".tsv": "\t", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}


class TableOptionsError(ParseError):
    """The column options do not fit the file: the user's options are wrong (a usage error), not the file."""


def check_options(columns: dict[str, str]) -> None:
    """ValueError saying what is wrong with a mapping of roles, before any file is read."""
    unknown = sorted(set(columns) - set(ROLES))
    if unknown:
        raise ValueError(f"unknown column role(s) {unknown}; roles are {', '.join(ROLES)}")
    if "system" not in columns:
        raise ValueError("name the column of the systems with --system")
    if ("score" in columns) == ("score_columns" in columns):
        raise ValueError("name the score column with --score (one score per row) or the score columns with "
                         "--score-columns GLOB (a wide table), one of the two")
    if "score_columns" in columns and "task" in columns and "metric" in columns:
        raise ValueError("with --score-columns give at most one of --task and --metric: the name of each score "
                         "column is the other")
    named = [c for role, c in columns.items() if role != "score_columns"]
    repeated = sorted({c for c in named if named.count(c) > 1})
    if repeated:
        raise ValueError(f"column(s) {repeated} named for two roles; each role needs its own column")


def table_type(path: Path) -> str:
    """The delimiter or reader of ``path`` from its extension; TableOptionsError for another extension."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes[-1:] == [".gz"] and len(suffixes) > 1:
        suffixes.pop()
    kind = TABLE_TYPES.get(suffixes[-1] if suffixes else "")
    if kind is None or (kind == "parquet" and path.suffix.lower() == ".gz"):
        raise TableOptionsError(
            path, "cannot tell the table type from the file's extension; name it .csv, .tsv, .jsonl or .parquet "
            "(.csv, .tsv and .jsonl may be gzip'd: .csv.gz)",
        )
    return kind


def task_of_file(path: Path) -> str:
    """The task of a table without a task column: its file name without the table extensions."""
    name = path.name
    for suffix in (".gz", *TABLE_TYPES):
        name = name[: -len(suffix)] if name.lower().endswith(suffix) else name  # X.CSV as x.csv
    return name


def spaced_header(kind: str, first: str) -> bool:
    """Whether a TSV's header line separates its names by blanks, not tabs (segment-score files write
    ``system score segment`` over rows of ``system<TAB>score<SPACE>segment``)."""
    return kind == "\t" and "\t" not in first and len(first.split()) > 1


def blank_separated(text: str) -> str:
    """TSV text whose fields are separated by runs of blanks and tabs, as text separated by one tab per field
    (leading and trailing blanks of a line dropped; the lines stay where they were)."""
    return re.sub(r"[ \t]+", "\t", re.sub(r"^[ \t]+|[ \t]+$", "", text, flags=re.MULTILINE))


def header_of(path: Path) -> list[str]:
    """The column names of ``path`` without reading its rows where the type allows (for checking options early).

    ParseError when the header cannot be read (an empty, binary, UTF-16 or damaged file): the file is at
    fault, not the options, and its read says what is wrong with it.
    """
    kind = table_type(path)
    if kind == "parquet":
        return list(parquet_schema(path))
    if kind == "jsonl":
        return list(jsonl_columns(path, read_text(path)))
    head = read_head(path)
    damage = gzip_damage(path) if b"\n" not in head else None  # a first line cut by a damaged gzip stream
    wrong = damage or what_is_wrong(head)
    if wrong is not None:
        raise ParseError(path, wrong)
    first = head.decode("utf-8", "replace").lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if spaced_header(kind, first):
        return first.split()
    return next(csv.reader([first], delimiter=kind), [])


def score_columns(path: Path, header: list[str], columns: dict[str, str]) -> list[str]:
    """The columns holding scores: the ``score`` column, or those the ``score_columns`` glob matches.

    TableOptionsError naming the file, the option and the columns that exist when a named
    column is absent or the glob matches none.
    """
    def missing(what: str) -> TableOptionsError:
        return TableOptionsError(path, f"{what} not in {path.name}; {header_said(header)}")

    for role, column in columns.items():
        if role != "score_columns" and column not in header:
            raise missing(f"column {column!r} ({ROLES[role]})")
    if "score" in columns:
        return [columns["score"]]
    named = {c for role, c in columns.items() if role != "score_columns"}
    globs = score_globs(columns["score_columns"])
    for glob in globs:
        if not any(re.match(glob_regex(glob), c) and c not in named for c in header):
            raise missing(f"no column matching {ROLES['score_columns']} {glob!r} is")
    patterns = [re.compile(glob_regex(glob)) for glob in globs]
    return [c for c in header if c not in named and any(p.match(c) for p in patterns)]


def score_globs(value: str) -> list[str]:
    """The globs of a ``score_columns`` mapping: one glob, or several (``--score-columns`` given more than once)
    kept as a JSON array, so a mapping of one glob keeps the text (and the load id) it always had."""
    try:
        globs = json.loads(value) if value.startswith("[") else None
    except json.JSONDecodeError:
        globs = None  # a glob that starts with a character class: "[ab]*"
    return globs if isinstance(globs, list) and all(isinstance(g, str) for g in globs) else [value]


def score_columns_option(globs: list[str]) -> str:
    """The mapping value of the ``--score-columns`` globs (:func:`score_globs` reads it back)."""
    return globs[0] if len(globs) == 1 else json.dumps(globs)


def check_table(path: Path, columns: dict[str, str]) -> None:
    """TableOptionsError when ``columns`` does not fit the file at ``path`` (its type, its header)."""
    score_columns(path, header_of(path), columns)


def jsonl_columns(path: Path, text: str) -> dict[str, pl.DataType]:
    """The keys of a JSON Lines table and their inferred types; ParseError when it is not JSON Lines of flat objects."""
    if not text.strip():
        raise ParseError(path, "empty file: no JSON object")
    try:
        inferred = json_lines(text, line=LINE).drop(LINE).schema
    except pl.exceptions.PolarsError as error:
        raise ParseError(path, f"not JSON Lines (one JSON object per line): {error}") from None
    nested = [c for c, dtype in inferred.items() if dtype.is_nested()]
    if nested:
        raise ParseError(path, f"column(s) {nested} hold lists or objects; a table's cells must be numbers or text")
    return dict(inferred)


def read_jsonl(path: Path) -> pl.DataFrame:
    """One JSON object per non-blank line, every value as its JSON text (strings as themselves), plus :data:`LINE`.

    Read twice: once to learn the keys and refuse nested values, once with every key as text, so a
    key holding a number on one line and text on another is read, not refused, and validation
    quarantines the text.
    """
    text = read_text(path)
    schema = dict.fromkeys(jsonl_columns(path, text), pl.String())
    return json_lines(text, schema, line=LINE)


def read_table(path: Path) -> pl.DataFrame:
    """The table at ``path`` with :data:`LINE` (null for Parquet); text cells as String, Parquet columns typed."""
    kind = table_type(path)
    if kind == "jsonl":
        return read_jsonl(path)
    if kind == "parquet":
        schema = parquet_schema(path)
        nested = [c for c, dtype in schema.items() if dtype.is_nested()]
        if nested:
            raise ParseError(path, f"column(s) {nested} hold lists or structs; a table's cells must be numbers or text")
        return pl.read_parquet(path, glob=False).with_columns(pl.lit(None, dtype=pl.Int64).alias(LINE))
    text = read_text(path)  # first: it names what makes a file unreadable, and where
    if "line" in header_of(path):  # the shared CSV reader keeps each record's line under that name
        raise ParseError(path, "a column named 'line' cannot be read from a CSV or TSV table; rename it", 1)
    if spaced_header(kind, text.split("\n", 1)[0]):
        text = blank_separated(text)
    return read_csv_records(path, text, kind).rename({"line": LINE})


def value_columns(frame: pl.DataFrame, names: list[str]) -> list[pl.Expr]:
    """The score columns as one dtype: Float64 when every one is numeric (typed Parquet), else text to validate,
    a missing marker as null."""
    if all(frame.schema[c].is_numeric() for c in names):
        return [pl.col(c).cast(pl.Float64) for c in names]
    return [missing_to_null(pl.col(c).cast(pl.String), MISSING_MARKERS) for c in names]


def parse_table(path: Path, benchmark: str | None, columns: dict[str, str]) -> Parsed:
    """The rows of the user's table at ``path`` read by ``columns`` (role -> source column, module docstring)."""
    try:
        check_options(columns)
    except ValueError as error:
        raise TableOptionsError(path, str(error)) from None
    if benchmark is None:
        raise TableOptionsError(path, "a table read by its columns needs --benchmark to name its benchmark")
    frame = read_table(path)
    header = [c for c in frame.columns if c != LINE]
    scores = score_columns(path, header, columns)
    rows = table_rows(frame, columns, scores, benchmark, task_of_file(path))
    level = "instance" if "instance" in columns else "task"
    wide_names = "metric" if "task" in columns else "task"
    shape = f"wide: {len(scores)} score column(s), each a {wide_names}" if "score_columns" in columns else "long"
    problems = [f"read by the columns {json.dumps(columns, sort_keys=True)} ({shape}; {level} level)"]
    marked = marked_missing(frame, scores)
    if marked:
        problems.append(f"{marked} score cell(s) held a missing marker ({', '.join(repr(m) for m in MISSING_MARKERS[1:])}) "
                     f"and landed as missing scores")
    return Parsed(rows, tuple(problems))


def table_rows(frame: pl.DataFrame, columns: dict[str, str], scores: list[str], benchmark: str, task: str) -> pl.DataFrame:
    """One row per score cell of ``frame`` (its ``scores`` columns) with its keys read by ``columns``.

    Columns: system, task, metric, instance, line, value, benchmark and the parser's reason; ``task``
    names the one task of a long table without a task column.  ``frame`` holds :data:`LINE` (null when
    its rows have no lines: Parquet, a table in memory).
    """
    text = {role: pl.col(c).cast(pl.String) for role, c in columns.items() if role not in ("score", "score_columns")}
    wide_names = "metric" if "task" in columns else "task"
    # Keys travel in one struct and scores under positional names, so no header collides with them.
    positional = {f"_score{i}": name for i, name in enumerate(scores)}
    keys = pl.struct(
        system=text["system"],
        task=text.get("task", pl.lit(task)),
        metric=text.get("metric", pl.lit(DEFAULT_METRIC)),
        instance=text.get("instance", pl.lit(None, dtype=pl.String)),
        line=pl.col(LINE),
    )
    rows = (
        frame.select(keys.alias("_key"), *(e.alias(p) for e, p in zip(value_columns(frame, scores), positional, strict=True)))
        .unpivot(index="_key", on=list(positional), variable_name="_column", value_name="value")
        .unnest("_key")
        .with_columns(pl.col("_column").replace_strict(positional, return_dtype=pl.String))
    )
    if "score_columns" in columns:
        rows = rows.with_columns(pl.col("_column").alias(wide_names))
    blank_instance = pl.col("instance").is_null() | (pl.col("instance").str.strip_chars() == "")
    rows = rows.with_columns(
        benchmark=pl.lit(benchmark),
        **{PARSER_REASON: pl.when(blank_instance).then(pl.lit(EMPTY_INSTANCE)) if "instance" in columns
           else pl.lit(None, dtype=pl.String)},
    ).drop("_column")
    if rows.get_column("line").null_count() < rows.height:
        rows = rows.sort("line", maintain_order=True)
    return rows


def marked_missing(frame: pl.DataFrame, names: list[str]) -> int:
    """How many text score cells hold a non-empty missing marker (an empty cell is missing in every format)."""
    text = [c for c in names if frame.schema[c] == pl.String]
    if not text:
        return 0
    markers = tuple(m for m in MISSING_MARKERS if m)
    return int(frame.select(pl.sum_horizontal(is_missing_marker(pl.col(c), markers).sum() for c in text)).item())


def needs_columns(path: Path, benchmark: str | None) -> Parsed:
    raise TableOptionsError(
        path, "format user-table reads a table by the columns you name: give --system and --score (or --score-columns)",
    )


register_format(
    Format(
        name="user-table",
        parser_version=2,
        sniff=lambda path, head: False,  # chosen by naming columns, never detected
        parse=needs_columns,
        parse_mapped=parse_table,
        description="any CSV/TSV/JSON Lines/Parquet table read by the columns named with --system, --task, "
        "--metric, --instance, --score or --score-columns",
    )
)

