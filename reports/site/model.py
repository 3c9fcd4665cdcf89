"""What one benchmark page of the site shows, as plain JSON-ready data (pure: polars in, dicts out).

The browser gets columns, not rows: ``systems`` is the list of names, and every
per-system array (a method's ranks, a task's scores, a metadata field) is in
that order, so a sort or a filter moves integer indices and never copies rows.
Scores stay as published (the site shows numbers ``sql`` returns); the
orientation of each task column travels with it.

Intervals: the whisker of a system under a method is that method's own 95%
rank interval where its snapshot stores one (the bootstrap ``rank`` stored,
:mod:`transforms.snapshot_intervals`, or an arena snapshot's rating
intervals); otherwise the range of ranks the pairwise data cannot exclude at
95% (Hoeffding intervals of Himmi et al. 2023, the report's heatmap): from one
plus the systems that beat it with an interval above 1/2, to the number of
systems minus those it beats so, with the reason the method has none.  Under a
method, consecutive systems whose pairwise interval contains 1/2 are
"statistically tied" and share a group.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from scorehouse.aggregators import AggregationError, kendall_tau
from scorehouse.aggregators.arena import statistical_rank
from scorehouse.aggregators.critical_difference import CriticalDifference
from scorehouse.transforms.snapshot_intervals import NOTE as INTERVALS_NOTE
from scorehouse.warehouse.schema import BATTLE_LEVEL

# A task column's key: its task, and its metric when the task has several.
KEY_SEPARATOR = " · "


@dataclass(frozen=True)
class MethodInput:
    """One method's latest snapshot and the one it superseded (None for a first ranking)."""

    id: str  # short, URL-safe and unique on the page
    label: str
    summary: str
    manifest: dict[str, Any]
    ranking: pl.DataFrame  # system, score, rank, tied
    history: tuple[tuple[str, str, pl.DataFrame], ...] = ()  # (snapshot id, created ISO, ranking), oldest first
    arena: pl.DataFrame | None = None  # an arena snapshot's leaderboard: the method's own bootstrap intervals
    intervals: pl.DataFrame | None = None  # the bootstrap intervals its snapshot stores (SNAPSHOT_INTERVALS)


@dataclass(frozen=True)
class ArenaSelection:
    """The arena leaderboard of the page's battles with one value of one battle column, or why there is none."""

    column: str  # judge, category or language
    value: str
    battles: int
    leaderboard: pl.DataFrame | None  # aggregators.arena_leaderboard's table
    error: str = ""


@dataclass(frozen=True)
class BenchmarkInput:
    """Everything a benchmark page shows, read from the warehouse (or generated, by the benchmark script)."""

    benchmark: str
    level: str
    methods: tuple[MethodInput, ...]
    systems: tuple[str, ...]  # leaderboard order
    task_scores: pl.DataFrame  # task, metric, system, score (instance level: mean over instances)
    metrics: pl.DataFrame  # task, metric, higher_is_better, is_ranked, group
    coverage: dict[str, int] = field(default_factory=dict)
    metadata: pl.DataFrame | None = None  # the systems view's rows of this benchmark
    pairwise: pl.DataFrame | None = None  # pairwise_confidence's table
    arena: pl.DataFrame | None = None  # the newest arena leaderboard
    notes: tuple[str, ...] = ()
    selection: str = ""  # the battle selection of a battles page ("no filter", "judge = gpt-4")
    critical: CriticalDifference | None = None  # average ranks and Nemenyi CD of the complete systems
    arena_selections: tuple[ArenaSelection, ...] = ()  # the arena view's filters, one leaderboard per value


# Metadata fields shown as columns, with the kind of filter each takes.
METADATA_FIELDS = (
    ("n_parameters", "number"), ("memory_usage_mb", "number"), ("max_tokens", "number"), ("embed_dim", "number"),
    ("release_date", "date"), ("languages", "list"), ("license", "text"), ("open_weights", "text"),
    ("framework", "list"),
)


def benchmark_data(inputs: BenchmarkInput) -> dict[str, Any]:
    """The JSON-ready data of a benchmark page (see the module docstring for its layout)."""
    systems = list(inputs.systems)
    position = pl.DataFrame({"system": systems, "i": range(len(systems))}, schema={"system": pl.String, "i": pl.Int64})
    tasks, groups, scores = _task_columns(inputs.task_scores, inputs.metrics, position)
    separated = _separated_pairs(inputs.pairwise)
    low, high = _rank_interval(inputs.pairwise, position)
    methods = [_method(m, position, separated) for m in inputs.methods]
    return {
        "benchmark": inputs.benchmark,
        "level": inputs.level,
        "systems": systems,
        "coverage": [inputs.coverage.get(s) for s in systems],
        "voters": max((m.manifest.get("n_voters") or 0 for m in inputs.methods), default=0),
        "updated": max((str(m.manifest["created_at"])[:19] for m in inputs.methods), default=None),
        "methods": methods,
        "tasks": tasks,
        "groups": groups,
        "scores": scores,
        "interval": {"low": low, "high": high} if low is not None else None,
        "metadata": _metadata(inputs.metadata, position),
        "pairwise": _pairwise(inputs.pairwise, systems),
        "arena": _arena(inputs.arena, inputs.arena_selections, position),
        "critical": _critical(inputs.critical, systems),
        "agreement": _agreement(inputs.methods),
        "notes": list(inputs.notes),
    }


def _aligned(frame: pl.DataFrame, position: pl.DataFrame, column: str) -> list[Any]:
    """``frame[column]`` in the systems' order (None for a system the frame lacks)."""
    return position.join(frame.select("system", column), on="system", how="left").sort("i").get_column(column).to_list()


def _task_columns(
    task_scores: pl.DataFrame, metrics: pl.DataFrame, position: pl.DataFrame
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[list[float | None]]]:
    """The task columns (one per ranked (task, metric): the voters), their groups, and their scores column-major.

    Columns the catalog does not rank (a leaderboard's own average, MTEB's evaluation times and
    standard deviations, GEM's counts) stay in the warehouse: on GEM they are 69,000 of its columns.
    """
    if task_scores.height == 0:
        return [], [], []
    keys = task_scores.select("task", "metric").unique().join(
        metrics.select("task", "metric", "higher_is_better", "is_ranked", "group"), on=["task", "metric"], how="left"
    ).with_columns(
        pl.col("higher_is_better").fill_null(True), pl.col("is_ranked").fill_null(True),
        pl.col("group").fill_null(pl.col("task")),
    ).filter(pl.col("is_ranked")).with_columns(
        pl.col("metric").n_unique().over("task").alias("metrics_of_task"),
    ).sort("group", "task", "metric")
    keys = keys.with_row_index("column")
    wide = (
        task_scores.join(keys.select("task", "metric", "column"), on=["task", "metric"])
        .join(position, on="system")
        .select("column", "i", "score")
    )
    n, m = position.height, keys.height
    grid = np.full(m * n, np.nan)
    grid[wide.get_column("column").to_numpy().astype(np.int64) * n + wide.get_column("i").to_numpy()] = (
        wide.get_column("score").fill_null(np.nan).to_numpy()
    )
    values = pl.Series(grid).fill_nan(None).to_list()
    scores = [values[c * n:(c + 1) * n] for c in range(m)]
    tasks = [
        {"name": t if k == 1 else f"{t}{KEY_SEPARATOR}{mt}", "task": t, "metric": mt, "higher": hib, "ranked": ranked}
        for t, mt, hib, ranked, k in keys.select("task", "metric", "higher_is_better", "is_ranked", "metrics_of_task").iter_rows()
    ]
    group_of = keys.get_column("group").to_list()
    groups = [{"name": g, "columns": [c for c, name in enumerate(group_of) if name == g]} for g in dict.fromkeys(group_of)]
    return tasks, groups, scores


def _separated_pairs(pairwise: pl.DataFrame | None) -> set[tuple[str, str]] | None:
    if pairwise is None:
        return None
    kept = pairwise.filter(pl.col("excludes_half"))
    return set(zip(kept.get_column("system_a").to_list(), kept.get_column("system_b").to_list()))


def _rank_interval(pairwise: pl.DataFrame | None, position: pl.DataFrame) -> tuple[list | None, list | None]:
    """Per system, the best and worst rank the pairwise intervals cannot exclude (module docstring)."""
    if pairwise is None or pairwise.height == 0:
        return None, None
    present = pl.concat([pairwise.get_column("system_a"), pairwise.get_column("system_b")]).n_unique()
    sure = pairwise.filter(pl.col("excludes_half")).group_by("system_a").agg(
        (pl.col("probability") < 0.5).sum().alias("beaten"), (pl.col("probability") > 0.5).sum().alias("beats")
    ).rename({"system_a": "system"})
    table = position.join(sure, on="system", how="left").sort("i").with_columns(
        (1 + pl.col("beaten").fill_null(0)).alias("low"), (present - pl.col("beats").fill_null(0)).alias("high")
    )
    known = set(pairwise.get_column("system_a").to_list())
    names = table.get_column("system").to_list()
    low = [v if s in known else None for s, v in zip(names, table.get_column("low").to_list())]
    high = [v if s in known else None for s, v in zip(names, table.get_column("high").to_list())]
    return low, high


def _method(method: MethodInput, position: pl.DataFrame, separated: set[tuple[str, str]] | None) -> dict[str, Any]:
    ranking = method.ranking
    history = [
        {"snapshot": sid, "created": created, "rank": _aligned(old, position, "rank")}
        for sid, created, old in method.history
    ]
    return {
        "id": method.id,
        "label": method.label,
        "summary": method.summary,
        "snapshot": method.manifest["snapshot_id"],
        "created": str(method.manifest["created_at"])[:19],
        "rank": _aligned(ranking, position, "rank"),
        "score": [None if v is None or v != v else v for v in _aligned(ranking, position, "score")],
        "tied": _aligned(ranking, position, "tied"),
        "stat_group": _statistical_groups(ranking, position, separated),
        **_own_interval(method, position),
        "history": history,
    }


def _own_interval(method: MethodInput, position: pl.DataFrame) -> dict[str, Any]:
    """The method's own rank interval (``interval``: low, high, its ``source`` and settings), or None and why it
    has none (``no_interval``, from its snapshot's note, or what the snapshot predates)."""
    if method.arena is not None:
        return {"interval": _own_rank_interval(method.arena, position)}
    stored = method.intervals
    if stored is not None and stored.height:
        return {"interval": {"low": _aligned(stored, position, "rank_best"), "high": _aligned(stored, position, "rank_worst"),
                             "source": "stored", "resamples": stored.item(0, "n_resamples"), "seed": stored.item(0, "seed"),
                             "confidence": stored.item(0, "confidence"),
                             "resampled": "battles" if method.manifest.get("level") == BATTLE_LEVEL else "voters"}}
    said = [n.removeprefix(INTERVALS_NOTE) for n in method.manifest.get("notes") or () if n.startswith(INTERVALS_NOTE)]
    if said:
        why = said[0].removeprefix("none stored: ")
    else:
        why = "its snapshot was written before rank stored intervals: rank the benchmark again to get them"
    return {"interval": None, "no_interval": why}


def _own_rank_interval(arena: pl.DataFrame | None, position: pl.DataFrame) -> dict[str, list] | None:
    """The ranks an arena snapshot's 95% bootstrap rating intervals cannot exclude: from its rank (UB), 1 + the
    systems whose lower bound is above this one's upper bound, to the number of systems minus those whose
    upper bound is below this one's lower bound (the same rule mirrored: ``statistical_rank`` of the negated bounds)."""
    if arena is None or arena.height == 0:
        return None
    lower, upper = arena.get_column("lower").to_numpy(), arena.get_column("upper").to_numpy()
    table = arena.select("system", pl.col("rank_ub").alias("low")).with_columns(
        pl.Series("high", arena.height + 1 - statistical_rank(-upper, -lower)))
    return {"low": _aligned(table, position, "low"), "high": _aligned(table, position, "high")}


def _statistical_groups(ranking: pl.DataFrame, position: pl.DataFrame, separated: set | None) -> list[int | None] | None:
    """Group numbers along the method's order: a new group starts where two neighbours are told apart."""
    if separated is None:
        return None
    ordered = ranking.sort("rank", "system").get_column("system").to_list()
    group, groups = 0, {}
    for before, system in zip([None, *ordered], ordered):  # one pass over the ranked systems, not over data
        if before is not None and (before, system) in separated:
            group += 1
        groups[system] = group
    return [groups.get(s) for s in position.get_column("system").to_list()]


def _metadata(metadata: pl.DataFrame | None, position: pl.DataFrame) -> list[dict[str, Any]]:
    """Metadata columns that at least one system of the page fills: name, kind, values in systems order."""
    if metadata is None or metadata.height == 0:
        return []
    columns = []
    for name, kind in METADATA_FIELDS:
        if name not in metadata.columns or metadata.get_column(name).null_count() == metadata.height:
            continue
        values = _aligned(metadata, position, name)
        if kind == "list":
            values = [None if v is None else ", ".join(v) for v in values]
        elif kind == "text":
            values = [None if v is None else str(v) for v in values]
        columns.append({"name": name, "kind": kind, "values": values})
    return columns


def _pairwise(pairwise: pl.DataFrame | None, systems: list[str], top: int = 20) -> dict[str, Any] | None:
    """The heatmap of the first ``top`` systems: probability, interval and separation of each ordered pair."""
    if pairwise is None or pairwise.height == 0:
        return None
    present = set(pairwise.get_column("system_a").to_list())
    shown = [s for s in systems if s in present][:top]
    rows = {(a, b): (p, lo, hi, sep) for a, b, p, lo, hi, sep in pairwise.filter(
        pl.col("system_a").is_in(shown) & pl.col("system_b").is_in(shown)
    ).select("system_a", "system_b", "probability", "lower", "upper", "excludes_half").iter_rows()}
    index = {s: systems.index(s) for s in shown}
    return {
        "systems": [index[s] for s in shown],
        "cells": [[None if a == b else [round(v, 4) for v in rows[(a, b)][:3]] + [rows[(a, b)][3]] for b in shown]
                  for a in shown],
    }


def _critical(critical: CriticalDifference | None, systems: list[str]) -> dict[str, Any] | None:
    if critical is None:
        return None
    index = {s: i for i, s in enumerate(systems)}
    return {
        "systems": [index[s] for s in critical.systems], "ranks": [round(r, 4) for r in critical.average_ranks],
        "cd": round(critical.critical_difference, 4), "voters": critical.voters, "alpha": critical.alpha,
        "cliques": [list(c) for c in critical.cliques],
    }


ARENA_COLUMNS = ("rating", "lower", "upper", "rank", "rank_ub", "n_battles", "win_rate")


def _arena(arena: pl.DataFrame | None, selections: tuple[ArenaSelection, ...], position: pl.DataFrame) -> dict | None:
    """The arena leaderboard of the page's battles, and one per filter value (``selections``), in systems order."""
    if arena is None or arena.height == 0:
        return None
    return {
        **{c: _aligned(arena, position, c) for c in ARENA_COLUMNS},
        "selections": [
            {"column": s.column, "value": s.value, "battles": s.battles, "error": s.error or None,
             "board": None if s.leaderboard is None else {c: _aligned(s.leaderboard, position, c) for c in ARENA_COLUMNS}}
            for s in selections
        ],
    }


def _agreement(methods: tuple[MethodInput, ...]) -> list[list[float | None]]:
    """Kendall tau-b of every pair of methods on their common systems (None where undefined)."""
    def tau(a: pl.DataFrame, b: pl.DataFrame) -> float | None:
        try:
            value = kendall_tau(a.select("system", "rank"), b.select("system", "rank"))
        except AggregationError:
            return None
        return None if value != value else round(value, 4)

    return [[tau(a.ranking, b.ranking) for b in methods] for a in methods]


def index_entry(data: dict[str, Any], page: str) -> dict[str, Any]:
    """The index's row of a benchmark: its size, coverage, last update and the methods' agreement."""
    n = len(data["systems"])
    voters = data["voters"] or 0
    covered = [c for c in data["coverage"] if c is not None]
    off_diagonal = [v for i, row in enumerate(data["agreement"]) for j, v in enumerate(row) if i < j and v is not None]
    return {
        "benchmark": data["benchmark"], "level": data["level"], "page": page, "systems": n, "voters": voters,
        "coverage": round(sum(covered) / (voters * len(covered)), 4) if covered and voters else None,
        "updated": data["updated"], "methods": len(data["methods"]),
        "agreement": round(min(off_diagonal), 4) if off_diagonal else None,
        "leader": data["systems"][0] if n else None,
    }
