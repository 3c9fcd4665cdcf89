"""The batched bootstrap (``resampled`` forms) against refits on the drawn voters, and borda_partial's voter points
against the enumeration of compatible rankings."""

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata

from scorehouse.aggregators import bootstrap, build_profile
from scorehouse.aggregators.borda_partial import voter_points
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.ranking import snap_ties, tie_classes
from scorehouse.aggregators.registry import method_info
from scorehouse.aggregators.scoring import score_profile
from scorehouse.aggregators.two_step import resampled_two_step, score_two_step
from tests.aggregators.strategies_missing import enumerate_compatible, partial_profiles
from tests.aggregators.strategies_paired import ballots_from_matrix


@settings(max_examples=60, deadline=None)
@given(partial_profiles(max_systems=6, max_voters=4))
def test_voter_points_are_each_voters_expected_borda_points_over_compatible_rankings(profile):
    scores, _ = profile
    points = voter_points(scores)
    for v in range(scores.shape[0]):  # each voter alone, by enumeration
        _, expected = enumerate_compatible(scores[v : v + 1], np.ones(1))
        np.testing.assert_allclose(points[v], expected, atol=1e-12)


def refit_reference(method: str, ballots, n_resamples: int, seed: int):
    """Score and rank intervals of ``method`` from refits on resampled voters drawn here with numpy (the draws
    the bootstrap documents: ``default_rng(seed).integers(0, V, (B, V))``), ranked with scipy."""
    profile = build_profile(ballots)
    draws = np.random.default_rng(seed).integers(0, len(profile.voters), size=(n_resamples, len(profile.voters)))
    refits = np.array([
        score_profile(method, Profile(profile.systems, tuple(profile.voters[v] for v in d), profile.scores[d],
                                      profile.weights[d], tuple(profile.groups[v] for v in d)), {}).scores
        for d in draws
    ])
    assert not np.isnan(refits).any()  # the inputs keep every system scored: competition ranks need no NaN rule
    ranks = rankdata(-refits, method="min", axis=1)
    return (dict(zip(profile.systems, np.quantile(refits, 0.025, axis=0))),
            dict(zip(profile.systems, np.quantile(refits, 0.975, axis=0))),
            dict(zip(profile.systems, np.quantile(ranks, 0.025, axis=0, method="lower"))),
            dict(zip(profile.systems, np.quantile(ranks, 0.975, axis=0, method="higher"))))


@pytest.mark.parametrize("method", ["borda_partial", "mean_adjusted", "mean", "borda"])
@pytest.mark.parametrize("seed", [0, 7, 2024])
def test_batched_bootstrap_equals_refits_on_the_same_draws(method, seed):
    assert method_info(method).resampled is not None  # the path under test
    rng = np.random.default_rng(seed)
    n_voters, n_systems = 25, 6
    scores = rng.normal(np.arange(n_systems) * 0.3, 1.0, size=(n_voters, n_systems))
    if method_info(method).handles_missing:
        scores[rng.random(scores.shape) < 0.25] = np.nan
    scores[:3] = rng.normal(size=(3, n_systems))  # three complete voters: a resample rarely leaves a system out
    weights = rng.integers(1, 4, size=n_voters).astype(float)
    ballots = ballots_from_matrix(scores, weights)
    table = bootstrap(method, ballots, n_resamples=60, seed=seed)
    low, high, best, worst = refit_reference(method, ballots, 60, seed)
    for system, s_low, s_high, r_best, r_worst in table.select(
            "system", "score_low", "score_high", "rank_best", "rank_worst").iter_rows():
        assert s_low == pytest.approx(low[system], rel=1e-9, abs=1e-12)
        assert s_high == pytest.approx(high[system], rel=1e-9, abs=1e-12)
        assert (r_best, r_worst) == (best[system], worst[system])
    assert table.get_column("rank_best").n_unique() > 1  # the intervals say something


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 5), st.integers(1, 8))
def test_mean_adjusted_batch_rows_are_the_method_on_each_drawn_profile(seed, n_systems, n_voters):
    """Sparse draws too: a resample that leaves systems unscored or splits them into groups gives the method's
    NaN and notes, row by row."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n_voters, n_systems))
    scores[rng.random(scores.shape) < 0.5] = np.nan
    scores[0, np.isnan(scores).all(axis=0)] = 1.0
    profile = build_profile(ballots_from_matrix(scores))
    draws = rng.integers(0, len(profile.voters), size=(4, len(profile.voters)))
    multiplicity = np.stack([np.bincount(d, minlength=len(profile.voters)) for d in draws]).astype(float)
    batched = method_info("mean_adjusted").resampled(profile, multiplicity)
    notes = set()
    for row, d in enumerate(draws):
        one = score_profile("mean_adjusted", Profile(profile.systems, tuple(profile.voters[v] for v in d),
                                                     profile.scores[d], profile.weights[d], ("",) * d.size), {})
        np.testing.assert_allclose(batched.scores[row], one.scores, rtol=1e-9, atol=1e-9)
        notes.update(one.notes)
    assert set(batched.notes) == notes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 1.0, 1.0 + 1e-12, 2.5, -3.0, float("nan")]), min_size=5, max_size=5),
                min_size=1, max_size=6))
def test_tie_classes_of_a_batch_are_each_rows_ranks_by_brute_force(rows):
    """Every resample ranked at once: row r's ranks are 1 + the scores of the row clearly above each one
    (NaN last, tied), as counted here pair by pair."""
    scores = np.array(rows)
    ranks = tie_classes(scores)

    def above(x: float, y: float) -> bool:  # y ranks strictly above x
        if np.isnan(y):
            return False
        return np.isnan(x) or y - x > 1e-9 * max(1.0, abs(x), abs(y))

    for row, got in zip(scores, ranks, strict=True):
        assert got.tolist() == [1 + sum(above(x, y) for y in row) for x in row]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 1.0, 1.0 + 1e-12, 2.5, -3.0, float("nan")]), min_size=4, max_size=4),
                min_size=1, max_size=6))
def test_snap_ties_of_a_batch_set_each_score_to_the_highest_it_ties_with(rows):
    scores = np.array(rows)
    snapped = snap_ties(scores)
    for row, got in zip(scores, snapped, strict=True):
        expected = [np.nan if np.isnan(x) else max(y for y in row if abs(y - x) <= 1e-9 * max(1.0, abs(x), abs(y)))
                    for x in row]
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("method", "unscored_cells"), [("mean", False), ("borda", False), ("borda_partial", True)])
def test_batched_two_step_bootstrap_equals_two_step_refits_on_the_same_draws(method, unscored_cells):
    """Voters drawn within their groups, as documented (groups in name order, each group's members drawn with
    ``integers(0, size, (B, size))``), drawn here with numpy; each resample refitted two-step."""
    rng = np.random.default_rng(11)
    n_voters, n_systems, n_resamples = 30, 5, 40
    scores = rng.normal(np.arange(n_systems) * 0.2, 1.0, size=(n_voters, n_systems))
    if unscored_cells:
        scores[rng.random(scores.shape) < 0.2] = np.nan
    groups = np.array([f"g{v % 4}" for v in range(n_voters)])
    ballots = ballots_from_matrix(scores).with_columns(group=pl.Series(np.repeat(groups, n_systems)))
    table = bootstrap(method, ballots, n_resamples=n_resamples, seed=3, two_step=True)
    profile = build_profile(ballots)
    draw = np.random.default_rng(3)
    names = np.asarray(profile.groups)
    rows = np.concatenate([np.flatnonzero(names == g)[draw.integers(0, (names == g).sum(), size=(n_resamples, (names == g).sum()))]
                           for g in sorted(set(profile.groups))], axis=1)
    refits = np.array([score_two_step(method, Profile(profile.systems, tuple(profile.voters[v] for v in d), profile.scores[d],
                                                      profile.weights[d], tuple(profile.groups[v] for v in d)),
                                      {}, across=method, across_params=None)[1].scores for d in rows])
    ranks = rankdata(-refits, method="min", axis=1)
    expected = {s: (lo, hi, best, worst) for s, lo, hi, best, worst in zip(
        profile.systems, np.quantile(refits, 0.025, axis=0), np.quantile(refits, 0.975, axis=0),
        np.quantile(ranks, 0.025, axis=0, method="lower"), np.quantile(ranks, 0.975, axis=0, method="higher"),
        strict=True)}
    for system, s_low, s_high, r_best, r_worst in table.select(
            "system", "score_low", "score_high", "rank_best", "rank_worst").iter_rows():
        lo, hi, best, worst = expected[system]
        assert (s_low, s_high) == (pytest.approx(lo, rel=1e-9), pytest.approx(hi, rel=1e-9))
        assert (r_best, r_worst) == (best, worst)
    assert resampled_two_step(method, profile, {}, np.ones((1, n_voters)), across=method) is not None  # batched
    # explicit group weights batch too (every resample holds every group)
    halves = Profile(profile.systems, profile.voters, profile.scores, profile.weights, profile.groups,
                     np.full(n_voters, 0.5))
    assert resampled_two_step(method, halves, {}, np.ones((1, n_voters)), across=method) is not None


GROUP_WEIGHTS = {"g0": 3.0, "g1": 1.0, "g2": 0.5, "g3": 2.0}


def weighted_groups(n_voters: int = 24, n_systems: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(5)
    scores = rng.normal(np.arange(n_systems) * 0.3, 1.0, size=(n_voters, n_systems))
    groups = np.repeat([f"g{v % 4}" for v in range(n_voters)], n_systems)
    return ballots_from_matrix(scores).with_columns(
        group=pl.Series(groups), group_weight=pl.Series([GROUP_WEIGHTS[g] for g in groups]))


def group_draws(profile: Profile, seed: int, n_resamples: int) -> np.ndarray:
    """The documented draw: voters within their groups, groups in name order."""
    draw, names = np.random.default_rng(seed), np.asarray(profile.groups)
    return np.concatenate([np.flatnonzero(names == g)[draw.integers(0, (names == g).sum(), size=(n_resamples, (names == g).sum()))]
                           for g in sorted(set(profile.groups))], axis=1)


def test_two_step_mean_bootstrap_weighs_each_group_by_its_group_weight():
    """Independent reference: per resample, each group's mean of its drawn voters, then the group-weighted mean."""
    ballots, n_resamples = weighted_groups(), 60
    table = bootstrap("mean", ballots, n_resamples=n_resamples, seed=2, two_step=True)
    profile = build_profile(ballots)
    rows = group_draws(profile, 2, n_resamples)
    names = np.asarray(profile.groups)
    weight = np.array([GROUP_WEIGHTS[g] for g in names])
    means = []
    for d in rows:
        per_group = [(profile.scores[d[names[d] == g]].mean(axis=0), GROUP_WEIGHTS[g]) for g in sorted(GROUP_WEIGHTS)]
        means.append(sum(m * w for m, w in per_group) / sum(w for _, w in per_group))
    means = np.array(means)
    low, high = np.quantile(means, 0.025, axis=0), np.quantile(means, 0.975, axis=0)
    got = dict(zip(table["system"], zip(table["score_low"], table["score_high"], strict=True), strict=True))
    for s, system in enumerate(profile.systems):
        assert got[system] == (pytest.approx(low[s], rel=1e-9), pytest.approx(high[s], rel=1e-9))
    assert weight.min() != weight.max()  # the weights differ, so dropping them changes the means


def test_two_step_refit_bootstrap_keeps_the_group_weights():
    """A method without a batched form is refitted per resample: each drawn profile keeps its groups' weights."""
    assert method_info("copeland").resampled is None
    ballots, n_resamples = weighted_groups(), 30
    table = bootstrap("copeland", ballots, n_resamples=n_resamples, seed=4, two_step=True)
    profile = build_profile(ballots)
    refits = np.array([score_two_step("copeland", Profile(profile.systems, tuple(profile.voters[v] for v in d),
                                                          profile.scores[d], profile.weights[d],
                                                          tuple(profile.groups[v] for v in d), profile.group_weights[d]),
                                      {}, across="copeland", across_params=None)[1].scores for d in group_draws(profile, 4, n_resamples)])
    low, high = np.quantile(refits, 0.025, axis=0), np.quantile(refits, 0.975, axis=0)
    got = dict(zip(table["system"], zip(table["score_low"], table["score_high"], strict=True), strict=True))
    assert [got[s] for s in profile.systems] == [(pytest.approx(lo), pytest.approx(hi)) for lo, hi in zip(low, high, strict=True)]
