"""Ranking comparisons against scipy and brute-force pair counting; the IIA experiment on a known case."""

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau, spearmanr

from scorehouse.aggregators import (
    REGISTRY,
    InvalidParameterError,
    discriminative_power,
    iia_violation_rate,
    kemeny_dispersion,
    kendall_distance,
    kendall_tau,
    last_k_agreement,
    ranking_table,
    register,
    spearman_rho,
    top_k_agreement,
)
from tests.aggregators.strategies_missing import partial_profiles, system_names, to_ballots

scores_with_ties = st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, 4.0]), min_size=2, max_size=9)


@st.composite
def score_pairs(draw):
    """Two score vectors over the same systems, ties likely."""
    a = draw(scores_with_ties)
    b = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, 4.0]), min_size=len(a), max_size=len(a)))
    return np.array(a), np.array(b)


def as_mapping(scores: np.ndarray) -> dict[str, float]:
    return dict(zip(system_names(len(scores)), scores.tolist()))


def pair_relations(x: np.ndarray) -> list[int]:
    """+1 / -1 / 0 per pair i < j from higher-is-better scores, by plain loops."""
    return [int(np.sign(x[i] - x[j])) for i in range(len(x)) for j in range(i + 1, len(x))]


@settings(max_examples=100, deadline=None)
@given(score_pairs())
def test_kendall_tau_b_equals_scipy(pair):
    a, b = pair
    expected = kendalltau(a, b, variant="b").statistic
    got = kendall_tau(as_mapping(a), ranking_table(system_names(len(b)), b))
    assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected)


@settings(max_examples=100, deadline=None)
@given(score_pairs())
def test_spearman_rho_equals_scipy(pair):
    a, b = pair
    expected = spearmanr(a, b).statistic if a.std() > 0 and b.std() > 0 else math.nan
    got = spearman_rho(ranking_table(system_names(len(a)), a), as_mapping(b))
    assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected)


@settings(max_examples=100, deadline=None)
@given(score_pairs(), st.sampled_from([0.0, 0.5, 1.0]))
def test_kendall_distance_counts_discordant_and_half_tied_pairs(pair, penalty):
    a, b = pair
    ra, rb = pair_relations(a), pair_relations(b)
    discordant = sum(x * y < 0 for x, y in zip(ra, rb))
    tied_in_one = sum((x == 0) != (y == 0) for x, y in zip(ra, rb))
    expected = discordant + penalty * tied_in_one
    assert kendall_distance(as_mapping(a), as_mapping(b), penalty=penalty) == pytest.approx(expected)
    assert kendall_distance(as_mapping(a), as_mapping(b), penalty=penalty, normalized=True) == pytest.approx(
        expected / len(ra)
    )


def test_only_common_systems_are_compared():
    a = {"x": 3.0, "y": 2.0, "z": 1.0, "only_in_a": 10.0}
    b = {"x": 1.0, "y": 2.0, "z": 3.0, "only_in_b": -5.0}
    assert kendall_tau(a, b) == pytest.approx(-1.0)
    assert kendall_distance(a, b) == 3
    assert spearman_rho(a, b) == pytest.approx(-1.0)
    # top-1 among the common systems: x for a, z for b
    assert top_k_agreement(a, b, 1) == 0.0
    with pytest.raises(InvalidParameterError, match="share 1 system"):
        kendall_tau({"x": 1.0, "y": 2.0}, {"x": 1.0, "w": 2.0})


def top_set(x: np.ndarray, k: int) -> set[int]:
    """Systems with fewer than k systems strictly better (a tie across position k joins as a whole)."""
    return {i for i in range(len(x)) if sum(x[j] > x[i] for j in range(len(x))) < k}


@settings(max_examples=100, deadline=None)
@given(score_pairs(), st.data())
def test_top_and_last_k_agreement_against_set_counting(pair, data):
    a, b = pair
    k = data.draw(st.integers(1, len(a)))
    for agreement, sign in ((top_k_agreement, 1), (last_k_agreement, -1)):
        sa, sb = top_set(sign * a, k), top_set(sign * b, k)
        expected = len(sa & sb) / max(len(sa), len(sb))
        assert agreement(as_mapping(a), as_mapping(b), k) == pytest.approx(expected)


def test_top_k_without_ties_is_the_share_of_k():
    a = {"p": 5.0, "q": 4.0, "r": 3.0, "s": 2.0, "t": 1.0}
    b = {"p": 5.0, "q": 1.0, "r": 4.0, "s": 3.0, "t": 2.0}
    assert top_k_agreement(a, b, 2) == 1 / 2  # {p, q} vs {p, r}
    assert last_k_agreement(a, b, 2) == 1 / 2  # {s, t} vs {q, t}
    with pytest.raises(InvalidParameterError, match="'k'"):
        top_k_agreement(a, b, 6)


@given(scores_with_ties)
def test_discriminative_power_counts_tied_pairs(scores):
    x = np.array(scores)
    expected = sum(r == 0 for r in pair_relations(x))
    assert discriminative_power(as_mapping(x)) == expected
    assert discriminative_power(ranking_table(system_names(len(x)), x)) == expected


@settings(max_examples=60, deadline=None)
@given(partial_profiles(max_systems=5, max_voters=5), st.sampled_from([0.0, 0.5, 1.0]))
def test_kemeny_dispersion_equals_the_sum_over_voter_pairs(profile, penalty):
    scores, weights = profile
    n_voters, n = scores.shape
    expected = 0.0
    for v in range(n_voters):
        for u in range(v + 1, n_voters):
            for i in range(n):
                for j in range(i + 1, n):
                    cells = [scores[v, i], scores[v, j], scores[u, i], scores[u, j]]
                    if any(np.isnan(cells)):
                        continue  # a pair not scored by both voters is no disagreement
                    x, y = np.sign(scores[v, i] - scores[v, j]), np.sign(scores[u, i] - scores[u, j])
                    cost = 1.0 if x * y < 0 else (penalty if (x == 0) != (y == 0) else 0.0)
                    expected += weights[v] * weights[u] * cost
    ballots = to_ballots(scores, weights)
    assert kemeny_dispersion(ballots, penalty=penalty) == pytest.approx(expected)
    pairs = (weights.sum() ** 2 - (weights**2).sum()) / 2 * n * (n - 1) / 2
    normalized = expected / pairs if pairs > 0 else 0.0
    assert kemeny_dispersion(ballots, penalty=penalty, normalized=True) == pytest.approx(normalized)


def borda_iia_ballots() -> pl.DataFrame:
    # 3 voters a > b > c, 2 voters b > c > a: alone, a beats b 3 to 2; with c, Borda gives
    # a 3*2 = 6, b 3*1 + 2*2 = 7, c 2*1 = 2, so c flips a and b.  {a, c} and {b, c} keep their
    # order when the third arrives, so an addition violates IIA exactly when c comes last: 1/3.
    orders = [("a", "b", "c")] * 3 + [("b", "c", "a")] * 2
    rows = [(f"v{v}", s, float(3 - place)) for v, order in enumerate(orders) for place, s in enumerate(order)]
    return pl.DataFrame(rows, schema=["voter", "system", "score"], orient="row")


def test_iia_violation_rate_of_borda_on_the_textbook_profile():
    rate = iia_violation_rate("borda_partial", borda_iia_ballots(), n_trials=600, seed=11)
    assert abs(rate - 1 / 3) < 3 * math.sqrt((1 / 3) * (2 / 3) / 600)
    assert rate == iia_violation_rate("borda_partial", borda_iia_ballots(), n_trials=600, seed=11)


@pytest.fixture
def mean_score_method():
    """A method scoring each system on its own (the voters' mean): it cannot violate IIA."""
    name = "test_compare_mean_score"

    @register(name, view="scores", handles_missing=False, citation="test only")
    def mean_score(profile):
        """Mean score per system."""
        return profile.scores.mean(axis=0)

    yield name
    del REGISTRY[name]


def test_a_method_that_scores_systems_independently_never_violates_iia(mean_score_method):
    rng = np.random.default_rng(0)
    ballots = to_ballots(rng.normal(size=(6, 7)), np.ones(6))
    assert iia_violation_rate(mean_score_method, ballots, n_trials=20, seed=1) == 0.0


def test_iia_parameters_are_checked():
    with pytest.raises(InvalidParameterError, match="'n_trials'"):
        iia_violation_rate("borda_partial", borda_iia_ballots(), n_trials=0, seed=1)
    two = borda_iia_ballots().filter(pl.col("system") != "c")
    with pytest.raises(InvalidParameterError, match="at least 3"):
        iia_violation_rate("borda_partial", two, n_trials=5, seed=1)
