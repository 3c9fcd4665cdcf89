"""A WMT release tree (metric scores of both segment numberings, document level, human files)
ingested in one command: nothing that holds scores is rejected, and a segment is one instance."""

from __future__ import annotations

from pathlib import Path

from flows.ingest import ingest_flow
from tests.transforms.test_parsers_wmt_release import HEAD, SEGMENTS, seg_line, write
from warehouse.catalog import connect, query_frame
from warehouse.storage import Warehouse


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
