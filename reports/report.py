"""The HTML report of ranking snapshots (``scorehouse export --format html``).

Gathers through :mod:`warehouse` (the snapshots, the current scores of their
benchmarks), computes through :mod:`transforms` and :mod:`aggregators` (the
ballots, the pairwise win probabilities with Hoeffding intervals, Kendall tau
and top-k agreement) and hands plain data to the pure renderer
:mod:`reports.report_html`; :mod:`warehouse.exports` writes the page atomically.

One section per (benchmark, level), in name order; battles snapshots (level
``battles``) have one section per battle selection (filters and both-bad rule),
showing the arena leaderboard of the section's newest ``arena`` snapshot and the
win-rate and battle-count matrices of the selected battles.  Within a section the
methods come in the rank plan's order (``mean`` first, so the leaderboard is
ordered by the reference ranking the arrows compare with), then by name and
parameters: the same set of snapshots gives the same page whatever the order
of the ids.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl

from scorehouse.aggregators import AggregationError, arena_matrices, kendall_tau, pairwise_confidence, top_k_agreement
from scorehouse.reports.leaderboard import REFERENCE_METHOD
from scorehouse.reports.report_html import Agreement, BattleMatrices, MethodColumn, Pairwise, Section, render_report
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.transforms.rank_plan import INSTANCE_DEFAULTS, SPARSE_TASK_DEFAULTS, TASK_DEFAULTS, MethodRun
from scorehouse.warehouse.atomic import write_text
from scorehouse.warehouse.exports import ExportError
from scorehouse.reports.analysis_plots import band_plot, method_colours
from scorehouse.warehouse.battle_filters import BattleSelection
from scorehouse.warehouse.queries import battle_loads, benchmark_scores, latest_analysis_summary, read_battles
from scorehouse.warehouse.schema import ARENA_METHOD, BATTLE_LEVEL, METRICS
from scorehouse.warehouse.partitions import current_fingerprints
from scorehouse.warehouse.snapshots import input_fingerprint, read_arena, read_coverage, read_snapshot
from scorehouse.warehouse.storage import Warehouse

TOP_N = 20  # systems shown in a pairwise heatmap
DELTA = 0.05  # 95% Hoeffding intervals
TOP_K = 3
METHOD_ORDER = tuple(dict.fromkeys((*TASK_DEFAULTS, *SPARSE_TASK_DEFAULTS, *(m for m, _ in INSTANCE_DEFAULTS),
                                    "borda_partial")))


def write_report(
    warehouse: Warehouse,
    snapshot_ids: list[str],
    output: str | Path,
    *,
    top_n: int = TOP_N,
    delta: float = DELTA,
) -> Path:
    """Render the snapshots as one self-contained HTML page at ``output`` (written atomically)."""
    page = render_report(report_sections(warehouse, snapshot_ids, top_n=top_n, delta=delta))
    return write_text(page, Path(output))


def report_page(sections: list[Section], top_n: int = TOP_N) -> str:
    """The report of sections computed for more systems (the site's, every system): the pairwise and battle
    matrices cut to their first ``top_n`` systems, as :func:`report_sections` with ``top_n`` gives them."""
    return render_report([_top_systems(s, top_n) for s in sections])


def _top_systems(section: Section, top_n: int) -> Section:
    pairwise, matrices = section.pairwise, section.matrices
    if pairwise is not None and len(pairwise.systems) > top_n:
        shown = pairwise.systems[:top_n]
        kept = pairwise.table.filter(pl.col("system_a").is_in(shown) & pl.col("system_b").is_in(shown))
        pairwise = Pairwise(shown, kept, pairwise.delta, pairwise.total_systems)
    if matrices is not None and len(matrices.systems) > top_n:
        shown = matrices.systems[:top_n]
        kept = matrices.table.filter(pl.col("system_a").is_in(shown) & pl.col("system_b").is_in(shown))
        matrices = BattleMatrices(shown, kept, matrices.total_systems)
    return replace(section, pairwise=pairwise, matrices=matrices)


def report_sections(
    warehouse: Warehouse, snapshot_ids: list[str], *, top_n: int = TOP_N, delta: float = DELTA
) -> list[Section]:
    """The report's sections, one per (benchmark, level) of the given snapshots."""
    if not snapshot_ids:
        raise ExportError("nothing to report: no snapshot ids given (rank first, or use --latest)")
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 2:
        raise ExportError(f"report: parameter 'top_n' (systems in a heatmap) must be an integer >= 2, got {top_n!r}")
    groups: dict[tuple[str, str, str], list[tuple[dict[str, Any], pl.DataFrame]]] = {}
    for snapshot in dict.fromkeys(snapshot_ids):
        manifest, ranking = read_snapshot(warehouse, snapshot)
        groups.setdefault((manifest["benchmark"], manifest["level"], _selection(manifest)), []).append((manifest, ranking))
    return [
        _battle_section(warehouse, benchmark, selection, sorted(snapshots, key=_method_key), top_n)
        if level == BATTLE_LEVEL
        else _section(warehouse, benchmark, level, sorted(snapshots, key=_method_key), top_n, delta)
        for (benchmark, level, selection), snapshots in sorted(groups.items())
    ]


def _selection(manifest: dict[str, Any]) -> str:
    """The battle selection a battles snapshot recorded (canonical JSON); empty for a scores snapshot."""
    if manifest["level"] != BATTLE_LEVEL:
        return ""
    return json.dumps(json.loads(manifest["parameters"] or "{}").get(BATTLE_LEVEL, {}), sort_keys=True)


def _battle_section(
    warehouse: Warehouse, benchmark: str, selection: str, snapshots: list[tuple[dict[str, Any], pl.DataFrame]],
    top_n: int,
) -> Section:
    """A battles section: the leaderboards, the newest arena leaderboard, and the matrices of the selected battles."""
    columns = _columns(snapshots)
    systems = leaderboard_order(columns)
    chosen = BattleSelection.from_parameters(json.loads(selection))
    notes = [f"battles: {chosen.filters.describe()}; both-bad ties: {chosen.bothbad}"]
    loads = battle_loads(warehouse).get(benchmark, ())
    current = input_fingerprint(list(loads), pl.DataFrame(schema=METRICS))
    stale = [c.label for c in columns if c.manifest["input_fingerprint"] != current]
    if stale:
        notes.append(f"the matrices use the current battles, which differ from the inputs of {', '.join(stale)}; "
                     "run 'scorehouse rank' (and 'scorehouse arena') for snapshots of the current data")
    matrices = None
    if loads:
        battles = read_battles(warehouse, benchmark, **chosen.filters.read_options())
        if battles.height:
            table = arena_matrices(battles, bothbad=chosen.bothbad)
            present = set(table.get_column("system_a").to_list())
            shown = tuple([s for s in systems if s in present][:top_n])
            kept = table.filter(pl.col("system_a").is_in(shown) & pl.col("system_b").is_in(shown))
            matrices = BattleMatrices(shown, kept, len(present))
    newest = newest_arena(columns)
    arena = None if newest is None else read_arena(warehouse, benchmark, newest.manifest["snapshot_id"])
    return Section(benchmark, BATTLE_LEVEL, systems, columns, None, _agreement(columns), tuple(notes),
                   coverage=_coverage(warehouse, benchmark, columns),
                   selection=chosen.filters.describe() + ("; both-bad ties dropped" if chosen.bothbad == "drop" else ""),
                   arena=arena, matrices=matrices)


def newest_arena(columns: tuple[MethodColumn, ...]) -> MethodColumn | None:
    """The newest ``arena`` snapshot of a battles section: the arena leaderboard it shows."""
    arenas = [c for c in columns if c.manifest["method"] == ARENA_METHOD]
    return max(arenas, key=lambda c: c.manifest["created_at"], default=None)


def _method_key(snapshot: tuple[dict[str, Any], pl.DataFrame]) -> tuple[Any, ...]:
    m = snapshot[0]
    position = METHOD_ORDER.index(m["method"]) if m["method"] in METHOD_ORDER else len(METHOD_ORDER)
    return position, m["method"], m["parameters"], m["created_at"], m["snapshot_id"]


def method_label(manifest: dict[str, Any]) -> str:
    """``borda (two-level)``, ``elo [k=16]``: the method as the terminal leaderboard names it
    (:attr:`transforms.rank_plan.MethodRun.label`: parameters only where they differ from the defaults)."""
    return MethodRun.from_parameters(manifest["method"], json.loads(manifest["parameters"] or "{}")).label


def _columns(snapshots: list[tuple[dict[str, Any], pl.DataFrame]]) -> tuple[MethodColumn, ...]:
    labels = [method_label(m) for m, _ in snapshots]
    # Two snapshots of the same method and parameters (an old and a new one) are told apart by id.
    labels = [f"{lab} @{m['snapshot_id'][:8]}" if labels.count(lab) > 1 else lab
              for lab, (m, _) in zip(labels, snapshots)]
    reference = next((i for i, (m, _) in enumerate(snapshots) if m["method"] == REFERENCE_METHOD), None)
    return tuple(
        MethodColumn(label, manifest, ranking, is_reference=i == reference)
        for i, (label, (manifest, ranking)) in enumerate(zip(labels, snapshots))
    )


def leaderboard_order(columns: tuple[MethodColumn, ...]) -> tuple[str, ...]:
    """Systems by the first method's rank; those it did not rank by the next methods' ranks; then by name."""
    ranks = pl.concat([c.ranking.select("system") for c in columns]).unique()
    for i, c in enumerate(columns):
        ranks = ranks.join(c.ranking.select("system", pl.col("rank").alias(f"rank_{i}")), on="system", how="left")
    order = ranks.sort([f"rank_{i}" for i in range(len(columns))] + ["system"], nulls_last=True)
    return tuple(order.get_column("system").to_list())


def _section(
    warehouse: Warehouse,
    benchmark: str,
    level: str,
    snapshots: list[tuple[dict[str, Any], pl.DataFrame]],
    top_n: int,
    delta: float,
) -> Section:
    columns = _columns(snapshots)
    systems = leaderboard_order(columns)
    scores, metrics = benchmark_scores(warehouse, benchmark, level, ranked_only=True)  # what the rank read
    notes = list(_input_notes(columns, current_fingerprints(warehouse, [benchmark]).get((benchmark, level))))
    pairwise = None
    if scores.height:
        try:
            pairwise = _pairwise(make_ballots(scores, metrics, level=level).collect(), systems, top_n, delta)
        except AggregationError as error:
            notes.append(f"pairwise win probabilities not available: {error}")
    else:
        notes.append(f"no current {level}-level scores of {benchmark} in the warehouse: no pairwise win probabilities")
    return Section(benchmark, level, systems, columns, pairwise, _agreement(columns), tuple(notes),
                   _robustness_plots(warehouse, benchmark, level), _coverage(warehouse, benchmark, columns),
                   scores=scores, metrics=metrics)


def _coverage(warehouse: Warehouse, benchmark: str, columns: tuple[MethodColumn, ...]) -> dict[str, int]:
    """Voters per system from the newest of the section's snapshots stored with a coverage."""
    for column in sorted(columns, key=lambda c: c.manifest["created_at"], reverse=True):
        coverage = read_coverage(warehouse, benchmark, column.manifest["snapshot_id"])
        if coverage.height:
            own = coverage.filter(pl.col("system") == pl.col("other"))
            return dict(zip(own.get_column("system").to_list(), own.get_column("n_voters").to_list()))
    return {}


# The stored robustness experiments plotted in a section: experiment, x axis label.
PLOTTED_EXPERIMENTS = (
    ("tasks", "Dropping tasks", "number of tasks kept"),
    ("missing", "Removing scores", "share of scores removed (eta)"),
)


def _robustness_plots(warehouse: Warehouse, benchmark: str, level: str) -> tuple[str, ...]:
    """SVG plots of the newest stored analyses (``scorehouse analyze``) of the benchmark, if any."""
    summaries = [
        (title, x_label, latest_analysis_summary(warehouse, benchmark, level, experiment))
        for experiment, title, x_label in PLOTTED_EXPERIMENTS
    ]
    colours = method_colours([m for _, _, s in summaries for m in s.get_column("method").to_list()])
    return tuple(
        band_plot(summary, x="setting", title=title, x_label=x_label, colours=colours)
        for title, x_label, summary in summaries
        if summary.height
    )


def _input_notes(columns: tuple[MethodColumn, ...], current: str | None) -> list[str]:
    """Say when the methods saw different inputs, or when the current scores are not what they ranked."""
    notes = []
    fingerprints = {c.manifest["input_fingerprint"] for c in columns}
    if len(fingerprints) > 1:
        notes.append("the methods of this section ranked different input data (see the input fingerprints below)")
    if current is not None:
        stale = [c.label for c in columns if c.manifest["input_fingerprint"] != current]
        if stale:
            notes.append(
                "the pairwise win probabilities use the current scores, which differ from the inputs of "
                f"{', '.join(stale)}; run 'scorehouse rank' for snapshots of the current data"
            )
    return notes


def _pairwise(ballots: pl.DataFrame, systems: tuple[str, ...], top_n: int, delta: float) -> Pairwise | None:
    """Probabilities on all the ballots' systems (the imputation depends on them all), shown for the top ``top_n``."""
    if ballots.height == 0:
        return None
    table = pairwise_confidence(ballots, delta)
    present = set(table.get_column("system_a").to_list())
    ordered = [s for s in systems if s in present] + sorted(present - set(systems))
    shown = tuple(ordered[:top_n])
    if len(shown) < 2:
        return None
    kept = table.filter(pl.col("system_a").is_in(shown) & pl.col("system_b").is_in(shown))
    return Pairwise(shown, kept, delta, len(present))


def _compare(a: pl.DataFrame, b: pl.DataFrame, how: str) -> float | None:
    """Kendall tau-b or top-k agreement of two rankings on their common systems; None where undefined."""
    try:
        return kendall_tau(a, b) if how == "tau" else top_k_agreement(a, b, TOP_K)
    except AggregationError:  # fewer common systems than the comparison needs
        return None


def _agreement(columns: tuple[MethodColumn, ...]) -> Agreement | None:
    if len(columns) < 2:
        return None
    rankings = [c.ranking.select("system", "rank") for c in columns]
    systems = [set(r.get_column("system").to_list()) for r in rankings]
    return Agreement(
        labels=tuple(c.label for c in columns),
        kendall_tau=tuple(tuple(_compare(a, b, "tau") for b in rankings) for a in rankings),
        top_k=tuple(tuple(_compare(a, b, "top") for b in rankings) for a in rankings),
        common=tuple(tuple(len(a & b) for b in systems) for a in systems),
        k=TOP_K,
    )
