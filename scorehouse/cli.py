"""The ``scorehouse`` command line: the argument spec, and ``main``.

The commands themselves are in :mod:`flows.commands` and what they print in
:mod:`flows.console`; both import Prefect, DuckDB and Polars only inside the
commands that need them, so ``scorehouse --help`` stays fast.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import os
import sys
from pathlib import Path

from scorehouse import commands

HISTORY_ENV = "SCOREHOUSE_HISTORY"  # scorehouse.runtime.HISTORY_ENV, spelled here so --help imports nothing
OUTPUT_FORMATS = ("table", "csv", "json", "parquet")  # scorehouse.console.OUTPUT_FORMATS (checked by a test)


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
    table.add_argument("--score-columns", metavar="GLOB", action="append",
                       help="the columns holding scores (a wide table), e.g. 'acc_*': each is a task, or a metric with "
                            "--task (repeatable: the columns matching any of them)")
    table.add_argument("--higher-is-better", type=truth_value, metavar="true|false",
                       help="the direction of the table's metrics (default: the metric rules, higher is better)")


def add_battle_columns(parser: argparse.ArgumentParser) -> None:
    """``--model-a COL`` ...: the file's column holding each battle role (default: the arena dumps' names)."""
    group = parser.add_argument_group(
        "battle columns", "battles (format battles): the file's column for each role; --instance names the prompt")
    for role in commands.BATTLE_COLUMN_ROLES:
        if role not in commands.TABLE_ROLES:  # --instance: one flag, the same meaning for both
            group.add_argument(f"--{role.replace('_', '-')}", dest=role, metavar="COL",
                               help=f"the column holding the battle's {role.replace('_', ' ')}")


def add_json_path_options(ingest: argparse.ArgumentParser) -> None:
    """``--json-path TEMPLATE`` and ``--system-from-folder``: a JSON document read by naming its levels (format json-path)."""
    group = ingest.add_argument_group(
        "JSON read by a path template", "name the levels of a JSON document (docs/json-leaderboards.md); needs --benchmark")
    group.add_argument("--json-path", metavar="TEMPLATE",
                       help="the path from the document's root to each score, e.g. '{system}.pass@1.{task}': "
                            "{system} {task} {metric} {instance} capture keys, {role=field} reads a record's field, "
                            "* skips a level, [] iterates a list, a key with a dot is quoted")
    group.add_argument("--system-from-folder", action="store_true",
                       help="with --json-path: the system is the name of each file's folder (per-model folders)")


def add_judgement_options(ingest: argparse.ArgumentParser) -> None:
    """``--winner-scale A,B`` and ``--tie-band W``: battles whose judgement is a number (docs/numeric-judgements.md)."""
    group = ingest.add_argument_group("numeric judgements", "battles whose --winner column holds a number")
    group.add_argument("--winner-scale", metavar="A,B",
                       help="the judgement is a number: A means model_a wins, B means model_b wins "
                            "(e.g. 1,2 for a preference in [1, 2]; 1,0 for the probability that model_a is better)")
    group.add_argument("--tie-band", metavar="W",
                       help="with --winner-scale: judgements within W of the midpoint are ties (default 0: "
                            "only the midpoint itself)")


def share(value: str) -> float:
    """``--min-coverage``: a share of the voters in [0, 1]."""
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError(f"a share of the voters from 0 to 1, such as 0.5, got {value!r}")
    return number


def add_rank_selection(rank: argparse.ArgumentParser) -> None:
    """What ``rank`` ranks: the voters it selects and the coverage a system needs (docs/sparse-defaults.md)."""
    group = rank.add_argument_group("what to rank", "voters and systems (recorded in the snapshots' parameters)")
    group.add_argument("--only-task", action="append", metavar="GLOB",
                       help="rank the voters of the tasks matching GLOB only (repeatable: any of them); not "
                            "ingest's --task, which names a column")
    group.add_argument("--only-metric", action="append", metavar="GLOB",
                       help="rank the voters of the metrics matching GLOB only (repeatable: any of them)")
    group.add_argument("--min-coverage", type=share, metavar="F",
                       help="rank only the systems scored on at least F of the (selected) voters; the others are "
                            "listed, not ranked (default: at task level with missing scores, half the voters the "
                            "best-covered system has; otherwise none)")


def add_forget(sub: argparse._SubParsersAction) -> None:
    """``scorehouse forget LOAD_ID... | --benchmark B``: retract mistaken loads from the current view."""
    forget = subcommand(sub, "forget", "retract mistaken loads from the current view (history and old snapshots "
                        "stay) and re-rank what changed", ["forget 1f3c9a20b7d4e5f6", "forget --benchmark mybench"])
    forget.add_argument("load_ids", nargs="*", metavar="LOAD_ID", help="a current load's id (see the loads view)")
    forget.add_argument("--benchmark", help="forget every current load of this benchmark instead")
    forget.set_defaults(handler=commands.cmd_forget, flows=True)


STRICT_HELP = "exit 1 when rows were quarantined (by default they are warnings: exit 0)"
DEPRECATED = "deprecated spelling of {new}, kept for one release"


class DeprecatedAlias(argparse.Action):
    """An old spelling of an option: stores into the new one's destination and says, on stderr, to use the new one."""

    def __init__(self, option_strings: list[str], dest: str, new: str, **kwargs: object) -> None:  # noqa: D107
        self.new = new
        super().__init__(option_strings, dest, help=DEPRECATED.format(new=new), **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001
        print(f"scorehouse: {option_string} is deprecated; use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_output_options(parser: argparse.ArgumentParser, max_rows: int) -> None:
    """``--format``/``--output``/``--max-rows``: how a command that prints a table writes it."""
    group = parser.add_argument_group("output", "the table a command prints, or writes to a file")
    group.add_argument("--format", choices=OUTPUT_FORMATS, default="table",
                       help="table (default, on the terminal), or csv, json or parquet (parquet needs --output)")
    group.add_argument("--output", type=Path, metavar="FILE", help="write the table to FILE instead of stdout")
    group.add_argument("--max-rows", type=int, default=max_rows, metavar="N",
                       help=f"rows shown in table format (default {max_rows})")


def subcommand(sub, name: str, help: str, examples: list[str], **kwargs: object) -> argparse.ArgumentParser:  # noqa: ANN001, A002
    """A subcommand whose ``--help`` ends with its examples."""
    epilog = "examples:\n" + "\n".join(f"  scorehouse {e}" for e in examples)
    return sub.add_parser(name, help=help, description=help, epilog=epilog,
                          formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


def add_site_command(sub: argparse._SubParsersAction) -> None:
    site = subcommand(sub, "site", "write the interactive static leaderboard site of the latest rankings "
                      "(index, one page per benchmark and per system; works from file://)", [
                          "site --output site/", "site --output glue-site/ --benchmark glue"])
    site.add_argument("--output", type=Path, required=True,
                      help="the folder to write (replaced whole; open DIR/index.html in a browser)")
    site.add_argument("--benchmark", help="only this benchmark (default: every benchmark with snapshots)")
    site.set_defaults(handler=commands.cmd_site)


def add_site_options(refresh: argparse.ArgumentParser, serve: argparse.ArgumentParser) -> None:
    for parser in (refresh, serve):
        parser.add_argument("--site", type=Path, metavar="DIR",
                            help="rebuild the leaderboard site in DIR after a refresh that changed a ranking")


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
    parser = argparse.ArgumentParser(
        prog="scorehouse", description="A warehouse of benchmark scores and the rankings computed from them.",
        epilog="examples:\n  scorehouse run\n  scorehouse ingest results.csv --benchmark mine --system model --score acc\n"
               "  scorehouse rank --benchmark mine\n  scorehouse sql \"SELECT * FROM latest_rankings LIMIT 5\"\n"
               "run 'scorehouse COMMAND --help' for a command's options and examples",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(flows=False, runner="local", workers=None, address=None)  # flows: runs flows (a session)
    add_home_option(parser, None)
    parser.add_argument("--no-history", action="store_true",
                        help="run flows in this process without recording them, even when a Prefect API is "
                             f"configured (also: {HISTORY_ENV}=off)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="say more: each load's notes, each method's notes, the warehouse summary")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = subcommand(sub, "ingest", "ingest score dumps (files or folders) into the warehouse", [
        "ingest data/bundled/vote_and_rank/tables",
        "ingest results.csv --benchmark mine --system model --task dataset --score accuracy",
        "ingest battles.jsonl --benchmark arena --model-a left --model-b right --winner verdict",
    ])
    ingest.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or folders to ingest")
    ingest.add_argument("--format", metavar="FORMAT",
                        help="the format of the files read, instead of detecting it (e.g. user-table, battles)")
    ingest.add_argument("--benchmark", type=benchmark_option, help="benchmark name instead of the one the parser derives")
    ingest.add_argument("--trust-pickle", action="store_true", help="allow pickles (unpickling runs code)")
    ingest.add_argument("--reparse", action="store_true", help=commands.REPARSE_HELP)
    ingest.add_argument("--strict", action="store_true", help=STRICT_HELP)
    add_table_options(ingest)
    add_battle_columns(ingest)
    add_json_path_options(ingest)
    add_judgement_options(ingest)
    add_runner_options(ingest)
    ingest.set_defaults(handler=commands.cmd_ingest, flows=True)

    sql = subcommand(sub, "sql", "run a SQL query on the catalog (read-only)", [
        'sql "SELECT benchmark, count(*) FROM scores GROUP BY ALL"',
        'sql "SELECT * FROM latest_rankings WHERE benchmark = \'glue\'" --format csv --output glue.csv',
    ])
    sql.add_argument("query", help="one SQL query (DuckDB's dialect) over the catalog's views")
    add_output_options(sql, 60)
    add_query_limits(sql)
    sql.set_defaults(handler=commands.cmd_sql)

    rank = subcommand(sub, "rank", "rank benchmarks and store the results as snapshots", [
        "rank", "rank --benchmark glue --method borda --method kemeny",
        "rank --benchmark glue --method elo --param elo.k=16 --format csv --output glue-ranks.csv",
    ])
    rank.add_argument("--benchmark", action="append", help="benchmark to rank (repeatable; default: all)")
    rank.add_argument("--level", type=level_name,
                      help="task, instance or battles; default: each benchmark's natural level")
    rank.add_argument("--method", action="append", help="registry method name (repeatable; default: a documented set)")
    rank.add_argument("--param", action="append", metavar="METHOD.KEY=VALUE", help="a method parameter (repeatable)")
    rank.add_argument("--two-step", action="store_true", help="run the --method(s) two-step (within groups, then across)")
    add_rank_selection(rank)
    add_battle_filters(rank)
    add_runner_options(rank)
    add_output_options(rank, 30)
    rank.set_defaults(handler=commands.cmd_rank, flows=True)

    arena = subcommand(sub, "arena", "the arena leaderboard of a benchmark's battles (Bradley-Terry on the Elo "
                       "scale, bootstrap intervals), stored as a snapshot", [
                           "arena --benchmark chatbot-arena", "arena --benchmark chatbot-arena --judge gpt-4 --resamples 200",
                       ])
    arena.add_argument("--benchmark", required=True, help="a benchmark holding battles")
    arena.add_argument("--anchor", metavar="SYSTEM", help="the system rated 1000 (default: the mean rating is 1000)")
    arena.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the battles (default 1000)")
    arena.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    add_battle_filters(arena)
    add_output_options(arena, 60)
    arena.set_defaults(handler=commands.cmd_arena, flows=True, level="battles")

    snapshots = subcommand(sub, "snapshots", "list ranking snapshots", [
        "snapshots", "snapshots --benchmark glue --format csv --output snapshots.csv"])
    snapshots.add_argument("--benchmark", help="only this benchmark's snapshots")
    add_output_options(snapshots, 100)
    snapshots.set_defaults(handler=commands.cmd_snapshots)

    refresh = subcommand(sub, "refresh", "ingest new files of an inbox once and re-rank what changed", [
        "refresh --inbox incoming/"])
    refresh.add_argument("--inbox", type=Path, required=True, help="the folder new dumps are dropped into")
    refresh.add_argument("--reparse", action="store_true", help=commands.REPARSE_HELP)
    refresh.add_argument("--strict", action="store_true", help=STRICT_HELP)
    refresh.set_defaults(handler=commands.cmd_refresh, flows=True)

    serve = subcommand(sub, "serve", "serve the refresh flow on a schedule (a Prefect deployment)", [
        'serve --inbox incoming/ --cron "*/15 * * * *"', "serve --inbox incoming/ --interval 600"])
    serve.add_argument("--inbox", type=Path, required=True, help="the folder new dumps are dropped into")
    when = serve.add_mutually_exclusive_group(required=True)
    when.add_argument("--cron", help='a cron schedule, e.g. "*/15 * * * *"')
    when.add_argument("--interval", type=int, help="seconds between runs")
    serve.set_defaults(handler=commands.cmd_serve)

    diff = subcommand(sub, "diff", "what changed between two ranking snapshots", [
        "diff --latest", "diff --latest --benchmark glue --method borda", "diff 3f2a9c1e 7d41b0aa --all"])
    diff.add_argument("ids", nargs="*", metavar="ID", help="two snapshot ids: before and after")
    diff.add_argument("--latest", action="store_true", help="compare each latest snapshot with its previous one")
    diff.add_argument("--benchmark", help="with --latest: only this benchmark")
    diff.add_argument("--method", help="with --latest: only this method")
    diff.add_argument("--top-k", type=int, default=3, help="the k of the top-k agreement (default 3)")
    diff.add_argument("--all", action="store_true", help="list unmoved systems too")
    add_output_options(diff, 60)
    diff.set_defaults(handler=commands.cmd_diff)

    export = subcommand(sub, "export", "export ranking snapshots (csv, parquet, json, an html report or a static site)", [
        "export --latest --format html --output report.html", "export --latest --format site --output site/",
        "export --latest --benchmark glue --format csv --output glue.csv", "export --snapshot 3f2a9c1e --format json --output s.json"])
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument("--snapshot", action="append", help="snapshot id (repeatable)")
    which.add_argument("--latest", action="store_true", help="the latest snapshot of every method")
    export.add_argument("--benchmark", help="with --latest: only this benchmark")
    export.add_argument("--format", choices=("csv", "parquet", "json", "html", "site"), required=True,
                        help="the format of what is written: csv, parquet, json, html (one report page) or site "
                             "(a folder: see 'scorehouse site')")
    export.add_argument("--output", type=Path, required=True, metavar="PATH",
                        help="the file to write (a folder for --format site)")
    export.set_defaults(handler=commands.cmd_export)

    synth = subcommand(sub, "synth", "write synthetic instance-level dumps, or an arena of battles (--battles), "
                       "with a known true ranking", [
                           "synth --output /tmp/synth --scores 1000000", "synth --output /tmp/arena --battles 10000 --systems 20"])
    synth.add_argument("--output", type=Path, required=True, help="folder to write csv/, parquet/ and spec.json into")
    synth.add_argument("--battles", type=int, metavar="N",
                       help="write N arena battles among --systems systems of known strength instead "
                            "(battles.jsonl, battles.parquet, spec.json)")
    synth.add_argument("--scores", type=int, help="total number of scores (sets --instances)")
    synth.add_argument("--benchmarks", type=int, default=1, help="benchmarks to write (default 1)")
    synth.add_argument("--tasks", type=int, default=16, help="tasks (language pairs, datasets) per benchmark")
    synth.add_argument("--metrics", type=int, default=17, help="metrics per task (default 17)")
    synth.add_argument("--instances", type=int, default=2000, help="instances (segments) per task")
    synth.add_argument("--systems", type=int, default=15, help="systems per benchmark")
    synth.add_argument("--phi", type=float, default=0.5, help="dispersion: system n scores phi*n + Gumbel noise")
    synth.add_argument("--corrupted", type=float, default=0.0, help="fraction of tasks whose ranking is reversed")
    synth.add_argument("--rescale", type=float, default=1.0, help="factor applied to one task's scores")
    synth.add_argument("--missing", type=float, default=0.0, help="fraction of (system, task) cells left out")
    synth.add_argument("--seed", type=int, default=0, help="seed of the draw (default 0)")
    synth.add_argument("--format", action="append", choices=("csv", "parquet", "jsonl"),
                       help="the format of the files written (repeatable): csv and parquet (default: both); "
                            "with --battles jsonl and parquet (default: both)")
    synth.set_defaults(handler=commands.cmd_synth)

    analyze = subcommand(sub, "analyze", "robustness experiments and method disagreement on one benchmark", [
        "analyze --benchmark glue", "analyze --benchmark glue --experiment tasks --method borda --method mean --resamples 50"])
    analyze.add_argument("--benchmark", required=True, help="a benchmark in the warehouse, or 'synthetic'")
    analyze.add_argument("--experiment", choices=("agreement", "tasks", "missing", "scaling", "all"), default="all",
                         help="the experiment to run (default: all)")
    analyze.add_argument("--method", action="append", dest="methods",
                         help="registry method name (repeatable; default: a documented set of six)")
    analyze.add_argument("--methods", nargs="+", dest="methods", action=DeprecatedAlias, new="--method")
    analyze.add_argument("--resamples", type=int, default=100, dest="resamples",
                         help="random draws per setting of the tasks and missing experiments (default 100)")
    analyze.add_argument("--repetitions", type=int, dest="resamples", action=DeprecatedAlias, new="--resamples")
    analyze.add_argument("--seed", type=int, default=0, help="seed of the draws (default 0)")
    add_output_options(analyze, 60)
    analyze.set_defaults(handler=commands.cmd_analyze, flows=True)

    add_site_command(sub)
    add_site_options(refresh, serve)
    add_forget(sub)

    run = subcommand(sub, "run", "the main job: ingest the bundled dumps, rank them, write the report and the site", [
        "run", "--home /tmp/demo run -v"])
    run.set_defaults(handler=commands.cmd_run, flows=True)

    for command in sub.choices.values():
        # Not given after the command, it is not set there, so the one before the command stays.
        add_home_option(command, argparse.SUPPRESS)
    return parser


# Commands that read the catalog without a flow (the flows check it themselves).
CATALOG_READERS = ("sql", "snapshots", "diff", "export")


def run_handler(args: argparse.Namespace) -> int:
    """Run the command; one that runs flows does so in a session of :mod:`scorehouse.runtime`.

    Without a configured Prefect API (or with ``--no-history``) the flows run in this process
    and nothing of Prefect is imported; with one, every flow command is a recorded flow run.
    """
    if not args.flows:
        return args.handler(args)
    from scorehouse import runtime

    spec = runtime.RunnerSpec(args.runner, args.workers, args.address)
    with runtime.session(no_history=args.no_history, runner=spec):
        return args.handler(args)


def main(argv: list[str] | None = None) -> int:
    """Run ``scorehouse argv`` in this process; its exit code."""
    return run_command(build_parser().parse_args(argv))


def run_command(args: argparse.Namespace) -> int:
    """The parsed command, run in this process; its exit code.

    A named error (:class:`scorehouse.aggregators.errors.ScorehouseError`) is said in one line
    with its exit code; anything else is a bug and shows its traceback.
    """
    from scorehouse.aggregators.errors import ScorehouseError

    try:
        if getattr(args, "max_rows", None) is not None:  # a command that prints a table
            commands.check_output(args)
        if args.command in CATALOG_READERS:
            commands.current_catalog(args.home)
        return run_handler(args)
    except ScorehouseError as error:
        if is_disk_full(error):
            return said_disk_full(args)
        message = str(error)
        prefix = f"scorehouse {args.command}: "
        print(message if message.startswith(prefix) else prefix + message, file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:  # the reader left (``| head``): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:
        if is_disk_full(error):
            return said_disk_full(args)
        raise


def is_disk_full(error: BaseException | None) -> bool:
    """True when ``error``, or an error it was raised from, is the disk running out of space (DuckDB says so
    in its own exception, not an ``OSError``: its message is recognised)."""
    while error is not None:
        if (isinstance(error, OSError) and error.errno == errno.ENOSPC) or "No space left on device" in str(error):
            return True
        error = error.__cause__ or error.__context__
    return False


def said_disk_full(args: argparse.Namespace) -> int:
    """A full disk, in one line (exit 1): every write goes aside and is renamed, so nothing half-written stays."""
    print(f"scorehouse {args.command}: no space left on the disk of {args.home or 'the warehouse home'}; nothing "
          "half-written was kept and the last complete commit stands; free some space and run the command again",
          file=sys.stderr)
    return 1


# OpenBLAS threads for the command's NumPy, unless the user set them: one.  The batched fits (a bootstrap's 200
# Newton systems of 100 x 100) make many small LAPACK calls, and on this project's 2-core machine with DuckDB's
# and Polars' threads alive, OpenBLAS's own threads made them 2-15 times slower (`rank` of the bundled data:
# 91 s of profiled time with them, 47 s without; docs/performance.md).  Set before NumPy is first imported.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}
# Polars' allocator (jemalloc) keeps the pages it frees for 5 s before handing them back, unless the user set its
# options: it handed them back sooner, so every ingest batch (1-2 s each) faulted its fresh buffers in again.  The
# whole MTEB ingest: system time 35 -> 13 s of 120 s of CPU, its peak 1.0 -> 1.4 GB; 30 s saved no more CPU and
# raised `make run`'s peak from 1.5 to 1.8 GB (docs/performance.md).  Read when Polars is first loaded, after this.
ALLOCATOR = {"_RJEM_MALLOC_CONF": "dirty_decay_ms:5000,muzzy_decay_ms:5000"}
# The C library's allocator (Python's bytes, lists and dicts) alike: blocks up to 64 MB from its heap, not each
# mapped apart, and up to 256 MB freed at the heap's top kept, not handed back.  An ingest batch holds its files'
# bytes (up to 32 MB) and a million parsed objects, then frees them; the next batch faulted the same memory in
# again (4.3 -> 1.2 s of system time to read MTEB's 104,000 files into batches).  glibc only (mallopt).
MALLOC_OPTIONS = {-3: 64 << 20, -1: 256 << 20}  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD


def keep_freed_memory() -> bool:
    """Set :data:`MALLOC_OPTIONS` when the C library is glibc (elsewhere its allocator is left as it is); whether
    glibc took them."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return all(libc.mallopt(option, value) == 1 for option, value in MALLOC_OPTIONS.items())


def console_script() -> None:
    """The ``scorehouse`` command."""
    for name, value in {**BLAS_THREADS, **ALLOCATOR}.items():
        os.environ.setdefault(name, value)
    keep_freed_memory()
    sys.exit(main())


if __name__ == "__main__":
    console_script()
