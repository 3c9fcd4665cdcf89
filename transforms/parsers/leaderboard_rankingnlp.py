"""GLUE, SuperGLUE and XTREME leaderboards in the RankingNLPSystems layout.

The scrapes of Colombo et al. 2022 ("What are the best systems? New
perspectives on NLP benchmarking", NeurIPS), also used by Himmi et al. 2023
("Towards More Robust NLP System Evaluation: Handling Missing Scores in
Benchmarks"): ``data/{glue,superglue,xtrem}.data``, their copies
``data_task/*.csv`` and ``*_filtered.csv`` subsets, ``sample_df/glue.*`` and
``example_data_cli/xtreme_missing.csv``.  Columns ``Model, Score`` and one per
(task, half) like ``MRPC-a``; tabs and spaces pollute names and cells, so
every header name and cell is stripped and the system name is the ``Model``
field with each whitespace run collapsed to one space (team and model stay
together, e.g. ``ERNIE Team - Baidu ERNIE``).

``xtrem.data`` is malformed: 6 header names but 7 fields in every data row,
the second one blank.  Reading it naively shifts every score one column left
and loses Sentence Retrieval; :func:`repair_shift` drops the blank field when
every row has it, and reports the repair.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed
from scorehouse.transforms.parsers.leaderboard_columns import FAMILIES
from scorehouse.transforms.parsers.leaderboard_table import (
    Table,
    ValueColumn,
    check_width,
    header_fields,
    normalized_names,
    read_known_table,
    table_rows,
)

HEADERS = {("Model",) + tuple(c for t in tasks for c in t.split_columns): family
           for family, (tasks, _, _) in FAMILIES.items()}

# File names whose content is not the leaderboard itself but an experiment
# input derived from it, kept apart from the real scrape by default.
DERIVED_BENCHMARKS = {"xtreme_missing.csv": "xtreme-missing"}
# sample_df/glue.* glue team and model together without a separator, so their
# system names cannot match glue.data's: a benchmark of their own keeps the
# same systems from appearing twice under two names.
DERIVED_FOLDERS = {"sample_df": "glue-2022-sample"}


def sniff(path: Path, head: bytes) -> bool:
    if path.suffix not in (".csv", ".data"):  # before the header: most files a folder holds are neither
        return False
    fields = header_fields(head)
    return fields is not None and tuple(fields) in HEADERS


def repair_shift(table: Table) -> tuple[Table, list[str]]:
    """Drop the second field when every data row has one field more than the
    header and that field is blank in every row (the ``xtrem.data`` defect)."""
    width = len(table.header)
    if not table.rows or any(len(r) != width + 1 or r[1].strip() for r in table.rows):
        return table, []
    rows = [r[:1] + r[2:] for r in table.rows]
    problem = (
        f"every data row has {width + 1} fields for {width} header names, the second one blank "
        f"(lines {table.lines[0]}-{table.lines[-1]}); dropped that blank field so that each score "
        "stays under its header and the last column is kept"
    )
    return replace(table, rows=rows), [problem]


def parse(path: Path, benchmark: str | None) -> Parsed:
    table, family = read_known_table(path, HEADERS, "RankingNLPSystems GLUE, SuperGLUE or XTREME")
    table, repairs = repair_shift(table)
    check_width(table)
    tasks, _, default_benchmark = FAMILIES[family]
    by_column = {c: (t.task, m) for t in tasks for c, m in zip(t.split_columns, t.metrics, strict=True)}
    columns = [ValueColumn(index=i, task=by_column[name][0], metric=by_column[name][1])
               for i, name in enumerate(table.header) if i > 0]
    return table_rows(
        table,
        system=normalized_names(pl.col("c0")),
        benchmark=benchmark
        or DERIVED_BENCHMARKS.get(path.name, DERIVED_FOLDERS.get(path.parent.name, default_benchmark)),
        columns=columns,
        notes=repairs,
    )


FORMAT = register_format(
    Format(
        name="rankingnlp-leaderboard",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="GLUE / SuperGLUE / XTREME scrape of RankingNLPSystems and MissingDataRanking "
        "(Model,Score,MRPC-a,MRPC-b,...; tab-polluted; xtrem.data column shift repaired)",
    )
)
