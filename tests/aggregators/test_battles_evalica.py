"""Bradley-Terry and Elo on battles against evalica 0.4.2 (Ustalov, an independent implementation).

evalica's Bradley-Terry is Newman's (2023) MM iteration on the matrix
``wins + tie_weight * ties`` (ties 0.5 to each side, as ours), without a
prior, normalised to geometric mean 1: its log-scores are centred, as our
log-strengths are, so with ``prior=0`` on strongly connected battles they must
agree.  Its Elo starts every system at ``initial`` and moves both by
``k * (S - E)`` with ``E = 1 / (1 + base ** ((R_b - R_a) / scale))``, ties
worth 0.5: ours, on unit weights (evalica weights the result, not ``k``).
"""

from __future__ import annotations

import evalica
import numpy as np
import pytest

from scorehouse.aggregators import aggregate_battles
from tests.aggregators.battle_data import play_order, random_battles

WINNERS = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw,
           "tie (bothbad)": evalica.Winner.Draw}


def evalica_inputs(table):
    ordered = table[play_order(table)]
    return ordered["model_a"].to_list(), ordered["model_b"].to_list(), [WINNERS[w] for w in ordered["winner"]]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("solver", ["pyo3", "naive"])
def test_bradley_terry_equals_evalica(seed, solver):
    table = random_battles(seed, n_battles=400, n_systems=6, weights=seed % 2 == 1)
    xs, ys, winners = evalica_inputs(table)
    weights = table["weight"].to_list() if "weight" in table.columns else None
    theirs = evalica.bradley_terry(xs, ys, winners, weights=weights, tolerance=1e-13, limit=100_000, solver=solver)
    ours = dict(aggregate_battles("bradley_terry", table, {"prior": 0.0, "tol": 1e-12}).ranking
                .select("system", "score").iter_rows())
    log_theirs = np.log(theirs.scores)
    log_theirs -= log_theirs.mean()
    np.testing.assert_allclose([ours[s] for s in log_theirs.index], log_theirs.to_numpy(), atol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_elo_equals_evalica_in_play_order(seed):
    table = random_battles(seed, n_battles=300, n_systems=5, tstamp=True)
    xs, ys, winners = evalica_inputs(table)
    theirs = evalica.elo(xs, ys, winners, initial=1000.0, k=24.0, scale=400.0, base=10.0)
    ours = dict(aggregate_battles("elo", table, {"k": 24.0, "initial": 1000.0}).ranking
                .select("system", "score").iter_rows())
    np.testing.assert_allclose([ours[s] for s in theirs.scores.index], theirs.scores.to_numpy(), atol=1e-9)
