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
methods and battle selection (filters and both-bad rule); an arena snapshot likewise, with its recorded
settings (:class:`flows.arena.ArenaSettings`: selection, anchor, resamples, seed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import polars as pl

from scorehouse.flows.arena import ArenaSettings
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


def stale_battle_snapshots(
    warehouse: Warehouse, loads: Mapping[str, tuple[str, ...]], benchmarks: list[str] | None,
) -> list[tuple[str, str, dict[str, Any]]]:
    """(benchmark, method, recorded parameters) of each latest battles or arena snapshot of ``benchmarks`` (None:
    all) that ranked other battle loads than the benchmark's current ones (``loads``:
    :func:`warehouse.queries.battle_loads`).  A benchmark with no current battles is left out."""
    latest = latest_manifests(warehouse).filter(pl.col("level") == BATTLE_LEVEL)
    if benchmarks is not None:
        latest = latest.filter(pl.col("benchmark").is_in(benchmarks))
    return [
        (benchmark, method, json.loads(parameters))
        for benchmark, method, parameters, fingerprint in latest.select(
            "benchmark", "method", "parameters", "input_fingerprint").iter_rows()
        if benchmark in loads and battle_fingerprint(loads[benchmark]) != fingerprint
    ]


def stale_battle_runs(
    warehouse: Warehouse, loads: Mapping[str, tuple[str, ...]], benchmarks: list[str] | None = None,
) -> dict[tuple[str, str], tuple[BattleSelection, list[MethodRun]]]:
    """Per (benchmark, recorded battle selection) of the stale battles snapshots (:func:`stale_battle_snapshots`;
    arena snapshots are :func:`stale_arenas`), the selection and the method runs of those snapshots."""
    stale: dict[tuple[str, str], tuple[BattleSelection, list[MethodRun]]] = {}
    for benchmark, method, recorded in stale_battle_snapshots(warehouse, loads, benchmarks):
        if method == ARENA_METHOD:
            continue
        selection = recorded.pop(BATTLE_LEVEL, {})
        key = (benchmark, json.dumps(selection, sort_keys=True))
        runs = stale.setdefault(key, (BattleSelection.from_parameters(selection), []))[1]
        runs.append(MethodRun.from_parameters(method, recorded))
    return stale


def stale_arenas(
    warehouse: Warehouse, loads: Mapping[str, tuple[str, ...]], benchmarks: list[str] | None = None,
) -> list[tuple[str, ArenaSettings]]:
    """Each stale arena snapshot (:func:`stale_battle_snapshots`): its benchmark and recorded settings."""
    return [(benchmark, ArenaSettings.from_parameters(recorded))
            for benchmark, method, recorded in stale_battle_snapshots(warehouse, loads, benchmarks)
            if method == ARENA_METHOD]
