"""A generic wide leaderboard: one row per system, one column per score.

The first column names the system; every other column is a value column
whose (task, metric) comes from its name by the file's rule in
:data:`KNOWN_FILES`; blank and ``-`` cells are missing.  Files it knows:

==============================================  ==================  =====================================
file (original path)                            benchmark           task, metric of column ``c``
==============================================  ==================  =====================================
MissingDataRanking ``data_task/gem.csv``,       gem-avg             ``mean-over-splits``, ``c``
``data_task/gem_filtered.csv``
vote_and_rank ``case_study_4/glue_hpc.csv``     glue-hpc            split at the first ``.``
                                                                    (``mrpc.eval_f1`` -> mrpc, eval_f1)
vote_and_rank ``.../social_bias_data.csv``      social-bias         ``c``, ``score``
vote_and_rank ``.../experiment_tracker_table``  experiment-tracker  split at the first ``_``
``.csv``                                                            (``mnli-mm_gpu_hours`` -> mnli-mm,
                                                                    gpu_hours)
==============================================  ==================  =====================================

``gem.csv`` averages each system over the dataset splits it submitted
(Himmi et al. 2023, MissingDataRanking), hence its single task.  Any other
file can be read with ``--format wide-leaderboard`` and a ``benchmark``;
its columns become task ``c``, metric ``score``.  Sniffing accepts only the
known file names with their first two header columns, so it never claims
another format's file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.leaderboard_table import (
    ValueColumn,
    check_width,
    header_fields,
    normalized_names,
    read_table,
    table_rows,
)


@dataclass(frozen=True)
class Layout:
    """How a known file's column names become (task, metric)."""

    benchmark: str
    system_column: str
    first_score_column: str = ""  # with system_column: the header start that identifies the file
    separator: str | None = None  # split the name at its first separator
    task: str | None = None  # one task for every column, the name is the metric

    def task_metric(self, column: str) -> tuple[str, str]:
        if self.task is not None:
            return self.task, column
        if self.separator is not None and self.separator in column.strip(self.separator):
            task, metric = column.split(self.separator, 1)
            return task, metric
        return column, "score"


KNOWN_FILES: dict[str, Layout] = {
    "gem.csv": Layout("gem-avg", "Model", "mean_pred_length", task="mean-over-splits"),
    "gem_filtered.csv": Layout("gem-avg", "Model", "mean_pred_length", task="mean-over-splits"),
    "glue_hpc.csv": Layout("glue-hpc", "model_name", "wnli.eval_accuracy", separator="."),
    "social_bias_data.csv": Layout("social-bias", "model_name", "anti_crows_score"),
    "experiment_tracker_table.csv": Layout("experiment-tracker", "model_name", "rte_gpu_hours", separator="_"),
}


def sniff(path: Path, head: bytes) -> bool:
    layout = KNOWN_FILES.get(path.name)
    if layout is None:  # before the header: a file of another name is not one of these
        return False
    fields = header_fields(head)
    return fields is not None and fields[:2] == [layout.system_column, layout.first_score_column]


def parse(path: Path, benchmark: str | None) -> Parsed:
    layout = KNOWN_FILES.get(path.name)
    if layout is None and benchmark is None:
        raise ParseError(
            path,
            f"no default benchmark for a wide leaderboard named {path.name!r}; pass a benchmark name "
            f"(known files: {', '.join(sorted(KNOWN_FILES))})",
        )
    layout = layout or Layout(benchmark, "")
    table = read_table(path)
    if len(table.header) < 2:
        raise ParseError(path, "the header has no score column after the system column", 1)
    check_width(table)
    unnamed = [i + 1 for i, name in enumerate(table.header) if not name]
    if unnamed:
        raise ParseError(path, f"header column(s) {unnamed} have no name; name every score column", 1)
    names = [layout.task_metric(name) for name in table.header[1:]]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ParseError(path, f"columns repeat the (task, metric) {repeated}; rename the columns", 1)
    columns = [ValueColumn(index=i + 1, task=task, metric=metric) for i, (task, metric) in enumerate(names)]
    return table_rows(
        table,
        system=normalized_names(pl.col("c0")),
        benchmark=benchmark or layout.benchmark,
        columns=columns,
        notes=[],
    )


FORMAT = register_format(
    Format(
        name="wide-leaderboard",
        parser_version=1,
        sniff=sniff,
        parse=parse,
        description="one row per system, one column per score (gem.csv, case study 4 tables; "
        "others with --format and a benchmark)",
    )
)
