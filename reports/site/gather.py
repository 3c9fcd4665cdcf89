"""Read what the site shows from the warehouse: one :class:`BenchmarkInput` per (benchmark, level).

The snapshots are the report's (:mod:`reports.report`): the same method
labels, method order and leaderboard order, so the site and the report never
disagree on who leads.  A method's history follows its snapshots'
``previous_snapshot_id`` lineage back, oldest first.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from scorehouse.aggregators import REGISTRY, AggregationError
from scorehouse.aggregators.critical_difference import critical_difference
from scorehouse.reports.report import leaderboard_order, method_label, report_sections
from scorehouse.reports.site.model import BenchmarkInput, MethodInput
from scorehouse.transforms.ballots import ballots as make_ballots
from scorehouse.warehouse.queries import benchmark_systems, snapshot_listing
from scorehouse.warehouse.schema import BATTLE_LEVEL
from scorehouse.warehouse.snapshots import read_snapshot
from scorehouse.warehouse.storage import Warehouse

HISTORY = 12  # snapshots per method kept in a page's history
# The report's pairwise table is cut to its top_n systems; the whiskers need every pair.
EVERY_SYSTEM = 2**31 - 1


def site_inputs(warehouse: Warehouse, snapshot_ids: list[str]) -> list[BenchmarkInput]:
    """One input per section of the report of these snapshots (benchmark, level, battle selection)."""
    sections = report_sections(warehouse, snapshot_ids, top_n=EVERY_SYSTEM)
    return [_benchmark_input(warehouse, section) for section in sections]


def _benchmark_input(warehouse: Warehouse, section: Any) -> BenchmarkInput:  # noqa: ANN401 - report_html.Section
    lineage = snapshot_listing(warehouse, section.benchmark)
    methods = tuple(
        MethodInput(
            id=f"m{i}", label=method_label(c.manifest), summary=_summary(c.manifest["method"]),
            manifest=c.manifest, ranking=c.ranking, history=_history(warehouse, lineage, c.manifest["snapshot_id"]),
        )
        for i, c in enumerate(section.columns)
    )
    systems = leaderboard_order(section.columns)
    if section.level == BATTLE_LEVEL:
        empty = pl.DataFrame(schema={"task": pl.String, "metric": pl.String, "system": pl.String, "score": pl.Float64})
        return BenchmarkInput(section.benchmark, section.level, methods, systems, empty, pl.DataFrame(),
                              section.coverage, benchmark_systems(warehouse, section.benchmark), None,
                              section.arena, section.notes, section.selection)
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
