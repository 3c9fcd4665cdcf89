"""Files that are not scores never fail a folder's ingest: mteb 2.x results folders with their run settings, notes
and images beside the scores enter with exit 0; the same files given by name fail (nothing named is silently
ignored), and damaged dumps stay errors.
A segment-score TSV whose header is separated by blanks is read."""

import shutil
from pathlib import Path

import pytest

from scorehouse.cli import main
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.storage import Warehouse

REPO = Path(__file__).resolve().parents[2]
MTEB_MODEL = REPO / "data" / "bundled" / "mteb-results-sample" / "results" / "BAAI__bge-m3"
# What mteb 2.x writes beside a model's results (the settings of each run, one object per line).
RUN_SETTINGS = '{"mteb_version": "2.1.0", "tasks": ["STS12"], "batch_size": 32, "device": "cuda"}\n'


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """An MTEB results folder as mteb 2.x leaves it: one result, model_meta.json, run_settings.jsonl, and a note."""
    revision = next(MTEB_MODEL.iterdir())
    folder = tmp_path / "results" / MTEB_MODEL.name / revision.name
    folder.mkdir(parents=True)
    for name in ("STS12.json", "model_meta.json"):
        shutil.copyfile(revision / name, folder / name)
    (folder / "run_settings.jsonl").write_text(RUN_SETTINGS)
    (tmp_path / "results" / "notes.yaml").write_text("owner: the evaluation team\n")
    (tmp_path / "results" / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\x00")
    return tmp_path / "results"


def ingest(home: Path, *args: str) -> int:
    return main(["--home", str(home), "ingest", *args])


def test_a_results_folder_with_run_settings_notes_and_images_ingests_with_exit_0(tmp_path, results, capsys):
    assert ingest(tmp_path / "home", str(results)) == 0
    out = capsys.readouterr().out
    assert "2 file(s) loaded, 0 unchanged, 3 skipped (no scores), 0 rejected" in out  # STS12 and model_meta
    assert "run_settings.jsonl: mteb 2.x run settings" in out
    assert f"skipped: {results / 'notes.yaml'}: not a score file (unrecognised)" in out
    assert f"skipped: {results / 'plot.png'}: not a score file (unrecognised)" in out
    with connect(Warehouse(tmp_path / "home")) as con:
        assert query_frame(con, "SELECT count(*) AS n FROM rejected_files").item() == 0


def test_the_run_settings_or_an_unrecognised_file_given_by_name_fail_the_run_and_say_why(tmp_path, results, capsys):
    settings = next(results.rglob("run_settings.jsonl"))
    assert ingest(tmp_path / "home", str(settings)) == 1
    said = capsys.readouterr()
    assert "run_settings.jsonl: given by name, it yields no scores (mteb 2.x run settings" in said.err
    assert "name its format (--format)" in said.err
    assert ingest(tmp_path / "home", str(results / "notes.yaml")) == 1
    said = capsys.readouterr()
    assert "notes.yaml: unrecognised format; pass --format" in said.out + said.err


@pytest.mark.parametrize(("name", "data"), [
    ("scores.csv", "system,score\na,1\n".encode("utf-16")),  # a dump saved as UTF-16: named, not skipped
    ("empty.json", b""),
])
def test_a_damaged_dump_in_a_folder_stays_a_rejection(tmp_path, results, name, data, capsys):
    (results / name).write_bytes(data)
    assert ingest(tmp_path / "home", str(results)) == 1
    said = capsys.readouterr()
    assert f"{results / name}: unrecognised format" in said.out + said.err


def test_a_segment_score_tsv_with_a_blank_separated_header_is_read(tmp_path, capsys):
    dump = tmp_path / "segments.tsv"
    dump.write_text("system score segment\nsysA\t0.50 1\nsysA\t0.25 2\nsysB\t0.75 1\nsysB\t-0.5  2\n")
    args = [str(dump), "--benchmark", "seg", "--system", "system", "--score", "score", "--instance", "segment"]
    assert ingest(tmp_path / "home", *args) == 0
    with connect(Warehouse(tmp_path / "home")) as con:
        rows = query_frame(con, "SELECT system, instance, score FROM scores ORDER BY ALL").rows()
    assert rows == [("sysA", "1", 0.5), ("sysA", "2", 0.25), ("sysB", "1", 0.75), ("sysB", "2", -0.5)]
