"""The published numbers the bundled files reproduce: they must match, or differ only for the stated cause."""

from __future__ import annotations

import polars as pl
import pytest

from benchmarks.published_bundled import (
    KNOWN_CAUSES,
    PUBLISHED_TOP3,
    pairformance_comparison,
    prospective_comparison,
    t5_example,
    value_condorcet_with_missing,
    vote_n_rank_comparison,
)


@pytest.fixture(scope="module")
def comparison() -> pl.DataFrame:
    return vote_n_rank_comparison()


def test_every_rule_of_vote_n_rank_matches_or_has_its_stated_cause(comparison):
    assert comparison.height == sum(len(rules) for rules in PUBLISHED_TOP3.values())
    differing = {(b, r) for b, r, v in comparison.select("leaderboard", "rule", "verdict").iter_rows() if v != "match"}
    assert differing == set(KNOWN_CAUSES)


def test_the_geometric_mean_matches_on_the_systems_the_reference_ranks(comparison):
    # the reference's gmean gives NaN to the systems with a score <= 0; ours on the rest gives its numbers
    row = comparison.filter((pl.col("leaderboard") == "SuperGLUE") & (pl.col("rule") == "GM")).row(0, named=True)
    assert row["ours"].endswith("90.04; 89.84; 89.75")


def test_prospective_counts_t5_and_value_condorcet_winner():
    assert prospective_comparison()["verdict"].to_list() == ["match"] * 3
    assert "weak Condorcet winner yes" in t5_example() and "strict winner no" in t5_example()
    assert "['Human VALUE baseline']" in value_condorcet_with_missing()


def test_better_than_average_numbers():
    table = pairformance_comparison()
    assert table.height == 6 and table["verdict"].to_list() == ["match"] * 6
