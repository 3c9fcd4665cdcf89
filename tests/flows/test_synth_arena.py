"""A synthetic arena end to end through ``main``: synth writes it, ingest reads it, rank recovers the truth.

The reference is the generator's truth (``spec.json``: the log-strengths the
battles were drawn from), not anything the ranking code computes; agreement is
measured with SciPy's Kendall tau and Spearman rho.
"""

import json

import polars as pl
from scipy import stats

from scorehouse.cli import main
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.snapshots import read_snapshot
from scorehouse.warehouse.storage import Warehouse


def test_ranking_a_synthetic_arena_recovers_the_known_strengths(tmp_path, capsys):
    dump, home = tmp_path / "arena", str(tmp_path / "warehouse")
    assert main(["synth", "--battles", "30000", "--systems", "10", "--seed", "7", "--output", str(dump)]) == 0
    spec = json.loads((dump / "spec.json").read_text())
    truth = pl.DataFrame(spec["strengths"])
    assert spec["true_ranking"] == truth.sort("strength", descending=True).get_column("system").to_list()
    # JSON Lines and Parquet hold the same battles, detected as battles without --format
    assert main(["--home", home, "ingest", str(dump / "battles.jsonl"), "--benchmark", "synth-arena"]) == 0
    assert main(["--home", home, "ingest", str(dump / "battles.parquet"), "--benchmark", "synth-arena-pq"]) == 0
    with connect(Warehouse(home)) as con:
        counts = query_frame(con, "SELECT benchmark, winner, count(*) AS n FROM battles GROUP BY ALL ORDER BY ALL")
    by_file = counts.pivot("benchmark", index="winner", values="n").sort("winner")
    assert by_file.get_column("synth-arena").to_list() == by_file.get_column("synth-arena-pq").to_list()
    assert by_file.get_column("synth-arena").sum() == 30000
    assert set(by_file.get_column("winner")) == {"model_a", "model_b", "tie", "tie (bothbad)"}

    capsys.readouterr()
    assert main(["--home", home, "rank", "--benchmark", "synth-arena", "--method", "bradley_terry"]) == 0
    with connect(Warehouse(home)) as con:
        snapshot = query_frame(con, "SELECT snapshot_id FROM snapshots WHERE benchmark = 'synth-arena'").item()
    _, ranking = read_snapshot(Warehouse(home), snapshot)
    joined = truth.join(ranking, on="system")
    assert joined.height == 10
    tau = stats.kendalltau(joined["strength"], joined["score"]).statistic
    rho = stats.spearmanr(joined["strength"], joined["score"]).statistic
    assert tau >= 0.9 and rho >= 0.97, (tau, rho)
    assert ranking.filter(pl.col("rank") == 1).get_column("system").to_list() == spec["true_ranking"][:1]

    # the noiseless judge's battles follow Bradley-Terry exactly: their fit recovers the log-strengths themselves
    assert main(["--home", home, "rank", "--benchmark", "synth-arena", "--method", "bradley_terry",
                 "--judge", "human"]) == 0
    with connect(Warehouse(home)) as con:
        snapshot = query_frame(con, "SELECT snapshot_id FROM snapshots WHERE parameters LIKE '%human%'").item()
    _, human = read_snapshot(Warehouse(home), snapshot)
    centred = truth.join(human, on="system").with_columns(
        (pl.col("strength") - pl.col("strength").mean()).alias("true"), (pl.col("score") - pl.col("score").mean()).alias("fit"))
    assert (centred["true"] - centred["fit"]).abs().max() < 0.15, centred
