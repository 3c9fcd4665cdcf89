"""The generic partial-sum machinery, and the partition forms on a benchmark split by task.

Partition-wise = whole-table for every method with a partition form, on
random ballots, is a registry-wide contract (``test_registry_contract.py``).
References here: :func:`aggregators.run` on the whole ballots (each method
tested against its own references elsewhere), on the complete voters for the
methods that need complete ballots (:func:`transforms.rank_plan.complete_ballots`,
as the rank flow does), and direct loops for Borda points.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorehouse.aggregators import REGISTRY, InvalidParameterError, Voters, build_profile, combine, finish_partitioned, run
from scorehouse.aggregators.borda import borda_points
from scorehouse.aggregators.errors import InvalidBallotsError
from scorehouse.aggregators.synthetic import synthetic_ballots
from scorehouse.transforms.rank_plan import complete_ballots


def voters_of(frame: pl.DataFrame, rows: np.ndarray | None = None) -> Voters:
    profile = build_profile(frame)
    names = sorted(set(profile.groups))
    codes = np.searchsorted(names, profile.groups)
    rows = np.arange(len(profile.voters)) if rows is None else rows
    return Voters(profile.systems, profile.scores[rows], profile.weights[rows], codes[rows], tuple(names))


def split_by_group(frame: pl.DataFrame, split: list[int]) -> list[Voters]:
    """The voters of ``frame`` split by group: group ``g`` goes to partition ``split[g]``."""
    whole = voters_of(frame)
    parts = []
    for part in sorted(set(split[: len(whole.group_names)])):
        chosen = [g for g in range(len(whole.group_names)) if split[g] == part]
        rows = np.flatnonzero(np.isin(whole.groups, chosen))
        if rows.size:
            parts.append(voters_of(frame, rows))
    return parts


def partition_wise(name: str, frame: pl.DataFrame, split: list[int], two_step: bool = False):  # noqa: ANN201
    form = REGISTRY[name].partition
    return finish_partitioned(name, combine([form.partial(v) for v in split_by_group(frame, split)]), two_step=two_step)


def assert_same(ours: pl.DataFrame, reference: pl.DataFrame) -> None:
    ours, reference = ours.sort("system"), reference.sort("system")
    assert ours.get_column("system").to_list() == reference.get_column("system").to_list()
    assert ours.get_column("rank").to_list() == reference.get_column("rank").to_list()
    np.testing.assert_allclose(ours.get_column("score").to_numpy(), reference.get_column("score").to_numpy(), rtol=1e-12)


def test_a_synthetic_benchmark_split_by_task_ranks_as_a_whole():
    frame = synthetic_ballots(8, 600, phi=0.3, seed=3, missing_fraction=0.1, n_groups=6)
    split = [0, 1, 2, 0, 1, 2]
    for name in ("bradley_terry", "borda_partial"):
        result = partition_wise(name, frame, split)
        assert result.n_voters == 600
        assert_same(result.ranking, run(name, frame).ranking)
    complete, _ = complete_ballots(frame, "instance")
    assert 0 < complete.get_column("voter").n_unique() < 600
    for name in ("borda", "mean"):
        for two_step in (False, True):
            result = partition_wise(name, frame, split, two_step)
            assert result.notes[0].startswith("complete voters only: left out")
            assert_same(result.ranking, run(name, complete, two_step=two_step).ranking)


def direct_borda_points(scores: np.ndarray, ties: str) -> np.ndarray:
    """Per voter and system: systems scored lower, plus 1/2, 1 or 0 per other system tied (a direct loop)."""
    per_tie = {"average": 0.5, "min": 1.0, "max": 0.0}[ties]
    out = np.zeros_like(scores)
    for v, row in enumerate(scores):
        for s, x in enumerate(row):
            out[v, s] = sum(y < x for y in row) + per_tie * (sum(y == x for y in row) - 1)
    return out


@given(
    st.lists(st.lists(st.sampled_from((0.0, 1.0, 2.5, 4.0)), min_size=4, max_size=4), min_size=1, max_size=40),
    st.sampled_from(("average", "min", "max")),
)
def test_borda_points_are_the_direct_count(rows, ties):
    """Both of borda_points' ways: fewer voters than systems squared (16) and more."""
    scores = np.array(rows)
    assert np.array_equal(borda_points(scores, ties), direct_borda_points(scores, ties))


def test_a_missing_sum_is_named():
    frame = synthetic_ballots(3, 5, phi=1.0, seed=0)
    borda_sums = REGISTRY["borda"].partition.partial(voters_of(frame))
    with pytest.raises(InvalidBallotsError, match="'wins'"):
        finish_partitioned("bradley_terry", borda_sums)


def test_partials_over_unknown_systems_other_forms_or_the_same_group_do_not_combine():
    frame = synthetic_ballots(3, 4, phi=1.0, seed=0)
    voters = voters_of(frame)
    one = REGISTRY["borda"].partition.partial(voters)
    with pytest.raises(InvalidBallotsError, match="a group appears in two partitions"):
        combine([one, one])
    other = REGISTRY["borda"].partition.partial(replace(voters, systems=("a", "b", "c")))
    with pytest.raises(InvalidBallotsError, match="cannot be widened"):
        combine([one, other], systems=one.systems)
    with pytest.raises(InvalidBallotsError, match="different forms"):
        combine([REGISTRY["mean"].partition.partial(voters), REGISTRY["borda_partial"].partition.partial(voters)])
    with pytest.raises(InvalidBallotsError, match="no partition"):
        combine([])


def test_a_run_without_a_partition_form_is_refused():
    partial = REGISTRY["borda"].partition.partial(voters_of(synthetic_ballots(3, 4, phi=1.0, seed=0)))
    with pytest.raises(InvalidParameterError, match="no partition-wise form"):
        finish_partitioned("borda", partial, {"ties": "max"})
    with pytest.raises(InvalidParameterError, match="no partition-wise form"):
        finish_partitioned("kemeny", partial)


def test_complete_voters_of_weight_zero_are_refused_like_the_whole_table():
    frame = pl.DataFrame(
        {"voter": ["a", "a", "b", "b"], "system": ["x", "y", "x", "y"], "score": [None, None, 0.5, 0.5],
         "weight": [1.0, 1.0, 0.0, 0.0], "group": ["g"] * 4}
    )
    complete, _ = complete_ballots(frame, "instance")
    with pytest.raises(InvalidBallotsError):
        run("borda", complete)
    with pytest.raises(InvalidBallotsError, match="weight 0"):
        partition_wise("borda", frame, [0])


@pytest.mark.parametrize("n_voters", [3, 200])  # below and above systems squared: both of borda_points' ways
@pytest.mark.parametrize("ties", ["average", "min", "max"])
def test_borda_points_of_few_and_many_voters(n_voters, ties):
    scores = np.random.default_rng(n_voters).integers(0, 3, size=(n_voters, 5)).astype(float)
    assert np.array_equal(borda_points(scores, ties), direct_borda_points(scores, ties))
