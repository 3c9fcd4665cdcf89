"""The synthetic arena: Bradley-Terry recovers the known strengths, and the draws follow the stated model."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr

from scorehouse.aggregators import aggregate_battles, build_battles
from scorehouse.transforms.synth_battles import synth_battles


@pytest.fixture(scope="module")
def arena():
    return synth_battles(200_000, n_systems=50, seed=1)


def fitted(arena, judge=None):
    battles = arena.battles if judge is None else arena.battles.filter(pl.col("judge") == judge)
    ranking = aggregate_battles("bradley_terry", battles).ranking.join(arena.strengths, on="system")
    truth = ranking["strength"].to_numpy()
    return ranking["score"].to_numpy(), truth - truth.mean()


def test_bradley_terry_recovers_the_known_strengths(arena):
    score, truth = fitted(arena)
    assert spearmanr(score, truth).statistic > 0.95
    human, truth = fitted(arena, "human")  # a noiseless judge: the model Bradley-Terry fits
    assert np.sqrt(np.mean((human - truth) ** 2)) < 0.12
    assert spearmanr(human, truth).statistic > 0.98
    noisy, _ = fitted(arena, "judge-small")  # a noisy judge blurs the strengths towards each other
    assert np.polyfit(truth, noisy, 1)[0] < 0.85 < np.polyfit(truth, human, 1)[0]


def test_pairing_ties_and_both_bad_follow_the_model(arena):
    battles = arena.battles
    assert (battles["model_a"] != battles["model_b"]).all()
    build_battles(battles)  # valid battles
    appearances = pl.concat([battles["model_a"], battles["model_b"]]).alias("system").value_counts()
    share = appearances.join(arena.strengths, on="system")
    # the most popular system battles far more often than the least popular one (Zipf, exponent 1)
    counts = share.sort("popularity")["count"].to_numpy()
    assert counts[-1] > 10 * counts[0]
    winners = battles["winner"].value_counts(normalize=True)
    ties = dict(winners.iter_rows())
    both_bad = ties["tie (bothbad)"] / (ties["tie"] + ties["tie (bothbad)"])
    assert both_bad == pytest.approx(0.3, abs=0.01)
    assert battles["tstamp"].is_sorted()
    assert set(battles["judge"]) == {"human", "judge-large", "judge-small"}


def test_given_strengths_and_seed_reproduce():
    one = synth_battles(500, strengths=[0.0, 1.0, 2.0], seed=3)
    assert one.battles.equals(synth_battles(500, strengths=[0.0, 1.0, 2.0], seed=3).battles)
    assert one.strengths["strength"].to_list() == [0.0, 1.0, 2.0]
    assert not one.battles.equals(synth_battles(500, strengths=[0.0, 1.0, 2.0], seed=4).battles)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({"n_systems": 1}, "at least 2 systems"), ({"tie_probability": 0.6}, "tie_probability"),
     ({"bothbad_share": 2.0}, "bothbad_share"), ({"judges": [("j", -1.0)]}, "judges")],
)
def test_bad_settings_are_named(arguments, message):
    with pytest.raises(ValueError, match=message):
        synth_battles(10, **arguments)
