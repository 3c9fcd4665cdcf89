"""WMT Metrics Shared Task score files (``*.seg.score``, ``*.doc.score``, ``*.sys.score``, gzip or plain).

The native format of the WMT metrics task (Mathur et al., "Results of the
WMT20 Metrics Shared Task", WMT 2020): tab-separated, no header,

- system level:  ``METRIC LP TESTSET REFERENCE SYSTEM SCORE``
- document level: ``METRIC LP TESTSET REFERENCE SYSTEM DOCUMENT SCORE``
- segment level: ``METRIC LP TESTSET REFERENCE SYSTEM DOCUMENT SEGMENT SCORE``

The number of fields decides the level, whatever the file is called.

Naming (chosen so that voters are what the task scores):

- ``benchmark`` = ``wmtNN`` from the test set's year (``newstest2020`` -> ``wmt20``),
  else from a ``wmtNN`` folder in the path, else the ``benchmark`` argument
  must be given (an explicit argument always wins);
- ``task`` = the language pair (``de-en``) on the benchmark's main test set
  ``newstest20NN``, ``<lp>:<testset>`` on any other (``de-en:testsuites2020``);
- ``metric`` = ``METRIC`` against the main reference (``REFERENCE`` equal to the
  test set), ``METRIC@REFERENCE`` against an alternative one
  (``chrF@newstestB2020``), so that a system scored against two references is
  two voters, not a duplicate; system- and segment-level rows of one metric
  share (task, metric) and differ only in ``instance``;
- ``instance`` at segment level = the segment's identity in the test set, its
  1-based position, which is what the WMT20 DA files call ``SID`` (verified on
  de-en, ru-en and zh-en: the per-system-centred correlation of chrF with DA
  is 0.18-0.22 when aligned this way and about 0 when shifted by one), so the
  same segment scored by different metrics is one instance however each file
  numbers it (:mod:`transforms.parsers.wmt_segments`);
- document level: the documents are instances of their own task,
  ``<task>/doc`` (``de-en/doc``), instance = ``DOCUMENT``: rankable at instance
  level like segments, never mixed with them in one voter group, and joined
  with the document-level human scores (``metrics-ad-doc-scores-<lp>.csv``).
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.text import read_text, split_lines
from scorehouse.transforms.parsers.wmt_segments import segment_instances

SYSTEM_COLUMNS = ["METRIC", "LP", "TESTSET", "REFERENCE", "SYSTEM", "SCORE"]
SEGMENT_COLUMNS = ["METRIC", "LP", "TESTSET", "REFERENCE", "SYSTEM", "DOCUMENT", "SEGMENT", "SCORE"]
DOCUMENT_COLUMNS = ["METRIC", "LP", "TESTSET", "REFERENCE", "SYSTEM", "DOCUMENT", "SCORE"]
WIDTHS = {len(c): c for c in (SYSTEM_COLUMNS, DOCUMENT_COLUMNS, SEGMENT_COLUMNS)}
NAME = re.compile(r"\.(seg|doc|sys)\.score(\.gz)?$")
# The task of document-level scores: the documents are the instances of their own task.
DOCUMENT_TASK = "{}/doc"
WMT_FOLDER = re.compile(r"wmt(\d\d)(?!\d)", re.IGNORECASE)
YEAR = re.compile(r"(20\d\d)$")


def benchmark_from_path(path: Path) -> str | None:
    """``wmtNN`` from the innermost folder of ``path`` that names one."""
    for part in reversed(path.parent.parts):
        found = WMT_FOLDER.search(part)
        if found:
            return f"wmt{found.group(1)}"
    return None


def choose_benchmark(path: Path, benchmark: str | None, testsets: list[str]) -> str:
    """The explicit ``benchmark``, else the test sets' common year, else a ``wmtNN`` folder."""
    if benchmark is not None:
        return benchmark
    years = {found.group(1) if (found := YEAR.search(t)) else None for t in testsets}
    if len(years) == 1 and None not in years:
        return f"wmt{years.pop()[2:]}"
    from_path = benchmark_from_path(path)
    if from_path is not None:
        return from_path
    raise ParseError(
        path,
        f"cannot tell the WMT edition: test sets {sorted(testsets)[:5]} do not share one year and no "
        "folder is named wmtNN; pass --benchmark (e.g. wmt20)",
    )


def task_and_metric(benchmark: str, lp: str, testset: str, metric: str, reference: str) -> tuple[pl.Expr, pl.Expr]:
    """Expressions naming the task and metric of each row (see the module docstring)."""
    found = re.fullmatch(r"wmt(\d\d)", benchmark)
    main = f"newstest20{found.group(1)}" if found else None
    task = (
        pl.when(pl.col(testset) == pl.lit(main))
        .then(pl.col(lp))
        .otherwise(pl.format("{}:{}", pl.col(lp), pl.col(testset)))
    )
    name = (
        pl.when(pl.col(reference) == pl.col(testset))
        .then(pl.col(metric))
        .otherwise(pl.format("{}@{}", pl.col(metric), pl.col(reference)))
    )
    return task.alias("task"), name.alias("metric")


def sniff(path: Path, head: bytes) -> bool:
    if not NAME.search(path.name):
        return False
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    return first.count(b"\t") + 1 in WIDTHS


def parse(path: Path, benchmark: str | None) -> Parsed:
    text = read_text(path)
    first = next((line for line in text.split("\n", 50) if line.strip()), None)
    if first is None:
        raise ParseError(path, "empty file: no score lines")
    width = first.rstrip("\r").count("\t") + 1
    if width not in WIDTHS:
        raise ParseError(
            path,
            f"{width} tab-separated fields; a WMT score line has 6 (system level), 7 (document level) "
            "or 8 (segment level)",
            1,
        )
    frame = split_lines(path, text, separator="\t", columns=WIDTHS[width])
    testsets = frame.get_column("TESTSET").unique().sort().to_list()
    benchmark = choose_benchmark(path, benchmark, testsets)
    task, metric = task_and_metric(benchmark, "LP", "TESTSET", "METRIC", "REFERENCE")
    instance = pl.lit(None, dtype=pl.String)
    problems = []
    layouts = None
    if width == len(SEGMENT_COLUMNS):
        frame, documents, noticed = segment_instances(frame)
        problems.extend(noticed)
        instance = pl.col("instance")
        layouts = documents.select(
            benchmark=pl.lit(benchmark), task=task, document=pl.col("DOCUMENT"), first="first", last="last",
            numbering="numbering",
        )
    elif width == len(DOCUMENT_COLUMNS):
        task = pl.format(DOCUMENT_TASK, task).alias("task")
        instance = pl.col("DOCUMENT")
    rows = frame.select(
        benchmark=pl.lit(benchmark),
        task=task,
        metric=metric,
        instance=instance,
        system=pl.col("SYSTEM"),
        value=pl.when(pl.col("SCORE") == "").then(None).otherwise(pl.col("SCORE")),
        line=pl.col("line"),
    )
    alternative = frame.filter(pl.col("REFERENCE") != pl.col("TESTSET")).get_column("REFERENCE").unique().sort()
    if alternative.len():
        problems.append(
            "scores against alternative references are separate metrics named METRIC@REFERENCE: "
            + ", ".join(alternative.to_list())
        )
    return Parsed(rows, tuple(problems), segment_layouts=layouts)


register_format(
    Format(
        name="wmt-scores",
        parser_version=3,
        sniff=sniff,
        parse=parse,
        description="WMT metrics-task *.seg.score / *.doc.score / *.sys.score (tab-separated, gzip or plain)",
    )
)
