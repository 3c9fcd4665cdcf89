"""Versioned, immutable ranking snapshots.

Layout under the warehouse home::

    snapshots/benchmark=B/snapshot=<id>/ranking.parquet   the ranking (system, score, rank, tied)
    snapshots/benchmark=B/snapshot=<id>/coverage.parquet  voters per system and per pair (SNAPSHOT_COVERAGE)
    snapshots/benchmark=B/snapshot=<id>/arena.parquet     an arena snapshot's leaderboard (ARENA_LEADERBOARD)
    snapshots/benchmark=B/snapshot=<id>/intervals.parquet the run's bootstrap intervals (SNAPSHOT_INTERVALS)
    snapshot_manifests/<id>.parquet                        the manifest, written last

A snapshot id is a hash of what determines the result: the input fingerprint
(the exact rows used, see :func:`input_fingerprint`), the benchmark and level,
the method, its parameters (seed included) and the code version.  Recomputing
unchanged inputs yields the same id, and an id that already has a manifest is
never written again, so snapshots are never modified.  As with loads, the
manifest is the commit point: a ranking file without one is invisible.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import polars as pl

from scorehouse.aggregators.errors import NotFoundError
from scorehouse.aggregators.schemas import RANKING_SCHEMA
import numpy as np

from scorehouse.warehouse.schema import ARENA_LEADERBOARD, SNAPSHOT_COVERAGE, SNAPSHOT_INTERVALS, SNAPSHOT_MANIFEST
from scorehouse.warehouse.sql import SNAPSHOT, query_files, relation
from scorehouse.warehouse import atomic
from scorehouse.warehouse.integrity import check_commit, record_hashes
from scorehouse.warehouse.storage import Warehouse

# A snapshot stores the aggregators' ranking contract as is: its schema is theirs.
SNAPSHOT_RANKING = RANKING_SCHEMA

# The code that turns a benchmark's current scores into a ranking, as paths from the repository
# root: its sources are hashed into the code version.  Parsers and validation are left out on
# purpose: they change loads, whose ids the input fingerprint already holds, so editing a COCO
# parser must not give every snapshot of every benchmark a new id.
RANK_CODE = (
    "aggregators",
    "transforms/ballots.py",
    "transforms/catalog.py",
    "transforms/dense.py",
    "transforms/rank_plan.py",
    "transforms/snapshot_intervals.py",  # the stored intervals' resamples, seed and budget
    "warehouse/schema.py",  # the voter and group keys that ballots are built from
)
REPOSITORY = Path(__file__).resolve().parent.parent


def rank_code_sources(root: Path = REPOSITORY) -> list[Path]:
    """The Python sources of :data:`RANK_CODE` under ``root``, in a fixed order."""
    sources = []
    for entry in map(root.joinpath, RANK_CODE):
        sources.extend(sorted(entry.rglob("*.py")) if entry.is_dir() else [entry])
    return sources


def code_version(root: Path = REPOSITORY) -> str:
    """``<package version>+<hash of the rank code's sources>`` (:data:`RANK_CODE`).

    The hash makes an edited method produce new snapshot ids even when the
    version number was not bumped.
    """
    digest = hashlib.sha256()
    for source in rank_code_sources(root):
        digest.update(source.relative_to(root).as_posix().encode())
        digest.update(source.read_bytes())
    try:
        version = metadata.version("scorehouse")
    except metadata.PackageNotFoundError:
        version = "0+unknown"
    return f"{version}+{digest.hexdigest()[:12]}"


def canonical_parameters(parameters: dict[str, Any]) -> str:
    """Parameters as canonical JSON (sorted keys), the form hashed and stored."""
    return json.dumps(parameters, sort_keys=True, separators=(",", ":"), default=str)


def input_fingerprint(load_ids: list[str], metrics: pl.DataFrame) -> str:
    """Fingerprint of the exact rows a ranking used.

    Load ids are hashes of the ingested bytes, so the set of loads that the
    current rows of a benchmark come from, together with the catalog entries
    that oriented and weighted them, determines those rows exactly.
    """
    digest = hashlib.sha256()
    for load_id in sorted(set(load_ids)):
        digest.update(load_id.encode() + b"\n")
    digest.update(metrics.sort(metrics.columns).write_csv().encode())
    return digest.hexdigest()


def snapshot_id(fingerprint: str, benchmark: str, level: str, method: str, parameters: str, version: str) -> str:
    key = "\n".join((fingerprint, benchmark, level, method, parameters, version))
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SnapshotRequest:
    """Everything a snapshot records besides its ranking."""

    benchmark: str
    level: str
    method: str
    parameters: str
    input_fingerprint: str
    load_ids: tuple[str, ...]
    code_version: str
    n_voters: int
    n_systems: int
    notes: tuple[str, ...]

    @property
    def snapshot_id(self) -> str:
        return snapshot_id(
            self.input_fingerprint, self.benchmark, self.level, self.method, self.parameters, self.code_version
        )


def coverage_frame(systems: tuple[str, ...], co_scored: np.ndarray) -> pl.DataFrame:
    """:data:`SNAPSHOT_COVERAGE` rows of ``co_scored[i, j]`` (voters that scored both; the diagonal, each).

    Pairs no voter scored both of are left out: a sparse benchmark of
    hundreds of systems has far fewer supported pairs than pairs.
    """
    first, second = np.nonzero(np.triu(co_scored) > 0)
    names = np.array(systems, dtype=object)
    return pl.DataFrame(
        {"system": names[first].tolist(), "other": names[second].tolist(), "n_voters": co_scored[first, second]},
        schema=SNAPSHOT_COVERAGE,
    )


def snapshot_folder(warehouse: Warehouse, benchmark: str, snapshot: str) -> Path:
    return warehouse.dir("snapshots") / f"benchmark={benchmark}" / f"snapshot={snapshot}"


def manifest_path(warehouse: Warehouse, snapshot: str) -> Path:
    return warehouse.dir("snapshot_manifests") / f"{snapshot}.parquet"


def snapshot_exists(warehouse: Warehouse, snapshot: str) -> bool:
    return manifest_path(warehouse, snapshot).exists()


def latest_manifests(warehouse: Warehouse) -> pl.DataFrame:
    """The manifest (:data:`SNAPSHOT_MANIFEST`) of the newest committed snapshot of every
    (benchmark, level, method, parameters), sorted by that key.

    The catalog's ``latest_snapshots`` rule (:data:`warehouse.sql.SNAPSHOT`),
    run on the manifests directly: the catalog is rebuilt only after a rank
    run, so it may not list the snapshot written a moment ago.
    """
    manifests = relation("*.parquet", warehouse.dir("snapshot_manifests"), SNAPSHOT_MANIFEST)
    keys = ", ".join(SNAPSHOT.key)
    return query_files(f"SELECT {', '.join(SNAPSHOT_MANIFEST)} FROM ({SNAPSHOT.latest(manifests)}) ORDER BY {keys}")


def previous_snapshot(warehouse: Warehouse, request: SnapshotRequest) -> str | None:
    """The newest committed snapshot of the same (benchmark, level, method, parameters)."""
    same_key = latest_manifests(warehouse).filter(
        *(pl.col(c) == v for c, v in zip(SNAPSHOT.key, (request.benchmark, request.level, request.method,
                                                         request.parameters), strict=True))
    )
    return same_key.item(0, "snapshot_id") if same_key.height else None


def write_snapshot(
    warehouse: Warehouse, request: SnapshotRequest, ranking: pl.DataFrame, coverage: pl.DataFrame | None = None,
    arena: pl.DataFrame | None = None, intervals: pl.DataFrame | None = None,
) -> tuple[str, bool]:
    """Write the snapshot unless it exists; return its id and whether it is new.

    ``coverage`` (:func:`coverage_frame`), an arena leaderboard (``arena``,
    :data:`ARENA_LEADERBOARD`) and the run's bootstrap intervals (``intervals``,
    :data:`SNAPSHOT_INTERVALS`), when given, are written beside the ranking,
    before the manifest commits them all.

    Call under :meth:`Warehouse.write_lock` so two writers of the same id
    cannot interleave.
    """
    snapshot = request.snapshot_id
    if snapshot_exists(warehouse, snapshot):
        return snapshot, False
    ranking = ranking.select(pl.col(c).cast(t) for c, t in SNAPSHOT_RANKING.items())
    folder = snapshot_folder(warehouse, request.benchmark, snapshot)
    written = [folder / "ranking.parquet"]  # the snapshot's files, their content hashes recorded before the manifest
    atomic.write_parquet(ranking, written[-1])
    if coverage is not None:
        written.append(folder / "coverage.parquet")
        atomic.write_parquet(coverage.select(pl.col(c).cast(t) for c, t in SNAPSHOT_COVERAGE.items()), written[-1])
    if arena is not None:
        written.append(folder / "arena.parquet")
        atomic.write_parquet(arena.select(pl.col(c).cast(t) for c, t in ARENA_LEADERBOARD.items()), written[-1])
    if intervals is not None:
        written.append(folder / "intervals.parquet")
        atomic.write_parquet(intervals.select(pl.col(c).cast(t) for c, t in SNAPSHOT_INTERVALS.items()), written[-1])
    record_hashes(warehouse.home, "snapshots", snapshot, written)
    manifest = pl.DataFrame(
        [
            {
                "snapshot_id": snapshot,
                "created_at": datetime.now(UTC),
                "benchmark": request.benchmark,
                "level": request.level,
                "method": request.method,
                "parameters": request.parameters,
                "input_fingerprint": request.input_fingerprint,
                "load_ids": list(request.load_ids),
                "code_version": request.code_version,
                "n_voters": request.n_voters,
                "n_systems": request.n_systems,
                "n_rows": ranking.height,
                "notes": list(request.notes),
                "previous_snapshot_id": previous_snapshot(warehouse, request),
            }
        ],
        schema=SNAPSHOT_MANIFEST,
    )
    atomic.write_parquet(manifest, manifest_path(warehouse, snapshot))
    return snapshot, True


def read_snapshot(warehouse: Warehouse, snapshot: str) -> tuple[dict[str, Any], pl.DataFrame]:
    """The manifest (as a dict) and ranking of a committed snapshot."""
    path = manifest_path(warehouse, snapshot)
    if not path.exists():
        raise NotFoundError(f"no snapshot {snapshot!r} in {warehouse.home}; list them with 'scorehouse snapshots'")
    manifest = pl.read_parquet(path, glob=False).row(0, named=True)
    ranking = snapshot_folder(warehouse, manifest["benchmark"], snapshot) / "ranking.parquet"
    check_commit(warehouse.home, "snapshots", snapshot, [ranking])
    return manifest, pl.read_parquet(ranking, glob=False)


def read_coverage(warehouse: Warehouse, benchmark: str, snapshot: str) -> pl.DataFrame:
    """The coverage of a snapshot (:data:`SNAPSHOT_COVERAGE`); no rows for a snapshot stored without one."""
    path = snapshot_folder(warehouse, benchmark, snapshot) / "coverage.parquet"
    return pl.read_parquet(path, glob=False) if path.exists() else pl.DataFrame(schema=SNAPSHOT_COVERAGE)


def read_arena(warehouse: Warehouse, benchmark: str, snapshot: str) -> pl.DataFrame | None:
    """The arena leaderboard of a snapshot (:data:`ARENA_LEADERBOARD`); None for a snapshot without one."""
    path = snapshot_folder(warehouse, benchmark, snapshot) / "arena.parquet"
    return pl.read_parquet(path, glob=False) if path.exists() else None


def read_intervals(warehouse: Warehouse, benchmark: str, snapshot: str) -> pl.DataFrame | None:
    """The bootstrap intervals a snapshot stores (:data:`SNAPSHOT_INTERVALS`); None for a snapshot without them
    (written before rank stored them, or over its budget: its notes say which)."""
    path = snapshot_folder(warehouse, benchmark, snapshot) / "intervals.parquet"
    return pl.read_parquet(path, glob=False) if path.exists() else None
