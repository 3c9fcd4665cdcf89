"""Tables a user brings, read by the columns named (format user-table): every file type, both shapes.

The fixtures are written here by hand and every expected row is spelled out from the fixture's text.
"""

import fnmatch
import gzip
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorehouse.transforms.catalog import declared_rules, glob_escaped, glob_regex
from scorehouse.transforms.parsers import FORMATS, detect_format
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers.user_table import (
    TableOptionsError,
    check_options,
    check_table,
    header_of,
    parse_table,
    read_table,
    task_of_file,
)
from scorehouse.transforms.validate import validate_rows

LONG = {"system": "model", "task": "dataset", "metric": "metric", "score": "value", "instance": "item"}
LONG_CSV = (
    "model,dataset,metric,value,item\n"
    "A,d1,acc,0.5,i1\n"
    "B,d1,acc,0.25,i1\n"
    "A,d2,f1,1e-3,i9\n"
)


def rows_of(parsed) -> list[tuple]:
    return parsed.rows.select("benchmark", "task", "metric", "instance", "system", "value", "line").rows()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_long_csv_with_instances_keeps_values_as_published(tmp_path):
    parsed = parse_table(write(tmp_path / "results.csv", LONG_CSV), "mybench", LONG)
    assert rows_of(parsed) == [
        ("mybench", "d1", "acc", "i1", "A", "0.5", 2),
        ("mybench", "d1", "acc", "i1", "B", "0.25", 3),
        ("mybench", "d2", "f1", "i9", "A", "1e-3", 4),
    ]
    assert "instance level" in parsed.problems[0]


def test_long_table_without_task_and_metric_columns(tmp_path):
    path = write(tmp_path / "my.results.tsv", "who\tval\nA\t3\nB\t4\n")
    parsed = parse_table(path, "b", {"system": "who", "score": "val"})
    assert rows_of(parsed) == [("b", "my.results", "score", None, "A", "3", 2), ("b", "my.results", "score", None, "B", "4", 3)]


def test_wide_tsv_columns_become_tasks_or_metrics(tmp_path):
    path = write(tmp_path / "wide.tsv", "model\tacc_a\tacc_b\tf1\tsplit\nA\t1\t2\t3\tx\nB\t4\t\t6\ty\n")
    as_tasks = parse_table(path, "b", {"system": "model", "score_columns": "acc_*"})
    assert rows_of(as_tasks) == [
        ("b", "acc_a", "score", None, "A", "1", 2), ("b", "acc_b", "score", None, "A", "2", 2),
        ("b", "acc_a", "score", None, "B", "4", 3), ("b", "acc_b", "score", None, "B", None, 3),
    ]
    as_metrics = parse_table(path, "b", {"system": "model", "task": "split", "score_columns": "*"})
    assert rows_of(as_metrics)[:3] == [
        ("b", "x", "acc_a", None, "A", "1", 2), ("b", "x", "acc_b", None, "A", "2", 2), ("b", "x", "f1", None, "A", "3", 2),
    ]
    assert rows_of(as_metrics)[3:] == [
        ("b", "y", "acc_a", None, "B", "4", 3), ("b", "y", "acc_b", None, "B", None, 3), ("b", "y", "f1", None, "B", "6", 3),
    ]
    with_metric = parse_table(path, "b", {"system": "model", "metric": "split", "score_columns": "f?"})
    assert rows_of(with_metric) == [("b", "f1", "x", None, "A", "3", 2), ("b", "f1", "y", None, "B", "6", 3)]


def test_score_columns_given_twice_keep_the_columns_of_both(tmp_path):
    from scorehouse.transforms.parsers.user_table import score_columns_option, score_globs

    path = write(tmp_path / "wide.tsv", "model\tacc_a\tacc_b\tf1\tsplit\nA\t1\t2\t3\tx\n")
    both = score_columns_option(["f1", "acc_b"])
    assert score_globs(both) == ["f1", "acc_b"] and score_columns_option(["acc_*"]) == "acc_*"
    assert score_globs("[ab]*") == ["[ab]*"]  # a character class is one glob, not a list
    parsed = parse_table(path, "b", {"system": "model", "score_columns": both})
    assert rows_of(parsed) == [("b", "acc_b", "score", None, "A", "2", 2), ("b", "f1", "score", None, "A", "3", 2)]
    with pytest.raises(TableOptionsError, match="no column matching --score-columns 'nope'"):
        check_table(path, {"system": "model", "score_columns": score_columns_option(["f1", "nope"])})


def test_gzipped_csv(tmp_path):
    path = tmp_path / "results.csv.gz"
    path.write_bytes(gzip.compress(LONG_CSV.encode()))
    assert rows_of(parse_table(path, "mybench", LONG)) == rows_of(parse_table(write(tmp_path / "results.csv", LONG_CSV), "mybench", LONG))
    assert task_of_file(path) == "results"
    assert task_of_file(tmp_path / "Results.CSV.GZ") == "Results"  # the extensions in any case, the name as it is


def test_json_lines_values_as_their_json_text(tmp_path):
    path = write(
        tmp_path / "results.jsonl",
        '{"model": "A", "dataset": "d1", "metric": "acc", "value": 0.5, "item": "i1"}\n'
        "\n"
        '{"model": "B", "dataset": "d1", "metric": "acc", "value": "oops", "item": "i1"}\n'
        '{"model": "A", "dataset": "d2", "metric": "f1", "value": null, "item": 7}\n',
    )
    parsed = parse_table(path, "mybench", LONG)
    assert rows_of(parsed) == [
        ("mybench", "d1", "acc", "i1", "A", "0.5", 1),
        ("mybench", "d1", "acc", "i1", "B", "oops", 3),
        ("mybench", "d2", "f1", "7", "A", None, 4),
    ]
    validated = validate_rows(parsed.rows, file="results.jsonl", load_id="x")
    assert validated.quarantine.select("line", "reason").rows() == [(3, "non-numeric score oops")]
    assert validated.scores.get_column("score").to_list() == [0.5, None]


def test_parquet_wide_keeps_numbers_typed(tmp_path):
    path = tmp_path / "errors.parquet"
    pl.DataFrame({"model": ["A", "B"], "err_x": [0.1, float("nan")], "err_y": [2, 3]}).write_parquet(path)
    parsed = parse_table(path, "b", {"system": "model", "score_columns": "err_*"})
    assert parsed.rows.schema["value"] == pl.Float64
    assert parsed.rows.get_column("line").null_count() == parsed.rows.height == 4  # a Parquet file has no lines
    validated = validate_rows(parsed.rows, file="errors.parquet", load_id="x")
    assert validated.scores.sort("task", "system").select("task", "system", "score").rows() == [
        ("err_x", "A", 0.1), ("err_y", "A", 2.0), ("err_y", "B", 3.0)]
    assert validated.quarantine.get_column("reason").to_list() == ["non-finite score NaN"]


def test_bad_cells_duplicates_and_empty_names_are_quarantined_with_their_reason(tmp_path):
    path = write(
        tmp_path / "r.csv",
        "model,dataset,metric,value,item\n"
        "A,d1,acc,0.5,i1\n"
        "B,d1,acc,oops,i1\n"
        "A,d1,acc,0.5,i1\n"
        ",d1,acc,0.3,i2\n"
        "C,d1,acc,0.3,\n"
        "C,d1,acc,0.4,i1\n"
        "C,d1,acc,0.6,i1\n",
    )
    validated = validate_rows(parse_table(path, "b", LONG).rows, file="r.csv", load_id="x")
    assert validated.quarantine.select("line", "reason").rows() == [
        (3, "non-numeric score oops"),
        (4, "exact duplicate of line 2"),
        (5, "empty system name"),
        (6, "empty instance name"),  # else it would land as a task-level score
        (7, "conflicting values 0.4 / 0.6 for the same system and voter"),
        (8, "conflicting values 0.4 / 0.6 for the same system and voter"),
    ]
    assert validated.scores.select("system", "score").rows() == [("A", 0.5)]


@pytest.mark.parametrize("marker", ["NA", "na", "N/A", "n/a", "-", " - ", "\u2013", "\u2014", "NaN", "nan", "null", "None", ""])
def test_a_missing_marker_lands_as_a_missing_score_and_is_counted(tmp_path, marker):
    path = write(tmp_path / "m.csv", f"model,t1,t2\nA,0.5,{marker}\nB,{marker},0.25\n")
    parsed = parse_table(path, "b", {"system": "model", "score_columns": "t*"})
    validated = validate_rows(parsed.rows, file="m.csv", load_id="x")
    assert validated.quarantine.height == 0
    assert sorted(validated.scores.select("system", "task", "score").rows(), key=str) == sorted(
        [("A", "t1", 0.5), ("A", "t2", None), ("B", "t1", None), ("B", "t2", 0.25)], key=str)
    counted = [p for p in parsed.problems if "missing marker" in p]
    assert len(counted) == (0 if marker == "" else 1)  # an empty cell is missing in every format: not counted
    assert all(p.startswith("2 score cell(s) held a missing marker") for p in counted)


def test_missing_markers_in_a_parquet_text_column_and_nulls_in_a_typed_one(tmp_path):
    path = tmp_path / "m.parquet"
    pl.DataFrame({"model": ["A", "B"], "t1": ["0.5", "NA"], "t2": [None, 0.25]}).write_parquet(path)
    parsed = parse_table(path, "b", {"system": "model", "score_columns": "t*"})
    validated = validate_rows(parsed.rows, file="m.parquet", load_id="x")
    assert validated.quarantine.height == 0
    assert sorted(validated.scores.select("system", "task", "score").rows(), key=str) == sorted(
        [("A", "t1", 0.5), ("A", "t2", None), ("B", "t1", None), ("B", "t2", 0.25)], key=str)
    assert any(p.startswith("1 score cell(s) held a missing marker") for p in parsed.problems)


@pytest.mark.parametrize("cell", ["85%", "1,234", "n/a?", "NA NA", "--"])
def test_percentages_thousands_and_near_markers_stay_non_numeric(tmp_path, cell):
    path = write(tmp_path / "p.csv", f'model,t1\nA,"{cell}"\n')
    validated = validate_rows(parse_table(path, "b", {"system": "model", "score": "t1"}).rows, file="p.csv", load_id="x")
    assert validated.quarantine.select("reason").rows() == [(f"non-numeric score {cell}",)]


def test_options_that_do_not_fit_the_file_name_it_and_its_columns(tmp_path):
    path = write(tmp_path / "results.csv", LONG_CSV)
    with pytest.raises(TableOptionsError) as missing:
        parse_table(path, "b", {**LONG, "system": "system_name"})
    assert str(missing.value) == (
        f"{path}: column 'system_name' (--system) not in results.csv; columns are: model, dataset, metric, value, item")
    with pytest.raises(TableOptionsError, match=r"no column matching --score-columns 'acc_\*' is not in results.csv; columns are: model"):
        check_table(path, {"system": "model", "score_columns": "acc_*"})
    with pytest.raises(TableOptionsError, match="name it .csv, .tsv, .jsonl or .parquet"):
        check_table(write(tmp_path / "results.txt", LONG_CSV), LONG)
    with pytest.raises(TableOptionsError, match="needs --benchmark"):
        parse_table(path, None, LONG)


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"score": "v"}, "--system"),
        ({"system": "m"}, "one of the two"),
        ({"system": "m", "score": "v", "score_columns": "*"}, "one of the two"),
        ({"system": "m", "task": "t", "metric": "x", "score_columns": "*"}, "at most one of --task and --metric"),
        ({"system": "m", "task": "m", "score": "v"}, r"\['m'\] named for two roles"),
        ({"system": "m", "score": "v", "colour": "c"}, "unknown column role"),
    ],
)
def test_inconsistent_options_are_refused_before_reading(columns, message):
    with pytest.raises(ValueError, match=message):
        check_options(columns)


def test_header_is_the_same_read_early_and_read_whole(tmp_path):
    """The early check (header only) and the parser read the same columns, for every file type."""
    frame = pl.DataFrame({"model": ["A"], "acc x": ["0.5"], "é": ["1"]})
    files = [tmp_path / "t.csv", tmp_path / "t.tsv", tmp_path / "t.jsonl", tmp_path / "t.parquet"]
    frame.write_csv(files[0])
    frame.write_csv(files[1], separator="\t")
    frame.write_ndjson(files[2])
    frame.write_parquet(files[3])
    for path in files:
        assert header_of(path) == ["model", "acc x", "é"]
        assert [c for c in read_table(path).columns if not c.startswith("_")] == ["model", "acc x", "é"]


def test_a_csv_column_named_line_is_refused_not_overwritten(tmp_path):
    with pytest.raises(ParseError, match="column named 'line'"):
        parse_table(write(tmp_path / "t.csv", "model,line,v\nA,1,2\n"), "b", {"system": "model", "score": "v"})


def test_the_format_is_chosen_by_the_columns_never_detected(tmp_path):
    path = write(tmp_path / "results.csv", LONG_CSV)
    with pytest.raises(ParseError, match="unrecognised format"):
        detect_format(path)
    with pytest.raises(TableOptionsError, match="give --system and --score"):
        FORMATS["user-table"].parse(path, "b")
    assert rows_of(FORMATS["user-table"].read(path, "b", LONG)) == rows_of(parse_table(path, "b", LONG))


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@given(name=names, other=names)
def test_escaped_names_match_exactly_themselves(name, other):
    """A declared rule matches its own key and nothing else, judged by fnmatch (the rules' documented glob)."""
    pattern = pl.select(glob_escaped(pl.lit(name))).item()
    assert fnmatch.fnmatchcase(name, pattern)
    assert fnmatch.fnmatchcase(other, pattern) == (other == name)
    assert pl.select(pl.lit(other).str.contains(glob_regex(pattern))).item() == (other == name)


def test_declared_rules_one_per_key():
    keys = pl.DataFrame({"benchmark": ["b", "b", "b"], "task": ["t*", "t*", "u"], "metric": ["m", "m", "m"]})
    rules = declared_rules(keys, higher_is_better=False)
    assert rules.select("benchmark", "task", "metric", "higher_is_better", "is_ranked", "weight").rows() == [
        ("b", "t[*]", "m", False, True, 1.0), ("b", "u", "m", False, True, 1.0)]


def test_a_json_lines_key_named_line_is_a_column_and_lines_skip_blank_ones(tmp_path):
    # CRLF line ends and a blank line of spaces, as Windows tools write JSON Lines
    path = write(tmp_path / "l.jsonl", '{"model": "A", "line": 7, "acc": 0.5}\r\n  \r\n{"model": "B", "line": 8, "acc": "NA"}\r\n')
    assert header_of(path) == ["model", "line", "acc"]
    parsed = parse_table(path, "b", {"system": "model", "task": "line", "score": "acc"})
    assert parsed.rows.select("task", "system", "value", "line").rows() == [("7", "A", "0.5", 1), ("8", "B", None, 3)]
