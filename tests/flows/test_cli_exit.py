"""The process around a command (issue 14): it ends without interpreter teardown, and its flow runs send no heartbeats."""

import subprocess
import sys

from prefect.settings import get_current_settings

from scorehouse import commands
from tests.flows.conftest import REPO

PROBE = """
import atexit, sys
import scorehouse.cli as cli

class Teardown:
    def __del__(self):
        print("torn down", flush=True)

KEEP = Teardown()  # freed only when the interpreter tears its modules down

def fake_main(warm=False):
    atexit.register(print, "later exit handler ran")
    sys.stdout.write("buffered output")  # a pipe is block-buffered: lost unless flushed
    {ending}

cli.main = fake_main
cli.console_script()
"""


def probe(ending: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE.format(ending=ending)], cwd=REPO, capture_output=True, text=True)


def test_the_command_exits_with_its_code_after_every_exit_handler_without_teardown():
    done = probe("return 3")
    assert done.returncode == 3, done.stderr
    assert done.stdout.splitlines() == ["buffered outputlater exit handler ran"]  # flushed; no "torn down"


def test_a_command_that_raises_exits_as_python_does():
    done = probe("raise RuntimeError('boom')")
    assert done.returncode == 1
    assert "RuntimeError: boom" in done.stderr
    assert "torn down" in done.stdout  # the usual teardown


def test_flow_runs_send_no_heartbeats_unless_asked(monkeypatch):
    monkeypatch.delenv("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", raising=False)
    monkeypatch.delenv("PREFECT_RUNNER_HEARTBEAT_FREQUENCY", raising=False)
    outside = get_current_settings().flows.heartbeat_frequency
    assert outside is not None  # Prefect's default: a beat every 180 s
    with commands.without_heartbeats():
        assert get_current_settings().flows.heartbeat_frequency is None
    assert get_current_settings().flows.heartbeat_frequency == outside
    monkeypatch.setenv("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "60")  # asked for: left as configured
    with commands.without_heartbeats():
        assert get_current_settings().flows.heartbeat_frequency == outside
