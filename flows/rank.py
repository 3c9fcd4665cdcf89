"""The rank flow: rank what is in the warehouse and store immutable snapshots.

For each (benchmark, level): read the current scores (I/O, retried), turn
them into ballots (pure), run each method (pure; a method that refuses the
ballots is reported, not retried), and write one snapshot per method (I/O,
retried; a snapshot that already exists is not written again).  The catalog
is rebuilt once at the end when anything new was written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from aggregators import AggregationError, RankingResult, run
from flows.common import refresh_catalog
from transforms.ballots import ballots as make_ballots
from transforms.rank_plan import MethodRun, NotApplicable, complete_ballots, default_runs
from warehouse.queries import benchmark_levels, benchmark_scores
from warehouse.snapshots import (
    SnapshotRequest,
    canonical_parameters,
    code_version,
    input_fingerprint,
    write_snapshot,
)
from warehouse.storage import Warehouse


@dataclass
class MethodOutcome:
    """One method's result on one benchmark."""

    run: MethodRun
    snapshot_id: str | None = None
    new: bool = False
    ranking: pl.DataFrame | None = None
    notes: tuple[str, ...] = ()
    error: str | None = None
    skipped: str | None = None


@dataclass
class BenchmarkOutcome:
    benchmark: str
    level: str
    methods: list[MethodOutcome] = field(default_factory=list)


@task(retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def read_benchmark(warehouse: Warehouse, benchmark: str, level: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    return benchmark_scores(warehouse, benchmark, level)


@task(cache_policy=NO_CACHE)
def rank_ballots(ballots: pl.DataFrame, level: str, method_run: MethodRun) -> RankingResult | AggregationError:
    """Run one method; a refusal (bad parameter, too many systems) is returned, not raised."""
    from aggregators import REGISTRY

    notes: tuple[str, ...] = ()
    info = REGISTRY.get(method_run.method)
    try:
        if info is not None and not info.handles_missing:
            ballots, notes = complete_ballots(ballots, level)
        result = run(method_run.method, ballots, two_step=method_run.two_step, params=method_run.params)
    except AggregationError as error:
        return error
    return RankingResult(**{**result.__dict__, "notes": notes + result.notes})


@task(retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def store_snapshot(warehouse: Warehouse, request: SnapshotRequest, ranking: pl.DataFrame) -> tuple[str, bool]:
    with warehouse.write_lock():
        return write_snapshot(warehouse, request, ranking)


def rank_benchmark(
    warehouse: Warehouse, benchmark: str, level: str, runs: list[MethodRun] | None, version: str
) -> BenchmarkOutcome:
    scores, metrics = read_benchmark(warehouse, benchmark, level)
    ballots = make_ballots(scores, metrics, level=level).collect()
    outcome = BenchmarkOutcome(benchmark, level)
    if ballots.height == 0:
        return outcome
    has_missing = ballots.get_column("score").null_count() > 0 or (
        ballots.height < ballots.get_column("voter").n_unique() * ballots.get_column("system").n_unique()
    )
    fingerprint = input_fingerprint(scores.get_column("load_id").unique().to_list(), metrics)
    for method_run in runs or default_runs(level, ballots.get_column("system").n_unique(), has_missing):
        result = rank_ballots(ballots, level, method_run)
        if isinstance(result, NotApplicable):
            outcome.methods.append(MethodOutcome(method_run, skipped=str(result)))
            continue
        if isinstance(result, AggregationError):
            outcome.methods.append(MethodOutcome(method_run, error=str(result)))
            continue
        request = SnapshotRequest(
            benchmark=benchmark,
            level=level,
            method=method_run.method,
            parameters=canonical_parameters(method_run.parameters),
            input_fingerprint=fingerprint,
            load_ids=tuple(sorted(scores.get_column("load_id").unique().to_list())),
            code_version=version,
            n_voters=result.n_voters,
            n_systems=result.n_systems,
            notes=result.notes,
        )
        snapshot, new = store_snapshot(warehouse, request, result.ranking)
        outcome.methods.append(MethodOutcome(method_run, snapshot, new, result.ranking, result.notes))
    return outcome


# The parameters are internal objects (MethodRun), not user input: Prefect's
# pydantic validation cannot resolve them in a served process, and need not.
@flow(name="rank", log_prints=False, validate_parameters=False)
def rank_flow(
    home: str | None = None,
    benchmarks: list[str] | None = None,
    level: str | None = None,
    runs: list[MethodRun] | None = None,
) -> list[BenchmarkOutcome]:
    """Rank every selected benchmark at its natural level (instance when it has instance scores)."""
    warehouse = Warehouse(home)
    available = benchmark_levels(warehouse)
    if benchmarks:
        unknown = sorted(set(benchmarks) - set(available.get_column("benchmark").to_list()))
        if unknown:
            raise ValueError(
                f"no scores for benchmark(s) {unknown} in {warehouse.home}; "
                f"known: {', '.join(available.get_column('benchmark').unique().sort().to_list())}"
            )
        available = available.filter(pl.col("benchmark").is_in(benchmarks))
    if level is None:
        natural = available.group_by("benchmark").agg(
            pl.when((pl.col("level") == "instance").any()).then(pl.lit("instance")).otherwise(pl.lit("task")).alias("level")
        )
        available = available.join(natural, on=["benchmark", "level"])
    else:
        available = available.filter(pl.col("level") == level)
    version = code_version()
    outcomes = [
        rank_benchmark(warehouse, benchmark, lvl, runs, version)
        for benchmark, lvl in available.select("benchmark", "level").sort("benchmark").iter_rows()
    ]
    if any(m.new for o in outcomes for m in o.methods):
        refresh_catalog(warehouse)
    return outcomes
