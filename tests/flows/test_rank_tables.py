"""Rank tables and ballots on real data: the Polars transforms, the catalog's SQL views and
scipy's rankdata (per voter) must all agree; orientation follows the metric catalog."""

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import rankdata

from flows.ingest import ingest_flow
from tests.flows.conftest import REPO, VALUE
from transforms.ballots import ballots, rank_table
from warehouse.catalog import connect, query_frame
from warehouse.queries import benchmark_scores
from warehouse.storage import Warehouse

DIALOGUE_MDR = REPO / "data" / "bundled" / "MissingDataRanking" / "final_df" / "Dialogue" / "DIALOGUE_pc_data.csv"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    home = tmp_path_factory.mktemp("ranks") / "wh"
    ingest_flow([str(VALUE), str(DIALOGUE_MDR)], home=str(home))
    return Warehouse(home)


@pytest.mark.parametrize(("benchmark", "level", "view"), [("value", "task", "task_ranks"), ("usr-pc-mdr", "instance", "instance_ranks")])
def test_polars_rank_table_equals_the_sql_view(warehouse, benchmark, level, view):
    scores, metrics = benchmark_scores(warehouse, benchmark, level)
    ours = rank_table(scores, metrics, level=level).collect()
    with connect(warehouse) as con:
        theirs = query_frame(con, f"SELECT * FROM {view} WHERE benchmark = ?", [benchmark])
    keys = [c for c in ours.columns if c not in ("score", "rank", "n_ranked")]
    assert_frame_equal(ours.sort(keys), theirs.select(ours.columns).sort(keys), check_dtypes=False)


def test_instance_ranks_follow_the_catalog_direction(warehouse):
    scores, metrics = benchmark_scores(warehouse, "usr-pc-mdr", "instance")
    table = rank_table(scores, metrics, level="instance").collect()
    lower_better = metrics.filter(~pl.col("higher_is_better")).get_column("metric").to_list()
    assert "BLEU" in lower_better and "H:overall" not in lower_better  # negated metrics, raw human ratings
    for metric, sign in (("BLEU", 1.0), ("H:overall", -1.0)):
        part = table.filter((pl.col("metric") == metric) & (pl.col("instance") == "7")).sort("system")
        expected = rankdata(sign * part.get_column("score").to_numpy(), method="min")
        np.testing.assert_array_equal(part.get_column("rank").to_numpy(), expected)


def test_ballots_orient_weight_and_group(warehouse):
    scores, metrics = benchmark_scores(warehouse, "usr-pc-mdr", "instance")
    table = ballots(scores, metrics, level="instance").collect()
    raw = scores.filter((pl.col("metric") == "BLEU") & (pl.col("instance") == "7") & (pl.col("system") == "Seq2Seq"))
    ballot = table.filter(pl.col("voter") == "pc | BLEU | 7").filter(pl.col("system") == "Seq2Seq")
    assert ballot.get_column("score").item() == -raw.get_column("score").item()
    assert ballot.get_column("group").item() == "pc | BLEU"
    assert table.height == scores.height  # every metric of this benchmark is ranked
    value_scores, value_metrics = benchmark_scores(warehouse, "value", "task")
    value_ballots = ballots(value_scores, value_metrics, level="task").collect()
    assert not value_ballots.filter(pl.col("voter").str.starts_with("Meta-Ave")).height  # the own average: not a voter
