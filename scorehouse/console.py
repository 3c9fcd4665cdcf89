"""What the commands print: frames as tables, and the reports of the flows.

Nothing here computes or reads the warehouse: every function prints what it is
given.  Polars is imported inside the functions, so importing this module (as
``scorehouse --help`` does) stays cheap.
"""

from __future__ import annotations

import sys
from collections import Counter


OUTPUT_FORMATS = ("table", "csv", "json", "parquet")


def print_frame(frame, max_rows: int = 60) -> None:  # noqa: ANN001 - polars is imported lazily
    import polars as pl

    with pl.Config(tbl_rows=max_rows, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=60,
                   tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        print(frame)
    if frame.height > max_rows:
        print(f"({frame.height} rows, {max_rows} shown; use --format csv --output FILE for all)")


def nested_as_json(frame):  # noqa: ANN001, ANN201 - polars is imported lazily
    """``frame`` with its list, array and struct columns as JSON text: CSV has no nested values."""
    import polars as pl

    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    return frame.with_columns(
        pl.when(pl.col(name).is_not_null())
        .then(pl.struct(pl.col(name).alias("v")).struct.json_encode().str.strip_prefix('{"v":').str.strip_suffix("}"))
        .alias(name)
        for name in nested
    )


def write_table(frame, output_format: str, output) -> None:  # noqa: ANN001 - a polars frame; a path or None
    """Write ``frame`` as csv, json or parquet: to the file ``output`` atomically (through the one export writer,
    so a reader never sees half a file), or to stdout (not parquet)."""
    table = nested_as_json(frame) if output_format == "csv" else frame
    if output is not None:
        from pathlib import Path

        from scorehouse.warehouse.exports import write_export

        write_export(table, output_format, Path(output))
    elif output_format == "csv":
        sys.stdout.write(table.write_csv())
    else:
        sys.stdout.write(table.write_json() + "\n")


def print_ingest_report(report, verbose: bool = False) -> None:  # noqa: ANN001 - flows.ingest.IngestReport
    """One line per file (what happened to it), a total line, and with ``verbose`` the notes of each load."""
    for f in report.files:
        print(file_line(f), file=sys.stderr if f.status == "rejected" else sys.stdout)
    print_ingest_totals(report, name_rejected=False)
    if verbose:
        for f in report.files:
            for problem in f.problems if f.status == "loaded" else ():
                print(f"  note: {f.path}: {problem}")


def print_ingest_totals(report, name_rejected: bool = True) -> None:  # noqa: ANN001 - flows.ingest.IngestReport
    """The total line of an ingest, the quarantine warnings and (``name_rejected``) the rejected files, on stderr."""
    loaded = [f for f in report.files if f.status == "loaded"]
    unchanged = [f for f in report.files if f.status == "unchanged"]
    skipped = [f for f in report.files if f.status == "skipped"]
    print(f"{len(loaded)} file(s) loaded, {len(unchanged)} unchanged, {len(skipped)} skipped (no scores), "
          f"{len(report.rejected_files)} rejected, {report.rows_quarantined} row(s) quarantined")
    if report.skipped_documents:
        print(f"skipped {len(report.skipped_documents)} documentation file(s) (README, PROVENANCE, ...)")
    print_quarantine_reasons(loaded)
    for f in report.rejected_files if name_rejected else ():
        print(file_line(f), file=sys.stderr)
    for notice in report.notices:
        print(notice)


def file_line(f) -> str:  # noqa: ANN001 - flows.ingest.FileOutcome
    """``loaded: PATH (1,499 rows, 4 quarantined)``: one file's outcome in one line."""
    if f.status == "loaded":
        held = f", {f.rows_quarantined:,} quarantined" if f.rows_quarantined else ""
        replaced = f"; replaces {f.replaced}" if f.replaced else ""
        return f"loaded: {f.path} ({f.rows_landed:,} rows{held}){replaced}"
    if f.status in ("skipped", "rejected"):
        return f"{f.status}: {f.error or f.path}"
    return f"{f.status}: {f.path}"


def print_quarantine_reasons(outcomes) -> None:  # noqa: ANN001 - flows.ingest.FileOutcome list
    """The rows these files had quarantined, per reason class, as warnings on stderr."""
    counts = Counter()
    for outcome in outcomes:
        counts.update(outcome.quarantine_reasons)
    for reason, rows in counts.most_common():
        print(f"warning: quarantined {rows:,} row(s): {reason}", file=sys.stderr)
    # Battles have their own quarantine view (their rows have other columns than scores).
    views = {"battles_quarantine" if o.format == "battles" else "quarantine" for o in outcomes if o.quarantine_reasons}
    for view in sorted(views, reverse=True):
        print(f'warning: quarantined rows stay queryable: scorehouse sql "SELECT * FROM {view}"', file=sys.stderr)


def print_rankings(outcomes, verbose: bool = False, brief: bool = False) -> int:  # noqa: ANN001 - BenchmarkOutcome list
    """Print each benchmark's leaderboard (``brief``: one line each); return how many methods failed.

    Notes of the methods (what was left out, Kemeny's proof) are printed with ``verbose``.
    """
    from scorehouse.reports.leaderboard import side_by_side, sorted_by

    failures = 0
    for outcome in outcomes:
        if outcome.error:
            failures += 1
            print(f"{outcome.benchmark} ({outcome.level} level): not ranked: {outcome.error}", file=sys.stderr)
            continue
        done = [(m.run, m.ranking) for m in outcome.methods if m.ranking is not None]
        new = sum(m.new for m in outcome.methods)
        head = f"{outcome.benchmark} ({outcome.level} level): {len(done)} method(s), {new} new snapshot(s)"
        if brief:
            first = done[0][1].sort("rank", "system").row(0, named=True)["system"] if done else "-"
            print(f"{head}; first by {done[0][0].label if done else '-'}: {first}")
        else:
            print(f"\n== {head}")
            if outcome.defaults:
                print(f"default methods for {outcome.defaults}: {', '.join(m.run.label for m in outcome.methods)}")
            print_frame(side_by_side(done), max_rows=30)
            print(sorted_by(done))
        if not brief:
            print_notes(outcome.methods)
        for m in outcome.methods:
            if m.skipped and (verbose or not done):  # nothing ranked: say why without -v
                print(f"  {m.run.label}: skipped: {m.skipped}")
            if m.error:
                failures += 1
                print(f"  {outcome.benchmark}: {m.run.label}: not ranked: {m.error}", file=sys.stderr)
    return failures


def print_notes(methods) -> None:  # noqa: ANN001 - flows.rank.MethodOutcome list
    """Each note of the methods once, with the methods it concerns (what was left out is often the same for all)."""
    said: dict[str, list[str]] = {}
    for m in methods:
        for note in m.notes:
            said.setdefault(note, []).append(m.run.label)
    for note, labels in said.items():
        print(f"  {', '.join(labels)}: {note}")


def rankings_frame(outcomes):  # noqa: ANN001, ANN201 - flows.rank.BenchmarkOutcome list -> a polars frame
    """Every ranking of ``outcomes`` in one long table (benchmark, level, method, snapshot_id, system, rank, score)."""
    import polars as pl

    parts = [
        m.ranking.select(pl.lit(o.benchmark).alias("benchmark"), pl.lit(o.level).alias("level"),
                         pl.lit(m.run.label).alias("method"), pl.lit(m.snapshot_id).alias("snapshot_id"),
                         "system", "rank", "score")
        for o in outcomes for m in o.methods if m.ranking is not None
    ]
    schema = {"benchmark": pl.String, "level": pl.String, "method": pl.String, "snapshot_id": pl.String,
              "system": pl.String, "rank": pl.Int64, "score": pl.Float64}
    return pl.concat(parts, how="vertical_relaxed") if parts else pl.DataFrame(schema=schema)


def print_arena(outcome, max_rows: int) -> int:  # noqa: ANN001 - flows.arena.ArenaOutcome
    """Print an arena leaderboard and its snapshot; return the exit code (1 when there is none)."""
    import polars as pl

    if outcome.error:
        print(f"scorehouse arena: {outcome.benchmark}: not ranked: {outcome.error}", file=sys.stderr)
        return 1
    state = "new" if outcome.new else "unchanged"
    print(f"== {outcome.benchmark} arena leaderboard (snapshot {outcome.snapshot_id}, {state}): {outcome.parameters}")
    board = outcome.leaderboard.with_columns(pl.col("rating", "lower", "upper").round(1), pl.col("win_rate").round(3))
    print_frame(board.select("rank", "rank_ub", "system", pl.col("rating").alias("bt_rating"), "lower", "upper",
                             "n_battles", "win_rate"), max_rows=max_rows)
    print("bt_rating: Bradley-Terry strength on the Elo scale (400 log10 odds; not online Elo, which is "
          "rank --method elo), with its 95% bootstrap interval")
    return 0


def print_refresh(report) -> None:  # noqa: ANN001 - flows.refresh.RefreshReport
    for outcome, moved in zip(report.files, report.moved, strict=True):
        detail = outcome.error or f"{outcome.rows_landed} rows landed, {outcome.rows_quarantined} quarantined"
        print(f"{outcome.status}: {outcome.path} -> {moved} ({detail})")
    for outcome in report.reparsed:
        print(f"re-parsed, {outcome.status}: {outcome.path} ({outcome.error or outcome.load_id})")
    print_quarantine_reasons(report.files + report.reparsed)
    for notice in report.notices:
        print(notice)


def print_diff(before_meta: dict, after_meta: dict, diff, show_all: bool, max_rows: int) -> None:  # noqa: ANN001
    """One snapshot diff (:class:`aggregators.ranking_diff` result): the header, the summary, the moved systems."""
    import polars as pl

    print(f"\n{before_meta['snapshot_id']} -> {after_meta['snapshot_id']}: {after_meta['benchmark']} "
          f"({after_meta['level']}), {before_meta['method']} {before_meta['parameters']} -> "
          f"{after_meta['method']} {after_meta['parameters']}")
    tau = "n/a" if diff.kendall_tau is None else f"{diff.kendall_tau:.4f}"
    top = "n/a" if diff.top_k_agreement is None else f"{diff.top_k_agreement:.2f}"
    print(f"Kendall tau {tau}; top-{diff.top_k} agreement {top}")
    print(f"entered: {', '.join(diff.entered) or 'none'}; left: {', '.join(diff.left) or 'none'}")
    print_frame(diff.changes if show_all else diff.changes.filter(pl.col("change") != 0), max_rows=max_rows)


def analyses_frame(outcomes):  # noqa: ANN001, ANN201 - flows.analyze.AnalysisOutcome list -> a polars frame
    """The summary (or, for agreement, the disagreeing pairs) of every experiment, in one long table."""
    import polars as pl

    parts = [
        o.tables["summary" if "summary" in o.tables else "pairs"].select(
            pl.lit(o.experiment).alias("experiment"), pl.lit(o.analysis_id).alias("analysis_id"), pl.all())
        for o in outcomes if o.tables
    ]
    return pl.concat(parts, how="diagonal_relaxed") if parts else pl.DataFrame()


def print_analyses(benchmark: str, outcomes) -> None:  # noqa: ANN001 - flows.analyze.AnalysisOutcome list
    import polars as pl

    for outcome in outcomes:
        state = "new" if outcome.new else "unchanged"
        print(f"\n== {benchmark}: {outcome.experiment} (analysis {outcome.analysis_id or '-'}, {state})")
        for note in outcome.notes:
            print(f"  note: {note}")
        if "pairs" in outcome.tables:
            print_frame(outcome.tables["pairs"])
            print_frame(outcome.tables["moves"].select("method_a", "method_b", "system", "explanation"), max_rows=30)
        elif "summary" in outcome.tables:
            summary = outcome.tables["summary"]
            if outcome.experiment == "scaling":  # the worst task per factor: which methods move at all
                summary = summary.group_by("method", "setting").agg(pl.col("tau_mean").min().alias("worst_tau"))
                print_frame(summary.pivot("method", index="setting", values="worst_tau").sort("setting"))
            else:
                wide = summary.pivot("method", index=["condition", "setting"], values="tau_mean")
                print_frame(wide.sort("condition", "setting"))
