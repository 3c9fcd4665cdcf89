"""The catalog is a function of the committed state (issue 17, items 1 and 5).

A process killed (``kill -9``) right after a load's manifest is written leaves
a committed load that the catalog does not show; a copied home's catalog names
the original's files.  Every command that reads or ranks rebuilds such a
catalog first, so the results are those of a clean home.
"""

import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from scorehouse.cli import main
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
from tests.flows.conftest import REPO, SUPERGLUE, TABLES, VALUE
from scorehouse.warehouse.catalog import catalog_is_current, connect, query_frame
from scorehouse.warehouse.storage import Warehouse

# Ingests one file in a fresh process that SIGKILLs itself the moment the load's manifest
# (the commit point) is written: no catalog rebuild, no cleanup, as in a kill -9 at that point.
KILLED_AFTER_MANIFEST = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from scorehouse.flows.ingest import ingest_batch
    from scorehouse.flows.ingest_plan import plan_files
    from scorehouse.warehouse.storage import Warehouse

    commit = Warehouse.write_loads

    def write_loads_then_die(self, loads):
        commit(self, loads)
        os.kill(os.getpid(), signal.SIGKILL)

    Warehouse.write_loads = write_loads_then_die
    warehouse, path = Warehouse(sys.argv[1]), Path(sys.argv[2])
    ingest_batch(warehouse, plan_files(warehouse, [path], [str(path)], None, None, False, False), None, None, False)
""")


def snapshot_ids(outcomes) -> list[str]:  # noqa: ANN001
    return sorted(m.snapshot_id for o in outcomes for m in o.methods if m.snapshot_id)


def kill_after_manifest(home: Path, dump: Path) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_AFTER_MANIFEST, str(home), str(dump)], cwd=REPO, check=False)
    assert done.returncode == -signal.SIGKILL
    assert len(list((home / "loads").glob("*.parquet"))) == 2  # the second load is committed


def test_a_kill_after_the_manifest_leaves_rank_the_snapshots_of_a_clean_home(tmp_path):
    clean = tmp_path / "clean"
    ingest_flow([str(SUPERGLUE), str(VALUE)], home=str(clean))
    ranked = rank_flow(home=str(clean))
    assert {o.benchmark for o in ranked} == {"superglue", "value"}
    expected = snapshot_ids(ranked)

    killed = tmp_path / "killed"
    ingest_flow([str(SUPERGLUE)], home=str(killed))
    kill_after_manifest(killed, VALUE)
    assert not catalog_is_current(Warehouse(killed))
    assert snapshot_ids(rank_flow(home=str(killed))) == expected


def test_a_rerun_after_the_kill_says_unchanged_and_rebuilds_the_catalog(tmp_path):
    home = tmp_path / "home"
    ingest_flow([str(SUPERGLUE)], home=str(home))
    kill_after_manifest(home, VALUE)
    report = ingest_flow([str(VALUE)], home=str(home))
    assert [f.status for f in report.files] == ["unchanged"]
    assert catalog_is_current(Warehouse(home))
    with connect(Warehouse(home)) as con:
        assert query_frame(con, "SELECT count(*) AS n FROM metrics WHERE benchmark = 'value'").item() > 0


def test_sql_rebuilds_a_stale_catalog_before_reading(tmp_path, capsys):
    home = tmp_path / "home"
    ingest_flow([str(SUPERGLUE)], home=str(home))
    kill_after_manifest(home, VALUE)
    assert main(["--home", str(home), "sql", "SELECT DISTINCT benchmark FROM oriented_scores ORDER BY 1",
                 "--format", "csv"]) == 0
    assert capsys.readouterr().out.split() == ["benchmark", "superglue", "value"]


def test_changed_metric_rules_make_the_catalog_stale(tmp_path):
    home = tmp_path / "home"
    ingest_flow([str(VALUE)], home=str(home))
    assert catalog_is_current(Warehouse(home))
    (home / "metric_rules.csv").write_text(
        "benchmark,task,metric,higher_is_better,is_ranked,weight,group,note\n"
        "value,TVR,*,false,true,1.0,,test: flipped\n"
    )
    assert not catalog_is_current(Warehouse(home))


def test_a_copied_home_reads_only_itself(tmp_path, capsys):
    original = tmp_path / "original"
    ingest_flow([str(VALUE)], home=str(original))
    backup = tmp_path / "backup"
    shutil.copytree(original, backup, symlinks=True)
    shutil.rmtree(original)
    assert main(["--home", str(backup), "sql", "SELECT count(*) AS n FROM scores", "--format", "csv"]) == 0
    assert int(capsys.readouterr().out.split()[1]) > 0
    with connect(Warehouse(backup)) as con:
        views = query_frame(con, "SELECT sql FROM duckdb_views() WHERE NOT internal").get_column("sql").to_list()
    assert any(str(backup) in v for v in views)
    assert not any(str(original) + "/" in v for v in views)
    assert main(["--home", str(backup), "rank"]) == 0


# Ingests one file in a fresh process that SIGKILLs itself just before the batch's manifest is
# written: its scores, quarantine and coverage files are on disk, uncommitted.
KILLED_BEFORE_MANIFEST = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from scorehouse.flows.ingest import ingest_batch
    from scorehouse.flows.ingest_plan import plan_files
    from scorehouse.warehouse import atomic
    from scorehouse.warehouse.storage import Warehouse

    write = atomic.write_parquet

    def write_then_die_at_the_manifest(frame, path):
        if Path(path).parent.name == "loads":
            os.kill(os.getpid(), signal.SIGKILL)
        write(frame, path)

    atomic.write_parquet = write_then_die_at_the_manifest
    warehouse, path = Warehouse(sys.argv[1]), Path(sys.argv[2])
    ingest_batch(warehouse, plan_files(warehouse, [path], [str(path)], None, None, False, False), None, None, False)
""")


def uncommitted(home: Path) -> list[Path]:
    """The batch files (scores, coverage, quarantine, systems) of ``home`` that no manifest commits."""
    committed = {p.stem for p in (home / "loads").glob("*.parquet")}
    batch_files = [*home.glob("scores/benchmark=*/level=*/*.parquet"),
                   *[p for folder in ("coverage", "quarantine", "systems") for p in (home / folder).glob("*.parquet")]]
    return [p for p in batch_files if p.stem not in committed]


def test_a_writer_killed_before_its_manifest_leaves_nothing_the_next_one_reads_twice(tmp_path):
    clean = tmp_path / "clean"
    ingest_flow([str(VALUE)], home=str(clean))
    home = tmp_path / "killed"
    ingest_flow([str(SUPERGLUE)], home=str(home))
    done = subprocess.run([sys.executable, "-c", KILLED_BEFORE_MANIFEST, str(home), str(VALUE)], cwd=REPO, check=False)
    assert done.returncode == -signal.SIGKILL
    assert uncommitted(home), "the killed writer left no uncommitted file: the test does not exercise the cleanup"

    # VALUE again with GLUE: another batch, so the killed batch's files are not simply overwritten
    report = ingest_flow([str(VALUE), str(TABLES / "leaderboards - GLUE.csv")], home=str(home))
    assert [f.status for f in report.files] == ["loaded", "loaded"]
    assert not uncommitted(home)
    count = "SELECT count(*) AS n FROM scores WHERE benchmark = 'value'"
    with connect(Warehouse(home)) as con, connect(Warehouse(clean)) as reference:
        assert query_frame(con, count).item() == query_frame(reference, count).item() > 0
