"""Metric rules: the glob translation against fnmatch, first match wins, bad files named."""

import fnmatch

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorehouse.transforms.catalog import MetricRulesError, check_rules, glob_regex, resolve_metrics

alphabet = st.sampled_from(list("ab-.*?[]!^\\$(){}+|1 "))


@given(pattern=st.text(alphabet, max_size=8), name=st.text(st.sampled_from(list("ab-.[]!^\\$1 *?")), max_size=8))
def test_glob_regex_matches_like_fnmatchcase(pattern, name):
    matched = pl.Series([name]).str.contains(glob_regex(pattern)).item()
    assert matched == fnmatch.fnmatchcase(name, pattern)


def rules(*rows):
    return check_rules(
        pl.DataFrame(
            rows, schema=["benchmark", "task", "metric", "higher_is_better", "is_ranked", "weight", "group", "note"],
            orient="row",
        ),
        "test rules",
    )


def test_first_matching_rule_wins_and_group_defaults_to_the_task():
    keys = pl.DataFrame({"benchmark": ["glue", "glue", "wmt20"], "task": ["MRPC", "CoLA", "de-en"],
                         "metric": ["F1", "MCC", "TER@newstestB2020"]})
    catalog = resolve_metrics(keys, rules(
        ("glue", "MRPC", "*", "true", "true", "0.5", "", "paired"),
        ("wmt*", "*", "TER*", "false", "true", "1", "", "error rate"),
        ("*", "*", "*", "true", "true", "1", "", "catch-all"),
        ("glue", "*", "*", "false", "false", "9", "", "never reached"),
    ))
    assert catalog.rows() == [
        ("glue", "CoLA", "MCC", True, True, 1.0, "CoLA", 1.0),
        ("glue", "MRPC", "F1", True, True, 0.5, "MRPC", 1.0),
        ("wmt20", "de-en", "TER@newstestB2020", False, True, 1.0, "de-en", 1.0),
    ]


def test_group_weight_is_optional_and_defaults_to_one():
    keys = pl.DataFrame({"benchmark": ["glue", "glue"], "task": ["MNLI-m", "CoLA"], "metric": ["acc", "MCC"]})
    table = pl.DataFrame(
        [("glue", "MNLI-*", "*", "true", "true", "1", "MNLI", "0.5", "one task in two halves"),
         ("*", "*", "*", "true", "true", "1", "", "", "catch-all")],
        schema=["benchmark", "task", "metric", "higher_is_better", "is_ranked", "weight", "group", "group_weight", "note"],
        orient="row",
    )
    catalog = resolve_metrics(keys, check_rules(table, "test rules"))
    assert catalog.select("task", "group", "group_weight").rows() == [("CoLA", "CoLA", 1.0), ("MNLI-m", "MNLI", 0.5)]
    with pytest.raises(MetricRulesError, match="rule 1 under the header: group_weight must be a number >= 0"):
        check_rules(table.with_columns(group_weight=pl.lit("-1")), "test rules")
    with pytest.raises(MetricRulesError, match="rule 1 under the header: group_weight must be a number >= 0"):
        check_rules(table.with_columns(group_weight=pl.lit("heavy")), "test rules")


def test_a_key_no_rule_matches_is_named():
    keys = pl.DataFrame({"benchmark": ["gem"], "task": ["xsum"], "metric": ["bleu"]})
    with pytest.raises(MetricRulesError, match="gem.*xsum.*bleu"):
        resolve_metrics(keys, rules(("glue", "*", "*", "true", "true", "1", "", "")))


def test_a_bad_flag_names_the_line_and_value():
    with pytest.raises(MetricRulesError, match="rule 1 under the header: higher_is_better must be true or false, got 'yes'"):
        rules(("glue", "*", "*", "yes", "true", "1", "", ""))


names = st.text(st.sampled_from(list("abAé-./[]1 *?")), max_size=5)
patterns = st.text(st.sampled_from(list("abé-.*?[]!1")), max_size=4)


@given(keys=st.lists(st.tuples(names, names, names), min_size=1, max_size=30),
       patterns=st.lists(st.tuples(patterns, patterns, patterns), max_size=8))
def test_each_key_gets_the_first_rule_fnmatchcase_matches(keys, patterns):
    """The rule each key resolves to, against a key-by-key, rule-by-rule fnmatchcase reference (a rule's weight is
    its place); the last rule is a catch-all."""
    table = rules(*[(*p, "true", "true", str(i), "", "") for i, p in enumerate([*patterns, ("*", "*", "*")])])
    frame = pl.DataFrame(keys, schema=["benchmark", "task", "metric"], orient="row")
    catalog = resolve_metrics(frame, table)
    expected = {key: next(i for i, rule in enumerate([*patterns, ("*", "*", "*")])
                          if all(fnmatch.fnmatchcase(name, pattern) for name, pattern in zip(key, rule, strict=True)))
                for key in keys}
    assert {row[:3]: int(row[5]) for row in catalog.rows()} == expected
