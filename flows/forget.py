"""Retracting mistaken loads from the current view (``scorehouse forget LOAD_ID`` or ``--benchmark B``).

A load is current while it is the newest load of its source (:data:`warehouse.sql.LOAD`); a corrected
dump supersedes the old one that way.  Forgetting a load commits a *retraction*: a load of the same
source, newer, holding nothing (format :data:`RETRACTION`).  The forgotten load's rows leave the current
views (``scores``, ``battles``, ``systems``, the coverage ranking reads) and stay in ``scores_history``
and the raw archive; snapshots ranked from it are never modified.  Ingesting the same file again makes
it current again (a revert, :mod:`flows.ingest_plan`).  The catalog is rebuilt at once; re-ranking the
benchmarks that changed is the command's next step (:func:`scorehouse.commands.cmd_forget`): the rank flow
ranks the defaults and then every latest series the retraction made stale, as recorded (the reconciliation,
:func:`flows.rank.reconcile_rankings`).  A benchmark left with no current load is not ranked, and the
catalog's ``latest_snapshots`` leaves it out, so its old rankings are not shown as current.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

import polars as pl

from scorehouse.aggregators.errors import UsageError
from scorehouse.flows.catalog_state import ensure_current_catalog
from scorehouse.warehouse.schema import QUARANTINE, SCORES
from scorehouse.warehouse.storage import LoadRecord, NewLoad, Warehouse

RETRACTION = "forgotten"  # the format of a retraction's manifest: no parser reads it


class ForgetError(UsageError, ValueError):
    """What to forget names no current load: the command says which and exits 2."""


@dataclass(frozen=True)
class Forgotten:
    """A retracted load: its id, file, benchmarks and rows, and the retraction that made it no longer current."""

    load_id: str
    file_name: str
    benchmarks: tuple[str, ...]
    rows: int
    retraction: str


def chosen_loads(warehouse: Warehouse, load_ids: list[str], benchmark: str | None) -> pl.DataFrame:
    """The current loads' manifests named by ``load_ids`` or scoring ``benchmark``; ForgetError naming what is not."""
    manifests = warehouse.manifests()
    current = manifests.filter(pl.col("is_current") & (pl.col("format") != RETRACTION))
    if benchmark is not None:
        chosen = current.filter(pl.col("benchmark").str.split(",").list.contains(benchmark))
        if chosen.height == 0:
            raise ForgetError(f"no current load scores benchmark {benchmark!r}; see them with: "
                              "scorehouse sql \"SELECT load_id, benchmark, file_name FROM loads WHERE is_current\"")
        return chosen
    chosen = current.filter(pl.col("load_id").is_in(load_ids))
    missing = sorted(set(load_ids) - set(chosen.get_column("load_id").to_list()))
    if missing:
        known = set(manifests.get_column("load_id").to_list())
        said = [f"{m} ({'no longer current: superseded or forgotten already' if m in known else 'no such load'})"
                for m in missing]
        raise ForgetError(f"cannot forget {', '.join(said)}; the current loads are in: "
                          "scorehouse sql \"SELECT load_id, benchmark, file_name FROM loads WHERE is_current\"")
    return chosen


def retraction_of(load: dict, at: datetime) -> LoadRecord:
    """The manifest of the load that retracts ``load`` (a manifest row) at ``at``: its source, nothing in it."""
    load_id = hashlib.sha256(f"{load['load_id']}|forgotten-at|{at.isoformat()}".encode()).hexdigest()[:20]
    return LoadRecord(
        load_id=load_id, source=load["source"], file_name=load["file_name"], sha256="", format=RETRACTION,
        parser_version=1, benchmark=load["benchmark"], rows_in=0, rows_landed=0, rows_quarantined=0,
    )


def forget_loads(home: str | None, load_ids: list[str], benchmark: str | None = None) -> list[Forgotten]:
    """Retract the current loads ``load_ids`` (or every current load of ``benchmark``) and rebuild the catalog."""
    warehouse = Warehouse(home)
    with warehouse.write_lock():
        chosen = chosen_loads(warehouse, load_ids, benchmark)
        at = datetime.now(UTC)
        retractions = [(load, retraction_of(load, at)) for load in chosen.iter_rows(named=True)]
        warehouse.write_loads([NewLoad(record, pl.DataFrame(schema=SCORES), pl.DataFrame(schema=QUARANTINE), at)
                               for _, record in retractions])
    ensure_current_catalog(warehouse)
    return [Forgotten(load["load_id"], load["file_name"], tuple(load["benchmark"].split(",")), load["rows_landed"],
                      record.load_id) for load, record in retractions]
