"""The commands of ``scorehouse``: each turns parsed arguments into one flow or warehouse call and prints the outcome.

Prefect, DuckDB, Polars and the flows are imported inside the commands that
need them: importing Prefect alone costs about two seconds, which
``scorehouse --help`` (it imports this module) should not pay.
"""

from __future__ import annotations

import argparse
import errno
import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

from scorehouse.console import print_analyses, print_arena, print_diff, print_frame, print_ingest_report, print_rankings, print_refresh


def disk_full_is_named(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``command``, where running out of disk space is one named line on stderr and exit 1, not tracebacks.

    Every write of scorehouse goes aside and is renamed into place, and a failed write removes
    its temporary file, so a full disk leaves the last complete commit as it was, and readers keep
    the last good catalog (:func:`flows.catalog_state.ensure_readable_catalog` builds one aside).
    DuckDB says it in its own exception, not an ``OSError``: its message is recognised.
    """
    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except Exception as error:
            if not is_disk_full(error):
                raise
            where = getattr(error, "filename", None) or args.home or "the warehouse home"
            print(f"scorehouse {args.command}: no space left on the disk of {where}; nothing half-written was "
                  f"kept and the last complete commit stands; free some space and run the command again",
                  file=sys.stderr)
            return 1
    return run


def is_disk_full(error: BaseException) -> bool:
    """True when ``error``, or an error it was raised from, is the disk running out of space."""
    while error is not None:
        if (isinstance(error, OSError) and error.errno == errno.ENOSPC) or "No space left on device" in str(error):
            return True
        error = error.__cause__ or error.__context__
    return False


class UsageError(Exception):
    """Options missing or not going together: :func:`flows.cli.main` says so on stderr and exits 2, as argparse does."""


def quiet_prefect() -> None:
    """Prefect without analytics or chatter, unless the user configured otherwise (before Prefect is imported)."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    # The temporary in-process server logs its own shutdown races (events it could
    # not flush as the process exits) as errors: they concern Prefect's run
    # history, never our data, so they are not shown unless asked for.
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "CRITICAL")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")


HEARTBEAT_SETTINGS = ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY")


@contextmanager
def without_heartbeats() -> Iterator[None]:
    """Flow runs of this process send no heartbeats, unless ``$PREFECT_FLOWS_HEARTBEAT_FREQUENCY`` asks for them.

    A heartbeat thread's only reader is a user's automation that marks a silent
    run crashed (every 180 s by default); a command's flow runs end with their
    process, which reports the final state itself.  Yet the thread sleeps in
    1 s steps that the flow's end waits for: up to a second on every command.
    An environment variable cannot say "none" (the setting is an int >= 30),
    hence the settings context.
    """
    if any(name in os.environ for name in HEARTBEAT_SETTINGS):
        yield
        return
    from prefect.settings import temporary_settings

    with temporary_settings(updates={"flows.heartbeat_frequency": None}):
        yield


def print_summary(home: str | None) -> None:
    from scorehouse.warehouse.queries import warehouse_summary
    from scorehouse.warehouse.storage import Warehouse

    print_frame(warehouse_summary(Warehouse(home)))


def check_metric_rules(home: str | None) -> None:
    """Check the metric rules before a flow starts, so a bad rules file is one line on stderr, not a flow failure.

    The ingest itself checks them too (:func:`flows.ingest.ingest_files`), for
    callers of the flows; this call only spares the user Prefect's traceback.
    """
    from scorehouse.flows.catalog_state import checked_metric_rules
    from scorehouse.warehouse.storage import Warehouse

    checked_metric_rules(Warehouse(home))


def current_catalog(home: str | None) -> None:
    """Make the catalog read current first when it does not match the committed loads and rules, never waiting
    for a writer (:func:`flows.catalog_state.ensure_readable_catalog`)."""
    from scorehouse.flows.catalog_state import ensure_readable_catalog
    from scorehouse.warehouse.home_format import HomeFormatError
    from scorehouse.warehouse.storage import Warehouse

    try:
        ensure_readable_catalog(Warehouse(home))
    except HomeFormatError as error:
        raise UsageError(f"scorehouse: {error}") from None


def _with_runner(flow, args: argparse.Namespace):  # noqa: ANN001, ANN202
    """``flow`` with the task runner of ``--runner``/``--workers``/``--address``, and whether it is parallel."""
    from scorehouse.flows.runners import RunnerError, runner_options

    try:
        options = runner_options(args.runner, args.workers, args.address)
    except RunnerError as error:
        raise UsageError(f"scorehouse {args.command}: {error}") from None
    return (flow.with_options(**options) if options else flow), bool(options)


REPARSE_HELP = "re-derive, from the raw archive, the loads an older parser version of their format made"


TABLE_ROLES = ("system", "task", "metric", "instance", "score", "score_columns")
# The battle roles a file's columns may be mapped to (``--model-a COL`` ...): those of
# transforms.parsers.battles.ROLES (a test checks they agree), spelled here so --help imports no Polars.
BATTLE_COLUMN_ROLES = ("model_a", "model_b", "winner", "judge", "instance", "turn", "language", "category", "tstamp")


def column_mapping(args: argparse.Namespace) -> tuple[dict[str, str] | None, str | None]:
    """The columns named on ``scorehouse ingest`` (role -> the file's column) and the format they read.

    Battle roles (``--model-a`` ...) read battles (format ``battles``), the table roles (``--system`` ...)
    a user's table (format ``user-table``); ``--instance`` belongs to both.  None when no column is named.
    """
    named = {role: getattr(args, role) for role in dict.fromkeys((*TABLE_ROLES, *BATTLE_COLUMN_ROLES))
             if getattr(args, role) is not None}
    battle_only = sorted(set(named) - set(TABLE_ROLES))
    table_only = sorted(set(named) - set(BATTLE_COLUMN_ROLES))
    if battle_only and table_only:
        raise UsageError(f"scorehouse ingest: the columns of battles ({', '.join(battle_only)}) and of a score table "
                         f"({', '.join(table_only)}) cannot be read from the same files; ingest them separately")
    if battle_only or (named and args.format == "battles"):
        if args.format not in (None, "battles"):
            raise UsageError(f"scorehouse ingest: the battle columns read files as format battles, not {args.format!r}")
        if args.higher_is_better is not None:
            raise UsageError("scorehouse ingest: --higher-is-better goes with the columns of a score table, not battles")
        return named, "battles"
    return table_columns(args, named), "user-table" if named else None


def table_columns(args: argparse.Namespace, columns: dict[str, str]) -> dict[str, str] | None:
    """The columns named for reading a user's table (role -> column), None when none is named.

    Checked against every file before anything is ingested: options that do not fit a file
    (a column it lacks, a glob that matches none) are a usage error naming the file and its columns.
    """
    from scorehouse.flows.ingest import expand_paths
    from scorehouse.transforms.parsers.user_table import TableOptionsError, check_options, check_table

    if not columns:
        if args.higher_is_better is not None:
            raise UsageError("scorehouse ingest: --higher-is-better goes with the columns of a table (--system ...)")
        return None
    try:
        check_options(columns)
    except ValueError as error:
        raise UsageError(f"scorehouse ingest: {error}") from None
    if args.benchmark is None:
        raise UsageError("scorehouse ingest: a table read by its columns needs --benchmark")
    if args.format not in (None, "user-table") or args.reparse:
        raise UsageError("scorehouse ingest: the column options read files as format user-table; "
                         "leave out --format and --reparse")
    for path in expand_paths(args.paths)[0]:
        try:
            check_table(path, columns)
        except TableOptionsError as error:
            raise UsageError(f"scorehouse ingest: {error}") from None
    return columns


@disk_full_is_named
def cmd_ingest(args: argparse.Namespace) -> int:
    check_metric_rules(args.home)
    from scorehouse.flows.ingest import files_ok, ingest_flow

    if not args.paths and not args.reparse:
        raise UsageError("scorehouse ingest: give the files or folders to ingest, or --reparse")
    columns, mapped_format = column_mapping(args)
    flow, parallel = _with_runner(ingest_flow, args)
    report = flow(
        [str(p) for p in args.paths], home=args.home, format=args.format or mapped_format, benchmark=args.benchmark,
        trust_pickle=args.trust_pickle, progress=not parallel, parallel=parallel,
        reparse=args.reparse, columns=columns, higher_is_better=args.higher_is_better,
    )
    print_ingest_report(report)
    print_summary(args.home)
    return 0 if files_ok(report.files, args.strict) else 1


def checked_output(warehouse, args: argparse.Namespace) -> None:  # noqa: ANN001 - a Warehouse, imported on use
    """Refuse an ``--output`` inside the warehouse home (a usage error, exit 2): only scorehouse writes there."""
    from scorehouse.warehouse.storage import OutputInsideHomeError

    try:
        warehouse.check_outside(args.output, "--output")
    except OutputInsideHomeError as error:
        raise UsageError(f"scorehouse {args.command}: {error}") from None


def nested_as_json(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its list, array and struct columns as JSON text: CSV has no nested values."""
    import polars as pl

    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    return frame.with_columns(
        pl.when(pl.col(name).is_not_null())
        .then(pl.struct(pl.col(name).alias("v")).struct.json_encode().str.strip_prefix('{"v":').str.strip_suffix("}"))
        .alias(name)
        for name in nested
    )


@disk_full_is_named
def cmd_sql(args: argparse.Namespace) -> int:
    from scorehouse.warehouse.catalog import RefusedQueryError, user_query
    from scorehouse.warehouse.storage import Warehouse

    if args.format == "parquet" and args.output is None:
        print("scorehouse sql: --format parquet needs --output FILE", file=sys.stderr)
        return 2
    warehouse = Warehouse(args.home)
    if args.output is not None:
        checked_output(warehouse, args)
    try:
        frame = user_query(warehouse, args.query, timeout=args.timeout)
    except RefusedQueryError as error:
        print(f"scorehouse sql: {error}", file=sys.stderr)
        return 1
    if args.format == "table":
        print_frame(frame, max_rows=args.max_rows)
    elif args.format == "csv":
        frame = nested_as_json(frame)
        text = frame.write_csv(args.output) if args.output else frame.write_csv()
        if text is not None:
            sys.stdout.write(text)
    elif args.format == "json":
        text = frame.write_json(args.output) if args.output else frame.write_json()
        if text is not None:
            sys.stdout.write(text + "\n")
    else:
        frame.write_parquet(args.output)
    return 0


def _method_runs(args: argparse.Namespace):  # noqa: ANN202
    from scorehouse.transforms.rank_plan import MethodRun, parse_parameters

    params = parse_parameters(args.param or [])
    if not args.method:
        if params:
            raise UsageError("scorehouse rank: --param needs the --method it applies to")
        return None
    unknown = sorted(set(params) - set(args.method))
    if unknown:
        raise UsageError(f"scorehouse rank: --param names method(s) {unknown} that are not among --method")
    return [MethodRun(m, params.get(m, {}), two_step=args.two_step) for m in args.method]


def battle_selection(args: argparse.Namespace, always: bool = False):  # noqa: ANN202 - BattleSelection | None
    """The battles the filters and ``--bothbad`` select; None when none of them is given (unless ``always``)."""
    from scorehouse.warehouse.battle_filters import BattleFilters, BattleSelection

    filters = BattleFilters.of(judge=args.judge, category=args.category, language=args.language,
                               since=args.since, until=args.until)
    if not filters and args.bothbad is None and not always:
        return None
    return BattleSelection(filters, args.bothbad or BattleSelection.bothbad)


@disk_full_is_named
def cmd_rank(args: argparse.Namespace) -> int:
    from scorehouse.flows.rank import rank_flow

    runs = _method_runs(args)
    selection = battle_selection(args)
    check_rank_selection(args, selection is not None)
    flow, parallel = _with_runner(rank_flow, args)
    outcomes = flow(home=args.home, benchmarks=args.benchmark, level=args.level, runs=runs, parallel=parallel,
                    progress=not parallel, battles=selection)
    return 1 if print_rankings(outcomes) else 0


@disk_full_is_named
def cmd_arena(args: argparse.Namespace) -> int:
    from scorehouse.flows.arena import arena_flow

    check_rank_selection(args, True)
    outcome = arena_flow(args.benchmark, home=args.home, battles=battle_selection(args, always=True),
                         anchor=args.anchor, n_resamples=args.resamples, seed=args.seed)
    return print_arena(outcome, args.max_rows)


def check_rank_selection(args: argparse.Namespace, battle_options: bool) -> None:
    """What to rank exists and fits the options (:func:`flows.rank.rank_levels`), checked before the flow
    starts, so a mistake is a usage error (exit 2), not a failed flow run."""
    from scorehouse.flows.rank import RankSelectionError, rank_levels
    from scorehouse.warehouse.storage import Warehouse

    current_catalog(args.home)
    try:
        benchmarks = [args.benchmark] if isinstance(args.benchmark, str) else args.benchmark
        rank_levels(Warehouse(args.home), benchmarks, args.level, battle_options)
    except RankSelectionError as error:
        raise UsageError(f"scorehouse {args.command}: {error}") from None


def cmd_snapshots(args: argparse.Namespace) -> int:
    from scorehouse.warehouse.queries import snapshot_listing
    from scorehouse.warehouse.storage import Warehouse

    print_frame(snapshot_listing(Warehouse(args.home), args.benchmark), max_rows=args.max_rows)
    return 0


@disk_full_is_named
def cmd_refresh(args: argparse.Namespace) -> int:
    check_metric_rules(args.home)
    from scorehouse.flows.ingest import files_ok
    from scorehouse.flows.refresh import refresh_flow

    report = refresh_flow(inbox=str(args.inbox), home=args.home, reparse=args.reparse)
    if report.nothing_new:
        print(f"nothing new in {args.inbox}")
        return 0
    print_refresh(report)
    failures = print_rankings(report.ranked)
    return 0 if files_ok(report.files + report.reparsed, args.strict) and not failures else 1


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the refresh flow; :func:`flows.cli.main` holds the home's Prefect server (schedules need one) meanwhile."""
    from scorehouse.flows.refresh import serve_refresh

    serve_refresh(str(args.inbox), args.home, args.cron, args.interval)
    return 0


def cmd_server(args: argparse.Namespace) -> int:
    """Show, start or stop the local Prefect server of the warehouse home (see :mod:`flows.local_server`)."""
    from scorehouse.flows.local_server import ServerError, ensure_server, live_state, server_files, stop_server

    files = server_files(args.home)
    if args.action == "start":
        try:
            state, started = ensure_server(files)
        except ServerError as error:
            print(f"scorehouse server start: {error}", file=sys.stderr)
            return 1
        print(f"{'started' if started else 'already running'}: {state.url} (pid {state.pid}, "
              f"stops after {state.idle_seconds:g} s unused)")
    elif args.action == "stop":
        state = stop_server(files)
        print(f"stopped the server at {state.url} (pid {state.pid})" if state else "no server was running")
    else:
        state = live_state(files)
        print(f"running: {state.url} (pid {state.pid}, stops after {state.idle_seconds:g} s unused; "
              f"files in {files.folder})" if state else f"not running (files in {files.folder})")
        return 0 if state else 3
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from scorehouse.aggregators.ranking_diff import diff_rankings
    from scorehouse.warehouse.snapshots import read_snapshot
    from scorehouse.warehouse.storage import Warehouse

    warehouse = Warehouse(args.home)
    if args.latest:
        from scorehouse.warehouse.queries import latest_diff_pairs

        pairs = latest_diff_pairs(warehouse, args.benchmark, args.method)
        if not pairs:
            print("no snapshot has a previous one to compare with")
            return 0
    elif len(args.ids) == 2:
        pairs = [tuple(args.ids)]
    else:
        raise UsageError("scorehouse diff: give two snapshot ids, or --latest (with --benchmark/--method)")
    for before_id, after_id in pairs:
        before_meta, before = read_snapshot(warehouse, before_id)
        after_meta, after = read_snapshot(warehouse, after_id)
        print_diff(before_meta, after_meta, diff_rankings(before, after, top_k=args.top_k), args.all, args.max_rows)
    return 0


@disk_full_is_named
def cmd_export(args: argparse.Namespace) -> int:
    from scorehouse.warehouse.storage import Warehouse

    warehouse = Warehouse(args.home)
    checked_output(warehouse, args)
    if args.latest:
        from scorehouse.warehouse.queries import latest_snapshot_ids

        ids = latest_snapshot_ids(warehouse, args.benchmark)
    else:
        ids = args.snapshot or []
    from scorehouse.warehouse.integrity import DamagedFileError

    try:
        if args.format == "html":
            from scorehouse.reports.report import write_report

            path = write_report(warehouse, ids, args.output)
        else:
            from scorehouse.warehouse.exports import export_table, write_export

            path = write_export(export_table(warehouse, ids), args.format, args.output)
    except DamagedFileError as error:
        print(f"scorehouse export: {error}", file=sys.stderr)
        return 1
    print(f"wrote {len(ids)} snapshot(s) to {path}")
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    if args.battles is not None:
        return synth_arena(args)
    from scorehouse.flows.synth import write_synthetic
    from scorehouse.transforms.synth import SynthSpec, instances_for
    from scorehouse.warehouse.dumps import DUMP_FORMATS

    formats = tuple(args.format or DUMP_FORMATS)
    if not set(formats) <= set(DUMP_FORMATS):
        raise UsageError(f"scorehouse synth: instance dumps are {' and '.join(DUMP_FORMATS)}; jsonl goes with --battles")

    instances = args.instances
    if args.scores is not None:
        instances = instances_for(args.scores, benchmarks=args.benchmarks, tasks=args.tasks,
                                  metrics=args.metrics, systems=args.systems)
    spec = SynthSpec(
        benchmarks=args.benchmarks, tasks=args.tasks, metrics=args.metrics, instances=instances,
        systems=args.systems, phi=args.phi, corrupted_fraction=args.corrupted, rescale=args.rescale,
        missing_fraction=args.missing, seed=args.seed,
    )
    summary = write_synthetic(spec, args.output, formats)
    print(f"wrote {summary['n_scores']} scores ({spec.benchmarks} benchmark(s) x {spec.tasks} tasks x "
          f"{spec.metrics} metrics x {spec.instances} instances x up to {spec.systems} systems) to {args.output}")
    return 0


def synth_arena(args: argparse.Namespace) -> int:
    """``scorehouse synth --battles N``: a synthetic arena (:func:`flows.synth.write_synthetic_arena`)."""
    from scorehouse.flows.synth import write_synthetic_arena
    from scorehouse.warehouse.dumps import BATTLE_DUMP_FORMATS

    formats = tuple(args.format or BATTLE_DUMP_FORMATS)
    if not set(formats) <= set(BATTLE_DUMP_FORMATS):
        raise UsageError(f"scorehouse synth: --battles writes {' and '.join(BATTLE_DUMP_FORMATS)}, not "
                         f"{', '.join(sorted(set(formats) - set(BATTLE_DUMP_FORMATS)))}")
    try:
        summary = write_synthetic_arena(args.battles, args.systems, args.seed, args.output, formats)
    except ValueError as error:
        raise UsageError(f"scorehouse synth: {error}") from None
    print(f"wrote {args.battles} battles among {args.systems} systems ({', '.join(summary['files'])}) and their "
          f"true strengths (spec.json) to {args.output}")
    return 0


@disk_full_is_named
def cmd_analyze(args: argparse.Namespace) -> int:
    from scorehouse.flows.analyze import EXPERIMENTS, analyze_flow

    experiments = list(EXPERIMENTS) if args.experiment == "all" else [args.experiment]
    outcomes = analyze_flow(
        args.benchmark, home=args.home, experiments=experiments, methods=args.methods,
        repetitions=args.repetitions, seed=args.seed, progress=True,
    )
    print_analyses(args.benchmark, outcomes)
    return 0


@disk_full_is_named
def cmd_run(args: argparse.Namespace) -> int:
    """The main job: ingest the bundled real dumps, rank every benchmark, print the leaderboards, write the report."""
    check_metric_rules(args.home)
    from scorehouse.flows.ingest import files_ok
    from scorehouse.flows.run import run_flow

    report = run_flow(home=args.home, progress=True)
    print_ingest_report(report.ingest)
    print(f"left out {len(report.pickles_left_out)} bundled pickle(s): "
          "ingest them with 'scorehouse ingest --trust-pickle PATH'")
    print_summary(args.home)
    failures = print_rankings(report.ranked)
    print(f"\nHTML report of the latest rankings: {report.report}")
    return 0 if files_ok(report.ingest.files) and not failures else 1
