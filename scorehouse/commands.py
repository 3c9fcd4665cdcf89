"""The commands of ``scorehouse``: each turns parsed arguments into one flow or warehouse call and prints the outcome.

Prefect, DuckDB, Polars and the flows are imported inside the commands that
need them: importing Prefect alone costs about two seconds, which
``scorehouse --help`` (it imports this module) should not pay.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

from scorehouse import runtime
from scorehouse.aggregators.errors import UsageError
from scorehouse.console import (
    analyses_frame, print_analyses, print_arena, print_diff, print_frame, print_ingest_report, print_ingest_totals,
    print_rankings, print_refresh, rankings_frame, write_table,
)


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


def show_progress(args: argparse.Namespace) -> bool:
    """Progress on stderr: a bar on a terminal; in a log, one line per step only with ``-v``."""
    return args.verbose or sys.stderr.isatty()


def parallel(args: argparse.Namespace) -> bool:
    """Whether the command's per-file or per-partition work is spread over a cluster (``--runner dask``)."""
    return args.runner != "local"


REPARSE_HELP = "re-derive, from the raw archive, the loads an older parser version of their format made"


TABLE_ROLES = ("system", "task", "metric", "instance", "score", "score_columns")
# The options of battles whose judgement is a number (transforms.parsers.battles.SCALE_OPTIONS), kept in the mapping.
JUDGEMENT_OPTIONS = ("winner_scale", "tie_band")
# The battle roles a file's columns may be mapped to (``--model-a COL`` ...): those of
# transforms.parsers.battles.ROLES (a test checks they agree), spelled here so --help imports no Polars.
BATTLE_COLUMN_ROLES = ("model_a", "model_b", "winner", "judge", "instance", "turn", "language", "category", "tstamp")


def column_mapping(args: argparse.Namespace) -> tuple[dict[str, str] | None, str | None]:
    """The columns named on ``scorehouse ingest`` (role -> the file's column) and the format they read.

    Battle roles (``--model-a`` ...) read battles (format ``battles``), the table roles (``--system`` ...)
    a user's table (format ``user-table``); ``--instance`` belongs to both.  None when no column is named.
    """
    named = {role: getattr(args, role) for role in dict.fromkeys((*TABLE_ROLES, *BATTLE_COLUMN_ROLES, *JUDGEMENT_OPTIONS))
             if getattr(args, role) is not None}
    if "score_columns" in named:  # repeatable: several globs travel as one mapping value
        from scorehouse.transforms.parsers.user_table import score_columns_option

        named["score_columns"] = score_columns_option(named["score_columns"])
    if args.json_path is not None or args.system_from_folder:
        return json_path_mapping(args, named), "json-path"
    battle_only = sorted(set(named) - set(TABLE_ROLES))
    if "tie_band" in named and "winner_scale" not in named:
        raise UsageError("scorehouse ingest: --tie-band goes with --winner-scale A,B")
    table_only = sorted(set(named) - set(BATTLE_COLUMN_ROLES) - set(JUDGEMENT_OPTIONS))
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
    (a column it lacks, a glob that matches none) are a usage error naming the file and its columns; a file
    whose header cannot be read is left to its read, which rejects it (exit 1) while the others land.
    """
    from scorehouse.flows.ingest import expand_paths
    from scorehouse.transforms.parsers.base import ParseError
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
        except ParseError:
            continue  # the file is at fault (binary, UTF-16, damaged), not the options: its read rejects it
    return columns


def cmd_ingest(args: argparse.Namespace) -> int:
    check_metric_rules(args.home)
    from scorehouse.flows.ingest import files_ok, ingest_flow

    if not args.paths and not args.reparse:
        raise UsageError("scorehouse ingest: give the files or folders to ingest, or --reparse")
    columns, mapped_format = column_mapping(args)
    spread = parallel(args)
    report = runtime.run(
        ingest_flow, [str(p) for p in args.paths], home=args.home, format=args.format or mapped_format,
        benchmark=args.benchmark, trust_pickle=args.trust_pickle, progress=show_progress(args) and not spread, parallel=spread,
        reparse=args.reparse, columns=columns, higher_is_better=args.higher_is_better,
    )
    print_ingest_report(report, args.verbose)
    if args.verbose:
        print_summary(args.home)
    return 0 if files_ok(report.files, args.strict) else 1


def check_output(args: argparse.Namespace) -> None:
    """``--format``/``--output`` of a table command that cannot work, said before the command runs."""
    if args.format == "parquet" and args.output is None:
        raise UsageError(f"scorehouse {args.command}: --format parquet needs --output FILE")
    if args.format == "table" and args.output is not None:
        raise UsageError(f"scorehouse {args.command}: --output writes csv, json or parquet: add --format csv (or json, parquet)")
    if args.output is not None:
        checked_output(args)


def checked_output(args: argparse.Namespace) -> None:
    """Refuse an ``--output`` inside the warehouse home (a usage error, exit 2): only scorehouse writes there."""
    from scorehouse.warehouse.storage import OutputInsideHomeError, Warehouse

    try:
        Warehouse(args.home).check_outside(args.output, "--output")
    except OutputInsideHomeError as error:
        raise UsageError(f"scorehouse {args.command}: {error}") from None


def emit(frame: pl.DataFrame, args: argparse.Namespace) -> None:
    """The command's table as ``--format`` asks: on the terminal (``table``), or as csv/json/parquet."""
    if args.format == "table":
        print_frame(frame, max_rows=args.max_rows)
    else:
        write_table(frame, args.format, args.output)


def cmd_sql(args: argparse.Namespace) -> int:
    from scorehouse.warehouse.catalog import user_query
    from scorehouse.warehouse.storage import Warehouse

    emit(user_query(Warehouse(args.home), args.query, timeout=args.timeout), args)
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
    return [MethodRun.asked(m, params.get(m), two_step=args.two_step) for m in args.method]


def battle_selection(args: argparse.Namespace, always: bool = False):  # noqa: ANN202 - BattleSelection | None
    """The battles the filters and ``--bothbad`` select; None when none of them is given (unless ``always``)."""
    from scorehouse.warehouse.battle_filters import BattleFilters, BattleSelection

    filters = BattleFilters.of(judge=args.judge, category=args.category, language=args.language,
                               since=args.since, until=args.until)
    if not filters and args.bothbad is None and not always:
        return None
    return BattleSelection(filters, args.bothbad or BattleSelection.bothbad)


def cmd_rank(args: argparse.Namespace) -> int:
    from scorehouse.flows.rank import rank_flow

    runs = _method_runs(args)
    selection = battle_selection(args)
    check_rank_selection(args, selection is not None)
    spread = parallel(args)
    outcomes = runtime.run(rank_flow, home=args.home, benchmarks=args.benchmark, level=args.level, runs=runs,
                           parallel=spread, progress=show_progress(args) and not spread, battles=selection,
                           min_coverage=args.min_coverage, voters=voter_selection(args))
    if spread and not any(o.level == "instance" for o in outcomes):
        print("note: --runner dask spreads the partitions of instance-level rankings; task-level and battle "
              "rankings ran in this process", file=sys.stderr)
    if args.format != "table":
        write_table(rankings_frame(outcomes), args.format, args.output)
        return 1 if print_rankings(outcomes, brief=True) else 0
    return 1 if print_rankings(outcomes, args.verbose) else 0


def cmd_arena(args: argparse.Namespace) -> int:
    from scorehouse.flows.arena import arena_flow

    check_rank_selection(args, True)
    outcome = runtime.run(arena_flow, args.benchmark, home=args.home, battles=battle_selection(args, always=True),
                         anchor=args.anchor, n_resamples=args.resamples, seed=args.seed)
    if outcome.error is None and args.format != "table":
        write_table(outcome.leaderboard, args.format, args.output)
        return 0
    return print_arena(outcome, args.max_rows)


def check_rank_selection(args: argparse.Namespace, battle_options: bool) -> None:
    """What to rank exists and fits the options (:func:`flows.selection.rank_levels`), checked before the flow
    starts, so a mistake is a usage error (exit 2), not a failed flow run."""
    from scorehouse.flows.selection import rank_levels
    from scorehouse.warehouse.storage import Warehouse

    current_catalog(args.home)
    benchmarks = [args.benchmark] if isinstance(args.benchmark, str) else args.benchmark
    rank_levels(Warehouse(args.home), benchmarks, args.level, battle_options)


def cmd_snapshots(args: argparse.Namespace) -> int:
    from scorehouse.warehouse.queries import snapshot_listing
    from scorehouse.warehouse.storage import Warehouse

    emit(snapshot_listing(Warehouse(args.home), args.benchmark), args)
    return 0


def cmd_refresh(args: argparse.Namespace) -> int:
    check_metric_rules(args.home)
    from scorehouse.flows.ingest import files_ok
    from scorehouse.flows.refresh import refresh_flow

    report = runtime.run(refresh_flow, inbox=str(args.inbox), home=args.home, reparse=args.reparse,
                         site=None if args.site is None else str(args.site))
    for said in report.unread_folders:
        print(f"skipped: {said}", file=sys.stderr)
    if report.nothing_new:
        print(f"nothing new in {args.inbox}")
        return 0
    print_refresh(report)
    failures = print_rankings(report.ranked, args.verbose)
    if report.site:
        print(f"rebuilt the leaderboard site: {report.site}/index.html")
    return 0 if files_ok(report.files + report.reparsed, args.strict) and not failures else 1


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the refresh flow on a schedule (:mod:`scorehouse.serving`): a Prefect deployment."""
    from scorehouse.serving import serve

    try:
        serve(str(args.inbox), args.home, args.cron, args.interval, None if args.site is None else str(args.site))
    except KeyboardInterrupt:  # a stop signal while Prefect's runner shuts down: stopping is what was asked
        pass
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
    import polars as pl

    tables = []
    for before_id, after_id in pairs:
        before_meta, before = read_snapshot(warehouse, before_id)
        after_meta, after = read_snapshot(warehouse, after_id)
        diff = diff_rankings(before, after, top_k=args.top_k)
        if args.format == "table":
            print_diff(before_meta, after_meta, diff, args.all, args.max_rows)
        else:
            changes = diff.changes if args.all else diff.changes.filter(pl.col("change") != 0)
            tables.append(changes.select(pl.lit(before_id).alias("before"), pl.lit(after_id).alias("after"), pl.all()))
    if tables:
        write_table(pl.concat(tables, how="vertical_relaxed"), args.format, args.output)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from scorehouse.warehouse.storage import Warehouse

    warehouse = Warehouse(args.home)
    checked_output(args)
    if args.latest:
        from scorehouse.warehouse.queries import latest_snapshot_ids

        ids = latest_snapshot_ids(warehouse, args.benchmark)
    else:
        ids = args.snapshot or []
    if args.format == "html":
        from scorehouse.reports.report import write_report

        path = write_report(warehouse, ids, args.output)
    elif args.format == "site":
        from scorehouse.reports.site.build import build_site

        path = build_site(warehouse, ids, args.output)
    else:
        from scorehouse.warehouse.exports import export_table, write_export

        path = write_export(export_table(warehouse, ids), args.format, args.output)
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


def cmd_analyze(args: argparse.Namespace) -> int:
    from scorehouse.flows.analyze import EXPERIMENTS, analyze_flow

    experiments = list(EXPERIMENTS) if args.experiment == "all" else [args.experiment]
    outcomes = runtime.run(
        analyze_flow, args.benchmark, home=args.home, experiments=experiments, methods=args.methods,
        repetitions=args.resamples, seed=args.seed, progress=show_progress(args),
    )
    if args.format == "table":
        print_analyses(args.benchmark, outcomes)
    else:
        write_table(analyses_frame(outcomes), args.format, args.output)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """The main job: ingest the bundled real dumps, rank every benchmark, print the leaderboards, write the report."""
    check_metric_rules(args.home)
    from scorehouse.flows.ingest import files_ok
    from scorehouse.flows.run import run_flow

    report = runtime.run(run_flow, home=args.home, progress=show_progress(args))
    if args.verbose:
        print_ingest_report(report.ingest, verbose=True)
        print_summary(args.home)
    else:
        print_ingest_totals(report.ingest)
    print(f"left out {len(report.pickles_left_out)} bundled pickle(s): "
          "ingest them with 'scorehouse ingest --trust-pickle PATH'")
    failures = print_rankings(report.ranked, verbose=args.verbose, brief=not args.verbose)
    print(f"HTML report of the latest rankings: {report.report}"
          + ("" if args.verbose else " (every leaderboard: scorehouse -v run, or scorehouse rank)"))
    print(f"Leaderboard site of the latest rankings: {report.site}/index.html")
    return 0 if files_ok(report.ingest.files) and not failures else 1


def cmd_site(args: argparse.Namespace) -> int:
    """Write the static leaderboard site of the latest snapshots (of one benchmark, or all) to a folder."""
    current_catalog(args.home)
    from scorehouse.reports.site.build import build_site
    from scorehouse.warehouse.queries import latest_snapshot_ids
    from scorehouse.warehouse.storage import Warehouse

    warehouse = Warehouse(args.home)
    ids = latest_snapshot_ids(warehouse, args.benchmark)
    if not ids:
        which = f"benchmark {args.benchmark!r}" if args.benchmark else "the warehouse"
        raise UsageError(f"scorehouse site: {which} has no ranking snapshots yet; run 'scorehouse rank' first")
    path = build_site(warehouse, ids, args.output)
    print(f"wrote the site of {len(ids)} snapshot(s) to {path}: open {path / 'index.html'}")
    return 0


def json_path_mapping(args: argparse.Namespace, named: dict[str, str]) -> dict[str, str]:
    """The mapping of ``--json-path`` (and ``--system-from-folder``) for format json-path, checked before any file is read."""
    from scorehouse.transforms.parsers.json_path import TemplateError, check_mapping

    if args.json_path is None:
        raise UsageError("scorehouse ingest: --system-from-folder goes with --json-path TEMPLATE")
    if named:
        raise UsageError(f"scorehouse ingest: --json-path reads a JSON document by its keys, not by columns "
                         f"({', '.join(sorted(named))}); leave the column options out")
    if args.format not in (None, "json-path"):
        raise UsageError(f"scorehouse ingest: --json-path reads files as format json-path, not {args.format!r}")
    if args.benchmark is None:
        raise UsageError("scorehouse ingest: a file read with --json-path needs --benchmark")
    mapping = {"json_path": args.json_path, **({"system_from": "folder"} if args.system_from_folder else {})}
    try:
        check_mapping(mapping)
    except TemplateError as error:
        raise UsageError(f"scorehouse ingest: {error.problem}") from None
    return mapping


def voter_selection(args: argparse.Namespace):  # noqa: ANN201 - transforms.rank_plan.VoterSelection
    """The voters ``--only-task`` and ``--only-metric`` select (every voter when neither is given)."""
    from scorehouse.transforms.rank_plan import VoterSelection

    if (args.only_task or args.only_metric) and args.level == "battles":
        raise UsageError("scorehouse rank: --only-task and --only-metric select scores; battles have no tasks")
    return VoterSelection(tuple(args.only_task or ()), tuple(args.only_metric or ()))


def cmd_forget(args: argparse.Namespace) -> int:
    """Retract loads (:mod:`flows.forget`), then re-rank the benchmarks they scored that still have inputs."""
    from scorehouse.flows.forget import ForgetError, forget_loads
    from scorehouse.flows.rank import rank_flow
    from scorehouse.flows.selection import rank_levels
    from scorehouse.warehouse.storage import Warehouse

    if bool(args.load_ids) == (args.benchmark is not None):
        raise UsageError("scorehouse forget: give the load ids to forget, or --benchmark, one of the two")
    check_metric_rules(args.home)
    try:
        forgotten = forget_loads(args.home, args.load_ids, args.benchmark)
    except ForgetError as error:
        raise UsageError(f"scorehouse forget: {error}") from None
    for load in forgotten:
        print(f"forgot load {load.load_id} ({load.file_name}; {', '.join(load.benchmarks)}; {load.rows} row(s)): "
              f"retracted by {load.retraction}; its rows stay in scores_history, ingest the file again to restore it")
    changed = sorted({b for load in forgotten for b in load.benchmarks})
    held = {b for b, _ in rank_levels(Warehouse(args.home), None, None, False)}
    gone = [b for b in changed if b not in held]
    if gone:
        print(f"no current input left for {', '.join(gone)}: not ranked again (its old snapshots stay)")
    remaining = [b for b in changed if b in held]
    return 1 if remaining and print_rankings(runtime.run(rank_flow, home=args.home, benchmarks=remaining),
                                             args.verbose) else 0
