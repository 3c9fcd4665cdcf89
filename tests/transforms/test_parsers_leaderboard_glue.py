"""GLUE, SuperGLUE and XTREME leaderboard parsers on the real scrapes.

Expected numbers were read from the bundled files by eye (``grep -n`` for the
lines) and from ``shared/data/README.md`` (system counts, missing cells), never
computed with the parsers.
"""

from __future__ import annotations

import polars as pl
import pytest

from tests.transforms.strategies_leaderboard import bundled, written
from scorehouse.transforms.parsers import leaderboard_rankingnlp, leaderboard_votenrank
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.validate import reason_counts, validate_rows
from scorehouse.transforms.parsers.leaderboard_columns import XTREME

VNR_GLUE = "vote_and_rank/tables/leaderboards - GLUE.csv"
VNR_SUPERGLUE = "vote_and_rank/tables/leaderboards - SuperGLUE.csv"


def cell(rows: pl.DataFrame, system: str, task: str, metric: str) -> tuple[str | None, int]:
    """(value, line) of the one row of ``system``, ``task``, ``metric``."""
    hit = rows.filter(system=system, task=task, metric=metric)
    assert hit.height == 1, (system, task, metric, hit)
    return hit["value"][0], hit["line"][0]


# ---------------------------------------------------------------- Vote'n'Rank


def test_votenrank_glue_counts_and_missing():
    parsed = leaderboard_votenrank.parse(bundled(VNR_GLUE), None)
    rows = parsed.rows
    assert rows["benchmark"].unique().to_list() == ["glue"]
    assert rows["system"].n_unique() == 100
    # Score + 8 one-number tasks + 3 paired tasks x 2 metrics
    assert rows.select("task", "metric").unique().height == 15
    assert rows.height == 100 * 15
    assert rows["instance"].null_count() == rows.height
    missing = rows.filter(pl.col("value").is_null()).select("system", "task").sort("system", "task")
    assert missing.rows() == [
        ("ALBERT (Ensemble)", "QNLI"),
        ("ALBERT (Ensemble)", "Score"),
        ("XLNet (ensemble)", "QNLI"),
        ("XLNet (ensemble)", "Score"),
    ]


def test_votenrank_glue_duplicates_renamed_like_votenrank():
    parsed = leaderboard_votenrank.parse(bundled(VNR_GLUE), None)
    rows = parsed.rows
    # RefBERT x4 (ranks 60-63) and force_SEM x3 (ranks 70, 72, 73): 5 surplus
    # rows, and like votenrank.data_processing every occurrence gets _k.
    assert "RefBERT" not in rows["system"] and "force_SEM" not in rows["system"]
    assert cell(rows, "RefBERT_1", "Score", "avg") == ("73.1", 61)
    assert cell(rows, "RefBERT_3", "AX", "MCC") == ("12.2", 63)
    assert cell(rows, "RefBERT_3", "CoLA", "MCC") == ("36.3", 63)
    assert cell(rows, "RefBERT_4", "QQP", "F1") == ("61.4", 64)
    assert cell(rows, "force_SEM_1", "RTE", "acc") == ("69", 87)
    assert cell(rows, "force_SEM_2", "MRPC", "acc") == ("83.3", 89)
    assert cell(rows, "force_SEM_3", "RTE", "acc") == ("68.2", 90)
    assert len(parsed.problems) == 2
    assert "'RefBERT' repeats on lines 61, 62, 63, 64" in parsed.problems[0]
    assert "'force_SEM' repeats on lines 87, 89, 90" in parsed.problems[1]


def test_votenrank_glue_values_and_paired_cells():
    rows = leaderboard_votenrank.parse(bundled(VNR_GLUE), None).rows
    # line 2: 1,ERNIE Team - Baidu,ERNIE,,91.1,75.5,97.8,93.9/91.8,93.0/92.6,75.2/90.9,92.3,91.7,97.3,92.6,95.9,51.7
    expected = {
        ("Score", "avg"): "91.1", ("CoLA", "MCC"): "75.5", ("SST-2", "acc"): "97.8",
        ("MRPC", "F1"): "93.9", ("MRPC", "acc"): "91.8", ("STS-B", "Pearson"): "93.0",
        ("STS-B", "Spearman"): "92.6", ("QQP", "F1"): "75.2", ("QQP", "acc"): "90.9",
        ("MNLI-m", "acc"): "92.3", ("MNLI-mm", "acc"): "91.7", ("QNLI", "acc"): "97.3",
        ("RTE", "acc"): "92.6", ("WNLI", "acc"): "95.9", ("AX", "MCC"): "51.7",
    }
    ernie = rows.filter(system="ERNIE")
    assert dict(zip(zip(ernie["task"], ernie["metric"]), ernie["value"])) == expected
    assert set(ernie["line"]) == {2}
    # a quoted name with a comma, and a junk half kept as published
    assert cell(rows, "MaChAmp (bert-large, single task)", "STS-B", "Pearson") == ("NaN", 84)
    assert cell(rows, "MaChAmp (bert-large, single task)", "STS-B", "Spearman") == ("99.8", 84)
    assert cell(rows, "XLNet (ensemble)", "CoLA", "MCC") == ("70.2", 100)
    assert cell(rows, "AMBERT-BASE", "STS-B", "Spearman")[0] == "88.2"


def test_votenrank_superglue():
    parsed = leaderboard_votenrank.parse(bundled(VNR_SUPERGLUE), None)
    rows = parsed.rows
    assert rows["benchmark"].unique().to_list() == ["superglue"]
    assert rows["system"].n_unique() == 24
    assert rows.height == 24 * 15
    # 10 '-' value cells (the 11th is Snorkel's Rank); a '-' in a paired
    # column leaves both halves missing: Outside Best 5 + 3 paired, Snorkel 3 + 3
    assert rows["value"].null_count() == 14
    assert parsed.problems == ()
    assert cell(rows, "Outside Best", "CB", "F1") == (None, 23)
    assert cell(rows, "Outside Best", "CB", "acc") == (None, 23)
    assert cell(rows, "Outside Best", "MultiRC", "EM") == ("24.5", 23)
    assert cell(rows, "Snorkel [SuperGLUE v1.9]", "CB", "acc") == ("93.2", 25)
    assert cell(rows, "Snorkel [SuperGLUE v1.9]", "AX-g", "parity") == (None, 25)
    assert cell(rows, "SuperGLUE Human Baselines", "AX-g", "parity") == ("99.3", 5)
    assert cell(rows, "SuperGLUE Human Baselines", "AX-g", "acc") == ("99.7", 5)
    assert cell(rows, "T5 + UDG, Single Model (Google Brain)", "BoolQ", "acc") == ("91.4", 3)
    assert cell(rows, "CBoW", "MultiRC", "F1a") == ("0.0", 22)


# ------------------------------------------------------- RankingNLPSystems


def test_rankingnlp_glue_data():
    parsed = leaderboard_rankingnlp.parse(bundled("RankingNLPSystems/data/glue.data"), None)
    rows = parsed.rows
    assert rows["benchmark"].unique().to_list() == ["glue-2022"]
    assert rows["system"].n_unique() == 105
    assert rows.height == 105 * 15
    assert rows["value"].null_count() == 0
    top = "Microsoft Alexander v-team Turing NLR v5"
    assert cell(rows, top, "Score", "avg") == ("91.2", 2)
    assert cell(rows, top, "STS-B", "Spearman") == ("93.3", 2)  # published as "93.3<TAB>"
    assert cell(rows, top, "QQP", "F1") == ("76.4", 2)
    assert cell(rows, top, "AX", "MCC") == ("57.0", 2)
    assert cell(rows, "ERNIE Team - Baidu ERNIE", "MRPC", "acc") == ("91.8", 3)


def test_rankingnlp_superglue_data():
    rows = leaderboard_rankingnlp.parse(bundled("RankingNLPSystems/data/superglue.data"), None).rows
    assert rows["benchmark"].unique().to_list() == ["superglue-2022"]
    assert rows["system"].n_unique() == 24
    assert rows.height == 24 * 15
    human = "SuperGLUE Human Baselines -SuperGLUE Human Baselines"
    assert cell(rows, human, "COPA", "acc") == ("100.", 7)
    assert cell(rows, human, "AX-g", "parity") == ("99.3", 7)  # column AX-g-b
    assert cell(rows, human, "AX-g", "acc") == ("99.7", 7)  # column AX-g-a
    assert cell(rows, "Liam Fedus -SS-MoE", "MultiRC", "EM") == ("65.2", 2)


@pytest.mark.parametrize(
    ("vote_n_rank", "ranking_nlp", "vnr_name", "rnlp_name"),
    [
        (VNR_GLUE, "RankingNLPSystems/data/glue.data", "ERNIE", "ERNIE Team - Baidu ERNIE"),
        (VNR_GLUE, "RankingNLPSystems/data/glue.data", "MacALBERT + DKM", "HFL iFLYTEK MacALBERT + DKM"),
        (VNR_SUPERGLUE, "RankingNLPSystems/data/superglue.data", "ERNIE 3.0", "ERNIE Team - Baidu -ERNIE 3.0"),
        (VNR_SUPERGLUE, "RankingNLPSystems/data/superglue.data", "SuperGLUE Human Baselines",
         "SuperGLUE Human Baselines -SuperGLUE Human Baselines"),
    ],
)
def test_both_layouts_agree_on_tasks_metrics_and_values(vote_n_rank, ranking_nlp, vnr_name, rnlp_name):
    """The same system in the two scrapes: same (task, metric) names and the
    same numbers (``97`` vs ``97.0`` compare equal as numbers)."""
    a = leaderboard_votenrank.parse(bundled(vote_n_rank), None).rows
    b = leaderboard_rankingnlp.parse(bundled(ranking_nlp), None).rows
    assert set(a.select("task", "metric").iter_rows()) == set(b.select("task", "metric").iter_rows())

    def scores(rows, name):
        own = rows.filter(system=name)
        return {(t, m): float(v) for t, m, v in own.select("task", "metric", "value").iter_rows()}

    assert scores(a, vnr_name) == scores(b, rnlp_name)


def test_copies_are_the_same_rows():
    for name in ("glue", "superglue"):
        original = leaderboard_rankingnlp.parse(bundled(f"RankingNLPSystems/data/{name}.data"), None).rows
        copy = leaderboard_rankingnlp.parse(bundled(f"MissingDataRanking/data_task/{name}.csv"), None).rows
        assert copy.equals(original)


def test_sample_df_has_the_glue_data_values_line_by_line():
    def numbers(relative):
        rows = leaderboard_rankingnlp.parse(bundled(relative), None).rows
        return rows.drop("system", "benchmark").with_columns(pl.col("value").cast(pl.Float64))

    original = numbers("RankingNLPSystems/data/glue.data")
    for sample in ("RankingNLPSystems/sample_df/glue.csv", "RankingNLPSystems/sample_df/glue.data"):
        # same numbers; the cleaned copy rewrote two texts ("00.0" -> "0.0" on line 89)
        assert numbers(sample).equals(original)
    rows = leaderboard_rankingnlp.parse(bundled("RankingNLPSystems/sample_df/glue.csv"), None).rows
    # its own benchmark: its names cannot match glue.data's, so mixing them would count systems twice
    assert rows.get_column("benchmark").unique().to_list() == ["glue-2022-sample"]
    # team and model were concatenated without a separator in this copy
    assert cell(rows, "ERNIE Team - BaiduERNIE", "CoLA", "MCC") == ("75.5", 3)


@pytest.mark.parametrize(("name", "systems"), [("glue", 14), ("superglue", 10), ("xtrem", 10)])
def test_filtered_subsets_are_rows_of_the_full_file(name, systems):
    full = leaderboard_rankingnlp.parse(bundled(f"MissingDataRanking/data_task/{name}.csv"), None).rows
    subset = leaderboard_rankingnlp.parse(bundled(f"MissingDataRanking/data_task/{name}_filtered.csv"), None).rows
    assert subset["system"].n_unique() == systems
    assert subset["benchmark"].unique().to_list() == full["benchmark"].unique().to_list()
    key = ["system", "task", "metric", "value"]
    assert subset.select(key).join(full.select(key), on=key, how="anti", nulls_equal=True).height == 0


# ----------------------------------------------------------------- XTREME


def test_xtreme_repaired_data_equals_the_clean_csv():
    broken = leaderboard_rankingnlp.parse(bundled("RankingNLPSystems/data/xtrem.data"), None)
    clean = leaderboard_rankingnlp.parse(bundled("MissingDataRanking/data_task/xtrem.csv"), None)
    assert broken.rows.equals(clean.rows)
    assert clean.problems == ()
    assert len(broken.problems) == 1 and "7 fields for 6 header names" in broken.problems[0]
    rows = clean.rows
    assert rows["benchmark"].unique().to_list() == ["xtreme"]
    assert rows["system"].n_unique() == 15 and rows.height == 75
    turing = "Turing ULR v5 Alexander v-team Microsoft Nov 24 2021"
    assert cell(rows, turing, "Sentence Retrieval", "avg") == ("93.7", 2)
    assert cell(rows, turing, "Classification", "avg") == ("90.3", 2)
    assert cell(rows, "Anonymous5 Anonymous5 Anonymous5 Mar 4 2021", "Sentence Retrieval", "avg") == ("18.0", 16)
    assert cell(rows, "XLM XTREME Team Alphabet CMU -", "Question Answering", "avg") == ("43.9", 15)


def test_xtreme_missing_blanks_are_null():
    rows = leaderboard_rankingnlp.parse(bundled("MissingDataRanking/example_data_cli/xtreme_missing.csv"), None).rows
    assert rows["benchmark"].unique().to_list() == ["xtreme-missing"]
    assert rows.height == 75
    missing = rows.filter(pl.col("value").is_null()).group_by("task").len().sort("task")
    assert missing.rows() == [("Classification", 5), ("Question Answering", 2), ("Score", 1)]
    assert cell(rows, "FILTER Dynamics 365 AI Research Microsoft", "Score", "avg") == (None, 12)
    assert cell(rows, "ERNIE-M ERNIE Team Baidu", "Score", "avg") == ("80.9", 8)


def test_benchmark_argument_overrides_the_default():
    rows = leaderboard_rankingnlp.parse(bundled("MissingDataRanking/data_task/xtrem.csv"), "xt").rows
    assert rows["benchmark"].unique().to_list() == ["xt"]
    rows = leaderboard_votenrank.parse(bundled(VNR_GLUE), "glue-vnr").rows
    assert rows["benchmark"].unique().to_list() == ["glue-vnr"]


def test_unsplittable_pair_is_quarantined_and_empty_name_kept_and_reported():
    """A paired cell with one value ('93.9', 'abc/') is neither copied into both halves nor read as
    missing: both halves keep its text and are quarantined with the reason (issue 17, item 8)."""
    header = "Rank,Name,Model,URL,Score,CoLA,SST-2,MRPC,STS-B,QQP,MNLI-m,MNLI-mm,QNLI,RTE,WNLI,AX\n"
    body = "1,T,A,,80,1,2,93.9,abc/,-/5,3,4,5,6,7,8\n2,T, \t ,,x,1,2,1/2,3/4,5/6,3,4,5,6,7,8\n"
    with written("leaderboards - GLUE.csv", (header + body).encode()) as path:
        parsed = leaderboard_votenrank.parse(path, None)
    rows = parsed.rows
    assert rows.height == 2 * 15
    assert cell(rows, "A", "MRPC", "F1") == ("93.9", 2)
    assert cell(rows, "A", "MRPC", "acc") == ("93.9", 2)
    assert cell(rows, "A", "STS-B", "Pearson") == ("abc/", 2)
    assert cell(rows, "A", "STS-B", "Spearman") == ("abc/", 2)
    assert cell(rows, "A", "QQP", "F1") == (None, 2)
    assert cell(rows, "A", "QQP", "acc") == ("5", 2)
    nameless = rows.filter(pl.col("system").is_null())
    assert nameless.height == 15 and set(nameless["line"]) == {3}
    assert nameless.filter(task="Score")["value"].to_list() == ["x"]
    assert parsed.problems == (
        "line 3: empty system name; its cells are kept with a null system",
        "line 2: cell '93.9' of paired column MRPC (F1) is not two values 'a/b'; both halves quarantined",
        "line 2: cell 'abc/' of paired column STS-B (Pearson) is not two values 'a/b'; both halves quarantined",
    )
    validated = validate_rows(rows, file="leaderboards - GLUE.csv", load_id="l")
    assert validated.scores.height + validated.quarantine.height == rows.height
    flagged = validated.quarantine.filter(pl.col("reason").str.contains("which half"))
    assert sorted(zip(flagged["task"], flagged["metric"], flagged["value"])) == [
        ("MRPC", "F1", "93.9"), ("MRPC", "acc", "93.9"), ("STS-B", "Pearson", "abc/"), ("STS-B", "Spearman", "abc/"),
    ]
    assert validated.scores.filter(pl.col("task").is_in(["MRPC", "STS-B"]), system="A").height == 0
    # line 3's 15 nameless cells and line 2's two cells of one value, both halves each
    assert reason_counts(validated.quarantine) == {"empty system name": 15, "paired cell that is not two values": 4}


def test_unknown_header_and_ragged_row_are_named_errors():
    with written("x.csv", b"Model,Score\nA,1\n") as path:
        with pytest.raises(ParseError, match="x.csv, line 1: the header is not a RankingNLPSystems"):
            leaderboard_rankingnlp.parse(path, None)
    header = ",".join(["Model"] + [c for t in XTREME for c in t.split_columns])
    with written("x.csv", f"{header}\nA,1,2,3,4,5\nB,1,2\n".encode()) as path:
        with pytest.raises(ParseError, match=r"x.csv, line 3: 3 fields where the header has 6"):
            leaderboard_rankingnlp.parse(path, None)
