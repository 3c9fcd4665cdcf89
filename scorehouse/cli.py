"""The ``scorehouse`` command line: the argument spec, and ``main``.

The commands themselves are in :mod:`flows.commands` and what they print in
:mod:`flows.console`; both import Prefect, DuckDB and Polars only inside the
commands that need them, so ``scorehouse --help`` stays fast.
"""

from __future__ import annotations

import argparse
import atexit
import os
import sys
from pathlib import Path

from scorehouse import commands


def add_runner_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runner", choices=("local", "dask"), default="local",
                        help="run the per-file / per-partition tasks in process (default) or on Dask")
    parser.add_argument("--workers", type=int, help="with --runner dask: worker processes of a local cluster (default 2)")
    parser.add_argument("--address", help="with --runner dask: an existing cluster's scheduler, e.g. tcp://host:8786")


def benchmark_option(value: str) -> str:
    """``--benchmark`` of ingest, checked before anything starts: a bad name is a usage error (exit 2)."""
    from scorehouse.warehouse.names import BenchmarkNameError, check_benchmark_name

    try:
        return check_benchmark_name(value)
    except BenchmarkNameError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def level_name(value: str) -> str:
    """``--level``: one of the levels a snapshot ranks (checked on use, so ``--help`` does not import Polars)."""
    from scorehouse.warehouse.schema import SNAPSHOT_LEVELS

    if value not in SNAPSHOT_LEVELS:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(SNAPSHOT_LEVELS)}, got {value!r}")
    return value


def time_bound(value: str):  # noqa: ANN201 - a datetime; the module is imported on use
    """``--since``/``--until``: an ISO 8601 date or time (UTC when it has no offset)."""
    from scorehouse.warehouse.battle_filters import as_utc

    try:
        return as_utc(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an ISO 8601 date or time such as 2026-01-01 or 2026-01-01T12:00, "
                                         f"got {value!r}") from None


def bothbad_rule(value: str) -> str:
    """``--bothbad``: one of the aggregators' rules for a both-bad tie (checked on use)."""
    from scorehouse.aggregators.schemas import BOTHBAD_RULES

    if value not in BOTHBAD_RULES:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(BOTHBAD_RULES)}, got {value!r}")
    return value


def add_battle_filters(parser: argparse.ArgumentParser) -> None:
    """The options that select the battles to rank (README: 'Ranking battles'); any of them means level battles."""
    group = parser.add_argument_group("battles", "select the battles to rank (each filter repeatable: any of the values)")
    for name in ("judge", "category", "language"):
        group.add_argument(f"--{name}", action="append", metavar=name.upper(), help=f"keep the battles of this {name}")
    group.add_argument("--since", type=time_bound, metavar="TIME", help="keep the battles at or after TIME (UTC)")
    group.add_argument("--until", type=time_bound, metavar="TIME", help="keep the battles before TIME (UTC)")
    group.add_argument("--bothbad", type=bothbad_rule, metavar="tie|drop",
                       help="a 'tie (bothbad)' battle counts as a tie (default) or is dropped")


def add_home_option(parser: argparse.ArgumentParser, default: str | None) -> None:
    """``--home``, accepted before the command and after it; given in both places, the one after wins."""
    parser.add_argument("--home", default=default, help="scorehouse.warehouse folder (default: $SCOREHOUSE_HOME or ./scorehouse-data)")


def truth_value(value: str) -> bool:
    """``--higher-is-better``: true or false."""
    if value.strip().lower() not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"true or false, got {value!r}")
    return value.strip().lower() == "true"


def add_table_options(ingest: argparse.ArgumentParser) -> None:
    """The options that read any CSV/TSV/JSON Lines/Parquet table by its columns (format user-table)."""
    table = ingest.add_argument_group(
        "a table read by its columns", "name the columns of a table no format knows (README: 'Your own table')")
    table.add_argument("--system", metavar="COLUMN", help="the column naming the system")
    table.add_argument("--task", metavar="COLUMN", help="the column naming the task (default: one task, the file name)")
    table.add_argument("--metric", metavar="COLUMN", help="the column naming the metric (default: one metric, 'score')")
    table.add_argument("--instance", metavar="COLUMN", help="the column naming the instance: instance-level scores")
    table.add_argument("--score", metavar="COLUMN", help="the column holding the score (one score per row)")
    table.add_argument("--score-columns", metavar="GLOB",
                       help="the columns holding scores (a wide table), e.g. 'acc_*': each is a task, or a metric with --task")
    table.add_argument("--higher-is-better", type=truth_value, metavar="true|false",
                       help="the direction of the table's metrics (default: the metric rules, higher is better)")


def add_battle_columns(parser: argparse.ArgumentParser) -> None:
    """``--model-a COL`` ...: the file's column holding each battle role (default: the arena dumps' names)."""
    group = parser.add_argument_group(
        "battle columns", "battles (format battles): the file's column for each role; --instance names the prompt")
    for role in commands.BATTLE_COLUMN_ROLES:
        if role not in commands.TABLE_ROLES:  # --instance: one flag, the same meaning for both
            group.add_argument(f"--{role.replace('_', '-')}", dest=role, metavar="COL")


STRICT_HELP = "exit 1 when rows were quarantined (by default they are warnings: exit 0)"


# scorehouse.warehouse.catalog.DEFAULT_QUERY_TIMEOUT, spelt here so that --help imports no DuckDB or Polars.
DEFAULT_QUERY_TIMEOUT = 60.0


def positive_seconds(value: str) -> float:
    seconds = float(value)
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"--timeout must be a positive number of seconds, got {value!r}")
    return seconds


def add_query_limits(sql: argparse.ArgumentParser) -> None:
    """How long a ``sql`` query may run (docs/reliability.md: 'Bounded queries')."""
    sql.add_argument("--timeout", type=positive_seconds, default=DEFAULT_QUERY_TIMEOUT, metavar="SECONDS",
                     help=f"stop the query after this many seconds (default {DEFAULT_QUERY_TIMEOUT:g})")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scorehouse", description="A warehouse of benchmark scores and the rankings computed from them.")
    parser.set_defaults(prefect=None)  # "flow": runs flows; "server": needs a real Prefect server
    add_home_option(parser, None)
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser("ingest", help="ingest score dumps (files or folders) into the warehouse")
    ingest.add_argument("paths", nargs="*", type=Path)
    ingest.add_argument("--format", help="force a format instead of detecting it")
    ingest.add_argument("--benchmark", type=benchmark_option, help="benchmark name instead of the one the parser derives")
    ingest.add_argument("--trust-pickle", action="store_true", help="allow pickles (unpickling runs code)")
    ingest.add_argument("--reparse", action="store_true", help=commands.REPARSE_HELP)
    ingest.add_argument("--strict", action="store_true", help=STRICT_HELP)
    add_table_options(ingest)
    add_battle_columns(ingest)
    add_runner_options(ingest)
    ingest.set_defaults(handler=commands.cmd_ingest, prefect="flow")

    sql = sub.add_parser("sql", help="run a SQL query on the catalog (read-only)")
    sql.add_argument("query")
    sql.add_argument("--format", choices=("table", "csv", "json", "parquet"), default="table")
    sql.add_argument("--output", type=Path, help="write the result to this file")
    sql.add_argument("--max-rows", type=int, default=60, help="rows shown in table format")
    add_query_limits(sql)
    sql.set_defaults(handler=commands.cmd_sql)

    rank = sub.add_parser("rank", help="rank benchmarks and store the results as snapshots")
    rank.add_argument("--benchmark", action="append", help="benchmark to rank (repeatable; default: all)")
    rank.add_argument("--level", type=level_name,
                      help="task, instance or battles; default: each benchmark's natural level")
    rank.add_argument("--method", action="append", help="registry method name (repeatable; default: a documented set)")
    rank.add_argument("--param", action="append", metavar="METHOD.KEY=VALUE", help="a method parameter (repeatable)")
    rank.add_argument("--two-step", action="store_true", help="run the --method(s) two-step (within groups, then across)")
    add_battle_filters(rank)
    add_runner_options(rank)
    rank.set_defaults(handler=commands.cmd_rank, prefect="flow")

    arena = sub.add_parser("arena", help="the arena leaderboard of a benchmark's battles (Elo-scale ratings, "
                           "bootstrap intervals), stored as a snapshot")
    arena.add_argument("--benchmark", required=True, help="a benchmark holding battles")
    arena.add_argument("--anchor", metavar="SYSTEM", help="the system rated 1000 (default: the mean rating is 1000)")
    arena.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the battles (default 1000)")
    arena.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    arena.add_argument("--max-rows", type=int, default=60)
    add_battle_filters(arena)
    arena.set_defaults(handler=commands.cmd_arena, prefect="flow", level="battles")

    snapshots = sub.add_parser("snapshots", help="list ranking snapshots")
    snapshots.add_argument("--benchmark")
    snapshots.add_argument("--max-rows", type=int, default=100)
    snapshots.set_defaults(handler=commands.cmd_snapshots)

    refresh = sub.add_parser("refresh", help="ingest new files of an inbox once and re-rank what changed")
    refresh.add_argument("--inbox", type=Path, required=True)
    refresh.add_argument("--reparse", action="store_true", help=commands.REPARSE_HELP)
    refresh.add_argument("--strict", action="store_true", help=STRICT_HELP)
    refresh.set_defaults(handler=commands.cmd_refresh, prefect="flow")

    serve = sub.add_parser("serve", help="serve the refresh flow on a schedule (a Prefect deployment)")
    serve.add_argument("--inbox", type=Path, required=True)
    when = serve.add_mutually_exclusive_group(required=True)
    when.add_argument("--cron", help='a cron schedule, e.g. "*/15 * * * *"')
    when.add_argument("--interval", type=int, help="seconds between runs")
    serve.set_defaults(handler=commands.cmd_serve, prefect="server")

    diff = sub.add_parser("diff", help="what changed between two ranking snapshots")
    diff.add_argument("ids", nargs="*", help="two snapshot ids: before and after")
    diff.add_argument("--latest", action="store_true", help="compare each latest snapshot with its previous one")
    diff.add_argument("--benchmark")
    diff.add_argument("--method")
    diff.add_argument("--top-k", type=int, default=3)
    diff.add_argument("--all", action="store_true", help="list unmoved systems too")
    diff.add_argument("--max-rows", type=int, default=60)
    diff.set_defaults(handler=commands.cmd_diff)

    export = sub.add_parser("export", help="export ranking snapshots (csv, parquet, json or an html report)")
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument("--snapshot", action="append", help="snapshot id (repeatable)")
    which.add_argument("--latest", action="store_true", help="the latest snapshot of every method")
    export.add_argument("--benchmark", help="with --latest: only this benchmark")
    export.add_argument("--format", choices=("csv", "parquet", "json", "html"), required=True)
    export.add_argument("--output", type=Path, required=True)
    export.set_defaults(handler=commands.cmd_export)

    synth = sub.add_parser("synth", help="write synthetic instance-level dumps, or an arena of battles (--battles), "
                           "with a known true ranking")
    synth.add_argument("--output", type=Path, required=True, help="folder to write csv/, parquet/ and spec.json into")
    synth.add_argument("--battles", type=int, metavar="N",
                       help="write N arena battles among --systems systems of known strength instead "
                            "(battles.jsonl, battles.parquet, spec.json)")
    synth.add_argument("--scores", type=int, help="total number of scores (sets --instances)")
    synth.add_argument("--benchmarks", type=int, default=1)
    synth.add_argument("--tasks", type=int, default=16, help="tasks (language pairs, datasets) per benchmark")
    synth.add_argument("--metrics", type=int, default=17)
    synth.add_argument("--instances", type=int, default=2000, help="instances (segments) per task")
    synth.add_argument("--systems", type=int, default=15, help="systems per benchmark")
    synth.add_argument("--phi", type=float, default=0.5, help="dispersion: system n scores phi*n + Gumbel noise")
    synth.add_argument("--corrupted", type=float, default=0.0, help="fraction of tasks whose ranking is reversed")
    synth.add_argument("--rescale", type=float, default=1.0, help="factor applied to one task's scores")
    synth.add_argument("--missing", type=float, default=0.0, help="fraction of (system, task) cells left out")
    synth.add_argument("--seed", type=int, default=0)
    synth.add_argument("--format", action="append", choices=("csv", "parquet", "jsonl"),
                       help="csv and parquet (default: both); with --battles jsonl and parquet (default: both)")
    synth.set_defaults(handler=commands.cmd_synth)

    analyze = sub.add_parser("analyze", help="robustness experiments and method disagreement on one benchmark")
    analyze.add_argument("--benchmark", required=True, help="a benchmark in the warehouse, or 'synthetic'")
    analyze.add_argument("--experiment", choices=("agreement", "tasks", "missing", "scaling", "all"), default="all")
    analyze.add_argument("--methods", nargs="+", help="registry method names (default: a documented set of six)")
    analyze.add_argument("--repetitions", type=int, default=100)
    analyze.add_argument("--seed", type=int, default=0)
    analyze.set_defaults(handler=commands.cmd_analyze, prefect="flow")

    run = sub.add_parser("run", help="the main job: ingest the bundled dumps, rank them, print the leaderboards")
    run.set_defaults(handler=commands.cmd_run, prefect="flow")

    server = sub.add_parser("server", help="the warehouse's local Prefect server: status, start or stop")
    server.add_argument("action", choices=("status", "start", "stop"))
    server.set_defaults(handler=commands.cmd_server)
    for command in sub.choices.values():
        # Not given after the command, it is not set there, so the one before the command stays.
        add_home_option(command, argparse.SUPPRESS)
    return parser


# Commands that read the catalog without a flow (the flows check it themselves).
CATALOG_READERS = ("sql", "snapshots", "diff", "export")


def run_handler(args: argparse.Namespace) -> int:
    """Run the command; one that runs flows holds the shared Prefect server (or ``$PREFECT_API_URL``) for its whole life.

    The server module is imported only then: reading commands load nothing of it.
    Prefect's settings are read on its import, so they are set first
    (:func:`flows.commands.quiet_prefect`); the flows run without heartbeats
    (:func:`flows.commands.without_heartbeats`).
    """
    if not args.prefect:
        return args.handler(args)
    from scorehouse.flows.local_server import ServerError, prefect_api

    try:
        with prefect_api(args.home, needs_server=args.prefect == "server"):
            commands.quiet_prefect()
            if args.prefect == "server":  # serving: its runs are long, in processes of their own
                return args.handler(args)
            with commands.without_heartbeats():
                return args.handler(args)
    except ServerError as error:
        print(f"scorehouse: {error}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    """Run ``scorehouse argv`` in this process; its exit code."""
    return run_command(build_parser().parse_args(argv))


def run_command(args: argparse.Namespace) -> int:
    """The parsed command, run in this process; its exit code, with the errors users fix said in one line."""
    from scorehouse.transforms.catalog import MetricRulesError
    from scorehouse.warehouse.catalog import WarehouseMissingError

    try:
        if args.command in CATALOG_READERS:
            commands.current_catalog(args.home)
        return run_handler(args)
    except commands.UsageError as error:  # its message names the command, as argparse's do
        print(error, file=sys.stderr)
        return 2
    except (WarehouseMissingError, FileNotFoundError) as error:
        print(f"scorehouse: {error}", file=sys.stderr)
        return 2
    except MetricRulesError as error:  # bad input the user fixes in the file named: one line, no traceback
        print(f"scorehouse: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader left (``| head``): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def exit_without_teardown(outcome: list[int]) -> None:
    """The last exit handler: flush stdout and stderr and end the process with ``main``'s code, skipping teardown.

    Tearing down the interpreter (freeing the ~3000 modules of Prefect, pydantic,
    Polars and pyarrow one by one) costs 0.3 to 1 s, more than many commands'
    own work, and nothing of ours needs it: files and DuckDB connections are
    closed by their ``with`` blocks, and by now Python has joined the threads
    (Prefect's event and log workers flush then) and run every other exit
    handler.  When ``main`` raised, ``outcome`` is empty and Python exits as usual.
    """
    if not outcome:
        return
    flush_streams()
    os._exit(outcome[0])


def flush_streams() -> None:
    """Flush stdout and stderr before an ``os._exit``, which would drop what they buffer."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (``| head``) or stream: nothing more to say on it
            pass


def console_script() -> None:
    """The ``scorehouse`` command: :func:`main`, then :func:`exit_without_teardown`.

    Registered before ``main`` runs, so it is the last exit handler to run
    (they run last-registered first).  Tests call :func:`main` itself.
    """
    outcome: list[int] = []
    atexit.register(exit_without_teardown, outcome)
    outcome.append(main())
    sys.exit(outcome[0])


if __name__ == "__main__":
    console_script()
