"""Two-step aggregation: rank inside every group, then rank the groups' results.

The two-level aggregations of the literature (Colombo et al. 2022, "What are
the best systems? New perspectives on NLP benchmarking", NeurIPS: Borda within
each task, then across tasks; the mean of per-task means of leaderboards).
Every group becomes one second-step voter whose ballot is the group's scores
(a system the group did not score is missing from it) and whose weight is
:func:`group_weight`: every group weighs the same (the papers' two-level
aggregations and Vote'n'Rank's ``two_step_ranking``) unless the ballots give
explicit group weights, and a group whose voters all weigh 0 takes no part.
What happens to a system a group did not score is ``unscored``: ``"drop"``
leaves it out of that group's first step (missing from the group's ballot at
level 2); ``"impute"`` ranks every system in every group, the method imputing
what the group did not score — the two-level Borda of Himmi et al. (2023,
"Towards More Robust NLP System Evaluation: Handling Missing Scores in
Benchmarks"), the default for methods registered with ``imputes_in_groups``
(``borda_partial``).
Level-1 scores pass to level 2 through :func:`aggregators.ranking.snap_ties`,
so scores the tie rule calls equal are equal for the second step too.  The second step (:func:`across_groups`) works on
profiles directly and is the same function for whole-table runs
(:func:`score_two_step`) and for the partition-wise two-level finish
(:mod:`aggregators.partition_forms`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scorehouse.aggregators.errors import InvalidBallotsError, InvalidParameterError
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.ranking import snap_ties
from scorehouse.aggregators.registry import Scored, method_info
from scorehouse.aggregators.scoring import score_profile


def group_weight(weight_sums: np.ndarray, explicit: np.ndarray | None = None) -> np.ndarray:
    """A group's weight as a second-step voter: ``explicit`` (per group) or 1, and 0 without counted voters.

    Equal by default, not the mean or sum of the voters' weights: a task
    split into two halves of weight 0.5 (GLUE's paired metrics) weighs as much
    as a task of one voter of weight 1, as in the papers' two-level
    aggregations.  A group whose voters all weigh 0 (``weight_sums == 0``)
    weighs 0 and is left out of the second step.
    """
    sums = np.asarray(weight_sums, dtype=float)
    base = np.ones_like(sums) if explicit is None else np.asarray(explicit, dtype=float)
    return np.where(sums > 0, base, 0.0)


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
    so the result does not depend on the order the groups came in.  Groups of
    weight 0 take no part; each group's scores pass through
    :func:`aggregators.ranking.snap_ties` (exact ties survive float noise).
    """
    weights = np.asarray(weights, dtype=float)
    counted = np.flatnonzero(weights > 0)
    if not counted.size:
        raise InvalidBallotsError(
            f"two-step {across!r}: every group weighs 0, so no group counts; give at least one group "
            f"a positive weight (and a voter of positive weight)"
        )
    within = np.asarray(within, dtype=float)[counted]
    group_names = [group_names[g] for g in counted]
    weights = weights[counted]
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
        scores=snap_ties(within[order]),  # every group's row at once
        weights=weights[order],
        groups=("",) * len(order),
    )
    return profile, score_profile(across, profile, params)


def explicit_group_weights(profile: Profile, group_of_voter: np.ndarray, n_groups: int) -> np.ndarray | None:
    """Each group's weight from the profile's per-voter ``group_weights`` (None when the ballots gave none)."""
    if profile.group_weights is None:
        return None
    per_group = np.empty(n_groups)
    per_group[group_of_voter] = profile.group_weights
    return per_group


UNSCORED = ("impute", "drop")


def unscored_rule(name: str, unscored: str | None) -> str:
    """``unscored`` checked for method ``name``, or the method's default when None."""
    info = method_info(name)
    if unscored is None:
        return "impute" if info.imputes_in_groups else "drop"
    if unscored not in UNSCORED:
        raise InvalidParameterError(f"two-step {name!r}: 'unscored' must be one of {UNSCORED}, got {unscored!r}")
    if unscored == "impute" and not info.handles_missing:
        raise InvalidParameterError(
            f"two-step {name!r}: unscored='impute' needs a method that handles missing scores "
            f"(e.g. 'borda_partial'); use unscored='drop'"
        )
    return unscored


def _within_groups(
    name: str, profile: Profile, params: Mapping[str, Any], unscored: str
) -> tuple[list[str], np.ndarray, np.ndarray, tuple[str, ...]]:
    """The first step: ``name`` inside every group; the groups, their scores, weights and notes.

    With ``unscored="drop"`` a system with no score in a group is missing in
    that group's row (a group that scores no system gives an all-missing
    row); with ``"impute"`` every system is ranked in every group.
    """
    names, group_of_voter = np.unique(np.asarray(profile.groups, dtype=str), return_inverse=True)
    by_group = np.argsort(group_of_voter, kind="stable")  # one sort, not a scan of every voter per group
    starts = np.searchsorted(group_of_voter[by_group], np.arange(len(names) + 1))
    weights = group_weight(
        np.bincount(group_of_voter, weights=profile.weights, minlength=len(names)),
        explicit_group_weights(profile, group_of_voter, len(names)),
    )
    scores = np.full((len(names), len(profile.systems)), np.nan)
    notes: list[str] = []
    # indexed in C: a group of thousands of instances (a bootstrap refits it hundreds of times) is not a Python loop
    systems, voters = np.asarray(profile.systems, dtype=object), np.asarray(profile.voters, dtype=object)
    groups = np.asarray(profile.groups, dtype=object)
    for index, group in enumerate(names.tolist()):  # a loop over groups, each scored as a profile
        rows = by_group[starts[index] : starts[index + 1]]
        scored_cols = (
            np.arange(len(profile.systems))
            if unscored == "impute"
            else np.flatnonzero(~np.isnan(profile.scores[rows]).all(axis=0))
        )
        if not scored_cols.size or weights[index] == 0:  # nothing scored, or a group that takes no part
            continue
        sub = Profile(
            systems=tuple(systems[scored_cols].tolist()),
            voters=tuple(voters[rows].tolist()),
            scores=profile.scores[np.ix_(rows, scored_cols)],
            weights=profile.weights[rows],
            groups=tuple(groups[rows].tolist()),
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
    unscored: str | None = None,
) -> tuple[Profile, Scored]:
    """Two-step scores of ``profile``: ``name`` inside every group, then ``across`` over the groups.

    Returns the second step's profile (its systems index the scores) and its
    scores with the notes of both steps.  ``across_params`` default to
    ``params`` when ``across`` is ``name``, else to ``across``'s defaults;
    ``unscored`` (see the module docstring) to the method's default.
    """
    second_params = dict(across_params) if across_params is not None else (params if across == name else {})
    names, within, weights, notes = _within_groups(name, profile, params, unscored_rule(name, unscored))
    second_profile, result = across_groups(across, profile.systems, names, within, weights, second_params)
    return second_profile, Scored(result.scores, notes + result.notes)


def resampled_two_step(
    name: str, profile: Profile, params: Mapping[str, Any], multiplicity: np.ndarray, *, across: str,
) -> Scored | None:
    """Two-step scores (resamples x systems) of every resample of the voters drawn within their groups
    (``multiplicity``: resamples x voters), equal to :func:`score_two_step` on each drawn profile (default
    ``unscored``, the second step with ``params`` when ``across`` is ``name``), or None when a group cannot be
    batched.

    The first step of each group runs once for all resamples through ``name``'s ``resampled`` form; the second
    runs per resample on the groups' scores (groups x systems, small).  A group is batched when every resample
    ranks the same systems in it with the same group weight, as a refit would: every voter of the group scores
    every system it ranks (or ``impute`` ranks them all) and weighs more than 0.  Voters are drawn within their
    groups, so every resample holds every group, with its explicit weight when the ballots give one.
    """
    info = method_info(name)
    unscored = unscored_rule(name, None)
    if info.resampled is None:
        return None
    names, group_of_voter = np.unique(np.asarray(profile.groups, dtype=str), return_inverse=True)
    by_group = np.argsort(group_of_voter, kind="stable")
    starts = np.searchsorted(group_of_voter[by_group], np.arange(len(names) + 1))
    weights = group_weight(np.bincount(group_of_voter, weights=profile.weights, minlength=len(names)),
                           explicit_group_weights(profile, group_of_voter, len(names)))
    within = np.full((multiplicity.shape[0], len(names), len(profile.systems)), np.nan)
    notes: list[str] = []
    for index, group in enumerate(names.tolist()):  # a loop over groups, each batched over the resamples
        rows = by_group[starts[index] : starts[index + 1]]
        observed = ~np.isnan(profile.scores[rows])
        columns = np.arange(len(profile.systems)) if unscored == "impute" else np.flatnonzero(observed.any(axis=0))
        if not columns.size or weights[index] == 0:
            continue
        if (unscored != "impute" and not observed[:, columns].all()) or (profile.weights[rows] <= 0).any():
            return None  # a resample could rank other systems in this group, or weigh it 0: refit instead
        sub = Profile(tuple(np.asarray(profile.systems, dtype=object)[columns].tolist()),
                      tuple(np.asarray(profile.voters, dtype=object)[rows].tolist()),
                      profile.scores[np.ix_(rows, columns)], profile.weights[rows], (str(group),) * rows.size)
        result = info.resampled(sub, multiplicity[:, rows], **params)
        notes.extend(f"group {group!r}: {n}" for n in result.notes)
        within[:, index, columns] = result.scores
    second_params = params if across == name else {}
    scores = []
    for row in within:  # the second step per resample: a method over the groups' scores
        _, result = across_groups(across, profile.systems, names.tolist(), row, weights, second_params)
        scores.append(result.scores)
        notes.extend(result.notes)
    return Scored(np.array(scores), tuple(dict.fromkeys(notes)))
