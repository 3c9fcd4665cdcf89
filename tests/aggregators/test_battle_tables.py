"""Pairwise tables from battles against the ballots path (paired tests) and Hoeffding by hand (confidence)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from polars.testing import assert_frame_equal

from scorehouse.aggregators import InvalidBattlesError, paired_tests, paired_tests_battles, pairwise_confidence_battles
from tests.aggregators.battle_data import ballots_of, random_battles


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("bothbad", ["tie", "drop"])
def test_paired_tests_of_battles_equal_the_ballots_path(seed, bothbad):
    table = random_battles(seed, n_battles=80, n_systems=5)
    ours = paired_tests_battles(table, bothbad=bothbad)
    reference = paired_tests(ballots_of(table, drop_bothbad=bothbad == "drop"))
    assert_frame_equal(ours, reference, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


def test_paired_tests_refuse_weighted_battles():
    with pytest.raises(InvalidBattlesError, match="count every battle once"):
        paired_tests_battles(random_battles(0, weights=True))


@pytest.mark.parametrize("weights", [False, True], ids=["unweighted", "weighted"])
def test_confidence_of_battles_by_hand(weights):
    table = random_battles(4, n_battles=50, n_systems=4, weights=weights)
    result = pairwise_confidence_battles(table, delta=0.1)
    weight = table["weight"].to_numpy() if weights else np.ones(table.height)
    effective = weight.sum() ** 2 / np.square(weight).sum()  # Kish's effective number of battles
    for row in result.iter_rows(named=True):
        a, b = row["system_a"], row["system_b"]
        credit = total = 0.0
        decided = 0
        for battle, w in zip(table.iter_rows(named=True), weight):
            if {battle["model_a"], battle["model_b"]} != {a, b}:
                continue
            share = {"model_a": 1.0, "model_b": 0.0}.get(battle["winner"], 0.5)
            share = share if battle["model_a"] == a else 1.0 - share
            credit, total, decided = credit + w * share, total + w, decided + (share != 0.5)
        assert row["probability"] == pytest.approx(credit / total if total else 0.5)
        assert row["n"] == decided
        evidence = min(decided, effective)
        width = math.sqrt(math.log(2 / 0.1) / (2 * evidence)) if evidence else math.inf
        assert row["half_width"] == pytest.approx(width)
        assert row["lower"] == pytest.approx(max(0.0, row["probability"] - width))
    assert np.all(result["excludes_half"].to_numpy() == ((result["lower"] > 0.5) | (result["upper"] < 0.5)).to_numpy())
