"""What every task-level (leaderboard) CSV parser shares.

A leaderboard dump is a table with one row per system and one column per
(task, metric); some cells hold two numbers ``a/b`` whose header names one
task (GLUE's ``MRPC`` = F1/accuracy).  This module reads such a table with the
line each record starts on, melts it into :data:`warehouse.schema.PARSED_ROWS`
and makes system names unique.  Everything format-specific (which column is
which task and metric, how names are cleaned) lives in the format modules.

The invariant all of them keep: every value cell of every accepted data line
becomes exactly one row (a paired cell two), so ``rows == lines x value
columns``; missing markers become null values, nothing is dropped.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from scorehouse.transforms.parsers.base import Parsed, ParseError
from scorehouse.transforms.parsers.input_limits import read_input
from scorehouse.transforms.parsers.text import strict_csv_records
from scorehouse.warehouse.schema import PARSED_ROWS

# Cells a leaderboard uses for "no score" (after stripping whitespace).
MISSING_MARKERS: tuple[str, ...] = ("-", "")

# A paired cell: two halves separated by this.
PAIR_SEPARATOR = "/"


@dataclass(frozen=True)
class Table:
    """A CSV file as text cells: the header, the data records and the 1-based
    line each record starts on (a quoted cell may span lines)."""

    path: Path
    header: list[str]
    rows: list[list[str]]
    lines: list[int]


@dataclass(frozen=True)
class ValueColumn:
    """Where one emitted (task, metric) comes from: column ``index`` of the
    table, the whole cell (``half`` None) or one half of a paired cell."""

    index: int
    task: str
    metric: str
    half: int | None = None


def decode(path: Path, data: bytes) -> str:
    """``data`` as UTF-8 text (a byte-order mark is dropped); ParseError naming
    the line of the first undecodable byte otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ParseError(
            path, f"byte {data[err.start:err.start + 1]!r} is not UTF-8; save the file as UTF-8 text", line
        ) from None


def header_fields(head: bytes) -> list[str] | None:
    """The stripped names of the first CSV line of ``head`` (for sniffers);
    None when ``head`` has no readable first line."""
    first = head.decode("utf-8-sig", errors="replace").split("\n", 1)[0].rstrip("\r")
    if not first.strip():
        return None
    try:
        return [name.strip() for name in next(csv.reader([first]))]
    except (csv.Error, StopIteration):
        return None


def read_known_table(path: Path, headers: dict[tuple[str, ...], str], source: str) -> tuple[Table, str]:
    """The table of ``path`` and the family its header names in ``headers``; ParseError on line 1
    (naming ``source`` and the expected headers) when the header is none of them."""
    table = read_table(path)
    family = headers.get(tuple(table.header))
    if family is None:
        raise ParseError(
            path,
            f"the header is not a {source} header; expected one of {[list(h) for h in headers]}",
            1,
        )
    return table, family


def read_table(path: Path) -> Table:
    """Read ``path`` as comma-separated values with quoting.

    Blank lines are skipped (they hold no cell).  Raises ParseError for an empty
    file, a broken quote or a NUL byte, naming the line.  Records are not yet
    checked against the header's width: see :func:`check_width`.
    """
    text = decode(path, read_input(path))
    if not text.strip():
        raise ParseError(path, "the file is empty; a leaderboard needs a header line and at least one system")
    records, ends = (list(column) for column in zip(*strict_csv_records(path, text), strict=True))
    starts = [1] + [end + 1 for end in ends[:-1]]
    kept = [i for i, record in enumerate(records) if any(cell.strip() for cell in record)]
    if not kept:
        raise ParseError(path, "the file has only blank lines; a leaderboard needs a header line")
    header = [name.strip() for name in records[kept[0]]]
    return Table(
        path=path,
        header=header,
        rows=[records[i] for i in kept[1:]],
        lines=[starts[i] for i in kept[1:]],
    )


def check_width(table: Table) -> None:
    """ParseError at the first record whose number of fields is not the header's."""
    if not table.rows:
        raise ParseError(table.path, "the header is not followed by any system row")
    width = len(table.header)
    widths = np.fromiter(map(len, table.rows), dtype=np.int64, count=len(table.rows))
    wrong = np.flatnonzero(widths != width)
    if wrong.size:
        first = int(wrong[0])
        raise ParseError(
            table.path,
            f"{widths[first]} fields where the header has {width} ({', '.join(table.header)}); "
            "a field holding a comma must be quoted",
            table.lines[first],
        )


def check_header(table: Table, expected: tuple[str, ...], what: str) -> None:
    """ParseError unless the table's stripped header is exactly ``expected``."""
    if tuple(table.header) != expected:
        raise ParseError(
            table.path,
            f"the header is not the {what} header {list(expected)}; "
            "pass --format wide-leaderboard for another layout",
            1,
        )


def cells(table: Table) -> pl.DataFrame:
    """The table as a frame of string columns ``c0..cN`` plus ``line``."""
    names = [f"c{i}" for i in range(len(table.header))]
    frame = pl.DataFrame(table.rows, schema={n: pl.String() for n in names}, orient="row")
    return frame.with_columns(line=pl.Series(table.lines, dtype=pl.Int64()))


def normalized_names(column: pl.Expr) -> pl.Expr:
    """System names with each run of whitespace (tabs, line breaks) collapsed to
    one space; an empty name becomes null."""
    name = column.str.replace_all(r"\s+", " ").str.strip_chars()
    return pl.when(name == "").then(None).otherwise(name)


def is_missing_marker(cell: pl.Expr, markers: tuple[str, ...] = MISSING_MARKERS) -> pl.Expr:
    """Whether ``cell``, stripped of surrounding whitespace, is one of ``markers`` (compared without case)."""
    return cell.str.strip_chars().str.to_lowercase().is_in([m.lower() for m in markers])


def missing_to_null(cell: pl.Expr, markers: tuple[str, ...] = MISSING_MARKERS) -> pl.Expr:
    """``cell`` stripped of surrounding whitespace, null for one of ``markers`` (:func:`is_missing_marker`)."""
    return pl.when(is_missing_marker(cell, markers)).then(None).otherwise(cell.str.strip_chars())


def melt(
    frame: pl.DataFrame,
    *,
    benchmark: str,
    columns: list[ValueColumn],
) -> tuple[pl.DataFrame, list[str]]:
    """One PARSED_ROWS row per (record, value column) of ``frame`` (from
    :func:`cells`, with a ``system`` column added).

    A paired column's cell is split at :data:`PAIR_SEPARATOR` into two halves,
    each a value or a missing marker.  A cell that is not missing and not two
    non-empty halves (``93.9``, ``93.9/``) keeps its whole text in both halves'
    rows with a ``reason`` that quarantines them: which half a lone value is
    cannot be told, so it is never copied into both halves nor read as missing.
    Such cells are also reported.
    """
    problems: list[str] = []
    parts = []
    for column in columns:
        cell = pl.col(f"c{column.index}")
        reason = pl.lit(None, dtype=pl.String)
        if column.half is None:
            value = missing_to_null(cell)
        else:
            halves = cell.str.split(PAIR_SEPARATOR)
            is_pair = (halves.list.len() == 2) & halves.list.eval(pl.element().str.strip_chars() != "").list.all()
            malformed = missing_to_null(cell).is_not_null() & ~is_pair
            value = (
                pl.when(malformed)
                .then(cell.str.strip_chars())
                .otherwise(missing_to_null(halves.list.get(column.half, null_on_oob=True)))
            )
            reason = pl.when(malformed).then(
                pl.format(f"cell {{}} of paired column {column.task} is not two values 'a{PAIR_SEPARATOR}b': "
                          "which half it is cannot be told", cell.str.strip_chars())
            )
            if column.half == 0:
                bad = frame.filter(malformed)
                problems.extend(
                    f"line {line}: cell {text!r} of paired column {column.task} ({column.metric}) is not two values "
                    f"'a{PAIR_SEPARATOR}b'; both halves quarantined"
                    for text, line in zip(bad[f"c{column.index}"], bad["line"], strict=True)
                )
        parts.append(
            frame.select(
                benchmark=pl.lit(benchmark),
                task=pl.lit(column.task),
                metric=pl.lit(column.metric),
                instance=pl.lit(None, dtype=pl.String()),
                system=pl.col("system"),
                value=value,
                line=pl.col("line"),
                reason=reason,
            )
        )
    rows = pl.concat(parts).sort("line", maintain_order=True) if parts else pl.DataFrame(schema=PARSED_ROWS)
    return rows, problems


def unique_systems(frame: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """``frame`` with every occurrence of a repeated ``system`` suffixed ``_1``,
    ``_2``, ... in file order (the Vote'n'Rank convention, Rofin et al. 2023,
    ``votenrank.data_processing``), repeated until no suffixed name collides
    with another; and one problem line per repeated name.  Null names stay null
    and are reported.
    """
    problems = [f"line {line}: empty system name; its cells are kept with a null system"
                for line in frame.filter(pl.col("system").is_null())["line"]]
    original = frame["system"]
    while True:
        counts = frame.select(
            n=pl.len().over("system"), k=pl.int_range(1, pl.len() + 1).over("system")
        )
        repeated = (counts["n"] > 1) & frame["system"].is_not_null()
        if not repeated.any():
            break
        frame = frame.with_columns(
            system=pl.when(repeated)
            .then(pl.col("system") + "_" + counts["k"].cast(pl.String()))
            .otherwise(pl.col("system"))
        )
    renamed = frame.with_columns(before=original).filter(pl.col("before") != pl.col("system"))
    for before, group in renamed.group_by("before", maintain_order=True):
        lines = ", ".join(str(x) for x in group["line"])
        names = ", ".join(group["system"])
        problems.append(f"system name {before[0]!r} repeats on lines {lines}: renamed {names}")
    return frame, problems


def table_rows(
    table: Table,
    *,
    system: pl.Expr,
    benchmark: str,
    columns: list[ValueColumn],
    notes: list[str],
) -> Parsed:
    """The common tail of every wide parser: name the systems with ``system``
    (an expression over the cell columns), make them unique, melt the value
    ``columns``; ``notes`` are the format's own problems, listed first."""
    frame, renamed = unique_systems(cells(table).with_columns(system=system))
    rows, problems = melt(frame, benchmark=benchmark, columns=columns)
    return Parsed(rows=rows, problems=tuple(notes + renamed + problems))
