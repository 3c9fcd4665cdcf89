"""Whether a WMT segment-level file numbers its test sets as the files already stored do.

A segment's instance is its position in the test set
(:mod:`transforms.parsers.wmt_segments`), which a file numbered per document
infers from the order and the lengths of its documents.  One file cannot tell
that inference wrong (documents listed in another order, a document whose last
segments it did not score); the other files of the same test set can.  Each
document of a file has a layout, the positions ``first..last`` the file gives
its segments (:data:`warehouse.schema.SEGMENT_LAYOUTS`).  A new file's layout of
a test set (benchmark, task) *agrees* with the stored ones when, over the union:

- every file numbered per document starts the document at the same position;
- no file numbered globally has a segment of the document before that start;
- the spans ``min(first)..max(last)`` of different documents do not overlap.

A file that agrees keeps its instances and its layout is stored, so later
files are checked against it too (the stored layouts agree with each other:
each was checked against those before it).  A file that does not is never
rejected, and its layout of that test set is not stored; the problem names the
test set and the document at fault.  Its instances there:

- numbered per document: the file's own ``DOCUMENT::SEGMENT`` (they no longer
  join with the other files' segments), since its positions were inferred;
- numbered globally: kept, since a global number is the segment's position
  whatever was stored before; the problem says that the stored files numbered
  per document are the ones that disagree (their keys are not changed).

So the outcome does not depend on the order of the files for a global one.
"""

from __future__ import annotations

import polars as pl

from scorehouse.transforms.parsers.base import Parsed

TEST_SET = ["benchmark", "task"]


def conflicts(new: pl.DataFrame, known: pl.DataFrame) -> pl.DataFrame:
    """The test sets of ``new`` whose layout disagrees with ``known`` (``benchmark, task, reason``), one row each.

    Both are :data:`warehouse.schema.SEGMENT_LAYOUTS` frames; ``known`` agrees with itself.
    """
    both = pl.concat([known.with_columns(new=pl.lit(False)), new.with_columns(new=pl.lit(True))])
    both = both.join(new.select(TEST_SET).unique(), on=TEST_SET)  # only the test sets the new file numbers
    per_document = both.group_by([*TEST_SET, "document"]).agg(
        starts=pl.col("first").filter(pl.col("numbering") == "per-document").unique().sort(),
        earliest_global=pl.col("first").filter(pl.col("numbering") == "global").min(),
        low=pl.col("first").min(),
        high=pl.col("last").max(),
    )
    start = pl.col("starts").list.first()
    found = (
        per_document.sort([*TEST_SET, "low", "document"])
        .with_columns(previous=pl.col("document").shift(1).over(TEST_SET), previous_high=pl.col("high").shift(1).over(TEST_SET))
        .with_columns(
            reason=pl.when(pl.col("starts").list.len() > 1)
            .then(pl.format("files numbered per document start document {} at different segments {}",
                            "document", pl.col("starts").cast(pl.List(pl.String)).list.join(" and ")))
            .when(pl.col("earliest_global") < start)
            .then(pl.format("document {} starts at segment {} by its documents' order, but a file numbered "
                            "globally has its segment {}", "document", start, "earliest_global"))
            .when(pl.col("low") <= pl.col("previous_high"))
            .then(pl.format("documents {} and {} overlap (segments {}..{} and up to {})",
                            "previous", "document", "low", "high", "previous_high"))
        )
        .filter(pl.col("reason").is_not_null())
    )
    return found.group_by(TEST_SET, maintain_order=True).agg(pl.col("reason").first()).sort(TEST_SET)


def own_keys(rows: pl.DataFrame, layouts: pl.DataFrame, test_sets: pl.DataFrame) -> pl.DataFrame:
    """``rows`` (parsed) with the instances of ``test_sets`` turned back into the file's own ``DOCUMENT::SEGMENT``.

    Within one file the documents' spans are disjoint (the parser refuses interleaved
    numbers), so a segment's document is the one whose span starts last at or before it.
    """
    order = pl.int_range(pl.len()).alias("row_order")
    rows = rows.with_columns(order)
    chosen = rows.join(test_sets.select(TEST_SET), on=TEST_SET).with_columns(
        position=pl.col("instance").cast(pl.Int64)
    )
    spans = layouts.join(test_sets.select(TEST_SET), on=TEST_SET).sort("first")
    # both sides sorted by the key, so each test set's rows are too (what Polars cannot check with ``by``)
    keyed = chosen.sort("position").join_asof(spans, left_on="position", right_on="first", by=TEST_SET,
                                              strategy="backward", check_sortedness=False)
    segment = pl.when(pl.col("numbering") == "per-document").then(pl.col("position") - pl.col("first") + 1).otherwise(
        pl.col("position")
    )
    keyed = keyed.select("row_order", own=pl.format("{}::{}", "document", segment))
    return (
        rows.join(keyed, on="row_order", how="left")
        .with_columns(instance=pl.coalesce("own", "instance"))
        .sort("row_order")
        .drop("row_order", "own")
    )


def reconcile(parsed: Parsed, known: pl.DataFrame) -> tuple[Parsed, tuple[str, ...]]:
    """``parsed`` with its disagreeing test sets keyed by the file's own numbering, and the problems to report."""
    layouts = parsed.segment_layouts
    if layouts is None or not layouts.height:
        return parsed, ()
    bad = conflicts(layouts, known)
    if not bad.height:
        return parsed, ()
    numbering = layouts.group_by(TEST_SET).agg(globally=(pl.col("numbering") == "global").all())
    bad = bad.join(numbering, on=TEST_SET)
    rows = own_keys(parsed.rows, layouts, bad.filter(~pl.col("globally")))
    kept = layouts.join(bad.select(TEST_SET), on=TEST_SET, how="anti")
    problems = tuple(
        f"{benchmark} {task}: the segment numbering does not agree with the files of this test set already "
        f"stored ({reason}); "
        + ("its global segment numbers are kept: the stored files numbered per document are the ones that "
           "disagree (their keys are not changed)" if globally else
           "its instances are the file's own DOCUMENT::SEGMENT and do not join with theirs")
        for benchmark, task, reason, globally in bad.rows()
    )
    return Parsed(rows, parsed.problems, parsed.table, parsed.systems, kept), problems
