"""Rankings as derived state: which latest snapshots were not computed from the current inputs.

A snapshot records the fingerprint of the inputs it ranked (:func:`warehouse.snapshots.input_fingerprint`:
the current loads of its benchmark and the catalog entries of its metrics).  When a run dies between
a load's commit and the rank that should follow it (a killed ``refresh``), or scores are ingested
without ranking, the latest snapshots of the benchmark rank inputs that are no longer current; the
catalog is reconciled on every command (:mod:`flows.catalog_state`), and so are the rankings:
``rank``, ``refresh`` and ``serve`` rank such a benchmark again with the methods and parameters of
its stale snapshots, whatever crashed before.  Plain functions, no Prefect.

The current fingerprint is the one every rank records (:func:`warehouse.partitions.current_fingerprints`),
computed without reading a score.  A battles snapshot is stale when the current battle loads of its
benchmark are not the ones it ranked (a new battles load); it is ranked again with its recorded
methods and battle selection (filters and both-bad rule).  Arena snapshots are not reconciled yet.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import polars as pl

from scorehouse.transforms.rank_plan import MethodRun
from scorehouse.warehouse.battle_filters import BattleSelection
from scorehouse.warehouse.partitions import battle_fingerprint, current_fingerprints
from scorehouse.warehouse.schema import ARENA_METHOD, BATTLE_LEVEL
from scorehouse.warehouse.snapshots import latest_manifests
from scorehouse.warehouse.storage import Warehouse

SCORE_LEVELS = ("task", "instance")


def method_run(method: str, parameters: str) -> MethodRun:
    """The method run a snapshot recorded (``parameters``: its canonical JSON, the run's settings included)."""
    return MethodRun.from_parameters(method, json.loads(parameters))


def stale_runs(warehouse: Warehouse, benchmarks: list[str] | None = None) -> dict[tuple[str, str], list[MethodRun]]:
    """Per (benchmark, level) whose latest snapshots ranked other inputs than the current ones, the
    method runs of those snapshots, in key order; ``benchmarks`` limits it (None: every benchmark).

    A level with no current scores any more has nothing to rank again and is left out.
    """
    latest = latest_manifests(warehouse).filter(pl.col("level").is_in(SCORE_LEVELS))
    if benchmarks is not None:
        latest = latest.filter(pl.col("benchmark").is_in(benchmarks))
    if latest.height == 0:
        return {}
    current = current_fingerprints(warehouse, latest.get_column("benchmark").unique().to_list())
    stale: dict[tuple[str, str], list[MethodRun]] = {}
    for benchmark, level, method, parameters, fingerprint in latest.select(
        "benchmark", "level", "method", "parameters", "input_fingerprint"
    ).iter_rows():
        now = current.get((benchmark, level))
        if now is not None and now != fingerprint:
            stale.setdefault((benchmark, level), []).append(method_run(method, parameters))
    return stale




def stale_battle_runs(
    warehouse: Warehouse, loads: Mapping[str, tuple[str, ...]], benchmarks: list[str] | None = None,
) -> dict[tuple[str, str], tuple[BattleSelection, list[MethodRun]]]:
    """Per (benchmark, recorded battle selection) whose latest battles snapshots ranked other battle loads than
    the benchmark's current ones (``loads``: :func:`warehouse.queries.battle_loads`), the selection and the
    method runs of those snapshots; ``benchmarks`` limits it.  A benchmark with no current battles is left out."""
    latest = latest_manifests(warehouse).filter((pl.col("level") == BATTLE_LEVEL) & (pl.col("method") != ARENA_METHOD))
    if benchmarks is not None:
        latest = latest.filter(pl.col("benchmark").is_in(benchmarks))
    stale: dict[tuple[str, str], tuple[BattleSelection, list[MethodRun]]] = {}
    for benchmark, method, parameters, fingerprint in latest.select(
        "benchmark", "method", "parameters", "input_fingerprint"
    ).iter_rows():
        if benchmark not in loads or battle_fingerprint(loads[benchmark]) == fingerprint:
            continue
        recorded = json.loads(parameters)
        selection = recorded.pop(BATTLE_LEVEL, {})
        key = (benchmark, json.dumps(selection, sort_keys=True))
        runs = stale.setdefault(key, (BattleSelection.from_parameters(selection), []))[1]
        runs.append(MethodRun.from_parameters(method, recorded))
    return stale
