"""A load's source is the file's place, not its name (issue 34): fifty model folders that each hold an
``annotations.json`` are fifty sources, files of one name given together are an error naming both, a correction says
which load it replaced, and a home made before (by main at 1893fa9) is migrated so that every clashing file is
current again.  Expected counts come from plain ``json`` / ``csv`` reads of the files written here."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import scorehouse
from tests.fixtures.same_names.make_repo import TASKS, write_repo

FIXTURE = Path(__file__).parents[1] / "fixtures" / "same_names" / "home-1893fa9.tar.gz"


def run_scorehouse(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorehouse", "--home", str(home), *args],
                          capture_output=True, text=True, check=False)


def query(home: Path, sql: str) -> list[tuple]:
    return scorehouse.Warehouse(home, frames="polars").sql(sql).rows()


def battles_in(root: Path) -> int:
    return sum(len(json.loads(p.read_text(encoding="utf-8"))) for p in root.glob("*/annotations.json"))


def test_fifty_model_folders_of_same_named_files_are_fifty_sources(tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    names = write_repo(repo, models=50, battles=7, seed=3)
    tables = tmp_path / "tables"
    for name in names:  # a user table per model folder: a CSV read by its columns has no folder in its identity
        (tables / name).mkdir(parents=True)
        with (tables / name / "scores.csv").open("w", newline="", encoding="utf-8") as out:
            csv.writer(out).writerows([("model", "task", "score"), *((name, t, i) for i, t in enumerate(TASKS))])

    done = run_scorehouse(home, "ingest", str(repo), "--benchmark", "arena-x")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("loaded: ") == 50
    assert query(home, "SELECT count(*) FROM battles") == [(battles_in(repo),)] == [(350,)]
    assert query(home, "SELECT count(*) FROM loads WHERE is_current AND format = 'battles'") == [(50,)]

    done = run_scorehouse(home, "ingest", str(repo), "--benchmark", "scores-x", "--json-path", "{system}.{task}")
    assert done.stdout.count("loaded: ") == 50  # the annotations are lists: the template reaches no number in them
    expected = {(m, t): float(v) for p in repo.glob("*/results.json")
                for m, tasks in json.loads(p.read_text(encoding="utf-8")).items() for t, v in tasks.items()}
    found = {(s, t): v for s, t, v in query(home, "SELECT system, task, score FROM scores WHERE benchmark = 'scores-x'")}
    assert found == expected and len(found) == 200

    done = run_scorehouse(home, "ingest", str(tables), "--benchmark", "csv-x", "--system", "model", "--task", "task",
                          "--score", "score")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("loaded: ") == 50
    rows = sum(len(list(csv.DictReader(p.open(encoding="utf-8")))) for p in tables.glob("*/scores.csv"))
    assert query(home, "SELECT count(*), count(DISTINCT system) FROM scores WHERE benchmark = 'csv-x'") == [(rows, 50)]


def test_files_of_one_name_given_together_are_an_error_naming_both(tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    write_repo(repo, models=2, battles=4, results=False)
    first, second = repo / "model-00" / "annotations.json", repo / "model-01" / "annotations.json"
    done = run_scorehouse(home, "ingest", str(first), str(second), "--benchmark", "arena-x")
    assert done.returncode == 1
    assert f"loaded: {first}" in done.stdout
    line = next(x for x in done.stderr.splitlines() if x.startswith("rejected:"))
    assert str(second) in line and str(first) in line and "same source" in line
    assert query(home, "SELECT count(*) FROM battles") == [(4,)]
    # alone, in a later run, the second file is the correction of its source: it loads and says what it replaced
    load = query(home, "SELECT load_id FROM loads WHERE is_current")[0][0]
    done = run_scorehouse(home, "ingest", str(second), "--benchmark", "arena-x")
    assert done.returncode == 0, done.stderr
    assert f"replaces load {load} of {first}" in done.stdout


def test_a_corrected_file_in_a_folder_replaces_its_own_load_only(tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    write_repo(repo, models=3, battles=4, results=False)
    assert run_scorehouse(home, "ingest", str(repo), "--benchmark", "arena-x").returncode == 0
    target = repo / "model-01" / "annotations.json"
    old = query(home, f"SELECT load_id FROM loads WHERE file_name = '{target}'")[0][0]
    target.write_text(json.dumps(json.loads(target.read_text(encoding="utf-8"))[:2]), encoding="utf-8")
    done = run_scorehouse(home, "ingest", str(repo), "--benchmark", "arena-x")
    assert done.returncode == 0, done.stderr
    assert [x for x in done.stdout.splitlines() if x.startswith("loaded:")] == [
        f"loaded: {target} (2 rows); replaces load {old} of {target}"]
    assert query(home, "SELECT count(*) FROM battles") == [(4 + 2 + 4,)]


@pytest.mark.slow
def test_a_home_made_before_is_migrated_and_its_hidden_loads_ranked(tmp_path):
    with tarfile.open(FIXTURE) as archive:
        archive.extractall(tmp_path, filter="data")
    home, repo = tmp_path / "home", tmp_path / "repo"
    assert json.loads((home / "format.json").read_text())["format"] == 3
    done = run_scorehouse(home, "rank", "--benchmark", "arena-x")
    assert done.returncode == 0, done.stderr
    assert json.loads((home / "format.json").read_text())["format"] == 4
    assert query(home, "SELECT count(*) FROM loads WHERE is_current AND format = 'battles'") == [(4,)]
    assert query(home, "SELECT count(*) FROM battles") == [(battles_in(repo),)] == [(20,)]
    assert "battles: 20 played" in done.stdout and "1 new snapshot(s)" in done.stdout
    ranked = query(home, "SELECT count(DISTINCT system) FROM latest_rankings WHERE benchmark = 'arena-x'")
    assert ranked == [(4,)]
    # the files found again in their folder are the migrated loads: nothing new, and a correction replaces its own
    again = run_scorehouse(home, "ingest", str(repo), "--benchmark", "arena-x")
    assert "0 file(s) loaded, 4 unchanged" in again.stdout
    target = repo / "model-02" / "annotations.json"
    target.write_text(json.dumps(json.loads(target.read_text(encoding="utf-8"))[:1]), encoding="utf-8")
    again = run_scorehouse(home, "ingest", str(repo), "--benchmark", "arena-x")
    assert "replaces load" in again.stdout and f"of {Path('repo') / 'model-02' / 'annotations.json'}" in again.stdout
    assert query(home, "SELECT count(*) FROM battles") == [(16,)]
