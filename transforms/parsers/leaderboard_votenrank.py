"""GLUE and SuperGLUE leaderboards in the Vote'n'Rank layout.

Files ``vote_and_rank/tables/leaderboards - GLUE.csv`` and ``... - SuperGLUE.csv``
(Rofin et al. 2023, "Vote'n'Rank: Revision of Benchmarking with Social
Choice Theory", EACL): columns ``Rank, Name, Model, URL, Score`` and one per
task; a task with two metrics holds both in one cell ``F1/acc``, split here
into two rows named by :mod:`transforms.parsers.leaderboard_columns`.  The
system is ``Model``; repeated names get ``_1``, ``_2`` like the Vote'n'Rank
code.  ``Rank``, ``Name`` (the team) and ``URL`` are not scores.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed
from scorehouse.transforms.parsers.leaderboard_columns import FAMILIES, Task
from scorehouse.transforms.parsers.leaderboard_table import (
    ValueColumn,
    check_width,
    header_fields,
    normalized_names,
    read_known_table,
    table_rows,
)

META = ("Rank", "Name", "Model", "URL")


def expected_header(tasks: tuple[Task, ...]) -> tuple[str, ...]:
    return META + tuple(t.task for t in tasks)


HEADERS = {expected_header(FAMILIES[f][0]): f for f in ("GLUE", "SuperGLUE")}


def sniff(path: Path, head: bytes) -> bool:
    if path.suffix != ".csv":  # before the header: most files a folder holds are not CSV
        return False
    fields = header_fields(head)
    return fields is not None and tuple(fields) in HEADERS


def parse(path: Path, benchmark: str | None) -> Parsed:
    table, family = read_known_table(path, HEADERS, "Vote'n'Rank")
    check_width(table)
    tasks, default_benchmark, _ = FAMILIES[family]
    columns = [
        ValueColumn(index=len(META) + i, task=t.task, metric=m, half=h if len(t.metrics) == 2 else None)
        for i, t in enumerate(tasks)
        for h, m in enumerate(t.metrics)
    ]
    return table_rows(
        table,
        system=normalized_names(pl.col(f"c{META.index('Model')}")),
        benchmark=benchmark or default_benchmark,
        columns=columns,
        notes=[],
    )


FORMAT = register_format(
    Format(
        name="votenrank-leaderboard",
        parser_version=2,  # 2: a paired cell with one value is quarantined, not copied into both halves
        sniff=sniff,
        parse=parse,
        description="GLUE / SuperGLUE leaderboard scrape of Vote'n'Rank (Rank,Name,Model,URL,Score,tasks; "
        "paired cells a/b)",
    )
)
