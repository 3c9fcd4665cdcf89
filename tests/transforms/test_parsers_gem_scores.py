"""GEM ``*.scores.json`` parser on the 33 real submission files.

References: shared/data/README.md (33 files, 987 distinct split names,
890,486 numeric values) and values/lines read from the files with grep.
"""

from __future__ import annotations

import json

import polars as pl
import pytest

from tests.transforms.conftest import BUNDLED
from tests.transforms.strategies_leaderboard import bundled, written
from scorehouse.transforms.parsers import gem_scores
from scorehouse.transforms.parsers.base import ParseError

GEM = "MissingDataRanking/data_generation/gem/scores_and_outputs/GEM-outputs/"


@pytest.fixture(scope="module")
def all_rows() -> pl.DataFrame:
    files = sorted((BUNDLED / GEM).glob("*.scores.json"))
    assert len(files) == 33
    parsed = [gem_scores.parse(f, None) for f in files]
    assert all(p.problems == () for p in parsed)
    return pl.concat([p.rows for p in parsed])


def test_counts_match_the_readme(all_rows):
    assert all_rows["benchmark"].unique().to_list() == ["gem"]
    assert all_rows["system"].n_unique() == 33
    splits = all_rows.filter(pl.col("task") != "submission")
    assert splits["task"].n_unique() == 987
    assert splits.height == 890_486
    assert all_rows.filter(task="submission")["metric"].unique().to_list() == ["param_count"]
    # four mT5 submissions publish param_count "-"; nothing else is missing
    assert sorted(all_rows.filter(pl.col("value").is_null())["system"]) == [
        "mT5_base", "mT5_large", "mT5_small", "mT5_xl"
    ]
    assert all_rows["line"].null_count() == 0
    assert not all_rows["metric"].str.ends_with("_file").any()


def test_exact_values_and_lines():
    rows = gem_scores.parse(bundled(GEM + "tgen.scores.json"), None).rows
    split = rows.filter(task="cs_restaurants_test_contrast_challenge_acts-inform")

    def at(metric):
        hit = split.filter(metric=metric)
        assert hit.height == 1
        return hit["value"][0], hit["line"][0]

    assert set(rows["system"]) == {"TGen"}
    assert at("N") == ("609", 6)
    assert at("mean_pred_length") == ("9.673234811165846", 8)
    assert at("rouge1.fmeasure")[0] == "0.62971"
    assert at("local_recall.1")[0] == "0.5508609976921711"
    assert at("nubia.nubia_score")[0] == "0.6223"
    assert at("bertscore.f1")[0] == "0.91449"
    assert at("bleurt")[0] == "-0.00014"
    assert rows.filter(task="submission").select("metric", "value", "line").rows() == [("param_count", "0", 3)]


def test_absent_splits_have_no_rows():
    rows = gem_scores.parse(bundled(GEM + "PEGASUS.scores.json"), None).rows
    # 25 keys: submission_name, param_count and 23 splits
    assert rows.filter(pl.col("task") != "submission")["task"].n_unique() == 23
    assert rows.filter(metric="N").height == 23


def test_minified_layout_keeps_values_without_lines():
    doc = {"submission_name": "S", "param_count": 5, "a": {"N": 3, "rouge1": {"fmeasure": 0.5}, "x_file": "p"}}
    with written("s.scores.json", json.dumps(doc).encode()) as path:
        parsed = gem_scores.parse(path, "g")
    assert parsed.rows.select("benchmark", "task", "metric", "system", "value", "line").rows() == [
        ("g", "submission", "param_count", "S", "5", None),
        ("g", "a", "N", "S", "3", None),
        ("g", "a", "rouge1.fmeasure", "S", "0.5", None),
    ]
    assert len(parsed.problems) == 1 and "line numbers are left empty" in parsed.problems[0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not valid JSON"),
        (b"[1, 2]", "top level is a JSON list"),
        (b'{"param_count": 1}', "'submission_name' is None"),
        (b'{"submission_name": "S", "a": {"b": [1]}}', "'a': 'b' holds an array"),
        (b'{"submission_name": "S",\n "a": {"b": 1,}}', "line 2"),
        (b'{"submission_name": "\xff"}', "not UTF-8"),
        # a lone surrogate escape (found by Hypothesis): no UTF-8 column can hold it
        (b'{"submission_name": "S", "a": {"\\ud800": 1}}', "half of a surrogate pair"),
    ],
)
def test_bad_files_are_named_errors(content, message):
    with written("bad.scores.json", content) as path:
        with pytest.raises(ParseError, match=message) as err:
            gem_scores.parse(path, None)
    assert "bad.scores.json" in str(err.value)
