"""Ingest into a real warehouse (Parquet + DuckDB catalog) through the real Prefect flow."""

import hashlib
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl

from scorehouse.flows.ingest import files_ok, ingest_flow
from tests.raw_layout import archived_bytes
from tests.warehouse.conftest import GLUE_CSV, VALUE_CSV, tree_state
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.storage import Warehouse


def sql(home: Path, query: str) -> pl.DataFrame:
    with connect(Warehouse(home)) as con:
        return query_frame(con, query)


def test_glue_lands_in_hive_partitions_with_its_catalog(home):
    report = ingest_flow([str(GLUE_CSV)], home=str(home))
    assert [f.status for f in report.files] == ["loaded"]
    # 100 systems x 15 published cells (5 of them paired: MRPC, STS-B, QQP count twice) = 1500 rows
    assert report.files[0].rows_in == 1500
    # one published cell reads "NaN" (MaChAmp's STS-B Spearman): not a score, so quarantined
    assert (report.files[0].rows_landed, report.files[0].rows_quarantined) == (1499, 1)
    assert sql(home, "SELECT system, task, value, reason FROM quarantine").row(0) == (
        "MaChAmp (bert-large, single task)", "STS-B", "NaN", "non-finite score NaN")
    parts = sorted(p.relative_to(home).parts[:3] for p in (home / "scores").rglob("*.parquet"))
    assert parts == [("scores", "benchmark=glue", "level=task")]
    counts = sql(home, "SELECT count(DISTINCT system) AS s, count(*) FILTER (WHERE score IS NULL) AS missing FROM scores").row(0)
    assert counts == (100, 4)  # the README: '-' in 4 cells
    ernie = sql(home, "SELECT score FROM scores WHERE system = 'ERNIE' AND task = 'MRPC' AND metric = 'F1'").item()
    assert ernie == 93.9  # read from the file: ERNIE's MRPC cell is 93.9/91.8
    catalog = sql(home, "SELECT task, is_ranked, weight FROM metrics WHERE task IN ('Score', 'MRPC', 'AX') ORDER BY ALL")
    assert catalog.rows() == [("AX", True, 0.0), ("MRPC", True, 0.5), ("MRPC", True, 0.5), ("Score", False, 0.0)]


def test_reingesting_the_same_bytes_changes_nothing(home):
    ingest_flow([str(GLUE_CSV), str(VALUE_CSV)], home=str(home))
    before = tree_state(home)
    report = ingest_flow([str(GLUE_CSV), str(VALUE_CSV)], home=str(home))
    assert [f.status for f in report.files] == ["unchanged", "unchanged"]
    assert tree_state(home) == before


def test_corrected_dump_supersedes_its_source_and_keeps_history(home, tmp_path):
    dump = tmp_path / "drop" / GLUE_CSV.name
    dump.parent.mkdir()
    shutil.copyfile(GLUE_CSV, dump)
    ingest_flow([str(dump)], home=str(home))
    text = dump.read_text()
    assert "93.9/91.8" in text
    dump.write_text(text.replace("93.9/91.8", "94.0/91.8", 1))
    report = ingest_flow([str(dump)], home=str(home))
    assert report.files[0].status == "loaded"
    current = sql(home, "SELECT score FROM scores WHERE system = 'ERNIE' AND task = 'MRPC' AND metric = 'F1'")
    assert current.to_series().to_list() == [94.0]
    history = sql(home, "SELECT score FROM scores_history WHERE system = 'ERNIE' AND task = 'MRPC' AND metric = 'F1' ORDER BY score")
    assert history.to_series().to_list() == [93.9, 94.0]
    loads = sql(home, "SELECT count(*) AS n, count(*) FILTER (WHERE is_current) AS current FROM loads").row(0)
    assert loads == (2, 1)
    assert sql(home, "SELECT count(*) FROM scores").item() == 1499  # 1500 cells, one "NaN" quarantined


def test_bad_rows_are_quarantined_with_file_line_and_reason(home, tmp_path):
    dump = tmp_path / GLUE_CSV.name
    lines = GLUE_CSV.read_text().splitlines(keepends=True)
    assert "75.5" in lines[1]  # ERNIE's CoLA cell, on line 2 of the file
    lines[1] = lines[1].replace("75.5", "seventy", 1)
    dump.write_text("".join(lines))
    report = ingest_flow([str(dump)], home=str(home))
    assert report.rows_quarantined == 2  # ours and the published "NaN" cell
    assert report.files[0].status == "loaded"  # quarantined rows are warnings, not a failed file
    assert report.files[0].quarantine_reasons == {"non-numeric score": 1, "non-finite score": 1}
    assert report.files[0].rows_landed == 1498
    bad = sql(home, "SELECT file, line, system, task, value, reason FROM quarantine WHERE value = 'seventy'").row(0)
    assert bad == (str(dump), 2, "ERNIE", "CoLA", "seventy", "non-numeric score seventy")
    assert report.ok and not files_ok(report.files, strict=True)


def test_an_unparseable_file_is_rejected_and_does_not_stop_the_others(home, tmp_path):
    junk = tmp_path / "notes.csv"
    junk.write_text("this is not a score dump\n")
    report = ingest_flow([str(junk), str(GLUE_CSV)], home=str(home))
    assert [f.status for f in report.files] == ["rejected", "loaded"]
    assert "notes.csv" in report.files[0].error and "--format" in report.files[0].error
    assert sql(home, "SELECT count(DISTINCT system) FROM scores").item() == 100
    assert sql(home, "SELECT file FROM rejected_files").item() == str(junk)
    # nothing is lost: the rejected bytes are archived too
    assert archived_bytes(home)[hashlib.sha256(junk.read_bytes()).hexdigest()] == junk.read_bytes()


CRASH_SCRIPT = textwrap.dedent(
    """
    import os, sys
    from datetime import UTC, datetime
    from pathlib import Path
    import scorehouse.warehouse.storage as storage
    from scorehouse.flows.lineage import load_id_of
    from scorehouse.transforms.parsers import parse_file
    from scorehouse.transforms.validate import validate_rows

    real_replace = os.replace

    def die_before_commit(source, target):
        # The load's manifest is the commit point: die the way `kill -9` would, right before it lands.
        if "/loads/" in str(target):
            os._exit(137)
        real_replace(source, target)

    os.replace = die_before_commit  # what every atomic write renames with
    home, path = sys.argv[1], Path(sys.argv[2])
    warehouse = storage.Warehouse(home)
    sha = warehouse.archive_raw(path)
    fmt, parsed = parse_file(path)
    load_id = load_id_of(sha, fmt.name, None)
    checked = validate_rows(parsed.rows, file=str(path), load_id=load_id)
    record = storage.LoadRecord(load_id, f"{fmt.name}:glue:{path.name}", str(path), sha, fmt.name, 1, "glue",
                                parsed.rows.height, checked.scores.height, checked.quarantine.height)
    warehouse.write_loads([storage.NewLoad(record, checked.scores, checked.quarantine, datetime.now(UTC))])
    """
)


def test_a_writer_killed_before_commit_leaves_the_previous_state_intact(home, tmp_path):
    ingest_flow([str(VALUE_CSV)], home=str(home))
    before = sql(home, "SELECT * FROM scores ORDER BY ALL")
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT, str(home), str(GLUE_CSV)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert crashed.returncode == 137, crashed.stderr
    assert any((home / "scores" / "benchmark=glue").rglob("*.parquet"))  # data was written ...
    assert sql(home, "SELECT * FROM scores ORDER BY ALL").equals(before)  # ... but is not visible
    report = ingest_flow([str(GLUE_CSV)], home=str(home))  # and the next attempt completes it
    assert report.files[0].status == "loaded"
    assert sql(home, "SELECT count(DISTINCT benchmark) FROM scores").item() == 2


def test_reingesting_the_original_bytes_after_a_correction_reverts_it(home, tmp_path):
    """Issue 17, item 7: known bytes of a corrected source make it current again, recorded as a revert."""
    dump = tmp_path / "drop" / GLUE_CSV.name
    dump.parent.mkdir()
    original = GLUE_CSV.read_bytes()
    dump.write_bytes(original)
    first = ingest_flow([str(dump)], home=str(home)).files[0].load_id
    dump.write_bytes(original.replace(b"93.9/91.8", b"94.0/91.8", 1))
    corrected = ingest_flow([str(dump)], home=str(home)).files[0].load_id
    ernie = "SELECT score FROM scores WHERE system = 'ERNIE' AND task = 'MRPC' AND metric = 'F1'"
    assert sql(home, ernie).item() == 94.0
    dump.write_bytes(original)
    report = ingest_flow([str(dump)], home=str(home))
    assert report.files[0].status == "loaded"
    assert f"reverts its source to load {first}" in report.files[0].problems
    assert sql(home, ernie).item() == 93.9
    loads = sql(home, "SELECT load_id, reverts, is_current FROM loads ORDER BY loaded_at")
    assert loads.get_column("load_id").to_list()[:2] == [first, corrected]
    assert loads.get_column("reverts").to_list() == [None, None, first]
    assert loads.get_column("is_current").to_list() == [False, False, True]
    again = ingest_flow([str(dump)], home=str(home))
    assert [f.status for f in again.files] == ["unchanged"]
    assert sql(home, "SELECT count(*) FROM loads").item() == 3


BATTLES = Path(__file__).resolve().parents[1] / "transforms" / "fixtures" / "battles"


def test_a_battles_writer_killed_before_its_manifest_leaves_nothing_visible(home):
    """Battles and their quarantine are files of a load like scores: without a manifest they are a crashed
    writer's, removed by the next writer instead of showing in the battles_quarantine view."""
    first = ingest_flow([str(BATTLES / "battles_bad.csv")], home=str(home), benchmark="arena").files[0]
    assert first.status == "loaded" and first.rows_quarantined > 0
    warehouse = Warehouse(home)
    count = "SELECT (SELECT count(*) FROM battles) AS b, (SELECT count(*) FROM battles_quarantine) AS q"
    with connect(warehouse) as con:
        before = query_frame(con, count).row(0)
    # what a writer killed between its battle files and its manifest leaves behind
    committed = next((home / "battles").glob("benchmark=*/*.parquet"))
    shutil.copy(committed, committed.with_name("crashed.parquet"))
    shutil.copy(next((home / "battles_quarantine").glob("*.parquet")), home / "battles_quarantine" / "crashed.parquet")

    second = ingest_flow([str(BATTLES / "battles_minimal.csv")], home=str(home), benchmark="arena").files[0]
    assert second.status == "loaded"
    assert not list(home.glob("battles*/**/crashed.parquet"))
    with connect(warehouse) as con:
        after = query_frame(con, count).row(0)
    assert after == (before[0] + second.rows_landed, before[1] + second.rows_quarantined)


def test_a_reader_of_a_catalog_built_before_a_rejection_is_forgotten_still_reads_rejected_files(home, tmp_path):
    """Forgetting a rejection (the file later parsed) must not remove a file an open catalog lists by name."""
    junk = tmp_path / "notes.csv"
    junk.write_text("this is not a score dump\n")
    ingest_flow([str(junk), str(GLUE_CSV)], home=str(home))
    sha = sql(home, "SELECT sha256 FROM rejected_files").item()
    with connect(Warehouse(home)) as reader:  # a reader holding the catalog built with the record
        Warehouse(home).forget_rejected([sha])
        assert query_frame(reader, "SELECT count(*) AS n FROM rejected_files").item() == 0
    assert sql(home, "SELECT count(*) FROM rejected_files").item() == 0
