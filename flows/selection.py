"""What a ranking reads: the (benchmark, level) pairs a command names, and the battles a selection keeps.

Shared by the rank flow and the arena flow; the rank flow's reconciliation runs ``arena`` again
(:func:`flows.rank.reconcile_rankings`), so the arena flow reads through this module, not through
:mod:`flows.rank`.  Plain functions and retried reads.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from scorehouse import runtime
from scorehouse.aggregators.errors import UsageError
from scorehouse.warehouse.battle_filters import BattleFilters, BattleSelection
from scorehouse.warehouse.partitions import coverage_levels
from scorehouse.warehouse.queries import battle_loads, read_battles
from scorehouse.warehouse.schema import BATTLE_LEVEL
from scorehouse.warehouse.storage import Warehouse


class RankSelectionError(UsageError, ValueError):
    """What to rank does not exist or does not fit the options (an unknown benchmark, battle filters
    for scores): the command says so and exits 2."""


def selected_battles(warehouse: Warehouse, benchmark: str, selection: BattleSelection) -> pl.DataFrame | str:
    """The battles ``selection`` keeps, or why there is none (naming the filters)."""
    battles = runtime.call(read_benchmark_battles, warehouse, benchmark, selection.filters)
    if battles.height:
        return battles
    return (f"no battle of {benchmark!r} matches the filters {selection.filters.describe()}; "
            f"see the values it has with: scorehouse sql \"SELECT judge, category, language, min(tstamp), "
            f"max(tstamp), count(*) FROM battles WHERE benchmark = '{benchmark}' GROUP BY ALL\"")


@runtime.step(io=True)
def read_benchmark_battles(warehouse: Warehouse, benchmark: str, filters: BattleFilters) -> pl.DataFrame:
    return read_battles(warehouse, benchmark, **filters.read_options())


def rank_levels(
    warehouse: Warehouse, benchmarks: list[str] | None, level: str | None, battle_options: bool,
    battles: Mapping[str, tuple[str, ...]] | None = None,
) -> list[tuple[str, str]]:
    """The (benchmark, level) pairs a rank run ranks, by name.

    Without ``level``, each benchmark's natural level: instance when it has
    instance scores, else task, and ``battles`` for a benchmark that holds
    battles only; a benchmark with scores and battles ranks its scores (its
    battles with ``--level battles``).  Battle options (filters, ``--bothbad``)
    mean level ``battles``: given for a benchmark without battles, or with a
    score level, they are a :class:`RankSelectionError`, as is an unknown benchmark.  ``battles``: the
    warehouse's :func:`battle_loads` when the caller has them already (else they are read).
    """
    scores = coverage_levels(warehouse)
    battles = battle_loads(warehouse) if battles is None else battles
    held = sorted(set(scores.get_column("benchmark").to_list()) | set(battles))
    unknown = sorted(set(benchmarks or ()) - set(held))
    if unknown:
        raise RankSelectionError(f"no scores or battles for benchmark(s) {unknown} in {warehouse.home}; "
                                 f"known: {', '.join(held)}")
    if battle_options and level not in (None, BATTLE_LEVEL):
        raise RankSelectionError(f"the battle filters and --bothbad select battles; they do not apply to "
                                 f"--level {level} (leave them out, or use --level {BATTLE_LEVEL})")
    selected = benchmarks or held
    if battle_options or level == BATTLE_LEVEL:
        without = [b for b in benchmarks or () if b not in battles]
        if without:
            raise RankSelectionError(f"benchmark(s) {without} hold no battles (only scores), so the battle filters, "
                                     f"--bothbad and --level {BATTLE_LEVEL} do not apply; benchmarks with battles: "
                                     f"{', '.join(battles) or 'none'}")
        return [(b, BATTLE_LEVEL) for b in selected if b in battles]
    score_levels = {b: set(g.get_column("level").to_list()) for (b,), g in scores.group_by("benchmark")}
    if level is not None:
        return [(b, level) for b in selected if level in score_levels.get(b, ())]
    natural = {b: "instance" if "instance" in lv else "task" for b, lv in score_levels.items()}
    return [(b, natural.get(b, BATTLE_LEVEL)) for b in selected]
