"""Paired tests against scipy.stats pair by pair, Holm against a hand-written step-down."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from scorehouse.aggregators import InvalidBallotsError, InvalidParameterError, paired_tests
from scorehouse.aggregators.paired_testing import holm
from tests.aggregators.strategies_paired import ballots_from_matrix, pairformance_ballots


def step_down(pvalues):
    """Holm (1979) as written: compare sorted p_(i) with alpha/(m-i+1), here as adjusted values."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_equals_step_down(pvalues):
    np.testing.assert_allclose(holm(np.array(pvalues)), step_down(pvalues))


def test_holm_leaves_missing_out_of_the_family():
    np.testing.assert_allclose(holm(np.array([0.01, np.nan, 0.04])), [0.02, np.nan, 0.04])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31), st.integers(8, 70))
def test_every_pair_matches_scipy(seed, n_voters):
    rng = np.random.default_rng(seed)
    # Coarse grid: ties between systems (zero differences) and ties among differences.
    scores = rng.integers(0, 6, size=(n_voters, 4)).astype(float) + np.array([0, 0, 1, 2])
    scores[rng.random(scores.shape) < 0.15] = np.nan
    scores[0] = 1.0
    table = paired_tests(ballots_from_matrix(scores), alpha=0.1)
    assert table.select("system_a", "system_b").rows() == list(itertools.combinations(["s0", "s1", "s2", "s3"], 2))
    expected = {k: [] for k in ("t", "sign", "wilcoxon", "mood")}
    for row, (a, b) in zip(table.iter_rows(named=True), itertools.combinations(range(4), 2)):
        both = ~np.isnan(scores[:, a]) & ~np.isnan(scores[:, b])
        x, y = scores[both, a], scores[both, b]
        d = x - y
        assert (row["n"], row["wins"], row["ties"], row["losses"]) == (both.sum(), (d > 0).sum(), (d == 0).sum(), (d < 0).sum())
        assert row["p_a_beats_b"] == pytest.approx(((d > 0).sum() + 0.5 * (d == 0).sum()) / both.sum())
        assert row["mean_diff"] == pytest.approx(np.mean(d)) and row["median_diff"] == pytest.approx(np.median(d))
        t = stats.ttest_rel(x, y)
        sign = stats.binomtest(int((d > 0).sum()), int((d != 0).sum()))
        wilcoxon = stats.wilcoxon(x, y)
        mood = stats.median_test(x, y)
        for test, result in (("t", t), ("sign", sign), ("wilcoxon", wilcoxon), ("mood", mood)):
            statistic = result.statistic if test != "sign" else (d > 0).sum()
            assert row[f"{test}_statistic"] == pytest.approx(statistic, rel=1e-9)
            assert row[f"{test}_pvalue"] == pytest.approx(result.pvalue, rel=1e-9, abs=1e-15)
            expected[test].append(result.pvalue)
    for test, pvalues in expected.items():
        adjusted = step_down(pvalues)
        np.testing.assert_allclose(table[f"{test}_pvalue_holm"].to_numpy(), adjusted, rtol=1e-9)
        assert table[f"{test}_significant"].to_list() == [p <= 0.1 for p in adjusted]


def test_pairformance_readme_numbers():
    row = paired_tests(pairformance_ballots()).row(0, named=True)
    assert (row["system_a"], row["system_b"], row["wins"], row["n"]) == ("M0", "M1", 39, 60)
    assert row["p_a_beats_b"] == 0.65
    assert round(row["sign_pvalue"], 4) == 0.0273


def test_tests_without_data_are_null():
    # s0 and s1 always tie; s2 shares one voter with s0.
    scores = np.array([[1.0, 1.0, np.nan], [2.0, 2.0, np.nan], [3.0, 3.0, 0.0]])
    table = paired_tests(ballots_from_matrix(scores))
    first = table.row(0, named=True)
    assert first["ties"] == 3 and first["sign_pvalue"] is None and first["wilcoxon_pvalue"] is None
    assert first["t_pvalue"] is None and not first["t_significant"]
    assert table.row(1, named=True)["t_pvalue"] is None  # one common voter


def test_bad_input_is_named():
    with pytest.raises(InvalidParameterError, match="'alpha'"):
        paired_tests(pairformance_ballots(), alpha=1.5)
    with pytest.raises(InvalidBallotsError, match="voter 'v001' has weight 3.0"):
        paired_tests(ballots_from_matrix(np.eye(3), weights=np.array([1.0, 3.0, 1.0])))
