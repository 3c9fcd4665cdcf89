"""The intervals ``rank`` stores in each battles snapshot: what the API computes, what a plain Elo replay of battles
resampled with numpy gives, the battles the run's selection kept, the budget, and battle snapshots written before."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import rankdata

from scorehouse.aggregators import bootstrap_battles
from scorehouse.api import Warehouse as Api
from scorehouse.flows.common import refresh_catalog
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
from scorehouse.flows.rank_intervals import ranking_intervals
from scorehouse.transforms.rank_plan import MethodRun
from scorehouse.transforms.snapshot_intervals import RESAMPLES, SEED, battles_unaffordable
from scorehouse.transforms.synth_battles import synth_battles
from scorehouse.warehouse.battle_filters import BattleFilters, BattleSelection
from scorehouse.warehouse.snapshots import SnapshotRequest, read_intervals, write_snapshot
from scorehouse.warehouse.storage import Warehouse

STORED = "SELECT * FROM snapshot_intervals WHERE snapshot = '{}' ORDER BY system"
BOOTSTRAP = {"n_resamples": RESAMPLES, "seed": SEED}


def ingested(folder, battles: pl.DataFrame) -> Api:  # noqa: ANN001
    battles.write_parquet(folder / "arena.parquet")
    ingest_flow([str(folder / "arena.parquet")], home=str(folder / "warehouse"), benchmark="arena")
    return Api(folder / "warehouse", frames="polars")


@pytest.fixture(scope="module")
def generated() -> pl.DataFrame:
    """600 generated battles among 5 systems (judges, categories, both-bad ties), each with its own time stamp."""
    return synth_battles(600, n_systems=5, seed=3).battles


@pytest.fixture(scope="module")
def arena(generated, tmp_path_factory) -> Api:  # noqa: ANN001
    api = ingested(tmp_path_factory.mktemp("battle-intervals"), generated)
    api.rank("arena")  # the defaults of timed battles: bradley_terry and elo
    return api


def test_each_battles_snapshot_stores_what_the_api_computes_with_the_same_settings(arena):
    for method in ("bradley_terry", "elo"):
        expected = arena.rank("arena", method=method, level="battles", intervals=True, bootstrap=BOOTSTRAP)
        [snapshot] = expected.get_column("snapshot_id").unique().to_list()
        stored = arena.sql(STORED.format(snapshot))
        expected = expected.sort("system")
        assert stored.get_column("system").to_list() == expected.get_column("system").to_list() and stored.height == 5
        for column in ("rank_best", "rank_worst", "tie_group"):
            assert stored.get_column(column).to_list() == expected.get_column(column).to_list(), (method, column)
        for column in ("score_low", "score_high"):
            np.testing.assert_allclose(stored.get_column(column), expected.get_column(column), rtol=1e-12)
        assert set(stored.select("n_resamples", "seed", "confidence").unique().rows()) == {(RESAMPLES, SEED, 0.95)}
        [notes] = arena.sql(f"SELECT notes FROM snapshots WHERE snapshot_id = '{snapshot}'").row(0)
        assert [n for n in notes if n.startswith("intervals: ")] == [
            f"intervals: 95% bootstrap intervals of score and rank stored (intervals.parquet): {RESAMPLES} resamples "
            f"of the battles, seed {SEED}"], method


def test_the_stored_elo_interval_is_the_percentile_of_elo_replayed_on_numpy_resampled_battles(arena, generated):
    k, scale, initial = 32.0, 400.0, 1000.0
    ranked = arena.rank("arena", method="elo", level="battles", params={"k": k, "scale": scale, "initial": initial})
    [snapshot] = ranked.get_column("snapshot_id").unique().to_list()
    # Elo's battles are played in time order; a resample draws as many battles with replacement, kept in that order
    played = generated.sort("tstamp")
    assert played.get_column("tstamp").n_unique() == played.height  # one order only
    systems = sorted(set(played.get_column("model_a")) | set(played.get_column("model_b")))
    first = np.array([systems.index(s) for s in played.get_column("model_a")])
    second = np.array([systems.index(s) for s in played.get_column("model_b")])
    winner = played.get_column("winner").to_list()
    result = np.array([1.0 if w == "model_a" else 0.0 if w == "model_b" else 0.5 for w in winner])  # both-bad: a tie
    rng = np.random.default_rng(SEED)
    ratings = np.full((RESAMPLES, len(systems)), initial)
    for r in range(RESAMPLES):  # a plain replay, one battle after the other, as Elo (1978) defines it
        for i in np.sort(rng.integers(0, played.height, played.height)):
            a, b = first[i], second[i]
            expected = 1.0 / (1.0 + 10.0 ** ((ratings[r, b] - ratings[r, a]) / scale))
            ratings[r, a] += k * (result[i] - expected)
            ratings[r, b] -= k * (result[i] - expected)
    ranks = rankdata(-ratings, method="min", axis=1)
    stored = arena.sql(STORED.format(snapshot))
    assert stored.get_column("system").to_list() == systems
    assert stored.get_column("rank_best").to_list() == np.quantile(ranks, 0.025, axis=0, method="lower").tolist()
    assert stored.get_column("rank_worst").to_list() == np.quantile(ranks, 0.975, axis=0, method="higher").tolist()
    np.testing.assert_allclose(stored.get_column("score_low"), np.quantile(ratings, 0.025, axis=0), rtol=1e-12)
    np.testing.assert_allclose(stored.get_column("score_high"), np.quantile(ratings, 0.975, axis=0), rtol=1e-12)
    assert (stored.get_column("rank_worst") > stored.get_column("rank_best")).any()


def test_a_filtered_battles_snapshot_stores_the_intervals_of_the_battles_it_ranked(arena, generated):
    selection = BattleSelection(BattleFilters.of(judge=["human"]), bothbad="drop")
    [outcome] = rank_flow(home=str(arena.home), level="battles", runs=[MethodRun("bradley_terry")], battles=selection)
    [done] = outcome.methods
    stored = arena.sql(STORED.format(done.snapshot_id))
    kept = generated.filter(pl.col("judge") == "human")
    expected = bootstrap_battles("bradley_terry", kept, bothbad="drop", **BOOTSTRAP).sort("system")
    np.testing.assert_allclose(stored.get_column("score_low"), expected.get_column("score_low"), rtol=1e-12)
    np.testing.assert_allclose(stored.get_column("score_high"), expected.get_column("score_high"), rtol=1e-12)
    # the API's bootstrap of the same run (rank_flow records its selection in the outcome) reads the same battles
    api = ranking_intervals(Warehouse(arena.home), "arena", "battles", done.run, BOOTSTRAP, outcome.selection)
    assert api.sort("system").select("rank_best", "rank_worst").rows() == stored.select("rank_best", "rank_worst").rows()
    np.testing.assert_allclose(api.sort("system").get_column("score_low"), stored.get_column("score_low"), rtol=1e-12)
    everything = arena.rank("arena", method="bradley_terry", level="battles").get_column("snapshot_id").item(0)
    assert not np.allclose(stored.get_column("score_low"), arena.sql(STORED.format(everything)).get_column("score_low"))


def test_the_battles_budget_is_the_documented_rule():
    assert battles_unaffordable("elo", 5, 20_000) is None  # 200 x 20,000 battles replayed: 4e6
    assert "would replay 4.0e+06, over the rank's budget of 4e+06" in battles_unaffordable("elo", 5, 20_001)
    assert "trueskill replays the battles in order" in battles_unaffordable("trueskill", 2, 20_001)
    assert battles_unaffordable("bradley_terry", 215, 10**9) is None  # 200 x 215³ = 1.99e9
    assert "200 fits of 216 systems cost 2.0e+09 operations" in battles_unaffordable("bradley_terry", 216, 10)


def test_a_battles_run_over_the_budget_stores_none_and_says_why(tmp_path):
    api = ingested(tmp_path, synth_battles(20_001, n_systems=3, seed=1).battles)
    [snapshot] = api.rank("arena", method="elo", level="battles").get_column("snapshot_id").unique().to_list()
    assert api.sql(STORED.format(snapshot)).height == 0
    [notes] = api.sql(f"SELECT notes FROM snapshots WHERE snapshot_id = '{snapshot}'").row(0)
    assert notes[-1] == ("intervals: none stored: elo replays the battles in order: 200 resamples of 20001 battles "
                         "would replay 4.0e+06, over the rank's budget of 4e+06 per method run")


def test_a_battles_snapshot_written_before_intervals_still_reads(arena):
    warehouse = Warehouse(arena.home)
    request = SnapshotRequest("arena", "battles", "bradley_terry", '{"battles":{"bothbad":"tie"}}', "f" * 64, (),
                              "0.1+before-battle-intervals", 600, 2, ())
    ranking = pl.DataFrame({"system": ["model-000", "model-001"], "score": [1.0, 0.0], "rank": [1, 2],
                            "tied": [False, False]})
    with warehouse.write_lock():
        old, _ = write_snapshot(warehouse, request, ranking)  # as rank wrote battles snapshots: no intervals
    refresh_catalog(warehouse)
    assert read_intervals(warehouse, "arena", old) is None
    assert arena.sql(f"SELECT count(*) AS n FROM rankings WHERE snapshot_id = '{old}'").item() == 2
    assert arena.sql(f"SELECT count(*) AS n FROM snapshot_intervals WHERE snapshot = '{old}'").item() == 0
    assert arena.sql("SELECT count(DISTINCT snapshot) AS n FROM snapshot_intervals").item() >= 2
