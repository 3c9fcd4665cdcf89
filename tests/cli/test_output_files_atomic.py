"""Every ``--output`` file of a table command is written aside and renamed into place (the one export writer): an
existing file is replaced whole, never rewritten in place where a reader could see half of it."""

from __future__ import annotations

import polars as pl
import pytest

from scorehouse import console


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_an_output_file_is_replaced_whole_and_leaves_no_temporary_file(tmp_path, fmt):
    output = tmp_path / f"table.{fmt}"
    output.write_text("the previous table, which a reader may hold open\n")
    before = output.stat().st_ino
    frame = pl.DataFrame({"system": ["a", "b"], "score": [0.5, 0.25], "tasks": [["x"], ["x", "y"]]})
    console.write_table(frame, fmt, output)
    assert output.stat().st_ino != before  # a new file renamed over the old, not the old one truncated
    assert sorted(p.name for p in tmp_path.iterdir()) == [output.name]
    read = pl.read_parquet(output) if fmt == "parquet" else (
        pl.read_json(output) if fmt == "json" else pl.read_csv(output))
    assert read["system"].to_list() == ["a", "b"] and read["score"].to_list() == [0.5, 0.25]
    if fmt == "csv":  # CSV has no lists: the nested column is its JSON text
        assert read["tasks"].to_list() == ['["x"]', '["x","y"]']


def test_stdout_gets_the_same_table_as_a_file(tmp_path, capsys):
    frame = pl.DataFrame({"system": ["a"], "score": [1.0]})
    console.write_table(frame, "csv", None)
    assert capsys.readouterr().out == "system,score\na,1.0\n"
    console.write_table(frame, "json", None)
    assert capsys.readouterr().out == '[{"system":"a","score":1.0}]\n'
