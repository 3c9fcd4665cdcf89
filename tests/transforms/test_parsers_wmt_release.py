"""The whole WMT metrics-task release, on files written here from the format descriptions.

Segment numbering (global or restarting in every document), document-level metric files, the
``metrics-ad-*`` human files and the Wilcoxon p-value matrices.  Expected instance ids are
worked out by hand in the comments: test set = document d1 (3 segments) then d2 (2 segments).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from scorehouse.transforms.parsers import detect_format, parse_file
from scorehouse.transforms.parsers.base import NotScoresError

HEAD = "{metric}\tde-en\tnewstest2020\tnewstest2020\t{system}"
# (document, segment within the document, global position) of the five segments.
SEGMENTS = [("d1", 1, 1), ("d1", 2, 2), ("d1", 3, 3), ("d2", 1, 4), ("d2", 2, 5)]


def seg_line(metric: str, system: str, document: str, segment: str, score: float) -> str:
    return f"{HEAD.format(metric=metric, system=system)}\t{document}\t{segment}\t{score}\n"


def write(path: Path, text: str, compress: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode()) if compress else text.encode())
    return path


def keyed(path: Path) -> dict[tuple[str, str], str]:
    """(system, value) -> instance, values being unique per file in these fixtures."""
    rows = parse_file(path)[1].rows
    return {(r["system"], r["value"]): r["instance"] for r in rows.iter_rows(named=True)}


def test_both_numberings_name_the_same_segment(tmp_path: Path):
    # Per-document file in test-set order; global file listed in a shuffled order.
    local = "".join(
        seg_line("A", sys, doc, str(seg), 10 * k + i)
        for k, sys in enumerate(["s1", "s2"]) for i, (doc, seg, _) in enumerate(SEGMENTS)
    )
    shuffled = [SEGMENTS[i] for i in (4, 0, 3, 2, 1)]
    glob = "".join(
        seg_line("B", sys, doc, str(pos), 100 * k + pos) for k, sys in enumerate(["s1", "s2"]) for doc, _, pos in shuffled
    )
    a = keyed(write(tmp_path / "wmt20" / "A.seg.score", local))
    b = keyed(write(tmp_path / "wmt20" / "B.seg.score.gz", glob, compress=True))
    for i, (_, _, pos) in enumerate(SEGMENTS):
        assert a[("s1", str(i))] == str(pos)          # per document: offset of d1 (3) + segment
        assert a[("s2", str(10 + i))] == str(pos)
        assert b[("s2", str(100 + pos))] == str(pos)  # global: SEGMENT itself
    assert parse_file(tmp_path / "wmt20" / "A.seg.score")[1].problems == ()


def test_documents_in_different_orders_keep_the_files_own_key(tmp_path: Path):
    text = (
        seg_line("A", "s1", "d1", "1", 1) + seg_line("A", "s1", "d2", "1", 2)
        + seg_line("A", "s2", "d2", "1", 3) + seg_line("A", "s2", "d1", "1", 4)
    )
    parsed = parse_file(write(tmp_path / "wmt20" / "A.seg.score", text))[1]
    assert parsed.rows.get_column("instance").to_list() == ["d1::1", "d2::1", "d2::1", "d1::1"]
    assert len(parsed.problems) == 1 and "de-en newstest2020" in parsed.problems[0]
    assert "different orders" in parsed.problems[0]


def test_non_numeric_segments_keep_the_files_own_key(tmp_path: Path):
    parsed = parse_file(write(tmp_path / "wmt20" / "A.seg.score", seg_line("A", "s1", "d1", "x7", 1)))[1]
    assert parsed.rows.get_column("instance").to_list() == ["d1::x7"]
    assert "not a positive integer" in parsed.problems[0]


def test_document_level_files_are_instances_of_their_own_task(tmp_path: Path):
    text = (
        f"{HEAD.format(metric='BLEU', system='s1')}\tdoc.1\t0.5\n"
        f"{HEAD.format(metric='BLEU', system='s1')}\tdoc.2\t0.25\n"
        "BLEU\tde-en\tnewstest2020\tnewstestB2020\ts1\tdoc.1\t0.4\n"
    )
    plain = write(tmp_path / "wmt20" / "BLEU.doc.score", text)
    packed = write(tmp_path / "wmt20" / "BLEU.doc.score.gz", text, compress=True)
    assert detect_format(packed).name == "wmt-scores"
    rows = parse_file(plain)[1].rows
    assert rows.equals(parse_file(packed)[1].rows)
    assert rows.select("task", "metric", "instance", "system", "value").rows() == [
        ("de-en/doc", "BLEU", "doc.1", "s1", "0.5"),
        ("de-en/doc", "BLEU", "doc.2", "s1", "0.25"),
        ("de-en/doc", "BLEU@newstestB2020", "doc.1", "s1", "0.4"),
    ]


def test_metrics_task_human_files(tmp_path: Path):
    da = tmp_path / "wmt20" / "manual-evaluation" / "DA"
    seg = write(da / "metrics-ad-seg-scores-de-en.csv",
                "SYS SEGID RAW.SCR Z.SCR N SID\ns1 d2::1 75.5 -0.2 2 4\n")
    doc = write(da / "metrics-ad-doc-scores-de-en.csv", "SYS SEGID RAW.SCR Z.SCR N\ns1 doc.1 94.25 0.3 2\n")
    rows = parse_file(seg)[1].rows
    assert rows.select("task", "metric", "instance", "system", "value").rows() == [
        ("de-en", "mDA-raw", "4", "s1", "75.5"), ("de-en", "mDA-z", "4", "s1", "-0.2"), ("de-en", "mDA-N", "4", "s1", "2"),
    ]
    rows = parse_file(doc)[1].rows
    assert rows.select("task", "metric", "instance").unique(maintain_order=True).rows() == [
        ("de-en/doc", "mDA-raw", "doc.1"), ("de-en/doc", "mDA-z", "doc.1"), ("de-en/doc", "mDA-N", "doc.1"),
    ]


def test_wilcoxon_matrices_are_skipped_with_what_they_are(tmp_path: Path):
    path = write(tmp_path / "wmt20" / "adwilcox-deen.csv", " s1 s2\ns1 0.12 0.01\ns2 0.12 0.12\n")
    with pytest.raises(NotScoresError, match="Wilcoxon rank-sum p-values between every two of 2 systems"):
        parse_file(path)
