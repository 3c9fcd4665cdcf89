"""A user's own table through the command line: ingest by naming columns, rank it, query it (exit codes too)."""

import json

import pytest

from scorehouse.cli import main
from scorehouse.warehouse.integrity import sha256_of
from scorehouse.warehouse.storage import Warehouse

ERRORS = (
    "model,dataset,err\n"
    "A,d1,0.1\nB,d1,0.3\nC,d1,0.2\n"
    "A,d2,0.5\nB,d2,0.2\nC,d2,0.4\n"
    "A,d3,0.1\nB,d3,0.4\nC,d3,0.2\n"
)
# Mean error by hand: A (0.1+0.5+0.1)/3 = 0.2333, B 0.3, C 0.2667.
MEAN_ERROR = {"A": 0.7 / 3, "B": 0.9 / 3, "C": 0.8 / 3}
TABLE = ["--benchmark", "mybench", "--system", "model", "--task", "dataset", "--score", "err"]


def query(home: str, sql: str, tmp_path) -> list[dict]:
    out = tmp_path / "q.json"
    assert main(["--home", home, "sql", sql, "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text())


def latest_mean(home: str, tmp_path) -> list[tuple[str, int, float]]:
    rows = query(home, "SELECT system, rank, score FROM latest_rankings WHERE method = 'mean' ORDER BY rank, system", tmp_path)
    return [(r["system"], r["rank"], r["score"]) for r in rows]


def test_a_lower_is_better_table_ingests_ranks_and_keeps_its_lineage(tmp_path):
    home = str(tmp_path / "wh")
    table = tmp_path / "errors.csv"
    table.write_text(ERRORS)
    assert main(["ingest", str(table), "--home", home, *TABLE, "--higher-is-better", "false"]) == 0
    assert main(["--home", home, "rank", "--method", "mean"]) == 0
    ranking = latest_mean(home, tmp_path)
    assert [(s, r) for s, r, _ in ranking] == [("A", 1), ("C", 2), ("B", 3)]
    assert [score for *_, score in ranking] == pytest.approx([-MEAN_ERROR["A"], -MEAN_ERROR["C"], -MEAN_ERROR["B"]])
    metrics = query(home, "SELECT task, metric, higher_is_better FROM metrics ORDER BY task", tmp_path)
    assert metrics == [{"task": t, "metric": "score", "higher_is_better": False} for t in ("d1", "d2", "d3")]
    loads = query(home, "SELECT format, file_name, sha256, rows_in, rows_landed FROM loads", tmp_path)
    assert loads == [{"format": "user-table", "file_name": str(table), "sha256": sha256_of(table), "rows_in": 9, "rows_landed": 9}]
    with Warehouse(home).staged_raw(sha256_of(table), str(table)) as staged:
        assert staged.read_text() == ERRORS

    # The same table and columns again: nothing new is loaded, and the direction declared now replaces the earlier.
    assert main(["ingest", str(table), "--home", home, *TABLE, "--higher-is-better", "true"]) == 0
    assert len(query(home, "SELECT * FROM loads", tmp_path)) == 1
    assert main(["--home", home, "rank", "--method", "mean"]) == 0
    assert [s for s, _, _ in latest_mean(home, tmp_path)] == ["B", "C", "A"]


def test_other_columns_make_a_new_load_of_the_same_source(tmp_path):
    home = str(tmp_path / "wh")
    table = tmp_path / "errors.csv"
    table.write_text(ERRORS)
    assert main(["ingest", str(table), "--home", home, *TABLE]) == 0
    wide = ["--benchmark", "mybench", "--system", "model", "--task", "dataset", "--score-columns", "e*"]
    assert main(["ingest", str(table), "--home", home, *wide]) == 0
    loads = query(home, "SELECT is_current FROM loads ORDER BY loaded_at", tmp_path)
    assert [r["is_current"] for r in loads] == [False, True]
    assert query(home, "SELECT DISTINCT metric FROM scores", tmp_path) == [{"metric": "err"}]  # the column's name


def test_a_missing_column_is_a_usage_error_and_nothing_is_ingested(tmp_path, capsys):
    home = tmp_path / "wh"
    table = tmp_path / "errors.csv"
    table.write_text(ERRORS)
    other = tmp_path / "fine.csv"
    other.write_text("mdl,dataset,err\nA,d1,0.1\n")
    assert main(["ingest", str(other), str(table), "--home", str(home), *TABLE[:3], "mdl", *TABLE[4:]]) == 2
    assert (f"scorehouse ingest: {table}: column 'mdl' (--system) not in errors.csv; columns are: model, dataset, err"
            in capsys.readouterr().err)
    assert not (home / "loads").exists()
    assert main(["ingest", str(table), "--home", str(home), "--system", "model", "--score", "err"]) == 2
    assert "needs --benchmark" in capsys.readouterr().err
    assert main(["ingest", str(table), "--home", str(home), *TABLE, "--score-columns", "e*"]) == 2
    assert main(["ingest", str(table), "--home", str(home), "--higher-is-better", "false"]) == 2
    with pytest.raises(SystemExit) as bad_value:  # argparse's own usage error
        main(["ingest", str(table), "--home", str(home), *TABLE, "--higher-is-better", "maybe"])
    assert bad_value.value.code == 2 and "true or false, got 'maybe'" in capsys.readouterr().err
    assert not (home / "loads").exists()


def test_instance_level_json_lines_with_a_bad_cell(tmp_path, capsys):
    home = str(tmp_path / "wh")
    table = tmp_path / "items.jsonl"
    table.write_text(
        '{"model": "A", "item": "q1", "correct": 1}\n{"model": "B", "item": "q1", "correct": 0}\n'
        '{"model": "A", "item": "q2", "correct": 1}\n{"model": "B", "item": "q2", "correct": "yes"}\n'
    )
    columns = ["--benchmark", "qa", "--system", "model", "--instance", "item", "--score", "correct"]
    assert main(["ingest", str(table), "--home", home, *columns]) == 0  # quarantined rows are warnings
    assert "quarantined 1 row(s): non-numeric score" in capsys.readouterr().err
    assert main(["ingest", str(table), "--home", home + "-strict", *columns, "--strict"]) == 1
    rows = query(home, "SELECT level, task, metric, instance, system, score FROM scores ORDER BY instance, system", tmp_path)
    assert rows == [
        {"level": "instance", "task": "items", "metric": "score", "instance": i, "system": s, "score": v}
        for i, s, v in (("q1", "A", 1.0), ("q1", "B", 0.0), ("q2", "A", 1.0))
    ]
    assert query(home, "SELECT line, reason FROM quarantine", tmp_path) == [{"line": 4, "reason": "non-numeric score yes"}]
