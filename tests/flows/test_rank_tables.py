"""Rank tables and ballots on real data: the Polars transforms, the catalog's SQL views and
scipy's rankdata (per voter) must all agree; orientation, weight and group follow the metric
catalog, read as resolved, and a score without a catalog row is refused, never defaulted."""

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import rankdata

from scorehouse.flows.ingest import ingest_flow
from tests.flows.conftest import REPO, TABLES, VALUE
from scorehouse.transforms.ballots import ballots, rank_table
from scorehouse.transforms.catalog import MetricCatalogError
from scorehouse.transforms.dense import dense_partition
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.queries import benchmark_scores
from scorehouse.warehouse.storage import Warehouse

GLUE = TABLES / "leaderboards - GLUE.csv"
DIALOGUE_MDR = REPO / "data" / "bundled" / "MissingDataRanking" / "final_df" / "Dialogue" / "DIALOGUE_pc_data.csv"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    home = tmp_path_factory.mktemp("ranks") / "wh"
    ingest_flow([str(VALUE), str(GLUE), str(DIALOGUE_MDR)], home=str(home))
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


@pytest.mark.parametrize(("benchmark", "level"), [("glue", "task"), ("value", "task"), ("usr-pc-mdr", "instance")])
def test_sql_oriented_scores_are_the_polars_ballots(warehouse, benchmark, level):
    """Orientation, weight and group: the SQL view and the ballots read one resolved catalog and one group rule."""
    scores, metrics = benchmark_scores(warehouse, benchmark, level)
    ours = ballots(scores, metrics, level=level).collect()
    voter = "concat_ws(' | ', task, metric)" if level == "task" else "concat_ws(' | ', task, metric, instance)"
    with connect(warehouse) as con:
        theirs = query_frame(
            con,
            f"""SELECT {voter} AS voter, system, oriented AS score, weight, "group", group_weight
                FROM oriented_scores WHERE benchmark = ? AND level = ? AND is_ranked""",
            [benchmark, level],
        )
    assert ours.height == theirs.height > 0
    assert_frame_equal(ours.sort("voter", "system"), theirs.sort("voter", "system"), check_dtypes=False)
    groups = dict(zip(ours.get_column("voter"), ours.get_column("group"), strict=False))
    if benchmark == "glue":  # the halves of a paired cell: one group (the task), half the weight each
        assert groups["MRPC | F1"] == groups["MRPC | acc"] == "MRPC"
        assert set(ours.filter(pl.col("group") == "MRPC").get_column("weight").to_list()) == {0.5}
    if level == "instance":  # the voter's (task, metric), whatever the catalog's group
        assert groups["pc | BLEU | 7"] == "pc | BLEU"


def test_scores_without_a_catalog_row_are_refused_not_defaulted(warehouse):
    scores, metrics = benchmark_scores(warehouse, "usr-pc-mdr", "instance")
    partial = metrics.filter(pl.col("metric") != "BLEU")
    with pytest.raises(MetricCatalogError, match=r"no metric catalog row, the first .*'metric': 'BLEU'"):
        ballots(scores, partial, level="instance")
    with pytest.raises(MetricCatalogError, match="'metric': 'BLEU'"):
        rank_table(scores, partial, level="instance")
    systems = sorted(scores.get_column("system").unique().to_list())
    with pytest.raises(MetricCatalogError, match="'metric': 'BLEU'"):
        dense_partition(scores.to_arrow(), partial, systems)
    # the same scores with their full catalog are accepted by all three
    assert dense_partition(scores.to_arrow(), metrics, systems).scores.shape[1] == len(systems)
