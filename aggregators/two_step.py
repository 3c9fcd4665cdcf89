"""Two-step aggregation: rank inside every group, then rank the groups' results.

The two-level aggregations of the literature (Colombo et al. 2022, "What are
the best systems? New perspectives on NLP benchmarking", NeurIPS: Borda within
each task, then across tasks; the mean of per-task means of leaderboards).
Every group becomes one second-step voter whose ballot is the group's scores
(a system the group did not score is missing from it) and whose weight is
:func:`group_weight`.  The second step (:func:`across_groups`) works on
profiles directly and is the same function for whole-table runs
(:func:`score_two_step`) and for the partition-wise two-level finish
(:mod:`aggregators.partition_forms`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from aggregators.errors import InvalidBallotsError
from aggregators.profile import Profile
from aggregators.registry import Scored
from aggregators.scoring import score_profile


def group_weight(weight_sums: np.ndarray, voter_counts: np.ndarray) -> np.ndarray:
    """A group's weight as a second-step voter: the mean weight of its voters.

    The mean, not the sum, so splitting a task into more instances does not
    make it heavier.
    """
    return np.asarray(weight_sums, dtype=float) / np.asarray(voter_counts, dtype=float)


def across_groups(
    across: str,
    systems: Sequence[str],
    group_names: Sequence[str],
    within: np.ndarray,
    weights: np.ndarray,
    params: Mapping[str, Any],
) -> tuple[Profile, Scored]:
    """The second step: method ``across`` over the groups' scores ``within`` (groups x systems, NaN = missing).

    Groups become voters in name order, as in a profile built from ballots,
    so the result does not depend on the order the groups came in.
    """
    within = np.asarray(within, dtype=float)
    infinite = np.argwhere(np.isinf(within))
    if len(infinite):
        g, s = infinite[0]
        raise InvalidBallotsError(
            f"two-step {across!r}: group {group_names[g]!r} gives system {systems[s]!r} the non-finite "
            f"score {within[g, s]} in the first step; use a first-step method with finite scores"
        )
    order = np.argsort(np.asarray(group_names, dtype=str), kind="stable")
    profile = Profile(
        systems=tuple(systems),
        voters=tuple(group_names[g] for g in order),
        scores=within[order],
        weights=np.asarray(weights, dtype=float)[order],
        groups=("",) * len(order),
    )
    return profile, score_profile(across, profile, params)


def _within_groups(
    name: str, profile: Profile, params: Mapping[str, Any]
) -> tuple[list[str], np.ndarray, np.ndarray, tuple[str, ...]]:
    """The first step: ``name`` inside every group; the groups, their scores, weights and notes.

    A system with no score in a group is missing in that group's row (a group
    that scores no system gives an all-missing row).
    """
    names, group_of_voter = np.unique(np.asarray(profile.groups, dtype=str), return_inverse=True)
    by_group = np.argsort(group_of_voter, kind="stable")  # one sort, not a scan of every voter per group
    starts = np.searchsorted(group_of_voter[by_group], np.arange(len(names) + 1))
    weights = group_weight(
        np.bincount(group_of_voter, weights=profile.weights, minlength=len(names)),
        np.bincount(group_of_voter, minlength=len(names)),
    )
    scores = np.full((len(names), len(profile.systems)), np.nan)
    notes: list[str] = []
    for index, group in enumerate(names.tolist()):  # a loop over groups, each scored as a profile
        rows = by_group[starts[index] : starts[index + 1]]
        scored_cols = np.flatnonzero(~np.isnan(profile.scores[rows]).all(axis=0))
        if not scored_cols.size:
            continue
        sub = Profile(
            systems=tuple(profile.systems[c] for c in scored_cols),
            voters=tuple(profile.voters[r] for r in rows),
            scores=profile.scores[np.ix_(rows, scored_cols)],
            weights=profile.weights[rows],
            groups=tuple(profile.groups[r] for r in rows),
        )
        result = score_profile(name, sub, params)
        notes.extend(f"group {group!r}: {n}" for n in result.notes)
        scores[index, scored_cols] = result.scores
    return names.tolist(), scores, weights, tuple(notes)


def score_two_step(
    name: str,
    profile: Profile,
    params: Mapping[str, Any],
    *,
    across: str,
    across_params: Mapping[str, Any] | None,
) -> tuple[Profile, Scored]:
    """Two-step scores of ``profile``: ``name`` inside every group, then ``across`` over the groups.

    Returns the second step's profile (its systems index the scores) and its
    scores with the notes of both steps.  ``across_params`` default to
    ``params`` when ``across`` is ``name``, else to ``across``'s defaults.
    """
    second_params = dict(across_params) if across_params is not None else (params if across == name else {})
    names, within, weights, notes = _within_groups(name, profile, params)
    second_profile, result = across_groups(across, profile.systems, names, within, weights, second_params)
    return second_profile, Scored(result.scores, notes + result.notes)
