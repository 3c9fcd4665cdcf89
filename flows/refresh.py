"""The refresh flow of scheduled ingestion, and serving it on a schedule.

``refresh_flow`` ingests the files waiting in an inbox, moves them out, and
re-ranks only the benchmarks whose inputs changed; with nothing new it does
nothing at all (no catalog rebuild, no ranking).  ``serve_refresh`` serves it
as a Prefect deployment on a cron schedule (Prefect's scheduler needs a
Prefect server: see :mod:`flows.prefect_server`).  Runs of one inbox never
overlap: each holds the inbox's lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from prefect import flow

from flows.common import io_task
from flows.ingest import FileOutcome, ingest_files, refresh_catalog_after
from flows.rank import BenchmarkOutcome, rank_flow
from warehouse.inbox import inbox_lock, move_out, new_files
from warehouse.storage import Warehouse

DEPLOYMENT_NAME = "scorehouse-refresh"


@dataclass
class RefreshReport:
    files: list[FileOutcome] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    ranked: list[BenchmarkOutcome] = field(default_factory=list)

    @property
    def nothing_new(self) -> bool:
        return not self.files


@io_task
def move_file(path: Path, inbox: Path, status: str) -> str:
    return str(move_out(path, inbox, status))


@flow(name="refresh", log_prints=False)
def refresh_flow(inbox: str, home: str | None = None) -> RefreshReport:
    """Ingest what is new in ``inbox``, move it out, re-rank the benchmarks it changed."""
    inbox_path = Path(inbox)
    with inbox_lock(inbox_path):
        return _refresh(inbox_path, home)


def _refresh(inbox_path: Path, home: str | None) -> RefreshReport:
    files = new_files(inbox_path)
    report = RefreshReport()
    if not files:
        return report
    warehouse = Warehouse(home)
    report.files = ingest_files(warehouse, files, None, None, False, progress=False)
    refresh_catalog_after(warehouse, report.files)
    report.moved = [move_file(Path(f.path), inbox_path, f.status) for f in report.files]
    changed = sorted({b for f in report.files if f.status == "loaded" for b in f.benchmarks})
    if changed:
        report.ranked = rank_flow(home=home, benchmarks=changed)
    return report


def serve_refresh(inbox: str, home: str | None, cron: str | None, interval: int | None) -> None:
    """Serve ``refresh_flow`` on a schedule until interrupted."""
    if (cron is None) == (interval is None):
        raise ValueError("give exactly one of --cron or --interval")
    refresh_flow.serve(
        name=DEPLOYMENT_NAME,
        cron=cron,
        interval=interval,
        parameters={"inbox": str(Path(inbox).resolve()), "home": str(Warehouse(home).home)},
    )
