"""The partition-wise rank flow equals the whole-table methods, on real dumps and on synthetic ones.

Reference: :func:`aggregators.run` on the benchmark's whole ballots
(:func:`transforms.ballots.ballots` of the current scores, the complete voters
for methods that need them), each method tested against its own references
elsewhere.  The real data are the bundled MissingDataRanking WMT21 dumps
(lower-is-better metrics, several tasks, cells left blank).
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from scorehouse.aggregators import REGISTRY, AggregationError, run
from scorehouse.aggregators.compare import kendall_tau
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import partition_methods, rank_flow
from scorehouse.flows.synth import write_synthetic
from tests.transforms.conftest import BUNDLED
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.dense import dense_partition
from scorehouse.transforms.rank_plan import MethodRun, complete_ballots
from scorehouse.transforms.synth import SynthSpec
from scorehouse.aggregators.profile import build_profile
from scorehouse.warehouse.partitions import benchmark_shape, read_metrics, read_partition, read_partition_arrow
from scorehouse.warehouse.queries import benchmark_scores
from scorehouse.warehouse.storage import Warehouse

WMT21 = BUNDLED / "MissingDataRanking" / "final_df" / "MT" / "WMT21"
RUNS = [
    MethodRun("borda"),
    MethodRun("borda", two_step=True),
    MethodRun("mean", two_step=True),
    MethodRun("mean"),
    MethodRun("bradley_terry"),
    MethodRun("borda_partial"),
]


def whole_table(home, benchmark: str, method_run: MethodRun) -> pl.DataFrame:
    scores, metrics = benchmark_scores(Warehouse(home), benchmark, "instance")
    ballots = make_ballots(scores, metrics, level="instance").collect()
    if not REGISTRY[method_run.method].handles_missing:
        ballots, _ = complete_ballots(ballots, "instance")
    return run(method_run.method, ballots, two_step=method_run.two_step, params=method_run.params).ranking


def assert_same(ours: pl.DataFrame, reference: pl.DataFrame) -> None:
    ours, reference = ours.sort("system"), reference.sort("system")
    assert ours.get_column("system").to_list() == reference.get_column("system").to_list()
    assert ours.get_column("rank").to_list() == reference.get_column("rank").to_list()
    np.testing.assert_allclose(ours.get_column("score").to_numpy(), reference.get_column("score").to_numpy(), rtol=1e-12)


def test_only_runs_whose_method_declares_a_partition_form_run_partition_wise():
    assert partition_methods(RUNS) == ("borda", "borda_partial", "bradley_terry", "mean")
    assert partition_methods([MethodRun("bradley_terry", {"prior": 1.0, "max_iter": 50})]) == ("bradley_terry",)
    assert partition_methods(RUNS + [MethodRun("borda", {"ties": "max"})]) is None  # ties="average" only
    assert partition_methods([MethodRun("bradley_terry", two_step=True)]) is None
    assert partition_methods([MethodRun("borda_partial", {"no_such_parameter": 1})]) is None
    assert partition_methods([MethodRun("kemeny")]) is None
    assert partition_methods([MethodRun("no_such_method")]) is None


@pytest.mark.slow
def test_real_wmt21_dumps_rank_partition_wise_as_a_whole(tmp_path):
    home = tmp_path / "home"
    ingest_flow([str(WMT21)], home=str(home))
    outcomes = rank_flow(home=str(home), level="instance", runs=RUNS)
    [outcome] = [o for o in outcomes if o.benchmark == "wmt21-mdr"]
    shape = benchmark_shape(Warehouse(home), "wmt21-mdr", "instance", read_metrics(Warehouse(home), "wmt21-mdr"))
    assert len(shape.partitions) >= 1 and shape.may_miss
    refused = 0
    for method in outcome.methods:
        try:
            reference = whole_table(home, "wmt21-mdr", method.run)
        except AggregationError:  # no voter scores every system (tasks have different systems)
            refused += 1
            assert method.error is None and "every system" in method.skipped
            continue
        assert method.error is None, method.error
        assert_same(method.ranking, reference)
    assert refused == 4  # borda, borda two-level, mean two-level, mean: only the two missing-aware methods rank


def test_dense_partition_is_the_profile_of_the_ballots(tmp_path):
    home = tmp_path / "home"
    ingest_flow([str(WMT21)], home=str(home))
    warehouse = Warehouse(home)
    metrics = read_metrics(warehouse, "wmt21-mdr")
    shape = benchmark_shape(warehouse, "wmt21-mdr", "instance", metrics, partition_rows=1)
    assert len(shape.partitions) == len({t for p in shape.partitions for t in p.tasks}) > 1
    profile = build_profile(make_ballots(benchmark_scores(warehouse, "wmt21-mdr", "instance")[0], metrics,
                                         level="instance").collect())
    rows = []
    for partition in shape.partitions:
        dense = dense_partition(read_partition_arrow(warehouse, partition), metrics, shape.systems)
        plain = dense_partition(read_partition(warehouse, partition).to_arrow(), metrics, shape.systems)
        np.testing.assert_array_equal(plain.scores, dense.scores)  # plain strings give the same matrix
        assert dense.absent == len(shape.systems) - len(dense.systems)
        columns = np.searchsorted(shape.systems, dense.systems)  # the partition's columns among the benchmark's
        wide = np.full((dense.scores.shape[0], len(shape.systems)), np.nan)
        wide[:, columns] = dense.scores
        rows.append(np.column_stack([wide, dense.weights]))
        assert set(dense.group_names) >= {dense.group_names[g] for g in dense.groups}
    assert profile.systems == shape.systems
    ours = np.concatenate(rows)
    theirs = np.column_stack([profile.scores, profile.weights])
    key = lambda m: m[np.lexsort(np.nan_to_num(m, nan=np.inf).T[::-1])]  # noqa: E731 - rows in one order
    np.testing.assert_array_equal(key(ours), key(theirs))


@pytest.mark.slow
def test_synthetic_truth_is_recovered_and_matches_the_whole_table(tmp_path):
    spec = SynthSpec(benchmarks=2, tasks=16, metrics=3, instances=30, systems=6, phi=1.0, missing_fraction=0.2,
                     corrupted_fraction=0.125, rescale=5.0, seed=7)
    summary = write_synthetic(spec, tmp_path / "dumps", formats=("parquet",))
    assert json.loads((tmp_path / "dumps" / "spec.json").read_text())["n_scores"] == summary["n_scores"]
    home = tmp_path / "home"
    ingest_flow([str(tmp_path / "dumps" / "parquet")], home=str(home))
    outcomes = rank_flow(home=str(home), level="instance", runs=[MethodRun("bradley_terry"), MethodRun("borda_partial")])
    assert {o.benchmark for o in outcomes} == {"synth-00", "synth-01"}
    for outcome in outcomes:
        for method in outcome.methods:
            assert_same(method.ranking, whole_table(home, outcome.benchmark, method.run))
            assert kendall_tau(method.ranking, summary["true_ranking"]) > 0.9
