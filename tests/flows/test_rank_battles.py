"""``scorehouse rank`` on battles, through ``main``: levels, filters as snapshot parameters, coverage, errors.

References are independent of the flow: the battles counted by Polars on the
file that was ingested (filters applied with Polars, not the SQL of
``read_battles``), and the snapshot manifests read back from disk.
"""

import json
from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from scorehouse.cli import main
from tests.flows.conftest import SUPERGLUE, VALUE
from scorehouse.transforms.synth_battles import synth_battles
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.snapshots import read_arena, read_coverage, read_snapshot
from scorehouse.warehouse.storage import Warehouse

FIXTURES = Path(__file__).resolve().parents[1] / "transforms" / "fixtures" / "battles"


def manifests(home: str, where: str = "TRUE") -> pl.DataFrame:
    with connect(Warehouse(home)) as con:
        return query_frame(con, f"SELECT * FROM snapshots WHERE {where} ORDER BY benchmark, level, method, created_at")


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pl.DataFrame]:
    """A home with a synthetic arena (battles only), SuperGLUE (scores and battles) and VALUE (scores only)."""
    folder = tmp_path_factory.mktemp("rank-battles")
    battles = synth_battles(3000, n_systems=6, seed=3).battles
    battles.write_parquet(folder / "arena.parquet")
    home = str(folder / "warehouse")
    assert main(["--home", home, "ingest", str(folder / "arena.parquet"), "--benchmark", "arena"]) == 0
    assert main(["--home", home, "ingest", str(SUPERGLUE), str(VALUE)]) == 0
    assert main(["--home", home, "ingest", str(FIXTURES / "battles.csv"), "--benchmark", "superglue"]) == 0
    return home, battles


def test_default_levels_battles_for_a_battles_benchmark_scores_for_the_others(arena):
    home, battles = arena
    assert main(["--home", home, "rank", "--method", "bradley_terry"]) == 0
    ranked = manifests(home).select("benchmark", "level", "method", "parameters", "n_voters").rows()
    assert ranked == [
        ("arena", "battles", "bradley_terry", '{"battles":{"bothbad":"tie"}}', battles.height),
        # both leaderboards miss scores: the rank command's default coverage applies to a method asked by name too
        ("superglue", "task", "bradley_terry", '{"min_coverage":0.5,"min_coverage_of":"best-covered"}', ranked[1][4]),
        ("value", "task", "bradley_terry", '{"min_coverage":0.5,"min_coverage_of":"best-covered"}', ranked[2][4]),
    ]


def test_battles_default_methods_lineage_and_coverage(arena):
    home, battles = arena
    assert main(["--home", home, "rank", "--benchmark", "arena"]) == 0
    # the arena's battles have time stamps: Elo is a default beside Bradley-Terry
    snaps = manifests(home, "benchmark = 'arena' AND parameters = '{\"battles\":{\"bothbad\":\"tie\"}}'")
    assert sorted(snaps.get_column("method").unique().to_list()) == ["bradley_terry", "elo"]
    with connect(Warehouse(home)) as con:
        load = query_frame(con, "SELECT DISTINCT load_id FROM battles WHERE benchmark = 'arena'").item()
    for row in snaps.iter_rows(named=True):
        assert list(row["load_ids"]) == [load]
        assert row["n_systems"] == 6
    snapshot = snaps.get_column("snapshot_id")[0]
    # per system its battles, per pair the battles between them: counted by Polars on the file
    pairs = battles.select(pl.min_horizontal("model_a", "model_b").alias("system"),
                           pl.max_horizontal("model_a", "model_b").alias("other"))
    per_pair = pairs.group_by("system", "other").agg(pl.len().cast(pl.Int64).alias("n_voters"))
    per_system = (
        pl.concat([battles.select(pl.col("model_a").alias("system")), battles.select(pl.col("model_b").alias("system"))])
        .group_by("system").agg(pl.len().cast(pl.Int64).alias("n_voters"))
        .with_columns(pl.col("system").alias("other"))
    )
    expected = pl.concat([per_pair, per_system.select("system", "other", "n_voters")]).sort("system", "other")
    assert_frame_equal(read_coverage(Warehouse(home), "arena", snapshot).sort("system", "other"), expected)


def test_filters_are_parameters_of_their_own_reproducible_snapshot(arena, capsys):
    home, battles = arena
    args = ["--home", home, "rank", "--benchmark", "arena", "--method", "bradley_terry",
            "--category", "math", "--category", "coding", "--since", "2025-03-01", "--until", "2025-09-01T00:00:00+00:00",
            "--bothbad", "drop"]
    assert main(args) == 0
    capsys.readouterr()
    kept = battles.filter(
        pl.col("category").is_in(["coding", "math"]) & (pl.col("tstamp") >= datetime(2025, 3, 1))
        & (pl.col("tstamp") < datetime(2025, 9, 1)) & (pl.col("winner") != "tie (bothbad)")
    )
    snap = manifests(home, "benchmark = 'arena' AND parameters LIKE '%category%'").row(0, named=True)
    assert json.loads(snap["parameters"]) == {"battles": {
        "bothbad": "drop", "category": ["coding", "math"],
        "since": "2025-03-01T00:00:00+00:00", "until": "2025-09-01T00:00:00+00:00"}}
    assert snap["n_voters"] == kept.height
    # spelt another way (values in another order, the same instant): the same snapshot, nothing new
    again = ["--home", home, "rank", "--benchmark", "arena", "--method", "bradley_terry", "--category", "coding",
             "--category", "math", "--since", "2025-03-01T01:00:00+01:00", "--until", "2025-09-01", "--bothbad", "drop"]
    assert main(again) == 0
    assert "0 new snapshot(s)" in capsys.readouterr().out
    _, ranking = read_snapshot(Warehouse(home), snap["snapshot_id"])
    assert ranking.height == 6


def test_a_filter_that_keeps_no_battle_names_the_filter(arena, capsys):
    home, _ = arena
    assert main(["--home", home, "rank", "--benchmark", "arena", "--judge", "nobody", "--language", "German"]) == 1
    err = capsys.readouterr().err
    assert "no battle of 'arena' matches the filters judge=nobody, language=German" in err


def test_a_benchmark_with_scores_and_battles_ranks_scores_unless_asked_for_battles(arena):
    home, _ = arena
    assert main(["--home", home, "rank", "--benchmark", "superglue", "--method", "elo"]) == 0
    assert manifests(home, "benchmark = 'superglue' AND method = 'elo'").get_column("level").to_list() == ["task"]
    assert main(["--home", home, "rank", "--benchmark", "superglue", "--level", "battles", "--method", "elo"]) == 0
    levels = manifests(home, "benchmark = 'superglue' AND method = 'elo'").get_column("level").to_list()
    assert sorted(levels) == ["battles", "task"]


@pytest.mark.parametrize("args, message", [
    (["--benchmark", "value", "--judge", "human"], "benchmark(s) ['value'] hold no battles"),
    (["--benchmark", "value", "--level", "battles"], "benchmark(s) ['value'] hold no battles"),
    (["--level", "task", "--bothbad", "drop"], "do not apply to --level task"),
    (["--benchmark", "nowhere"], "no scores or battles for benchmark(s) ['nowhere']"),
])
def test_battle_options_that_do_not_fit_are_usage_errors(arena, capsys, args, message):
    home, _ = arena
    assert main(["--home", home, "rank", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_method_without_a_battles_form_is_reported_not_stored(arena, capsys):
    home, _ = arena
    assert main(["--home", home, "rank", "--benchmark", "arena", "--method", "borda"]) == 1
    assert "does not rank battles" in capsys.readouterr().err
    assert manifests(home, "benchmark = 'arena' AND method = 'borda'").height == 0


def test_arena_leaderboard_is_a_snapshot_on_the_elo_scale_of_bradley_terry(arena, capsys):
    home, battles = arena
    assert main(["--home", home, "arena", "--benchmark", "arena", "--resamples", "200", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    snap = manifests(home, "method = 'arena'").row(0, named=True)
    assert snap["level"] == "battles" and snap["snapshot_id"] in out
    assert json.loads(snap["parameters"]) == {"anchor": None, "battles": {"bothbad": "tie"}, "level": 0.95,
                                              "n_resamples": 200, "seed": 1}
    assert snap["n_voters"] == battles.height and list(snap["load_ids"]) == list(
        manifests(home, "benchmark = 'arena' AND method = 'bradley_terry'").get_column("load_ids")[0])
    warehouse = Warehouse(home)
    board = read_arena(warehouse, "arena", snap["snapshot_id"]).sort("system")
    _, ranking = read_snapshot(warehouse, snap["snapshot_id"])
    assert ranking.sort("system").get_column("score").to_list() == board.get_column("rating").to_list()
    assert board.get_column("rating").mean() == pytest.approx(1000.0)
    # the Elo scale of the rank flow's Bradley-Terry snapshot: 400 log10 of the strength ratio
    bt = manifests(home, "benchmark = 'arena' AND method = 'bradley_terry' AND parameters = '{\"battles\":{\"bothbad\":\"tie\"}}'")
    _, strengths = read_snapshot(warehouse, bt.get_column("snapshot_id")[0])
    log_strength = strengths.sort("system").get_column("score").to_numpy()
    expected = 1000 + 400 / np.log(10) * (log_strength - log_strength.mean())
    np.testing.assert_allclose(board.get_column("rating").to_numpy(), expected, atol=1e-6)
    # battles and win rate per system counted by Polars on the file (a tie half to each side)
    credit = pl.concat([
        battles.select(pl.col("model_a").alias("system"),
                       pl.when(pl.col("winner") == "model_a").then(1.0).when(pl.col("winner") == "model_b").then(0.0)
                       .otherwise(0.5).alias("credit")),
        battles.select(pl.col("model_b").alias("system"),
                       pl.when(pl.col("winner") == "model_b").then(1.0).when(pl.col("winner") == "model_a").then(0.0)
                       .otherwise(0.5).alias("credit")),
    ]).group_by("system").agg(pl.len().alias("n_battles"), pl.col("credit").mean().alias("win_rate")).sort("system")
    assert board.get_column("n_battles").to_list() == credit.get_column("n_battles").to_list()
    np.testing.assert_allclose(board.get_column("win_rate").to_numpy(), credit.get_column("win_rate").to_numpy())
    assert (board.get_column("lower") <= board.get_column("rating")).all()
    assert (board.get_column("rating") <= board.get_column("upper")).all()
    # the same inputs, parameters and code: the same snapshot, not a new one
    assert main(["--home", home, "arena", "--benchmark", "arena", "--resamples", "200", "--seed", "1"]) == 0
    assert f"(snapshot {snap['snapshot_id']}, unchanged)" in capsys.readouterr().out


def test_arena_anchor_and_its_errors(arena, capsys):
    home, _ = arena
    assert main(["--home", home, "arena", "--benchmark", "arena", "--resamples", "50", "--anchor", "model-002",
                 "--category", "coding"]) == 0
    snap = manifests(home, "method = 'arena' AND parameters LIKE '%model-002%'").row(0, named=True)
    board = read_arena(Warehouse(home), "arena", snap["snapshot_id"])
    anchored = board.filter(pl.col("system") == "model-002").row(0, named=True)
    assert (anchored["rating"], anchored["lower"], anchored["upper"]) == (1000.0, 1000.0, 1000.0)
    assert json.loads(snap["parameters"])["battles"] == {"bothbad": "tie", "category": ["coding"]}
    capsys.readouterr()
    assert main(["--home", home, "arena", "--benchmark", "arena", "--resamples", "50", "--anchor", "nope"]) == 1
    assert "anchor 'nope' is not a system of the battles" in capsys.readouterr().err
    assert main(["--home", home, "arena", "--benchmark", "value"]) == 2
    err = capsys.readouterr().err
    assert "hold no battles" in err and "scorehouse arena: " in err  # the command the user typed, not rank


def test_the_arena_snapshot_keeps_the_fits_notes(tmp_path):
    # a-b and c-d never meet: the ratings of the two pairs are not comparable, which the snapshot must say.
    path = tmp_path / "split.csv"
    path.write_text("model_a,model_b,winner\na,b,model_a\na,b,model_b\nc,d,model_a\nc,d,model_b\n")
    home = str(tmp_path / "warehouse")
    assert main(["--home", home, "ingest", str(path), "--benchmark", "split"]) == 0
    assert main(["--home", home, "arena", "--benchmark", "split", "--resamples", "20"]) == 0
    notes = list(manifests(home, "method = 'arena'").get_column("notes")[0])
    assert notes[0].startswith("Bradley-Terry on 4 battles, Elo scale anchored at the mean (1000)")
    assert len(notes) == 2 and "falls into 2 components (2 system(s): a, b; 2 system(s): c, d)" in notes[1]


def test_the_arena_flow_reads_the_loads_once_counts_the_battles_once_and_covers_them_as_rank_does(arena, monkeypatch):
    from scorehouse.aggregators import arena as arena_method
    from scorehouse.flows import arena as arena_flow_module, rank as rank_flow_module
    from scorehouse.aggregators.battles import build_battles
    from scorehouse.flows.arena import arena_flow
    from scorehouse.flows.rank import battle_coverage
    from scorehouse.warehouse.queries import battle_loads

    home, battles = arena
    calls = []

    def loads(warehouse):
        calls.append("battle_loads")
        return battle_loads(warehouse)

    def built(frame, *, bothbad):
        calls.append("build_battles")
        return build_battles(frame, bothbad=bothbad)

    for module in (arena_flow_module, rank_flow_module):
        monkeypatch.setattr(module, "battle_loads", loads)
    for module in (arena_method, rank_flow_module):
        monkeypatch.setattr(module, "build_battles", built)
    outcome = arena_flow("arena", home=home, n_resamples=20, seed=7)
    assert sorted(calls) == ["battle_loads", "build_battles"]
    stored = read_coverage(Warehouse(home), "arena", outcome.snapshot_id).sort("system", "other")
    assert_frame_equal(stored, battle_coverage(battles, "tie").sort("system", "other"))
