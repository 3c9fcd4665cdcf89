"""The local Prefect server of a warehouse home: found, started on demand, shared, stopped when idle.

Starting Prefect's temporary in-process API (and migrating its database) cost
every command about 15 s.  So, unless ``PREFECT_API_URL`` names a server, the
first command that runs a flow starts one local Prefect server for its
warehouse home in the background (:mod:`flows.server_daemon`), and later
commands reuse it.  Its files live in ``$PREFECT_HOME/scorehouse-servers/<key>/``
(``key`` a hash of the home's absolute path): ``state.json`` (pid, API URL,
idle limit), ``prefect.db`` (its database, unless
``PREFECT_API_DATABASE_CONNECTION_URL`` names one), ``server.log``, and two
lock files:

- ``start.lock``, exclusive, held by whoever checks, starts or stops the
  server, so two commands started at once see one server (the second waits
  for the first to start it, then finds it);
- ``users.lock``, shared, held by every command for its whole life.  The
  server stops itself once it has been able to take this lock exclusively
  (nobody using it) for the idle period.  A lock of a killed process
  (``kill -9``) is released by the OS, so a dead command never keeps the
  server alive: at worst it runs for one idle period more.

A server is live when its pid runs our daemon and its ``/health`` answers; a
state file of a crashed or hung server is stale, its process (if ours) is
killed and a new server replaces it.  This module must not import Prefect:
``PREFECT_API_URL`` has to be in the environment before Prefect reads it.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from scorehouse.warehouse.atomic import file_lock
from scorehouse.warehouse.names import resolve_home

MODE_ENV = "SCOREHOUSE_PREFECT"  # "server" (default): the shared local server; "ephemeral": Prefect's per-process API
IDLE_ENV = "SCOREHOUSE_SERVER_IDLE_SECONDS"
DEFAULT_IDLE_SECONDS = 300
START_TIMEOUT_SECONDS = 120
STOP_TIMEOUT_SECONDS = 30
DAEMON_MODULE = "scorehouse.flows.server_daemon"


class ServerError(RuntimeError):
    """The local Prefect server could not be started or stopped; the message says where its log is."""


@dataclass(frozen=True)
class ServerFiles:
    """Where the local server of one warehouse home keeps its state."""

    folder: Path

    @property
    def state(self) -> Path:
        return self.folder / "state.json"

    @property
    def start_lock(self) -> Path:
        return self.folder / "start.lock"

    @property
    def users_lock(self) -> Path:
        return self.folder / "users.lock"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    @property
    def database_url(self) -> str:
        return f"sqlite+aiosqlite:///{self.folder / 'prefect.db'}"


@dataclass(frozen=True)
class ServerState:
    """What ``state.json`` records of a running server."""

    pid: int
    url: str
    idle_seconds: float


def prefect_home() -> Path:
    """``$PREFECT_HOME``, else Prefect's default ``~/.prefect`` (read here without importing Prefect)."""
    return Path(os.environ.get("PREFECT_HOME") or "~/.prefect").expanduser().resolve()


def server_files(home: str | Path | None, prefect_folder: Path | None = None) -> ServerFiles:
    """The server folder of the warehouse at ``home`` (``--home``, ``$SCOREHOUSE_HOME`` or the default).

    ``prefect_folder`` is the Prefect home it is under (default :func:`prefect_home`).
    """
    key = hashlib.sha256(str(resolve_home(home).resolve()).encode()).hexdigest()[:16]
    return ServerFiles((prefect_folder or prefect_home()) / "scorehouse-servers" / key)


def idle_seconds() -> float:
    """The idle period after which a server started now stops: ``$SCOREHOUSE_SERVER_IDLE_SECONDS``, default 300."""
    raw = os.environ.get(IDLE_ENV, str(DEFAULT_IDLE_SECONDS))
    try:
        value = float(raw)
    except ValueError:
        raise ServerError(f"{IDLE_ENV} must be a number of seconds, got {raw!r}") from None
    if value <= 0:
        raise ServerError(f"{IDLE_ENV} must be > 0, got {raw!r}")
    return value


def read_state(files: ServerFiles) -> ServerState | None:
    try:
        return ServerState(**json.loads(files.state.read_text()))
    except (FileNotFoundError, json.JSONDecodeError, TypeError):
        return None


def is_daemon(pid: int) -> bool:
    """Whether ``pid`` is alive and runs :mod:`flows.server_daemon` (not a recycled pid of another program)."""
    try:
        os.kill(pid, 0)
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (ProcessLookupError, PermissionError, FileNotFoundError):
        return False
    return DAEMON_MODULE.encode() in cmdline


def healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=timeout) as answer:
            return answer.status == 200
    except OSError:
        return False


def live_state(files: ServerFiles) -> ServerState | None:
    """The recorded server when it runs and answers; None when there is none or it is stale."""
    state = read_state(files)
    if state is None or not is_daemon(state.pid) or not healthy(state.url):
        return None
    return state


def terminate(pid: int) -> None:
    """SIGTERM ``pid`` (a daemon: it shuts uvicorn down), SIGKILL after the stop timeout."""
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
    while is_daemon(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if is_daemon(pid):
        os.kill(pid, signal.SIGKILL)


def clear_stale(files: ServerFiles) -> None:
    """Kill the recorded server if it is ours but does not answer, and forget it (call with the start lock)."""
    state = read_state(files)
    if state is not None and is_daemon(state.pid):
        terminate(state.pid)
    files.state.unlink(missing_ok=True)


def launch(files: ServerFiles, idle: float) -> ServerState:
    """Start the daemon in its own session and wait for it to answer (call with the start lock)."""
    env = {key: value for key, value in os.environ.items() if key != "PREFECT_API_URL"}
    env.setdefault("PREFECT_API_DATABASE_CONNECTION_URL", files.database_url)
    env.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    env.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")
    files.folder.mkdir(parents=True, exist_ok=True)
    with open(files.log, "a") as log:
        daemon = subprocess.Popen(
            [sys.executable, "-m", DAEMON_MODULE, "--folder", str(files.folder), "--idle", str(idle)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True,
        )
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            raise ServerError(f"the local Prefect server exited with code {daemon.returncode}; see {files.log}")
        state = read_state(files)
        if state is not None and state.pid == daemon.pid and healthy(state.url):
            return state
        time.sleep(0.2)
    terminate(daemon.pid)
    raise ServerError(f"the local Prefect server did not answer within {START_TIMEOUT_SECONDS} s; see {files.log}")


def live_or_started(files: ServerFiles) -> tuple[ServerState, bool]:
    """The live server, or a new one replacing a stale one; and whether it is new (call with the start lock)."""
    state = live_state(files)
    if state is not None:
        return state, False
    clear_stale(files)
    return launch(files, idle_seconds()), True


def ensure_server(files: ServerFiles) -> tuple[ServerState, bool]:
    """``scorehouse server start``: the live server, started when there is none; and whether it is new."""
    with file_lock(files.start_lock):
        return live_or_started(files)


def stop_server(files: ServerFiles) -> ServerState | None:
    """Stop the recorded server (if it runs); return what was stopped."""
    with file_lock(files.start_lock):
        state = read_state(files)
        running = state is not None and is_daemon(state.pid)
        if running:
            terminate(state.pid)
        files.state.unlink(missing_ok=True)
        return state if running else None


@contextmanager
def prefect_api(home: str | Path | None, needs_server: bool = False) -> Iterator[str | None]:
    """The Prefect API for one command: ``$PREFECT_API_URL``, or the home's shared local server.

    With ``SCOREHOUSE_PREFECT=ephemeral`` (the test suite sets it) a command
    that does not need a server (``needs_server``: serving schedules does)
    uses Prefect's temporary in-process API, as Prefect does by default;
    this yields None then.  Otherwise the server is held in use for the block
    (``users.lock`` shared), taken before the start lock is released: the
    daemon takes both before it stops, so it cannot stop between this call
    finding it and holding it.  Its URL goes into ``PREFECT_API_URL``, so
    this process must import Prefect only inside the block.
    """
    configured = os.environ.get("PREFECT_API_URL")
    if configured:
        yield configured
        return
    mode = os.environ.get(MODE_ENV, "server")
    if mode not in ("server", "ephemeral"):
        raise ServerError(f"{MODE_ENV} must be 'server' or 'ephemeral', got {mode!r}")
    if mode == "ephemeral" and not needs_server:
        yield None
        return
    files = server_files(home)
    with ExitStack() as in_use:
        with file_lock(files.start_lock):
            state, started = live_or_started(files)
            in_use.enter_context(file_lock(files.users_lock, shared=True))
        if started:
            print(f"started a local Prefect server at {state.url} for this warehouse (it stops after "
                  f"{state.idle_seconds:g} s unused; 'scorehouse server stop' stops it now)", file=sys.stderr, flush=True)
        os.environ["PREFECT_API_URL"] = state.url
        try:
            yield state.url
        finally:
            os.environ.pop("PREFECT_API_URL", None)
