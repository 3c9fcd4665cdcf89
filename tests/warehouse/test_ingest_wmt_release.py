"""A WMT release tree (metric scores of both segment numberings, document level, human files)
ingested in one command: nothing that holds scores is rejected, and a segment is one instance."""

from __future__ import annotations

from pathlib import Path

from scorehouse.flows.ingest import ingest_flow
from tests.transforms.test_parsers_wmt_release import HEAD, SEGMENTS, seg_line, write
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.storage import Warehouse


def test_a_release_tree_ingests_in_one_command_with_nothing_rejected(tmp_path: Path):
    root = tmp_path / "wmt20-metrics"
    fms = root / "final-metric-scores" / "submissions"
    local = "".join(seg_line("A", "s1", d, str(s), p / 10) for d, s, p in SEGMENTS)
    glob = "".join(seg_line("B", "s1", d, str(p), p / 100) for d, _, p in SEGMENTS)
    write(fms / "A.seg.score.gz", local, compress=True)
    write(fms / "B.seg.score", glob)
    write(fms / "A.doc.score", f"{HEAD.format(metric='A', system='s1')}\td1\t0.5\n")
    write(fms / "A.sys.score", f"{HEAD.format(metric='A', system='s1')}\t0.5\n")
    da = root / "manual-evaluation" / "DA"
    write(da / "ad-seg-scores-de-en.csv", "SYS SID RAW.SCR Z.SCR N \ns1 4 70 0.1 1 \n")
    write(da / "metrics-ad-doc-scores-de-en.csv", "SYS SEGID RAW.SCR Z.SCR N\ns1 d1 94.25 0.3 2\n")
    write(da / "adwilcox-deen.csv", " s1\ns1 0.12\n")
    report = ingest_flow([str(root)], home=str(tmp_path / "home"))
    status = {Path(f.path).name: f.status for f in report.files}
    assert status.pop("adwilcox-deen.csv") == "skipped"
    assert set(status.values()) == {"loaded"}, status
    with connect(Warehouse(tmp_path / "home")) as con:
        segment4 = query_frame(con, "SELECT metric FROM scores WHERE task = 'de-en' AND instance = '4' ORDER BY metric")
    assert segment4.get_column("metric").to_list() == ["A", "B", "DA-N", "DA-raw", "DA-z"]


def test_a_file_whose_numbering_disagrees_with_the_stored_ones_keeps_its_own_keys(tmp_path: Path):
    """Checked across files and commands: d1 has segments 1-3, d2 4-5 (global file B); a file
    numbered per document that did not score d1's last segment would put d2's first at 3."""
    fms = tmp_path / "wmt20-metrics" / "final-metric-scores" / "submissions"
    glob = "".join(seg_line("B", "s1", d, str(p), p / 100) for d, _, p in SEGMENTS)
    agreeing = "".join(seg_line("A", "s1", d, str(s), p / 10) for d, s, p in SEGMENTS)
    short = "".join(seg_line("C", "s1", d, str(s), p / 1000) for d, s, p in SEGMENTS if (d, s) != ("d1", 3))
    home = str(tmp_path / "home")
    # one command: the global file goes first whatever the order given, the short file disagrees
    first = ingest_flow([str(write(fms / "C.seg.score", short)), str(write(fms / "B.seg.score", glob))], home=home)
    # a later command: the agreeing file joins
    second = ingest_flow([str(write(fms / "A.seg.score", agreeing))], home=home)
    assert {f.status for f in [*first.files, *second.files]} == {"loaded"}
    problems = {Path(f.path).name: f.problems for f in [*first.files, *second.files]}
    assert problems["B.seg.score"] == () and problems["A.seg.score"] == ()
    assert len(problems["C.seg.score"]) == 1
    assert "wmt20 de-en" in problems["C.seg.score"][0] and "documents d1 and d2 overlap" in problems["C.seg.score"][0]
    with connect(Warehouse(home)) as con:
        keys = query_frame(con, "SELECT metric, list(instance ORDER BY instance) AS instances FROM scores "
                                "GROUP BY metric ORDER BY metric")
    assert keys.rows() == [
        ("A", ["1", "2", "3", "4", "5"]),
        ("B", ["1", "2", "3", "4", "5"]),
        ("C", ["d1::1", "d1::2", "d2::1", "d2::2"]),  # its own keys: they join with no other file's
    ]


def test_a_global_file_keeps_its_numbers_whatever_the_order_of_the_files(tmp_path: Path):
    """One file per batch: the shifted per-document file comes first and is stored; the global file
    that contradicts it keeps its positions and says so (with both in one batch, see above, the
    global file goes first and the shifted one is the one keyed by its own numbering)."""
    fms = tmp_path / "wmt20-metrics" / "final-metric-scores" / "submissions"
    short = "".join(seg_line("C", "s1", d, str(s), p / 1000) for d, s, p in SEGMENTS if (d, s) != ("d1", 3))
    glob = "".join(seg_line("B", "s1", d, str(p), p / 100) for d, _, p in SEGMENTS)
    home = str(tmp_path / "home")
    report = ingest_flow([str(write(fms / "C.seg.score", short)), str(write(fms / "B.seg.score", glob))], home=home,
                         batch_files=1)
    problems = {Path(f.path).name: f.problems for f in report.files}
    assert problems["C.seg.score"] == ()
    assert len(problems["B.seg.score"]) == 1 and "its global segment numbers are kept" in problems["B.seg.score"][0]
    with connect(Warehouse(home)) as con:
        keys = query_frame(con, "SELECT metric, list(instance ORDER BY instance) AS instances FROM scores "
                                "GROUP BY metric ORDER BY metric")
    assert keys.rows() == [("B", ["1", "2", "3", "4", "5"]), ("C", ["1", "2", "3", "4"])]


def test_a_corrected_file_is_not_judged_by_the_file_it_replaces(tmp_path: Path):
    fms = tmp_path / "wmt20-metrics" / "final-metric-scores" / "submissions"
    path = fms / "C.seg.score"
    home = str(tmp_path / "home")
    short = "".join(seg_line("C", "s1", d, str(s), p / 1000) for d, s, p in SEGMENTS if (d, s) != ("d1", 3))
    ingest_flow([str(write(path, short))], home=home)
    corrected = "".join(seg_line("C", "s1", d, str(s), p / 1000) for d, s, p in SEGMENTS)
    report = ingest_flow([str(write(path, corrected))], home=home)
    assert [(f.status, f.problems) for f in report.files] == [("loaded", ())]
    with connect(Warehouse(home)) as con:
        keys = query_frame(con, "SELECT list(instance ORDER BY instance) AS instances FROM scores")
    assert keys.item().to_list() == ["1", "2", "3", "4", "5"]
