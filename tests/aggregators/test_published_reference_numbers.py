"""The published reference numbers of Vote'n'Rank (Rofin et al., 2023), reproduced through the
whole real path: bundled leaderboard dump → parser → validation → bundled metric rules (weights
0.5 for each half of a paired cell, 0 for the diagnostics, the leaderboard's own average left
out) → ballots → the registry.  Numbers from the shared data README ("Reference numbers worth
reusing"), obtained by running the Vote'n'Rank code; the leaderboards drop systems with a
missing cell, as that code's ``dropna`` does.
"""

import polars as pl
import pytest

from scorehouse.aggregators import aggregate, condorcet_weights, prospective_winners, run
from benchmarks.published_bundled import PUBLISHED_VALUE_NAMES, TABLES, bundled_leaderboard
from scorehouse.transforms.parsers import parse_file



def leaderboard(name: str, top: int | None = None) -> pl.DataFrame:
    """Complete task-level ballots of a bundled Vote'n'Rank leaderboard (first ``top`` rows)."""
    return bundled_leaderboard(name, top, complete=True)  # the rank flow's rule: Vote'n'Rank's dropna


def top(ranking: pl.DataFrame, n: int) -> list[tuple[str, float]]:
    return [(s, round(v, 2)) for s, v in ranking.head(n).select("system", "score").iter_rows()]


@pytest.fixture(scope="module")
def glue_top30() -> pl.DataFrame:
    return leaderboard("leaderboards - GLUE.csv", top=30)


def test_glue_weighted_mean(glue_top30):
    assert top(aggregate("mean", glue_top30), 3) == [
        ("ERNIE", 91.18), ("StructBERT + CLEVER", 91.07), ("DeBERTa + CLEVER", 90.88)]


def test_glue_borda_with_max_ties(glue_top30):
    assert top(aggregate("borda", glue_top30, ties="max"), 4) == [
        ("ERNIE", 260.5), ("StructBERT + CLEVER", 256.0), ("DeBERTa + CLEVER", 247.5), ("DeBERTa / TuringNLRv4", 241.5)]


def test_glue_condorcet_plurality_and_threshold_winners(glue_top30):
    condorcet = run("condorcet", glue_top30)
    assert condorcet.ranking.filter(pl.col("rank") == 1).get_column("system").to_list() == ["ERNIE"]
    assert any("'ERNIE' is the Condorcet winner" in note for note in condorcet.notes)
    plurality = aggregate("plurality", glue_top30)
    assert set(plurality.filter(pl.col("rank") == 1).get_column("system")) == {"ERNIE", "GLUE Human Baselines"}
    assert aggregate("threshold", glue_top30).row(0)[0] == "StructBERT + CLEVER"


def test_superglue_reference_numbers():
    table = leaderboard("leaderboards - SuperGLUE.csv")
    assert table.get_column("system").n_unique() == 22
    assert top(aggregate("mean", table), 1) == [("ERNIE 3.0", 90.62)]
    borda = aggregate("borda", table, ties="max").head(3)
    assert borda.get_column("score").to_list() == [155.0, 154.5, 153.0]
    assert borda.get_column("system")[0] == "ERNIE 3.0" and borda.get_column("system")[2] == "DeBERTa / TuringNLRv4"
    assert borda.get_column("system")[1].startswith("T5 + UDG")
    condorcet = run("condorcet", table)
    assert condorcet.ranking.get_column("rank").to_list() == [1] * 22  # no winner: everyone ties
    assert any("no Condorcet winner" in note for note in condorcet.notes)
    assert top(aggregate("copeland", table), 2) == [("SuperGLUE Human Baselines", 20.0), ("ERNIE 3.0", 19.0)]


def test_value_without_the_human_row():
    table = leaderboard("leaderboards - VALUE.csv")  # the Human row has missing cells: dropped
    assert not table.filter(pl.col("system").str.contains("Human")).height
    assert top(aggregate("mean", table), 1) == [("craig.starr (ensemble) Kakao Brain", 62.87)]
    assert top(aggregate("borda", table, ties="max"), 3) == [
        ("craig.starr (ensemble) Kakao Brain", 53.0), ("DuKG Baidu & KG", 39.0), ("HERO (AT->ST, PT+FT) VALUE baseline", 30.0)]


def test_glue_two_step_mean_with_equal_task_weights_is_the_official_glue_score():
    """GLUE's own score: the mean over tasks of each task's mean metric, MNLI-m/mm counting as one task.

    Every task weighs the same (the default) and the bundled catalog gives
    MNLI's two test sets ``group_weight`` 0.5 each; the leaderboard's cells are
    rounded to 0.1, so the average may differ from its published rounding by
    up to 0.1.
    """
    _, parsed = parse_file(TABLES / "leaderboards - GLUE.csv")
    official = parsed.rows.filter(pl.col("task") == "Score").select("system", pl.col("value").cast(pl.Float64))
    table = leaderboard("leaderboards - GLUE.csv")
    assert set(table.filter(pl.col("group").str.starts_with("MNLI-"))["group_weight"]) == {0.5}
    ours = aggregate("mean", table, two_step=True).join(official, on="system")
    assert ours.height == 97
    assert (ours["score"] - ours["value"]).abs().max() <= 0.1 + 1e-9


# Vote'n'Rank, case study 2 ("CS2 - Condorcet Search.ipynb" of PragmaticsLab/vote_and_rank): the
# prospective systems, those some task weights make a weak Condorcet winner (Eq. 2, G_m w >= 0).
PROSPECTIVE = {
    "GLUE": (["ERNIE", "StructBERT + CLEVER", "DeBERTa / TuringNLRv4", "DeBERTa + CLEVER", "MacALBERT + DKM",
              "ALBERT + DAAF + NAS", "T5", "MT-DNN-SMART", "GLUE Human Baselines"], 88),
    "SuperGLUE": (["ERNIE 3.0", "T5 + UDG, Single Model (Google Brain)", "DeBERTa / TuringNLRv4",
                   "SuperGLUE Human Baselines", "T5", "AILabs Team, Transformers", "ADAPET (ALBERT) - few-shot",
                   "Most Frequent Class", "CBoW", "WARP (ALBERT-XXL-V2) - Few-Shot (32 Examples)"], 12),
    "VALUE": (["craig.starr", "DuKG", "HERO 1"], 3),
}


@pytest.mark.parametrize("name", sorted(PROSPECTIVE))
def test_prospective_systems_are_the_papers(name):
    table = leaderboard(f"leaderboards - {name}.csv")
    systems, n_other = PROSPECTIVE[name]
    found = prospective_winners(table)["system"].to_list()
    assert sorted(found) == sorted(PUBLISHED_VALUE_NAMES.get(s, s) for s in systems)
    assert table.get_column("system").n_unique() - len(found) == n_other


def test_strict_condorcet_weights_find_fewer_prospective_systems():
    # a strict win is more than the paper asks: 8/89, 6/16, 3/3 instead of 9/88, 10/12, 3/3
    counts = [prospective_winners(leaderboard(f"leaderboards - {n}.csv"), margin="strict").height
              for n in ("GLUE", "SuperGLUE", "VALUE")]
    assert counts == [8, 6, 3]


def test_t5_wins_superglue_weakly_with_boolq_and_multirc_em_at_half_each():
    table = leaderboard("leaderboards - SuperGLUE.csv")
    chosen = {"BoolQ | acc": 0.5, "MultiRC | EM": 0.5}
    bounds = {v: (chosen.get(v, 0.0),) * 2 for v in table.get_column("voter").unique()}
    found = condorcet_weights(table, "T5", bounds=bounds)
    assert found is not None
    assert set(found.tied) == {"DeBERTa / TuringNLRv4", "T5 + UDG, Single Model (Google Brain)"}
    assert condorcet_weights(table, "T5", bounds=bounds, margin="strict") is None
