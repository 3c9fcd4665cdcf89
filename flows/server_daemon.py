"""The process of a local Prefect server (started by :mod:`flows.local_server`): serve, and stop when idle.

One process: Prefect's API app (with its services, as ``prefect server
start`` runs it) under uvicorn on a loopback port bound here, and a watcher
thread.  The state file is written once the socket is bound; the starter
waits for ``/health``.  The watcher stops the server once nobody has held
``users.lock`` for the idle period, taking the start lock first (see
:mod:`flows.local_server` for the lock order) and removing the state file
before it lets the start lock go, so a command arriving then starts a new
server instead of finding a stopping one.

Run as ``python -m flows.server_daemon --folder DIR --idle SECONDS``.
"""

from __future__ import annotations

import argparse
import os
import socket
import threading
import time
from pathlib import Path

from scorehouse.flows.local_server import ServerFiles
from scorehouse.warehouse.atomic import file_lock, write_json


def watch_idle(files: ServerFiles, idle: float, stop: threading.Event, on_idle) -> None:  # noqa: ANN001 - a callback
    """Call ``on_idle`` once ``users.lock`` has been free for ``idle`` seconds (state file removed first)."""
    poll = min(1.0, idle / 5)
    idle_since = time.monotonic()
    while not stop.wait(poll):
        with file_lock(files.start_lock, wait=False) as starting:
            if not starting:
                idle_since = time.monotonic()
                continue
            with file_lock(files.users_lock, wait=False) as unused:
                if not unused:
                    idle_since = time.monotonic()
                    continue
                if time.monotonic() - idle_since >= idle:
                    files.state.unlink(missing_ok=True)
                    on_idle()
                    return


def serve(files: ServerFiles, idle: float) -> None:
    import uvicorn
    from prefect.server.api.server import create_app

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/api"
    server = uvicorn.Server(uvicorn.Config(
        app=create_app(final=True), log_level=os.environ.get("PREFECT_SERVER_LOGGING_LEVEL", "warning").lower(),
    ))
    write_json({"pid": os.getpid(), "url": url, "idle_seconds": idle}, files.state)
    stop = threading.Event()

    def shut_down() -> None:
        server.should_exit = True

    watcher = threading.Thread(target=watch_idle, args=(files, idle, stop, shut_down), daemon=True)
    watcher.start()
    try:
        server.run(sockets=[listener])
    finally:
        stop.set()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m flows.server_daemon")
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--idle", type=float, required=True)
    args = parser.parse_args()
    serve(ServerFiles(args.folder), args.idle)


if __name__ == "__main__":
    main()
