"""The command line on real dumps: exit codes, SQL output formats, user metric rules."""

import json

import polars as pl

from flows.cli import main
from tests.flows.conftest import SUPERGLUE, VALUE


def test_ingest_exit_codes_and_sql_formats(tmp_path, capsys):
    home = str(tmp_path / "wh")
    assert main(["--home", home, "ingest", str(VALUE)]) == 0  # every cell usable
    junk = tmp_path / "junk.csv"
    junk.write_text("not,a,dump\n")
    assert main(["--home", home, "ingest", str(junk), str(SUPERGLUE)]) == 1  # one file rejected
    assert "rejected" in capsys.readouterr().err
    query = "SELECT benchmark, count(DISTINCT system) AS systems FROM scores GROUP BY ALL ORDER BY ALL"
    assert main(["--home", home, "sql", query, "--format", "json", "--output", str(tmp_path / "q.json")]) == 0
    assert json.loads((tmp_path / "q.json").read_text()) == [
        {"benchmark": "superglue", "systems": 24}, {"benchmark": "value", "systems": 7}]
    assert main(["--home", home, "sql", query, "--format", "parquet", "--output", str(tmp_path / "q.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "q.parquet").rows() == [("superglue", 24), ("value", 7)]
    nested = "SELECT ['a', 'b'] AS notes, [] :: VARCHAR[] AS none, {'k': 1} AS record, NULL :: VARCHAR[] AS missing"
    assert main(["--home", home, "sql", nested, "--format", "csv", "--output", str(tmp_path / "n.csv")]) == 0
    row = pl.read_csv(tmp_path / "n.csv").row(0)
    assert [json.loads(v) for v in row[:3]] == [["a", "b"], [], {"k": 1}] and row[3] is None
    assert main(["--home", home, "sql", nested, "--format", "json", "--output", str(tmp_path / "n.json")]) == 0
    assert json.loads((tmp_path / "n.json").read_text())[0]["notes"] == ["a", "b"]
    assert main(["--home", str(tmp_path / "nowhere"), "sql", "SELECT 1"]) == 2
    assert "ingest" in capsys.readouterr().err


def test_user_metric_rules_override_the_bundled_ones(tmp_path):
    home = tmp_path / "wh"
    home.mkdir()
    # the user decides TVR is lower-is-better and weighs double (first matching rule wins)
    (home / "metric_rules.csv").write_text(
        "benchmark,task,metric,higher_is_better,is_ranked,weight,group,note\n"
        "value,TVR,*,false,true,2.0,,my override\n"
    )
    assert main(["--home", str(home), "ingest", str(VALUE)]) == 0
    tvr = tmp_path / "tvr.csv"
    main(["--home", str(home), "sql", "SELECT task, higher_is_better, weight FROM metrics WHERE task IN ('TVR', 'TVQA') ORDER BY task",
          "--format", "csv", "--output", str(tvr)])
    assert pl.read_csv(tvr).rows() == [("TVQA", True, 1.0), ("TVR", False, 2.0)]
