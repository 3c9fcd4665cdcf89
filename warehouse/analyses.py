"""Versioned, immutable analysis tables, stored next to the ranking snapshots.

Layout under the warehouse home::

    analyses/benchmark=B/analysis=<id>/<table>.parquet   the experiment's tables (results, summary, ...)
    analysis_manifests/<id>.parquet                      the manifest, written last

An analysis is versioned exactly like a snapshot (:mod:`warehouse.snapshots`):
its id hashes the input fingerprint, the benchmark and level, the experiment,
its parameters (methods, repetitions, seed, ...) and the code version, so the
same inputs and seed give the same id and nothing new is written; the
manifest is the commit point, and a table without one is invisible.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from scorehouse.aggregators.errors import NotFoundError
from scorehouse.warehouse.schema import ANALYSIS_MANIFEST
from scorehouse.warehouse.snapshots import snapshot_id
from scorehouse.warehouse import atomic
from scorehouse.warehouse.storage import Warehouse


@dataclass(frozen=True)
class AnalysisRequest:
    """Everything an analysis records besides its tables."""

    benchmark: str
    level: str
    experiment: str
    parameters: str
    input_fingerprint: str
    load_ids: tuple[str, ...]
    code_version: str
    notes: tuple[str, ...] = ()

    @property
    def analysis_id(self) -> str:
        return snapshot_id(
            self.input_fingerprint, self.benchmark, self.level, f"analysis:{self.experiment}", self.parameters,
            self.code_version,
        )


def manifest_path(warehouse: Warehouse, analysis: str) -> Path:
    return warehouse.dir("analysis_manifests") / f"{analysis}.parquet"


def table_folder(warehouse: Warehouse, benchmark: str, analysis: str) -> Path:
    return warehouse.dir("analyses") / f"benchmark={benchmark}" / f"analysis={analysis}"


def write_analysis(
    warehouse: Warehouse, request: AnalysisRequest, tables: dict[str, pl.DataFrame]
) -> tuple[str, bool]:
    """Write the analysis unless it exists; return its id and whether it is new.

    Call under :meth:`Warehouse.write_lock`.
    """
    analysis = request.analysis_id
    if manifest_path(warehouse, analysis).exists():
        return analysis, False
    folder = table_folder(warehouse, request.benchmark, analysis)
    for name, frame in sorted(tables.items()):
        atomic.write_parquet(frame, folder / f"{name}.parquet")
    manifest = pl.DataFrame(
        [
            {
                "analysis_id": analysis,
                "created_at": datetime.now(UTC),
                "benchmark": request.benchmark,
                "level": request.level,
                "experiment": request.experiment,
                "parameters": request.parameters,
                "input_fingerprint": request.input_fingerprint,
                "load_ids": list(request.load_ids),
                "code_version": request.code_version,
                "tables": sorted(tables),
                "notes": list(request.notes),
            }
        ],
        schema=ANALYSIS_MANIFEST,
    )
    atomic.write_parquet(manifest, manifest_path(warehouse, analysis))
    return analysis, True


def read_analysis(warehouse: Warehouse, analysis: str) -> tuple[dict[str, Any], dict[str, pl.DataFrame]]:
    """The manifest (as a dict) and the tables of a committed analysis."""
    path = manifest_path(warehouse, analysis)
    if not path.exists():
        raise NotFoundError(f"no analysis {analysis!r} in {warehouse.home}; run 'scorehouse analyze --benchmark B' first")
    manifest = pl.read_parquet(path, glob=False).row(0, named=True)
    folder = table_folder(warehouse, manifest["benchmark"], analysis)
    return manifest, {name: pl.read_parquet(folder / f"{name}.parquet", glob=False) for name in manifest["tables"]}
