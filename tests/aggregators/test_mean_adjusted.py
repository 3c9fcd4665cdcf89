"""``mean_adjusted`` against references written out here: a least-squares fit of the additive model on the full
dummy-variable design (scipy), the weighted mean on complete ballots, and hand-computed examples."""

import numpy as np
import pytest
from scipy.linalg import lstsq

from scorehouse.aggregators import run
from tests.aggregators.strategies_paired import ballots_from_matrix


def reference(scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Fit x[v, s] = a_v + b_s to the observed cells of counted voters by weighted least squares on the dummy
    design (one row per cell, a column per voter and per system), then average the fitted a_v + b_s over the
    counted voters that scored anything, weighted: the fitted values do not depend on how the model is pinned."""
    n_voters, n_systems = scores.shape
    cells = [(v, s) for v in range(n_voters) for s in range(n_systems) if not np.isnan(scores[v, s]) and weights[v] > 0]
    design = np.zeros((len(cells), n_voters + n_systems))
    target = np.zeros(len(cells))
    for row, (v, s) in enumerate(cells):
        root = np.sqrt(weights[v])
        design[row, v] = design[row, n_voters + s] = root
        target[row] = root * scores[v, s]
    solution = lstsq(design, target)[0]
    a, b = solution[:n_voters], solution[n_voters:]
    used = [v for v in range(n_voters) if weights[v] > 0 and any(c[0] == v for c in cells)]
    return np.array([sum(weights[v] * (a[v] + b[s]) for v in used) / sum(weights[v] for v in used)
                     for s in range(n_systems)])


def test_on_complete_ballots_it_is_the_weighted_mean():
    rng = np.random.default_rng(1)
    for _ in range(20):
        scores = rng.normal(size=(7, 5)) * rng.uniform(0.1, 10, size=(7, 1)) + rng.normal(size=(7, 1)) * 5
        weights = rng.uniform(0.1, 3, size=7)
        ballots = ballots_from_matrix(scores, weights)
        ours = run("mean_adjusted", ballots).ranking.sort("system")["score"].to_numpy()
        np.testing.assert_allclose(ours, (weights @ scores) / weights.sum(), rtol=1e-9)


def test_with_missing_scores_it_is_the_least_squares_additive_model():
    rng = np.random.default_rng(2)
    for _ in range(40):
        scores = rng.normal(size=(8, 6)) + rng.normal(size=(8, 1)) * 3
        scores[rng.random(scores.shape) < 0.35] = np.nan
        scores[0] = rng.normal(size=6)  # one voter scores every system: the design is connected
        weights = rng.integers(0, 3, size=8).astype(float)
        weights[0] = 1.0
        ours = run("mean_adjusted", ballots_from_matrix(scores, weights)).ranking.sort("system")["score"].to_numpy()
        np.testing.assert_allclose(ours, reference(scores, weights), atol=1e-9)


def test_a_system_missing_the_hard_task_is_not_lifted_by_it():
    # t0 is easy (scores near 90), t1 hard (near 10); c is scored on the easy task only, where it is worst.
    scores = np.array([[90.0, 89.0, 88.0], [12.0, 10.0, np.nan]])
    ranking = run("mean_adjusted", ballots_from_matrix(scores)).ranking
    assert ranking["system"].to_list() == ["s0", "s1", "s2"]
    # mean_available puts c first: (88) > (90 + 12) / 2
    assert run("mean_available", ballots_from_matrix(scores)).ranking["system"].to_list()[0] == "s2"
    # by hand: s0 and s1 are fitted on the 2 x 2 table they share, s0 - s1 = (90 + 12)/2 - (89 + 10)/2 = 1.5; s2 fits
    # its one score exactly, and s1's fitted t0 score is 89.5 + 49.5 - 50.25 = 88.75 (row + column - grand mean),
    # so s1 - s2 = 88.75 - 88 = 0.75
    by_system = dict(ranking.select("system", "score").iter_rows())
    assert by_system["s0"] - by_system["s1"] == pytest.approx(1.5)
    assert by_system["s1"] - by_system["s2"] == pytest.approx(0.75)


def test_groups_that_share_no_voter_are_named_and_a_system_without_a_score_ranks_last():
    scores = np.array([[1.0, 2.0, np.nan, np.nan, np.nan], [np.nan, np.nan, 3.0, 5.0, np.nan]])
    result = run("mean_adjusted", ballots_from_matrix(scores, np.array([1.0, 1.0])))
    assert any("2 groups with no voter scoring systems of two of them" in n for n in result.notes)
    weights = np.array([1.0, 0.0])  # s2, s3 only scored by a voter of weight 0, s4 by nobody
    result = run("mean_adjusted", ballots_from_matrix(scores, weights))
    assert result.ranking.sort("rank")["system"].to_list()[:2] == ["s1", "s0"]
    assert any("no counted score for s2, s3" in n for n in result.notes)


def test_with_no_counted_score_every_system_ranks_last_without_a_warning():
    """The voter of positive weight scored nothing, the scored one weighs 0: no system has a mean (the fit would
    divide 0 by 0)."""
    scores = np.array([[1.0, 2.0, 3.0], [np.nan, np.nan, np.nan]])
    with np.errstate(all="raise"):
        result = run("mean_adjusted", ballots_from_matrix(scores, np.array([0.0, 1.0])))
    assert result.ranking["score"].is_nan().all()
    assert result.ranking["rank"].n_unique() == 1
