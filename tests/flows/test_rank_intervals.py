"""The intervals ``rank`` stores in each snapshot: what the API computes, what numpy computes for a mean, the budget,
and snapshots written before them."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import rankdata

from scorehouse.api import Warehouse as Api
from scorehouse.flows.common import refresh_catalog
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
from scorehouse.transforms.rank_plan import MethodRun
from scorehouse.transforms.snapshot_intervals import RESAMPLES, SEED, unaffordable
from scorehouse.warehouse.catalog import user_query
from scorehouse.warehouse.schema import SNAPSHOT_INTERVALS
from scorehouse.warehouse.snapshots import SnapshotRequest, read_intervals, write_snapshot
from scorehouse.warehouse.storage import Warehouse
from tests.flows.test_rank_partitioned import WMT21

SYSTEMS, TASKS = [f"sys-{i:02d}" for i in range(12)], [f"task-{t}" for t in range(8)]
STORED = "SELECT m.method, i.* FROM snapshot_intervals AS i JOIN latest_snapshots AS m ON m.snapshot_id = i.snapshot"


def table(systems: list[str], seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    quality = np.linspace(70, 50, len(systems))
    return pl.DataFrame([{"system": s, "task": t, "score": round(float(quality[i] + rng.normal(0, 6)), 2)}
                         for i, s in enumerate(systems) for t in TASKS])


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):  # noqa: ANN201
    """12 systems x 8 tasks ingested and ranked with the defaults through the public API."""
    api = Api(tmp_path_factory.mktemp("intervals") / "warehouse", frames="polars")
    api.ingest(table(SYSTEMS, 3), "tiny", higher_is_better=True)
    api.rank("tiny")
    return api


@pytest.mark.filterwarnings("ignore:bootstrap of 'kemeny'")  # the API warns the refits' notes; the snapshot does not
def test_each_snapshot_stores_what_the_api_computes_with_the_same_settings(ranked):
    stored = ranked.sql(STORED)
    assert sorted(stored.get_column("method").unique()) == ["borda", "copeland", "kemeny", "mean", "minimax"]
    assert set(stored.select("n_resamples", "seed", "confidence").unique().rows()) == {(RESAMPLES, SEED, 0.95)}
    for method in stored.get_column("method").unique():
        expected = ranked.rank("tiny", method=method, intervals=True, bootstrap={"n_resamples": RESAMPLES, "seed": SEED})
        mine = stored.filter(pl.col("method") == method).sort("system")
        expected = expected.sort("system")
        assert mine.get_column("system").to_list() == expected.get_column("system").to_list()
        for column in ("rank_best", "rank_worst", "tie_group"):
            assert mine.get_column(column).to_list() == expected.get_column(column).to_list(), (method, column)
        np.testing.assert_allclose(mine.get_column("score_low"), expected.get_column("score_low"), rtol=1e-12)
    notes = ranked.sql("SELECT method, notes FROM latest_snapshots")
    for method, said in notes.iter_rows():
        assert [n for n in said if n.startswith("intervals: ")] == [
            f"intervals: 95% bootstrap intervals of score and rank stored (intervals.parquet): {RESAMPLES} resamples "
            f"of the voters, seed {SEED}"], method


def test_the_stored_interval_of_the_mean_is_the_percentile_of_numpy_resampled_means(ranked):
    scores = table(SYSTEMS, 3).pivot(on="system", index="task", values="score").sort("task")  # voters sorted by name
    matrix = scores.select(sorted(SYSTEMS)).to_numpy()
    draws = np.random.default_rng(SEED).integers(0, len(TASKS), size=(RESAMPLES, len(TASKS)))
    means = matrix[draws].mean(axis=1)  # resamples x systems
    ranks = rankdata(-means, method="min", axis=1)
    stored = ranked.sql(f"{STORED} WHERE m.method = 'mean' ORDER BY i.system")
    assert stored.get_column("system").to_list() == sorted(SYSTEMS)
    assert stored.get_column("rank_best").to_list() == np.quantile(ranks, 0.025, axis=0, method="lower").tolist()
    assert stored.get_column("rank_worst").to_list() == np.quantile(ranks, 0.975, axis=0, method="higher").tolist()
    np.testing.assert_allclose(stored.get_column("score_low"), np.quantile(means, 0.025, axis=0), rtol=1e-12)
    np.testing.assert_allclose(stored.get_column("score_high"), np.quantile(means, 0.975, axis=0), rtol=1e-12)
    assert (stored.get_column("rank_worst") > stored.get_column("rank_best")).any()


def test_a_run_over_the_budget_stores_none_and_says_why(tmp_path):
    api = Api(tmp_path / "warehouse", frames="polars")
    api.ingest(table([f"s{i:02d}" for i in range(13)], 4), "wide", higher_is_better=True)
    api.rank("wide", method="kemeny")
    api.rank("wide", method="mean")
    assert api.sql(STORED).get_column("method").unique().to_list() == ["mean"]
    [said] = api.sql("SELECT notes FROM latest_snapshots WHERE method = 'kemeny'").item()[-1:]
    assert said == ("intervals: none stored: exact kemeny on 13 systems (over 12) refits by integer programs "
                    "bounded by a time limit each, too slow for 200 resamples")


def test_the_budget_is_the_documented_rule():
    assert unaffordable("mean", 60, 11_824) is None  # WMT20: 200 x 11,824 x 60² = 8.5e9
    assert "9.8e+10 operations" in unaffordable("borda_partial", 700, 1_000)  # the MTEB-shaped site benchmark
    assert unaffordable("kemeny", 12, 100) is None and "exact kemeny on 13" in unaffordable("kemeny", 13, 2)
    assert unaffordable("copeland", 316, 1) is None
    assert "would pass 2e+07 cells" in unaffordable("copeland", 317, 1)
    assert unaffordable("mean", 2, 300_000) is None
    assert "200 draws of 300001 voters would pass 6e+07" in unaffordable("mean", 2, 300_001)


@pytest.mark.slow
def test_a_partition_wise_rank_stores_the_intervals_of_the_whole_ballots(tmp_path):
    home = tmp_path / "home"
    ingest_flow([str(WMT21)], home=str(home))
    rank_flow(home=str(home), level="instance", runs=[MethodRun("borda_partial")])
    api = Api(home, frames="polars")
    stored = api.sql(f"{STORED} WHERE m.benchmark = 'wmt21-mdr' ORDER BY i.system")
    expected = api.rank("wmt21-mdr", method="borda_partial", level="instance", intervals=True,
                        bootstrap={"n_resamples": RESAMPLES, "seed": SEED}).sort("system")
    assert stored.height == expected.height == 8
    assert stored.select("rank_best", "rank_worst").rows() == expected.select("rank_best", "rank_worst").rows()


def test_a_snapshot_written_before_intervals_still_reads(tmp_path):
    api = Api(tmp_path / "warehouse", frames="polars")
    api.ingest(table(SYSTEMS[:3], 5), "old", higher_is_better=True)
    api.rank("old", method="mean")
    warehouse = Warehouse(api.home)
    request = SnapshotRequest("old", "task", "mean", "{}", "f" * 64, (), "0.1+before-intervals", 8, 3, ())
    ranking = pl.DataFrame({"system": SYSTEMS[:3], "score": [3.0, 2.0, 1.0], "rank": [1, 2, 3], "tied": [False] * 3})
    with warehouse.write_lock():
        old, _ = write_snapshot(warehouse, request, ranking)  # as rank wrote them before: no intervals argument
    refresh_catalog(warehouse)
    assert read_intervals(warehouse, "old", old) is None
    assert user_query(warehouse, f"SELECT count(*) AS n FROM rankings WHERE snapshot_id = '{old}'").item() == 3
    listed = user_query(warehouse, "SELECT DISTINCT snapshot FROM snapshot_intervals")
    assert old not in listed.get_column("snapshot").to_list() and listed.height == 1
    assert set(SNAPSHOT_INTERVALS) <= set(user_query(warehouse, "SELECT * FROM snapshot_intervals").columns)
