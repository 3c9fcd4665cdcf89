"""Ingest and rank through Prefect's Dask task runner give exactly the in-process results.

A local Dask cluster of two worker processes runs the per-file ingest tasks
and the per-partition rank tasks; the reference is the same flows run in
process (the default runner) on the same synthetic dumps.
"""

from __future__ import annotations

import os

import polars as pl
import pytest

from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
from scorehouse.flows.runners import RunnerError, runner_options
from scorehouse.flows.synth import write_synthetic
from scorehouse.transforms.synth import SynthSpec
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.storage import Warehouse


def current_scores(home) -> pl.DataFrame:
    with connect(Warehouse(home)) as con:
        return query_frame(con, "SELECT benchmark, task, metric, instance, system, score, load_id FROM scores ORDER BY ALL")


def rankings(outcomes) -> dict:
    """Each method's ranking, or why it did not rank (Borda and the mean skip when no voter is complete)."""
    return {(o.benchmark, m.run.label): m.error or m.skipped or m.ranking for o in outcomes for m in o.methods}


@pytest.mark.slow
def test_a_two_worker_dask_cluster_gives_the_in_process_results(tmp_path, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)  # the runner sets it for its workers; undone after
    spec = SynthSpec(benchmarks=2, tasks=3, metrics=2, instances=25, systems=5, missing_fraction=0.2, seed=11)
    write_synthetic(spec, tmp_path / "dumps", formats=("parquet",))
    dumps = str(tmp_path / "dumps" / "parquet")

    local = ingest_flow([dumps], home=str(tmp_path / "local"))
    local_ranked = rank_flow(home=str(tmp_path / "local"), level="instance")

    options = runner_options("dask", workers=2)
    distributed = ingest_flow.with_options(**options)([dumps], home=str(tmp_path / "dask"), parallel=True)
    dask_ranked = rank_flow.with_options(**runner_options("dask", workers=2))(
        home=str(tmp_path / "dask"), level="instance", parallel=True
    )
    assert os.environ["PREFECT_API_URL"].startswith("http://127.0.0.1:")  # one shared temporary API

    assert sorted(f.load_id for f in distributed.files) == sorted(f.load_id for f in local.files)
    assert current_scores(tmp_path / "dask").equals(current_scores(tmp_path / "local"))
    ours, reference = rankings(dask_ranked), rankings(local_ranked)
    assert set(ours) == set(reference) and len(reference) == 2 * 5  # 4 defaults + borda_partial, 2 benchmarks
    assert any(isinstance(r, pl.DataFrame) for r in reference.values())
    for key, ranking in reference.items():
        assert ours[key] == ranking if isinstance(ranking, str) else ours[key].equals(ranking), key


def test_runner_options_refuse_what_they_cannot_do():
    assert runner_options("local") == {}
    with pytest.raises(RunnerError, match="unknown runner 'spark'"):
        runner_options("spark")
    with pytest.raises(RunnerError, match="--runner dask only"):
        runner_options("local", workers=2)
    with pytest.raises(RunnerError, match="--workers must be >= 1, got 0"):
        runner_options("dask", workers=0)
