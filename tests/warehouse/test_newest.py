""""The newest" is one rule (warehouse.sql): the catalog's views and the Python reads that run without
the catalog (load manifests, the previous snapshot) pick the same rows, and the rows a brute-force
reference picks: the latest timestamp, ties broken by the larger id."""

from datetime import UTC, datetime, timedelta

import numpy as np
import polars as pl
import pytest

from scorehouse.warehouse import atomic
from scorehouse.warehouse.catalog import connect, query_frame, rebuild_catalog
from scorehouse.warehouse.schema import LOADS, METRICS, SNAPSHOT_MANIFEST
from scorehouse.warehouse.snapshots import SnapshotRequest, manifest_path, previous_snapshot
from scorehouse.warehouse.storage import LoadRecord, Warehouse

START = datetime(2024, 1, 1, tzinfo=UTC)


def reference_newest(rows: list[dict], key: tuple[str, ...], stamp: str, ident: str) -> set[str]:
    """The id of the newest row of every key, by a plain max over (timestamp, id)."""
    best: dict[tuple, dict] = {}
    for row in rows:
        k = tuple(row[c] for c in key)
        if k not in best or (row[stamp], row[ident]) > (best[k][stamp], best[k][ident]):
            best[k] = row
    return {row[ident] for row in best.values()}


def stamps(rng: np.random.Generator, n: int) -> list[datetime]:
    """Timestamps from three values only, so that ties (broken by the id) are common."""
    return [START + timedelta(seconds=int(s)) for s in rng.integers(0, 3, n)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_current_loads_agree_between_the_manifests_the_view_and_a_reference(home, seed):
    rng = np.random.default_rng(seed)
    warehouse = Warehouse(home)
    rows = []
    for i, loaded_at in enumerate(stamps(rng, 12)):
        record = LoadRecord(f"load{rng.integers(0, 10**6):06d}{i:02d}", f"fmt:b:file{rng.integers(0, 4)}.csv",
                            "f.csv", "sha", "fmt", 1, "b", 1, 1, 0)
        atomic.write_parquet(record.frame(loaded_at), warehouse.dir("loads") / f"{record.load_id}.parquet")
        rows.append({"load_id": record.load_id, "source": record.source, "loaded_at": loaded_at})
    expected = reference_newest(rows, ("source",), "loaded_at", "load_id")
    manifests = warehouse.manifests()
    assert manifests.columns == [*LOADS, "is_current"]
    assert set(manifests.filter("is_current").get_column("load_id")) == expected
    rebuild_catalog(warehouse, pl.DataFrame(schema=METRICS))
    with connect(warehouse) as con:
        view = query_frame(con, "SELECT load_id FROM loads WHERE is_current")
    assert set(view.get_column("load_id")) == expected


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_latest_snapshots_agree_between_the_view_previous_snapshot_and_a_reference(home, seed):
    rng = np.random.default_rng(seed)
    warehouse = Warehouse(home)
    # benchmark b has a current load with rows: latest_snapshots leaves out a benchmark without one (forget)
    load = LoadRecord("load-of-b", "fmt:b:f.csv", "f.csv", "sha", "fmt", 1, "b", 1, 1, 0)
    atomic.write_parquet(load.frame(datetime(2026, 1, 1, tzinfo=UTC)), warehouse.dir("loads") / "load-of-b.parquet")
    rows = []
    for i, created_at in enumerate(stamps(rng, 14)):
        row = {
            "snapshot_id": f"{rng.integers(0, 10**6):06d}{i:02d}", "created_at": created_at, "benchmark": "b",
            "level": "task", "method": ["mean", "borda"][rng.integers(0, 2)], "parameters": ["{}", '{"x":1}'][rng.integers(0, 2)],
            "input_fingerprint": "f", "load_ids": ["l"], "code_version": "0", "n_voters": 1, "n_systems": 2, "n_rows": 2,
            "notes": [], "previous_snapshot_id": None,
        }
        atomic.write_parquet(pl.DataFrame([row], schema=SNAPSHOT_MANIFEST), manifest_path(warehouse, row["snapshot_id"]))
        rows.append(row)
    key = ("benchmark", "level", "method", "parameters")
    expected = reference_newest(rows, key, "created_at", "snapshot_id")
    rebuild_catalog(warehouse, pl.DataFrame(schema=METRICS))
    with connect(warehouse) as con:
        view = query_frame(con, "SELECT snapshot_id FROM latest_snapshots")
    assert set(view.get_column("snapshot_id")) == expected
    for benchmark, level, method, parameters in {tuple(r[c] for c in key) for r in rows}:
        request = SnapshotRequest(benchmark, level, method, parameters, "f", ("l",), "0", 1, 2, ())
        newest = previous_snapshot(warehouse, request)
        same = [r for r in rows if (r["method"], r["parameters"]) == (method, parameters)]
        assert newest in expected and newest == reference_newest(same, key, "created_at", "snapshot_id").pop()
    assert previous_snapshot(warehouse, SnapshotRequest("other", "task", "mean", "{}", "f", (), "0", 1, 2, ())) is None
