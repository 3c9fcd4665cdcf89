"""The main job (``make run``, ``scorehouse run``) as one flow: ingest the bundled dumps, rank, export the report and site.

It composes the ingest and rank flows (as subflows) and the report export (an
I/O task): the bundled real dumps are ingested, every benchmark is ranked at
its natural level with the default methods, and the latest rankings are
written as ``report.html`` in the warehouse home, and as the static leaderboard
site in ``<home>/site`` next to it (:mod:`reports.site`).  The bundled pickles are
left out: they are fixtures of the ``--trust-pickle`` path, and unpickling
runs code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

from scorehouse import runtime
from scorehouse.flows.ingest import IngestReport, expand_paths, ingest_flow
from scorehouse.flows.rank import BenchmarkOutcome, rank_flow
from scorehouse.reports.site.build import build_report_and_site
from scorehouse.warehouse.queries import latest_snapshot_ids
from scorehouse.warehouse.storage import Warehouse

# The package scorehouse.data (the repository's data/, installed with the wheel) is a folder on disk.
BUNDLED_DATA = Path(str(files("scorehouse.data") / "bundled"))
REPORT_NAME = "report.html"
SITE_NAME = "site"


@dataclass
class RunReport:
    """What the main job did."""

    ingest: IngestReport
    pickles_left_out: list[str] = field(default_factory=list)
    ranked: list[BenchmarkOutcome] = field(default_factory=list)
    report: str | None = None
    site: str | None = None


@runtime.step(io=True)
def export_latest(warehouse: Warehouse) -> tuple[str, str]:
    """Write the HTML report (``<home>/report.html``) and the static leaderboard site (``<home>/site``) of the
    latest snapshot of every method, from one computation of what they show."""
    report, site = build_report_and_site(warehouse, latest_snapshot_ids(warehouse), warehouse.home / REPORT_NAME,
                                         warehouse.home / SITE_NAME)
    return str(report), str(site)


@runtime.flow("run")
def run_flow(home: str | None = None, data: str | None = None, progress: bool = False) -> RunReport:
    """Ingest ``data`` (default: the bundled dumps, pickles left out), rank every benchmark, export the report."""
    files, _, _ = expand_paths([data or BUNDLED_DATA])
    pickles = [f for f in files if f.suffix == ".pickle"]
    root = Path(data or BUNDLED_DATA)
    kept = [f for f in files if f not in pickles]
    ingested = runtime.run(ingest_flow, [str(f) for f in kept], home=home, trust_pickle=False, progress=progress,
                           places={str(f): f.relative_to(root).as_posix() for f in kept} if root.is_dir() else None)
    ranked = runtime.run(rank_flow, home=home, progress=progress)
    warehouse = Warehouse(home)
    report, site = runtime.call(export_latest, warehouse)
    return RunReport(ingested, [str(p) for p in pickles], ranked, report, site)
