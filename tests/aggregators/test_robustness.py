"""Robustness experiments against direct computations: every subset, every removed cell, every rescaling
ranked from scratch with ``aggregate`` on a tiny benchmark and compared with ``aggregators.compare``."""

import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorehouse.aggregators import InvalidParameterError, aggregate, build_profile, kendall_tau, top_k_agreement
from scorehouse.aggregators.robustness import compare_batch, summarise
from scorehouse.aggregators.robustness_missing import PartialBorda, missing_scores, observed_mean
from scorehouse.aggregators.robustness_scaling import rescaling
from scorehouse.aggregators.robustness_synthetic import synthetic_truth
from scorehouse.aggregators.robustness_tasks import task_subsets
from tests.aggregators.strategies_missing import enumerate_compatible, partial_profiles, system_names, to_ballots

SYSTEMS = ["a", "b", "c", "d"]
# Three tasks; T1 is a paired task of two voters (its halves must be dropped together), AX weighs nothing.
TINY = pl.DataFrame(
    {
        "voter": ["T1 | F1"] * 4 + ["T1 | acc"] * 4 + ["T2"] * 4 + ["T3"] * 4 + ["AX"] * 4,
        "system": SYSTEMS * 5,
        "score": [90, 80, 70, 60, 85, 88, 70, 61, 10, 40, 30, 20, 50, 52, 90, 10, 1, 2, 3, 4],
        "weight": [0.5] * 8 + [1.0] * 8 + [0.0] * 4,
        "group": ["T1"] * 8 + ["T2"] * 4 + ["T3"] * 4 + ["AX"] * 4,
    }
).with_columns(pl.col("score").cast(pl.Float64))
TASK_VOTERS = {"T1": ["T1 | F1", "T1 | acc"], "T2": ["T2"], "T3": ["T3"]}


def as_mapping(ranking: pl.DataFrame) -> dict[str, float]:
    return dict(zip(ranking["system"], -ranking["rank"].cast(pl.Float64)))


def direct(method: str, ballots: pl.DataFrame, reference: pl.DataFrame) -> tuple[float, float, float]:
    """Rank ``ballots`` from scratch and compare with ``reference`` through aggregators.compare."""
    ranking = as_mapping(aggregate(method, ballots))
    ref = as_mapping(reference)
    return kendall_tau(ranking, ref), top_k_agreement(ref, ranking, 1), top_k_agreement(ref, ranking, 3)


@st.composite
def score_stacks(draw):
    n = draw(st.integers(2, 7))
    values = st.sampled_from([0.0, 1.0, 2.0, 3.0])
    reference = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    rows = draw(st.lists(st.lists(values, min_size=n, max_size=n), min_size=1, max_size=4))
    return reference, np.array(rows)


@given(score_stacks())
def test_compare_batch_matches_the_pairwise_functions(case):
    reference, stack = case
    names = system_names(reference.size)
    tau, top1, top3 = compare_batch(reference, stack)
    for r, row in enumerate(stack):
        ref, got = dict(zip(names, reference)), dict(zip(names, row))
        np.testing.assert_equal(tau[r], kendall_tau(got, ref))
        assert top1[r] == pytest.approx(top_k_agreement(ref, got, 1))
        if reference.size >= 3:
            assert top3[r] == pytest.approx(top_k_agreement(ref, got, 3))
        else:
            assert np.isnan(top3[r])


@given(partial_profiles(max_systems=5, max_voters=4), st.data())
def test_partial_borda_under_a_mask_matches_enumeration(profile_case, data):
    scores, weights = profile_case
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=scores.size, max_size=scores.size))).reshape(scores.shape)
    keep &= ~np.isnan(scores)
    profile = build_profile(to_ballots(scores, weights))
    _, expected = enumerate_compatible(np.where(keep, scores, np.nan), weights)
    np.testing.assert_allclose(PartialBorda(profile).scores(keep), expected, atol=1e-9)


def test_observed_mean_matches_polars():
    profile = build_profile(TINY.filter(pl.col("weight") > 0))
    kept = profile.observed.copy()
    kept[0, 1] = kept[2, 0] = kept[3, 0] = False
    frame = pl.DataFrame(
        {"system": np.tile(profile.systems, len(profile.voters)), "score": profile.scores.ravel(),
         "weight": np.repeat(profile.weights, len(profile.systems)), "kept": kept.ravel()}
    ).filter("kept")
    expected = frame.group_by("system").agg((pl.col("score") * pl.col("weight")).sum() / pl.col("weight").sum()).sort("system")
    np.testing.assert_allclose(observed_mean(profile.scores, profile.weights, kept), expected["score"].to_numpy())


@pytest.mark.parametrize("method", ["mean", "borda", "copeland"])
def test_task_subsets_match_every_subset_ranked_directly(method):
    table = task_subsets(build_profile(TINY), [method], repetitions=40, seed=3)
    full = aggregate(method, TINY)
    for size in (1, 2, 3):
        expected = set()
        for subset in itertools.combinations(TASK_VOTERS, size):
            voters = [v for task in subset for v in TASK_VOTERS[task]]
            expected.add(tuple(np.round(direct(method, TINY.filter(pl.col("voter").is_in(voters)), full), 12)))
        got = table.filter(pl.col("setting") == size).select("kendall_tau", "top1", "top3").rows()
        got = {tuple(np.round(row, 12)) for row in got}
        assert got == expected  # 40 draws from at most 3 subsets: each one is seen, nothing else


def test_missing_scores_match_every_removal_ranked_directly():
    ballots = TINY.filter(pl.col("group") != "AX")
    profile = build_profile(ballots)
    cells = [(task, s) for task in TASK_VOTERS for s in SYSTEMS]  # 12 (task, system) cells
    rate = 1 / 12  # exactly one cell removed per repetition
    table = missing_scores(profile, ["borda_partial", "copeland", "mean"], rates=[0.0, rate], repetitions=60, seed=1)
    for method in ("borda_partial", "copeland"):
        full = aggregate(method, ballots)
        expected = set()
        for task, system in cells:
            gone = pl.col("voter").is_in(TASK_VOTERS[task]) & (pl.col("system") == system)
            masked = ballots.with_columns(pl.when(gone).then(None).otherwise(pl.col("score")).alias("score"))
            expected.add(tuple(np.round(direct(method, masked, full), 12)))
        got = table.filter((pl.col("method") == method) & (pl.col("setting") == rate))
        assert {tuple(np.round(r, 12)) for r in got.select("kendall_tau", "top1", "top3").rows()} == expected
        at_zero = table.filter((pl.col("method") == method) & (pl.col("setting") == 0.0))
        assert at_zero["kendall_tau"].to_list() == [1.0] * 60


def test_missing_scores_refuses_methods_that_need_complete_scores():
    with pytest.raises(InvalidParameterError, match="borda"):
        missing_scores(build_profile(TINY), ["borda"], rates=[0.1], repetitions=2, seed=0)


def test_rescaling_matches_direct_rescaled_rankings():
    table = rescaling(build_profile(TINY), ["mean", "borda"], factors=[0.1, 10.0])
    for method in ("mean", "borda"):
        full = aggregate(method, TINY)
        for task, factor in itertools.product(TASK_VOTERS, (0.1, 10.0)):
            scaled = TINY.with_columns(
                pl.when(pl.col("group") == task).then(pl.col("score") * factor).otherwise(pl.col("score")).alias("score")
            )
            row = table.filter(
                (pl.col("method") == method) & (pl.col("condition") == task) & (pl.col("setting") == factor)
            ).select("kendall_tau", "top1", "top3").row(0)
            np.testing.assert_allclose(row, direct(method, scaled, full))
    # Borda depends on the tasks' rankings only: no rescaling moves it; the mean moves for T3 x 10.
    assert table.filter(pl.col("method") == "borda")["kendall_tau"].to_list() == [1.0] * 6
    assert table.filter((pl.col("method") == "mean") & (pl.col("setting") == 10.0))["kendall_tau"].min() < 1


def test_experiments_are_deterministic_for_a_seed():
    profile = build_profile(TINY)
    runs = [
        lambda seed: task_subsets(profile, ["mean", "borda"], repetitions=15, seed=seed),
        lambda seed: missing_scores(profile, ["mean", "borda_partial"], rates=[0.2, 0.5], repetitions=15, seed=seed),
        lambda seed: synthetic_truth(["mean"], n_systems=5, n_voters=6, phis=[0.3], corrupted=[0, 2],
                                     repetitions=5, seed=seed),
    ]
    for run in runs:
        assert run(7).equals(run(7))
        assert not run(7).equals(run(8))


def test_synthetic_borda_stays_right_with_more_corrupted_tasks_than_the_mean():
    table = synthetic_truth(["mean", "borda", "borda_partial"], n_systems=8, n_voters=15, phis=[1.0],
                            corrupted=[0, 1, 3, 5], repetitions=30, seed=0)
    tau = summarise(table).pivot("method", index="setting", values="tau_mean").sort("setting")
    # No corruption: every method recovers the truth well.
    assert tau.filter(pl.col("setting") == 0).select("mean", "borda").min_horizontal().item() > 0.8
    # A third of the tasks corrupted (reversed, on a 10x scale): the mean is turned upside down,
    # the Borda count still recovers most of the truth.
    heavy = tau.filter(pl.col("setting") == 5)
    assert heavy["mean"].item() < 0 < 0.5 < heavy["borda"].item()
    assert heavy["borda_partial"].item() == pytest.approx(heavy["borda"].item())


def test_bad_parameters_are_named():
    profile = build_profile(TINY)
    with pytest.raises(InvalidParameterError, match="repetitions"):
        task_subsets(profile, ["mean"], repetitions=0, seed=0)
    with pytest.raises(InvalidParameterError, match="rates"):
        missing_scores(profile, ["mean"], rates=[1.5], repetitions=2, seed=0)
    with pytest.raises(InvalidParameterError, match="factors"):
        rescaling(profile, ["mean"], factors=[-1.0])
    with pytest.raises(InvalidParameterError, match="params"):
        task_subsets(profile, ["mean"], repetitions=2, seed=0, params={"borda": {}})
