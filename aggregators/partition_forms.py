"""The partition form of methods that use the complete voters only (Borda, the mean).

Such a method scores systems by a function of the weighted sums of per-voter
values (Borda points, scores) over the voters that scored every system, as
the rank flow does on whole tables.  Its combinable sums are, per group
(``task | metric``, which never straddles a partition), those weighted sums,
the group's total weight and its number of complete voters.  The one-level
finish applies ``within`` to the sums over all groups; the two-level finish
applies it per group, then ranks the groups with the same method through
:func:`aggregators.two_step.across_groups`, each group weighing
:func:`aggregators.two_step.group_weight` of its complete voters' weight and
its explicit group weight — the same second step as a whole-table two-step run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from scorehouse.aggregators.errors import InvalidBallotsError
from scorehouse.aggregators.partial import Partial, Voters, group_totals
from scorehouse.aggregators.registry import PartitionForm, Scored
from scorehouse.aggregators.two_step import across_groups, group_weight


def _require_complete_voters(partial: Partial, method: str) -> None:
    if partial.n_counted == 0:
        raise InvalidBallotsError(
            f"method {method!r} needs voters that score every system, and none of the {partial.n_voters} does; "
            f"use 'borda_partial' or 'bradley_terry'"
        )
    if partial.weight <= 0:
        # the whole-table methods refuse ballots whose weights are all 0: so do their partial forms
        raise InvalidBallotsError(
            f"method {method!r}: every voter that scores every system has weight 0, so no voter counts; "
            f"give at least one complete voter a positive weight"
        )


def complete_voters_form(
    method: str,
    per_voter: Callable[[np.ndarray], np.ndarray],
    within: Callable[[np.ndarray, np.ndarray], np.ndarray],
    parameters: Mapping[str, tuple[Any, ...] | None],
) -> PartitionForm:
    """The partition form of ``method`` (one- and two-level) over the complete voters.

    ``per_voter(scores)`` gives each complete voter's values (voters x
    systems); ``within(sums, weight)`` the method's scores of voters whose
    weighted values sum to ``sums`` with total weight ``weight`` (both
    broadcast per group).
    """

    def partial(voters: Voters) -> Partial:
        scores = np.asarray(voters.scores, dtype=float)
        weights = np.asarray(voters.weights, dtype=float)
        # a partition that lacks a system of the benchmark has no voter that scored every system
        complete = ~np.isnan(scores).any(axis=1) & (voters.absent == 0)
        full, w, groups = scores[complete], weights[complete], np.asarray(voters.groups)[complete]
        n_groups = len(voters.group_names)
        counts = np.bincount(groups, minlength=n_groups)
        kept = np.flatnonzero(counts > 0)
        return Partial(
            systems=tuple(voters.systems),
            n_voters=scores.shape[0],
            n_counted=int(complete.sum()),
            weight=float(w.sum()),
            group_names=tuple(voters.group_names[g] for g in kept),
            by_group={
                "sum": group_totals(w[:, None] * per_voter(full), groups, n_groups)[kept],
                "weight": np.bincount(groups, weights=w, minlength=n_groups)[kept],
                "group_weight": (
                    np.ones(n_groups) if voters.group_weights is None else np.asarray(voters.group_weights, dtype=float)
                )[kept],
            },
        )

    def finish(partial: Partial, params: Mapping[str, Any], two_step: bool) -> Scored:
        _require_complete_voters(partial, method)
        sums, weights = partial.per_group("sum"), partial.per_group("weight")
        if not two_step:
            return Scored(within(sums.sum(axis=0), weights.sum()))
        with np.errstate(invalid="ignore", divide="ignore"):  # a group of weight 0 has no mean: missing
            group_scores = within(sums, weights[:, None])
        weight = group_weight(weights, partial.per_group("group_weight"))
        _, result = across_groups(method, partial.systems, partial.group_names, group_scores, weight, params)
        return result

    return PartitionForm(partial=partial, finish=finish, parameters=parameters, two_step=True)
