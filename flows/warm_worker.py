"""A warm process for flow commands: Prefect and the flows imported once, each command a forked child.

A command that runs a flow spends about 1.2 s importing Prefect, pydantic, the
flows and the aggregators before its first line of work, more than the work
itself of a re-ingest or a one-method rank.  Beside the shared local server
(:mod:`flows.local_server`), a worker process per warehouse home imports them
once and waits on a Unix socket; the ``scorehouse`` command of a flow
(``ingest``, ``rank``, ``arena``, ``refresh``, ``analyze``, ``run``) sends it
its arguments, working directory, environment and its stdin, stdout and
stderr (the descriptors themselves, so a terminal is still a terminal), and
the worker forks a child that runs the command exactly as the command would
(:func:`flows.cli.main`, its exit handlers included) and sends back the exit
code.  Ctrl-C or a SIGTERM to the command is passed on to the child.  The
flow runs are the same Prefect flow runs on the same server.

The worker serves a command only if nothing it imported could differ:

- the environment: every ``PREFECT_*`` and ``SCOREHOUSE_*`` variable and the
  Python executable are those the worker started with;
- the code: the project's files (names, sizes, modification times of the
  sources and the data they ship) and the installed packages (the
  site-packages folder's modification time);
- the server: the home's live server is the one whose URL the worker's
  Prefect read at import.

Otherwise it refuses (and exits, when the code or the server changed), and the
command runs in its own process as before, and starts a fresh worker in the
background when it is done, for the next one.  The worker exits when its server is gone
(stopped by ``scorehouse server stop`` or idle) and after the server's idle
period without a command.  Only the ``scorehouse`` entry point uses it (tests
call :func:`flows.cli.main`); ``SCOREHOUSE_WORKER=off`` turns it off, and it is
used only with the shared local server (not with ``PREFECT_API_URL`` or
``SCOREHOUSE_PREFECT=ephemeral``).

Files: the socket is ``$TMPDIR/scorehouse-workers-<uid>/<key>.sock`` (short, as
Unix socket paths must be; the folder is this user's alone), ``worker.lock`` (held by the live worker, so two
never serve one home) and ``worker.log`` in the server's folder.

Run as ``python -m flows.warm_worker --folder DIR``.
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from scorehouse.flows.cli import flush_streams
from scorehouse.flows.local_server import MODE_ENV, ServerFiles, idle_seconds, is_daemon, live_state, read_state, server_files
from scorehouse.warehouse.atomic import file_lock

SWITCH_ENV = "SCOREHOUSE_WORKER"  # "off": every command runs in its own process
WORKER_MODULE = "scorehouse.flows.warm_worker"
REPO = Path(__file__).resolve().parent.parent
SOURCE_FOLDERS = ("scorehouse.flows", "scorehouse.warehouse", "scorehouse.transforms", "scorehouse.aggregators", "scorehouse.reports")
# What a child would import lazily, imported once here (the default rank methods' solvers included).
WARM_IMPORTS = (
    "prefect", "scorehouse.flows.commands", "scorehouse.flows.ingest", "scorehouse.flows.rank", "scorehouse.flows.arena", "scorehouse.flows.refresh", "scorehouse.flows.analyze",
    "scorehouse.flows.run", "scipy.optimize", "scipy.sparse.csgraph", "scipy.special", "pyarrow.compute",
)
POLL_SECONDS = 1.0
REFUSED, STARTED, EXITED = b"R", b"P", b"X"


def socket_path(files: ServerFiles) -> Path:
    """Short (a Unix socket path has at most 107 bytes) and in a folder only this user can enter:
    whoever connects runs commands as this user."""
    key = hashlib.sha256(str(files.folder).encode()).hexdigest()[:20]
    return Path(tempfile.gettempdir()) / f"scorehouse-workers-{os.getuid()}" / f"{key}.sock"


def lock_path(files: ServerFiles) -> Path:
    return files.folder / "worker.lock"


# Variables read when the worker imports: Prefect's and ours, and those of the numeric
# libraries (thread pools are sized on load) and of Python itself.
IMPORT_TIME_PREFIXES = ("PREFECT_", "SCOREHOUSE_", "OPENBLAS_", "OMP_", "MKL_", "POLARS_", "PYTHON")


def environment_key(env: dict[str, str]) -> str:
    """The variables that decide what the imported modules are (``PREFECT_API_URL`` is set by the command)."""
    chosen = sorted((k, v) for k, v in env.items() if k.startswith(IMPORT_TIME_PREFIXES) and k != "PREFECT_API_URL")
    return hashlib.sha256(json.dumps([sys.executable, chosen]).encode()).hexdigest()


def code_key() -> str:
    """The project's files (names, sizes, modification times: sources and the data they ship, such as
    the default metric rules) and the installed packages' folder."""
    facts = []
    for folder in SOURCE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                stat = path.stat()
                facts.append((str(path), stat.st_size, stat.st_mtime_ns))
    facts.append(("site-packages", Path(sysconfig.get_paths()["purelib"]).stat().st_mtime_ns))
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()


def enabled(env: dict[str, str]) -> bool:
    return env.get(SWITCH_ENV, "on") != "off" and not env.get("PREFECT_API_URL") and env.get(MODE_ENV, "server") == "server"


# --- the command's side -------------------------------------------------------------------------


def run_in_worker(home: str | None, argv: list[str]) -> int | None:
    """Run ``scorehouse argv`` in the home's worker: its exit code, or None when no worker answers or it refuses."""
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(str(socket_path(server_files(home))))
    except OSError:
        return None
    with connection:
        request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ),
                   "environment": environment_key(dict(os.environ)), "code": code_key()}
        payload = json.dumps(request).encode()
        socket.send_fds(connection, [struct.pack("!I", len(payload)) + payload], [0, 1, 2])
        if receive_exactly(connection, 1) != STARTED:
            return None
        (child,) = struct.unpack("!i", receive_exactly(connection, 4))
        forwarded = {sig: signal.signal(sig, lambda number, _frame: os.kill(child, number))
                     for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            ended = receive_exactly(connection, 5)
        finally:
            for sig, handler in forwarded.items():
                signal.signal(sig, handler)
    if not ended or ended[:1] != EXITED:
        print("scorehouse: the command's process in the warm worker ended without an exit code", file=sys.stderr)
        return 1
    return struct.unpack("!i", ended[1:])[0]


def receive_exactly(connection: socket.socket, size: int) -> bytes:
    """``size`` bytes, or fewer if the other side closed."""
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def start_if_absent(home: str | None, env: dict[str, str]) -> None:
    """After a command that ran in its own process: start the home's worker, detached, with the
    command's environment as it started (``env``), if the home's server runs and no worker holds it."""
    files = server_files(home)
    if live_state(files) is None:
        return
    with file_lock(lock_path(files), wait=False) as free:
        if not free:
            return
    with open(log_path(files), "a") as log:
        subprocess.Popen([sys.executable, "-m", WORKER_MODULE, "--folder", str(files.folder)],
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, cwd=REPO, env=env)


def log_path(files: ServerFiles) -> Path:
    return files.folder / "worker.log"


# --- the worker's side --------------------------------------------------------------------------


def serve(files: ServerFiles) -> None:
    """Import, then serve commands until the home's server is gone or nobody came for its idle period."""
    with file_lock(lock_path(files), wait=False) as mine:
        server = live_state(files)
        if not mine or server is None:
            return  # another worker serves this home, or there is no server to serve with
        environment, code = environment_key(dict(os.environ)), code_key()  # before imports can change either
        os.environ["PREFECT_API_URL"] = server.url
        from scorehouse.flows.commands import quiet_prefect

        quiet_prefect()  # Prefect reads its logging settings on import, as a command's run_handler has them
        for module in WARM_IMPORTS:
            __import__(module)
        path = socket_path(files)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        if path.parent.stat().st_uid != os.getuid() or path.parent.stat().st_mode & 0o077:
            return  # a folder someone else made or can enter: serve nothing rather than serve them
        path.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(8)
        listener.settimeout(POLL_SECONDS)
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the system
        try:
            for connection in requests(listener, files, server.pid):
                with connection:
                    if not answer(connection, listener, environment, code, server.url, files):
                        return
        finally:
            path.unlink(missing_ok=True)
            listener.close()


def requests(listener: socket.socket, files: ServerFiles, server_pid: int) -> Iterator[socket.socket]:
    """Connections as they come, until the server is gone or nobody came for its idle period."""
    idle = idle_seconds()
    last = time.monotonic()
    while True:
        state = read_state(files)
        if state is None or state.pid != server_pid or not is_daemon(server_pid):
            return
        if time.monotonic() - last > idle:
            return
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            continue
        last = time.monotonic()
        yield connection


def answer(connection: socket.socket, listener: socket.socket, environment: str, code: str, url: str,
           files: ServerFiles) -> bool:
    """Serve one request (fork its command) or refuse it; False when this worker is stale and must go."""
    connection.settimeout(10)
    fds: list[int] = []
    try:
        header, fds, _, _ = socket.recv_fds(connection, 4, 3)
        (size,) = struct.unpack("!I", header)
        request = json.loads(receive_exactly(connection, size))
        live = read_state(files)
        fresh = request["code"] == code and live is not None and live.url == url
        if not fresh or request["environment"] != environment:
            print(f"refused {request['argv'][:1]}: {'environment' if fresh else 'code or server'} changed", flush=True)
            connection.sendall(REFUSED)
            return fresh
        child = os.fork()
        if child == 0:
            run_child(connection, listener, fds, request, files)
        connection.sendall(STARTED + struct.pack("!i", child))
        print(f"serving {request['argv'][:1]} in pid {child}", flush=True)
        return True
    except (OSError, ValueError, KeyError, struct.error) as error:  # a command gone or garbled: this request only
        print(f"dropped a request: {type(error).__name__}: {error}", flush=True)
        return True
    finally:
        for fd in fds:
            os.close(fd)


def run_child(connection: socket.socket, listener: socket.socket, fds: list[int], request: dict,
              files: ServerFiles) -> None:
    """The forked command: the client's descriptors, directory and environment, then :func:`flows.cli.main`."""
    code = 1
    answered = threading.Event()
    try:
        listener.close()
        release_worker_lock(lock_path(files))
        end_with_the_command(connection, answered)
        for signum in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        from scorehouse.flows import cli

        sys.argv = ["scorehouse", *request["argv"]]
        code = cli.main(request["argv"])
    except SystemExit as stop:  # argparse's usage errors and --help
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # noqa: BLE001 - the command's crash, reported as the command would report it
        traceback.print_exc()
        code = 1
    finally:
        flush_streams()
        answered.set()
        try:  # the code first: the exit handlers only flush Prefect's event and log workers to the server
            connection.sendall(EXITED + struct.pack("!i", code))
        except OSError:
            pass
        atexit._run_exitfuncs()  # as the command's own exit would (flows.cli.console_script)
        flush_streams()
        os._exit(code)


def release_worker_lock(path: Path) -> None:
    """Close this child's copies of the worker lock's descriptor, so a long command does not hold
    the lock for a worker that has gone (a new one could not start until the command ends)."""
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == str(path):
                os.close(int(fd))
        except OSError:  # the listing's own descriptor, already closed
            pass


def end_with_the_command(connection: socket.socket, answered: threading.Event) -> None:
    """End this child as a killed command ends (SIGTERM) if the command's process goes away before its answer.

    The command sends nothing after its request, so a read returns only when it closed the connection.
    """
    connection.settimeout(None)

    def watch() -> None:
        try:
            connection.recv(1)
        except OSError:
            pass
        if not answered.is_set():
            os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="command-watch", daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser(prog=f"python -m {WORKER_MODULE}")
    parser.add_argument("--folder", type=Path, required=True)
    serve(ServerFiles(parser.parse_args().folder))


if __name__ == "__main__":
    main()
