"""Condorcet, Copeland and Minimax against direct loops over voters and pairs (with missing scores)."""

import polars as pl
import pytest
from hypothesis import given

from scorehouse.aggregators import aggregate, run
from tests.aggregators import references
from tests.aggregators.conftest import ballots


def scores_of(name: str, table: pl.DataFrame) -> dict[str, float]:
    return dict(aggregate(name, table).select("system", "score").iter_rows())


@given(table=ballots(missing=True))
def test_copeland_is_wins_minus_losses(table):
    assert scores_of("copeland", table) == pytest.approx(references.copeland(table))


@given(table=ballots(missing=True))
def test_minimax_is_minus_worst_winning_defeat(table):
    assert scores_of("minimax", table) == pytest.approx(references.minimax(table))


@given(table=ballots(missing=True))
def test_condorcet_ranks_the_winner_first_or_ties_everyone_and_says_so(table):
    result = run("condorcet", table)
    winner = references.condorcet_winner(table)
    firsts = result.ranking.filter(pl.col("rank") == 1)["system"].to_list()
    if winner is None:
        assert firsts == sorted(set(table["system"]))
        assert result.notes == ("no Condorcet winner: no system beats every other one, all systems tie",)
    else:
        assert firsts == [winner]
        assert result.notes == (f"{winner!r} is the Condorcet winner",)


def test_a_voter_without_both_scores_has_no_say_on_the_pair():
    # t3 did not score b: a vs b is decided by t1 and t2 alone (1 to 1, a tie), c loses to both
    table = pl.DataFrame(
        {
            "voter": ["t1", "t1", "t1", "t2", "t2", "t2", "t3", "t3"],
            "system": ["a", "b", "c", "a", "b", "c", "a", "c"],
            "score": [3.0, 2.0, 1.0, 2.0, 3.0, 1.0, 1.0, 2.0],
        }
    )
    assert scores_of("copeland", table) == {"a": 1.0, "b": 1.0, "c": -2.0}
    assert run("condorcet", table).notes[0].startswith("no Condorcet winner")
