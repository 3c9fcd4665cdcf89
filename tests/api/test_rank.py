"""scorehouse.rank and scorehouse.rank_battles against independent references.

References: Borda points counted with scipy.stats.rankdata, the mean computed with NumPy, the
Bradley-Terry strengths of two systems in closed form, and the aggregators run on ballots built
here by hand (voter = task | metric [| instance], the contract of DESIGN.md), so that the API's
reading of tables (long, wide, index, kinds, direction, weights, missing scores) is what is tested.
"""

import math

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from scipy.stats import rankdata

import scorehouse
from scorehouse.aggregators import aggregate, aggregate_battles

SYSTEMS = ["s0", "s1", "s2", "s3", "s4"]


def wide_table(seed: int, n_tasks: int = 4) -> pd.DataFrame:
    """Small integer scores, so ties happen."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.integers(0, 4, size=(len(SYSTEMS), n_tasks)).astype(float),
                        index=pd.Index(SYSTEMS, name="system"), columns=[f"t{i}" for i in range(n_tasks)])


def min_ranks(scores: np.ndarray) -> np.ndarray:
    """Rank 1 = highest score, tied scores share the smallest rank."""
    return rankdata(-scores, method="min").astype(int)


@pytest.mark.parametrize("seed", range(8))
def test_borda_of_a_wide_table_is_the_sum_of_rankdata_points(seed):
    table = wide_table(seed)
    # A system's Borda points on a task: the systems it beats, ties counting a half (average rank - 1).
    points = sum(rankdata(table[c].to_numpy(), method="average") - 1 for c in table.columns)
    ranking = scorehouse.rank(table, "borda").set_index("system").loc[SYSTEMS]
    np.testing.assert_allclose(ranking["score"].to_numpy(), points)
    np.testing.assert_array_equal(ranking["rank"].to_numpy(), min_ranks(points))
    np.testing.assert_array_equal(ranking["tied"].to_numpy(), pd.Series(points).duplicated(keep=False).to_numpy())


def test_rows_are_sorted_by_rank_then_system_and_ties_share_the_smallest_rank():
    table = pd.DataFrame({"system": ["c", "b", "a", "d"], "t": [1.0, 2.0, 2.0, 0.0]})
    ranking = scorehouse.rank(table, "mean")
    assert ranking.columns.tolist() == ["system", "rank", "score", "tied"]
    assert ranking["system"].tolist() == ["a", "b", "c", "d"]
    assert ranking["rank"].tolist() == [1, 1, 3, 4]


def test_the_mean_of_lower_is_better_scores_is_the_negated_mean():
    table = wide_table(3)
    ranking = scorehouse.rank(table, "mean", higher_is_better=False).set_index("system").loc[SYSTEMS]
    np.testing.assert_allclose(ranking["score"].to_numpy(), -table.mean(axis=1).to_numpy())


def long_table() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    rows = [(s, t, m, i, float(rng.integers(0, 5)))
            for s in SYSTEMS for t in ("qa", "nli") for m in ("f1", "em") for i in ("i1", "i2", "i3")]
    return pd.DataFrame(rows, columns=["model", "dataset", "measure", "item", "value"])


def hand_ballots(table: pd.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The contract's ballots of ``table``, written out: one voter per distinct ``keys``."""
    frame = pl.from_pandas(table)
    return frame.select(
        voter=pl.concat_str([pl.col(k) for k in keys], separator=" | "),
        system=pl.col("model"),
        score=pl.col("value"),
        group=pl.concat_str([pl.col(k) for k in keys[:2]], separator=" | ") if len(keys) == 3 else pl.col("dataset"),
    )


def contract(ranking: pd.DataFrame | pl.DataFrame) -> pl.DataFrame:
    frame = pl.from_pandas(ranking) if isinstance(ranking, pd.DataFrame) else ranking
    return frame.select("system", "rank", "score", "tied")


@pytest.mark.parametrize(("method", "two_step"), [("borda", False), ("borda", True), ("mean", True), ("copeland", False),
                                                  ("minimax", False), ("bradley_terry", False)])
def test_instance_level_equals_the_aggregators_on_hand_built_ballots(method, two_step):
    table = long_table()
    got = scorehouse.rank(table, method, system="model", task="dataset", metric="measure", instance="item",
                          score="value", two_step=two_step)
    want = aggregate(method, hand_ballots(table, ["dataset", "measure", "item"]), two_step=two_step)
    assert contract(got).equals(contract(want))


def test_task_level_long_table_equals_the_aggregators_and_params_reach_the_method():
    table = long_table().groupby(["model", "dataset", "measure"], as_index=False)["value"].mean()
    got = scorehouse.rank(table, "borda", system="model", task="dataset", metric="measure", score="value",
                          params={"ties": "min"})
    want = aggregate("borda", hand_ballots(table, ["dataset", "measure"]), ties="min")
    assert contract(got).equals(contract(want))
    assert not contract(got).equals(contract(aggregate("borda", hand_ballots(table, ["dataset", "measure"]))))


def test_task_weights_weigh_the_voters():
    table = pd.DataFrame({"model": ["a", "b", "a", "b"], "dataset": ["x", "x", "y", "y"], "value": [1.0, 0.0, 0.0, 1.0],
                          "w": [3.0, 3.0, 1.0, 1.0]})
    got = scorehouse.rank(table, "mean", system="model", task="dataset", score="value", weight="w")
    # Weighted means by hand: a = (3*1 + 1*0) / 4, b = (3*0 + 1*1) / 4.
    assert got["system"].tolist() == ["a", "b"]
    np.testing.assert_allclose(got["score"].to_numpy(), [0.75, 0.25])


def test_missing_scores_are_nan_or_null_and_borda_partial_ranks_them():
    table = wide_table(5)
    table.iloc[1, 2] = np.nan
    got = scorehouse.rank(table, "borda_partial")
    ballots = pl.from_pandas(table.reset_index()).unpivot(index="system", variable_name="task", value_name="score")
    ballots = ballots.select(voter=pl.col("task") + " | score", system="system", score=pl.col("score").fill_nan(None))
    assert contract(got).equals(contract(aggregate("borda_partial", ballots)))


def test_every_kind_of_table_gives_back_its_kind_with_the_same_ranking():
    table = wide_table(7)
    columned = table.reset_index()
    want = contract(scorehouse.rank(table))
    as_polars = pl.from_pandas(columned)
    results = {
        "pandas, systems in the index": scorehouse.rank(table),
        "pandas, unnamed index": scorehouse.rank(table.rename_axis(None)),
        "pandas, systems in a column": scorehouse.rank(columned),
        "polars": scorehouse.rank(as_polars),
        "polars lazy": scorehouse.rank(as_polars.lazy()),
        "pyarrow": scorehouse.rank(pa.Table.from_pandas(columned, preserve_index=False)),
    }
    assert isinstance(results["pandas, systems in the index"], pd.DataFrame)
    assert isinstance(results["polars"], pl.DataFrame) and isinstance(results["polars lazy"], pl.DataFrame)
    assert isinstance(results["pyarrow"], pa.Table)
    for name, result in results.items():
        got = pl.from_arrow(result) if isinstance(result, pa.Table) else result
        assert contract(got).equals(want), name


def test_a_wide_table_and_its_long_form_rank_the_same():
    table = wide_table(2)
    long = table.reset_index().melt(id_vars="system", var_name="task", value_name="score")
    assert contract(scorehouse.rank(long, "copeland")).equals(contract(scorehouse.rank(table, "copeland")))


def two_system_battles() -> pd.DataFrame:
    return pd.DataFrame({"left": ["a", "a", "b", "a"], "right": ["b", "b", "a", "b"],
                         "outcome": ["model_a", "model_b", "model_a", "tie"], "when": [4, 3, 2, 1]})


def test_bradley_terry_on_two_systems_is_the_log_ratio_of_their_wins():
    battles = two_system_battles()
    got = scorehouse.rank_battles(battles, model_a="left", model_b="right", winner="outcome", params={"prior": 0.0})
    # a won 1 + a tie (0.5), b won 2 + 0.5: strengths are centred, so +-log(2.5 / 1.5) / 2.
    half = math.log(2.5 / 1.5) / 2
    assert got["system"].tolist() == ["b", "a"]
    np.testing.assert_allclose(got["score"].to_numpy(), [half, -half])


def test_rank_battles_equals_the_aggregators_on_the_contract_columns():
    battles = two_system_battles()
    renamed = pl.from_pandas(battles).rename({"left": "model_a", "right": "model_b", "outcome": "winner", "when": "tstamp"})
    for method, params in (("bradley_terry", None), ("elo", {"k": 32.0})):
        got = scorehouse.rank_battles(pl.from_pandas(battles), method, model_a="left", model_b="right",
                                      winner="outcome", tstamp="when", params=params)
        assert isinstance(got, pl.DataFrame)
        assert contract(got).equals(aggregate_battles(method, renamed, params).ranking.select(contract(got).columns))
