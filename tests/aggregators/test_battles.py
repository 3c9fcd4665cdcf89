"""Battles: validation, play order, counts against a plain loop, and every battles form against the ballots path."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from scorehouse.aggregators import (
    InvalidBattlesError,
    InvalidParameterError,
    REGISTRY,
    aggregate_battles,
    battle_counts,
    bootstrap,
    bootstrap_battles,
    battle_games,
    battle_methods,
    build_battles,
    run,
)
from scorehouse.aggregators.pairwise import pair_counts
from scorehouse.aggregators.profile import build_profile
from scorehouse.aggregators.registry import BattlesForm, register
from tests.aggregators.battle_data import ballots_of, hand_elo, play_order, random_battles


def frame(*rows, **extra):
    columns = {"model_a": [r[0] for r in rows], "model_b": [r[1] for r in rows], "winner": [r[2] for r in rows]}
    return pl.DataFrame({**columns, **extra})


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (frame(("a", "b", "model_a"), ("c", "c", "tie")), "row 1 .*'c' battling itself"),
        (frame(("a", "b", "model_a"), ("a", "b", "draw")), "row 1 .*unknown winner 'draw'"),
        (frame(("a", "b", None), ("a", "b", "tie")), "row 0 .*unknown winner None"),
        (frame(("a", "b", "tie"), (" ", "b", "tie")), "row 1 .*empty or null model_a ' '"),
        (frame(("a", None, "tie")), "row 0 .*empty or null model_b None"),
        (frame(("a", "b", "tie"), weight=[-1.0]), "row 0 .*weight -1.0"),
        (pl.DataFrame({"model_a": ["a"], "winner": ["tie"]}), "lacks column.*model_b"),
        (pl.DataFrame({"model_a": ["a"], "model_b": [2], "winner": ["tie"]}), "'model_b' must be String"),
        (frame(("a", "b", "tie"), weight=[0.0]), "weight 0"),
        (frame(("a", "b", "tie (bothbad)")), None),  # dropped: nothing left
    ],
)
def test_bad_battles_are_named(table, message):
    if message is None:
        with pytest.raises(InvalidBattlesError, match="no battles .*dropping 1 both-bad"):
            build_battles(table, bothbad="drop")
        return
    with pytest.raises(InvalidBattlesError, match=message):
        build_battles(table)


def test_bad_bothbad_rule_is_named():
    with pytest.raises(InvalidParameterError, match="'bothbad' must be one of .*got 'keep'"):
        build_battles(frame(("a", "b", "tie")), bothbad="keep")


def test_codes_results_and_play_order_by_time_stamp():
    table = frame(
        ("b", "a", "model_a"), ("a", "c", "model_b"), ("c", "b", "tie"), ("a", "b", "tie (bothbad)"),
        tstamp=[3.0, None, 1.0, 3.0],
    )
    battles = build_battles(table)
    assert battles.systems == ("a", "b", "c")
    # play order: row 2 (t=1), rows 0 and 3 (t=3, row order), row 1 (no time stamp) last
    assert battles.first.tolist() == [2, 1, 0, 0]
    assert battles.second.tolist() == [1, 0, 1, 2]
    assert battles.result.tolist() == [0.5, 1.0, 0.5, 0.0]
    dropped = build_battles(table, bothbad="drop")
    assert dropped.dropped == 1 and dropped.result.tolist() == [0.5, 1.0, 0.0]
    games = battle_games(battles)
    assert games.first.tolist() == [1, 0, 0, 0] and games.second.tolist() == [2, 1, 1, 2]
    assert games.result.tolist() == [0.5, 0.0, 0.5, 0.0]


def test_datetime_stamps_order_like_their_seconds():
    table = random_battles(3, tstamp=True)
    as_datetime = table.with_columns((pl.col("tstamp") * 1e6).cast(pl.Int64).cast(pl.Datetime("us")))
    a, b = build_battles(table), build_battles(as_datetime)
    assert a.first.tolist() == b.first.tolist() and a.result.tolist() == b.result.tolist()


@pytest.mark.parametrize("seed", range(5))
def test_counts_equal_a_plain_loop_and_the_ballots_counts(seed):
    table = random_battles(seed, weights=True)
    battles = build_battles(table)
    n = len(battles.systems)
    index = {s: i for i, s in enumerate(battles.systems)}
    wins, ties, played = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n), dtype=int)
    for row in table.iter_rows(named=True):  # the reference: one battle at a time
        a, b, w = index[row["model_a"]], index[row["model_b"]], row["weight"]
        played[a, b] += 1
        played[b, a] += 1
        if row["winner"] == "model_a":
            wins[a, b] += w
        elif row["winner"] == "model_b":
            wins[b, a] += w
        else:
            ties[a, b] += w
            ties[b, a] += w
    counts = battle_counts(battles)
    np.testing.assert_allclose(counts.wins, wins)
    np.testing.assert_allclose(counts.ties, ties)
    np.testing.assert_array_equal(counts.voters, played)
    ballots = pair_counts(build_profile(ballots_of(table)))
    np.testing.assert_allclose(counts.wins, ballots.wins)
    np.testing.assert_allclose(counts.ties, ballots.ties)
    np.testing.assert_array_equal(counts.voters, ballots.voters)


def test_the_methods_that_rank_battles_are_registry_data():
    assert set(battle_methods()) >= {"bradley_terry", "elo", "trueskill"}
    assert battle_methods() == tuple(sorted(m for m, info in REGISTRY.items() if info.battles is not None))
    with pytest.raises(InvalidParameterError, match="does not rank battles; methods that do: bradley_terry"):
        aggregate_battles("borda", frame(("a", "b", "tie")))


def test_a_battles_form_must_say_what_it_uses():
    with pytest.raises(ValueError, match="goes through one of"):
        register("_bad_battles", view="pairwise", handles_missing=True, citation="-",
                 battles=BattlesForm(fit=lambda b, p: None, through="ballots"))(lambda profile: None)


@pytest.mark.parametrize("method", battle_methods())
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("bothbad", ["tie", "drop"])
def test_every_battles_form_equals_the_ballots_path(method, seed, bothbad):
    """One voter per battle, named in play order: the ballots path ranks the same battles."""
    weighted = REGISTRY[method].handles_weights
    table = random_battles(seed, tstamp=seed % 2 == 0, weights=weighted and seed % 3 == 0)
    result = aggregate_battles(method, table, bothbad=bothbad)
    ballots = ballots_of(table, drop_bothbad=bothbad == "drop")
    reference = run(method, ballots, params=result.params)
    assert result.source == "battles" and result.n_voters == ballots["voter"].n_unique()
    assert result.ranking["system"].to_list() == reference.ranking["system"].to_list()
    np.testing.assert_allclose(result.ranking["score"], reference.ranking["score"], rtol=1e-9, atol=1e-9)
    assert f"bothbad={bothbad!r}" in result.notes[0]


def test_battles_play_in_order_by_default_and_parameters_pass_through():
    table = random_battles(7, tstamp=True)
    result = aggregate_battles("elo", table, {"k": 32.0, "initial": 1000.0})
    assert result.params["shuffle"] is False and result.params["k"] == 32.0
    rating = hand_elo(table, play_order(table), k=32.0, initial=1000.0)  # in time-stamp order
    got = dict(result.ranking.select("system", "score").iter_rows())
    assert got == pytest.approx(rating, abs=1e-9)
    with pytest.raises(InvalidParameterError, match="takes no parameter 'delta'"):
        aggregate_battles("elo", table, {"delta": 1})


def test_trueskill_refuses_weighted_battles():
    with pytest.raises(InvalidBattlesError, match="counts every battle once"):
        aggregate_battles("trueskill", random_battles(1, weights=True))


def test_bootstrap_of_battles_matches_the_voter_bootstrap_of_one_voter_per_battle():
    """Drawing (pair, outcome) cells is drawing battles with replacement: the same intervals up to Monte Carlo error."""
    table = random_battles(11, n_battles=150, n_systems=4)
    ours = bootstrap_battles("bradley_terry", table, n_resamples=1500, seed=1).sort("system")
    ballots = bootstrap("bradley_terry", ballots_of(table), n_resamples=1500, seed=2).sort("system")
    np.testing.assert_allclose(ours["score"], ballots["score"], rtol=1e-9)
    spread = (ballots["score_high"] - ballots["score_low"]).to_numpy()
    for column in ("score_low", "score_high"):
        np.testing.assert_allclose(ours[column], ballots[column], atol=0.1 * spread.max())
    assert ours["rank"].to_list() == ballots["rank"].to_list()


def test_bootstrap_of_a_sequence_replays_resampled_battles_in_play_order():
    """Elo's resamples keep play order: the percentile interval of a hand loop over the same draws."""
    table = random_battles(5, n_battles=40, n_systems=3, tstamp=True)
    ours = bootstrap_battles("elo", table, n_resamples=20, seed=3, level=0.5).sort("system")
    order = play_order(table)
    rng = np.random.default_rng(3)
    finals = []
    for _ in range(20):
        rating = hand_elo(table, [order[i] for i in np.sort(rng.integers(0, len(order), len(order)))])
        finals.append([rating[s] for s in sorted(rating)])
    low, high = np.quantile(np.array(finals), [0.25, 0.75], axis=0)
    np.testing.assert_allclose(ours["score_low"], low, rtol=1e-12)
    np.testing.assert_allclose(ours["score_high"], high, rtol=1e-12)
