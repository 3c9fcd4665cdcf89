"""Per-load coverage: what the catalog and the partition planner read instead of scanning every score."""

from __future__ import annotations

import shutil

import polars as pl
import pyarrow as pa

from scorehouse.flows.common import refresh_catalog
from scorehouse.flows.ingest import ingest_flow
from tests.warehouse.conftest import GLUE_CSV, VALUE_CSV
from tests.warehouse.test_ingest import sql
from scorehouse.warehouse.catalog import shared_partitions
from scorehouse.warehouse.partitions import (
    benchmark_shape, current_fingerprints, read_metrics, read_partition, read_partition_arrow,
)
from scorehouse.warehouse.schema import SCORES, conform
from scorehouse.warehouse.snapshots import input_fingerprint
from scorehouse.warehouse.sql import query_files
from scorehouse.warehouse.storage import Warehouse


def assert_arrow_reads_the_same(warehouse: Warehouse, partitions) -> None:  # noqa: ANN001
    """The dictionary-encoded Arrow read holds the same rows as the Polars read."""
    for partition in partitions:
        table = read_partition_arrow(warehouse, partition)
        assert all(pa.types.is_dictionary(table.schema.field(c).type) for c in ("task", "metric", "system"))
        arrow, polars = conform(pl.from_arrow(table), SCORES), read_partition(warehouse, partition)
        assert arrow.sort(arrow.columns).equals(polars.sort(polars.columns))  # the view's row order is not fixed


def test_coverage_counts_what_each_load_scored(home):
    ingest_flow([str(GLUE_CSV)], home=str(home))
    coverage = Warehouse(home).current_coverage()
    by_sql = sql(home, """SELECT load_id, benchmark, level, task, metric, system, count(*) AS rows,
                                 count(*) FILTER (WHERE score IS NULL) AS nulls
                          FROM scores GROUP BY ALL ORDER BY ALL""")
    assert coverage.sort(coverage.columns).equals(by_sql.sort(by_sql.columns))
    assert coverage.get_column("nulls").sum() == 4  # the README: '-' in 4 GLUE cells


def test_loads_written_before_coverage_get_it_back_when_the_catalog_is_rebuilt(home):
    ingest_flow([str(GLUE_CSV)], home=str(home))
    warehouse = Warehouse(home)
    before = warehouse.current_coverage()
    shutil.rmtree(warehouse.dir("coverage"))
    refresh_catalog(warehouse)
    assert warehouse.current_coverage().equals(before)
    assert sql(home, "SELECT count(*) FROM scores").item() == 1499


def test_two_sources_scoring_the_same_cells_go_through_the_newest_row_window(home, tmp_path):
    first, second = tmp_path / "a" / "glue.csv", tmp_path / "b" / "glue-copy.csv"
    for path in (first, second):
        path.parent.mkdir()
    shutil.copyfile(GLUE_CSV, first)
    second.write_text(GLUE_CSV.read_text().replace("93.9/91.8", "94.0/91.8", 1))
    ingest_flow([str(first)], home=str(home), benchmark="glue")
    ingest_flow([str(second)], home=str(home), benchmark="glue")
    warehouse = Warehouse(home)
    shared = shared_partitions(warehouse)
    assert shared.height == shared.filter(pl.col("benchmark") == "glue").height > 0
    loads = {}  # the reference: the loads of each partition, collected row by row
    for row in warehouse.current_coverage().iter_rows(named=True):
        loads.setdefault((row["benchmark"], row["level"], row["task"], row["system"]), set()).add(row["load_id"])
    assert shared.rows() == sorted(key for key, found in loads.items() if len(found) > 1)
    assert sql(home, "SELECT count(*) FROM scores").item() == 1499  # one copy of every cell ...
    newest = sql(home, "SELECT score FROM scores WHERE system = 'ERNIE' AND task = 'MRPC' AND metric = 'F1'")
    assert newest.to_series().to_list() == [94.0]  # ... the newer load's
    shape = benchmark_shape(warehouse, "glue", "task", read_metrics(warehouse, "glue"))
    assert any(p.shared for p in shape.partitions)
    read = pl.concat([read_partition(warehouse, p) for p in shape.partitions])
    assert_arrow_reads_the_same(warehouse, shape.partitions)
    in_view = sql(home, "SELECT benchmark, task, metric, instance, system, score, load_id FROM scores")
    assert read.sort(read.columns).equals(in_view.sort(in_view.columns))


def test_a_partition_of_some_of_a_files_tasks_reads_exactly_those_tasks(home):
    ingest_flow([str(GLUE_CSV)], home=str(home))  # one file, one load, every GLUE task
    warehouse = Warehouse(home)
    shape = benchmark_shape(warehouse, "glue", "task", read_metrics(warehouse, "glue"), partition_rows=1)
    assert len(shape.partitions) > 1 and all(len(p.files) == 1 for p in shape.partitions)
    for partition in shape.partitions:
        read = read_partition(warehouse, partition)
        marks = ", ".join(f"'{t}'" for t in partition.tasks)
        in_view = sql(home, f"SELECT benchmark, task, metric, instance, system, score, load_id FROM scores "
                            f"WHERE task IN ({marks})")
        assert read.height == in_view.height > 0
        assert read.sort(read.columns).equals(in_view.sort(in_view.columns))
    assert_arrow_reads_the_same(warehouse, shape.partitions)


def coverage_of_tasks(systems_of_task: dict[str, list[str]], voters: int) -> pl.DataFrame:
    """The coverage of one load scoring each task's systems on ``voters`` instances of one metric."""
    rows = [
        {"load_id": "L", "benchmark": "b", "level": "instance", "task": task, "metric": "m", "system": system,
         "rows": voters, "nulls": 0}
        for task, systems in systems_of_task.items() for system in systems
    ]
    return pl.DataFrame(rows)


def test_partitions_of_tasks_with_their_own_systems_stay_within_the_cell_budget(tmp_path):
    """A dense matrix has (voters of its tasks) x (systems of its tasks) cells: 50 voters and 20 systems a task."""
    own = {f"t{t}": [f"t{t}-s{s}" for s in range(20)] for t in range(10)}
    shared = {task: [f"s{s}" for s in range(20)] for task in own}
    metrics = pl.DataFrame({"benchmark": "b", "task": list(own), "metric": "m", "is_ranked": True})

    def sizes(systems_of_task: dict[str, list[str]]) -> list[int]:
        shape = benchmark_shape(Warehouse(tmp_path), "b", "instance", metrics, coverage_of_tasks(systems_of_task, 50),
                                partition_cells=4000)
        return [len(p.tasks) for p in shape.partitions]

    assert sizes(own) == [2] * 5  # two tasks: 100 voters x 40 systems; three would be 150 x 60
    assert sizes(shared) == [4, 4, 2]  # four tasks: 200 voters x the same 20 systems


def loads_of_three_glue_files(home, tmp_path) -> dict[str, str]:
    """GLUE, then a corrected GLUE of the same source (the first is superseded), then a copy under another name
    that scores the same cells (two current loads share them), and VALUE: the loads by role."""
    files = {"first": tmp_path / "a" / "glue.csv", "corrected": tmp_path / "b" / "glue.csv",
             "copy": tmp_path / "c" / "glue-copy.csv"}
    texts = {"first": GLUE_CSV.read_text(), "corrected": GLUE_CSV.read_text().replace("93.9/91.8", "94.0/91.8", 1),
             "copy": GLUE_CSV.read_text().replace("75.5", "75.4", 1)}
    loads = {}
    for role, path in files.items():
        path.parent.mkdir()
        path.write_text(texts[role])
        [outcome] = ingest_flow([str(path)], home=str(home), benchmark="glue").files
        loads[role] = outcome.load_id
    ingest_flow([str(VALUE_CSV)], home=str(home))
    return loads


def test_the_shape_is_what_polars_computes_over_the_collected_coverage(home, tmp_path):
    """The reference is the plan's definition computed by plain Polars on the whole current coverage."""
    loads = loads_of_three_glue_files(home, tmp_path)
    warehouse = Warehouse(home)
    metrics = read_metrics(warehouse, "glue")
    coverage = warehouse.current_coverage().filter((pl.col("benchmark") == "glue") & (pl.col("level") == "task"))
    assert set(coverage.get_column("load_id").unique().to_list()) == {loads["corrected"], loads["copy"]}
    some_tasks = tuple(sorted(coverage.get_column("task").unique().to_list())[::2])
    some_systems = tuple(sorted(coverage.get_column("system").unique().to_list())[1::3])
    for systems, tasks in ((None, None), (some_systems, None), (None, some_tasks), (some_systems, some_tasks)):
        mine = coverage.filter(pl.col("system").is_in(list(systems or coverage.get_column("system"))),
                               pl.col("task").is_in(list(tasks or coverage.get_column("task"))))
        ranked = mine.join(metrics.filter("is_ranked").select("benchmark", "task", "metric"),
                           on=["benchmark", "task", "metric"])
        cells = ranked.group_by("task", "metric").agg(pl.col("system").n_unique(), pl.col("rows").n_unique(),
                                                      pl.col("nulls").sum())
        per_task = mine.group_by("task").agg(pl.col("rows").sum(), pl.col("load_id").unique().sort()).sort("task")
        shape = benchmark_shape(warehouse, "glue", "task", metrics, partition_rows=1, systems=systems, tasks=tasks)
        assert shape.systems == tuple(sorted(ranked.get_column("system").unique().to_list()))
        assert shape.load_ids == tuple(sorted(mine.get_column("load_id").unique().to_list()))
        assert shape.may_miss == (cells.filter((pl.col("system") < len(shape.systems)) | (pl.col("rows") > 1)
                                               | (pl.col("nulls") > 0)).height > 0)
        assert [(p.tasks, p.rows, p.loads, p.shared) for p in shape.partitions] == [
            ((task, ), rows, tuple(ids), len(ids) > 1) for task, rows, ids in per_task.iter_rows()]
    whole = benchmark_shape(warehouse, "glue", "task", metrics)  # the default budget: one partition of every task
    assert [p.tasks for p in whole.partitions] == [tuple(sorted(coverage.get_column("task").unique()))]
    assert whole.may_miss  # GLUE has four cells of '-'


def test_fingerprints_are_those_of_the_current_loads_of_each_benchmark_and_level(home, tmp_path):
    loads = loads_of_three_glue_files(home, tmp_path)
    warehouse = Warehouse(home)
    coverage = warehouse.current_coverage()
    expected = {
        (benchmark, level): input_fingerprint(ids.to_list(), read_metrics(warehouse, benchmark))
        for (benchmark, level), ids in ((key, part.get_column("load_id").unique())
                                        for key, part in coverage.group_by("benchmark", "level"))
    }
    assert len(expected) == 2 and loads["first"] not in coverage.get_column("load_id").to_list()
    assert current_fingerprints(warehouse, ["glue", "value"]) == expected
    assert current_fingerprints(warehouse, ["glue"]) == {("glue", "task"): expected[("glue", "task")]}
    assert current_fingerprints(warehouse, []) == {}


def test_the_coverage_relation_holds_the_current_loads_rows_with_or_without_superseded_loads_in_its_files(home, tmp_path):
    """Two files in one batch, then one of them changed: the batch's file holds a load no longer current, which the
    relation leaves out; before that, every load of the files is current and nothing is left out."""
    first, second = tmp_path / "a" / "glue.csv", tmp_path / "b" / "glue-copy.csv"
    for path in (first, second):
        path.parent.mkdir()
        shutil.copyfile(GLUE_CSV, path)
    second.write_text(GLUE_CSV.read_text().replace("93.9/91.8", "94.0/91.8", 1))
    ingest_flow([str(first), str(second)], home=str(home), benchmark="glue")
    assert warehouse_loads(home) == (2, 2, 1)  # two current loads, one batch
    warehouse = Warehouse(home)

    def reference() -> list[tuple]:  # the coverage files' rows of current loads, by the manifests, row by row
        current = set(warehouse.manifests().filter("is_current").get_column("load_id").to_list())
        files = sorted(warehouse.dir("coverage").glob("*.parquet"))
        rows = pl.concat([pl.read_parquet(f) for f in files]).rows(named=True)
        return sorted(tuple(r.values()) for r in rows if r["load_id"] in current)

    def related() -> list[tuple]:
        return sorted(query_files(f"SELECT * FROM ({warehouse.coverage_relation()})").rows())

    assert related() == reference() and len(reference()) > 0
    first.write_text(GLUE_CSV.read_text().replace("93.9/91.8", "95.0/91.8", 1))  # a new load of the first file
    ingest_flow([str(first)], home=str(home), benchmark="glue")
    assert warehouse_loads(home) == (3, 2, 2)  # the batch of both holds a load no longer current
    assert related() == reference()


def warehouse_loads(home) -> tuple[int, int, int]:
    """(loads, current loads, batches) of the home."""
    manifests = Warehouse(home).manifests()
    return manifests.height, manifests.filter("is_current").height, manifests.get_column("batch_id").n_unique()
