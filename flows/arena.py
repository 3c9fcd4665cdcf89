"""``scorehouse arena``: the arena leaderboard of a benchmark's battles, stored as a snapshot.

The leaderboard is :func:`aggregators.arena_leaderboard`: Bradley–Terry on the
Elo scale (400 · log10, anchored at the mean = 1000 or at a named system), 95%
bootstrap intervals, the rank and the "statistically tied" rank, battles and
win rate per system.  It is stored as a snapshot of method ``arena``
(level ``battles``) like every ranking: its parameters are the anchor, the
resamples, the seed, the interval level and the battle selection; its input
fingerprint holds the benchmark's battle loads, its code version the rank code;
the ranking file holds the ratings (so diffs and exports read it as any
ranking) and ``arena.parquet`` the whole leaderboard, which the HTML report shows.  A new battles load
makes such a series stale: ``rank``, ``refresh`` and ``serve`` compute it again with its recorded
settings (:class:`ArenaSettings`, :func:`flows.rank.reconcile_rankings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class ArenaSettings:
    """What an arena leaderboard is computed with; all of it is recorded in its snapshot's parameters, so the
    reconciliation computes a stale leaderboard again exactly as it was asked (:meth:`from_parameters`)."""

    selection: BattleSelection = BattleSelection()
    anchor: str | None = None  # the system rated 1000 (None: the mean rating is 1000)
    n_resamples: int = 1000
    seed: int = 0
    level: float = LEVEL

    def parameters(self) -> dict[str, Any]:
        """What the snapshot records as its parameters (the battle selection under ``battles``)."""
        return {"anchor": self.anchor, "level": self.level, "n_resamples": self.n_resamples, "seed": self.seed,
                BATTLE_LEVEL: self.selection.parameters()}

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any]) -> ArenaSettings:
        """The settings an arena snapshot recorded (:meth:`parameters`)."""
        return cls(BattleSelection.from_parameters(parameters[BATTLE_LEVEL]), parameters["anchor"],
                   parameters["n_resamples"], parameters["seed"], parameters["level"])


@dataclass
class ArenaOutcome:
    """The leaderboard of one benchmark's battles and its snapshot, or why there is none."""

    benchmark: str
    settings: ArenaSettings
    snapshot_id: str | None = None
    new: bool = False
    leaderboard: pl.DataFrame | None = None
    ranking: pl.DataFrame | None = None  # the ratings as a ranking (the snapshot's ranking file)
    notes: tuple[str, ...] = ()
    error: str | None = None

    @property
    def parameters(self) -> str:
        """The snapshot's parameters, canonical JSON."""
        return canonical_parameters(self.settings.parameters())


@runtime.step(io=True)
def store_arena(
    warehouse: Warehouse, request: SnapshotRequest, ranking: pl.DataFrame, leaderboard: pl.DataFrame,
    coverage: pl.DataFrame,
) -> tuple[str, bool]:
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
    settings = ArenaSettings(battles or BattleSelection(), anchor, n_resamples, seed)
    outcome = run_arena(warehouse, benchmark, settings, load_ids, code_version())
    if outcome.new:
        runtime.call(refresh_catalog, warehouse)
    return outcome


def run_arena(
    warehouse: Warehouse, benchmark: str, settings: ArenaSettings, load_ids: tuple[str, ...], version: str,
) -> ArenaOutcome:
    """Compute and store the leaderboard ``settings`` describe of ``benchmark``'s battles (``load_ids``: its
    current battle loads); the catalog is left to the caller."""
    outcome = ArenaOutcome(benchmark, settings)
    frame = selected_battles(warehouse, benchmark, settings.selection)
    if isinstance(frame, str):
        outcome.error = frame
        return outcome
    try:
        board = arena_leaderboard(frame, anchor=settings.anchor, n_resamples=settings.n_resamples, seed=settings.seed,
                                  bothbad=settings.selection.bothbad, level=settings.level)
    except AggregationError as error:
        outcome.error = str(error)
        return outcome
    leaderboard = board.table
    played = int(leaderboard.get_column("n_battles").sum()) // 2  # each battle counts for both its systems
    anchored = "the mean (1000)" if settings.anchor is None else f"{settings.anchor!r} (1000)"
    request = SnapshotRequest(
        benchmark=benchmark, level=BATTLE_LEVEL, method=ARENA_METHOD, parameters=outcome.parameters,
        input_fingerprint=battle_fingerprint(load_ids), load_ids=load_ids,
        code_version=version, n_voters=played, n_systems=leaderboard.height,
        notes=(f"Bradley-Terry on {played} battles, Elo scale anchored at {anchored}; {settings.level:.0%} intervals "
               f"from {settings.n_resamples} bootstrap resamples (seed {settings.seed})", *board.notes),
    )
    ranking = ranking_table(leaderboard.get_column("system").to_list(), leaderboard.get_column("rating").to_numpy())
    outcome.snapshot_id, outcome.new = runtime.call(store_arena, warehouse, request, ranking, leaderboard,
                                                   coverage_frame(board.systems, board.played))
    outcome.leaderboard, outcome.ranking, outcome.notes = leaderboard, ranking, request.notes
    return outcome
