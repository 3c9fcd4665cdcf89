"""The refresh flow of scheduled ingestion, and serving it on a schedule.

``refresh_flow`` ingests the files waiting in an inbox, moves them out, and
re-ranks the benchmarks whose inputs changed; then, new files or not, it ranks
again every benchmark whose latest snapshots were not computed from its current
inputs (:func:`flows.rank.reconciled_warehouse`: a refresh killed between a
load's commit and its rank, a plain ``ingest``), so rankings always follow the
committed scores.  With ``reparse`` it also
re-derives the loads an older parser version made
(:func:`flows.ingest.reparse_stale`).  ``serve_refresh`` serves it as a
Prefect deployment on a cron schedule (Prefect's scheduler needs a Prefect
server: see :mod:`flows.local_server`).  Runs of one inbox never overlap:
each holds the inbox's lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from prefect import flow

from scorehouse.flows.common import io_task
from scorehouse.flows.ingest import FileOutcome, ingest_files, log_outcome, refresh_catalog_after, reparse_stale
from scorehouse.flows.lineage import lineage_notices, stale_loads
from scorehouse.flows.rank import BenchmarkOutcome, rank_flow, reconciled_warehouse
from scorehouse.flows.serving import serve_until_stopped
from scorehouse.warehouse.inbox import inbox_lock, move_out, new_files
from scorehouse.warehouse.storage import Warehouse

DEPLOYMENT_NAME = "scorehouse-refresh"


@dataclass
class RefreshReport:
    files: list[FileOutcome] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    ranked: list[BenchmarkOutcome] = field(default_factory=list)
    reparsed: list[FileOutcome] = field(default_factory=list)  # loads re-derived from the raw archive
    stale_loads: int = 0  # current loads made by an older parser version, left as they are

    @property
    def nothing_new(self) -> bool:
        return not self.files and not self.reparsed and not self.ranked

    @property
    def notices(self) -> list[str]:
        """Loads re-parsed, or left to an older parser."""
        return lineage_notices(sum(f.status == "loaded" for f in self.reparsed), self.stale_loads)


@io_task
def move_file(path: Path, inbox: Path, status: str) -> str:
    return str(move_out(path, inbox, status))


@flow(name="refresh", log_prints=False)
def refresh_flow(inbox: str, home: str | None = None, reparse: bool = False) -> RefreshReport:
    """Ingest what is new in ``inbox``, move it out, re-rank the benchmarks it changed.

    ``reparse`` also re-derives the loads an older parser version made, inbox or not.
    """
    inbox_path = Path(inbox)
    with inbox_lock(inbox_path):
        return _refresh(inbox_path, home, reparse)


def _refresh(inbox_path: Path, home: str | None, reparse: bool) -> RefreshReport:
    files = new_files(inbox_path)
    report = RefreshReport()
    if not files and not reparse:
        report.ranked = reconciled_warehouse(home)
        return report
    warehouse = Warehouse(home)
    report.files = ingest_files(warehouse, files, None, None, False, progress=False)
    if reparse:
        report.reparsed = reparse_stale(warehouse, trust_pickle=False)
    else:
        report.stale_loads = stale_loads(warehouse).height
    outcomes = report.files + report.reparsed
    refresh_catalog_after(warehouse, outcomes)
    log_outcome(outcomes)
    report.moved = [move_file(Path(f.path), inbox_path, f.status) for f in report.files]
    changed = sorted({b for f in outcomes if f.status == "loaded" for b in f.benchmarks})
    if changed:
        report.ranked = rank_flow(home=home, benchmarks=changed)
    report.ranked += reconciled_warehouse(home)
    return report


def serve_refresh(inbox: str, home: str | None, cron: str | None, interval: int | None) -> None:
    """Serve ``refresh_flow`` on a schedule until SIGTERM or Ctrl-C (:mod:`flows.serving`)."""
    if (cron is None) == (interval is None):
        raise ValueError("give exactly one of --cron or --interval")
    serve_until_stopped(refresh_flow, DEPLOYMENT_NAME, cron, interval,
                        {"inbox": str(Path(inbox).resolve()), "home": str(Warehouse(home).home)})
