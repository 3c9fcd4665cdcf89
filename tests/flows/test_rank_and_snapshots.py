"""Ranking flow, immutable snapshots, diff and exports on real leaderboards in a real warehouse."""

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from scorehouse.aggregators.ranking_diff import diff_rankings
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
from tests.flows.conftest import snapshot_files
from scorehouse.transforms.rank_plan import MethodRun
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.exports import export_table, read_export, write_export
from scorehouse.warehouse.queries import latest_snapshot_ids
from scorehouse.warehouse.snapshots import read_snapshot
from scorehouse.warehouse.storage import Warehouse

RUNS = [MethodRun("mean"), MethodRun("borda", {"ties": "max"}), MethodRun("copeland"), MethodRun("borda_partial")]


def snapshot_ids(outcomes) -> dict[tuple[str, str], str]:
    return {(o.benchmark, m.run.method): m.snapshot_id for o in outcomes for m in o.methods}


def test_unchanged_inputs_give_the_same_ids_and_write_nothing(tmp_path, dumps):
    home = str(tmp_path / "wh")
    ingest_flow([str(dumps)], home=home)
    first = rank_flow(home=home, runs=RUNS)
    assert all(m.new for o in first for m in o.methods)
    before = snapshot_files(tmp_path / "wh")
    second = rank_flow(home=home, runs=RUNS)
    assert snapshot_ids(second) == snapshot_ids(first)
    assert not any(m.new for o in second for m in o.methods)
    assert snapshot_files(tmp_path / "wh") == before


def test_one_changed_score_makes_new_snapshots_for_its_benchmark_only(tmp_path, dumps):
    home = str(tmp_path / "wh")
    ingest_flow([str(dumps)], home=home)
    first = snapshot_ids(rank_flow(home=home, runs=RUNS))
    before = snapshot_files(tmp_path / "wh")
    value = dumps / "leaderboards - VALUE.csv"
    text = value.read_text()
    # DuKG's TVR cell: from 13.12 (below craig.starr's 15.41) to a value above every system's.
    assert text.count("13.12,4.64") == 1
    value.write_text(text.replace("13.12,4.64", "99.99,4.64"))
    ingest_flow([str(value)], home=home)
    second = snapshot_ids(rank_flow(home=home, runs=RUNS))
    for (benchmark, method), snapshot in second.items():
        assert (snapshot != first[(benchmark, method)]) == (benchmark == "value"), (benchmark, method)
    after = snapshot_files(tmp_path / "wh")
    assert all(after[path] == content for path, content in before.items())  # old snapshots intact
    warehouse = Warehouse(home)
    manifest, new = read_snapshot(warehouse, second[("value", "mean")])
    assert manifest["previous_snapshot_id"] == first[("value", "mean")]
    _, old = read_snapshot(warehouse, first[("value", "mean")])
    diff = diff_rankings(old, new)
    moved = diff.changes.filter(pl.col("change") != 0)
    assert moved.get_column("system").to_list()[0] == "DuKG Baidu & KG"
    assert moved.filter(pl.col("system") == "DuKG Baidu & KG").row(0, named=True)["change"] > 0
    changed_scores = diff.changes.filter(pl.col("score_before") != pl.col("score_after"))
    assert changed_scores.get_column("system").to_list() == ["DuKG Baidu & KG"]  # only its mean changed
    assert diff.entered == () and diff.left == ()


def test_time_travel_and_latest_views(tmp_path, dumps):
    home = str(tmp_path / "wh")
    ingest_flow([str(dumps)], home=home)
    ids = snapshot_ids(rank_flow(home=home, runs=RUNS))
    with connect(Warehouse(home)) as con:
        past = query_frame(con, "SELECT system, rank FROM rankings WHERE snapshot_id = ? ORDER BY rank, system",
                           [ids[("superglue", "borda")]])
        latest = query_frame(con, "SELECT DISTINCT snapshot_id FROM latest_rankings")
    _, stored = read_snapshot(Warehouse(home), ids[("superglue", "borda")])
    assert past.rows() == stored.select("system", "rank").rows()
    assert set(latest.get_column("snapshot_id")) == set(ids.values())


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_exports_read_back_equal_to_the_snapshots(tmp_path, dumps, fmt):
    home = str(tmp_path / "wh")
    ingest_flow([str(dumps)], home=home)
    rank_flow(home=home, runs=RUNS)
    warehouse = Warehouse(home)
    ids = latest_snapshot_ids(warehouse)
    path = write_export(export_table(warehouse, ids), fmt, tmp_path / f"export.{fmt}")
    back = read_export(path, fmt)
    for snapshot in ids:
        manifest, ranking = read_snapshot(warehouse, snapshot)
        part = back.filter(pl.col("snapshot_id") == snapshot)
        assert_frame_equal(part.select(ranking.columns), ranking)
        assert part.get_column("method").unique().to_list() == [manifest["method"]]
        assert part.get_column("parameters").unique().to_list() == [manifest["parameters"]]
