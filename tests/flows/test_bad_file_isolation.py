"""One bad file never stops the others (issue 17, items 2 and 3).

Each hostile file is placed before and after a good one: the good one lands,
the catalog is rebuilt, the bad one is rejected with its reason (and moved to
``rejected/`` by a refresh); a bad ``--benchmark`` is a usage error before
anything starts.
"""

import gzip
import shutil
from pathlib import Path

import polars as pl
import pytest

from scorehouse.cli import main
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.refresh import refresh_flow
from tests.flows.conftest import VALUE
from scorehouse.warehouse.catalog import catalog_is_current, connect, query_frame
from scorehouse.warehouse.storage import Warehouse

WMT_LINE = b"m\ten-de\tnewstest2020\tdoc\t1\t1\tsysA\t0.5\n"


def quoted_hive_folder(folder: Path) -> Path:
    """An instance CSV in a hive-looking folder whose benchmark name holds a quote."""
    path = folder / "benchmark=it's" / "task.csv"
    path.parent.mkdir(parents=True)
    path.write_text("System,Utterance,bleu\na,u1,1.0\nb,u1,2.0\n")
    return path


def list_system_parquet(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "instances.parquet"
    pl.DataFrame({"System": [["a"], ["b"]], "Utterance": ["u1", "u1"], "bleu": [1.0, 2.0]}).write_parquet(path)
    return path


def gzip_bomb(folder: Path) -> Path:
    """65 KB of gzip: one valid line, then 64 MiB of newlines."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bomb.seg.score.gz"
    with gzip.open(path, "wb", compresslevel=9) as handle:
        handle.write(WMT_LINE)
        handle.write(b"\n" * (64 << 20))
    return path


BAD_FILES = {"quoted hive folder": quoted_hive_folder, "list system column": list_system_parquet, "gzip bomb": gzip_bomb}
REASONS = {"quoted hive folder": "cannot name a partition", "list system column": "List",
           "gzip bomb": "SCOREHOUSE_MAX_GZIP_RATIO"}


@pytest.mark.parametrize("bad_first", [True, False], ids=["before", "after"])
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_is_rejected_and_the_good_one_lands(tmp_path, case, bad_first):
    bad = BAD_FILES[case](tmp_path / "in")
    order = [bad, VALUE] if bad_first else [VALUE, bad]
    home = tmp_path / "home"
    report = ingest_flow([str(p) for p in order], home=str(home))
    status = {Path(f.path).name: f.status for f in report.files}
    assert status == {bad.name: "rejected", VALUE.name: "loaded"}
    assert REASONS[case] in report.rejected_files[0].error
    assert catalog_is_current(Warehouse(home))
    with connect(Warehouse(home)) as con:
        assert query_frame(con, "SELECT DISTINCT benchmark FROM oriented_scores").get_column("benchmark").to_list() == ["value"]
        reasons = query_frame(con, "SELECT file, reason FROM rejected_files")
    assert reasons.get_column("file").to_list() == [str(bad)]
    assert REASONS[case] in reasons.get_column("reason").item()


def test_refresh_moves_each_bad_file_to_rejected_and_ranks_the_good_one(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for make in BAD_FILES.values():
        made = make(tmp_path / "made")
        shutil.move(made, inbox / made.name)
    shutil.copyfile(VALUE, inbox / VALUE.name)
    report = refresh_flow(inbox=str(inbox), home=str(tmp_path / "home"))
    assert sorted(p.name for p in (inbox / "rejected").iterdir()) == ["bomb.seg.score.gz", "instances.parquet", "task.csv"]
    assert [p.name for p in (inbox / "processed").iterdir()] == [VALUE.name]
    assert [o.benchmark for o in report.ranked] == ["value"]


def test_a_benchmark_option_that_cannot_name_a_partition_is_a_usage_error(tmp_path, capsys):
    home = tmp_path / "home"
    with pytest.raises(SystemExit) as stopped:
        main(["--home", str(home), "ingest", "--benchmark", "x y", str(VALUE)])
    assert stopped.value.code == 2
    assert "benchmark name 'x y' cannot name a partition" in capsys.readouterr().err
    assert not home.exists()


def test_the_ingest_flow_refuses_a_bad_benchmark_option_before_anything_is_written(tmp_path):
    home = tmp_path / "home"
    with pytest.raises(ValueError, match="cannot name a partition"):
        ingest_flow([str(VALUE)], home=str(home), benchmark="x y")
    assert not home.exists()
