"""``rank --only-task/--only-metric`` and ``--min-coverage`` at instance level: the partition-wise rank reads the
selected tasks only, leaves out the systems below the coverage, records both in the snapshots, and equals the
aggregator run on scores filtered by hand with Polars.

The data: the bundled MissingDataRanking WMT21 dumps of two tasks with their own systems (en-de's challenge set:
2 systems x 177 instances, zu-xh's FLORES test: 5 systems x 509 instances, 35 metrics each).
"""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from scorehouse.aggregators import REGISTRY, run
from scorehouse.cli import main
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.rank_plan import VoterSelection
from scorehouse.warehouse.partitions import benchmark_shape, read_metrics
from scorehouse.warehouse.queries import benchmark_scores
from scorehouse.warehouse.storage import Warehouse
from tests.flows.conftest import sql
from tests.transforms.conftest import BUNDLED

WMT21 = BUNDLED / "MissingDataRanking" / "final_df" / "MT" / "WMT21"
FILES = [WMT21 / "challengeset.en-de.data.csv", WMT21 / "florestest2021.zu-xh.data.csv"]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> str:
    home = str(tmp_path_factory.mktemp("wmt") / "home")
    assert main(["--home", home, "ingest", *map(str, FILES)]) == 0
    return home


def by_hand(home: str, keep: pl.Expr, method: str, two_step: bool) -> pl.DataFrame:
    """The aggregator on the current scores kept by ``keep`` (a Polars filter written here), the voters that scored
    every system only for a method that needs them."""
    scores, metrics = benchmark_scores(Warehouse(home), "wmt21-mdr", "instance")
    ballots = make_ballots(scores.filter(keep), metrics, level="instance").collect()
    if not REGISTRY[method].handles_missing:
        systems = ballots.get_column("system").n_unique()
        complete = ballots.drop_nulls("score").group_by("voter").agg(pl.col("system").n_unique() == systems)
        ballots = ballots.filter(pl.col("voter").is_in(complete.filter("system").get_column("voter").implode()))
    return run(method, ballots, two_step=two_step).ranking.sort("system")


def assert_equal_by_hand(home: str, snapshot_filter: str, keep: pl.Expr, methods: int) -> list[dict]:
    snapshots = sql(home, f"SELECT snapshot_id, method, parameters, notes FROM snapshots WHERE {snapshot_filter}")
    assert snapshots.height == methods
    for snapshot, method, parameters, _ in snapshots.rows():
        two_step = json.loads(parameters).get("two_step", False)
        ours = sql(home, f"SELECT system, score, rank FROM rankings WHERE snapshot_id = '{snapshot}' ORDER BY system")
        reference = by_hand(home, keep, method, two_step)
        assert ours.get_column("system").to_list() == reference.get_column("system").to_list(), method
        assert ours.get_column("rank").to_list() == reference.get_column("rank").to_list(), method
        np.testing.assert_allclose(ours["score"].to_numpy(), reference["score"].to_numpy(), rtol=1e-9, atol=1e-12)
    return snapshots.to_dicts()


def test_only_task_and_only_metric_at_instance_level_rank_the_selected_voters_partition_wise(home):
    warehouse = Warehouse(home)
    selection = VoterSelection(("zu-xh*",), ("BLEU", "Chrf*"))
    metrics = selection.restrict(read_metrics(warehouse, "wmt21-mdr"))
    assert selection.tasks_of(metrics) == ("zu-xh:florestest2021",)
    shape = benchmark_shape(warehouse, "wmt21-mdr", "instance", metrics, tasks=selection.tasks_of(metrics))
    assert [p.tasks for p in shape.partitions] == [("zu-xh:florestest2021",)]  # en-de's task is not read
    assert len(shape.systems) == 5
    assert main(["--home", home, "rank", "--benchmark", "wmt21-mdr", "--level", "instance", "--only-task", "zu-xh*",
                 "--only-metric", "BLEU", "--only-metric", "Chrf*"]) == 0
    keep = pl.col("task").str.starts_with("zu-xh") & pl.col("metric").is_in(["BLEU", "Chrfpp"])
    # complete: mean (two-level), borda, borda (two-level), bradley_terry
    rows = assert_equal_by_hand(home, "parameters LIKE '%only_task%'", keep, 4)
    for row in rows:
        parameters = json.loads(row["parameters"])
        assert (parameters["only_task"], parameters["only_metric"]) == (["zu-xh*"], ["BLEU", "Chrf*"])


def test_min_coverage_at_instance_level_leaves_out_the_systems_below_it_partition_wise(home, capsys):
    capsys.readouterr()
    assert main(["--home", home, "rank", "--benchmark", "wmt21-mdr", "--level", "instance",
                 "--min-coverage", "0.5"]) == 0
    out = capsys.readouterr().out
    # by hand: 35 metrics x (177 + 509) instances are the voters; en-de's systems are scored on 35 x 177 of them
    voters = 35 * (177 + 509)
    needed = math.ceil(0.5 * voters)
    assert f"--min-coverage 0.5 of the {voters} voters: at least {needed}; not ranked: 2 system(s) scored on " \
           f"fewer: system1 ({35 * 177}/{voters}), system2 ({35 * 177}/{voters})" in out
    # the tasks have their own systems, so borda_partial joins the four
    rows = assert_equal_by_hand(home, "parameters LIKE '%min_coverage%'", pl.col("task").str.starts_with("zu-xh"), 5)
    # the second pass plans the tasks of the systems kept only: with a partition per task, en-de's is not read
    warehouse = Warehouse(home)
    kept = tuple(sorted(set(sql(home, "SELECT DISTINCT system FROM scores").get_column("system")) - {"system1",
                                                                                                        "system2"}))
    plan = benchmark_shape(warehouse, "wmt21-mdr", "instance", read_metrics(warehouse, "wmt21-mdr"),
                           partition_rows=20_000, systems=kept)
    assert [p.tasks for p in plan.partitions] == [("zu-xh:florestest2021",)]
    for row in rows:
        parameters = json.loads(row["parameters"])
        assert (parameters["min_coverage"], parameters["min_coverage_of"]) == (0.5, "voters")
        assert f"at least {needed}" in " ".join(row["notes"])
