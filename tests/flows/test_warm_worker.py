"""The warm worker (flows.warm_worker): a flow command served by a forked child of a process that has
Prefect and the flows imported already gives the output, exit code and flow runs of the command run alone."""

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scorehouse.flows.local_server import read_state
from scorehouse.flows import warm_worker
from scorehouse.flows.warm_worker import log_path, socket_path
from tests.conftest import warm_workers_under
from tests.flows.conftest import REPO, VALUE
from tests.flows.test_local_server import env_for, files_of, finished, flow_run_names, scorehouse

pytestmark = pytest.mark.slow


def outputs(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


def pid_alive(pid: int) -> bool:
    """Alive and not a zombie (the worker's children are reaped by the system)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def wait_for(path: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert path.exists(), f"no {path} after {seconds} s"


def test_a_flow_command_runs_in_the_warm_worker_as_it_would_alone(tmp_path):
    env = env_for(tmp_path, idle=120)
    files = files_of(env)
    try:
        code, text = finished(scorehouse(env, "ingest", str(VALUE)))  # starts the server, then a worker
        assert code == 0, text
        wait_for(socket_path(files))
        warm = outputs(scorehouse(env, "ingest", str(VALUE)))
        alone = outputs(scorehouse({**env, "SCOREHOUSE_WORKER": "off"}, "ingest", str(VALUE)))
        assert warm[0] == alone[0] == 0 and warm[1] == alone[1] and "unchanged" in warm[2], (warm, alone)
        log = log_path(files).read_text()
        assert log.count("serving ['ingest']") == 1, log

        # a request cut short (its command gone) is dropped; the worker serves the next one
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as cut_short:
            cut_short.connect(str(socket_path(files)))
            cut_short.sendall(b"\x00\x00")

        # a usage error: its exit code and message pass through
        code, text = finished(scorehouse(env, "rank", "--benchmark", "nope"))
        assert code == 2 and "no scores or battles for benchmark(s) ['nope']" in text, text
        assert log_path(files).read_text().count("serving ['rank']") == 1

        # another environment is refused: the command runs in its own process, as well
        code, text = finished(scorehouse({**env, "SCOREHOUSE_SOMETHING": "else"}, "rank", "--benchmark", "value",
                                         "--method", "borda"))
        assert code == 0, text
        assert "refused ['rank']: environment changed" in log_path(files).read_text()

        # changed code (a newer modification time) is refused too, and that worker leaves
        source = Path(warm_worker.__file__)
        times = source.stat()
        os.utime(source, ns=(times.st_atime_ns, times.st_mtime_ns + 1_000_000_000))
        try:
            code, text = finished(scorehouse(env, "rank", "--benchmark", "value", "--method", "borda"))
        finally:
            os.utime(source, ns=(times.st_atime_ns, times.st_mtime_ns))
        assert code == 0, text
        assert "refused ['rank']: code or server changed" in log_path(files).read_text()

        # the served command's flow run is in the server's history with the others
        assert flow_run_names(read_state(files).url) == ["ingest", "ingest", "ingest", "rank", "rank"]

        # a command killed while the worker runs it takes its run with it, as a command run alone would
        wait_for(socket_path(files))  # the worker that replaced the stale one
        served = log_path(files).read_text().count("serving")
        # its output to a file that stays open, so a write cannot be what ends the child
        output = (tmp_path / "killed.out").open("w")
        client = subprocess.Popen([sys.executable, "-m", "scorehouse.flows.cli", "ingest", str(REPO / "data" / "bundled" / "wmt20-metrics")],
                                  cwd=REPO, env=env, stdout=output, stderr=output)
        deadline = time.monotonic() + 60
        while log_path(files).read_text().count("serving") == served and time.monotonic() < deadline:
            time.sleep(0.1)
        child = int(re.findall(r"in pid (\d+)", log_path(files).read_text())[-1])
        client.kill()
        client.wait()
        deadline = time.monotonic() + 10
        while pid_alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not pid_alive(child)
        output.close()
        assert "wmt20" not in (tmp_path / "killed.out").read_text()  # ended, not finished: no summary
    finally:
        assert finished(scorehouse(env, "server", "stop"))[0] == 0
    assert warm_workers_under(tmp_path, grace=10) == []  # the worker leaves with its server
    assert not socket_path(files).exists()
