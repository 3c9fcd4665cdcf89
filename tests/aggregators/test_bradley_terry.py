"""Bradley-Terry against a direct maximisation of its log-likelihood and the pairformance README."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from scorehouse.aggregators import InvalidParameterError, aggregate, run
from scorehouse.aggregators.bradley_terry import bradley_terry_counts, components
from scorehouse.aggregators.pairwise import PairCounts
from tests.aggregators.strategies_paired import ballots_from_matrix, count_matrices, pairformance_ballots


def direct_fit(credit, prior):
    """Maximise sum_ab C_ab log(e^t_a / (e^t_a + e^t_b)) over t (t_0 = 0), then centre."""
    n = credit.shape[0]
    c = credit + prior * (1 - np.eye(n))

    def negative_log_likelihood(free):
        t = np.concatenate(([0.0], free))
        diff = t[:, None] - t[None, :]
        log_p = -np.logaddexp(0.0, -diff)  # log sigmoid(t_a - t_b)
        p = np.exp(log_p)
        gradient = (c * (1 - p)).sum(1) - (c.T * p).sum(1)
        return -(c * log_p).sum(), -gradient[1:]

    result = minimize(negative_log_likelihood, np.zeros(n - 1), jac=True, method="BFGS", options={"gtol": 1e-11})
    t = np.concatenate(([0.0], result.x))
    return t - t.mean()


def counts(wins, ties):
    n = wins.shape[0]
    return PairCounts(tuple(f"s{i}" for i in range(n)), wins, ties, np.zeros((n, n), dtype=np.int64))


@settings(max_examples=40, deadline=None)
@given(count_matrices(), st.sampled_from([0.5, 0.1, 2.0]))
def test_equals_direct_maximum_likelihood(matrices, prior):
    wins, ties = matrices
    fitted = bradley_terry_counts(counts(wins, ties), prior=prior, tol=1e-13)
    assert fitted.notes == ()
    np.testing.assert_allclose(fitted.scores, direct_fit(wins + 0.5 * ties, prior), atol=1e-6)


def test_system_that_never_wins_gets_finite_lowest_strength():
    rng = np.random.default_rng(7)
    wins = rng.integers(1, 30, size=(5, 5)).astype(float)
    np.fill_diagonal(wins, 0)
    wins[3] = 0.0  # s3 loses every comparison
    fitted = bradley_terry_counts(counts(wins, np.zeros((5, 5))), tol=1e-13)
    assert np.isfinite(fitted.scores).all()
    assert np.argmin(fitted.scores) == 3
    np.testing.assert_allclose(fitted.scores, direct_fit(wins, 0.5), atol=1e-6)
    with pytest.raises(InvalidParameterError, match=r"prior=0.*\['s3'\] never beat"):
        bradley_terry_counts(counts(wins, np.zeros((5, 5))), prior=0.0)


def test_pair_that_only_ties_is_tied_even_without_prior():
    ballots = ballots_from_matrix(np.array([[1.0, 1.0], [2.0, 2.0], [0.5, 0.5]]))
    for prior in (0.0, 0.5):
        ranking = aggregate("bradley_terry", ballots, prior=prior)
        assert ranking["score"].to_list() == [0.0, 0.0]
        assert ranking["tied"].all()


def test_missing_scores_only_count_common_voters():
    scores = np.array([[3.0, 1.0, np.nan], [2.0, np.nan, 1.0], [np.nan, 2.0, 0.0], [1.0, 2.0, 3.0]])
    # Pairs by hand: s0>s1 in v0, s0<s1 in v3; s0>s2 in v1, s0<s2 in v3; s1>s2 in v2, s1<s2 in v3.
    wins = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=float)
    ranking = run("bradley_terry", ballots_from_matrix(scores), params={"tol": 1e-13}).ranking.sort("system")
    np.testing.assert_allclose(ranking["score"].to_numpy(), direct_fit(wins, 0.5), atol=1e-6)


def test_pairformance_readme_strengths():
    ranking = aggregate("bradley_terry", pairformance_ballots(), prior=0.0, tol=1e-9).sort("system")
    strengths = np.exp(ranking["score"].to_numpy())
    # /work/shared/data/README.md: BT on the full data, MM iterations, eps 1e-9.
    np.testing.assert_allclose(strengths / strengths.sum(), [0.2483, 0.1436, 0.1648, 0.1497, 0.2937], atol=5e-5)


def test_non_convergence_is_a_note():
    result = run("bradley_terry", pairformance_ballots(), params={"max_iter": 2, "tol": 1e-12})
    assert len(result.notes) == 1 and "not converged after max_iter=2" in result.notes[0]


@pytest.mark.parametrize(
    "params", [{"prior": -0.5}, {"tol": 0.0}, {"max_iter": 0}, {"max_iter": 2.5}, {"prior": float("nan")}]
)
def test_bad_parameters_are_named(params):
    name = next(iter(params))
    with pytest.raises(InvalidParameterError, match=f"'{name}'"):
        aggregate("bradley_terry", pairformance_ballots(), **params)


def hunter_mm(credit, prior, iterations):
    """Hunter's (2004) MM iteration p_a <- W_a / sum_b N_ab / (p_a + p_b), as the method used it before Newton."""
    n = credit.shape[0]
    c = credit + prior * (1 - np.eye(n))
    comparisons, total, strength = c + c.T, c.sum(1), np.full(n, 1.0 / n)
    for _ in range(iterations):
        strength = total / (comparisons / (strength[:, None] + strength[None, :])).sum(1)
        strength /= strength.sum()
    return np.log(strength) - np.log(strength).mean()


@settings(max_examples=20, deadline=None)
@given(count_matrices(), st.sampled_from([0.5, 2.0]))
def test_equals_hunter_mm_where_it_converges(matrices, prior):
    wins, ties = matrices
    fitted = bradley_terry_counts(counts(wins, ties), prior=prior, tol=1e-12, disconnected="prior")
    np.testing.assert_allclose(fitted.scores, hunter_mm(wins + 0.5 * ties, prior, 20_000), atol=1e-7)


def two_blocks(rng, sizes):
    """Win counts of systems compared only within their own block (a disconnected comparison graph)."""
    n = sum(sizes)
    wins = np.zeros((n, n))
    start = 0
    for size in sizes:
        block = rng.integers(0, 20, size=(size, size)).astype(float)
        np.fill_diagonal(block, 0)
        wins[start : start + size, start : start + size] = block
        start += size
    return wins


def test_disconnected_components_are_fitted_alone_and_named():
    wins = two_blocks(np.random.default_rng(3), [4, 3])
    fitted = bradley_terry_counts(counts(wins, np.zeros_like(wins)), tol=1e-12)
    np.testing.assert_allclose(fitted.scores[:4], direct_fit(wins[:4, :4], 0.5), atol=1e-6)
    np.testing.assert_allclose(fitted.scores[4:], direct_fit(wins[4:, 4:], 0.5), atol=1e-6)
    assert len(fitted.notes) == 1
    assert "2 components (4 system(s): s0, s1, s2, s3; 3 system(s): s4, s5, s6)" in fitted.notes[0]
    assert "not comparable" in fitted.notes[0]
    linked = bradley_terry_counts(counts(wins, np.zeros_like(wins)), tol=1e-12, disconnected="prior")
    np.testing.assert_allclose(linked.scores, direct_fit(wins, 0.5), atol=1e-6)
    assert "ordered by the prior alone" in linked.notes[0]
    with pytest.raises(InvalidParameterError, match="'disconnected' must be one of"):
        bradley_terry_counts(counts(wins, np.zeros_like(wins)), disconnected="merge")


def test_a_sparse_disconnected_graph_of_many_systems_converges_in_few_iterations():
    """300 systems in 20 blocks of 15, a few comparisons each: plain MM crept for 10,000 iterations here.

    Speed is counted in iterations, not seconds (a timed test fails on a busy machine): the fit must converge
    within 100 of its Newton iterations, for both ways of treating the disconnected blocks."""
    rng = np.random.default_rng(0)
    wins = two_blocks(rng, [15] * 20) * (rng.random((300, 300)) < 0.3)
    for disconnected in ("separate", "prior"):
        fitted = bradley_terry_counts(counts(wins, np.zeros_like(wins)), disconnected=disconnected, max_iter=100)
        assert not any("not converged" in note for note in fitted.notes), fitted.notes
    np.testing.assert_allclose(fitted.scores, direct_fit(wins, 0.5), atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 30).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(1, 4), st.floats(0.0, 0.5), st.integers(0, 2**32 - 1))
    )
)
def test_components_of_a_batch_equal_scipys_graph_by_graph(case):
    """Batched labelling (min-label rounds, scipy past the round cap) agrees with scipy on every graph."""
    from scipy.sparse.csgraph import connected_components

    n, batch, density, seed = case
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((batch, n, n)) < density, k=1)
    if seed % 3 == 0:  # a long path: more rounds than the cap before its labels settle
        upper[0] = np.eye(n, k=1, dtype=bool)
    comparisons = (upper | np.swapaxes(upper, -1, -2)).astype(float)
    labels = components(comparisons)
    for graph in range(batch):
        theirs = connected_components(comparisons[graph] > 0, directed=False)[1]
        # same partition, numbered by each component's first system
        assert np.array_equal(labels[graph][:, None] == labels[graph][None, :], theirs[:, None] == theirs[None, :])
        first_seen = np.unique(labels[graph], return_index=True)[1]
        assert np.array_equal(np.sort(first_seen), first_seen)
        assert labels[graph].min() == 0 and labels[graph].max() == theirs.max()
