"""A real Prefect server (``prefect server start``) for the tests of recorded runs, and the CLI as users run it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GLUE = REPO / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - GLUE.csv"
PREFECT = Path(sys.executable).parent / "prefect"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass(frozen=True)
class PrefectApi:
    """A running Prefect server: its API URL, and what it has recorded."""

    url: str

    def post(self, path: str, body: dict) -> list | dict:
        request = urllib.request.Request(f"{self.url}/{path}", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def flow_runs(self) -> list[dict]:
        """Every flow run, with its flow's name under ``flow_name``, oldest first."""
        flows = {f["id"]: f["name"] for f in self.post("flows/filter", {})}
        runs = self.post("flow_runs/filter", {"sort": "EXPECTED_START_TIME_ASC"})
        return [{**r, "flow_name": flows[r["flow_id"]]} for r in runs]

    def task_runs(self, flow_run_id: str) -> list[dict]:
        return self.post("task_runs/filter", {"flow_runs": {"id": {"any_": [flow_run_id]}}})


def wait_for_health(url: str, process: subprocess.Popen, log: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"the Prefect server did not start in {timeout} s:\n{log.read_text()}")


@pytest.fixture(scope="session")
def prefect_api(tmp_path_factory) -> Iterator[PrefectApi]:
    """``prefect server start`` on a free loopback port, with its own Prefect home; stopped after the session."""
    folder = tmp_path_factory.mktemp("prefect-server")
    port = free_port()
    env = {**os.environ, "PREFECT_HOME": str(folder), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{folder / 'prefect.db'}"}
    env.pop("PREFECT_API_URL", None)
    log = folder / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen([str(PREFECT), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                                   env=env, stdout=out, stderr=out, start_new_session=True)
    url = f"http://127.0.0.1:{port}/api"
    try:
        wait_for_health(url, process, log)
        yield PrefectApi(url)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def scorehouse(home: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    """``scorehouse --home HOME ARGS`` as a user runs it: a process of its own, output captured."""
    return subprocess.run([sys.executable, "-m", "scorehouse", "--home", str(home), *args],
                          cwd=cwd or home.parent, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=timeout)


def processes_naming(folder: Path) -> list[str]:
    """``ps`` lines of the processes (other than this one) whose command line names a path under ``folder``."""
    listing = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in listing.splitlines()
            if str(folder) in line and int(line.split(None, 1)[0]) != os.getpid()]
