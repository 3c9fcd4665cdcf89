"""The rank flow's bootstrap plumbing: the intervals a snapshot stores, and the API's on demand.

Both run :func:`transforms.rank_plan.ballot_intervals` on the ballots the method run ranked (at level
``battles``, :func:`transforms.rank_plan.battle_intervals` on the battles it ranked); the snapshot's with
the settings and budget of :mod:`transforms.snapshot_intervals`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from scorehouse import runtime
from scorehouse.aggregators import RankingResult
from scorehouse.flows.selection import selected_battles
from scorehouse.transforms.rank_plan import MethodRun, battle_intervals, run_intervals
from scorehouse.transforms.snapshot_intervals import (
    battle_snapshot_intervals, battles_unaffordable, none_stored, snapshot_intervals, unaffordable,
)
from scorehouse.warehouse.battle_filters import BattleSelection
from scorehouse.warehouse.queries import benchmark_scores
from scorehouse.warehouse.schema import BATTLE_LEVEL
from scorehouse.warehouse.storage import Warehouse


@runtime.step(io=True)
def read_benchmark(warehouse: Warehouse, benchmark: str, level: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The scores of the ranked voters and their catalog entries: nothing a method does not rank is read."""
    return benchmark_scores(warehouse, benchmark, level, ranked_only=True)


class StoredIntervals:
    """The intervals each new snapshot of one benchmark's rank stores: computed only for a snapshot not yet
    written and within the budget, on ballots read at most once (``read``: a partition-wise rank has none in
    memory, and reads them only when a run gets intervals)."""

    def __init__(self, level: str, read: Callable[[], pl.DataFrame]) -> None:
        self.level = level
        self.read = read
        self.ballots: pl.DataFrame | None = None

    def of(self, method_run: MethodRun, result: RankingResult) -> tuple[pl.DataFrame | None, str]:
        """The run's intervals (or None) and the snapshot note that says which."""
        reason = unaffordable(method_run.method, result.n_systems, result.n_voters)
        if reason is not None:
            return None, none_stored(reason)
        if self.ballots is None:
            self.ballots = self.read()
        return snapshot_intervals(self.ballots, self.level, method_run)


class StoredBattleIntervals:
    """The intervals each new battles snapshot stores: of ``battles`` (those the rank's selection kept, in memory
    already) with its both-bad rule, as the run ranked them."""

    def __init__(self, battles: pl.DataFrame, bothbad: str) -> None:
        self.battles = battles
        self.bothbad = bothbad

    def of(self, method_run: MethodRun, result: RankingResult) -> tuple[pl.DataFrame | None, str]:
        """The run's intervals (or None) and the snapshot note that says which (``n_voters``: the battles played)."""
        reason = battles_unaffordable(method_run.method, result.n_systems, result.n_voters)
        if reason is not None:
            return None, none_stored(reason)
        return battle_snapshot_intervals(self.battles, self.bothbad, method_run)


def ranking_intervals(
    warehouse: Warehouse, benchmark: str, level: str, method_run: MethodRun, options: Mapping[str, Any],
    selection: BattleSelection | None = None,
) -> pl.DataFrame:
    """Bootstrap intervals (:func:`aggregators.bootstrap`) of one method run on what the rank flow ranks:
    the benchmark's current ballots at ``level`` (their complete part for a method that needs it), or
    at level ``battles`` the battles ``selection`` keeps (None: every battle, both-bad ties as ties), with its
    both-bad rule.  ``options``: the bootstrap's ``n_resamples``, ``level``, ``seed``."""
    if level == BATTLE_LEVEL:
        chosen = selection or BattleSelection()
        battles = selected_battles(warehouse, benchmark, chosen)
        return battle_intervals(battles, chosen.bothbad, method_run, dict(options))
    scores, metrics = runtime.call(read_benchmark, warehouse, benchmark, level)
    return run_intervals(scores, metrics, level, method_run, dict(options))
