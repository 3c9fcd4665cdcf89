"""Settings shared by the whole suite.

Hypothesis' per-example deadline and its too-slow health check measure the
machine, not the code: on CI's two slow cores they fail tests at random. The
suite's speed is watched by the benchmark scripts instead.

On CI (``CI`` set) the examples are derandomized, so a run is reproducible and
a green commit stays green; local runs keep drawing new examples, which is how
the edge cases fixed so far were found.
"""

import os
import signal
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("scorehouse", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("scorehouse-ci", parent=settings.get_profile("scorehouse"), derandomize=True)
settings.load_profile("scorehouse-ci" if os.environ.get("CI") else "scorehouse")


# The suite runs commands as a user without a Prefect API does: whatever API the machine's
# environment or Prefect profile names is not the suite's. The tests of recorded runs
# (tests/runtime/test_prefect_history.py) name their own server.
os.environ.pop("PREFECT_API_URL", None)
os.environ["PREFECT_HOME"] = tempfile.mkdtemp(prefix="scorehouse-tests-prefect-")


def processes_under(module: str, folder: Path) -> list[int]:
    """Pids of ``python -m module`` processes whose arguments name a path under ``folder``."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:  # the process ended while we looked
            continue
        if module.encode() in args and any(a.startswith(str(folder).encode()) for a in args):
            pids.append(int(cmdline.parent.name))
    return pids


def private_servers_under(folder: Path) -> list[int]:
    """Pids of serve's private Prefect servers (scorehouse.prefect_server) whose folder is under ``folder``."""
    return processes_under("scorehouse.prefect_server", folder)


@pytest.fixture(scope="session", autouse=True)
def no_server_left_behind(tmp_path_factory: pytest.TempPathFactory):
    """Fail the session if a test left a private Prefect server running (and stop them)."""
    yield
    base = tmp_path_factory.getbasetemp()
    deadline = time.monotonic() + 30  # a server whose serve was killed stops by itself within seconds
    while (left := private_servers_under(base)) and time.monotonic() < deadline:
        time.sleep(0.5)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"tests left private Prefect server(s) running: pids {left} (killed now)"
