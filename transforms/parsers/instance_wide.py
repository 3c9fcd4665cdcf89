"""Instance-by-system CSV: one row per test instance, one column per system.

The layout of the example of Peyrard et al., "Better than Average: Paired
Evaluation of NLP Systems" (ACL 2021; ``pairformance/examples/
dialogue_example_df.csv``: 60 TopicalChat instances x systems ``M0``..``M4``,
MoverScore, higher is better).  Recognised by a header whose columns are all
``M<number>`` (optionally after an empty pandas-index column).

Naming: the instance is the row's 0-based position (the index of the pandas
frame it was written from; identical to the instance ids of the BT-eval
pickles this example was cut from) or the index column when there is one.
Known files: ``dialogue_example_df.csv`` -> benchmark ``pairformance-tc``,
task ``tc``, metric ``MoverScore``.  Any other file needs the ``benchmark``
argument, and since such a table does not name its metric, the metric is
``score`` and the task the file name (reported).
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.instance_long import header_fields
from scorehouse.transforms.parsers.text import read_csv_records, read_text

SYSTEM = re.compile(r"^M\d+$")
KNOWN_FILES = {"dialogue_example_df.csv": ("pairformance-tc", "tc", "MoverScore")}


def system_columns(header: list[str]) -> list[str] | None:
    """The system columns of ``header`` if it is an instance-by-system header, else None."""
    systems = header[1:] if header and header[0] in ("", "Unnamed: 0") else header
    return systems if systems and all(SYSTEM.match(c) for c in systems) else None


def sniff(path: Path, head: bytes) -> bool:
    return system_columns(header_fields(head)) is not None


def parse(path: Path, benchmark: str | None) -> Parsed:
    frame = read_csv_records(path, read_text(path))
    header = [c for c in frame.columns if c != "line"]
    systems = system_columns(header)
    if systems is None:
        raise ParseError(path, "the header is not a list of system columns M0, M1, ...", 1)
    problems: list[str] = []
    if path.name in KNOWN_FILES:
        known, task, metric = KNOWN_FILES[path.name]
        benchmark = benchmark or known
    elif benchmark is None:
        raise ParseError(path, "an instance-by-system table does not name its benchmark; pass --benchmark")
    else:
        task, metric = path.name.removesuffix(".csv"), "score"
        problems.append(f"the table does not name its metric: metric 'score', task {task!r}")
    index = header[0] if len(header) > len(systems) else None
    instance = pl.col(index) if index is not None else pl.int_range(pl.len()).cast(pl.String)
    rows = (
        frame.with_columns(instance=instance)
        .unpivot(index=["instance", "line"], on=systems, variable_name="system", value_name="value")
        .sort("line", maintain_order=True)
        .with_columns(benchmark=pl.lit(benchmark), task=pl.lit(task), metric=pl.lit(metric))
    )
    return Parsed(rows, tuple(problems))


register_format(
    Format(
        name="instance-wide",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="instance-by-system CSV: rows = instances, columns M0, M1, ... = systems (pairformance)",
    )
)
