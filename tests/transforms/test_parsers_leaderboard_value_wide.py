"""VALUE and the generic wide leaderboard parser on the real tables (expected
values read from the bundled files and shared/data/README.md)."""

from __future__ import annotations

import polars as pl
import pytest

from tests.transforms.strategies_leaderboard import bundled, written
from scorehouse.transforms.parsers import leaderboard_value, leaderboard_wide
from scorehouse.transforms.parsers.base import ParseError

VALUE = "vote_and_rank/tables/leaderboards - VALUE.csv"
CASE_STUDY = "vote_and_rank/tables/case_study_4/"


def value_of(rows: pl.DataFrame, system: str, task: str, metric: str) -> str | None:
    hit = rows.filter(system=system, task=task, metric=metric)
    assert hit.height == 1, (system, task, metric)
    return hit["value"][0]


def test_value_names_cleaned_and_reported():
    parsed = leaderboard_value.parse(bundled(VALUE), None)
    rows = parsed.rows
    assert rows["benchmark"].unique().to_list() == ["value"]
    assert rows.unique("system", maintain_order=True).select("system", "line").rows() == [
        ("Human VALUE baseline", 2),
        ("craig.starr (ensemble) Kakao Brain", 3),
        ("DuKG Baidu & KG", 5),
        ("HERO (AT->ST, PT+FT) VALUE baseline", 6),
        ("HERO (AT->ST, FT-only) VALUE baseline", 8),
        ("HERO (ST, PT+FT) VALUE baseline", 10),
        ("HERO (ST, FT-only) VALUE baseline", 12),
    ]
    assert len(parsed.problems) == 7
    assert parsed.problems[1] == (
        "line 3: system name 'craig.starr \\n (ensemble)Kakao BrainPaper' cleaned to "
        "'craig.starr (ensemble) Kakao Brain'"
    )


def test_value_cells():
    rows = leaderboard_value.parse(bundled(VALUE), None).rows
    assert rows.height == 7 * 13
    # the Human row: '-' for both aggregates and 5 tasks
    human = rows.filter(pl.col("system") == "Human VALUE baseline", pl.col("value").is_null())
    assert sorted(human["task"]) == sorted(["Mean-Rank", "Meta-Ave", "TVR", "How2R", "YC2R", "VATEX-EN-R", "YC2C"])
    assert rows["value"].null_count() == 7
    assert value_of(rows, "Human VALUE baseline", "TVQA", "acc") == "89.41"
    assert value_of(rows, "craig.starr (ensemble) Kakao Brain", "Meta-Ave", "avg") == "62.87"
    assert value_of(rows, "craig.starr (ensemble) Kakao Brain", "Mean-Rank", "rank") == "1.18"
    assert value_of(rows, "DuKG Baidu & KG", "YC2C", "CIDEr-D") == "128.87"
    assert value_of(rows, "HERO (ST, FT-only) VALUE baseline", "How2R", "AveR") == "2.13"
    assert value_of(rows, "HERO (ST, FT-only) VALUE baseline", "VATEX-EN-C", "CIDEr-D") == "55.98"


@pytest.mark.parametrize(
    ("relative", "benchmark", "systems", "columns", "missing"),
    [
        ("MissingDataRanking/data_task/gem.csv", "gem-avg", 22, 66, 0),
        ("MissingDataRanking/data_task/gem_filtered.csv", "gem-avg", 5, 66, 0),
        (CASE_STUDY + "glue_hpc.csv", "glue-hpc", 8, 13, 2),
        (CASE_STUDY + "social_bias_data.csv", "social-bias", 8, 5, 0),
        (CASE_STUDY + "experiment_tracker_table.csv", "experiment-tracker", 7, 40, 0),
    ],
)
def test_wide_counts(relative, benchmark, systems, columns, missing):
    parsed = leaderboard_wide.parse(bundled(relative), None)
    rows = parsed.rows
    assert rows["benchmark"].unique().to_list() == [benchmark]
    assert rows["system"].n_unique() == systems
    assert rows.select("task", "metric").unique().height == columns
    assert rows.height == systems * columns
    assert rows["value"].null_count() == missing
    assert parsed.problems == ()


def test_wide_values_and_names():
    gem = leaderboard_wide.parse(bundled("MissingDataRanking/data_task/gem_filtered.csv"), None).rows
    assert value_of(gem, "PEGASUS", "mean-over-splits", "mean_pred_length") == "20.98978432573716"
    assert value_of(gem, "mT5-xl", "mean-over-splits", "bertscore_f1") == "0.9185662632696387"
    hpc = leaderboard_wide.parse(bundled(CASE_STUDY + "glue_hpc.csv"), None).rows
    assert value_of(hpc, "t5-base", "stsb", "eval_pearson") is None
    assert value_of(hpc, "t5-base", "stsb", "eval_spearmanr") is None
    assert value_of(hpc, "gpt2", "cola", "eval_matthews_correlation") == "41.3"
    assert value_of(hpc, "gpt2", "mnli-mm", "eval_accuracy") == "83.1"
    bias = leaderboard_wide.parse(bundled(CASE_STUDY + "social_bias_data.csv"), None).rows
    assert value_of(bias, "roberta-base", "stereoset_inter_icat", "score") == "0.3995"
    costs = leaderboard_wide.parse(bundled(CASE_STUDY + "experiment_tracker_table.csv"), None).rows
    assert value_of(costs, "distilbert-base-uncased", "rte", "gpu_hours") == "0.00942340115359536"
    assert set(costs["metric"]) == {"gpu_hours", "kg_carbon", "total_power", "exp_len_hours"}
    assert costs["task"].n_unique() == 10  # the 10 GLUE tasks incl. mnli-mm


def test_wide_unknown_file_needs_a_benchmark():
    with written("scores.csv", b"system,a.x,b\ns1,1,-\ns2,,3\n") as path:
        with pytest.raises(ParseError, match="scores.csv.*pass a benchmark"):
            leaderboard_wide.parse(path, None)
        rows = leaderboard_wide.parse(path, "mine").rows
    assert rows.select("task", "metric", "system", "value", "line").rows() == [
        ("a.x", "score", "s1", "1", 2),
        ("b", "score", "s1", None, 2),
        ("a.x", "score", "s2", None, 3),
        ("b", "score", "s2", "3", 3),
    ]


def test_wide_repeated_column_is_an_error():
    with written("glue_hpc.csv", b"model_name,cola.acc,cola.acc\nm,1,2\n") as path:
        with pytest.raises(ParseError, match=r"repeat the \(task, metric\)"):
            leaderboard_wide.parse(path, None)
