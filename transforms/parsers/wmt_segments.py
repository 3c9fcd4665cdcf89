"""A WMT segment's identity in its test set, whatever numbering its score file uses.

WMT segment-level files (``METRIC LP TESTSET REFERENCE SYSTEM DOCUMENT SEGMENT
SCORE``) number segments one of two ways: ``SEGMENT`` is the segment's global
1-based position in the test set, or it restarts at 1 in every ``DOCUMENT``.
Both name the same segment by its global position, which is the instance id
(the ``SID`` of the WMT DA files), so the same segment scored by two metrics
is one instance however each file numbers it.  Per test set (``LP``,
``TESTSET``) of one file:

- **global**: no ``SEGMENT`` number occurs in two documents; the instance is
  ``SEGMENT`` itself (file order does not matter);
- **per document**: a number occurs in several documents.  The documents are
  in the test set's order of first appearance in the file, each as long as its
  largest ``SEGMENT``, so a segment's position is the length of the documents
  before its own plus its ``SEGMENT``;
- **irreconcilable**: ``SEGMENT`` is not a positive integer, global numbers of
  different documents interleave, or per-document numbering lists the
  documents in different orders for different systems, references or metrics,
  so the test set's order is unknown.  The file's own
  key ``DOCUMENT::SEGMENT`` is kept (the form of the DA files' ``SEGID``) and the
  problem is reported by test set: such instances do not join with the
  segments of other files, but no score is lost.

Every document of a global or per-document test set has a *layout*: the
positions ``first..last`` the file gives its segments.  Whether it agrees with
the other files of the test set is decided when the file is stored
(:mod:`transforms.segment_layouts`).
"""

from __future__ import annotations

import polars as pl

TESTSET = ["LP", "TESTSET"]
# One ranked list of segments: every (reference, system, metric) of a test set lists its own.
LISTING = [*TESTSET, "REFERENCE", "SYSTEM", "METRIC"]


def numbering(frame: pl.DataFrame) -> pl.DataFrame:
    """Per test set of ``frame`` (with ``number``: ``SEGMENT`` as an integer): ``scheme`` global,
    per-document or the reason it is irreconcilable."""
    documents = frame.group_by([*TESTSET, "DOCUMENT"]).agg(first=pl.col("line").min())
    documents = documents.with_columns(order=pl.col("first").rank("ordinal").over(TESTSET))
    listed = (
        frame.group_by([*LISTING, "DOCUMENT"]).agg(first=pl.col("line").min())
        .join(documents.select(*TESTSET, "DOCUMENT", "order"), on=[*TESTSET, "DOCUMENT"])
        .sort("first")
        .with_columns(backwards=pl.col("order").diff().over(LISTING) < 0)
    )
    shared = frame.group_by([*TESTSET, "number"]).agg(pl.col("DOCUMENT").n_unique().alias("documents"))
    # global numbers: each document's segments a run of their own, so documents' spans never overlap
    spans = (
        frame.group_by([*TESTSET, "DOCUMENT"]).agg(low=pl.col("number").min(), high=pl.col("number").max())
        .sort([*TESTSET, "low"])
        .with_columns(overlaps=pl.col("low") <= pl.col("high").shift(1).over(TESTSET))
    )
    facts = (
        frame.group_by(TESTSET).agg(bad=(pl.col("number").is_null() | (pl.col("number") < 1)).any())
        .join(shared.group_by(TESTSET).agg(restarts=(pl.col("documents") > 1).any()), on=TESTSET)
        .join(listed.group_by(TESTSET).agg(pl.col("backwards").any()), on=TESTSET)
        .join(spans.group_by(TESTSET).agg(pl.col("overlaps").any()), on=TESTSET)
    )
    scheme = (
        pl.when(pl.col("bad")).then(pl.lit("SEGMENT is not a positive integer"))
        .when(~pl.col("restarts") & pl.col("overlaps")).then(pl.lit("global segment numbers of different documents interleave"))
        .when(~pl.col("restarts")).then(pl.lit("global"))
        .when(pl.col("backwards")).then(pl.lit("the documents are listed in different orders for different systems"))
        .otherwise(pl.lit("per-document"))
    )
    return facts.select(*TESTSET, scheme=scheme)


def segment_instances(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """``frame`` with ``instance`` (see the module docstring), the layout of every document of a global
    or per-document test set (``LP, TESTSET, DOCUMENT, first, last, numbering``) and what the
    numbering made it report."""
    frame = frame.with_columns(number=pl.col("SEGMENT").str.strip_chars().cast(pl.Int64, strict=False))
    schemes = numbering(frame)
    documents = (
        frame.group_by([*TESTSET, "DOCUMENT"])
        .agg(first_line=pl.col("line").min(), low=pl.col("number").min(), length=pl.col("number").max())
        .sort("first_line")
        .with_columns(offset=(pl.col("length").cum_sum() - pl.col("length")).over(TESTSET))
        .join(schemes, on=TESTSET)
    )
    offsets = documents.select(*TESTSET, "DOCUMENT", "offset")
    layouts = documents.filter(pl.col("scheme").is_in(["global", "per-document"])).select(
        *TESTSET, "DOCUMENT",
        first=pl.when(pl.col("scheme") == "global").then(pl.col("low")).otherwise(pl.col("offset") + 1),
        last=pl.when(pl.col("scheme") == "global").then(pl.col("length")).otherwise(pl.col("offset") + pl.col("length")),
        numbering=pl.col("scheme"),
    )
    frame = frame.join(schemes, on=TESTSET, how="left").join(offsets, on=[*TESTSET, "DOCUMENT"], how="left")
    instance = (
        pl.when(pl.col("scheme") == "global").then(pl.col("number").cast(pl.String))
        .when(pl.col("scheme") == "per-document").then((pl.col("offset") + pl.col("number")).cast(pl.String))
        .otherwise(pl.format("{}::{}", "DOCUMENT", "SEGMENT"))
    )
    frame = frame.sort("line").with_columns(instance=instance).drop("number", "scheme", "offset")
    problems = [
        f"{lp} {testset}: {scheme}, so the segments' places in the test set are unknown; "
        "their instances are the file's own DOCUMENT::SEGMENT and do not join with other files' segments"
        for lp, testset, scheme in schemes.sort(TESTSET).rows()
        if scheme not in ("global", "per-document")
    ]
    return frame, layouts, problems
