"""A local Prefect server for ``scorehouse serve``.

Prefect's scheduler runs only in a Prefect server: the in-process ephemeral
API that plain flow runs use cannot schedule.  When ``PREFECT_API_URL`` is not
set, ``scorehouse serve`` starts ``prefect server start`` on a free loopback
port for its own lifetime.  This module must not import Prefect: the API URL
has to be in the environment before Prefect reads its settings.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

START_TIMEOUT_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_healthy(server: subprocess.Popen, api: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(
                f"the local Prefect server exited with code {server.returncode}; run 'prefect server start' to see why"
            )
        try:
            with urllib.request.urlopen(f"{api}/health", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise RuntimeError(
        f"the local Prefect server did not answer within {START_TIMEOUT_SECONDS} s; "
        f"start one yourself ('prefect server start') and set PREFECT_API_URL"
    )


@contextmanager
def prefect_api() -> Iterator[str]:
    """The Prefect API to use: ``$PREFECT_API_URL``, or a local server started (and stopped) here."""
    existing = os.environ.get("PREFECT_API_URL")
    if existing:
        yield existing
        return
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    api = f"http://127.0.0.1:{port}/api"
    try:
        _wait_healthy(server, api)
        os.environ["PREFECT_API_URL"] = api
        print(f"started a local Prefect server at {api} (set PREFECT_API_URL to use your own)", flush=True)
        yield api
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
