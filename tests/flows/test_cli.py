"""The command line on real dumps: exit codes, SQL output formats, user metric rules."""

import csv
import json

import polars as pl
import pytest

from scorehouse.cli import main
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


def corrupted_value(path, replacements: dict[tuple[int, str], str]):
    """VALUE's leaderboard with the cells at (data row, column) replaced: rows the validation must quarantine."""
    with open(VALUE, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for (row, column), text in replacements.items():
        assert rows[row][column] not in ("", "-")  # a score cell, so the replacement is a bad score, not a missing one
        rows[row][column] = text
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


# Three bad cells written by hand: two non-numeric, one non-finite (row 1 is the first fully scored system).
BAD_CELLS = {(1, "TVR"): "seventy", (1, "How2R"): "n/a?", (2, "YC2R"): "inf"}


def test_quarantined_rows_are_warnings_per_reason_exit_0_and_1_with_strict(tmp_path, capsys):
    dump = corrupted_value(tmp_path / VALUE.name, BAD_CELLS)
    home = str(tmp_path / "wh")
    assert main(["--home", home, "ingest", str(dump)]) == 0
    err = capsys.readouterr().err
    assert "warning: quarantined 2 row(s): non-numeric score\n" in err
    assert "warning: quarantined 1 row(s): non-finite score\n" in err
    reasons = tmp_path / "reasons.json"
    assert main(["--home", home, "sql", "SELECT reason FROM quarantine ORDER BY reason", "--format", "json",
                 "--output", str(reasons)]) == 0  # still queryable, with the values
    assert json.loads(reasons.read_text()) == [
        {"reason": "non-finite score inf"}, {"reason": "non-numeric score n/a?"}, {"reason": "non-numeric score seventy"}]
    assert main(["ingest", "--strict", "--home", str(tmp_path / "strict"), str(dump)]) == 1


def test_a_rejected_file_exits_1_and_usage_errors_exit_2(tmp_path, capsys):
    home = str(tmp_path / "wh")
    junk = tmp_path / "junk.csv"
    junk.write_text("not,a,dump\n")
    assert main(["--home", home, "ingest", str(junk), str(VALUE)]) == 1
    assert "rejected" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad_option:
        main(["--home", home, "ingest", "--no-such-option", str(VALUE)])
    assert bad_option.value.code == 2
    assert main(["--home", home, "ingest"]) == 2  # neither paths nor --reparse
    assert "give the files or folders" in capsys.readouterr().err
    assert main(["--home", home, "rank", "--param", "borda.ties=max"]) == 2  # a parameter of no method


def test_home_before_or_after_the_command_and_the_one_after_wins(tmp_path, capsys):
    home, nowhere = str(tmp_path / "wh"), str(tmp_path / "nowhere")
    assert main(["ingest", "--home", home, str(VALUE)]) == 0  # after the command
    query = "SELECT count(DISTINCT system) FROM scores"
    assert main(["--home", home, "sql", query, "--format", "csv"]) == 0  # before it
    assert capsys.readouterr().out.splitlines()[-1] == "7"
    assert main(["--home", nowhere, "sql", query, "--format", "csv", "--home", home]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "7"
    assert main(["--home", home, "sql", query, "--home", nowhere]) == 2  # no warehouse there
    assert nowhere in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def test_refresh_follows_the_same_exit_codes(tmp_path, capsys):
    for strict, code in ((False, 0), (True, 1)):
        inbox = tmp_path / f"inbox-{strict}"
        inbox.mkdir()
        corrupted_value(inbox / VALUE.name, BAD_CELLS)
        assert main(["refresh", "--inbox", str(inbox), "--home", str(tmp_path / f"wh-{strict}"),
                     *(["--strict"] if strict else [])]) == code
        assert "warning: quarantined 2 row(s): non-numeric score\n" in capsys.readouterr().err
    inbox = tmp_path / "inbox-rejected"
    inbox.mkdir()
    (inbox / "junk.csv").write_text("not,a,dump\n".encode("utf-16").decode("latin-1"), encoding="latin-1")
    assert main(["refresh", "--inbox", str(inbox), "--home", str(tmp_path / "wh-rejected")]) == 1  # undecodable
    # a text file no format recognises is no failure of a scheduled refresh (issue 26): skipped, exit 0
    inbox = tmp_path / "inbox-unrecognised"
    inbox.mkdir()
    (inbox / "junk.csv").write_text("not,a,dump\n")
    capsys.readouterr()
    assert main(["refresh", "--inbox", str(inbox), "--home", str(tmp_path / "wh-unrecognised")]) == 0
    assert "junk.csv: not a score file (unrecognised)" in capsys.readouterr().out
