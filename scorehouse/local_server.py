"""The private Prefect server of one ``serve``: loopback only, authenticated, private files, gone with it.

``serve`` needs a Prefect API for its schedule.  When none is configured it starts this one
(:func:`private_server`) and stops it when it ends.  Its files are in ``<home>/.serve/``, a
folder of mode 0700:

- ``secret`` (mode 0600): the home's API secret, made once.  The server refuses every request
  without it (Prefect's ``server.api.auth_string``, HTTP basic auth) except the health check, so
  another local user can neither create runs nor read them, and cannot read the secret.
- ``prefect.db``: the server's database (its run history), ``server.json`` (pid and URL, written
  once the socket is bound), ``server.log``.

The server process (:mod:`scorehouse.prefect_server`) watches the ``serve`` that started it and
stops within seconds once it is gone, even after a ``kill -9``; the next ``serve`` of the home
also ends a server an earlier one left, before it starts its own.  This module does not
import Prefect: the server is another process, started fresh (never a fork of this one).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from scorehouse.aggregators.errors import ScorehouseError

FOLDER = ".serve"
SERVER_MODULE = "scorehouse.prefect_server"
START_TIMEOUT_SECONDS = 120.0
STOP_TIMEOUT_SECONDS = 15.0


class ServerError(ScorehouseError):
    """The private Prefect server did not start; the message says where its log is."""

    retryable = True


@dataclass(frozen=True)
class PrivateServer:
    """A running private server: its API URL and the secret its clients send."""

    url: str
    secret: str
    pid: int


def server_folder(home: Path) -> Path:
    """``<home>/.serve``, made private (0700) if it is not."""
    folder = home / FOLDER
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    return folder


def home_secret(folder: Path) -> str:
    """The home's API secret (``secret``, mode 0600), made on first use."""
    path = folder / "secret"
    if not path.exists():
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(32))
    path.chmod(0o600)
    return path.read_text().strip()


def end_left_server(folder: Path) -> None:
    """End the server an earlier ``serve`` of this home left running (its ``server.json`` names it)."""
    state = folder / "server.json"
    try:
        pid = json.loads(state.read_text())["pid"]
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError, KeyError):
        state.unlink(missing_ok=True)
        return
    if SERVER_MODULE.encode() in command and str(folder).encode() in command:
        os.kill(pid, signal.SIGKILL)
    state.unlink(missing_ok=True)


@contextmanager
def private_server(home: Path) -> Iterator[PrivateServer]:
    """Start the home's private server for the ``with`` block; stop it after."""
    folder = server_folder(home.resolve())
    secret = home_secret(folder)
    end_left_server(folder)
    environment = {**os.environ, "PREFECT_SERVER_API_AUTH_STRING": secret}
    environment.pop("PREFECT_API_URL", None)
    with (folder / "server.log").open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", SERVER_MODULE, "--folder", str(folder), "--parent", str(os.getpid())],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=environment, start_new_session=True,
        )
    try:
        yield PrivateServer(wait_until_up(folder, process), secret, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        (folder / "server.json").unlink(missing_ok=True)


def wait_until_up(folder: Path, process: subprocess.Popen) -> str:
    """The server's API URL once ``/health`` answers; :class:`ServerError` if it ends or times out first."""
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerError(f"the private Prefect server ended at start (exit {process.returncode}); "
                              f"see {folder / 'server.log'}")
        try:
            url = json.loads((folder / "server.json").read_text())["url"]
            with urllib.request.urlopen(f"{url}/health", timeout=2) as response:  # noqa: S310 - our loopback URL
                response.read()
            return url
        except (OSError, ValueError, KeyError):
            time.sleep(0.25)
    process.kill()
    raise ServerError(f"the private Prefect server did not answer within {START_TIMEOUT_SECONDS:g} s; "
                      f"see {folder / 'server.log'}")
