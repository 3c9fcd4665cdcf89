"""The refresh flow of scheduled ingestion, and serving it on a schedule.

``refresh_flow`` ingests the files waiting in an inbox, moves them out, and
re-ranks only the benchmarks whose inputs changed; with nothing new it does
nothing at all (no catalog rebuild, no ranking).  ``serve_refresh`` serves it
as a Prefect deployment on a cron schedule.  Prefect's scheduler needs a
Prefect server (the in-process ephemeral one cannot schedule), so when
``PREFECT_API_URL`` is not set a local server is started on 127.0.0.1 for
the lifetime of the command and stopped with it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from flows.common import refresh_catalog
from flows.ingest import FileOutcome, ingest_files
from flows.rank import BenchmarkOutcome, rank_flow
from warehouse.inbox import move_out, new_files
from warehouse.storage import Warehouse

DEPLOYMENT_NAME = "scorehouse-refresh"
SERVER_START_TIMEOUT_SECONDS = 120


@dataclass
class RefreshReport:
    files: list[FileOutcome] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    ranked: list[BenchmarkOutcome] = field(default_factory=list)

    @property
    def nothing_new(self) -> bool:
        return not self.files


@task(retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def move_file(path: Path, inbox: Path, status: str) -> str:
    return str(move_out(path, inbox, status))


@flow(name="refresh", log_prints=False)
def refresh_flow(inbox: str, home: str | None = None) -> RefreshReport:
    """Ingest what is new in ``inbox``, move it out, re-rank the benchmarks it changed."""
    inbox_path = Path(inbox)
    files = new_files(inbox_path)
    report = RefreshReport()
    if not files:
        return report
    warehouse = Warehouse(home)
    report.files = ingest_files(warehouse, files, None, None, False, progress=False)
    if any(f.status == "loaded" for f in report.files) or not warehouse.catalog_path.exists():
        refresh_catalog(warehouse)
    report.moved = [move_file(Path(f.path), inbox_path, f.status) for f in report.files]
    changed = sorted({b for f in report.files if f.status == "loaded" for b in f.benchmarks})
    if changed:
        report.ranked = rank_flow(home=home, benchmarks=changed)
    return report


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_local_server() -> tuple[subprocess.Popen, str]:
    """Start ``prefect server start`` on a free loopback port; return it and its API URL."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    api = f"http://127.0.0.1:{port}/api"
    deadline = time.monotonic() + SERVER_START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the local Prefect server exited with code {server.returncode}; run 'prefect server start' to see why")
        try:
            with urllib.request.urlopen(f"{api}/health", timeout=2):
                return server, api
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise RuntimeError(
        f"the local Prefect server did not answer within {SERVER_START_TIMEOUT_SECONDS} s; "
        f"start one yourself and set PREFECT_API_URL"
    )


def serve_refresh(inbox: str, home: str | None, cron: str | None, interval: int | None) -> None:
    """Serve ``refresh_flow`` on a schedule until interrupted."""
    if (cron is None) == (interval is None):
        raise ValueError("give exactly one of --cron or --interval")
    server = None
    if not os.environ.get("PREFECT_API_URL"):
        server, api = start_local_server()
        os.environ["PREFECT_API_URL"] = api
        print(f"started a local Prefect server at {api} (set PREFECT_API_URL to use your own)", flush=True)
    try:
        refresh_flow.serve(
            name=DEPLOYMENT_NAME,
            cron=cron,
            interval=interval,
            parameters={"inbox": str(Path(inbox).resolve()), "home": str(Warehouse(home).home)},
        )
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
