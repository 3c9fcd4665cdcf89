"""``scorehouse ingest --json-path``: a JSON leaderboard and per-model folders enter as published, the template is
kept in the load manifest, and ``--reparse`` reads the archived bytes with it again."""

import dataclasses
import json
from pathlib import Path

import pytest

from scorehouse.cli import main
from tests.flows.conftest import sql
from scorehouse.flows.ingest import ingest_flow
from scorehouse.transforms.parsers import FORMATS



@pytest.fixture
def per_model(tmp_path: Path) -> Path:
    """Per-model folders of per-judgement JSON records, and a run log that is not scores."""
    root = tmp_path / "judgements"
    records = {"alpha": [(1, "math", 8), (2, "writing", 6)], "beta": [(1, "math", 3), (2, "writing", 9.5)]}
    for model, judged in records.items():
        folder = root / model
        folder.mkdir(parents=True)
        for question, category, score in judged:
            (folder / f"q{question}.json").write_text(json.dumps({"question_id": question, "category": category,
                                                                   "score": score, "judge": "gpt-4"}))
    return root


def test_a_folder_of_per_model_records_lands_with_the_folder_as_the_system(tmp_path, per_model, capsys):
    home = str(tmp_path / "home")
    args = ["--home", home, "ingest", str(per_model), "--benchmark", "mt-bench", "--json-path",
            "{instance=question_id}.{task=category}.score", "--system-from-folder"]
    assert main(args) == 0
    assert "4 file(s) loaded" in capsys.readouterr().out
    scores = sql(home, "SELECT level, task, metric, instance, system, score FROM scores ORDER BY system, instance")
    assert scores.rows() == [
        ("instance", "math", "score", "1", "alpha", 8.0), ("instance", "writing", "score", "2", "alpha", 6.0),
        ("instance", "math", "score", "1", "beta", 3.0), ("instance", "writing", "score", "2", "beta", 9.5),
    ]
    mappings = sql(home, "SELECT DISTINCT format, columns FROM loads").rows()
    assert mappings == [("json-path", json.dumps({"json_path": "{instance=question_id}.{task=category}.score",
                                                  "system_from": "folder"}, sort_keys=True))]


def test_reparse_reads_the_archived_bytes_with_the_kept_template(tmp_path, monkeypatch):
    home = str(tmp_path / "home")
    dump = tmp_path / "drop" / "code.json"
    dump.parent.mkdir()
    dump.write_text('{"m1": {"pass@1": {"he": 71.3, "mbpp": 65}}, "m2": {"pass@1": {"he": 60}}}')
    mapping = {"json_path": "{system}.pass@1.{task}"}
    [first] = ingest_flow([str(dump)], home=home, format="json-path", benchmark="code", columns=mapping).files
    assert first.status == "loaded"
    dump.unlink()  # only the raw archive has the bytes now
    monkeypatch.setitem(FORMATS, "json-path", dataclasses.replace(FORMATS["json-path"], parser_version=2))
    [again] = ingest_flow([], home=home, reparse=True).files
    assert (again.status, again.parser_version) == ("loaded", 2)
    current = sql(home, "SELECT task, system, score, load_id FROM scores ORDER BY ALL")
    assert current.select("task", "system", "score").rows() == [("he", "m1", 71.3), ("he", "m2", 60.0),
                                                                ("mbpp", "m1", 65.0)]
    assert current.get_column("load_id").unique().to_list() == [again.load_id]


@pytest.mark.parametrize(("extra", "message"), [
    (["--system", "model"], "not by columns (system)"),
    ([], "needs --benchmark"),
    (["--benchmark", "b", "--format", "battles"], "not 'battles'"),
])
def test_json_path_options_that_do_not_go_together_are_usage_errors(tmp_path, extra, message, capsys):
    dump = tmp_path / "x.json"
    dump.write_text('{"m": 1}')
    assert main(["--home", str(tmp_path / "home"), "ingest", str(dump), "--json-path", "{system}", *extra]) == 2
    assert message in capsys.readouterr().err


def test_system_from_folder_alone_is_a_usage_error(tmp_path, capsys):
    assert main(["--home", str(tmp_path / "h"), "ingest", str(tmp_path), "--system-from-folder"]) == 2
    assert "--system-from-folder goes with --json-path" in capsys.readouterr().err
