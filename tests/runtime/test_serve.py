"""``serve``: the refresh flow on Prefect's scheduler, on a private server that only its owner can use."""

from __future__ import annotations

import base64
import json
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.runtime.conftest import REPO, processes_naming

pytestmark = pytest.mark.slow
VALUE = REPO / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - VALUE.csv"


def start_serve(home: Path, inbox: Path, log: Path) -> subprocess.Popen:
    """``scorehouse serve`` in the background, as a shell's ``&`` starts it: SIGINT ignored."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    command = shlex.join([sys.executable, "-m", "scorehouse", "--home", str(home), "serve", "--inbox", str(inbox),
                          "--interval", "3"])
    with log.open("w") as out:
        return subprocess.Popen(["bash", "-c", f"trap '' INT; exec {command}"], cwd=home.parent, env=env, stdout=out,
                                stderr=out, stdin=subprocess.DEVNULL, start_new_session=True)


def server_state(home: Path, log: Path, process: subprocess.Popen, timeout: float = 180) -> dict:
    """The private server's ``server.json`` once serve says it serves."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        if "serving the refresh" in log.read_text():
            return json.loads((home / ".serve" / "server.json").read_text())
        time.sleep(0.5)
    raise AssertionError(f"serve did not start in {timeout} s:\n{log.read_text()}")


def request(url: str, method: str = "GET", body: dict | None = None, secret: str | None = None) -> int:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(secret.encode()).decode()
    data = json.dumps(body or {}).encode() if method == "POST" else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers, method=method), timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as error:
        return error.code


def post(url: str, secret: str) -> list:
    """The JSON list a filter endpoint answers, asked with the secret."""
    headers = {"Content-Type": "application/json", "Authorization": "Basic " + base64.b64encode(secret.encode()).decode()}
    with urllib.request.urlopen(urllib.request.Request(url, data=b"{}", method="POST", headers=headers), timeout=10) as r:
        return json.loads(r.read())


def stop(process: subprocess.Popen, sig: int) -> int:
    os.kill(process.pid, sig)
    try:
        return process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise


@pytest.fixture
def served(tmp_path):
    """A home whose parent other users may enter (so only the private modes protect it), its inbox, and a serve."""
    tmp_path.chmod(0o755)
    home, inbox, log = tmp_path / "wh", tmp_path / "inbox", tmp_path / "serve.log"
    inbox.mkdir()
    process = start_serve(home, inbox, log)
    try:
        yield home, inbox, log, process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_serve_ingests_on_schedule_and_sigint_stops_it_and_its_server(served):
    home, inbox, log, process = served
    state = server_state(home, log, process)
    shutil.copyfile(VALUE, inbox / VALUE.name)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not list((home / "snapshot_manifests").glob("*.parquet")):
        assert process.poll() is None, log.read_text()
        time.sleep(1)
    assert (inbox / "processed" / VALUE.name).exists(), log.read_text()
    assert list((home / "snapshot_manifests").glob("*.parquet")), log.read_text()
    secret = (home / ".serve" / "secret").read_text().strip()
    deadline = time.monotonic() + 60
    while not any(r["state_type"] == "COMPLETED" for r in post(f"{state['url']}/flow_runs/filter", secret)):
        assert time.monotonic() < deadline, "no completed run in the private server's history"
        time.sleep(1)
    assert stop(process, signal.SIGINT) == 0, log.read_text()  # SIGINT, although a background job ignores it
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and processes_naming(home):
        time.sleep(0.5)
    assert processes_naming(home) == []


def test_the_private_server_is_loopback_authenticated_private_and_its_ui_connects(served):
    home, _, log, process = served
    state = server_state(home, log, process)
    url = state["url"]
    assert url.startswith("http://127.0.0.1:")
    secret = (home / ".serve" / "secret").read_text().strip()
    assert request(f"{url}/health") == 200  # the health check is open, as Prefect leaves it
    assert request(f"{url}/flow_runs/filter", "POST") == 401
    assert request(f"{url}/flow_runs/filter", "POST", secret="guess") == 401
    assert request(f"{url}/flow_runs/filter", "POST", secret=secret) == 200
    deadline = time.monotonic() + 120
    while not (deployments := post(f"{url}/deployments/filter", secret)) and time.monotonic() < deadline:
        time.sleep(0.5)  # serve registers its deployment once its runner starts
    run_url = f"{url}/deployments/{deployments[0]['id']}/create_flow_run"
    assert request(run_url, "POST", {"parameters": {"inbox": "/tmp", "home": "/tmp/x"}}) == 401
    ui = json.loads(urllib.request.urlopen(f"{url.removesuffix('/api')}/ui-settings", timeout=10).read())
    assert ui["api_url"] == url  # the UI talks to this server, not to Prefect's default port
    folder = home / ".serve"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in ("secret", "prefect.db"):
        assert stat.S_IMODE((folder / name).stat().st_mode) & 0o077 == 0, name
    # a second local user: no way into the folder, and no run without the secret
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c"]
    probe = subprocess.run([*as_nobody, f"open({str(folder / 'secret')!r}).read()"], capture_output=True, text=True)
    assert probe.returncode != 0 and "PermissionError" in probe.stderr
    probe = subprocess.run([*as_nobody, (
        "import urllib.request, urllib.error, json\n"
        f"req = urllib.request.Request({run_url!r}, data=b'{{}}', method='POST', headers={{'Content-Type': 'application/json'}})\n"
        "try:\n    urllib.request.urlopen(req, timeout=10)\nexcept urllib.error.HTTPError as e:\n    print(e.code)\n")],
        capture_output=True, text=True)
    assert probe.stdout.strip() == "401", probe.stderr


def test_a_killed_serve_leaves_no_server_and_the_next_serve_replaces_it(served):
    home, inbox, log, process = served
    state = server_state(home, log, process)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and Path(f"/proc/{state['pid']}").exists():
        time.sleep(0.5)
    assert not Path(f"/proc/{state['pid']}").exists(), "the private server outlived its serve by a minute"
    again = start_serve(home, inbox, log.with_name("again.log"))
    try:
        second = server_state(home, log.with_name("again.log"), again)
        assert second["pid"] != state["pid"]
        stop(again, signal.SIGTERM)  # it stops (stop() fails the test on a timeout), and its server with it
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and Path(f"/proc/{second['pid']}").exists():
            time.sleep(0.5)
        assert not Path(f"/proc/{second['pid']}").exists()
    finally:
        if again.poll() is None:
            os.killpg(again.pid, signal.SIGKILL)
            again.wait()
