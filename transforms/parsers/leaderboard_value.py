"""The VALUE video-and-language leaderboard in the Vote'n'Rank scrape.

File ``vote_and_rank/tables/leaderboards - VALUE.csv`` (Rofin et al. 2023,
Vote'n'Rank; benchmark by Li et al. 2021, "VALUE: A Multi-Task Benchmark for
Video-and-Language Understanding Evaluation", NeurIPS Datasets and
Benchmarks).  One column per task plus the leaderboard's own ``Mean-Rank``
(lower is better) and ``Meta-Ave``; ``-`` marks a task the system did not
submit.  Metrics as VALUE defines them:

=========================================  ========
task                                       metric
=========================================  ========
Mean-Rank                                  rank
Meta-Ave                                   avg
TVR, How2R, YC2R, VATEX-EN-R (retrieval)   AveR   (average of R@1, R@5, R@10)
TVQA, How2QA, VIOLIN, VLEP (QA, inference) acc
TVC, YC2C, VATEX-EN-C (captioning)         CIDEr-D
=========================================  ========

The scraped model cells hold line breaks, an HTML comment, the team glued
after the model (``craig.starr (ensemble)Kakao BrainPaper``) and the
leaderboard's link labels; :func:`clean_names` turns them into readable
names (``craig.starr (ensemble) Kakao Brain``) and every change is reported.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed
from scorehouse.transforms.parsers.leaderboard_table import (
    ValueColumn,
    check_header,
    check_width,
    header_fields,
    normalized_names,
    read_table,
    table_rows,
)

TASKS: tuple[tuple[str, str], ...] = (
    ("Mean-Rank", "rank"),
    ("Meta-Ave", "avg"),
    ("TVR", "AveR"),
    ("How2R", "AveR"),
    ("YC2R", "AveR"),
    ("VATEX-EN-R", "AveR"),
    ("TVQA", "acc"),
    ("How2QA", "acc"),
    ("VIOLIN", "acc"),
    ("VLEP", "acc"),
    ("TVC", "CIDEr-D"),
    ("YC2C", "CIDEr-D"),
    ("VATEX-EN-C", "CIDEr-D"),
)
HEADER = ("Model",) + tuple(task for task, _ in TASKS)


def clean_names(raw: pl.Expr) -> pl.Expr:
    """Readable system names from scraped leaderboard cells: HTML comments and
    tags removed, trailing ``Paper``/``Code`` link labels removed, a space put
    where the team name was glued to the model (after ``)`` or between an
    acronym and a capitalised word: ``DuKGBaidu`` -> ``DuKG Baidu``), and
    whitespace runs collapsed."""
    name = (
        raw.str.replace_all(r"(?s)<!--.*?-->", " ")
        .str.replace_all(r"<[^>]*>", " ")
        .str.replace(r"(?:\s*,?\s*(?:Paper|Code))+\s*$", "")
        .str.replace_all(r"\)(\w)", ") $1")
        .str.replace_all(r"([A-Z])([A-Z][a-z])", "$1 $2")
    )
    return normalized_names(name)


def sniff(path: Path, head: bytes) -> bool:
    if path.suffix != ".csv":  # before the header: most files a folder holds are not CSV
        return False
    fields = header_fields(head)
    return fields is not None and tuple(fields) == HEADER


def parse(path: Path, benchmark: str | None) -> Parsed:
    table = read_table(path)
    check_header(table, HEADER, "VALUE leaderboard")
    check_width(table)
    raw = pl.Series([row[0] for row in table.rows], dtype=pl.String())
    names = pl.select(clean_names(pl.lit(raw))).to_series()
    cleaning = [f"line {line}: system name {before!r} cleaned to {after!r}"
                for before, after, line in zip(raw, names, table.lines, strict=True) if before != after]
    columns = [ValueColumn(index=i + 1, task=task, metric=metric) for i, (task, metric) in enumerate(TASKS)]
    return table_rows(
        table, system=clean_names(pl.col("c0")), benchmark=benchmark or "value", columns=columns, notes=cleaning
    )


FORMAT = register_format(
    Format(
        name="value-leaderboard",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="VALUE leaderboard scrape of Vote'n'Rank (Model,Mean-Rank,Meta-Ave,13 tasks; HTML in names)",
    )
)
