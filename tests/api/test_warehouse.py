"""scorehouse.Warehouse: tables ingested through the user-table path, ranked into snapshots by the rank flow,
queried through the catalog; checked against hand-computed rankings, scorehouse.rank and the aggregators."""

import numpy as np
import pandas as pd
import polars as pl
import pytest

import scorehouse
from scorehouse.aggregators import bootstrap
from scorehouse.api_warehouse import RankRefusedError

LEADERBOARD = pd.DataFrame({"t1": [0.9, 0.5, 0.1, 0.4], "t2": [0.2, 0.7, 0.1, 0.3], "t3": [0.5, 0.6, 0.2, 0.1]},
                           index=pd.Index(["a", "b", "c", "d"], name="model"))


@pytest.fixture
def home(tmp_path):
    warehouse = scorehouse.Warehouse(tmp_path / "wh")
    assert warehouse.ingest(LEADERBOARD, benchmark="toy") == 12
    return warehouse


def test_ingesting_the_same_table_again_lands_nothing(home):
    assert home.ingest(LEADERBOARD, benchmark="toy") == 0
    counts = home.sql("SELECT task, count(*) AS n FROM scores WHERE benchmark = 'toy' GROUP BY task ORDER BY task")
    assert counts.to_dict("list") == {"task": ["t1", "t2", "t3"], "n": [4, 4, 4]}


def test_rank_stores_a_snapshot_with_the_ranking_computed_by_hand(home):
    ranking = home.rank("toy", method="borda")
    # Borda points by hand: t1 a>b>d>c, t2 b>d>a>c, t3 b>a>c>d -> a 3+1+2, b 2+3+3, c 0+0+1, d 1+2+0.
    assert ranking["system"].tolist() == ["b", "a", "d", "c"]
    assert ranking["score"].tolist() == [8.0, 6.0, 3.0, 1.0]
    assert ranking["rank"].tolist() == [1, 2, 3, 4]
    assert set(ranking["benchmark"]) == {"toy"} and set(ranking["level"]) == {"task"}
    in_memory = scorehouse.rank(LEADERBOARD, "borda")
    pd.testing.assert_frame_equal(ranking[["system", "rank", "score", "tied"]], in_memory)
    snapshots = home.snapshots()
    assert snapshots["method"].tolist() == ["borda"]
    assert snapshots["snapshot_id"].tolist() == ranking["snapshot_id"].unique().tolist()


def test_ranking_unchanged_data_again_returns_the_stored_snapshot(home):
    first = home.rank(method="mean")
    again = home.rank(method="mean")
    pd.testing.assert_frame_equal(first, again)
    assert len(home.snapshots()) == 1
    latest = home.latest_rankings("toy")
    assert latest[["system", "rank", "score"]].equals(first[["system", "rank", "score"]])


def test_default_methods_of_the_level(home):
    ranking = home.rank()
    assert sorted(ranking["method"].unique()) == ["borda", "copeland", "kemeny", "mean", "minimax"]
    assert sorted(home.snapshots()["method"]) == ["borda", "copeland", "kemeny", "mean", "minimax"]


def test_intervals_are_the_bootstrap_of_the_benchmarks_ballots(home):
    options = {"n_resamples": 200, "seed": 7}
    ranking = home.rank(method="borda", intervals=True, bootstrap=options)
    assert ranking.columns.tolist()[-5:] == ["score_low", "score_high", "rank_best", "rank_worst", "tie_group"]
    ballots = pl.from_pandas(LEADERBOARD.reset_index()).unpivot(index="model", variable_name="task", value_name="score")
    ballots = ballots.select(voter=pl.col("task") + " | score", system="model", score="score")
    want = bootstrap("borda", ballots, **options).to_pandas()
    pd.testing.assert_frame_equal(ranking[want.columns.tolist()], want)
    assert (ranking["rank_best"] <= ranking["rank"]).all() and (ranking["rank"] <= ranking["rank_worst"]).all()


def test_a_long_instance_level_table_with_a_declared_direction(tmp_path):
    rows = [(s, t, i, e) for s, base in (("a", 0.1), ("b", 0.3)) for t in ("x", "y") for i, e in (("1", base), ("2", base + 0.1))]
    errors = pd.DataFrame(rows, columns=["model", "dataset", "item", "error"])
    home = scorehouse.Warehouse(tmp_path / "wh", frames="polars")
    assert home.ingest(errors, benchmark="asr", system="model", task="dataset", instance="item", score="error",
                       higher_is_better=False) == 8
    ranking = home.rank(method="mean", two_step=True)
    assert isinstance(ranking, pl.DataFrame)
    assert ranking.select("level", "two_step").unique().rows() == [("instance", True)]
    # The mean of the per-task mean errors, negated (lower is better): a 0.15, b 0.35.
    assert ranking.get_column("system").to_list() == ["a", "b"]
    np.testing.assert_allclose(ranking.get_column("score").to_numpy(), [-0.15, -0.35])


def test_a_method_that_refuses_is_an_error_naming_the_parameter(home):
    with pytest.raises(RankRefusedError, match="time_limit"):
        home.rank(method="kemeny", params={"time_limit": -1})


def test_bootstrap_options_without_intervals_are_refused(home):
    with pytest.raises(scorehouse.ArgumentError, match="bootstrap"):
        home.rank(method="borda", bootstrap={"seed": 1})
