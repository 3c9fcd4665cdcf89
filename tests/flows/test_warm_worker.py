"""The warm worker (flows.warm_worker): a flow command served by a forked child of a process that has
Prefect and the flows imported already gives the output, exit code and flow runs of the command run alone."""

import os
import subprocess
import time
from pathlib import Path

import pytest

from flows.local_server import read_state
from flows import warm_worker
from flows.warm_worker import log_path, socket_path
from tests.conftest import warm_workers_under
from tests.flows.conftest import VALUE
from tests.flows.test_local_server import env_for, files_of, finished, flow_run_names, scorehouse

pytestmark = pytest.mark.slow


def outputs(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


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
    finally:
        assert finished(scorehouse(env, "server", "stop"))[0] == 0
    assert warm_workers_under(tmp_path, grace=10) == []  # the worker leaves with its server
    assert not socket_path(files).exists()
