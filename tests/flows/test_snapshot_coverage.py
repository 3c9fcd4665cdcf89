"""Every snapshot stores its coverage; ``latest_rankings`` shows the voters behind each system.

Reference: the voters of the ballots counted by a Polars group-by and a
self-join on the voter (independent of the sparse product the flow uses).
"""

import polars as pl
from polars.testing import assert_frame_equal

from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
from scorehouse.flows.synth import write_synthetic
from scorehouse.transforms.ballots import ballots
from scorehouse.transforms.rank_plan import MethodRun
from scorehouse.transforms.synth import SynthSpec
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.queries import benchmark_scores
from scorehouse.warehouse.snapshots import read_coverage
from scorehouse.warehouse.storage import Warehouse


def reference_coverage(warehouse: Warehouse, benchmark: str, level: str) -> pl.DataFrame:
    scores, metrics = benchmark_scores(warehouse, benchmark, level)
    scored = ballots(scores, metrics, level=level).collect().filter(pl.col("score").is_not_null())
    pairs = scored.select("voter", "system").join(scored.select("voter", pl.col("system").alias("other")), on="voter")
    return (
        pairs.filter(pl.col("system") <= pl.col("other"))
        .group_by("system", "other").agg(pl.len().cast(pl.Int64).alias("n_voters"))
        .sort("system", "other")
    )


def check(home, benchmark: str, level: str, outcomes) -> None:  # noqa: ANN001
    warehouse = Warehouse(home)
    expected = reference_coverage(warehouse, benchmark, level)
    snapshots = [m.snapshot_id for o in outcomes if o.benchmark == benchmark for m in o.methods if m.snapshot_id]
    assert snapshots
    for snapshot in snapshots:
        assert_frame_equal(read_coverage(warehouse, benchmark, snapshot).sort("system", "other"), expected)
    with connect(warehouse) as con:
        shown = query_frame(
            con, "SELECT DISTINCT system, n_voters FROM latest_rankings WHERE benchmark = ? AND level = ?",
            [benchmark, level],
        ).sort("system")
    per_system = expected.filter(pl.col("system") == pl.col("other")).select("system", "n_voters")
    assert_frame_equal(shown, per_system)


def test_instance_level_coverage_of_a_sparse_benchmark(tmp_path):
    spec = SynthSpec(tasks=6, metrics=2, instances=5, systems=8, missing_fraction=0.5, seed=3)
    write_synthetic(spec, tmp_path / "dumps", formats=("parquet",))
    home = str(tmp_path / "wh")
    ingest_flow([str(tmp_path / "dumps" / "parquet")], home=home)
    outcomes = rank_flow(home=home, level="instance")  # the partition-wise path
    check(home, "synth-00", "instance", outcomes)
    assert reference_coverage(Warehouse(home), "synth-00", "instance").filter(pl.col("system") == pl.col("other")).get_column("n_voters").n_unique() > 1


def test_task_level_coverage_on_the_whole_table_path(tmp_path, dumps):
    home = str(tmp_path / "wh")
    ingest_flow([str(dumps)], home=home)
    outcomes = rank_flow(home=home, runs=[MethodRun("copeland"), MethodRun("borda_partial")])
    for outcome in outcomes:
        check(home, outcome.benchmark, outcome.level, outcomes)
