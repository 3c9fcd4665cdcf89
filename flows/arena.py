"""``scorehouse arena``: the arena leaderboard of a benchmark's battles, stored as a snapshot.

The leaderboard is :func:`aggregators.arena_leaderboard`: Bradley–Terry on the
Elo scale (400 · log10, anchored at the mean = 1000 or at a named system), 95%
bootstrap intervals, the rank and the "statistically tied" rank, battles and
win rate per system.  It is stored as a snapshot of method ``arena``
(level ``battles``) like every ranking: its parameters are the anchor, the
resamples, the seed, the interval level and the battle selection; its input
fingerprint holds the benchmark's battle loads, its code version the rank code;
the ranking file holds the ratings (so diffs and exports read it as any
ranking) and ``arena.parquet`` the whole leaderboard, which the HTML report shows.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from scorehouse import runtime
from scorehouse.aggregators import AggregationError, arena_leaderboard, ranking_table
from scorehouse.flows.catalog_state import ensure_current_catalog
from scorehouse.flows.common import refresh_catalog
from scorehouse.flows.selection import rank_levels, selected_battles
from scorehouse.warehouse.battle_filters import BattleSelection
from scorehouse.warehouse.queries import battle_loads
from scorehouse.warehouse.partitions import battle_fingerprint
from scorehouse.warehouse.schema import ARENA_METHOD, BATTLE_LEVEL
from scorehouse.warehouse.snapshots import (
    SnapshotRequest, canonical_parameters, code_version, coverage_frame, write_snapshot,
)
from scorehouse.warehouse.storage import Warehouse

LEVEL = 0.95  # the intervals' coverage


@dataclass
class ArenaOutcome:
    """The leaderboard of one benchmark's battles and its snapshot, or why there is none."""

    benchmark: str
    parameters: str = ""
    snapshot_id: str | None = None
    new: bool = False
    leaderboard: pl.DataFrame | None = None
    error: str | None = None


@runtime.step(io=True)
def store_arena(
    warehouse: Warehouse, request: SnapshotRequest, leaderboard: pl.DataFrame, coverage: pl.DataFrame
) -> tuple[str, bool]:
    ranking = ranking_table(leaderboard.get_column("system").to_list(), leaderboard.get_column("rating").to_numpy())
    with warehouse.write_lock():
        return write_snapshot(warehouse, request, ranking, coverage, arena=leaderboard)


@runtime.flow("arena")
def arena_flow(
    benchmark: str,
    home: str | None = None,
    battles: BattleSelection | None = None,
    anchor: str | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> ArenaOutcome:
    """Compute and store the arena leaderboard of ``benchmark``'s battles that ``battles`` selects."""
    warehouse = Warehouse(home)
    ensure_current_catalog(warehouse)
    load_ids = battle_loads(warehouse).get(benchmark)
    if load_ids is None:  # rank's error for it: an unknown benchmark, or one of scores only
        rank_levels(warehouse, [benchmark], BATTLE_LEVEL, True)
    selection = battles or BattleSelection()
    parameters = {"anchor": anchor, "level": LEVEL, "n_resamples": n_resamples, "seed": seed,
                  BATTLE_LEVEL: selection.parameters()}
    outcome = ArenaOutcome(benchmark, canonical_parameters(parameters))
    frame = selected_battles(warehouse, benchmark, selection)
    if isinstance(frame, str):
        outcome.error = frame
        return outcome
    try:
        board = arena_leaderboard(frame, anchor=anchor, n_resamples=n_resamples, seed=seed,
                                  bothbad=selection.bothbad, level=LEVEL)
    except AggregationError as error:
        outcome.error = str(error)
        return outcome
    leaderboard = board.table
    played = int(leaderboard.get_column("n_battles").sum()) // 2  # each battle counts for both its systems
    request = SnapshotRequest(
        benchmark=benchmark, level=BATTLE_LEVEL, method=ARENA_METHOD, parameters=outcome.parameters,
        input_fingerprint=battle_fingerprint(load_ids), load_ids=load_ids,
        code_version=code_version(), n_voters=played, n_systems=leaderboard.height,
        notes=(f"Bradley-Terry on {played} battles, Elo scale anchored at "
               f"{'the mean (1000)' if anchor is None else repr(anchor) + ' (1000)'}; "
               f"{LEVEL:.0%} intervals from {n_resamples} bootstrap resamples (seed {seed})", *board.notes),
    )
    outcome.snapshot_id, outcome.new = runtime.call(store_arena, warehouse, request, leaderboard,
                                                   coverage_frame(board.systems, board.played))
    outcome.leaderboard = leaderboard
    if outcome.new:
        runtime.call(refresh_catalog, warehouse)
    return outcome
