"""The shared local Prefect server: one per home under concurrency, reused, stopped when idle, stale state replaced.

Every command here is a real ``scorehouse`` process with the shared server on
(``SCOREHOUSE_PREFECT=server``) and its own ``PREFECT_HOME`` under the test's
temporary folder; each test stops what it started, and the session fixture of
``tests/conftest.py`` fails the run if a server is left behind.
"""

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from scorehouse.flows.local_server import is_daemon, read_state, server_files
from tests.conftest import server_daemons_under
from tests.flows.conftest import REPO, SUPERGLUE, VALUE

pytestmark = pytest.mark.slow
STARTED = "started a local Prefect server"


def env_for(tmp_path: Path, idle: float) -> dict[str, str]:
    env = {**os.environ, "SCOREHOUSE_HOME": str(tmp_path / "wh"), "PREFECT_HOME": str(tmp_path / "prefect"),
           "SCOREHOUSE_PREFECT": "server", "SCOREHOUSE_SERVER_IDLE_SECONDS": str(idle),
           "PREFECT_LOGGING_LEVEL": "WARNING", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    return env


def scorehouse(env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "scorehouse.cli", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(process: subprocess.Popen) -> tuple[int, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, out + err


def files_of(env: dict[str, str]):  # noqa: ANN201
    return server_files(env["SCOREHOUSE_HOME"], Path(env["PREFECT_HOME"]))


def flow_run_names(url: str) -> list[str]:
    """The flow names of every run the server holds, asked through its REST API."""
    request = urllib.request.Request(f"{url}/flow_runs/filter", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        runs = json.load(answer)
    flows = {}
    for run in runs:
        with urllib.request.urlopen(f"{url}/flows/{run['flow_id']}", timeout=10) as answer:
            flows[run["flow_id"]] = json.load(answer)["name"]
    return sorted(flows[run["flow_id"]] for run in runs)


def test_two_commands_at_once_share_one_server_and_a_third_reuses_it(tmp_path):
    env = env_for(tmp_path, idle=120)
    try:
        first, second = scorehouse(env, "ingest", str(SUPERGLUE)), scorehouse(env, "ingest", str(VALUE))
        outcomes = [finished(first), finished(second)]
        assert [code for code, _ in outcomes] == [0, 0], outcomes
        assert sum(STARTED in text for _, text in outcomes) == 1, outcomes  # exactly one of them started it
        files = files_of(env)
        state = read_state(files)
        assert state is not None and server_daemons_under(tmp_path) == [state.pid]

        code, text = finished(scorehouse(env, "rank", "--benchmark", "value", "--method", "borda"))
        assert code == 0 and STARTED not in text, text  # reused, not started
        assert read_state(files) == state and server_daemons_under(tmp_path) == [state.pid]
        # every command's flow runs are in the server's history
        assert flow_run_names(state.url) == ["ingest", "ingest", "rank"]
        # and Prefect's own CLI lists them (FastAPI > 0.150 made this a 422: see pyproject.toml)
        listed = subprocess.run([str(Path(sys.executable).parent / "prefect"), "flow-run", "ls"], capture_output=True,
                                text=True, timeout=120, env={**env, "PREFECT_API_URL": state.url, "COLUMNS": "300"})
        assert listed.returncode == 0, listed.stdout + listed.stderr
        assert sorted(re.findall(r"│ (ingest|rank) +│", listed.stdout)) == ["ingest", "ingest", "rank"], listed.stdout
    finally:
        assert finished(scorehouse(env, "server", "stop"))[0] == 0
    assert server_daemons_under(tmp_path) == []


def test_the_server_stops_itself_once_unused_for_the_idle_period(tmp_path):
    env = env_for(tmp_path, idle=2)
    code, text = finished(scorehouse(env, "server", "start"))
    assert code == 0 and "started" in text, text
    files = files_of(env)
    pid = int(re.search(r"\(pid (\d+),", text).group(1))  # the state file may be gone already: 2 s is short
    deadline = time.monotonic() + 60
    while is_daemon(pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not is_daemon(pid)
    assert not files.state.exists()
    code, text = finished(scorehouse(env, "server", "status"))
    assert code == 3 and "not running" in text


def test_a_command_in_use_keeps_the_server_and_a_killed_one_does_not(tmp_path):
    """A held lease blocks the idle stop; ``kill -9`` of its holder releases it (the OS drops its lock)."""
    env = env_for(tmp_path, idle=2)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; from scorehouse.flows.local_server import prefect_api\n"
         "with prefect_api(None): print('held', flush=True); time.sleep(600)"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        state = read_state(files_of(env))
        time.sleep(6)  # three idle periods
        assert is_daemon(state.pid)
    finally:
        holder.kill()
        holder.wait()
    deadline = time.monotonic() + 60
    while is_daemon(state.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not is_daemon(state.pid)


def test_a_stale_state_file_is_replaced_by_a_new_server(tmp_path):
    env = env_for(tmp_path, idle=120)
    files = files_of(env)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    files.folder.mkdir(parents=True)
    files.state.write_text(json.dumps({"pid": dead_pid, "url": "http://127.0.0.1:9/api", "idle_seconds": 120}))
    code, text = finished(scorehouse(env, "server", "status"))
    assert code == 3 and "not running" in text
    try:
        code, text = finished(scorehouse(env, "server", "start"))
        assert code == 0 and "started" in text, text
        state = read_state(files)
        assert state.pid != dead_pid and is_daemon(state.pid) and server_daemons_under(tmp_path) == [state.pid]
    finally:
        code, text = finished(scorehouse(env, "server", "stop"))
    assert code == 0 and "stopped" in text
    assert server_daemons_under(tmp_path) == []


@pytest.mark.parametrize(("name", "value", "message"), [
    ("SCOREHOUSE_PREFECT", "bogus", "SCOREHOUSE_PREFECT must be 'server' or 'ephemeral', got 'bogus'"),
    ("SCOREHOUSE_SERVER_IDLE_SECONDS", "soon", "SCOREHOUSE_SERVER_IDLE_SECONDS must be a number of seconds, got 'soon'"),
    ("SCOREHOUSE_SERVER_IDLE_SECONDS", "0", "SCOREHOUSE_SERVER_IDLE_SECONDS must be > 0, got '0'"),
])
def test_bad_server_settings_are_one_line_and_start_nothing(tmp_path, name, value, message):
    env = {**env_for(tmp_path, idle=120), name: value}
    code, text = finished(scorehouse(env, "rank"))
    assert (code, text.strip()) == (1, f"scorehouse: {message}")
    assert server_daemons_under(tmp_path) == []
