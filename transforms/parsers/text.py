"""Reading delimited text dumps strictly, with the source line of every record.

Shared by the WMT, DA and instance-level CSV parsers.  Two readers:

- :func:`split_lines` for formats without quoting (WMT ``*.score`` files, DA
  files): each line is one record, split on a one-character separator;
- :func:`read_csv_records` for quoted CSV (the instance-level dumps carry
  multi-line texts in quotes): Polars parses the values, and a vectorised
  structural pass over the raw lines checks that every record has as many
  fields as the header and gives the line each record starts on.

and :func:`json_lines` for JSON Lines (one object per line), with the line of
each object.

The first two refuse, with a :class:`ParseError` naming the file and line, what would
otherwise lose cells silently: a record with too few or too many fields
(Polars pads short CSV rows with empty strings), bytes that are not UTF-8, an
unterminated quote.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers.input_limits import read_input

# Regex (Rust syntax) of one quoted CSV field, doubled quotes included.
QUOTED_FIELD = r'"(?:[^"]|"")*"'
# The most characters one CSV field may hold: the standard library reader's limit (131,072), which reads the
# quoted fields; fields read by Polars are held to it too, so quoting a field does not change what is refused.
MAX_FIELD_CHARS = csv.field_size_limit()


def field_too_long(path: Path, line: int) -> ParseError:
    return ParseError(
        path, f"field longer than {MAX_FIELD_CHARS:,} characters (the limit on one CSV field: a name or cell this "
        "long is not a score table's); shorten it", line,
    )


def read_text(path: Path) -> str:
    """The file's text: gunzipped when it starts with the gzip magic, within the input limits
    (:mod:`transforms.parsers.input_limits`), UTF-8 strictly."""
    data = read_input(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise ParseError(path, "UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8") from exc
        raise ParseError(
            path, f"byte {data[exc.start]:#04x} is not UTF-8 text; is this a binary file?", line
        ) from exc
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ParseError(path, "NUL byte in the text; is this a binary file?", line)
    lone = re.search("\r(?!\n)", text)
    if lone:
        raise ParseError(
            path, "carriage return without a newline (old Mac line ends?); convert to \\n line ends",
            text.count("\n", 0, lone.start()) + 1,
        )
    return text.removeprefix("\ufeff")


def lines_frame(text: str) -> pl.DataFrame:
    """One row per physical line: ``text`` (without its end of line) and 1-based ``line``.

    The empty string after a final newline is not a line.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return (
        pl.DataFrame({"text": lines}, schema={"text": pl.String()})
        .with_row_index("line", offset=1)
        .with_columns(pl.col("line").cast(pl.Int64), pl.col("text").str.strip_suffix("\r"))
    )


def json_lines(text: str, schema: dict[str, pl.DataType] | None = None, line: str = "line") -> pl.DataFrame:
    """The objects of JSON Lines ``text``, one row each with the 1-based line it is on (column ``line``, a name
    the caller can keep clear of the file's keys); blank lines skipped.

    ``schema``: the columns to read and their types (other keys are never
    read; a nested value read as text is its JSON text); without it every key
    of every line, types inferred from all of them.  Raises Polars' error when
    a line is not one JSON object: the callers say what the file should be.
    """
    records = lines_frame(text).filter(pl.col("text").str.strip_chars() != "")
    data = io.BytesIO("\n".join(records.get_column("text")).encode())
    frame = pl.read_ndjson(data, schema=schema, infer_schema_length=None)
    return frame.with_columns(records.get_column("line").alias(line))


def split_lines(
    path: Path, text: str, *, separator: str, columns: list[str], skip: int = 0, strip_end: bool = False
) -> pl.DataFrame:
    """Split every non-blank line after the first ``skip`` into ``columns`` (String) plus ``line``.

    ``strip_end`` drops trailing separators first (DA files end every line with
    a space).  A line with another number of fields is a ParseError, since
    there is no telling which of its cells is which.
    """
    frame = lines_frame(text).slice(skip)
    frame = frame.filter(pl.col("text").str.strip_chars().str.len_chars() > 0)
    if strip_end:
        frame = frame.with_columns(pl.col("text").str.strip_chars_end(separator))
    fields = frame.with_columns(pl.col("text").str.split(separator).alias("fields"))
    bad = fields.filter(pl.col("fields").list.len() != len(columns))
    if bad.height:
        first = bad.row(0, named=True)
        raise ParseError(
            path,
            f"{len(first['fields'])} {separator!r}-separated fields where the format has "
            f"{len(columns)} ({' '.join(columns)})",
            first["line"],
        )
    return fields.select(
        *(pl.col("fields").list.get(i).alias(name) for i, name in enumerate(columns)), "line"
    )


def record_starts(path: Path, text: str, separator: str = ",") -> pl.DataFrame:
    """Per CSV record: the ``line`` it starts on and its number of ``fields``.

    A line continues the previous record while an odd number of quotes has
    been opened; quoted fields are then removed and the separators left counted.
    """
    frame = lines_frame(text).with_columns(
        quotes=pl.col("text").str.count_matches('"', literal=True)
    )
    open_after = (pl.col("quotes").cum_sum() % 2) == 1
    frame = frame.with_columns(open_after=open_after)
    if frame.height and frame.get_column("open_after")[-1]:
        start = frame.filter(~pl.col("open_after").shift(1, fill_value=False)).get_column("line")[-1]
        raise ParseError(path, "a quoted field is never closed", int(start))
    records = (
        frame.with_columns(record=(~pl.col("open_after").shift(1, fill_value=False)).cum_sum())
        .group_by("record", maintain_order=True)
        .agg(pl.col("line").first(), pl.col("text").str.join("\n"))
        .with_columns(bare=pl.col("text").str.replace_all(QUOTED_FIELD, ""))
    )
    stray = records.filter(pl.col("bare").str.contains('"', literal=True))
    if stray.height:
        raise ParseError(
            path, 'a quote (") inside an unquoted field; quote the whole field and double inner quotes',
            stray.get_column("line")[0],
        )
    return records.select(
        "line",
        "text",
        fields=pl.col("bare").str.count_matches(separator, literal=True) + 1,
    )


def strict_csv_records(path: Path, text: str, separator: str = ",") -> Iterator[tuple[list[str], int]]:
    """Each record of ``text`` as the standard library's strict reader splits it, with the line it ends on.

    A reader error is a ParseError at the line where the failing record starts:
    the reader notices an unterminated quote only at the end of the file and an
    over-long field only where it passes the limit, both lines after the cause.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
    end = 0  # the line the last complete record ends on
    try:
        for record in reader:
            yield record, reader.line_num
            end = reader.line_num
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise field_too_long(path, end + 1) from None
        raise ParseError(
            path,
            f"malformed CSV in the record starting on this line ({exc}, noticed on line {reader.line_num}): a quote never closed or text after a "
            "closing quote; quote whole fields and double the quotes inside them",
            end + 1,
        ) from None


def check_quoting(path: Path, text: str, separator: str = ",") -> None:
    """ParseError at the record holding the first malformed quote (e.g. a closing quote followed by more text).

    Readers disagree on how to recover from such quoting, so no reading of it is
    trusted; the standard library's strict reader finds it.
    """
    for _ in strict_csv_records(path, text, separator):
        pass


def read_csv_records(path: Path, text: str, separator: str = ",") -> pl.DataFrame:
    """A ``separator``-separated file (CSV, or TSV with a tab) with a header, every cell as String, plus ``line``.

    Empty cells are null (the dumps mark missing scores by leaving them
    empty).  Header names must be unique and non-empty except a leading index
    column; blank lines and ragged records are ParseErrors.
    """
    if '"' in text:
        check_quoting(path, text, separator)
    records = record_starts(path, text, separator)
    if records.height == 0:
        raise ParseError(path, "empty file: no header line")
    blank = records.filter(pl.col("text").str.strip_chars().str.len_chars() == 0)
    if blank.height:
        raise ParseError(path, "blank line inside the table; remove it", blank.get_column("line")[0])
    width = records.get_column("fields")[0]
    ragged = records.filter(pl.col("fields") != width)
    if ragged.height:
        row = ragged.row(0, named=True)
        raise ParseError(
            path, f"{row['fields']} fields where the header has {width}", row["line"]
        )
    try:
        frame = pl.read_csv(
            text.encode("utf-8"),
            has_header=True,
            separator=separator,
            infer_schema=False,
            quote_char='"',
            raise_if_empty=False,
            truncate_ragged_lines=False,
        )
    except pl.exceptions.PolarsError as exc:
        raise ParseError(path, f"not a readable CSV table: {exc}") from exc
    over = frame.select(pl.any_horizontal(pl.all().str.len_chars() > MAX_FIELD_CHARS)).to_series().arg_true()
    if over.len() or max(map(len, frame.columns), default=0) > MAX_FIELD_CHARS:
        row = over[0] + 1 if over.len() else 0  # records hold the header first
        raise field_too_long(path, records.get_column("line")[row])
    duplicated = [c for c in frame.columns if "_duplicated_" in c]
    if duplicated:
        raise ParseError(path, f"the header repeats a column name ({duplicated[0].split('_duplicated_')[0]!r}); rename it", 1)
    if frame.height != records.height - 1:
        raise ParseError(path, f"{frame.height} CSV rows but {records.height - 1} records; check the quoting")
    return frame.with_columns(line=records.get_column("line").slice(1))
