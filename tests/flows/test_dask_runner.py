"""``--runner dask``: the per-batch ingest and per-partition rank steps run on Dask worker processes and give
exactly the in-process results.

A local cluster of two worker processes (started fresh, never forked) runs the steps; Dask's task
stream shows which worker ran each.  The reference is the same flows run in process on the same
synthetic dumps.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from distributed import get_task_stream

from scorehouse import runtime
from scorehouse.flows.ingest import ingest_flow
from scorehouse.flows.rank import rank_flow
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
def test_two_dask_workers_run_the_steps_and_give_the_in_process_results(tmp_path):
    spec = SynthSpec(benchmarks=2, tasks=3, metrics=2, instances=25, systems=5, missing_fraction=0.2, seed=11)
    write_synthetic(spec, tmp_path / "dumps", formats=("parquet",))
    dumps = str(tmp_path / "dumps" / "parquet")
    n_files = len(list(Path(dumps).rglob("*.parquet")))

    local = ingest_flow([dumps], home=str(tmp_path / "local"), batch_files=1)
    local_ranked = rank_flow(home=str(tmp_path / "local"), level="instance")

    with runtime.session(runner=runtime.RunnerSpec("dask", workers=2)) as session:
        client = session.cluster
        worker_pids = set(client.run(os.getpid).values())
        with get_task_stream(client) as stream:
            distributed = runtime.run(ingest_flow, [dumps], home=str(tmp_path / "dask"), parallel=True, batch_files=1)
            dask_ranked = runtime.run(rank_flow, home=str(tmp_path / "dask"), level="instance", parallel=True)
        workers = set(client.scheduler_info()["workers"])
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids
    ran = [task["worker"] for task in stream.data]
    assert len(ran) >= n_files + 2  # one ingest batch per file, at least one rank partition per benchmark
    assert set(ran) <= workers
    for pid in worker_pids:  # the local cluster is closed with the session
        assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/status").read_text().find("zombie") >= 0

    assert sorted(f.load_id for f in distributed.files) == sorted(f.load_id for f in local.files)
    assert current_scores(tmp_path / "dask").equals(current_scores(tmp_path / "local"))
    ours, reference = rankings(dask_ranked), rankings(local_ranked)
    assert set(ours) == set(reference) and len(reference) == 2 * 5  # 4 defaults + borda_partial, 2 benchmarks
    assert any(isinstance(r, pl.DataFrame) for r in reference.values())
    for key, ranking in reference.items():
        assert ours[key] == ranking if isinstance(ranking, str) else ours[key].equals(ranking), key
