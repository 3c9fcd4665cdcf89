"""What every dump parser is and returns.

A parser is a pure function ``parse(path, benchmark) -> Parsed`` for one native
format, registered in :data:`transforms.parsers.FORMATS` together with a
``sniff(path, head) -> bool`` that recognises the format from the file's name
and first bytes.  Parsers emit every published cell as a row of
:data:`warehouse.schema.PARSED_ROWS` (value kept as text, missing cells as
null); deciding which values are usable is :mod:`transforms.validate`'s job,
so no parser drops or coerces a value on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.warehouse.schema import PARSED_ROWS, SEGMENT_LAYOUTS, SYSTEMS, conform, parsed_battles_schema, parsed_schema

# The tables a format's rows go to: scores (:data:`warehouse.schema.PARSED_ROWS`) or battles
# (:data:`warehouse.schema.PARSED_BATTLES`).
SCORES_TABLE = "scores"
BATTLES_TABLE = "battles"
PARSED_SCHEMAS = {SCORES_TABLE: parsed_schema, BATTLES_TABLE: parsed_battles_schema}


class ParseError(ScorehouseError, ValueError):
    """A file that cannot be parsed at all.  Retrying does not help: the file
    (or the ``--format`` chosen for it) has to change."""

    def __init__(self, file: str | Path, problem: str, line: int | None = None) -> None:
        self.file = str(file)
        self.line = line
        self.problem = problem
        super().__init__(self.message_for(self.file))

    def message_for(self, file: str) -> str:
        """The message naming ``file``: the original of a staged copy of archived bytes."""
        where = f"{file}, line {self.line}" if self.line is not None else file
        return f"{where}: {self.problem}"


# A header in an error: at most this many names, each cut to this many characters.
SHOWN_NAMES, SHOWN_NAME_CHARS = 30, 40


def header_said(header: list[str]) -> str:
    """A file's column names for an error message, or why they are not shown.

    An error names a file and a position, never its content: the errors of fixed layouts name the header
    expected, never the one found.  The columns the user names (a table's, battles') are checked against
    names shown here, because the user has to choose among them; but a first line of one field is no header
    of columns (a file linked or named by mistake, whose first line may be anything) and is not shown.
    Long lists and names are cut.
    """
    if len(header) < 2:
        return "its first line is one field, not a header of columns (not shown)"
    shown = [n if len(n) <= SHOWN_NAME_CHARS else n[:SHOWN_NAME_CHARS] + "…" for n in header[:SHOWN_NAMES]]
    more = f" and {len(header) - SHOWN_NAMES:,} more" if len(header) > SHOWN_NAMES else ""
    return f"columns are: {', '.join(shown)}{more}"


class NotScoresError(ParseError):
    """A file recognised for what it is and holding no scores to ingest (experiment outputs, run
    metadata, a rounded copy of scores loaded from another file).  Not a failure: the file is
    skipped with this reason."""


@dataclass(frozen=True)
class Parsed:
    """A parser's output: the cells and what it noticed on the way.

    ``problems`` are things the user should know that did not stop parsing,
    e.g. "duplicated system name 'RefBERT' renamed 'RefBERT_1' ... 'RefBERT_4'".
    ``systems`` is what the file says about systems (:data:`warehouse.schema.SYSTEMS`), if anything;
    ``segment_layouts`` where a WMT segment-level file puts its documents
    (:data:`warehouse.schema.SEGMENT_LAYOUTS`), checked against the other files of
    the test set when it is stored (:mod:`transforms.segment_layouts`).
    """

    rows: pl.DataFrame
    problems: tuple[str, ...] = ()
    table: str = SCORES_TABLE  # the table the rows go to, and so their schema (PARSED_SCHEMAS)
    systems: pl.DataFrame | None = None  # system metadata the file holds (warehouse.schema.SYSTEMS)
    segment_layouts: pl.DataFrame | None = None  # documents' segment positions (warehouse.schema.SEGMENT_LAYOUTS)
    # The one benchmark of every row and system, when the parser named them all alike (a batch parser's files):
    # then :attr:`benchmarks` needs no query of the rows per file.
    benchmark: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", conform(self.rows, PARSED_SCHEMAS[self.table](self.rows)))
        if self.systems is not None:
            object.__setattr__(self, "systems", conform(self.systems, SYSTEMS))
        if self.segment_layouts is not None:
            object.__setattr__(self, "segment_layouts", conform(self.segment_layouts, SEGMENT_LAYOUTS))

    @property
    def benchmarks(self) -> list[str]:
        """The benchmarks the file's scores and system metadata belong to, sorted."""
        if self.benchmark is not None:
            return [self.benchmark]
        names = self.rows.get_column("benchmark")
        if self.systems is not None:
            names = pl.concat([names, self.systems.get_column("benchmark")])
        return sorted(names.drop_nulls().unique().to_list())


@dataclass(frozen=True)
class Format:
    """One native dump format.

    ``parser_version`` is bumped whenever a change to the parser changes its output for some file
    (rows, names, values, the benchmark): it is recorded with every load and hashed into the load
    id, so ``scorehouse ingest --reparse`` can re-derive the loads an older parser made.
    """

    name: str
    sniff: Callable[[Path, bytes], bool]
    parse: Callable[[Path, str | None], Parsed]
    description: str
    parser_version: int
    needs_trust: bool = False  # True for formats whose loading executes code (pickles)
    # How many enclosing folders name the file's rows (a COCO team folder holds "scores.txt": 1; an MTEB
    # result is <model>/<revision>/<Task>.json: 2): the warehouse then tells same-named or
    # byte-identical files of two folders apart.
    folder_levels: int = 0
    # The parser with a column mapping (role -> the file's column, e.g. ``--model-a``), for formats whose
    # column names the user may map; None for formats that read fixed layouts.
    parse_mapped: Callable[[Path, str | None, dict[str, str]], Parsed] | None = None
    # The parser of many files at once, for formats of many small files (MTEB: about 100,000): each file's
    # rows, or the ParseError (a NotScoresError for a skip) that is its outcome, in the order given.
    # ``parse`` reads one file through it, so there is one parser.  Its third argument gives, per file, the bytes
    # an ingest batch holds already with the file's mtime_ns and size when they were read, or None (read the path).
    parse_batch: Callable[[list[Path], str | None, list[tuple[bytes, int, int] | None]],
                          list[Parsed | ParseError]] | None = None

    def __post_init__(self) -> None:
        if type(self.parser_version) is not int or self.parser_version < 1:
            raise ValueError(
                f"format {self.name!r}: parser_version must be an integer >= 1, got {self.parser_version!r}"
            )

    def read(self, path: Path, benchmark: str | None, columns: dict[str, str] | None = None) -> Parsed:
        """Parse ``path``, with the user's column mapping when there is one (ParseError if the format takes none)."""
        if not columns:
            return self.parse(path, benchmark)
        if self.parse_mapped is None:
            raise ParseError(
                path, f"format {self.name!r} reads a fixed layout and takes no column mapping "
                f"({', '.join(sorted(columns))}); leave the mapping out or choose a format that takes one"
            )
        return self.parse_mapped(path, benchmark, columns)

    def folder(self, path: Path) -> str | None:
        """The folders that are part of ``path``'s identity as a source (``folder_levels`` of them)."""
        return "/".join(path.parent.parts[-self.folder_levels:]) if self.folder_levels else None


def rows_frame(
    benchmark: str,
    task: list[str | None] | str,
    metric: list[str | None] | str,
    instance: list[str | None] | None,
    system: list[str | None],
    value: list[str | None],
    line: list[int | None] | None,
) -> pl.DataFrame:
    """Build a PARSED_ROWS frame from columns (scalars broadcast)."""
    n = len(system)

    def column(x: object) -> list:
        return x if isinstance(x, list) else [x] * n

    return pl.DataFrame(
        {
            "benchmark": [benchmark] * n,
            "task": column(task),
            "metric": column(metric),
            "instance": column(instance),
            "system": system,
            "value": value,
            "line": column(line),
        },
        schema=PARSED_ROWS,
    )
