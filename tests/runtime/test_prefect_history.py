"""With a Prefect API configured, every flow command is a recorded flow run, tested on a real ``prefect server start``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.runtime.conftest import GLUE, REPO, scorehouse

pytestmark = pytest.mark.slow


def new_runs(api, before: list[dict]) -> list[dict]:
    seen = {r["id"] for r in before}
    return [r for r in api.flow_runs() if r["id"] not in seen]


def test_ingest_rank_and_a_refresh_with_nothing_new_are_recorded_with_their_task_runs(prefect_api, tmp_path):
    home, env = tmp_path / "wh", {"PREFECT_API_URL": prefect_api.url}
    (tmp_path / "inbox").mkdir()
    before = prefect_api.flow_runs()
    for args in (["ingest", str(GLUE)], ["rank", "--benchmark", "glue", "--method", "borda"],
                 ["refresh", "--inbox", str(tmp_path / "inbox")]):
        done = scorehouse(home, *args, env=env)
        assert done.returncode == 0, done.stderr
    runs = new_runs(prefect_api, before)
    assert [(r["flow_name"], r["state_type"]) for r in runs] == [
        ("ingest", "COMPLETED"), ("rank", "COMPLETED"), ("refresh", "COMPLETED")]
    tasks = {r["flow_name"]: sorted({t["name"].rsplit("-", 1)[0] for t in prefect_api.task_runs(r["id"])}) for r in runs}
    assert {"ingest_batch", "refresh_catalog"} <= set(tasks["ingest"])
    assert {"read_benchmark", "rank_ballots", "store_snapshot"} <= set(tasks["rank"])
    assert tasks["refresh"] == []  # nothing new: the run is recorded, and did nothing


def test_no_history_records_nothing_even_with_an_api(prefect_api, tmp_path):
    before = prefect_api.flow_runs()
    done = scorehouse(tmp_path / "wh", "--no-history", "ingest", str(GLUE), env={"PREFECT_API_URL": prefect_api.url})
    assert done.returncode == 0, done.stderr
    assert new_runs(prefect_api, before) == []


RETRIES = """
import json, sys
from scorehouse import runtime

runtime.IO_RETRY_DELAY_SECONDS = 0.0
calls = {"io": 0, "bad": 0}

@runtime.step(io=True)
def flaky_write():
    calls["io"] += 1
    if calls["io"] <= runtime.IO_RETRIES:
        raise OSError("disk busy")
    return "written"

@runtime.step(io=True)
def bad_data():
    calls["bad"] += 1
    raise ValueError("not a number")

@runtime.flow("retries")
def retries_flow():
    outcome = runtime.call(flaky_write)
    try:
        runtime.call(bad_data)
    except Exception:
        pass
    return outcome

with runtime.session() as session:
    outcome = runtime.run(retries_flow)
print(json.dumps({"recorded": session.recorder is not None, "outcome": outcome, "calls": calls}))
"""


def test_recorded_steps_retry_by_the_same_rule_as_steps_in_process(prefect_api, tmp_path):
    """I/O errors are retried IO_RETRIES times, bad data never, whether Prefect or the runtime runs the step."""
    script = tmp_path / "retries.py"
    script.write_text(textwrap.dedent(RETRIES))
    results = {}
    for name, env in (("recorded", {"PREFECT_API_URL": prefect_api.url}), ("in process", {"SCOREHOUSE_HISTORY": "off"})):
        done = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=300,
                              env={**__import__("os").environ, **env})
        assert done.returncode == 0, done.stderr
        results[name] = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["recorded"]["recorded"] and not results["in process"]["recorded"]
    for result in results.values():
        assert result["outcome"] == "written"
        assert result["calls"] == {"io": 3, "bad": 1}


def test_a_recorded_ingest_on_a_local_dask_cluster_runs_its_batches_as_task_runs(prefect_api, tmp_path):
    """Prefect's Dask task runner on the cluster the command starts: the batches are task runs of the flow run."""
    before = prefect_api.flow_runs()
    env = {"PREFECT_API_URL": prefect_api.url}
    done = scorehouse(tmp_path / "dask", "ingest", str(GLUE), str(GLUE.with_name("leaderboards - SuperGLUE.csv")),
                      "--runner", "dask", "--workers", "2", env=env)
    assert done.returncode == 0, done.stderr
    in_process = scorehouse(tmp_path / "local", "--no-history", "ingest", str(GLUE),
                            str(GLUE.with_name("leaderboards - SuperGLUE.csv")))
    assert in_process.returncode == 0, in_process.stderr
    runs = new_runs(prefect_api, before)
    assert [(r["flow_name"], r["state_type"]) for r in runs] == [("ingest", "COMPLETED")]
    batches = [t for t in prefect_api.task_runs(runs[0]["id"]) if t["name"].startswith("ingest_batch")]
    assert batches and all(t["state_type"] == "COMPLETED" for t in batches)
    same = "SELECT benchmark, task, metric, system, score, load_id FROM scores ORDER BY ALL"
    assert (scorehouse(tmp_path / "dask", "sql", same, "--format", "csv").stdout
            == scorehouse(tmp_path / "local", "sql", same, "--format", "csv").stdout)
