"""Partition-wise partial results equal the whole-table methods of the registry.

Reference: :func:`aggregators.run` on the whole ballots (each method tested
against its own references elsewhere), with the complete voters only for the
methods that need complete ballots, as the rank flow does.  Partitions are
sets of whole groups, in every split hypothesis draws.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aggregators import build_profile, run
from aggregators.errors import InvalidBallotsError
from aggregators.partial import (
    borda_points,
    combine,
    finish_borda,
    finish_borda_partial,
    finish_bradley_terry,
    finish_mean,
    finish_two_level,
    partial_of,
)
from aggregators.positions import positional_points
from aggregators.synthetic import synthetic_ballots
from tests.aggregators.conftest import ballots


def partials(frame: pl.DataFrame, split: list[int]) -> list:
    """Partials of ``frame``'s voters split by group: group ``g`` goes to partition ``split[g]``."""
    profile = build_profile(frame)
    names = sorted(set(profile.groups))
    codes = np.array([names.index(g) for g in profile.groups])
    out = []
    for part in sorted(set(split[: len(names)])):
        rows = np.flatnonzero(np.isin(codes, [g for g in range(len(names)) if split[g] == part]))
        if rows.size:
            out.append(partial_of(profile.systems, profile.scores[rows], profile.weights[rows], codes[rows], names))
    return out


def complete_voters(frame: pl.DataFrame) -> pl.DataFrame:
    n = frame.get_column("system").n_unique()
    full = frame.filter(pl.col("score").is_not_null()).group_by("voter").agg(pl.len()).filter(pl.col("len") == n)
    return frame.filter(pl.col("voter").is_in(full.get_column("voter").implode()))


def scores_of(ranking: pl.DataFrame) -> dict[str, float]:
    return dict(ranking.select("system", "score").iter_rows())


def same_ranking(ours: pl.DataFrame, reference: pl.DataFrame, exact: bool) -> None:
    assert ours.select("system", "rank").sort("system").equals(reference.select("system", "rank").sort("system"))
    mine, theirs = scores_of(ours), scores_of(reference)
    if exact:
        assert mine == theirs
    else:
        assert mine == pytest.approx(theirs, rel=1e-12, abs=1e-12)


@given(ballots(min_systems=2, missing=True, groups=True), st.lists(st.integers(0, 2), min_size=2, max_size=2))
def test_partitions_add_up_to_the_whole_table(frame, split):
    whole = combine(partials(frame, split))
    complete = complete_voters(frame)
    if complete.height and complete.get_column("weight").sum() > 0:
        same_ranking(finish_borda(whole).ranking, run("borda", complete).ranking, exact=True)
        same_ranking(finish_two_level(whole, "borda").ranking, run("borda", complete, two_step=True).ranking, exact=False)
        if complete.group_by("group").agg(pl.col("weight").sum()).get_column("weight").min() > 0:
            same_ranking(finish_mean(whole).ranking, run("mean", complete).ranking, exact=False)
            same_ranking(finish_two_level(whole, "mean").ranking, run("mean", complete, two_step=True).ranking, exact=False)
    else:
        with pytest.raises(InvalidBallotsError):
            finish_borda(whole)
    same_ranking(finish_bradley_terry(whole).ranking, run("bradley_terry", frame).ranking, exact=True)
    same_ranking(finish_borda_partial(whole).ranking, run("borda_partial", frame).ranking, exact=False)


def test_a_synthetic_benchmark_split_by_task_ranks_as_a_whole():
    frame = synthetic_ballots(8, 600, phi=0.3, seed=3, missing_fraction=0.1, n_groups=6)
    whole = combine(partials(frame, [0, 1, 2, 0, 1, 2]))
    assert whole.n_voters == 600
    same_ranking(finish_bradley_terry(whole).ranking, run("bradley_terry", frame).ranking, exact=True)
    same_ranking(finish_borda_partial(whole).ranking, run("borda_partial", frame).ranking, exact=False)
    complete = complete_voters(frame)
    assert 0 < complete.get_column("voter").n_unique() < 600
    same_ranking(finish_borda(whole).ranking, run("borda", complete).ranking, exact=True)
    same_ranking(finish_two_level(whole, "borda").ranking, run("borda", complete, two_step=True).ranking, exact=True)
    same_ranking(finish_two_level(whole, "mean").ranking, run("mean", complete, two_step=True).ranking, exact=False)


@given(st.lists(st.lists(st.sampled_from((0.0, 1.0, 2.5, 4.0)), min_size=4, max_size=4), min_size=1, max_size=30))
def test_borda_points_are_the_positional_points_with_averaged_ties(rows):
    scores = np.array(rows)
    vector = np.arange(scores.shape[1] - 1, -1, -1, dtype=float)
    assert np.array_equal(borda_points(scores), positional_points(scores, vector, "average"))


def test_a_missing_part_is_named():
    profile = build_profile(synthetic_ballots(3, 5, phi=1.0, seed=0))
    only_ranks = partial_of(profile.systems, profile.scores, profile.weights, np.zeros(5, dtype=int), ["g"], parts=("ranks",))
    with pytest.raises(InvalidBallotsError, match="'pairwise'"):
        finish_bradley_terry(only_ranks)
    with pytest.raises(InvalidBallotsError, match="unknown partial part"):
        partial_of(profile.systems, profile.scores, profile.weights, np.zeros(5, dtype=int), ["g"], parts=("votes",))


def test_partials_over_other_systems_or_the_same_group_do_not_combine():
    profile = build_profile(synthetic_ballots(3, 4, phi=1.0, seed=0))
    one = partial_of(profile.systems, profile.scores, profile.weights, np.zeros(4, dtype=int), ["g"])
    with pytest.raises(InvalidBallotsError, match="a group appears in two partitions"):
        combine([one, one])
    other = partial_of(("a", "b", "c"), profile.scores, profile.weights, np.zeros(4, dtype=int), ["h"])
    with pytest.raises(InvalidBallotsError, match="different systems"):
        combine([one, other])


def test_complete_voters_of_weight_zero_are_refused_like_the_whole_table():
    frame = pl.DataFrame(
        {"voter": ["a", "a", "b", "b"], "system": ["x", "y", "x", "y"], "score": [None, None, 0.5, 0.5],
         "weight": [1.0, 1.0, 0.0, 0.0], "group": ["g"] * 4}
    )
    whole = combine(partials(frame, [0]))
    with pytest.raises(InvalidBallotsError):
        run("borda", complete_voters(frame))
    with pytest.raises(InvalidBallotsError, match="weight 0"):
        finish_borda(whole)
