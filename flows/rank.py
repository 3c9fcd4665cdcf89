"""The rank flow: rank what is in the warehouse and store immutable snapshots.

For each (benchmark, level): read the current scores (I/O, retried), turn
them into ballots (pure), run each method (pure; a method that refuses the
ballots is reported, not retried), and write one snapshot per method (I/O,
retried; a snapshot that already exists is not written again).  The catalog
is rebuilt once at the end when anything new was written.

At instance level, when every requested run has a partition form in the
registry (:func:`aggregators.registry.partition_form`: the default methods
do), the methods run partition by partition: each partition of whole tasks
(:mod:`warehouse.partitions`) is read, made dense (:mod:`transforms.dense`)
and reduced to each method's combinable sums (:mod:`aggregators.partial`), so
memory is bounded by one partition whatever the benchmark's size.  The partition tasks run in process, or through Prefect's
Dask task runner (``runner="dask"``, see :mod:`flows.runners`); they only read,
so a retried or duplicated one changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from aggregators import (
    REGISTRY,
    AggregationError,
    Partial,
    RankingResult,
    build_profile,
    combine,
    finish_partitioned,
    partition_form,
    partition_partials,
    run,
)
from flows.catalog_state import ensure_current_catalog
from aggregators.pairwise import co_scored, coverage_partial
from flows.common import io_task, refresh_catalog
from flows.progress import progress as progress_of
from flows.runners import map_tasks
from transforms.ballots import ballots as make_ballots
from transforms.rank_plan import MethodRun, NotApplicable, complete_ballots, default_runs
from warehouse.partitions import Partition, benchmark_shape, coverage_levels, read_metrics, read_partition_arrow
from warehouse.queries import benchmark_scores
from warehouse.snapshots import (
    SnapshotRequest,
    canonical_parameters,
    code_version,
    coverage_frame,
    input_fingerprint,
    write_snapshot,
)
from warehouse.storage import Warehouse


COVERAGE = "coverage"  # the key of the coverage among a partition's partial sums


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


@io_task
def read_benchmark(warehouse: Warehouse, benchmark: str, level: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    return benchmark_scores(warehouse, benchmark, level)


@task(cache_policy=NO_CACHE)
def rank_ballots(ballots: pl.DataFrame, level: str, method_run: MethodRun) -> RankingResult | AggregationError:
    """Run one method; a refusal (bad parameter, too many systems) is returned, not raised."""
    notes: tuple[str, ...] = ()
    info = REGISTRY.get(method_run.method)
    try:
        if info is not None and not info.handles_missing:
            ballots, notes = complete_ballots(ballots, level)
        result = run(method_run.method, ballots, two_step=method_run.two_step, params=method_run.params)
    except AggregationError as error:
        return error
    return RankingResult(**{**result.__dict__, "notes": notes + result.notes})


def partition_methods(runs: list[MethodRun]) -> tuple[str, ...] | None:
    """The methods whose partial sums ``runs`` need, or None when a run has no partition form."""
    for r in runs:
        if r.method not in REGISTRY or partition_form(r.method, r.params, r.two_step) is None:
            return None
    return tuple(sorted({r.method for r in runs}))


def finish(partials: dict[str, Partial], method_run: MethodRun) -> RankingResult | AggregationError:
    """The ranking of one partition-wise method run from the combined partial sums of its method."""
    partial = partials[method_run.method]
    if partial.n_counted == 0:
        return NotApplicable(
            "no voter has a score for every system, so a method that needs complete ballots has nothing to rank; "
            "borda_partial and the majority-relation rules handle it"
        )
    try:
        return finish_partitioned(method_run.method, partial, method_run.params, method_run.two_step)
    except AggregationError as error:
        return error


@task(cache_policy=NO_CACHE)
def partition_partial(
    warehouse: Warehouse, partition: Partition, systems: tuple[str, ...], metrics: pl.DataFrame,
    methods: tuple[str, ...],
) -> dict[str, Partial]:
    """Read one partition and reduce it to each method's partial sums, and its coverage under
    :data:`COVERAGE` (a read only: safe to retry or repeat)."""
    from transforms.dense import dense_partition  # pyarrow.compute: loaded by instance-level ranks only

    dense = dense_partition(read_partition_arrow(warehouse, partition), metrics, systems)
    return partition_partials(dense, methods) | {COVERAGE: coverage_partial(dense)}


def combined_partials(
    warehouse: Warehouse, partitions: list[Partition], systems: tuple[str, ...], metrics: pl.DataFrame,
    methods: tuple[str, ...], parallel: bool, progress: bool = False,
) -> dict[str, Partial]:
    """Each method's partial sums over every partition, and the coverage (:data:`COVERAGE`), combined;
    ``progress`` reports each partition done."""
    arguments = [(warehouse, p, systems, metrics, methods) for p in partitions]
    if parallel:
        per_partition = map_tasks(partition_partial, arguments, True)
    else:
        per_partition = []
        with progress_of(f"rank {partitions[0].benchmark if partitions else ''}", len(partitions), progress) as done:
            for args in arguments:
                per_partition.append(partition_partial(*args))
                done(f"{len(args[1].tasks)} task(s), {args[1].rows} rows")
    return {m: combine([p[m] for p in per_partition], systems) for m in (*methods, COVERAGE)}


@io_task
def store_snapshot(
    warehouse: Warehouse, request: SnapshotRequest, ranking: pl.DataFrame, coverage: pl.DataFrame
) -> tuple[str, bool]:
    with warehouse.write_lock():
        return write_snapshot(warehouse, request, ranking, coverage)


def store_results(
    warehouse: Warehouse, outcome: BenchmarkOutcome, results: list[tuple[MethodRun, RankingResult | AggregationError]],
    fingerprint: str, load_ids: tuple[str, ...], version: str, coverage: pl.DataFrame,
) -> BenchmarkOutcome:
    """Write one snapshot per successful method run, with the benchmark's ``coverage``; record the refusals.

    The coverage counts every voter of the benchmark (also for a method that
    ranks its complete part only): how much data there is on each system and pair.
    """
    for method_run, result in results:
        if isinstance(result, NotApplicable):
            outcome.methods.append(MethodOutcome(method_run, skipped=str(result)))
            continue
        if isinstance(result, AggregationError):
            outcome.methods.append(MethodOutcome(method_run, error=str(result)))
            continue
        request = SnapshotRequest(
            benchmark=outcome.benchmark,
            level=outcome.level,
            method=method_run.method,
            parameters=canonical_parameters(method_run.parameters),
            input_fingerprint=fingerprint,
            load_ids=load_ids,
            code_version=version,
            n_voters=result.n_voters,
            n_systems=result.n_systems,
            notes=result.notes,
        )
        snapshot, new = store_snapshot(warehouse, request, result.ranking, coverage)
        outcome.methods.append(MethodOutcome(method_run, snapshot, new, result.ranking, result.notes))
    return outcome


def rank_partitioned(
    warehouse: Warehouse, benchmark: str, level: str, runs: list[MethodRun] | None, version: str, parallel: bool,
    progress: bool = False,
) -> BenchmarkOutcome | None:
    """Rank ``benchmark`` partition by partition; None when a requested run has no partition-wise form."""
    metrics = read_metrics(warehouse, benchmark)
    shape = benchmark_shape(warehouse, benchmark, level, metrics)
    outcome = BenchmarkOutcome(benchmark, level)
    if not shape.systems:
        return outcome
    chosen = runs or default_runs(level, shape.may_miss)
    methods = partition_methods(chosen)
    if methods is None:
        return None
    partials = combined_partials(warehouse, shape.partitions, shape.systems, metrics, methods, parallel, progress)
    if runs is None and any(p.n_counted < p.n_voters for p in partials.values()):
        # The coverage looked complete but some voter lacks a score: add the default missing-score method.
        chosen = default_runs(level, True)
        extra = tuple(sorted(set(partition_methods(chosen) or ()) - set(partials)))
        if extra:
            partials |= combined_partials(warehouse, shape.partitions, shape.systems, metrics, extra, parallel, progress)
    results = [(r, finish(partials, r)) for r in chosen]
    fingerprint = input_fingerprint(list(shape.load_ids), metrics)
    coverage = coverage_frame(shape.systems, partials[COVERAGE].total("co_scored"))
    return store_results(warehouse, outcome, results, fingerprint, shape.load_ids, version, coverage)


def rank_benchmark(
    warehouse: Warehouse, benchmark: str, level: str, runs: list[MethodRun] | None, version: str,
    parallel: bool = False, progress: bool = False,
) -> BenchmarkOutcome:
    if level == "instance":
        outcome = rank_partitioned(warehouse, benchmark, level, runs, version, parallel, progress)
        if outcome is not None:
            return outcome
    scores, metrics = read_benchmark(warehouse, benchmark, level)
    ballots = make_ballots(scores, metrics, level=level).collect()
    outcome = BenchmarkOutcome(benchmark, level)
    if ballots.height == 0:
        return outcome
    has_missing = ballots.get_column("score").null_count() > 0 or (
        ballots.height < ballots.get_column("voter").n_unique() * ballots.get_column("system").n_unique()
    )
    fingerprint = input_fingerprint(scores.get_column("load_id").unique().to_list(), metrics)
    chosen = runs or default_runs(level, has_missing)
    results = [(r, rank_ballots(ballots, level, r)) for r in chosen]
    load_ids = tuple(sorted(scores.get_column("load_id").unique().to_list()))
    profile = build_profile(ballots)
    coverage = coverage_frame(profile.systems, co_scored(profile.scores))
    return store_results(warehouse, outcome, results, fingerprint, load_ids, version, coverage)


# The parameters are internal objects (MethodRun), not user input: Prefect's
# pydantic validation cannot resolve them in a served process, and need not.
@flow(name="rank", log_prints=False, validate_parameters=False)
def rank_flow(
    home: str | None = None,
    benchmarks: list[str] | None = None,
    level: str | None = None,
    runs: list[MethodRun] | None = None,
    parallel: bool = False,
    progress: bool = False,
) -> list[BenchmarkOutcome]:
    """Rank every selected benchmark at its natural level (instance when it has instance scores).

    ``parallel`` submits the partition tasks to the flow's task runner (run the
    flow with :func:`flows.runners.runner_options` for Dask) instead of
    running them one after the other; ``progress`` reports each partition
    done on stderr (:mod:`flows.progress`).  A catalog that does not match the committed loads and
    rules is rebuilt first (:func:`flows.catalog_state.ensure_current_catalog`): a snapshot is
    stored for good, so it is never ranked from a stale catalog.
    """
    warehouse = Warehouse(home)
    ensure_current_catalog(warehouse)
    available = coverage_levels(warehouse)
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
        rank_benchmark(warehouse, benchmark, lvl, runs, version, parallel, progress)
        for benchmark, lvl in available.select("benchmark", "level").sort("benchmark").iter_rows()
    ]
    if any(m.new for o in outcomes for m in o.methods):
        refresh_catalog(warehouse)
    return outcomes
