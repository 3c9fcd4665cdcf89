"""The ``scorehouse`` command line.

Prefect and DuckDB are imported inside the commands that need them: importing
Prefect alone costs about two seconds, which ``scorehouse --help`` should not pay.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_DATA = REPO_ROOT / "data" / "bundled"

SUMMARY_SQL = """
SELECT benchmark, level,
       count(DISTINCT system) AS systems,
       count(DISTINCT task) AS tasks,
       count(DISTINCT metric) AS metrics,
       count(DISTINCT instance) AS instances,
       count(*) AS scores,
       count(*) FILTER (WHERE score IS NULL) AS missing
FROM scores GROUP BY ALL ORDER BY ALL
"""


def _quiet_prefect() -> None:
    """Prefect without a server, analytics or chatter, unless the user configured otherwise."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    # The temporary in-process server logs its own shutdown races (events it could
    # not flush as the process exits) as errors: they concern Prefect's run
    # history, never our data, so they are not shown unless asked for.
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "CRITICAL")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")


def _print_frame(frame, max_rows: int = 60) -> None:  # noqa: ANN001 - polars is imported lazily
    import polars as pl

    with pl.Config(tbl_rows=max_rows, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=60,
                   tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        print(frame)
    if frame.height > max_rows:
        print(f"({frame.height} rows, {max_rows} shown; use --format csv --output FILE for all)")


def print_ingest_report(report) -> None:  # noqa: ANN001
    loaded = [f for f in report.files if f.status == "loaded"]
    unchanged = [f for f in report.files if f.status == "unchanged"]
    skipped = [f for f in report.files if f.status == "skipped"]
    print(f"{len(loaded)} file(s) loaded, {len(unchanged)} unchanged, {len(skipped)} skipped (no scores), "
          f"{len(report.rejected_files)} rejected, {report.rows_quarantined} row(s) quarantined")
    if report.skipped_documents:
        print(f"skipped {len(report.skipped_documents)} documentation file(s) (README, PROVENANCE, ...)")
    for f in loaded:
        for problem in f.problems:
            print(f"  note: {f.path}: {problem}")
        if f.rows_quarantined:
            print(f"  quarantined: {f.path}: {f.rows_quarantined} of {f.rows_in} rows "
                  f"(see: scorehouse sql \"SELECT * FROM quarantine\")")
    for f in skipped:
        print(f"  skipped: {f.error}")
    for f in report.rejected_files:
        print(f"  rejected: {f.error}", file=sys.stderr)
    for notice in report.notices:
        print(notice)


def print_summary(home: str | None) -> None:
    from warehouse.catalog import connect, query_frame
    from warehouse.storage import Warehouse

    with connect(Warehouse(home)) as con:
        _print_frame(query_frame(con, SUMMARY_SQL))


def _with_runner(flow, args: argparse.Namespace):  # noqa: ANN001, ANN202
    """``flow`` with the task runner of ``--runner``/``--workers``/``--address``, and whether it is parallel."""
    from flows.runners import RunnerError, runner_options

    try:
        options = runner_options(args.runner, args.workers, args.address)
    except RunnerError as error:
        raise SystemExit(f"scorehouse {args.command}: {error}") from None
    return (flow.with_options(**options) if options else flow), bool(options)


REPARSE_HELP = "re-derive, from the raw archive, the loads an older parser version of their format made"


def cmd_ingest(args: argparse.Namespace) -> int:
    _quiet_prefect()
    from flows.ingest import ingest_flow

    if not args.paths and not args.reparse:
        raise SystemExit("scorehouse ingest: give the files or folders to ingest, or --reparse")
    flow, parallel = _with_runner(ingest_flow, args)
    report = flow(
        [str(p) for p in args.paths], home=args.home, format=args.format, benchmark=args.benchmark,
        trust_pickle=args.trust_pickle, progress=sys.stderr.isatty() and not parallel, parallel=parallel,
        reparse=args.reparse,
    )
    print_ingest_report(report)
    print_summary(args.home)
    return 0 if report.ok else 1


def cmd_sql(args: argparse.Namespace) -> int:
    from warehouse.catalog import connect, query_frame
    from warehouse.storage import Warehouse

    if args.format != "table" and args.output is None and args.format == "parquet":
        print("scorehouse sql: --format parquet needs --output FILE", file=sys.stderr)
        return 2
    with connect(Warehouse(args.home)) as con:
        frame = query_frame(con, args.query)
    if args.format == "table":
        _print_frame(frame, max_rows=args.max_rows)
    elif args.format == "csv":
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


def print_rankings(outcomes) -> int:  # noqa: ANN001
    """Print each benchmark's leaderboard; return how many methods failed."""
    from flows.leaderboard import side_by_side

    failures = 0
    for outcome in outcomes:
        done = [(m.run, m.ranking) for m in outcome.methods if m.ranking is not None]
        new = sum(m.new for m in outcome.methods)
        print(f"\n== {outcome.benchmark} ({outcome.level} level): {len(done)} method(s), {new} new snapshot(s)")
        _print_frame(side_by_side(done), max_rows=30)
        for m in outcome.methods:
            for note in m.notes:
                print(f"  {m.run.label}: {note}")
            if m.skipped:
                print(f"  {m.run.label}: skipped: {m.skipped}")
            if m.error:
                failures += 1
                print(f"  {m.run.label}: not ranked: {m.error}", file=sys.stderr)
    return failures


def _method_runs(args: argparse.Namespace):  # noqa: ANN202
    from transforms.rank_plan import MethodRun, parse_parameters

    params = parse_parameters(args.param or [])
    if not args.method:
        if params:
            raise SystemExit("scorehouse rank: --param needs the --method it applies to")
        return None
    unknown = sorted(set(params) - set(args.method))
    if unknown:
        raise SystemExit(f"scorehouse rank: --param names method(s) {unknown} that are not among --method")
    return [MethodRun(m, params.get(m, {}), two_step=args.two_step) for m in args.method]


def cmd_rank(args: argparse.Namespace) -> int:
    _quiet_prefect()
    from flows.rank import rank_flow

    runs = _method_runs(args)
    flow, parallel = _with_runner(rank_flow, args)
    outcomes = flow(home=args.home, benchmarks=args.benchmark, level=args.level, runs=runs, parallel=parallel)
    return 1 if print_rankings(outcomes) else 0


def cmd_snapshots(args: argparse.Namespace) -> int:
    from warehouse.catalog import connect, query_frame
    from warehouse.storage import Warehouse

    where = "WHERE benchmark = ?" if args.benchmark else ""
    with connect(Warehouse(args.home)) as con:
        frame = query_frame(
            con,
            f"""SELECT snapshot_id, created_at, benchmark, level, method, parameters, n_systems, n_voters,
                       previous_snapshot_id
                FROM snapshots {where} ORDER BY benchmark, level, method, created_at""",
            [args.benchmark] if args.benchmark else None,
        )
    _print_frame(frame, max_rows=args.max_rows)
    return 0


def cmd_refresh(args: argparse.Namespace) -> int:
    _quiet_prefect()
    from flows.refresh import refresh_flow

    report = refresh_flow(inbox=str(args.inbox), home=args.home, reparse=args.reparse)
    if report.nothing_new:
        print(f"nothing new in {args.inbox}")
        return 0
    for outcome, moved in zip(report.files, report.moved, strict=True):
        detail = outcome.error or f"{outcome.rows_landed} rows landed, {outcome.rows_quarantined} quarantined"
        print(f"{outcome.status}: {outcome.path} -> {moved} ({detail})")
    for outcome in report.reparsed:
        print(f"re-parsed, {outcome.status}: {outcome.path} ({outcome.error or outcome.load_id})")
    for notice in report.notices:
        print(notice)
    failures = print_rankings(report.ranked)
    rejected = any(f.status == "rejected" for f in report.files + report.reparsed)
    return 1 if rejected or failures else 0


def cmd_serve(args: argparse.Namespace) -> int:
    _quiet_prefect()
    from flows.prefect_server import prefect_api

    with prefect_api():
        from flows.refresh import serve_refresh

        serve_refresh(str(args.inbox), args.home, args.cron, args.interval)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    import polars as pl

    from aggregators.ranking_diff import diff_rankings
    from warehouse.snapshots import read_snapshot
    from warehouse.storage import Warehouse

    warehouse = Warehouse(args.home)
    if args.previous and not args.latest:
        raise SystemExit("scorehouse diff: --previous goes with --latest")
    if args.latest:
        from warehouse.queries import latest_snapshot_ids

        pairs = []
        for snapshot in latest_snapshot_ids(warehouse, args.benchmark):
            manifest, _ = read_snapshot(warehouse, snapshot)
            if (args.method is None or manifest["method"] == args.method) and manifest["previous_snapshot_id"]:
                pairs.append((manifest["previous_snapshot_id"], snapshot))
        if not pairs:
            print("no snapshot has a previous one to compare with")
            return 0
    elif len(args.ids) == 2:
        pairs = [tuple(args.ids)]
    else:
        raise SystemExit("scorehouse diff: give two snapshot ids, or --latest (with --benchmark/--method)")
    for before_id, after_id in pairs:
        before_meta, before = read_snapshot(warehouse, before_id)
        after_meta, after = read_snapshot(warehouse, after_id)
        diff = diff_rankings(before, after, top_k=args.top_k)
        print(f"\n{before_id} -> {after_id}: {after_meta['benchmark']} ({after_meta['level']}), "
              f"{before_meta['method']} {before_meta['parameters']} -> {after_meta['method']} {after_meta['parameters']}")
        tau = "n/a" if diff.kendall_tau is None else f"{diff.kendall_tau:.4f}"
        top = "n/a" if diff.top_k_agreement is None else f"{diff.top_k_agreement:.2f}"
        print(f"Kendall tau {tau}; top-{diff.top_k} agreement {top}")
        print(f"entered: {', '.join(diff.entered) or 'none'}; left: {', '.join(diff.left) or 'none'}")
        moved = diff.changes if args.all else diff.changes.filter(pl.col("change") != 0)
        _print_frame(moved, max_rows=args.max_rows)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from warehouse.storage import Warehouse

    warehouse = Warehouse(args.home)
    if args.latest:
        from warehouse.queries import latest_snapshot_ids

        ids = latest_snapshot_ids(warehouse, args.benchmark)
    else:
        ids = args.snapshot or []
    if args.format == "html":
        from flows.report import write_report

        path = write_report(warehouse, ids, args.output)
    else:
        from warehouse.exports import export_table, write_export

        path = write_export(export_table(warehouse, ids), args.format, args.output)
    print(f"wrote {len(ids)} snapshot(s) to {path}")
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    from flows.synth import write_synthetic
    from transforms.synth import SynthSpec, instances_for

    instances = args.instances
    if args.scores is not None:
        instances = instances_for(args.scores, benchmarks=args.benchmarks, tasks=args.tasks,
                                  metrics=args.metrics, systems=args.systems)
    spec = SynthSpec(
        benchmarks=args.benchmarks, tasks=args.tasks, metrics=args.metrics, instances=instances,
        systems=args.systems, phi=args.phi, corrupted_fraction=args.corrupted, rescale=args.rescale,
        missing_fraction=args.missing, seed=args.seed,
    )
    summary = write_synthetic(spec, args.output, tuple(args.format or ("csv", "parquet")))
    print(f"wrote {summary['n_scores']} scores ({spec.benchmarks} benchmark(s) x {spec.tasks} tasks x "
          f"{spec.metrics} metrics x {spec.instances} instances x up to {spec.systems} systems) to {args.output}")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    _quiet_prefect()
    import polars as pl

    from flows.analyze import EXPERIMENTS, analyze_flow

    experiments = list(EXPERIMENTS) if args.experiment == "all" else [args.experiment]
    outcomes = analyze_flow(
        args.benchmark, home=args.home, experiments=experiments, methods=args.methods,
        repetitions=args.repetitions, seed=args.seed,
    )
    for outcome in outcomes:
        state = "new" if outcome.new else "unchanged"
        print(f"\n== {args.benchmark}: {outcome.experiment} (analysis {outcome.analysis_id or '-'}, {state})")
        for note in outcome.notes:
            print(f"  note: {note}")
        if "pairs" in outcome.tables:
            _print_frame(outcome.tables["pairs"])
            _print_frame(outcome.tables["moves"].select("method_a", "method_b", "system", "explanation"), max_rows=30)
        elif "summary" in outcome.tables:
            summary = outcome.tables["summary"]
            if outcome.experiment == "scaling":  # the worst task per factor: which methods move at all
                summary = summary.group_by("method", "setting").agg(pl.col("tau_mean").min().alias("worst_tau"))
                _print_frame(summary.pivot("method", index="setting", values="worst_tau").sort("setting"))
            else:
                wide = summary.pivot("method", index=["condition", "setting"], values="tau_mean")
                _print_frame(wide.sort("condition", "setting"))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """The main job: ingest the bundled real dumps, rank every benchmark, print the leaderboards."""
    _quiet_prefect()
    from flows.ingest import ingest_flow
    from flows.rank import rank_flow

    from flows.ingest import expand_paths

    files, _ = expand_paths([BUNDLED_DATA])
    # The bundled pickles are test fixtures of the --trust-pickle path; the main job leaves them out.
    pickles = [f for f in files if f.suffix == ".pickle"]
    report = ingest_flow(
        [str(f) for f in files if f not in pickles], home=args.home, trust_pickle=False, progress=sys.stderr.isatty()
    )
    print_ingest_report(report)
    print(f"left out {len(pickles)} bundled pickle(s): ingest them with 'scorehouse ingest --trust-pickle PATH'")
    print_summary(args.home)
    failures = print_rankings(rank_flow(home=args.home))
    from flows.report import write_report
    from warehouse.queries import latest_snapshot_ids
    from warehouse.storage import Warehouse

    warehouse = Warehouse(args.home)
    path = write_report(warehouse, latest_snapshot_ids(warehouse), warehouse.home / "report.html")
    print(f"\nHTML report of the latest rankings: {path}")
    return 0 if not report.rejected_files and not failures else 1


def add_runner_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runner", choices=("local", "dask"), default="local",
                        help="run the per-file / per-partition tasks in process (default) or on Dask")
    parser.add_argument("--workers", type=int, help="with --runner dask: worker processes of a local cluster (default 2)")
    parser.add_argument("--address", help="with --runner dask: an existing cluster's scheduler, e.g. tcp://host:8786")


def build_parser() -> argparse.ArgumentParser:
    from warehouse.schema import LEVELS

    parser = argparse.ArgumentParser(prog="scorehouse", description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="warehouse folder (default: $SCOREHOUSE_HOME or ./scorehouse-data)")
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser("ingest", help="ingest score dumps (files or folders) into the warehouse")
    ingest.add_argument("paths", nargs="*", type=Path)
    ingest.add_argument("--format", help="force a format instead of detecting it")
    ingest.add_argument("--benchmark", help="benchmark name instead of the one the parser derives")
    ingest.add_argument("--trust-pickle", action="store_true", help="allow pickles (unpickling runs code)")
    ingest.add_argument("--reparse", action="store_true", help=REPARSE_HELP)
    add_runner_options(ingest)
    ingest.set_defaults(handler=cmd_ingest)

    sql = sub.add_parser("sql", help="run a SQL query on the catalog (read-only)")
    sql.add_argument("query")
    sql.add_argument("--format", choices=("table", "csv", "json", "parquet"), default="table")
    sql.add_argument("--output", type=Path, help="write the result to this file")
    sql.add_argument("--max-rows", type=int, default=60, help="rows shown in table format")
    sql.set_defaults(handler=cmd_sql)

    rank = sub.add_parser("rank", help="rank benchmarks and store the results as snapshots")
    rank.add_argument("--benchmark", action="append", help="benchmark to rank (repeatable; default: all)")
    rank.add_argument("--level", choices=LEVELS, help="default: each benchmark's natural level")
    rank.add_argument("--method", action="append", help="registry method name (repeatable; default: a documented set)")
    rank.add_argument("--param", action="append", metavar="METHOD.KEY=VALUE", help="a method parameter (repeatable)")
    rank.add_argument("--two-step", action="store_true", help="run the --method(s) two-step (within groups, then across)")
    add_runner_options(rank)
    rank.set_defaults(handler=cmd_rank)

    snapshots = sub.add_parser("snapshots", help="list ranking snapshots")
    snapshots.add_argument("--benchmark")
    snapshots.add_argument("--max-rows", type=int, default=100)
    snapshots.set_defaults(handler=cmd_snapshots)

    refresh = sub.add_parser("refresh", help="ingest new files of an inbox once and re-rank what changed")
    refresh.add_argument("--inbox", type=Path, required=True)
    refresh.add_argument("--reparse", action="store_true", help=REPARSE_HELP)
    refresh.set_defaults(handler=cmd_refresh)

    serve = sub.add_parser("serve", help="serve the refresh flow on a schedule (a Prefect deployment)")
    serve.add_argument("--inbox", type=Path, required=True)
    when = serve.add_mutually_exclusive_group(required=True)
    when.add_argument("--cron", help='a cron schedule, e.g. "*/15 * * * *"')
    when.add_argument("--interval", type=int, help="seconds between runs")
    serve.set_defaults(handler=cmd_serve)

    diff = sub.add_parser("diff", help="what changed between two ranking snapshots")
    diff.add_argument("ids", nargs="*", help="two snapshot ids: before and after")
    diff.add_argument("--latest", action="store_true", help="compare each latest snapshot with its previous one")
    diff.add_argument("--previous", action="store_true", help="with --latest: against the previous snapshot (the default)")
    diff.add_argument("--benchmark")
    diff.add_argument("--method")
    diff.add_argument("--top-k", type=int, default=3)
    diff.add_argument("--all", action="store_true", help="list unmoved systems too")
    diff.add_argument("--max-rows", type=int, default=60)
    diff.set_defaults(handler=cmd_diff)

    export = sub.add_parser("export", help="export ranking snapshots (csv, parquet, json or an html report)")
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument("--snapshot", action="append", help="snapshot id (repeatable)")
    which.add_argument("--latest", action="store_true", help="the latest snapshot of every method")
    export.add_argument("--benchmark", help="with --latest: only this benchmark")
    export.add_argument("--format", choices=("csv", "parquet", "json", "html"), required=True)
    export.add_argument("--output", type=Path, required=True)
    export.set_defaults(handler=cmd_export)

    synth = sub.add_parser("synth", help="write synthetic instance-level dumps with a known true ranking")
    synth.add_argument("--output", type=Path, required=True, help="folder to write csv/, parquet/ and spec.json into")
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
    synth.add_argument("--format", action="append", choices=("csv", "parquet"), help="default: both")
    synth.set_defaults(handler=cmd_synth)

    analyze = sub.add_parser("analyze", help="robustness experiments and method disagreement on one benchmark")
    analyze.add_argument("--benchmark", required=True, help="a benchmark in the warehouse, or 'synthetic'")
    analyze.add_argument("--experiment", choices=("agreement", "tasks", "missing", "scaling", "all"), default="all")
    analyze.add_argument("--methods", nargs="+", help="registry method names (default: a documented set of six)")
    analyze.add_argument("--repetitions", type=int, default=100)
    analyze.add_argument("--seed", type=int, default=0)
    analyze.set_defaults(handler=cmd_analyze)

    run = sub.add_parser("run", help="the main job: ingest the bundled dumps, rank them, print the leaderboards")
    run.set_defaults(handler=cmd_run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from warehouse.catalog import WarehouseMissingError

    try:
        return args.handler(args)
    except (WarehouseMissingError, FileNotFoundError) as error:
        print(f"scorehouse: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
