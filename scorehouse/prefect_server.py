"""The process of a ``serve``'s private Prefect server (:mod:`scorehouse.local_server`).

Prefect's API app with its services and UI, as ``prefect server start`` runs it, under uvicorn
on a loopback port bound here.  Its settings are set before Prefect is imported: the database
and Prefect home in the private folder, the UI pointed at this port (Prefect's default says
4200, so its UI could not connect), the auth string from the environment.  A watcher thread
stops the server once the ``serve`` that started it is gone (its parent pid changes when the
parent dies, ``kill -9`` included).

Run as ``python -m scorehouse.prefect_server --folder DIR --parent PID``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import threading
from pathlib import Path

from scorehouse.warehouse.atomic import write_text

POLL_SECONDS = 1.0
GRACE_SECONDS = 10.0


def watch_parent(parent: int, stop: threading.Event, on_gone) -> None:  # noqa: ANN001 - a callback
    """Call ``on_gone`` once the parent is gone; end the process if the server has not stopped in time after it."""
    while not stop.wait(POLL_SECONDS):
        if os.getppid() != parent:
            on_gone()
            if not stop.wait(GRACE_SECONDS):  # a shutdown held up by open connections or Prefect's services
                os._exit(0)
            return


def serve(folder: Path, parent: int) -> None:
    os.umask(0o077)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/api"
    os.environ.update({
        "PREFECT_HOME": str(folder),
        "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{folder / 'prefect.db'}",
        "PREFECT_SERVER_UI_API_URL": url,
        "PREFECT_UI_API_URL": url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    })
    import uvicorn
    from prefect.server.api.server import create_app

    server = uvicorn.Server(uvicorn.Config(app=create_app(final=True), log_level="warning"))
    stop = threading.Event()

    def shut_down() -> None:
        server.should_exit = True

    threading.Thread(target=watch_parent, args=(parent, stop, shut_down), daemon=True).start()
    # Written aside and renamed: a client polling for the state never reads half of it.
    write_text(json.dumps({"pid": os.getpid(), "url": url}), folder / "server.json")
    try:
        server.run(sockets=[listener])
    finally:
        stop.set()


def main() -> None:
    parser = argparse.ArgumentParser(prog=f"python -m {__spec__.name if __spec__ else 'scorehouse.prefect_server'}")
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--parent", type=int, required=True)
    args = parser.parse_args()
    serve(args.folder, args.parent)


if __name__ == "__main__":
    main()
