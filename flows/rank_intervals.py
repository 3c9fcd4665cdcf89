"""The rank flow's bootstrap plumbing: the intervals a snapshot stores, and the API's on demand.

Both run :func:`transforms.rank_plan.ballot_intervals` on the ballots the method run ranked; the
snapshot's with the settings and budget of :mod:`transforms.snapshot_intervals`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from scorehouse import runtime
from scorehouse.aggregators import RankingResult, bootstrap_battles
from scorehouse.flows.selection import selected_battles
from scorehouse.transforms.rank_plan import MethodRun, run_intervals
from scorehouse.transforms.snapshot_intervals import none_stored, snapshot_intervals, unaffordable
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


def ranking_intervals(
    warehouse: Warehouse, benchmark: str, level: str, method_run: MethodRun, options: Mapping[str, Any],
) -> pl.DataFrame:
    """Bootstrap intervals (:func:`aggregators.bootstrap`) of one method run on what the rank flow ranks:
    the benchmark's current ballots at ``level`` (their complete part for a method that needs it), or
    every battle at level ``battles``.  ``options``: the bootstrap's ``n_resamples``, ``level``, ``seed``."""
    if level == BATTLE_LEVEL:
        battles = selected_battles(warehouse, benchmark, BattleSelection())
        return bootstrap_battles(method_run.method, battles, method_run.params, **options)
    scores, metrics = runtime.call(read_benchmark, warehouse, benchmark, level)
    return run_intervals(scores, metrics, level, method_run, dict(options))
