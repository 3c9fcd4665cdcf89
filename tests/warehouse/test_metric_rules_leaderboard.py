"""The bundled metric rules say what the leaderboard columns mean.

Rules are resolved here independently with :func:`fnmatch.fnmatchcase`
(first match wins) on the (benchmark, task, metric) triples the parsers emit
for the real dumps, and checked against the facts in shared/data/README.md
and the Vote'n'Rank weights (0.5 per paired half, 0 for AX / AX-b / AX-g).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

import polars as pl
import pytest

from tests.transforms.conftest import BUNDLED
from scorehouse.transforms.parsers import FORMATS, parse_file, read_head
from scorehouse.warehouse.schema import METRIC_RULES

LEADERBOARD_FORMATS = (
    "votenrank-leaderboard", "rankingnlp-leaderboard", "value-leaderboard", "wide-leaderboard", "gem-scores-json"
)
RULES_FILE = Path(__file__).resolve().parents[2] / "warehouse" / "defaults" / "metric_rules.csv"


@pytest.fixture(scope="module")
def rules() -> pl.DataFrame:
    return pl.read_csv(RULES_FILE, schema=METRIC_RULES)


@pytest.fixture(scope="module")
def triples() -> set[tuple[str, str, str]]:
    found: set[tuple[str, str, str]] = set()
    for path in BUNDLED.rglob("*"):
        if path.is_file() and any(FORMATS[name].sniff(path, read_head(path)) for name in LEADERBOARD_FORMATS):
            _, parsed = parse_file(path)
            found |= set(parsed.rows.select("benchmark", "task", "metric").unique().iter_rows())
    return found


def first_match(rules: pl.DataFrame, benchmark: str, task: str, metric: str) -> int:
    """Index of the first rule whose three patterns match."""
    for i, rule in enumerate(rules.iter_rows(named=True)):
        if all(fnmatchcase(v, rule[k]) for k, v in (("benchmark", benchmark), ("task", task), ("metric", metric))):
            return i
    raise AssertionError("the catch-all must match everything")


def test_every_rule_is_explained_and_the_catch_all_is_last(rules):
    assert rules["note"].null_count() == 0
    assert rules.row(-1, named=True)["benchmark"] == "*" and rules.row(-1, named=True)["metric"] == "*"
    assert rules.filter(benchmark="*", task="*", metric="*").height == 1


def test_no_rule_is_dead(rules, triples):
    """Every specific rule for these benchmarks is the first match of some column the parsers emit
    (GEM split names do not matter to the rules, so one split stands for all)."""
    gem_metrics = {(b, m) for b, t, m in triples if b == "gem" and t != "submission"}
    sample = {t for t in triples if t[0] != "gem" or t[1] == "submission"}
    sample |= {(b, "xsum_test", m) for b, m in gem_metrics}
    used = {first_match(rules, *t) for t in sample}
    benchmarks = {b for b, _, _ in sample}
    ours = {i for i, pattern in enumerate(rules["benchmark"]) if any(fnmatchcase(b, pattern) for b in benchmarks)}
    assert used >= ours - {rules.height - 1}


@pytest.mark.parametrize(
    ("benchmark", "task", "metric", "higher", "ranked", "weight"),
    [
        ("glue", "Score", "avg", True, False, 0.0),
        ("glue-2022", "Score", "avg", True, False, 0.0),
        ("superglue-2022", "Score", "avg", True, False, 0.0),
        ("xtreme", "Score", "avg", True, False, 0.0),
        ("xtreme", "Sentence Retrieval", "avg", True, True, 1.0),
        ("glue", "AX", "MCC", True, True, 0.0),
        ("superglue", "AX-b", "MCC", True, True, 0.0),
        ("superglue-2022", "AX-g", "parity", True, True, 0.0),
        ("glue", "MRPC", "F1", True, True, 0.5),
        ("glue-2022", "STS-B", "Spearman", True, True, 0.5),
        ("glue", "QQP", "acc", True, True, 0.5),
        ("superglue", "CB", "acc", True, True, 0.5),
        ("superglue-2022", "MultiRC", "EM", True, True, 0.5),
        ("superglue", "ReCoRD", "F1", True, True, 0.5),
        ("glue", "CoLA", "MCC", True, True, 1.0),
        ("superglue", "RTE", "acc", True, True, 1.0),
        ("glue-hpc", "mrpc", "eval_f1", True, True, 0.5),
        ("glue-hpc", "cola", "eval_matthews_correlation", True, True, 1.0),
        ("value", "Mean-Rank", "rank", False, False, 0.0),
        ("value", "Meta-Ave", "avg", True, False, 0.0),
        ("value", "TVR", "AveR", True, True, 1.0),
        ("experiment-tracker", "mnli-mm", "gpu_hours", False, True, 1.0),
        ("experiment-tracker", "cola", "kg_carbon", False, True, 1.0),
        ("social-bias", "winobias_acc_difference", "score", True, True, 1.0),
        ("gem", "submission", "param_count", False, False, 0.0),
        ("gem", "xsum_test", "N", True, False, 0.0),
        ("gem", "xsum_test", "mean_pred_length-nopunct", True, False, 0.0),
        ("gem", "xsum_test", "vocab_size-2", True, False, 0.0),
        ("gem", "xsum_test", "cond_entropy-3", True, False, 0.0),
        ("gem", "xsum_test", "msttr-100_nopunct", True, False, 0.0),
        ("gem", "xsum_test", "distinct-1", True, False, 0.0),
        ("gem", "xsum_test", "nubia.grammar_hyp", False, False, 0.0),
        ("gem", "xsum_test", "nubia.contradiction", False, True, 1.0),
        ("gem", "xsum_test", "nubia.nubia_score", True, True, 1.0),
        ("gem", "xsum_test", "rouge1.fmeasure", True, True, 1.0),
        ("gem", "xsum_test", "local_recall.1", True, True, 1.0),
        ("gem-avg", "mean-over-splits", "nubia_irrelevancy", False, True, 1.0),
        ("gem-avg", "mean-over-splits", "total_length-nopunct", True, False, 0.0),
        ("gem-avg", "mean-over-splits", "bleurt", True, True, 1.0),
    ],
)
def test_rule_for_column(rules, triples, benchmark, task, metric, higher, ranked, weight):
    assert (benchmark, task, metric) in triples  # a column the parsers really emit
    rule = rules.row(first_match(rules, benchmark, task, metric), named=True)
    assert (rule["higher_is_better"], rule["is_ranked"], rule["weight"]) == (higher, ranked, weight), rule["note"]


@pytest.mark.parametrize(
    ("relative", "first_rows", "expected"),
    [
        # shared/data/README.md, Vote'n'Rank reference numbers: GLUE top-30 rows
        ("vote_and_rank/tables/leaderboards - GLUE.csv", 30,
         {"ERNIE": 91.18, "StructBERT + CLEVER": 91.07, "DeBERTa + CLEVER": 90.88}),
        # SuperGLUE (22 complete rows)
        ("vote_and_rank/tables/leaderboards - SuperGLUE.csv", None, {"ERNIE 3.0": 90.62}),
        # VALUE without the Human row: equals the leaderboard's Meta-Ave
        ("vote_and_rank/tables/leaderboards - VALUE.csv", None, {"craig.starr (ensemble) Kakao Brain": 62.87}),
    ],
)
def test_weighted_means_reproduce_vote_n_rank(rules, relative, first_rows, expected):
    """Parser + rules end to end: the weighted mean of the ranked columns with
    the catalog's weights is the published Vote'n'Rank number."""
    _, parsed = parse_file(BUNDLED / relative)
    rows = parsed.rows
    if first_rows is not None:
        rows = rows.filter(pl.col("line") <= first_rows + 1)
    keys = rows.select("benchmark", "task", "metric").unique()
    catalog = pl.DataFrame(
        [{**dict(zip(("benchmark", "task", "metric"), k)), **{
            c: rules.row(first_match(rules, *k), named=True)[c] for c in ("is_ranked", "weight")}}
         for k in keys.iter_rows()]
    )
    scored = rows.join(catalog, on=["benchmark", "task", "metric"]).filter("is_ranked")
    means = scored.group_by("system").agg(
        mean=(pl.col("value").cast(pl.Float64) * pl.col("weight")).sum() / pl.col("weight").sum()
    )
    got = {s: m for s, m in means.iter_rows() if s in expected}
    assert got == pytest.approx(expected, abs=0.005)


def test_a_bad_rule_is_named_by_its_line_in_the_file(tmp_path):
    """Comment and blank lines are not rules, but they count as lines of the file the user edits."""
    from scorehouse.transforms.catalog import MetricRulesError, check_rules
    from scorehouse.warehouse.storage import Warehouse, read_metric_rules

    (tmp_path / "metric_rules.csv").write_text(
        "# my rules\nbenchmark,task,metric,higher_is_better,is_ranked,weight,group,note\n"
        "value,TVR,*,true,true,1,,fine\n\n# the next one is wrong\nvalue,TVQA,*,true,sometimes,1,,bad\n"
    )
    source, frame = read_metric_rules(Warehouse(tmp_path))[0]
    with pytest.raises(MetricRulesError, match=r"metric_rules.csv: line 6: is_ranked must be true or false, got 'sometimes'"):
        check_rules(frame, source)
