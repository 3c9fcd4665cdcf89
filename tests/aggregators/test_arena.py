"""The arena leaderboard: the Elo scale by hand, the anchor, the statistical rank and the matrices by brute force."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from scorehouse.aggregators import InvalidParameterError, arena_leaderboard, arena_matrices
from tests.aggregators.battle_data import random_battles


def two_systems(a_wins: int, b_wins: int, ties: int = 0) -> pl.DataFrame:
    winners = ["model_a"] * a_wins + ["model_b"] * b_wins + ["tie"] * ties
    return pl.DataFrame({"model_a": ["a"] * len(winners), "model_b": ["b"] * len(winners), "winner": winners})


def test_two_systems_on_the_elo_scale_by_hand():
    # Bradley-Terry with its prior of one virtual tie: odds (30 + 2 + 0.5) / (10 + 2 + 0.5) of a over b.
    board = arena_leaderboard(two_systems(30, 10, ties=4), n_resamples=50).table.sort("system")
    gap = 400.0 * math.log10(32.5 / 12.5)
    np.testing.assert_allclose(board["rating"], [1000 + gap / 2, 1000 - gap / 2], rtol=1e-9)
    assert board["n_battles"].to_list() == [44, 44]
    np.testing.assert_allclose(board["win_rate"], [32 / 44, 12 / 44])
    anchored = arena_leaderboard(two_systems(30, 10, ties=4), anchor="b", n_resamples=50).table.sort("system")
    np.testing.assert_allclose(anchored["rating"], [1000 + gap, 1000.0], rtol=1e-9)
    assert anchored["lower"][1] == pytest.approx(1000.0) and anchored["upper"][1] == pytest.approx(1000.0)


def separated() -> pl.DataFrame:
    """Three systems far apart (a beats b and b beats c 60 to 5, a beats c 60 to 0): their intervals do not overlap."""
    rows = [("a", "b", "model_a")] * 60 + [("a", "b", "model_b")] * 5 + [("b", "c", "model_a")] * 60 \
        + [("b", "c", "model_b")] * 5 + [("a", "c", "model_a")] * 60
    return pl.DataFrame(rows, schema=["model_a", "model_b", "winner"], orient="row")


@pytest.mark.parametrize("battles", [random_battles(2, n_battles=400, n_systems=6), separated()], ids=["close", "apart"])
def test_statistical_rank_by_brute_force_and_intervals_hold_the_rating(battles):
    board = arena_leaderboard(battles, n_resamples=200, seed=4).table
    lower, upper = board["lower"].to_numpy(), board["upper"].to_numpy()
    expected = [1 + sum(lower[j] > upper[i] for j in range(board.height)) for i in range(board.height)]
    assert board["rank_ub"].to_list() == expected
    assert board["rank"].to_list() == list(range(1, board.height + 1))
    assert (board["rank_ub"] <= board["rank"]).all()
    assert ((board["lower"] <= board["rating"]) & (board["rating"] <= board["upper"])).all()
    assert arena_leaderboard(battles, n_resamples=200, seed=4).table.equals(board)


def test_systems_far_apart_get_statistical_ranks_beyond_one():
    board = arena_leaderboard(separated(), n_resamples=200, seed=4).table.sort("system")
    assert board["rank_ub"].to_list() == [1, 2, 3]


def test_matrices_by_a_plain_loop():
    table = random_battles(8, n_battles=30, n_systems=5, weights=True)
    matrices = arena_matrices(table)
    credit, total, played = {}, {}, {}
    for row in table.iter_rows(named=True):
        a, b, w = row["model_a"], row["model_b"], row["weight"]
        share = {"model_a": 1.0, "model_b": 0.0}.get(row["winner"], 0.5)
        for x, y, s in ((a, b, share), (b, a, 1.0 - share)):
            credit[x, y] = credit.get((x, y), 0.0) + w * s
            total[x, y] = total.get((x, y), 0.0) + w
            played[x, y] = played.get((x, y), 0) + 1
    for row in matrices.iter_rows(named=True):
        key = (row["system_a"], row["system_b"])
        assert row["battles"] == played.get(key, 0)
        if key in total:
            assert row["win_rate"] == pytest.approx(credit[key] / total[key])
        else:
            assert math.isnan(row["win_rate"])
    assert matrices.height == 5 * 4


def test_unknown_anchor_is_named():
    with pytest.raises(InvalidParameterError, match="anchor 'c' is not a system"):
        arena_leaderboard(two_systems(3, 1), anchor="c")


def test_the_fits_notes_reach_the_leaderboard_once():
    # a-b and c-d never meet: two components, which the point fit and every resample note alike.
    split = pl.DataFrame({"model_a": ["a", "a", "c", "c"], "model_b": ["b", "b", "d", "d"],
                          "winner": ["model_a", "model_b", "model_a", "model_b"]})
    board = arena_leaderboard(split, n_resamples=20)
    assert len(board.notes) == 1
    assert board.notes[0].startswith(
        "bradley_terry: the comparison graph falls into 2 components (2 system(s): a, b; 2 system(s): c, d)")
    assert arena_leaderboard(two_systems(3, 1), n_resamples=20).notes == ()
    # two battles in each pair, and each system's two on the diagonal
    assert board.systems == ("a", "b", "c", "d")
    np.testing.assert_array_equal(board.played, [[2, 2, 0, 0], [2, 2, 0, 0], [0, 0, 2, 2], [0, 0, 2, 2]])
