"""Parser versions: recorded with every load, and ``--reparse`` re-derives what an older parser made."""

import dataclasses
import hashlib
import shutil
from pathlib import Path

import polars as pl
import pytest

from scorehouse.cli import main
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.lineage import load_id_of
from scorehouse.flows.refresh import refresh_flow
from tests.raw_layout import archived_bytes, packs
from tests.warehouse.conftest import BUNDLED, GLUE_CSV, VALUE_CSV, tree_state
from scorehouse.transforms.parsers import FORMATS
from scorehouse.transforms.parsers.base import Format
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.integrity import sha256_of
from scorehouse.warehouse.storage import Warehouse

COCO_TEAMS = BUNDLED / "MissingDataRanking/data_generation/data/Captioning/coco_captioning_challenge"
SCORE_COLUMNS = ["benchmark", "level", "task", "metric", "instance", "system", "score"]


def sql(home: Path, query: str) -> pl.DataFrame:
    with connect(Warehouse(home)) as con:
        return query_frame(con, query)


def bump(monkeypatch: pytest.MonkeyPatch, format_name: str, version: int = 2) -> None:
    """A newer parser of ``format_name``: what editing the parser and bumping its declared version does."""
    monkeypatch.setitem(FORMATS, format_name, dataclasses.replace(FORMATS[format_name], parser_version=version))


@pytest.fixture(autouse=True)
def votenrank_at_version_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests ingest with the Vote'n'Rank parser at version 1 and then bump it: its real version moves on."""
    bump(monkeypatch, "votenrank-leaderboard", 1)


def rows_of(home: Path, load_id: str) -> pl.DataFrame:
    return sql(home, f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores_history WHERE load_id = '{load_id}' ORDER BY ALL")


def copy_to(tmp_path: Path, source: Path, *folders: str) -> Path:
    target = tmp_path.joinpath("drop", *folders, source.name)
    target.parent.mkdir(parents=True)
    shutil.copyfile(source, target)
    return target


def test_reparse_makes_a_new_current_load_from_the_raw_archive_and_keeps_the_old_one(home, tmp_path, monkeypatch):
    dump = copy_to(tmp_path, GLUE_CSV)
    first = ingest_flow([str(dump)], home=str(home)).files[0]
    assert (first.status, first.parser_version) == ("loaded", 1)
    old_rows = rows_of(home, first.load_id)
    dump.unlink()  # the original is gone: only the raw archive has its bytes

    bump(monkeypatch, "votenrank-leaderboard")
    before = tree_state(home)
    plain = ingest_flow([str(VALUE_CSV)], home=str(home))  # a plain ingest of something else
    assert plain.stale_loads == 1
    assert "1 load(s) were parsed by an older parser; run with --reparse" in plain.notices
    assert sql(home, "SELECT count(*) FROM loads WHERE format = 'votenrank-leaderboard'").item() == 1
    assert all(not p.startswith("scores/benchmark=glue/") or p in before for p in tree_state(home))

    report = ingest_flow([], home=str(home), reparse=True)
    [again] = report.files
    assert (again.status, again.parser_version, again.path) == ("loaded", 2, str(dump))
    assert again.load_id != first.load_id
    assert report.notices == ["re-parsed 1 load(s) from the raw archive with their format's current parser"]
    loads = sql(home, "SELECT load_id, parser_version, is_current, file_name FROM loads "
                      "WHERE format = 'votenrank-leaderboard' ORDER BY parser_version")
    assert loads.rows() == [(first.load_id, 1, False, str(dump)), (again.load_id, 2, True, str(dump))]
    new_rows = rows_of(home, again.load_id)
    assert new_rows.height == 1499 and new_rows.equals(old_rows)  # the old load stays in scores_history
    current = sql(home, f"SELECT {', '.join(SCORE_COLUMNS)}, load_id FROM scores WHERE benchmark = 'glue' ORDER BY ALL")
    assert current.get_column("load_id").unique().to_list() == [again.load_id]
    assert current.drop("load_id").equals(old_rows)

    settled = tree_state(home)
    assert ingest_flow([], home=str(home), reparse=True).files == []  # nothing older is left
    assert tree_state(home) == settled


def test_without_reparse_an_older_parsers_load_is_left_as_it_is(home, tmp_path, monkeypatch):
    dump = copy_to(tmp_path, GLUE_CSV)
    first = ingest_flow([str(dump)], home=str(home)).files[0]
    bump(monkeypatch, "votenrank-leaderboard")
    before = tree_state(home)
    report = ingest_flow([str(dump)], home=str(home))
    [same] = report.files
    assert (same.status, same.load_id, same.parser_version) == ("unchanged", first.load_id, 1)
    assert report.stale_loads == 1 and report.ok
    assert tree_state(home) == before


def test_a_superseded_load_is_not_reparsed(home, tmp_path, monkeypatch):
    dump = copy_to(tmp_path, GLUE_CSV)
    first = ingest_flow([str(dump)], home=str(home)).files[0]
    dump.write_text(dump.read_text().replace("93.9/91.8", "94.0/91.8", 1))  # a corrected dump of the same source
    corrected = ingest_flow([str(dump)], home=str(home)).files[0]
    bump(monkeypatch, "votenrank-leaderboard")
    [again] = ingest_flow([], home=str(home), reparse=True).files
    assert again.load_id not in (first.load_id, corrected.load_id)
    assert sql(home, "SELECT sha256 FROM loads WHERE is_current").item() == sha256_of(dump)
    ernie = "SELECT score FROM scores WHERE system = 'ERNIE' AND task = 'MRPC' AND metric = 'F1'"
    assert sql(home, ernie).item() == 94.0


def test_reparse_keeps_the_benchmark_option_and_the_team_folder(home, tmp_path, monkeypatch):
    glue = copy_to(tmp_path, GLUE_CSV)
    coco = copy_to(tmp_path, COCO_TEAMS / "karpathy" / "scores.txt", "karpathy")
    ingest_flow([str(glue)], home=str(home), benchmark="glue-copy")
    ingest_flow([str(coco)], home=str(home))
    old = {b: sql(home, f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores WHERE benchmark = '{b}' ORDER BY ALL")
           for b in ("glue-copy", "coco-2015")}
    assert set(old["coco-2015"].get_column("system").to_list()) == {"karpathy"}
    shutil.rmtree(tmp_path / "drop")

    bump(monkeypatch, "votenrank-leaderboard")
    bump(monkeypatch, "coco-scores-txt", 3)
    report = ingest_flow([], home=str(home), reparse=True)
    assert sorted((f.status, f.parser_version, f.path) for f in report.files) == [
        ("loaded", 2, str(glue)), ("loaded", 3, str(coco))]
    for benchmark, rows in old.items():
        now = sql(home, f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores WHERE benchmark = '{benchmark}' ORDER BY ALL")
        assert now.equals(rows)
    versions = sql(home, "SELECT format, parser_version FROM loads WHERE is_current ORDER BY format")
    assert versions.rows() == [("coco-scores-txt", 3), ("votenrank-leaderboard", 2)]
    assert sql(home, "SELECT count(*) FROM loads").item() == 4


def test_a_load_whose_raw_bytes_are_gone_is_reported_and_stays_current(home, tmp_path, monkeypatch):
    first = ingest_flow([str(GLUE_CSV)], home=str(home)).files[0]
    for archived in (home / "raw").rglob("*"):
        if archived.is_file():
            archived.unlink()
    bump(monkeypatch, "votenrank-leaderboard")
    report = ingest_flow([], home=str(home), reparse=True)
    [lost] = report.files
    assert lost.status == "rejected" and "raw archive" in lost.error and not report.ok
    assert sql(home, "SELECT load_id FROM loads WHERE is_current").item() == first.load_id


def test_manifests_written_before_parser_versions_read_as_version_one(home):
    first = ingest_flow([str(GLUE_CSV)], home=str(home)).files[0]
    manifest = home / "loads" / f"{first.load_id}.parquet"
    pl.read_parquet(manifest).drop("parser_version").write_parquet(manifest)  # as written before this change
    ingest_flow([str(VALUE_CSV)], home=str(home))  # a new manifest beside it; the catalog is rebuilt
    assert sql(home, "SELECT format, parser_version FROM loads ORDER BY format").rows() == [
        ("value-leaderboard", 1), ("votenrank-leaderboard", 1)]
    from_python = Warehouse(home).manifests().sort("format").select("format", "parser_version")
    assert from_python.rows() == [("value-leaderboard", 1), ("votenrank-leaderboard", 1)]
    # ... and its load id is what version 1 computes, so re-ingesting the file finds it
    assert ingest_flow([str(GLUE_CSV)], home=str(home)).files[0].status == "unchanged"


def test_version_one_load_ids_are_the_ids_of_loads_made_before_versions():
    sha = sha256_of(GLUE_CSV)
    before_versions = hashlib.sha256(f"{sha}|votenrank-leaderboard|".encode()).hexdigest()[:20]
    assert load_id_of(sha, "votenrank-leaderboard", None) == before_versions
    assert load_id_of(sha, "votenrank-leaderboard", None, parser_version=1) == before_versions
    assert load_id_of(sha, "votenrank-leaderboard", None, parser_version=2) != before_versions


def test_refresh_reparses_with_an_empty_inbox_and_reranks_what_changed(home, tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    ingest_flow([str(VALUE_CSV)], home=str(home))
    bump(monkeypatch, "value-leaderboard")
    assert refresh_flow(str(inbox), home=str(home)).nothing_new
    report = refresh_flow(str(inbox), home=str(home), reparse=True)
    assert [(f.status, f.parser_version) for f in report.reparsed] == [("loaded", 2)]
    assert report.files == [] and report.moved == []
    assert {r.benchmark for r in report.ranked} == {"value"}


def test_the_command_line_passes_reparse_through(home, monkeypatch, capsys):
    assert main(["--home", str(home), "ingest", str(VALUE_CSV)]) == 0
    bump(monkeypatch, "value-leaderboard")
    assert main(["--home", str(home), "ingest", str(VALUE_CSV)]) == 0
    assert "1 load(s) were parsed by an older parser; run with --reparse" in capsys.readouterr().out
    assert main(["--home", str(home), "ingest", "--reparse"]) == 0
    assert "re-parsed 1 load(s)" in capsys.readouterr().out
    assert main(["--home", str(home), "ingest"]) == 2  # a usage error: nothing to ingest
    assert "or --reparse" in capsys.readouterr().err


@pytest.mark.parametrize("version", [0, -1, 1.0, True, "2"])
def test_a_format_refuses_a_parser_version_that_is_not_a_positive_integer(version):
    with pytest.raises(ValueError, match="parser_version must be an integer >= 1"):
        Format(name="x", sniff=lambda path, head: False, parse=lambda path, benchmark: None, description="x",
               parser_version=version)


def test_every_format_declares_its_parser_version_next_to_it():
    parsers = Path(FORMATS["wmt-scores"].parse.__code__.co_filename).parent
    declarations = sum(f.read_text().count("parser_version=") for f in parsers.glob("*.py"))
    assert declarations == len(FORMATS)


def test_reparsing_a_pickle_needs_trust_again(home, monkeypatch):
    pickle = BUNDLED / "RankingNLPSystems/data/human_annotations/Dialogue_dataframe.pickle"
    first = ingest_flow([str(pickle)], home=str(home), trust_pickle=True).files[0]
    assert first.status == "loaded"
    bump(monkeypatch, "pickle-frames")
    before = tree_state(home)
    [untrusted] = ingest_flow([], home=str(home), reparse=True).files
    assert untrusted.status == "skipped" and "--trust-pickle" in untrusted.error
    assert tree_state(home) == before
    [trusted] = ingest_flow([], home=str(home), reparse=True, trust_pickle=True).files
    assert (trusted.status, trusted.parser_version) == ("loaded", 2)
    assert rows_of(home, trusted.load_id).equals(rows_of(home, first.load_id))


def test_reparse_reads_a_table_again_by_the_columns_it_was_read_with(home, tmp_path, monkeypatch):
    """The mapping is part of the load's identity and stored in its manifest; a newer parser re-reads with it."""
    table = tmp_path / "drop" / "results.csv"
    table.parent.mkdir()
    table.write_text("model,dataset,value\nA,t1,0.5\nB,t1,0.25\n", encoding="utf-8")
    mapping = {"system": "model", "task": "dataset", "score": "value"}
    first = ingest_flow([str(table)], home=str(home), format="user-table", benchmark="mine", columns=mapping).files[0]
    assert first.status == "loaded"
    assert sql(home, "SELECT columns FROM loads").item() == '{"score": "value", "system": "model", "task": "dataset"}'
    old = sql(home, f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores ORDER BY ALL")
    table.unlink()

    newer = FORMATS["user-table"].parser_version + 1
    bump(monkeypatch, "user-table", newer)
    report = ingest_flow([], home=str(home), reparse=True)
    assert [(f.status, f.parser_version) for f in report.files] == [("loaded", newer)]
    assert sql(home, f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores ORDER BY ALL").equals(old)
    assert old.get_column("system").to_list() == ["A", "B"] and old.get_column("score").to_list() == [0.5, 0.25]


def as_format_two(home: Path, inputs: list[Path]) -> None:
    """Rewrite ``home`` as a home of format 2 keeps its raw archive: each input's bytes in a file of its own,
    ``raw/<sha[:2]>/<sha256><last two suffixes>``, no packs and no pack among the recorded content hashes."""
    shutil.rmtree(home / "raw")
    for path in inputs:
        data = path.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        target = home / "raw" / sha[:2] / f"{sha}{''.join(path.suffixes[-2:])}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for record in (home / "content_hashes" / "loads").glob("*.parquet"):
        pl.read_parquet(record).filter(~pl.col("file").str.starts_with("raw/")).write_parquet(record)
    (home / "format.json").write_text('{"format": 2}')


def test_a_home_of_format_two_ingests_reparses_and_verifies_after_its_migration(home, tmp_path, monkeypatch):
    dump = copy_to(tmp_path, GLUE_CSV)
    assert ingest_flow([str(dump)], home=str(home)).ok
    as_format_two(home, [dump])
    dump.unlink()  # only the home's file of its own has the bytes now
    bump(monkeypatch, "votenrank-leaderboard")

    report = ingest_flow([str(VALUE_CSV)], home=str(home), reparse=True)
    assert [(f.status, f.path, f.reparsed) for f in report.files] == [("loaded", str(VALUE_CSV), False),
                                                                       ("loaded", str(dump), True)]
    assert (home / "format.json").read_text().replace(" ", "").replace("\n", "") == '{"format":4}'
    versions = sql(home, "SELECT format, parser_version FROM loads WHERE is_current ORDER BY format")
    assert versions.rows() == [("value-leaderboard", 1), ("votenrank-leaderboard", 2)]
    assert sql(home, "SELECT count(*) FROM damaged_files").item() == 0
    held = archived_bytes(home)
    assert held == {sha256_of(GLUE_CSV): GLUE_CSV.read_bytes(), sha256_of(VALUE_CSV): VALUE_CSV.read_bytes()}
    assert [p.name for p in packs(home)] == [f"{report.files[0].load_id}.parquet"]  # VALUE's; GLUE's is not packed again
