"""Without a Prefect API a command is a process: it does its work, starts nothing, and leaves nothing running."""

from __future__ import annotations

import pytest

from tests.runtime.conftest import GLUE, processes_naming, scorehouse


@pytest.fixture(scope="module")
def glue_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("in-process") / "wh"
    done = scorehouse(home, "ingest", str(GLUE))
    assert done.returncode == 0, done.stderr
    assert not processes_naming(home)
    return home


@pytest.mark.parametrize("args", [
    ["rank", "--benchmark", "glue", "--method", "borda"],
    ["rank", "--benchmark", "glue"],
    ["sql", "SELECT count(*) FROM scores"],
    ["snapshots"],
    ["diff", "--latest"],
    ["export", "--latest", "--format", "csv", "--output", "{home}/../latest.csv"],
    ["refresh", "--inbox", "{home}/../inbox"],
])
def test_each_command_leaves_no_process_of_the_home(glue_home, args):
    (glue_home.parent / "inbox").mkdir(exist_ok=True)
    done = scorehouse(glue_home, *[a.format(home=glue_home) for a in args])
    assert done.returncode == 0, done.stderr
    assert processes_naming(glue_home) == []
    assert not (glue_home / ".serve").exists()  # no server was started for it


def test_a_configured_api_that_does_not_answer_stops_the_command_before_it_writes(tmp_path):
    home = tmp_path / "wh"
    done = scorehouse(home, "ingest", str(GLUE), env={"PREFECT_API_URL": "http://127.0.0.1:9/api"})
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "http://127.0.0.1:9/api" in lines[0] and "--no-history" in lines[0], done.stderr
    assert not home.exists()  # nothing written, not even the home folder


def test_no_history_runs_in_process_even_with_an_api_configured(tmp_path):
    home = tmp_path / "wh"
    done = scorehouse(home, "--no-history", "ingest", str(GLUE), env={"PREFECT_API_URL": "http://127.0.0.1:9/api"})
    assert done.returncode == 0, done.stderr
    done = scorehouse(home, "rank", "--benchmark", "glue", "--method", "mean",
                      env={"PREFECT_API_URL": "http://127.0.0.1:9/api", "SCOREHOUSE_HISTORY": "off"})
    assert done.returncode == 0, done.stderr


def test_a_missing_dask_extra_is_a_usage_error_before_anything_starts(tmp_path):
    """Without dask.distributed importable, --runner dask says so at once (exit 2) and writes nothing."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\nsys.modules['distributed'] = None  # as if the extra were not installed\n")
    home = tmp_path / "wh"
    done = scorehouse(home, "ingest", str(GLUE), "--runner", "dask", env={"PYTHONPATH": str(blocker)})
    assert done.returncode == 2, done.stderr
    assert "pip install 'scorehouse[dask]'" in done.stderr
    assert not home.exists()
