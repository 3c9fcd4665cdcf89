"""The cross-file check of WMT segment numbering (transforms.segment_layouts), on layouts worked out by hand.

Test set de-en: document d1 (segments 1-3) then d2 (segments 4-5).
"""

from __future__ import annotations

import polars as pl

from scorehouse.transforms.parsers.base import Parsed
from scorehouse.transforms.segment_layouts import conflicts, own_keys, reconcile
from scorehouse.warehouse.schema import SEGMENT_LAYOUTS


def layout(*documents: tuple[str, int, int, str]) -> pl.DataFrame:
    return pl.DataFrame(
        [{"benchmark": "wmt20", "task": "de-en", "document": d, "first": f, "last": la, "numbering": n}
         for d, f, la, n in documents],
        schema=SEGMENT_LAYOUTS,
    )


GLOBAL = layout(("d1", 1, 3, "global"), ("d2", 4, 5, "global"))
PER_DOCUMENT = layout(("d1", 1, 3, "per-document"), ("d2", 4, 5, "per-document"))
NOTHING = layout()


def reasons(new: pl.DataFrame, known: pl.DataFrame) -> list[str]:
    return conflicts(new, known).get_column("reason").to_list()


def test_files_that_agree_have_no_conflict():
    assert reasons(PER_DOCUMENT, GLOBAL) == []
    assert reasons(GLOBAL, PER_DOCUMENT) == []
    assert reasons(PER_DOCUMENT, NOTHING) == []
    # a global file that did not score d1's first segment, nor d2's last
    assert reasons(layout(("d1", 2, 3, "global"), ("d2", 4, 4, "global")), PER_DOCUMENT) == []
    # another test set is not compared
    other = GLOBAL.with_columns(task=pl.lit("ru-en"), first=pl.col("first") + 7, last=pl.col("last") + 7)
    assert reasons(other, PER_DOCUMENT) == []


def test_documents_listed_in_another_order():
    # d2 listed first: the file puts d2 at 1-2 and d1 at 3-5
    swapped = layout(("d2", 1, 2, "per-document"), ("d1", 3, 5, "per-document"))
    assert reasons(swapped, PER_DOCUMENT) == ["files numbered per document start document d1 at different segments 1 and 3"]
    assert reasons(swapped, GLOBAL) == ["document d1 starts at segment 3 by its documents' order, but a file numbered globally has its segment 1"]


def test_a_document_whose_last_segment_is_missing_shifts_the_next():
    # d1 scored on segments 1-2 only: d2 inferred at 3-4, overlapping d1's 1-3 of the global file
    short = layout(("d1", 1, 2, "per-document"), ("d2", 3, 4, "per-document"))
    assert reasons(short, GLOBAL) == ["documents d1 and d2 overlap (segments 3..5 and up to 3)"]


def test_own_keys_restore_the_files_numbering():
    short = layout(("d1", 1, 2, "per-document"), ("d2", 3, 4, "per-document"))
    rows = pl.DataFrame({"benchmark": "wmt20", "task": ["de-en", "de-en", "de-en", "ru-en"],
                         "instance": ["4", "1", "3", "4"], "value": ["a", "b", "c", "d"]})
    keyed = own_keys(rows, short, pl.DataFrame({"benchmark": ["wmt20"], "task": ["de-en"]}))
    # de-en: 4 is d2's second segment, 1 is d1's first, 3 is d2's first; ru-en untouched
    assert keyed.get_column("instance").to_list() == ["d2::2", "d1::1", "d2::1", "4"]
    assert keyed.get_column("value").to_list() == ["a", "b", "c", "d"]
    globally = own_keys(rows, GLOBAL, pl.DataFrame({"benchmark": ["wmt20"], "task": ["de-en"]}))
    assert globally.get_column("instance").to_list() == ["d2::4", "d1::1", "d1::3", "4"]


def test_reconcile_keeps_an_agreeing_file_and_rekeys_a_disagreeing_one():
    rows = pl.DataFrame({"benchmark": "wmt20", "task": "de-en", "metric": "chrF", "instance": ["1", "4"],
                         "system": "s1", "value": ["0.5", "0.25"], "line": [1, 2]})
    agreeing = Parsed(rows, segment_layouts=PER_DOCUMENT)
    same, problems = reconcile(agreeing, GLOBAL)
    assert same is agreeing and problems == ()
    swapped = layout(("d2", 1, 2, "per-document"), ("d1", 3, 5, "per-document"))
    rekeyed, problems = reconcile(Parsed(rows, segment_layouts=swapped), GLOBAL)
    assert rekeyed.rows.get_column("instance").to_list() == ["d2::1", "d1::2"]
    assert rekeyed.segment_layouts.height == 0  # a layout that disagrees is not kept
    assert len(problems) == 1 and problems[0].startswith("wmt20 de-en: the segment numbering does not agree")


def test_a_global_file_that_disagrees_keeps_its_numbers():
    """Its numbers are positions whatever was stored: the stored per-document file is the one at fault."""
    rows = pl.DataFrame({"benchmark": "wmt20", "task": "de-en", "metric": "BLEU", "instance": ["3", "4"],
                         "system": "s1", "value": ["0.5", "0.25"], "line": [1, 2]})
    short = layout(("d1", 1, 2, "per-document"), ("d2", 3, 4, "per-document"))  # stored first, shifted
    kept, problems = reconcile(Parsed(rows, segment_layouts=GLOBAL), short)
    assert kept.rows.get_column("instance").to_list() == ["3", "4"]
    assert kept.segment_layouts.height == 0  # not stored: the stored layouts keep agreeing with each other
    assert len(problems) == 1 and "its global segment numbers are kept" in problems[0]
