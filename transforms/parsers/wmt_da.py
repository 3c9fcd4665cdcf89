"""WMT human direct-assessment (DA) score files ``[metrics-]ad-{seg,doc,sys}-scores-<lp>.csv``.

The human judgments of the WMT news task as released with the metrics task
(Barrault et al., "Findings of the 2020 Conference on Machine Translation",
WMT 2020): space-separated, with a header, every line ending in a space.

- segment level: ``SYS SID RAW.SCR Z.SCR N`` (one row per rated segment of a system)
- system level:  ``RAW.SCR Z.SCR N SYS N.ALL``

and, as released for the metrics task (``metrics-ad-*``, the judgments the
task's correlations were computed against, with the metric files' system names):

- segment level:  ``SYS SEGID RAW.SCR Z.SCR N SID`` (``SEGID`` = ``document::segment``)
- document level: ``SYS SEGID RAW.SCR Z.SCR N`` (``SEGID`` = the document)

Naming: ``benchmark`` from the ``benchmark`` argument or a ``wmtNN`` folder in
the path; ``task`` = the language pair from the file name (the DA files rate
the main ``newstest`` set, so this is the task the WMT metric files use);
metrics ``DA-raw`` (mean 0-100 rating), ``DA-z`` (mean per-annotator
z-score), and the counts ``DA-N`` (ratings of the segment, or of the system)
and ``DA-N.all`` (system level: all ratings collected, before quality control).
The counts are kept, not dropped, so that nothing published is lost; the
metric catalog marks them not ranked.  ``instance`` = ``SID`` as published: a
1-based position in the test set for into-English pairs (the same id the WMT
segment-level metric parser gives), ``<document>_<0-based segment>`` for
out-of-English pairs (these do not join with metric instances; reported).
System names are as published (``HUMAN.0``, ``HUMAN-A``), not those of the
metric files (``Human-A.0``).  The ``metrics-ad-*`` files are the same kind of
judgment prepared for the metrics task: their metrics are named ``mDA-raw``,
``mDA-z``, ``mDA-N`` (``mDA-N.all``), so that neither release of a cell hides
the other; their segment instance is ``SID`` (``SEGID`` only names it), and their
documents are instances of the task ``<lp>/doc``, the task of the
document-level metric files.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError
from scorehouse.transforms.parsers.text import read_text, split_lines
from scorehouse.transforms.parsers.wmt import DOCUMENT_TASK, benchmark_from_path

NAME = re.compile(r"^(?P<release>metrics-)?ad-(?P<level>seg|doc|sys)-scores-(?P<lp>[^.]+)\.csv$")
# The header of each (release, level) the release publishes.
LAYOUTS = {
    ("", "seg"): ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"],
    ("", "sys"): ["RAW.SCR", "Z.SCR", "N", "SYS", "N.ALL"],
    ("metrics-", "seg"): ["SYS", "SEGID", "RAW.SCR", "Z.SCR", "N", "SID"],
    ("metrics-", "doc"): ["SYS", "SEGID", "RAW.SCR", "Z.SCR", "N"],
    ("metrics-", "sys"): ["RAW.SCR", "Z.SCR", "N", "SYS", "N.ALL"],
}
METRIC_NAMES = {"RAW.SCR": "DA-raw", "Z.SCR": "DA-z", "N": "DA-N", "N.ALL": "DA-N.all"}


def header_of(text: str) -> list[str]:
    return text.split("\n", 1)[0].rstrip("\r").rstrip(" ").split(" ")


def layout_of(found: re.Match[str]) -> list[str] | None:
    return LAYOUTS.get((found.group("release") or "", found.group("level")))


def sniff(path: Path, head: bytes) -> bool:
    found = NAME.match(path.name)
    if not found:
        return False
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    return header_of(first) == layout_of(found)


def parse(path: Path, benchmark: str | None) -> Parsed:
    found = NAME.match(path.name)
    if not found:
        raise ParseError(
            path, "the language pair and level come from the file name; name it [metrics-]ad-{seg,doc,sys}-scores-<lp>.csv"
        )
    text = read_text(path)
    header = header_of(text)
    expected = layout_of(found)
    if expected is None:
        raise ParseError(path, f"the WMT release has no {found.group('level')}-level {found.group('release') or ''}ad file")
    if header != expected:
        raise ParseError(path, f"the header is not the one a {path.name[:-4]} file has, {' '.join(expected)!r}", 1)
    benchmark = benchmark or benchmark_from_path(path)
    if benchmark is None:
        raise ParseError(path, "DA files do not name the WMT edition and no folder is named wmtNN; pass --benchmark (e.g. wmt20)")
    frame = split_lines(path, text, separator=" ", columns=header, skip=1, strip_end=True)
    segments = "SID" in header
    document = found.group("level") == "doc"
    prefix = "m" if found.group("release") else ""
    scores = [c for c in header if c in METRIC_NAMES]
    instance = pl.col("SID") if segments else pl.col("SEGID") if document else pl.lit(None, dtype=pl.String)
    rows = (
        frame.with_columns(instance=instance)
        .unpivot(index=["SYS", "instance", "line"], on=scores, variable_name="column", value_name="value")
        .sort("line", maintain_order=True)
        .select(
            benchmark=pl.lit(benchmark),
            task=pl.lit(DOCUMENT_TASK.format(found.group("lp")) if document else found.group("lp")),
            metric=pl.lit(prefix) + pl.col("column").replace_strict(METRIC_NAMES),
            instance="instance",
            system="SYS",
            value="value",
            line="line",
        )
    )
    problems = []
    if segments:
        local = frame.filter(~pl.col("SID").str.contains(r"^\d+$"))
        if local.height:
            problems.append(
                f"{local.height} SIDs are document-local (e.g. {local.get_column('SID')[0]!r} = document, "
                "0-based segment); they do not join with the segment numbers of WMT metric files"
            )
    return Parsed(rows, tuple(problems))


register_format(
    Format(
        name="wmt-da",
        parser_version=1,  # new layouts only: the files version 1 read give the same rows
        sniff=sniff,
        parse=parse,
        description="WMT human direct assessment [metrics-]ad-{seg,doc,sys}-scores-<lp>.csv",
    )
)
