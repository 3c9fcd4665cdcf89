"""Read what the site shows from the warehouse: one :class:`BenchmarkInput` per (benchmark, level).

The snapshots are the report's (:mod:`reports.report`): the same method
labels, method order and leaderboard order, so the site and the report never
disagree on who leads.  A method's history follows its snapshots'
``previous_snapshot_id`` lineage back, oldest first.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import polars as pl

from scorehouse.aggregators import REGISTRY, AggregationError, arena_leaderboard
from scorehouse.aggregators.critical_difference import critical_difference
from scorehouse.reports.report import leaderboard_order, method_label, newest_arena, report_sections
from scorehouse.reports.site.model import ArenaSelection, BenchmarkInput, MethodInput
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.warehouse.battle_filters import VALUE_FILTERS, BattleSelection
from scorehouse.warehouse.queries import benchmark_systems, read_battles, snapshot_listing
from scorehouse.warehouse.schema import ARENA_METHOD, BATTLE_LEVEL
from scorehouse.warehouse.snapshots import read_arena, read_intervals, read_snapshot
from scorehouse.warehouse.storage import Warehouse

HISTORY = 12  # snapshots per method kept in a page's history
# The report's pairwise table is cut to its top_n systems; the whiskers need every pair.
EVERY_SYSTEM = 2**31 - 1
# Values of one arena filter (judge, category, language) rated for the page, those with the most battles first.
ARENA_FILTER_VALUES = 20


def site_sections(warehouse: Warehouse, snapshot_ids: list[str]) -> list[Any]:
    """The report's sections of these snapshots with every system's pairs (the whiskers need them all);
    :func:`reports.report.report_page` renders the report from the same sections."""
    return report_sections(warehouse, snapshot_ids, top_n=EVERY_SYSTEM)


def site_inputs(warehouse: Warehouse, sections: list[Any]) -> list[BenchmarkInput]:
    """One input per section of the report (benchmark, level, battle selection)."""
    return [_benchmark_input(warehouse, section) for section in sections]


def _benchmark_input(warehouse: Warehouse, section: Any) -> BenchmarkInput:  # noqa: ANN401 - report_html.Section
    lineage = snapshot_listing(warehouse, section.benchmark)
    methods = tuple(
        MethodInput(
            id=f"m{i}", label=method_label(c.manifest), summary=_summary(c.manifest["method"]),
            manifest=c.manifest, ranking=c.ranking, history=_history(warehouse, lineage, c.manifest["snapshot_id"]),
            arena=read_arena(warehouse, section.benchmark, c.manifest["snapshot_id"])
            if c.manifest["method"] == ARENA_METHOD else None,
            intervals=read_intervals(warehouse, section.benchmark, c.manifest["snapshot_id"]),
        )
        for i, c in enumerate(section.columns)
    )
    systems = leaderboard_order(section.columns)
    if section.level == BATTLE_LEVEL:
        empty = pl.DataFrame(schema={"task": pl.String, "metric": pl.String, "system": pl.String, "score": pl.Float64})
        selections, notes = _arena_selections(warehouse, section)
        return BenchmarkInput(section.benchmark, section.level, methods, systems, empty, pl.DataFrame(),
                              section.coverage, benchmark_systems(warehouse, section.benchmark), None,
                              section.arena, (*section.notes, *notes), section.selection, arena_selections=selections)
    scores, metrics = section.scores, section.metrics
    task_scores = scores.group_by("task", "metric", "system").agg(pl.col("score").mean())
    pairwise = None if section.pairwise is None else section.pairwise.table
    notes, critical = list(section.notes), None
    if scores.height:
        try:
            critical = critical_difference(make_ballots(scores, metrics, level=section.level).collect())
        except AggregationError as error:
            notes.append(f"no critical-difference diagram: {error}")
    return BenchmarkInput(section.benchmark, section.level, methods, systems, task_scores, metrics,
                          section.coverage, benchmark_systems(warehouse, section.benchmark), pairwise, None,
                          tuple(notes), critical=critical)


def _arena_selections(warehouse: Warehouse, section: Any) -> tuple[tuple[ArenaSelection, ...], list[str]]:  # noqa: ANN401
    """The arena leaderboard of each value of each battle column (judge, category, language) within the page's battles.

    Rated as ``scorehouse arena --<column> <value>`` would, with the parameters of the page's arena
    snapshot (anchor, resamples, seed, level, both-bad rule), so the page's filters show exactly
    what that command stores.  Columns the page's selection already fixes, or with one value, get
    no filter; a column with more than :data:`ARENA_FILTER_VALUES` values keeps those with the most
    battles and the page says so.
    """
    newest = newest_arena(section.columns)
    if newest is None:
        return (), []
    parameters = json.loads(newest.manifest["parameters"])
    chosen = BattleSelection.from_parameters(parameters.get(BATTLE_LEVEL, {}))
    battles = read_battles(warehouse, section.benchmark, **chosen.filters.read_options())
    selections, notes = [], []
    for column in VALUE_FILTERS:
        if getattr(chosen.filters, column):
            continue
        counts = battles.group_by(column).len().drop_nulls().sort(["len", column], descending=[True, False])
        if counts.height < 2:
            continue
        if counts.height > ARENA_FILTER_VALUES:
            notes.append(f"arena filter {column}: the {ARENA_FILTER_VALUES} values with the most battles of "
                         f"{counts.height}; rate another with 'scorehouse arena --benchmark {section.benchmark} "
                         f"--{column} VALUE'")
        for value, n_battles in counts.head(ARENA_FILTER_VALUES).iter_rows():
            kept = read_battles(warehouse, section.benchmark,
                                **replace(chosen.filters, **{column: (value,)}).read_options())
            try:
                board = arena_leaderboard(kept, anchor=parameters["anchor"], n_resamples=parameters["n_resamples"],
                                          seed=parameters["seed"], bothbad=chosen.bothbad, level=parameters["level"])
            except AggregationError as error:
                selections.append(ArenaSelection(column, value, n_battles, None, str(error)))
                continue
            selections.append(ArenaSelection(column, value, n_battles, board.table))
    return tuple(selections), notes


def _summary(method: str) -> str:
    return REGISTRY[method].summary if method in REGISTRY else ""


def _history(warehouse: Warehouse, lineage: pl.DataFrame, snapshot: str) -> tuple[tuple[str, str, pl.DataFrame], ...]:
    """The snapshots this one superseded, following ``previous_snapshot_id``, oldest first (at most HISTORY)."""
    previous = dict(zip(lineage.get_column("snapshot_id").to_list(), lineage.get_column("previous_snapshot_id").to_list()))
    chain, current = [], previous.get(snapshot)
    while current is not None and len(chain) < HISTORY - 1:
        chain.append(current)
        current = previous.get(current)
    out = []
    for sid in reversed(chain):
        manifest, ranking = read_snapshot(warehouse, sid)
        out.append((sid, str(manifest["created_at"])[:19], ranking))
    return tuple(out)
