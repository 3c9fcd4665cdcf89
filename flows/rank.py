"""The rank flow: rank what is in the warehouse and store immutable snapshots.

For each (benchmark, level): read the current scores (I/O, retried), turn
them into ballots (pure), run each method (pure; a method that refuses the
ballots is reported, not retried), and write one snapshot per method (I/O,
retried; a snapshot that already exists is not written again) with the run's
own bootstrap intervals (:mod:`flows.rank_intervals`; of the voters, or of the battles).  The
catalog is rebuilt once at the end when anything new was written.

At instance level, when every requested run has a partition form in the
registry (:func:`aggregators.registry.partition_form`: the default methods
do), the methods run partition by partition: each partition of whole tasks
(:mod:`warehouse.partitions`) is read, made dense (:mod:`transforms.dense`)
and reduced to each method's combinable sums (:mod:`aggregators.partial`), so
memory is bounded by one partition whatever the benchmark's size.  The partition tasks run in process, or through Prefect's
Dask workers (``--runner dask``, see :mod:`scorehouse.runtime`); they only read,
so a retried or duplicated one changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import polars as pl

from scorehouse import runtime
from scorehouse.aggregators import (
    REGISTRY,
    AggregationError,
    InvalidParameterError,
    Partial,
    RankingResult,
    aggregate_battles,
    battle_counts,
    build_battles,
    build_profile,
    combine,
    finish_partitioned,
    partition_form,
    partition_partials,
    played_matrix,
)
from scorehouse.flows.catalog_state import ensure_current_catalog, has_committed
from scorehouse.flows.arena import ArenaOutcome, run_arena
from scorehouse.flows.reconcile import stale_arenas, stale_battle_runs, stale_runs
from scorehouse.aggregators.pairwise import co_scored, counted_coverage_partial, coverage_partial
from scorehouse.flows.common import refresh_catalog
from scorehouse.flows.progress import progress as progress_of
from scorehouse.flows.rank_intervals import StoredBattleIntervals, StoredIntervals, read_benchmark
from scorehouse.flows.selection import rank_levels, selected_battles
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.rank_plan import (
    MethodRun, NotApplicable, VoterSelection, command_min_coverage, covered_systems, default_note, default_runs,
    elo_without_timestamps, run_method, with_min_coverage,
)
from scorehouse.warehouse.partitions import (
    Partition, battle_fingerprint, benchmark_shape, current_fingerprints, read_metrics,
    read_partition_arrow,
)
from scorehouse.warehouse.battle_filters import BattleSelection
from scorehouse.warehouse.queries import battle_loads
from scorehouse.warehouse.schema import ARENA_METHOD, BATTLE_LEVEL
from scorehouse.warehouse.snapshots import (
    SnapshotRequest,
    canonical_parameters,
    code_version,
    coverage_frame,
    snapshot_exists,
    write_snapshot,
)
from scorehouse.warehouse.storage import Warehouse


COVERAGE = "coverage"  # the key of the coverage among a partition's partial sums
COUNTED = "counted coverage"  # the key of the coverage --min-coverage counts (voters of weight > 0)


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
    error: str | None = None  # why nothing was ranked (battle filters that keep no battle)
    defaults: str | None = None  # the shape of data the default methods were chosen for (None: --method given)
    selection: BattleSelection | None = None  # at level battles, the battles ranked and the both-bad rule


@runtime.step
def rank_ballots(ballots: pl.DataFrame, level: str, method_run: MethodRun) -> RankingResult | AggregationError:
    """Run one method (:func:`transforms.rank_plan.run_method`); a refusal (bad parameter, too many systems) is
    returned, not raised."""
    try:
        return run_method(ballots, level, method_run)
    except AggregationError as error:
        return error


def partition_methods(runs: list[MethodRun]) -> tuple[str, ...] | None:
    """The methods whose partial sums ``runs`` need, or None when a run has no partition form."""
    for r in runs:
        if r.method not in REGISTRY or partition_form(r.method, r.params, r.two_step) is None:
            return None
    return tuple(sorted({r.method for r in runs}))


def finish(partials: dict[str, Partial], method_run: MethodRun, notes: tuple[str, ...] = ()) -> RankingResult | AggregationError:
    """The ranking of one partition-wise method run from the combined partial sums of its method, with the notes
    of its default choice and ``notes`` (its coverage) first."""
    partial = partials[method_run.method]
    if partial.n_counted == 0:
        return NotApplicable(
            "no voter has a score for every system, so a method that needs complete ballots has nothing to rank; "
            "borda_partial and the majority-relation rules handle it"
        )
    try:
        result = finish_partitioned(method_run.method, partial, method_run.params, method_run.two_step)
    except AggregationError as error:
        return error
    return noted(result, default_note(method_run) + notes)


@runtime.step
def partition_partial(
    warehouse: Warehouse, partition: Partition, systems: tuple[str, ...], metrics: pl.DataFrame,
    methods: tuple[str, ...],
) -> dict[str, Partial]:
    """Read one partition and reduce it to each method's partial sums, and its coverage under
    :data:`COVERAGE` (a read only: safe to retry or repeat)."""
    from scorehouse.transforms.dense import dense_partition  # pyarrow.compute: loaded by instance-level ranks only

    dense = dense_partition(read_partition_arrow(warehouse, partition, systems), metrics, systems)
    return partition_partials(dense, methods) | {COVERAGE: coverage_partial(dense), COUNTED: counted_coverage_partial(dense)}


def combined_partials(
    warehouse: Warehouse, partitions: list[Partition], systems: tuple[str, ...], metrics: pl.DataFrame,
    methods: tuple[str, ...], parallel: bool, progress: bool = False,
) -> dict[str, Partial]:
    """Each method's partial sums over every partition, and the coverage (:data:`COVERAGE`), combined;
    ``progress`` reports each partition done."""
    arguments = [(warehouse, p, systems, metrics, methods) for p in partitions]
    if parallel:
        per_partition = runtime.map_steps(partition_partial, arguments, True)
    else:
        per_partition = []
        with progress_of(f"rank {partitions[0].benchmark if partitions else ''}", len(partitions), progress) as done:
            for args in arguments:
                per_partition.append(runtime.call(partition_partial, *args))
                done(f"{len(args[1].tasks)} task(s), {args[1].rows} rows")
    return {m: combine([p[m] for p in per_partition], systems) for m in (*methods, COVERAGE, COUNTED)}


@runtime.step(io=True)
def store_snapshot(
    warehouse: Warehouse, request: SnapshotRequest, ranking: pl.DataFrame, coverage: pl.DataFrame,
    intervals: pl.DataFrame | None = None,
) -> tuple[str, bool]:
    with warehouse.write_lock():
        return write_snapshot(warehouse, request, ranking, coverage, intervals=intervals)


def store_results(
    warehouse: Warehouse, outcome: BenchmarkOutcome, results: list[tuple[MethodRun, RankingResult | AggregationError]],
    fingerprint: str, load_ids: tuple[str, ...], version: str, coverage: pl.DataFrame,
    extra: dict | None = None, intervals: StoredIntervals | StoredBattleIntervals | None = None,
) -> BenchmarkOutcome:
    """Write one snapshot per successful method run, with the benchmark's ``coverage`` and the run's own
    bootstrap intervals (``intervals``: computed only for a snapshot not written yet, and noted in it); record
    the refusals.

    The coverage counts every voter of the benchmark (also for a method that
    ranks its complete part only): how much data there is on each system and pair.
    ``extra`` parameters (the battle selection) are recorded beside each method's.
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
            parameters=canonical_parameters(method_run.parameters | (extra or {})),
            input_fingerprint=fingerprint,
            load_ids=load_ids,
            code_version=version,
            n_voters=result.n_voters,
            n_systems=result.n_systems,
            notes=result.notes,
        )
        table = None
        if intervals is not None and not snapshot_exists(warehouse, request.snapshot_id):
            table, note = intervals.of(method_run, result)
            request = replace(request, notes=(*request.notes, note))
        snapshot, new = runtime.call(store_snapshot, warehouse, request, result.ranking, coverage, table)
        outcome.methods.append(MethodOutcome(method_run, snapshot, new, result.ranking, request.notes))
    return outcome


def planned_runs(
    runs: list[MethodRun] | None, level: str, has_missing: bool, min_coverage: float | None, voters: VoterSelection,
    as_recorded: bool,
) -> list[MethodRun]:
    """The runs of one rank of scores: ``runs`` as recorded (``as_recorded``), or asked for by name with the
    command's coverage rule, or the defaults for the data's shape; each with ``voters`` recorded."""
    coverage = command_min_coverage(level, has_missing, min_coverage)  # by name as by default: one snapshot series
    chosen = (runs if as_recorded else with_min_coverage(runs, coverage)) if runs else default_runs(
        level, has_missing, min_coverage)
    return [voters.recorded_in(r) for r in chosen]


def rank_partitioned(
    warehouse: Warehouse, benchmark: str, level: str, runs: list[MethodRun] | None, version: str, parallel: bool,
    progress: bool = False, min_coverage: float | None = None, voters: VoterSelection = VoterSelection(),
    as_recorded: bool = False,
) -> BenchmarkOutcome | None:
    """Rank ``benchmark`` partition by partition, reading the tasks ``voters`` selects only; None when a requested
    run has no partition-wise form.  A run whose coverage rule leaves systems out is finished from a second pass
    over the systems it keeps (only then: the rule is resolved on the first pass's coverage)."""
    metrics = voters.restrict(read_metrics(warehouse, benchmark))
    tasks = voters.tasks_of(metrics)
    shape = benchmark_shape(warehouse, benchmark, level, metrics, tasks=tasks)
    outcome = BenchmarkOutcome(benchmark, level)
    if not shape.systems:
        outcome.error = voters.nothing_selected() if voters else None
        return outcome
    chosen = planned_runs(runs, level, shape.may_miss, min_coverage, voters, as_recorded)
    methods = partition_methods(chosen)
    if methods is None:
        return None
    partials = combined_partials(warehouse, shape.partitions, shape.systems, metrics, methods, parallel, progress)
    if runs is None and any(p.n_counted < p.n_voters for p in partials.values()):
        # The coverage looked complete but some voter lacks a score: add the default missing-score method.
        chosen = planned_runs(None, level, True, min_coverage, voters, as_recorded)
        extra = tuple(sorted(set(partition_methods(chosen) or ()) - set(partials)))
        if extra:
            partials |= combined_partials(warehouse, shape.partitions, shape.systems, metrics, extra, parallel, progress)
    outcome.defaults = None if runs else chosen[0].defaults
    results = []
    for rule in dict.fromkeys(r.min_coverage for r in chosen):  # the distinct coverage rules, a few at most
        ruled = [r for r in chosen if r.min_coverage == rule]
        kept, notes = partials, ()
        if rule is not None:
            counted = partials[COUNTED]
            try:
                low, notes = covered_systems(pl.Series(shape.systems), pl.Series(counted.total("scored")),
                                             counted.n_voters, rule)
            except NotApplicable as nothing:
                results += [(r, nothing) for r in ruled]
                continue
            if low.len():
                systems = tuple(s for s in shape.systems if s not in set(low.to_list()))
                covered = benchmark_shape(warehouse, benchmark, level, metrics, systems=systems, tasks=tasks)
                kept = combined_partials(warehouse, list(covered.partitions), systems, metrics,
                                         tuple(sorted({r.method for r in ruled})), parallel, progress)
        results += [(r, finish(kept, r, notes)) for r in ruled]
    fingerprint = current_fingerprints(warehouse, [benchmark])[(benchmark, level)]
    coverage = coverage_frame(shape.systems, partials[COVERAGE].total("co_scored"))

    def read_ballots() -> pl.DataFrame:  # the whole benchmark, read only when a run's intervals are affordable
        scores, _ = runtime.call(read_benchmark, warehouse, benchmark, level)
        return make_ballots(voters.select(scores), metrics, level=level).collect()

    return store_results(warehouse, outcome, results, fingerprint, shape.load_ids, version, coverage,
                         intervals=StoredIntervals(level, read_ballots))


def rank_benchmark(
    warehouse: Warehouse, benchmark: str, level: str, runs: list[MethodRun] | None, version: str,
    parallel: bool = False, progress: bool = False, min_coverage: float | None = None,
    voters: VoterSelection | None = None, as_recorded: bool = False,
) -> BenchmarkOutcome:
    """Rank ``benchmark`` at a score level: the ``runs`` (None: the defaults for the data's shape), the systems
    below ``min_coverage`` listed, not ranked, the voters ``voters`` selects only (at instance level, partition
    by partition when every run has a partition form).
    ``as_recorded``: the runs are those of earlier snapshots, ranked again exactly (no default coverage added)."""
    voters = voters or VoterSelection()
    if level == "instance":
        outcome = rank_partitioned(warehouse, benchmark, level, runs, version, parallel, progress, min_coverage,
                                   voters, as_recorded)
        if outcome is not None:
            return outcome
    scores, metrics = runtime.call(read_benchmark, warehouse, benchmark, level)
    ballots = make_ballots(voters.select(scores), metrics, level=level).collect()
    outcome = BenchmarkOutcome(benchmark, level)
    if ballots.height == 0:
        outcome.error = voters.nothing_selected() if voters else None
        return outcome
    has_missing = ballots.get_column("score").null_count() > 0 or (
        ballots.height < ballots.get_column("voter").n_unique() * ballots.get_column("system").n_unique()
    )
    fingerprint = current_fingerprints(warehouse, [benchmark])[(benchmark, level)]
    chosen = planned_runs(runs, level, has_missing, min_coverage, voters, as_recorded)
    outcome.defaults = None if runs else chosen[0].defaults
    results = [(r, runtime.call(rank_ballots, ballots, level, r)) for r in chosen]
    load_ids = tuple(sorted(scores.get_column("load_id").unique().to_list()))
    profile = build_profile(ballots)
    coverage = coverage_frame(profile.systems, co_scored(profile.scores))
    return store_results(warehouse, outcome, results, fingerprint, load_ids, version, coverage,
                         intervals=StoredIntervals(level, lambda: ballots))


def rank_battles(
    warehouse: Warehouse, benchmark: str, runs: list[MethodRun] | None, selection: BattleSelection,
    load_ids: tuple[str, ...], version: str,
) -> BenchmarkOutcome:
    """Rank the battles of ``benchmark`` that ``selection`` keeps with each method run (default :data:`BATTLE_DEFAULTS`).

    The snapshots record level ``battles``, the filters and the both-bad rule in their parameters
    (under ``battles``), the benchmark's battle loads in their input fingerprint, and as coverage
    each system's battles and each pair's battles between them.
    """
    outcome = BenchmarkOutcome(benchmark, BATTLE_LEVEL, selection=selection)
    battles = selected_battles(warehouse, benchmark, selection)
    if isinstance(battles, str):
        outcome.error = battles
        return outcome
    timestamps = battles.get_column("tstamp").is_not_null().any()
    chosen = (runs if runs else default_runs(BATTLE_LEVEL, False, timestamps=timestamps))
    outcome.defaults = None if runs else chosen[0].defaults
    said = [elo_without_timestamps(r) if not timestamps else (r, None) for r in chosen]
    results = [(r, noted(runtime.call(rank_battle_run, battles, selection.bothbad, r),
                         default_note(r) + ((note,) if note else ())))
               for r, note in said]
    try:
        coverage = battle_coverage(battles, selection.bothbad)
    except AggregationError as error:  # nothing left to rank (every battle a dropped both-bad tie)
        outcome.error = str(error)
        return outcome
    fingerprint = battle_fingerprint(load_ids)
    return store_results(warehouse, outcome, results, fingerprint, load_ids, version, coverage,
                         extra={BATTLE_LEVEL: selection.parameters()},
                         intervals=StoredBattleIntervals(battles, selection.bothbad))


def noted(result: RankingResult | AggregationError, notes: tuple[str, ...]) -> RankingResult | AggregationError:
    """``result`` with ``notes`` first among its notes (a refusal as it is)."""
    if not notes or isinstance(result, AggregationError):
        return result
    return RankingResult(**{**result.__dict__, "notes": (*notes, *result.notes)})


@runtime.step
def rank_battle_run(battles: pl.DataFrame, bothbad: str, method_run: MethodRun) -> RankingResult | AggregationError:
    """Run one method on battles; a refusal (a method without a battles form, a bad parameter) is returned."""
    if method_run.two_step:
        return InvalidParameterError("--two-step has no meaning for battles (they have no groups); leave it out")
    try:
        return aggregate_battles(method_run.method, battles, method_run.params, bothbad=bothbad)
    except AggregationError as error:
        return error


def battle_coverage(battles: pl.DataFrame, bothbad: str) -> pl.DataFrame:
    """:func:`warehouse.snapshots.coverage_frame` of battles: per system its battles, per pair theirs."""
    counts = battle_counts(build_battles(battles, bothbad=bothbad))
    return coverage_frame(counts.systems, played_matrix(counts))


# The parameters are internal objects (MethodRun), not user input: Prefect's
# pydantic validation cannot resolve them in a served process, and need not.
@runtime.flow("rank")
def rank_flow(
    home: str | None = None,
    benchmarks: list[str] | None = None,
    level: str | None = None,
    runs: list[MethodRun] | None = None,
    parallel: bool = False,
    progress: bool = False,
    battles: BattleSelection | None = None,
    min_coverage: float | None = None,
    voters: VoterSelection | None = None,
) -> list[BenchmarkOutcome]:
    """Rank every selected benchmark at its natural level (:func:`flows.selection.rank_levels`).

    ``battles`` selects the battles to rank and how a both-bad tie counts (None: every battle,
    as a tie); given, it ranks battles only.  ``min_coverage``: at task level, a system scored on a smaller
    share of the voters is listed, not ranked (default on leaderboards with missing scores:
    :data:`transforms.rank_plan.DEFAULT_MIN_COVERAGE`); ``voters`` ranks the voters of the tasks and metrics it
    selects (``--only-task``, ``--only-metric``), recorded in the snapshots' parameters.
    ``parallel`` submits the partition tasks to the flow's task runner (run the
    command with ``--runner dask``, :mod:`scorehouse.runtime`) instead of
    running them one after the other; ``progress`` reports each partition
    done on stderr (:mod:`flows.progress`).  A catalog that does not match the committed loads and
    rules is rebuilt first (:func:`flows.catalog_state.ensure_current_catalog`): a snapshot is
    stored for good, so it is never ranked from a stale catalog.  Then the selected benchmarks'
    latest snapshots that ranked other inputs than the current ones are ranked again with their
    own methods and parameters (:func:`reconcile_rankings`).
    """
    warehouse = Warehouse(home)
    ensure_current_catalog(warehouse)
    loads = battle_loads(warehouse)
    pairs = rank_levels(warehouse, benchmarks, level, battles is not None, loads)
    version = code_version()
    outcomes = [
        rank_battles(warehouse, benchmark, runs, battles or BattleSelection(), loads[benchmark], version)
        if lvl == BATTLE_LEVEL
        else rank_benchmark(warehouse, benchmark, lvl, runs, version, parallel, progress, min_coverage, voters)
        for benchmark, lvl in sorted(pairs)
    ]
    outcomes += reconcile_rankings(warehouse, benchmarks, version, parallel, progress)
    if any(m.new for o in outcomes for m in o.methods):
        runtime.call(refresh_catalog, warehouse)
    return outcomes


def reconcile_rankings(
    warehouse: Warehouse, benchmarks: list[str] | None, version: str, parallel: bool = False, progress: bool = False,
) -> list[BenchmarkOutcome]:
    """Rank again each (benchmark, level) of ``benchmarks`` (None: all) whose latest snapshots were not
    computed from its current inputs, with those snapshots' methods and parameters
    (:func:`flows.reconcile.stale_runs`) and with the defaults, as the rank that should have followed the change;
    each stale battles series with its recorded methods and battle selection (:func:`flows.reconcile.stale_battle_runs`);
    and each stale arena leaderboard with its recorded settings (:func:`flows.reconcile.stale_arenas`).

    The catalog must be current (the caller made it so).  Rankings are derived state: whatever
    stopped a run between a load's commit and its rank, the next ``rank``/``refresh`` catches up.
    """
    outcomes = []
    for (benchmark, level), runs in stale_runs(warehouse, benchmarks).items():
        # the stale series as they were asked, and the defaults, as the rank after the change would have run
        outcomes += rank_as_recorded(warehouse, benchmark, level, runs, version, parallel, progress)
        outcomes.append(rank_benchmark(warehouse, benchmark, level, None, version, parallel, progress))
    loads = battle_loads(warehouse)
    for (benchmark, _), (selection, runs) in stale_battle_runs(warehouse, loads, benchmarks).items():
        outcomes.append(rank_battles(warehouse, benchmark, runs, selection, loads[benchmark], version))
    for benchmark, settings in stale_arenas(warehouse, loads, benchmarks):
        outcomes.append(arena_ranked(run_arena(warehouse, benchmark, settings, loads[benchmark], version)))
    return outcomes


def arena_ranked(arena: ArenaOutcome) -> BenchmarkOutcome:
    """An arena leaderboard as the outcome of a rank, so ``rank`` and ``refresh`` print it like any re-rank:
    one method, ``arena``, labelled with its recorded settings (a benchmark may hold several arena series)."""
    outcome = BenchmarkOutcome(arena.benchmark, BATTLE_LEVEL, error=arena.error)
    if arena.error is None:
        shown = {k: v for k, v in arena.settings.parameters().items() if v is not None}
        outcome.methods.append(MethodOutcome(MethodRun(ARENA_METHOD, shown), arena.snapshot_id, arena.new,
                                             arena.ranking, arena.notes))
    return outcome


def rank_as_recorded(
    warehouse: Warehouse, benchmark: str, level: str, runs: list[MethodRun], version: str, parallel: bool = False,
    progress: bool = False,
) -> list[BenchmarkOutcome]:
    """Rank ``runs`` (recorded by snapshots) again exactly: each on the voters its snapshot selected."""
    selections: dict[VoterSelection, list[MethodRun]] = {}
    for method_run in runs:  # a loop over a benchmark's series (a few)
        selections.setdefault(VoterSelection.of(method_run), []).append(method_run)
    return [rank_benchmark(warehouse, benchmark, level, selected, version, parallel, progress, voters=voters,
                           as_recorded=True) for voters, selected in selections.items()]


def reconciled_warehouse(home: str | None) -> list[BenchmarkOutcome]:
    """:func:`reconcile_rankings` of every benchmark of ``home``, on a current catalog, rebuilt after any new
    snapshot; nothing at all for a home with nothing committed."""
    warehouse = Warehouse(home)
    if not has_committed(warehouse):
        return []
    ensure_current_catalog(warehouse)
    outcomes = reconcile_rankings(warehouse, None, code_version())
    if any(m.new for o in outcomes for m in o.methods):
        runtime.call(refresh_catalog, warehouse)
    return outcomes

